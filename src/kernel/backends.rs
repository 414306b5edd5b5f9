//! The only I/O seams a tool may use: [`Fs`] and [`Shell`].
//!
//! Tools receive these through their `ToolContext` and never touch `std::fs` or
//! `std::process` themselves, so a host can swap in a sandboxed, remote or in-memory
//! backend without changing a tool. Only the traits and their data shapes live here;
//! the OS binding is `backends::local`. Paths are plain strings the caller has
//! already resolved against the context's cwd: a backend interprets none of them.

use std::io;

use async_trait::async_trait;

/// What `stat` reports. `modified_ms` is epoch milliseconds (the gate floors it).
#[derive(Debug, Clone, PartialEq)]
pub struct FsEntryInfo {
    pub is_file: bool,
    pub is_directory: bool,
    pub is_symlink: bool,
    pub size: u64,
    pub modified_ms: f64,
}

/// One entry of `read_dir`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirChild {
    pub name: String,
    pub is_directory: bool,
}

/// Options of `rm`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RemoveOptions {
    pub recursive: bool,
    pub ignore_missing: bool,
}

/// How long `edit`, `write` and `apply_patch` wait for another process's change
/// of the same file (see [`Fs::lock_file`]) before giving up with an error rather
/// than hanging.
pub const FILE_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// An exclusive lock on one file, held until dropped (see [`Fs::lock_file`]).
/// `FileLock::default()` holds nothing: a backend without locks, or a file that
/// does not exist yet.
#[derive(Default)]
pub struct FileLock(Option<Box<dyn Send + Sync>>);

impl FileLock {
    /// A lock whose release is the drop of `held` (a locked descriptor, say).
    pub fn holding(held: impl Send + Sync + 'static) -> Self {
        Self(Some(Box::new(held)))
    }

    /// Whether anything is held.
    pub fn is_held(&self) -> bool {
        self.0.is_some()
    }
}

impl std::fmt::Debug for FileLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("FileLock").field(&self.is_held()).finish()
    }
}

