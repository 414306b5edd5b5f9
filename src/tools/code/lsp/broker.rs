//! The language-server broker: one warm helper per working directory
//! (`tools::shell::warm`, the job engine's, in the book `lsp/broker-jobs.json` with
//! ids `lsp-N`) that keeps a language server per project and server running between
//! one-shot calls, so a call pays a socket round trip instead of a server's
//! start-up. The first call that needs it starts it; it exits after an idle time,
//! on `lsp stop`, on `process stop lsp-N`, or on SIGTERM/SIGINT/SIGHUP, and its
//! servers die with it.
//!
//! A request carries the server spec its caller resolved (after trust), and the
//! text of every document it concerns, read by the caller: the broker reads no
//! configuration and no project file, and keeps each document open in the server at
//! the text last sent, bumping its version when the text changed.
//!
//! **Settled diagnostics.** A document's diagnostics are taken only for the version
//! just sent: by pull (`textDocument/diagnostic`) when the server offers it, which
//! answers for the document as it is; else from `publishDiagnostics` carrying that
//! version. A server that publishes without versions (seen once, remembered for the
//! connection) gets the publications that arrive after the change was sent, the
//! last of them once none has come for [`QUIET`] (tsserver's syntax list comes
//! before its semantic one), and the answer says so (`settledBy: "publications
//! after the change, then quiet for 250 ms"`): nothing but time tells a partial
//! list from a whole one then. Never a fixed sleep: a server
//! that has not settled within the call's time answers "timed out", which the tools
//! turn into exit 2, never "no errors".
//!
//! A server that dies during a request is started again and the request made once
//! more (every request here only reads; `rename` is applied by the caller); a
//! server that does not finish starting within [`START_LIMIT`] is killed; one over
//! its memory cap ([`MAX_RSS`]) is killed and said so to the next call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lsp_types::Url;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use tokio::sync::watch;

use super::conn::{CONNECTION_CLOSED, Connection, Published};
use super::servers::ServerSpec;
use crate::kernel::ToolContext;
use crate::kernel::digest::{canonical_json, sha256_hex};
use crate::state::StateDir;
use crate::state::jobs::JobBook;
use crate::tools::shell::warm::{Activity, Caller, Warm, accept_until_done};

/// How long the broker waits without a call before it exits.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(900);
/// The longest a server may take to start and initialize.
pub const START_LIMIT: Duration = Duration::from_secs(120);
/// The most memory a server may hold before it is stopped (8 GiB).
pub const MAX_RSS: u64 = 8 * 1024 * 1024 * 1024;
/// How long a server that gives no versions must have published nothing more
/// for a document before its last list is taken as settled.
const QUIET: Duration = Duration::from_millis(250);
/// How long a caller waits for a fresh broker to answer.
const BROKER_START: Duration = Duration::from_secs(5);
/// Beyond the call's own time, what a caller allows the broker to answer.
const REPLY_MARGIN: Duration = Duration::from_secs(5);

/// The broker and its callers must be the same program.
fn version() -> String {
    format!("indus-tool {}", env!("CARGO_PKG_VERSION"))
}

/// The broker as a warm helper, in the job book of ids `lsp-N`, which `process
/// stop lsp-N` finds too.
pub const WARM: Warm = Warm {
    name: "lsp broker",
    socket_file: "lsp/broker.sock",
    book: JobBook::lsp_broker,
};

/// A document as a request carries it: its path and the text to check.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocText {
    pub path: PathBuf,
    pub language_id: String,
    pub text: String,
}

/// A request, as the socket carries it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Request {
    /// The settled diagnostics of `docs`, each synced first.
    Diagnose {
        version: String,
        server: ServerSpec,
        docs: Vec<DocText>,
        timeout_ms: u64,
    },
    /// An LSP request (`method`, `params`) after syncing `docs`.
    Query {
        version: String,
        server: ServerSpec,
        docs: Vec<DocText>,
        method: String,
        params: Value,
        timeout_ms: u64,
    },
    /// Who are you, and which servers run?
    Ping,
    /// Exit now, stopping every server.
    Shutdown,
}

// ---------------------------------------------------------------- the caller

/// The running broker's answer to a ping.
pub fn ping(cwd: &Path) -> Option<Value> {
    WARM.ask(cwd, &Request::Ping, Duration::from_secs(2))
        .filter(|v| v.get("pid").is_some() && v["version"] == version())
}

