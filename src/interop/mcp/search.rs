//! The deferred tool list of `indus-tool mcp --tool-search`: `find_tool` and
//! `load_tool`, answered by the server itself.
//!
//! A client that sends every tool's definition to the model on every turn pays
//! for tools the turn never uses. Hosts with a tool search of their own (Claude
//! Code, Copilot) defer the rest behind it; for the clients without one, this
//! server can do the same: it lists a few core tools and these two, and a model
//! that needs another finds it by words and loads it. Loading adds the tool to
//! `tools/list` and sends `notifications/tools/list_changed`, so the client
//! fetches the list again; the answer also carries the loaded tools' input
//! schemas, for a client that does not refetch.
//!
//! These two are not tools of the tool box (they act on the server's list, which
//! no other face has), so they are answered here, before the runner.

use std::sync::Mutex;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool};
use rmcp::service::{Peer, RoleServer};
use serde_json::{Value, json};

use crate::kernel::input::{Args, closest_key, unknown_keys};

/// The search tool's name.
pub const FIND: &str = "find_tool";
/// The loading tool's name.
pub const LOAD: &str = "load_tool";

/// How many tools `find_tool` names when the call does not say.
const DEFAULT_LIMIT: u64 = 5;

fn find_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words for what you want to do, e.g. \"background job\" or \"web page\"."},
            "limit": {"type": "integer", "description": "How many tools to name (default 5)."}
        },
        "required": ["query"]
    })
}

fn load_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "names": {"type": "array", "items": {"type": "string"}, "description": "Tool names, as find_tool gives them."}
        },
        "required": ["names"]
    })
}

fn object(schema: Value) -> std::sync::Arc<JsonObject> {
    match schema {
        Value::Object(map) => std::sync::Arc::new(map),
        _ => unreachable!("the schemas above are objects"),
    }
}

/// The definitions of `find_tool` and `load_tool`, as `tools/list` shows them.
pub fn tools() -> Vec<Tool> {
    let find = Tool::new(
        FIND,
        "Search the tools not yet in your list by what you want to do; names the best matches with a one-line summary. Then load_tool them.",
        object(find_schema()),
    )
    .with_title("Find a tool");
    let load = Tool::new(
        LOAD,
        "Add tools found with find_tool to your tool list, so you can call them; returns their input schemas.",
        object(load_schema()),
    )
    .with_title("Load tools");
    vec![find, load]
}

/// The answer to a call of `find_tool` or `load_tool`, or `None` for any other
/// name (the runner answers those).
pub async fn answer(
    all: &[Tool],
    listed: &Mutex<Vec<String>>,
    name: &str,
    arguments: Option<&JsonObject>,
    peer: &Peer<RoleServer>,
) -> Option<CallToolResult> {
    let input = arguments.cloned().map_or(Value::Null, Value::Object);
    let input = if input.is_null() { json!({}) } else { input };
    match name {
        FIND => Some(match find(all, listed, &input) {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e)]),
        }),
        LOAD => Some(match load(all, listed, &input) {
            Ok((text, changed)) => {
                if changed {
                    // The client fetches tools/list again; a client that does not
                    // listen still has the schemas in the answer.
                    let _ = peer.notify_tool_list_changed().await;
                }
                CallToolResult::success(vec![ContentBlock::text(text)])
            }
            Err(e) => CallToolResult::error(vec![ContentBlock::text(e)]),
        }),
        _ => None,
    }
}

/// The first sentence of a description (its summary line), for a search row.
fn summary(description: &str) -> &str {
    let end = description
        .find(". ")
        .map(|i| i + 1)
        .or_else(|| description.find('\n'))
        .unwrap_or(description.len());
    description[..end].trim()
}

/// The tools matching `query`'s words, best first: a word in the name counts
/// most, then the title, then the description; ties keep the list's order.
pub fn rank<'t>(all: &'t [Tool], query: &str) -> Vec<&'t Tool> {
    let words: Vec<String> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 2)
        .map(str::to_lowercase)
        .collect();
    let mut scored: Vec<(usize, usize, &Tool)> = all
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            let name = t.name.to_lowercase();
            let title = t.title.as_deref().unwrap_or("").to_lowercase();
            let description = t.description.as_deref().unwrap_or("").to_lowercase();
            let score: usize = words
                .iter()
                .map(|w| {
                    3 * usize::from(name.contains(w.as_str()))
                        + 2 * usize::from(title.contains(w.as_str()))
                        + usize::from(description.contains(w.as_str()))
                })
                .sum();
            (score > 0).then_some((score, i, t))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, _, t)| t).collect()
}

fn find(all: &[Tool], listed: &Mutex<Vec<String>>, input: &Value) -> Result<String, String> {
    if let Some(refusal) = unknown_keys(FIND, &find_schema(), input) {
        return Err(refusal);
    }
    let args = Args::new(FIND, input)?;
    let query = args.required_str("query")?;
    let limit = args.opt_positive_int("limit")?.unwrap_or(DEFAULT_LIMIT);
    let listed = listed.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let found = rank(all, query);
    if found.is_empty() {
        let names: Vec<&str> = all.iter().map(|t| t.name.as_ref()).collect();
        // The query is quoted back only as far as a person would read it.
        let mut shown: String = query.chars().take(80).collect();
        if shown.len() < query.len() {
            shown.push('…');
        }
        return Ok(format!(
            "No tool matches \"{shown}\". The tools: {}.",
            names.join(", ")
        ));
    }
    let shown = found
        .len()
        .min(usize::try_from(limit).unwrap_or(usize::MAX));
    let mut out = String::new();
    for tool in &found[..shown] {
        let loaded = if listed.iter().any(|n| n == tool.name.as_ref()) {
            " (in your list)"
        } else {
            ""
        };
        out.push_str(&format!(
            "{}{loaded}: {}\n",
            tool.name,
            summary(tool.description.as_deref().unwrap_or(""))
        ));
    }
    if found.len() > shown {
        out.push_str(&format!(
            "{} more match; raise limit to see them.\n",
            found.len() - shown
        ));
    }
    out.push_str("Load with load_tool {\"names\": [...]}.");
    Ok(out)
}

