//! Every tool's published output schema (`describe`/`schema`'s `outputSchema`) is
//! a valid JSON Schema, and every answer a program is given validates against it:
//! each built-in tool that can run here (no network: the web tools ask a local
//! server) is called through `batch` with several inputs, and each successful
//! outcome's `output` is checked with the `jsonschema` crate. Then `read`'s record
//! itself: the window fields, `nextOffset`, the hash `edit` accepts, the line
//! cut and the agents' default window.

use crate::common;

use std::collections::BTreeMap;
use std::io::Write;
use std::process::Stdio;

use common::http::{Reply, TestServer};
use common::{TestEnv, code, stdout};
use serde_json::{Value, json};

/// `schema` of a profile: name → outputSchema (absent: the tool answers text).
fn output_schemas(env: &TestEnv, profile: &str) -> BTreeMap<String, Option<Value>> {
    let out = env.run(&["--profile", profile, "schema"]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let all: Value = serde_json::from_slice(&out.stdout).expect("schema prints JSON");
    all.as_array()
        .expect("an array of descriptors")
        .iter()
        .map(|d| {
            (
                d["name"].as_str().expect("a name").to_string(),
                d.get("outputSchema").cloned(),
            )
        })
        .collect()
}

/// The outcomes of `calls` run through one `batch` (ids are the calls' indexes).
fn batch(
    env: &TestEnv,
    globals: &[&str],
    calls: &[(&str, Value)],
    envs: &[(&str, String)],
) -> Vec<Value> {
    let mut cmd = common::bin_std();
    cmd.current_dir(env.root())
        .arg("--cwd")
        .arg(env.root())
        .args(globals)
        .args(["batch", "--no-gate"]);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn batch");
    let mut input = String::new();
    for (i, (name, args)) in calls.iter().enumerate() {
        input.push_str(&json!({"id": i, "name": name, "input": args}).to_string());
        input.push('\n');
    }
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("feed batch");
    let out = child.wait_with_output().expect("batch ends");
    let mut outcomes: Vec<Value> = String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("an outcome line"))
        .collect();
    outcomes.sort_by_key(|o| o["id"].as_u64());
    assert_eq!(
        outcomes.len(),
        calls.len(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    outcomes
}

/// Every way `instance` breaks `schema`, one line each.
fn violations(schema: &Value, instance: &Value) -> Vec<String> {
    let validator = jsonschema::validator_for(schema).expect("the schema compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Check every schema is a JSON Schema, run `calls`, and check every successful
/// answer (and `bash`'s record of a failed command) against its tool's schema.
/// Returns the tools whose answers were checked.
fn check_calls(
    env: &TestEnv,
    profile: &str,
    calls: &[(&str, Value)],
    envs: &[(&str, String)],
) -> Vec<String> {
    let schemas = output_schemas(env, profile);
    for (name, schema) in &schemas {
        if let Some(schema) = schema {
            if let Err(e) = jsonschema::meta::validate(schema) {
                panic!("the output schema of {name} is not a valid JSON Schema: {e}");
            }
            jsonschema::validator_for(schema)
                .unwrap_or_else(|e| panic!("the output schema of {name} does not compile: {e}"));
        }
    }
    let outcomes = batch(env, &["--profile", profile], calls, envs);
    let mut checked = Vec::new();
    for ((name, input), outcome) in calls.iter().zip(&outcomes) {
        let output = &outcome["output"];
        let failed_command = *name == "bash" && output.is_object();
        if outcome["is_error"] == true && !failed_command {
            panic!("{name} {input} failed: {output}");
        }
        match &schemas[*name] {
            Some(schema) => {
                let found = violations(schema, output);
                assert!(
                    found.is_empty(),
                    "{name} {input} answered {output}, which breaks its output schema:\n{}",
                    found.join("\n")
                );
            }
            None => assert!(
                output.is_string(),
                "{name} publishes no output schema, so it must answer text; it gave {output}"
            ),
        }
        checked.push(name.to_string());
    }
    checked
}

fn web_server() -> TestServer {
    let ddg = include_str!("../fixtures/web/ddg-classic.html");
    TestServer::start(move |req| match req.path() {
        "/html/" => Reply::ok("text/html; charset=UTF-8", ddg),
        "/page" => Reply::ok(
            "text/html; charset=utf-8",
            "<html><head><title>A page</title></head><body><h1>Hello</h1><p>Some text.</p></body></html>",
        ),
        _ => Reply::ok("text/plain", "plain body\n"),
    })
}

#[test]
fn every_answer_of_every_builtin_tool_validates_against_its_output_schema() {
    let env = TestEnv::new();
    env.write(
        "src/main.rs",
        "fn main() {\n    // TODO: more\n    println!(\"hi\");\n}\n",
    );
    env.write(
        "src/lib.rs",
        "pub fn answer() -> u32 {\n    42 // TODO\n}\n",
    );
    env.write("crlf.txt", "one\r\ntwo\r\n");
    env.write("bad.txt", b"ok\n\xff\xfe\n");
    env.write("empty.txt", "");
    env.write(".hidden", "h\n");
    env.write("long.txt", format!("short\n{}\n", "y".repeat(1200)));
    env.write(
        "many.txt",
        (1..=700).map(|i| format!("line {i}\n")).collect::<String>(),
    );
    env.write("edit.txt", "alpha\nbeta\ngamma\n");
    env.write("patch.txt", "one\ntwo\nthree\n");
    env.write("gone.txt", "bye\n");
    let server = web_server();
    let sha_of_edit = {
        use sha2::Digest;
        let d = sha2::Sha256::digest(b"alpha\nbeta\ngamma\n");
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let unified = "--- a/patch.txt\n+++ b/patch.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    let codex = "*** Begin Patch\n*** Add File: added.txt\n+new\n*** Update File: patch.txt\n@@\n one\n-TWO\n+2\n*** Delete File: gone.txt\n*** End Patch";
    env.write(
        "lsp.c",
        "int add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2) + unknown; }\n",
    );
    env.write(
        "lsp-base.json",
        "{\"format\": \"indus-tool diagnose baseline 1\", \"rows\": []}\n",
    );
    let calls: Vec<(&str, Value)> = vec![
        ("read", json!({"path": "src/main.rs"})),
        ("read", json!({"path": "many.txt"})),
        ("read", json!({"path": "many.txt", "offset": 690})),
        ("read", json!({"path": "many.txt", "offset": 5, "limit": 3})),
        ("read", json!({"path": "long.txt"})),
        ("read", json!({"path": "empty.txt"})),
        ("read", json!({"path": "crlf.txt"})),
        ("read", json!({"path": "bad.txt"})),
        (
            "write",
            json!({"path": "new/file.txt", "content": "written\n"}),
        ),
        ("write", json!({"path": "empty2.txt"})),
        (
            "edit",
            json!({"path": "edit.txt", "oldText": "beta", "newText": "BETA", "expectSha256": sha_of_edit}),
        ),
        (
            "edit",
            json!({"path": "edit.txt", "edits": [
                {"oldText": "alpha", "newText": "ALPHA"},
                {"oldText": "gamma  ", "newText": "GAMMA"}
            ]}),
        ),
        ("apply_patch", json!({"patch": unified, "check": true})),
        ("apply_patch", json!({"patch": unified})),
        ("apply_patch", json!({"patch": codex})),
        ("ls", json!({})),
        ("ls", json!({"path": "src", "showHidden": true})),
        ("ls", json!({"limit": 1})),
        ("grep", json!({"pattern": "TODO"})),
        ("grep", json!({"pattern": "TODO", "context": 1})),
        ("grep", json!({"pattern": "TODO", "outputMode": "files"})),
        ("grep", json!({"pattern": "TODO", "outputMode": "count"})),
        ("grep", json!({"pattern": "nothing-matches-this"})),
        ("find", json!({"pattern": "*.rs"})),
        ("find", json!({"pattern": "*", "type": "dir"})),
        ("bash", json!({"command": "echo out; echo err >&2"})),
        ("bash", json!({"command": "exit 3"})),
        ("process", json!({"action": "start", "command": "cat"})),
        (
            "process",
            json!({"action": "write", "id": "job-1", "input": "fed\n"}),
        ),
        ("bash", json!({"command": "sleep 0.3"})),
        ("process", json!({"action": "poll", "id": "job-1"})),
        ("process", json!({"action": "list"})),
        ("process", json!({"action": "stop", "id": "job-1"})),
        ("process", json!({"action": "poll", "id": "job-1"})),
        ("process", json!({"action": "remove", "id": "job-1"})),
        ("process", json!({"action": "list"})),
        (
            "todo_set",
            json!({"items": [
                {"id": "1", "text": "first", "status": "done"},
                {"id": "2", "text": "second", "status": "active", "priority": "high"}
            ]}),
        ),
        ("todo_read", json!({})),
        ("todo_set", json!({"items": []})),
        ("websearch", json!({"query": "foo", "count": 3})),
        ("webfetch", json!({"url": server.url("/page")})),
        (
            "webfetch",
            json!({"url": server.url("/page"), "format": "markdown"}),
        ),
        (
            "webfetch",
            json!({"url": server.url("/other"), "format": "html"}),
        ),
        (
            "todo",
            json!({"action": "set", "items": [
                {"task": "a", "state": "pending"},
                {"task": "b", "state": "dropped", "weight": "low"}
            ]}),
        ),
        ("todo", json!({"action": "read"})),
        (
            "bg-process",
            json!({"action": "start", "command": "echo hello"}),
        ),
        ("bash", json!({"command": "sleep 0.3"})),
        ("bg-process", json!({"action": "poll", "id": "bg-1"})),
        (
            "bg-process",
            json!({"action": "poll", "id": "bg-1", "sinceLast": true}),
        ),
        ("bg-process", json!({"action": "list"})),
        ("bg-process", json!({"action": "stop", "id": "bg-1"})),
        ("memory", json!({"action": "read"})),
        ("memory", json!({"action": "replace", "content": "note\n"})),
        ("memory", json!({"action": "append", "content": "more\n"})),
        ("enter_plan_mode", json!({})),
        ("exit_plan_mode", json!({"plan": "1. do it"})),
        ("time", json!({})),
        ("outline", json!({"path": "lsp.c"})),
        ("outline", json!({"map": true, "budget": 300})),
        ("sgrep", json!({"pattern": "add($A, $B)", "lang": "c"})),
        (
            "sgrep",
            json!({"pattern": "add($A, $B)", "lang": "c", "outputMode": "count"}),
        ),
        (
            "sgrep",
            json!({"pattern": "add($A, $B)", "path": "lsp.c", "rewrite": "add($B, $A)", "check": true}),
        ),
        (
            "grep",
            json!({"pattern": "a,\\n", "multiline": true, "offset": 1}),
        ),
        // clangd, which .ci/run installs, is the server of these calls.
        ("diagnose", json!({"paths": ["lsp.c"]})),
        (
            "diagnose",
            json!({"paths": ["lsp.c"], "baseline": "lsp-base.json"}),
        ),
        ("lsp", json!({"action": "symbols", "at": "lsp.c"})),
        ("lsp", json!({"action": "definition", "at": "lsp.c:2:29"})),
        ("lsp", json!({"action": "hover", "at": "lsp.c:2:29"})),
        (
            "lsp",
            json!({"action": "rename", "at": "lsp.c:1:5", "newName": "plus", "check": true}),
        ),
        ("lsp", json!({"action": "status"})),
        ("lsp", json!({"action": "stop"})),
    ];
    // The test server is on 127.0.0.1, which webfetch refuses unless allowed.
    let envs = [
        ("INDUS_WEBSEARCH_URL", server.url("/html/")),
        ("INDUS_ALLOW_PRIVATE_NETWORK", "1".to_string()),
    ];
    let checked = check_calls(&env, "all", &calls, &envs);
    // Every tool of the profile but the two that need a service was called.
    let schemas = output_schemas(&env, "all");
    for name in schemas.keys() {
        if name == "task" || name == "saas-action" {
            assert!(schemas[name].is_some(), "{name} publishes a record schema");
            continue;
        }
        assert!(checked.contains(name), "{name} was not exercised");
    }
    // The edit guarded by the hash was made, and the patches applied.
    assert_eq!(env.read_string("edit.txt"), "ALPHA\nBETA\nGAMMA\n");
    assert_eq!(env.read_string("patch.txt"), "one\n2\nthree\n");
}

#[test]
fn the_buddy_envelope_validates_against_the_wrapped_schemas() {
    let env = TestEnv::new();
    env.write("notes.txt", "hello\n");
    let server = web_server();
    let calls: Vec<(&str, Value)> = vec![
        ("time", json!({})),
        ("read_file", json!({"path": "notes.txt"})),
        ("write_file", json!({"path": "out.txt", "content": "x"})),
        (
            "run_shell",
            json!({"command": "echo hi", "risk": "low", "mutation": false, "privesc": false, "why": "a test"}),
        ),
        ("fetch_url", json!({"url": server.url("/other")})),
    ];
    // fetch_url's server is on 127.0.0.1, which is refused unless allowed.
    let envs = [("INDUS_ALLOW_PRIVATE_NETWORK", "1".to_string())];
    check_calls(&env, "buddy", &calls, &envs);
    // Every buddy tool is wrapped in the envelope, so every one has a schema.
    for (name, schema) in output_schemas(&env, "buddy") {
        let schema = schema.unwrap_or_else(|| panic!("{name} has no output schema"));
        assert_eq!(
            schema["required"],
            json!(["harness_timestamp", "result"]),
            "{name}"
        );
    }
}

#[test]
fn describe_prints_the_output_schema_beside_the_parameters() {
    let env = TestEnv::new();
    let out = env.run(&["describe", "read"]);
    let described: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let keys: Vec<&str> = described
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        &keys[..4],
        ["name", "description", "parameters", "outputSchema"]
    );
    assert!(
        described["outputSchema"]["required"]
            .as_array()
            .unwrap()
            .contains(&json!("nextOffset"))
    );
}

/// The command line's plain text face (a person's or a pipe's), not the exact
/// agent view the tests' environment asks for.
fn plain(env: &TestEnv, args: &[&str]) -> String {
    let out = env
        .cmd()
        .env_remove("INDUS_EXACT")
        .args(args)
        .output()
        .expect("run");
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    stdout(&out)
}

fn read_json(env: &TestEnv, args: &[&str]) -> Value {
    let (v, out) = env.run_json(&[&["read"], args].concat());
    assert_eq!(code(&out), 0, "{v}");
    v["output"].clone()
}

#[test]
fn reads_record_states_the_window_and_the_hash_edit_accepts() {
    let env = TestEnv::new();
    let content: String = (1..=10).map(|i| format!("l{i}\n")).collect();
    env.write("f.txt", &content);
    let first = read_json(&env, &["f.txt", "--offset", "3", "--limit", "4"]);
    assert_eq!(first["lines"], json!(["l3", "l4", "l5", "l6"]));
    assert_eq!(
        (&first["startLine"], &first["endLine"], &first["totalLines"]),
        (&json!(3), &json!(6), &json!(10))
    );
    assert_eq!(first["nextOffset"], 7);
    assert_eq!(first["remainingLines"], 4);
    assert_eq!(first["bytes"], content.len());
    let last = read_json(&env, &["f.txt", "--offset", "7"]);
    assert_eq!(last["endLine"], 10);
    assert_eq!(last["nextOffset"], Value::Null, "null at the end");
    assert_eq!(
        last["sha256"], first["sha256"],
        "the whole file's hash, whatever the window"
    );

    // The hash is the one edit's expectSha256 takes…
    let sha = first["sha256"].as_str().unwrap().to_string();
    let (v, out) = env.run_json(&[
        "edit",
        "f.txt",
        "--old-text",
        "l5",
        "--new-text",
        "L5",
        "--expect-sha256",
        &sha,
    ]);
    assert_eq!(code(&out), 0, "{v}");
    // …and, the file having changed, no longer matches it.
    let (v, out) = env.run_json(&[
        "edit",
        "f.txt",
        "--old-text",
        "l6",
        "--new-text",
        "L6",
        "--expect-sha256",
        &sha,
    ]);
    assert_eq!(code(&out), 1, "{v}");
    let now = read_json(&env, &["f.txt"]);
    assert_ne!(now["sha256"], json!(sha));
    // The text face still has no record and the seed's rows.
    let text = plain(&env, &["read", "f.txt", "--limit", "2"]);
    assert_eq!(text, "     1\tl1\n     2\tl2\n");
}

#[test]
fn long_lines_are_cut_at_the_stated_width_for_agents_only() {
    let env = TestEnv::new();
    let long = "é".repeat(1234);
    env.write("m.js", format!("first\n{long}\nlast\n"));
    let r = read_json(&env, &["m.js"]);
    assert_eq!(r["lineWidth"], 500);
    assert_eq!(r["cutLines"], json!([{"line": 2, "cutChars": 734}]));
    assert_eq!(r["lines"][1].as_str().unwrap().chars().count(), 500);
    assert_eq!(r["lines"][2], "last");
    let exact = stdout(&env.run(&["--exact", "read", "m.js"]));
    assert!(
        exact.starts_with("Showing lines 1–3 of 3 in m.js. Line 2 is cut at 500 characters (734 characters not shown).\n"),
        "{exact}"
    );
    // A person's (or a pipe's) read shows the whole line.
    let whole = plain(&env, &["read", "m.js"]);
    assert!(whole.contains(&long), "the text face keeps whole lines");
    // Several cut lines are counted together.
    env.write("w.txt", format!("{0}\n{0}x\n", "a".repeat(600)));
    let r = read_json(&env, &["w.txt"]);
    assert_eq!(
        r["cutLines"],
        json!([{"line": 1, "cutChars": 100}, {"line": 2, "cutChars": 101}])
    );
    let exact = stdout(&env.run(&["--exact", "read", "w.txt"]));
    assert!(
        exact.starts_with("Showing lines 1–2 of 2 in w.txt. 2 lines are cut at 500 characters (lines 1, 2; 201 characters not shown).\n"),
        "{exact}"
    );
}

#[test]
fn agents_get_a_500_line_window_and_people_the_whole_budget() {
    let env = TestEnv::new();
    env.write(
        "big.txt",
        (1..=700).map(|i| format!("{i}\n")).collect::<String>(),
    );
    let r = read_json(&env, &["big.txt"]);
    assert_eq!(
        (&r["endLine"], &r["nextOffset"]),
        (&json!(500), &json!(501))
    );
    assert_eq!(r["lines"].as_array().unwrap().len(), 500);
    let exact = stdout(&env.run(&["--exact", "read", "big.txt"]));
    assert!(
        exact.starts_with(
            "Showing lines 1–500 of 700 in big.txt. 200 lines remain; continue with offset=501.\n"
        ),
        "{exact}"
    );
    // An asked limit is honoured past the default window.
    let r = read_json(&env, &["big.txt", "--limit", "600"]);
    assert_eq!(r["endLine"], 600);
    // The plain text face keeps the seed's window: every line within the budget.
    let whole = plain(&env, &["read", "big.txt"]);
    assert_eq!(whole.lines().count(), 700);
    // batch is an agent's face too.
    let out = batch(&env, &[], &[("read", json!({"path": "big.txt"}))], &[]);
    assert_eq!(out[0]["output"]["endLine"], 500);
}

#[test]
fn a_file_larger_than_edit_changes_is_read_without_a_hash() {
    let env = TestEnv::new();
    // Sparse: one line, then zeros (past the 8 KiB binary sniff) to just over 128 MiB.
    let head = format!(
        "first line\n{}",
        format!("{}\n", "x".repeat(99)).repeat(100)
    );
    let path = env.write("huge.txt", head);
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(128 * 1024 * 1024 + 1).unwrap();
    let r = read_json(&env, &["huge.txt", "--limit", "1"]);
    assert_eq!(r["lines"], json!(["first line"]));
    assert_eq!(r["sha256"], Value::Null, "no edit could use it");
    let schemas = output_schemas(&env, "all");
    let schema = schemas["read"].as_ref().unwrap();
    assert_eq!(violations(schema, &r), Vec::<String>::new());
    // At the limit it is hashed.
    file.set_len(128 * 1024 * 1024).unwrap();
    let r = read_json(&env, &["huge.txt", "--limit", "1"]);
    assert_eq!(r["sha256"].as_str().map(str::len), Some(64));
}

#[test]
fn task_and_saas_action_answers_validate_against_their_schemas() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    // A sub-agent CLI that answers at once, configured for this project and trusted.
    let agent = env.write("agent.sh", "#!/bin/sh\necho \"done: $1\"\n");
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
    env.write(
        ".indusvx/agents.json",
        json!({"agents": {"fake": {"command": [agent]}}}).to_string(),
    );
    assert_eq!(code(&env.run(&["trust", ".indusvx/agents.json"])), 0);
    // A Composio stand-in: the tool list, and an action's result.
    let composio = TestServer::start(|req| {
        if req.path().starts_with("/api/v3/tools/execute/") {
            Reply::ok(
                "application/json",
                json!({"data": {"number": 42}, "error": null, "successful": true}).to_string(),
            )
        } else {
            Reply::ok(
                "application/json",
                json!({"items": [{"slug": "GITHUB_X", "name": "X", "description": "d", "toolkit": {"slug": "github"}}], "next_cursor": null}).to_string(),
            )
        }
    });
    let calls: Vec<(&str, Value)> = vec![
        ("task", json!({"objective": "fix the bug"})),
        ("saas-action", json!({"action": "discover"})),
        (
            "saas-action",
            json!({"action": "discover", "limit": 1, "query": "x"}),
        ),
        (
            "saas-action",
            json!({"action": "execute", "slug": "GITHUB_X", "arguments": {"a": 1}}),
        ),
    ];
    let envs = [
        ("COMPOSIO_API_KEY", "test-key".to_string()),
        ("COMPOSIO_BASE_URL", composio.url("")),
    ];
    check_calls(&env, "all", &calls, &envs);
}

/// The checkpoint tools' answers hold to their published schemas, on a turn whose
/// command made a folder and a link, edited one file, changed a mode and deleted
/// another: the list, the diff (with what commands' checkpoints leave out) and
/// the rewind.
#[test]
fn the_checkpoint_tools_answers_hold_to_their_schemas() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    env.write("gone.txt", "bye\n");
    env.write(".gitignore", "*.log\n");
    env.write("x.log", "ignored\n");
    let out = env.run(&["--checkpoint", "schema"]);
    assert_eq!(code(&out), 0);
    let schemas: Value = serde_json::from_slice(&out.stdout).unwrap();
    let schema_of = |name: &str| -> Value {
        schemas
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["name"] == name)
            .and_then(|d| d.get("outputSchema").cloned())
            .unwrap_or_else(|| panic!("{name} publishes no output schema"))
    };
    let calls = [
        (
            "bash",
            json!({"command": "echo two > a.txt && mkdir d && ln -s a.txt l && chmod 600 a.txt && rm gone.txt"}),
        ),
        ("write", json!({"path": "d/new.txt", "content": "new\n"})),
        ("checkpoint_list", json!({})),
        ("checkpoint_diff", json!({"turn": "t1"})),
        ("checkpoint_rewind", json!({"turn": "t1"})),
    ];
    let outcomes = batch(&env, &["--checkpoint", "--turn", "t1"], &calls, &[]);
    for ((name, input), outcome) in calls.iter().zip(&outcomes) {
        assert_eq!(outcome["is_error"], false, "{name} {input}: {outcome}");
        if name.starts_with("checkpoint_") {
            let found = violations(&schema_of(name), &outcome["output"]);
            assert!(
                found.is_empty(),
                "{name} answered {}:\n{}",
                outcome["output"],
                found.join("\n")
            );
        }
    }
    assert_eq!(
        outcomes[3]["output"]["notCovered"]["ignored"],
        json!(["x.log"])
    );
    assert_eq!(env.read_string("a.txt"), "one\n");
    assert_eq!(env.read_string("gone.txt"), "bye\n");
}
