//! The MCP client: the tools of configured MCP servers grafted into the toolbox
//! as `<server>__<tool>`.
//!
//! `config` discovers and merges the servers a user configured, `ledger` is the
//! event-sourced record (and tool-list cache) of what each server contributes.

#[cfg(feature = "mcp")]
pub mod client;
pub mod config;
pub mod ledger;
