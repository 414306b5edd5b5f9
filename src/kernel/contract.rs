//! The four pure data shapes at the tool layer's boundary: what a model is shown
//! ([`ToolDescriptor`] with its [`JsonSchema`]), what it asks for ([`ToolCall`]) and
//! what it gets back ([`ToolOutcome`]). They are the wire format of `--format json`,
//! `call`, `batch` and `schema`, so their field names are fixed.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A JSON Schema document; always an object in practice.
pub type JsonSchema = Value;

/// The model-facing advertisement of one tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDescriptor {
    pub name: String,
    pub description: String,
    pub parameters: JsonSchema,
}

impl ToolDescriptor {
    /// The descriptor as a model is shown it (MCP's `tools/list`, `schema --for`):
    /// input keys marked `"deprecated": true` are left out, a key of several
    /// types one of which is a string is shown as a string, and a tool that takes
    /// no input says so as `{"type":"object","properties":{},
    /// "additionalProperties":false}`.
    ///
    /// A deprecated key is a second spelling of what another key says (grep's
    /// `flags` beside `ignoreCase`, `paths` beside `path`), or a knob a model
    /// seldom needs and the command line keeps (grep's `maxFileSize`, webfetch's
    /// `maxBytes`): every key a model is shown costs it context on every turn,
    /// so those are not shown, while the tool still accepts them for the callers
    /// written against them (the full schema stays what `describe` prints and
    /// what the input is checked against). The explicit empty object is the shape strict-mode converters
    /// (openai-agents' `ensure_strict_json_schema`) and function-declaration
    /// rules accept for a tool without parameters; a bare `{"type":"object"}`
    /// reads to them as an open object and is refused.
    pub fn for_model(&self) -> ToolDescriptor {
        ToolDescriptor {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: model_schema(&self.parameters),
        }
    }
}

/// A tool's input schema as [`ToolDescriptor::for_model`] shows it.
pub fn model_schema(schema: &JsonSchema) -> JsonSchema {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = map.clone();
    let hidden: Vec<String> = match out.get_mut("properties") {
        Some(Value::Object(props)) => {
            let hidden: Vec<String> = props
                .iter()
                .filter(|(_, s)| s.get("deprecated") == Some(&Value::Bool(true)))
                .map(|(k, _)| k.clone())
                .collect();
            props.retain(|k, _| !hidden.contains(k));
            // A key taking several types, one of them a string (`"30s"` or `30`),
            // is shown as a string: Gemini's function declarations and strict
            // modes take one type a key, and the tool reads every value in its
            // string form too (`"true"`, `"-"`, `"5"`).
            for s in props.values_mut() {
                if let Some(Value::Array(types)) = s.get("type")
                    && types.iter().any(|t| t == "string")
                    && let Value::Object(s) = s
                {
                    s.insert("type".into(), Value::from("string"));
                }
            }
            hidden
        }
        _ => Vec::new(),
    };
    if let Some(Value::Array(required)) = out.get_mut("required") {
        required.retain(|k| !k.as_str().is_some_and(|k| hidden.iter().any(|h| h == k)));
        if required.is_empty() {
            out.remove("required");
        }
    }
    let no_input = match out.get("properties") {
        None => true,
        Some(Value::Object(props)) => props.is_empty(),
        Some(_) => false,
    };
    if no_input && out.get("type").is_none_or(|t| t == "object") {
        out.insert("type".into(), Value::from("object"));
        out.insert("properties".into(), Value::Object(Default::default()));
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    Value::Object(out)
}

/// One request to invoke a named tool.
///
/// `turn` is this project's one addition to the seed's `{id, name, input}`: the
/// checkpoint node the call's changes belong to (an agent's turn), so a host
/// serving many turns in one process (`batch`, `mcp`) can rewind each alone. It is
/// omitted on the wire when absent, so the seed's shape is unchanged for anyone
/// who does not use it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub input: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<String>,
}

impl ToolCall {
    /// A call without a turn (the seed's three fields).
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            input,
            turn: None,
        }
    }
}

/// The flat result of one call: the projected output and whether it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolOutcome {
    pub id: String,
    pub output: Value,
    pub is_error: bool,
}

/// The first sentence of a description, for one-line summaries (the command
/// line's help and `list`, the MCP client's tool views).
pub fn summary(description: &str) -> &str {
    match description.find(". ") {
        Some(i) => &description[..=i],
        None => description,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_model_is_shown_one_spelling_and_an_explicit_empty_input() {
        let d = ToolDescriptor {
            name: "grep".into(),
            description: "d".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "paths": {"type": "array", "deprecated": true},
                    "pattern": {"type": "string"}
                },
                "required": ["pattern", "paths"]
            }),
        };
        assert_eq!(
            d.for_model().parameters,
            json!({
                "type": "object",
                "properties": {"path": {"type": "string"}, "pattern": {"type": "string"}},
                "required": ["pattern"]
            })
        );
        for empty in [
            json!({}),
            json!({"type": "object"}),
            json!({"type": "object", "properties": {}}),
        ] {
            assert_eq!(
                model_schema(&empty),
                json!({"type": "object", "properties": {}, "additionalProperties": false})
            );
        }
        let union = json!({"type": "object", "properties": {"wait": {"type": ["boolean", "string", "integer"]}, "n": {"type": ["integer", "null"]}}});
        assert_eq!(
            model_schema(&union)["properties"],
            json!({"wait": {"type": "string"}, "n": {"type": ["integer", "null"]}})
        );
        // Only deprecated keys: the tool takes no input a model should send.
        let only = json!({"type": "object", "properties": {"old": {"type": "string", "deprecated": true}}});
        assert_eq!(
            model_schema(&only),
            json!({"type": "object", "properties": {}, "additionalProperties": false})
        );
    }
}
