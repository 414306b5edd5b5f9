//! `schema --for openai|anthropic|mcp` through the binary: each output validates
//! against the JSON shape the API publishes (transcribed into
//! `tests/fixtures/api-schemas/`, validated with the `jsonschema` crate), carries
//! names the API accepts and the same schemas as plain `schema`, and keys no API
//! field list leaves room for.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{bin, code, stderr};
use indus_tool::kernel::contract::model_schema;
use serde_json::{Value, json};

fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/api-schemas")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let schema: Value = serde_json::from_str(&text).expect("the fixture is JSON");
    if let Err(e) = jsonschema::meta::validate(&schema) {
        panic!("{name} is not a valid JSON Schema: {e}");
    }
    schema
}

/// Every way `instance` breaks `schema`, one line each (empty when it is valid).
fn violations(schema: &Value, instance: &Value) -> Vec<String> {
    let validator = jsonschema::validator_for(schema).expect("the fixture compiles");
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

fn assert_valid(fixture_name: &str, instance: &Value) {
    let found = violations(&fixture(fixture_name), instance);
    assert!(
        found.is_empty(),
        "the output does not fit {fixture_name}:\n{}",
        found.join("\n")
    );
}

/// `indus-tool [globals] schema [--for API]` as JSON.
fn schema(globals: &[&str], api: Option<&str>) -> Value {
    let mut cmd = bin();
    cmd.args(globals).arg("schema");
    if let Some(api) = api {
        cmd.args(["--for", api]);
    }
    let out = cmd.output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("schema prints JSON")
}

fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect()
}

/// The plain descriptors, by name: what every shape must carry unchanged.
fn descriptors() -> Vec<Value> {
    schema(&[], None).as_array().expect("an array").clone()
}

/// OpenAI's and Anthropic's tool names: `^[a-zA-Z0-9_-]{1,64}$`, and unique.
fn assert_model_api_names<'a>(names: impl Iterator<Item = &'a str>) {
    let mut seen = BTreeSet::new();
    for name in names {
        assert!(
            (1..=64).contains(&name.len())
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
            "{name:?} does not match ^[a-zA-Z0-9_-]{{1,64}}$"
        );
        assert!(seen.insert(name), "{name} is defined twice");
    }
}

/// A tool's input schema must itself be a JSON Schema, of an object.
fn assert_object_schema(name: &str, schema: &Value) {
    if let Err(e) = jsonschema::meta::validate(schema) {
        panic!("{name}: its input schema is not a valid JSON Schema: {e}");
    }
    assert_eq!(schema["type"], "object", "{name}");
}

/// No input key a model is shown is marked deprecated (those are left out).
fn assert_no_deprecated_key(schema: &Value) {
    if let Some(props) = schema["properties"].as_object() {
        for (key, s) in props {
            assert_ne!(s.get("deprecated"), Some(&Value::Bool(true)), "{key}");
        }
    }
}

#[test]
fn openai_gets_chat_completions_function_tools() {
    let tools = schema(&[], Some("openai"));
    assert_valid("openai-chat-completions-tools.json", &tools);
    let tools = tools.as_array().unwrap();
    let plain = descriptors();
    assert_eq!(tools.len(), plain.len());
    for (tool, d) in tools.iter().zip(&plain) {
        assert_eq!(keys(tool), BTreeSet::from(["type", "function"]));
        assert_eq!(tool["type"], "function");
        let function = &tool["function"];
        assert_eq!(
            keys(function),
            BTreeSet::from(["name", "description", "parameters"])
        );
        assert_eq!(function["name"], d["name"]);
        assert_eq!(function["description"], d["description"]);
        // The schema as a model is shown it: second spellings left out.
        assert_eq!(function["parameters"], model_schema(&d["parameters"]));
        assert_no_deprecated_key(&function["parameters"]);
        assert_object_schema(d["name"].as_str().unwrap(), &function["parameters"]);
    }
    assert_model_api_names(
        tools
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap()),
    );
}

#[test]
fn anthropic_gets_messages_tools() {
    let tools = schema(&[], Some("anthropic"));
    assert_valid("anthropic-messages-tools.json", &tools);
    let tools = tools.as_array().unwrap();
    let plain = descriptors();
    assert_eq!(tools.len(), plain.len());
    for (tool, d) in tools.iter().zip(&plain) {
        assert_eq!(
            keys(tool),
            BTreeSet::from(["name", "description", "input_schema"])
        );
        assert_eq!(tool["name"], d["name"]);
        assert_eq!(tool["description"], d["description"]);
        assert_eq!(tool["input_schema"], model_schema(&d["parameters"]));
        assert_no_deprecated_key(&tool["input_schema"]);
        assert_object_schema(d["name"].as_str().unwrap(), &tool["input_schema"]);
    }
    assert_model_api_names(tools.iter().map(|t| t["name"].as_str().unwrap()));
}

