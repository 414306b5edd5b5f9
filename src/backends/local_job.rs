//! Detached background jobs on the local OS, behind `Shell::start_job` and friends.
//!
//! A job must outlive the `indus-tool` that started it and still have its exit code
//! recorded when nobody is polling. Only a parent learns a child's exact exit status,
//! so the job gets a supervisor of its own: the caller forks a short-lived launcher
//! that calls `setsid` (leaving the caller's terminal and process group) and forks the
//! supervisor, then exits at once so the caller can reap it and the supervisor is
//! re-parented to init. The supervisor forks the job, which calls `setsid` too (its
//! own session and process group, so `stop` can signal the whole tree without hitting
//! the supervisor), reports its pid, waits on a "go" pipe while the caller reads its
//! start time from `/proc`, then wires stdin to the FIFO and stdout/stderr to the capture files and
//! execs `/bin/sh -c`. The supervisor holds a write end of the FIFO open so the job
//! never sees end-of-input between two `process write` calls, waits for the job, and
//! writes `exit N` or `signal N` to the exit file (temp + rename).
//!
//! Written by hand on `libc` because no crate offers a supervised, detached spawn
//! with exit capture: `std::process::Command` needs a living parent to wait, and the
//! daemonizing crates turn the *current* process into a daemon. Between `fork` and
//! `exec`/`_exit` only async-signal-safe calls are made (no allocation, no locks),
//! because the caller may be a multi-threaded host: everything that allocates
//! (C strings, argv) is prepared before the first fork.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use nix::libc;

use crate::kernel::{InputWait, JobIdentity, JobLaunch, JobLiveness, JobSignal, TtySize};

/// What `/proc/<pid>/stat` says about a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    /// The state letter (`R`, `S`, `Z`, …).
    pub state: u8,
    /// The process group (field 5).
    pub pgrp: u32,
    /// The session (field 6).
    pub session: u32,
    /// Start time in clock ticks since boot.
    pub start_time: u64,
}

/// Parse the text of `/proc/<pid>/stat`. The command name (field 2) is in
/// parentheses and may itself hold spaces and parentheses, so fields are counted
/// from the last `)`.
pub fn parse_proc_stat(text: &[u8]) -> Option<ProcStat> {
    let close = text.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(&text[close + 1..]).ok()?;
    let mut fields = rest.split_ascii_whitespace();
    let state = *fields.next()?.as_bytes().first()?;
    // `state` is field 3, the group field 5, the session 6, the start time 22.
    let pgrp = fields.nth(1)?.parse().ok()?;
    let session = fields.next()?.parse().ok()?;
    let start_time = fields.nth(15)?.parse().ok()?;
    Some(ProcStat {
        state,
        pgrp,
        session,
        start_time,
    })
}

/// Read a process's stat line; `Ok(None)` when there is no such process.
pub fn proc_stat(pid: u32) -> io::Result<Option<ProcStat>> {
    match std::fs::read(format!("/proc/{pid}/stat")) {
        Ok(bytes) => parse_proc_stat(&bytes).map(Some).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("/proc/{pid}/stat is not in the expected format"),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ESRCH) => {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Is `job` still the process that was started, and alive?
pub fn probe(job: &JobIdentity) -> io::Result<JobLiveness> {
    Ok(match proc_stat(job.pid)? {
        None => JobLiveness::Gone,
        Some(stat) if stat.start_time != job.start_time => JobLiveness::Gone,
        Some(stat) if stat.state == b'Z' || stat.state == b'X' => JobLiveness::Zombie,
        Some(_) => JobLiveness::Running,
    })
}

/// Signal the job's process group, unless its id was recycled. A group id can only
/// be taken again by a new process with that same pid, so: if a process with the
/// group's id exists and has another start time, the group is not ours any more; if
/// none exists, whatever is left in the group is what the job started.
pub fn signal(job: &JobIdentity, signal: i32) -> io::Result<JobSignal> {
    // killpg(0) would signal our own group and killpg(1) init's: a table edited by
    // hand must never get us there.
    if job.pgid <= 1 || job.pid <= 1 {
        return Ok(JobSignal::Recycled);
    }
    match proc_stat(job.pgid)? {
        Some(stat) if job.pgid != job.pid || stat.start_time != job.start_time => {
            return Ok(JobSignal::Recycled);
        }
        Some(_) => {}
        // The leader is gone: the group is the job's only if every member began
        // after the job did (a member that began before it is someone else's
        // process, however it came to carry that group id).
        None if group_has_member_older_than(job.pgid, job.start_time) => {
            return Ok(JobSignal::Recycled);
        }
        None => {}
    }
    // SAFETY: killpg has no memory-safety preconditions.
    let rc = unsafe { libc::killpg(job.pgid as libc::pid_t, signal) };
    if rc == 0 {
        // A probe (signal 0) reaches zombies too; a group left with nothing but
        // zombies (killed members whose parent has not reaped them yet, or reparented
        // to an init that never reaps) runs nothing any more.
        if signal == 0 && !group_has_live_member(job.pgid) {
            return Ok(JobSignal::NoProcess);
        }
        return Ok(JobSignal::Delivered);
    }
    let err = io::Error::last_os_error();
    match err.raw_os_error() {
        Some(libc::ESRCH) => Ok(JobSignal::NoProcess),
        // Members we may not signal are not ours: our jobs run as us.
        Some(libc::EPERM) => Ok(JobSignal::Recycled),
        _ => Err(err),
    }
}

/// Whether a process of group `pgid` began before `start_time` (clock ticks
/// since boot). Errs on the side of "yes" when `/proc` cannot be read, so no
/// group is signalled whose members cannot be told apart.
fn group_has_member_older_than(pgid: u32, start_time: u64) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    entries.flatten().any(|entry| {
        entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
            .and_then(|pid| proc_stat(pid).ok().flatten())
            .is_some_and(|stat| stat.pgrp == pgid && stat.start_time < start_time)
    })
}

/// Whether any process of group `pgid` is not a zombie. Errs on the side of
/// "live" when `/proc` cannot be read, so nothing is called gone that is not.
fn group_has_live_member(pgid: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Ok(Some(stat)) = proc_stat(pid)
            && stat.pgrp == pgid
            && stat.state != b'Z'
            && stat.state != b'X'
        {
            return true;
        }
    }
    false
}

