//! Issue 53, "bounded under hostile input", for the match engine and the MCP
//! server, through the real binary on temp trees: a near match that sends the
//! fuzzy stages over a huge self-similar file is refused within the call's work
//! budget (never minutes of CPU), a patch of thousands of whitespace-fuzzy hunks
//! likewise, and `indus-tool mcp` stays responsive during such a call (a `ping`
//! is answered, `notifications/cancelled` stops the work, end of input ends the
//! server within the documented 5 s).
#![cfg(feature = "mcp")]

use crate::common;

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::TestEnv;
use serde_json::{Value, json};

/// A file of `n` lines repeating every 10, and a 2,500-line `oldText` cut from
/// its middle with only the last line changed: no exact match, and at every one
/// of the 10,000 places its first line stands the fuzzy stages read almost all
/// of it before it fails (the quadratic case).
fn self_similar(env: &TestEnv, n: usize) -> Value {
    let lines: Vec<String> = (0..n).map(|i| format!("    call({});", i % 10)).collect();
    env.write("big.rs", lines.join("\n") + "\n");
    let mut old: Vec<String> = lines[n / 2..n / 2 + 2_500].to_vec();
    *old.last_mut().unwrap() = "    nomatch();".to_string();
    json!({"path": "big.rs", "oldText": old.join("\n") + "\n", "newText": "x\n"})
}

#[test]
fn a_near_match_against_a_huge_self_similar_file_is_refused_within_the_budget() {
    let env = TestEnv::new();
    let input = self_similar(&env, 100_000);
    let began = Instant::now();
    let out = env
        .cmd()
        .args(["edit", "--json", &input.to_string()])
        .output()
        .unwrap();
    let took = began.elapsed();
    let err = common::stderr(&out);
    assert_eq!(common::code(&out), 1, "{err}");
    assert!(
        err.contains("too costly to match fuzzily: the exact text was not found in big.rs, and a fuzzy search of 2,500 lines against 100,000 would exceed the work budget; give more exact context"),
        "{err}"
    );
    // Minutes before the budget (216 s in a debug build); the budget's deadline
    // is 3 s, and a margin for a slow, shared machine.
    assert!(took < Duration::from_secs(6), "took {took:?}");
    assert_eq!(
        std::fs::read_to_string(env.path("big.rs")).unwrap().len(),
        100_000 * 13
    );
}

#[test]
fn thousands_of_whitespace_fuzzy_hunks_are_bounded() {
    let env = TestEnv::new();
    let n = 100_000;
    let lines: Vec<String> = (0..n).map(|i| format!("row {i} value")).collect();
    env.write("big.txt", lines.join("\n") + "\n");
    // Every hunk's context line carries trailing spaces the file does not, so
    // no hunk matches exactly and each goes to the whole-line stages; the
    // envelope gives no line numbers, so each is searched for.
    let mut patch = String::from("*** Begin Patch\n*** Update File: big.txt\n");
    for i in (0..n - 1).step_by(5) {
        patch.push_str(&format!(
            "@@\n row {i} value   \n-row {} value\n+row {} changed\n",
            i + 1,
            i + 1
        ));
    }
    patch.push_str("*** End Patch\n");
    let began = Instant::now();
    let out = env
        .cmd()
        .args(["apply_patch", "-"])
        .write_stdin(patch)
        .output()
        .unwrap();
    let took = began.elapsed();
    let err = common::stderr(&out);
    assert_ne!(common::code(&out), 0, "{err}");
    assert!(err.contains("too costly to match fuzzily"), "{err}");
    assert!(took < Duration::from_secs(20), "took {took:?}");
    // Nothing was changed.
    assert!(
        std::fs::read_to_string(env.path("big.txt"))
            .unwrap()
            .starts_with("row 0 value\nrow 1 value\n")
    );
}

#[test]
fn a_few_whitespace_fuzzy_hunks_still_apply() {
    let env = TestEnv::new();
    let lines: Vec<String> = (0..100_000).map(|i| format!("row {i} value")).collect();
    env.write("big.txt", lines.join("\n") + "\n");
    let mut patch = String::from("*** Begin Patch\n*** Update File: big.txt\n");
    for i in (0..99_000).step_by(1_000) {
        patch.push_str(&format!(
            "@@\n row {i} value   \n-row {} value\n+row {} changed\n",
            i + 1,
            i + 1
        ));
    }
    patch.push_str("*** End Patch\n");
    let out = env
        .cmd()
        .args(["apply_patch", "-"])
        .write_stdin(patch)
        .output()
        .unwrap();
    assert_eq!(common::code(&out), 0, "{}", common::stderr(&out));
    let text = std::fs::read_to_string(env.path("big.txt")).unwrap();
    assert!(text.contains("row 98000 value\nrow 98001 changed\n"));
}