/// Make `request` of the broker of `ctx`'s working directory, starting it when
/// none answers. Concurrent callers start one broker between them: starting is
/// serialized by a lock file, and each one pings again once it holds it.
pub fn call(ctx: &ToolContext, request: &Request, timeout_ms: u64) -> Result<Value, String> {
    let cwd = PathBuf::from(&ctx.cwd);
    if ping(&cwd).is_none() {
        let state = StateDir::new(&cwd);
        let lock_path = state
            .make_dirs("lsp")
            .map(|d| d.join("start.lock"))
            .map_err(|e| format!("lsp: cannot prepare the state folder: {e}"))?;
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| format!("lsp: cannot open {}: {e}", lock_path.display()))?;
        lock.lock()
            .map_err(|e| format!("lsp: cannot lock {}: {e}", lock_path.display()))?;
        if ping(&cwd).is_none() {
            let exe = std::env::current_exe()
                .map_err(|e| format!("lsp: cannot find this program's path: {e}"))?;
            let argv = [
                exe.to_string_lossy().into_owned(),
                "--no-mcp".into(),
                "lsp-broker".into(),
                "--idle".into(),
                DEFAULT_IDLE.as_secs().to_string(),
            ];
            WARM.start(ctx, &argv, BROKER_START, || ping(&cwd))
                .map_err(|e| format!("lsp: {e}"))?;
        }
        drop(lock);
    }
    let limit = Duration::from_millis(timeout_ms) + REPLY_MARGIN;
    WARM.ask(&cwd, request, limit).ok_or_else(|| {
        format!(
            "lsp: the broker ({}) gave no answer within {} ms",
            WARM.socket_path(&cwd).display(),
            limit.as_millis()
        )
    })
}

/// A diagnose request.
pub fn diagnose_request(server: ServerSpec, docs: Vec<DocText>, timeout_ms: u64) -> Request {
    Request::Diagnose {
        version: version(),
        server,
        docs,
        timeout_ms,
    }
}

/// A query request.
pub fn query_request(
    server: ServerSpec,
    docs: Vec<DocText>,
    method: &str,
    params: Value,
    timeout_ms: u64,
) -> Request {
    Request::Query {
        version: version(),
        server,
        docs,
        method: method.to_string(),
        params,
        timeout_ms,
    }
}

// ---------------------------------------------------------------- the broker

/// A server slot: starting (callers wait on the channel) or running.
enum Slot {
    Starting(watch::Receiver<Option<Result<Arc<Connection>, String>>>),
    Ready(Arc<Connection>),
    /// It was stopped for a reason the next call is told.
    Failed(String),
}

struct Broker {
    socket: PathBuf,
    idle: Duration,
    slots: std::sync::Mutex<HashMap<String, Slot>>,
    activity: Arc<Activity>,
}

/// Why a request could not be answered.
enum Trouble {
    /// The call's time ran out.
    Timeout,
    /// The server ended during the request (it is restarted once).
    Died(String),
    Other(String),
}

impl Broker {
    /// The running server for `spec`, started when there is none. `cold`: this
    /// call waited for it to start.
    async fn connection(
        self: &Arc<Self>,
        spec: &ServerSpec,
    ) -> Result<(Arc<Connection>, bool), String> {
        let key = canonical_json(&serde_json::to_value(spec).expect("specs serialize"));
        let mut rx = {
            let mut slots = self.slots.lock().expect("slots lock");
            match slots.get(&key) {
                Some(Slot::Ready(c)) if !c.is_closed() => return Ok((c.clone(), false)),
                Some(Slot::Starting(rx)) => rx.clone(),
                other => {
                    if let Some(Slot::Ready(c)) = other {
                        eprintln!("lsp broker: {} had ended: {}", c.name, c.end_reason());
                    }
                    let note = match other {
                        Some(Slot::Failed(why)) => Some(why.clone()),
                        _ => None,
                    };
                    let (tx, rx) = watch::channel(None);
                    slots.insert(key.clone(), Slot::Starting(rx.clone()));
                    let spec = spec.clone();
                    let slots_key = key.clone();
                    let me = Arc::downgrade(self);
                    tokio::spawn(async move {
                        let started = tokio::time::timeout(
                            START_LIMIT,
                            Connection::start(
                                &spec.name,
                                &spec.command,
                                &spec.root,
                                spec.initialization_options.clone(),
                                &[],
                            ),
                        )
                        .await
                        .unwrap_or_else(|_| {
                            Err(format!(
                                "{} did not finish starting within {} s (stopped)",
                                spec.name,
                                START_LIMIT.as_secs()
                            ))
                        })
                        .map(Arc::new)
                        .map_err(|e| match &note {
                            Some(n) => format!("{e} (before: {n})"),
                            None => e,
                        });
                        if let Some(me) = me.upgrade() {
                            let mut slots = me.slots.lock().expect("slots lock");
                            match &started {
                                Ok(c) => {
                                    eprintln!(
                                        "lsp broker: started {} (pid {}) in {} ms",
                                        c.name, c.pid, c.start_ms
                                    );
                                    slots.insert(slots_key, Slot::Ready(c.clone()));
                                }
                                Err(_) => {
                                    slots.remove(&slots_key);
                                }
                            }
                        }
                        let _ = tx.send(Some(started));
                    });
                    rx
                }
            }
        };
        let got = rx
            .wait_for(Option::is_some)
            .await
            .map_err(|_| "the server's start was abandoned".to_string())?;
        match got.as_ref().expect("waited for Some") {
            Ok(c) => Ok((c.clone(), true)),
            Err(e) => Err(e.clone()),
        }
    }

