//! A warm helper process: one background process per working directory that keeps
//! something expensive to start (MCP servers' connections, language servers) alive
//! between one-shot invocations, reached over a unix socket.
//!
//! What the MCP broker (`mcp up`) and the language-server broker (`lsp`) share lives
//! here once: where the socket is and whether it may be dialled, the blocking
//! request/reply of one JSON line each way, starting the helper as a supervised
//! job on the one job engine (`process::start` into a book of its own) and waiting
//! for it to answer, forgetting helpers that ended, stopping one, binding the
//! socket, and the accept loop that ends on idle, on request or on a signal. What
//! each helper answers is its own.
//!
//! A socket is dialled only when it is this user's, reached through no link in the
//! state folder (see [`crate::state::trusted_socket`]); a checkout cannot carry a
//! listening socket, and a link it carries in its place is refused.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::shared::exec_line;
use crate::kernel::input::Args;
use crate::kernel::{JobLiveness, ToolContentBlock, ToolContext, ToolResult};
use crate::state::jobs::{JobBook, JobTable};
use crate::state::{StateDir, prepare_socket_dir, trusted_socket};

/// The longest socket path used as is (`sun_path` holds 108 bytes with its NUL).
pub const MAX_SOCKET_PATH: usize = 100;

/// One kind of warm helper: its name in messages, its socket inside the state
/// folder, and the job book it runs in.
#[derive(Clone, Copy)]
pub struct Warm {
    /// `mcp broker`, `lsp broker`.
    pub name: &'static str,
    /// The socket, relative to the state folder.
    pub socket_file: &'static str,
    /// The book its job is recorded in.
    pub book: fn(StateDir) -> JobBook,
}

impl Warm {
    /// Where the helper of `cwd` listens: in the state folder, or, when that
    /// path is too long for a unix socket, under a hash of it in a per-user
    /// folder only its owner may enter.
    pub fn socket_path(&self, cwd: &Path) -> PathBuf {
        StateDir::new(cwd).socket_path(self.socket_file, MAX_SOCKET_PATH)
    }

    /// Whether the socket of `cwd`'s helper may be dialled: a socket of this
    /// user, reached through no link in the state folder (a linked folder
    /// would lead to another project's helper).
    pub fn ours(&self, cwd: &Path, socket: &Path) -> bool {
        StateDir::new(cwd).checked(self.socket_file).is_ok() && trusted_socket(socket)
    }

    /// The helper's own start (its hidden command): a current-thread runtime
    /// and the socket bound in it, said on stderr (the job's log).
    pub fn open(
        &self,
        cwd: &Path,
        idle: Duration,
    ) -> std::io::Result<(tokio::runtime::Runtime, tokio::net::UnixListener, PathBuf)> {
        let socket = self.socket_path(cwd);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let listener = {
            let _entered = runtime.enter();
            bind(&socket)?
        };
        eprintln!(
            "{}: pid {} listening on {}, exits after {} s idle",
            self.name,
            std::process::id(),
            socket.display(),
            idle.as_secs()
        );
        Ok((runtime, listener, socket))
    }

    /// The job book of `cwd`'s helper.
    pub fn book_of(&self, cwd: &Path) -> JobBook {
        (self.book)(StateDir::new(cwd))
    }

    /// One blocking request to the helper of `cwd`: its reply, or `None` when
    /// none answers within `limit`.
    pub fn ask(&self, cwd: &Path, request: &impl Serialize, limit: Duration) -> Option<Value> {
        let socket = self.socket_path(cwd);
        if std::fs::symlink_metadata(&socket).is_err() || !self.ours(cwd, &socket) {
            return None;
        }
        let mut stream = std::os::unix::net::UnixStream::connect(&socket).ok()?;
        stream.set_read_timeout(Some(limit)).ok()?;
        stream.set_write_timeout(Some(limit)).ok()?;
        let mut line = serde_json::to_vec(request).ok()?;
        line.push(b'\n');
        stream.write_all(&line).ok()?;
        let mut reply = String::new();
        BufReader::new(stream).read_line(&mut reply).ok()?;
        serde_json::from_str(&reply).ok()
    }

