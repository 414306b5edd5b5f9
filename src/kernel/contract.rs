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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub input: Value,
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
