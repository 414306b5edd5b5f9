//! `indus-tool batch` through the real binary: JSONL calls in, JSONL outcomes out.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::http::{Reply, TestServer};
use common::{TestEnv, code, stderr, stdout};
use serde_json::{Value, json};

fn lines_of(calls: &[Value]) -> String {
    calls.iter().map(|c| format!("{c}\n")).collect()
}

fn outcomes(out: &std::process::Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn batch(env: &TestEnv, args: &[&str], input: &str) -> std::process::Output {
    let mut all = vec!["batch"];
    all.extend_from_slice(args);
    env.cmd()
        .args(&all)
        .write_stdin(input.to_string())
        .output()
        .unwrap()
}

#[test]
fn every_family_round_trips_in_order() {
    let env = TestEnv::new();
    env.write("src/lib.rs", "fn alpha() {}\nfn beta() {}\n");
    let srv = TestServer::start(|req| match req.path() {
        "/html/" => Reply::ok(
            "text/html; charset=utf-8",
            include_str!("../fixtures/web/ddg-classic.html"),
        ),
        _ => Reply::ok("text/plain", "served text\n"),
    });
    let calls = vec![
        json!({"id": "w", "name": "write", "input": {"path": "notes.txt", "content": "one\ntwo\n"}}),
        json!({"id": "r", "name": "read", "input": {"path": "notes.txt"}}),
        json!({"id": "e", "name": "edit", "input": {"path": "notes.txt", "oldText": "two", "newText": "2"}}),
        json!({"id": "l", "name": "ls", "input": {"path": "src"}}),
        json!({"id": "g", "name": "grep", "input": {"pattern": "fn beta", "path": "src"}}),
        json!({"id": "f", "name": "find", "input": {"pattern": "*.rs"}}),
        json!({"id": "b", "name": "bash", "input": {"command": "cat notes.txt"}}),
        json!({"id": "p", "name": "process", "input": {"action": "list"}}),
        json!({"id": "ts", "name": "todo_set", "input": {"items": [{"id": "a", "text": "ship", "status": "active"}]}}),
        json!({"id": "tr", "name": "todo_read"}),
        json!({"id": "wf", "name": "webfetch", "input": {"url": srv.url("/x")}}),
        json!({"id": "ws", "name": "websearch", "input": {"query": "foo", "count": 1}}),
    ];
    let out = env
        .cmd()
        .arg("batch")
        .env("INDUS_WEBSEARCH_URL", srv.url("/html/"))
        // The test server is on 127.0.0.1, which webfetch refuses unless allowed.
        .arg("--allow-private-network")
        .write_stdin(lines_of(&calls))
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let got = outcomes(&out);
    let ids: Vec<&str> = got.iter().map(|o| o["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "w", "r", "e", "l", "g", "f", "b", "p", "ts", "tr", "wf", "ws"
        ]
    );
    for o in &got {
        assert_eq!(o["is_error"], false, "{o}");
    }
    // write and read give programs their records; the hashes agree.
    assert_eq!(got[0]["output"]["path"], "notes.txt");
    assert_eq!(got[0]["output"]["bytes"], 8);
    assert_eq!(got[1]["output"]["lines"], serde_json::json!(["one", "two"]));
    assert_eq!(got[1]["output"]["sha256"], got[0]["output"]["sha256"]);
    assert_eq!(got[4]["output"]["rows"][0]["path"], "src/lib.rs");
    assert_eq!(got[4]["output"]["rows"][0]["text"], "fn beta() {}");
    assert_eq!(got[6]["output"]["stdout"], "one\n2\n");
    assert_eq!(got[6]["output"]["exitCode"], 0);
    assert_eq!(got[7]["output"], serde_json::json!({"jobs": []}));
    // A tool answering with text and a record gives programs the record.
    assert_eq!(got[9]["output"]["items"][0]["text"], "ship");
    assert_eq!(got[9]["output"]["items"][0]["status"], "active");
    assert_eq!(got[10]["output"]["content"], "served text");
    assert_eq!(got[10]["output"]["status"], 200);
    assert_eq!(got[11]["output"].as_array().unwrap().len(), 1);
    assert_eq!(env.read_string("notes.txt"), "one\n2\n");
}

#[test]
fn malformed_lines_are_answered_and_the_stream_goes_on() {
    let env = TestEnv::new();
    let input = "not json\n\n   \n[1,2]\n{\"id\":\"x\",\"input\":{}}\n{\"id\":{\"a\":1},\"name\":\"ls\"}\n{\"id\":9,\"name\":\"no_such_tool\"}\n{\"id\":10,\"name\":\"ls\"}\n";
    let out = batch(&env, &[], input);
    assert_eq!(code(&out), 0);
    let got = outcomes(&out);
    assert_eq!(got.len(), 6, "blank lines are skipped: {got:?}");
    assert_eq!(got[0]["id"], Value::Null);
    assert!(
        got[0]["output"]
            .as_str()
            .unwrap()
            .starts_with("Line 1 is not a JSON ToolCall: ")
    );
    assert_eq!(
        got[1],
        json!({"id": null, "output": "Line 4: expected a ToolCall object {\"id\", \"name\", \"input\"}, got an array.", "is_error": true})
    );
    assert_eq!(
        got[2],
        json!({"id": "x", "output": "Line 5: \"name\" must name a tool, got nothing.", "is_error": true})
    );
    assert_eq!(
        got[3]["output"],
        "Line 6: \"id\" must be a string or a number, got an object."
    );
    assert_eq!(
        got[4],
        json!({"id": 9, "output": "This session exposes no tool called \"no_such_tool\".", "is_error": true})
    );
    assert_eq!(got[5]["id"], 10);
    assert_eq!(got[5]["is_error"], false);
    // Nothing at all is a clean, empty run.
    let out = batch(&env, &[], "");
    assert_eq!((code(&out), stdout(&out)), (0, String::new()));
}

#[test]
fn one_job_keeps_input_order_and_many_jobs_answer_as_they_finish() {
    let env = TestEnv::new();
    let calls = vec![
        json!({"id": "slow", "name": "bash", "input": {"command": "sleep 0.5; echo slow"}}),
        json!({"id": "fast1", "name": "bash", "input": {"command": "echo fast1"}}),
        json!({"id": "fast2", "name": "ls"}),
    ];
    let out = batch(&env, &[], &lines_of(&calls));
    let ids: Vec<Value> = outcomes(&out).iter().map(|o| o["id"].clone()).collect();
    assert_eq!(ids, [json!("slow"), json!("fast1"), json!("fast2")]);

    let start = Instant::now();
    let out = batch(&env, &["--jobs", "4"], &lines_of(&calls));
    assert!(start.elapsed() < Duration::from_secs(3));
    let ids: Vec<Value> = outcomes(&out).iter().map(|o| o["id"].clone()).collect();
    assert_eq!(ids.len(), 3);
    assert_eq!(ids[2], "slow", "the slow call should finish last: {ids:?}");
    let out = env.cmd().args(["batch", "--jobs", "0"]).output().unwrap();
    assert_eq!(code(&out), 2);
}

#[test]
fn the_gate_is_on_by_default_and_remembers_across_the_run_and_after() {
    let env = TestEnv::new();
    env.write("a.txt", "hello\n");
    let edit = json!({"id": "e", "name": "edit", "input": {"path": "a.txt", "oldText": "hello", "newText": "bye"}});
    let out = batch(&env, &[], &lines_of(std::slice::from_ref(&edit)));
    let got = outcomes(&out);
    assert_eq!(got[0]["is_error"], true, "{got:?}");
    assert!(env.read_string("a.txt") == "hello\n");

    let read = json!({"id": "r", "name": "read", "input": {"path": "a.txt"}});
    let out = batch(&env, &[], &lines_of(&[read, edit.clone()]));
    let got = outcomes(&out);
    assert_eq!(got[1]["is_error"], false, "{got:?}");
    assert_eq!(env.read_string("a.txt"), "bye\n");

    // The run's reads were persisted: a one-shot gated edit in the same session works.
    let out = env.run(&[
        "--gate",
        "edit",
        "a.txt",
        "--old-text",
        "bye",
        "--new-text",
        "ciao",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    env.write("b.txt", "x\n");
    let unread = json!({"id": "u", "name": "edit", "input": {"path": "b.txt", "oldText": "x", "newText": "y"}});
    let out = batch(&env, &["--no-gate"], &lines_of(&[unread]));
    assert_eq!(outcomes(&out)[0]["is_error"], false);
}

/// A batch in `env` whose pipes the test drives line by line.
fn spawn_batch(env: &TestEnv) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("indus-tool"))
        // The toolbox's per-user state (its key) in the tests' home, not the host's.
        .env("HOME", common::no_home())
        .env_remove("XDG_STATE_HOME")
        .current_dir(env.root())
        .arg("batch")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn each_answer_is_flushed_before_the_next_line_arrives() {
    let env = TestEnv::new();
    let mut child = spawn_batch(&env);
    let mut stdin = child.stdin.take().unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    for i in 0..3 {
        writeln!(stdin, "{}", json!({"id": i, "name": "ls"})).unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["id"], i);
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

/// A line over 64 MiB is answered and skipped, and the calls after it still run.
/// Its answer carries the id it opens with (from the head kept of it), so a
/// client's call is answered rather than left waiting.
#[test]
fn an_over_long_line_is_answered_and_skipped() {
    let env = TestEnv::new();
    let mut input = String::with_capacity(65 * 1024 * 1024);
    input.push_str("{\"id\":\"big\",\"name\":\"ls\",\"input\":{\"path\":\"");
    input.push_str(&"x".repeat(64 * 1024 * 1024));
    input.push_str("\"}}\n");
    let long = input.len();
    input.push_str("{\"id\":\"after\",\"name\":\"todo_read\",\"input\":{}}\n");
    let out = batch(&env, &[], &input);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let lines = outcomes(&out);
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0],
        json!({"id": "big", "is_error": true, "output": format!(
            "Line 1 is {long} bytes long, over the batch limit of 64 MiB; it was skipped."
        )})
    );
    assert_eq!(lines[1]["id"], "after");
    assert_eq!(lines[1]["is_error"], false);
}

#[test]
fn unknown_keys_are_refused_in_the_call_and_in_its_input() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let out = batch(
        &env,
        &[],
        &lines_of(&[
            json!({"id": 1, "name": "edit", "input": {"path": "a.txt", "oldText": "one", "newText": "two", "replace_all": true}}),
            json!({"id": 2, "name": "read", "arguments": {"path": "a.txt"}}),
            json!({"id": 3, "name": "read", "input": {"path": "a.txt"}}),
        ]),
    );
    let got = outcomes(&out);
    assert_eq!(got[0]["is_error"], json!(true));
    assert_eq!(
        got[0]["output"],
        json!("Invalid input for edit: unknown key \"replace_all\"; did you mean \"replaceAll\"?")
    );
    assert_eq!(got[1]["id"], json!(2));
    let message = got[1].to_string();
    assert!(
        message.contains(
            "unknown key \\\"arguments\\\" (did you mean \\\"input\\\"?) in the ToolCall"
        ),
        "{message}"
    );
    assert_eq!(got[2]["is_error"], json!(false));
    // The refused edit changed nothing.
    assert_eq!(env.read_string("a.txt"), "one\n");
}

