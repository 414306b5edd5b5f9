//! `--root DIR` / `INDUS_ROOT`: every path a tool touches must resolve inside the
//! root after symlinks. The tree of every test:
//!
//! ```text
//! app/            the root
//!   src/lib.rs    "fn inside() {}"
//!   out  -> ../app2           a link leaving the root
//!   in   -> src               a link staying inside
//!   pass -> ../app2/secret    a file link leaving the root
//! app2/secret     "TOKEN outside"   (a sibling sharing the root's prefix)
//! ```

use crate::common;

use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use assert_cmd::Command;
use common::{TestEnv, bin, code, stderr, stdout};
use serde_json::{Value, json};

struct Tree {
    env: TestEnv,
    app: PathBuf,
    app2: PathBuf,
}

fn tree() -> Tree {
    let env = TestEnv::new();
    env.write("app/src/lib.rs", "fn inside() {}\n");
    env.write("app2/secret", "TOKEN outside\n");
    let app = std::fs::canonicalize(env.path("app")).unwrap();
    let app2 = std::fs::canonicalize(env.path("app2")).unwrap();
    symlink("../app2", app.join("out")).unwrap();
    symlink("src", app.join("in")).unwrap();
    symlink("../app2/secret", app.join("pass")).unwrap();
    Tree { env, app, app2 }
}

impl Tree {
    /// The binary confined to `app`, run from inside it.
    fn cmd(&self) -> Command {
        let mut c = bin();
        c.current_dir(&self.app).arg("--root").arg(&self.app);
        c
    }

    /// One tool call through `call`, as JSON: (is_error, output).
    fn call(&self, name: &str, input: Value) -> (bool, String) {
        let call = json!({"name": name, "input": input}).to_string();
        let out = self
            .cmd()
            .args(["--format", "json", "call", &call])
            .output()
            .unwrap();
        let line: Value = serde_json::from_str(stdout(&out).trim_end())
            .unwrap_or_else(|e| panic!("{e}: {} / {}", stdout(&out), stderr(&out)));
        (
            line["is_error"].as_bool().unwrap(),
            // Text as text; a record (ls, say) as its JSON.
            match &line["output"] {
                Value::String(text) => text.clone(),
                record => record.to_string(),
            },
        )
    }

    /// A call that must be refused with a message naming `given` and the root.
    fn refused(&self, name: &str, input: Value, given: &str) -> String {
        let (is_error, output) = self.call(name, input.clone());
        assert!(is_error, "{name} {input} was not refused: {output}");
        assert!(
            output.contains(given) && output.contains(&format!("root {}", self.app.display())),
            "{name} {input}: the refusal must name {given:?} and the root: {output}"
        );
        output
    }

    fn app2_names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.app2)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn secret_untouched(&self) {
        assert_eq!(
            std::fs::read_to_string(self.app2.join("secret")).unwrap(),
            "TOKEN outside\n"
        );
        assert_eq!(self.app2_names(), ["secret"], "nothing was created outside");
    }
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[test]
fn a_sibling_sharing_the_prefix_is_outside() {
    let t = tree();
    let sibling = s(&t.app2.join("secret"));
    assert!(sibling.starts_with(&s(&t.app)), "the prefix is shared");
    let msg = t.refused("read", json!({"path": sibling}), &sibling);
    assert_eq!(
        msg,
        format!("{sibling} is outside the root {}.", t.app.display())
    );
    t.refused("ls", json!({"path": s(&t.app2)}), &s(&t.app2));
    t.refused(
        "write",
        json!({"path": s(&t.app2.join("n")), "content": "x"}),
        "app2/n",
    );
    t.secret_untouched();
}

#[test]
fn dot_dot_traversal_is_outside() {
    let t = tree();
    for path in ["../app2/secret", "src/../../app2/secret", "./../app2"] {
        t.refused("read", json!({"path": path}), path);
    }
    t.refused(
        "edit",
        json!({"path": "../app2/secret", "oldText": "TOKEN", "newText": "GONE"}),
        "../app2/secret",
    );
    t.refused(
        "write",
        json!({"path": "src/../../app2/new", "content": "x"}),
        "src/../../app2/new",
    );
    // `..` that stays inside is fine.
    let (is_error, out) = t.call("read", json!({"path": "src/../src/lib.rs"}));
    assert!(!is_error, "{out}");
    t.secret_untouched();
}

#[test]
fn absolute_paths_outside_are_refused_by_every_path_tool() {
    let t = tree();
    t.refused("read", json!({"path": "/etc/passwd"}), "/etc/passwd");
    t.refused(
        "write",
        json!({"path": "/tmp/indus-root-escape", "content": "x"}),
        "/tmp/indus-root-escape",
    );
    assert!(!Path::new("/tmp/indus-root-escape").exists());
    t.refused(
        "edit",
        json!({"path": "/etc/hostname", "oldText": "a", "newText": "b"}),
        "/etc/hostname",
    );
    t.refused("ls", json!({"path": "/"}), "/");
    t.refused("grep", json!({"pattern": "root", "path": "/etc"}), "/etc");
    t.refused("find", json!({"pattern": "*", "path": "/etc"}), "/etc");
    t.refused("bash", json!({"command": "pwd", "cwd": "/"}), "/");
    t.refused(
        "process",
        json!({"action": "start", "command": "sleep 5", "cwd": "/tmp"}),
        "/tmp",
    );
}

