//! The planning family through the real binary: todo_set and todo_read, their
//! messages, the per-session store under `.indus-process/todos/`, and the CLI's ways
//! of passing `items` (flag, `--json`, standard input).

use crate::common;

use std::process::Stdio;

use common::{TestEnv, code, stderr, stdout};
use serde_json::{Value, json};

const THREE: &str = r#"[
  {"id": "a", "text": "Write the parser", "status": "done"},
  {"id": "b", "text": "Test it", "status": "active", "priority": "high"},
  {"id": "c", "text": "Ship", "status": "pending", "priority": "low"}
]"#;

const THREE_TEXT: &str = "3 items: 1 done, 1 active, 1 pending.\n[x] a: Write the parser\n[~] b: Test it (high)\n[ ] c: Ship (low)";

/// What a successful todo call printed for people (text mode), without the final
/// newline.
fn text_of(out: &std::process::Output) -> String {
    assert_eq!(code(out), 0, "{}", stderr(out));
    stdout(out).trim_end_matches('\n').to_string()
}

/// `todo_read`'s text for `env` (and any extra globals).
fn read_text(env: &TestEnv, globals: &[&str]) -> String {
    let mut args = globals.to_vec();
    args.push("todo_read");
    text_of(&env.run(&args))
}

// ---------------------------------------------------------------- validation