#[test]
fn a_fixed_cause_is_not_suppressed_in_one_run() {
    let env = TestEnv::new();
    let read = json!({"name": "read", "input": {"path": "out.txt"}});
    let out = batch(
        &env,
        &["--jobs", "1"],
        &lines_of(&[
            read.clone(),
            read.clone(),
            read.clone(),
            // Suppressed: the same failure three times, nothing changed since.
            read.clone(),
            json!({"name": "bash", "input": {"command": "echo built > out.txt"}}),
            // The cause is fixed: it runs again, and succeeds.
            read.clone(),
        ]),
    );
    let got = outcomes(&out);
    assert_eq!(got.len(), 6, "{}", stdout(&out));
    for o in &got[..3] {
        assert_eq!(o["is_error"], json!(true));
        assert!(!o["output"].to_string().contains("Not run"), "{o}");
    }
    assert!(
        got[3]["output"].to_string().contains("Not run"),
        "{}",
        got[3]
    );
    assert_eq!(got[4]["is_error"], json!(false), "{}", got[4]);
    assert_eq!(got[5]["is_error"], json!(false), "{}", got[5]);
    assert!(got[5]["output"].to_string().contains("built"), "{}", got[5]);
}

/// `endless | indus-tool batch | head -1`: once the reader is gone no further
/// call is read or run, and batch ends (it read its input forever before).
#[test]
fn a_reader_that_goes_away_ends_an_endless_batch() {
    for jobs in ["1", "4"] {
        let env = TestEnv::new();
        env.write("f.txt", "a\n");
        let mut child = common::bin_std()
            .current_dir(env.root())
            .arg("--cwd")
            .arg(env.root())
            .args(["--format", "text", "batch", "--jobs", jobs])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let feeder = std::thread::spawn(move || {
            let line = b"{\"id\":\"1\",\"name\":\"read\",\"input\":{\"path\":\"f.txt\"}}\n";
            // Until batch stops reading: a broken pipe ends the feed.
            while stdin.write_all(line).is_ok() {}
        });
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        out.read_line(&mut first).unwrap();
        assert!(first.contains("\"is_error\":false"), "{first}");
        drop(out);
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if start.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(
            status.is_some(),
            "--jobs {jobs}: batch went on reading after its reader left"
        );
        feeder.join().unwrap();
    }
}

