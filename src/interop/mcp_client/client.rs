//! One connection to one configured MCP server, on the official Rust SDK (rmcp):
//! connect (stdio child or Streamable HTTP), list its tools, call one, close.
//!
//! This module owns the transport-level lifecycle and its failure modes, so that
//! every failure is a message naming the server (never a panic or a hang):
//! connect and call are bounded by timeouts; a stdio child runs in its own process
//! group with its stderr captured (the tail is quoted when anything fails) and the
//! whole group is killed when the connection is dropped; a server that dies
//! mid-call is reported as such. Children get `INDUS_MCP_CHILD=1`, which turns
//! grafting off in an `indus-tool` started that way, so a config that names
//! indus-tool itself cannot graft itself recursively.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indexmap::IndexMap;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, Tool};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::AsyncReadExt;

use super::config::{ServerConfig, ServerTransport};
use super::ledger::{BridgeCapability, qualify_bridge_name};
use crate::kernel::relay::{Notice, Relay};
use crate::kernel::{ToolContentBlock, ToolResult};

/// The variable set on every stdio child; an `indus-tool` that sees it grafts
/// nothing.
pub const CHILD_MARKER: &str = "INDUS_MCP_CHILD";
/// Default connect timeout (spawn or dial, `initialize`, `tools/list`).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default per-call timeout.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);
/// How long after a call a server that announces tool-list changes is given to
/// deliver one.
pub const LIST_CHANGED_GRACE: Duration = Duration::from_millis(50);
/// How much of a child's stderr is kept (the tail).
const STDERR_TAIL: usize = 4096;

/// The timeouts of one server.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub connect: Duration,
    pub call: Duration,
}

impl Timeouts {
    pub fn of(server: &ServerConfig) -> Self {
        Self {
            connect: server
                .connect_timeout_ms
                .map_or(DEFAULT_CONNECT_TIMEOUT, Duration::from_millis),
            call: server
                .call_timeout_ms
                .map_or(DEFAULT_CALL_TIMEOUT, Duration::from_millis),
        }
    }
}

/// How a call's progress and log notices show on a terminal: one progress line
/// on stderr when stderr is a terminal (nothing otherwise: a long call then reads
/// as what it is, not as a hang), and log lines at or above `--mcp-log`'s level.
/// The direct connection's watcher and the warm broker's caller share it.
#[derive(Clone, Default)]
pub struct ProgressLine {
    /// The server's name, the progress line's and log lines' prefix.
    label: Arc<Mutex<String>>,
    bar: Arc<Mutex<Option<indicatif::ProgressBar>>>,
}

impl ProgressLine {
    pub fn labelled(name: &str) -> Self {
        let line = Self::default();
        if let Ok(mut l) = line.label.lock() {
            *l = name.to_string();
        }
        line
    }