/// Write to a job's stdin FIFO without ever blocking past `timeout`.
pub fn write_input(fifo: &Path, data: &[u8], timeout: Duration) -> io::Result<usize> {
    let file = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(fifo)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ENXIO) => io::Error::new(
                io::ErrorKind::BrokenPipe,
                "nothing holds the job's input open any more",
            ),
            _ => e,
        })?;
    let deadline = Instant::now() + timeout;
    let mut written = 0;
    while written < data.len() {
        // SAFETY: the pointer and length describe the live `data` slice.
        let n = unsafe {
            libc::write(
                file.as_raw_fd(),
                data[written..].as_ptr().cast(),
                data.len() - written,
            )
        };
        if n >= 0 {
            written += n as usize;
            continue;
        }
        let err = io::Error::last_os_error();
        match err.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EAGAIN) => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                let mut pfd = libc::pollfd {
                    fd: file.as_raw_fd(),
                    events: libc::POLLOUT,
                    revents: 0,
                };
                let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
                // SAFETY: one valid pollfd.
                unsafe { libc::poll(&mut pfd, 1, ms) };
            }
            Some(libc::EPIPE) if written > 0 => break,
            _ => return Err(err),
        }
    }
    Ok(written)
}

fn cstring(what: &str, bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("the {what} contains a NUL byte"),
        )
    })
}

fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: pipe2 just returned these as fresh, owned descriptors.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Everything the forked processes use, prepared before the first fork.
struct Prepared {
    argv: [*const libc::c_char; 4],
    cwd: Option<CString>,
    exit_tmp: CString,
    exit_final: CString,
    fifo_rw: RawFd,
    fifo_r: RawFd,
    out: RawFd,
    err: RawFd,
    report_r: RawFd,
    report_w: RawFd,
    go_r: RawFd,
    go_w: RawFd,
    /// The pseudo-terminal of a `--tty` job (`-1` for a job on pipes).
    pty_master: RawFd,
    pty_slave: RawFd,
    /// The environment a `--tty` job runs with (`TERM` set); null: the caller's.
    envp: *const *const libc::c_char,
}

/// The launcher's report: a tag and a value (the job's pid, or an errno).
const REPORT_PID: i32 = 0;
const REPORT_ERROR: i32 = 1;