/// `{"cancel": ID}` stops the running call with that id (its command's process
/// group is killed at once, not after its 30 s), answers it as cancelled, and the
/// stream goes on: a waiting call cancelled before its turn never runs, a cancel of
/// an id nobody has is not answered, and with one job the answers keep input order
/// even for a bad line read while a call ran.
#[test]
fn a_cancel_line_stops_that_call_and_only_that_call() {
    let env = TestEnv::new();
    let marker = format!("indus-cancel-{}", std::process::id());
    let mut child = spawn_batch(&env);
    let mut stdin = child.stdin.take().unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let long = format!("sleep 30; echo {marker}");
    for line in [
        json!({"id": "slow", "name": "bash", "input": {"command": long}}),
        json!("not a call"),
        json!({"id": "queued", "name": "write", "input": {"path": "never.txt", "content": "x"}}),
        json!({"id": 3, "name": "bash", "input": {"command": "echo after"}}),
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    // The command is running before it is cancelled.
    let started = Instant::now();
    while !std::process::Command::new("pgrep")
        .args(["-f", &marker])
        .output()
        .unwrap()
        .status
        .success()
    {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the command never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let t0 = Instant::now();
    for line in [
        json!({"cancel": "queued"}),
        json!({"cancel": "nobody"}),
        json!({"cancel": "slow"}),
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    drop(stdin);
    let answers: Vec<Value> = (&mut reader)
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    assert!(
        t0.elapsed() < Duration::from_secs(10),
        "the cancel was not prompt"
    );
    assert!(child.wait().unwrap().success());
    let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
    assert_eq!(
        ids,
        [&json!("slow"), &Value::Null, &json!("queued"), &json!(3)],
        "{answers:?}"
    );
    assert_eq!(
        answers[0]["output"],
        "bash was cancelled; the command's process group was killed."
    );
    assert_eq!(answers[0]["is_error"], true);
    assert_eq!(answers[2]["output"], "Cancelled before write could begin.");
    assert!(!env.path("never.txt").exists());
    assert_eq!(answers[3]["output"]["stdout"], "after\n");
    let left = std::process::Command::new("pgrep")
        .args(["-f", &marker])
        .output()
        .unwrap();
    assert!(
        !left.status.success(),
        "the cancelled command is still running"
    );

    // A malformed cancel is answered like any bad line.
    let out = batch(
        &env,
        &[],
        "{\"cancel\":[1]}\n{\"cancel\":\"a\",\"id\":\"a\"}\n",
    );
    let got = outcomes(&out);
    assert_eq!(
        got[0]["output"],
        "Line 1: \"cancel\" must be the id of a call, a string or a number, got an array."
    );
    assert_eq!(
        got[1]["output"],
        "Line 2: a cancel line takes only \"cancel\" (the id of the call to cancel), got \"id\" too."
    );
}

/// A strict-mode model (OpenAI's strict function schemas, as openai-agents for
/// Python converts every MCP tool: every key required, none nullable) must fill
/// the keys it does not mean, with "", [], false or a plain number. Each such
/// call is the call it means, for every tool with optional keys (bash's `cwd`
/// and edit's `edits`/`expectSha256`/oldText pair were refused before).
#[test]
fn strict_mode_fillers_are_the_call_meant() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\nbeta\n");
    let calls = [
        json!({"id": "read", "name": "read", "input": {"path": "a.txt", "offset": 1, "limit": 500}}),
        json!({"id": "ls", "name": "ls", "input": {"path": "", "showHidden": false, "limit": 200}}),
        json!({"id": "grep", "name": "grep", "input": {"pattern": "bet", "path": "", "glob": "", "ignoreCase": false, "literal": false, "context": 0, "limit": 200, "gitignore": false, "wordRegexp": false, "outputMode": "content"}}),
        json!({"id": "find", "name": "find", "input": {"pattern": "a.t", "path": "", "type": "file", "limit": 500, "gitignore": false, "extension": [], "maxDepth": 10}}),
        json!({"id": "edit", "name": "edit", "input": {"path": "a.txt", "oldText": "beta", "newText": "BETA", "replaceAll": false, "edits": [], "expectSha256": ""}}),
        json!({"id": "edits", "name": "edit", "input": {"path": "a.txt", "oldText": "", "newText": "", "replaceAll": false, "edits": [{"oldText": "alpha", "newText": "ALPHA", "replaceAll": false}], "expectSha256": ""}}),
        json!({"id": "bash", "name": "bash", "input": {"command": "cat a.txt", "timeoutMs": 120000, "cwd": ""}}),
        json!({"id": "process", "name": "process", "input": {"action": "start", "command": "true", "cwd": "", "id": "", "input": ""}}),
        json!({"id": "bg", "name": "bg-process", "input": {"action": "start", "command": "true", "cwd": "", "id": "", "sinceLast": false}}),
        json!({"id": "todo", "name": "todo", "input": {"action": "read", "items": []}}),
        json!({"id": "patch", "name": "apply_patch", "input": {"patch": "*** Begin Patch\n*** Add File: p.txt\n+p\n*** End Patch\n", "check": false, "reverse": false}}),
        json!({"id": "memory", "name": "memory", "input": {"action": "read", "content": ""}}),
    ];
    let out = batch(&env, &[], &lines_of(&calls));
    for answer in outcomes(&out) {
        assert_eq!(answer["is_error"], false, "{answer}");
    }
    assert_eq!(env.read_string("a.txt"), "ALPHA\nBETA\n");
    assert_eq!(env.read_string("p.txt"), "p\n");
}

/// A reader that goes away stops the calls read ahead too: 300 calls of 0.1 s
/// each, their input already ended, piped into a reader that takes one answer:
/// the answer comes at once, and the batch ends in a moment, not in 30 s.
#[test]
fn a_reader_that_goes_away_stops_the_calls_read_ahead() {
    let env = TestEnv::new();
    let mut child = spawn_batch(&env);
    let mut stdin = child.stdin.take().unwrap();
    for i in 0..300 {
        writeln!(
            stdin,
            "{}",
            json!({"id": i, "name": "bash", "input": {"command": "sleep 0.1; echo x"}})
        )
        .unwrap();
    }
    drop(stdin);
    let t0 = Instant::now();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert!(first.contains("\"id\":0"), "{first}");
    // The first answer is not held back behind the calls read ahead (it was,
    // for 4.5 s, while 256 calls waited and more lines stood unread).
    assert!(
        t0.elapsed() < Duration::from_secs(2),
        "the first answer came after {:?}",
        t0.elapsed()
    );
    drop(reader);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(
        t0.elapsed() < Duration::from_secs(3),
        "the calls read ahead ran on: {:?}",
        t0.elapsed()
    );
}
