//! The one shared test environment: a temp directory to work in and a way to run the
//! real `indus-tool` binary against it. Every integration test goes through this, so
//! tests are hermetic (nothing outside the temp dir, no network, no `../shared`).
#![allow(dead_code)]

pub mod http;

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

/// Say, visibly, that a check did not run because its facility (a program, a
/// server, a container runtime) is missing here. libtest captures the output of
/// `eprintln!` in a passing test, so the note goes to the process's standard
/// error directly, which it does not capture: a plain `cargo test` shows every
/// `SKIPPED:` line. (Under `CI=true` the callers fail instead.)
pub fn skipped(note: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED: {note}");
}

/// A facility a test needs is not here: under CI the test fails with `what`;
/// otherwise it says `SKIPPED: note` (see [`skipped`]) and the caller returns.
pub fn missing(what: &str, note: &str) {
    assert!(std::env::var_os("CI").is_none(), "{what}");
    skipped(note);
}

/// Where `.ci/run` installs the MCP peers (npm's reference servers, the
/// official Python SDK's virtualenv): `INDUS_MCP_PEERS`, else `target/mcp-peers`.
pub fn mcp_peers_dir() -> PathBuf {
    std::env::var_os("INDUS_MCP_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/mcp-peers"))
}

/// A temp working directory plus helpers to populate it and run the binary in it.
pub struct TestEnv {
    dir: tempfile::TempDir,
}

impl TestEnv {
    pub fn new() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// The working directory's path.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// A path inside the working directory.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Write a file (creating parents) and return its path.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, content).expect("write");
        p
    }

    pub fn mkdir(&self, rel: &str) -> PathBuf {
        let p = self.path(rel);
        std::fs::create_dir_all(&p).expect("mkdir");
        p
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).expect("read")
    }

    pub fn read_string(&self, rel: &str) -> String {
        String::from_utf8(self.read(rel)).expect("utf-8")
    }

    /// The binary, with `--cwd` set to the working directory and the process cwd
    /// there too; `NO_COLOR` and the `INDUS_*` variables cleared so the host's
    /// environment cannot leak in.
    pub fn cmd(&self) -> Command {
        let mut c = bin();
        c.current_dir(self.root()).arg("--cwd").arg(self.root());
        c
    }

    /// Run with `args` after `--cwd DIR` (globals may still follow, before the tool).
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().expect("run indus-tool")
    }

    /// Run with `--format json` and parse the single outcome line.
    pub fn run_json(&self, args: &[&str]) -> (Value, Output) {
        let out = self
            .cmd()
            .arg("--format")
            .arg("json")
            .args(args)
            .output()
            .expect("run");
        (parse_outcome(&out), out)
    }
}

/// The home directory the binary sees in tests: one without configuration, so no
/// MCP config of the host (`~/.config/indusvx/mcp.json`, `~/.indusvx/agent/…`)
/// can graft tools into a test. The toolbox makes its per-user state there
/// (`~/.local/state/indus-tool/`, the key that seals its records), shared by
/// every test, as one user's invocations share it.
pub fn no_home() -> PathBuf {
    std::env::temp_dir().join("indus-tool-tests-no-home")
}

/// The binary with a scrubbed environment and no `--cwd`.
pub fn bin() -> Command {
    Command::from_std(bin_std())
}

/// [`bin`] as a plain `std::process::Command`, for a test that spawns the child
/// itself (to time it out, or to feed it while it runs).
pub fn bin_std() -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("indus-tool"));
    c.env_remove("NO_COLOR")
        .env_remove("INDUS_FORMAT")
        .env_remove("INDUS_SESSION")
        .env_remove("INDUS_ROOT")
        .env_remove("INDUS_CHECKPOINT")
        .env_remove("INDUS_TURN")
        .env_remove("INDUS_PROFILE")
        .env_remove("INDUS_COLLECTION")
        .env_remove("INDUS_WEBSEARCH_URL")
        .env_remove("INDUS_MCP_CHILD")
        .env_remove("INDUS_TMUX_SOCKET")
        .env_remove("TMUX")
        .env_remove("TMUX_PANE")
        .env_remove("INDUS_CONFIRM")
        .env_remove("INDUS_EXEC")
        .env_remove("INDUS_EXEC_CWD")
        .env_remove("INDUS_ENGINE")
        .env_remove("INDUS_SSH_CONFIG")
        .env_remove("INDUS_REMOTE_CACHE")
        .env_remove("INDUS_STDIN_TERMINAL")
        .env_remove("INDUS_STATE_DIR")
        .env_remove("XDG_STATE_HOME")
        // The tools' exact texts, as agents get them: the shell's view (rows alone
        // on a piped stdout, bash's raw streams) is tested in tests/it/shell.rs.
        .env("INDUS_EXACT", "1")
        .env("HOME", no_home())
        .env("XDG_CONFIG_HOME", no_home().join(".config"));
    c
}