#[test]
fn every_validation_message_is_byte_exact() {
    let env = TestEnv::new();
    let item = |id: &str| format!(r#"{{"id":"{id}","text":"t","status":"pending"}}"#);
    let (a, b, c) = (item("a"), item("b"), item("c"));
    let cases: Vec<(String, &str)> = vec![
        (
            "{}".into(),
            "Missing \"items\": expected an array of {id, text, status} objects.",
        ),
        (
            r#"{"items":"a list"}"#.into(),
            "Invalid \"items\": expected an array of {id, text, status} objects, got the string \"a list\".",
        ),
        (
            r#"{"items":{"id":"a"}}"#.into(),
            "Invalid \"items\": expected an array of {id, text, status} objects, got an object.",
        ),
        (
            format!(r#"{{"items":[{a},{b},"c"]}}"#),
            "Invalid \"items[2]\": expected an object with id, text and status, got the string \"c\".",
        ),
        (
            r#"{"items":[{"text":"t","status":"done"}]}"#.into(),
            "Missing \"items[0].id\": expected a non-empty string.",
        ),
        (
            r#"{"items":[{"id":"","text":"t","status":"done"}]}"#.into(),
            "Invalid \"items[0].id\": expected a non-empty string, got an empty string.",
        ),
        (
            r#"{"items":[{"id":1,"text":"t","status":"done"}]}"#.into(),
            "Invalid \"items[0].id\": expected a non-empty string, got the number 1.",
        ),
        (
            r#"{"items":[{"id":"a","status":"done"}]}"#.into(),
            "Missing \"items[0].text\": expected a non-empty string.",
        ),
        (
            r#"{"items":[{"id":"a","text":"","status":"done"}]}"#.into(),
            "Invalid \"items[0].text\": expected a non-empty string, got an empty string.",
        ),
        (
            format!(r#"{{"items":[{a},{{"id":"b","text":"t"}}]}}"#),
            "Missing \"items[1].status\": expected one of \"pending\", \"active\", \"done\".",
        ),
        (
            format!(r#"{{"items":[{a},{{"id":"b","text":"t","status":"doing"}}]}}"#),
            "Invalid \"items[1].status\": expected one of \"pending\", \"active\", \"done\", got the string \"doing\".",
        ),
        (
            r#"{"items":[{"id":"a","text":"t","status":"done","priority":"urgent"}]}"#.into(),
            "Invalid \"items[0].priority\": expected one of \"low\", \"normal\", \"high\", got the string \"urgent\".",
        ),
        (
            format!(r#"{{"items":[{c},{a},{b},{a}]}}"#),
            "Invalid \"items[3].id\": \"a\" is already used by items[1]; ids must be unique.",
        ),
    ];
    for (input, want) in cases {
        let out = env.run(&["todo_set", "--json", &input]);
        assert_eq!(code(&out), 1, "{input}");
        assert_eq!(stderr(&out), format!("{want}\n"), "{input}");
        assert_eq!(stdout(&out), "", "{input}");
        let (outcome, out) = env.run_json(&["todo_set", "--json", &input]);
        assert_eq!(code(&out), 1);
        assert_eq!(outcome["is_error"], json!(true));
        assert_eq!(outcome["output"], json!(want));
    }
    // Nothing was saved by any of them.
    assert!(!env.path(".indus-process").exists());
}

#[test]
fn a_refused_set_keeps_the_previous_list_and_unknown_keys_are_refused() {
    let env = TestEnv::new();
    // A key the item schema does not name is refused, naming what an item takes.
    let stray = env.run(&[
        "todo_set",
        "--items",
        r#"[{"id":"a","text":"keep me","status":"active","note":"ignored"}]"#,
    ]);
    assert_eq!(code(&stray), 1);
    assert_eq!(
        stderr(&stray).trim_end(),
        "Invalid input for todo_set: unknown key \"items[0].note\". items[0] takes: id, text, status, priority."
    );
    let ok = env.run(&[
        "todo_set",
        "--items",
        r#"[{"id":"a","text":"keep me","status":"active"}]"#,
    ]);
    assert_eq!(code(&ok), 0, "{}", stderr(&ok));
    let refused = env.run(&[
        "todo_set",
        "--items",
        r#"[{"id":"b","text":"new","status":"done"},{"id":"b","text":"dup","status":"done"}]"#,
    ]);
    assert_eq!(code(&refused), 1);
    assert_eq!(
        read_text(&env, &[]),
        "1 item: 0 done, 1 active, 0 pending.\n[~] a: keep me"
    );
    let stored: Value =
        serde_json::from_str(&env.read_string(".indus-process/todos/default.json")).unwrap();
    assert_eq!(
        stored,
        json!({"items": [{"id": "a", "text": "keep me", "status": "active"}]})
    );
}

// ---------------------------------------------------------------- output

#[test]
fn set_then_read_across_invocations() {
    let env = TestEnv::new();
    let out = env.run(&["todo_set", "--items", THREE]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // People get the lines, no JSON: that is for programs (`--format json`).
    assert_eq!(stdout(&out), format!("Checklist updated.\n{THREE_TEXT}\n"));

    let out = env.run(&["todo_read"]);
    assert_eq!(code(&out), 0);
    // People get the lines; the record is for programs (`--format json`).
    assert_eq!(stdout(&out), format!("{THREE_TEXT}\n"));
    assert_eq!(read_text(&env, &[]), THREE_TEXT);
    // Reading twice changes nothing.
    let before = env.read("./.indus-process/todos/default.json");
    assert_eq!(read_text(&env, &[]), THREE_TEXT);
    assert_eq!(env.read(".indus-process/todos/default.json"), before);
    // Every spelling of the name reaches the tool.
    for spelling in ["TodoRead", "todo-read", "todoread"] {
        assert_eq!(text_of(&env.run(&[spelling])), THREE_TEXT, "{spelling}");
    }
}

#[test]
fn programs_get_the_checklist_as_a_record() {
    let env = TestEnv::new();
    let (outcome, out) = env.run_json(&["todo_set", "--json", &format!(r#"{{"items":{THREE}}}"#)]);
    assert_eq!(code(&out), 0);
    let items = json!([
        {"id": "a", "text": "Write the parser", "status": "done"},
        {"id": "b", "text": "Test it", "status": "active", "priority": "high"},
        {"id": "c", "text": "Ship", "status": "pending", "priority": "low"}
    ]);
    assert_eq!(
        outcome,
        json!({
            "id": "cli",
            "output": {"items": items, "counts": {"pending": 1, "active": 1, "done": 1}},
            "is_error": false
        })
    );
    // Key order is part of the shape.
    assert!(stdout(&out).contains(
        r#"{"items":[{"id":"a","text":"Write the parser","status":"done"},{"id":"b","text":"Test it","status":"active","priority":"high"}"#
    ));
    assert!(stdout(&out).contains(r#""counts":{"pending":1,"active":1,"done":1}}"#));
    let (outcome, _) = env.run_json(&["todo_read"]);
    assert_eq!(
        outcome["output"],
        json!({"items": items, "counts": {"pending": 1, "active": 1, "done": 1}})
    );
}

#[test]
fn an_empty_array_clears_and_an_empty_list_says_so() {
    let env = TestEnv::new();
    assert_eq!(read_text(&env, &[]), "The checklist is empty.");
    assert_eq!(code(&env.run(&["todo_set", "--items", THREE])), 0);
    let (outcome, out) = env.run_json(&["todo_set", "--items", "[]"]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        outcome["output"],
        json!({"items": [], "counts": {"pending": 0, "active": 0, "done": 0}})
    );
    assert_eq!(read_text(&env, &[]), "The checklist is empty.");
    let one = env.run(&[
        "todo_set",
        "--items",
        r#"[{"id":"x","text":"two\nlines","status":"pending","priority":"normal"}]"#,
    ]);
    assert_eq!(
        stdout(&one),
        "Checklist updated.\n1 item: 0 done, 0 active, 1 pending.\n[ ] x: two\\nlines\n"
    );
}

#[test]
fn a_long_checklist_is_clamped_in_both_blocks() {
    let env = TestEnv::new();
    let items: Vec<Value> = (0..50)
        .map(|i| json!({"id": format!("i{i}"), "text": "x".repeat(30), "status": "pending"}))
        .collect();
    let items = Value::Array(items).to_string();
    assert_eq!(code(&env.run(&["todo_set", "--items", &items])), 0);
    let text = text_of(&env.run(&["--max-bytes", "300", "todo_read"]));
    let (outcome, _) = env.run_json(&["--max-bytes", "300", "todo_read"]);
    assert!(text.starts_with("50 items: 0 done, 0 active, 50 pending.\n[ ] i0: "));
    // Cut between items: every line but the notice is a whole item, in order, and
    // the notice counts the rest.
    let lines: Vec<&str> = text.lines().collect();
    let (notice, items_shown) = (lines[lines.len() - 1], &lines[1..lines.len() - 1]);
    assert!(!items_shown.is_empty() && items_shown.len() < 50, "{text}");
    for (i, line) in items_shown.iter().enumerate() {
        assert_eq!(*line, format!("[ ] i{i}: {}", "x".repeat(30)));
    }
    assert_eq!(
        notice,
        format!(
            "[todo_read: {} rows left out to stay within the output ceiling]",
            50 - items_shown.len()
        )
    );
    assert!(text.len() <= 300);
    // The JSON block: the first items that fit in 300 bytes, the rest counted.
    let block = &outcome["output"];
    assert!(block.to_string().len() <= 300, "{block}");
    let shown = block["items"].as_array().unwrap();
    assert!(!shown.is_empty() && shown.len() < 50);
    assert_eq!(shown[0]["id"], "i0");
    assert_eq!(block["omitted"], json!(50 - shown.len()));
    assert_eq!(block["counts"]["pending"], json!(50));
    // Within the budget, the block is whole and has no "omitted".
    let (whole, _) = env.run_json(&["todo_read"]);
    let block = &whole["output"];
    assert_eq!(block["items"].as_array().unwrap().len(), 50);
    assert!(block.get("omitted").is_none());
}

// ---------------------------------------------------------------- sessions

#[test]
fn sessions_are_isolated_by_flag_and_by_env() {
    let env = TestEnv::new();
    let set = |session: &str, id: &str| {
        let items = format!(r#"[{{"id":"{id}","text":"in {session}","status":"pending"}}]"#);
        let out = env.run(&["--session", session, "todo_set", "--items", &items]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    };
    set("a", "1");
    set("b", "2");
    assert_eq!(
        read_text(&env, &["--session", "a"]),
        "1 item: 0 done, 0 active, 1 pending.\n[ ] 1: in a"
    );
    assert_eq!(
        read_text(&env, &["--session", "b"]),
        "1 item: 0 done, 0 active, 1 pending.\n[ ] 2: in b"
    );
    assert_eq!(read_text(&env, &[]), "The checklist is empty.");
    // INDUS_SESSION picks the session too; --session wins over it.
    let out = env
        .cmd()
        .env("INDUS_SESSION", "b")
        .args(["todo_read"])
        .output()
        .unwrap();
    assert!(text_of(&out).ends_with("[ ] 2: in b"));
    let out = env
        .cmd()
        .env("INDUS_SESSION", "b")
        .args(["--session", "a", "todo_read"])
        .output()
        .unwrap();
    assert!(text_of(&out).ends_with("[ ] 1: in a"));
    let out = env
        .cmd()
        .env("INDUS_SESSION", "env/session")
        .args(["todo_set", "--items", "[]"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0);
    for file in ["a.json", "b.json", "env%2Fsession.json"] {
        assert!(
            env.path(".indus-process/todos").join(file).is_file(),
            "{file}"
        );
    }
    assert!(!env.path(".indus-process/todos/default.json").exists());
}

#[test]
fn todo_read_on_a_fresh_folder_creates_nothing() {
    let env = TestEnv::new();
    let out = env.run(&["todo_read"]);
    assert_eq!(code(&out), 0);
    assert_eq!(stdout(&out), "The checklist is empty.\n");
    assert_eq!(std::fs::read_dir(env.root()).unwrap().count(), 0);
}

#[test]
fn a_corrupt_checklist_is_an_error_naming_the_file_and_is_left_alone() {
    let env = TestEnv::new();
    let file = env.write(".indus-process/todos/default.json", "{\"items\": [oops");
    let name = file.display().to_string();
    for args in [
        vec!["todo_read"],
        vec!["todo_set", "--items", "[]"],
        vec!["todo_set", "--items", THREE],
    ] {
        let out = env.run(&args);
        assert_eq!(code(&out), 1, "{args:?}");
        let err = stderr(&out);
        assert!(err.contains(&name), "{args:?}: {err}");
        assert!(err.contains("is corrupt"), "{err}");
        assert!(
            err.starts_with("Cannot read the checklist: state file ")
                || err.starts_with("Cannot save the checklist: state file "),
            "{err}"
        );
        assert_eq!(stdout(&out), "");
        assert_eq!(
            env.read_string(".indus-process/todos/default.json"),
            "{\"items\": [oops"
        );
    }
    // Valid JSON holding an unknown status is corrupt too, never silently reset.
    env.write(
        ".indus-process/todos/default.json",
        r#"{"items":[{"id":"a","text":"t","status":"doing"}]}"#,
    );
    let out = env.run(&["todo_read"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains(&name));
}

#[test]
fn parallel_sets_on_distinct_sessions_all_persist() {
    let env = TestEnv::new();
    let children: Vec<_> = (0..32)
        .map(|i| {
            let items = format!(r#"[{{"id":"n{i}","text":"session {i}","status":"active"}}]"#);
            std::process::Command::new(env!("CARGO_BIN_EXE_indus-tool"))
                .env_remove("INDUS_SESSION")
                .env_remove("INDUS_FORMAT")
                .current_dir(env.root())
                .args(["--session", &format!("s{i}"), "todo_set", "--items", &items])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn indus-tool")
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "session s{i}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    for i in 0..32 {
        let session = format!("s{i}");
        assert_eq!(
            read_text(&env, &["--session", &session]),
            format!("1 item: 0 done, 1 active, 0 pending.\n[~] n{i}: session {i}")
        );
    }
    let files = std::fs::read_dir(env.path(".indus-process/todos"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .count();
    assert_eq!(files, 32);
}

// ---------------------------------------------------------------- the command line

#[test]
fn items_come_from_stdin_when_no_other_source_gives_them() {
    let env = TestEnv::new();
    let out = env
        .cmd()
        .args(["todo_set"])
        .write_stdin(THREE)
        .output()
        .unwrap();
    assert_eq!(text_of(&out), format!("Checklist updated.\n{THREE_TEXT}"));
    assert_eq!(read_text(&env, &[]), THREE_TEXT);
    // A flag (or --json) wins; stdin is then left unread.
    let out = env
        .cmd()
        .args(["todo_set", "--items", "[]"])
        .write_stdin("not json")
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // `--json -` reads the whole input object from stdin instead.
    let out = env
        .cmd()
        .args(["todo_set", "--json", "-"])
        .write_stdin(format!(r#"{{"items":{THREE}}}"#))
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(read_text(&env, &[]), THREE_TEXT);
    // Empty or blank stdin gives nothing: the tool reports the key as missing.
    for blank in ["", "  \n"] {
        let out = env
            .cmd()
            .arg("todo_set")
            .write_stdin(blank)
            .output()
            .unwrap();
        assert_eq!(code(&out), 1);
        assert_eq!(
            stderr(&out),
            "Missing \"items\": expected an array of {id, text, status} objects.\n"
        );
    }
    // Stdin that is not JSON is a usage error, as a malformed --items is.
    let out = env
        .cmd()
        .arg("todo_set")
        .write_stdin("[oops")
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with("indus-tool: error: stdin for \"items\": malformed JSON: "),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["todo_set", "--items", "[oops"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).starts_with("indus-tool: error: --items: malformed JSON: "));
    // Valid JSON of the wrong shape reaches the tool's own validation.
    let out = env
        .cmd()
        .arg("todo_set")
        .write_stdin("{}")
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "Invalid \"items\": expected an array of {id, text, status} objects, got an object.\n"
    );
    assert_eq!(read_text(&env, &[]), THREE_TEXT);
}

#[test]
fn the_todo_pair_is_outside_the_read_only_collection() {
    let env = TestEnv::new();
    for args in [vec!["todo_set", "--items", "[]"], vec!["todo_read"]] {
        let tool = args[0];
        let mut all = vec!["--collection", "read-only"];
        all.extend(args);
        let out = env.run(&all);
        assert_eq!(code(&out), 1);
        assert_eq!(
            stderr(&out),
            format!("This session exposes no tool called \"{tool}\".\n")
        );
    }
    let out = env.run(&["--collection", "coding", "todo_read"]);
    assert_eq!(code(&out), 0);
}