    fn label(&self) -> String {
        self.label.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// The call is over: its progress line goes.
    pub fn clear(&self) {
        if let Some(bar) = self.bar.lock().ok().and_then(|mut b| b.take()) {
            bar.finish_and_clear();
        }
    }

    pub fn show(&self, notice: Notice) {
        match notice {
            Notice::Progress {
                progress,
                total,
                message,
            } => self.progress(progress, total, message),
            Notice::Log {
                level,
                logger,
                data,
            } => self.log(&level, logger.as_deref(), &data),
            Notice::Result { .. } => {}
        }
    }

    fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        use std::io::IsTerminal;
        if !std::io::stderr().is_terminal() {
            return;
        }
        let Ok(mut slot) = self.bar.lock() else {
            return;
        };
        let bar = slot.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_prefix(self.label());
            bar
        });
        match total.filter(|t| *t > 0.0) {
            Some(total) => {
                if bar.length() != Some(total as u64) {
                    bar.set_length(total as u64);
                    bar.set_style(
                        indicatif::ProgressStyle::with_template(
                            "{prefix}: [{bar:30}] {pos}/{len} {msg}",
                        )
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                    );
                }
            }
            None => bar.set_style(
                indicatif::ProgressStyle::with_template("{prefix}: {spinner} {pos} {msg}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            ),
        }
        bar.set_position(progress as u64);
        if let Some(message) = message {
            bar.set_message(message);
        }
    }

    fn log(&self, level: &str, logger: Option<&str>, data: &Value) {
        let Some(least) = PRINT_LEVEL.get() else {
            return;
        };
        if level_of(level).map_or(0, severity) < severity(*least) {
            return;
        }
        let data = match data {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let logger = logger.map(|l| format!(" {l}")).unwrap_or_default();
        let line = format!("mcp server \"{}\" [{level}{logger}]: {data}", self.label());
        // Above a progress line, not through it.
        match self.bar.lock().ok().as_deref().and_then(Option::as_ref) {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }
}

/// The client side's handler: remembers a `notifications/tools/list_changed`,
/// and routes a call's progress and the server's log notices — to the relay of
/// the call that is waiting for them (see `kernel::relay`: `indus-tool mcp` and
/// the warm broker pass them on to their own callers), else to a terminal
/// ([`ProgressLine`]).
#[derive(Clone, Default)]
pub struct Watcher {
    pub tools_changed: Arc<AtomicBool>,
    changed: Arc<tokio::sync::Notify>,
    line: ProgressLine,
    /// The relays of the calls in flight, by a number of the call's own.
    relays: Arc<Mutex<HashMap<i64, Relay>>>,
}

impl Watcher {
    fn labelled(name: &str) -> Self {
        Self {
            line: ProgressLine::labelled(name),
            ..Self::default()
        }
    }

    /// Route call `call_id`'s notices to `relay` until [`Watcher::unroute`].
    fn route(&self, call_id: i64, relay: Relay) {
        if let Ok(mut r) = self.relays.lock() {
            r.insert(call_id, relay);
        }
    }

    fn unroute(&self, call_id: i64) {
        if let Ok(mut r) = self.relays.lock() {
            r.remove(&call_id);
        }
    }
}

// MCP's logging notifications are deprecated by a newer protocol revision
// (SEP-2577), but the servers of today send them: they are still read, and a
// level is still asked for.
/// The least severe MCP log level printed on stderr (`--mcp-log LEVEL`); none by
/// default.
#[allow(deprecated)]
static PRINT_LEVEL: std::sync::OnceLock<rmcp::model::LoggingLevel> = std::sync::OnceLock::new();
/// The level asked of servers that log (`logging/setLevel`): `--mcp-log`'s, or
/// the one `indus-tool mcp`'s own client set.
#[allow(deprecated)]
static ASK_LEVEL: Mutex<Option<rmcp::model::LoggingLevel>> = Mutex::new(None);

/// Print servers' log notifications at `level` and above, on stderr, and ask
/// servers that log for that level.
#[allow(deprecated)]
pub fn set_log_level(level: rmcp::model::LoggingLevel) {
    let _ = PRINT_LEVEL.set(level);
    ask_log_level(level);
}

/// Ask servers that log for `level` and above (a client of `indus-tool mcp`
/// set it; the notices go to that client, not to stderr).
#[allow(deprecated)]
pub fn ask_log_level(level: rmcp::model::LoggingLevel) {
    if let Ok(mut l) = ASK_LEVEL.lock() {
        *l = Some(level);
    }
}

/// The level asked of servers, if any.
#[allow(deprecated)]
pub fn asked_log_level() -> Option<rmcp::model::LoggingLevel> {
    ASK_LEVEL.lock().ok().and_then(|l| *l)
}

/// An MCP level from its name.
#[allow(deprecated)]
pub fn level_of(name: &str) -> Option<rmcp::model::LoggingLevel> {
    serde_json::from_value(Value::String(name.to_string())).ok()
}

/// An MCP level's name.
#[allow(deprecated)]
pub fn level_name(level: rmcp::model::LoggingLevel) -> String {
    serde_json::to_value(level)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

#[allow(deprecated)]
pub fn severity(level: rmcp::model::LoggingLevel) -> u8 {
    use rmcp::model::LoggingLevel as L;
    match level {
        L::Debug => 0,
        L::Info => 1,
        L::Notice => 2,
        L::Warning => 3,
        L::Error => 4,
        L::Critical => 5,
        L::Alert => 6,
        L::Emergency => 7,
    }
}

impl ClientHandler for Watcher {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.client_info.name = "indus-tool".into();
        info.client_info.version = env!("CARGO_PKG_VERSION").into();
        info
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed.store(true, Ordering::SeqCst);
        self.changed.notify_waiters();
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let notice = Notice::Progress {
            progress: params.progress,
            total: params.total,
            message: params.message,
        };
        // rmcp chooses the request's token and does not say which it chose: the
        // relay of the one call in flight takes it. Calls overlapping on one
        // connection (the warm broker's) cannot be told apart, and their
        // progress is not passed on.
        let relay = self.relays.lock().ok().and_then(|r| {
            let mut relays = r.values();
            match (relays.next(), relays.next()) {
                (Some(one), None) => Some(one.clone()),
                _ => None,
            }
        });
        match relay {
            Some(relay) => relay.send(notice),
            None => self.line.show(notice),
        }
    }

    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let notice = Notice::Log {
            level: level_name(params.level),
            logger: params.logger,
            data: params.data,
        };
        // A log line belongs to no call: every call waiting on this server
        // with a relay gets it; with none, the terminal shows it.
        let relays: Vec<Relay> = self
            .relays
            .lock()
            .map(|r| r.values().cloned().collect())
            .unwrap_or_default();
        if relays.is_empty() {
            return self.line.show(notice);
        }
        for relay in relays {
            relay.send(notice.clone());
        }
    }
}

/// A live connection. Dropping it ends the session and kills a stdio child's
/// process group.
pub struct Connection {
    server: String,
    service: Option<RunningService<RoleClient, Watcher>>,
    watcher: Watcher,
    pgid: Option<i32>,
    /// Notices and answers share one ordered stream (stdio).
    ordered: bool,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// The size of a message that went over [`MAX_FRAME`] (0: none).
    oversize: Arc<std::sync::atomic::AtomicU64>,
    /// The first bytes a stdio server wrote (see [`FrameGuard`]).
    head: Arc<Mutex<Vec<u8>>>,
    timeouts: Timeouts,
    /// The log level last asked of this server (`logging/setLevel`).
    level_sent: Mutex<Option<String>>,
}

/// The largest single message read from a stdio server: far above any result a
/// person or a model reads whole (the output budget clamps what is shown), low
/// enough that a server streaming without newlines cannot exhaust memory.
/// `INDUS_MCP_MAX_FRAME` (bytes) lowers or raises it.
pub const MAX_FRAME: u64 = 256 * 1024 * 1024;

fn max_frame() -> u64 {
    std::env::var("INDUS_MCP_MAX_FRAME")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(MAX_FRAME)
}

/// A server's stdout, ended with an error once one line outgrows `limit`
/// (recorded in `oversize`), instead of rmcp's silent drop of the line.
struct FrameGuard<R> {
    inner: R,
    since_newline: u64,
    limit: u64,
    oversize: Arc<std::sync::atomic::AtomicU64>,
    /// The first bytes the server wrote, to quote when it never answers.
    head: Arc<Mutex<Vec<u8>>>,
}

/// How much of a server's first output is kept to quote.
const HEAD_KEPT: usize = 200;

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for FrameGuard<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        if let std::task::Poll::Ready(Ok(())) = &polled {
            let fresh = &buf.filled()[before..];
            if let Ok(mut head) = self.head.lock()
                && head.len() < HEAD_KEPT
            {
                let take = fresh.len().min(HEAD_KEPT - head.len());
                head.extend_from_slice(&fresh[..take]);
            }
            self.since_newline = match memchr::memrchr(b'\n', fresh) {
                Some(i) => (fresh.len() - i - 1) as u64,
                None => self.since_newline + fresh.len() as u64,
            };
            if self.since_newline > self.limit {
                self.oversize
                    .store(self.since_newline, std::sync::atomic::Ordering::SeqCst);
                return std::task::Poll::Ready(Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "a message over the frame limit",
                )));
            }
        }
        polled
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        kill_group(self.pgid);
    }
}

