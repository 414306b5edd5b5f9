//! The `Shell` seam bound to local processes: `LocalShell` runs commands under
//! `sh -c` in their own process group, so a deadline or a cancel ends the whole
//! tree a command started, not just the shell; output is captured within a
//! limit keeping both ends; a detached command leads its own session.

use super::local_fs::blocking;
use crate::kernel::{
    DEFAULT_CAPTURE_LIMIT, Dropped, ExecTimeout, ExitListener, InputWait, JobIdentity, JobLaunch,
    JobLiveness, JobSignal, Shell, ShellExecOptions, ShellExecResult, ShellExit, ShellHandle,
    ShellLaunchOptions, Tap, TapStream, Unsubscribe,
};
use crate::sys::fs_error;
use async_trait::async_trait;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio::time::Instant;

/// How long `exec` keeps reading after the shell exits while a background child
/// still holds its pipes; then that child's process group is killed.
const PIPE_GRACE: Duration = Duration::from_millis(250);

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

async fn read_into<R: AsyncRead + Unpin>(
    reader: Option<R>,
    capture: &mut Capture,
    tap: Option<&Tap>,
    stream: TapStream,
) {
    let Some(mut r) = reader else {
        return;
    };
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if let Some(tap) = tap {
                    tap.0.chunk(stream, &buf[..n]);
                }
                capture.push(&buf[..n]);
            }
        }
    }
}

/// The stdin of a command given no input: an empty pipe whose write end is
/// held until a process of the command waits on it, then closed, so the
/// command gets end-of-input as from `/dev/null` and the answer can say it
/// stopped at a prompt. Held, a reader would hang; never held, a prompt could
/// not be told from a failure.
struct HeldInput {
    /// Held, never written: its close is the end-of-input.
    _write: std::os::fd::OwnedFd,
    /// The pipe's device and inode, to know it in `/proc/<pid>/fd`.
    target: (u64, u64),
}

/// The watch on a [`HeldInput`], on a thread of its own: it looks at the
/// command's process group at growing intervals (10 ms to 250 ms) and ends at
/// the first waiter or when the command is done.
struct InputWatch {
    done: Arc<std::sync::atomic::AtomicBool>,
    seen: Arc<Mutex<Option<InputWait>>>,
}

impl HeldInput {
    fn new() -> io::Result<(Self, std::process::Stdio)> {
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
        let stat = nix::sys::stat::fstat(&read)?;
        let target = (stat.st_dev, stat.st_ino);
        Ok((
            Self {
                _write: write,
                target,
            },
            std::process::Stdio::from(read),
        ))
    }

    fn watch(self, pgid: u32) -> InputWatch {
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(None));
        let (d, found) = (done.clone(), seen.clone());
        let spawned = std::thread::Builder::new()
            .name("stdin-watch".into())
            .spawn(move || {
                let mut nap = Duration::from_millis(10);
                while !d.load(std::sync::atomic::Ordering::Relaxed) {
                    std::thread::sleep(nap);
                    nap = (nap * 2).min(Duration::from_millis(250));
                    let scope = super::local_job::Scope::Group(pgid);
                    if let Some(w) = super::local_job::input_waiter(scope, self.target, false) {
                        if w.reading {
                            *found.lock().unwrap_or_else(|p| p.into_inner()) = Some(w.wait);
                        }
                        break;
                    }
                }
                // Dropping `self` closes the write end: end-of-input.
                drop(self);
            });
        if spawned.is_err() {
            // No thread: the pipe's end is already dropped with the closure.
            done.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        InputWatch { done, seen }
    }
}

impl InputWatch {
    /// Stop watching; who was caught waiting, if anyone.
    fn finish(self) -> Option<InputWait> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl Drop for InputWatch {
    /// However `exec` ends (a deadline, a cancel), the watch thread stops.
    fn drop(&mut self) {
        self.done.store(true, std::sync::atomic::Ordering::Relaxed);
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
        // No input given: an empty pipe whose end we hold until someone waits
        // on it, so a prompt is seen before it gets end-of-input.
        let (held_stdin, stdin_end) = match options.input {
            Some(_) => (None, std::process::Stdio::piped()),
            None => match HeldInput::new() {
                Ok((held, end)) => (Some(held), end),
                Err(_) => (None, std::process::Stdio::null()),
            },
        };
        cmd.stdin(stdin_end)
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
        let input_watch = held_stdin.zip(child.id()).map(|(h, pgid)| h.watch(pgid));
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
            let tap = options.tap.as_ref();
            let drain = async {
                tokio::join!(
                    read_into(stdout, &mut out, tap, TapStream::Stdout),
                    read_into(stderr, &mut err, tap, TapStream::Stderr)
                );
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
        let input_wait = input_watch.and_then(InputWatch::finish);
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
                    input_wait,
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

    fn job_input_wait(&self, job: &JobIdentity) -> io::Result<Option<InputWait>> {
        super::local_job::job_input_wait(job)
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
