//! The files family through the real binary: read, write, ls and the gate.

use crate::common;

use std::os::unix::fs::PermissionsExt;

use common::{TestEnv, code, stderr, stdout};
use serde_json::json;

// ---------------------------------------------------------------- read

#[test]
fn read_shows_a_cat_n_gutter_under_a_header() {
    let env = TestEnv::new();
    env.write("f.txt", "alpha\nbeta\n\ngamma");
    let out = env.run(&["read", "f.txt"]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        stdout(&out),
        "Showing lines 1–4 of 4 in f.txt.\n     1\talpha\n     2\tbeta\n     3\t\n     4\tgamma\n"
    );
    // Byte-identical to `cat -n` below the header.
    let cat = std::process::Command::new("cat")
        .arg("-n")
        .arg(env.path("f.txt"))
        .output()
        .unwrap();
    let ours = stdout(&out);
    let body = ours.split_once('\n').unwrap().1;
    assert_eq!(
        body,
        format!("{}\n", String::from_utf8(cat.stdout).unwrap())
    );
}

#[test]
fn read_windows_and_says_how_to_continue() {
    let env = TestEnv::new();
    let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
    env.write("f.txt", &text);
    let out = env.run(&["read", "f.txt", "--offset", "10", "--limit", "2"]);
    assert_eq!(
        stdout(&out),
        "Showing lines 10–11 of 100 in f.txt. 89 lines remain; continue with offset=12.\n    10\tline 10\n    11\tline 11\n"
    );
    let out = env.run(&["read", "f.txt", "--offset", "99"]);
    assert_eq!(
        stdout(&out),
        "Showing lines 99–100 of 100 in f.txt.\n    99\tline 99\n   100\tline 100\n"
    );
}

#[test]
fn read_refuses_bad_windows_and_non_files() {
    let env = TestEnv::new();
    env.write("f.txt", "a\nb\n");
    env.mkdir("d");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["read", "f.txt", "--offset", "3"],
            "offset 3 is past the end of f.txt, which has 2 lines.\n",
        ),
        (
            vec!["read", "f.txt", "--offset", "0"],
            "Invalid \"offset\": expected a line number (1 is the first line, -1 the last), got the number 0.\n",
        ),
        (
            vec!["read", "f.txt", "--limit", "-1"],
            "Invalid \"limit\": expected a positive integer, got the number -1.\n",
        ),
        (
            vec!["read", "f.txt", "--limit", "1.5"],
            "Invalid \"limit\": expected a positive integer, got the number 1.5.\n",
        ),
        (vec!["read", "d"], "d is a directory; use ls to list it.\n"),
        (
            vec!["read"],
            "Missing \"path\": expected a non-empty string.\n",
        ),
    ];
    for (args, want) in cases {
        let out = env.run(&args);
        assert_eq!(code(&out), 1, "{args:?}");
        assert_eq!(stderr(&out), want, "{args:?}");
    }
    let out = env.run(&["read", "missing.txt"]);
    assert_eq!(
        stderr(&out),
        format!(
            "Cannot read missing.txt: ENOENT: no such file or directory, lstat '{}'\n",
            env.path("missing.txt").display()
        )
    );
}