fn kill_group(pgid: Option<i32>) {
    if let Some(pgid) = pgid {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pgid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

fn tail_of(buf: &Mutex<Vec<u8>>) -> String {
    let bytes = buf.lock().map(|b| b.clone()).unwrap_or_default();
    String::from_utf8_lossy(&bytes).trim().to_string()
}

/// `mcp server "NAME": WHAT` plus the child's stderr tail, when there is one.
fn failure(server: &str, what: &str, stderr: &Mutex<Vec<u8>>) -> String {
    let tail = tail_of(stderr);
    if tail.is_empty() {
        format!("mcp server \"{server}\": {what}")
    } else {
        format!("mcp server \"{server}\": {what}; its stderr:\n{tail}")
    }
}

/// Connect to `server` (relative stdio `cwd`s resolve against `cwd`), within its
/// connect timeout.
pub async fn connect(server: &ServerConfig, cwd: &Path) -> Result<Connection, String> {
    let timeouts = Timeouts::of(server);
    let watcher = Watcher::labelled(&server.name);
    let stderr = Arc::new(Mutex::new(Vec::new()));
    match &server.transport {
        ServerTransport::Stdio {
            command,
            args,
            env,
            cwd: dir,
        } => {
            let dir = dir.as_ref().map_or(cwd.to_path_buf(), |d| cwd.join(d));
            let spawn = (command.as_str(), args.as_slice(), env, dir.as_path());
            connect_stdio(server, spawn, timeouts, watcher, stderr).await
        }
        ServerTransport::Http { url, headers } | ServerTransport::Sse { url, headers } => {
            connect_http(server, (url, headers), timeouts, watcher, stderr).await
        }
    }
}

/// A child process's command, arguments, environment and folder.
type Spawn<'a> = (
    &'a str,
    &'a [String],
    &'a IndexMap<String, String>,
    &'a Path,
);

/// Start a stdio server and shake hands with it.
async fn connect_stdio(
    server: &ServerConfig,
    spawn: Spawn<'_>,
    timeouts: Timeouts,
    watcher: Watcher,
    stderr: Arc<Mutex<Vec<u8>>>,
) -> Result<Connection, String> {
    let (command, args, env, dir) = spawn;
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args)
        .envs(env)
        .env(CHILD_MARKER, "1")
        .current_dir(dir)
        .process_group(0)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().map_err(|e| {
        format!(
            "mcp server \"{}\": cannot start `{command}`: {e}",
            server.name
        )
    })?;
    let pgid = child.id().map(|p| p as i32);
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        kill_group(pgid);
        return Err(format!("mcp server \"{}\": no pipes to it", server.name));
    };
    let child_stderr = child.stderr.take();
    // Reaped when it ends; ended by its process group (see `kill_group`).
    tokio::spawn(async move {
        let _ = child.wait().await;
    });
    // rmcp drops a line over its 16 MiB default silently, and the call
    // then waits for its whole timeout: the guard ends the stream at the
    // limit instead, and the call fails at once saying the size.
    let oversize = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let head = Arc::new(Mutex::new(Vec::new()));
    let guarded = FrameGuard {
        inner: stdout,
        since_newline: 0,
        limit: max_frame(),
        oversize: Arc::clone(&oversize),
        head: Arc::clone(&head),
    };
    let transport =
        rmcp::transport::async_rw::AsyncRwTransport::<RoleClient, _, _>::new(guarded, stdin)
            .with_max_line_length(usize::MAX);
    if let Some(mut pipe) = child_stderr {
        let sink = Arc::clone(&stderr);
        tokio::spawn(async move {
            let mut chunk = [0u8; 2048];
            while let Ok(n) = pipe.read(&mut chunk).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut buf) = sink.lock() {
                    buf.extend_from_slice(&chunk[..n]);
                    let len = buf.len();
                    if len > STDERR_TAIL {
                        buf.drain(..len - STDERR_TAIL);
                    }
                }
            }
        });
    }
    let mut conn = Connection {
        server: server.name.clone(),
        service: None,
        watcher: watcher.clone(),
        pgid,
        ordered: true,
        stderr,
        oversize,
        head,
        timeouts,
        level_sent: Mutex::new(None),
    };
    let served = tokio::time::timeout(timeouts.connect, watcher.serve(transport)).await;
    conn.service = Some(conn.handshake(served).await?);
    Ok(conn)
}

