//! The examples of README.md and docs/*.md that are marked as checked run here, with
//! the real binary, and must print what the page shows; and every relative link of
//! those pages must lead to a file and heading that exist.
//!
//! # The marking convention
//!
//! A checked example is a fenced block whose info string is `console test`:
//!
//! ````markdown
//! ```console test
//! $ indus-tool grep -w greet src
//! src/lib.rs:2: pub fn greet(name: &str) -> String {
//!
//! Found 1 match in 1 file (searched 2 files).
//! $ indus-tool grep nothing src   # exit 1
//! No matches for /nothing/ in 2 files.
//! ```
//! ````
//!
//! - A line starting with `$ ` is a command, run by `sh -c` with this build as
//!   `indus-tool` on `PATH`. A command ending in `\` goes on to the next line; a
//!   line starting with `> ` (a shell's second prompt, which is left out) continues
//!   it too, joined with a line break (inside quotes, part of the argument).
//! - The lines up to the next command are its output: what a terminal shows, its
//!   stdout and stderr as they interleave. The command runs on a pseudo-terminal,
//!   so the page shows what a reader who types it sees (`2>/dev/null` or `| cat`
//!   in the command show the other views; a pipe on stdout alone, with stderr still
//!   on the terminal, makes their order vary from run to run, so redirect one of
//!   them).
//! - A trailing `# exit N` comment states the exit status; without one it must be 0.
//! - In an output line, `[..]` stands for any text within the line (a time, a pid);
//!   a line that is just `...` for any number of lines.
//!
//! The files an example needs are fenced blocks whose info string carries
//! `file=PATH` (after the language word: ```` ```rust file=src/lib.rs ````), and
//! optionally `mode=755`. The block's text, with a final line break, is the file.
//! A file block serves every checked example after it until the next heading of
//! its own level or higher (declared under a `##` heading, it serves the `###`
//! sections below it too); a later block for the same path replaces it. Inside an
//! HTML comment (`<!-- … -->`) a file block is hidden from the rendered page and
//! serves the same way.
//!
//! # What each example gets
//!
//! A fresh temp folder holding the declared files, which is the working directory
//! of each of its commands in turn (so state such as a checklist carries from one
//! command to the next within the block, never between blocks). The environment is
//! cleared and rebuilt: `HOME`, the XDG folders and `TMPDIR` inside the temp
//! folder, `NO_COLOR=1`, `TZ=UTC`, `LANG=C.UTF-8`, a 100×40 terminal
//! (`COLUMNS`/`LINES` too), and every proxy variable pointing at a closed port, so
//! nothing reaches the network. A command gets 60 s.

use crate::common;

use common::{fence_open, is_fence_close};
use std::io::Read as _;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::libc;

/// The pages whose examples and links are checked.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// A page's name as a failure reports it: its path in the repository.
fn shown(page: &Path) -> String {
    page.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(page)
        .display()
        .to_string()
}

#[derive(Debug, Clone)]
struct FileDecl {
    path: String,
    content: String,
    mode: Option<u32>,
}

#[derive(Debug)]
struct Example {
    /// 1-based line of the block's opening fence.
    line: usize,
    commands: Vec<Cmd>,
    files: Vec<FileDecl>,
}

#[derive(Debug)]
struct Cmd {
    /// 1-based line of the `$ ` line.
    line: usize,
    text: String,
    status: i32,
    expected: Vec<String>,
}

fn is_heading(line: &str) -> bool {
    heading_level(line).is_some()
}

/// An ATX heading's level (the number of `#`).
fn heading_level(line: &str) -> Option<usize> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    ((1..=6).contains(&hashes) && line[hashes..].starts_with(' ')).then_some(hashes)
}

