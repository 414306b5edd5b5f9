//! The deck through the real binary: the profile table (with the seed's inverted
//! names), the catalog order, how `--profile`, `--collection` and `--tools` combine,
//! and the app cards across invocations.

use crate::common;

use common::{TestEnv, code, stderr, stdout};
use serde_json::{Value, json};

fn listed(env: &TestEnv, args: &[&str]) -> Vec<String> {
    let mut full: Vec<&str> = args.to_vec();
    full.push("list");
    let (v, out) = env.run_json(&full);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    v.as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// The seed's built-ins (`READ_ONLY_NAMES`, then `MUTATING_NAMES`), which
/// lead the catalog in this order; built-ins beyond the seed (`apply_patch`)
/// follow them, in their registration order.
const SEED: [&str; 12] = [
    "read",
    "ls",
    "grep",
    "find",
    "websearch",
    "webfetch",
    "todo_read",
    "write",
    "edit",
    "bash",
    "process",
    "todo_set",
];

#[test]
fn the_profile_table_keeps_the_seeds_inversion() {
    let env = TestEnv::new();
    // authoring = the observe-only built-ins (not the writing tools): the
    // seed's seven first, then any built-in beyond the seed that only observes.
    let authoring = listed(&env, &["--profile", "authoring"]);
    assert_eq!(authoring[..7], SEED[..7]);
    let (rows, _) = env.run_json(&["--profile", "all", "list"]);
    let read_only = |name: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == name && r["readOnly"] == true)
    };
    for extra in &authoring[7..] {
        assert!(
            !SEED.contains(&extra.as_str()) && read_only(extra),
            "{extra}"
        );
    }
    // survey = every built-in: the seed's twelve, then those beyond it
    // (apply_patch among them).
    let survey = listed(&env, &["--profile", "survey"]);
    assert_eq!(survey[..SEED.len()], SEED);
    assert!(survey[SEED.len()..].contains(&"apply_patch".to_string()));
    for extra in &authoring[7..] {
        assert!(survey[SEED.len()..].contains(extra), "{extra}");
    }
    // all = every built-in, then the cards in the seed's order, then `time`
    // (the one operator's tool of the buddy seed the whole deck holds too).
    let all = listed(&env, &["--profile", "all"]);
    assert_eq!(all[..survey.len()], survey);
    assert_eq!(all.last().map(String::as_str), Some("time"));
    let cards: Vec<&str> = all[survey.len()..all.len() - 1]
        .iter()
        .map(String::as_str)
        .collect();
    let seed_order = [
        "todo",
        "bg-process",
        "task",
        "saas-action",
        "memory",
        "enter_plan_mode",
        "exit_plan_mode",
    ];
    let expected: Vec<&str> = seed_order
        .iter()
        .copied()
        .filter(|c| cards.contains(c))
        .collect();
    assert_eq!(cards, expected, "cards out of the seed's order");
    // Neither flag: the whole deck.
    assert_eq!(listed(&env, &[]), all);
}

#[test]
fn list_and_describe_show_the_catalogs_fields() {
    let env = TestEnv::new();
    let (v, _) = env.run_json(&["--profile", "all", "list"]);
    let rows = v.as_array().unwrap();
    let read = &rows[0];
    assert_eq!(read["name"], "read");
    assert_eq!(read["title"], "Read file");
    assert_eq!(read["readOnly"], true);
    assert_eq!(read["profiles"], json!(["authoring", "survey", "all"]));
    let bash = rows.iter().find(|r| r["name"] == "bash").unwrap();
    assert_eq!(bash["readOnly"], false);
    assert_eq!(bash["profiles"], json!(["survey", "all"]));
    let memory = rows.iter().find(|r| r["name"] == "memory").unwrap();
    assert_eq!(memory["profiles"], json!(["all"]));
    assert_eq!(memory["collections"], json!([]));
    // Text: id, title, summary in aligned columns.
    let text = stdout(&env.run(&["--profile", "authoring", "list"]));
    let first = text.lines().next().unwrap();
    let title_at = first.find("Read file").unwrap();
    let summary_at = first.find("Show a file").unwrap();
    assert!(
        first.starts_with("read ") && title_at < summary_at,
        "{text}"
    );
    // Every row's title and summary start in those columns.
    for line in text.lines() {
        for at in [title_at, summary_at] {
            assert!(
                line[..at].ends_with(' ') && !line[at..].starts_with(' '),
                "{text}"
            );
        }
    }
    let (d, _) = env.run_json(&["describe", "exit-plan-mode"]);
    assert_eq!(d["title"], "Exit plan mode");
    assert_eq!(d["readOnly"], true);
    assert_eq!(d["parameters"]["required"], json!(["plan"]));
}