/// Reach an HTTP server: Streamable HTTP first (unless the row asks for SSE),
/// then the legacy HTTP+SSE transport.
async fn connect_http(
    server: &ServerConfig,
    endpoint: (&str, &IndexMap<String, String>),
    timeouts: Timeouts,
    watcher: Watcher,
    stderr: Arc<Mutex<Vec<u8>>>,
) -> Result<Connection, String> {
    let (url, headers) = endpoint;
    let header_map = header_map(&server.name, headers)?;
    // Each attempt has a watcher of its own, so a failed one leaves nothing.
    let conn = |watcher: &Watcher| Connection {
        server: server.name.clone(),
        service: None,
        watcher: watcher.clone(),
        pgid: None,
        ordered: false,
        stderr: Arc::clone(&stderr),
        oversize: Default::default(),
        head: Default::default(),
        timeouts,
        level_sent: Mutex::new(None),
    };
    let legacy = matches!(server.transport, ServerTransport::Sse { .. });
    let mut first_error = None;
    if !legacy {
        use rmcp::transport::StreamableHttpClientTransport;
        use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
        let mut config = StreamableHttpClientTransportConfig::with_uri(url);
        let mut custom = std::collections::HashMap::new();
        for (name, value) in &header_map {
            // rmcp sends the bearer token itself, from `auth_header`.
            if name == reqwest::header::AUTHORIZATION
                && let Some(token) = value.to_str().ok().and_then(|v| v.strip_prefix("Bearer "))
            {
                config = config.auth_header(token);
                continue;
            }
            custom.insert(name.clone(), value.clone());
        }
        config = config.custom_headers(custom);
        // rmcp builds its own reqwest client, which needs the TLS provider.
        crate::backends::net::install_tls_provider();
        let transport = StreamableHttpClientTransport::from_config(config);
        let watcher = Watcher::labelled(&server.name);
        let mut c = conn(&watcher);
        let served = tokio::time::timeout(timeouts.connect, watcher.serve(transport)).await;
        match c.handshake(served).await {
            Ok(service) => {
                c.service = Some(service);
                return Ok(c);
            }
            Err(e) => first_error = Some(e),
        }
    }
    // The legacy transport: asked for, or the fallback of a URL that does
    // not speak Streamable HTTP (as MCP's compatibility rules advise).
    let mut c = conn(&watcher);
    let opened = tokio::time::timeout(timeouts.connect, async {
        let halves = super::sse::open(url, header_map).await?;
        watcher.serve(halves).await.map_err(|e| e.to_string())
    })
    .await;
    let prefix = format!("mcp server \"{}\": ", server.name);
    match (c.handshake(opened).await, first_error) {
        (Ok(service), _) => {
            c.service = Some(service);
            Ok(c)
        }
        (Err(sse), http) => {
            let sse = sse.strip_prefix(&prefix).unwrap_or(&sse).to_string();
            let http = http.map(|h| h.strip_prefix(&prefix).unwrap_or(&h).to_string());
            Err(format!(
                "{prefix}{}",
                http_failure(url, http.as_deref(), &sse).await
            ))
        }
    }
}

