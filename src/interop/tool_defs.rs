//! Tool definitions in the shapes model APIs take them (`indus-tool schema --for
//! API`), so a host can paste the output into a request without reshaping it.
//!
//! This module owns only the wrapping. The tools' JSON Schemas are their
//! descriptors' own as a model is shown them (`ToolDescriptor::for_model`: the
//! keys a model is not shown left out, a no-input tool's empty object explicit):
//! OpenAI's `parameters` and Anthropic's `input_schema` both take JSON Schema, and
//! every built-in schema is a plain `type: object` one they accept. The MCP shape is
//! not built here at all: it is the MCP server's own `tools/list` result for these
//! descriptors (`interop::mcp::list_tools_json`), so the two cannot drift. A
//! descriptor carries no output schema; the command line's `schema --for mcp`
//! prints the list a server of the whole tool box sends, output schemas included
//! (`interop::mcp::served_tools_json`).

use serde_json::{Value, json};

use crate::kernel::ToolDescriptor;

/// A model API whose tool-definition shape `schema --for` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolApi {
    /// OpenAI Chat Completions: the request's `tools` array,
    /// `[{"type":"function","function":{"name","description","parameters"}}]`.
    OpenAi,
    /// Anthropic Messages: the request's `tools` array,
    /// `[{"name","description","input_schema"}]`.
    Anthropic,
    /// MCP: the result of `tools/list`, `{"tools":[{"name","title","description",
    /// "inputSchema","annotations"}]}`.
    Mcp,
}

impl ToolApi {
    /// The names `--for` accepts, in the order the help lists them.
    pub const NAMES: [&'static str; 3] = ["openai", "anthropic", "mcp"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "openai" => Some(Self::OpenAi),
            "anthropic" => Some(Self::Anthropic),
            "mcp" => Some(Self::Mcp),
            _ => None,
        }
    }
}

/// The definitions of `descriptors` in `api`'s shape. The one failure is the MCP
/// shape in a build without the MCP server, which has no `tools/list` to print.
pub fn tool_definitions(api: ToolApi, descriptors: &[ToolDescriptor]) -> Result<Value, String> {
    match api {
        ToolApi::OpenAi => Ok(Value::Array(
            descriptors
                .iter()
                .map(|d| {
                    json!({
                        "type": "function",
                        "function": {
                            "name": d.name,
                            "description": d.description,
                            "parameters": d.for_model().parameters,
                        }
                    })
                })
                .collect(),
        )),
        ToolApi::Anthropic => Ok(Value::Array(
            descriptors
                .iter()
                .map(|d| {
                    json!({
                        "name": d.name,
                        "description": d.description,
                        "input_schema": d.for_model().parameters,
                    })
                })
                .collect(),
        )),
        ToolApi::Mcp => mcp_definitions(descriptors),
    }
}

#[cfg(feature = "mcp")]
fn mcp_definitions(descriptors: &[ToolDescriptor]) -> Result<Value, String> {
    crate::interop::mcp::list_tools_json(descriptors)
        .map_err(|e| format!("the MCP tools/list result does not serialize: {e}"))
}

#[cfg(not(feature = "mcp"))]
fn mcp_definitions(_descriptors: &[ToolDescriptor]) -> Result<Value, String> {
    Err(
        "this indus-tool was built without the MCP server (cargo feature `mcp`), whose tools/list this is"
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn descriptor() -> ToolDescriptor {
        ToolDescriptor {
            name: "read".into(),
            description: "Read a file.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string", "minimum": 1}}}),
        }
    }

    #[test]
    fn each_api_gets_its_wrapping_around_the_same_schema() {
        let d = descriptor();
        let openai = tool_definitions(ToolApi::OpenAi, std::slice::from_ref(&d)).unwrap();
        assert_eq!(
            openai,
            json!([{"type": "function", "function": {"name": "read", "description": "Read a file.", "parameters": d.parameters}}])
        );
        let anthropic = tool_definitions(ToolApi::Anthropic, std::slice::from_ref(&d)).unwrap();
        assert_eq!(
            anthropic,
            json!([{"name": "read", "description": "Read a file.", "input_schema": d.parameters}])
        );
        for name in ToolApi::NAMES {
            assert!(ToolApi::from_name(name).is_some(), "{name}");
        }
        assert_eq!(ToolApi::from_name("gemini"), None);
    }
}
