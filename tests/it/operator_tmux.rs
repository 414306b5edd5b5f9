//! The operator's tmux tools through the real binary on a real tmux server: each
//! test starts its own server on its own socket, a path inside the test's temp
//! directory (`INDUS_TMUX_SOCKET`, i.e. `tmux -S`), and kills it at the end. Without tmux these tests say so loudly and
//! stop; under CI (`CI` set) they fail instead, since `.ci/run` installs tmux.

use crate::common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{TestEnv, code, stderr, stdout, wait_until};
use serde_json::{Value, json};

/// One tmux server for one test, and the working directory the binary runs in.
struct Server {
    env: TestEnv,
    socket: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-S", &self.socket, "kill-server"])
            .output();
    }
}

/// A server, or `None` (after saying so on stderr) when tmux is missing.
fn server(name: &str) -> Option<Server> {
    if Command::new("tmux").arg("-V").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "tmux is missing under CI: .ci/run must install it"
        );
        common::skipped(&format!(
            "{name}: tmux is not installed; these tests need a real tmux server"
        ));
        return None;
    }
    let env = TestEnv::new();
    let socket = env.path(".tmux.sock").to_string_lossy().into_owned();
    Some(Server { env, socket })
}

impl Server {
    /// Run a buddy tool with a JSON input; the envelope's result and the exit code.
    fn call(&self, tool: &str, input: Value) -> (Value, i32) {
        let out = self
            .env
            .cmd()
            .env("INDUS_TMUX_SOCKET", &self.socket)
            .args(["--profile", "buddy", "--format", "json", tool, "--json"])
            .arg(input.to_string())
            .output()
            .expect("run indus-tool");
        let line: Value = serde_json::from_str(stdout(&out).trim())
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} / {}", stdout(&out), stderr(&out)));
        let code = out.status.code().unwrap_or(-1);
        (line["output"]["result"].clone(), code)
    }

    /// `run_shell` with low-risk safety fields and `extra` inputs.
    fn shell(&self, command: &str, extra: Value) -> (Value, i32) {
        let mut input = safe(json!({ "command": command }));
        if let (Some(obj), Value::Object(more)) = (input.as_object_mut(), extra) {
            obj.extend(more);
        }
        self.call("run_shell", input)
    }

    /// tmux itself on the test's socket; its stdout.
    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-S", &self.socket])
            .args(args)
            .output()
            .expect("tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The foreground command of a pane, as tmux sees it.
    fn foreground(&self, pane_id: &str) -> String {
        self.tmux(&[
            "display-message",
            "-p",
            "-t",
            pane_id,
            "#{pane_current_command}",
        ])
        .trim()
        .to_string()
    }

    fn shared_pane(&self) -> String {
        self.tmux(&[
            "display-message",
            "-p",
            "-t",
            "=indus-default-shared:",
            "#{pane_id}",
        ])
        .trim()
        .to_string()
    }
}

/// `input` with the seed's required safety fields.
fn safe(mut input: Value) -> Value {
    let obj = input.as_object_mut().unwrap();
    obj.insert("risk".into(), json!("low"));
    obj.insert("mutation".into(), json!(false));
    obj.insert("privesc".into(), json!(false));
    obj.insert("why".into(), json!("a test"));
    input
}

#[test]
fn sessions_and_panes_are_created_once_and_reused() {
    let Some(s) = server("create") else { return };
    let (r, code) = s.call("tmux-create-session", safe(json!({"session": "ops"})));
    assert_eq!(code, 0, "{r}");
    assert_eq!(r["session"], "indus-default-ops");
    assert_eq!(r["created"], true);
    let (again, _) = s.call(
        "tmux-create-session",
        safe(json!({"session": "indus-default-ops"})),
    );
    assert_eq!(again["created"], false);
    assert_eq!(again["sharedPaneId"], r["sharedPaneId"]);
    let (p, code) = s.call(
        "tmux-create-pane",
        safe(json!({"session": "ops", "pane": "worker"})),
    );
    assert_eq!(code, 0, "{p}");
    assert_eq!(p["created"], true);
    let windows = s.tmux(&[
        "list-windows",
        "-t",
        "=indus-default-ops",
        "-F",
        "#{window_name}",
    ]);
    assert_eq!(windows, "shared\nworker\n");
    // The pane runs its own shell: a command there reports its own cwd and status.
    let (out, code) = s.shell(
        "cd /; pwd; (exit 4)",
        json!({"session": "ops", "pane": "worker"}),
    );
    assert_eq!(
        (out["stdout"].as_str(), out["exit_code"].as_i64(), code),
        (Some("/\n"), Some(4), 1)
    );
    // ... and that shell persists: the cd stuck, the shared pane's did not move.
    let (out, _) = s.shell("pwd", json!({"session": "ops", "pane": "worker"}));
    assert_eq!(out["stdout"], "/\n");
    let (out, _) = s.shell("pwd", json!({"session": "ops"}));
    let cwd = s.env.root().canonicalize().unwrap();
    assert_eq!(out["stdout"], format!("{}\n", cwd.display()));
}

