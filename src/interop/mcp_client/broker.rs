//! The warm broker (`mcp up` / `mcp down`): one background process per working
//! directory that keeps the MCP servers' connections open, so that a grafted call
//! from a one-shot invocation costs a unix-socket round trip instead of a
//! server's startup.
//!
//! A one-shot `indus-tool` cannot keep a stdio child alive past its own exit, so
//! the connections live in a process of their own, a warm helper
//! (`tools::shell::warm`, shared with the language-server broker). It is started on the one job
//! engine (a supervised, detached job like `process start`'s, in a table of its
//! own, `mcp/broker-jobs.json`, so `process list` does not show it and its exit
//! status and logs are kept like any job's) and listens on
//! `.indus-process/mcp/broker.sock` — or, when that path is too long for a unix
//! socket (108 bytes), on a socket named by a hash of the working directory in a
//! per-user folder under the temp directory that only its owner may enter. It
//! exits by itself after an idle time (no call in flight, none made for that
//! long), on `mcp down`, or on SIGTERM/SIGINT/SIGHUP, closing every connection
//! (a stdio child's process group is killed).
//!
//! Protocol: one connection per request, one JSON object per line each way (a
//! call's progress and log notices, `{"notice": …}`, come before its answer). A
//! call carries the full server config (after `${VAR}` expansion) the caller
//! would have connected with, so the broker reads no config file: a caller with
//! another `--mcp-config` or another environment gets a connection made for its
//! own config (connections are keyed by the config's canonical JSON). The caller
//! connects cold whenever the broker is not there, refuses (another version), or
//! cannot be reached; a broker that ends *during* a call is reported, never
//! retried, since the call may have had effects. A caller that goes away (Ctrl-C)
//! closes its socket; the broker then drops the call, keeping the connection.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use super::client::{
    Connection, ProgressLine, Timeouts, ask_log_level, asked_log_level, connect, level_name,
    level_of,
};
use super::config::{McpConfig, ServerConfig};
use super::status::{ViewOutput, resync};
use crate::kernel::digest::canonical_json;
use crate::kernel::relay::{Notice, Relay};
use crate::kernel::{ToolContentBlock, ToolContext, ToolResult};
use crate::state::StateDir;
use crate::state::jobs::JobBook;
use crate::tools::shell::warm::{Activity, Caller, Warm, accept_until_done};

/// How long the broker waits without a call before it exits, by default.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(600);
/// The broker's socket, inside the state folder.
pub const SOCKET_FILE: &str = "mcp/broker.sock";
/// How long a caller waits to be accepted before connecting cold.
const DIAL_TIMEOUT: Duration = Duration::from_millis(500);
/// How long `mcp up` waits for a fresh broker to answer.
const START_TIMEOUT: Duration = Duration::from_secs(5);
/// Beyond the server's own timeouts, what a caller allows the broker.
const REPLY_MARGIN: Duration = Duration::from_secs(5);

/// The broker and its callers must be the same program.
fn version() -> String {
    format!("indus-tool {}", env!("CARGO_PKG_VERSION"))
}

/// The job book the broker runs in: its own table and folder under `mcp/`.
pub fn broker_book(state: StateDir) -> JobBook {
    JobBook {
        state,
        table: "mcp/broker-jobs.json".to_string(),
        jobs_dir: "mcp/broker".to_string(),
        prefix: "broker-",
    }
}

/// The broker as a warm helper: its socket and job book.
pub const WARM: Warm = Warm {
    name: "mcp broker",
    socket_file: SOCKET_FILE,
    book: broker_book,
};

/// Whether the socket of `cwd`'s broker may be dialled (see [`Warm::ours`]).
fn ours(cwd: &Path, socket: &Path) -> bool {
    WARM.ours(cwd, socket)
}

/// Where the broker of `cwd` listens (see the module comment).
pub fn socket_path(cwd: &Path) -> PathBuf {
    WARM.socket_path(cwd)
}

/// A request, as the socket carries it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Request {
    /// Call `tool` of `server` (connecting first when no connection is open).
    Call {
        version: String,
        server: Box<ServerConfig>,
        tool: String,
        arguments: Value,
        /// The MCP log level the caller asks of servers (see
        /// `client::ask_log_level`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        log_level: Option<String>,
        /// The caller passes the server's answer on verbatim (it serves MCP
        /// itself): send it whole, as a notice, ahead of the projected one.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        verbatim: bool,
    },
    /// Connect to these servers now (`mcp up`), concurrently.
    Connect {
        version: String,
        servers: Vec<ServerConfig>,
    },
    /// Who are you?
    Ping,
    /// Exit now.
    Shutdown,
}

