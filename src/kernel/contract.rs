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
