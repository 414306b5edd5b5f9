//! The `task` card through the real binary, with fake agents (sh scripts in the
//! temp dir): the answer comes back, the prompt reaches stdin or argv, stdin is
//! closed otherwise, the deadline and Ctrl-C kill the agent's whole process group,
//! JSON answers are read by field (the `claude` preset against a fake `claude` on
//! PATH), the roster merges project over user, and the stub, unknown agents and
//! malformed files are reported. `XDG_CONFIG_HOME` and `HOME` point into the temp
//! dir, so the host's configuration cannot leak in.

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::process::Output;
use std::time::{Duration, Instant};

use common::{TestEnv, alive, code, parse_outcome, pid_in, stderr, stdout, wait_until};
use serde_json::{Value, json};

/// The binary in `env`, with the user's configuration folder inside the temp dir.
fn cmd(env: &TestEnv) -> assert_cmd::Command {
    let mut c = env.cmd();
    c.env("XDG_CONFIG_HOME", env.path("xdg"))
        .env("HOME", env.path("home"));
    c
}

fn run(env: &TestEnv, args: &[&str]) -> Output {
    cmd(env).args(args).output().unwrap()
}

fn run_json(env: &TestEnv, args: &[&str]) -> (Value, Output) {
    let out = cmd(env)
        .arg("--format")
        .arg("json")
        .args(args)
        .output()
        .unwrap();
    (parse_outcome(&out), out)
}