fn result_to_wire(result: &ToolResult) -> Value {
    let content: Vec<Value> = result
        .content
        .iter()
        .map(ToolContentBlock::to_value)
        .collect();
    json!({"content": content, "isError": result.is_error})
}

fn result_from_wire(value: &Value) -> Option<ToolResult> {
    let content = value
        .get("content")?
        .as_array()?
        .iter()
        .map(ToolContentBlock::from_value)
        .collect::<Option<Vec<_>>>()?;
    Some(ToolResult {
        content,
        is_error: value.get("isError")?.as_bool()?,
    })
}

// ---------------------------------------------------------------- the caller

/// Make `tool`'s call through the broker of `cwd`. `None`: no broker took it
/// (none running, unreachable, another version) and nothing was sent to a
/// server, so the caller connects cold. `Some(Err(""))`: cancelled.
pub async fn call(
    cwd: &Path,
    server: &ServerConfig,
    tool: &str,
    arguments: &Value,
    cancel: &CancellationToken,
) -> Option<Result<ToolResult, String>> {
    let socket = socket_path(cwd);
    // One `stat` is all a cold call pays for the broker's absence.
    if std::fs::symlink_metadata(&socket).is_err() || !ours(cwd, &socket) {
        return None;
    }
    let stream = tokio::time::timeout(DIAL_TIMEOUT, tokio::net::UnixStream::connect(&socket))
        .await
        .ok()?
        .ok()?;
    let request = Request::Call {
        version: version(),
        server: Box::new(server.clone()),
        tool: tool.to_string(),
        arguments: arguments.clone(),
        log_level: asked_log_level().map(level_name),
        verbatim: crate::kernel::relay::current().is_some(),
    };
    let mut line = serde_json::to_vec(&request).expect("requests serialize");
    line.push(b'\n');
    let (read, mut write) = stream.into_split();
    write.write_all(&line).await.ok()?;
    let timeouts = Timeouts::of(server);
    let limit = timeouts.connect + timeouts.call + REPLY_MARGIN;
    let gone = |why: &str| {
        Some(Err(format!(
            "mcp server \"{}\": the warm broker ({}) {why} during the call of {tool}; the call may or may not have run",
            server.name,
            socket.display()
        )))
    };
    // Notices go where they would from a connection of our own: to the relay
    // of whoever called us, else to the terminal.
    let relay = crate::kernel::relay::current();
    let line_shown = ProgressLine::labelled(&server.name);
    let mut reader = tokio::io::BufReader::new(read);
    let deadline = tokio::time::Instant::now() + limit;
    let value = loop {
        let mut reply = String::new();
        let read = tokio::select! {
            _ = cancel.cancelled() => {
                line_shown.clear();
                return Some(Err(String::new()));
            }
            r = tokio::time::timeout_at(deadline, reader.read_line(&mut reply)) => r,
        };
        match read {
            Err(_) => return gone(&format!("gave no answer within {} ms", limit.as_millis())),
            Ok(Err(e)) => return gone(&format!("failed ({e})")),
            Ok(Ok(0)) => return gone("ended"),
            Ok(Ok(_)) => {}
        }
        let value: Value = match serde_json::from_str(&reply) {
            Ok(v) => v,
            Err(e) => return gone(&format!("answered something unreadable ({e})")),
        };
        match value
            .get("notice")
            .map(|n| serde_json::from_value::<Notice>(n.clone()))
        {
            Some(Ok(notice)) => match &relay {
                Some(relay) => relay.send(notice),
                None => line_shown.show(notice),
            },
            Some(Err(_)) => {}
            None => break value,
        }
    };
    line_shown.clear();
    drop(write);
    if value.get("refused").is_some() {
        return None;
    }
    if let Some(e) = value.get("error").and_then(Value::as_str) {
        return Some(Err(e.to_string()));
    }
    match value.get("result").and_then(result_from_wire) {
        Some(result) => Some(Ok(result)),
        None => gone("answered without a result"),
    }
}

/// One blocking request to the broker of `cwd`, for `mcp up` / `mcp down`: the
/// reply, or `None` when no broker answers within `limit`.
fn ask(cwd: &Path, request: &Request, limit: Duration) -> Option<Value> {
    WARM.ask(cwd, request, limit)
}

/// The running broker's answer to a ping: `{"pid", "socket", "idleSecs", "servers"}`.
pub fn ping(cwd: &Path) -> Option<Value> {
    ask(cwd, &Request::Ping, Duration::from_secs(2)).filter(|v| v.get("pid").is_some())
}

