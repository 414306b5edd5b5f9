//! One language server, spoken to over its stdio: the JSON-RPC framing
//! (`Content-Length` headers), requests matched to their answers, the server's own
//! requests answered, the documents this client opened with their versions, and
//! the diagnostics the server published, kept per document with the version they
//! were published for.
//!
//! The protocol's types are `lsp-types`'; the framing is a dozen lines written here
//! because the crates that frame (`async-lsp`, `tower-lsp`) bring a service stack
//! built for servers, and the client needs only read a header and a body.
//!
//! Bounds, because a server is someone else's program: a message over
//! [`MAX_MESSAGE`] ends the connection; diagnostics are kept only as the latest per
//! document, at most [`MAX_DOCS_PUBLISHED`] documents and [`MAX_PER_DOC`] each, so a
//! server that floods them cannot grow the broker; stderr keeps only its last
//! [`STDERR_TAIL`] bytes (for the message that says why a server died). The server
//! runs in a process group of its own and dies with the broker (`PR_SET_PDEATHSIG`),
//! so no server outlives the process that started it, whatever kills that.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Instant;

use lsp_types::{Diagnostic, Url};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::{Mutex, Notify, oneshot};
use tokio_util::sync::CancellationToken;

/// The largest message accepted from a server (64 MiB).
pub const MAX_MESSAGE: usize = 64 * 1024 * 1024;
/// The most documents whose published diagnostics are kept.
pub const MAX_DOCS_PUBLISHED: usize = 20_000;
/// The most diagnostics kept for one document.
pub const MAX_PER_DOC: usize = 5_000;
/// How much of a server's stderr is kept.
pub const STDERR_TAIL: usize = 8 * 1024;

/// What a server published for one document.
#[derive(Debug, Clone)]
pub struct Published {
    /// The document version the server said these are for, if it said.
    pub version: Option<i32>,
    pub diagnostics: Vec<Diagnostic>,
    /// The connection's publication counter when this arrived.
    pub seq: u64,
    /// How many the server sent beyond [`MAX_PER_DOC`].
    pub dropped: usize,
}

/// A document this client opened: its version and the hash of the text sent.
#[derive(Debug, Clone)]
pub struct OpenDoc {
    pub version: i32,
    pub text_hash: String,
}

/// The answer to a request: the result, or the server's error.
pub type Answer = Result<Value, RpcError>;

/// An error object from the server, or the connection's end.
#[derive(Debug, Clone)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    /// `ServerCancelled`'s `retriggerRequest` data, when given.
    pub data: Option<Value>,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

/// The code this client uses for "the server went away".
pub const CONNECTION_CLOSED: i64 = -32099;

/// The publications kept: the latest per document, the oldest document
/// forgotten first when [`MAX_DOCS_PUBLISHED`] are kept (a flood of documents
/// never crowds out the one a caller waits for, which is always the newest).
#[derive(Default)]
struct Store {
    by_uri: HashMap<Url, Published>,
    order: std::collections::VecDeque<Url>,
}

/// State the reader task and the callers share.
#[derive(Default)]
struct Shared {
    pending: std::sync::Mutex<HashMap<i64, oneshot::Sender<Answer>>>,
    published: std::sync::Mutex<Store>,
    /// Bumped on every publication; waiters are woken through `changed`.
    seq: AtomicU64,
    changed: Notify,
    stderr: std::sync::Mutex<Vec<u8>>,
    /// Whether any publication carried no version (the server does not tag).
    unversioned: std::sync::atomic::AtomicBool,
    closed: CancellationToken,
    /// Why the connection ended.
    end: std::sync::Mutex<Option<String>>,
    /// The workspace folders, for `workspace/workspaceFolders`.
    folders: Value,
}

/// A running language server.
pub struct Connection {
    pub name: String,
    pub pid: u32,
    /// The server's capabilities as it sent them: only a few are read, and
    /// `lsp_types::ServerCapabilities` would cost the shipping build 100 KB of
    /// parsers for the rest.
    pub capabilities: Value,
    /// How long starting and initializing took.
    pub start_ms: u64,
    stdin: Arc<Mutex<ChildStdin>>,
    child: std::sync::Mutex<Option<Child>>,
    next_id: AtomicI64,
    shared: Arc<Shared>,
    pub docs: Mutex<HashMap<Url, OpenDoc>>,
}