/// Start a detached, supervised job (see the module comment).
pub fn start(launch: &JobLaunch) -> io::Result<JobIdentity> {
    let command = cstring("command", launch.command.as_bytes())?;
    let cwd = match &launch.cwd {
        Some(dir) => Some(cstring("working directory", dir.as_bytes())?),
        None => None,
    };
    let exit_tmp = cstring("exit path", format!("{}.tmp", launch.exit_path).as_bytes())?;
    let exit_final = cstring("exit path", launch.exit_path.as_bytes())?;
    let fifo_path = cstring("stdin path", launch.stdin_fifo.as_bytes())?;

    // SAFETY: a valid NUL-terminated path.
    if unsafe { libc::mkfifo(fifo_path.as_ptr(), 0o600) } != 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(
            e.kind(),
            format!("cannot create the FIFO {}: {e}", launch.stdin_fifo),
        ));
    }
    // Opening a FIFO read-write never blocks on Linux, and once a writer exists the
    // read-only open does not block either.
    let fifo_rw = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&launch.stdin_fifo)?;
    let fifo_r = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&launch.stdin_fifo)?;
    // The job reads its stdin blocking, like any program expects.
    // SAFETY: fcntl on a descriptor we own.
    unsafe {
        let flags = libc::fcntl(fifo_r.as_raw_fd(), libc::F_GETFL);
        libc::fcntl(fifo_r.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
    }
    let capture = |path: &str| {
        OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot create {path}: {e}")))
    };
    let out = capture(&launch.stdout_path)?;
    let err = capture(&launch.stderr_path)?;
    let (report_r, report_w) = pipe()?;
    let (go_r, go_w) = pipe()?;
    let pty = launch.tty.map(open_pty).transpose()?;
    let env = match launch.tty {
        Some(_) => Some(terminal_env()?),
        None => None,
    };
    let envp: Option<Vec<*const libc::c_char>> = env.as_ref().map(|vars| {
        vars.iter()
            .map(|v| v.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect()
    });

    let prepared = Prepared {
        argv: [
            terminal_shell(launch.tty.is_some()).as_ptr(),
            c"-c".as_ptr(),
            command.as_ptr(),
            std::ptr::null(),
        ],
        cwd,
        exit_tmp,
        exit_final,
        fifo_rw: fifo_rw.as_raw_fd(),
        fifo_r: fifo_r.as_raw_fd(),
        out: out.as_raw_fd(),
        err: err.as_raw_fd(),
        report_r: report_r.as_raw_fd(),
        report_w: report_w.as_raw_fd(),
        go_r: go_r.as_raw_fd(),
        go_w: go_w.as_raw_fd(),
        pty_master: pty.as_ref().map_or(-1, |(m, _)| m.as_raw_fd()),
        pty_slave: pty.as_ref().map_or(-1, |(_, s)| s.as_raw_fd()),
        envp: envp.as_ref().map_or(std::ptr::null(), |v| v.as_ptr()),
    };

    // SAFETY: the child only runs `launcher`, which makes async-signal-safe calls
    // and never returns.
    let launcher_pid = unsafe { libc::fork() };
    if launcher_pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if launcher_pid == 0 {
        // SAFETY: we are the freshly forked child.
        unsafe { launcher(&prepared) }
    }
    // The parent keeps only the read end of the report and the write end of "go".
    drop((fifo_rw, fifo_r, out, err, report_w, go_r, pty));
    reap(launcher_pid);

    let mut report = File::from(report_r);
    let mut buf = [0u8; 8];
    report
        .read_exact(&mut buf)
        .map_err(|_| io::Error::other("the job's launcher ended before reporting the job's pid"))?;
    let tag = i32::from_ne_bytes(buf[..4].try_into().expect("4 bytes"));
    let value = i32::from_ne_bytes(buf[4..].try_into().expect("4 bytes"));
    if tag == REPORT_ERROR {
        return Err(io::Error::from_raw_os_error(value));
    }
    let pid = value as u32;
    // The job is parked on the "go" pipe, so it is alive and its stat is readable.
    let start_time = match proc_stat(pid) {
        Ok(Some(stat)) => stat.start_time,
        Ok(None) => return Err(io::Error::other("the job vanished before it started")),
        Err(e) => return Err(e),
    };
    let mut go = File::from(go_w);
    let _ = io::Write::write_all(&mut go, b"g");
    drop(go);
    Ok(JobIdentity {
        pid,
        pgid: pid,
        start_time,
    })
}

/// A pseudo-terminal of `size`, both ends close-on-exec (the job gets the
/// terminal end as its 0, 1 and 2; nothing else keeps either).
fn open_pty(size: TtySize) -> io::Result<(OwnedFd, OwnedFd)> {
    let winsize = nix::pty::Winsize {
        ws_row: size.rows,
        ws_col: size.cols,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let pty = nix::pty::openpty(Some(&winsize), None)
        .map_err(|e| io::Error::other(format!("cannot open a pseudo-terminal: {e}")))?;
    for fd in [&pty.master, &pty.slave] {
        // SAFETY: fcntl on a descriptor we own.
        unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok((pty.master, pty.slave))
}

/// The shell a job's command runs in: `/bin/sh`, except that a terminal job
/// gets bash where there is one. On a terminal, C-c interrupts the whole
/// foreground group, the shell included: dash then dies with the program it
/// waits for even when the program catches the interrupt (a REPL's C-c ends
/// the job), while bash waits on and dies only when its program does, as a
/// person's shell behaves.
fn terminal_shell(tty: bool) -> &'static std::ffi::CStr {
    if tty && Path::new("/bin/bash").exists() {
        c"/bin/bash"
    } else {
        c"/bin/sh"
    }
}

/// The caller's environment with `TERM` naming the terminal the job's output
/// is read through (xterm's escapes, which `process screen` draws).
fn terminal_env() -> io::Result<Vec<CString>> {
    use std::os::unix::ffi::OsStrExt;
    let mut vars = Vec::new();
    for (key, value) in std::env::vars_os() {
        if key == "TERM" {
            continue;
        }
        let mut pair = key.as_bytes().to_vec();
        pair.push(b'=');
        pair.extend_from_slice(value.as_bytes());
        if let Ok(c) = CString::new(pair) {
            vars.push(c);
        }
    }
    vars.push(cstring("environment", b"TERM=xterm-256color")?);
    Ok(vars)
}

fn reap(pid: libc::pid_t) {
    let mut status = 0;
    loop {
        // SAFETY: waiting on our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r >= 0 || io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return;
        }
    }
}

/// `errno`, async-signal-safely.
unsafe fn errno() -> i32 {
    // SAFETY: the thread-local errno location is always valid.
    unsafe { *libc::__errno_location() }
}

unsafe fn write_all_raw(fd: RawFd, mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: the pointer and length describe `bytes`.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n > 0 {
            bytes = &bytes[n as usize..];
        } else if n < 0 && unsafe { errno() } == libc::EINTR {
            continue;
        } else {
            return;
        }
    }
}