/// `mcp up`: start the broker of `cwd` unless one runs, then connect it to every
/// configured server. Exit 1 when the broker did not start or a server failed.
pub fn up(ctx: ToolContext, config: &McpConfig, idle: Duration) -> ViewOutput {
    let mut out = ViewOutput::default();
    let cwd = PathBuf::from(&ctx.cwd);
    let (pong, fresh) = match ping(&cwd) {
        Some(pong) => (pong, false),
        None => match start(&ctx, idle) {
            Ok(pong) => (pong, true),
            Err(e) => {
                out.stderr.push(format!("mcp up: {e}"));
                out.code = 1;
                return out;
            }
        },
    };
    let pid = &pong["pid"];
    let socket = pong["socket"].as_str().unwrap_or_default();
    let idle_secs = &pong["idleSecs"];
    out.stdout = if fresh {
        format!("mcp broker started: pid {pid}, socket {socket}, exits after {idle_secs} s idle\n")
    } else {
        format!(
            "mcp broker already running: pid {pid}, socket {socket}, exits after {idle_secs} s idle\n"
        )
    };
    if config.is_empty() {
        out.stderr
            .push("mcp up: no MCP servers are configured; calls will connect when made".into());
        return out;
    }
    let timeout = config
        .servers
        .iter()
        .map(|s| Timeouts::of(s).connect)
        .max()
        .unwrap_or_default()
        + REPLY_MARGIN;
    let request = Request::Connect {
        version: version(),
        servers: config.servers.clone(),
    };
    let Some(reply) = ask(&cwd, &request, timeout) else {
        out.stderr
            .push("mcp up: the broker did not answer the request to connect".into());
        out.code = 1;
        return out;
    };
    if let Some(refused) = reply.get("refused").and_then(Value::as_str) {
        out.stderr.push(format!("mcp up: {refused}"));
        out.code = 1;
        return out;
    }
    for server in &config.servers {
        match reply["servers"].get(&server.name) {
            Some(Value::Null) => out
                .stdout
                .push_str(&format!("  {}: connected\n", server.name)),
            Some(Value::String(e)) => {
                out.stdout.push_str(&format!("  {}: failed\n", server.name));
                out.stderr.push(e.clone());
                out.code = 1;
            }
            _ => {}
        }
    }
    out
}

/// Start the broker as a job and wait for it to answer.
fn start(ctx: &ToolContext, idle: Duration) -> Result<Value, String> {
    let cwd = PathBuf::from(&ctx.cwd);
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find this program's path to start the broker: {e}"))?;
    let argv = [
        exe.to_string_lossy().into_owned(),
        "--no-mcp".into(),
        "mcp".into(),
        "broker".into(),
        "--idle".into(),
        idle.as_secs().max(1).to_string(),
    ];
    WARM.start(ctx, &argv, START_TIMEOUT, || ping(&cwd))
}

/// `mcp down`: ask the broker to exit; stop its job (SIGTERM, then SIGKILL) if it
/// does not. Not running is not an error.
pub fn down(ctx: ToolContext) -> ViewOutput {
    let mut out = ViewOutput::default();
    let cwd = PathBuf::from(&ctx.cwd);
    let pong = ping(&cwd);
    let stopped = match WARM.stop(&ctx, &Request::Shutdown) {
        Ok(stopped) => stopped,
        Err(errors) => {
            for e in errors {
                out.stderr.push(format!("mcp down: {e}"));
            }
            out.code = 1;
            Vec::new()
        }
    };
    let socket = socket_path(&cwd);
    if ping(&cwd).is_none() {
        let _ = std::fs::remove_file(&socket);
    }
    out.stdout = match (pong, stopped.as_slice()) {
        (_, [pid, ..]) => format!("mcp broker stopped: pid {pid}\n"),
        (Some(p), []) => format!("mcp broker stopped: pid {}\n", p["pid"]),
        (None, []) => "mcp broker is not running\n".to_string(),
    };
    out
}

// ---------------------------------------------------------------- the broker

/// One open connection and the config it was made for.
struct Live {
    key: String,
    conn: Arc<Connection>,
}

type Slot = Arc<tokio::sync::Mutex<Option<Live>>>;

struct Broker {
    cwd: PathBuf,
    socket: PathBuf,
    idle: Duration,
    /// One slot per server name; a slot's lock is held while connecting, so two
    /// callers never start the same server twice.
    slots: std::sync::Mutex<HashMap<String, Slot>>,
    activity: Arc<Activity>,
}