/// Why an HTTP server could not be reached, in words a person can act on: the
/// status that refused the handshake, or what a plain TCP connection to the
/// URL's host finds (refused, unresolvable, silent); otherwise the transports'
/// own reports, without the SDK's type names. `http` is the Streamable HTTP
/// attempt's error (none when the row asked for SSE alone), `sse` the legacy one's.
async fn http_failure(url: &str, http: Option<&str>, sse: &str) -> String {
    let both = format!("{} {sse}", http.unwrap_or_default());
    if both.contains("Auth required") || both.contains("401") {
        return format!(
            "HTTP 401 at {url}: the server wants authorization — set headers.Authorization in its config row (for example \"Bearer TOKEN\")"
        );
    }
    if both.contains("403 Forbidden") {
        return format!(
            "HTTP 403 at {url}: the server refuses these credentials — check headers.Authorization in its config row"
        );
    }
    if let Ok(parsed) = url::Url::parse(url)
        && let (Some(host), Some(port)) = (parsed.host_str(), parsed.port_or_known_default())
    {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let probe = tokio::time::timeout(
            Duration::from_secs(2),
            tokio::net::TcpStream::connect((host.as_str(), port)),
        )
        .await;
        match probe {
            Err(_) => return format!("no answer from {host}:{port} within 2 s ({url})"),
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                return format!("connection refused at {url} (nothing listens on {host}:{port})");
            }
            Ok(Err(e)) => return format!("cannot connect to {url}: {e}"),
            Ok(Ok(_)) => {}
        }
    }
    let tidy = |text: &str| -> String {
        let mut t = text.replace("Send message error ", "");
        while let (Some(start), Some(end)) = (t.find("Transport ["), t.find("] error: ")) {
            if end < start {
                break;
            }
            t.replace_range(start..end + "] error: ".len(), "");
        }
        t.replace(", when send initialize request", "")
    };
    match http {
        Some(http) => format!(
            "{}; the legacy SSE transport at the same URL failed too: {}",
            tidy(http),
            tidy(sse)
        ),
        None => tidy(sse),
    }
}

