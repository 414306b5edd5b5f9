//! The command line as shell scripts use it: scripts run through `bash -c` on real
//! temp trees, with `indus-tool` on PATH and stdout a pipe, checked against the
//! peer tools on the same input — rg for grep, fd for find, GNU diff and patch for
//! diff — line by line (paths and line numbers), plus every exit status, the
//! pipelines people write (`| xargs`, `-0 | xargs -0`), write's guard at a real
//! pseudo-terminal, state found from a subfolder, and every example the man pages
//! show (the README's and docs/' marked examples, output included, run in
//! tests/it/examples.rs).
//!
//! A peer that is not installed fails the test under `CI=true` and prints SKIPPED
//! otherwise (.ci/run installs ripgrep, fd-find, diffutils, patch and bsdutils).

use crate::common;

use std::path::Path;
use std::process::Command;

/// A project tree and a PATH on which `indus-tool` is this build.
struct Shell {
    dir: tempfile::TempDir,
    bin: tempfile::TempDir,
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Shell {
    fn new() -> Self {
        let bin = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(
            assert_cmd::cargo::cargo_bin("indus-tool"),
            bin.path().join("indus-tool"),
        )
        .unwrap();
        Self {
            dir: tempfile::tempdir().unwrap(),
            bin,
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, rel: &str, content: &str) {
        let p = self.root().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel)).unwrap()
    }