/// The key of a server's config: its canonical JSON.
fn config_key(server: &ServerConfig) -> String {
    canonical_json(&serde_json::to_value(server).expect("configs serialize"))
}

impl Broker {
    fn slot(&self, name: &str) -> Slot {
        let mut slots = self.slots.lock().expect("slots lock");
        slots.entry(name.to_string()).or_default().clone()
    }

    async fn connection(&self, server: &ServerConfig) -> Result<Arc<Connection>, String> {
        let slot = self.slot(&server.name);
        let mut live = slot.lock().await;
        let key = config_key(server);
        if let Some(l) = live.as_ref()
            && l.key == key
        {
            if !l.conn.is_closed() {
                return Ok(l.conn.clone());
            }
            // It ended while idle (killed, crashed, exited): this call is not
            // the one it died in, and simply gets a fresh connection.
            eprintln!(
                "mcp broker: \"{}\" had ended while idle; connecting again",
                server.name
            );
        }
        // Another config under the same name: the old connection goes (its child
        // is killed once no call holds it any more).
        *live = None;
        let conn = Arc::new(connect(server, &self.cwd).await?);
        eprintln!("mcp broker: connected to \"{}\"", server.name);
        *live = Some(Live {
            key,
            conn: conn.clone(),
        });
        Ok(conn)
    }

    /// Drop a connection that failed, unless it was replaced meanwhile.
    async fn forget(&self, name: &str, conn: &Arc<Connection>) {
        let slot = self.slot(name);
        let mut live = slot.lock().await;
        if live.as_ref().is_some_and(|l| Arc::ptr_eq(&l.conn, conn)) {
            *live = None;
            eprintln!("mcp broker: dropped the connection to \"{name}\"");
        }
    }

    async fn call(&self, server: &ServerConfig, tool: &str, arguments: Value) -> Value {
        let conn = match self.connection(server).await {
            Ok(c) => c,
            Err(e) => return json!({"error": e}),
        };
        match conn.call(tool, arguments).await {
            Ok(result) => {
                if conn.take_tools_changed()
                    && let Ok(caps) = conn.capabilities().await
                {
                    let (cwd, name) = (self.cwd.clone(), server.name.clone());
                    let _ = tokio::task::spawn_blocking(move || resync(&cwd, &name, caps)).await;
                }
                json!({"result": result_to_wire(&result)})
            }
            Err(e) => {
                // A transport failure (died, timed out): the next call reconnects.
                self.forget(&server.name, &conn).await;
                json!({"error": e})
            }
        }
    }

    async fn connect_all(&self, servers: Vec<ServerConfig>) -> Value {
        let attempts = servers.iter().map(|s| async move {
            let outcome = self.connection(s).await.err();
            (s.name.clone(), outcome)
        });
        let mut report = serde_json::Map::new();
        for (name, error) in futures_util::future::join_all(attempts).await {
            report.insert(name, error.map_or(Value::Null, Value::String));
        }
        json!({"servers": report})
    }

    /// One caller: one request line, one reply line.
    async fn serve(self: Arc<Self>, stream: tokio::net::UnixStream) {
        let Some(mut caller) = Caller::read(stream).await else {
            return;
        };
        let _call = self.activity.begin();
        let refused = |v: &str| json!({"refused": format!("the broker is {} and the caller {v}; run `indus-tool mcp down` and `mcp up` again", version())});
        let reply = match serde_json::from_str::<Request>(&caller.line) {
            Err(e) => Some(json!({"error": format!("mcp broker: unreadable request: {e}")})),
            Ok(Request::Ping) => Some(json!({
                "pid": std::process::id(),
                "socket": self.socket.display().to_string(),
                "idleSecs": self.idle.as_secs(),
                "version": version(),
                "servers": self.slots.lock().expect("slots lock").keys().cloned().collect::<Vec<_>>(),
            })),
            Ok(Request::Shutdown) => {
                self.activity.stop.cancel();
                Some(json!({"ok": true}))
            }
            Ok(Request::Connect { version: v, .. } | Request::Call { version: v, .. })
                if v != version() =>
            {
                Some(refused(&v))
            }
            Ok(Request::Connect { servers, .. }) => Some(self.connect_all(servers).await),
            Ok(Request::Call {
                server,
                tool,
                arguments,
                log_level,
                verbatim,
                ..
            }) => {
                if let Some(level) = log_level.as_deref().and_then(level_of) {
                    ask_log_level(level);
                }
                // The call's notices go down the socket ahead of its answer.
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Notice>();
                let relay = Relay::new(move |n| {
                    if verbatim || !matches!(n, Notice::Result { .. }) {
                        let _ = tx.send(n);
                    }
                });
                let call =
                    crate::kernel::relay::relayed(relay, self.call(&server, &tool, arguments));
                tokio::pin!(call);
                // The caller holds its end open until it has the answer; end of
                // input before that means it went away (Ctrl-C): drop the call.
                let mut rest = [0u8; 1];
                loop {
                    tokio::select! {
                        reply = &mut call => {
                            let mut notices = Vec::new();
                            while let Ok(n) = rx.try_recv() {
                                notices.push(n);
                            }
                            if !write_notices(&mut caller.write, notices).await {
                                break None;
                            }
                            break Some(reply);
                        }
                        Some(n) = rx.recv() => {
                            if !write_notices(&mut caller.write, vec![n]).await {
                                break None;
                            }
                        }
                        _ = caller.rest.read(&mut rest) => break None,
                    }
                }
            }
        };
        if let Some(reply) = reply {
            caller.reply(&reply).await;
        }
    }

