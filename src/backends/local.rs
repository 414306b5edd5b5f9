//! The OS binding of the `Fs` and `Shell` seams, and the assembly of a local context.
//!
//! Nothing above this module touches `std::fs`/`std::process` directly. Filesystem
//! errors are re-shaped into stable, libuv-style text (`ENOENT: no such file or
//! directory, open '/p'`) so a model sees the same words whatever the host. Commands
//! run under `sh -c` in their own process group, so a deadline or a cancel can end
//! the whole tree a command started, not just the shell.

use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio::time::Instant;

use crate::kernel::CancellationToken;
use crate::kernel::{
    ClipEnd, DEFAULT_CAPTURE_LIMIT, DirChild, Dropped, ExecTimeout, ExitListener, FileLock,
    Framework, Fs, FsEntryInfo, JobIdentity, JobLaunch, JobLiveness, JobSignal, OutputBudget,
    OutsideRoot, RemoveOptions, Root, Shell, ShellExecOptions, ShellExecResult, ShellExit,
    ShellHandle, ShellLaunchOptions, ToolContext, Unsubscribe,
};
use crate::sys::{atomic_write_within, fs_error, try_lock_file};

/// The default output ceiling: 64 KiB.
pub const STANDARD_MAX_BYTES: usize = 64 * 1024;

/// How long `exec` keeps reading after the shell exits while a background child
/// still holds its pipes; then that child's process group is killed.
const PIPE_GRACE: Duration = Duration::from_millis(250);

fn epoch_ms(t: io::Result<SystemTime>) -> f64 {
    t.ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// [`Fs::lock_file`]'s wait: try every 2 ms until `wait` has passed. The pause is
/// an async sleep, so on a current-thread runtime (the MCP server) the holder's
/// own task keeps running and can finish.
async fn lock_file_within(path: &str, wait: Duration) -> io::Result<FileLock> {
    let deadline = Instant::now() + wait;
    loop {
        let p = path.to_string();
        if let Some(lock) = blocking(move || try_lock_file(&p)).await? {
            return Ok(lock);
        }
        if Instant::now() >= deadline {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "another process has held a lock on '{path}' for {} ms",
                    wait.as_millis()
                ),
            ));
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// Run a blocking filesystem call. On a current-thread runtime (the one-shot CLI)
/// it runs inline: a thread-pool hop per `stat` would cost more than the call itself
/// (it dominated `ls` start-up), and there is no other worker to keep free. On a
/// multi-thread runtime it goes to the blocking pool, as `tokio::fs` would.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> io::Result<T> + Send + 'static,
) -> io::Result<T> {
    if inline_blocking() {
        f()
    } else {
        tokio::task::spawn_blocking(f)
            .await
            .unwrap_or_else(|e| Err(io::Error::other(e)))
    }
}

/// Whether [`blocking`] runs its work inline: on a current-thread runtime, or
/// outside any runtime.
fn inline_blocking() -> bool {
    use tokio::runtime::{Handle, RuntimeFlavor};
    Handle::try_current().map_or(true, |h| h.runtime_flavor() == RuntimeFlavor::CurrentThread)
}

/// `Fs` over the local filesystem, optionally confined to a [`Root`]. Confined,
/// every path is admitted by the root before use, and what is opened is checked
/// again by descriptor (see [`Root::admits_fd`]), so a link swapped in between the
/// tool's check and the call cannot lead outside.
#[derive(Debug, Default, Clone)]
pub struct LocalFs {
    root: Option<Arc<Root>>,
}

impl LocalFs {
    /// A filesystem that refuses every path outside `root`.
    pub fn confined(root: Arc<Root>) -> Self {
        Self { root: Some(root) }
    }

    /// The root's admission of `path`, as an I/O error naming the path.
    fn admit(&self, path: &str) -> io::Result<()> {
        match &self.root {
            Some(root) => root.admit(path, Path::new(path)).map_err(OutsideRoot::io),
            None => Ok(()),
        }
    }
}

/// Open `path` for reading (non-blocking, so a FIFO cannot hang the open) and,
/// under a root, check where the descriptor really leads.
pub fn open_confined(
    path: &str,
    root: Option<&Root>,
    directory: bool,
) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut flags = nix::libc::O_NONBLOCK;
    if directory {
        flags |= nix::libc::O_DIRECTORY;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| fs_error(e, "open", path))?;
    if let Some(root) = root {
        root.admits_fd(std::os::fd::AsFd::as_fd(&file), path)?;
    }
    Ok(file)
}

