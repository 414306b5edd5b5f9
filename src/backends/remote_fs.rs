//! The fallback of remote execution: the kernel's `Fs` and `Shell` seams over
//! plain POSIX shell commands sent through the channel (`ssh` or `ENGINE exec`),
//! for a target where the toolbox itself cannot run (another architecture or C
//! library, e.g. an Alpine or busybox container). The tools then run here and
//! reach the files and commands there one operation at a time.
//!
//! Each operation is one small `sh -c` script using only what busybox and GNU
//! coreutils both have (`cat`, `stat -c`, `mkdir`, `mv`, `chmod`, `readlink`,
//! `timeout`); it reports a failure by a status code that becomes the same
//! `io::Error` kind and libuv-style message the local backend gives, so a tool's
//! answer reads the same. Writes keep the local guarantees that can be kept over
//! a shell: the new content goes to a temp file in the target's folder, takes the
//! old file's mode and is renamed over it (a symlink is written through). What
//! cannot be had this way — file locks, background jobs, the tree-walk fast path
//! — is refused or left to the tools' slower general paths.

use std::io;
use std::process::Stdio;
use std::sync::Arc;

use async_trait::async_trait;
use tokio::io::AsyncWriteExt;

use super::remote::Remote;
use crate::kernel::{
    DirChild, Dropped, ExecTimeout, Fs, FsEntryInfo, JobIdentity, JobLaunch, RemoveOptions, Shell,
    ShellExecOptions, ShellExecResult, ShellHandle, ShellLaunchOptions, TapStream, sh_quote,
};

/// Status codes of the scripts, beyond 0.
const ENOENT: i32 = 90;
const ENOTDIR: i32 = 91;
const EISDIR: i32 = 92;
const EACCES: i32 = 93;
const ELOOP: i32 = 94;

/// One run of a script: its status, stdout and stderr.
struct Ran {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// The channel to the target, shared by [`RemoteFs`] and [`RemoteShell`].
#[derive(Debug, Clone)]
pub struct Channel {
    remote: Arc<Remote>,
}

impl Channel {
    pub fn new(remote: Remote) -> Self {
        Self {
            remote: Arc::new(remote),
        }
    }

    pub fn describe(&self) -> String {
        self.remote.target.describe()
    }

    async fn run(&self, script: &str, input: Option<Vec<u8>>) -> io::Result<Ran> {
        let std_cmd = self
            .remote
            .remote_sh(script, input.is_some())
            .map_err(io::Error::other)?;
        let mut cmd = tokio::process::Command::from(std_cmd);
        cmd.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if input.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let mut child = cmd.spawn()?;
        // Written while the output is read, so neither side can block the other.
        let writer = input.map(|data| {
            let mut stdin = child.stdin.take().expect("piped");
            tokio::spawn(async move {
                let _ = stdin.write_all(&data).await;
            })
        });
        let out = child.wait_with_output().await?;
        if let Some(writer) = writer {
            let _ = writer.await;
        }
        Ok(Ran {
            code: out.status.code(),
            stdout: out.stdout,
            stderr: out.stderr,
        })
    }
}

/// The error a script's status stands for, worded as the local backend words it.
fn error_of(ran: &Ran, syscall: &str, path: &str, target: &str) -> io::Error {
    let (kind, text) = match ran.code {
        Some(ENOENT) => (io::ErrorKind::NotFound, "ENOENT: no such file or directory"),
        Some(ENOTDIR) => (io::ErrorKind::NotADirectory, "ENOTDIR: not a directory"),
        Some(EISDIR) => (
            io::ErrorKind::IsADirectory,
            "EISDIR: illegal operation on a directory",
        ),
        Some(EACCES) => (io::ErrorKind::PermissionDenied, "EACCES: permission denied"),
        Some(ELOOP) => (
            io::ErrorKind::Other,
            "ELOOP: too many symbolic links encountered",
        ),
        _ => {
            let said = String::from_utf8_lossy(&ran.stderr).trim().to_string();
            return io::Error::other(format!(
                "{syscall} '{path}' on {target} failed: {}",
                if said.is_empty() {
                    format!("status {:?}", ran.code)
                } else {
                    said
                }
            ));
        }
    };
    io::Error::new(kind, format!("{text}, {syscall} '{path}'"))
}

/// A script fragment printing the stat of `$f` as `KIND LINK SIZE MTIME` and a
/// NUL: a link reports its target's kind and size, a dangling one its own (as
/// the local backend's `stat` does).
const STAT_LINE: &str = "l=0; [ -L \"$f\" ] && l=1; if [ -e \"$f\" ]; then s=$(stat -L -c '%s %Y' -- \"$f\"); else s=$(stat -c '%s %Y' -- \"$f\"); fi || s='0 0'; t=o; [ -f \"$f\" ] && t=f; [ -d \"$f\" ] && t=d; printf '%s %s %s\\0' \"$t\" \"$l\" \"$s\";";

/// A stat line of [`STAT_LINE`].
fn parse_stat(text: &str) -> Option<FsEntryInfo> {
    let f: Vec<&str> = text.split_whitespace().collect();
    let [kind, link, size, mtime] = f.as_slice() else {
        return None;
    };
    Some(FsEntryInfo {
        is_file: *kind == "f",
        is_directory: *kind == "d",
        is_symlink: *link == "1",
        size: size.parse().ok()?,
        modified_ms: mtime.parse::<f64>().ok()? * 1000.0,
    })
}

/// A script prelude checking `$p` exists (a dangling link counts) and is
/// reachable.
const MUST_EXIST: &str = "[ -e \"$p\" ] || [ -L \"$p\" ] || { d=$(dirname -- \"$p\"); while [ ! -e \"$d\" ]; do d=$(dirname -- \"$d\"); done; [ -d \"$d\" ] || exit 91; exit 90; }; ";

/// `Fs` over the channel. `read_dir` answers with every child's `stat` too, kept
/// for the `stat` calls that follow it (`ls`, the search walk), so a folder
/// costs one round trip, not one per entry; any change through this `Fs` drops
/// what is kept of that path. A `RemoteFs` lives for one invocation.
#[derive(Debug, Clone)]
pub struct RemoteFs {
    channel: Channel,
    stats: Arc<std::sync::Mutex<std::collections::HashMap<String, FsEntryInfo>>>,
}

impl RemoteFs {
    pub fn new(channel: Channel) -> Self {
        Self {
            channel,
            stats: Arc::default(),
        }
    }