/// The checked examples of one page, each with the files declared before it in its
/// section or a section that holds it.
fn parse(page: &str, text: &str) -> Result<Vec<Example>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut examples = Vec::new();
    // Each file with the level of the section that declared it (0: before any heading).
    let mut files: Vec<(usize, FileDecl)> = Vec::new();
    let mut level = 0;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(l) = heading_level(line) {
            files.retain(|(at, _)| *at < l);
            level = l;
            i += 1;
            continue;
        }
        let Some((marker, indent, info)) = fence_open(line) else {
            i += 1;
            continue;
        };
        let open = i + 1;
        let mut body = Vec::new();
        i += 1;
        while i < lines.len() && !is_fence_close(lines[i], &marker) {
            let l = lines[i];
            let strip = l.len() - l.trim_start_matches(' ').len();
            body.push(&l[strip.min(indent)..]);
            i += 1;
        }
        if i == lines.len() {
            return Err(format!("{page}:{open}: the fence is never closed"));
        }
        i += 1;
        let mut words = info.split_whitespace();
        let lang = words.next().unwrap_or("");
        let (mut test, mut path, mut mode) = (false, None, None);
        for w in words {
            if w == "test" {
                test = true;
            } else if let Some(p) = w.strip_prefix("file=") {
                path = Some(p.to_string());
            } else if let Some(m) = w.strip_prefix("mode=") {
                mode = Some(
                    u32::from_str_radix(m, 8)
                        .map_err(|_| format!("{page}:{open}: mode={m} is not octal"))?,
                );
            }
        }
        if test && lang != "console" {
            return Err(format!(
                "{page}:{open}: a checked example is a `console test` block, not `{info}`"
            ));
        }
        if test && path.is_some() {
            return Err(format!(
                "{page}:{open}: a block is either an example or a file"
            ));
        }
        if let Some(path) = path {
            let mut content = body.join("\n");
            content.push('\n');
            files.retain(|(_, f)| f.path != path);
            files.push((
                level,
                FileDecl {
                    path,
                    content,
                    mode,
                },
            ));
        } else if test {
            let commands = commands(page, open, &body)?;
            examples.push(Example {
                line: open,
                commands,
                files: files.iter().map(|(_, f)| f.clone()).collect(),
            });
        }
    }
    Ok(examples)
}

/// The commands of a block's body (which starts on the line after `open`).
fn commands(page: &str, open: usize, body: &[&str]) -> Result<Vec<Cmd>, String> {
    let mut cmds: Vec<Cmd> = Vec::new();
    let mut j = 0;
    while j < body.len() {
        let line = body[j];
        let Some(first) = line.strip_prefix("$ ") else {
            match cmds.last_mut() {
                Some(c) => c.expected.push(line.to_string()),
                None => {
                    return Err(format!(
                        "{page}:{}: a checked example starts with a `$ ` command",
                        open + 1 + j
                    ));
                }
            }
            j += 1;
            continue;
        };
        let at = open + 1 + j;
        let mut text = first.to_string();
        j += 1;
        while j < body.len() {
            if text.ends_with('\\') {
                text.push('\n');
                text.push_str(body[j].strip_prefix("> ").unwrap_or(body[j]));
            } else if let Some(more) = body[j].strip_prefix("> ") {
                text.push('\n');
                text.push_str(more);
            } else {
                break;
            }
            j += 1;
        }
        let last = text.lines().last().unwrap_or("");
        let status = match last.rfind("# exit ") {
            Some(k) => last[k + 7..]
                .trim()
                .parse()
                .map_err(|_| format!("{page}:{at}: `# exit` takes a number"))?,
            None => 0,
        };
        cmds.push(Cmd {
            line: at,
            text,
            status,
            expected: Vec::new(),
        });
    }
    if cmds.is_empty() {
        return Err(format!(
            "{page}:{open}: a checked example without a command"
        ));
    }
    Ok(cmds)
}

/// `[..]` is any text within the line.
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if line.len() < first.len() + last.len() || !line.starts_with(first) || !line.ends_with(last) {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(k) => rest = &rest[k + part.len()..],
            None => return false,
        }
    }
    true
}

/// A line that is just `...` is any number of lines.
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e == "..." => {
            (0..=actual.len()).any(|k| lines_match(rest, &actual[k..]))
        }
        Some((e, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| line_matches(e, a) && lines_match(rest, more)),
    }
}

struct Ran {
    status: i32,
    output: String,
    timed_out: bool,
}