/// A row's `headers` as an HTTP header map; a name or value HTTP cannot carry is
/// an error naming it.
fn header_map(
    server: &str,
    headers: &IndexMap<String, String>,
) -> Result<reqwest::header::HeaderMap, String> {
    let mut map = reqwest::header::HeaderMap::new();
    for (name, value) in headers {
        let header = reqwest::header::HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| format!("mcp server \"{server}\": header \"{name}\": {e}"))?;
        let value = reqwest::header::HeaderValue::from_str(value)
            .map_err(|e| format!("mcp server \"{server}\": header \"{name}\": {e}"))?;
        map.insert(header, value);
    }
    Ok(map)
}

impl Connection {
    async fn handshake<E: std::fmt::Display>(
        &self,
        served: Result<Result<RunningService<RoleClient, Watcher>, E>, tokio::time::error::Elapsed>,
    ) -> Result<RunningService<RoleClient, Watcher>, String> {
        match served {
            Ok(Ok(service)) => {
                // A version this client does not know is refused, not guessed at:
                // its messages may mean something else.
                use rmcp::model::ProtocolVersion;
                let spoken = service.peer_info().map(|i| i.protocol_version.clone());
                match spoken {
                    Some(v) if !ProtocolVersion::KNOWN_VERSIONS.contains(&v) => {
                        let _ = service.cancel().await;
                        let known: Vec<&str> = ProtocolVersion::KNOWN_VERSIONS
                            .iter()
                            .map(ProtocolVersion::as_str)
                            .collect();
                        Err(failure(
                            &self.server,
                            &format!(
                                "it answered initialize with MCP protocol version {}, which indus-tool does not speak (it speaks {})",
                                v.as_str(),
                                known.join(", ")
                            ),
                            &self.stderr,
                        ))
                    }
                    _ => Ok(service),
                }
            }
            Ok(Err(e)) => {
                // Give a dying child a moment to finish writing its stderr.
                tokio::time::sleep(Duration::from_millis(50)).await;
                Err(failure(
                    &self.server,
                    &format!("the MCP handshake failed: {e}"),
                    &self.stderr,
                ))
            }
            Err(_) => {
                // A server that wrote something, but no answer: quote it, as it
                // is most likely not speaking MCP on stdout at all.
                let head = self.head.lock().map(|h| h.clone()).unwrap_or_default();
                let wrote = if head.is_empty() {
                    String::new()
                } else {
                    let text = String::from_utf8_lossy(&head);
                    let more = if head.len() >= HEAD_KEPT { "…" } else { "" };
                    format!(
                        "; on stdout it wrote {:?}{more}, which is not an MCP message (a server must write only JSON-RPC lines there)",
                        text.trim_end()
                    )
                };
                Err(failure(
                    &self.server,
                    &format!(
                        "no answer to initialize within {} ms (connect timeout){wrote}",
                        self.timeouts.connect.as_millis()
                    ),
                    &self.stderr,
                ))
            }
        }
    }

    /// Whether the connection is over: the server ended (died, exited) or the
    /// service was closed. A warm connection checks this before it is reused.
    pub fn is_closed(&self) -> bool {
        self.service
            .as_ref()
            .is_none_or(|s| s.is_closed() || s.is_transport_closed())
    }

    fn service(&self) -> &RunningService<RoleClient, Watcher> {
        self.service.as_ref().expect("connected")
    }

