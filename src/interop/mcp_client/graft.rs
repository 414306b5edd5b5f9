//! Grafting: the configured servers' tools as toolbox tools, and the `mcp
//! servers | tools | ledger | refresh` views.
//!
//! This module owns the policy that ties config, ledger and client together.
//! Startup reads the merged config; when no server is configured it does nothing
//! else. Otherwise it reads the ledger (the tool-list cache) and the status file
//! under `.indus-process/mcp/`, and refreshes (connects to every server) only when
//! the config hash differs from the one the last full refresh recorded, so `list`,
//! `describe` and `schema` on a warm cache spawn nothing. A built-in tool's call
//! never refreshes (it reads the cache only, see [`Options::cache_only`]): no
//! server process is started and no address dialled for it. A refresh connects to the
//! servers concurrently, then, under the state lock, re-reads the log and appends
//! only the difference: a server that failed, or that left the config, is
//! withdrawn (its past events stay). A grafted tool's `run` goes through the warm
//! broker when one runs (see `broker`), else opens a fresh connection, makes the
//! call and closes it (killing a stdio child's group); a
//! `notifications/tools/list_changed` seen during the call re-syncs that server.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::client::{CHILD_MARKER, connect};
use super::config::{McpConfig, ServerConfig, discover};
use super::ledger::{BridgeCapability, BridgeLedger, LEDGER_FILE, append_log, load_log, now_iso};
use super::status::{STATUS_FILE, STATUS_SEAL, ServerStatus, StatusFile, ViewOutput, resync};
use crate::kernel::{DefinedTool, JsonSchema, Tool, ToolContext, ToolResult, define_tool};
use crate::state::StateDir;

/// Where grafting reads from, as the command line gives it.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--mcp-config FILE`.
    pub explicit: Option<PathBuf>,
    pub cwd: PathBuf,
    /// `--no-mcp`.
    pub no_mcp: bool,
    /// Skip the refresh a changed config triggers (`mcp refresh` does its own).
    pub no_auto_refresh: bool,
    /// Read the cache only, never refresh, now or later: the invocation does
    /// not use the grafted tools (a built-in tool's call), so it must neither
    /// wait on an MCP server nor start one. The next invocation that uses them
    /// refreshes.
    pub cache_only: bool,
}

/// Why grafting is off, when it is.
pub fn grafting_off(opts: &Options) -> Option<&'static str> {
    if opts.no_mcp {
        Some("--no-mcp or INDUS_NO_MCP")
    } else if std::env::var_os(CHILD_MARKER).is_some_and(|v| !v.is_empty()) {
        Some("this indus-tool was started as an MCP server by another (INDUS_MCP_CHILD is set)")
    } else {
        None
    }
}

/// The grafting state of one invocation.
pub struct Graft {
    pub config: McpConfig,
    pub ledger: BridgeLedger,
    pub status: StatusFile,
    /// Lines for stderr: config warnings, refresh failures, state errors.
    pub notes: Vec<String>,
    /// The invocation uses MCP (a grafted tool, `mcp …`, the tool list): its
    /// notes are shown. A built-in tool's call never reports on MCP servers
    /// (`mcp servers` and `mcp refresh` do).
    pub concerns_mcp: bool,
    cwd: PathBuf,
}

/// One server's refresh outcome.
#[derive(Debug, Clone)]
pub struct RefreshReport {
    pub server: String,
    pub status: ServerStatus,
}

impl Graft {
    /// Read the config (and, when it names servers, the cache, refreshing it if
    /// the config changed). `None` when grafting is off.
    pub fn prepare(opts: &Options) -> Option<Graft> {
        if grafting_off(opts).is_some() {
            return None;
        }
        let config = discover(opts.explicit.clone(), &opts.cwd);
        let mut notes = config.untrusted_notes();
        notes.extend(config.warnings.iter().map(ToString::to_string));
        let mut graft = Graft {
            notes,
            concerns_mcp: !opts.cache_only,
            config,
            ledger: BridgeLedger::empty(),
            status: StatusFile::default(),
            cwd: opts.cwd.clone(),
        };
        if graft.config.is_empty() {
            return Some(graft);
        }
        let state = graft.state();
        match load_log(&state) {
            Ok(log) => graft.ledger = BridgeLedger::from_log(log),
            Err(e) => graft.notes.push(format!("mcp: {e}")),
        }
        match state.load_sealed::<StatusFile>(STATUS_FILE, STATUS_SEAL) {
            Ok(s) => graft.status = s,
            Err(e) => graft.notes.push(format!("mcp: {e}")),
        }
        let due = !opts.no_auto_refresh
            && !opts.cache_only
            && graft.status.config_hash.as_deref() != Some(graft.config.hash().as_str());
        if due {
            for report in graft.refresh(None) {
                if let Some(e) = &report.status.last_error {
                    graft.notes.push(e.clone());
                }
            }
        }
        Some(graft)
    }

