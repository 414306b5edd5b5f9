//! The MCP client: the tools of configured MCP servers grafted into the toolbox
//! as `<server>__<tool>`.
//!
//! `config` discovers and merges the servers a user configured, `ledger` is the
//! event-sourced record (and tool-list cache) of what each server contributes,
//! `client` one rmcp connection (`sse` its legacy HTTP+SSE transport), `status` the
//! status file and the shape of a view, `broker` the warm background process
//! keeping connections open across invocations, `graft` the policy tying them into
//! the toolbox (grafted tools, refresh, the `mcp servers/tools/ledger/refresh`
//! views).

#[cfg(feature = "mcp")]
pub mod broker;
#[cfg(feature = "mcp")]
pub mod client;
pub mod config;
#[cfg(feature = "mcp")]
pub mod graft;
pub mod ledger;
#[cfg(feature = "mcp")]
pub mod sse;
#[cfg(feature = "mcp")]
pub mod status;