#[test]
fn run_shell_reports_exit_codes_and_output_exactly() {
    let Some(s) = server("exact") else { return };
    let (r, code) = s.shell("false", json!({"wait": true, "pane": "shared"}));
    assert_eq!(code, 1);
    assert_eq!(r, json!({"exit_code": 1, "stdout": "", "stderr": ""}));
    // Output that looks like the completion marker changes nothing.
    let (r, _) = s.shell(
        "echo indus-done-0123456789abcdef; echo '__indus_run=/tmp'; printf '$ fake\\n' >&2; (exit 3)",
        json!({"pane": "shared"}),
    );
    assert_eq!(
        r,
        json!({"exit_code": 3, "stdout": "indus-done-0123456789abcdef\n__indus_run=/tmp\n", "stderr": "$ fake\n"})
    );
    // More lines than tmux's history holds: the head, cut at 4,000 characters.
    let (r, code) = s.shell("seq 10000", json!({"pane": "shared"}));
    assert_eq!(code, 0);
    let out = r["stdout"].as_str().unwrap();
    assert!(out.starts_with("1\n2\n3\n"), "{out}");
    assert!(out.ends_with("...[truncated]"));
    assert_eq!(out.chars().count(), 4000 + "...[truncated]".len());
    // The run's files and the typed line stay out of the shell's history.
    let (r, _) = s.shell("history", json!({"pane": "shared"}));
    let history = r["stdout"].as_str().unwrap();
    assert!(!history.contains("run.sh"), "{history}");
    assert!(
        s.env
            .path(".indus-process/tmux/runs")
            .read_dir()
            .unwrap()
            .next()
            .is_none()
    );
}