/// Run `sh -c TEXT` in `dir` on a fresh pseudo-terminal (stdin, stdout and stderr),
/// as the session leader with it as its controlling terminal, and read what it
/// shows. Output post-processing is off, so the bytes are the program's own (no
/// `\r` added before each `\n`).
fn run_on_terminal(text: &str, dir: &Path, env: &[(String, String)], limit: Duration) -> Ran {
    // SAFETY: plain libc calls on descriptors this function owns; every result is
    // checked.
    let (master, slave) = unsafe {
        let m = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(m >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
        let master = OwnedFd::from_raw_fd(m);
        assert_eq!(libc::grantpt(m), 0, "grantpt");
        assert_eq!(libc::unlockpt(m), 0, "unlockpt");
        let mut name = [0 as libc::c_char; 256];
        assert_eq!(libc::ptsname_r(m, name.as_mut_ptr(), name.len()), 0);
        let size = libc::winsize {
            ws_row: 40,
            ws_col: 100,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        assert_eq!(libc::ioctl(m, libc::TIOCSWINSZ, &size), 0, "TIOCSWINSZ");
        let s = libc::open(
            name.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC,
        );
        assert!(s >= 0, "open the pty: {}", std::io::Error::last_os_error());
        let slave = OwnedFd::from_raw_fd(s);
        let mut t: libc::termios = std::mem::zeroed();
        assert_eq!(libc::tcgetattr(s, &mut t), 0, "tcgetattr");
        t.c_oflag &= !libc::OPOST;
        assert_eq!(libc::tcsetattr(s, libc::TCSANOW, &t), 0, "tcsetattr");
        (master, slave)
    };
    let mut child = {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(text)
            .current_dir(dir)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave));
        // SAFETY: setsid and ioctl are async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        cmd.spawn().expect("sh")
        // The Command, and with it the parent's copies of the terminal, ends here:
        // reading the master sees the end once the child's side is closed.
    };
    let mut master = std::fs::File::from(master);
    let deadline = Instant::now() + limit;
    let (mut out, mut buf) = (Vec::new(), [0u8; 8192]);
    let mut exited = None;
    let mut timed_out = false;
    loop {
        let mut pfd = libc::pollfd {
            fd: master.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut pfd, 1, 50) };
        if ready > 0 {
            match master.read(&mut buf) {
                Ok(n) if n > 0 => {
                    out.extend_from_slice(&buf[..n]);
                    continue;
                }
                // EIO (or 0): every descriptor of the terminal's other side is closed.
                _ => break,
            }
        }
        if exited.is_some() {
            // The child is gone and nothing more arrived: a background process may
            // hold the terminal, but the command's own output is all read.
            break;
        }
        if let Some(st) = child.try_wait().unwrap() {
            exited = Some(st);
            continue;
        }
        if Instant::now() > deadline {
            timed_out = true;
            break;
        }
    }
    // SAFETY: the child leads its own session and process group.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
    let st = match exited {
        Some(st) => st,
        None => child.wait().unwrap(),
    };
    use std::os::unix::process::ExitStatusExt as _;
    let status = st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0));
    Ran {
        status,
        output: String::from_utf8_lossy(&out).into_owned(),
        timed_out,
    }
}

/// The environment of an example, everything inside `root`.
fn environment(root: &Path, bin: &Path) -> Vec<(String, String)> {
    let home = root.join("home");
    let tmp = root.join("tmp");
    for d in [&home, &tmp] {
        std::fs::create_dir_all(d).unwrap();
    }
    let s = |p: &Path| p.display().to_string();
    let mut env = vec![
        (
            "PATH".into(),
            format!("{}:/usr/local/bin:/usr/bin:/bin", s(bin)),
        ),
        ("HOME".into(), s(&home)),
        ("XDG_CONFIG_HOME".into(), s(&home.join(".config"))),
        ("XDG_CACHE_HOME".into(), s(&home.join(".cache"))),
        ("XDG_DATA_HOME".into(), s(&home.join(".local/share"))),
        ("TMPDIR".into(), s(&tmp)),
        ("NO_COLOR".into(), "1".into()),
        ("TERM".into(), "dumb".into()),
        ("COLUMNS".into(), "100".into()),
        ("LINES".into(), "40".into()),
        ("TZ".into(), "UTC".into()),
        ("LANG".into(), "C.UTF-8".into()),
    ];
    for proxy in [
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
    ] {
        env.push((proxy.into(), "http://127.0.0.1:9".into()));
    }
    env
}