    async fn close_all(&self) {
        let slots: Vec<Slot> = self
            .slots
            .lock()
            .expect("slots lock")
            .drain()
            .map(|(_, s)| s)
            .collect();
        for slot in slots {
            if let Some(live) = slot.lock().await.take()
                && let Ok(conn) = Arc::try_unwrap(live.conn)
            {
                conn.close().await;
            }
        }
    }
}

/// Write a call's notices to its caller; false when the caller is gone.
async fn write_notices(write: &mut tokio::net::unix::OwnedWriteHalf, notices: Vec<Notice>) -> bool {
    for notice in notices {
        let mut bytes =
            serde_json::to_vec(&json!({ "notice": notice })).expect("notices serialize");
        bytes.push(b'\n');
        if write.write_all(&bytes).await.is_err() {
            return false;
        }
    }
    true
}

/// The broker's life (the hidden `mcp broker` command): serve until idle, told
/// to stop, or signalled; then close every connection and remove the socket.
pub fn run(cwd: &Path, idle: Duration) -> std::io::Result<()> {
    let (runtime, listener, socket) = WARM.open(cwd, idle)?;
    runtime.block_on(async {
        let broker = Arc::new(Broker {
            cwd: cwd.to_path_buf(),
            socket: socket.clone(),
            idle,
            slots: Default::default(),
            activity: Arc::new(Activity::default()),
        });
        let activity = broker.activity.clone();
        let why = accept_until_done(listener, &socket, idle, &activity, |stream| {
            broker.clone().serve(stream)
        })
        .await?;
        broker.close_all().await;
        eprintln!("mcp broker: exiting ({why})");
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_cross_the_socket_unchanged() {
        let result = ToolResult {
            content: vec![
                ToolContentBlock::Text("a\nb".into()),
                ToolContentBlock::Json(json!({"x": [1, 2]})),
            ],
            is_error: true,
        };
        assert_eq!(
            result_from_wire(&result_to_wire(&result)),
            Some(result.clone())
        );
        assert_eq!(
            result_from_wire(&json!({"content": [{"kind": "nope"}], "isError": false})),
            None
        );
    }

    #[test]
    fn long_working_directories_get_a_private_short_socket() {
        let short = Path::new("/tmp/p");
        assert_eq!(
            socket_path(short),
            short.join(".indus-process/mcp/broker.sock")
        );
        let long = PathBuf::from(format!("/tmp/{}", "d".repeat(120)));
        let socket = socket_path(&long);
        assert!(
            socket.as_os_str().len() <= crate::tools::shell::warm::MAX_SOCKET_PATH,
            "{}",
            socket.display()
        );
        assert_eq!(
            socket.parent(),
            Some(crate::state::private_socket_dir().as_path())
        );
        assert_ne!(socket_path(&long.join("x")), socket);
    }

    #[test]
    fn requests_carry_the_servers_config() {
        let text = r#"{"op":"call","version":"v","server":{"name":"s","transport":{"type":"stdio","command":"x","args":[],"env":{}}},"tool":"t","arguments":{}}"#;
        let Ok(Request::Call { server, tool, .. }) = serde_json::from_str::<Request>(text) else {
            panic!("a call parses");
        };
        assert_eq!((server.name.as_str(), tool.as_str()), ("s", "t"));
        assert!(serde_json::from_str::<Request>(r#"{"op":"ping"}"#).is_ok());
        assert!(serde_json::from_str::<Request>(r#"{"op":"reboot"}"#).is_err());
    }
}