    /// Every tool the server lists (all pages), within the connect timeout.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, String> {
        match tokio::time::timeout(self.timeouts.connect, self.service().list_all_tools()).await {
            Ok(Ok(tools)) => Ok(tools),
            Ok(Err(e)) => Err(failure(
                &self.server,
                &format!("tools/list failed: {e}"),
                &self.stderr,
            )),
            Err(_) => Err(failure(
                &self.server,
                &format!(
                    "no answer to tools/list within {} ms",
                    self.timeouts.connect.as_millis()
                ),
                &self.stderr,
            )),
        }
    }

    /// The server's tools as ledger capabilities.
    pub async fn capabilities(&self) -> Result<Vec<BridgeCapability>, String> {
        Ok(self
            .list_tools()
            .await?
            .into_iter()
            .map(|t| capability_of(&self.server, t))
            .collect())
    }

    /// Ask a server that logs for the level wanted (`--mcp-log`, or what a
    /// client of `indus-tool mcp` set), once per level per connection. Best
    /// effort: a server that refuses keeps its own level.
    #[allow(deprecated)]
    async fn ask_log_level(&self) {
        let Some(level) = asked_log_level() else {
            return;
        };
        let name = level_name(level);
        let logs = self
            .service()
            .peer_info()
            .is_some_and(|i| i.capabilities.logging.is_some());
        if !logs || self.level_sent.lock().ok().and_then(|l| l.clone()) == Some(name.clone()) {
            return;
        }
        let asked = self
            .service()
            .set_level(rmcp::model::SetLevelRequestParams::new(level));
        if let Ok(Ok(())) = tokio::time::timeout(self.timeouts.connect, asked).await
            && let Ok(mut sent) = self.level_sent.lock()
        {
            *sent = Some(name);
        }
    }

    /// Call `tool` with `arguments`, within the call timeout. A transport-level
    /// failure (the server died, timed out) is `Err`; the server's own `isError`
    /// is an `Ok` result with `is_error` set.
    pub async fn call(&self, tool: &str, arguments: Value) -> Result<ToolResult, String> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        match arguments {
            Value::Object(map) => params = params.with_arguments(map),
            Value::Null => {}
            other => {
                return Err(format!(
                    "mcp server \"{}\": the arguments of {tool} must be a JSON object, got {}",
                    self.server,
                    crate::kernel::input::describe_value(&other)
                ));
            }
        }
        // rmcp gives every request a progress token of its own, so a server
        // that reports progress does; the notices are shown on a terminal, or
        // passed on to the relay of whoever called (see `Watcher`).
        static NEXT: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(1);
        let call_id = NEXT.fetch_add(1, Ordering::SeqCst);
        self.ask_log_level().await;
        if let Some(relay) = crate::kernel::relay::current() {
            self.watcher.route(call_id, relay);
        }
        let answered =
            tokio::time::timeout(self.timeouts.call, self.service().call_tool(params)).await;
        self.watcher.unroute(call_id);
        self.watcher.line.clear();
        match answered {
            Ok(Ok(result)) => {
                if let Some(relay) = crate::kernel::relay::current()
                    && let Ok(raw) = serde_json::to_value(&result)
                {
                    relay.send(Notice::Result { result: raw });
                }
                Ok(tool_result_of(result))
            }
            Ok(Err(e)) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                let over = self.oversize.load(std::sync::atomic::Ordering::SeqCst);
                if over > 0 {
                    return Err(failure(
                        &self.server,
                        &format!(
                            "its answer to {tool} is over {} MiB (read {} MiB without a line end); indus-tool reads messages of up to {} MiB, and ended the connection",
                            max_frame() / (1024 * 1024),
                            over / (1024 * 1024),
                            max_frame() / (1024 * 1024)
                        ),
                        &self.stderr,
                    ));
                }
                let what = match e {
                    rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_) => {
                        format!("the server closed the connection during the call of {tool} ({e})")
                    }
                    other => format!("the call of {tool} failed: {other}"),
                };
                Err(failure(&self.server, &what, &self.stderr))
            }
            Err(_) => Err(failure(
                &self.server,
                &format!(
                    "{tool} gave no answer within {} ms (call timeout)",
                    self.timeouts.call.as_millis()
                ),
                &self.stderr,
            )),
        }
    }

    /// Did the server announce `notifications/tools/list_changed`? Over stdio the
    /// notice shares the answer's ordered stream, so one sent before the answer
    /// has been seen. Over HTTP a server that declares the `tools.listChanged`
    /// capability may send it on another stream than the call's answer, so a
    /// notice not yet seen is waited for a moment ([`LIST_CHANGED_GRACE`]).
    pub async fn tools_changed(&self) -> bool {
        if self.watcher.tools_changed.load(Ordering::SeqCst) || self.ordered {
            return self.watcher.tools_changed.load(Ordering::SeqCst);
        }
        let announces = self
            .service()
            .peer_info()
            .and_then(|i| i.capabilities.tools.as_ref().and_then(|t| t.list_changed))
            == Some(true);
        if announces {
            let notified = self.watcher.changed.notified();
            if !self.watcher.tools_changed.load(Ordering::SeqCst) {
                let _ = tokio::time::timeout(LIST_CHANGED_GRACE, notified).await;
            }
        }
        self.watcher.tools_changed.load(Ordering::SeqCst)
    }

    /// Whether a `tools/list_changed` notice has arrived since the last time this
    /// was asked, without waiting: for a connection kept open across calls (the
    /// broker's), where a notice that comes late is taken at the next call.
    pub fn take_tools_changed(&self) -> bool {
        self.watcher.tools_changed.swap(false, Ordering::SeqCst)
    }

    /// End the session politely (briefly), then kill what is left.
    pub async fn close(mut self) {
        if let Some(mut service) = self.service.take() {
            let _ = service.close_with_timeout(Duration::from_millis(200)).await;
        }
        kill_group(self.pgid.take());
    }

    /// End a session whose call did not finish (timed out, cancelled): end of
    /// input and SIGTERM to the group first, so a server can stop what it started
    /// in process groups of its own, then, after a short grace, SIGKILL.
    pub async fn abandon(mut self) {
        if let Some(pgid) = self.pgid {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pgid),
                nix::sys::signal::Signal::SIGTERM,
            );
        }
        if let Some(mut service) = self.service.take() {
            let _ = service.close_with_timeout(Duration::from_millis(300)).await;
        }
        if self.pgid.is_some() {
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        kill_group(self.pgid.take());
    }
}

