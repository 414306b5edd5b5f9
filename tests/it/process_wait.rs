//! Long and interactive commands through the real binary, with real programs:
//! `process poll --until/--wait-ms` and its statuses (0 matched, 1 ended, 124
//! timed out, 3 waiting for input), jobs in a terminal (`python3 -i`, named
//! keys, `screen`), "waiting for input" in a terminal job, a pipe job and
//! `bash`, and what `bash` elides kept whole in the spill store (its digest
//! checked against `sha256sum` on a `tee` of the same stream). Then the
//! attacks: a 10 MB line, a catastrophic pattern, a flood of escapes, a store
//! past its cap, a cloned repository that plants `.indus-process/outputs/`.

use crate::common;

use std::time::{Duration, Instant};

use common::{TestEnv, code, stderr, stdout, wait_until};
use serde_json::Value;

/// The binary as a plain command in `env`, for a test that spawns it.
fn spawnable(env: &TestEnv) -> std::process::Command {
    let mut c = common::bin_std();
    c.current_dir(env.root()).arg("--cwd").arg(env.root());
    c
}

/// A working directory whose jobs are killed when the test ends.
struct Jobs {
    env: TestEnv,
}

impl Jobs {
    fn new() -> Self {
        Self {
            env: TestEnv::new(),
        }
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        self.env.run(args)
    }

