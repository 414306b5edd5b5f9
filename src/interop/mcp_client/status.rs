//! What the MCP client keeps between invocations besides the ledger: the status
//! file (the config hash of the last full refresh, and per server its transport,
//! state, tool count and last error), the re-sync of one server's tool list after
//! a `tools/list_changed`, and the shape an `mcp` view answers in. Apart from
//! grafting and the broker because both write them, and the broker is itself
//! called by a grafted tool.

use std::path::Path;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::ledger::{BridgeCapability, BridgeLedger, append_log, load_log, now_iso};
use crate::state::StateDir;

/// The status file's path inside `.indus-process/`.
pub const STATUS_FILE: &str = "mcp/status.json";

/// What the last refresh found, per server.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusFile {
    /// The config hash of the last full refresh.
    #[serde(default)]
    pub config_hash: Option<String>,
    #[serde(default)]
    pub servers: IndexMap<String, ServerStatus>,
}

/// The seal's domain for the status file: a status a checkout carried (a
/// matching hash that would skip a refresh, a server's error text) counts as
/// none.
pub const STATUS_SEAL: &str = "indus-tool mcp status 1";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    pub transport: String,
    /// `ready` or `failed`.
    pub status: String,
    pub tools: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    pub refreshed_at: String,
}

/// Fold one server's fresh tool list into the persisted ledger (after a
/// `tools/list_changed`). Best effort: the call's own result is what matters.
pub fn resync(cwd: &Path, server: &str, caps: Vec<BridgeCapability>) {
    let state = StateDir::new(cwd);
    let _ = (|| -> std::io::Result<()> {
        let lock = state.lock()?;
        let ledger = BridgeLedger::from_log(load_log(&state)?);
        let (next, entries) = ledger.sync_server(server, caps, &now_iso());
        append_log(&state, &entries)?;
        let mut status: StatusFile = state.load_sealed(STATUS_FILE, STATUS_SEAL)?;
        if let Some(row) = status.servers.get_mut(server) {
            row.tools = next.live_capabilities_for_server(server).len();
        }
        state.write_sealed(&lock, STATUS_FILE, STATUS_SEAL, &status, true)
    })();
}

/// What an `mcp` view prints and how it ends.
#[derive(Debug, Default)]
pub struct ViewOutput {
    pub stdout: String,
    pub stderr: Vec<String>,
    /// 0, 1 (a server failed to refresh) or 2 (usage).
    pub code: u8,
}