/// Write one framed message.
async fn send_frame(stdin: &mut ChildStdin, message: &Value) -> std::io::Result<()> {
    let body = serde_json::to_vec(message)?;
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(&body);
    stdin.write_all(&frame).await?;
    stdin.flush().await
}

/// Read one framed message; `Ok(None)` at the end of the stream.
pub async fn read_frame<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
) -> std::io::Result<Option<Value>> {
    let mut length: Option<usize> = None;
    let mut line = String::new();
    loop {
        line.clear();
        // A header line longer than this is no header.
        let n = (&mut *reader).take(8 * 1024).read_line(&mut line).await?;
        if n == 0 {
            return Ok(None);
        }
        let trimmed = line.trim_end_matches(['\r', '\n']);
        if trimmed.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Some((name, value)) = trimmed.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = Some(value.trim().parse().map_err(|_| {
                std::io::Error::other(format!("the server sent a bad Content-Length: {value:?}"))
            })?);
        }
    }
    let length = length.unwrap_or_default();
    if length > MAX_MESSAGE {
        return Err(std::io::Error::other(format!(
            "the server sent a message of {length} bytes, over the {MAX_MESSAGE}-byte limit"
        )));
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body).await?;
    serde_json::from_slice(&body).map(Some).map_err(|e| {
        std::io::Error::other(format!("the server sent a message that is not JSON: {e}"))
    })
}

impl Shared {
    fn finish(&self, why: String) {
        let mut end = self.end.lock().expect("end lock");
        if end.is_none() {
            *end = Some(why);
        }
        drop(end);
        self.closed.cancel();
        let pending: Vec<_> = self.pending.lock().expect("pending lock").drain().collect();
        for (_, tx) in pending {
            let _ = tx.send(Err(RpcError {
                code: CONNECTION_CLOSED,
                message: "the server ended".into(),
                data: None,
            }));
        }
        self.changed.notify_waiters();
    }

    fn publish(&self, params: &Value) {
        let Ok(p) = serde_json::from_value::<lsp_types::PublishDiagnosticsParams>(params.clone())
        else {
            return;
        };
        if p.version.is_none() {
            self.unversioned.store(true, Ordering::SeqCst);
        }
        let seq = self.seq.fetch_add(1, Ordering::SeqCst) + 1;
        let mut diagnostics = p.diagnostics;
        let dropped = diagnostics.len().saturating_sub(MAX_PER_DOC);
        diagnostics.truncate(MAX_PER_DOC);
        let mut store = self.published.lock().expect("published lock");
        if !store.by_uri.contains_key(&p.uri) {
            while store.by_uri.len() >= MAX_DOCS_PUBLISHED {
                let Some(old) = store.order.pop_front() else {
                    break;
                };
                store.by_uri.remove(&old);
            }
            store.order.push_back(p.uri.clone());
        }
        store.by_uri.insert(
            p.uri,
            Published {
                version: p.version,
                diagnostics,
                seq,
                dropped,
            },
        );
        drop(store);
        self.changed.notify_waiters();
    }

    /// The answer to a request the server made of us.
    fn answer_server(&self, method: &str, params: &Value) -> Value {
        match method {
            // No settings of ours: every item asked gets "none".
            "workspace/configuration" => {
                let n = params["items"].as_array().map_or(0, Vec::len);
                json!({"result": vec![Value::Null; n]})
            }
            "workspace/workspaceFolders" => json!({"result": self.folders}),
            "window/workDoneProgress/create"
            | "client/registerCapability"
            | "client/unregisterCapability"
            | "workspace/diagnostic/refresh"
            | "workspace/semanticTokens/refresh"
            | "workspace/inlayHint/refresh"
            | "workspace/codeLens/refresh" => json!({"result": null}),
            "window/showMessageRequest" => json!({"result": null}),
            // Edits are applied by the tool that asked for them, never by the server.
            "workspace/applyEdit" => {
                json!({"result": {"applied": false, "failureReason": "this client applies no edits a server asks for"}})
            }
            _ => {
                json!({"error": {"code": -32601, "message": format!("method not found: {method}")}})
            }
        }
    }
}