    fn state(&self) -> StateDir {
        StateDir::new(&self.cwd)
    }

    /// The live grafted tools of the configured servers, in ledger order.
    pub fn tools(&self) -> Vec<DefinedTool> {
        self.ledger
            .live_capabilities()
            .into_iter()
            .filter_map(|live| {
                // A name that normalises like a catalog tool's (`todo__read` and
                // `todo_read`) would make name matching ambiguous: not grafted.
                if let Some(row) = crate::deck::find_row(&live.capability.name) {
                    eprintln!(
                        "indus-tool: MCP tool {} is not grafted: its name matches the built-in {} once _ and - are ignored",
                        live.capability.name, row.id
                    );
                    return None;
                }
                let server = self.config.server(&live.server)?;
                Some(define_tool(Arc::new(GraftedTool {
                    capability: live.capability,
                    server: Arc::new(server.clone()),
                    cwd: self.cwd.clone(),
                })))
            })
            .collect()
    }

    /// Connect to every configured server (or `only`), list their tools and fold
    /// the difference into the persisted ledger; record each server's status.
    /// Blocking: runs its own current-thread runtime.
    pub fn refresh(&mut self, only: Option<&str>) -> Vec<RefreshReport> {
        let targets: Vec<ServerConfig> = self
            .config
            .servers
            .iter()
            .filter(|s| only.is_none_or(|o| o == s.name))
            .cloned()
            .collect();
        let cwd = self.cwd.clone();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a current-thread runtime builds");
        let results: Vec<(ServerConfig, Result<Vec<BridgeCapability>, String>)> =
            runtime.block_on(async {
                let calls = targets.into_iter().map(|server| {
                    let cwd = cwd.clone();
                    async move {
                        let listed = match connect(&server, &cwd).await {
                            Ok(conn) => {
                                let caps = conn.capabilities().await;
                                conn.close().await;
                                caps
                            }
                            Err(e) => Err(e),
                        };
                        (server, listed)
                    }
                });
                futures_util::future::join_all(calls).await
            });
        drop(runtime);
        let at = now_iso();
        let configured: Vec<String> = self.config.servers.iter().map(|s| s.name.clone()).collect();
        let hash = only.is_none().then(|| self.config.hash());
        let state = self.state();
        let outcome = (|| -> std::io::Result<(BridgeLedger, StatusFile, Vec<RefreshReport>)> {
            let lock = state.lock()?;
            let mut ledger = BridgeLedger::from_log(load_log(&state)?);
            let mut status: StatusFile = state.load_sealed(STATUS_FILE, STATUS_SEAL)?;
            let mut appended = Vec::new();
            let mut reports = Vec::new();
            for (server, listed) in results {
                let (next, entries, row) = match listed {
                    Ok(caps) => {
                        let (next, entries) = ledger.sync_server(&server.name, caps, &at);
                        let tools = next.live_capabilities_for_server(&server.name).len();
                        let row = ServerStatus {
                            transport: server.transport.kind().to_string(),
                            status: "ready".into(),
                            tools,
                            last_error: None,
                            refreshed_at: at.clone(),
                        };
                        (next, entries, row)
                    }
                    Err(e) => {
                        let next = ledger.withdraw_server(&server.name, &at);
                        let entries = next.log()[ledger.log().len()..].to_vec();
                        let row = ServerStatus {
                            transport: server.transport.kind().to_string(),
                            status: "failed".into(),
                            tools: 0,
                            last_error: Some(e),
                            refreshed_at: at.clone(),
                        };
                        (next, entries, row)
                    }
                };
                ledger = next;
                appended.extend(entries);
                status.servers.insert(server.name.clone(), row.clone());
                reports.push(RefreshReport {
                    server: server.name,
                    status: row,
                });
            }
            if only.is_none() {
                // Servers no longer configured are withdrawn; their events stay.
                let gone: Vec<String> = ledger
                    .snapshot()
                    .by_server
                    .keys()
                    .filter(|s| !configured.contains(s))
                    .cloned()
                    .collect();
                for server in gone {
                    let next = ledger.withdraw_server(&server, &at);
                    appended.extend(next.log()[ledger.log().len()..].to_vec());
                    ledger = next;
                }
                status.servers.retain(|name, _| configured.contains(name));
                status.config_hash = hash;
            }
            append_log(&state, &appended)?;
            state.write_sealed(&lock, STATUS_FILE, STATUS_SEAL, &status, true)?;
            Ok((ledger, status, reports))
        })();
        match outcome {
            Ok((ledger, status, reports)) => {
                self.ledger = ledger;
                self.status = status;
                reports
            }
            Err(e) => {
                self.notes
                    .push(format!("mcp: cannot record the refresh: {e}"));
                Vec::new()
            }
        }
    }
}