/// `mkdir` (with parents when `recursive`) confined to `root`: from the nearest
/// existing ancestor, checked by descriptor, each missing component is made with
/// `mkdirat` and entered with `O_NOFOLLOW`, so no link swapped in meanwhile is
/// followed out of the root.
fn mkdir_confined(path: &str, recursive: bool, root: &Root) -> io::Result<()> {
    use nix::fcntl::{OFlag, openat};
    use nix::sys::stat::{Mode, mkdirat};
    let err = |e: io::Error| fs_error(e, "mkdir", path);
    let mut missing = Vec::new();
    let mut base = Path::new(path);
    while std::fs::symlink_metadata(base).is_err() {
        let (Some(parent), Some(name)) = (base.parent(), base.file_name()) else {
            break;
        };
        missing.push(name.to_os_string());
        base = parent;
    }
    if missing.is_empty() {
        return if recursive && std::fs::metadata(base).is_ok_and(|m| m.is_dir()) {
            Ok(())
        } else {
            Err(err(io::Error::from_raw_os_error(nix::libc::EEXIST)))
        };
    }
    if !recursive && missing.len() > 1 {
        return Err(err(io::Error::from_raw_os_error(nix::libc::ENOENT)));
    }
    let base_shown = base.to_string_lossy();
    let mut dir = std::os::fd::OwnedFd::from(open_confined(&base_shown, Some(root), true)?);
    for name in missing.iter().rev() {
        match mkdirat(&dir, name.as_os_str(), Mode::from_bits_truncate(0o777)) {
            Ok(()) | Err(nix::errno::Errno::EEXIST) => {}
            Err(e) => return Err(err(e.into())),
        }
        dir = openat(
            &dir,
            name.as_os_str(),
            OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| err(e.into()))?;
    }
    Ok(())
}

fn stat_sync(path: &str) -> io::Result<FsEntryInfo> {
    let link = std::fs::symlink_metadata(path).map_err(|e| fs_error(e, "lstat", path))?;
    let is_symlink = link.file_type().is_symlink();
    // A symlink reports its target's kind and size; a dangling one its own.
    let meta = if is_symlink {
        std::fs::metadata(path).unwrap_or(link)
    } else {
        link
    };
    Ok(FsEntryInfo {
        is_file: meta.is_file(),
        is_directory: meta.is_dir(),
        is_symlink,
        size: meta.size(),
        modified_ms: epoch_ms(meta.modified()),
    })
}

/// The children of the directory at `path`; errors name `shown`.
fn read_dir_sync(path: &str, shown: &str) -> io::Result<Vec<DirChild>> {
    let rd = std::fs::read_dir(path).map_err(|e| fs_error(e, "scandir", shown))?;
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| fs_error(e, "scandir", shown))?;
        let is_directory = match entry.file_type() {
            Ok(ft) if ft.is_symlink() => std::fs::metadata(entry.path())
                .map(|m| m.is_dir())
                .unwrap_or(false),
            Ok(ft) => ft.is_dir(),
            Err(_) => false,
        };
        out.push(DirChild {
            name: entry.file_name().to_string_lossy().into_owned(),
            is_directory,
        });
    }
    Ok(out)
}

fn rm_sync(path: &str, options: RemoveOptions) -> io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound && options.ignore_missing => return Ok(()),
        Err(e) => return Err(fs_error(e, "rm", path)),
    };
    let r = if meta.is_dir() {
        if options.recursive {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_dir(path)
        }
    } else {
        std::fs::remove_file(path)
    };
    match r {
        Err(e) if e.kind() == io::ErrorKind::NotFound && options.ignore_missing => Ok(()),
        r => r.map_err(|e| fs_error(e, "rm", path)),
    }
}

#[async_trait]
impl Fs for LocalFs {
    async fn lock_file(&self, path: &str, wait: Duration) -> io::Result<FileLock> {
        self.admit(path)?;
        lock_file_within(path, wait).await
    }