unsafe fn report(fd: RawFd, tag: i32, value: i32) {
    let mut buf = [0u8; 8];
    buf[..4].copy_from_slice(&tag.to_ne_bytes());
    buf[4..].copy_from_slice(&value.to_ne_bytes());
    // SAFETY: forwarded.
    unsafe { write_all_raw(fd, &buf) };
}

/// Close every descriptor from `first` up.
unsafe fn close_from(first: RawFd) {
    // SAFETY: close_range only closes descriptors.
    let rc = unsafe { libc::syscall(libc::SYS_close_range, first as u32, u32::MAX, 0u32) };
    if rc != 0 {
        for fd in first..4096 {
            // SAFETY: closing a descriptor number is always memory-safe.
            unsafe { libc::close(fd) };
        }
    }
}

/// Move `fd` to `target` so that it survives `exec` (clearing close-on-exec even
/// when it already sits there).
unsafe fn place(fd: RawFd, target: RawFd) {
    // SAFETY: plain descriptor calls.
    unsafe {
        if fd == target {
            libc::fcntl(fd, libc::F_SETFD, 0);
        } else {
            libc::dup2(fd, target);
        }
    }
}

/// The first child: leave the caller's session, fork the supervisor, exit.
unsafe fn launcher(p: &Prepared) -> ! {
    // SAFETY: async-signal-safe calls only, in a forked child.
    unsafe {
        libc::close(p.report_r);
        libc::close(p.go_w);
        if libc::setsid() < 0 {
            report(p.report_w, REPORT_ERROR, errno());
            libc::_exit(1);
        }
        match libc::fork() {
            -1 => {
                report(p.report_w, REPORT_ERROR, errno());
                libc::_exit(1)
            }
            0 => supervisor(p),
            _ => libc::_exit(0),
        }
    }
}