/// An executable sh script at `rel`; its absolute path.
fn script(env: &TestEnv, rel: &str, body: &str) -> String {
    let p = env.write(rel, format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    p.to_str().unwrap().to_string()
}

/// Write the project's agents file and trust it (a project's agents run only
/// once the user trusted the file).
fn project_agents(env: &TestEnv, agents: Value) {
    env.write(
        ".indusvx/agents.json",
        json!({ "agents": agents }).to_string(),
    );
    trust(env, ".indusvx/agents.json");
}

fn trust(env: &TestEnv, file: &str) {
    let out = run(env, &["trust", file]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn the_agents_answer_is_returned_as_text_and_record() {
    let env = TestEnv::new();
    let s = script(&env, "agent.sh", "echo \"  done: $1  \"; echo noise >&2");
    project_agents(&env, json!({"fake": {"command": [s]}}));
    let out = run(&env, &["task", "fix the bug"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "done: fix the bug\n");

    let (v, out) = run_json(&env, &["task", "fix the bug"]);
    assert_eq!(code(&out), 0);
    let o = &v["output"];
    assert_eq!(o["agent"], "fake");
    assert_eq!(o["exitCode"], 0);
    assert_eq!(o["result"], "done: fix the bug");
    assert_eq!(o["timedOut"], false);
    assert!(o["durationMs"].is_u64());
}

#[test]
fn the_prompt_is_the_objective_then_the_context_on_the_command_line() {
    let env = TestEnv::new();
    // `{prompt}` is replaced in place; the agent runs in the working directory.
    let s = script(
        &env,
        "agent.sh",
        "printf '%s' \"$2\" > got.txt; pwd > cwd.txt",
    );
    project_agents(
        &env,
        json!({"fake": {"command": [s, "--ask", "{prompt}", "--quiet"]}}),
    );
    let out = run(&env, &["task", "Do it", "--context", "it's 'quoted'"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        env.read_string("got.txt"),
        "Do it\n\nContext:\nit's 'quoted'"
    );
    assert_eq!(
        std::fs::canonicalize(env.read_string("cwd.txt").trim()).unwrap(),
        std::fs::canonicalize(env.root()).unwrap()
    );
}

#[test]
fn a_stdin_agent_receives_the_prompt_and_its_end() {
    let env = TestEnv::new();
    let s = script(&env, "agent.sh", "cat > got.txt; echo \"args:$#\"");
    project_agents(&env, json!({"fake": {"command": [s], "prompt": "stdin"}}));
    let (v, out) = run_json(&env, &["task", "Objective", "--context", "Background"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(v["output"]["result"], "args:0");
    assert_eq!(
        env.read_string("got.txt"),
        "Objective\n\nContext:\nBackground"
    );
}

#[test]
fn stdin_is_closed_when_the_prompt_goes_on_the_command_line() {
    let env = TestEnv::new();
    let s = script(
        &env,
        "agent.sh",
        "if read line; then echo \"read:$line\"; else echo EOF; fi",
    );
    project_agents(&env, json!({"fake": {"command": [s]}}));
    // The host's own stdin holds data; the agent must not see it.
    let out = cmd(&env)
        .args(["task", "x", "--context", "c"])
        .write_stdin("parent data\n")
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "EOF\n");
}

#[test]
fn the_deadline_kills_the_agents_whole_group() {
    let env = TestEnv::new();
    let s = script(
        &env,
        "agent.sh",
        "echo partial; sleep 300 & echo $! > grandchild.pid; wait",
    );
    project_agents(&env, json!({"slow": {"command": [s]}}));
    let start = Instant::now();
    let (v, out) = run_json(&env, &["task", "x", "--timeout-ms", "1500"]);
    let took = start.elapsed();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(took < Duration::from_secs(8), "took {took:?}");
    assert!(took >= Duration::from_millis(1400), "took {took:?}");
    assert_eq!(v["is_error"], true);
    let o = &v["output"];
    assert_eq!(o["timedOut"], true);
    assert_eq!(o["exitCode"], Value::Null);
    assert_eq!(o["agent"], "slow");
    let grandchild = pid_in(&env, "grandchild.pid");
    assert!(
        wait_until(Duration::from_secs(3), || !alive(grandchild)),
        "the agent's grandchild {grandchild} survived the deadline"
    );

    let out = run(&env, &["task", "x", "--timeout-ms", "500"]);
    let text = stdout(&out) + &stderr(&out);
    assert!(text.contains("did not finish within 500 ms"), "{text}");
    assert!(text.contains("partial"), "{text}");
}

#[test]
fn ctrl_c_kills_the_agents_group() {
    let env = TestEnv::new();
    let s = script(
        &env,
        "agent.sh",
        "echo $$ > agent.pid; sleep 300 & echo $! > grandchild.pid; wait",
    );
    project_agents(&env, json!({"slow": {"command": [s]}}));
    let mut child = common::bin_std()
        .current_dir(env.root())
        .env("XDG_CONFIG_HOME", env.path("xdg"))
        .env("HOME", env.path("home"))
        .args(["--cwd", env.root().to_str().unwrap(), "task", "x"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let agent = pid_in(&env, "agent.pid");
    let grandchild = pid_in(&env, "grandchild.pid");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    assert!(wait_until(Duration::from_secs(5), || child
        .try_wait()
        .unwrap()
        .is_some()));
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("task was cancelled"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(wait_until(Duration::from_secs(3), || !alive(agent)
        && !alive(grandchild)));
}

#[test]
fn a_failing_agent_is_an_error_with_its_exit_code_and_stderr() {
    let env = TestEnv::new();
    let s = script(
        &env,
        "agent.sh",
        "echo half-done; echo 'quota exceeded' >&2; exit 3",
    );
    project_agents(&env, json!({"fake": {"command": [s]}}));
    let (v, out) = run_json(&env, &["task", "x"]);
    assert_eq!(code(&out), 1);
    assert_eq!(v["is_error"], true);
    let o = &v["output"];
    assert_eq!(o["exitCode"], 3);
    assert_eq!(o["timedOut"], false);
    assert_eq!(o["stderr"], "quota exceeded");
    let out = run(&env, &["task", "x"]);
    let text = stdout(&out) + &stderr(&out);
    assert!(text.contains("exited with code 3"), "{text}");
    assert!(text.contains("quota exceeded"), "{text}");

    project_agents(
        &env,
        json!({"gone": {"command": ["no-such-agent-cli-here"]}}),
    );
    let out = run(&env, &["task", "x"]);
    let text = stdout(&out) + &stderr(&out);
    assert!(
        text.contains("\"no-such-agent-cli-here\" was not found"),
        "{text}"
    );
}

#[test]
fn the_claude_preset_runs_claude_p_and_reads_the_result_field() {
    let env = TestEnv::new();
    // A fake `claude` on PATH that checks its argv and answers like `--output-format json`.
    script(
        &env,
        "bin/claude",
        r#"[ "$1" = -p ] && [ "$3" = --output-format ] && [ "$4" = json ] || { echo "bad argv: $*" >&2; exit 9; }
printf '{"type":"result","is_error":false,"result":"answer to %s"}\n' "$2""#,
    );
    project_agents(&env, json!({"claude": {"preset": "claude"}}));
    let path = format!(
        "{}:{}",
        env.path("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = cmd(&env)
        .env("PATH", &path)
        .args(["--format", "json", "task", "the question"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = parse_outcome(&out);
    assert_eq!(v["output"]["result"], "answer to the question");

    // A custom JSON agent with a dotted field; output that is not JSON is an error.
    let s = script(
        &env,
        "agent.sh",
        r#"echo '{"event":"start"}'; echo '{"message":{"content":"final"}}'"#,
    );
    let bad = script(&env, "bad.sh", "echo plain words");
    project_agents(
        &env,
        json!({
            "lines": {"command": [s], "output": "json", "resultField": "message.content"},
            "bad": {"command": [bad], "output": "json"}
        }),
    );
    let (v, _) = run_json(&env, &["task", "x"]);
    assert_eq!(v["output"]["result"], "final");
    let (v, out) = run_json(&env, &["task", "x", "--agent", "bad"]);
    assert_eq!(code(&out), 1);
    assert!(
        v["output"]["error"].as_str().unwrap().contains("not JSON"),
        "{v}"
    );
}

#[test]
fn without_agents_the_stub_says_how_to_configure_one() {
    let env = TestEnv::new();
    let (v, out) = run_json(&env, &["task", "x"]);
    assert_eq!(code(&out), 1);
    assert_eq!(v["is_error"], true);
    let text = v["output"].as_str().unwrap();
    assert!(text.contains("no delegate agent is configured"), "{text}");
    assert!(
        text.contains(&env.path(".indusvx/agents.json").display().to_string()),
        "{text}"
    );
    assert!(
        text.contains(&env.path("xdg/indusvx/agents.json").display().to_string()),
        "{text}"
    );
    assert!(text.contains("\"preset\": \"claude\""), "{text}");
    // The description says so too, and docs (no working directory) list nothing.
    let (d, _) = run_json(&env, &["describe", "task"]);
    assert!(
        d["description"]
            .as_str()
            .unwrap()
            .contains("No agent is configured here"),
        "{d}"
    );
}

#[test]
fn an_unknown_agent_lists_the_configured_ones() {
    let env = TestEnv::new();
    let s = script(&env, "agent.sh", "echo ok");
    project_agents(
        &env,
        json!({"alpha": {"command": [s]}, "beta": {"command": [s]}}),
    );
    let (v, out) = run_json(&env, &["task", "x", "--agent", "gamma"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        v["output"],
        "Invalid \"agent\": no agent named \"gamma\" is configured; the configured agents are \"alpha\", \"beta\"."
    );
}

#[test]
fn the_project_wins_over_the_user_and_the_default_is_marked() {
    let env = TestEnv::new();
    let p = script(&env, "p.sh", "echo project");
    let u = script(&env, "u.sh", "echo user");
    project_agents(
        &env,
        json!({"same": {"command": [p], "description": "Project's"}}),
    );
    env.write(
        "xdg/indusvx/agents.json",
        json!({"agents": {
            "same": {"command": [u]},
            "mine": {"command": [u], "default": true, "description": "User's own"}
        }})
        .to_string(),
    );
    let (v, _) = run_json(&env, &["task", "x", "--agent", "same"]);
    assert_eq!(v["output"]["result"], "project");
    // No agent named: the one marked default.
    let (v, _) = run_json(&env, &["task", "x"]);
    assert_eq!(v["output"]["agent"], "mine");
    let (d, _) = run_json(&env, &["describe", "task"]);
    assert!(
        d["description"]
            .as_str()
            .unwrap()
            .ends_with("Configured agents: same: Project's; mine (default): User's own."),
        "{d}"
    );
}

#[test]
fn a_malformed_file_is_skipped_with_a_warning_naming_it() {
    let env = TestEnv::new();
    env.write(".indusvx/agents.json", "{ not json");
    trust(&env, ".indusvx/agents.json");
    let u = script(&env, "u.sh", "echo user");
    env.write(
        "xdg/indusvx/agents.json",
        json!({"agents": {"mine": {"command": [u]}, "broken": {"command": "u.sh"}}}).to_string(),
    );
    let out = run(&env, &["task", "x"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "user\n");
    let err = stderr(&out);
    let project = env.path(".indusvx/agents.json").display().to_string();
    assert!(
        err.contains(&format!(
            "warning: {project} was skipped: it is not valid JSON"
        )),
        "{err}"
    );
    assert!(err.contains("agent \"broken\" was skipped"), "{err}");
    assert!(err.contains("broken.command"), "{err}");
}

#[test]
fn bad_input_names_the_field() {
    let env = TestEnv::new();
    for (input, field) in [
        (json!({}), "objective"),
        (json!({"objective": ""}), "objective"),
        (json!({"objective": "x", "agent": 3}), "agent"),
        (json!({"objective": "x", "timeoutMs": 0}), "timeoutMs"),
        (json!({"objective": "x", "context": []}), "context"),
    ] {
        let (v, out) = run_json(&env, &["task", "--json", &input.to_string()]);
        assert_eq!(code(&out), 1, "{input}");
        assert!(
            v["output"]
                .as_str()
                .unwrap()
                .contains(&format!("\"{field}\"")),
            "{input}: {v}"
        );
    }
}