    fn forget(&self, path: &str) {
        if let Ok(mut stats) = self.stats.lock() {
            let below = format!("{path}/");
            stats.retain(|k, _| k != path && !k.starts_with(&below));
        }
    }

    async fn script(
        &self,
        path: &str,
        body: &str,
        syscall: &str,
        input: Option<Vec<u8>>,
    ) -> io::Result<Vec<u8>> {
        let script = format!("p={}; {body}", sh_quote(path));
        let ran = self.channel.run(&script, input).await?;
        if ran.code == Some(0) {
            Ok(ran.stdout)
        } else {
            Err(error_of(&ran, syscall, path, &self.channel.describe()))
        }
    }
}

#[async_trait]
impl Fs for RemoteFs {
    async fn read_bytes(&self, path: &str) -> io::Result<Vec<u8>> {
        let body = format!(
            "{MUST_EXIST}[ -d \"$p\" ] && exit {EISDIR}; [ -r \"$p\" ] || exit {EACCES}; exec cat -- \"$p\""
        );
        self.script(path, &body, "open", None).await
    }

    async fn write_file(&self, path: &str, data: &str) -> io::Result<()> {
        self.write_bytes(path, data.as_bytes()).await
    }

    async fn write_bytes(&self, path: &str, data: &[u8]) -> io::Result<()> {
        // Through links to the final target; a temp file in its folder takes the
        // old mode and is renamed over it.
        let body = format!(
            "t=\"$p\"; n=0; while [ -L \"$t\" ]; do l=$(readlink -- \"$t\"); case \"$l\" in /*) t=\"$l\";; *) t=\"$(dirname -- \"$t\")/$l\";; esac; n=$((n+1)); [ $n -gt 40 ] && exit {ELOOP}; done; \
             [ -d \"$t\" ] && exit {EISDIR}; d=$(dirname -- \"$t\"); [ -e \"$d\" ] || exit {ENOENT}; [ -d \"$d\" ] || exit {ENOTDIR}; [ -w \"$d\" ] || exit {EACCES}; \
             tmp=\"$d/.$(basename -- \"$t\").indus-tmp.$$\"; cat > \"$tmp\" || {{ rm -f -- \"$tmp\"; exit 1; }}; \
             if [ -e \"$t\" ]; then m=$(stat -c %a -- \"$t\") && chmod \"$m\" \"$tmp\"; fi; mv -f -- \"$tmp\" \"$t\" || {{ rm -f -- \"$tmp\"; exit 1; }}"
        );
        self.forget(path);
        self.script(path, &body, "write", Some(data.to_vec()))
            .await
            .map(|_| ())
    }

    async fn stat(&self, path: &str) -> io::Result<FsEntryInfo> {
        if let Some(info) = self.stats.lock().ok().and_then(|s| s.get(path).cloned()) {
            return Ok(info);
        }
        let body = format!("{MUST_EXIST}f=\"$p\"; {STAT_LINE}");
        let out = self.script(path, &body, "lstat", None).await?;
        let text = String::from_utf8_lossy(&out);
        parse_stat(text.trim_end_matches('\0')).ok_or_else(|| {
            io::Error::other(format!(
                "lstat '{path}' on {}: unreadable answer {text:?}",
                self.channel.describe()
            ))
        })
    }