#[test]
fn a_bounded_wait_errors_in_time_and_the_command_keeps_running() {
    let Some(s) = server("bounded") else { return };
    let started = Instant::now();
    let (r, code) = s.shell("sleep 5", json!({"wait": "1s", "pane": "shared"}));
    let took = started.elapsed();
    assert_eq!(code, 1);
    let message = r.as_str().unwrap();
    assert!(message.contains("still running after 1."), "{message}");
    assert!(message.contains("tmux pane %"), "{message}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    let pane = s.shared_pane();
    assert_eq!(s.foreground(&pane), "sleep");
    // The pane is busy: a second command is refused, not typed into `sleep`.
    let (r, code) = s.shell("echo no", json!({"pane": "shared"}));
    assert_eq!(code, 1);
    assert!(
        r.as_str()
            .unwrap()
            .contains("still running an earlier command"),
        "{r}"
    );
}

#[test]
fn fire_and_forget_then_capture_then_interrupt() {
    let Some(s) = server("forget") else { return };
    let (r, code) = s.shell(
        "for i in 1 2 3; do echo tick-$i; done; sleep 30",
        json!({"wait": false}),
    );
    assert_eq!(code, 0, "{r}");
    let pane = s.shared_pane();
    assert_eq!(
        r.as_str().unwrap(),
        format!("command dispatched to tmux pane {pane}")
    );
    let mut screen = String::new();
    assert!(
        wait_until(Duration::from_secs(5), || {
            let (c, _) = s.call("capture-pane", json!({}));
            screen = c.as_str().unwrap_or("").to_string();
            screen.contains("tick-3")
        }),
        "{screen}"
    );
    assert!(wait_until(Duration::from_secs(5), || s.foreground(&pane) == "sleep"));
    let (r, code) = s.call("send-keys", safe(json!({"keys": ["C-c"]})));
    assert_eq!(code, 0, "{r}");
    assert_eq!(
        r.as_str().unwrap(),
        format!("Sent to tmux pane {pane} (session indus-default-shared, pane shared): keys C-c")
    );
    assert!(wait_until(Duration::from_secs(5), || s.foreground(&pane) == "bash"));
    // The interrupted run reached the prompt: the pane takes commands again.
    let (r, code) = s.shell("echo after", json!({"pane": "shared"}));
    assert_eq!((r["stdout"].as_str(), code), (Some("after\n"), 0), "{r}");
    // Literal text and Enter type a line a person could have typed.
    let (_, code) = s.call(
        "send-keys",
        safe(json!({"literal_text": "echo typed-by-keys", "enter": true})),
    );
    assert_eq!(code, 0);
    assert!(wait_until(Duration::from_secs(5), || {
        let (c, _) = s.call("capture-pane", json!({"start": "-"}));
        c.as_str()
            .is_some_and(|t| t.lines().any(|l| l == "typed-by-keys"))
    }));
}

#[test]
fn caps_and_protections_hold() {
    let Some(s) = server("caps") else { return };
    s.env.write(
        ".indusvx/buddy.json",
        r#"{"tmux": {"max_sessions": 2, "max_panes": 2}}"#,
    );
    assert_eq!(s.shell("true", json!({"pane": "shared"})).1, 0);
    assert_eq!(
        s.call("tmux-create-session", safe(json!({"session": "a"})))
            .1,
        0
    );
    let (r, code) = s.call("tmux-create-session", safe(json!({"session": "b"})));
    assert_eq!(code, 1);
    let message = r.as_str().unwrap();
    assert!(
        message.starts_with("at most 2 managed tmux sessions"),
        "{message}"
    );
    assert_eq!(s.call("tmux-create-pane", safe(json!({"pane": "w1"}))).1, 0);
    let (r, code) = s.call("tmux-create-pane", safe(json!({"pane": "w2"})));
    assert_eq!(code, 1);
    assert!(
        r.as_str().unwrap().starts_with("at most 2 managed panes"),
        "{r}"
    );
    // The shared session and shared panes cannot be killed.
    let (r, code) = s.call("tmux-kill-session", safe(json!({"session": "shared"})));
    assert_eq!(code, 1);
    assert!(
        r.as_str().unwrap().contains("shared default session"),
        "{r}"
    );
    let (r, code) = s.call(
        "tmux-kill-pane",
        safe(json!({"pane": "shared", "session": "a"})),
    );
    assert_eq!(code, 1);
    assert!(r.as_str().unwrap().contains("shared pane"), "{r}");
    // A session indus-tool did not make is not its to kill.
    s.tmux(&["new-session", "-d", "-s", "indus-default-foreign"]);
    let (r, code) = s.call("tmux-kill-session", safe(json!({"session": "foreign"})));
    assert_eq!(code, 1);
    assert!(r.as_str().unwrap().contains("not managed"), "{r}");
    // Killing what is managed works and frees room.
    assert_eq!(s.call("tmux-kill-pane", safe(json!({"pane": "w1"}))).1, 0);
    assert_eq!(s.call("tmux-create-pane", safe(json!({"pane": "w2"}))).1, 0);
    assert_eq!(
        s.call("tmux-kill-session", safe(json!({"session": "a"}))).1,
        0
    );
    assert_eq!(
        s.call("tmux-create-session", safe(json!({"session": "b"})))
            .1,
        0
    );
    // The safety fields are required.
    let (r, code) = s.call("tmux-create-session", json!({"session": "c"}));
    assert_eq!(code, 1);
    assert!(r.as_str().unwrap().contains("\"risk\""), "{r}");
}

#[test]
fn shell_killing_directives_are_refused_on_a_pane() {
    let Some(s) = server("guard") else { return };
    for command in [
        "set -e",
        "set -euo pipefail; make",
        "exit 1",
        "logout",
        "exec bash",
    ] {
        let (r, code) = s.shell(command, json!({"pane": "shared"}));
        assert_eq!(code, 1, "{command}");
        let message = r.as_str().unwrap();
        assert!(message.starts_with("run_shell refused"), "{message}");
        assert!(message.contains("bash -lc 'set -e; ...'"), "{message}");
    }
    // The advised form runs, and the pane's shell is still there.
    let (r, code) = s.shell("bash -lc 'set -e; echo strict'", json!({"pane": "shared"}));
    assert_eq!((r["stdout"].as_str(), code), (Some("strict\n"), 0), "{r}");
    // Without a tmux target the same command is an ordinary child: allowed.
    let (r, code) = s.shell("set -e; echo direct; exit 2", json!({}));
    assert_eq!(
        (r["stdout"].as_str(), r["exit_code"].as_i64(), code),
        (Some("direct\n"), Some(2), 1)
    );
}

#[test]
fn missing_targets_fall_back_for_capture_but_never_for_keys() {
    let Some(s) = server("missing") else { return };
    // Nothing runs yet: both are clear errors.
    let (r, code) = s.call("capture-pane", json!({}));
    assert_eq!(code, 1);
    assert!(
        r.as_str()
            .unwrap()
            .contains("no managed tmux session is running yet"),
        "{r}"
    );
    s.shell("echo on-the-shared-pane", json!({"pane": "shared"}));
    let (r, code) = s.call("capture-pane", json!({"pane": "nope"}));
    assert_eq!(code, 0, "{r}");
    let content = r.as_str().unwrap();
    assert!(
        content.starts_with("[missing target: no managed pane nope"),
        "{content}"
    );
    assert!(content.contains("on-the-shared-pane"), "{content}");
    // No alternate screen is active: the main one, with the seed's notice.
    let (r, code) = s.call("capture-pane", json!({"include_alternate_screen": true}));
    assert_eq!(code, 0, "{r}");
    let content = r.as_str().unwrap();
    assert!(content.contains("on-the-shared-pane"), "{content}");
    assert!(
        content.ends_with("[no alternate screen is active; captured the main screen]"),
        "{content}"
    );
    let (r, code) = s.call("send-keys", safe(json!({"pane": "nope", "keys": ["C-c"]})));
    assert_eq!(code, 1);
    assert!(r.as_str().unwrap().contains("never retargets"), "{r}");
    // A session killed by hand is noticed as such.
    s.call("tmux-create-session", safe(json!({"session": "ops"})));
    s.tmux(&["kill-session", "-t", "=indus-default-ops"]);
    let (r, code) = s.shell("true", json!({"session": "ops"}));
    assert_eq!(code, 1);
    assert!(
        r.as_str()
            .unwrap()
            .contains("was killed outside indus-tool"),
        "{r}"
    );
}

#[test]
fn bash_under_tmux_types_into_the_shared_pane() {
    let Some(s) = server("bash") else { return };
    let bash = |args: &[&str]| {
        s.env
            .cmd()
            .env("INDUS_TMUX_SOCKET", &s.socket)
            .arg("--tmux")
            .args(["--format", "json", "bash"])
            .args(args)
            .output()
            .unwrap()
    };
    let out = bash(&["echo one; echo two >&2; (exit 3)"]);
    let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let record = &line["output"];
    assert_eq!(record["exitCode"], 3, "{line}");
    assert_eq!(record["stdout"], "one\n", "{line}");
    assert_eq!(record["stderr"], "two\n", "{line}");
    // A person attached sees the command and its output in the pane.
    let pane = s.shared_pane();
    let screen = s.tmux(&["capture-pane", "-p", "-t", &pane]);
    assert!(screen.contains("echo one; echo two >&2"), "{screen}");
    // The deadline interrupts the command there.
    let started = Instant::now();
    let out = bash(&["sleep 30", "--timeout-ms", "1000"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(wait_until(Duration::from_secs(5), || s.foreground(&pane) == "bash"));
    // What would end the shared shell is refused.
    let out = bash(&["exit 1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("--tmux refused `exit 1`"),
        "{}",
        stdout(&out)
    );
}

/// `--tmux bash` says truthfully how a command past its deadline was ended, and
/// ends it even when it ignores C-c; SIGINT to `--tmux bash` or to `run_shell`
/// waiting on a pane leaves neither the command (bash) nor a `tmux wait-for`
/// client (run_shell) behind.
#[test]
fn interrupted_and_overdue_pane_commands_leave_nothing_behind() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let Some(s) = server("interrupts") else {
        return;
    };
    let bash = |args: &[&str]| {
        let out = s
            .env
            .cmd()
            .env("INDUS_TMUX_SOCKET", &s.socket)
            .args(["--tmux", "bash"])
            .args(args)
            .output()
            .unwrap();
        format!("{}{}", stdout(&out), stderr(&out))
    };
    // C-c is enough for sleep; a program that ignores SIGINT is killed.
    let out = bash(&["sleep 30", "--timeout-ms", "500"]);
    assert!(
        out.contains("timed out after 500 ms; C-c was typed and ended it"),
        "{out}"
    );
    let pane = s.shared_pane();
    let out = bash(&["sh -c \"trap '' INT; sleep 31\"", "--timeout-ms", "500"]);
    assert!(
        out.contains("C-c was typed, it went on, and its process group was killed"),
        "{out}"
    );
    assert!(wait_until(Duration::from_secs(5), || s.foreground(&pane) == "bash"));
    let marked = |marker: &str| {
        Command::new("pgrep")
            .args(["-f", marker])
            .output()
            .map(|o| !o.stdout.is_empty())
            .unwrap_or(false)
    };
    // SIGINT to `--tmux bash` while its command runs.
    let spawn = || {
        let mut c = common::bin_std();
        c.current_dir(s.env.root())
            .arg("--cwd")
            .arg(s.env.root())
            .env("INDUS_TMUX_SOCKET", &s.socket);
        c
    };
    let child = spawn()
        .args(["--tmux", "bash", "sleep 1032"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    assert!(wait_until(Duration::from_secs(5), || marked("sleep 1032")));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let mut child = child;
    assert!(wait_until(Duration::from_secs(5), || child
        .try_wait()
        .unwrap()
        .is_some()));
    assert!(
        wait_until(Duration::from_secs(5), || !marked("sleep 1032")),
        "the command outlived --tmux bash"
    );
    // SIGINT to run_shell waiting on a pane: the command stays in the pane (it is
    // the pane's to keep), the wait-for client does not.
    let input = safe(json!({"command": "sleep 1033", "pane": "shared"}));
    let mut child = spawn()
        .args(["--profile", "buddy", "run_shell", "--json"])
        .arg(input.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    assert!(wait_until(Duration::from_secs(5), || marked("sleep 1033")));
    // This server's wait-for clients only (other tests run their own servers).
    let waiter = format!("{} wait-for indus-done", s.socket);
    assert!(wait_until(Duration::from_secs(5), || marked(&waiter)));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    assert!(wait_until(Duration::from_secs(5), || child
        .try_wait()
        .unwrap()
        .is_some()));
    assert!(
        wait_until(Duration::from_secs(3), || !marked(&waiter)),
        "a tmux wait-for client outlived run_shell"
    );
}

/// A tmux server that goes away with a command dispatched (kill-server, a
/// reboot) does not block the pane of the same id on the next server.
#[test]
fn a_record_of_a_dead_server_does_not_block_the_next_one() {
    let Some(s) = server("dead-server") else {
        return;
    };
    let (_, code) = s.shell("sleep 100", json!({"wait": false}));
    assert_eq!(code, 0);
    s.tmux(&["kill-server"]);
    let (result, code) = s.shell("echo after", json!({"pane": "shared"}));
    assert_eq!(code, 0, "{result}");
    assert_eq!(result["stdout"], "after\n", "{result}");
}

/// Ten calls at once on one pane: one runs, the others are refused at once as
/// busy; none is typed into another's command, none hangs.
#[test]
fn concurrent_calls_on_one_pane_are_refused_not_interleaved() {
    let Some(s) = server("busy") else { return };
    // The session exists before the race (creating it is not what is tested).
    assert_eq!(s.shell("true", json!({})).1, 0);
    let started = Instant::now();
    let children: Vec<_> = (0..10)
        .map(|i| {
            let input =
                safe(json!({"command": format!("sleep 1; echo call-{i}"), "pane": "shared"}));
            let mut c = common::bin_std();
            c.current_dir(s.env.root())
                .arg("--cwd")
                .arg(s.env.root())
                .env("INDUS_TMUX_SOCKET", &s.socket)
                .args([
                    "--profile",
                    "buddy",
                    "--format",
                    "json",
                    "run_shell",
                    "--json",
                ])
                .arg(input.to_string())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            c.spawn().unwrap()
        })
        .collect();
    let mut ran = Vec::new();
    let mut refused = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        let line: Value = serde_json::from_str(stdout(&out).trim())
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(&out)));
        if out.status.code() == Some(0) {
            ran.push(
                line["output"]["result"]["stdout"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            );
        } else {
            let text = line.to_string();
            assert!(
                text.contains("is busy") || text.contains("still running"),
                "{text}"
            );
            refused += 1;
        }
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(ran.len(), 1, "{ran:?}");
    assert!(
        ran[0].starts_with("call-") && ran[0].ends_with('\n'),
        "{ran:?}"
    );
    assert_eq!(refused, 9);
}

/// SIGINT to `--tmux bash` at any moment, however early (while the line is
/// still being typed, before the pane's shell began it), leaves the pane free:
/// the next command runs, never refused as "still running an earlier command".
#[test]
fn an_interrupt_at_any_moment_leaves_the_pane_free() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let Some(s) = server("early-interrupts") else {
        return;
    };
    let run = |args: &[&str]| {
        s.env
            .cmd()
            .env("INDUS_TMUX_SOCKET", &s.socket)
            .args(["--tmux", "bash"])
            .args(args)
            .output()
            .unwrap()
    };
    assert_eq!(code(&run(&["true"])), 0);
    for delay_ms in [0u64, 2, 5, 10, 20, 40, 80, 160] {
        let mut cmd = common::bin_std();
        // SIGINT as a terminal's Ctrl-C finds it: a harness run in the
        // background (`cmd &` in a script) passes SIGINT down ignored, and a
        // signal that lands before indus-tool installs its handler would then
        // be dropped by the kernel, as for any program.
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(|| {
                nix::sys::signal::signal(Signal::SIGINT, nix::sys::signal::SigHandler::SigDfl)
                    .map(|_| ())
                    .map_err(std::io::Error::from)
            });
        }
        let mut child = cmd
            .current_dir(s.env.root())
            .arg("--cwd")
            .arg(s.env.root())
            .env("INDUS_TMUX_SOCKET", &s.socket)
            .args(["--tmux", "bash", "sleep 1041"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
        assert!(
            wait_until(Duration::from_secs(8), || child
                .try_wait()
                .unwrap()
                .is_some()),
            "{delay_ms} ms: --tmux bash did not end"
        );
        let next = run(&["echo free"]);
        assert_eq!(
            code(&next),
            0,
            "{delay_ms} ms: {}{}",
            stdout(&next),
            stderr(&next)
        );
        assert!(
            stdout(&next).contains("free"),
            "{delay_ms} ms: {}",
            stdout(&next)
        );
    }
}

/// Every answer of the tmux tools (in the buddy envelope) validates against the
/// output schema `describe` publishes for it (see tests/it/output_schemas.rs for
/// the tools that need no tmux).
#[test]
fn the_tmux_tools_answers_validate_against_their_output_schemas() {
    let Some(s) = server("schemas") else { return };
    let calls = [
        ("tmux-create-session", safe(json!({"session": "ops"}))),
        ("tmux-create-session", safe(json!({"session": "ops"}))),
        (
            "tmux-create-pane",
            safe(json!({"session": "ops", "pane": "w"})),
        ),
        (
            "run_shell",
            safe(json!({"command": "echo hi", "session": "ops", "pane": "w"})),
        ),
        (
            "run_shell",
            safe(json!({"command": "sleep 30", "session": "ops", "pane": "w", "wait": false})),
        ),
        (
            "send-keys",
            safe(json!({"session": "ops", "pane": "w", "keys": ["C-c"]})),
        ),
        ("capture-pane", json!({"session": "ops", "pane": "w"})),
        (
            "tmux-kill-pane",
            safe(json!({"session": "ops", "pane": "w"})),
        ),
        ("tmux-kill-session", safe(json!({"session": "ops"}))),
    ];
    for (tool, input) in calls {
        let described = s
            .env
            .cmd()
            .args(["--profile", "buddy", "describe", tool])
            .output()
            .expect("describe");
        let described: Value = serde_json::from_slice(&described.stdout).expect("JSON");
        let schema = &described["outputSchema"];
        jsonschema::meta::validate(schema)
            .unwrap_or_else(|e| panic!("{tool}'s output schema is not a JSON Schema: {e}"));
        let out = s
            .env
            .cmd()
            .env("INDUS_TMUX_SOCKET", &s.socket)
            .args(["--profile", "buddy", "--format", "json", tool, "--json"])
            .arg(input.to_string())
            .output()
            .expect("run indus-tool");
        assert_eq!(code(&out), 0, "{tool} {input}: {}", stdout(&out));
        let line: Value = serde_json::from_str(stdout(&out).trim()).expect("one JSON line");
        let validator = jsonschema::validator_for(schema).expect("the schema compiles");
        let found: Vec<String> = validator
            .iter_errors(&line["output"])
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(
            found.is_empty(),
            "{tool} {input} answered {}, which breaks its schema:\n{}",
            line["output"],
            found.join("\n")
        );
    }
}