/// The supervisor: fork the job, hold the FIFO, record the exit.
unsafe fn supervisor(p: &Prepared) -> ! {
    // SAFETY: async-signal-safe calls only, in a forked child.
    unsafe {
        let job = libc::fork();
        if job < 0 {
            report(p.report_w, REPORT_ERROR, errno());
            libc::_exit(1);
        }
        if job == 0 {
            run_job(p);
        }
        // The job reports its own pid once it leads its group.
        libc::close(p.report_w);
        // Keep only the FIFO's write end (as fd 3), and for a terminal the
        // terminal, the FIFO's read end and the capture (4, 5, 6); everything
        // else the caller had open (its stdout pipe, the state lock, sockets)
        // must not be held by a process that lives as long as the job.
        let keep = libc::fcntl(p.fifo_rw, libc::F_DUPFD_CLOEXEC, 10);
        let tty = p.pty_master >= 0;
        let lifted = if tty {
            libc::close(p.pty_slave);
            [
                libc::fcntl(p.pty_master, libc::F_DUPFD_CLOEXEC, 10),
                libc::fcntl(p.fifo_r, libc::F_DUPFD_CLOEXEC, 10),
                libc::fcntl(p.out, libc::F_DUPFD_CLOEXEC, 10),
            ]
        } else {
            [-1; 3]
        };
        libc::dup2(keep, 3);
        if tty {
            libc::dup2(lifted[0], 4);
            libc::dup2(lifted[1], 5);
            libc::dup2(lifted[2], 6);
        }
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::dup2(null, 1);
            libc::dup2(null, 2);
        }
        close_from(if tty { 7 } else { 4 });

        let mut status = 0;
        let waited = if tty {
            pump_terminal(job, &mut status)
        } else {
            wait_job(job, &mut status, 0)
        };
        if waited {
            let mut line = [0u8; 32];
            let len = if libc::WIFSIGNALED(status) {
                format_record(&mut line, b"signal ", libc::WTERMSIG(status))
            } else {
                format_record(&mut line, b"exit ", libc::WEXITSTATUS(status))
            };
            let fd = libc::open(
                p.exit_tmp.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC,
                0o600,
            );
            if fd >= 0 {
                write_all_raw(fd, &line[..len]);
                libc::fsync(fd);
                libc::close(fd);
                libc::rename(p.exit_tmp.as_ptr(), p.exit_final.as_ptr());
            }
        }
        libc::_exit(0)
    }
}

/// `waitpid` through interruptions: whether the job was reaped.
unsafe fn wait_job(job: libc::pid_t, status: &mut libc::c_int, flags: libc::c_int) -> bool {
    loop {
        // SAFETY: waiting on our own child.
        let r = unsafe { libc::waitpid(job, status, flags) };
        if r == job {
            return true;
        }
        if r < 0 && unsafe { errno() } == libc::EINTR {
            continue;
        }
        return false;
    }
}

/// The supervisor of a terminal job: copy the terminal's output to the capture
/// (fd 6) and the FIFO's input (fd 5) to the terminal (fd 4) until the job
/// ends, then take what the terminal still holds. Input waits in a fixed buffer
/// while the job does not read, so the FIFO fills and `process write` sees the
/// job is not reading; output is never held back by input. The 200 ms poll
/// timeout is only for noticing the job's end while something it started keeps
/// the terminal open; output and input wake the loop at once.
unsafe fn pump_terminal(job: libc::pid_t, status: &mut libc::c_int) -> bool {
    const MASTER: RawFd = 4;
    const FIFO: RawFd = 5;
    const OUT: RawFd = 6;
    // SAFETY: async-signal-safe calls on our own descriptors and stack buffers.
    unsafe {
        for fd in [MASTER, FIFO] {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK);
        }
        let mut output = [0u8; 16 * 1024];
        let mut input = [0u8; 4096];
        let (mut pending, mut sent) = (0usize, 0usize);
        loop {
            if wait_job(job, status, libc::WNOHANG) {
                break;
            }
            let mut fds = [
                libc::pollfd {
                    fd: MASTER,
                    events: libc::POLLIN | if sent < pending { libc::POLLOUT } else { 0 },
                    revents: 0,
                },
                libc::pollfd {
                    fd: if sent < pending { -1 } else { FIFO },
                    events: libc::POLLIN,
                    revents: 0,
                },
            ];
            libc::poll(fds.as_mut_ptr(), 2, 200);
            if fds[0].revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0 {
                let n = libc::read(MASTER, output.as_mut_ptr().cast(), output.len());
                if n > 0 {
                    write_all_raw(OUT, &output[..n as usize]);
                } else if n == 0 || errno() != libc::EAGAIN && errno() != libc::EINTR {
                    // Every holder of the terminal is gone: the job has ended or
                    // closed it; only its exit is left to wait for.
                    return wait_job(job, status, 0);
                }
            }
            if sent < pending && fds[0].revents & libc::POLLOUT != 0 {
                let n = libc::write(MASTER, input[sent..pending].as_ptr().cast(), pending - sent);
                if n > 0 {
                    sent += n as usize;
                }
            }
            if sent >= pending && fds[1].revents & libc::POLLIN != 0 {
                let n = libc::read(FIFO, input.as_mut_ptr().cast(), input.len());
                if n > 0 {
                    (pending, sent) = (n as usize, 0);
                }
            }
        }
        // The job has ended: whatever it wrote last is still in the terminal.
        // At most 4 MiB of it: something the job left running that keeps
        // writing must not keep its exit from being recorded.
        for _ in 0..256 {
            let n = libc::read(MASTER, output.as_mut_ptr().cast(), output.len());
            if n <= 0 {
                break;
            }
            write_all_raw(OUT, &output[..n as usize]);
        }
        true
    }
}