/// Seal a record as the binary would for the tests' user (whose state is in
/// [`no_home`]): HMAC-SHA256 under `~/.local/state/indus-tool/key` of the
/// domain, a NUL and `bytes` (see `state::user`). For tests that stand in for
/// the toolbox's own records (a job started long ago); a record sealed any
/// other way is ignored, as tests/it/untrusted.rs shows.
pub fn seal_as_the_user(domain: &str, bytes: &[u8]) -> String {
    use hmac::{Hmac, Mac};
    let dir = no_home().join(".local/state/indus-tool");
    let key_file = dir.join("key");
    if !key_file.exists() {
        // As the binary makes it: written whole, then linked into place, so a
        // concurrent first call keeps whichever came first.
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .unwrap();
        // A temp name of its own per call: every test shares this process id.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".key.test.{}.{n}", std::process::id()));
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).unwrap();
        let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .and_then(|mut f| std::io::Write::write_all(&mut f, hex.as_bytes()))
            .unwrap();
        let _ = std::fs::hard_link(&tmp, &key_file);
        let _ = std::fs::remove_file(&tmp);
    }
    let hex = std::fs::read_to_string(&key_file).unwrap();
    let key: Vec<u8> = (0..hex.trim().len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap();
    mac.update(domain.as_bytes());
    mac.update(&[0]);
    mac.update(bytes);
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Every temp file of an atomic write (`.NAME.indus-tmp.*`) left anywhere below
/// `dir`: a finished write leaves none.
pub fn temp_leftovers(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().contains(".indus-tmp") {
            found.push(entry.path());
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(temp_leftovers(&entry.path()));
        }
    }
    found
}

/// Parse stdout as exactly one JSON line.
pub fn parse_outcome(out: &Output) -> Value {
    let stdout = String::from_utf8(out.stdout.clone()).expect("utf-8 stdout");
    assert_eq!(
        stdout.matches('\n').count(),
        1,
        "expected exactly one line on stdout, got {stdout:?} (stderr {:?})",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim_end()).expect("stdout is JSON")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("utf-8 stdout")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("utf-8 stderr")
}

pub fn code(out: &Output) -> i32 {
    out.status.code().expect("exited normally")
}

/// Is `pid` a live process (not a zombie)? Linux: reads `/proc`.
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit_once(')')
                .map(|(_, r)| r.trim_start().as_bytes()[0]);
            state != Some(b'Z') && state != Some(b'X')
        }
        Err(_) => false,
    }
}

/// Poll `done` every 20 ms until it holds or `limit` passes; the last answer.
pub fn wait_until(limit: std::time::Duration, mut done: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + limit;
    while std::time::Instant::now() < end {
        if done() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    done()
}

/// The pid a test command wrote (`echo $! > rel`) into the working directory,
/// once the whole line is there.
pub fn pid_in(env: &TestEnv, rel: &str) -> u32 {
    let written = || {
        std::fs::read_to_string(env.path(rel))
            .is_ok_and(|t| t.ends_with('\n') && !t.trim().is_empty())
    };
    assert!(
        wait_until(std::time::Duration::from_secs(5), written),
        "{rel} never written"
    );
    env.read_string(rel).trim().parse().expect("a pid")
}

/// A tree: every folder (as `rel/`, no bytes) and every file with its bytes.
pub type Tree = std::collections::BTreeMap<String, Option<Vec<u8>>>;

/// The tree below `dir`, the toolbox's state folder left out (a missing `dir` is
/// an empty tree).
pub fn snapshot(dir: &Path) -> Tree {
    fn walk(base: &Path, dir: &Path, out: &mut Tree) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            if rel == ".indus-process" {
                continue;
            }
            if p.is_dir() {
                out.insert(format!("{rel}/"), None);
                walk(base, &p, out);
            } else {
                out.insert(rel, Some(std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Tree::new();
    walk(dir, dir, &mut out);
    out
}

/// A copy of the tree below `from` at `to` (files and folders).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// The lines a child writes to `out`, read on a thread of their own, so a test
/// can wait for one with a timeout (`recv_timeout`) instead of blocking.
#[allow(dead_code)]
pub fn line_channel(out: impl std::io::Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if send.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// A copy of the project at `root`, its state folder and all (`cp -a`), as a
/// user copies a project: a copy must act on its own files only.
#[allow(dead_code)]
pub fn copy_project(root: &Path) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    let status = std::process::Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", root.display()))
        .arg(copy.path())
        .status()
        .unwrap();
    assert!(status.success(), "cp -a of {}", root.display());
    copy
}

/// A fence: its marker (``` or ~~~, at least three), its indentation, its info.
pub fn fence_open(line: &str) -> Option<(String, usize, String)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = rest.chars().take_while(|c| *c == ch).count();
    if n < 3 {
        return None;
    }
    let info = rest[n..].trim().to_string();
    if ch == '`' && info.contains('`') {
        return None;
    }
    Some((ch.to_string().repeat(n), indent, info))
}

pub fn is_fence_close(line: &str, marker: &str) -> bool {
    let t = line.trim_start_matches(' ');
    let ch = &marker[..1];
    t.starts_with(marker) && t.trim_start_matches(ch).trim().is_empty()
}

/// The one fenced block of `docs/PAGE` whose info string ends with ` MARKER`
/// (e.g. "```python client-snippet=python"): its language and its body. The
/// docs' programs are run by the tests as they stand.
pub fn doc_snippet(page: &str, marker: &str) -> (String, String) {
    let text = std::fs::read_to_string(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("docs")
            .join(page),
    )
    .unwrap();
    let suffix = format!(" {marker}");
    let mut found = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some((fence, _, info)) = fence_open(line) else {
            continue;
        };
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !is_fence_close(l, &fence))
            .collect();
        if let Some(lang) = info.strip_suffix(&suffix) {
            found.push((lang.to_string(), body.join("\n") + "\n"));
        }
    }
    assert_eq!(
        found.len(),
        1,
        "docs/{page} has {} blocks marked {marker}",
        found.len()
    );
    found.pop().unwrap()
}

/// What a call came to: its exit status, output, peak RSS and time.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub rss_mb: i64,
    pub took: std::time::Duration,
}

