//! The buddy profile's frame through the real binary: the profile's tools, the
//! seed's shapes and limits of `read_file`, `write_file`, `fetch_url` and
//! `web_search` (the web ones against a server on 127.0.0.1), `time`, and the
//! JSON envelope (on in the profile, `--envelope` elsewhere, in `batch` too).

use crate::common;

use common::http::{Reply, TestServer};
use common::{TestEnv, code, stderr, stdout};
use serde_json::{Value, json};

const CLASSIC: &str = include_str!("../fixtures/web/ddg-classic.html");

fn buddy_json(env: &TestEnv, args: &[&str]) -> (Value, i32) {
    let mut all = vec!["--profile", "buddy", "--format", "json"];
    all.extend_from_slice(args);
    let out = env.run(&all);
    let line: Value = serde_json::from_str(stdout(&out).trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", stdout(&out), stderr(&out)));
    (line, code(&out))
}

/// The envelope's `result`, after checking the envelope's shape.
fn result_of(line: &Value) -> &Value {
    let envelope = &line["output"];
    assert_eq!(envelope["harness_timestamp"]["source"], "harness", "{line}");
    let ms = envelope["harness_timestamp"]["unix_millis"]
        .as_u64()
        .unwrap();
    assert!(ms > 1_700_000_000_000, "{line}");
    &envelope["result"]
}

#[test]
fn the_buddy_profile_lists_its_tools_and_time_is_in_all_too() {
    let env = TestEnv::new();
    let names = |args: &[&str]| -> Vec<String> {
        let out = env.run(args);
        stdout(&out)
            .lines()
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect()
    };
    let buddy = names(&["--profile", "buddy", "list"]);
    for tool in [
        "run_shell",
        "read_file",
        "write_file",
        "fetch_url",
        "web_search",
        "capture-pane",
        "send-keys",
        "tmux-create-session",
        "tmux-kill-session",
        "tmux-create-pane",
        "tmux-kill-pane",
        "time",
    ] {
        assert!(buddy.contains(&tool.to_string()), "{buddy:?}");
    }
    assert!(!buddy.contains(&"read".to_string()), "{buddy:?}");
    let all = names(&["list"]);
    assert!(all.contains(&"time".to_string()) && !all.contains(&"read_file".to_string()));
    // A tool outside the selected profile is refused.
    let out = env.run(&["--profile", "buddy", "read", "x"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no tool called \"read\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn read_file_returns_raw_text_cut_at_8000_characters() {
    let env = TestEnv::new();
    env.write("small.txt", "line one\nline two\n");
    let (line, rc) = buddy_json(&env, &["read_file", "small.txt"]);
    assert_eq!(rc, 0);
    assert_eq!(result_of(&line), "line one\nline two\n");
    // Characters, not bytes: 9,000 two-byte characters are cut at 8,000.
    env.write("big.txt", "é".repeat(9000));
    let (line, _) = buddy_json(&env, &["read_file", "big.txt"]);
    assert_eq!(
        result_of(&line).as_str().unwrap(),
        format!("{}...[truncated]", "é".repeat(8000))
    );
    let (line, rc) = buddy_json(&env, &["read_file", "missing.txt"]);
    assert_eq!(rc, 1);
    assert_eq!(line["is_error"], true);
    assert!(
        result_of(&line).as_str().unwrap().contains("ENOENT"),
        "{line}"
    );
}

#[test]
fn write_file_replaces_atomically_and_says_so_in_the_seeds_words() {
    let env = TestEnv::new();
    let (line, rc) = buddy_json(
        &env,
        &["write_file", "out/a.txt", "--content", "hello world\n"],
    );
    assert_eq!(rc, 0, "{line}");
    let path = env.path("out/a.txt");
    assert_eq!(
        result_of(&line),
        &json!(format!("Wrote 12 bytes to {}", path.display()))
    );
    assert_eq!(env.read_string("out/a.txt"), "hello world\n");
    assert!(common::temp_leftovers(env.root()).is_empty());
    // The content may come on stdin, as for `write`.
    let out = env
        .cmd()
        .args(["--profile", "buddy", "write_file", "out/a.txt"])
        .write_stdin("xyz")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(env.read_string("out/a.txt"), "xyz");
    let (line, rc) = buddy_json(&env, &["write_file", "out"]);
    assert_eq!(rc, 1, "{line}");
}

#[test]
fn time_gives_every_format_of_one_instant() {
    let env = TestEnv::new();
    let (line, rc) = buddy_json(&env, &["time"]);
    assert_eq!(rc, 0);
    let r = result_of(&line);
    let ms = r["unix_millis"].as_i64().unwrap();
    assert_eq!(
        line["output"]["harness_timestamp"]["unix_millis"]
            .as_i64()
            .unwrap()
            / 10_000,
        ms / 10_000
    );
    let iso = r["iso_8601_utc"].as_str().unwrap();
    assert_eq!(iso.len(), 24, "{iso}");
    assert!(iso.ends_with('Z') && &iso[10..11] == "T", "{iso}");
    assert!(
        r["rfc_2822_utc"].as_str().unwrap().ends_with("+0000"),
        "{r}"
    );
    // Outside the profile: no envelope, the record itself.
    let out = env.run(&["--format", "json", "time"]);
    let plain: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(plain["output"]["unix_millis"].is_i64(), "{plain}");
}

#[test]
fn the_envelope_is_asked_for_anywhere_and_batch_answers_alike() {
    let env = TestEnv::new();
    env.write("a.txt", "hi\n");
    let out = env.run(&["--envelope", "--format", "json", "ls"]);
    let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(
        result_of(&line).is_object() || result_of(&line).is_array(),
        "{line}"
    );
    let out = env
        .cmd()
        .args(["--profile", "buddy", "batch"])
        .write_stdin("{\"id\":1,\"name\":\"read_file\",\"input\":{\"path\":\"a.txt\"}}\n")
        .output()
        .unwrap();
    let line: Value = serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
    assert_eq!(result_of(&line), "hi\n");
}

#[test]
fn fetch_url_and_web_search_reshape_the_web_engines() {
    let env = TestEnv::new();
    let big = "x".repeat(9000);
    let server = TestServer::start(move |req| match req.path() {
        "/api" => Reply::ok("application/json", "{\"ok\": true}"),
        "/big" => Reply::ok("text/plain", big.clone()),
        _ => Reply::ok("text/html; charset=UTF-8", CLASSIC),
    });
    // The test server is on 127.0.0.1, a private address: opted in.
    let (line, rc) = buddy_json(
        &env,
        &["--allow-private-network", "fetch_url", &server.url("/api")],
    );
    assert_eq!(rc, 0, "{line}");
    assert_eq!(result_of(&line), "{\"ok\": true}");
    let (line, _) = buddy_json(
        &env,
        &["--allow-private-network", "fetch_url", &server.url("/big")],
    );
    assert_eq!(
        result_of(&line).as_str().unwrap(),
        format!("{}...[truncated]", "x".repeat(8000))
    );
    let out = env
        .cmd()
        .env("INDUS_WEBSEARCH_URL", server.url("/html/"))
        .args([
            "--profile",
            "buddy",
            "--format",
            "json",
            "web_search",
            "rust tokio",
        ])
        .output()
        .unwrap();
    let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let text = result_of(&line).as_str().unwrap().to_string();
    assert!(text.starts_with("1. "), "{text}");
    let entries: Vec<&str> = text.split("\n\n").collect();
    assert!(!entries.is_empty() && entries.len() <= 8, "{text}");
    for (i, entry) in entries.iter().enumerate() {
        let mut lines = entry.lines();
        assert!(
            lines.next().unwrap().starts_with(&format!("{}. ", i + 1)),
            "{entry}"
        );
        assert!(lines.next().unwrap().starts_with("   http"), "{entry}");
    }
}

/// `script` (util-linux) gives the command a pseudo-terminal as its controlling
/// terminal and types `answer` into it.
fn on_a_terminal(env: &TestEnv, args: &str, answer: &str) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("indus-tool");
    let line = format!(
        "'{}' --cwd '{}' {args}",
        bin.display(),
        env.root().display()
    );
    std::process::Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .env("HOME", common::no_home())
        .env_remove("INDUS_CONFIRM")
        .env_remove("INDUS_SUPPRESS_REPEATS")
        .env_remove("INDUS_PROFILE")
        .env("NO_COLOR", "1")
        .current_dir(env.root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(answer.as_bytes())?;
            child.wait_with_output()
        })
        .expect("run script(1)")
}

fn have_script() -> bool {
    let ok = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none_or(|v| v.is_empty()),
            "script(1) is missing, but CI must run the terminal approval test"
        );
        common::skipped(
            "script(1) (util-linux) is missing: the terminal approval test did not run",
        );
    }
    ok
}