/// A listed tool as a ledger capability (qualified name, the server's own name,
/// description, input schema).
pub fn capability_of(server: &str, tool: Tool) -> BridgeCapability {
    BridgeCapability {
        name: qualify_bridge_name(server, &tool.name),
        description: tool
            .description
            .as_deref()
            .map(str::to_string)
            .or(tool.title.clone())
            .unwrap_or_default(),
        tool: tool.name.clone().into_owned(),
        input_schema: Value::Object((*tool.input_schema).clone()),
        title: tool.title.clone(),
        annotations: tool
            .annotations
            .as_ref()
            .and_then(|a| serde_json::to_value(a).ok()),
        output_schema: tool
            .output_schema
            .as_ref()
            .map(|o| Value::Object((**o).clone())),
    }
}

/// An MCP tool result as a toolbox result: text content as text blocks, other
/// content (images, audio, resources, links) as JSON blocks of their wire form
/// (which every face recognizes, see `kernel::media_kind`), `structuredContent`
/// as a JSON block; `isError` carried over. A text block that is just
/// `structuredContent` serialized (the copy the MCP spec asks servers to add for
/// older clients) is dropped, and so is a `structuredContent` that only repeats
/// the content, so nothing is shown twice.
pub fn tool_result_of(result: CallToolResult) -> ToolResult {
    let structured = result.structured_content.as_ref();
    let mut content: Vec<ToolContentBlock> = result
        .content
        .iter()
        .filter_map(|c| match c.as_text() {
            Some(t)
                if structured.is_some()
                    && serde_json::from_str::<Value>(&t.text).ok().as_ref() == structured =>
            {
                None
            }
            Some(t) => Some(ToolContentBlock::Text(t.text.clone())),
            None => Some(ToolContentBlock::Json(
                serde_json::to_value(c).unwrap_or(Value::Null),
            )),
        })
        .collect();
    // A structuredContent that only repeats the content (`{"content": [...]}`, as
    // the reference filesystem server's read_media_file sends) is not shown twice.
    let repeats_content = structured.is_some_and(|s| {
        s.as_object().is_some_and(|o| o.len() == 1)
            && s.get("content") == serde_json::to_value(&result.content).ok().as_ref()
    });
    if let Some(structured) = result.structured_content.filter(|_| !repeats_content) {
        content.push(ToolContentBlock::Json(structured));
    }
    if content.is_empty() {
        content.push(ToolContentBlock::Text(String::new()));
    }
    ToolResult {
        content,
        is_error: result.is_error == Some(true),
    }
}