/// The client capabilities this client announces: what it reads of the answers.
fn client_capabilities() -> Value {
    json!({
        "workspace": {
            "workspaceFolders": true,
            "configuration": true,
            "workspaceEdit": {"documentChanges": true},
            "symbol": {},
            "diagnostics": {"refreshSupport": false},
        },
        "textDocument": {
            "synchronization": {"didSave": true, "dynamicRegistration": false},
            "publishDiagnostics": {"versionSupport": true, "relatedInformation": false},
            "diagnostic": {"dynamicRegistration": false, "relatedDocumentSupport": false},
            "definition": {"linkSupport": false},
            "references": {},
            "hover": {"contentFormat": ["plaintext", "markdown"]},
            "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
            "rename": {"prepareSupport": false},
        },
        "window": {"workDoneProgress": false},
        "general": {"positionEncodings": ["utf-16"]},
    })
}

impl Connection {
    /// Start `argv` in `root` and initialize it; `init_options` is the server's
    /// own `initializationOptions`.
    pub async fn start(
        name: &str,
        argv: &[String],
        root: &Path,
        init_options: Option<Value>,
        envs: &[(String, String)],
    ) -> Result<Connection, String> {
        let started = Instant::now();
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| format!("{name}: the server's command is empty"))?;
        let mut command = tokio::process::Command::new(program);
        command
            .args(args)
            .current_dir(root)
            .envs(envs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        // SAFETY: prctl is async-signal-safe and touches no memory of ours.
        unsafe {
            command.pre_exec(|| {
                nix::libc::prctl(nix::libc::PR_SET_PDEATHSIG, nix::libc::SIGKILL);
                Ok(())
            });
        }
        let mut child = command
            .spawn()
            .map_err(|e| format!("{name}: cannot run {program}: {e}"))?;
        let pid = child.id().unwrap_or_default();
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let root_uri = Url::from_directory_path(root)
            .map_err(|()| format!("{name}: {} is not an absolute folder", root.display()))?;
        let folder_name = root
            .file_name()
            .map_or_else(|| "/".to_string(), |n| n.to_string_lossy().into_owned());
        let shared = Arc::new(Shared {
            folders: json!([{"uri": root_uri.as_str(), "name": folder_name}]),
            ..Shared::default()
        });
        let conn = Connection {
            name: name.to_string(),
            pid,
            capabilities: Value::Null,
            start_ms: 0,
            stdin: Arc::new(Mutex::new(stdin)),
            child: std::sync::Mutex::new(Some(child)),
            next_id: AtomicI64::new(1),
            shared: shared.clone(),
            docs: Mutex::new(HashMap::new()),
        };
        tokio::spawn(keep_stderr(stderr, shared.clone()));
        tokio::spawn(read_loop(stdout, shared, conn.stdin.clone()));
        let params = json!({
            "processId": std::process::id(),
            "clientInfo": {"name": "indus-tool", "version": env!("CARGO_PKG_VERSION")},
            "rootUri": root_uri.as_str(),
            "rootPath": root.display().to_string(),
            "workspaceFolders": conn.shared.folders,
            "capabilities": client_capabilities(),
            "initializationOptions": init_options,
        });
        let result = conn
            .request("initialize", params)
            .await
            .map_err(|e| conn.failure("initialize", &e))?;
        let capabilities = match result.get("capabilities") {
            Some(c @ Value::Object(_)) => c.clone(),
            _ => {
                return Err(format!(
                    "{name}: its initialize answer holds no capabilities object"
                ));
            }
        };
        conn.notify("initialized", json!({}))
            .await
            .map_err(|e| format!("{name}: {e}"))?;
        Ok(Connection {
            capabilities,
            start_ms: started.elapsed().as_millis() as u64,
            ..conn
        })
    }

    /// Why a request failed, for a message: the server's error, or how it ended
    /// with the tail of its stderr.
    pub fn failure(&self, what: &str, e: &RpcError) -> String {
        if e.code == CONNECTION_CLOSED {
            return format!("{} ended during {what}: {}", self.name, self.end_reason());
        }
        format!("{} answered {what} with an error: {e}", self.name)
    }

    /// How the server ended, with the last lines of its stderr.
    pub fn end_reason(&self) -> String {
        let why = self
            .shared
            .end
            .lock()
            .expect("end lock")
            .clone()
            .unwrap_or_else(|| "it closed its output".into());
        let tail = String::from_utf8_lossy(&self.shared.stderr.lock().expect("stderr lock"))
            .trim()
            .lines()
            .rev()
            .take(5)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n");
        if tail.is_empty() {
            why
        } else {
            format!("{why}; its last words on stderr:\n{tail}")
        }
    }