#[test]
fn confirmation_asks_on_the_terminal_and_denies_without_one() {
    let env = TestEnv::new();
    if have_script() {
        let yes = on_a_terminal(&env, "--confirm bash 'echo ran > ran.txt'", "y\n");
        let shown = String::from_utf8_lossy(&yes.stdout).to_string();
        assert!(shown.contains("Run: echo ran > ran.txt [y/N]"), "{shown}");
        assert!(env.path("ran.txt").exists(), "{shown}");
        let no = on_a_terminal(&env, "--confirm bash 'echo again > again.txt'", "n\n");
        let shown = String::from_utf8_lossy(&no.stdout).to_string();
        assert!(
            shown.contains("Command execution denied by user."),
            "{shown}"
        );
        assert!(!env.path("again.txt").exists());
        // run_shell asks the same way, with its command.
        let yes = on_a_terminal(
            &env,
            "--profile buddy --confirm run_shell 'echo shell > shell.txt' --risk low --mutation --privesc=false --why test",
            "y\n",
        );
        let shown = String::from_utf8_lossy(&yes.stdout).to_string();
        assert!(
            shown.contains("Run: echo shell > shell.txt [y/N]"),
            "{shown}"
        );
        assert!(shown.contains("\"exit_code\": 0"), "{shown}");
        assert_eq!(env.read_string("shell.txt"), "shell\n");
    }
    // No controlling terminal (a new session): denied, nothing asked, nothing run.
    let out = confirmed_without_terminal(&env, "echo x > x.txt");
    assert_eq!(code(&out), 1);
    assert_eq!(stderr(&out), "Command execution denied by user.\n");
    assert!(!env.path("x.txt").exists());
    // The buddy envelope carries the seed's result.
    let out = std::process::Command::new("setsid")
        .arg("-w")
        .arg(assert_cmd::cargo::cargo_bin("indus-tool"))
        .args([
            "--cwd",
            &env.root().to_string_lossy(),
            "--confirm",
            "--envelope",
            "--format",
            "json",
            "bash",
            "true",
        ])
        .env("HOME", common::no_home())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(result_of(&line), "Command execution denied by user.");
}

