//! The MCP client against servers nobody here wrote: npm's reference servers
//! `@modelcontextprotocol/server-everything` and `server-filesystem`, grafted and
//! called through every face. `.ci/run` installs them into `target/mcp-peers`
//! (`INDUS_MCP_PEERS` names the folder); without them the tests say SKIPPED, and
//! fail under `CI=true`.

use crate::common;

use std::path::PathBuf;

use common::{TestEnv, code, stderr, stdout};
use serde_json::{Value, json};

/// The folder holding `node_modules/.bin/mcp-server-everything`, if installed.
fn peers() -> Option<PathBuf> {
    let dir = common::mcp_peers_dir();
    let ok = dir.join("node_modules/.bin/mcp-server-everything").exists()
        && dir.join("node_modules/.bin/mcp-server-filesystem").exists();
    if !ok {
        common::missing(
            &format!(
                "npm's MCP reference servers are not installed in {} (.ci/run installs them)",
                dir.display()
            ),
            &format!(
                "MCP peers: npm's reference servers are not in {} (npm install --prefix DIR @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem; INDUS_MCP_PEERS=DIR)",
                dir.display()
            ),
        );
        return None;
    }
    Some(dir)
}

fn grafted(dir: &std::path::Path) -> TestEnv {
    let env = TestEnv::new();
    let bin = |name: &str| dir.join("node_modules/.bin").join(name);
    env.write(
        ".indusvx/mcp.json",
        json!({"mcpServers": {
            "everything": {"command": bin("mcp-server-everything")},
            "fs": {"command": bin("mcp-server-filesystem"), "args": [env.root()]}
        }})
        .to_string(),
    );
    // A project's MCP config is used once the user trusted it.
    let out = env.run(&["trust", ".indusvx/mcp.json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = env.run(&["mcp", "refresh"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    env
}

/// `get-tiny-image` answers text, image, text: text mode prints both texts with
/// the image as one line between them; `--format json` and `batch` keep all
/// three blocks, in order, the image's bytes whole.
#[test]
fn mixed_content_survives_every_face() {
    let Some(dir) = peers() else { return };
    let env = grafted(&dir);
    let out = env.run(&["everything__get-tiny-image"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[1].starts_with("[image/png, "), "{text}");
    assert!(!lines[0].is_empty() && !lines[2].is_empty(), "{text}");

    let out = env.run(&["--format", "json", "everything__get-tiny-image"]);
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let blocks = v["output"].as_array().expect("every block kept");
    let kinds: Vec<&str> = blocks.iter().map(|b| b["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["text", "json", "text"]);
    assert_eq!(blocks[0]["text"], lines[0]);
    assert_eq!(blocks[1]["value"]["type"], "image");
    assert_eq!(blocks[1]["value"]["mimeType"], "image/png");
    let data = blocks[1]["value"]["data"].as_str().unwrap();
    assert!(
        data.starts_with("iVBORw0KGgo"),
        "a PNG, whole: {}",
        &data[..20]
    );

    let out = env
        .cmd()
        .arg("batch")
        .write_stdin("{\"id\":1,\"name\":\"everything__get-tiny-image\"}\n")
        .output()
        .unwrap();
    let answer: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(answer["output"], v["output"]);
}

/// Resource links are shown, one line each, and kept as blocks for programs.
#[test]
fn resource_links_are_shown_and_kept() {
    let Some(dir) = peers() else { return };
    let env = grafted(&dir);
    let out = env.run(&["everything__get-resource-links", "count=2"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let links: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("[resource link: "))
        .collect();
    assert_eq!(links.len(), 2, "{}", stdout(&out));
    let out = env.run(&[
        "--format",
        "json",
        "everything__get-resource-links",
        "count=2",
    ]);
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let kinds: Vec<&Value> = v["output"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["value"].get("type"))
        .collect();
    assert_eq!(kinds, [&json!("resource_link"), &json!("resource_link")]);
}

/// `read_media_file` answers the image once (its structuredContent only repeats
/// the content, and is not shown again).
#[test]
fn a_media_file_is_shown_once() {
    let Some(dir) = peers() else { return };
    let env = grafted(&dir);
    env.write(
        "tiny.gif",
        b"GIF89a\x01\x00\x01\x00\x00\x00\x00;".as_slice(),
    );
    let path = env.path("tiny.gif");
    let path = path.to_str().unwrap();
    let out = env.run(&["fs__read_media_file", path]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim(),
        "[image/gif, 14 B — --save-media DIR writes it]"
    );
    // --save-media writes it out, byte for byte, and names the file.
    let out = env.run(&["--save-media", "media", "fs__read_media_file", path]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let saved = env.path("media/fs__read_media_file-1.gif");
    assert_eq!(
        stdout(&out).trim(),
        format!("[image/gif, 14 B: {}]", saved.display())
    );
    assert_eq!(
        std::fs::read(&saved).unwrap(),
        b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"
    );
    let out = env.run(&["--format", "json", "fs__read_media_file", path]);
    let v: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(v["output"]["type"], "image");
    assert_eq!(v["output"]["data"], "R0lGODlhAQABAAAAADs=");
}

/// One MCP session over stdio: initialize, `tools/list`, then each call; the
/// answers in order.
fn session(mut cmd: std::process::Command, calls: &[(&str, Value)]) -> (Vec<Value>, Vec<Value>) {
    use std::io::{BufRead, BufReader, Write};
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = |v: Value| writeln!(stdin, "{v}").unwrap();
    let mut answer = |id: u64| loop {
        let line = lines.next().expect("an answer").unwrap();
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"] == id {
            return v;
        }
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    answer(0);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let tools = answer(1)["result"]["tools"].as_array().unwrap().clone();
    let mut results = Vec::new();
    for (i, (name, args)) in calls.iter().enumerate() {
        let id = 2 + i as u64;
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": args}}));
        results.push(answer(id)["result"].clone());
    }
    drop(stdin);
    let _ = child.wait();
    (tools, results)
}

/// `indus-tool mcp` as an aggregator re-exports a grafted tool as its server
/// lists it (input and output schemas verbatim, title, annotations) and passes
/// an image on as an image, not as text holding its JSON.
#[test]
fn the_aggregator_passes_schemas_annotations_and_media_through() {
    let Some(dir) = peers() else { return };
    let env = grafted(&dir);
    let direct = std::process::Command::new(dir.join("node_modules/.bin/mcp-server-everything"));
    let (theirs, their_calls) = session(
        direct,
        &[
            ("get-tiny-image", json!({})),
            ("get-sum", json!({"a": 2, "b": 3})),
        ],
    );
    let mut ours_cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("indus-tool"));
    // The tests' home, where the trust of the project's config was recorded.
    ours_cmd
        .current_dir(env.root())
        .args(["mcp", "--no-gate"])
        .env("HOME", common::no_home())
        .env_remove("XDG_STATE_HOME")
        .env("XDG_CONFIG_HOME", common::no_home().join(".config"));
    let (ours, our_calls) = session(
        ours_cmd,
        &[
            ("everything__get-tiny-image", json!({})),
            ("everything__get-sum", json!({"a": 2, "b": 3})),
        ],
    );
    let mut compared = 0;
    for t in &theirs {
        let name = format!("everything__{}", t["name"].as_str().unwrap());
        let Some(o) = ours.iter().find(|o| o["name"] == name) else {
            panic!("{name} is not re-exported");
        };
        for key in [
            "inputSchema",
            "outputSchema",
            "title",
            "annotations",
            "description",
        ] {
            assert_eq!(o.get(key), t.get(key), "{name}: {key}");
        }
        compared += 1;
    }
    assert!(compared >= 10, "{compared} tools compared");
    let types = |r: &Value| -> Vec<String> {
        r["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["type"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(types(&our_calls[0]), types(&their_calls[0]));
    assert_eq!(
        our_calls[0]["content"][1]["data"],
        their_calls[0]["content"][1]["data"]
    );
    assert_eq!(
        our_calls[1]["content"][0]["text"],
        their_calls[1]["content"][0]["text"]
    );
}

/// A call whose server reports progress shows a progress line on a terminal's
/// stderr (run under `script`, a real pseudo-terminal), and nothing when stderr
/// is not a terminal.
#[test]
fn progress_shows_on_a_terminal_and_nowhere_else() {
    let Some(dir) = peers() else { return };
    let env = grafted(&dir);
    let bin = assert_cmd::cargo::cargo_bin("indus-tool");
    let call = format!(
        "{} --cwd {} everything__trigger-long-running-operation duration=1 steps=4",
        bin.display(),
        env.root().display()
    );
    let on_tty = std::process::Command::new("script")
        .args(["-qec", &call, "/dev/null"])
        .env("HOME", common::no_home())
        .env_remove("XDG_STATE_HOME")
        .env("XDG_CONFIG_HOME", common::no_home().join(".config"))
        .output();
    let Ok(on_tty) = on_tty else {
        common::missing(
            "script(1) is missing",
            "progress: script(1) is not installed",
        );
        return;
    };
    let seen = String::from_utf8_lossy(&on_tty.stdout);
    assert!(seen.contains("everything: ["), "{seen:?}");
    assert!(seen.contains("/4"), "{seen:?}");
    let piped = env.run(&[
        "everything__trigger-long-running-operation",
        "duration=1",
        "steps=4",
    ]);
    assert_eq!(code(&piped), 0, "{}", stderr(&piped));
    assert!(
        !stderr(&piped).contains("everything: ["),
        "{}",
        stderr(&piped)
    );
    assert!(
        !stdout(&piped).contains("everything: ["),
        "{}",
        stdout(&piped)
    );
}