#[test]
fn a_link_inside_leading_outside_is_refused_and_one_staying_inside_is_not() {
    let t = tree();
    let msg = t.refused("read", json!({"path": "out/secret"}), "out/secret");
    assert!(
        msg.contains(&format!("resolves to {}", t.app2.join("secret").display())),
        "{msg}"
    );
    t.refused("read", json!({"path": "pass"}), "pass");
    t.refused("write", json!({"path": "pass", "content": "pwned"}), "pass");
    t.refused(
        "edit",
        json!({"path": "pass", "oldText": "TOKEN", "newText": "GONE"}),
        "pass",
    );
    t.refused("ls", json!({"path": "out"}), "out");
    t.refused("grep", json!({"pattern": "TOKEN", "path": "out"}), "out");
    t.refused("find", json!({"pattern": "*", "path": "out"}), "out");
    t.refused("bash", json!({"command": "pwd", "cwd": "out"}), "out");
    t.secret_untouched();
    // Links that stay inside work as usual.
    let (is_error, out) = t.call("read", json!({"path": "in/lib.rs"}));
    assert!(!is_error && out.contains("fn inside"), "{out}");
    let (is_error, out) = t.call("write", json!({"path": "in/new.rs", "content": "x\n"}));
    assert!(!is_error, "{out}");
    assert_eq!(
        std::fs::read_to_string(t.app.join("src/new.rs")).unwrap(),
        "x\n"
    );
}

#[test]
fn a_dangling_link_pointing_outside_cannot_be_written_through() {
    let t = tree();
    symlink("../app2/planted", t.app.join("plant")).unwrap();
    let msg = t.refused("write", json!({"path": "plant", "content": "x"}), "plant");
    assert!(msg.contains("app2/planted"), "{msg}");
    t.secret_untouched();
}

#[test]
fn a_new_file_under_a_symlinked_parent_leaving_the_root_is_refused() {
    let t = tree();
    for path in ["out/new.txt", "out/a/b/c.txt"] {
        t.refused("write", json!({"path": path, "content": "x"}), path);
    }
    t.secret_untouched();
    // A new file (and new folders) under a real parent inside are fine.
    let (is_error, out) = t.call("write", json!({"path": "a/b/c.txt", "content": "x"}));
    assert!(!is_error, "{out}");
    assert!(t.app.join("a/b/c.txt").is_file());
}