/// The filesystem seam.
#[async_trait]
pub trait Fs: Send + Sync {
    /// The file's bytes as UTF-8 text; other bytes are an `InvalidData` error in
    /// the libuv style of the rest (`EILSEQ: file is not valid UTF-8, read 'P'`).
    async fn read_text(&self, path: &str) -> io::Result<String> {
        let bytes = self.read_bytes(path).await?;
        String::from_utf8(bytes).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("EILSEQ: file is not valid UTF-8, read '{path}'"),
            )
        })
    }
    async fn read_bytes(&self, path: &str) -> io::Result<Vec<u8>>;
    async fn write_file(&self, path: &str, data: &str) -> io::Result<()>;
    /// Write bytes that need not be UTF-8 (a legacy-encoded text file written
    /// back in its own encoding), atomically as `write_file` does. The default
    /// takes UTF-8 only, so a backend that cannot carry other bytes says so
    /// instead of writing something else.
    async fn write_bytes(&self, path: &str, data: &[u8]) -> io::Result<()> {
        match std::str::from_utf8(data) {
            Ok(text) => self.write_file(path, text).await,
            Err(_) => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                format!("this backend writes UTF-8 text only, and {path}'s new bytes are not"),
            )),
        }
    }
    async fn stat(&self, path: &str) -> io::Result<FsEntryInfo>;
    async fn read_dir(&self, path: &str) -> io::Result<Vec<DirChild>>;
    async fn mkdir(&self, path: &str, recursive: bool) -> io::Result<()>;
    async fn rm(&self, path: &str, options: RemoveOptions) -> io::Result<()>;
    async fn exists(&self, path: &str) -> bool;

    /// Take an exclusive lock on the existing file at `path` (through links) for a
    /// read-modify-write: `edit` and `write` hold it from before they read until
    /// after the new content is renamed in, so two processes changing one file
    /// take turns instead of one silently undoing the other. Waits at most
    /// `wait`, then fails with `ErrorKind::TimedOut`. A missing file gives an
    /// empty lock. The default locks nothing.
    async fn lock_file(&self, path: &str, wait: std::time::Duration) -> io::Result<FileLock> {
        let _ = (path, wait);
        Ok(FileLock::default())
    }

    /// Open a regular file for a streaming, blocking read, so a tool can window a
    /// file far larger than memory. Backends that can stream override this; the
    /// default reads the whole file through `read_bytes`.
    async fn open_read(&self, path: &str) -> io::Result<Box<dyn std::io::Read + Send>> {
        Ok(Box::new(std::io::Cursor::new(self.read_bytes(path).await?)))
    }

    /// Up to `max_len` bytes of a file starting at byte `offset`, plus the file's
    /// current length, so a tool can follow a growing file (a job's captured
    /// output) without rereading it. An offset past the end gives no bytes.
    /// Backends that can seek override this; the default reads the whole file.
    async fn read_range(
        &self,
        path: &str,
        offset: u64,
        max_len: usize,
    ) -> io::Result<(Vec<u8>, u64)> {
        let all = self.read_bytes(path).await?;
        let len = all.len() as u64;
        let start = offset.min(len) as usize;
        let end = start.saturating_add(max_len).min(all.len());
        Ok((all[start..end].to_vec(), len))
    }

    /// Watch the folder `dir` for changes to its files (see [`ChangeWatch`]).
    /// The default has no notification and wakes every 50 ms.
    fn watch_changes(&self, dir: &str) -> io::Result<Box<dyn ChangeWatch>> {
        let _ = dir;
        Ok(Box::new(TickWatch))
    }

    /// The tree-walk fast path behind `grep` and `find`: visit every entry beneath
    /// `options.root` on the backend's own threads, handing each thread its own
    /// visitor from `visitors`. Blocking: call it from a blocking context
    /// (`tokio::task::spawn_blocking`). Problems with single entries (unreadable
    /// directories, entries that vanish mid-walk) reach the visitors as
    /// [`WalkEvent::Unreadable`]; an `Err` means the walk could not run at all.
    ///
    /// The default reports `ErrorKind::Unsupported`, and the search tools then fall
    /// back to a sequential walk over `stat`/`read_dir`/`read_bytes`.
    fn walk_tree(
        &self,
        options: &WalkOptions,
        visitors: &dyn WalkVisitorFactory,
    ) -> io::Result<()> {
        let _ = (options, visitors);
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this backend offers no tree walk",
        ))
    }
}

/// Settings shared by `spawn` and `exec`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellLaunchOptions {
    /// Working directory; `None` inherits the host's.
    pub cwd: Option<String>,
    /// Variables overlaid onto the inherited environment.
    pub env: Vec<(String, String)>,
    /// Start the command in a session of its own, away from the caller's
    /// controlling terminal, so a program that opens `/dev/tty` to prompt cannot
    /// reach a person (the sub-agents of `task`). Either way the command leads its
    /// own process group.
    pub detach_terminal: bool,
}

/// `exec` settings: the launch options plus a deadline and optional stdin bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellExecOptions {
    pub launch: ShellLaunchOptions,
    /// Wall-clock deadline; on expiry the command's whole process group is killed
    /// and `exec` returns an error of kind `TimedOut`.
    pub timeout_ms: Option<u64>,
    /// Written to the command's stdin, which is then closed. `None` gives the
    /// command a closed stdin, so a program waiting for input ends instead of hanging.
    pub input: Option<String>,
    /// Bytes kept of each stream at each end: the first and the last this many are
    /// held, what lies between is dropped as it arrives and only counted (see
    /// [`Dropped`]), so a flood costs no memory. `None`: [`DEFAULT_CAPTURE_LIMIT`].
    pub capture_limit: Option<usize>,
    /// Sees every byte of both streams as it arrives, before the capture keeps
    /// only their ends (`bash` spills them to a file this way).
    pub tap: Option<Tap>,
}

/// Which stream a chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TapStream {
    Stdout,
    Stderr,
}

/// A sink for an `exec`'s output as it arrives. Called from the reading task,
/// so it must not block for long.
pub trait OutputTap: Send + Sync {
    fn chunk(&self, stream: TapStream, bytes: &[u8]);
}

/// A shared [`OutputTap`], compared by identity.
#[derive(Clone)]
pub struct Tap(pub std::sync::Arc<dyn OutputTap>);

impl std::fmt::Debug for Tap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tap")
    }
}