    async fn read_dir(&self, path: &str) -> io::Result<Vec<DirChild>> {
        let body = format!(
            "{MUST_EXIST}[ -d \"$p\" ] || exit {ENOTDIR}; cd -- \"$p\" || exit {EACCES}; \
             for f in .* *; do case \"$f\" in .|..) continue;; esac; [ -e \"$f\" ] || [ -L \"$f\" ] || continue; \
             {STAT_LINE} printf '%s\\0' \"$f\"; done"
        );
        let out = self.script(path, &body, "scandir", None).await?;
        let mut children = Vec::new();
        let mut fields = out.split(|b| *b == 0);
        let mut stats = self.stats.lock().ok();
        while let (Some(info), Some(name)) = (fields.next(), fields.next()) {
            let Some(info) = parse_stat(&String::from_utf8_lossy(info)) else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let name = String::from_utf8_lossy(name).into_owned();
            if let Some(stats) = stats.as_mut() {
                stats.insert(
                    format!("{}/{name}", path.trim_end_matches('/')),
                    info.clone(),
                );
            }
            children.push(DirChild {
                name,
                is_directory: info.is_directory,
            });
        }
        Ok(children)
    }

    async fn mkdir(&self, path: &str, recursive: bool) -> io::Result<()> {
        let body = if recursive {
            format!("mkdir -p -- \"$p\" 2>/dev/null || exit {EACCES}")
        } else {
            format!(
                "d=$(dirname -- \"$p\"); [ -d \"$d\" ] || exit {ENOENT}; mkdir -- \"$p\" 2>/dev/null || exit {EACCES}"
            )
        };
        self.forget(path);
        self.script(path, &body, "mkdir", None).await.map(|_| ())
    }

    async fn rm(&self, path: &str, options: RemoveOptions) -> io::Result<()> {
        let missing = if options.ignore_missing {
            "exit 0".to_string()
        } else {
            format!("exit {ENOENT}")
        };
        let flags = if options.recursive { "-rf" } else { "-f" };
        let body = format!(
            "[ -e \"$p\" ] || [ -L \"$p\" ] || {missing}; rm {flags} -- \"$p\" || exit {EACCES}"
        );
        self.forget(path);
        self.script(path, &body, "rm", None).await.map(|_| ())
    }

    async fn open_read(&self, path: &str) -> io::Result<Box<dyn std::io::Read + Send>> {
        // Checked first (for the local backend's errors), then streamed: a tool
        // reading a window stops the copy when it has what it needs.
        let info = self.stat(path).await?;
        if info.is_directory {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                format!("EISDIR: illegal operation on a directory, read '{path}'"),
            ));
        }
        let mut cmd = self
            .channel
            .remote
            .remote_sh(&format!("exec cat -- {}", sh_quote(path)), false)
            .map_err(io::Error::other)?;
        let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::null()).spawn()?;
        let stdout = child.stdout.take().expect("piped");
        Ok(Box::new(Streamed { child, stdout }))
    }

    async fn read_range(
        &self,
        path: &str,
        offset: u64,
        max_len: usize,
    ) -> io::Result<(Vec<u8>, u64)> {
        // The length on the first line, then only the window's bytes.
        let body = format!(
            "{MUST_EXIST}[ -d \"$p\" ] && exit {EISDIR}; [ -r \"$p\" ] || exit {EACCES}; wc -c < \"$p\"; tail -c +{} -- \"$p\" | head -c {max_len}",
            offset.saturating_add(1)
        );
        let out = self.script(path, &body, "read", None).await?;
        let newline = out.iter().position(|b| *b == b'\n').unwrap_or(out.len());
        let len = String::from_utf8_lossy(&out[..newline])
            .trim()
            .parse::<u64>()
            .unwrap_or(0);
        let bytes = out.get(newline + 1..).unwrap_or_default().to_vec();
        Ok((if offset >= len { Vec::new() } else { bytes }, len))
    }

    async fn exists(&self, path: &str) -> bool {
        self.script(path, "[ -e \"$p\" ]", "access", None)
            .await
            .is_ok()
    }
}

/// A remote `cat` read as it arrives; dropping it ends the copy.
struct Streamed {
    child: std::process::Child,
    stdout: std::process::ChildStdout,
}

impl std::io::Read for Streamed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stdout.read(buf)
    }
}

impl Drop for Streamed {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `Shell` over the channel: `exec` only (no spawned handles, no jobs).
#[derive(Debug, Clone)]
pub struct RemoteShell {
    channel: Channel,
}

impl RemoteShell {
    pub fn new(channel: Channel) -> Self {
        Self { channel }
    }