#[test]
fn walks_do_not_descend_through_links_that_leave_the_root() {
    let t = tree();
    let (is_error, out) = t.call("grep", json!({"pattern": "TOKEN"}));
    assert!(!is_error, "{out}");
    assert!(!out.contains("outside"), "grep followed a link out: {out}");
    let (is_error, out) = t.call("find", json!({"pattern": "*secret*"}));
    assert!(!is_error, "{out}");
    assert!(
        out.starts_with(r#"{"count":0,"#),
        "find followed a link out: {out}"
    );
    let (is_error, out) = t.call("ls", json!({"path": "."}));
    assert!(!is_error, "{out}");
    // Listed as a link (not followed, so neither a folder nor a size).
    assert!(
        out.contains(r#"{"name":"out","path":"out","kind":"link","size":0}"#),
        "{out}"
    );
}

#[test]
fn bash_and_process_working_directories_are_confined_but_not_their_commands() {
    let t = tree();
    let (is_error, out) = t.call("bash", json!({"command": "pwd", "cwd": "src"}));
    assert!(!is_error, "{out}");
    assert!(out.contains(&s(&t.app.join("src"))), "{out}");
    let msg = t.refused(
        "bash",
        json!({"command": "pwd", "cwd": "../app2"}),
        "../app2",
    );
    assert!(msg.starts_with("Invalid \"cwd\": "), "{msg}");
    t.refused(
        "process",
        json!({"action": "start", "command": "true", "cwd": "out"}),
        "out",
    );
}

#[test]
fn the_diff_command_is_confined() {
    let t = tree();
    let out = t
        .cmd()
        .args(["diff", "src/lib.rs", "pass"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("diff: pass resolves to "),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("outside the root"),
        "{}",
        stderr(&out)
    );
    let out = t
        .cmd()
        .args(["diff", "src/lib.rs", "../app2/secret"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("../app2/secret is outside the root"));
    let out = t
        .cmd()
        .args(["diff", "src/lib.rs", "in/lib.rs"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn indus_root_and_the_working_directory() {
    let t = tree();
    // INDUS_ROOT does what --root does.
    let out = bin()
        .current_dir(&t.app)
        .env("INDUS_ROOT", &t.app)
        .args(["read", "../app2/secret"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("outside the root"),
        "{}",
        stdout(&out)
    );
    // An empty INDUS_ROOT confines nothing.
    let out = bin()
        .current_dir(&t.app)
        .env("INDUS_ROOT", "")
        .args(["read", "../app2/secret"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // A root that is not a folder is a usage error.
    let out = bin()
        .args(["--root", "/no/such/dir", "ls"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "indus-tool: error: --root /no/such/dir: no such directory\n"
    );
    // --cwd outside the root is a usage error naming both.
    let out = t.cmd().args(["--cwd", "../app2", "ls"]).output().unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--cwd ../app2 is outside the root"),
        "{}",
        stderr(&out)
    );
    // Started outside the root without --cwd, paths resolve against the root.
    let out = bin()
        .current_dir(&t.app2)
        .arg("--root")
        .arg(&t.app)
        .args(["read", "src/lib.rs"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    // A root reached through a link admits paths spelled either way.
    let alias = t.env.path("alias");
    symlink(&t.app, &alias).unwrap();
    let out = bin()
        .current_dir(&t.app)
        .arg("--root")
        .arg(&alias)
        .arg("read")
        .arg(t.app.join("src/lib.rs"))
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}

#[test]
fn batch_calls_are_confined_too() {
    let t = tree();
    let calls = [
        json!({"id": 1, "name": "read", "input": {"path": "out/secret"}}),
        json!({"id": 2, "name": "write", "input": {"path": "out/x", "content": "x"}}),
        json!({"id": 3, "name": "read", "input": {"path": "src/lib.rs"}}),
    ];
    let input: String = calls.iter().map(|c| format!("{c}\n")).collect();
    let out = t.cmd().arg("batch").write_stdin(input).output().unwrap();
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["is_error"], true);
    assert_eq!(lines[1]["is_error"], true);
    assert_eq!(lines[2]["is_error"], false);
    t.secret_untouched();
}

/// Run `calls` through one confined `batch` process (many calls quickly, to widen
/// the race) while another thread keeps exchanging `app/slot`, a real folder, with
/// `app/slot.link`, a link to `app2`, each exchange one atomic `renameat2`.
/// Returns the outcome lines.
fn batch_while_swapping(t: &Tree, calls: impl Iterator<Item = Value>) -> Vec<Value> {
    let slot = t.app.join("slot");
    let link = t.app.join("slot.link");
    symlink(&t.app2, &link).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flipper = {
        let (stop, slot, link) = (stop.clone(), slot.clone(), link.clone());
        std::thread::spawn(move || {
            use nix::fcntl::{AT_FDCWD, RenameFlags, renameat2};
            let mut flips = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                renameat2(
                    AT_FDCWD,
                    &slot,
                    AT_FDCWD,
                    &link,
                    RenameFlags::RENAME_EXCHANGE,
                )
                .unwrap();
                flips += 1;
            }
            flips
        })
    };
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("indus-tool"))
        .env_remove("INDUS_ROOT")
        .current_dir(&t.app)
        .arg("--root")
        .arg(&t.app)
        // Every read must really race the swap: none may be answered by the
        // repeated-failure suppression that batch turns on by default.
        .arg("--suppress-repeats=false")
        .arg("batch")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Feed from a thread: batch answers while it reads, so a writer that waited
    // for the last call to go in before reading would fill the pipes both ways.
    let calls: Vec<Value> = calls.collect();
    let sent = calls.len();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        for call in calls {
            writeln!(stdin, "{call}").unwrap();
        }
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let flips = flipper.join().unwrap();
    assert!(flips > 10, "the swap must have happened ({flips} flips)");
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), sent);
    lines
}

/// A folder swapped for a link to the outside while writes run: each write checks
/// its path, but the swap can land between that check and the write. The write
/// goes through the descriptor of the folder it opened, checked after opening, so
/// nothing may ever land outside. (Without that descriptor check this test fails.)
#[test]
fn a_link_swapped_in_between_check_and_write_is_not_followed_out() {
    let t = tree();
    std::fs::create_dir(t.app.join("slot")).unwrap();
    let calls = (0..1500).map(|i| {
        json!({"id": i, "name": "write", "input": {"path": format!("slot/f{i}"), "content": "x"}})
    });
    batch_while_swapping(&t, calls);
    assert_eq!(
        t.app2_names(),
        ["secret"],
        "a write followed a swapped link out"
    );
}

/// The same race for reads: the file opened is checked by descriptor, so the
/// outside `secret` is never shown.
#[test]
fn a_link_swapped_in_between_check_and_read_is_not_followed_out() {
    let t = tree();
    t.env.write("app/slot/secret", "inside\n");
    let calls =
        (0..1500).map(|i| json!({"id": i, "name": "read", "input": {"path": "slot/secret"}}));
    let lines = batch_while_swapping(&t, calls);
    // A read answers its record (the lines), a refusal its message: either is
    // searched as JSON text.
    let shown = lines
        .iter()
        .filter(|l| l["output"].to_string().contains("inside"))
        .count();
    assert!(shown > 0, "some reads must have seen the real folder");
    for line in &lines {
        let output = line["output"].to_string();
        assert!(
            !output.contains("TOKEN"),
            "a read followed a swapped link out: {output}"
        );
    }
}