impl PartialEq for Tap {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Tap {}

/// The capture limit of an `exec` that sets none: 8 MiB at each end of a stream.
pub const DEFAULT_CAPTURE_LIMIT: usize = 8 * 1024 * 1024;

/// What an `exec` dropped from the middle of one stream to stay within its capture
/// limit: `bytes` bytes holding `lines` newlines, which stood at byte `at` of the
/// kept text. All zero when nothing was dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dropped {
    pub at: usize,
    pub bytes: u64,
    pub lines: u64,
}

/// A settled `exec`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellExecResult {
    pub stdout: String,
    pub stderr: String,
    /// The exit code; `None` when the process was ended by a signal.
    pub code: Option<i32>,
    /// The signal that ended the process, when one did (beyond the seed, which
    /// only knew that `code` was `None`).
    pub signal: Option<i32>,
    /// What was dropped from the middle of each stream (see `capture_limit`).
    pub stdout_dropped: Dropped,
    pub stderr_dropped: Dropped,
    /// The command stopped to read the input it was not given (a prompt): who,
    /// and how. It then got end-of-input, as with a closed stdin.
    pub input_wait: Option<InputWait>,
}

/// The payload of the `TimedOut` error `exec` returns at its deadline: what the
/// command wrote before its process group was killed, so a caller can still show
/// it. Reach it with [`ExecTimeout::of`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecTimeout {
    /// How the command was ended, when not by killing its process group (a
    /// shell that types into a terminal says what it could do); `None`: the
    /// group was killed.
    pub ended: Option<String>,
    pub timeout_ms: u64,
    pub stdout: String,
    pub stderr: String,
    pub stdout_dropped: Dropped,
    pub stderr_dropped: Dropped,
}

impl ExecTimeout {
    /// The partial output carried by a `TimedOut` error from `exec`, if any.
    pub fn of(error: &io::Error) -> Option<&ExecTimeout> {
        error.get_ref()?.downcast_ref::<ExecTimeout>()
    }
}

impl std::fmt::Display for ExecTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "command timed out after {} ms", self.timeout_ms)
    }
}

impl std::error::Error for ExecTimeout {}

/// How a spawned process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShellExit {
    /// Exit code, `None` when signalled (or when the wait itself failed).
    pub code: Option<i32>,
    /// The terminating signal, if any.
    pub signal: Option<i32>,
}

/// Called once with the exit of a spawned process.
pub type ExitListener = Box<dyn FnOnce(ShellExit) + Send>;
/// Removes a listener that has not fired yet.
pub type Unsubscribe = Box<dyn FnOnce() + Send>;

/// A spawned background process.
pub trait ShellHandle: Send + Sync {
    /// The child's pid (also its process-group id: children lead their own group).
    fn pid(&self) -> u32;
    /// Send `signal` to the child's process group.
    fn kill(&self, signal: i32) -> io::Result<()>;
    /// Subscribe to the exit. Any number of listeners hear the single exit event; a
    /// listener added after the process ended is called at once.
    fn on_exit(&self, listener: ExitListener) -> Unsubscribe;
}

/// Where a detached job reads its input and leaves its output and exit record.
/// All paths are absolute and chosen by the caller (the `process` tool puts them
/// under `.indus-process/jobs/<id>/`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobLaunch {
    /// The `sh -c` command line.
    pub command: String,
    /// Working directory; `None` inherits the host's.
    pub cwd: Option<String>,
    /// A FIFO the backend creates; the job's stdin. The backend keeps a write end
    /// open for the job's whole life, so the job sees end-of-input only when it ends.
    pub stdin_fifo: String,
    /// Files the job's stdout and stderr are appended to.
    pub stdout_path: String,
    pub stderr_path: String,
    /// Written (atomically) when the job ends, by a supervisor that outlives the
    /// caller: one line, `exit N` or `signal N`.
    pub exit_path: String,
    /// Run the job in a pseudo-terminal of this size instead of on pipes: its
    /// stdin, stdout and stderr are the terminal, whose output (escapes and
    /// all) goes to `stdout_path`; input written to the FIFO reaches the
    /// terminal. `stderr_path` stays empty.
    pub tty: Option<TtySize>,
}