    async fn read_bytes(&self, path: &str) -> io::Result<Vec<u8>> {
        self.admit(path)?;
        let (p, root) = (path.to_string(), self.root.clone());
        blocking(move || {
            let Some(root) = root else {
                return std::fs::read(&p).map_err(|e| fs_error(e, "open", &p));
            };
            let mut file = open_confined(&p, Some(&root), false)?;
            let mut buf = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut buf).map_err(|e| fs_error(e, "read", &p))?;
            Ok(buf)
        })
        .await
    }

    async fn write_file(&self, path: &str, data: &str) -> io::Result<()> {
        self.admit(path)?;
        if inline_blocking() {
            // No owned copy of a possibly large content is needed inline.
            return atomic_write_within(Path::new(path), data.as_bytes(), self.root.as_deref())
                .map_err(|e| fs_error(e, "write", path));
        }
        let (p, d, root) = (path.to_string(), data.to_string(), self.root.clone());
        blocking(move || {
            atomic_write_within(Path::new(&p), d.as_bytes(), root.as_deref())
                .map_err(|e| fs_error(e, "write", &p))
        })
        .await
    }

    async fn stat(&self, path: &str) -> io::Result<FsEntryInfo> {
        self.admit(path)?;
        let p = path.to_string();
        blocking(move || stat_sync(&p)).await
    }

    async fn read_dir(&self, path: &str) -> io::Result<Vec<DirChild>> {
        self.admit(path)?;
        let (p, root) = (path.to_string(), self.root.clone());
        blocking(move || {
            let Some(root) = root else {
                return read_dir_sync(&p, &p);
            };
            // List the directory the checked descriptor holds, through its /proc
            // name, so a link swapped in for `p` is not what gets listed.
            let dir = open_confined(&p, Some(&root), true)?;
            let held = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&dir));
            read_dir_sync(&held, &p)
        })
        .await
    }

    async fn mkdir(&self, path: &str, recursive: bool) -> io::Result<()> {
        self.admit(path)?;
        let (p, root) = (path.to_string(), self.root.clone());
        blocking(move || {
            if let Some(root) = root {
                return mkdir_confined(&p, recursive, &root);
            }
            let r = if recursive {
                std::fs::create_dir_all(&p)
            } else {
                std::fs::create_dir(&p)
            };
            r.map_err(|e| fs_error(e, "mkdir", &p))
        })
        .await
    }

    async fn rm(&self, path: &str, options: RemoveOptions) -> io::Result<()> {
        self.admit(path)?;
        let p = path.to_string();
        blocking(move || rm_sync(&p, options)).await
    }

    async fn exists(&self, path: &str) -> bool {
        if self.admit(path).is_err() {
            return false;
        }
        let p = path.to_string();
        blocking(move || std::fs::exists(&p)).await.unwrap_or(false)
    }

    async fn open_read(&self, path: &str) -> io::Result<Box<dyn std::io::Read + Send>> {
        self.admit(path)?;
        let (p, root) = (path.to_string(), self.root.clone());
        blocking(move || -> io::Result<Box<dyn std::io::Read + Send>> {
            // Non-blocking: opening a FIFO swapped in after a stat must not hang.
            let file = open_confined(&p, root.as_deref(), false)?;
            let meta = file.metadata().map_err(|e| fs_error(e, "fstat", &p))?;
            if !meta.is_file() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("EINVAL: not a regular file, open '{p}'"),
                ));
            }
            Ok(Box::new(file))
        })
        .await
    }

    async fn read_range(
        &self,
        path: &str,
        offset: u64,
        max_len: usize,
    ) -> io::Result<(Vec<u8>, u64)> {
        self.admit(path)?;
        let (p, root) = (path.to_string(), self.root.clone());
        blocking(move || {
            use std::io::{Read, Seek, SeekFrom};
            let mut file = open_confined(&p, root.as_deref(), false)?;
            let len = file.metadata().map_err(|e| fs_error(e, "fstat", &p))?.len();
            // Sized to what is there, so a whole-file read holds one copy of it
            // rather than a doubled buffer.
            let mut buf =
                Vec::with_capacity(len.saturating_sub(offset).min(max_len as u64) as usize);
            if offset < len {
                file.seek(SeekFrom::Start(offset))
                    .map_err(|e| fs_error(e, "lseek", &p))?;
                file.take(max_len as u64)
                    .read_to_end(&mut buf)
                    .map_err(|e| fs_error(e, "read", &p))?;
            }
            // The file may have grown since the fstat.
            let len = len.max(offset + buf.len() as u64);
            Ok((buf, len))
        })
        .await
    }

    fn walk_tree(
        &self,
        options: &crate::kernel::WalkOptions,
        visitors: &dyn crate::kernel::WalkVisitorFactory,
    ) -> io::Result<()> {
        self.admit(&options.root)?;
        super::local_search::walk_tree(options, visitors)
    }
}

/// Kills a command's process group when dropped, unless disarmed: a cancelled or
/// timed-out `exec` leaves no descendants behind.
struct GroupGuard {
    pgid: Option<i32>,
}

impl GroupGuard {
    fn kill(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
        }
    }
    fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

/// One output stream of an `exec`, held within a limit: the first `limit` bytes and
/// the last `limit` bytes are kept, the middle is counted and let go as it arrives.
struct Capture {
    limit: usize,
    head: Vec<u8>,
    tail: Vec<u8>,
    dropped_bytes: u64,
    dropped_lines: u64,
}

impl Capture {
    fn new(limit: usize) -> Self {
        Self {
            limit,
            head: Vec::new(),
            tail: Vec::new(),
            dropped_bytes: 0,
            dropped_lines: 0,
        }
    }

    fn push(&mut self, mut chunk: &[u8]) {
        if self.head.len() < self.limit {
            let n = (self.limit - self.head.len()).min(chunk.len());
            self.head.extend_from_slice(&chunk[..n]);
            chunk = &chunk[n..];
        }
        self.tail.extend_from_slice(chunk);
        // Trim in batches, so the tail costs amortised O(1) per byte.
        if self.tail.len() > 2 * self.limit.max(32 * 1024) {
            self.trim_tail();
        }
    }

    fn trim_tail(&mut self) {
        if self.tail.len() > self.limit {
            let excess = self.tail.len() - self.limit;
            self.drop_front_of_tail(excess);
        }
    }

    fn drop_front_of_tail(&mut self, n: usize) {
        self.dropped_bytes += n as u64;
        self.dropped_lines += memchr::memchr_iter(b'\n', &self.tail[..n]).count() as u64;
        self.tail.drain(..n);
    }