/// Add the named tools to the list; the answer and whether the list changed.
fn load(
    all: &[Tool],
    listed: &Mutex<Vec<String>>,
    input: &Value,
) -> Result<(String, bool), String> {
    if let Some(refusal) = unknown_keys(LOAD, &load_schema(), input) {
        return Err(refusal);
    }
    let args = Args::new(LOAD, input)?;
    let names = args
        .opt_str_array("names")?
        .ok_or_else(|| "Missing \"names\": expected an array of tool names.".to_string())?;
    if names.is_empty() {
        return Err("Invalid \"names\": expected at least one tool name.".into());
    }
    let known: Vec<&str> = all.iter().map(|t| t.name.as_ref()).collect();
    let mut tools: Vec<&Tool> = Vec::new();
    for name in &names {
        // A name given twice is loaded (and its schema shown) once.
        if tools.iter().any(|t| t.name == *name) {
            continue;
        }
        match all.iter().find(|t| t.name == *name) {
            Some(t) => tools.push(t),
            None => {
                let hint = closest_key(name, &known)
                    .map(|k| format!(" (did you mean \"{k}\"?)"))
                    .unwrap_or_default();
                return Err(format!(
                    "No tool called \"{name}\"{hint}; find_tool lists them."
                ));
            }
        }
    }
    let mut list = listed.lock().unwrap_or_else(|e| e.into_inner());
    let mut added = Vec::new();
    for tool in &tools {
        if !list.iter().any(|n| n == tool.name.as_ref()) {
            list.push(tool.name.to_string());
            added.push(tool.name.as_ref());
        }
    }
    drop(list);
    let mut out = if added.is_empty() {
        "Already in your list.".to_string()
    } else {
        format!("Loaded {}. Input schemas:", added.join(", "))
    };
    for tool in &tools {
        out.push_str(&format!(
            "\n{}: {}",
            tool.name,
            Value::Object((*tool.input_schema).clone())
        ));
    }
    Ok((out, !added.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, title: &str, description: &str) -> Tool {
        Tool::new(
            name.to_string(),
            description.to_string(),
            object(json!({"type": "object"})),
        )
        .with_title(title)
    }

    fn all() -> Vec<Tool> {
        vec![
            tool("read", "Read file", "Show a file's lines."),
            tool(
                "process",
                "Background jobs",
                "Start, poll and stop background jobs.",
            ),
            tool(
                "webfetch",
                "Fetch web page",
                "Fetch a URL. Return it as text.",
            ),
        ]
    }

    #[test]
    fn ranks_name_then_title_then_description() {
        let all = all();
        let names =
            |q: &str| -> Vec<String> { rank(&all, q).iter().map(|t| t.name.to_string()).collect() };
        assert_eq!(names("web page"), ["webfetch"]);
        assert_eq!(names("background job"), ["process"]);
        assert_eq!(names("file"), ["read"]);
        assert!(names("zzz").is_empty());
    }

    #[test]
    fn find_names_and_load_adds_once() {
        let all = all();
        let listed = Mutex::new(vec!["read".to_string()]);
        let text = find(&all, &listed, &json!({"query": "fetch a web page"})).unwrap();
        assert!(text.starts_with("webfetch: Fetch a URL."), "{text}");
        let refused = find(&all, &listed, &json!({"query": "x", "limt": 2})).unwrap_err();
        assert!(
            refused.contains("unknown key \"limt\"; did you mean \"limit\"?"),
            "{refused}"
        );
        let (text, changed) = load(&all, &listed, &json!({"names": ["webfetch"]})).unwrap();
        assert!(changed);
        assert!(
            text.starts_with("Loaded webfetch. Input schemas:\nwebfetch: {"),
            "{text}"
        );
        assert_eq!(*listed.lock().unwrap(), ["read", "webfetch"]);
        let (_, changed) = load(&all, &listed, &json!({"names": ["webfetch"]})).unwrap();
        assert!(!changed);
        // A name repeated is loaded and shown once.
        let (text, _) = load(&all, &listed, &json!({"names": ["read", "read", "read"]})).unwrap();
        assert_eq!(text.matches("\nread: ").count(), 1, "{text}");
        let long = "x".repeat(10_000);
        let text = find(&all, &listed, &json!({"query": long})).unwrap();
        assert!(text.len() < 300, "{text}");
        let e = load(&all, &listed, &json!({"names": ["webfetc"]})).unwrap_err();
        assert_eq!(
            e,
            "No tool called \"webfetc\" (did you mean \"webfetch\"?); find_tool lists them."
        );
        let text = find(&all, &listed, &json!({"query": "fetch"})).unwrap();
        assert!(text.starts_with("webfetch (in your list):"), "{text}");
    }
}
