//! Checkpoints of shell commands through the binary: `--checkpoint` around `bash`
//! (alone, in `batch`, over `mcp`) and `process start` scans the project tree before
//! and after the command, and `checkpoint list|diff|rewind|gc|drop` show and undo
//! what the command changed: contents, folders, links and modes, byte- and
//! mode-exact. Also: refusals over later outside changes, files git ignores, a
//! rewind killed part way, two sessions in one tree.

use crate::common;

use std::collections::BTreeMap;
#[cfg(feature = "mcp")]
use std::io::Write;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{TestEnv, code, stderr, stdout, wait_until};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------
// A tree, exactly: kind, mode, bytes or link target.

#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Dir { mode: u32 },
    File { mode: u32, bytes: Vec<u8> },
    Link { target: PathBuf },
}

type Shape = BTreeMap<String, Entry>;

/// Every entry below `root` (links not followed), `.git` and `.indus-process` at
/// the top left out.
fn shape(root: &Path) -> Shape {
    fn walk(base: &Path, dir: &Path, out: &mut Shape) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
            if rel == ".git" || rel == ".indus-process" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&p).unwrap();
            let mode = meta.permissions().mode() & 0o7777;
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&p).unwrap();
                out.insert(rel, Entry::Link { target });
            } else if meta.is_dir() {
                out.insert(rel, Entry::Dir { mode });
                walk(base, &p, out);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                out.insert(rel, Entry::File { mode, bytes });
            }
        }
    }
    let mut out = Shape::new();
    walk(root, root, &mut out);
    out
}

/// Assert two shapes are equal, naming the entries that differ (the first 20).
#[track_caller]
fn assert_same(want: &Shape, got: &Shape, context: &str) {
    if want == got {
        return;
    }
    let mut diffs = Vec::new();
    for (path, w) in want {
        match got.get(path) {
            None => diffs.push(format!("{path}: missing (want {})", brief(w))),
            Some(g) if g != w => diffs.push(format!("{path}: want {}, got {}", brief(w), brief(g))),
            Some(_) => {}
        }
    }
    for (path, g) in got {
        if !want.contains_key(path) {
            diffs.push(format!("{path}: extra ({})", brief(g)));
        }
    }
    let n = diffs.len();
    diffs.truncate(20);
    panic!(
        "{context}: the tree differs in {n} entries:\n  {}",
        diffs.join("\n  ")
    );
}