    /// Run `script` with bash in the tree, as a CI step would: stdout and stderr
    /// pipes, stdin closed, the environment scrubbed of the toolbox's variables.
    fn sh(&self, script: &str) -> Ran {
        let mut cmd = common::bin_std();
        let path = format!(
            "{}:{}",
            self.bin.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        // bin_std's environment, but for bash rather than the binary.
        let envs: Vec<(std::ffi::OsString, Option<std::ffi::OsString>)> = cmd
            .get_envs()
            .map(|(k, v)| (k.to_owned(), v.map(|v| v.to_owned())))
            .collect();
        let mut bash = Command::new("bash");
        for (k, v) in envs {
            match v {
                Some(v) => bash.env(k, v),
                None => bash.env_remove(k),
            };
        }
        // The shell's view, not the agent's exact text.
        bash.env_remove("INDUS_EXACT");
        cmd = bash;
        let out = cmd
            .arg("-c")
            .arg(script)
            .env("PATH", path)
            .current_dir(self.root())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        Ran {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    fn ok(&self, script: &str) -> String {
        let r = self.sh(script);
        assert_eq!(
            r.code, 0,
            "`{script}` exited {}\nstdout:\n{}\nstderr:\n{}",
            r.code, r.stdout, r.stderr
        );
        r.stdout
    }

    /// A small project: Rust, Markdown and TOML files, nested folders, a hidden
    /// file, words for -w, a build folder.
    fn project() -> Self {
        let s = Self::new();
        s.write(
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n",
        );
        s.write(
            "src/main.rs",
            "// TODO: split\nfn main() {\n    let total = count(3);\n    println!(\"{total}\");\n}\n",
        );
        s.write(
            "src/lib.rs",
            "pub fn count(n: u32) -> u32 {\n    n + 1 // counter\n}\n\npub fn old_name() {}\n// todo lower\nunsafe fn danger() {}\n",
        );
        s.write(
            "src/deep/util.rs",
            "fn helper() {}\nconst COUNT: u32 = 2;\n// Count, countless, count.\n",
        );
        s.write("docs/guide.md", "# Guide\ncount words here\nTODO later\n");
        s.write("docs/notes.md", "Nothing to see.\nfn not_code\n");
        s.write(
            "tests/test_count.rs",
            "#[test]\nfn counts() { assert_eq!(1 + 1, 2); }\n",
        );
        s.write(".hidden.toml", "key = \"count\"\n");
        s.write("target/debug/out.txt", "count in build output\n");
        s.write("a.b(c.txt", "literal a.b(c here\nand a-b-c there\n");
        s
    }
}

/// Whether `program` runs here; when not, fail under CI and say SKIPPED otherwise.
fn have(program: &str) -> bool {
    let runs = Command::new(program)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !runs {
        assert!(
            std::env::var_os("CI").is_none_or(|v| v.is_empty()),
            "{program} is not installed, and CI must run this test (.ci/run installs it)"
        );
        common::skipped(&format!("{program} is not installed"));
    }
    runs
}

/// fd is `fdfind` on Debian.
fn fd() -> Option<&'static str> {
    if have_quiet("fdfind") {
        return Some("fdfind");
    }
    if have("fd") { Some("fd") } else { None }
}

fn have_quiet(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// grep's rows in rg's spelling: `PATH:LINE: TEXT` → `PATH:LINE:TEXT`, context
/// `PATH-LINE- TEXT` → `PATH-LINE-TEXT`; `--` stays.
fn as_rg(rows: &str) -> Vec<String> {
    let row = regex::Regex::new(r"^(.*?)([:-])(\d+)([:-]) (.*)$").unwrap();
    rows.lines()
        .map(|l| match row.captures(l) {
            Some(c) if c[2] == c[4] => format!("{}{}{}{}{}", &c[1], &c[2], &c[3], &c[4], &c[5]),
            _ => l.to_string(),
        })
        .collect()
}

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

/// fd's and ours, as a sorted set of paths without `./` or a trailing `/`.
fn path_set(text: &str) -> Vec<String> {
    let mut v: Vec<String> = text
        .lines()
        .map(|l| {
            l.strip_prefix("./")
                .unwrap_or(l)
                .trim_end_matches('/')
                .to_string()
        })
        .filter(|l| !l.is_empty())
        .collect();
    v.sort();
    v
}

#[test]
fn exit_statuses_are_the_peer_tools() {
    let s = Shell::project();
    let code = |script: &str| s.sh(script).code;
    // grep: 0 found, 1 none, 2 trouble.
    assert_eq!(code("indus-tool grep count"), 0);
    assert_eq!(code("indus-tool grep zzz_absent"), 1);
    assert_eq!(code("indus-tool grep 'a('"), 2);
    assert_eq!(code("indus-tool grep count no/such/dir"), 2);
    assert_eq!(code("indus-tool grep --no-such-flag x"), 2);
    // find: fd's, 0 found or not, 1 only under -q, 2 trouble.
    assert_eq!(code("indus-tool find '*.rs'"), 0);
    assert_eq!(code("indus-tool find '*.absent'"), 0);
    assert_eq!(code("indus-tool find -q '*.rs'"), 0);
    assert_eq!(code("indus-tool find -q '*.absent'"), 1);
    assert_eq!(code("indus-tool find '*.rs' no/such/dir"), 2);
    assert_eq!(code("indus-tool find '[' "), 2);
    // `call` exits as the subcommand does.
    let call = |tool: &str, input: &str| {
        code(&format!(
            "indus-tool call '{{\"name\":\"{tool}\",\"input\":{input}}}'"
        ))
    };
    assert_eq!(call("grep", r#"{"pattern":"count"}"#), 0);
    assert_eq!(call("grep", r#"{"pattern":"zzz_absent"}"#), 1);
    assert_eq!(call("grep", r#"{"pattern":"a("}"#), 2);
    assert_eq!(call("find", r#"{"pattern":"*.absent"}"#), 0);
    assert_eq!(call("read", r#"{"path":"missing.txt"}"#), 1);
    // diff: 0 equal, 1 different, 2 trouble.
    s.write("one.txt", "a\n");
    s.write("two.txt", "b\n");
    assert_eq!(code("indus-tool diff one.txt one.txt"), 0);
    assert_eq!(code("indus-tool diff one.txt two.txt"), 1);
    assert_eq!(code("indus-tool diff one.txt missing.txt"), 2);
    // Every other tool: 0 success, 1 the tool's error, 2 usage.
    assert_eq!(code("indus-tool read Cargo.toml"), 0);
    assert_eq!(code("indus-tool read missing.txt"), 1);
    assert_eq!(code("indus-tool read --bogus"), 2);
    assert_eq!(code("indus-tool no-such-tool"), 2);
    assert_eq!(code("indus-tool bash 'exit 7'"), 1);
    assert_eq!(code("indus-tool bash --exit-status 'exit 7'"), 7);
    assert_eq!(
        code("indus-tool bash --exit-status 'kill -TERM $$'"),
        128 + 15
    );
    // `if` can branch on grep -q.
    assert_eq!(
        s.ok("if indus-tool grep -q 'fn main' src; then echo yes; else echo no; fi"),
        "yes\n"
    );
    assert_eq!(
        s.ok("if indus-tool grep -q 'fn nowhere' src; then echo yes; else echo no; fi"),
        "no\n"
    );
    // --format json keeps is_error and the exit status.
    let r = s.sh("indus-tool --format json grep zzz_absent");
    assert_eq!(r.code, 1);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["is_error"], false);
    assert_eq!(v["output"]["count"], 0);
    // -q quiets the text, not the one JSON line a program asked for.
    for (script, status, count) in [
        ("indus-tool --format json grep -q count", 0, 8),
        ("indus-tool --format json grep -q zzz_absent", 1, 0),
        ("indus-tool --format json find -q zzz_absent", 1, 0),
    ] {
        let r = s.sh(script);
        assert_eq!(r.code, status, "{script}: {}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("{script}: {e}: {:?}", r.stdout));
        if count > 0 {
            assert!(v["output"]["count"].as_u64().unwrap() > 0, "{script}");
        } else {
            assert_eq!(v["output"]["count"], 0, "{script}");
        }
    }
}

#[test]
fn json_mode_answers_json_even_for_usage_errors() {
    let s = Shell::project();
    for script in [
        "indus-tool --format json grep --no-such-flag x",
        "indus-tool --format json no-such-tool",
        "indus-tool --format=json read --bogus",
        "INDUS_FORMAT=json indus-tool grep -e",
        "indus-tool grep x --format json --bogus",
    ] {
        let r = s.sh(script);
        assert_eq!(r.code, 2, "{script}: {}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(r.stdout.trim())
            .unwrap_or_else(|e| panic!("{script}: stdout is not JSON ({e}): {:?}", r.stdout));
        assert_eq!(v["error"]["kind"], "usage", "{script}");
        assert!(v["error"]["message"].as_str().unwrap().len() > 5);
    }
}

#[test]
fn piped_stdout_holds_only_the_rows() {
    let s = Shell::project();
    // No blank line, no summary: xargs gets paths only.
    let out = s.ok("indus-tool find '*.toml'");
    assert_eq!(out, ".hidden.toml\nCargo.toml\n");
    let counted = s.ok("indus-tool find '*.toml' | xargs wc -l");
    assert!(
        counted.contains("Cargo.toml") && counted.contains("total"),
        "{counted}"
    );
    // The summary is on stderr only when it says more than the count, or --stats.
    let r = s.sh("indus-tool grep -w count src/lib.rs");
    assert_eq!(r.stdout, "src/lib.rs:1: pub fn count(n: u32) -> u32 {\n");
    assert_eq!(r.stderr, "");
    let r = s.sh("indus-tool grep --stats -w count src/lib.rs");
    assert!(
        r.stderr.starts_with("Found 1 match in 1 file"),
        "{}",
        r.stderr
    );
    let r = s.sh("indus-tool grep --limit 1 count src");
    assert_eq!(r.stdout.lines().count(), 1);
    assert!(
        r.stderr.contains("raise --limit to see more"),
        "{}",
        r.stderr
    );
    // read: the numbered lines on stdout, the window's hint on stderr with the flag.
    s.write(
        "big.txt",
        &(1..=50).map(|i| format!("{i}\n")).collect::<String>(),
    );
    let r = s.sh("indus-tool read big.txt --limit 2");
    assert_eq!(r.stdout, "     1\t1\n     2\t2\n");
    assert!(
        r.stderr.contains("continue with --offset 3"),
        "{}",
        r.stderr
    );
    // cat -n agrees byte for byte.
    let cat = s.ok("cat -n big.txt | head -2");
    assert_eq!(r.stdout, cat);
    // --exact: the agent's text, summary and key names included.
    let exact = s.ok("indus-tool --exact read big.txt --limit 2");
    assert!(exact.starts_with("Showing lines 1–2 of 50"), "{exact}");
    assert!(exact.contains("offset=3"));
    // -q prints nothing at all.
    let r = s.sh("indus-tool grep -q count");
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    let r = s.sh("indus-tool find -q '*.zzz'");
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (1, "", ""));
}

#[test]
fn hints_name_flags_in_text_and_keys_in_json() {
    let s = Shell::project();
    s.write("twice.txt", "x\nx\n");
    let r = s.sh("indus-tool edit twice.txt --old-text x --new-text y");
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("pass --replace-all"), "{}", r.stderr);
    let r = s.sh("indus-tool --format json edit twice.txt --old-text x --new-text y");
    assert!(r.stdout.contains("set replaceAll"), "{}", r.stdout);
    assert_eq!(s.read("twice.txt"), "x\nx\n");
}

#[test]
fn print0_goes_through_xargs_0_with_awkward_names() {
    let s = Shell::project();
    s.write("odd dir/with space.md", "count\n");
    s.write("odd dir/quote'd.md", "count\n");
    let out = s.ok("indus-tool find -e md -0 | xargs -0 wc -l | sort");
    assert!(out.contains("odd dir/with space.md"), "{out}");
    assert!(out.contains("odd dir/quote'd.md"), "{out}");
    let out = s.ok("indus-tool grep -l -0 count 'odd dir' | xargs -0 -n1 echo | sort");
    assert_eq!(out, "odd dir/quote'd.md\nodd dir/with space.md\n");
    // A budget too small for every path: what fits, and a notice on stderr.
    for i in 0..40 {
        s.write(&format!("many/file-{i:02}.md"), "count\n");
    }
    let r = s.sh("indus-tool --max-bytes 600 find -e md -0 . many");
    let printed = r.stdout.matches('\0').count();
    assert!(printed > 0 && printed < 40, "{printed}");
    assert!(
        r.stderr
            .contains(&format!("[find: {} paths left out", 40 - printed)),
        "{}",
        r.stderr
    );
    // -0 without -l is refused: a NUL after each content row means nothing.
    assert_eq!(s.sh("indus-tool grep -0 count").code, 2);
}

#[test]
fn grep_l_feeds_sed_and_the_tree_changes() {
    let s = Shell::project();
    s.ok("indus-tool grep -l -F old_name src | xargs sed -i 's/old_name/new_name/g'");
    assert!(s.read("src/lib.rs").contains("pub fn new_name() {}"));
    assert_eq!(s.sh("indus-tool grep -q old_name src").code, 1);
}

#[test]
fn grep_agrees_with_rg_line_by_line() {
    if !have("rg") {
        return;
    }
    let s = Shell::project();
    // rg with our defaults: hidden files and ignored files searched, sorted by path.
    let rg = "rg --hidden --no-ignore --sort path -n --no-heading --with-filename --color never";
    let cases: &[(&str, &str)] = &[
        ("count", "count"),
        ("-i todo", "-i todo"),
        ("-S count", "-S count"),
        ("-S Count", "-S Count"),
        ("-F 'a.b('", "-F 'a.b('"),
        ("-w count", "-w count"),
        ("-v -g '*.rs' '[a-z]'", "-v -g '*.rs' '[a-z]'"),
        ("-A 1 count src", "-A 1 count src"),
        ("-B 1 count src", "-B 1 count src"),
        ("-C 1 TODO", "-C 1 TODO"),
        ("-A 2 -B 1 fn src", "-A 2 -B 1 fn src"),
        ("-g '*.rs' count", "-g '*.rs' count"),
        ("-g '!*.rs' count", "-g '!*.rs' count"),
        (
            "-g '!target' -g '!*.md' count",
            "-g '!target' -g '!*.md' count",
        ),
        ("-t rust count", "-t rust count"),
        ("-t md -t toml count", "-t md -t toml count"),
        ("-T rust count", "-T rust count"),
        ("count src docs", "count src docs"),
        ("-m 1 count src", "-m 1 count src"),
        ("-n -w -i count", "-n -w -i count"),
    ];
    for (ours, theirs) in cases {
        let mine = s.sh(&format!("indus-tool grep {ours}"));
        let peer = s.sh(&format!("{rg} {theirs}"));
        assert_eq!(
            mine.code, peer.code,
            "grep {ours}: exit {} vs rg's {}\n{}",
            mine.code, peer.code, mine.stderr
        );
        assert_eq!(
            as_rg(&mine.stdout),
            lines(&peer.stdout),
            "grep {ours} differs from rg {theirs}"
        );
    }
    // -l and -c print what rg prints.
    for flags in [
        "-l count",
        "-c count",
        "-c -v -g '*.rs' count",
        "-l -w TODO",
        "-c count src docs",
    ] {
        let mine = s.sh(&format!("indus-tool grep {flags}"));
        let peer = s.sh(&format!("{rg} {flags}"));
        assert_eq!(mine.code, peer.code, "grep {flags}");
        assert_eq!(
            lines(&mine.stdout),
            lines(&peer.stdout),
            "grep {flags} differs from rg"
        );
    }
}

#[test]
fn find_agrees_with_fd() {
    let Some(fd) = fd() else {
        return;
    };
    let s = Shell::project();
    std::fs::create_dir(s.root().join("links")).unwrap();
    std::os::unix::fs::symlink("../src/lib.rs", s.root().join("links/lib-link.rs")).unwrap();
    s.write("bin/run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(
        s.root().join("bin/run.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let fd = format!("{fd} -H -I --color never");
    let cases: &[(&str, &str)] = &[
        ("'*.rs'", "--glob '*.rs'"),
        ("-t d", "-t d"),
        ("-t f '*.rs' tests", "-t f --glob '*.rs' tests"),
        ("-t l", "-t l"),
        ("-t x", "-t x"),
        ("-e md", "-e md"),
        ("-e md -e toml", "-e md -e toml"),
        ("-d 1", "-d 1"),
        ("-d 2 -t f -E links", "-d 2 -t f -E links"),
        ("-E target", "-E target"),
        (
            "-E '*.md' -E target -E links -t f",
            "-E '*.md' -E target -E links -t f",
        ),
        ("'*.rs' src tests", "--glob '*.rs' src tests"),
        ("-e rs . src", "-e rs . src"),
        (". docs", ". docs"),
        ("-t f -E links", "-t f -E links"),
    ];
    for (ours, theirs) in cases {
        let mine = s.sh(&format!("indus-tool find {ours}"));
        let peer = s.sh(&format!("{fd} {theirs}"));
        assert_eq!(mine.code, 0, "find {ours}: {}", mine.stderr);
        assert_eq!(
            path_set(&mine.stdout),
            path_set(&peer.stdout),
            "find {ours} differs from {fd} {theirs}"
        );
    }
    // The one documented difference: a link counts as what it points to for -t f
    // and -t d (fd lists it under -t l only); it is under -t l here too.
    let mine = path_set(&s.ok("indus-tool find -t f '*.rs' links src"));
    let peer = path_set(&s.ok(&format!("{fd} -t f --glob '*.rs' links src")));
    assert_eq!(
        mine.iter()
            .filter(|p| !peer.contains(p))
            .collect::<Vec<_>>(),
        ["links/lib-link.rs"]
    );
}

#[test]
fn diff_agrees_with_gnu_diff_and_applies_with_patch() {
    if !have("diff") || !have("patch") {
        return;
    }
    let s = Shell::new();
    s.write("a/x.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    s.write("b/x.txt", "1\n2\nthree\n4\n5\n6\n7\n8\nnine\n");
    s.write("a/sub/s.txt", "s\n");
    s.write("b/sub/s.txt", "t\nno newline");
    s.write("a/gone.txt", "bye\n");
    s.write("b/new.txt", "hello\n");
    s.write("a/same.txt", "same\n");
    s.write("b/same.txt", "same\n");
    // -q and the Only-in lines: GNU diff's words and order.
    let mine = s.sh("indus-tool diff -qr a b");
    let gnu = s.sh("diff -qr a b");
    assert_eq!((mine.code, &mine.stdout), (gnu.code, &gnu.stdout));
    // Without -r: the same first level, subfolders named.
    let mine = s.sh("indus-tool diff -q a b");
    let gnu = s.sh("diff -q a b");
    assert_eq!((mine.code, &mine.stdout), (gnu.code, &gnu.stdout));
    // -ru applies with patch: a copy of a becomes b (but for the files only b has,
    // which diff without -N does not carry).
    s.ok("cp -r a c && indus-tool diff -ru a b > change.patch; test $? = 1");
    s.ok("patch -s -d c -p1 < change.patch");
    assert_eq!(s.read("c/x.txt"), s.read("b/x.txt"));
    assert_eq!(s.read("c/sub/s.txt"), s.read("b/sub/s.txt"));
    // Two files, -u and -U 1, applied both ways.
    for flags in ["-u", "-U 1", "-U 0"] {
        s.ok(&format!(
            "cp a/x.txt y.txt && indus-tool diff {flags} a/x.txt b/x.txt > p.diff; test $? = 1 && patch -s y.txt < p.diff && cmp y.txt b/x.txt"
        ));
    }
    // Equal files and trees: exit 0 and nothing printed, as diff.
    let r = s.sh("indus-tool diff -r a/sub a/sub");
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    // Trouble: 2, as diff.
    let mine = s.sh("indus-tool diff -r a nowhere");
    let gnu = s.sh("diff -r a nowhere");
    assert_eq!((mine.code, gnu.code), (2, 2));
}

/// A tree of 700 files, each with a TODO, for the pipe tests: more rows than
/// any default limit of the agents' faces (grep 200, find 500), and more bytes
/// (about 110 KB of rows) than their output budget (64 KiB).
fn seven_hundred() -> Shell {
    let s = Shell::new();
    let pad = "-".repeat(120);
    for i in 0..700 {
        s.write(
            &format!("d{}/f{i:03}.txt", i % 7),
            &format!("TODO {i} {pad}\nfn x() {{}}\n"),
        );
    }
    s
}

#[test]
fn a_pipe_gets_every_row_as_from_rg_and_fd() {
    let s = seven_hundred();
    let count = |script: &str| s.ok(script).trim().parse::<u64>().unwrap();
    if let Some(fd) = fd() {
        let peer = count(&format!("{fd} -H -I -e txt | wc -l"));
        assert_eq!(peer, 700);
        assert_eq!(count("indus-tool find -e txt | wc -l"), peer);
        assert_eq!(
            count("indus-tool find -e txt -0 | tr -cd '\\0' | wc -c"),
            peer
        );
        // fd's statuses, beside fd's own.
        for (ours, theirs) in [
            ("-e txt", "-e txt"),
            ("-e zzz", "-e zzz"),
            ("-q -e txt", "-q -e txt"),
            ("-q -e zzz", "-q -e zzz"),
        ] {
            let mine = s.sh(&format!("indus-tool find {ours}")).code;
            let peer = s.sh(&format!("{fd} -H -I {theirs}")).code;
            assert_eq!(mine, peer, "find {ours}: {mine}, {fd} {theirs}: {peer}");
        }
    }
    if have("rg") {
        let peer = count("rg -l --hidden --no-ignore TODO | wc -l");
        assert_eq!(peer, 700);
        assert_eq!(count("indus-tool grep -l TODO | wc -l"), peer);
        // xargs gets every file (the man page's own example of rewriting files).
        s.ok("indus-tool grep -l -F TODO | xargs sed -i 's/TODO/DONE/'");
        assert_eq!(count("rg -l --hidden --no-ignore TODO | wc -l"), 0);
        assert_eq!(count("indus-tool grep -l DONE | wc -l"), 700);
        // An asked limit is exact, and no byte budget cuts under it: rg | head.
        for limit in [7, 1000, 10_000] {
            let mine = s.ok(&format!("indus-tool grep -e 'DONE|fn' --limit {limit}"));
            let peer = s.ok(&format!(
                "rg --hidden --no-ignore --sort path -n -e 'DONE|fn' | head -n {limit}"
            ));
            assert_eq!(as_rg(&mine), lines(&peer), "--limit {limit}");
            assert_eq!(lines(&mine).len(), limit.min(1400), "--limit {limit}");
        }
        // The cut asked for is said on stderr; none is said when nothing was cut.
        let r = s.sh("indus-tool grep DONE --limit 7");
        assert!(
            r.stderr.contains("Showing the first 7 of 700"),
            "{}",
            r.stderr
        );
        let r = s.sh("indus-tool find . --limit 500 | wc -l");
        assert_eq!(r.stdout.trim(), "500");
        assert!(
            r.stderr.contains("raise --limit to see more"),
            "{}",
            r.stderr
        );
        let r = s.sh("indus-tool grep DONE | wc -l");
        assert_eq!(r.stdout.trim(), "700");
        assert_eq!(r.stderr, "");
    }
    // Rows a pipe reads as they are found (context and `--` included) are the
    // rows an asked limit collects, and a reader gone early ends it quietly.
    let streamed = s.ok("indus-tool grep -C1 -e 'fn x|TODO 1'");
    let collected = s.ok("indus-tool grep --limit 100000 -C1 -e 'fn x|TODO 1'");
    assert_eq!(streamed, collected);
    assert!(streamed.contains("\n--\n"), "{streamed}");
    // A file named outright is written as its rows pile up (past 64 KiB here),
    // and its rows sit in order between the roots around it.
    let big: String = (0..6000)
        .map(|i| format!("TODO {i} padding\nplain\n"))
        .collect();
    s.write("big.txt", &big);
    let script = "indus-tool grep -C1 -e 'TODO|fn x' d1 big.txt d0";
    let streamed = s.ok(script);
    let collected = s.ok(&script.replace("grep ", "grep --limit 1000000 "));
    assert_eq!(streamed, collected);
    assert!(streamed.len() > 200_000, "{}", streamed.len());
    let r = s.sh("indus-tool grep -e . | head -n 3");
    assert_eq!((r.code, lines(&r.stdout).len()), (0, 3), "{}", r.stderr);
    let r = s.sh("set -o pipefail; indus-tool grep -e . | head -n 3");
    assert_eq!(r.code, 0, "a closed pipe is not an error: {}", r.stderr);
    // A long line reaches a pipe whole, as rg prints it.
    let long = "x".repeat(5000);
    s.write("long.txt", &format!("needle {long}\n"));
    assert_eq!(
        s.ok("indus-tool grep needle long.txt"),
        format!("long.txt:1: needle {long}\n")
    );
    // The agents' faces keep their limits and count every cut.
    let json = s.ok("indus-tool --format json find -e txt");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["output"]["count"], 702);
    assert_eq!(v["output"]["shown"], 500);
    let kept = v["output"]["entries"].as_array().unwrap().len() as u64;
    assert_eq!(v["output"]["omitted"], 702 - kept);
    let r = s.sh("indus-tool --format json grep TODO --limit 10000");
    assert_eq!(r.code, 2);
    assert!(r.stdout.contains("at most 5000"), "{}", r.stdout);
}

#[test]
fn write_from_dev_null_is_refused_and_an_empty_pipe_empties() {
    let s = Shell::project();
    let before = s.read("Cargo.toml");
    let r = s.sh("indus-tool write Cargo.toml </dev/null");
    assert_eq!(r.code, 2, "{} {}", r.stdout, r.stderr);
    assert!(r.stderr.contains("--content"), "{}", r.stderr);
    assert_eq!(s.read("Cargo.toml"), before);
    // The harness's own stdin is /dev/null too, and a closed one is the same.
    assert_eq!(s.sh("indus-tool write Cargo.toml").code, 2);
    assert_eq!(s.sh("indus-tool write Cargo.toml <&-").code, 2);
    assert_eq!(s.read("Cargo.toml"), before);
    // A pipe or a file is content, an empty one included.
    s.ok("printf '' | indus-tool write Cargo.toml");
    assert_eq!(s.read("Cargo.toml"), "");
    s.write("src.txt", "from a file\n");
    s.ok("indus-tool write Cargo.toml < src.txt");
    assert_eq!(s.read("Cargo.toml"), "from a file\n");
}

#[test]
fn write_at_a_terminal_with_no_content_changes_nothing() {
    if !have("script") {
        return;
    }
    let s = Shell::project();
    let before = s.read("Cargo.toml");
    // script(1) runs the command on a pseudo-terminal: stdin is a terminal.
    let r = s.sh("script -qec 'indus-tool write Cargo.toml' /dev/null");
    assert_eq!(r.code, 2, "{} {}", r.stdout, r.stderr);
    assert!(r.stdout.contains("--content"), "{}", r.stdout);
    assert_eq!(s.read("Cargo.toml"), before);
    // Emptying a file on purpose still works, by flag or by a pipe.
    s.ok("indus-tool write Cargo.toml --content ''");
    assert_eq!(s.read("Cargo.toml"), "");
    s.ok("printf 'x\\n' | indus-tool write Cargo.toml");
    assert_eq!(s.read("Cargo.toml"), "x\n");
    s.ok(": | indus-tool write Cargo.toml");
    assert_eq!(s.read("Cargo.toml"), "");
}

#[test]
fn bash_has_one_shape_raw_streams_and_status_on_stderr() {
    let s = Shell::new();
    let r = s.sh("indus-tool bash 'echo out; echo err >&2'");
    assert_eq!(
        (r.code, r.stdout.as_str(), r.stderr.as_str()),
        (0, "out\n", "err\n")
    );
    let r = s.sh("indus-tool bash 'echo out; echo err >&2; exit 3'");
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout, "out\n");
    assert_eq!(r.stderr, "err\nstatus: exit code 3\n");
    // Output keeps its bytes, no newline added.
    assert_eq!(
        s.ok("indus-tool bash 'printf abc' | od -c | head -1"),
        s.ok("printf abc | od -c | head -1")
    );
}

#[test]
fn state_is_found_from_a_subfolder() {
    let s = Shell::project();
    std::fs::create_dir(s.root().join(".git")).unwrap();
    s.ok(
        "echo '[{\"id\":\"1\",\"text\":\"ship it\",\"status\":\"active\"}]' | indus-tool todo_set",
    );
    let out = s.ok("cd src/deep && indus-tool todo_read");
    assert!(out.contains("ship it"), "{out}");
    assert!(s.root().join(".indus-process").is_dir());
    assert!(!s.root().join("src/deep/.indus-process").exists());
    // --state-dir names another.
    let other = tempfile::tempdir().unwrap();
    let out = s.ok(&format!(
        "cd src && indus-tool --state-dir {} todo_read",
        other.path().display()
    ));
    assert!(!out.contains("ship it"), "{out}");
}

#[test]
fn help_lists_the_profile_grouped_and_points_to_other_profiles() {
    let s = Shell::new();
    let help = s.ok("indus-tool --help");
    // 120 lines until the three guards of issue 52 (--allow-protected,
    // --allow-outside, --allow-private-network) needed to be findable here;
    // 125 until issue 55's Code group (diagnose, lsp) took three more; 130
    // with issue 58's outline and sgrep.
    assert!(help.len() < 12_000 && help.lines().count() <= 130, "{help}");
    // man's DIR is required unless --install: the usage says so.
    let man = s.ok("indus-tool man --help");
    assert!(
        man.contains(
            "Usage: indus-tool man [OPTIONS] DIR\n       indus-tool man --install [PREFIX]"
        ),
        "{man}"
    );
    assert!(!man.contains("[DIR]"), "{man}");
    assert!(help.contains("  Search:\n    grep"), "{help}");
    assert!(!help.contains("    run_shell "), "{help}");
    let buddy = s.ok("indus-tool --profile buddy --help");
    assert!(buddy.contains("    run_shell "), "{buddy}");
    let r = s.sh("indus-tool run_shell 'true'");
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("indus-tool --profile buddy run_shell"),
        "{}",
        r.stderr
    );
    // Placeholders are value names, and an unknown flag gets our tip, not clap's.
    let edit = s.ok("indus-tool edit --help");
    assert!(
        edit.contains("--old-text <OLD>") && edit.contains("<SHA256>"),
        "{edit}"
    );
    let r = s.sh("indus-tool grep -a x");
    assert_eq!(r.code, 2);
    assert!(!r.stderr.contains("'-- -a'"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("'indus-tool grep --help' lists its flags"),
        "{}",
        r.stderr
    );
}

/// Every example of the man pages runs on a project where it makes sense, without a
/// usage error. (The README's everyday commands are checked, output and all, by
/// tests/it/examples.rs.)
#[test]
fn every_documented_example_runs() {
    for (page, what, line) in indus_tool::cli::examples() {
        let s = Shell::project();
        s.write("Makefile", "test:\n\ttrue\n");
        s.write("old.txt", "a\nb\n");
        s.write("new.txt", "a\nc\n");
        for side in ["before", "after", "a", "b"] {
            s.write(&format!("{side}/f.txt"), &format!("{side}\n"));
        }
        s.write("test/t.txt", "x\n");
        // What diagnose's and lsp's examples ask clangd about (.ci/run installs it).
        s.write(
            "src/app.c",
            "int add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2); }\n",
        );
        let padding: String = (0..60).map(|i| format!("// line {i}\n")).collect();
        s.write(
            "src/lib.rs",
            &format!("// old\nfn main() {{}}\n// TODO\nunsafe fn x() {{}}\nfn legacy_name() {{}}\n{padding}"),
        );
        // What sgrep's examples search and rewrite.
        s.write("src/log.rs", "fn f() {\n    log_error(\"disk\", 3);\n}\n");
        s.write(
            "src/report.py",
            "def report(x):\n    return old_api(x, 1)\n",
        );
        let r = s.sh(line);
        // A broker the example started goes with its project.
        if line.contains("indus-tool diagnose") || line.contains("indus-tool lsp") {
            s.sh("indus-tool lsp stop");
        }
        assert!(
            r.code == 0 || (line.contains(" diff ") && r.code == 1),
            "man {page}: {what}: `{line}` exited {}\n{}\n{}",
            r.code,
            r.stdout,
            r.stderr
        );
        assert!(!r.stderr.contains("error:"), "`{line}`: {}", r.stderr);
    }
}

#[test]
fn diff_reports_a_symlink_loop_once_as_gnu_diff_does() {
    if !have("diff") {
        return;
    }
    let s = Shell::new();
    s.write("a/sub/f", "x\n");
    s.write("b/sub/f", "y\n");
    for side in ["a", "b"] {
        std::os::unix::fs::symlink("..", s.root().join(side).join("sub/up")).unwrap();
    }
    let mine = s.sh("indus-tool diff -r a b");
    let gnu = s.sh("diff -r a b");
    assert_eq!((mine.code, gnu.code), (2, 2));
    assert_eq!(
        mine.stdout.matches("+++ b/sub/f").count(),
        1,
        "{}",
        mine.stdout
    );
    assert!(
        mine.stderr.contains("a/sub/up: recursive directory loop"),
        "{}",
        mine.stderr
    );
    assert!(
        gnu.stderr.contains("recursive directory loop"),
        "{}",
        gnu.stderr
    );
}