/// `prefix` + decimal `n` + newline into `buf`, without allocating.
fn format_record(buf: &mut [u8; 32], prefix: &[u8], n: i32) -> usize {
    let mut len = prefix.len();
    buf[..len].copy_from_slice(prefix);
    let mut digits = [0u8; 12];
    let mut d = 0;
    let negative = n < 0;
    let mut v = (n as i64).unsigned_abs();
    loop {
        digits[d] = b'0' + (v % 10) as u8;
        d += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    if negative {
        buf[len] = b'-';
        len += 1;
    }
    while d > 0 {
        d -= 1;
        buf[len] = digits[d];
        len += 1;
    }
    buf[len] = b'\n';
    len + 1
}

/// The job: wait for the go-ahead, take its own session, wire its streams, exec.
unsafe fn run_job(p: &Prepared) -> ! {
    // SAFETY: async-signal-safe calls only, in a forked child.
    unsafe {
        // Lead a session and group of our own before telling the caller who we
        // are, so a `stop` right after `start` already reaches the whole group.
        libc::setsid();
        report(p.report_w, REPORT_PID, libc::getpid());
        libc::close(p.report_w);
        let mut byte = 0u8;
        loop {
            let r = libc::read(p.go_r, (&raw mut byte).cast(), 1);
            if r < 0 && errno() == libc::EINTR {
                continue;
            }
            break;
        }
        // Lift every source above the targets first, so no dup2 clobbers another.
        // A terminal job's three are the terminal, made its controlling one.
        let (stdin, stdout, stderr) = if p.pty_slave >= 0 {
            libc::ioctl(p.pty_slave, libc::TIOCSCTTY, 0);
            let t = libc::fcntl(p.pty_slave, libc::F_DUPFD_CLOEXEC, 10);
            (t, t, t)
        } else {
            (
                libc::fcntl(p.fifo_r, libc::F_DUPFD_CLOEXEC, 10),
                libc::fcntl(p.out, libc::F_DUPFD_CLOEXEC, 10),
                libc::fcntl(p.err, libc::F_DUPFD_CLOEXEC, 10),
            )
        };
        place(stdin, 0);
        place(stdout, 1);
        place(stderr, 2);
        close_from(3);
        // Rust ignores SIGPIPE and a host may block signals; a job starts clean.
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        if let Some(dir) = &p.cwd
            && libc::chdir(dir.as_ptr()) != 0
        {
            write_all_raw(2, b"indus-tool: cannot enter the job's working directory\n");
            libc::_exit(127);
        }
        if p.envp.is_null() {
            libc::execv(p.argv[0], p.argv.as_ptr());
        } else {
            libc::execve(p.argv[0], p.argv.as_ptr(), p.envp);
        }
        write_all_raw(2, b"indus-tool: cannot run the shell\n");
        libc::_exit(127)
    }
}

/// The processes a look may find in `scope`: the leader's descendants, from
/// `/proc/<pid>/task/<tid>/children` (a handful of reads, where a walk of all
/// of `/proc` costs milliseconds), or every process when the leader is gone or
/// the kernel keeps no children lists. The caller checks each one's session
/// or group.
fn candidates(scope: Scope) -> Vec<u32> {
    let leader = match scope {
        Scope::Session(id) | Scope::Group(id) => id,
    };
    let children = |pid: u32| -> Option<Vec<u32>> {
        let mut out = Vec::new();
        for task in std::fs::read_dir(format!("/proc/{pid}/task"))
            .ok()?
            .flatten()
        {
            let text = std::fs::read_to_string(task.path().join("children")).ok()?;
            out.extend(
                text.split_ascii_whitespace()
                    .filter_map(|n| n.parse::<u32>().ok()),
            );
        }
        Some(out)
    };
    let mut found = vec![leader];
    let mut i = 0;
    while i < found.len() && found.len() < 4096 {
        match children(found[i]) {
            Some(kids) => found.extend(kids),
            None if i == 0 => return every_process(),
            None => {}
        }
        i += 1;
    }
    found
}

fn every_process() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
                .collect()
        })
        .unwrap_or_default()
}

/// Which processes a look for an input wait covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// A job leads its own session: everything it started, job control or not.
    Session(u32),
    /// A `bash` command leads a process group in the caller's session.
    Group(u32),
}

/// How a process was found waiting on the input being watched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Waiter {
    pub wait: InputWait,
    /// Blocked in a read of it (a prompt); else asleep in a poll-like call with
    /// it open as fd 0 (a program that may or may not be waiting on it).
    pub reading: bool,
}