/// Run one example; `Err` says what differs, with the file and line.
fn check(page: &str, ex: &Example) -> Result<(), String> {
    let root = tempfile::tempdir().unwrap();
    let bin = root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_indus-tool"), bin.join("indus-tool")).unwrap();
    let dir = root.path().join("example");
    std::fs::create_dir_all(&dir).unwrap();
    for f in &ex.files {
        let p = dir.join(&f.path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, &f.content).unwrap();
        if let Some(mode) = f.mode {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        }
    }
    let env = environment(root.path(), &bin);
    // Every command runs (a later one may depend on an earlier one's effect), and
    // every difference is reported.
    let mut differ = Vec::new();
    for cmd in &ex.commands {
        let ran = run_on_terminal(&cmd.text, &dir, &env, Duration::from_secs(60));
        let body = ran.output.strip_suffix('\n').unwrap_or(&ran.output);
        let actual: Vec<&str> = if ran.output.is_empty() {
            Vec::new()
        } else {
            body.split('\n').collect()
        };
        let same = lines_match(&cmd.expected, &actual)
            && (ran.output.is_empty() || ran.output.ends_with('\n'));
        if same && ran.status == cmd.status && !ran.timed_out {
            continue;
        }
        let mut why = format!(
            "{page}:{}: `{}` (the example at line {}):",
            cmd.line, cmd.text, ex.line
        );
        if ran.timed_out {
            why.push_str("\n  it did not finish within 60 s");
        }
        if ran.status != cmd.status {
            why.push_str(&format!(
                "\n  exit status {}, the page says {}{}",
                ran.status,
                cmd.status,
                if cmd.status == 0 {
                    " (no `# exit N`)"
                } else {
                    ""
                }
            ));
        }
        if !same {
            let want = if cmd.expected.is_empty() {
                String::new()
            } else {
                format!("{}\n", cmd.expected.join("\n"))
            };
            let diff = similar::TextDiff::from_lines(&want, &ran.output);
            why.push_str(&format!(
                "\n  the output differs (- the page, + the binary; `[..]` and `...` lines are wildcards):\n{}",
                diff.unified_diff().context_radius(3).header("page", "binary")
            ));
            if !ran.output.is_empty() && !ran.output.ends_with('\n') {
                why.push_str("\n  (the binary's output does not end with a line break)");
            }
            why.push_str(&format!(
                "\n  what the binary printed, whole:\n{}",
                ran.output
            ));
        }
        differ.push(why);
    }
    if differ.is_empty() {
        Ok(())
    } else {
        Err(differ.join("\n\n"))
    }
}

