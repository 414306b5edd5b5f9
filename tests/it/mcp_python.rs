//! The MCP client and the aggregator against the official Python SDK, on both
//! ends: `tests/peers/py_server.py` is a server written with the SDK (structured
//! output, nested models whose schema has `$defs`/`$ref`/`anyOf`, an image
//! between two texts, a 20 MiB text, progress and log notices), and
//! `tests/peers/py_client.py` is the SDK's client, whose view of a call is the
//! reference: every face of a grafted call must carry what it receives, and
//! `indus-tool mcp` re-exporting the server must look to it exactly like the
//! server itself.
//!
//! `.ci/run` installs the SDK into a virtualenv, `target/mcp-peers/venv`
//! (`INDUS_MCP_PEERS` names the folder); without it the tests say SKIPPED, and
//! fail under `CI=true`.

use crate::common;

use std::path::{Path, PathBuf};

use common::{TestEnv, code, stderr, stdout};
use serde_json::{Value, json};

/// The virtualenv's python with the SDK importable, if installed.
fn python() -> Option<PathBuf> {
    let python = common::mcp_peers_dir().join("venv/bin/python");
    let ok = std::process::Command::new(&python)
        .args(["-c", "import mcp.server.mcpserver, mcp.client.stdio"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        common::missing(
            &format!(
                "the official Python MCP SDK is not installed in {} (.ci/run installs it)",
                python.display()
            ),
            &format!(
                "MCP Python SDK: no {} with pip's `mcp` (python3 -m venv DIR/venv && DIR/venv/bin/pip install mcp; INDUS_MCP_PEERS=DIR)",
                python.display()
            ),
        );
        return None;
    }
    Some(python)
}

fn peer_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/peers")
        .join(name)
}