    pub fn is_closed(&self) -> bool {
        self.shared.closed.is_cancelled()
    }

    /// Send a request and wait for its answer (the caller bounds the wait).
    pub async fn request(&self, method: &str, params: Value) -> Answer {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        self.shared
            .pending
            .lock()
            .expect("pending lock")
            .insert(id, tx);
        if self.is_closed() {
            self.shared
                .pending
                .lock()
                .expect("pending lock")
                .remove(&id);
            return Err(closed());
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if let Err(e) = send_frame(&mut *self.stdin.lock().await, &message).await {
            self.shared.finish(format!("writing to it failed: {e}"));
        }
        let guard = PendingGuard {
            shared: &self.shared,
            id,
        };
        let answer = rx.await.unwrap_or_else(|_| Err(closed()));
        drop(guard);
        answer
    }

    /// Send a notification.
    pub async fn notify(&self, method: &str, params: Value) -> Result<(), String> {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        send_frame(&mut *self.stdin.lock().await, &message)
            .await
            .map_err(|e| {
                self.shared.finish(format!("writing to it failed: {e}"));
                format!("{} cannot be written to: {e}", self.name)
            })
    }

    /// The publication counter now: publications after it are newer.
    pub fn seq(&self) -> u64 {
        self.shared.seq.load(Ordering::SeqCst)
    }

    /// Whether the server has published without a version.
    pub fn unversioned(&self) -> bool {
        self.shared.unversioned.load(Ordering::SeqCst)
    }

    /// What the server last published for `uri`.
    pub fn published(&self, uri: &Url) -> Option<Published> {
        self.shared
            .published
            .lock()
            .expect("published lock")
            .by_uri
            .get(uri)
            .cloned()
    }

    /// Wait until `ready` holds of what is published for `uri` (checked at each
    /// publication), or the connection ends (`Err` with why).
    pub async fn wait_published(
        &self,
        uri: &Url,
        ready: impl Fn(&Published) -> bool,
    ) -> Result<Published, String> {
        loop {
            let notified = self.shared.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(p) = self.published(uri)
                && ready(&p)
            {
                return Ok(p);
            }
            if self.is_closed() {
                return Err(format!("{} ended: {}", self.name, self.end_reason()));
            }
            notified.await;
        }
    }

    /// End the server: `shutdown` and `exit` when it answers within `grace`,
    /// then its whole process group killed.
    pub async fn close(&self, grace: std::time::Duration) {
        if !self.is_closed() {
            let _ = tokio::time::timeout(grace, self.request("shutdown", Value::Null)).await;
            let _ = self.notify("exit", Value::Null).await;
        }
        let child = self.child.lock().expect("child lock").take();
        if let Some(mut child) = child {
            if tokio::time::timeout(grace, child.wait()).await.is_err() {
                // The group: a server's own children (a node worker, a tsserver) too.
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(self.pid as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
                let _ = child.wait().await;
            } else {
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(self.pid as i32),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
        self.shared.finish("stopped".into());
    }

    /// The server's resident memory in bytes, from `/proc` (0 when unknown).
    pub fn rss_bytes(&self) -> u64 {
        std::fs::read_to_string(format!("/proc/{}/statm", self.pid))
            .ok()
            .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
            .map_or(0, |pages| pages * 4096)
    }
}

fn closed() -> RpcError {
    RpcError {
        code: CONNECTION_CLOSED,
        message: "the server ended".into(),
        data: None,
    }
}

/// Removes a request's slot when its caller stops waiting (a timeout), so an
/// answer that never comes leaves nothing behind.
struct PendingGuard<'a> {
    shared: &'a Shared,
    id: i64,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.shared
            .pending
            .lock()
            .expect("pending lock")
            .remove(&self.id);
    }
}

async fn keep_stderr(mut stderr: tokio::process::ChildStderr, shared: Arc<Shared>) {
    let mut buf = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let mut tail = shared.stderr.lock().expect("stderr lock");
        tail.extend_from_slice(&buf[..n]);
        let excess = tail.len().saturating_sub(STDERR_TAIL);
        tail.drain(..excess);
    }
}

/// Read the server's messages until its output ends: answers go to their
/// callers, publications to the store, the server's requests are answered.
async fn read_loop(
    stdout: tokio::process::ChildStdout,
    shared: Arc<Shared>,
    stdin: Arc<Mutex<ChildStdin>>,
) {
    let mut reader = BufReader::new(stdout);
    let why = loop {
        let message = match read_frame(&mut reader).await {
            Ok(Some(m)) => m,
            Ok(None) => break "it closed its output (exited or crashed)".to_string(),
            Err(e) => break e.to_string(),
        };
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|v| !v.is_null());
        match (method, id) {
            (Some(method), Some(id)) => {
                let mut reply = shared.answer_server(method, &message["params"]);
                reply["jsonrpc"] = json!("2.0");
                reply["id"] = id.clone();
                let _ = send_frame(&mut *stdin.lock().await, &reply).await;
            }
            (Some("textDocument/publishDiagnostics"), None) => shared.publish(&message["params"]),
            (Some(_), None) => {}
            (None, Some(id)) => {
                let Some(id) = id.as_i64() else { continue };
                let Some(tx) = shared.pending.lock().expect("pending lock").remove(&id) else {
                    continue;
                };
                let answer = match message.get("error") {
                    Some(e) if !e.is_null() => Err(RpcError {
                        code: e["code"].as_i64().unwrap_or(0),
                        message: e["message"].as_str().unwrap_or("(no message)").to_string(),
                        data: e.get("data").cloned(),
                    }),
                    _ => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = tx.send(answer);
            }
            (None, None) => {}
        }
    };
    shared.finish(why);
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(bytes: &[u8]) -> Vec<std::io::Result<Option<Value>>> {
        let mut reader = BufReader::new(bytes);
        let mut out = Vec::new();
        loop {
            let r = read_frame(&mut reader).await;
            let done = !matches!(r, Ok(Some(_)));
            out.push(r);
            if done {
                return out;
            }
        }
    }

    #[tokio::test]
    async fn frames_are_read_by_their_length_whatever_other_headers_say() {
        let body = r#"{"jsonrpc":"2.0","id":1,"result":null}"#;
        let text = format!(
            "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: {}\r\n\r\n{body}Content-Length: 2\r\n\r\n{{}}",
            body.len()
        );
        let got = frames(text.as_bytes()).await;
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].as_ref().unwrap().as_ref().unwrap()["id"], 1);
        assert_eq!(got[1].as_ref().unwrap().as_ref().unwrap(), &json!({}));
        assert!(matches!(got[2], Ok(None)));
    }

    #[tokio::test]
    async fn an_oversized_or_malformed_frame_ends_the_connection_in_words() {
        let huge = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE + 1);
        let e = frames(huge.as_bytes()).await.remove(0).unwrap_err();
        assert!(e.to_string().contains("over the"), "{e}");
        let bad = frames(b"Content-Length: x\r\n\r\n")
            .await
            .remove(0)
            .unwrap_err();
        assert!(bad.to_string().contains("bad Content-Length"), "{bad}");
        let not_json = frames(b"Content-Length: 3\r\n\r\nabc")
            .await
            .remove(0)
            .unwrap_err();
        assert!(not_json.to_string().contains("not JSON"), "{not_json}");
    }

    #[test]
    fn the_server_is_answered_what_it_asks() {
        let shared = Shared::default();
        let r = shared.answer_server(
            "workspace/configuration",
            &json!({"items": [{"section": "a"}, {"section": "b"}]}),
        );
        assert_eq!(r["result"], json!([null, null]));
        let r = shared.answer_server("workspace/applyEdit", &json!({}));
        assert_eq!(r["result"]["applied"], false);
        let r = shared.answer_server("nonsense/method", &json!({}));
        assert_eq!(r["error"]["code"], -32601);
    }

    #[test]
    fn a_flood_keeps_the_newest_documents_within_the_cap() {
        let shared = Shared::default();
        for i in 0..(MAX_DOCS_PUBLISHED + 10) {
            shared.publish(&json!({"uri": format!("file:///d/{i}"), "diagnostics": []}));
        }
        let store = shared.published.lock().unwrap();
        assert_eq!(store.by_uri.len(), MAX_DOCS_PUBLISHED);
        let newest = Url::parse(&format!("file:///d/{}", MAX_DOCS_PUBLISHED + 9)).unwrap();
        assert!(store.by_uri.contains_key(&newest));
        assert!(
            !store
                .by_uri
                .contains_key(&Url::parse("file:///d/0").unwrap())
        );
        assert!(shared.unversioned.load(Ordering::SeqCst));
    }
}