    /// Stop every server over its memory cap; the next call starts it afresh
    /// and is told why.
    fn police_memory(&self) {
        let mut slots = self.slots.lock().expect("slots lock");
        for slot in slots.values_mut() {
            let Slot::Ready(c) = slot else { continue };
            let rss = c.rss_bytes();
            if rss > MAX_RSS && !c.is_closed() {
                let why = format!(
                    "{} held {} MiB, over the {} MiB cap, and was stopped",
                    c.name,
                    rss >> 20,
                    MAX_RSS >> 20
                );
                eprintln!("lsp broker: {why}");
                let c = c.clone();
                tokio::spawn(async move { c.close(Duration::from_millis(200)).await });
                *slot = Slot::Failed(why);
            }
        }
    }

    /// Answer one request (the time limit is the caller's).
    async fn answer(self: &Arc<Self>, request: Request) -> Value {
        match request {
            Request::Ping => {
                let servers: Vec<Value> = self
                    .slots
                    .lock()
                    .expect("slots lock")
                    .values()
                    .filter_map(|s| match s {
                        Slot::Ready(c) if !c.is_closed() => Some(json!({
                            "name": c.name, "pid": c.pid, "startMs": c.start_ms,
                            "rssBytes": c.rss_bytes(),
                        })),
                        _ => None,
                    })
                    .collect();
                json!({
                    "pid": std::process::id(),
                    "socket": self.socket.display().to_string(),
                    "idleSecs": self.idle.as_secs(),
                    "version": version(),
                    "servers": servers,
                })
            }
            Request::Shutdown => {
                self.activity.stop.cancel();
                json!({"ok": true})
            }
            Request::Diagnose { version: v, .. } | Request::Query { version: v, .. }
                if v != version() =>
            {
                json!({"error": format!("the lsp broker is {} and the caller {v}; run `indus-tool lsp stop` and call again", version())})
            }
            Request::Diagnose {
                server,
                docs,
                timeout_ms,
                ..
            } => {
                self.with_retry(&server, timeout_ms, "to settle", |c| {
                    let docs = docs.clone();
                    async move { diagnose(&c, &docs).await }
                })
                .await
            }
            Request::Query {
                server,
                docs,
                method,
                params,
                timeout_ms,
                ..
            } => {
                self.with_retry(&server, timeout_ms, "to answer", |c| {
                    let (docs, method, params) = (docs.clone(), method.clone(), params.clone());
                    async move { query(&c, &docs, &method, params).await }
                })
                .await
            }
        }
    }

    /// Run `op` on the server within `timeout_ms`, starting the server when
    /// needed, and once more on a fresh server when it died during the first try.
    /// `waiting`: what a timeout of `op` waited for (`to settle`, `to answer`).
    async fn with_retry<F, Fut>(
        self: &Arc<Self>,
        spec: &ServerSpec,
        timeout_ms: u64,
        waiting: &str,
        op: F,
    ) -> Value
    where
        F: Fn(Arc<Connection>) -> Fut,
        Fut: std::future::Future<Output = Result<Value, Trouble>>,
    {
        let began = Instant::now();
        let deadline = tokio::time::Instant::now() + Duration::from_millis(timeout_ms);
        let mut restarted: Option<String> = None;
        let mut cold_ms: Option<u64> = None;
        loop {
            let got = tokio::time::timeout_at(deadline, self.connection(spec)).await;
            let conn = match got {
                Err(_) => {
                    return timed_out(spec, timeout_ms, "to start", cold_ms, began);
                }
                Ok(Err(e)) => return json!({"error": e}),
                Ok(Ok((c, cold))) => {
                    if cold {
                        cold_ms = Some(c.start_ms);
                    }
                    c
                }
            };
            let op_began = Instant::now();
            let outcome = match tokio::time::timeout_at(deadline, op(conn.clone())).await {
                Err(_) => Err(Trouble::Timeout),
                Ok(r) => r,
            };
            match outcome {
                Ok(mut answer) => {
                    answer["server"] = json!({
                        "name": conn.name,
                        "pid": conn.pid,
                        "cold": cold_ms.is_some(),
                        "startMs": cold_ms,
                        "waitMs": op_began.elapsed().as_millis() as u64,
                        "totalMs": began.elapsed().as_millis() as u64,
                        "restarted": restarted,
                    });
                    return answer;
                }
                Err(Trouble::Timeout) => {
                    return timed_out(spec, timeout_ms, waiting, cold_ms, began);
                }
                Err(Trouble::Died(why)) if restarted.is_none() => {
                    eprintln!("lsp broker: {} died during a request: {why}", conn.name);
                    restarted = Some(why);
                }
                Err(Trouble::Died(why)) => {
                    return json!({"error": format!("{} died during the request twice: {why}", conn.name)});
                }
                Err(Trouble::Other(e)) => return json!({"error": e}),
            }
        }
    }