/// A terminal's size in character cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TtySize {
    pub cols: u16,
    pub rows: u16,
}

/// A job caught waiting for input: which process, and how it waits
/// (`reading its terminal`, `reading its stdin`, `waiting on its terminal
/// with line editing on`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputWait {
    pub pid: u32,
    /// The process's name as the kernel keeps it (`python3`, `bash`).
    pub name: String,
    pub how: &'static str,
}

/// A watch on a folder's files, so a waiter sleeps until something in it
/// changes instead of looking again and again. Blocking: call from a
/// blocking context.
pub trait ChangeWatch: Send {
    /// Sleep until a file in the folder is written, created or renamed into it
    /// (`true`), or `timeout` passes (`false`). A watch that cannot tell may
    /// wake early and say `true`; the waiter looks again either way.
    fn wait(&mut self, timeout: std::time::Duration) -> io::Result<bool>;
}

/// The watch of a backend that has no change notification: it wakes every
/// 50 ms and says "maybe".
#[derive(Debug, Default)]
pub struct TickWatch;

impl ChangeWatch for TickWatch {
    fn wait(&mut self, timeout: std::time::Duration) -> io::Result<bool> {
        let nap = timeout.min(std::time::Duration::from_millis(50));
        std::thread::sleep(nap);
        Ok(nap < timeout)
    }
}

/// Who a started job is: enough to find it again from another process and to
/// tell it apart from a later process that reuses its pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobIdentity {
    pub pid: u32,
    /// The job leads its own session and process group, so this equals `pid`.
    pub pgid: u32,
    /// The process's start time (clock ticks since boot, field 22 of
    /// `/proc/<pid>/stat` on Linux); a pid whose start time differs is another process.
    pub start_time: u64,
}

/// What the OS says about a job's pid right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobLiveness {
    /// The process exists, is not a zombie, and has the recorded start time.
    Running,
    /// The process has ended but has not been reaped yet.
    Zombie,
    /// No such process, or the pid now belongs to a different process.
    Gone,
}

/// The result of signalling a job's process group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobSignal {
    /// The signal reached at least one process of the group.
    Delivered,
    /// Nothing is left in the group.
    NoProcess,
    /// The group id now belongs to an unrelated process; nothing was signalled.
    Recycled,
}

fn no_jobs() -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        "this backend cannot run background jobs",
    )
}

/// `text` as one POSIX `sh` word: single-quoted, a `'` inside spelled `'\''`.
/// Every `Shell` takes `sh -c` lines, and commands built for one quote with this.
pub fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The command seam.
#[async_trait]
pub trait Shell: Send + Sync {
    async fn exec(&self, command: &str, options: ShellExecOptions) -> io::Result<ShellExecResult>;
    fn spawn(&self, command: &str, options: ShellLaunchOptions)
    -> io::Result<Box<dyn ShellHandle>>;

    /// Start a job detached from the caller (its own session and process group,
    /// supervised by a process that records its exit), so it outlives the calling
    /// process and its exit code is known even if nobody is watching.
    async fn start_job(&self, launch: &JobLaunch) -> io::Result<JobIdentity> {
        let _ = launch;
        Err(no_jobs())
    }

    /// Look at a job's pid now, checking the start time against recycling.
    fn probe_job(&self, job: &JobIdentity) -> io::Result<JobLiveness> {
        let _ = job;
        Err(no_jobs())
    }

    /// Send `signal` to the job's process group (`0` only checks that a member is
    /// left), unless the group id has been recycled.
    fn signal_job(&self, job: &JobIdentity, signal: i32) -> io::Result<JobSignal> {
        let _ = (job, signal);
        Err(no_jobs())
    }

    /// Write `data` to a job's stdin FIFO, waiting at most `timeout_ms` for the job
    /// to make room; returns how many bytes went in.
    async fn write_job_input(&self, fifo: &str, data: &[u8], timeout_ms: u64) -> io::Result<usize> {
        let _ = (fifo, data, timeout_ms);
        Err(no_jobs())
    }

    /// Whether the job is stopped waiting for input right now: a process of its
    /// session blocked reading its stdin (or, on a terminal in line-editing
    /// mode, waiting on it). `Ok(None)`: it is not.
    fn job_input_wait(&self, job: &JobIdentity) -> io::Result<Option<InputWait>> {
        let _ = job;
        Err(no_jobs())
    }
}