/// `indus-tool mcp`, spoken to line by line.
struct Server {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Server {
    fn start(env: &TestEnv) -> Self {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("indus-tool"))
            .env("HOME", common::no_home())
            .env_remove("XDG_STATE_HOME")
            .current_dir(env.root())
            .args(["--cwd".as_ref(), env.root().as_os_str()])
            .args(["mcp", "--no-gate"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn");
        let lines = common::line_channel(child.stdout.take().unwrap());
        let mut server = Server { child, lines };
        server.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "bounds", "version": "0"}}}),
        );
        assert_eq!(server.receive(Duration::from_secs(10)).unwrap()["id"], 0);
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.child.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn receive(&mut self, within: Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(within).ok()?;
        Some(serde_json::from_str(&line).unwrap())
    }

    /// Start the long edit as request 2, and give it a moment to be running.
    fn start_long_edit(&mut self, input: &Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "edit", "arguments": input}}));
        std::thread::sleep(Duration::from_millis(300));
    }

    fn exit_within(&mut self, limit: Duration) -> Option<Duration> {
        let began = Instant::now();
        while began.elapsed() < limit {
            if self.child.try_wait().unwrap().is_some() {
                return Some(began.elapsed());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        None
    }
}

/// A file big enough that the edit's fuzzy search runs for seconds even within
/// its budget in a debug build (until the budget's 3 s deadline).
fn long_edit(env: &TestEnv) -> Value {
    self_similar(env, 400_000)
}

#[test]
fn mcp_answers_a_ping_during_a_long_edit_and_cancels_it() {
    let env = TestEnv::new();
    let input = long_edit(&env);
    let mut server = Server::start(&env);
    server.start_long_edit(&input);
    let began = Instant::now();
    server.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    let pong = server
        .receive(Duration::from_secs(5))
        .expect("a ping is answered during the edit");
    let latency = began.elapsed();
    assert_eq!(
        pong["id"], 3,
        "the ping is answered before the edit: {pong}"
    );
    assert!(
        latency < Duration::from_millis(1_000),
        "ping took {latency:?}"
    );
    // Cancelled: no answer (as the protocol asks), and the work stops, so the
    // server ends at once when its input closes.
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "test"}}),
    );
    assert_eq!(server.receive(Duration::from_millis(1_500)), None);
    drop(server.child.stdin.take());
    let exit = server.exit_within(Duration::from_secs(10));
    assert!(
        exit.is_some_and(|t| t < Duration::from_secs(2)),
        "the server went on after the cancelled edit: {exit:?}"
    );
}

#[test]
fn mcp_ends_within_5_s_of_end_of_input_during_a_long_edit() {
    let env = TestEnv::new();
    let input = long_edit(&env);
    let mut server = Server::start(&env);
    server.start_long_edit(&input);
    drop(server.child.stdin.take());
    let exit = server.exit_within(Duration::from_secs(20));
    // 5 s of drain for calls in flight, then they are cancelled: a margin of 2.5 s.
    assert!(
        exit.is_some_and(|t| t < Duration::from_millis(7_500)),
        "the server took {exit:?} to end after its input closed"
    );
}

/// `grep` of a named file that is one 300 MB line: the searcher's buffer grew
/// to hold the line (a 2 GiB one peaked at 5.9 GB). Past the 64 MiB line limit
/// the file is refused by name, and the call stays small.
#[test]
fn grep_of_one_huge_line_is_refused_in_bounded_memory() {
    common::own_process!();
    let env = TestEnv::new();
    let path = env.path("one-line.txt");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let chunk = vec![b'a'; 1 << 20];
        for _ in 0..300 {
            f.write_all(&chunk).unwrap();
        }
    }
    let run = common::measured(
        env.root(),
        &["grep", "needle", "one-line.txt"],
        Duration::from_secs(60),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("a line longer than grep's 64 MiB limit"),
        "{}",
        run.stderr
    );
    assert!(run.rss_mb < 200, "peaked at {} MB", run.rss_mb);
}
