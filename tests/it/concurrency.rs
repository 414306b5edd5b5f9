//! Many invocations at once against one folder: 64 one-shot calls (edits of one
//! shared file, whole-file writes, todo lists, background jobs started and polled)
//! start together, and afterwards every file and every state file must be whole and
//! consistent: no edit undone by another, no torn write, no todo list that mixes
//! two calls, no job lost from the table, no temp file left behind.

use crate::common;

use std::collections::HashSet;
use std::path::Path;
use std::process::Output;
use std::sync::Barrier;
use std::time::Duration;

use common::{TestEnv, code, parse_outcome, stderr, stdout, wait_until};
use serde_json::{Value, json};

const SLOTS: usize = 16;
const WRITE_LEN: usize = 100 * 1024;

fn slot_line(i: usize) -> String {
    format!("slot {i:02}: open")
}

fn todo_list(tag: &str) -> Value {
    json!({"items": [
        {"id": format!("{tag}-a"), "text": format!("first of {tag}"), "status": "pending"},
        {"id": format!("{tag}-b"), "text": format!("second of {tag}"), "status": "done", "priority": "high"},
    ]})
}

/// Every JSON state file under `dir` parses.
fn check_state_folder(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().unwrap().is_dir() {
            check_state_folder(&path);
        } else if name.ends_with(".json") {
            let text = std::fs::read_to_string(&path).unwrap();
            serde_json::from_str::<Value>(&text)
                .unwrap_or_else(|e| panic!("{} is torn ({e}): {text:?}", path.display()));
        }
    }
}