    /// Start the helper as a job running `argv` and wait up to `limit` for
    /// `ping` to answer. The error names the job and its log.
    pub fn start(
        &self,
        ctx: &ToolContext,
        argv: &[String],
        limit: Duration,
        ping: impl Fn() -> Option<Value>,
    ) -> Result<Value, String> {
        let cwd = PathBuf::from(&ctx.cwd);
        let book = self.book_of(&cwd);
        book.guard().map_err(|e| e.to_string())?;
        let runtime = runtime();
        runtime.block_on(prune(ctx, &book));
        let input = json!({"action": "start", "command": exec_line(argv)});
        let args = Args::new(self.name, &input).map_err(|e| e.to_string())?;
        let started = runtime.block_on(super::process::start(ctx, &args, &book));
        let id = match started {
            Ok((_, record)) => record["id"].as_str().unwrap_or_default().to_string(),
            Err(e) => return Err(text_of(&e)),
        };
        let files = book.files(&id);
        let deadline = Instant::now() + limit;
        loop {
            if let Some(pong) = ping() {
                return Ok(pong);
            }
            if Path::new(&files.exit()).exists() {
                let stderr = std::fs::read_to_string(files.stderr()).unwrap_or_default();
                return Err(format!(
                    "the {} ({id}) ended at once: {}",
                    self.name,
                    stderr.trim()
                ));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "the {} ({id}) did not answer on {} within {} ms; its log is {}",
                    self.name,
                    self.socket_path(&cwd).display(),
                    limit.as_millis(),
                    files.stderr()
                ));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Stop the helper of `cwd`: ask it with `shutdown`, then stop each of its
    /// jobs still running after a grace (SIGTERM, then SIGKILL). The pids of
    /// the jobs that were running; errors as text.
    pub fn stop(
        &self,
        ctx: &ToolContext,
        shutdown: &impl Serialize,
    ) -> Result<Vec<u32>, Vec<String>> {
        let cwd = PathBuf::from(&ctx.cwd);
        let book = self.book_of(&cwd);
        book.guard().map_err(|e| vec![e.to_string()])?;
        let _ = self.ask(&cwd, shutdown, Duration::from_secs(2));
        let runtime = runtime();
        let table: JobTable = book.state.load(&book.table).unwrap_or_default();
        let mut stopped = Vec::new();
        let mut errors = Vec::new();
        for job in &table.jobs {
            let files = book.files(&job.id);
            let running = || {
                !Path::new(&files.exit()).exists()
                    && ctx.shell.probe_job(&job.identity()).ok() == Some(JobLiveness::Running)
            };
            if !running() {
                continue;
            }
            let deadline = Instant::now() + Duration::from_secs(3);
            while running() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if running() {
                let input = json!({"action": "stop", "id": job.id});
                if let Ok(args) = Args::new(self.name, &input)
                    && let Err(e) = runtime.block_on(super::process::stop(ctx, &args, &book))
                {
                    errors.push(text_of(&e));
                }
            }
            stopped.push(job.pid);
        }
        // The records stay until the next start, so the last helper's log can be read.
        if errors.is_empty() {
            Ok(stopped)
        } else {
            Err(errors)
        }
    }
}

/// Forget helpers that have ended (their records and folders).
pub async fn prune(ctx: &ToolContext, book: &JobBook) {
    let Ok(table) = book.state.load::<JobTable>(&book.table) else {
        return;
    };
    for job in &table.jobs {
        let files = book.files(&job.id);
        let ended = Path::new(&files.exit()).exists()
            || ctx.shell.probe_job(&job.identity()).ok() != Some(JobLiveness::Running);
        if ended {
            let _ = std::fs::remove_dir_all(&files.dir);
            let _ = book.state.update(&book.table, |t: &mut JobTable| {
                t.jobs.retain(|j| j.id != job.id)
            });
        }
    }
}

/// The text of a job-engine refusal.
pub fn text_of(result: &ToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|b| match b {
            ToolContentBlock::Text(t) => Some(t.as_str()),
            ToolContentBlock::Json(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A current-thread runtime for the blocking faces of a helper.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime builds")
}

/// Bind the socket: refuse when a helper answers there, replace a stale one.
pub fn bind(socket: &Path) -> std::io::Result<tokio::net::UnixListener> {
    prepare_socket_dir(socket)?;
    if std::fs::symlink_metadata(socket).is_ok() {
        if std::os::unix::net::UnixStream::connect(socket).is_ok() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AddrInUse,
                format!("a helper already listens on {}", socket.display()),
            ));
        }
        std::fs::remove_file(socket)?;
    }
    let listener = tokio::net::UnixListener::bind(socket)?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

/// How busy a helper is: calls in flight and the time of the last one, so it
/// can tell when it has been idle long enough to exit.
pub struct Activity {
    active: AtomicUsize,
    last: std::sync::Mutex<Instant>,
    /// Cancelled by a `shutdown` request.
    pub stop: CancellationToken,
}

impl Default for Activity {
    fn default() -> Self {
        Self {
            active: AtomicUsize::new(0),
            last: std::sync::Mutex::new(Instant::now()),
            stop: CancellationToken::new(),
        }
    }
}

impl Activity {
    /// A call began; the guard ends it.
    pub fn begin(self: &Arc<Self>) -> CallGuard {
        self.active.fetch_add(1, Ordering::SeqCst);
        self.touch();
        CallGuard(self.clone())
    }