    fn needs_toolbox(&self, what: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "{what} need indus-tool itself on {}, which cannot run it there",
                self.channel.describe()
            ),
        )
    }
}

/// Keep the first and last `limit` bytes of a stream, counting what lies between.
fn clamp(bytes: Vec<u8>, limit: usize) -> (String, Dropped) {
    if bytes.len() <= limit.saturating_mul(2) {
        return (
            String::from_utf8_lossy(&bytes).into_owned(),
            Dropped::default(),
        );
    }
    let (head, rest) = bytes.split_at(limit);
    let (middle, tail) = rest.split_at(rest.len() - limit);
    let dropped = Dropped {
        at: head.len(),
        bytes: middle.len() as u64,
        lines: middle.iter().filter(|b| **b == b'\n').count() as u64,
    };
    let mut kept = head.to_vec();
    kept.extend_from_slice(tail);
    (String::from_utf8_lossy(&kept).into_owned(), dropped)
}

#[async_trait]
impl Shell for RemoteShell {
    async fn exec(&self, command: &str, options: ShellExecOptions) -> io::Result<ShellExecResult> {
        let mut script = String::new();
        if let Some(dir) = &options.launch.cwd {
            script.push_str(&format!("cd {} || exit 1; ", sh_quote(dir)));
        }
        for (k, v) in &options.launch.env {
            script.push_str(&format!("export {}={}; ", k, sh_quote(v)));
        }
        // The deadline is kept on the other side too, so the command does not
        // outlive it there when the channel here is dropped.
        match options.timeout_ms {
            Some(ms) => script.push_str(&format!(
                "command -v timeout >/dev/null 2>&1 && exec timeout -s KILL {}s sh -c {c}; exec sh -c {c}",
                ms.div_ceil(1000) + 1,
                c = sh_quote(command)
            )),
            None => script.push_str(&format!("exec sh -c {}", sh_quote(command))),
        }
        let input = options.input.map(String::into_bytes);
        let limit = options
            .capture_limit
            .unwrap_or(crate::kernel::DEFAULT_CAPTURE_LIMIT);
        let run = self.channel.run(&script, input.or(Some(Vec::new())));
        let ran = match options.timeout_ms {
            Some(ms) => match tokio::time::timeout(std::time::Duration::from_millis(ms), run).await
            {
                Ok(r) => r?,
                Err(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        ExecTimeout {
                            ended: None,
                            timeout_ms: ms,
                            stdout: String::new(),
                            stderr: String::new(),
                            stdout_dropped: Dropped::default(),
                            stderr_dropped: Dropped::default(),
                        },
                    ));
                }
            },
            None => run.await?,
        };
        // The channel hands the streams over whole: the tap sees them at once.
        if let Some(tap) = &options.tap {
            tap.0.chunk(TapStream::Stdout, &ran.stdout);
            tap.0.chunk(TapStream::Stderr, &ran.stderr);
        }
        let (stdout, stdout_dropped) = clamp(ran.stdout, limit);
        let (stderr, stderr_dropped) = clamp(ran.stderr, limit);
        // `timeout -s KILL` ends with 137 when it killed the command.
        let (code, signal) = match ran.code {
            Some(137) if options.timeout_ms.is_some() => (None, Some(9)),
            other => (other, None),
        };
        Ok(ShellExecResult {
            stdout,
            stderr,
            code,
            signal,
            stdout_dropped,
            stderr_dropped,
            input_wait: None,
        })
    }

    fn spawn(
        &self,
        _command: &str,
        _options: ShellLaunchOptions,
    ) -> io::Result<Box<dyn ShellHandle>> {
        Err(self.needs_toolbox("long-running commands"))
    }

    async fn start_job(&self, _launch: &JobLaunch) -> io::Result<JobIdentity> {
        Err(self.needs_toolbox("background jobs"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_keep_both_ends() {
        let (kept, dropped) = clamp(b"aaaa\nbbbb\ncccc".to_vec(), 4);
        assert_eq!(kept, "aaaacccc");
        assert_eq!(dropped.bytes, 6);
        assert_eq!(dropped.lines, 2);
        let (kept, dropped) = clamp(b"short".to_vec(), 4);
        assert_eq!((kept.as_str(), dropped), ("short", Dropped::default()));
    }

    #[test]
    fn statuses_read_like_the_local_backend() {
        let ran = |code| Ran {
            code: Some(code),
            stdout: Vec::new(),
            stderr: b"boom".to_vec(),
        };
        let e = error_of(&ran(ENOENT), "open", "/w/x", "ssh:h");
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert_eq!(
            e.to_string(),
            "ENOENT: no such file or directory, open '/w/x'"
        );
        let e = error_of(&ran(1), "open", "/w/x", "ssh:h");
        assert_eq!(e.to_string(), "open '/w/x' on ssh:h failed: boom");
    }
}