/// Run the binary in `cwd` with `args`, measuring its peak resident set with
/// `wait4`; killed (and failed) past `limit`.
// Reaped by `wait4` itself (for the peak resident set), not by `Child`.
#[allow(clippy::zombie_processes)]
pub fn measured(cwd: &Path, args: &[&str], limit: std::time::Duration) -> Run {
    let out = tempfile::tempdir().unwrap();
    let (o, e) = (out.path().join("out"), out.path().join("err"));
    let mut cmd = bin_std();
    cmd.current_dir(cwd)
        .arg("--cwd")
        .arg(cwd)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&o).unwrap())
        .stderr(std::fs::File::create(&e).unwrap());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let child = cmd.spawn().expect("spawn indus-tool");
    let pid = child.id() as nix::libc::pid_t;
    let start = std::time::Instant::now();
    let (status, rss_kb) = loop {
        let mut status = 0;
        // SAFETY: a zeroed rusage is a valid out-parameter.
        let mut usage: nix::libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: plain wait4 on our own child.
        let r = unsafe { nix::libc::wait4(pid, &mut status, nix::libc::WNOHANG, &mut usage) };
        if r == pid {
            break (status, usage.ru_maxrss);
        }
        if start.elapsed() > limit {
            // SAFETY: the child leads its own process group.
            unsafe {
                nix::libc::killpg(pid, nix::libc::SIGKILL);
                nix::libc::waitpid(pid, &mut status, 0);
            }
            panic!(
                "`indus-tool {}` did not return within {} s (killed); stderr: {}",
                args.join(" "),
                limit.as_secs(),
                std::fs::read_to_string(&e).unwrap_or_default()
            );
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    Run {
        code: if nix::libc::WIFEXITED(status) {
            nix::libc::WEXITSTATUS(status)
        } else {
            -1
        },
        stdout: std::fs::read_to_string(&o).unwrap_or_default(),
        stderr: std::fs::read_to_string(&e).unwrap_or_default(),
        rss_mb: rss_kb / 1024,
        took: start.elapsed(),
    }
}

/// Marks a run of this test binary started by [`in_own_process`].
const OWN_PROCESS: &str = "INDUS_IT_OWN_PROCESS";

/// Run the test named `test` (`MODULE::NAME`) alone in a fresh process of this
/// test binary, and fail if it fails there; `true` in that fresh process (go on
/// with the test), `false` here once it passed there (return). Through
/// [`own_process!`].
///
/// For a test that measures a child's peak resident set (`wait4`,
/// `RUSAGE_CHILDREN`): a child starts with its parent's peak (fork copies the
/// pages, and `exec` keeps the peak of the image it replaces, vfork's too), and
/// this process, which runs every integration test, peaks at hundreds of MB. A
/// fresh one running a single test is as small as a test binary of its own was.
pub fn in_own_process(test: &str) -> bool {
    if std::env::var_os(OWN_PROCESS).is_some() {
        return true;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--test-threads", "1"])
        .env(OWN_PROCESS, "1")
        .output()
        .expect("run the test binary");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    for note in stderr.lines().filter_map(|l| l.strip_prefix("SKIPPED: ")) {
        skipped(note);
    }
    assert!(
        out.status.success() && stdout.contains("test result: ok. 1 passed"),
        "{test}, run in a process of its own:\n{stdout}{stderr}"
    );
    false
}

/// At the top of a test: run it in a process of its own ([`in_own_process`]).
macro_rules! own_process {
    () => {{
        fn here() {}
        // `it::MODULE::NAME::here`: the test's name as libtest knows it.
        let test = std::any::type_name_of_val(&here)
            .strip_suffix("::here")
            .and_then(|path| path.split_once("::"))
            .map(|(_, test)| test)
            .unwrap();
        if !$crate::common::in_own_process(test) {
            return;
        }
    }};
}
pub(crate) use own_process;
