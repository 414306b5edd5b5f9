//! The state folder's lock (`.indus-process/.lock`), waited for at most
//! [`STATE_LOCK_WAIT`]. Every session of a project shares it, so a call that
//! holds it long (a checkpoint scan of a hostile tree) must not stall every
//! other call without a word: past the wait the caller is told which process
//! holds the folder and what it is running, and can try again.
//!
//! The lock is `flock` on the file, taken without blocking and retried with
//! short sleeps, so two processes exclude each other exactly as a blocking
//! `flock` would. Who holds it is read from `/proc/locks` (the kernel's own
//! account, so a holder that wrote nothing is still found) and from the line
//! each holder writes into the lock file once it has the lock (its pid, when
//! it took the lock, its command line), which is all there is where `/proc` is
//! not mounted.

use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a call waits for another to release the state folder.
pub const STATE_LOCK_WAIT: Duration = Duration::from_secs(10);

/// How often the lock is tried again while another process holds it.
const RETRY: Duration = Duration::from_millis(20);

/// A command line shown in the message is cut to this many characters.
const SHOWN_CHARS: usize = 120;

/// Take the exclusive lock on `file` (the open `.lock` at `path`), waiting at
/// most `wait`; then note this process as its holder. `folder` is the state
/// folder, for the message.
pub fn take(file: &File, path: &Path, folder: &Path, wait: Duration) -> io::Result<()> {
    let started = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
        if started.elapsed() >= wait {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the state folder {} is locked by {} for {} s; try again when it is done",
                    folder.display(),
                    holder(file, path),
                    wait.as_secs()
                ),
            ));
        }
        std::thread::sleep(RETRY);
    }
    note_holder(file);
    Ok(())
}

/// Write this process's line into the lock file (best effort: the lock holds
/// whether or not the note could be written).
fn note_holder(mut file: &File) {
    let pid = std::process::id();
    let line = format!(
        "pid {pid} since {}: {}\n",
        crate::kernel::clock::iso8601_utc(crate::kernel::clock::now_ms()),
        command_of(pid).unwrap_or_default()
    );
    let _ = file.set_len(0);
    let _ = file.rewind();
    let _ = file.write_all(line.as_bytes());
}

/// Who holds the lock, in words: `pid 123 (indus-tool --checkpoint bash …,
/// since …)`, or `another process` when no one can be named.
fn holder(file: &File, path: &Path) -> String {
    let noted = read_note(path);
    let noted_pid = noted
        .as_deref()
        .and_then(|n| n.strip_prefix("pid "))
        .and_then(|n| n.split(' ').next())
        .and_then(|p| p.parse::<u32>().ok());
    let pid = file
        .metadata()
        .ok()
        .and_then(|m| flock_holder(m.dev(), m.ino()))
        .or(noted_pid.filter(|p| alive(*p)));
    let Some(pid) = pid else {
        return "another process".to_string();
    };
    if noted_pid == Some(pid)
        && let Some((_, rest)) = noted.as_deref().and_then(|n| n.split_once(" since "))
        && let Some((since, command)) = rest.split_once(": ")
    {
        return format!("pid {pid} ({}, since {since})", clip(command.trim()));
    }
    match command_of(pid) {
        Some(command) => format!("pid {pid} ({})", clip(&command)),
        None => format!("pid {pid}"),
    }
}

/// The note a holder left in the lock file, if any (its first line, capped).
fn read_note(path: &Path) -> Option<String> {
    let mut bytes = Vec::new();
    super::files::open_file(path)
        .ok()?
        .take(4096)
        .read_to_end(&mut bytes)
        .ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let line = text.lines().next()?.trim();
    (!line.is_empty()).then(|| line.to_string())
}

/// The pid `/proc/locks` names as holding an exclusive `flock` on the file
/// with this device and inode.
fn flock_holder(dev: u64, ino: u64) -> Option<u32> {
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    let want = format!(
        "{:02x}:{:02x}:{ino}",
        nix::sys::stat::major(dev),
        nix::sys::stat::minor(dev)
    );
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // `1: FLOCK ADVISORY WRITE 123 fe:00:456 0 EOF`; a waiter's line has `->`.
        let at = fields.iter().position(|f| *f == "FLOCK")?;
        (fields.get(at + 2) == Some(&"WRITE") && fields.get(at + 4) == Some(&want.as_str()))
            .then(|| fields.get(at + 3)?.parse().ok())
            .flatten()
    })
}

/// A process's command line, its words joined by spaces.
fn command_of(pid: u32) -> Option<String> {
    let bytes = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let words: Vec<String> = bytes
        .split(|b| *b == 0)
        .filter(|w| !w.is_empty())
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

fn clip(text: &str) -> String {
    let clean: String = text.chars().filter(|c| !c.is_control()).collect();
    if clean.chars().count() <= SHOWN_CHARS {
        return clean;
    }
    let mut cut: String = clean.chars().take(SHOWN_CHARS).collect();
    cut.push('…');
    cut
}

fn alive(pid: u32) -> bool {
    pid != 0 && nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), None).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_lock_is_waited_for_then_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".lock");
        let holder_file = File::create(&path).unwrap();
        take(&holder_file, &path, dir.path(), STATE_LOCK_WAIT).unwrap();
        let other = File::options().write(true).open(&path).unwrap();
        let started = Instant::now();
        let err = take(&other, &path, dir.path(), Duration::from_millis(200)).unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(3));
        let text = err.to_string();
        let me = format!("locked by pid {} (", std::process::id());
        assert!(text.contains(&me), "{text}");
        assert!(
            text.contains("for 0 s; try again when it is done"),
            "{text}"
        );
        drop(holder_file);
        take(&other, &path, dir.path(), Duration::from_millis(200)).unwrap();
    }
}