fn brief(e: &Entry) -> String {
    match e {
        Entry::Dir { mode } => format!("folder {mode:o}"),
        Entry::File { mode, bytes } => {
            format!("file {mode:o} {:?}", String::from_utf8_lossy(bytes))
        }
        Entry::Link { target } => format!("link -> {}", target.display()),
    }
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

// ---------------------------------------------------------------------------
// Running the binary.

/// `--session SESSION --checkpoint --turn TURN ARGS…`, asserting success.
fn ck_in(env: &TestEnv, session: &str, turn: &str, args: &[&str]) -> String {
    let mut all = vec!["--session", session, "--checkpoint", "--turn", turn];
    all.extend_from_slice(args);
    let out = env.run(&all);
    assert_eq!(code(&out), 0, "{all:?}: {}{}", stdout(&out), stderr(&out));
    stdout(&out)
}

fn ck(env: &TestEnv, turn: &str, args: &[&str]) -> String {
    ck_in(env, "default", turn, args)
}

fn list_json_in(env: &TestEnv, session: &str) -> Value {
    let out = env.run(&[
        "--session",
        session,
        "--format",
        "json",
        "checkpoint",
        "list",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    serde_json::from_str(stdout(&out).trim_end())
        .unwrap_or_else(|e| panic!("list is not JSON ({e}): {}", stdout(&out)))
}

fn list_json(env: &TestEnv) -> Value {
    list_json_in(env, "default")
}

fn node_names(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("list is an array")
        .iter()
        .map(|n| n["node"].as_str().unwrap().to_string())
        .collect()
}

/// The file records of `node` in a list, by path.
fn records(list: &Value, node: &str) -> BTreeMap<String, Value> {
    let n = list
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node"] == node)
        .unwrap_or_else(|| panic!("no node {node} in {list}"));
    n["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap().to_string(), f.clone()))
        .collect()
}

/// Every path any node of the list records.
fn all_paths(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .flat_map(|n| n["files"].as_array().unwrap().iter())
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect()
}

fn rewind(env: &TestEnv, node: &str) -> Output {
    env.run(&["checkpoint", "rewind", node])
}

#[track_caller]
fn rewind_ok(env: &TestEnv, node: &str) -> String {
    let out = rewind(env, node);
    assert_eq!(code(&out), 0, "rewind {node}: {}", stderr(&out));
    stdout(&out)
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn git(env: &TestEnv, args: &[&str]) {
    let out = Command::new("git")
        .current_dir(env.root())
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------------------
// 1. The whole scenario in a git repository.

#[test]
fn a_bash_node_is_rewound_byte_and_mode_exact_in_a_git_repository() {
    if !have("git") {
        common::missing(
            "git is not installed",
            "git is not installed: the scenario in a repository did not run",
        );
        return;
    }
    let env = TestEnv::new();
    env.write("f.txt", "alpha\nsecond line\n");
    env.write("g.txt", "to be deleted\n");
    env.write("sub/m.sh", "#!/bin/sh\necho m\n");
    chmod(&env.path("sub/m.sh"), 0o755);
    env.write("exec.sh", "#!/bin/sh\necho exec\n");
    chmod(&env.path("exec.sh"), 0o755);
    symlink("f.txt", env.path("link")).unwrap();
    env.write("rmd/a.txt", "in rmd\n");
    env.write("rmd/x/b.bin", b"\x00\x01\xffbinary\n");
    chmod(&env.path("rmd/x/b.bin"), 0o600);
    chmod(&env.path("rmd/x"), 0o750);
    env.write("rep", "a file, a folder later\n");
    env.write("keep.bin", b"\xfe\xff untouched \x00\n");
    git(&env, &["init", "-q"]);
    git(&env, &["add", "f.txt", "g.txt", "sub/m.sh", "link", "rmd"]);
    git(&env, &["commit", "-q", "-m", "init"]);
    // exec.sh, rep, keep.bin stay untracked (and not ignored): covered too.
    let before = shape(env.root());

    ck(
        &env,
        "t1",
        &[
            "bash",
            "set -e; sed -i s/alpha/beta/ f.txt; rm g.txt; echo new > h.txt; \
             mkdir -p d/e/f; echo deep > d/e/f/x.txt; chmod 644 exec.sh; \
             chmod 644 sub/m.sh; mv sub/m.sh sub/n.sh; ln -sfn g.txt link; \
             rm -rf rmd; rm rep; mkdir rep; echo inside > rep/inner.txt",
        ],
    );
    let after = shape(env.root());
    assert_ne!(before, after, "the command changed nothing?");
    assert_eq!(env.read_string("f.txt"), "beta\nsecond line\n");

    // The list records every path the command touched, with its state before.
    let list = list_json(&env);
    assert_eq!(node_names(&list), ["t1"]);
    let recs = records(&list, "t1");
    let before_of = |p: &str| {
        recs.get(p)
            .unwrap_or_else(|| panic!("t1 does not record {p}: {list}"))["before"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for p in ["f.txt", "g.txt", "sub/m.sh", "exec.sh", "rep", "rmd/a.txt"] {
        assert_eq!(before_of(p), "kept", "{p}");
    }
    assert_eq!(before_of("rmd/x/b.bin"), "kept");
    for p in ["h.txt", "d", "d/e", "d/e/f", "d/e/f/x.txt", "sub/n.sh"] {
        assert_eq!(before_of(p), "absent", "{p}");
    }
    assert_eq!(before_of("rmd"), "folder");
    assert_eq!(before_of("rmd/x"), "folder");
    assert_eq!(before_of("link"), "link");
    assert_eq!(recs["link"]["target"], "f.txt");
    assert_eq!(recs["f.txt"]["size"], 18);
    assert!(
        !recs.contains_key("keep.bin"),
        "an untouched file is not recorded"
    );
    assert!(
        !recs.keys().any(|p| p.starts_with(".git")),
        "nothing in .git is recorded: {:?}",
        recs.keys()
    );

    // The diff says what changed.
    let out = env.run(&["checkpoint", "diff", "t1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let diff = stdout(&out);
    for want in [
        "--- a/f.txt\n+++ b/f.txt\n",
        "-alpha\n+beta\n",
        "--- a/g.txt\n+++ /dev/null\n",
        "--- /dev/null\n+++ b/h.txt\n",
        "d: absent before t1, a folder now",
        "exec.sh: old mode 755\nnew mode 644",
        "link: a link to f.txt before t1, a link to g.txt now",
        "rep: a file of 23 bytes before t1, a folder now",
        "rmd: a folder before t1, absent now",
        "+++ b/sub/n.sh",
    ] {
        assert!(diff.contains(want), "the diff lacks {want:?}:\n{diff}");
    }

    let out = rewind_ok(&env, "t1");
    assert!(out.starts_with("Rewound to before t1; forgot t1."), "{out}");
    assert_same(&before, &shape(env.root()), "after rewinding t1");
    assert_eq!(node_names(&list_json(&env)), Vec::<String>::new());
}

// ---------------------------------------------------------------------------
// 2. Bash nodes and edit nodes in one session: a rewind keeps the earlier ones.

#[test]
fn a_bash_node_and_a_later_edit_node_rewind_one_at_a_time() {
    let env = TestEnv::new();
    env.write("a.txt", "a0\n");
    env.write("b.txt", "one\ntwo\n");
    let original = shape(env.root());
    ck(&env, "t1", &["bash", "echo a1 >> a.txt"]);
    let after_t1 = shape(env.root());
    ck(
        &env,
        "t2",
        &["edit", "b.txt", "--old-text", "two", "--new-text", "TWO"],
    );
    assert_eq!(env.read_string("b.txt"), "one\nTWO\n");
    assert_eq!(node_names(&list_json(&env)), ["t1", "t2"]);
    // t2's node is the edit's alone: the bash node claimed nothing of it.
    assert_eq!(
        records(&list_json(&env), "t2").keys().collect::<Vec<_>>(),
        ["b.txt"]
    );

    rewind_ok(&env, "t2");
    assert_same(&after_t1, &shape(env.root()), "after rewinding t2");
    assert_eq!(node_names(&list_json(&env)), ["t1"]);
    rewind_ok(&env, "t1");
    assert_same(&original, &shape(env.root()), "after rewinding t1");
}

#[test]
fn an_earlier_edit_node_stays_when_a_later_bash_node_is_rewound() {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\n");
    env.write("b.txt", "b0\n");
    let original = shape(env.root());
    ck(
        &env,
        "t1",
        &["edit", "a.txt", "--old-text", "one", "--new-text", "ONE"],
    );
    let after_t1 = shape(env.root());
    ck(
        &env,
        "t2",
        &[
            "bash",
            "echo b1 > b.txt; mkdir -p new/dir; echo c > new/dir/c.txt",
        ],
    );
    assert_eq!(node_names(&list_json(&env)), ["t1", "t2"]);
    let t2 = records(&list_json(&env), "t2");
    assert!(!t2.contains_key("a.txt"), "t2 claims t1's edit: {t2:?}");

    rewind_ok(&env, "t2");
    assert_same(&after_t1, &shape(env.root()), "after rewinding t2");
    assert_eq!(env.read_string("a.txt"), "ONE\ntwo\n");
    assert_eq!(node_names(&list_json(&env)), ["t1"]);
    rewind_ok(&env, "t1");
    assert_same(&original, &shape(env.root()), "after rewinding t1");
}

// ---------------------------------------------------------------------------
// 3. A change made after the node, outside the checkpoints: refused, then forced.

fn refused_then_forced(change_outside: impl FnOnce(&TestEnv)) {
    let env = TestEnv::new();
    env.write("a.txt", "a0\n");
    env.write("b.txt", "b0\n");
    let original = shape(env.root());
    ck(
        &env,
        "t1",
        &["bash", "echo a1 >> a.txt; echo b1 > b.txt; echo n > n.txt"],
    );
    change_outside(&env);
    let changed = shape(env.root());

    let out = rewind(&env, "t1");
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with("checkpoint: rewind refused; nothing was changed:\n"),
        "{err}"
    );
    assert!(
        err.contains("  a.txt: changed since the toolbox last wrote it"),
        "{err}"
    );
    assert!(!err.contains("b.txt"), "b.txt was not changed since: {err}");
    // Nothing was touched, and the node is still there.
    assert_same(&changed, &shape(env.root()), "after the refused rewind");
    assert_eq!(node_names(&list_json(&env)), ["t1"]);

    let out = env.run(&["checkpoint", "rewind", "t1", "--force"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_same(&original, &shape(env.root()), "after the forced rewind");
}

#[test]
fn a_rewind_over_a_later_shell_change_is_refused_unless_forced() {
    refused_then_forced(|env| {
        let out = Command::new("sh")
            .current_dir(env.root())
            .args(["-c", "echo by hand >> a.txt"])
            .output()
            .unwrap();
        assert!(out.status.success());
    });
}

#[test]
fn a_rewind_over_a_later_unrecorded_write_is_refused_unless_forced() {
    refused_then_forced(|env| {
        // The toolbox writes, but without --checkpoint: nothing records it.
        let out = env.run(&["write", "a.txt", "--content", "plain write\n"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    });
}

// ---------------------------------------------------------------------------
// 4. Outside a git repository, .gitignore still rules.

#[test]
fn outside_git_ignored_files_are_not_covered_and_the_diff_says_so() {
    let env = TestEnv::new();
    env.write(".gitignore", "*.log\n");
    env.write("a.txt", "a0\n");
    env.write("x.log", "log 0\n");
    env.write("dir/keep.txt", "keep\n");
    assert!(!env.path(".git").exists());
    let original = shape(env.root());

    ck(
        &env,
        "t1",
        &[
            "bash",
            "echo a1 > a.txt; echo log 1 >> x.log; echo new > y.log; \
             rm dir/keep.txt; echo c > c.txt",
        ],
    );
    let recs = records(&list_json(&env), "t1");
    let mut paths: Vec<&str> = recs.keys().map(String::as_str).collect();
    paths.sort();
    assert_eq!(paths, ["a.txt", "c.txt", "dir/keep.txt"], "{recs:?}");

    let out = env.run(&["checkpoint", "diff", "t1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let diff = stdout(&out);
    let line = diff
        .lines()
        .find(|l| {
            l.starts_with("Not covered by checkpoints of commands (ignored as git ignores them):")
        })
        .unwrap_or_else(|| panic!("no 'Not covered' line:\n{diff}"));
    assert!(line.contains("x.log") || line.contains("*.log"), "{line}");
    let json_out = env.run(&["--format", "json", "checkpoint", "diff", "t1"]);
    let rec: Value = serde_json::from_str(stdout(&json_out).trim_end()).unwrap();
    let ignored = rec["notCovered"]["ignored"].to_string();
    assert!(ignored.contains("x.log"), "{rec}");

    rewind_ok(&env, "t1");
    // Everything covered is back; the ignored files keep what the command did.
    let mut want = original.clone();
    want.insert(
        "x.log".into(),
        Entry::File {
            mode: match &original["x.log"] {
                Entry::File { mode, .. } => *mode,
                _ => unreachable!(),
            },
            bytes: b"log 0\nlog 1\n".to_vec(),
        },
    );
    let y = shape(env.root())
        .get("y.log")
        .cloned()
        .expect("y.log, ignored, is left as it is");
    want.insert("y.log".into(), y);
    assert_same(&want, &shape(env.root()), "after rewinding t1");
    assert_eq!(env.read_string("y.log"), "new\n");
}

// ---------------------------------------------------------------------------
// 5. batch, a turn per call.

#[test]
fn batch_calls_name_their_turns_and_a_rewind_undoes_one() {
    let env = TestEnv::new();
    env.write("a.txt", "a0\n");
    env.write("b.txt", "b0\n");
    let calls = [
        json!({"id": "1", "name": "bash", "turn": "t1", "input": {"command": "echo a1 > a.txt; mkdir -p one"}}),
        json!({"id": "2", "name": "bash", "turn": "t2", "input": {"command": "echo b1 > b.txt; rm a.txt; mkdir -p two/x"}}),
        json!({"id": "3", "name": "checkpoint_rewind", "input": {"turn": "t2"}}),
    ];
    let input: String = calls.iter().map(|c| format!("{c}\n")).collect();
    let out = env
        .cmd()
        .args(["--checkpoint", "batch"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let outcomes: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(outcomes.len(), 3, "{}", stdout(&out));
    for o in &outcomes {
        assert_eq!(o["is_error"], false, "{o}");
    }
    assert_eq!(outcomes[2]["output"]["dropped"], json!(["t2"]));
    // t2 undone, t1 kept.
    assert_eq!(env.read_string("a.txt"), "a1\n");
    assert_eq!(env.read_string("b.txt"), "b0\n");
    assert!(env.path("one").is_dir());
    assert!(!env.path("two").exists());
    assert_eq!(node_names(&list_json(&env)), ["t1"]);
}

// ---------------------------------------------------------------------------
// 6. mcp: JSON-RPC over the child's stdio, the turn in `_meta`.

#[cfg(feature = "mcp")]
struct Mcp {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

#[cfg(feature = "mcp")]
impl Mcp {
    fn start(env: &TestEnv, globals: &[&str]) -> Self {
        let mut child = common::bin_std()
            .current_dir(env.root())
            .arg("--cwd")
            .arg(env.root())
            .args(globals)
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn the server");
        let lines = common::line_channel(child.stdout.take().unwrap());
        let mut mcp = Self { child, lines };
        let answer = mcp.request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "checkpoint-shell-test", "version": "0"}}),
        );
        assert_eq!(answer["result"]["serverInfo"]["name"], "indus-tool");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.child.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// Send a request and wait (10 s at most) for the answer with its id.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method} within 10 s"));
            let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if v["id"] == id {
                return v;
            }
        }
    }

    fn call(&mut self, id: u64, name: &str, args: Value, meta: Option<Value>) -> Value {
        let mut params = json!({"name": name, "arguments": args});
        if let Some(meta) = meta {
            params["_meta"] = meta;
        }
        let answer = self.request(id, "tools/call", params);
        assert!(answer.get("error").is_none(), "{name}: {answer}");
        let result = answer["result"].clone();
        assert_eq!(result["isError"], false, "{name}: {result}");
        result
    }
}

#[cfg(feature = "mcp")]
fn texts_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(feature = "mcp")]
#[test]
fn mcp_bash_in_a_turn_named_in_meta_is_listed_diffed_and_rewound() {
    let env = TestEnv::new();
    env.write("a.txt", "a0\n");
    env.write("sub/s.sh", "#!/bin/sh\n");
    chmod(&env.path("sub/s.sh"), 0o755);
    let original = shape(env.root());
    let mut mcp = Mcp::start(&env, &["--checkpoint"]);

    mcp.call(
        1,
        "bash",
        json!({"command": "echo mcp >> a.txt; chmod 600 sub/s.sh; echo n > n.txt"}),
        Some(json!({"turn": "t1"})),
    );
    assert_eq!(env.read_string("a.txt"), "a0\nmcp\n");
    let list = mcp.call(2, "checkpoint_list", json!({}), None);
    let nodes = &list["structuredContent"]["nodes"];
    assert_eq!(node_names(nodes), ["t1"], "{list}");
    let recs = records(nodes, "t1");
    let mut paths: Vec<&str> = recs.keys().map(String::as_str).collect();
    paths.sort();
    assert_eq!(paths, ["a.txt", "n.txt", "sub/s.sh"]);

    let diff = mcp.call(3, "checkpoint_diff", json!({"turn": "t1"}), None);
    let text = texts_of(&diff);
    assert!(text.contains("+mcp"), "{text}");
    assert!(
        text.contains("sub/s.sh: old mode 755\nnew mode 600"),
        "{text}"
    );

    let r = mcp.call(4, "checkpoint_rewind", json!({"turn": "t1"}), None);
    assert!(
        texts_of(&r).starts_with("Rewound to before t1; forgot t1."),
        "{r}"
    );
    assert_same(&original, &shape(env.root()), "after the MCP rewind");
    drop(mcp.child.stdin.take());
    let _ = mcp.child.wait();
}

// ---------------------------------------------------------------------------
// 7. A rewind killed (SIGKILL) at random moments is completed by the next call.

/// xorshift64: a fixed sequence, so a failure can be run again.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn a_rewind_killed_at_random_moments_is_completed_exactly() {
    const FILES: usize = 2000;
    let env = TestEnv::new();
    for i in 1..=FILES {
        env.write(&format!("f{i}"), format!("original {i}\n"));
    }
    env.write("gone/inside.txt", "in a folder the command deletes\n");
    let original = shape(env.root());
    let change = || {
        ck(
            &env,
            "t1",
            &[
                "bash",
                "for i in $(seq 2000); do echo changed > f$i; done; rm -rf gone; \
                 mkdir -p made/deep; echo x > made/deep/x",
            ],
        );
        shape(env.root())
    };

    // One rewind uninterrupted, to learn how long one takes here.
    change();
    let started = Instant::now();
    rewind_ok(&env, "t1");
    let took = started.elapsed();
    assert_same(
        &original,
        &shape(env.root()),
        "after the uninterrupted rewind",
    );

    let span = (took.as_millis() as u64).clamp(50, 3000) + 50;
    let mut rng = Rng(0x5eed_1234_abcd_0042);
    let (mut by_list, mut by_second, mut not_killed) = (0, 0, 0);
    // Eight rounds, fewer on a loaded machine (the file's time stays bounded).
    let budget = Instant::now() + Duration::from_secs(25);
    for round in 0..8 {
        if round >= 4 && Instant::now() > budget {
            break;
        }
        let changed = change();
        // The first rounds early (before or as the plan is written), the
        // others anywhere in the rewind.
        let delay = Duration::from_millis(rng.next() % if round < 2 { 120 } else { span });
        let mut child = common::bin_std()
            .current_dir(env.root())
            .arg("--cwd")
            .arg(env.root())
            .args(["checkpoint", "rewind", "t1"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill(); // SIGKILL
        let status = child.wait().unwrap();
        let context = format!("round {round}, killed after {delay:?} ({status})");
        if status.success() {
            not_killed += 1;
        }
        let plan = env
            .path(".indus-process/checkpoints/default/rewind.json")
            .exists();

        // The next checkpoint command completes a rewind whose plan is written.
        let names = node_names(&list_json(&env));
        assert!(
            !env.path(".indus-process/checkpoints/default/rewind.json")
                .exists(),
            "{context}: the plan is still there after list"
        );
        if names.is_empty() {
            if plan {
                by_list += 1;
            }
        } else {
            // The kill came before the plan: nothing was changed yet.
            assert_eq!(names, ["t1"], "{context}");
            assert!(!plan, "{context}: a plan was there, yet t1 is listed");
            assert_same(&changed, &shape(env.root()), &context);
            rewind_ok(&env, "t1");
            by_second += 1;
        }
        // A kill inside one file's restore (about one round in ten here)
        // leaves that write's temp file (`.fN.indus-tmp.PID.K`); the
        // completion removes it (it did not, before this was found).
        let leftovers: Vec<_> = common::temp_leftovers(env.root())
            .into_iter()
            .filter(|p| !p.starts_with(env.path(".indus-process")))
            .collect();
        assert!(
            leftovers.is_empty(),
            "{context}: the completed rewind left temp files in the tree: {leftovers:?}"
        );
        assert_same(&original, &shape(env.root()), &context);
    }
    eprintln!(
        "rewind kill rounds: one rewind took {took:?}; completed by list {by_list}, \
         by a second rewind {by_second}, finished before the kill {not_killed}"
    );
}

// ---------------------------------------------------------------------------
// 8. Two sessions in one tree: a command's node never claims the other's writes.

#[test]
fn interleaved_sessions_keep_their_own_changes() {
    let env = TestEnv::new();
    env.write("a.txt", "a0\n");
    env.write("b.txt", "line b0\n");
    let original_a = env.read("a.txt");
    let original_b = env.read("b.txt");
    let root = env.root().to_str().unwrap().to_string();
    let spawn = |args: &[String]| {
        common::bin_std()
            .current_dir(env.root())
            .args(["--cwd", &root])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut rng = Rng(0x0dd_ba11);
    for i in 1..=20 {
        let a = spawn(&[
            "--session".into(),
            "shell".into(),
            "--checkpoint".into(),
            "--turn".into(),
            format!("s{i}"),
            "bash".into(),
            format!("sleep 0.05; echo {i} >> a.txt"),
        ]);
        // B lands somewhere inside A's command (A's start and first scan first).
        std::thread::sleep(Duration::from_millis(10 + rng.next() % 40));
        let b = spawn(&[
            "--session".into(),
            "edits".into(),
            "--checkpoint".into(),
            "--turn".into(),
            format!("e{i}"),
            "edit".into(),
            "b.txt".into(),
            "--old-text".into(),
            format!("line b{}", i - 1),
            "--new-text".into(),
            format!("line b{i}"),
        ]);
        for (who, child) in [("shell", a), ("edits", b)] {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {i} {who}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let expected_a: String = std::iter::once("a0\n".to_string())
        .chain((1..=20).map(|i| format!("{i}\n")))
        .collect();
    assert_eq!(env.read_string("a.txt"), expected_a);
    assert_eq!(env.read_string("b.txt"), "line b20\n");

    let shell = list_json_in(&env, "shell");
    let edits = list_json_in(&env, "edits");
    let shell_names: Vec<String> = (1..=20).map(|i| format!("s{i}")).collect();
    let edit_names: Vec<String> = (1..=20).map(|i| format!("e{i}")).collect();
    assert_eq!(node_names(&shell), shell_names);
    assert_eq!(node_names(&edits), edit_names);
    let shell_paths = all_paths(&shell);
    assert!(
        !shell_paths.iter().any(|p| p == "b.txt"),
        "the shell session claims the other session's edit of b.txt (see \
         an_edit_of_another_session_noted_after_the_command_ended_is_not_the_commands): {shell}"
    );
    assert!(shell_paths.iter().any(|p| p == "a.txt"), "{shell}");
    assert!(
        all_paths(&edits).iter().all(|p| p == "b.txt"),
        "the edits session records something besides b.txt: {edits}"
    );
    // Anything else a shell node claims is not its command's (checked last, so
    // the rewinds below show what such a record does).
    let stray: Vec<&String> = shell_paths.iter().filter(|p| *p != "a.txt").collect();

    let out = env.run(&["--session", "shell", "checkpoint", "rewind", "s1"]);
    assert_eq!(
        code(&out),
        0,
        "rewind s1: {}(the shell nodes also claim {stray:?})",
        stderr(&out)
    );
    assert_eq!(env.read("a.txt"), original_a);
    assert_eq!(env.read_string("b.txt"), "line b20\n");
    let out = env.run(&["--session", "edits", "checkpoint", "rewind", "e1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(env.read("b.txt"), original_b);
    assert_eq!(env.read("a.txt"), original_a);

    // The command's scans may see the other session's atomic-write temp file
    // (`.b.txt.indus-tmp.PID.N`; 2 rounds in 20 did, before the scan passed
    // the toolbox's own temp files over): no node may record it.
    let leftovers: Vec<_> = common::temp_leftovers(env.root())
        .into_iter()
        .filter(|p| !p.starts_with(env.path(".indus-process")))
        .collect();
    assert!(
        stray.is_empty() && leftovers.is_empty(),
        "the shell session's nodes claim paths its commands never touched: \
         {stray:?}; temp files in the tree after the rewinds: {leftovers:?}"
    );
}

/// A checkpointed edit of another session whose write lands while a command
/// runs, but whose note in the change log lands only after the command's second
/// scan (it notes after writing and hashing what it wrote; a 3 MB file in the
/// debug build takes long enough every time): the command's run waits for the
/// edit in flight and leaves its change out. Before, the shell node claimed it,
/// and a rewind of the shell node silently undid the other
/// session's edit.
#[test]
fn an_edit_of_another_session_noted_after_the_command_ended_is_not_the_commands() {
    let env = TestEnv::new();
    env.write("a.txt", "a0\n");
    let mut big = "x".repeat(99);
    big.push('\n');
    let mut big = big.repeat(30_000);
    big.push_str("TOKEN0\n");
    env.write("big.txt", &big);
    let root = env.root().to_str().unwrap().to_string();
    // The command ends as soon as the other session's write is there.
    let shell = common::bin_std()
        .current_dir(env.root())
        .args(["--cwd", &root, "--session", "shell", "--checkpoint", "--turn", "s1"])
        .args([
            "bash",
            "i=0; until grep -q TOKEN1 big.txt || [ $i -ge 1000 ]; do sleep 0.01; i=$((i+1)); done; \
             echo a1 > a.txt",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    ck_in(
        &env,
        "edits",
        "e1",
        &[
            "edit",
            "big.txt",
            "--old-text",
            "TOKEN0",
            "--new-text",
            "TOKEN1",
        ],
    );
    let out = shell.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(env.read_string("a.txt"), "a1\n");
    let edited = big.replace("TOKEN0", "TOKEN1");
    assert_eq!(env.read_string("big.txt"), edited);

    let shell_list = list_json_in(&env, "shell");
    let claimed = records(&shell_list, "s1").get("big.txt").cloned();
    let out = env.run(&["--session", "shell", "checkpoint", "rewind", "s1"]);
    let rewound = (code(&out), stdout(&out), stderr(&out));
    let now = env.read_string("big.txt");
    assert!(
        claimed.is_none() && now == edited,
        "the shell node s1 claims the edits session's change of big.txt \
         ({claimed:?}); `--session shell checkpoint rewind s1` gave {rewound:?} and \
         big.txt {} the edit",
        if now == edited { "keeps" } else { "LOST" }
    );
    assert_eq!(rewound.0, 0, "{rewound:?}");
    assert_eq!(env.read_string("a.txt"), "a0\n");
}

// ---------------------------------------------------------------------------
// 9. A background job's changes are its node's.

fn start_job_and_wait(env: &TestEnv) {
    let out = ck(
        env,
        "j1",
        &[
            "process",
            "start",
            "--command",
            "sleep 0.2; echo job > job.txt",
        ],
    );
    assert!(out.starts_with("Started job-"), "{out}");
    assert!(
        wait_until(Duration::from_secs(10), || {
            std::fs::read(env.path("job.txt")).is_ok_and(|b| b == b"job\n")
        }),
        "the job never wrote job.txt"
    );
    // The job has ended (its shell writes nothing more).
    std::thread::sleep(Duration::from_millis(100));
}

/// A job's node as the session's first: `checkpoint list` closes the job's open
/// run before it lists (it once returned `[]` when the session had no node yet).
#[test]
fn a_background_jobs_changes_are_listed_under_its_node_and_rewound() {
    let env = TestEnv::new();
    env.write("a.txt", "a0\n");
    let original = shape(env.root());
    start_job_and_wait(&env);

    let list = list_json(&env);
    assert_eq!(
        node_names(&list),
        ["j1"],
        "`checkpoint list` after `--checkpoint --turn j1 process start …` \
         (the session's first node) does not record the job's changes: {list}"
    );
    let recs = records(&list, "j1");
    assert_eq!(recs.keys().collect::<Vec<_>>(), ["job.txt"]);
    assert_eq!(recs["job.txt"]["before"], "absent");

    let out = rewind_ok(&env, "j1");
    assert!(out.contains("deleted   job.txt"), "{out}");
    assert_same(&original, &shape(env.root()), "after rewinding j1");
}

#[test]
fn a_background_jobs_changes_are_listed_under_its_node_after_an_earlier_node() {
    let env = TestEnv::new();
    env.write("a.txt", "a0\n");
    ck(&env, "t0", &["bash", "echo a1 > a.txt"]);
    let before_job = shape(env.root());
    start_job_and_wait(&env);

    let list = list_json(&env);
    assert_eq!(node_names(&list), ["t0", "j1"], "{list}");
    let recs = records(&list, "j1");
    assert_eq!(recs.keys().collect::<Vec<_>>(), ["job.txt"]);
    assert_eq!(recs["job.txt"]["before"], "absent");
    let out = env.run(&["checkpoint", "diff", "j1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("+++ b/job.txt"), "{}", stdout(&out));

    let out = rewind_ok(&env, "j1");
    assert!(out.contains("deleted   job.txt"), "{out}");
    assert_same(&before_job, &shape(env.root()), "after rewinding j1");
    assert_eq!(node_names(&list_json(&env)), ["t0"]);
}

// ---------------------------------------------------------------------------
// 10. gc and the store's size.

fn store_line(env: &TestEnv) -> Option<String> {
    let out = env.run(&["checkpoint", "list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    stdout(&out)
        .lines()
        .find(|l| l.starts_with("Store: "))
        .map(str::to_string)
}

fn blob_count(env: &TestEnv) -> usize {
    std::fs::read_dir(env.path(".indus-process/checkpoints/default/blobs"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[test]
fn gc_after_drop_all_and_gc_tree_leave_no_contents() {
    let env = TestEnv::new();
    env.write("a.txt", "a0\n");
    env.write("b.txt", "b0\n");
    ck(&env, "t1", &["bash", "echo a1 > a.txt; echo b1 > b.txt"]);
    let line = store_line(&env).expect("a Store line");
    assert!(
        line.ends_with("contents kept) in .indus-process/checkpoints/default."),
        "{line}"
    );
    assert!(!line.contains("(0 contents"), "{line}");
    assert!(blob_count(&env) > 0);
    let project = shape(env.root());

    let out = env.run(&["checkpoint", "drop", "--all"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(node_names(&list_json(&env)), Vec::<String>::new());
    let out = env.run(&["checkpoint", "gc"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = env.run(&["checkpoint", "gc", "--tree"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("(0 contents kept)"),
        "{}",
        stdout(&out)
    );
    if let Some(line) = store_line(&env) {
        assert!(line.contains("(0 contents kept)"), "{line}");
    }
    assert_eq!(blob_count(&env), 0);
    assert_same(&project, &shape(env.root()), "gc touches no project file");

    // The next command's node still keeps what it needs to rewind.
    ck(&env, "t2", &["bash", "echo a2 > a.txt; rm b.txt"]);
    rewind_ok(&env, "t2");
    assert_same(&project, &shape(env.root()), "after rewinding t2");
}

// ---------------------------------------------------------------------------
// 11. A command that changes nothing records nothing.

#[test]
fn a_command_that_changes_nothing_records_no_node() {
    let env = TestEnv::new();
    env.write("a.txt", "a0\n");
    env.mkdir("empty");
    ck(&env, "t1", &["bash", "true"]);
    ck(
        &env,
        "t2",
        &["bash", "cat a.txt > /dev/null; ls -R > /dev/null"],
    );
    assert_eq!(list_json(&env), json!([]));
}

// ---------------------------------------------------------------------------
// The world's attacks: a checkout's planted state, a link out of the tree, a
// copy of the project, a toolbox killed while its command runs.

/// A repository can carry `.indus-process/` (a checkout is whoever wrote it):
/// a tree cache naming another content for a file, a change log claiming the
/// command's change as another call's, an open run. None of it carries this
/// user's seal, so none of it is acted on: the command's change is recorded
/// and rewound as if they were not there.
#[test]
fn a_checkouts_planted_tree_cache_change_log_and_runs_are_passed_over() {
    let env = TestEnv::new();
    env.write("a.txt", "mine\n");
    let a = std::fs::canonicalize(env.path("a.txt")).unwrap();
    let ck_dir = env.path(".indus-process/checkpoints");
    std::fs::create_dir_all(ck_dir.join("default/blobs")).unwrap();
    std::fs::create_dir_all(ck_dir.join("runs")).unwrap();
    // A cache in the toolbox's own format claiming a.txt, with its stat as it
    // is, holds a content the attacker supplies (a blob named by its hash):
    // taken, the rewind would write "evil". Only the seal is wrong.
    use sha2::Digest;
    use std::os::unix::fs::MetadataExt;
    let evil: String = sha2::Sha256::digest(b"evil\n")
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    std::fs::write(ck_dir.join("default/blobs").join(&evil), "evil\n").unwrap();
    let root = std::fs::canonicalize(env.root()).unwrap();
    let m = std::fs::symlink_metadata(&a).unwrap();
    let mut body: Vec<u8> = root
        .to_string_lossy()
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
        .into_bytes();
    body.push(b'\n');
    body.push(b'f');
    body.push(1);
    body.extend_from_slice(&(m.mode() & 0o7777).to_le_bytes());
    body.extend_from_slice(&m.len().to_le_bytes());
    body.extend_from_slice(&(m.mtime() * 1_000_000_000 + m.mtime_nsec()).to_le_bytes());
    body.extend_from_slice(&(m.ctime() * 1_000_000_000 + m.ctime_nsec()).to_le_bytes());
    body.extend_from_slice(&m.ino().to_le_bytes());
    body.extend_from_slice(&(evil.len() as u32).to_le_bytes());
    body.extend_from_slice(&5u32.to_le_bytes());
    body.extend_from_slice(evil.as_bytes());
    body.extend_from_slice(b"a.txt");
    let mut cache = format!("indus-tool tree 1 {}\n", "0".repeat(64)).into_bytes();
    cache.extend_from_slice(&body);
    std::fs::write(ck_dir.join("default/tree"), cache).unwrap();
    // A log line explaining the coming change as another call's write.
    let claim = json!({"path": a, "before": null, "after": "whatever"});
    std::fs::write(ck_dir.join("changes.log"), format!("{claim}\n")).unwrap();
    std::fs::write(ck_dir.join("runs/evil"), "{\"seal\":\"00\"}").unwrap();
    let out = env.run(&[
        "--checkpoint",
        "--turn",
        "t1",
        "bash",
        "echo changed > a.txt",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let list = list_json(&env);
    let recs = records(&list, "t1");
    assert_eq!(recs["a.txt"]["before"], "kept", "{list}");
    assert!(recs["a.txt"].get("uncertain").is_none(), "{list}");
    rewind_ok(&env, "t1");
    assert_eq!(env.read_string("a.txt"), "mine\n");
}

/// A symlink in the tree leading out of it: the scan records the link, never
/// what lies behind it, so a command writing through it changes nothing the
/// node holds, and a rewind never writes outside the project.
#[test]
fn a_link_out_of_the_tree_is_covered_as_a_link_and_nothing_outside_is_touched() {
    let env = TestEnv::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "outside\n").unwrap();
    symlink(outside.path(), env.path("out")).unwrap();
    env.write("a.txt", "a\n");
    let out = env.run(&[
        "--checkpoint",
        "--turn",
        "t1",
        "bash",
        "echo hacked > out/secret; echo b > a.txt",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let list = list_json(&env);
    let recs = records(&list, "t1");
    assert_eq!(recs.keys().collect::<Vec<_>>(), ["a.txt"], "{list}");
    std::fs::write(outside.path().join("secret"), "outside again\n").unwrap();
    rewind_ok(&env, "t1");
    assert_eq!(env.read_string("a.txt"), "a\n");
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret")).unwrap(),
        "outside again\n"
    );
    // A folder replaced by a link out of the tree: the rewind puts the folder
    // back and writes nothing through the link.
    std::fs::create_dir(env.path("d")).unwrap();
    env.write("d/f.txt", "f\n");
    let out = env.run(&[
        "--checkpoint",
        "--turn",
        "t2",
        "bash",
        &format!("rm -r d; ln -s {} d", outside.path().display()),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    rewind_ok(&env, "t2");
    assert!(env.path("d").is_dir() && !env.path("d").is_symlink());
    assert_eq!(env.read_string("d/f.txt"), "f\n");
    assert!(!outside.path().join("f.txt").exists());
}

/// `cp -a` of a project with its state: the copy's rewind restores the
/// copy's files, never the original's.
#[test]
fn a_copy_of_the_project_rewinds_itself_only() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    ck(&env, "t1", &["bash", "echo two > a.txt"]);
    let copy = common::copy_project(env.root());
    let out = common::bin_std()
        .current_dir(copy.path())
        .args(["checkpoint", "rewind", "t1"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(copy.path().join("a.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(env.read_string("a.txt"), "two\n");
}

/// The toolbox killed (SIGKILL) while its checkpointed command runs: the
/// next call of the session records what the command had changed, in the
/// command's node.
#[test]
fn a_command_whose_toolbox_was_killed_is_recorded_by_the_next_call() {
    use std::os::unix::process::CommandExt;
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let mut child = common::bin_std()
        .current_dir(env.root())
        .args([
            "--checkpoint",
            "--turn",
            "k1",
            "bash",
            "echo two > a.txt; sleep 30",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(20), || env.read_string("a.txt")
            == "two\n"),
        "the command never ran"
    );
    // The toolbox and its command, as a terminal's kill would.
    let group = nix::unistd::Pid::from_raw(-(child.id() as i32));
    let _ = nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGKILL);
    let _ = child.wait();
    let list = list_json(&env);
    let recs = records(&list, "k1");
    assert_eq!(recs["a.txt"]["before"], "kept", "{list}");
    rewind_ok(&env, "k1");
    assert_eq!(env.read_string("a.txt"), "one\n");
}

// ---------------------------------------------------------------------------
// A rewind that cannot brick the session's checkpoints (issue 53). Modes mean
// nothing to root, so the binary runs as an ordinary user (uid 65534 through
// setpriv when the tests run as root).

/// The binary in `cwd` as an ordinary user, with `home` as its HOME.
fn as_user(cwd: &Path, home: &Path, args: &[&str]) -> Output {
    let bin = assert_cmd::cargo::cargo_bin("indus-tool");
    let mut cmd = if nix::unistd::getuid().is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(&bin);
        c
    } else {
        Command::new(&bin)
    };
    cmd.current_dir(cwd)
        .args(args)
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn a_read_only_folder_or_a_rewind_that_fails_never_bricks_the_checkpoints() {
    if nix::unistd::getuid().is_root() && Command::new("setpriv").arg("--help").output().is_err() {
        common::missing(
            "setpriv is needed to run as a user",
            "setpriv is not installed",
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let (p, home) = (base.join("p"), base.join("home"));
    for d in [&base, &p, &home] {
        std::fs::create_dir_all(d).unwrap();
        chmod(d, 0o777);
    }
    let run = |args: &[&str]| {
        let out = as_user(&p, &home, args);
        (code(&out), format!("{}{}", stdout(&out), stderr(&out)))
    };
    // A command adds a file to a folder and makes the folder read-only, as
    // `go mod download` does to its cache: the rewind deletes the file all the
    // same and puts the folder's mode back.
    assert_eq!(run(&["bash", "mkdir d && echo x > d/keep"]).0, 0);
    let (c, out) = run(&[
        "--checkpoint",
        "--turn",
        "t1",
        "bash",
        "touch d/new && chmod 555 d",
    ]);
    assert_eq!(c, 0, "{out}");
    let (c, out) = run(&["checkpoint", "rewind", "t1"]);
    assert_eq!(c, 0, "{out}");
    assert!(!p.join("d/new").exists(), "{out}");
    assert_eq!(
        std::fs::metadata(p.join("d")).unwrap().permissions().mode() & 0o777,
        0o755
    );
    // A step that cannot be done at all (a folder the user may not change):
    // the rewind stops, its plan is set aside, and the next calls work; once
    // the cause is fixed the same rewind goes through.
    let r = p.join("r");
    std::fs::create_dir(&r).unwrap();
    chmod(&r, 0o777);
    let (c, out) = run(&["--checkpoint", "--turn", "t2", "bash", "touch r/f"]);
    assert_eq!(c, 0, "{out}");
    chmod(&r, 0o555);
    let (c, out) = run(&["checkpoint", "rewind", "t2"]);
    assert_eq!(c, 1, "{out}");
    assert!(
        out.contains("its plan was set aside as") && out.contains("checkpoint rewind t2"),
        "{out}"
    );
    for args in [
        &["checkpoint", "list"][..],
        &["--checkpoint", "write", "w.txt", "--content", "w"],
        &["--checkpoint", "bash", "true"],
    ] {
        let (c, out) = run(args);
        assert_eq!(c, 0, "{args:?}: {out}");
    }
    chmod(&r, 0o777);
    let (c, out) = run(&["checkpoint", "rewind", "t2"]);
    assert_eq!(c, 0, "{out}");
    assert!(!r.join("f").exists(), "{out}");
}
