//! `bash` through the real binary: the report format, exit status, deadlines that
//! kill the whole process group, closed stdin, clamping, and Ctrl-C.

use crate::common;

use std::time::{Duration, Instant};

use common::{TestEnv, alive, code, pid_in, stderr, stdout, wait_until};
use serde_json::json;

#[test]
fn the_report_stitches_streams_and_status() {
    let env = TestEnv::new();
    let out = env.run(&["bash", "echo out; echo err >&2"]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        stdout(&out),
        "stdout:\nout\nstderr:\nerr\nstatus: exit code 0\n"
    );

    let out = env.run(&["bash", "true"]);
    assert_eq!(stdout(&out), "status: exit code 0\n");

    let out = env.run(&["bash", "printf 'no newline'; exit 3"]);
    assert_eq!(code(&out), 1);
    assert_eq!(stderr(&out), "stdout:\nno newline\nstatus: exit code 3\n");

    let out = env.run(&["bash", "kill -TERM $$"]);
    assert_eq!(code(&out), 1);
    assert_eq!(stderr(&out), "status: killed by SIGTERM\n");
}

#[test]
fn json_output_is_one_outcome() {
    let env = TestEnv::new();
    let (v, out) = env.run_json(&["bash", "echo hi"]);
    assert_eq!(code(&out), 0);
    assert_eq!(v["output"]["stdout"], "hi\n");
    assert_eq!(v["output"]["exitCode"], 0);
    assert_eq!(v["is_error"], false);
    let (v, out) = env.run_json(&["bash", "--json", r#"{"command":"exit 4"}"#]);
    assert_eq!(code(&out), 1);
    assert_eq!(v["output"]["exitCode"], 4);
    assert_eq!(v["is_error"], true);
}

#[test]
fn stdin_is_closed_so_a_reader_ends_at_once() {
    let env = TestEnv::new();
    let start = Instant::now();
    let out = env
        .cmd()
        .args(["bash", "cat; read x; echo \"read=$?\""])
        .write_stdin("this must not reach the command\n")
        .output()
        .unwrap();
    assert!(start.elapsed() < Duration::from_secs(5));
    // `cat` read the stdin it was not given: the answer says so.
    let text = stdout(&out);
    assert!(
        text.starts_with("stdout:\nread=1\nnote: the command stopped to read input: cat (pid "),
        "{text}"
    );
    assert!(
        text.ends_with("(printf ... | cmd).\nstatus: exit code 0\n"),
        "{text}"
    );
}

#[test]
fn a_deadline_kills_the_group_and_keeps_what_was_printed() {
    let env = TestEnv::new();
    let start = Instant::now();
    let out = env.run(&[
        "bash",
        "--timeout-ms",
        "1000",
        "echo started; echo oops >&2; sleep 1000 & echo $! > bg.pid; sleep 1000",
    ]);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "stdout:\nstarted\nstderr:\noops\nstatus: timed out after 1000 ms; the command's process group was killed\n"
    );
    let bg = pid_in(&env, "bg.pid");
    assert!(
        wait_until(Duration::from_secs(2), || !alive(bg)),
        "the backgrounded sleep {bg} survived the deadline"
    );
}

#[test]
fn a_backgrounded_child_holding_the_pipes_does_not_hang_bash() {
    let env = TestEnv::new();
    let start = Instant::now();
    // The shell exits at once; its child keeps stdout open for 30 s.
    let out = env.run(&["bash", "sleep 30 & echo $! > bg.pid; echo done"]);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(stdout(&out), "stdout:\ndone\nstatus: exit code 0\n");
    let bg = pid_in(&env, "bg.pid");
    assert!(wait_until(Duration::from_secs(2), || !alive(bg)));
}

#[test]
fn cwd_is_resolved_against_the_working_directory() {
    let env = TestEnv::new();
    env.mkdir("sub/dir");
    let out = env.run(&["bash", "--cwd", "sub/dir", "pwd"]);
    let expected = env.path("sub/dir").canonicalize().unwrap();
    assert_eq!(
        stdout(&out),
        format!("stdout:\n{}\nstatus: exit code 0\n", expected.display())
    );
    let out = env.run(&["bash", "--cwd", "nope", "pwd"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!(
            "Invalid \"cwd\": ENOENT: no such file or directory, lstat '{}'\n",
            env.path("nope").display()
        )
    );
    env.write("file", "x");
    let out = env.run(&["bash", "--cwd", "file", "pwd"]);
    assert_eq!(stderr(&out), "Invalid \"cwd\": file is not a directory.\n");
}

#[test]
fn bad_input_names_the_field() {
    let env = TestEnv::new();
    let cases: &[(&str, &str)] = &[
        (r#"{}"#, "Missing \"command\": expected a non-empty string."),
        (
            r#"{"command":""}"#,
            "Invalid \"command\": expected a non-empty string, got an empty string.",
        ),
        (
            r#"{"command":"true","timeoutMs":0}"#,
            "Invalid \"timeoutMs\": expected a positive number of milliseconds, got the number 0.",
        ),
        (
            r#"{"command":"true","timeoutMs":-5}"#,
            "Invalid \"timeoutMs\": expected a positive number of milliseconds, got the number -5.",
        ),
        (
            r#"{"command":"true","timeoutMs":"soon"}"#,
            "Invalid \"timeoutMs\": expected a positive number of milliseconds, got the string \"soon\".",
        ),
        (
            r#"{"command":"true","cwd":7}"#,
            "Invalid \"cwd\": expected a string, got the number 7.",
        ),
    ];
    for (input, message) in cases {
        let out = env.run(&["bash", "--json", input]);
        assert_eq!(code(&out), 1, "{input}");
        assert_eq!(stderr(&out), format!("{message}\n"), "{input}");
    }
    // Fractions are floored, not refused.
    let out = env.run(&[
        "bash",
        "--json",
        r#"{"command":"echo ok","timeoutMs":1500.7}"#,
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn a_flood_is_clamped_keeping_head_tail_and_stderr() {
    let env = TestEnv::new();
    let out = env.run(&[
        "--max-bytes",
        "4000",
        "bash",
        "seq 1 100000; echo 'the real error' >&2",
    ]);
    assert_eq!(code(&out), 0);
    let text = stdout(&out);
    assert!(text.len() <= 4001, "{} bytes", text.len());
    assert!(text.starts_with("stdout:\n1\n2\n3\n"), "{text}");
    assert!(text.contains("\n100000\nstderr:\nthe real error\nstatus: exit code 0\n"));
    let notice = text
        .lines()
        .find(|l| l.starts_with("[bash: "))
        .expect("a notice");
    // The notice names where the elided lines are kept and the read that shows them.
    assert!(
        notice.contains(
            " lines) of stdout elided to stay within the output ceiling; all of stdout is kept in "
        ) && notice.contains("/.indus-process/outputs/out-1/stdout (sha256 ")
            && notice.ends_with("]"),
        "{notice}"
    );
    // Whole lines were cut: the lines around the notice are consecutive numbers
    // with exactly the stated count missing between them.
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("[bash: ")).unwrap();
    let before: u64 = lines[at - 1].parse().unwrap();
    let after: u64 = lines[at + 1].parse().unwrap();
    let missing = after - before - 1;
    assert!(notice.contains(&format!("({missing} lines)")), "{notice}");
    assert!(
        notice.ends_with(&format!("--offset {} --limit {missing}]", before + 1)),
        "{notice}"
    );
}

#[test]
fn ctrl_c_kills_the_command_group_and_exits_130() {
    let env = TestEnv::new();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("indus-tool"))
        // The toolbox's per-user state (its key) in the tests' home, not the host's.
        .env("HOME", common::no_home())
        .env_remove("XDG_STATE_HOME")
        .current_dir(env.root())
        .args([
            "bash",
            "echo $$ > sh.pid; sleep 1000 & echo $! > bg.pid; sleep 1000",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let sh = pid_in(&env, "sh.pid");
    let bg = pid_in(&env, "bg.pid");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "indus-tool ignored SIGINT"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "bash was cancelled; the command's process group was killed.\n"
    );
    assert!(wait_until(Duration::from_secs(2), || !alive(sh) && !alive(bg)));
}

/// A flood is counted, not held: 300 MB of output leaves the report within the
/// budget, the notice exact, and the process small. (`RUSAGE_CHILDREN` reports the
/// largest resident size of any finished child of this process, where the test
/// runs alone: `common::own_process!`.)
#[test]
fn a_flood_of_output_is_not_held_in_memory() {
    common::own_process!();
    let env = TestEnv::new();
    let out = env.run(&[
        "bash",
        "head -c 300000000 /dev/zero | tr '\\0' 'x'; echo; echo last line",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.len() <= 64 * 1024, "{}", text.len());
    assert!(
        text.ends_with("x\nlast line\nstatus: exit code 0\n"),
        "{text:.200}"
    );
    let notice = text
        .split("[bash: ")
        .nth(1)
        .and_then(|r| r.split("; all of stdout is kept in").next())
        .expect("a notice");
    // The x's shown: every line but the notice (whose path may hold an x) and
    // the status line.
    let kept: usize = text
        .lines()
        .filter(|l| !l.starts_with("[bash: ") && !l.starts_with("status: "))
        .map(|l| l.matches('x').count())
        .sum();
    assert_eq!(
        notice,
        format!(
            "{} bytes (0 lines) of stdout elided to stay within the output ceiling",
            300_000_000 - kept
        ),
        "{notice}"
    );
    let mut usage = std::mem::MaybeUninit::<nix::libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        assert_eq!(
            nix::libc::getrusage(nix::libc::RUSAGE_CHILDREN, usage.as_mut_ptr()),
            0
        );
        usage.assume_init()
    };
    let max_rss_mb = usage.ru_maxrss / 1024;
    assert!(max_rss_mb < 100, "a child reached {max_rss_mb} MB");
}

#[test]
fn programs_get_the_run_as_a_record_and_a_failed_commands_stdout_stays_on_stdout_in_the_shell_view()
{
    let env = TestEnv::new();
    let (v, out) = env.run_json(&["bash", "echo out; echo err >&2; exit 3"]);
    assert_eq!(code(&out), 1);
    let rec = &v["output"];
    assert_eq!(rec["exitCode"], json!(3));
    assert_eq!(rec["signal"], json!(null));
    assert_eq!(rec["stdout"], json!("out\n"));
    assert_eq!(rec["stderr"], json!("err\n"));
    assert_eq!(rec["timedOut"], json!(false));
    assert!(rec["durationMs"].as_u64().is_some());
    let keys: Vec<&String> = rec.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "exitCode",
            "signal",
            "stdout",
            "stderr",
            "timedOut",
            "durationMs",
            "inputWait",
            "spill"
        ]
    );
    // Nothing was elided, and the command read no input.
    assert_eq!(rec["spill"], json!(null));
    assert_eq!(rec["inputWait"], json!(null));
    // The exact text (what an agent gets): the whole report on stderr, once.
    let out = env.run(&["bash", "echo out; echo err >&2; exit 3"]);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        "stdout:\nout\nstderr:\nerr\nstatus: exit code 3\n"
    );
    // The shell's view: the command's streams as they were, the status on stderr.
    let out = env
        .cmd()
        .env_remove("INDUS_EXACT")
        .args(["bash", "echo out; echo err >&2; exit 3"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out), "out\n");
    assert_eq!(stderr(&out), "err\nstatus: exit code 3\n");
    // A timeout and a signal.
    let (v, _) = env.run_json(&["bash", "sleep 5", "--timeout-ms", "200"]);
    assert_eq!(v["output"]["timedOut"], json!(true));
    assert_eq!(v["output"]["exitCode"], json!(null));
    let (v, _) = env.run_json(&["bash", "kill -KILL $$"]);
    assert_eq!(v["output"]["signal"], json!("SIGKILL"));
}