#[test]
fn sixty_four_mixed_invocations_leave_everything_whole() {
    let env = TestEnv::new();
    let shared: String = (0..SLOTS).map(|i| slot_line(i) + "\n").collect();
    env.write("shared.txt", &shared);
    // Eight jobs exist before the storm, to be polled during it.
    for i in 0..8 {
        let out = env.run(&["process", "start", "--command", &format!("echo early-{i}")]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }

    // The 64 calls: (label, arguments after `--cwd DIR --format json`).
    let mut calls: Vec<(String, Vec<String>)> = Vec::new();
    for i in 0..SLOTS {
        calls.push((
            format!("edit {i}"),
            vec![
                "edit".into(),
                "shared.txt".into(),
                "--old-text".into(),
                slot_line(i),
                "--new-text".into(),
                format!("slot {i:02}: closed by edit {i}"),
            ],
        ));
    }
    for i in 0..8 {
        let content = char::from(b'a' + i as u8).to_string().repeat(WRITE_LEN);
        calls.push((
            format!("write own {i}"),
            vec![
                "write".into(),
                format!("own/w{i}.txt"),
                "--content".into(),
                content.clone(),
            ],
        ));
        let content = char::from(b'A' + i as u8).to_string().repeat(WRITE_LEN);
        calls.push((
            format!("write same {i}"),
            vec![
                "write".into(),
                "same.txt".into(),
                "--content".into(),
                content,
            ],
        ));
    }
    for i in 0..8 {
        calls.push((
            format!("todo shared {i}"),
            vec![
                "--session".into(),
                "shared".into(),
                "todo_set".into(),
                "--json".into(),
                todo_list(&format!("shared{i}")).to_string(),
            ],
        ));
        calls.push((
            format!("todo own {i}"),
            vec![
                "--session".into(),
                format!("own{i}"),
                "todo_set".into(),
                "--json".into(),
                todo_list(&format!("own{i}")).to_string(),
            ],
        ));
    }
    for i in 0..8 {
        calls.push((
            format!("start {i}"),
            vec![
                "process".into(),
                "start".into(),
                "--command".into(),
                format!("echo late-{i}"),
            ],
        ));
        calls.push((
            format!("poll {i}"),
            vec![
                "process".into(),
                "poll".into(),
                "--id".into(),
                format!("job-{}", i + 1),
            ],
        ));
    }
    assert_eq!(calls.len(), 64);

    let barrier = Barrier::new(calls.len());
    let results: Vec<(String, Output)> = std::thread::scope(|scope| {
        let handles: Vec<_> = calls
            .iter()
            .map(|(label, args)| {
                let (env, barrier) = (&env, &barrier);
                scope.spawn(move || {
                    let mut cmd = env.cmd();
                    cmd.arg("--format").arg("json").args(args);
                    cmd.timeout(Duration::from_secs(60));
                    barrier.wait();
                    (label.clone(), cmd.output().expect("run"))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    let mut started = HashSet::new();
    for (label, out) in &results {
        assert_eq!(
            code(out),
            0,
            "{label} failed: {} {}",
            stdout(out),
            stderr(out)
        );
        let outcome = parse_outcome(out);
        assert_eq!(outcome["is_error"], json!(false), "{label}: {outcome}");
        if label.starts_with("start") {
            // `process start` answers programs with the job's record.
            let id = outcome["output"]["id"].as_str().unwrap().to_string();
            assert!(started.insert(id), "{label} reused a job id: {outcome}");
        }
    }

    // Every edit landed: none was undone by a concurrent one.
    let after = env.read_string("shared.txt");
    let expected: String = (0..SLOTS)
        .map(|i| format!("slot {i:02}: closed by edit {i}\n"))
        .collect();
    assert_eq!(after, expected);

    // Each write is whole; the contended file holds exactly one writer's content.
    for i in 0..8 {
        let want = char::from(b'a' + i as u8).to_string().repeat(WRITE_LEN);
        assert_eq!(env.read_string(&format!("own/w{i}.txt")), want);
    }
    let same = env.read_string("same.txt");
    assert_eq!(same.len(), WRITE_LEN);
    let first = same.as_bytes()[0];
    assert!((b'A'..b'A' + 8).contains(&first));
    assert!(
        same.bytes().all(|b| b == first),
        "same.txt mixes two writes"
    );

    // Todo lists: each session holds one call's list, whole.
    let read_todos = |session: &str| {
        let (v, out) = env.run_json(&["--session", session, "todo_read"]);
        assert_eq!(code(&out), 0);
        v["output"]["items"].clone()
    };
    let shared_items = read_todos("shared");
    let winners: Vec<Value> = (0..8)
        .map(|i| todo_list(&format!("shared{i}"))["items"].clone())
        .collect();
    assert!(
        winners.contains(&shared_items),
        "the shared list is no call's list: {shared_items}"
    );
    for i in 0..8 {
        assert_eq!(
            read_todos(&format!("own{i}")),
            todo_list(&format!("own{i}"))["items"]
        );
    }

    // Jobs: 16 in the table, distinct ids, every one ends with its own output.
    let (list, _) = env.run_json(&["process", "list"]);
    let jobs = list["output"]["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 16, "{list}");
    for i in 1..=16 {
        let id = format!("job-{i}");
        let finished = wait_until(Duration::from_secs(10), || {
            let (v, _) = env.run_json(&["process", "poll", "--id", &id]);
            v["output"]["status"] == json!("exited") && v["output"]["exitCode"] == json!(0)
        });
        assert!(finished, "{id} never finished");
        let (v, _) = env.run_json(&["process", "poll", "--id", &id]);
        let command = v["output"]["command"].as_str().unwrap();
        assert!(
            command.contains("early-") || command.contains("late-"),
            "{id}: {v}"
        );
    }

    check_state_folder(&env.path(".indus-process"));
    let left = common::temp_leftovers(env.root());
    assert!(left.is_empty(), "temp files left behind: {left:?}");
}

/// The same inside one process: a batch running 16 edits of one file on 8 workers
/// loses none of them (the lock excludes within a process too).
#[test]
fn concurrent_edits_in_one_batch_all_land() {
    let env = TestEnv::new();
    let shared: String = (0..SLOTS).map(|i| slot_line(i) + "\n").collect();
    env.write("shared.txt", &shared);
    let calls: String = (0..SLOTS)
        .map(|i| {
            json!({"id": format!("e{i}"), "name": "edit", "input": {
                "path": "shared.txt",
                "oldText": slot_line(i),
                "newText": format!("slot {i:02}: closed by edit {i}"),
            }})
            .to_string()
                + "\n"
        })
        .collect();
    let out = env
        .cmd()
        .args(["batch", "--jobs", "8", "--no-gate"])
        .write_stdin(calls)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    for line in stdout(&out).lines() {
        let outcome: Value = serde_json::from_str(line).unwrap();
        assert_eq!(outcome["is_error"], json!(false), "{outcome}");
    }
    let expected: String = (0..SLOTS)
        .map(|i| format!("slot {i:02}: closed by edit {i}\n"))
        .collect();
    assert_eq!(env.read_string("shared.txt"), expected);
}

/// Eight sgrep rewrites at once over the same four files, each of its own call
/// (`aI(...)` to `bI(...)`): every file is rewritten through one all-or-nothing
/// apply, whose hunks are checked against the file as it is when they land.
/// Spaced far enough apart that no two rewrites share a line of context, every
/// one lands, in every file (none undoes another); packed on adjacent lines, a
/// rewrite whose context another one changed is refused whole, and the others
/// land. Never a file with some of one rewrite's changes and not the rest.
#[test]
fn concurrent_sgrep_rewrites_land_whole_or_not_at_all() {
    const N: usize = 8;
    const FILES: usize = 4;
    for spacing in [8usize, 1] {
        let env = TestEnv::new();
        let body: String = (0..N)
            .map(|i| format!("a{i}(1)\n") + &"pass\n".repeat(spacing - 1))
            .collect();
        for f in 0..FILES {
            env.write(&format!("m{f}.py"), &body);
        }
        let barrier = Barrier::new(N);
        let outs: Vec<Output> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..N)
                .map(|i| {
                    let (env, barrier) = (&env, &barrier);
                    s.spawn(move || {
                        let (pattern, template) = (format!("a{i}($X)"), format!("b{i}($X)"));
                        let mut cmd = env.cmd();
                        cmd.args(["sgrep", &pattern, ".", "--rewrite", &template])
                            .timeout(Duration::from_secs(60));
                        barrier.wait();
                        cmd.output().unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let texts: Vec<String> = (0..FILES)
            .map(|f| env.read_string(&format!("m{f}.py")))
            .collect();
        for (i, out) in outs.iter().enumerate() {
            let (old, new) = (format!("a{i}(1)\n"), format!("b{i}(1)\n"));
            let landed = texts.iter().filter(|t| t.contains(&new)).count();
            let kept = texts.iter().filter(|t| t.contains(&old)).count();
            if code(out) == 0 {
                assert_eq!(landed, FILES, "rewrite {i} said it landed: {texts:?}");
            } else {
                // Another rewrite changed its lines of context: said so, with
                // what to do.
                assert!(
                    stderr(out).contains("changed by someone else after sgrep read")
                        && stderr(out).contains("Run sgrep again"),
                    "rewrite {i}: {}",
                    stderr(out)
                );
                assert_eq!(kept, FILES, "rewrite {i} was refused: {texts:?}");
            }
            assert_eq!(landed + kept, FILES, "rewrite {i}: {texts:?}");
        }
        if spacing > 3 {
            assert!(
                outs.iter().all(|o| code(o) == 0),
                "apart, every rewrite lands: {:?}",
                outs.iter().map(stderr).collect::<Vec<_>>()
            );
        }
        // Each file keeps its line count, and no temporary file is left.
        for t in &texts {
            assert_eq!(t.lines().count(), N * spacing, "{t}");
        }
        let names: Vec<String> = std::fs::read_dir(env.root())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| {
                let ours = n.starts_with('m') && n.ends_with(".py");
                !(n.starts_with('.') || ours)
            })
            .collect();
        assert_eq!(names, Vec::<String>::new());
    }
}