/// A tool of an MCP server, reached by connecting for each call.
struct GraftedTool {
    capability: Arc<BridgeCapability>,
    server: Arc<ServerConfig>,
    cwd: PathBuf,
}

#[async_trait]
impl Tool for GraftedTool {
    fn name(&self) -> &str {
        &self.capability.name
    }

    fn description(&self) -> &str {
        &self.capability.description
    }

    /// The server decides what its tool takes: its inputs pass through as given.
    fn strict_input(&self) -> bool {
        false
    }

    fn parameters(&self) -> JsonSchema {
        match &self.capability.input_schema {
            Value::Object(_) => self.capability.input_schema.clone(),
            _ => json!({"type": "object", "properties": {}}),
        }
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let cancelled = || {
            ToolResult::failure(format!(
                "{}: cancelled; the MCP server \"{}\" was stopped",
                self.capability.name, self.server.name
            ))
        };
        // A warm broker (`mcp up`) takes the call when one runs here.
        if let Some(outcome) = super::broker::call(
            &self.cwd,
            &self.server,
            &self.capability.tool,
            &input,
            &ctx.cancel,
        )
        .await
        {
            return match outcome {
                Ok(r) => r,
                // The broker's server is the broker's: it keeps running.
                Err(e) if e.is_empty() => ToolResult::failure(format!(
                    "{}: cancelled; the MCP server \"{}\" keeps running in the warm broker (mcp down ends it)",
                    self.capability.name, self.server.name
                )),
                Err(e) => ToolResult::failure(e),
            };
        }
        let conn = tokio::select! {
            _ = ctx.cancel.cancelled() => return cancelled(),
            conn = connect(&self.server, &self.cwd) => conn,
        };
        let conn = match conn {
            Ok(c) => c,
            Err(e) => return ToolResult::failure(e),
        };
        let result = tokio::select! {
            _ = ctx.cancel.cancelled() => Err(String::new()),
            r = conn.call(&self.capability.tool, input) => r,
        };
        if result.is_ok()
            && conn.tools_changed().await
            && let Ok(caps) = conn.capabilities().await
        {
            resync(&self.cwd, &self.server.name, caps);
        }
        if result.is_ok() {
            conn.close().await;
        } else {
            conn.abandon().await;
        }
        match result {
            Ok(r) => r,
            Err(e) if e.is_empty() => cancelled(),
            Err(e) => ToolResult::failure(e),
        }
    }
}