    /// The kept text and what was dropped. Where a cut fell inside a UTF-8
    /// character, the partial bytes on either side are dropped too, so the
    /// kept text decodes exactly and the count stays exact.
    fn finish(mut self) -> (String, Dropped) {
        self.trim_tail();
        if self.dropped_bytes == 0 {
            self.head.append(&mut self.tail);
            return (
                String::from_utf8_lossy(&self.head).into_owned(),
                Dropped::default(),
            );
        }
        let whole = complete_prefix(&self.head);
        self.dropped_bytes += (self.head.len() - whole) as u64;
        self.head.truncate(whole);
        let partial = self
            .tail
            .iter()
            .take(3)
            .take_while(|b| *b & 0xC0 == 0x80)
            .count();
        self.drop_front_of_tail(partial);
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        let at = text.len();
        text.push_str(&String::from_utf8_lossy(&self.tail));
        let dropped = Dropped {
            at,
            bytes: self.dropped_bytes,
            lines: self.dropped_lines,
        };
        (text, dropped)
    }
}

/// The length of `bytes` without a UTF-8 sequence left incomplete at its end.
fn complete_prefix(bytes: &[u8]) -> usize {
    let from = bytes.len().saturating_sub(3);
    for i in (from..bytes.len()).rev() {
        let b = bytes[i];
        if b & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back for its lead
        }
        let need = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if bytes.len() - i < need {
            i
        } else {
            bytes.len()
        };
    }
    bytes.len()
}

async fn read_into<R: AsyncRead + Unpin>(reader: Option<R>, capture: &mut Capture) {
    let Some(mut r) = reader else {
        return;
    };
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => capture.push(&buf[..n]),
        }
    }
}

fn base_command(command: &str, launch: &ShellLaunchOptions) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(command);
    if let Some(cwd) = &launch.cwd {
        cmd.current_dir(cwd);
    }
    cmd.envs(launch.env.iter().map(|(k, v)| (k, v)));
    if launch.detach_terminal {
        // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                nix::unistd::setsid().map_err(std::io::Error::from)?;
                Ok(())
            });
        }
    } else {
        cmd.process_group(0);
    }
    cmd
}

fn exit_of(status: std::process::ExitStatus) -> ShellExit {
    use std::os::unix::process::ExitStatusExt;
    ShellExit {
        code: status.code(),
        signal: status.signal(),
    }
}

/// `Shell` over `sh -c`.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalShell;

#[async_trait]
impl Shell for LocalShell {
    async fn exec(&self, command: &str, options: ShellExecOptions) -> io::Result<ShellExecResult> {
        let mut cmd = base_command(command, &options.launch);
        cmd.stdin(if options.input.is_some() {
            std::process::Stdio::piped()
        } else {
            std::process::Stdio::null()
        })
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|e| {
            let cwd = options.launch.cwd.as_deref().unwrap_or(".");
            fs_error(e, "spawn sh in", cwd)
        })?;
        let mut guard = GroupGuard {
            pgid: child.id().map(|p| p as i32),
        };
        let deadline = options
            .timeout_ms
            .map(|ms| Instant::now() + Duration::from_millis(ms));
        let sleep_until_deadline = async {
            match deadline {
                Some(d) => tokio::time::sleep_until(d).await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(sleep_until_deadline);

        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let input = options.input;
        let limit = options.capture_limit.unwrap_or(DEFAULT_CAPTURE_LIMIT);
        let mut out = Capture::new(limit);
        let mut err = Capture::new(limit);
        let status = {
            let drain = async {
                tokio::join!(read_into(stdout, &mut out), read_into(stderr, &mut err));
            };
            tokio::pin!(drain);
            let wait = async {
                if let (Some(mut w), Some(data)) = (stdin, input) {
                    // A command that exits without reading its input is not an error.
                    let _ = w.write_all(data.as_bytes()).await;
                }
                child.wait().await
            };
            tokio::pin!(wait);
            let mut drained = false;
            let status = loop {
                tokio::select! {
                    s = &mut wait => break Some(s),
                    _ = &mut drain, if !drained => drained = true,
                    _ = &mut sleep_until_deadline => break None,
                }
            };
            if !drained {
                match &status {
                    // The shell is gone but something it started holds the pipes.
                    Some(Ok(_)) => tokio::select! {
                        _ = &mut drain => {}
                        _ = tokio::time::sleep(PIPE_GRACE) => guard.kill(),
                        _ = &mut sleep_until_deadline => guard.kill(),
                    },
                    // At the deadline: kill the group, then collect what it had
                    // already written, which is still sitting in the pipes.
                    None => {
                        guard.kill();
                        tokio::select! {
                            _ = &mut drain => {}
                            _ = tokio::time::sleep(PIPE_GRACE) => {}
                        }
                    }
                    Some(Err(_)) => {}
                }
            }
            status
        };
        let (stdout, stdout_dropped) = out.finish();
        let (stderr, stderr_dropped) = err.finish();
        match status {
            None => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                ExecTimeout {
                    ended: None,
                    timeout_ms: options.timeout_ms.unwrap_or_default(),
                    stdout,
                    stderr,
                    stdout_dropped,
                    stderr_dropped,
                },
            )),
            Some(Err(e)) => Err(e),
            Some(Ok(status)) => {
                guard.disarm();
                let exit = exit_of(status);
                Ok(ShellExecResult {
                    stdout,
                    stderr,
                    code: exit.code,
                    signal: exit.signal,
                    stdout_dropped,
                    stderr_dropped,
                })
            }
        }
    }

    async fn start_job(&self, launch: &JobLaunch) -> io::Result<JobIdentity> {
        let launch = launch.clone();
        blocking(move || super::local_job::start(&launch)).await
    }

    fn probe_job(&self, job: &JobIdentity) -> io::Result<JobLiveness> {
        super::local_job::probe(job)
    }

    fn signal_job(&self, job: &JobIdentity, signal: i32) -> io::Result<JobSignal> {
        super::local_job::signal(job, signal)
    }

    async fn write_job_input(&self, fifo: &str, data: &[u8], timeout_ms: u64) -> io::Result<usize> {
        let fifo = PathBuf::from(fifo);
        let data = data.to_vec();
        blocking(move || {
            super::local_job::write_input(&fifo, &data, Duration::from_millis(timeout_ms))
        })
        .await
    }

    fn spawn(
        &self,
        command: &str,
        options: ShellLaunchOptions,
    ) -> io::Result<Box<dyn ShellHandle>> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| io::Error::other("spawn needs a running Tokio runtime"))?;
        let _enter = runtime.enter();
        let mut child = base_command(command, &options)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()?;
        let pid = child.id().unwrap_or_default();
        let shared = Arc::new(Mutex::new(ExitState::default()));
        let supervised = Arc::clone(&shared);
        runtime.spawn(async move {
            let exit = match child.wait().await {
                Ok(status) => exit_of(status),
                Err(_) => ShellExit {
                    code: None,
                    signal: None,
                },
            };
            let listeners = {
                let mut state = supervised.lock().unwrap_or_else(|p| p.into_inner());
                state.exit = Some(exit);
                std::mem::take(&mut state.listeners)
            };
            for (_, listener) in listeners {
                listener(exit);
            }
        });
        Ok(Box::new(LocalShellHandle { pid, shared }))
    }
}