    async fn close_all(&self) {
        let conns: Vec<Arc<Connection>> = self
            .slots
            .lock()
            .expect("slots lock")
            .drain()
            .filter_map(|(_, s)| match s {
                Slot::Ready(c) => Some(c),
                _ => None,
            })
            .collect();
        let closing = conns.iter().map(|c| c.close(Duration::from_secs(2)));
        futures_util::future::join_all(closing).await;
    }

    /// One caller: one request line, one reply line.
    async fn serve(self: Arc<Self>, stream: tokio::net::UnixStream) {
        let Some(mut caller) = Caller::read(stream).await else {
            return;
        };
        let _call = self.activity.begin();
        let reply = match serde_json::from_str::<Request>(&caller.line) {
            Err(e) => Some(json!({"error": format!("lsp broker: unreadable request: {e}")})),
            Ok(request) => {
                let answer = self.answer(request);
                tokio::pin!(answer);
                let mut rest = [0u8; 1];
                // The caller went away (Ctrl-C, killed): the request is dropped.
                tokio::select! {
                    a = &mut answer => Some(a),
                    _ = caller.rest.read(&mut rest) => None,
                }
            }
        };
        if let Some(reply) = reply {
            caller.reply(&reply).await;
        }
    }
}

fn timed_out(
    spec: &ServerSpec,
    timeout_ms: u64,
    what: &str,
    cold_ms: Option<u64>,
    began: Instant,
) -> Value {
    json!({
        "timeout": format!("timed out after {timeout_ms} ms waiting for {} {what}", spec.name),
        "server": {"name": spec.name, "cold": cold_ms.is_some(), "startMs": cold_ms, "totalMs": began.elapsed().as_millis() as u64},
    })
}

fn uri_of(path: &Path) -> Result<Url, Trouble> {
    Url::from_file_path(path)
        .map_err(|()| Trouble::Other(format!("{} is not an absolute path", path.display())))
}

/// Open or update `doc` in the server. The version now held, and whether the
/// text changed (or was opened) by this call.
async fn sync(conn: &Connection, doc: &DocText) -> Result<(Url, i32, bool), Trouble> {
    let uri = uri_of(&doc.path)?;
    let hash = sha256_hex(doc.text.as_bytes());
    let mut docs = conn.docs.lock().await;
    let (method, params, version, changed) = match docs.get(&uri) {
        None => (
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": doc.language_id, "version": 1, "text": doc.text}}),
            1,
            true,
        ),
        Some(open) if open.text_hash == hash => return Ok((uri, open.version, false)),
        Some(open) => {
            let v = open.version + 1;
            (
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": v}, "contentChanges": [{"text": doc.text}]}),
                v,
                true,
            )
        }
    };
    conn.notify(method, params).await.map_err(Trouble::Died)?;
    docs.insert(
        uri.clone(),
        super::conn::OpenDoc {
            version,
            text_hash: hash,
        },
    );
    Ok((uri, version, changed))
}