/// `bash COMMAND` under `--confirm` in a session of its own: no controlling
/// terminal, so what is not approved is denied without a question.
fn confirmed_without_terminal(env: &TestEnv, command: &str) -> std::process::Output {
    std::process::Command::new("setsid")
        .arg("-w")
        .arg(assert_cmd::cargo::cargo_bin("indus-tool"))
        .args([
            "--cwd",
            &env.root().to_string_lossy(),
            "--confirm",
            "bash",
            command,
        ])
        .env("HOME", common::no_home())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn the_policy_denies_through_wrappers_and_allows_without_asking() {
    let env = TestEnv::new();
    env.write(
        ".indusvx/policy.json",
        r#"{"allow": ["echo", "touch"], "deny": ["rm -rf", "git push"]}"#,
    );
    // The allow rules of a project's policy count once the user trusted it
    // (its deny rules always do).
    assert_eq!(code(&env.run(&["trust", ".indusvx/policy.json"])), 0);
    for command in [
        "timeout 5 sh -c 'rm -rf x'",
        "env A=1 git push",
        "nice -n 5 nohup git push origin",
        "echo ok; rm -rf /tmp/nothing-here",
    ] {
        let out = env.run(&["bash", command]);
        assert_eq!(code(&out), 1, "{command}");
        assert!(
            stderr(&out).starts_with("Command denied by policy: `"),
            "{command}: {}",
            stderr(&out)
        );
    }
    let out = env.run(&["process", "start", "git push"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    // An allowed plain command runs even with confirmation on and no terminal;
    // two allowed commands joined are no longer one plain command, and ask.
    let out = confirmed_without_terminal(&env, "touch t.txt");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(env.path("t.txt").exists());
    let out = confirmed_without_terminal(&env, "echo a && touch u.txt");
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(!env.path("u.txt").exists());
    // run_shell: an allowed command runs without asking, unless it says it is
    // high risk or escalates privileges, which always asks (and so, with no
    // terminal, is denied).
    let run_shell = |risk: &str, privesc: &str| {
        std::process::Command::new("setsid")
            .arg("-w")
            .arg(assert_cmd::cargo::cargo_bin("indus-tool"))
            .args(["--cwd", &env.root().to_string_lossy(), "--confirm"])
            .args(["--profile", "buddy", "--format", "json", "run_shell"])
            .args(["echo allowed", "--risk", risk, "--mutation=false"])
            .arg(format!("--privesc={privesc}"))
            .args(["--why", "test"])
            .env("HOME", common::no_home())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let (line, status) = {
        let out = run_shell("low", "false");
        (
            serde_json::from_str::<Value>(stdout(&out).trim()).unwrap(),
            code(&out),
        )
    };
    assert_eq!(status, 0, "{line}");
    assert_eq!(result_of(&line)["stdout"], "allowed\n");
    for (risk, privesc) in [("high", "false"), ("low", "true")] {
        let out = run_shell(risk, privesc);
        assert_eq!(code(&out), 1, "{risk} {privesc}");
        let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        assert_eq!(result_of(&line), "Command execution denied by user.");
    }
    // `shell_confirm` in buddy.json turns confirmation on.
    env.write(".indusvx/buddy.json", r#"{"shell_confirm": true}"#);
    let out = std::process::Command::new("setsid")
        .arg("-w")
        .arg(assert_cmd::cargo::cargo_bin("indus-tool"))
        .args(["--cwd", &env.root().to_string_lossy(), "bash", "ls"])
        .env("HOME", common::no_home())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(stderr(&out), "Command execution denied by user.\n");
}

#[test]
fn repeated_identical_failures_are_suppressed_across_invocations() {
    let env = TestEnv::new();
    // Successes write nothing.
    env.write("present.txt", "x");
    assert_eq!(
        code(&env.run(&["--suppress-repeats", "read", "present.txt"])),
        0
    );
    assert!(
        !env.path(".indus-process/sessions/default/failures.json")
            .exists()
    );
    let call = || env.run(&["--suppress-repeats", "read", "missing.txt"]);
    for _ in 0..3 {
        let out = call();
        assert_eq!(code(&out), 1);
        assert!(stderr(&out).contains("ENOENT"), "{}", stderr(&out));
    }
    let out = call();
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).starts_with("Not run: read with these exact arguments has already failed 3 times in this session with the same error"),
        "{}",
        stderr(&out)
    );
    // Other arguments, another session, or suppression off: the call runs.
    assert!(stderr(&env.run(&["--suppress-repeats", "read", "other.txt"])).contains("ENOENT"));
    assert!(
        stderr(&env.run(&[
            "--suppress-repeats",
            "--session",
            "s2",
            "read",
            "missing.txt"
        ]))
        .contains("ENOENT")
    );
    assert!(stderr(&env.run(&["read", "missing.txt"])).contains("ENOENT"));
    // On by default in the buddy profile; a success clears the count.
    let buddy = |path: &str| env.run(&["--profile", "buddy", "read_file", path]);
    for _ in 0..3 {
        assert!(stderr(&buddy("gone.txt")).contains("ENOENT"));
    }
    assert!(stderr(&buddy("gone.txt")).contains("Not run: read_file"));
    env.write("here.txt", "x");
    assert_eq!(code(&buddy("here.txt")), 0);
}

/// SIGINT or SIGTERM to `run_shell` without a pane ends its command's whole
/// process group (a background child too), as `bash` does, and exits 128+N.
#[test]
fn an_interrupted_run_shell_leaves_no_process() {
    use common::{alive, pid_in, wait_until};
    use nix::sys::signal::Signal;
    for (signal, status) in [(Signal::SIGINT, 130), (Signal::SIGTERM, 143)] {
        let env = TestEnv::new();
        let mut child = common::bin_std()
            .current_dir(env.root())
            .args(["--profile", "buddy", "run_shell"])
            .arg("echo $$ > sh.pid; sleep 1000 & echo $! > bg.pid; sleep 1000")
            .args([
                "--risk",
                "low",
                "--mutation=false",
                "--privesc=false",
                "--why",
                "test",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let (sh, bg) = (pid_in(&env, "sh.pid"), pid_in(&env, "bg.pid"));
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
        assert!(
            wait_until(std::time::Duration::from_secs(5), || child
                .try_wait()
                .unwrap()
                .is_some()),
            "run_shell ignored {signal}"
        );
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(status), "{signal}");
        assert!(
            wait_until(std::time::Duration::from_secs(2), || !alive(sh)
                && !alive(bg)),
            "{signal}: the command outlived run_shell"
        );
    }
}