#[derive(Default)]
struct ExitState {
    exit: Option<ShellExit>,
    next_id: u64,
    listeners: Vec<(u64, ExitListener)>,
}

/// A spawned process whose single exit fans out to every subscriber.
pub struct LocalShellHandle {
    pid: u32,
    shared: Arc<Mutex<ExitState>>,
}

impl ShellHandle for LocalShellHandle {
    fn pid(&self) -> u32 {
        self.pid
    }

    fn kill(&self, signal: i32) -> io::Result<()> {
        let state = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        if state.exit.is_some() {
            // Reaped already: the pid may belong to someone else now.
            return Ok(());
        }
        let sig =
            Signal::try_from(signal).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        killpg(Pid::from_raw(self.pid as i32), sig).map_err(io::Error::from)
    }

    fn on_exit(&self, listener: ExitListener) -> Unsubscribe {
        let mut state = self.shared.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(exit) = state.exit {
            drop(state);
            listener(exit);
            return Box::new(|| {});
        }
        let id = state.next_id;
        state.next_id += 1;
        state.listeners.push((id, listener));
        let shared = Arc::clone(&self.shared);
        Box::new(move || {
            let mut state = shared.lock().unwrap_or_else(|p| p.into_inner());
            state.listeners.retain(|(i, _)| *i != id);
        })
    }
}

/// The shared local filesystem.
pub fn local_fs() -> Arc<dyn Fs> {
    static FS: OnceLock<Arc<dyn Fs>> = OnceLock::new();
    Arc::clone(FS.get_or_init(|| Arc::new(LocalFs::default())))
}

/// The shared local shell.
pub fn local_shell() -> Arc<dyn Shell> {
    static SHELL: OnceLock<Arc<dyn Shell>> = OnceLock::new();
    Arc::clone(SHELL.get_or_init(|| Arc::new(LocalShell)))
}

/// The notice of the standard budget.
pub fn standard_notice(omitted: usize) -> String {
    format!("\n[{omitted} bytes elided to stay within the output ceiling]\n")
}

/// The default ceiling: a middle clamp of `max_bytes` with the standard notice.
pub fn budget_of(max_bytes: usize) -> OutputBudget {
    OutputBudget::with_notice(ClipEnd::Middle, max_bytes, standard_notice)
}

/// The kernel's default ceiling: a 64 KiB middle clamp.
pub fn standard_budget() -> OutputBudget {
    budget_of(STANDARD_MAX_BYTES)
}

/// A context over the local backend. Absent parts default to a never-firing cancel
/// token, [`standard_budget`] and an empty framework (gate off).
pub fn make_local_context(
    cwd: &str,
    cancel: Option<CancellationToken>,
    budget: Option<OutputBudget>,
    framework: Option<Framework>,
) -> ToolContext {
    ToolContext::new(
        cwd,
        local_fs(),
        local_shell(),
        cancel.unwrap_or_default(),
        budget.unwrap_or_else(standard_budget),
        framework.unwrap_or_default(),
    )
}

