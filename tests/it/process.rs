//! `process` through the real binary: jobs started in one invocation and polled,
//! fed and stopped from later ones; exit codes captured with nobody watching; the
//! start-time check that keeps `stop` away from recycled pids; concurrency on the
//! job table; corrupt state.

use crate::common;

use std::time::{Duration, Instant};

use common::{TestEnv, alive, code, pid_in, stderr, stdout, wait_until};
use serde_json::Value;

fn start_time(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let rest = stat.rsplit_once(')').unwrap().1;
    rest.split_whitespace().nth(19).unwrap().parse().unwrap()
}

/// A working directory whose jobs are all killed when the test ends, pass or fail.
struct Jobs {
    env: TestEnv,
}

impl Jobs {
    fn new() -> Self {
        Self {
            env: TestEnv::new(),
        }
    }

    fn table(&self) -> Value {
        serde_json::from_slice(&self.env.read(".indus-process/jobs.json")).unwrap()
    }

    fn start(&self, command: &str) -> String {
        let out = self.env.run(&["process", "start", "--command", command]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let text = stdout(&out);
        text.strip_prefix("Started ")
            .and_then(|t| t.split_once(' '))
            .map(|(id, _)| id.to_string())
            .unwrap_or_else(|| panic!("unexpected start report {text:?}"))
    }

    fn poll(&self, id: &str) -> String {
        let out = self.env.run(&["process", "poll", "--id", id]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        stdout(&out)
    }

    /// Poll until the accumulated output contains `needle`.
    fn poll_until(&self, id: &str, needle: &str) -> String {
        let mut seen = String::new();
        let found = wait_until(Duration::from_secs(10), || {
            seen.push_str(&self.poll(id));
            seen.contains(needle)
        });
        assert!(found, "{needle:?} never appeared; polls gave {seen:?}");
        seen
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        let Ok(bytes) = std::fs::read(self.env.path(".indus-process/jobs.json")) else {
            return;
        };
        let Ok(table) = serde_json::from_slice::<Value>(&bytes) else {
            return;
        };
        for job in table["jobs"].as_array().into_iter().flatten() {
            let (Some(pid), Some(st)) = (job["pgid"].as_u64(), job["startTime"].as_u64()) else {
                continue;
            };
            let pid = pid as u32;
            if std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok() && start_time(pid) == st
                || std::fs::read_to_string(format!("/proc/{pid}/stat")).is_err()
            {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pid as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}

#[test]
fn a_job_is_polled_fed_and_stopped_across_invocations() {
    let jobs = Jobs::new();
    let began = Instant::now();
    let id = jobs.start("echo ready; while read line; do echo \"got $line\"; done");
    // `start` returns at once although the job runs on.
    assert!(began.elapsed() < Duration::from_secs(3));
    assert_eq!(id, "job-1");
    let first = jobs.poll_until(&id, "ready\n");
    assert!(first.starts_with("job-1 running for "), "{first}");
    assert!(first.contains("stdout:\nready\n"), "{first}");

    let out = jobs
        .env
        .run(&["process", "write", "--id", "job-1", "--input", "hello\n"]);
    assert_eq!(stdout(&out), "Sent 6 bytes to job-1's stdin.\n");
    let out = jobs
        .env
        .run(&["process", "write", "--id", "job-1", "--input", "again\n"]);
    assert_eq!(code(&out), 0);
    let seen = jobs.poll_until(&id, "got again\n");
    assert!(
        seen.contains("got hello\ngot again\n") || seen.contains("got hello\n"),
        "{seen}"
    );
    // Bytes are returned once: the next poll has nothing new.
    let again = jobs.poll(&id);
    assert!(again.ends_with("\n(no new output)\n"), "{again}");

    let out = jobs.env.run(&["process", "list"]);
    let list = stdout(&out);
    // `while read` waits for its next line: a state the list shows.
    assert!(
        list.starts_with("job-1  running, waiting for input  "),
        "{list}"
    );
    assert!(
        list.trim_end()
            .ends_with("echo ready; while read line; do echo \"got $line\"; done")
    );

    let out = jobs.env.run(&["process", "stop", "--id", "job-1"]);
    assert_eq!(
        stdout(&out),
        "Stopped job-1 with SIGTERM; it was killed by SIGTERM.\n"
    );
    let list = stdout(&jobs.env.run(&["process", "list"]));
    assert!(list.starts_with("job-1  stopped  "), "{list}");
    let after = jobs.poll(&id);
    assert!(
        after.starts_with("job-1 killed by SIGTERM after "),
        "{after}"
    );
    assert!(after.contains("(stopped): echo ready;"), "{after}");
    // Stopping again signals nothing.
    let out = jobs.env.run(&["process", "stop", "--id", "job-1"]);
    assert_eq!(
        stdout(&out),
        "job-1 was already stopped; nothing was signalled. It was killed by SIGTERM.\n"
    );
    // Writing to a job that has ended is refused.
    let out = jobs
        .env
        .run(&["process", "write", "--id", "job-1", "--input", "x"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "job-1 is not running (killed by SIGTERM); nothing reads its input any more.\n"
    );
    // Kept with its output until removed.
    let out = jobs.env.run(&["process", "remove", "--id", "job-1"]);
    assert_eq!(stdout(&out), "Removed job-1 and its captured output.\n");
    assert!(!jobs.env.path(".indus-process/jobs/job-1").exists());
    assert_eq!(
        stdout(&jobs.env.run(&["process", "list"])),
        "No background jobs.\n"
    );
    // Ids are never reused.
    assert_eq!(jobs.start("true"), "job-2");
}

#[test]
fn a_job_that_exits_in_10ms_keeps_its_output_and_exit_code() {
    let jobs = Jobs::new();
    let id = jobs.start("printf 'line %s\\n' $(seq 1 500); echo 'to stderr' >&2; exit 3");
    assert!(wait_until(Duration::from_secs(5), || jobs
        .env
        .path(".indus-process/jobs/job-1/exit")
        .exists()));
    let text = jobs.poll(&id);
    let expected: String = (1..=500).map(|i| format!("line {i}\n")).collect();
    let (head, rest) = text.split_once('\n').unwrap();
    assert!(
        head.starts_with("job-1 exited with code 3 after "),
        "{head}"
    );
    assert!(head.ends_with(": printf 'line %s\\n' $(seq 1 500); echo 'to stderr' >&2; exit 3"));
    assert_eq!(rest, format!("stdout:\n{expected}stderr:\nto stderr\n"));
    let list = stdout(&jobs.env.run(&["process", "list"]));
    assert!(list.starts_with("job-1  exited 3  "), "{list}");
}

#[test]
fn a_poll_returns_at_most_the_newest_32_kib_per_stream() {
    let jobs = Jobs::new();
    // 100 000 bytes of numbered 10-byte lines.
    let id = jobs.start("i=0; while [ $i -lt 10000 ]; do printf '%09d\\n' $i; i=$((i+1)); done");
    assert!(wait_until(Duration::from_secs(20), || jobs
        .env
        .path(".indus-process/jobs/job-1/exit")
        .exists()));
    let text = jobs.poll(&id);
    let skipped = 100_000 - 32_768;
    assert!(
        text.contains(&format!(
            "stdout:\n[process: {skipped} earlier bytes of stdout skipped; showing the newest 32768. They are kept: read {} --offset 1 --limit 6724]\n",
            jobs.env.path(".indus-process/jobs/job-1/stdout").display()
        )),
        "{}",
        &text[..200.min(text.len())]
    );
    assert!(text.ends_with("000009999\n"));
    assert!(jobs.poll(&id).ends_with("(no new output)\n"));
}

#[test]
fn stop_kills_grandchildren_and_escalates_to_sigkill() {
    let jobs = Jobs::new();
    // The job runs in the working directory. A grandchild that ignores SIGTERM
    // forces the SIGKILL after the 3 s grace.
    jobs.start(
        "sleep 300 & echo $! > a.pid; sh -c 'trap \"\" TERM; echo $$ > b.pid; while :; do sleep 1; done' & wait",
    );

    let (a, b) = (pid_in(&jobs.env, "a.pid"), pid_in(&jobs.env, "b.pid"));
    assert!(alive(a) && alive(b));
    let began = Instant::now();
    let out = jobs.env.run(&["process", "stop", "--id", "job-1"]);
    let took = began.elapsed();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "Stopped job-1 with SIGKILL, after SIGTERM went unheeded for 3 s; it was killed by SIGTERM.\n"
    );
    assert!(
        took >= Duration::from_millis(2900) && took < Duration::from_secs(8),
        "{took:?}"
    );
    assert!(
        wait_until(Duration::from_secs(2), || !alive(a) && !alive(b)),
        "a grandchild survived stop"
    );
}

#[test]
fn stop_reaches_plain_grandchildren_with_sigterm() {
    let jobs = Jobs::new();
    jobs.start("sleep 300 & echo $! > a.pid; sleep 300 & echo $! > b.pid; wait");

    let (a, b) = (pid_in(&jobs.env, "a.pid"), pid_in(&jobs.env, "b.pid"));
    assert!(alive(a) && alive(b));
    let out = jobs.env.run(&["process", "stop", "--id", "job-1"]);
    assert_eq!(
        stdout(&out),
        "Stopped job-1 with SIGTERM; it was killed by SIGTERM.\n"
    );
    assert!(wait_until(Duration::from_secs(2), || !alive(a) && !alive(b)));
}

/// Write a table entry by hand, as if a job had been started long ago (sealed
/// as the toolbox seals its own: an unsealed one is ignored).
fn fake_job(env: &TestEnv, pid: u32, start_time: u64) {
    env.mkdir(".indus-process/jobs/job-1");
    let cwd = env.root().to_string_lossy().into_owned();
    let who = serde_json::json!(["job-1", "sleep 30", cwd, pid, pid, start_time, 0]);
    let seal = common::seal_as_the_user("indus-tool job 1", who.to_string().as_bytes());
    let table = serde_json::json!({
        "lastId": 1,
        "jobs": [{
            "id": "job-1", "command": "sleep 30", "cwd": cwd,
            "pid": pid, "pgid": pid, "startTime": start_time, "startedAt": 0,
            "cursor": {"stdout": 0, "stderr": 0}, "seal": seal
        }]
    });
    env.write(".indus-process/jobs.json", table.to_string());
}

#[test]
fn a_job_record_without_the_users_seal_is_ignored() {
    let jobs = Jobs::new();
    let mut other = std::process::Command::new("sleep");
    std::os::unix::process::CommandExt::process_group(&mut other, 0);
    let mut other = other.arg("30").spawn().unwrap();
    let pid = other.id();
    fake_job(&jobs.env, pid, start_time(pid));
    // The same record with its seal taken off, as a checkout could carry it.
    let text = jobs.env.read_string(".indus-process/jobs.json");
    let mut table: serde_json::Value = serde_json::from_str(&text).unwrap();
    table["jobs"][0].as_object_mut().unwrap().remove("seal");
    jobs.env
        .write(".indus-process/jobs.json", table.to_string());
    let out = jobs.env.run(&["process", "stop", "--id", "job-1"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("does not carry this user's seal"),
        "{}",
        stderr(&out)
    );
    std::thread::sleep(Duration::from_millis(200));
    assert!(other.try_wait().unwrap().is_none(), "signalled");
    other.kill().unwrap();
    other.wait().unwrap();
}

#[test]
fn a_recycled_pid_is_never_signalled() {
    let jobs = Jobs::new();
    // Someone else's process, in its own group, now holds the pid the table names.
    let mut other = std::process::Command::new("sleep");
    std::os::unix::process::CommandExt::process_group(&mut other, 0);
    let mut other = other.arg("30").spawn().unwrap();
    let pid = other.id();
    fake_job(&jobs.env, pid, start_time(pid) + 12345);

    let out = jobs.env.run(&["process", "stop", "--id", "job-1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "job-1 is already gone: pid {pid} now belongs to another process, so nothing was signalled. It is gone, its exit status not recorded.\n"
        )
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        other.try_wait().unwrap().is_none(),
        "the stranger was signalled"
    );
    assert!(alive(pid));
    let list = stdout(&jobs.env.run(&["process", "list"]));
    assert!(list.starts_with("job-1  gone  "), "{list}");
    let out = jobs
        .env
        .run(&["process", "write", "--id", "job-1", "--input", "x"]);
    assert_eq!(code(&out), 1);
    other.kill().unwrap();
    other.wait().unwrap();
}

#[test]
fn a_zombie_is_not_reported_as_running() {
    let jobs = Jobs::new();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    // Not reaped yet: a zombie with the right start time.
    assert!(wait_until(Duration::from_secs(5), || !alive(pid)));
    fake_job(&jobs.env, pid, start_time(pid));
    let list = stdout(&jobs.env.run(&["process", "list"]));
    assert!(list.starts_with("job-1  gone  "), "{list}");
    child.wait().unwrap();
}

#[test]
fn parallel_starts_get_distinct_ids_and_an_intact_table() {
    let jobs = Jobs::new();
    // A home of its own: the 32 race to make the user's key too, and every
    // record must verify under the one that won.
    let home = tempfile::tempdir().unwrap();
    // Spawn all 32 first, then collect: they really run at the same time.
    let spawned: Vec<_> = (0..32)
        .map(|i| {
            common::bin_std()
                .env("HOME", home.path())
                .current_dir(jobs.env.root())
                .args(["process", "start", "--command", &format!("echo {i}")])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let children: Vec<_> = spawned
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let mut ids: Vec<String> = children
        .iter()
        .map(|out| {
            assert_eq!(code(out), 0, "{}", stderr(out));
            stdout(out).split(' ').nth(1).unwrap().to_string()
        })
        .collect();
    ids.sort_by_key(|id| id[4..].parse::<u32>().unwrap());
    let expected: Vec<String> = (1..=32).map(|i| format!("job-{i}")).collect();
    assert_eq!(ids, expected);
    let table = jobs.table();
    assert_eq!(table["jobs"].as_array().unwrap().len(), 32);
    assert_eq!(table["lastId"], 32);
    let list = jobs
        .env
        .cmd()
        .env("HOME", home.path())
        .args(["process", "list"])
        .output()
        .unwrap();
    assert_eq!(stdout(&list).lines().count(), 32, "{}", stderr(&list));
    assert_eq!(stderr(&list), "");
}

#[test]
fn a_corrupt_table_is_an_error_naming_it_and_is_left_alone() {
    let jobs = Jobs::new();
    jobs.env.write(".indus-process/jobs.json", "{ nope");
    for args in [
        &["process", "list"][..],
        &["process", "start", "--command", "true"][..],
        &["process", "poll", "--id", "job-1"][..],
    ] {
        let out = jobs.env.run(args);
        assert_eq!(code(&out), 1, "{args:?}");
        let message = stderr(&out);
        assert!(
            message.contains(
                &jobs
                    .env
                    .path(".indus-process/jobs.json")
                    .display()
                    .to_string()
            ) && message.contains("is corrupt"),
            "{message}"
        );
    }
    assert_eq!(jobs.env.read_string(".indus-process/jobs.json"), "{ nope");
}

#[test]
fn bad_input_and_unknown_jobs_are_clear() {
    let jobs = Jobs::new();
    let cases: &[(&[&str], &str)] = &[
        (
            &["process"],
            "Missing \"action\": expected one of \"start\", \"list\", \"poll\", \"stop\", \"write\", \"remove\", \"screen\".",
        ),
        (
            &["process", "--json", r#"{"action":"kill"}"#],
            "Invalid \"action\": expected one of \"start\", \"list\", \"poll\", \"stop\", \"write\", \"remove\", \"screen\", got the string \"kill\".",
        ),
        (
            &["process", "start"],
            "Missing \"command\": expected a non-empty string.",
        ),
        (
            &["process", "poll"],
            "Missing \"id\": expected a non-empty string.",
        ),
        (
            &["process", "poll", "--id", "job-7"],
            "No job \"job-7\": there are no background jobs in this directory.",
        ),
        (
            &["process", "write", "--id", "job-1"],
            "Missing \"input\" or \"keys\": expected text, named keys, or both.",
        ),
    ];
    for (args, message) in cases {
        let out = jobs.env.run(args);
        assert_eq!(code(&out), 1, "{args:?}");
        assert_eq!(stderr(&out), format!("{message}\n"), "{args:?}");
    }
    jobs.start("sleep 30");
    let out = jobs.env.run(&["process", "stop", "--id", "job-2"]);
    assert_eq!(stderr(&out), "No job \"job-2\"; the jobs here are job-1.\n");
    let out = jobs.env.run(&["process", "remove", "--id", "job-1"]);
    assert_eq!(stderr(&out), "job-1 is still running; stop it first.\n");
}

#[test]
fn start_honours_cwd() {
    let jobs = Jobs::new();
    jobs.env.mkdir("sub");
    let out = jobs
        .env
        .run(&["process", "start", "--cwd", "sub", "--command", "pwd"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let expected = jobs.env.path("sub").canonicalize().unwrap();
    jobs.poll_until("job-1", &format!("{}\n", expected.display()));
    assert_eq!(
        jobs.table()["jobs"][0]["cwd"],
        jobs.env.path("sub").to_str().unwrap()
    );
}

#[test]
fn programs_get_jobs_as_records() {
    let env = TestEnv::new();
    let (v, _) = env.run_json(&["process", "start", "echo out; echo err >&2"]);
    let started = &v["output"];
    assert_eq!(started["id"], "job-1");
    assert_eq!(started["status"], "running");
    assert_eq!(started["command"], "echo out; echo err >&2");
    assert!(started["pid"].as_u64().is_some());
    assert!(wait_until(Duration::from_secs(10), || {
        let (v, _) = env.run_json(&["process", "list"]);
        v["output"]["jobs"][0]["status"] == "exited"
    }));
    let (v, _) = env.run_json(&["process", "poll", "job-1"]);
    let job = &v["output"];
    assert_eq!(job["exitCode"], 0);
    assert_eq!(job["signal"], serde_json::Value::Null);
    assert_eq!(job["stdout"], "out\n");
    assert_eq!(job["stderr"], "err\n");
    let keys: Vec<&String> = job.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "id",
            "pid",
            "status",
            "exitCode",
            "signal",
            "command",
            "cwd",
            "startedAt",
            "endedAt",
            "stopped",
            "tty",
            "waitingForInput",
            "stdout",
            "stderr",
            "stdoutSkipped",
            "stderrSkipped"
        ]
    );
    let (v, _) = env.run_json(&["process", "remove", "job-1"]);
    assert_eq!(
        v["output"],
        serde_json::json!({"id": "job-1", "removed": true})
    );
}

#[test]
fn stop_returns_as_soon_as_a_term_ignoring_job_is_gone() {
    let env = TestEnv::new();
    let (v, _) = env.run_json(&["process", "start", "trap '' TERM; sleep 30"]);
    let id = v["output"]["id"].as_str().unwrap().to_string();
    std::thread::sleep(Duration::from_millis(200));
    let started = Instant::now();
    let (v, out) = env.run_json(&["process", "stop", &id]);
    let took = started.elapsed();
    assert_eq!(code(&out), 0, "{v}");
    assert_eq!(v["output"]["signalled"], "SIGKILL");
    assert_eq!(v["output"]["status"], "killed");
    // The 3 s grace, then no more than a moment for SIGKILL (it was 4.4 s when a
    // zombie left in the group was waited for).
    assert!(took < Duration::from_millis(3800), "stop took {took:?}");
}

#[test]
fn a_long_job_list_is_cut_between_jobs() {
    let jobs = Jobs::new();
    for i in 0..12 {
        jobs.start(&format!("echo job number {i}"));
    }
    let out = jobs.env.run(&["--max-bytes", "300", "process", "list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let (notice, rows) = lines.split_last().unwrap();
    assert!(!rows.is_empty() && rows.len() < 12, "{text}");
    for (i, row) in rows.iter().enumerate() {
        assert!(row.starts_with(&format!("job-{} ", i + 1)), "{text}");
        assert!(row.ends_with(&format!("echo job number {i}")), "{text}");
    }
    assert_eq!(
        *notice,
        format!(
            "[process: {} rows left out to stay within the output ceiling]",
            12 - rows.len()
        )
    );
    // Programs get the same cut: whole job records and the count left out.
    let (outcome, _) = jobs
        .env
        .run_json(&["--max-bytes", "600", "process", "list"]);
    let record = &outcome["output"];
    let shown = record["jobs"].as_array().unwrap().len();
    assert!(shown > 0 && shown < 12, "{record}");
    assert_eq!(record["omitted"], serde_json::json!(12 - shown));
    assert!(record.to_string().len() <= 600);
}