/// The settled diagnostics of each document (see the module comment).
async fn diagnose(conn: &Connection, docs: &[DocText]) -> Result<Value, Trouble> {
    let pull = conn
        .capabilities
        .get("diagnosticProvider")
        .is_some_and(|d| !d.is_null() && *d != Value::Bool(false));
    let mut synced = Vec::new();
    for doc in docs {
        let before = conn.seq();
        let (uri, version, changed) = sync(conn, doc).await?;
        synced.push((doc, uri, version, changed, before));
    }
    let mut files = Vec::new();
    for (doc, uri, version, changed, before) in synced {
        let (diagnostics, settled_by) = if pull {
            (pull_diagnostics(conn, &uri).await?, "pull")
        } else {
            let unversioned = conn.unversioned();
            let ready = |p: &Published| match p.version {
                Some(v) => v == version,
                None => p.seq > before || !changed,
            };
            let mut p = conn
                .wait_published(&uri, ready)
                .await
                .map_err(Trouble::Died)?;
            let versioned = p.version.is_some() && !unversioned;
            // No version: a server may publish a document in parts (tsserver's
            // syntax list, then its semantic one), so later lists are taken
            // until none has come for QUIET.
            if !versioned && changed {
                loop {
                    let seen = p.seq;
                    let newer = conn.wait_published(&uri, |q| q.seq > seen);
                    match tokio::time::timeout(QUIET, newer).await {
                        Ok(Ok(q)) => p = q,
                        Ok(Err(e)) => return Err(Trouble::Died(e)),
                        Err(_) => break,
                    }
                }
            }
            let by = if versioned {
                "publication for the version sent"
            } else {
                "publications after the change, then quiet for 250 ms"
            };
            let diagnostics = p
                .diagnostics
                .iter()
                .map(|d| serde_json::to_value(d).expect("diagnostics serialize"))
                .collect::<Vec<_>>();
            (diagnostics, by)
        };
        files.push(json!({
            "path": doc.path,
            "version": version,
            "settledBy": settled_by,
            "diagnostics": diagnostics,
        }));
    }
    Ok(json!({"files": files}))
}

/// `textDocument/diagnostic` until the server answers with a report (a
/// `ServerCancelled` that asks to be retriggered is asked again).
async fn pull_diagnostics(conn: &Connection, uri: &Url) -> Result<Vec<Value>, Trouble> {
    loop {
        let answer = conn
            .request(
                "textDocument/diagnostic",
                json!({"textDocument": {"uri": uri}}),
            )
            .await;
        match answer {
            Ok(report) => {
                let items = report["items"].as_array().cloned().unwrap_or_default();
                if report["kind"] == "unchanged" {
                    // No resultId was ever sent, so "unchanged" is a server's slip:
                    // fall back to what it published.
                    return Ok(conn
                        .published(uri)
                        .map(|p| {
                            p.diagnostics
                                .iter()
                                .map(|d| serde_json::to_value(d).expect("diagnostics serialize"))
                                .collect()
                        })
                        .unwrap_or_default());
                }
                return Ok(items);
            }
            Err(e) if e.code == CONNECTION_CLOSED => {
                return Err(Trouble::Died(conn.end_reason()));
            }
            // ServerCancelled: ask again once it settles.
            Err(e) if e.code == -32802 => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            // ContentModified: the document changed under the request.
            Err(e) if e.code == -32801 => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => return Err(Trouble::Other(conn.failure("textDocument/diagnostic", &e))),
        }
    }
}

/// An LSP request after syncing `docs`.
async fn query(
    conn: &Connection,
    docs: &[DocText],
    method: &str,
    params: Value,
) -> Result<Value, Trouble> {
    for doc in docs {
        sync(conn, doc).await?;
    }
    loop {
        match conn.request(method, params.clone()).await {
            Ok(result) => return Ok(json!({"result": result})),
            Err(e) if e.code == CONNECTION_CLOSED => {
                return Err(Trouble::Died(conn.end_reason()));
            }
            Err(e) if e.code == -32802 || e.code == -32801 => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => return Err(Trouble::Other(conn.failure(method, &e))),
        }
    }
}

/// The broker's life (the hidden `lsp broker` command): serve until idle, told
/// to stop, or signalled; then stop every server and remove the socket.
pub fn run(cwd: &Path, idle: Duration) -> std::io::Result<()> {
    let (runtime, listener, socket) = WARM.open(cwd, idle)?;
    runtime.block_on(async {
        let broker = Arc::new(Broker {
            socket: socket.clone(),
            idle,
            slots: Default::default(),
            activity: Arc::new(Activity::default()),
        });
        let police = broker.clone();
        let watchdog = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(2));
            loop {
                tick.tick().await;
                police.police_memory();
            }
        });
        let activity = broker.activity.clone();
        let why = accept_until_done(listener, &socket, idle, &activity, |stream| {
            broker.clone().serve(stream)
        })
        .await?;
        watchdog.abort();
        broker.close_all().await;
        eprintln!("lsp broker: exiting ({why})");
        Ok(())
    })
}