/// `ctx` confined to `root`: its paths are admitted by the root, and its
/// filesystem is a [`LocalFs`] that enforces the same root.
pub fn confine_local(mut ctx: ToolContext, root: Arc<Root>) -> ToolContext {
    ctx.fs = Arc::new(LocalFs::confined(Arc::clone(&root)));
    ctx.root = Some(root);
    ctx
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::atomic_write;
    use crate::sys::tests::swapped_tree;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn opts(timeout_ms: Option<u64>) -> ShellExecOptions {
        ShellExecOptions {
            timeout_ms,
            ..Default::default()
        }
    }

    fn captured(data: &[u8], limit: usize, chunk: usize) -> (String, Dropped) {
        let mut capture = Capture::new(limit);
        for piece in data.chunks(chunk.max(1)) {
            capture.push(piece);
        }
        capture.finish()
    }

    #[test]
    fn a_capture_keeps_both_ends_and_counts_the_middle() {
        let data: String = (0..100_000).map(|i| format!("{i}\n")).collect();
        let (text, dropped) = captured(data.as_bytes(), 1000, 4096);
        assert_eq!(text.len(), 2000);
        assert_eq!(dropped.at, 1000);
        assert_eq!(dropped.bytes as usize, data.len() - 2000);
        assert!(data.starts_with(&text[..1000]) && data.ends_with(&text[1000..]));
        let newlines = |s: &str| s.matches('\n').count() as u64;
        assert_eq!(newlines(&text) + dropped.lines, 100_000);
        // Under the limit, nothing is dropped.
        assert_eq!(
            captured(b"short", 1000, 2),
            ("short".into(), Dropped::default())
        );
    }

    proptest::proptest! {
        #[test]
        fn a_capture_never_splits_a_character_and_accounts_for_every_byte(
            text in "[a-zé✓😀\n]{0,600}",
            limit in 1usize..64,
            chunk in 1usize..50,
        ) {
            let (kept, dropped) = captured(text.as_bytes(), limit, chunk);
            // Valid UTF-8 in, so nothing was replaced: every byte is kept or counted.
            proptest::prop_assert!(!kept.contains(char::REPLACEMENT_CHARACTER));
            proptest::prop_assert_eq!(kept.len() as u64 + dropped.bytes, text.len() as u64);
            let newlines = |s: &str| s.matches('\n').count() as u64;
            proptest::prop_assert_eq!(newlines(&kept) + dropped.lines, newlines(&text));
            proptest::prop_assert!(text.starts_with(&kept[..dropped.at]));
            proptest::prop_assert!(text.ends_with(&kept[dropped.at..]));
        }
    }

    #[tokio::test]
    async fn exec_holds_a_flood_within_its_capture_limit() {
        let o = ShellExecOptions {
            capture_limit: Some(4096),
            ..Default::default()
        };
        let r = LocalShell
            .exec(
                "head -c 20000000 /dev/zero | tr '\\0' 'a'; echo; echo end",
                o,
            )
            .await
            .unwrap();
        assert_eq!(r.stdout.len(), 8192);
        assert!(r.stdout.ends_with("a\nend\n"));
        assert_eq!(r.stdout_dropped.bytes, 20_000_005 - 8192);
        assert_eq!(r.stdout_dropped.lines, 0);
    }

    #[test]
    fn standard_notice_is_byte_exact() {
        assert_eq!(
            standard_notice(12),
            "\n[12 bytes elided to stay within the output ceiling]\n"
        );
        let b = standard_budget();
        assert_eq!(b.max_bytes, 65536);
        assert_eq!(b.kind, ClipEnd::Middle);
    }

    #[tokio::test]
    async fn fs_errors_read_like_libuv() {
        let err = LocalFs::default()
            .read_text("/definitely/not/here")
            .await
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert_eq!(
            err.to_string(),
            "ENOENT: no such file or directory, open '/definitely/not/here'"
        );
    }

    #[tokio::test]
    async fn fs_round_trip_and_stat() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_str().unwrap();
        let sub = format!("{root}/a/b");
        LocalFs::default().mkdir(&sub, true).await.unwrap();
        let file = format!("{sub}/f.txt");
        LocalFs::default().write_file(&file, "héllo").await.unwrap();
        assert_eq!(LocalFs::default().read_text(&file).await.unwrap(), "héllo");
        let st = LocalFs::default().stat(&file).await.unwrap();
        assert!(st.is_file && !st.is_directory && !st.is_symlink);
        assert_eq!(st.size, 6);
        assert!(st.modified_ms > 0.0);
        let link = format!("{root}/link");
        std::os::unix::fs::symlink(&sub, &link).unwrap();
        let st = LocalFs::default().stat(&link).await.unwrap();
        assert!(st.is_symlink && st.is_directory);
        let kids = LocalFs::default().read_dir(root).await.unwrap();
        assert_eq!(kids.len(), 2);
        assert!(kids.iter().all(|k| k.is_directory));
        assert!(LocalFs::default().exists(&file).await);
        LocalFs::default()
            .rm(
                &format!("{root}/a"),
                RemoveOptions {
                    recursive: true,
                    ignore_missing: false,
                },
            )
            .await
            .unwrap();
        assert!(!LocalFs::default().exists(&file).await);
        LocalFs::default()
            .rm(
                &format!("{root}/a"),
                RemoveOptions {
                    recursive: true,
                    ignore_missing: true,
                },
            )
            .await
            .unwrap();
        assert!(
            LocalFs::default()
                .rm(&format!("{root}/a"), RemoveOptions::default())
                .await
                .is_err()
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn fs_works_through_the_blocking_pool_too() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f").to_str().unwrap().to_string();
        LocalFs::default().write_file(&file, "x").await.unwrap();
        assert_eq!(LocalFs::default().read_text(&file).await.unwrap(), "x");
        assert!(LocalFs::default().stat(&file).await.unwrap().is_file);
    }

    #[tokio::test]
    async fn a_confined_fs_refuses_by_name_and_by_descriptor() {
        let (_d, base, root) = swapped_tree();
        let fs = LocalFs::confined(Arc::new(root.clone()));
        let outside = base.join("out/secret");
        let outside = outside.to_str().unwrap();
        for err in [
            fs.read_bytes(outside).await.unwrap_err(),
            fs.stat(outside).await.unwrap_err(),
            fs.write_file(outside, "x").await.map(|_| ()).unwrap_err(),
            fs.read_dir(base.join("app/out").to_str().unwrap())
                .await
                .map(|_| ())
                .unwrap_err(),
            fs.mkdir(base.join("app/out/d").to_str().unwrap(), true)
                .await
                .unwrap_err(),
        ] {
            assert!(OutsideRoot::is(&err), "{err}");
        }
        assert!(!fs.exists(outside).await);
        assert_eq!(std::fs::read_to_string(outside).unwrap(), "keep");
        assert!(!base.join("out/d").exists());
        // Inside, everything works as unconfined.
        let inner = base.join("app/a/b/c.txt");
        fs.mkdir(base.join("app/a/b").to_str().unwrap(), true)
            .await
            .unwrap();
        fs.write_file(inner.to_str().unwrap(), "ok").await.unwrap();
        assert_eq!(fs.read_text(inner.to_str().unwrap()).await.unwrap(), "ok");
        assert_eq!(
            fs.read_dir(base.join("app/a").to_str().unwrap())
                .await
                .unwrap()
                .len(),
            1
        );
        // A parent swapped for an outgoing link after the name check: the
        // descriptor walk of mkdir refuses it.
        let err =
            mkdir_confined(base.join("app/out/x/y").to_str().unwrap(), true, &root).unwrap_err();
        assert!(OutsideRoot::is(&err), "{err}");
        assert!(!base.join("out/x").exists());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn file_locks_exclude_each_other_and_follow_a_replaced_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        let p = path.to_str().unwrap().to_string();
        let lock = |wait: u64| {
            let p = p.clone();
            async move { lock_file_within(&p, Duration::from_millis(wait)).await }
        };
        assert!(!lock(0).await.unwrap().is_held(), "a missing file");
        std::fs::write(&path, "old").unwrap();
        let held = lock(0).await.unwrap();
        assert!(held.is_held());
        let err = lock(30).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(err.to_string().contains("for 30 ms"), "{err}");
        // A waiter that gets the old inode's lock after an atomic replace must see
        // the path now names another inode and lock that one instead.
        let waiter = tokio::spawn(lock(5000));
        tokio::time::sleep(Duration::from_millis(50)).await;
        atomic_write(&path, b"new").unwrap();
        drop(held);
        let got = waiter.await.unwrap().unwrap();
        assert!(got.is_held());
        // The waiter holds the new inode's lock: a third taker is refused.
        assert!(lock(0).await.is_err());
    }

    #[tokio::test]
    async fn exec_captures_both_streams_and_the_code() {
        let r = LocalShell
            .exec("echo out; echo err >&2; exit 3", opts(None))
            .await
            .unwrap();
        assert_eq!(r.stdout, "out\n");
        assert_eq!(r.stderr, "err\n");
        assert_eq!(r.code, Some(3));
    }

    #[tokio::test]
    async fn exec_drains_large_output_without_deadlock() {
        // Far more than a pipe buffer on both streams at once.
        let r = LocalShell
            .exec(
                "head -c 300000 /dev/zero | tr '\\0' a; head -c 300000 /dev/zero | tr '\\0' b >&2",
                opts(Some(20_000)),
            )
            .await
            .unwrap();
        assert_eq!(r.stdout.len(), 300_000);
        assert_eq!(r.stderr.len(), 300_000);
    }

    #[tokio::test]
    async fn exec_pipes_input_and_closes_stdin_otherwise() {
        let mut o = opts(Some(10_000));
        o.input = Some("abc".into());
        let r = LocalShell.exec("cat", o).await.unwrap();
        assert_eq!(r.stdout, "abc");
        // No input: stdin is closed, so `cat` ends at once instead of waiting.
        let r = LocalShell
            .exec("cat; echo done", opts(Some(10_000)))
            .await
            .unwrap();
        assert_eq!(r.stdout, "done\n");
    }

    #[tokio::test]
    async fn exec_keeps_none_for_a_signalled_exit() {
        let r = LocalShell.exec("kill -9 $$", opts(None)).await.unwrap();
        assert_eq!(r.code, None);
    }

    #[tokio::test]
    async fn exec_enforces_the_deadline_on_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("survived");
        let cmd = format!("(sleep 1; touch {}) & sleep 30", marker.display());
        let started = std::time::Instant::now();
        let err = LocalShell.exec(&cmd, opts(Some(200))).await.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() < Duration::from_secs(5));
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(!marker.exists(), "a background child outlived the deadline");
    }

    #[tokio::test]
    async fn exec_does_not_hang_on_a_child_holding_the_pipes() {
        let started = std::time::Instant::now();
        let r = LocalShell
            .exec("echo hi; sleep 30 &", opts(Some(20_000)))
            .await
            .unwrap();
        assert_eq!(r.stdout, "hi\n");
        assert_eq!(r.code, Some(0));
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn exec_honours_cwd_and_env() {
        let dir = tempfile::tempdir().unwrap();
        let o = ShellExecOptions {
            launch: ShellLaunchOptions {
                cwd: Some(dir.path().to_str().unwrap().into()),
                env: vec![("INDUS_T".into(), "v1".into())],
                ..Default::default()
            },
            ..Default::default()
        };
        let r = LocalShell.exec("pwd; echo $INDUS_T", o).await.unwrap();
        let canon = std::fs::canonicalize(dir.path()).unwrap();
        assert_eq!(r.stdout, format!("{}\nv1\n", canon.display()));
    }

    #[tokio::test]
    async fn a_detached_command_leads_its_own_session_and_group() {
        // Fields 5 and 6 of /proc/PID/stat are the process group and the session.
        let probe = "set -- $(cat /proc/$$/stat); echo \"$$ $5 $6\"";
        let run = |detach| {
            let o = ShellExecOptions {
                launch: ShellLaunchOptions {
                    detach_terminal: detach,
                    ..Default::default()
                },
                ..Default::default()
            };
            LocalShell.exec(probe, o)
        };
        let r = run(true).await.unwrap();
        let ids: Vec<&str> = r.stdout.split_whitespace().collect();
        assert_eq!(ids.len(), 3, "{}", r.stdout);
        assert_eq!((ids[1], ids[2]), (ids[0], ids[0]), "pid pgrp session");
        // Without it: its own group, the caller's session.
        let r = run(false).await.unwrap();
        let ids: Vec<&str> = r.stdout.split_whitespace().collect();
        assert_eq!(ids[1], ids[0]);
        assert_ne!(ids[2], ids[0]);
    }

    #[tokio::test]
    async fn spawn_fans_the_exit_out_to_every_listener_even_late_ones() {
        let handle = LocalShell
            .spawn("exit 7", ShellLaunchOptions::default())
            .unwrap();
        assert!(handle.pid() > 0);
        let heard = Arc::new(AtomicUsize::new(0));
        let (tx, rx) = tokio::sync::oneshot::channel();
        let h1 = Arc::clone(&heard);
        let _keep = handle.on_exit(Box::new(move |e| {
            assert_eq!(e.code, Some(7));
            h1.fetch_add(1, Ordering::SeqCst);
            let _ = tx.send(());
        }));
        let h2 = Arc::clone(&heard);
        let unsub = handle.on_exit(Box::new(move |_| {
            h2.fetch_add(100, Ordering::SeqCst);
        }));
        unsub();
        rx.await.unwrap();
        // A late subscriber hears about the finished process at once.
        let h3 = Arc::clone(&heard);
        let _late = handle.on_exit(Box::new(move |e| {
            assert_eq!(e.code, Some(7));
            h3.fetch_add(10, Ordering::SeqCst);
        }));
        assert_eq!(heard.load(Ordering::SeqCst), 11);
    }

    #[tokio::test]
    async fn spawn_kill_reports_the_signal() {
        let handle = LocalShell
            .spawn("sleep 30", ShellLaunchOptions::default())
            .unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let _keep = handle.on_exit(Box::new(move |e| {
            let _ = tx.send(e);
        }));
        handle.kill(libc_sigterm()).unwrap();
        let exit = tokio::time::timeout(Duration::from_secs(5), rx)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(exit.code, None);
        assert_eq!(exit.signal, Some(libc_sigterm()));
        // Killing a reaped process is a no-op, never a signal to a recycled pid.
        handle.kill(libc_sigterm()).unwrap();
    }

    fn libc_sigterm() -> i32 {
        Signal::SIGTERM as i32
    }

    #[test]
    fn make_local_context_defaults() {
        let ctx = make_local_context("/x", None, None, None);
        assert_eq!(ctx.cwd, "/x");
        assert!(!ctx.cancel.is_cancelled());
        assert_eq!(ctx.budget.max_bytes, STANDARD_MAX_BYTES);
        assert!(ctx.framework.read_state.is_none());
    }
}
