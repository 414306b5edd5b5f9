//! The buddy profile's frame through the real binary: the profile's tools, the
//! seed's shapes and limits of `read_file`, `write_file`, `fetch_url` and
//! `web_search` (the web ones against a server on 127.0.0.1), `time`, and the
//! JSON envelope (on in the profile, `--envelope` elsewhere, in `batch` too).

mod common;

use common::http::{Reply, TestServer};
use common::{TestEnv, code, stderr, stdout};
use serde_json::{Value, json};

const CLASSIC: &str = include_str!("fixtures/web/ddg-classic.html");

fn buddy_json(env: &TestEnv, args: &[&str]) -> (Value, i32) {
    let mut all = vec!["--profile", "buddy", "--format", "json"];
    all.extend_from_slice(args);
    let out = env.run(&all);
    let line: Value = serde_json::from_str(stdout(&out).trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", stdout(&out), stderr(&out)));
    (line, code(&out))
}

/// The envelope's `result`, after checking the envelope's shape.
fn result_of(line: &Value) -> &Value {
    let envelope = &line["output"];
    assert_eq!(envelope["harness_timestamp"]["source"], "harness", "{line}");
    let ms = envelope["harness_timestamp"]["unix_millis"]
        .as_u64()
        .unwrap();
    assert!(ms > 1_700_000_000_000, "{line}");
    &envelope["result"]
}

#[test]
fn the_buddy_profile_lists_its_tools_and_time_is_in_all_too() {
    let env = TestEnv::new();
    let names = |args: &[&str]| -> Vec<String> {
        let out = env.run(args);
        stdout(&out)
            .lines()
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect()
    };
    let buddy = names(&["--profile", "buddy", "list"]);
    for tool in ["read_file", "write_file", "fetch_url", "web_search", "time"] {
        assert!(buddy.contains(&tool.to_string()), "{buddy:?}");
    }
    assert!(!buddy.contains(&"read".to_string()), "{buddy:?}");
    let all = names(&["list"]);
    assert!(all.contains(&"time".to_string()) && !all.contains(&"read_file".to_string()));
    // A tool outside the selected profile is refused.
    let out = env.run(&["--profile", "buddy", "read", "x"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no tool called \"read\""),
        "{}",
        stderr(&out)
    );
}

#[test]
fn read_file_returns_raw_text_cut_at_8000_characters() {
    let env = TestEnv::new();
    env.write("small.txt", "line one\nline two\n");
    let (line, rc) = buddy_json(&env, &["read_file", "small.txt"]);
    assert_eq!(rc, 0);
    assert_eq!(result_of(&line), "line one\nline two\n");
    // Characters, not bytes: 9,000 two-byte characters are cut at 8,000.
    env.write("big.txt", "é".repeat(9000));
    let (line, _) = buddy_json(&env, &["read_file", "big.txt"]);
    assert_eq!(
        result_of(&line).as_str().unwrap(),
        format!("{}...[truncated]", "é".repeat(8000))
    );
    let (line, rc) = buddy_json(&env, &["read_file", "missing.txt"]);
    assert_eq!(rc, 1);
    assert_eq!(line["is_error"], true);
    assert!(
        result_of(&line).as_str().unwrap().contains("ENOENT"),
        "{line}"
    );
}

#[test]
fn write_file_replaces_atomically_and_says_so_in_the_seeds_words() {
    let env = TestEnv::new();
    let (line, rc) = buddy_json(
        &env,
        &["write_file", "out/a.txt", "--content", "hello world\n"],
    );
    assert_eq!(rc, 0, "{line}");
    let path = env.path("out/a.txt");
    assert_eq!(
        result_of(&line),
        &json!(format!("Wrote 12 bytes to {}", path.display()))
    );
    assert_eq!(env.read_string("out/a.txt"), "hello world\n");
    assert!(common::temp_leftovers(env.root()).is_empty());
    // The content may come on stdin, as for `write`.
    let out = env
        .cmd()
        .args(["--profile", "buddy", "write_file", "out/a.txt"])
        .write_stdin("xyz")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(env.read_string("out/a.txt"), "xyz");
    let (line, rc) = buddy_json(&env, &["write_file", "out"]);
    assert_eq!(rc, 1, "{line}");
}

#[test]
fn time_gives_every_format_of_one_instant() {
    let env = TestEnv::new();
    let (line, rc) = buddy_json(&env, &["time"]);
    assert_eq!(rc, 0);
    let r = result_of(&line);
    let ms = r["unix_millis"].as_i64().unwrap();
    assert_eq!(
        line["output"]["harness_timestamp"]["unix_millis"]
            .as_i64()
            .unwrap()
            / 10_000,
        ms / 10_000
    );
    let iso = r["iso_8601_utc"].as_str().unwrap();
    assert_eq!(iso.len(), 24, "{iso}");
    assert!(iso.ends_with('Z') && &iso[10..11] == "T", "{iso}");
    assert!(
        r["rfc_2822_utc"].as_str().unwrap().ends_with("+0000"),
        "{r}"
    );
    // Outside the profile: no envelope, the record itself.
    let out = env.run(&["--format", "json", "time"]);
    let plain: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(plain["output"]["unix_millis"].is_i64(), "{plain}");
}

#[test]
fn the_envelope_is_asked_for_anywhere_and_batch_answers_alike() {
    let env = TestEnv::new();
    env.write("a.txt", "hi\n");
    let out = env.run(&["--envelope", "--format", "json", "ls"]);
    let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(
        result_of(&line).is_object() || result_of(&line).is_array(),
        "{line}"
    );
    let out = env
        .cmd()
        .args(["--profile", "buddy", "batch"])
        .write_stdin("{\"id\":1,\"name\":\"read_file\",\"input\":{\"path\":\"a.txt\"}}\n")
        .output()
        .unwrap();
    let line: Value = serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
    assert_eq!(result_of(&line), "hi\n");
}

#[test]
fn fetch_url_and_web_search_reshape_the_web_engines() {
    let env = TestEnv::new();
    let big = "x".repeat(9000);
    let server = TestServer::start(move |req| match req.path() {
        "/api" => Reply::ok("application/json", "{\"ok\": true}"),
        "/big" => Reply::ok("text/plain", big.clone()),
        _ => Reply::ok("text/html; charset=UTF-8", CLASSIC),
    });
    let (line, rc) = buddy_json(&env, &["fetch_url", &server.url("/api")]);
    assert_eq!(rc, 0, "{line}");
    assert_eq!(result_of(&line), "{\"ok\": true}");
    let (line, _) = buddy_json(&env, &["fetch_url", &server.url("/big")]);
    assert_eq!(
        result_of(&line).as_str().unwrap(),
        format!("{}...[truncated]", "x".repeat(8000))
    );
    let out = env
        .cmd()
        .env("INDUS_WEBSEARCH_URL", server.url("/html/"))
        .args([
            "--profile",
            "buddy",
            "--format",
            "json",
            "web_search",
            "rust tokio",
        ])
        .output()
        .unwrap();
    let line: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let text = result_of(&line).as_str().unwrap().to_string();
    assert!(text.starts_with("1. "), "{text}");
    let entries: Vec<&str> = text.split("\n\n").collect();
    assert!(!entries.is_empty() && entries.len() <= 8, "{text}");
    for (i, entry) in entries.iter().enumerate() {
        let mut lines = entry.lines();
        assert!(
            lines.next().unwrap().starts_with(&format!("{}. ", i + 1)),
            "{entry}"
        );
        assert!(lines.next().unwrap().starts_with("   http"), "{entry}");
    }
}