    fn json(&self, args: &[&str]) -> Value {
        let (v, out) = self.env.run_json(args);
        assert!(
            out.status.code().is_some(),
            "killed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        v["output"].clone()
    }

    fn start(&self, extra: &[&str], command: &str) -> String {
        let mut args = vec!["process", "start"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--command", command]);
        let out = self.run(&args);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        stdout(&out)
            .strip_prefix("Started ")
            .and_then(|t| t.split_once(' '))
            .map(|(id, _)| id.to_string())
            .expect("a start report")
    }

    /// `poll --until PATTERN --wait-ms MS`: the exit code, the text, the time.
    fn until(&self, id: &str, pattern: &str, ms: u64) -> (i32, String, Duration) {
        let t = Instant::now();
        let out = self.run(&[
            "process",
            "poll",
            id,
            "--until",
            pattern,
            "--wait-ms",
            &ms.to_string(),
        ]);
        (code(&out), stdout(&out), t.elapsed())
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
            if let Some(pgid) = job["pgid"].as_u64() {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pgid as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
    }
}

#[test]
fn a_line_that_comes_ends_the_wait_at_once_and_its_absence_is_said() {
    let jobs = Jobs::new();
    let server = jobs.start(&[], "sleep 2; echo 'server listening on :8000'; sleep 30");
    let (status, text, took) = jobs.until(&server, "listening", 10_000);
    assert_eq!(status, 0, "{text}");
    assert!(
        took >= Duration::from_millis(1900) && took < Duration::from_millis(3500),
        "{took:?}"
    );
    assert!(
        text.contains("matched /listening/ on stdout after ")
            && text.contains("server listening on :8000"),
        "{text}"
    );
    // The cursor moved past the line: the same wait now times out, and says so.
    let (status, text, took) = jobs.until(&server, "listening", 2_000);
    assert_eq!(status, 124, "{text}");
    assert!(
        took >= Duration::from_millis(2000) && took < Duration::from_millis(2200 + 400),
        "{took:?}"
    );
    assert!(
        text.contains("timed out after 2000 ms waiting for a line matching /listening/"),
        "{text}"
    );
    // Within 10 % of the wait: the record's own measure, then the wall clock
    // with the binary's start-up on top.
    let t = Instant::now();
    let record = jobs.json(&[
        "process",
        "poll",
        &server,
        "--until",
        "listening",
        "--wait-ms",
        "2000",
    ]);
    let waited = record["wait"]["waitedMs"].as_u64().unwrap();
    assert!((2000..=2200).contains(&waited), "{record}");
    assert!(
        t.elapsed() < Duration::from_millis(2200 + 300),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(record["wait"]["outcome"], "timeout");
    // A job that dies first: 1, with its status.
    let dying = jobs.start(&[], "sleep 0.5; echo bye; exit 7");
    let (status, text, took) = jobs.until(&dying, "never", 10_000);
    assert_eq!(status, 1, "{text}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(
        text.contains("exited with code 7") && text.contains("bye"),
        "{text}"
    );
    // The record says the same to a program.
    let record = jobs.json(&[
        "process",
        "poll",
        &dying,
        "--until",
        "x",
        "--wait-ms",
        "100",
    ]);
    assert_eq!(record["wait"]["outcome"], "ended", "{record}");
    // --wait-ms alone: any new output.
    let ticker = jobs.start(&[], "sleep 0.3; echo tick; sleep 30");
    let out = jobs.run(&["process", "poll", &ticker, "--wait-ms", "5000"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("new output after") && stdout(&out).contains("tick"));
}

#[test]
fn a_killed_waiter_leaves_the_job_and_its_record_as_they_were() {
    let jobs = Jobs::new();
    let id = jobs.start(&[], "echo first; sleep 30");
    assert!(wait_until(Duration::from_secs(5), || {
        std::fs::read_to_string(jobs.env.path(".indus-process/jobs/job-1/stdout"))
            .is_ok_and(|s| s == "first\n")
    }));
    let before = jobs.env.read(".indus-process/jobs.json");
    let mut waiter = spawnable(&jobs.env)
        .args([
            "process",
            "poll",
            &id,
            "--until",
            "never",
            "--wait-ms",
            "20000",
        ])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(waiter.id() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let _ = waiter.wait();
    assert_eq!(jobs.env.read(".indus-process/jobs.json"), before);
    let record = jobs.json(&["process", "poll", &id]);
    assert_eq!(record["status"], "running");
    // Nothing was consumed by the killed wait: the first line is still new.
    assert_eq!(record["stdout"], "first\n");
}

#[test]
fn a_terminal_job_is_a_terminal_python_answers_and_keys_are_keys() {
    let jobs = Jobs::new();
    let id = jobs.start(&["--tty", "--size", "100x30"], "python3 -i");
    let (status, text, _) = jobs.until(&id, ">>> ", 10_000);
    assert_eq!(status, 0, "{text}");
    let out = jobs.run(&[
        "process",
        "write",
        &id,
        "--input",
        "import os, shutil; print(6*7, os.isatty(0), shutil.get_terminal_size())",
        "--keys",
        "Enter",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let (status, text, _) = jobs.until(&id, "^42 ", 10_000);
    assert_eq!(status, 0, "{text}");
    assert!(
        text.contains("42 True os.terminal_size(columns=100, lines=30)"),
        "{text}"
    );
    // Plain text by default: no escape reaches the answer.
    assert!(!text.contains('\x1b'), "{text:?}");
    // Back at the prompt, the job waits for input: poll --until says 3.
    let (status, text, took) = jobs.until(&id, "never", 10_000);
    assert_eq!(status, 3, "{text}");
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(
        text.contains("waiting for input") || text.contains("wait for input"),
        "{text}"
    );
    let list = stdout(&jobs.run(&["process", "list"]));
    assert!(list.contains("waiting for input"), "{list}");
    // The screen, as a person sees it.
    let screen = jobs.json(&["process", "screen", &id]);
    let rows: Vec<&str> = screen["screen"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert_eq!(rows.len(), 30);
    assert!(rows.iter().any(|r| r.starts_with("42 True")), "{rows:?}");
    assert_eq!(screen["cursor"]["column"], 5, "{screen}");
    // C-c interrupts a running statement, as on a terminal.
    jobs.run(&[
        "process",
        "write",
        &id,
        "--input",
        "import time; time.sleep(30)",
        "--keys",
        "Enter",
    ]);
    std::thread::sleep(Duration::from_millis(400));
    jobs.run(&["process", "write", &id, "--keys", "C-c"]);
    let (status, text, _) = jobs.until(&id, "KeyboardInterrupt", 10_000);
    assert_eq!(status, 0, "{text}");
    // --raw keeps the terminal's own bytes (its carriage returns).
    jobs.run(&[
        "process",
        "write",
        &id,
        "--input",
        "print('x')",
        "--keys",
        "Enter",
    ]);
    assert!(wait_until(Duration::from_secs(5), || {
        jobs.json(&["process", "poll", &id, "--raw"])["stdout"]
            .as_str()
            .is_some_and(|s| s.contains("x\r\n"))
    }));
    // An unknown key is refused, naming it.
    let out = jobs.run(&["process", "write", &id, "--keys", "Hyper"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("unknown key \"Hyper\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn waiting_for_input_is_seen_on_pipes_and_in_bash() {
    let jobs = Jobs::new();
    // A pipe job blocked in input(): state and poll --until say so.
    let id = jobs.start(&[], "python3 -c 'name = input(); print(\"hello\", name)'");
    let (status, text, _) = jobs.until(&id, "hello", 10_000);
    assert_eq!(status, 3, "{text}");
    let record = jobs.json(&["process", "poll", &id]);
    assert_eq!(record["waitingForInput"]["name"], "python3", "{record}");
    jobs.run(&["process", "write", &id, "--input", "ada", "--keys", "Enter"]);
    let (status, text, _) = jobs.until(&id, "hello ada", 10_000);
    assert_eq!(status, 0, "{text}");
    // On pipes, C-c would be a byte: refused, with what to do instead.
    let sleeper = jobs.start(&[], "sleep 30");
    let out = jobs.run(&["process", "write", &sleeper, "--keys", "C-c"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("runs on pipes"), "{}", stderr(&out));
    // A terminal job stopped at `read -p`.
    let tty = jobs.start(&["--tty"], "read -p 'Name: ' n; echo \"got $n\"");
    let (status, text, _) = jobs.until(&tty, "got", 10_000);
    assert_eq!(status, 3, "{text}");
    assert!(text.contains("Name: "), "{text}");
    // bash: the prompt is said, not left to fail obscurely.
    for command in [
        "read -p 'Name: ' n; echo \"got [$n]\"",
        "python3 -c 'input(\"Password: \")'",
    ] {
        let record = jobs.json(&["bash", command]);
        assert!(
            record["inputWait"]["pid"].as_u64().is_some(),
            "{command}: {record}"
        );
    }
    let prompt = "read -p 'Name: ' n; echo \"got [$n]\"";
    let text = stdout(&jobs.run(&["bash", prompt]));
    assert!(
        text.contains("got []\nnote: the command stopped to read input: sh (pid "),
        "{text}"
    );
    // The shell's view: the command's own stdout as it was, the note on stderr.
    let out = spawnable(&jobs.env)
        .env_remove("INDUS_EXACT")
        .args(["bash", prompt])
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "got []\n");
    assert!(
        stderr(&out).starts_with("note: the command stopped to read input"),
        "{}",
        stderr(&out)
    );
    // A command that never reads its stdin gets no note; one that polls it
    // (select) still gets end-of-input at once, as from a closed stdin.
    let record = jobs.json(&["bash", "echo hi"]);
    assert!(record["inputWait"].is_null(), "{record}");
    let t = Instant::now();
    let record = jobs.json(&[
        "bash",
        "python3 -c 'import select, sys; r = select.select([sys.stdin], [], [], 20)[0]; print(len(r), repr(sys.stdin.read()))'",
    ]);
    assert_eq!(record["stdout"], "1 ''\n", "{record}");
    assert!(t.elapsed() < Duration::from_secs(5));
}

fn sha256sum(path: &std::path::Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum");
    String::from_utf8(out.stdout).unwrap()[..64].to_string()
}

fn peak_rss_kb(status: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap_or(0)
}

#[test]
fn two_hundred_megabytes_through_bash_are_kept_whole_and_the_middle_reads_back() {
    let env = TestEnv::new();
    let tee = env.path("tee.out");
    let command = format!(
        "head -c 200000000 /dev/zero | tr '\\0' 'x' | fold -w 99 | cat -n | tee {}",
        tee.display()
    );
    let mut child = spawnable(&env)
        .args([
            "--format",
            "json",
            "bash",
            "--timeout-ms",
            "600000",
            &command,
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut peak = 0;
    let mut out = Vec::new();
    let reader = {
        let mut so = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            use std::io::Read;
            let mut v = Vec::new();
            so.read_to_end(&mut v).unwrap();
            v
        })
    };
    while child.try_wait().unwrap().is_none() {
        if let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            peak = peak.max(peak_rss_kb(&s));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    out.extend(reader.join().unwrap());
    let outcome: Value = serde_json::from_slice(&out).unwrap();
    let record = &outcome["output"];
    let kept = &record["spill"]["stdout"];
    assert_eq!(
        kept["bytes"].as_u64(),
        Some(std::fs::metadata(&tee).unwrap().len())
    );
    assert_eq!(kept["sha256"].as_str().unwrap(), sha256sum(&tee), "{kept}");
    let path = kept["path"].as_str().unwrap();
    assert_eq!(sha256sum(std::path::Path::new(path)), sha256sum(&tee));
    // Memory stayed bounded: far below the stream's size.
    assert!(peak < 100_000, "peak RSS {peak} kB");
    // The shown ranges are the answer's own bytes, and the read call named in
    // the notice shows exactly the elided lines.
    let whole = std::fs::read(&tee).unwrap();
    let shown = kept["shown"].as_array().unwrap();
    let (h, t) = (
        shown[0][1].as_u64().unwrap() as usize,
        shown[1][0].as_u64().unwrap() as usize,
    );
    let text = record["stdout"].as_str().unwrap();
    assert!(text.starts_with(std::str::from_utf8(&whole[..h]).unwrap()));
    assert!(text.ends_with(std::str::from_utf8(&whole[t..]).unwrap()));
    let (offset, limit) = (
        kept["read"]["offset"].as_u64().unwrap(),
        kept["read"]["limit"].as_u64().unwrap(),
    );
    assert!(
        text.contains(&format!("read {path} --offset {offset} --limit {limit}")),
        "{}",
        &text[h..h + 400]
    );
    let lines: Vec<&[u8]> = whole.split(|&b| b == b'\n').collect();
    let want = lines[offset as usize - 1..(offset + limit) as usize - 1].join(&b'\n');
    assert_eq!(
        &whole[h..t - 1],
        &want[..],
        "the read call covers exactly the elided bytes"
    );
    // The read tool gives those lines back: the first and the last asked.
    let out = env.run(&[
        "read",
        path,
        "--offset",
        &offset.to_string(),
        "--limit",
        "2",
    ]);
    let first = String::from_utf8_lossy(lines[offset as usize - 1]).into_owned();
    assert!(stdout(&out).contains(&first), "{}", stdout(&out));
    let last_no = offset + limit - 1;
    let out = env.run(&[
        "read",
        path,
        "--offset",
        &last_no.to_string(),
        "--limit",
        "1",
    ]);
    let last = String::from_utf8_lossy(lines[last_no as usize - 1]).into_owned();
    assert!(stdout(&out).contains(&last), "{}", stdout(&out));
}

#[test]
fn the_attacks_end_in_bounded_time_and_the_store_keeps_its_cap() {
    let jobs = Jobs::new();
    // 10 MB without a newline, then the word: found, in bounded time.
    let id = jobs.start(
        &[],
        "head -c 10000000 /dev/zero | tr '\\0' 'a'; echo ' done'; sleep 30",
    );
    let (status, text, took) = jobs.until(&id, "done$", 20_000);
    assert_eq!(status, 0, "{}", &text[..text.len().min(300)]);
    assert!(
        text.contains("matched /done$/"),
        "{}",
        &text[..text.len().min(300)]
    );
    assert!(took < Duration::from_secs(15), "{took:?}");
    // A catastrophic pattern for a backtracking engine is linear here.
    let id = jobs.start(&[], "printf 'a%.0s' $(seq 1 50000); echo; sleep 30");
    let (status, _, took) = jobs.until(&id, "(a*)*b", 3_000);
    assert_eq!(status, 124);
    assert!(took < Duration::from_secs(5), "{took:?}");
    // A terminal program flooding escapes: poll and screen stay quick and clean.
    let id = jobs.start(
        &["--tty"],
        "i=0; while [ $i -lt 20000 ]; do printf '\\033[2J\\033[H\\033[31mframe %d\\033[0m' $i; i=$((i+1)); done; echo; echo end; sleep 30",
    );
    let (status, text, _) = jobs.until(&id, "^end", 60_000);
    assert_eq!(status, 0, "{}", &text[..text.len().min(300)]);
    assert!(!text.contains('\x1b'));
    let t = Instant::now();
    let screen = jobs.json(&["process", "screen", &id]);
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(
        screen["screen"][1].as_str().unwrap().starts_with("end"),
        "{screen}"
    );
    // A store past its cap evicts the oldest spills, and says so.
    let small = |args: &[&str]| {
        jobs.env
            .cmd()
            .env("INDUS_OUTPUTS_MAX_BYTES", "300000")
            .args(["--format", "json"])
            .args(args)
            .output()
            .unwrap()
    };
    let mut ids = Vec::new();
    for _ in 0..4 {
        let out = small(&["bash", "seq 1 30000"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        ids.push(v["output"]["spill"]["id"].as_str().unwrap().to_string());
        let evicted = v["output"]["spill"]["evicted"].as_array().unwrap().clone();
        if !evicted.is_empty() {
            assert!(
                !jobs
                    .env
                    .path(&format!(
                        ".indus-process/outputs/{}",
                        evicted[0].as_str().unwrap()
                    ))
                    .exists()
            );
        }
    }
    let kept: u64 = std::fs::read_dir(jobs.env.path(".indus-process/outputs"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| std::fs::metadata(e.path().join("stdout")).map_or(0, |m| m.len()))
        .sum();
    assert!(kept <= 300_000, "{kept}");
    assert!(ids.windows(2).all(|w| w[0] != w[1]), "{ids:?}");
    // The eviction is said in words, and on stderr in the shell's view.
    let out = spawnable(&jobs.env)
        .env_remove("INDUS_EXACT")
        .env("INDUS_OUTPUTS_MAX_BYTES", "300000")
        .args(["bash", "seq 1 30000"])
        .output()
        .unwrap();
    assert!(
        stderr(&out).contains(
            "note: the spill store keeps at most 300000 bytes; the oldest spills were evicted to make room: out-"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_cloned_outputs_folder_is_never_read_as_ours() {
    // A repository that carries a planted store: an index claiming spills, a
    // spill folder linked outside, and a file where the next spill goes.
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("marker");
    std::fs::write(&marker, "untouched").unwrap();
    let origin = TestEnv::new();
    origin.write(
        ".indus-process/outputs/index.json",
        format!(
            "{{\"lastId\": 0, \"kept\": [{{\"id\": \"../../../../{}\", \"tool\": \"bash\", \"command\": \"x\", \"createdAt\": 0, \"stdout\": null, \"stderr\": null}}]}}\n",
            outside.path().display()
        ),
    );
    std::os::unix::fs::symlink(outside.path(), origin.path(".indus-process/outputs/out-1"))
        .unwrap();
    origin.write(".indus-process/outputs/out-2/stdout", "planted\n");
    let git = |dir: &std::path::Path, args: &[&str]| {
        let ok = std::process::Command::new("git")
            .current_dir(dir)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(origin.root(), &["init", "-q"]);
    git(origin.root(), &["add", "-A", "-f"]);
    git(origin.root(), &["commit", "-qm", "planted"]);
    let work = tempfile::tempdir().unwrap();
    git(
        work.path(),
        &["clone", "-q", origin.root().to_str().unwrap(), "w"],
    );
    let clone = work.path().join("w");
    assert!(
        std::fs::symlink_metadata(clone.join(".indus-process/outputs/out-1"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let env_run = |args: &[&str]| {
        common::bin()
            .current_dir(&clone)
            .arg("--cwd")
            .arg(&clone)
            .env("INDUS_OUTPUTS_MAX_BYTES", "1000")
            .args(args)
            .output()
            .unwrap()
    };
    for _ in 0..3 {
        let out = env_run(&["--format", "json", "bash", "seq 1 30000"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let spill = &v["output"]["spill"];
        // Its own spills only: the planted entry is never evicted (nothing
        // outside is touched) and the planted files are never named.
        for id in spill["evicted"].as_array().into_iter().flatten() {
            assert!(id.as_str().unwrap().starts_with("out-"), "{spill}");
        }
        assert!(
            !spill["stdout"]["path"]
                .as_str()
                .unwrap_or("")
                .contains(".."),
            "{spill}"
        );
    }
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "untouched");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
    // The planted folders were replaced by the toolbox's own, or are gone.
    let planted = clone.join(".indus-process/outputs/out-2/stdout");
    assert!(std::fs::read(&planted).map_or(true, |b| b != b"planted\n"));
    assert!(
        !std::fs::symlink_metadata(clone.join(".indus-process/outputs/out-1"))
            .is_ok_and(|m| m.file_type().is_symlink())
    );
}

#[test]
fn a_wait_takes_the_same_inputs_through_batch_and_says_why_it_ended() {
    let jobs = Jobs::new();
    let id = jobs.start(&[], "sleep 0.3; echo ready; sleep 30");
    let calls = format!(
        "{}\n{}\n{}\n",
        serde_json::json!({"id": "a", "name": "process", "input": {"action": "poll", "id": id, "until": "^ready$", "waitMs": 10000}}),
        serde_json::json!({"id": "b", "name": "process", "input": {"action": "poll", "id": id, "until": "never", "waitMs": 300}}),
        serde_json::json!({"id": "c", "name": "process", "input": {"action": "poll", "id": id, "until": "(", "waitMs": 300}}),
    );
    let out = jobs
        .env
        .cmd()
        .arg("batch")
        .write_stdin(calls)
        .output()
        .unwrap();
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let record = |i: usize| lines[i]["output"].clone();
    assert_eq!(record(0)["wait"]["outcome"], "matched", "{}", lines[0]);
    assert_eq!(record(0)["wait"]["line"], "ready");
    assert_eq!(record(0)["stdout"], "ready\n");
    // A timeout is an answer, not an error, and says it timed out.
    assert_eq!(record(1)["wait"]["outcome"], "timeout", "{}", lines[1]);
    assert_eq!(lines[1]["is_error"], false);
    // A pattern that does not parse is refused, naming the field.
    assert_eq!(lines[2]["is_error"], true);
    assert!(
        lines[2]
            .to_string()
            .contains("\\\"until\\\" is not a valid regular expression"),
        "{}",
        lines[2]
    );
}

#[test]
fn a_terminal_job_that_leaves_a_flood_behind_still_has_its_exit_recorded() {
    let jobs = Jobs::new();
    // `yes` keeps the terminal and writes to it forever after the shell exits.
    let id = jobs.start(&["--tty"], "yes flood & sleep 0.3; exit 3");
    let (status, text, took) = jobs.until(&id, "never", 10_000);
    assert_eq!(status, 1, "{}", &text[..text.len().min(300)]);
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(
        text.contains("exited with code 3"),
        "{}",
        &text[..text.len().min(300)]
    );
    let out = jobs.run(&["process", "stop", &id]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}