#[test]
fn profile_collection_and_tools_combine_as_documented() {
    let env = TestEnv::new();
    // --tools narrows a profile, in catalog order, whatever order it was given in.
    assert_eq!(
        listed(&env, &["--profile", "survey", "--tools", "bash,read"]),
        ["read", "bash"]
    );
    // A tool the profile lacks is simply not exposed...
    assert_eq!(
        listed(&env, &["--profile", "authoring", "--tools", "bash,read"]),
        ["read"]
    );
    // ...and an id the catalog lacks is a usage error naming it.
    let out = env.run(&["--tools", "read,nope", "list"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("\"nope\""), "{}", stderr(&out));
    // Names normalise as everywhere: bg_process, ExitPlanMode.
    assert_eq!(
        listed(&env, &["--tools", "Exit_Plan-Mode,TODO"]),
        ["todo", "exit_plan_mode"]
    );
    // Of two flags the profile wins; a flag beats the environment.
    let authoring = listed(&env, &["--profile", "authoring"]);
    assert_eq!(
        listed(&env, &["--collection", "coding", "--profile", "authoring"]),
        authoring
    );
    let via_env = env
        .cmd()
        .env("INDUS_PROFILE", "authoring")
        .args(["--collection", "all", "--format", "json", "list"])
        .output()
        .unwrap();
    let names: Vec<Value> = common::parse_outcome(&via_env).as_array().unwrap().clone();
    let survey = listed(&env, &["--profile", "survey"]);
    assert_eq!(
        names.len(),
        survey.len(),
        "--collection beats INDUS_PROFILE"
    );
    let via_env = env
        .cmd()
        .env("INDUS_PROFILE", "authoring")
        .args(["--format", "json", "list"])
        .output()
        .unwrap();
    assert_eq!(
        common::parse_outcome(&via_env).as_array().unwrap().len(),
        authoring.len()
    );
    // The S0 collection all = every built-in.
    assert_eq!(listed(&env, &["--collection", "all"]), survey);
    // A card outside the selection is refused like any tool.
    let out = env.run(&["--profile", "survey", "memory", "read"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "This session exposes no tool called \"memory\".\n"
    );
    let out = env.run(&["--profile", "nope", "list"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("authoring"), "{}", stderr(&out));
}

// ---------------------------------------------------------------- todo card

#[test]
fn the_todo_card_keeps_four_states_per_session() {
    let env = TestEnv::new();
    let items = json!([
        {"task": "read the spec", "state": "done"},
        {"task": "write the card", "state": "active", "weight": "high"},
        {"task": "test it", "state": "pending", "weight": "low"},
        {"task": "gold-plate", "state": "dropped"}
    ])
    .to_string();
    let out = env.run(&["todo", "set", "--items", &items]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&env.run(&["todo", "read"]));
    assert_eq!(
        text,
        "4 items: 1 done, 1 active, 1 pending, 1 dropped.\n[x] read the spec\n[~] write the card (high)\n[ ] test it (low)\n[-] gold-plate\n"
    );
    let (v, _) = env.run_json(&["todo", "read"]);
    assert_eq!(
        v["output"]["counts"],
        json!({"pending": 1, "active": 1, "done": 1, "dropped": 1})
    );
    assert_eq!(
        v["output"]["items"][0],
        json!({"task": "read the spec", "state": "done", "weight": "normal"})
    );
    // Another session sees its own list; the built-in checklist is another store.
    assert_eq!(
        stdout(&env.run(&["--session", "b", "todo", "read"])),
        "The checklist is empty.\n"
    );
    assert_eq!(
        stdout(&env.run(&["todo_read"])),
        "The checklist is empty.\n"
    );
    // set replaces wholesale; bad input names the field and changes nothing.
    let out = env.run(&[
        "todo",
        "set",
        "--items",
        r#"[{"task":"x","state":"finished"}]"#,
    ]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("\"items[0].state\""),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["todo", "set", "--items", r#"[{"state":"done"}]"#]);
    assert!(
        stderr(&out).contains("\"items[0].task\""),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["todo", "set"]);
    assert!(stderr(&out).contains("\"items\""), "{}", stderr(&out));
    assert!(stdout(&env.run(&["todo", "read"])).starts_with("4 items"));
    let out = env.run(&["todo", "set", "--items", "[]"]);
    assert_eq!(stdout(&out), "Checklist set. The checklist is empty.\n");
    let out = env.run(&["todo", "--json", r#"{"action":"tidy"}"#]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("\"action\""), "{}", stderr(&out));
}

// ---------------------------------------------------------------- memory card

#[test]
fn memory_persists_per_session_and_refuses_past_its_cap() {
    let env = TestEnv::new();
    assert_eq!(
        stdout(&env.run(&["memory", "read"])),
        "The memory note is empty.\n"
    );
    assert_eq!(code(&env.run(&["memory", "append", "uses tokio"])), 0);
    assert_eq!(code(&env.run(&["memory", "append", "CI is .ci/run"])), 0);
    assert_eq!(
        stdout(&env.run(&["memory", "read"])),
        "uses tokio\nCI is .ci/run\n"
    );
    assert_eq!(
        stdout(&env.run(&["--session", "other", "memory", "read"])),
        "The memory note is empty.\n"
    );
    let out = env.run(&["memory", "replace", "fresh start"]);
    assert_eq!(
        stdout(&out),
        "Replaced the memory note (11 bytes of 32768).\n"
    );
    // Past the cap: refused whole, the note untouched.
    let big = "x".repeat(32 * 1024 - 5);
    let out = env.run(&["memory", "append", &big]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("past its cap of 32768"),
        "{}",
        stderr(&out)
    );
    let (v, _) = env.run_json(&["memory", "read"]);
    assert_eq!(v["output"]["content"], "fresh start");
    assert_eq!(v["output"]["bytes"], 11);
    // Exactly at the cap is fine.
    let exact = "y".repeat(32 * 1024);
    assert_eq!(code(&env.run(&["memory", "replace", &exact])), 0);
    let out = env.run(&["memory", "append"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("\"content\""), "{}", stderr(&out));
}

#[test]
fn concurrent_appends_lose_nothing() {
    let env = TestEnv::new();
    let children: Vec<_> = (0..8)
        .map(|i| {
            common::bin_std()
                .current_dir(env.root())
                .args(["memory", "append", &format!("line {i}")])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let text = stdout(&env.run(&["memory", "read"]));
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        (0..8).map(|i| format!("line {i}")).collect::<Vec<_>>()
    );
}

// ---------------------------------------------------------------- plan markers

#[test]
fn plan_markers_and_plan_files() {
    let env = TestEnv::new();
    let (v, out) = env.run_json(&["enter_plan_mode"]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        v["output"],
        json!({"enterPlanMode": true, "applied": false})
    );
    assert!(stdout(&env.run(&["enter_plan_mode"])).starts_with("Plan mode: explore only."));
    let plan = "## Rewrite the Parser: phase 1\n\n1. read\n2. write\n";
    let (v, out) = env.run_json(&["exit_plan_mode", plan]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(v["output"]["exitPlan"], true);
    assert_eq!(v["output"]["plan"], plan);
    let path = std::path::PathBuf::from(v["output"]["path"].as_str().unwrap());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), plan);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let (stamp, rest) = name.split_once('-').unwrap();
    assert!(
        stamp
            .chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
    );
    assert_eq!(rest, "rewrite-the-parser-phase-1.md");
    assert!(path.starts_with(env.path(".indus-process/sessions/default/plans")));
    // The same plan again, at once: a second file, the first untouched.
    let (again, _) = env.run_json(&["exit_plan_mode", plan]);
    assert_ne!(again["output"]["path"], v["output"]["path"]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), plan);
    // Plans in another session go to its own folder; an empty plan is refused.
    let (other, _) = env.run_json(&["--session", "s2", "exit_plan_mode", "   \n"]);
    let other_path = other["output"]["path"].as_str().unwrap();
    assert!(other_path.contains("/sessions/s2/plans/"), "{other_path}");
    assert!(other_path.ends_with("-plan.md"), "{other_path}");
    let out = env.run(&["exit_plan_mode", "--plan", ""]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("\"plan\""), "{}", stderr(&out));
}

// ---------------------------------------------------------------- bg-process card

/// Stop every bg job of the sessions named, pass or fail.
struct BgJobs<'a> {
    env: &'a TestEnv,
    sessions: &'a [&'a str],
}

impl Drop for BgJobs<'_> {
    fn drop(&mut self) {
        for session in self.sessions {
            let (v, _) = self
                .env
                .run_json(&["--session", session, "bg-process", "list"]);
            for job in v["output"]["jobs"].as_array().into_iter().flatten() {
                if job["status"] == "running" {
                    let id = job["id"].as_str().unwrap();
                    self.env
                        .run(&["--session", session, "bg-process", "stop", id]);
                }
            }
        }
    }
}

fn bg_poll(env: &TestEnv, args: &[&str]) -> Value {
    let mut full = vec!["bg-process", "poll"];
    full.extend(args);
    let (v, out) = env.run_json(&full);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    v["output"].clone()
}

fn bg_wait_exit(env: &TestEnv, id: &str) {
    let done = common::wait_until(std::time::Duration::from_secs(10), || {
        bg_poll(env, &[id])["status"] != "running"
    });
    assert!(done, "{id} never ended");
}

#[test]
fn bg_process_keeps_a_ring_of_the_last_2000_lines() {
    let env = TestEnv::new();
    let _jobs = BgJobs {
        env: &env,
        sessions: &["default"],
    };
    let out = env.run(&[
        "bg-process",
        "start",
        "seq 1 5000 | sed 's/^/line /'; echo oops >&2",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("Started bg-1 (pid "),
        "{}",
        stdout(&out)
    );
    bg_wait_exit(&env, "bg-1");
    let polled = bg_poll(&env, &["bg-1"]);
    let lines: Vec<&str> = polled["stdout"].as_str().unwrap().lines().collect();
    assert_eq!(lines.len(), 2000);
    assert_eq!(lines[0], "line 3001");
    assert_eq!(lines[1999], "line 5000");
    assert_eq!(polled["stdoutDroppedLines"], 3000);
    assert_eq!(polled["stderr"], "oops\n");
    assert_eq!(polled["exitCode"], 0);
    let text = stdout(&env.run(&["bg-process", "poll", "bg-1"]));
    assert!(
        text.contains("[bg-process: 3000 earlier lines left out; the ring keeps the last 2000 lines]\nline 3001\n"),
        "{}",
        &text[..300.min(text.len())]
    );
}

#[test]
fn bg_process_polls_since_the_last_poll_per_session() {
    let env = TestEnv::new();
    let _jobs = BgJobs {
        env: &env,
        sessions: &["default", "other"],
    };
    let gate = env.path("go");
    let command = format!(
        "echo first; while [ ! -e '{}' ]; do sleep 0.02; done; echo second",
        gate.display()
    );
    assert_eq!(code(&env.run(&["bg-process", "start", &command])), 0);
    let ok = common::wait_until(std::time::Duration::from_secs(10), || {
        bg_poll(&env, &["bg-1"])["stdout"] == "first\n"
    });
    assert!(ok);
    // Nothing new since that poll.
    let quiet = bg_poll(&env, &["bg-1", "--since-last"]);
    assert_eq!(quiet["stdout"], "");
    assert_eq!(quiet["status"], "running");
    std::fs::write(&gate, "").unwrap();
    // Each poll since the last gives only what is new: over the polls up to the
    // exit, "second" arrives once and alone (a poll may catch it just before
    // the job ends, and the next one then has nothing new).
    let mut seen = String::new();
    let ok = common::wait_until(std::time::Duration::from_secs(10), || {
        let p = bg_poll(&env, &["bg-1", "--since-last=true"]);
        seen.push_str(p["stdout"].as_str().unwrap_or_default());
        p["status"] == "exited"
    });
    assert!(ok, "the job never exited");
    assert_eq!(seen, "second\n", "the second line never arrived alone");
    // Without sinceLast, the whole ring again.
    assert_eq!(bg_poll(&env, &["bg-1"])["stdout"], "first\nsecond\n");
    // Another session has its own table: no bg-1 there, and its own numbering.
    let out = env.run(&["--session", "other", "bg-process", "poll", "bg-1"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("No job \"bg-1\""), "{}", stderr(&out));
    let out = env.run(&["--session", "other", "bg-process", "start", "sleep 30"]);
    assert!(
        stdout(&out).starts_with("Started bg-1 "),
        "{}",
        stdout(&out)
    );
    // The built-in process table does not see the card's jobs.
    assert_eq!(
        stdout(&env.run(&["process", "list"])),
        "No background jobs.\n"
    );
    let out = env.run(&["--session", "other", "bg-process", "stop", "bg-1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("Stopped bg-1 with SIGTERM"),
        "{}",
        stdout(&out)
    );
    let out = env.run(&["bg-process", "poll"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("\"id\""), "{}", stderr(&out));
}

#[test]
fn batch_reaches_the_cards_by_any_spelling() {
    let env = TestEnv::new();
    let calls = [
        json!({"id": 1, "name": "memory", "input": {"action": "append", "content": "from batch"}}),
        json!({"id": 2, "name": "BG_Process", "input": {"action": "list"}}),
        json!({"id": 3, "name": "todo", "input": {"action": "set", "items": [{"task": "t", "state": "active"}]}}),
        json!({"id": 4, "name": "memory", "input": {"action": "read"}}),
    ];
    let stdin: String = calls.iter().map(|c| format!("{c}\n")).collect();
    let out = env.cmd().arg("batch").write_stdin(stdin).output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let outcomes: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(outcomes.len(), 4);
    assert!(
        outcomes.iter().all(|o| o["is_error"] == false),
        "{outcomes:?}"
    );
    assert_eq!(outcomes[1]["output"], json!({"jobs": []}));
    assert_eq!(outcomes[2]["output"]["counts"]["active"], 1);
    assert_eq!(outcomes[3]["output"]["content"], "from batch");
}