const READS: &[libc::c_long] = &[libc::SYS_read, libc::SYS_readv, libc::SYS_pread64];
const POLLS: &[libc::c_long] = &[
    libc::SYS_poll,
    libc::SYS_ppoll,
    libc::SYS_select,
    libc::SYS_pselect6,
    libc::SYS_epoll_wait,
    libc::SYS_epoll_pwait,
];

/// The device and inode a `/proc/<pid>/fd/<n>` link leads to.
fn fd_target(pid: u32, fd: u64) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(format!("/proc/{pid}/fd/{fd}")).ok()?;
    Some((meta.dev(), meta.ino()))
}

/// The system call a sleeping process is in and its first argument, from
/// `/proc/<pid>/syscall` (`running` or unreadable: none).
fn syscall_of(pid: u32) -> Option<(libc::c_long, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/syscall")).ok()?;
    let mut parts = text.split_ascii_whitespace();
    let nr = parts.next()?.parse().ok()?;
    let arg = u64::from_str_radix(parts.next()?.trim_start_matches("0x"), 16).ok()?;
    Some((nr, arg))
}

/// The terminal at `/proc/<pid>/fd/0`: whether it is in line-editing (raw)
/// mode, canonical input off, as readline, prompt_toolkit and full-screen
/// programs set it while they wait for a key (a server that polls its sockets
/// leaves it canonical); and how many typed bytes wait in its input queue
/// (input sent but not yet read: the program is not waiting for more).
fn terminal_state(pid: u32) -> Option<(bool, usize)> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOCTTY | libc::O_NONBLOCK)
        .open(format!("/proc/{pid}/fd/0"))
        .ok()?;
    // SAFETY: a zeroed termios is a valid out-parameter for tcgetattr.
    let mut mode: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: a descriptor we own and a termios to fill.
    if unsafe { libc::tcgetattr(file.as_raw_fd(), &mut mode) } != 0 {
        return None;
    }
    let mut queued: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int.
    unsafe { libc::ioctl(file.as_raw_fd(), libc::FIONREAD, &mut queued) };
    Some((mode.c_lflag & libc::ICANON == 0, queued.max(0) as usize))
}

/// A process in `scope` waiting on `target` (the device and inode of the
/// input being watched): blocked reading it, or, when `terminal` and the
/// terminal is in raw mode, asleep polling with it as fd 0. A pipe polled is
/// reported too (`reading: false`): `bash` then ends the wait it cannot tell.
pub fn input_waiter(scope: Scope, target: (u64, u64), terminal: bool) -> Option<Waiter> {
    let mut polled = None;
    for pid in candidates(scope) {
        let Ok(Some(stat)) = proc_stat(pid) else {
            continue;
        };
        let inside = match scope {
            Scope::Session(s) => stat.session == s,
            Scope::Group(g) => stat.pgrp == g,
        };
        if !inside || stat.state != b'S' {
            continue;
        }
        let Some((nr, arg)) = syscall_of(pid) else {
            continue;
        };
        let name = || {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .map(|n| n.trim_end().to_string())
                .unwrap_or_default()
        };
        let typed_ahead = || terminal && terminal_state(pid).is_some_and(|(_, queued)| queued > 0);
        if READS.contains(&nr) && fd_target(pid, arg) == Some(target) {
            if typed_ahead() {
                continue;
            }
            let how = if terminal {
                "reading its terminal"
            } else {
                "reading its stdin"
            };
            let wait = InputWait {
                pid,
                name: name(),
                how,
            };
            return Some(Waiter {
                wait,
                reading: true,
            });
        }
        if polled.is_none() && POLLS.contains(&nr) && fd_target(pid, 0) == Some(target) {
            if terminal && terminal_state(pid).is_none_or(|(raw, queued)| !raw || queued > 0) {
                continue;
            }
            let how = if terminal {
                "waiting for keys at its terminal"
            } else {
                "polling with its stdin open"
            };
            let wait = InputWait {
                pid,
                name: name(),
                how,
            };
            polled = Some(Waiter {
                wait,
                reading: terminal,
            });
        }
    }
    polled
}