/// What the SDK's client receives from the stdio server `command`: the tools,
/// each call's result, progress notices per call, and the log notices.
fn sdk_client(python: &Path, command: &[&std::ffi::OsStr], calls: &Value) -> Value {
    let out = assert_cmd::Command::new(python)
        .arg(peer_file("py_client.py"))
        .args(command)
        .env("INDUS_MCP_PEERS", "")
        .write_stdin(calls.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the SDK client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A project grafting the SDK server as `py`, its tool list refreshed.
fn grafted(python: &Path) -> TestEnv {
    let env = TestEnv::new();
    env.write(
        ".indusvx/mcp.json",
        json!({"mcpServers": {"py": {"command": python, "args": [peer_file("py_server.py")]}}})
            .to_string(),
    );
    // A project's MCP config is used once the user trusted it.
    let out = env.run(&["trust", ".indusvx/mcp.json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = env.run(&["mcp", "refresh"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    env
}

fn order() -> Value {
    json!({"customer": "Ada", "items": [{"sku": "a-1", "qty": 2}, {"sku": "b-2", "qty": 3}],
           "ship_to": {"city": "Paris"}})
}

/// The calls made of the server, each face in turn; `big` answers `mib` MiB.
fn calls(mib: u64) -> Vec<(&'static str, Value)> {
    vec![
        ("total", json!({"order": order()})),
        ("picture", json!({})),
        ("big", json!({ "mib": mib })),
        ("slow", json!({"steps": 3})),
    ]
}

/// The blocks of a `--format json` / `batch` output, undoing the one-block
/// shorthands (a lone text is a string, a lone JSON block its value).
fn blocks(output: &Value) -> Vec<Value> {
    match output {
        Value::String(s) => vec![json!({"kind": "text", "text": s})],
        Value::Array(items)
            if items.iter().all(|b| {
                b.get("kind").is_some() && b.as_object().is_some_and(|o| o.len() == 2)
            }) =>
        {
            items.clone()
        }
        other => vec![json!({"kind": "json", "value": other})],
    }
}

/// What the SDK received, as the JSON face's blocks: texts as texts, other
/// content as its MCP JSON, and the structured content once (a text that only
/// repeats it is not a block of its own). Texts beside one record (no media)
/// are the record alone, as for every tool (`kernel::program_view`: the texts
/// say for people what the record holds).
fn expected_blocks(result: &Value) -> Vec<Value> {
    let structured = result.get("structuredContent");
    let mut out: Vec<Value> = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| match c["type"].as_str() {
            Some("text") => {
                let text = c["text"].as_str().unwrap();
                let repeats = structured.is_some()
                    && serde_json::from_str::<Value>(text).ok().as_ref() == structured;
                (!repeats).then(|| json!({"kind": "text", "text": text}))
            }
            _ => Some(json!({"kind": "json", "value": c})),
        })
        .collect();
    if let Some(s) = structured {
        out.push(json!({"kind": "json", "value": s}));
    }
    let records: Vec<&Value> = out.iter().filter(|b| b["kind"] == "json").collect();
    if let [record] = records.as_slice()
        && out.len() > 1
        && record["value"].get("type").is_none()
    {
        return vec![(*record).clone()];
    }
    out
}

/// Every block the SDK's client receives arrives in the command line's JSON
/// face and in `batch`, byte for byte (the 20 MiB text included), and the text
/// face prints the texts as they are.
#[test]
fn every_block_survives_every_face() {
    let Some(python) = python() else { return };
    let env = grafted(&python);
    let calls = calls(20);
    let script: Vec<Value> = calls.iter().map(|(n, a)| json!([n, a])).collect();
    let script_file = peer_file("py_server.py");
    let server = [python.as_os_str(), script_file.as_os_str()];
    let sdk = sdk_client(&python, &server, &Value::Array(script));

    let mut batch_input = String::new();
    for (i, (name, args)) in calls.iter().enumerate() {
        batch_input
            .push_str(&json!({"id": i, "name": format!("py__{name}"), "input": args}).to_string());
        batch_input.push('\n');
    }
    let out = env
        .cmd()
        .arg("batch")
        .write_stdin(batch_input)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let batch: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(batch.len(), calls.len());

    for (i, (name, args)) in calls.iter().enumerate() {
        let reference = &sdk["results"][i];
        assert_eq!(reference["isError"], false, "{name}: {reference}");
        let want = expected_blocks(reference);
        let tool = format!("py__{name}");
        let (v, out) = env.run_json(&[&tool, "--json", &args.to_string()]);
        assert_eq!(code(&out), 0, "{name}: {}", stderr(&out));
        assert_eq!(v["is_error"], false, "{name}");
        assert!(
            blocks(&v["output"]) == want,
            "{name}: the JSON face differs"
        );
        assert!(
            blocks(&batch[i]["output"]) == want,
            "{name}: the batch face differs"
        );
    }

    // Text: the 20 MiB text whole, as the SDK got it, then a line end.
    let text = sdk["results"][2]["content"][0]["text"].as_str().unwrap();
    assert!(text.len() > 20_000_000);
    let out = env.run(&["py__big", "mib=20"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        out.stdout == format!("{text}\n").as_bytes(),
        "py__big's text differs ({} bytes, {} expected)",
        out.stdout.len(),
        text.len() + 1
    );
    // Text around an image: both texts, the image as one line between them.
    let out = env.run(&["py__picture"]);
    let shown = stdout(&out);
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 3, "{shown}");
    assert_eq!(lines[0], "before the picture");
    assert!(lines[1].starts_with("[image/png, "), "{shown}");
    assert_eq!(lines[2], "after the picture");
    // Structured output, shown once, and it is the SDK's.
    let out = env.run(&[
        "py__total",
        "--json",
        &json!({"order": order()}).to_string(),
    ]);
    let shown: Value = serde_json::from_str(stdout(&out).trim()).expect("one JSON document");
    assert_eq!(shown, sdk["results"][0]["structuredContent"]);
}

/// `indus-tool mcp` as an aggregator looks to the SDK's client like the server
/// itself: the same schemas (`$defs`, `$ref`, `anyOf` kept), title,
/// annotations and output schema; the same results, content types and
/// structured content; the same progress under the client's own token, and
/// the same log notices — cold, and through the warm broker (`mcp up`).
#[test]
fn the_aggregator_is_transparent_to_the_sdk_client() {
    let Some(python) = python() else { return };
    let env = grafted(&python);
    // The SDK's own client takes some 25 s over a 20 MiB answer (the test
    // above makes it once); 2 MiB here.
    let direct_calls: Vec<Value> = calls(2).iter().map(|(n, a)| json!([n, a])).collect();
    let proxied_calls: Vec<Value> = calls(2)
        .iter()
        .map(|(n, a)| json!([format!("py__{n}"), a]))
        .collect();
    let script_file = peer_file("py_server.py");
    let server = [python.as_os_str(), script_file.as_os_str()];
    let direct = sdk_client(&python, &server, &Value::Array(direct_calls));
    assert_eq!(direct["progress"][3].as_array().unwrap().len(), 3);
    assert_eq!(direct["logs"].as_array().unwrap().len(), 3);

    // The SDK starts a server with an environment of its own making: the
    // host's MCP configs stay out as in every test (see common::bin_std).
    let bin = assert_cmd::cargo::cargo_bin("indus-tool");
    let home = format!("HOME={}", common::no_home().display());
    let xdg = format!(
        "XDG_CONFIG_HOME={}",
        common::no_home().join(".config").display()
    );
    let aggregator = [
        "env".as_ref(),
        home.as_ref(),
        xdg.as_ref(),
        bin.as_os_str(),
        "--cwd".as_ref(),
        env.root().as_os_str(),
        "mcp".as_ref(),
    ];
    let check = |through: &Value, how: &str| {
        for tool in direct["tools"].as_array().unwrap() {
            let name = format!("py__{}", tool["name"].as_str().unwrap());
            let proxied = through["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == name)
                .unwrap_or_else(|| panic!("{how}: {name} is not listed"));
            for key in [
                "title",
                "description",
                "inputSchema",
                "outputSchema",
                "annotations",
            ] {
                assert_eq!(proxied.get(key), tool.get(key), "{how}: {name}'s {key}");
            }
        }
        assert!(
            through["results"] == direct["results"],
            "{how}: the results differ"
        );
        assert_eq!(through["progress"], direct["progress"], "{how}: progress");
        assert_eq!(through["logs"], direct["logs"], "{how}: log notices");
    };
    let cold = sdk_client(&python, &aggregator, &Value::Array(proxied_calls.clone()));
    check(&cold, "cold");

    let out = env.run(&["mcp", "up"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let warm = sdk_client(&python, &aggregator, &Value::Array(proxied_calls));
    let _ = env.run(&["mcp", "down"]);
    check(&warm, "through the warm broker");
}

/// The virtualenv's python with OpenAI's agent framework importable, if installed.
fn agents_python() -> Option<PathBuf> {
    let python = python()?;
    let ok = std::process::Command::new(&python)
        .args(["-c", "import agents.mcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        common::missing(
            &format!(
                "OpenAI's agent framework is not installed in {} (.ci/run installs it)",
                python.display()
            ),
            "openai-agents: not in the MCP peers' venv (DIR/venv/bin/pip install openai-agents; INDUS_MCP_PEERS=DIR)",
        );
        return None;
    }
    Some(python)
}

/// Every profile's tools load in strict mode through openai-agents' own MCP
/// loader (`MCPUtil.get_function_tools` with strict schemas, which falls back
/// to a non-strict tool when `ensure_strict_json_schema` refuses a schema), and
/// keep to Anthropic's (an object at the root) and Gemini's function-declaration
/// rules (one type a key, the OpenAPI subset). Before issue 41 four tools of the
/// default profile (todo_read, enter_plan_mode, time: no parameters;
/// saas-action: an open object) fell back, and five buddy keys had several types.
#[test]
fn every_profile_converts_to_strict_mode_in_openai_agents() {
    let Some(python) = agents_python() else {
        return;
    };
    let env = TestEnv::new();
    let out = assert_cmd::Command::new(&python)
        .arg(peer_file("strict_schemas.py"))
        .arg(assert_cmd::cargo::cargo_bin("indus-tool"))
        .arg(env.root())
        .args(["all", "authoring", "survey", "buddy", "all:checkpoint"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "strict_schemas.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    for (profile, tools) in [
        ("all", 25),
        ("authoring", 8),
        ("survey", 17),
        ("buddy", 12),
        ("all:checkpoint", 28),
    ] {
        let r = &report[profile];
        assert_eq!(r["tools"], tools, "{profile}: {r}");
        assert_eq!(r["not_strict"], json!([]), "{profile}: {r}");
        assert_eq!(r["anthropic"], json!([]), "{profile}: {r}");
        assert_eq!(r["gemini"], json!([]), "{profile}: {r}");
    }
}

/// The official SDK's client checks every successful result of a tool that
/// lists an `outputSchema` against it (and fails a call whose result has no
/// `structuredContent`): a round of calls of the built-ins through it, each
/// answered, none refused by the SDK.
#[test]
fn the_sdk_validates_every_builtin_result_against_its_output_schema() {
    let Some(python) = python() else {
        return;
    };
    let env = TestEnv::new();
    env.write(
        "src/lib.rs",
        "pub fn greet() -> &'static str {\n    \"hi\"\n}\n",
    );
    env.write("notes.txt", "alpha\nbeta\n");
    let patch = "*** Begin Patch\n*** Add File: added.txt\n+new\n*** Update File: notes.txt\n@@\n-beta\n+gamma\n*** End Patch\n";
    let calls = json!([
        ["read", {"path": "src/lib.rs"}],
        ["read", {"path": "notes.txt", "offset": 2, "limit": 1}],
        ["ls", {"path": "."}],
        ["grep", {"pattern": "greet"}],
        ["grep", {"pattern": "greet", "outputMode": "count"}],
        ["grep", {"pattern": "nothing here"}],
        ["find", {"pattern": "*.rs"}],
        ["write", {"path": "new.txt", "content": "x\n"}],
        ["edit", {"path": "src/lib.rs", "oldText": "\"hi\"", "newText": "\"hello\""}],
        ["apply_patch", {"patch": patch}],
        ["bash", {"command": "echo ok"}],
        ["todo_set", {"items": [{"id": "1", "text": "t", "status": "active"}]}],
        ["todo_read", {}],
        ["todo", {"action": "set", "items": [{"task": "t", "state": "done"}]}],
        ["process", {"action": "start", "command": "echo job"}],
        ["process", {"action": "list"}],
        ["bg-process", {"action": "list"}],
        ["memory", {"action": "append", "content": "a fact"}],
        ["enter_plan_mode", {}],
        ["exit_plan_mode", {"plan": "# Plan\n1. do it"}],
        ["time", {}]
    ]);
    let server = assert_cmd::cargo::cargo_bin("indus-tool");
    let root = env.root().as_os_str();
    let command: Vec<&std::ffi::OsStr> = vec![
        server.as_os_str(),
        "--cwd".as_ref(),
        root,
        "--no-mcp".as_ref(),
        "mcp".as_ref(),
        "--no-gate".as_ref(),
    ];
    let seen = sdk_client(&python, &command, &calls);
    let results = seen["results"].as_array().unwrap();
    assert_eq!(results.len(), calls.as_array().unwrap().len());
    for (result, call) in results.iter().zip(calls.as_array().unwrap()) {
        let name = call[0].as_str().unwrap();
        let listed = seen["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap();
        assert!(
            listed.get("outputSchema").is_some(),
            "{name} lists no outputSchema"
        );
        if result["isError"] == true {
            // grep's "no match" is the one expected failure here.
            assert_eq!(name, "grep", "{name}: {result}");
            continue;
        }
        assert!(
            result.get("structuredContent").is_some(),
            "{name}: {result}"
        );
        // The text is sent once: no content item repeats the record.
        for item in result["content"].as_array().unwrap() {
            let text = item["text"].as_str().unwrap_or("");
            let repeats = serde_json::from_str::<Value>(text).ok().as_ref()
                == result.get("structuredContent");
            let lone = result["content"].as_array().unwrap().len() == 1;
            assert!(
                !repeats || lone,
                "{name} repeats its record as text: {result}"
            );
        }
    }
}
