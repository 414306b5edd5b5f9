//! Long-running faces of the tool layer for agents written in any language: `batch`
//! (JSONL `ToolCall`s in, `ToolOutcome`s out) and the MCP server. Both are thin
//! layers over the same `ToolBox` the one-shot subcommands dispatch through, so a
//! tool behaves identically whichever way it is reached. `tool_defs` gives the tools'
//! definitions in the shapes model APIs take, for hosts that call a model themselves.

pub mod batch;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod mcp_client;
pub mod tool_defs;