#[test]
fn marked_examples_print_what_the_pages_show() {
    let mut failures = Vec::new();
    let mut counts = Vec::new();
    for page in pages() {
        let name = shown(&page);
        let text = std::fs::read_to_string(&page).unwrap();
        let examples = match parse(&name, &text) {
            Ok(x) => x,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let commands: usize = examples.iter().map(|e| e.commands.len()).sum();
        counts.push((name.clone(), examples.len(), commands));
        for ex in &examples {
            if let Err(e) = check(&name, ex) {
                failures.push(e);
            }
        }
    }
    eprintln!("checked examples (blocks, commands):");
    for (name, blocks, commands) in &counts {
        eprintln!("  {name}: {blocks}, {commands}");
    }
    assert!(
        failures.is_empty(),
        "{} example(s) differ from the binary:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // The marking must not silently vanish: the README's everyday commands, and
    // examples in the parts of the reference.
    let of = |name: &str| counts.iter().find(|c| c.0 == name).map_or(0, |c| c.2);
    assert!(of("README.md") >= 5, "{counts:?}");
    for part in [
        "docs/SHELL.md",
        "docs/command-line.md",
        "docs/tools.md",
        "docs/json.md",
        "docs/deck.md",
        "docs/mcp.md",
        "docs/checkpoints.md",
        "docs/state.md",
    ] {
        assert!(of(part) > 0, "{part} has no checked example: {counts:?}");
    }
    let total: usize = counts.iter().map(|c| c.2).sum();
    assert!(total >= 80, "only {total} checked commands: {counts:?}");
}

#[test]
fn the_convention_reads_what_it_says() {
    let page = "## A\n```rust file=src/a.rs\nfn a() {}\n```\n\n<!--\n```text file=b.txt mode=755\nb\n```\n-->\n\
                ```console test\n$ indus-tool read src/a.rs \\\n    --limit 1\nout 1\n[..] 2\n$ printf '%s' 'x\n> y' \\\n> | cat   # exit 3\n...\n```\n\
                ### B\n```text file=b.txt\nB\n```\n  ```console test\n  $ true\n  ```\n## C\n```console test\n$ true\n```\n";
    let ex = parse("p.md", page).unwrap();
    assert_eq!(ex.len(), 3);
    assert_eq!(ex[0].line, 11);
    assert_eq!(ex[0].files.len(), 2);
    assert_eq!(ex[0].files[0].content, "fn a() {}\n");
    assert_eq!(ex[0].files[1].mode, Some(0o755));
    let c = &ex[0].commands;
    assert_eq!(c[0].text, "indus-tool read src/a.rs \\\n    --limit 1");
    assert_eq!(c[0].expected, ["out 1", "[..] 2"]);
    assert_eq!((c[0].status, c[0].line), (0, 12));
    assert_eq!(c[1].text, "printf '%s' 'x\ny' \\\n| cat   # exit 3");
    assert_eq!(c[1].status, 3);
    // A subsection sees its section's files, a later block for a path replaces it;
    // an indented fence is read without its indentation.
    let f: Vec<_> = ex[1]
        .files
        .iter()
        .map(|f| (&f.path[..], &f.content[..]))
        .collect();
    assert_eq!(f, [("src/a.rs", "fn a() {}\n"), ("b.txt", "B\n")]);
    assert_eq!(ex[1].commands[0].text, "true");
    // The next section of the same level sees none of them.
    assert!(ex[2].files.is_empty());

    assert!(line_matches("a [..] c", "a b c"));
    assert!(line_matches("[..]", ""));
    assert!(!line_matches("ab[..]ba", "aba"));
    assert!(!line_matches("a [..] c", "a b d"));
    let lines = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(lines_match(
        &lines(&["a", "...", "z"]),
        &["a", "b", "c", "z"]
    ));
    assert!(lines_match(&lines(&["a", "...", "z"]), &["a", "z"]));
    assert!(!lines_match(&lines(&["a", "...", "z"]), &["a", "b"]));

    assert!(parse("p.md", "```sh test\n$ true\n```\n").is_err());
    assert!(parse("p.md", "```console test\nno prompt\n```\n").is_err());
}

/// The terminal the examples run on is one: a program sees a terminal on stdin,
/// stdout and stderr, and a failure's status comes back.
#[test]
fn examples_run_on_a_terminal() {
    let root = tempfile::tempdir().unwrap();
    let env = environment(root.path(), root.path());
    let ran = run_on_terminal(
        "for fd in 0 1 2; do [ -t $fd ] && echo tty$fd; done; echo err >&2; printf 'a\\r\\nb'; exit 3",
        root.path(),
        &env,
        Duration::from_secs(20),
    );
    assert_eq!(ran.output, "tty0\ntty1\ntty2\nerr\na\r\nb");
    assert_eq!(ran.status, 3);
}

/// GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped,
/// spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings (a repeated one gets `-1`, `-2`, …), fenced
/// blocks skipped.
fn anchors(text: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut fence: Option<String> = None;
    for line in text.lines() {
        if let Some(m) = &fence {
            if is_fence_close(line, m) {
                fence = None;
            }
            continue;
        }
        if let Some((m, _, _)) = fence_open(line) {
            fence = Some(m);
            continue;
        }
        if is_heading(line) {
            let base = slug(line.trim_start_matches('#'));
            let n = seen
                .iter()
                .filter(|s| {
                    **s == base
                        || s.strip_prefix(&base)
                            .and_then(|r| r.strip_prefix('-'))
                            .is_some_and(|r| r.parse::<u32>().is_ok())
                })
                .count();
            seen.push(if n == 0 { base } else { format!("{base}-{n}") });
        }
    }
    seen
}

/// The targets of a page's Markdown links `[text](target)` outside code, with their
/// lines.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        if let Some(m) = &fence {
            if is_fence_close(line, m) {
                fence = None;
            }
            continue;
        }
        if let Some((m, _, _)) = fence_open(line) {
            fence = Some(m);
            continue;
        }
        // Inline code spans out.
        let mut plain = String::new();
        let mut rest = line;
        while let Some(k) = rest.find('`') {
            plain.push_str(&rest[..k]);
            let run = rest[k..].chars().take_while(|c| *c == '`').count();
            let tick = "`".repeat(run);
            match rest[k + run..].find(&tick) {
                Some(e) => rest = &rest[k + run + e + run..],
                None => {
                    rest = "";
                }
            }
        }
        plain.push_str(rest);
        let mut at = plain.as_str();
        while let Some(k) = at.find("](") {
            let after = &at[k + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((n + 1, after[..end].to_string()));
            at = &after[end..];
        }
    }
    out
}

#[test]
fn relative_links_lead_somewhere() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(path)
            };
            if !file.exists() {
                broken.push(format!("{}:{line}: {target}: no such file", shown(&page)));
                continue;
            }
            if let Some(anchor) = anchor {
                let body = std::fs::read_to_string(&file).unwrap_or_default();
                if !anchors(&body).iter().any(|a| a == anchor) {
                    broken.push(format!(
                        "{}:{line}: {target}: no heading with that anchor",
                        shown(&page)
                    ));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_are_githubs() {
    assert_eq!(slug("Confinement: `--root`"), "confinement---root");
    assert_eq!(slug("todo_set / todo_read"), "todo_set--todo_read");
    assert_eq!(
        slug("The buddy profile: the operator's tools"),
        "the-buddy-profile-the-operators-tools"
    );
    assert_eq!(
        slug("The state folder `.indus-process/`"),
        "the-state-folder-indus-process"
    );
    assert_eq!(
        anchors("# A\n## A\n```\n# no\n```\n### A\n"),
        ["a", "a-1", "a-2"]
    );
}
