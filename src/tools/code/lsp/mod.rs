//! The language-server client the code tools share: the connection to one server
//! (`conn`), which server reads which file (`servers`), the warm broker that keeps
//! servers running between one-shot calls (`broker`), and here the caller's side
//! of a call: the documents read and checked, grouped by server, sent to the
//! broker off the async runtime, and its answer told apart as a result, a
//! refusal or a timeout.

pub mod broker;
pub mod conn;
pub mod servers;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::kernel::ToolContext;
use broker::DocText;
use servers::{ServerSpec, Servers, language_id};

/// The default time a call allows a server to start and settle.
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;
/// The most a call may allow.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// A document a call concerns.
#[derive(Debug, Clone)]
pub struct Doc {
    /// The path as the caller gave it (or as shown relative to the cwd).
    pub shown: String,
    pub abs: PathBuf,
    pub text: String,
}

impl Doc {
    pub fn wire(&self) -> DocText {
        DocText {
            path: self.abs.clone(),
            language_id: language_id(&self.abs).to_string(),
            text: self.text.clone(),
        }
    }

    /// The same document with another text (a before-image).
    pub fn with_text(&self, text: String) -> Doc {
        Doc {
            text,
            ..self.clone()
        }
    }
}

/// Language servers run on this machine only: refuse a context that reaches
/// another one.
pub fn local_only(ctx: &ToolContext, tool: &str) -> Result<(), String> {
    match &ctx.remote {
        Some(target) => Err(format!(
            "{tool} runs language servers on this machine only, not on {target}"
        )),
        None => Ok(()),
    }
}

/// Read `path` (as given) as a document: confined, a regular UTF-8 file.
pub async fn read_doc(ctx: &ToolContext, tool: &str, path: &str) -> Result<Doc, String> {
    let abs = ctx.confine(path).map_err(|m| format!("{tool}: {m}"))?;
    let info = ctx
        .fs
        .stat(&abs)
        .await
        .map_err(|e| format!("{tool}: {path}: {e}"))?;
    if info.is_directory {
        return Err(format!(
            "{tool}: {path} is a folder; name the files to check"
        ));
    }
    if !info.is_file {
        return Err(format!(
            "{tool}: {}",
            crate::tools::not_regular(path, &info)
        ));
    }
    let text = ctx
        .fs
        .read_text(&abs)
        .await
        .map_err(|e| format!("{tool}: {path}: {e}"))?;
    Ok(Doc {
        shown: path.to_string(),
        abs: PathBuf::from(abs),
        text,
    })
}

/// The configured servers, their notes said once on stderr.
pub fn servers_of(ctx: &ToolContext) -> Servers {
    let servers = Servers::load(Path::new(&ctx.cwd));
    for note in &servers.notes {
        if crate::state::trust::first_naming(&servers::project_config(Path::new(&ctx.cwd))) {
            eprintln!("indus-tool: {note}");
        }
    }
    servers
}

/// `docs` grouped by the server that reads them (in the order first seen).
pub fn group(
    servers: &Servers,
    docs: Vec<Doc>,
    wanted: Option<&str>,
    root: &Path,
) -> Result<Vec<(ServerSpec, Vec<Doc>)>, String> {
    let mut groups: Vec<(ServerSpec, Vec<Doc>)> = Vec::new();
    for doc in docs {
        let spec = servers
            .for_file(&doc.abs, wanted, root)
            .map_err(|e| format!("{}: {e}", doc.shown))?;
        match groups.iter_mut().find(|(s, _)| *s == spec) {
            Some((_, list)) => list.push(doc),
            None => groups.push((spec, vec![doc])),
        }
    }
    Ok(groups)
}

/// What the broker answered.
pub enum Reply {
    Done(Value),
    /// `timed out after N ms waiting for SERVER …`.
    TimedOut(String, Value),
}

/// Send `request` to the broker, off the async runtime (the call blocks on a
/// socket and may start the broker).
pub async fn ask(
    ctx: &ToolContext,
    request: broker::Request,
    timeout_ms: u64,
) -> Result<Reply, String> {
    let ctx2 = ctx.clone();
    let answer = tokio::task::spawn_blocking(move || broker::call(&ctx2, &request, timeout_ms))
        .await
        .map_err(|e| format!("lsp: the call to the broker failed: {e}"))??;
    if let Some(e) = answer.get("error").and_then(Value::as_str) {
        return Err(e.to_string());
    }
    if let Some(t) = answer.get("timeout").and_then(Value::as_str) {
        return Ok(Reply::TimedOut(t.to_string(), answer["server"].clone()));
    }
    Ok(Reply::Done(answer))
}

/// The path shown for an absolute path: relative to the cwd when inside it.
pub fn shown_path(cwd: &str, abs: &Path) -> String {
    match abs.strip_prefix(cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => abs.to_string_lossy().into_owned(),
    }
}
