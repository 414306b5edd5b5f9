//! Checkpoints through the binary: `--checkpoint`/`--turn` recording what `write`
//! and `edit` change, and `checkpoint list|diff|rewind|drop` putting it back.

use crate::common;

use std::process::Command;

use common::{TestEnv, code, stderr, stdout};
use serde_json::Value;

const LF: &[u8] = b"alpha\nbeta\ngamma\n";
/// A UTF-8 BOM and CRLF line endings: edit keeps both, a rewind must too.
const CRLF_BOM: &[u8] = b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n";
/// Not UTF-8: `write` replaces it, a rewind must bring these exact bytes back.
const BINARY: &[u8] = b"\x00\xff\xfe raw \x80\n";

/// Run one checkpointed tool call under `turn`, asserting it succeeded.
fn ck(env: &TestEnv, turn: &str, args: &[&str]) -> String {
    let mut all = vec!["--checkpoint", "--turn", turn];
    all.extend_from_slice(args);
    let out = env.run(&all);
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    stdout(&out)
}

fn list_json(env: &TestEnv) -> Value {
    let out = env.run(&["--format", "json", "checkpoint", "list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    serde_json::from_str(stdout(&out).trim_end()).expect("list is JSON")
}

fn node_names(env: &TestEnv) -> Vec<String> {
    list_json(env)
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["node"].as_str().unwrap().to_string())
        .collect()
}

/// Three turns: t1 edits a.txt; t2 creates new.txt, edits b.txt (CRLF + BOM) and
/// overwrites bin.dat; t3 edits a.txt and b.txt again.
fn three_turns(env: &TestEnv) {
    env.write("a.txt", LF);
    env.write("b.txt", CRLF_BOM);
    env.write("bin.dat", BINARY);
    ck(
        env,
        "t1",
        &["edit", "a.txt", "--old-text", "beta", "--new-text", "BETA"],
    );
    ck(
        env,
        "t2",
        &["write", "new.txt", "--content", "created in t2\n"],
    );
    ck(
        env,
        "t2",
        &["edit", "b.txt", "--old-text", "two", "--new-text", "TWO"],
    );
    ck(env, "t2", &["write", "bin.dat", "--content", "text now\n"]);
    ck(
        env,
        "t3",
        &[
            "edit",
            "a.txt",
            "--old-text",
            "gamma",
            "--new-text",
            "GAMMA",
        ],
    );
    ck(
        env,
        "t3",
        &[
            "edit",
            "b.txt",
            "--old-text",
            "three",
            "--new-text",
            "THREE",
        ],
    );
}

#[test]
fn rewind_restores_the_exact_bytes_before_the_turn_and_deletes_what_it_created() {
    let env = TestEnv::new();
    three_turns(&env);
    assert_eq!(env.read("b.txt"), b"\xef\xbb\xbfone\r\nTWO\r\nTHREE\r\n");
    assert_eq!(node_names(&env), ["t1", "t2", "t3"]);

    let out = env.run(&["checkpoint", "rewind", "t2"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "Rewound to before t2; forgot t2, t3.\n\
         restored  b.txt\n\
         restored  bin.dat\n\
         restored  a.txt\n\
         deleted   new.txt\n"
    );
    // The state before t2: t1's edit kept, everything after it gone.
    assert_eq!(env.read("a.txt"), b"alpha\nBETA\ngamma\n");
    assert_eq!(env.read("b.txt"), CRLF_BOM);
    assert_eq!(env.read("bin.dat"), BINARY);
    assert!(!env.path("new.txt").exists());
    // The rewound nodes are forgotten; t1 can still be rewound.
    assert_eq!(node_names(&env), ["t1"]);
    let out = env.run(&["checkpoint", "rewind", "t1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(env.read("a.txt"), LF);
    assert_eq!(node_names(&env), Vec::<String>::new());
    // No blob is left once no node needs it.
    let blobs = env.path(".indus-process/checkpoints/default/blobs");
    assert_eq!(std::fs::read_dir(blobs).unwrap().count(), 0);
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn diff_shows_every_change_since_the_turn_and_applies() {
    let env = TestEnv::new();
    env.write("a.txt", LF);
    env.write("b.txt", CRLF_BOM);
    ck(
        &env,
        "t1",
        &["edit", "a.txt", "--old-text", "beta", "--new-text", "BETA"],
    );
    let before_t2 = (env.read("a.txt"), env.read("b.txt"));
    ck(&env, "t2", &["write", "new.txt", "--content", "n1\nn2\n"]);
    ck(
        &env,
        "t2",
        &["edit", "b.txt", "--old-text", "two", "--new-text", "TWO"],
    );
    ck(
        &env,
        "t3",
        &[
            "edit",
            "a.txt",
            "--old-text",
            "gamma",
            "--new-text",
            "GAMMA",
        ],
    );

    let out = env.run(&["checkpoint", "diff", "t2"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let diff = stdout(&out);
    assert_eq!(
        diff,
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+n1\n+n2\n\
         --- a/b.txt\n+++ b/b.txt\n@@ -1,3 +1,3 @@\n \u{feff}one\r\n-two\r\n+TWO\r\n three\r\n\
         --- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n alpha\n BETA\n-gamma\n+GAMMA\n"
    );
    // JSON: per file status and diff, and the whole.
    let out = env.run(&["--format", "json", "checkpoint", "diff", "t2"]);
    let rec: Value = serde_json::from_str(stdout(&out).trim_end()).unwrap();
    let statuses: Vec<&str> = rec["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["created", "modified", "modified"]);
    assert_eq!(rec["diff"], diff);

    // Applied in reverse to the files now, the diff gives the state before t2.
    env.write("ck.patch", &diff);
    let applied = if have("git") {
        Command::new("git")
            .current_dir(env.root())
            .args(["apply", "-R", "ck.patch"])
            .output()
    } else if have("patch") {
        Command::new("patch")
            .current_dir(env.root())
            .args(["-R", "-p1", "-E", "-i", "ck.patch"])
            .output()
    } else {
        common::skipped("neither git nor patch is installed: the diff was not applied");
        return;
    }
    .unwrap();
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    assert_eq!((env.read("a.txt"), env.read("b.txt")), before_t2);
    assert!(!env.path("new.txt").exists());
}

#[test]
fn concurrent_invocations_in_one_turn_lose_no_record() {
    let env = TestEnv::new();
    for i in 0..8 {
        env.write(&format!("f{i}.txt"), format!("file {i}\n"));
    }
    let children: Vec<_> = (0..8)
        .map(|i| {
            common::bin_std()
                .current_dir(env.root())
                .args(["--cwd", env.root().to_str().unwrap()])
                .args(["--checkpoint", "--turn", "par", "edit"])
                .arg(format!("f{i}.txt"))
                .args(["--old-text", "file", "--new-text", "FILE"])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let list = list_json(&env);
    let nodes = list.as_array().unwrap();
    assert_eq!(nodes.len(), 1);
    let mut paths: Vec<&str> = nodes[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    paths.sort();
    let want: Vec<String> = (0..8).map(|i| format!("f{i}.txt")).collect();
    assert_eq!(paths, want);
    let out = env.run(&["checkpoint", "rewind", "par"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    for i in 0..8 {
        assert_eq!(env.read_string(&format!("f{i}.txt")), format!("file {i}\n"));
    }
}

#[test]
fn a_rewind_over_an_outside_change_is_refused_unless_forced() {
    let env = TestEnv::new();
    env.write("a.txt", LF);
    env.write("b.txt", "keep\n");
    ck(
        &env,
        "t1",
        &["edit", "a.txt", "--old-text", "beta", "--new-text", "BETA"],
    );
    ck(&env, "t1", &["write", "b.txt", "--content", "toolbox\n"]);
    env.write("a.txt", "changed by hand\n");

    let out = env.run(&["checkpoint", "rewind", "t1"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "checkpoint: rewind refused; nothing was changed:\n  a.txt: changed since the toolbox last wrote it\n(--force overwrites changed files and leaves files whose content was not kept as they are)\n"
    );
    // Nothing was touched, and the node is still there.
    assert_eq!(env.read_string("a.txt"), "changed by hand\n");
    assert_eq!(env.read_string("b.txt"), "toolbox\n");
    assert_eq!(node_names(&env), ["t1"]);

    let out = env.run(&["checkpoint", "rewind", "t1", "--force"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(env.read("a.txt"), LF);
    assert_eq!(env.read_string("b.txt"), "keep\n");
}

#[test]
fn a_file_over_the_cap_is_reported_not_silently_skipped() {
    let env = TestEnv::new();
    let big = vec![b'x'; 16 * 1024 * 1024 + 1];
    env.write("big.txt", &big);
    let out = ck(&env, "t1", &["write", "big.txt", "--content", "small\n"]);
    assert_eq!(
        out,
        "Saved 6 bytes to big.txt. Checkpoint t1: the previous content of big.txt was not kept: over the cap (16777217 bytes; the cap is 16777216), so a rewind cannot restore it.\n"
    );
    let list = env.run(&["checkpoint", "list"]);
    assert!(
        stdout(&list).contains("big.txt  not kept: over the cap (16777217 bytes"),
        "{}",
        stdout(&list)
    );
    assert_eq!(list_json(&env)[0]["files"][0]["before"], "overCap");
    // A rewind cannot bring it back: refused, and with --force left as it is.
    let out = env.run(&["checkpoint", "rewind", "t1"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("big.txt: not kept: over the cap"));
    let out = env.run(&["checkpoint", "rewind", "t1", "--force"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("left      big.txt: not kept: over the cap"));
    assert_eq!(env.read_string("big.txt"), "small\n");
}

#[test]
fn without_checkpointing_nothing_is_recorded() {
    let env = TestEnv::new();
    env.write("a.txt", LF);
    let out = env.run(&["write", "n.txt", "--content", "x"]);
    assert_eq!(code(&out), 0);
    let out = env.run(&["edit", "a.txt", "--old-text", "beta", "--new-text", "B"]);
    assert_eq!(code(&out), 0);
    assert!(!env.path(".indus-process/checkpoints").exists());
    // INDUS_CHECKPOINT=0 is off too; =1 is on, with INDUS_TURN naming the node.
    let out = env
        .cmd()
        .env("INDUS_CHECKPOINT", "0")
        .args(["write", "m.txt", "--content", "y"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);
    assert!(!env.path(".indus-process/checkpoints").exists());
    let out = env
        .cmd()
        .env("INDUS_CHECKPOINT", "1")
        .env("INDUS_TURN", "from-env")
        .args(["write", "m.txt", "--content", "z"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);
    assert_eq!(node_names(&env), ["from-env"]);
}

#[test]
fn the_wrapped_tools_describe_exactly_as_the_plain_ones() {
    let env = TestEnv::new();
    for tool in ["write", "edit"] {
        let plain = env.run(&["describe", tool]);
        let wrapped = env.run(&["--checkpoint", "describe", tool]);
        assert_eq!(code(&wrapped), 0);
        assert_eq!(stdout(&plain), stdout(&wrapped));
    }
    // The same descriptors, and after them the checkpoint tools, which only
    // checkpointing exposes.
    // The one difference: the command tools' records may carry the checkpoint's
    // note (`checkpoint`), which their output schemas then name.
    let plain: Vec<Value> = serde_json::from_str(&stdout(&env.run(&["schema"]))).unwrap();
    let mut wrapped: Vec<Value> =
        serde_json::from_str(&stdout(&env.run(&["--checkpoint", "schema"]))).unwrap();
    let mut noted = Vec::new();
    for d in &mut wrapped {
        let name = d["name"].as_str().unwrap_or_default().to_string();
        let schema = &mut d["outputSchema"];
        let mut branches = vec![schema.clone()];
        for key in ["oneOf", "anyOf"] {
            if let Some(b) = schema.get(key).and_then(Value::as_array) {
                branches.extend(b.iter().cloned());
            }
        }
        let has = |s: &Value| s["properties"].get("checkpoint").is_some();
        if branches.iter().any(has) {
            noted.push(name);
            if let Some(p) = schema["properties"].as_object_mut() {
                p.remove("checkpoint");
            }
            for key in ["oneOf", "anyOf"] {
                if let Some(b) = schema.get_mut(key).and_then(Value::as_array_mut) {
                    for branch in b {
                        if let Some(p) = branch["properties"].as_object_mut() {
                            p.remove("checkpoint");
                        }
                    }
                }
            }
        }
    }
    noted.sort();
    assert_eq!(
        noted,
        ["bash", "bg-process", "lsp", "process", "sgrep", "task"]
    );
    assert_eq!(wrapped[..plain.len()], plain[..]);
    let added: Vec<&str> = wrapped[plain.len()..]
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        added,
        ["checkpoint_list", "checkpoint_diff", "checkpoint_rewind"]
    );
}

#[test]
fn each_invocation_is_its_own_node_and_a_batch_run_is_one() {
    let env = TestEnv::new();
    env.run(&["--checkpoint", "write", "a.txt", "--content", "1"]);
    env.run(&["--checkpoint", "write", "b.txt", "--content", "2"]);
    let names = node_names(&env);
    assert_eq!(names.len(), 2);
    assert!(names.iter().all(|n| n.starts_with("t-")), "{names:?}");
    assert_ne!(names[0], names[1]);
    let out = env
        .cmd()
        .args(["--checkpoint", "batch"])
        .write_stdin(
            "{\"id\":1,\"name\":\"write\",\"input\":{\"path\":\"c.txt\",\"content\":\"3\"}}\n\
             {\"id\":2,\"name\":\"write\",\"input\":{\"path\":\"d.txt\",\"content\":\"4\"}}\n",
        )
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let list = list_json(&env);
    assert_eq!(list.as_array().unwrap().len(), 3);
    assert_eq!(list[2]["files"].as_array().unwrap().len(), 2);
}

#[test]
fn unknown_nodes_stale_turns_git_folders_and_drop() {
    let env = TestEnv::new();
    let out = env.run(&["checkpoint", "rewind", "nope"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "checkpoint: no checkpoint named \"nope\": this session has none\n"
    );
    ck(&env, "t1", &["write", "one.txt", "--content", "1"]);
    // A protected path is written only when lifted by name.
    let out = env.run(&["--checkpoint", "write", ".git/hooks/y", "--content", "2"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("--allow-protected"),
        "{}",
        stderr(&out)
    );
    ck(
        &env,
        "t2",
        &[
            "--allow-protected",
            ".git/hooks",
            "write",
            ".git/hooks/x",
            "--content",
            "2",
        ],
    );
    let out = env.run(&["checkpoint", "diff", "t9"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "checkpoint: no checkpoint named \"t9\"; known: t1, t2\n"
    );
    // An older turn named again after a newer one began: refused, file untouched.
    let out = env.run(&[
        "--checkpoint",
        "--turn",
        "t1",
        "write",
        "one.txt",
        "--content",
        "x",
    ]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("\"t2\" began after it"),
        "{}",
        stderr(&out)
    );
    assert_eq!(env.read_string("one.txt"), "1");
    // Another session sees none of it.
    assert_eq!(
        stdout(&env.run(&["--session", "other", "checkpoint", "list"])),
        "No checkpoints in session \"other\".\n"
    );
    // A rewind touches a .git folder only when lifted, and never forgets in
    // silence: refused naming it, left and listed with --force.
    let out = env.run(&["checkpoint", "rewind", "t2"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains(".git/hooks/x: a protected path (inside "),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["checkpoint", "rewind", "t2", "--force"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("left      .git/hooks/x: a protected path"),
        "{}",
        stdout(&out)
    );
    assert!(env.path(".git/hooks/x").exists());
    // drop: a usage error without a node, then the node and older ones.
    assert_eq!(code(&env.run(&["checkpoint", "drop"])), 2);
    ck(&env, "t3", &["write", "three.txt", "--content", "3"]);
    let out = env.run(&["checkpoint", "drop", "t1"]);
    assert_eq!(stdout(&out), "Dropped t1.\n");
    assert_eq!(node_names(&env), ["t3"]);
    let out = env.run(&["--format", "json", "checkpoint", "drop", "--all"]);
    assert_eq!(stdout(&out), "{\"dropped\":[\"t3\"]}\n");
    assert_eq!(node_names(&env), Vec::<String>::new());
}

#[test]
fn a_session_that_asks_is_checkpointed_without_the_flag() {
    let env = TestEnv::new();
    env.write("f.txt", LF);
    let out = env.run(&["checkpoint", "on"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).starts_with("Checkpoints are on for session default"));
    // No flag, yet recorded; another session is not.
    let out = env.run(&["edit", "f.txt", "--old-text", "beta", "--new-text", "BETA"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(node_names(&env).len(), 1);
    let out = env.run(&[
        "--session",
        "s2",
        "edit",
        "f.txt",
        "--old-text",
        "BETA",
        "--new-text",
        "Beta",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let s2 = env.run(&["--session", "s2", "--format", "json", "checkpoint", "list"]);
    assert_eq!(stdout(&s2).trim_end(), "[]");
    // INDUS_CHECKPOINT=0 skips one invocation of the asking session.
    let out = env
        .cmd()
        .env("INDUS_CHECKPOINT", "0")
        .args(["edit", "f.txt", "--old-text", "Beta", "--new-text", "beta"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(node_names(&env).len(), 1);
    // off: back to the flag alone; the nodes stay.
    let out = env.run(&["--format", "json", "checkpoint", "off"]);
    assert_eq!(
        stdout(&out).trim_end(),
        r#"{"session":"default","checkpoint":false}"#
    );
    let out = env.run(&["edit", "f.txt", "--old-text", "beta", "--new-text", "b"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(node_names(&env).len(), 1);
}

/// Two agents (two processes, one session, a node each) edit one file at about
/// the same time, 20 rounds: each node's pre-image is the file its own write
/// replaced, so rewinding the newer node leaves exactly the older node's edit,
/// and rewinding that one too gives the original back.
#[test]
fn overlapping_checkpointed_edits_rewind_exactly() {
    let env = TestEnv::new();
    let original = "one\ntwo\nthree\nfour\n";
    let spawn = |old: &str, new: &str| {
        common::bin_std()
            .current_dir(env.root())
            .args(["--cwd", env.root().to_str().unwrap()])
            .args([
                "--checkpoint",
                "edit",
                "f.txt",
                "--old-text",
                old,
                "--new-text",
                new,
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    for round in 0..20 {
        env.write("f.txt", original);
        let a = spawn("one", "ONE");
        let b = spawn("four", "FOUR");
        for child in [a, b] {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        assert_eq!(env.read_string("f.txt"), "ONE\ntwo\nthree\nFOUR\n");
        let names = node_names(&env);
        assert_eq!(names.len(), 2, "round {round}: {names:?}");
        let out = env.run(&["checkpoint", "rewind", &names[1]]);
        assert_eq!(code(&out), 0, "round {round}: {}", stderr(&out));
        let after_older = env.read_string("f.txt");
        assert!(
            after_older == "ONE\ntwo\nthree\nfour\n" || after_older == "one\ntwo\nthree\nFOUR\n",
            "round {round}: rewinding the newer node left {after_older:?}"
        );
        let out = env.run(&["checkpoint", "rewind", &names[0]]);
        assert_eq!(code(&out), 0, "round {round}: {}", stderr(&out));
        assert_eq!(env.read_string("f.txt"), original, "round {round}");
    }
}

/// Eight processes edit eight lines of one file at once, a node each: the nodes'
/// pre-images form one chain in node order, so rewinding them one at a time,
/// newest first, takes back exactly one edit per step.
#[test]
fn concurrent_nodes_chain_their_pre_images_in_node_order() {
    let env = TestEnv::new();
    let original: String = (0..8).map(|i| format!("line {i}\n")).collect();
    env.write("f.txt", &original);
    let children: Vec<_> = (0..8)
        .map(|i| {
            common::bin_std()
                .current_dir(env.root())
                .args(["--cwd", env.root().to_str().unwrap()])
                .args(["--checkpoint", "edit", "f.txt"])
                .args([
                    "--old-text",
                    &format!("line {i}"),
                    "--new-text",
                    &format!("LINE {i}"),
                ])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let mut names = node_names(&env);
    assert_eq!(names.len(), 8);
    let edited = |t: &str| t.matches("LINE").count();
    assert_eq!(edited(&env.read_string("f.txt")), 8);
    while let Some(newest) = names.pop() {
        let out = env.run(&["checkpoint", "rewind", &newest]);
        assert_eq!(code(&out), 0, "{newest}: {}", stderr(&out));
        assert_eq!(
            edited(&env.read_string("f.txt")),
            names.len(),
            "after {newest}"
        );
    }
    assert_eq!(env.read_string("f.txt"), original);
}

/// Checkpoints by the file, relative to the project: a `cp -a` copy rewinds
/// itself (the original untouched); one file through a symlinked folder is one
/// record; a write through a dangling link is recorded at the link's target;
/// a file recreated by a rewind gets its own mode back; the folders a turn
/// created go with its files.
#[test]
fn checkpoints_follow_the_file_and_the_project() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    env.write("a.txt", "original\n");
    ck(
        &env,
        "t1",
        &[
            "edit",
            "a.txt",
            "--old-text",
            "original",
            "--new-text",
            "changed",
        ],
    );
    // A copy of the project, state and all, rewinds its own file.
    let copy = common::copy_project(env.root());
    let out = common::bin()
        .current_dir(copy.path())
        .args(["checkpoint", "rewind", "t1"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(copy.path().join("a.txt")).unwrap(),
        "original\n"
    );
    assert_eq!(
        env.read_string("a.txt"),
        "changed\n",
        "the original was rewound from the copy"
    );
    let out = env.run(&["checkpoint", "rewind", "t1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    // One file, two paths.
    env.write("real/f.txt", "one\n");
    std::os::unix::fs::symlink("real", env.path("link")).unwrap();
    ck(
        &env,
        "t2",
        &[
            "edit",
            "link/f.txt",
            "--old-text",
            "one",
            "--new-text",
            "two",
        ],
    );
    ck(
        &env,
        "t3",
        &[
            "edit",
            "real/f.txt",
            "--old-text",
            "two",
            "--new-text",
            "three",
        ],
    );
    let list = list_json(&env);
    let paths: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|n| n["files"].as_array().unwrap())
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["real/f.txt", "real/f.txt"], "{list}");
    let out = env.run(&["checkpoint", "rewind", "t2"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(env.read_string("real/f.txt"), "one\n");
    assert!(env.path("link").is_symlink());

    // A write through a dangling link creates its target; the rewind deletes
    // the target and leaves the link.
    std::os::unix::fs::symlink("target.txt", env.path("dangling.txt")).unwrap();
    ck(
        &env,
        "t4",
        &["write", "dangling.txt", "--content", "made\n"],
    );
    assert_eq!(env.read_string("target.txt"), "made\n");
    let out = env.run(&["checkpoint", "rewind", "t4"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!env.path("target.txt").exists());
    assert!(env.path("dangling.txt").is_symlink());

    // The mode of a file deleted since, recreated by a forced rewind.
    env.write("run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(env.path("run.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    ck(
        &env,
        "t5",
        &["edit", "run.sh", "--old-text", "sh", "--new-text", "bash"],
    );
    std::fs::remove_file(env.path("run.sh")).unwrap();
    let out = env.run(&["checkpoint", "rewind", "t5", "--force"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(env.read_string("run.sh"), "#!/bin/sh\n");
    let mode = std::fs::metadata(env.path("run.sh"))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777;
    assert_eq!(mode, 0o750);

    // Folders made for a new file go with it (an older folder stays).
    ck(
        &env,
        "t6",
        &["write", "new/deep/file.txt", "--content", "x\n"],
    );
    ck(&env, "t6", &["write", "real/other.txt", "--content", "y\n"]);
    let out = env.run(&["checkpoint", "rewind", "t6"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!env.path("new").exists());
    assert!(env.path("real").is_dir());
}

/// `rewind --force` plans every step first: a file that became a folder refuses
/// the whole rewind, nothing touched, the node kept.
#[test]
fn a_forced_rewind_is_all_or_nothing() {
    let env = TestEnv::new();
    env.write("a.txt", "a\n");
    env.write("b.txt", "b\n");
    ck(&env, "t1", &["write", "a.txt", "--content", "A\n"]);
    ck(&env, "t1", &["write", "b.txt", "--content", "B\n"]);
    std::fs::remove_file(env.path("b.txt")).unwrap();
    std::fs::create_dir(env.path("b.txt")).unwrap();
    let out = env.run(&["checkpoint", "rewind", "t1", "--force"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(stderr(&out).contains("is a folder now"), "{}", stderr(&out));
    assert_eq!(
        env.read_string("a.txt"),
        "A\n",
        "a file was restored by a refused rewind"
    );
    assert_eq!(node_names(&env), ["t1"]);
}

/// A forced rewind of 300 files killed at moments spread over its run: the next call on the session
/// finishes it, so every file is back and the node gone, or (killed before its
/// plan was written) nothing changed and the node kept. Never a mix.
#[test]
fn a_rewind_killed_midway_is_completed_by_the_next_call() {
    let env = TestEnv::new();
    let n = 300;
    for round in 0..6u64 {
        for i in 0..n {
            env.write(&format!("d/f{i}.txt"), format!("before {i}\n"));
        }
        let batch: String = (0..n)
            .map(|i| {
                format!(
                    "{{\"name\":\"read\",\"input\":{{\"path\":\"d/f{i}.txt\"}}}}\n{{\"name\":\"write\",\"input\":{{\"path\":\"d/f{i}.txt\",\"content\":\"after {i}\\n\"}}}}\n"
                )
            })
            .collect();
        let out = env
            .cmd()
            .args(["--checkpoint", "--turn", "big", "batch"])
            .write_stdin(batch)
            .output()
            .unwrap();
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(env.read_string("d/f7.txt"), "after 7\n", "{}", stdout(&out));
        let mut child = common::bin_std()
            .current_dir(env.root())
            .args(["--cwd", env.root().to_str().unwrap()])
            .args(["checkpoint", "rewind", "big", "--force"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5 + round * 9));
        let _ = child.kill();
        let _ = child.wait();
        let names = node_names(&env); // finishes an interrupted rewind
        let restored = (0..n)
            .filter(|i| env.read_string(&format!("d/f{i}.txt")) == format!("before {i}\n"))
            .count();
        match restored {
            0 => assert_eq!(names, ["big"], "round {round}"),
            r if r == n => assert!(names.is_empty(), "round {round}: {names:?}"),
            r => panic!("round {round}: {r} of {n} files restored"),
        }
        if !names.is_empty() {
            let out = env.run(&["checkpoint", "rewind", "big"]);
            assert_eq!(code(&out), 0, "{}", stderr(&out));
        }
    }
}

/// A batch under `--checkpoint` whose calls name two turns: each turn is a node
/// of its own, and the checkpoint tools, called in the same batch, list them,
/// show one turn's diff and rewind it alone (the other turn's change stays).
#[test]
fn a_batchs_turns_are_nodes_and_one_is_rewound_alone_by_the_tools() {
    let env = TestEnv::new();
    env.write("a.txt", LF);
    env.write("b.txt", "one\n");
    let calls = [
        serde_json::json!({"id": 1, "name": "edit", "turn": "t1", "input": {"path": "a.txt", "oldText": "beta", "newText": "BETA"}}),
        serde_json::json!({"id": 2, "name": "write", "turn": "t2", "input": {"path": "b.txt", "content": "two\n"}}),
        serde_json::json!({"id": 3, "name": "write", "turn": "t2", "input": {"path": "c.txt", "content": "new\n"}}),
        serde_json::json!({"id": 4, "name": "checkpoint_list"}),
        serde_json::json!({"id": 5, "name": "checkpoint_diff", "input": {"turn": "t2"}}),
        serde_json::json!({"id": 6, "name": "checkpoint_rewind", "input": {"turn": "t2"}}),
        serde_json::json!({"id": 7, "name": "checkpoint_rewind", "input": {}}),
    ];
    let input: String = calls.iter().map(|c| format!("{c}\n")).collect();
    let out = env
        .cmd()
        .args(["--checkpoint", "batch", "--no-gate"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let got: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for line in &got[..6] {
        assert_eq!(line["is_error"], false, "{line}");
    }
    let nodes: Vec<&str> = got[3]["output"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["node"].as_str().unwrap())
        .collect();
    assert_eq!(nodes, ["t1", "t2"]);
    assert_eq!(got[3]["output"]["nodes"][1]["files"][0]["path"], "b.txt");
    assert_eq!(
        got[4]["output"]["diff"],
        "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-one\n+two\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+new\n"
    );
    assert_eq!(got[5]["output"]["restored"], serde_json::json!(["b.txt"]));
    assert_eq!(got[5]["output"]["deleted"], serde_json::json!(["c.txt"]));
    assert_eq!(got[5]["output"]["dropped"], serde_json::json!(["t2"]));
    // A rewind that names no checkpoint says which fields name one.
    assert_eq!(got[6]["is_error"], true);
    assert!(
        got[6]["output"].as_str().unwrap().contains("\"turn\""),
        "{}",
        got[6]
    );
    // t2 is undone, t1's change stays, and the subcommand sees the same store.
    assert_eq!(env.read_string("b.txt"), "one\n");
    assert!(!env.path("c.txt").exists());
    assert_eq!(env.read_string("a.txt"), "alpha\nBETA\ngamma\n");
    assert_eq!(node_names(&env), ["t1"]);

    // `call` takes a turn too, and the tool's text is the subcommand's.
    let out = env.run(&[
        "--checkpoint",
        "call",
        r#"{"id":"c","name":"write","turn":"t3","input":{"path":"b.txt","content":"three\n"}}"#,
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(node_names(&env), ["t1", "t3"]);
    let sub = env.run(&["checkpoint", "list"]);
    let tool = env.run(&["--checkpoint", "checkpoint_list"]);
    assert_eq!(code(&tool), 0, "{}", stderr(&tool));
    assert_eq!(stdout(&tool), stdout(&sub));
    let sub = env.run(&["checkpoint", "diff", "t3"]);
    let tool = env.run(&["--checkpoint", "checkpoint_diff", "--turn", "t3"]);
    assert_eq!(stdout(&tool), stdout(&sub));
    // Not exposed unless checkpointing is on; the refusal says how to turn it on.
    let out = env
        .cmd()
        .env("INDUS_EXACT", "0")
        .arg("checkpoint_list")
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("indus-tool --checkpoint checkpoint_list"),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["--checkpoint", "checkpoint_rewind", "--node", "t3"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "Rewound to before t3; forgot t3.\nrestored  b.txt\n"
    );
    assert_eq!(env.read_string("b.txt"), "one\n");
}

/// A scanned tool's calls that cannot write (sgrep's searches and its
/// `--check`) pass by the checkpoint: no two scans of the tree, and so no copy
/// of every file the first scan keeps; its rewrite is scanned, recorded and
/// rewound. Before, a search under `--checkpoint` scanned and copied the tree.
#[test]
fn only_the_calls_that_may_write_are_scanned() {
    let env = TestEnv::new();
    env.write("a.py", "print(1)\nprint(2)\n");
    for search in [
        &["sgrep", "print($X)", "a.py"][..],
        &[
            "sgrep",
            "print($X)",
            "a.py",
            "--rewrite",
            "log($X)",
            "--check",
        ],
    ] {
        let mut args = vec!["--checkpoint"];
        args.extend_from_slice(search);
        let out = env.run(&args);
        assert_eq!(code(&out), 0, "{search:?}: {}", stderr(&out));
        assert_eq!(node_names(&env), Vec::<String>::new(), "{search:?}");
        assert_eq!(
            kept_blobs(&env.root().join(".indus-process")),
            Vec::<String>::new(),
            "{search:?}: the tree was scanned"
        );
    }
    assert_eq!(env.read_string("a.py"), "print(1)\nprint(2)\n");
    ck(
        &env,
        "r1",
        &["sgrep", "print($X)", "a.py", "--rewrite", "log($X)"],
    );
    assert_eq!(env.read_string("a.py"), "log(1)\nlog(2)\n");
    assert_eq!(node_names(&env), ["r1"]);
    let out = env.run(&["checkpoint", "rewind", "r1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(env.read_string("a.py"), "print(1)\nprint(2)\n");
}

/// The files under any `blobs/` folder below `dir`: the copies scans keep.
fn kept_blobs(dir: &std::path::Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(kept_blobs(&path));
        } else if path.components().any(|c| c.as_os_str() == "blobs") {
            found.push(path.display().to_string());
        }
    }
    found
}