fn table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  ", w = widths[i]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The first line with text: a description may open with a newline (Python
/// servers' docstrings do), which would show as a blank summary.
fn first_line(s: &str) -> &str {
    s.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

/// `mcp servers | tools [SERVER] | ledger | refresh [SERVER]`.
pub fn view(
    graft: Option<&mut Graft>,
    opts: &Options,
    sub: &str,
    arg: Option<&str>,
    json: bool,
) -> ViewOutput {
    let mut out = ViewOutput::default();
    let Some(graft) = graft else {
        out.stderr.push(format!(
            "mcp {sub}: grafting is off ({})",
            grafting_off(opts).unwrap_or("")
        ));
        if json {
            out.stdout = if sub == "ledger" {
                String::new()
            } else {
                "[]\n".into()
            };
        }
        return out;
    };
    if let Some(name) = arg
        && graft.config.server(name).is_none()
    {
        out.stderr.push(format!(
            "mcp {sub}: no MCP server named \"{name}\" is configured"
        ));
        out.code = 2;
        return out;
    }
    if sub == "names" {
        // For shell completion: `NAME<TAB>SUMMARY` lines from the cache, quietly.
        for tool in graft.tools() {
            let summary = first_line(crate::kernel::contract::summary(
                tool.description().trim_start(),
            ));
            out.stdout.push_str(&format!(
                "{}\t{}\n",
                tool.name(),
                summary.replace(['\t', '\n'], " ")
            ));
        }
        return out;
    }
    if graft.config.is_empty() && sub != "ledger" {
        out.stderr.push(if !graft.config.untrusted.is_empty() {
            "mcp: no usable MCP server: the project's config files are not trusted (see above)"
                .into()
        } else if graft.config.warnings.is_empty() {
            "mcp: no MCP servers are configured (see `indus-tool mcp --help`)".into()
        } else {
            "mcp: no usable MCP server: the config's servers were skipped (see above)".into()
        });
    }
    // A server the config names but that cannot be started as written is a
    // failed refresh too.
    if sub == "refresh" && !graft.config.warnings.is_empty() {
        out.code = 1;
    }
    match sub {
        "servers" | "refresh" => servers_view(graft, sub, arg, json, &mut out),
        "tools" => tools_view(graft, arg, json, &mut out),
        "ledger" => ledger_view(graft, json, &mut out),
        other => {
            out.stderr.push(format!("mcp: unknown view \"{other}\""));
            out.code = 2;
        }
    }
    out
}

/// `mcp servers` and `mcp refresh`: one row per configured server.
fn servers_view(graft: &mut Graft, sub: &str, arg: Option<&str>, json: bool, out: &mut ViewOutput) {
    let reports = if sub == "refresh" {
        let reports = graft.refresh(arg);
        if reports.iter().any(|r| r.status.status != "ready") {
            out.code = 1;
        }
        Some(reports)
    } else {
        None
    };
    let mut rows = Vec::new();
    let mut values = Vec::new();
    for server in &graft.config.servers {
        if arg.is_some_and(|a| a != server.name) {
            continue;
        }
        let status = graft.status.servers.get(&server.name);
        let tools = graft
            .ledger
            .live_capabilities_for_server(&server.name)
            .len();
        let state = status.map_or("unrefreshed", |s| s.status.as_str());
        let error = status.and_then(|s| s.last_error.clone());
        rows.push(vec![
            server.name.clone(),
            server.transport.kind().to_string(),
            state.to_string(),
            format!("{tools} tools"),
            error.as_deref().map(first_line).unwrap_or("").to_string(),
        ]);
        values.push(json!({
            "name": server.name,
            "transport": server.transport.kind(),
            "status": state,
            "tools": tools,
            "lastError": error,
            "refreshedAt": status.map(|s| s.refreshed_at.clone()),
            "source": server.source.display().to_string(),
        }));
    }
    if let Some(reports) = reports {
        for r in reports {
            if let Some(e) = r.status.last_error {
                out.stderr.push(e);
            }
        }
    }
    out.stdout = if json {
        format!("{}\n", Value::Array(values))
    } else {
        table(&rows)
    };
}

/// `mcp tools [SERVER]`: the live tools of the ledger.
fn tools_view(graft: &Graft, arg: Option<&str>, json: bool, out: &mut ViewOutput) {
    let live = match arg {
        Some(server) => graft.ledger.live_capabilities_for_server(server),
        None => graft.ledger.live_capabilities(),
    };
    let live: Vec<_> = live
        .into_iter()
        .filter(|l| graft.config.server(&l.server).is_some())
        .collect();
    if json {
        let values: Vec<Value> = live
            .iter()
            .map(|l| {
                json!({
                    "name": l.capability.name,
                    "server": l.server,
                    "tool": l.capability.tool,
                    "description": l.capability.description,
                    "inputSchema": l.capability.input_schema,
                })
            })
            .collect();
        out.stdout = format!("{}\n", Value::Array(values));
    } else {
        let rows: Vec<Vec<String>> = live
            .iter()
            .map(|l| {
                vec![
                    l.capability.name.clone(),
                    l.server.clone(),
                    first_line(crate::kernel::contract::summary(
                        l.capability.description.trim_start(),
                    ))
                    .to_string(),
                ]
            })
            .collect();
        out.stdout = table(&rows);
    }
}

/// `mcp ledger`: the ledger's events.
fn ledger_view(graft: &Graft, json: bool, out: &mut ViewOutput) {
    let state = graft.state();
    let log = match load_log(&state) {
        Ok(l) => l,
        Err(e) => {
            out.stderr.push(format!("mcp ledger: {e}"));
            out.code = 1;
            return;
        }
    };
    if json {
        for e in &log {
            out.stdout
                .push_str(&serde_json::to_string(e).expect("entries serialize"));
            out.stdout.push('\n');
        }
    } else {
        let rows: Vec<Vec<String>> = log
            .iter()
            .map(|e| {
                vec![
                    e.seq.to_string(),
                    e.at.clone(),
                    serde_json::to_value(e.op)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    e.server.clone(),
                    e.key.0.clone(),
                    e.capability
                        .as_ref()
                        .map(|c| c.name.clone())
                        .unwrap_or_default(),
                ]
            })
            .collect();
        out.stdout = table(&rows);
    }
    if log.is_empty() && !json {
        out.stderr.push(format!(
            "mcp ledger: {} holds no events",
            state.path(LEDGER_FILE).display()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_skips_leading_blank_lines() {
        let d = "\n    Read a file.   More text.\n";
        assert_eq!(
            first_line(crate::kernel::contract::summary(d.trim_start())),
            "Read a file."
        );
        assert_eq!(first_line("\n\n"), "");
    }
}