#[cfg(feature = "mcp")]
#[test]
fn mcp_gets_the_tools_list_result() {
    let result = schema(&[], Some("mcp"));
    assert_valid("mcp-2025-11-25-list-tools-result.json", &result);
    assert_eq!(keys(&result), BTreeSet::from(["tools"]));
    let tools = result["tools"].as_array().unwrap();
    let plain = descriptors();
    assert_eq!(tools.len(), plain.len());
    let mut seen = BTreeSet::new();
    for (tool, d) in tools.iter().zip(&plain) {
        let name = tool["name"].as_str().unwrap();
        assert_eq!(tool["name"], d["name"]);
        assert_eq!(tool["description"], d["description"]);
        let allowed = BTreeSet::from([
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
        ]);
        assert!(keys(tool).is_subset(&allowed), "{name}: {:?}", keys(tool));
        assert_object_schema(name, &tool["inputSchema"]);
        // The record's schema, for structuredContent: an object, a valid schema.
        let output = &tool["outputSchema"];
        assert_eq!(output["type"], "object", "{name}");
        if let Err(e) = jsonschema::meta::validate(output) {
            panic!("{name}'s outputSchema is not a valid JSON Schema: {e}");
        }
        // MCP's tool names (2025-11-25, server/tools): 1 to 128 of A-Z a-z 0-9 _ - .
        assert!(
            (1..=128).contains(&name.len())
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b)),
            "{name:?} is not an MCP tool name"
        );
        assert!(seen.insert(name), "{name} is listed twice");
    }
    // Checked against the live server in tests/it/mcp.rs: this is what tools/list sends.
}

#[test]
fn the_selection_and_the_format_apply_to_every_shape() {
    let picked = schema(&["--tools", "grep,read"], Some("openai"));
    let names: Vec<&str> = picked
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["read", "grep"]);
    let none = schema(&["--no-tools"], Some("anthropic"));
    assert_eq!(none, json!([]));

    // Text: pretty JSON; --format json: the same value on one line.
    for api in ["openai", "anthropic"] {
        let text = bin()
            .args(["--tools", "ls", "schema", "--for", api])
            .output()
            .unwrap();
        let one_line = bin()
            .args(["--tools", "ls", "--format", "json", "schema", "--for", api])
            .output()
            .unwrap();
        let text = String::from_utf8(text.stdout).unwrap();
        let one_line = String::from_utf8(one_line.stdout).unwrap();
        assert!(text.starts_with("[\n  {\n"), "{text}");
        assert_eq!(one_line.matches('\n').count(), 1, "{one_line}");
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            serde_json::from_str::<Value>(&one_line).unwrap()
        );
    }

    let out = bin().args(["schema", "--for", "gemini"]).output().unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with("error: invalid value 'gemini' for '--for <API>'"),
        "{}",
        stderr(&out)
    );
}

/// The fixtures are not vacuous: each refuses what its API refuses.
#[test]
fn the_fixtures_refuse_what_the_apis_refuse() {
    let openai = fixture("openai-chat-completions-tools.json");
    for bad in [
        json!([{"type": "function", "function": {"name": "has space"}}]),
        json!([{"type": "function", "function": {"name": "x".repeat(65)}}]),
        json!([{"type": "custom", "function": {"name": "x"}}]),
        json!([{"type": "function"}]),
    ] {
        assert!(!violations(&openai, &bad).is_empty(), "openai took {bad}");
    }
    let anthropic = fixture("anthropic-messages-tools.json");
    for bad in [
        json!([{"name": "a.b", "input_schema": {"type": "object"}}]),
        json!([{"name": "x", "input_schema": {"type": "string"}}]),
        json!([{"name": "x"}]),
        json!([{"name": "x", "input_schema": {"type": "object"}, "parameters": {}}]),
    ] {
        assert!(
            !violations(&anthropic, &bad).is_empty(),
            "anthropic took {bad}"
        );
    }
    let mcp = fixture("mcp-2025-11-25-list-tools-result.json");
    for bad in [
        json!([]),
        json!({"tools": [{"name": "x"}]}),
        json!({"tools": [{"name": "x", "inputSchema": {"type": "array"}}]}),
        json!({"tools": [{"name": "x", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "yes"}}]}),
    ] {
        assert!(!violations(&mcp, &bad).is_empty(), "mcp took {bad}");
    }
}