    fn touch(&self) {
        *self.last.lock().expect("clock lock") = Instant::now();
    }

    fn idle_for(&self, idle: Duration) -> bool {
        self.active.load(Ordering::SeqCst) == 0
            && self.last.lock().expect("clock lock").elapsed() >= idle
    }
}

/// One call in flight (see [`Activity::begin`]).
pub struct CallGuard(Arc<Activity>);

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.0.touch();
        self.0.active.fetch_sub(1, Ordering::SeqCst);
    }
}

/// One caller's connection, as a helper serves it: the request line read, the
/// rest of the input kept (its end says the caller went away), and the way back.
pub struct Caller {
    pub line: String,
    pub rest: tokio::io::BufReader<tokio::net::unix::OwnedReadHalf>,
    pub write: tokio::net::unix::OwnedWriteHalf,
}

impl Caller {
    /// The caller's request line; `None` when it sent none.
    pub async fn read(stream: tokio::net::UnixStream) -> Option<Caller> {
        use tokio::io::AsyncBufReadExt;
        let (read, write) = stream.into_split();
        let mut rest = tokio::io::BufReader::new(read);
        let mut line = String::new();
        match rest.read_line(&mut line).await {
            Ok(n) if n > 0 => Some(Caller { line, rest, write }),
            _ => None,
        }
    }

    /// Send one JSON line (a caller gone is no error: nobody is left to tell).
    pub async fn reply(&mut self, value: &Value) {
        use tokio::io::AsyncWriteExt;
        let mut bytes = serde_json::to_vec(value).expect("replies serialize");
        bytes.push(b'\n');
        let _ = self.write.write_all(&bytes).await;
    }
}

/// Accept callers on `listener`, each handed to `serve` on a task of its own,
/// until the helper has been idle for `idle`, is asked to stop, or gets
/// SIGTERM, SIGINT or SIGHUP. The socket is removed before returning (a caller
/// arriving then starts afresh); the reason is returned for the log.
pub async fn accept_until_done<F, Fut>(
    listener: tokio::net::UnixListener,
    socket: &Path,
    idle: Duration,
    activity: &Arc<Activity>,
    serve: F,
) -> std::io::Result<String>
where
    F: Fn(tokio::net::UnixStream) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut hup = signal(SignalKind::hangup())?;
    let mut tick = tokio::time::interval(idle.min(Duration::from_secs(1)));
    let why = loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(serve(stream));
                }
                Err(e) => eprintln!("accept failed: {e}"),
            },
            _ = tick.tick() => if activity.idle_for(idle) {
                break format!("idle for {} s", idle.as_secs());
            },
            _ = activity.stop.cancelled() => break "asked to stop".to_string(),
            _ = term.recv() => break "SIGTERM".to_string(),
            _ = int.recv() => break "SIGINT".to_string(),
            _ = hup.recv() => break "SIGHUP".to_string(),
        }
    };
    drop(listener);
    let _ = std::fs::remove_file(socket);
    Ok(why)
}