#[test]
fn read_reports_binary_empty_fifo_and_invalid_utf8() {
    let env = TestEnv::new();
    env.write("bin", b"abc\0def".repeat(10));
    let out = env.run(&["read", "bin"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "bin looks binary (NUL bytes in its first 8 KiB; 70 bytes in all); read shows text files only.\n"
    );
    env.write("empty", "");
    let out = env.run(&["read", "empty"]);
    assert_eq!(stdout(&out), "empty is empty (0 bytes).\n");
    env.write("latin1", b"caf\xe9\n");
    let out = env.run(&["read", "latin1"]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        stdout(&out),
        "Showing lines 1–1 of 1 in latin1. The file is not valid UTF-8; bad bytes are shown as U+FFFD. It looks like windows-1252; give --encoding windows-1252 (JSON \"encoding\": \"windows-1252\"), or --encoding auto.\n     1\tcaf\u{FFFD}\n"
    );
    let fifo = env.path("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let out = env
        .cmd()
        .args(["read", "fifo"])
        .timeout(std::time::Duration::from_secs(10))
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("not a regular file"));
}

#[test]
fn read_fits_the_budget_and_states_it() {
    let env = TestEnv::new();
    let text: String = (1..=5000).map(|i| format!("line number {i}\n")).collect();
    env.write("big.txt", &text);
    let out = env.run(&["--max-bytes", "2000", "read", "big.txt"]);
    let s = stdout(&out);
    assert!(s.len() <= 2000, "{}", s.len());
    let header = s.lines().next().unwrap();
    assert!(header.starts_with("Showing lines 1–"), "{header}");
    assert!(header.contains("The window stopped early to fit the output budget."));
    assert!(header.contains("continue with offset="));
    // One enormous line is cut with a note rather than dumped: at the agents'
    // line width (the tests see the exact agent view)…
    env.write("line.txt", "y".repeat(100_000));
    let out = env.run(&["--max-bytes", "4096", "read", "line.txt"]);
    let s = stdout(&out);
    assert!(
        s.contains("Line 1 is cut at 500 characters (99500 characters not shown)."),
        "{s}"
    );
    assert!(s.len() < 9000);
    // …and by a budget narrower than that width, with the seed's byte notice.
    env.write("wide.txt", "😀".repeat(500));
    let out = env.run(&["--max-bytes", "1024", "read", "wide.txt"]);
    let s = stdout(&out);
    assert!(
        s.contains("Line 1 is 2000 bytes long; only its first"),
        "{s}"
    );
    assert!(s.len() < 2000);
}

// ---------------------------------------------------------------- write

#[test]
fn write_creates_parents_and_reports_bytes() {
    let env = TestEnv::new();
    let out = env.run(&["write", "a/b/c.txt", "--content", "héllo"]);
    assert_eq!(stdout(&out), "Saved 6 bytes to a/b/c.txt.\n");
    assert_eq!(env.read_string("a/b/c.txt"), "héllo");
    let out = env.run(&["write", "one.txt", "--content", "x"]);
    assert_eq!(stdout(&out), "Saved 1 byte to one.txt.\n");
    // Absent content is an empty file (stdin here is not a terminal but empty).
    let out = env
        .cmd()
        .args(["write", "empty.txt"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "Saved 0 bytes to empty.txt.\n");
    // No content flag: standard input is the content, verbatim.
    let out = env
        .cmd()
        .args(["write", "in.txt"])
        .write_stdin("from\r\nstdin\n")
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "Saved 12 bytes to in.txt.\n");
    assert_eq!(env.read("in.txt"), b"from\r\nstdin\n");
}

#[test]
fn write_refuses_bad_input() {
    let env = TestEnv::new();
    env.mkdir("dir");
    let (v, _) = env.run_json(&["write", "--json", r#"{"path":"x","content":5}"#]);
    assert_eq!(
        v["output"],
        json!("Invalid \"content\": expected a string, got the number 5.")
    );
    let (v, _) = env.run_json(&["write", "--json", r#"{"path":"","content":"x"}"#]);
    assert_eq!(
        v["output"],
        json!("Invalid \"path\": expected a non-empty string, got an empty string.")
    );
    let (v, _) = env.run_json(&["write", "dir", "--content", "x"]);
    assert_eq!(
        v["output"],
        json!("dir is a directory; write needs a file path.")
    );
}

#[test]
fn write_keeps_the_mode_and_writes_through_symlinks() {
    let env = TestEnv::new();
    let script = env.write("run.sh", "#!/bin/sh\necho old\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o754)).unwrap();
    std::os::unix::fs::symlink("run.sh", env.path("link.sh")).unwrap();
    let out = env.run(&["write", "link.sh", "--content", "#!/bin/sh\necho new\n"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let link_meta = std::fs::symlink_metadata(env.path("link.sh")).unwrap();
    assert!(link_meta.file_type().is_symlink(), "the link stays a link");
    assert_eq!(env.read_string("run.sh"), "#!/bin/sh\necho new\n");
    let mode = std::fs::metadata(&script).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o754);
    let leftovers: Vec<_> = std::fs::read_dir(env.root())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("indus-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_killed_write_leaves_the_old_or_the_new_file_whole() {
    let env = TestEnv::new();
    let old = "old content\n".repeat(1000);
    let new = "N".repeat(48 * 1024 * 1024);
    let mut saw_old = 0;
    let mut saw_new = 0;
    for delay_ms in [0u64, 5, 20, 40, 60, 80, 120, 160, 250, 400] {
        env.write("target.txt", &old);
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("indus-tool"))
            // The toolbox's per-user state (its key) in the tests' home, not the host's.
            .env("HOME", common::no_home())
            .env_remove("XDG_STATE_HOME")
            .arg("--cwd")
            .arg(env.root())
            .args(["write", "target.txt"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let content = new.clone();
        let feeder = std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(content.as_bytes());
        });
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let _ = feeder.join();
        let now = env.read("target.txt");
        if now == old.as_bytes() {
            saw_old += 1;
        } else if now == new.as_bytes() {
            saw_new += 1;
        } else {
            panic!(
                "torn file after a kill at {delay_ms} ms: {} bytes",
                now.len()
            );
        }
    }
    assert!(saw_old + saw_new == 10);
    eprintln!("killed writes: {saw_old} left the old file, {saw_new} the new one");
}

// ---------------------------------------------------------------- ls

#[test]
fn ls_orders_aligns_and_hides() {
    let env = TestEnv::new();
    env.write("b.txt", "12345");
    env.write("B.txt", "1");
    env.write("a.txt", "");
    env.write(".env", "secret");
    env.mkdir("Zdir");
    env.mkdir("adir");
    std::os::unix::fs::symlink("adir", env.path("link")).unwrap();
    let out = env.run(&["ls"]);
    assert_eq!(
        stdout(&out),
        ".: 6 entries; 1 hidden entry omitted (set showHidden to include them)\n\
         dir  0 adir/\n\
         link 0 link/\n\
         dir  0 Zdir/\n\
         file 0 a.txt\n\
         file 1 B.txt\n\
         file 5 b.txt\n"
    );
    let out = env.run(&["ls", "--show-hidden", "--limit", "2"]);
    assert_eq!(
        stdout(&out),
        ".: 7 entries, showing the first 2 (raise limit to see more)\ndir  0 adir/\nlink 0 link/\n"
    );
    let out = env.run(&["ls", "--show-hidden"]);
    assert!(stdout(&out).contains("file 6 .env\n"));
    // A file named outright is listed as its one row, as `ls FILE` does.
    let out = env.run(&["ls", "b.txt"]);
    assert_eq!(code(&out), 0);
    let size = std::fs::metadata(env.path("b.txt")).unwrap().len();
    assert_eq!(stdout(&out), format!("b.txt: 1 entry\nfile {size} b.txt\n"));
}

// ---------------------------------------------------------------- the gate

#[test]
fn the_gate_spans_invocations_per_session() {
    let env = TestEnv::new();
    env.write("f.txt", "one\n");
    let refused = env.run(&["--gate", "write", "f.txt", "--content", "two\n"]);
    assert_eq!(code(&refused), 1);
    assert_eq!(
        stderr(&refused),
        "File has not been read yet. Read it first before writing to it.\n"
    );
    assert_eq!(env.read_string("f.txt"), "one\n");
    // A read in one invocation permits a write in the next.
    assert_eq!(code(&env.run(&["--gate", "read", "f.txt"])), 0);
    let ok = env.run(&["--gate", "write", "f.txt", "--content", "two\n"]);
    assert_eq!(code(&ok), 0, "{}", stderr(&ok));
    // The write refreshed the read-state, so a second write passes too.
    let again = env.run(&["--gate", "write", "f.txt", "--content", "three\n"]);
    assert_eq!(code(&again), 0, "{}", stderr(&again));
    // Another session has read nothing.
    let other = env.run(&[
        "--gate",
        "--session",
        "other",
        "write",
        "f.txt",
        "--content",
        "x",
    ]);
    assert_eq!(code(&other), 1);
    // A change behind the session's back is stale.
    std::fs::write(env.path("f.txt"), "changed by someone else\n").unwrap();
    let stale = env.run(&["--gate", "write", "f.txt", "--content", "mine\n"]);
    assert_eq!(
        stderr(&stale),
        "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.\n"
    );
    // New files are exempt; without --gate nothing is checked.
    assert_eq!(
        code(&env.run(&["--gate", "write", "new.txt", "--content", "n"])),
        0
    );
    assert_eq!(code(&env.run(&["write", "f.txt", "--content", "free"])), 0);
    assert_eq!(
        env.read_string(".indus-process/.gitignore"),
        "*\n",
        "the state folder ignores itself"
    );
}

#[test]
fn a_corrupt_read_state_is_an_error_naming_the_file() {
    let env = TestEnv::new();
    env.write("f.txt", "x");
    env.write(".indus-process/read-state/default.json", "{broken");
    let out = env.run(&["--gate", "read", "f.txt"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("read-state/default.json is corrupt"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        env.read_string(".indus-process/read-state/default.json"),
        "{broken"
    );
}

// ---------------------------------------------------------------- diff

#[test]
fn the_diff_command_prints_a_unified_diff_with_diff_statuses() {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\nthree\n");
    env.write("b.txt", "one\nTWO\nthree\nfour");
    let out = env.run(&["diff", "a.txt", "b.txt"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out),
        "--- a.txt\n+++ b.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n three\n+four\n\\ No newline at end of file\n"
    );
    let out = env.run(&["diff", "a.txt", "a.txt"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).is_empty());
    let out = env.run(&["diff", "--context", "0", "a.txt", "b.txt"]);
    assert!(
        stdout(&out).contains("@@ -2 +2 @@\n-two\n+TWO\n"),
        "{}",
        stdout(&out)
    );
    let out = env.run(&["diff", "a.txt", "missing.txt"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("missing.txt"));
    env.write("bin", b"\xff\xfe");
    assert_eq!(code(&env.run(&["diff", "a.txt", "bin"])), 2);
}

#[test]
fn the_diff_command_output_applies_with_gnu_patch() {
    if std::process::Command::new("patch")
        .arg("--version")
        .output()
        .is_err()
    {
        assert!(
            std::env::var_os("CI").is_none(),
            "GNU patch is missing under CI: .ci/run installs it"
        );
        common::skipped("GNU patch is not installed: the diff's apply check did not run");
        return;
    }
    let env = TestEnv::new();
    let pairs: [(&str, &str); 4] = [
        ("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"),
        ("x\ny", "x\ny\n"),
        ("keep\rthis\nline\n", "keep\rthat\nline\n"),
        ("", "new\n"),
    ];
    for (i, (before, after)) in pairs.iter().enumerate() {
        env.write("before", before);
        env.write("after", after);
        let out = env.run(&["diff", "before", "after"]);
        assert_eq!(code(&out), 1, "pair {i}");
        env.write("patch.diff", &out.stdout);
        let status = std::process::Command::new("patch")
            .current_dir(env.root())
            .args(["-s", "-o", "patched", "before", "patch.diff"])
            .status()
            .unwrap();
        assert!(status.success(), "pair {i}: patch refused");
        assert_eq!(env.read("patched"), after.as_bytes(), "pair {i}");
        std::fs::remove_file(env.path("patched")).unwrap();
    }
}