/// What [`Fs::walk_tree`] covers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalkOptions {
    /// The resolved root. A root that is a symlink is followed; symlinks beneath it
    /// are reported, never followed (so a link loop cannot trap a walk).
    pub root: String,
    /// Entry names that are neither visited nor descended into, wherever they occur
    /// below the root (`.git`, `node_modules`); an entry holding a `/` is one
    /// absolute path instead (the toolbox's own state folder).
    pub prune: Vec<String>,
    /// Honour `.gitignore`, `.ignore`, `.git/info/exclude` and the global git
    /// excludes, as ripgrep does (also outside a git repository).
    pub ignore_files: bool,
    /// Worker threads; 0 lets the backend choose.
    pub threads: usize,
}

impl WalkOptions {
    /// Whether the walk passes over the entry at `abs` (absolute) named `name`.
    pub fn prunes(&self, abs: &str, name: &str) -> bool {
        self.prune
            .iter()
            .any(|p| if p.contains('/') { p == abs } else { p == name })
    }

    /// Whether a name rule (not an absolute path) prunes entries named `name`.
    pub fn prunes_name(&self, name: &str) -> bool {
        self.prune.iter().any(|p| !p.contains('/') && p == name)
    }
}

/// The kind of a walked entry, without following symlinks (except at the root).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkEntryKind {
    File,
    Dir,
    Symlink,
    /// FIFO, socket, device: never read.
    Other,
}

/// The caps of [`WalkEntry::read`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// Files larger than this many bytes are not read.
    pub max_size: u64,
    /// Files with a NUL byte among their first this-many bytes are not read further.
    pub nul_sniff: usize,
}

/// What [`WalkEntry::read`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRead {
    /// The whole content is in the buffer.
    Read,
    /// Over `max_size`: nothing useful is in the buffer.
    TooLarge { size: u64 },
    /// A NUL byte within the first `nul_sniff` bytes.
    Binary,
}

/// One entry met by a walk.
pub trait WalkEntry {
    /// The path below the root, `/`-separated; empty for the root itself.
    fn path(&self) -> &str;
    /// The last path component (for the root, the root's own name).
    fn name(&self) -> &str;
    fn kind(&self) -> WalkEntryKind;
    /// For a symlink: whether its target is a directory (false when dangling).
    fn is_dir_link(&self) -> bool;
    /// Whether the entry is a regular file, or a symlink to one, with any execute
    /// bit set (find's `type: "executable"`, fd's `-t x`). `None` when the backend
    /// cannot tell (its entries carry no permission bits), so the caller can say so
    /// instead of listing nothing. Asked only when wanted: it may cost a `stat`.
    fn is_executable(&self) -> Option<bool> {
        None
    }
    /// Read a regular file into `buf` (cleared first), within `limits`.
    fn read(&self, buf: &mut Vec<u8>, limits: ReadLimits) -> io::Result<FileRead>;
}

/// What a walk hands a visitor.
pub enum WalkEvent<'a> {
    Entry(&'a dyn WalkEntry),
    /// A folder below the root left out by a name rule of [`WalkOptions::prune`]
    /// (`node_modules`, `.git`): neither visited nor entered, but told, so a
    /// search can count what it did not look at (a file or link of that name is
    /// left out untold). `path` is below the root.
    Pruned {
        path: String,
    },
    /// An entry that could not be read: skipped, never fatal. `path` is below the
    /// root (`Some("")` for the root itself, `None` when the error names no path).
    Unreadable {
        path: Option<String>,
        message: String,
    },
}

/// A visitor's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkFlow {
    Continue,
    /// Do not descend into this directory.
    Skip,
    /// Stop the whole walk (every thread) as soon as possible.
    Quit,
}

/// The per-thread receiver of a walk. It is dropped when its thread finishes, which
/// is where a visitor hands over what it gathered.
pub trait WalkVisitor: Send {
    fn visit(&mut self, event: WalkEvent<'_>) -> WalkFlow;
}

/// Makes one visitor per walking thread.
pub trait WalkVisitorFactory: Sync {
    fn visitor(&self) -> Box<dyn WalkVisitor + '_>;
}