/// Whether a running job waits for input now (see [`input_waiter`]): its
/// stdin is what its leader's fd 0 is, the FIFO or its terminal.
pub fn job_input_wait(job: &JobIdentity) -> io::Result<Option<InputWait>> {
    use std::os::unix::fs::FileTypeExt;
    let Some(target) = fd_target(job.pid, 0) else {
        return Ok(None);
    };
    let terminal = std::fs::metadata(format!("/proc/{}/fd/0", job.pid))
        .is_ok_and(|m| m.file_type().is_char_device());
    Ok(input_waiter(Scope::Session(job.pgid), target, terminal)
        .filter(|w| w.reading)
        .map(|w| w.wait))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_parse_past_odd_command_names() {
        let line = b"4242 (we ird) (name)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 18446744073709551615\n";
        assert_eq!(
            parse_proc_stat(line),
            Some(ProcStat {
                state: b'S',
                pgrp: 4242,
                session: 4242,
                start_time: 987654
            })
        );
        assert_eq!(parse_proc_stat(b"garbage"), None);
        assert_eq!(parse_proc_stat(b"1 (x) S 1 2"), None);
    }

    #[test]
    fn records_format_without_allocating() {
        let mut buf = [0u8; 32];
        let n = format_record(&mut buf, b"exit ", 0);
        assert_eq!(&buf[..n], b"exit 0\n");
        let n = format_record(&mut buf, b"exit ", 255);
        assert_eq!(&buf[..n], b"exit 255\n");
        let n = format_record(&mut buf, b"signal ", -12);
        assert_eq!(&buf[..n], b"signal -12\n");
    }

    #[test]
    fn our_own_process_is_running_and_a_wrong_start_time_is_gone() {
        let me = std::process::id();
        let stat = proc_stat(me).unwrap().unwrap();
        let job = JobIdentity {
            pid: me,
            pgid: me,
            start_time: stat.start_time,
        };
        assert_eq!(probe(&job).unwrap(), JobLiveness::Running);
        let other = JobIdentity {
            start_time: stat.start_time + 1,
            ..job
        };
        assert_eq!(probe(&other).unwrap(), JobLiveness::Gone);
        // Group ids 0 and 1 are never signalled.
        for pid in [0, 1] {
            let bogus = JobIdentity {
                pid,
                pgid: pid,
                start_time: 0,
            };
            assert_eq!(signal(&bogus, 0).unwrap(), JobSignal::Recycled);
        }
        // A wrong start time is never signalled, whatever the signal.
        assert_eq!(signal(&other, libc::SIGKILL).unwrap(), JobSignal::Recycled);
    }

    fn wait_for(path: &Path) -> String {
        for _ in 0..500 {
            if let Ok(s) = std::fs::read_to_string(path) {
                return s;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("{} never appeared", path.display());
    }

    fn launch(dir: &Path, command: &str) -> JobLaunch {
        JobLaunch {
            command: command.to_string(),
            cwd: Some(dir.to_string_lossy().into_owned()),
            stdin_fifo: dir.join("stdin").to_string_lossy().into_owned(),
            stdout_path: dir.join("stdout").to_string_lossy().into_owned(),
            stderr_path: dir.join("stderr").to_string_lossy().into_owned(),
            exit_path: dir.join("exit").to_string_lossy().into_owned(),
            tty: None,
        }
    }

    #[test]
    fn a_job_records_output_and_exit_code_and_reads_its_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let job = start(&launch(
            dir.path(),
            "read line; echo \"got $line\"; echo oops >&2; pwd; exit 3",
        ))
        .unwrap();
        assert_eq!(job.pid, job.pgid);
        let n = write_input(
            &dir.path().join("stdin"),
            b"hello\n",
            Duration::from_secs(2),
        )
        .unwrap();
        assert_eq!(n, 6);
        assert_eq!(wait_for(&dir.path().join("exit")), "exit 3\n");
        let out = std::fs::read_to_string(dir.path().join("stdout")).unwrap();
        assert_eq!(
            out,
            format!(
                "got hello\n{}\n",
                dir.path().canonicalize().unwrap().display()
            )
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("stderr")).unwrap(),
            "oops\n"
        );
        assert_ne!(probe(&job).unwrap(), JobLiveness::Running);
    }

    #[test]
    fn a_signalled_job_records_the_signal_and_the_group_dies() {
        let dir = tempfile::tempdir().unwrap();
        let job = start(&launch(dir.path(), "sleep 30 & sleep 30; wait")).unwrap();
        assert_eq!(probe(&job).unwrap(), JobLiveness::Running);
        assert_eq!(signal(&job, 0).unwrap(), JobSignal::Delivered);
        assert_eq!(signal(&job, libc::SIGTERM).unwrap(), JobSignal::Delivered);
        assert_eq!(wait_for(&dir.path().join("exit")), "signal 15\n");
        for _ in 0..200 {
            if signal(&job, 0).unwrap() == JobSignal::NoProcess {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("the background sleep survived the group signal");
    }
}
