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

/// The filesystem seam.
#[async_trait]
pub trait Fs: Send + Sync {
    async fn read_text(&self, path: &str) -> io::Result<String>;
    async fn read_bytes(&self, path: &str) -> io::Result<Vec<u8>>;
    async fn write_file(&self, path: &str, data: &str) -> io::Result<()>;
    async fn stat(&self, path: &str) -> io::Result<FsEntryInfo>;
    async fn read_dir(&self, path: &str) -> io::Result<Vec<DirChild>>;
    async fn mkdir(&self, path: &str, recursive: bool) -> io::Result<()>;
    async fn rm(&self, path: &str, options: RemoveOptions) -> io::Result<()>;
    async fn exists(&self, path: &str) -> bool;

    /// Open a regular file for a streaming, blocking read, so a tool can window a
    /// file far larger than memory. Backends that can stream override this; the
    /// default reads the whole file through `read_bytes`.
    async fn open_read(&self, path: &str) -> io::Result<Box<dyn std::io::Read + Send>> {
        Ok(Box::new(std::io::Cursor::new(self.read_bytes(path).await?)))
    }
}

/// Settings shared by `spawn` and `exec`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellLaunchOptions {
    /// Working directory; `None` inherits the host's.
    pub cwd: Option<String>,
    /// Variables overlaid onto the inherited environment.
    pub env: Vec<(String, String)>,
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
}

/// A settled `exec`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellExecResult {
    pub stdout: String,
    pub stderr: String,
    /// The exit code; `None` when the process was ended by a signal.
    pub code: Option<i32>,
}

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

/// The command seam.
#[async_trait]
pub trait Shell: Send + Sync {
    async fn exec(&self, command: &str, options: ShellExecOptions) -> io::Result<ShellExecResult>;
    fn spawn(&self, command: &str, options: ShellLaunchOptions)
    -> io::Result<Box<dyn ShellHandle>>;
}
