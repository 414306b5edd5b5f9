//! Advisory whole-file locks (`flock`) that follow an atomically replaced file to
//! its new inode. The local backend's `Fs::lock_file` waits on this; it is an OS
//! primitive of its own so nothing above must know how the retry works.

use std::io;
use std::os::unix::fs::MetadataExt;

use super::fs_error;
use crate::kernel::FileLock;

/// One try at `Fs::lock_file` for local files: `flock` on the file itself,
/// `None` while another holder has it. An atomic write renames a new inode over
/// the path, so a lock taken on the old one protects nothing; after locking, the
/// path must still name the locked inode, and if it does not (a writer replaced the
/// file meanwhile), the lock is taken again on the new one. A file that cannot be
/// opened (missing, unreadable), or a filesystem without locks, gives an empty
/// lock: the caller's own read or write then reports any real problem.
pub fn try_lock_file(path: &str) -> io::Result<Option<FileLock>> {
    use std::os::unix::fs::OpenOptionsExt;
    loop {
        // Non-blocking, so a FIFO swapped in cannot hang the open.
        let Ok(file) = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
            .open(path)
        else {
            return Ok(Some(FileLock::default()));
        };
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
            // Some network mounts: go on unlocked, as every editor does there.
            Err(std::fs::TryLockError::Error(e))
                if matches!(
                    e.raw_os_error(),
                    Some(nix::libc::ENOLCK | nix::libc::EOPNOTSUPP | nix::libc::ENOSYS)
                ) =>
            {
                return Ok(Some(FileLock::default()));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(fs_error(e, "flock", path)),
        }
        let held = file.metadata().map_err(|e| fs_error(e, "fstat", path))?;
        match std::fs::metadata(path) {
            Ok(now) if now.dev() == held.dev() && now.ino() == held.ino() => {
                return Ok(Some(FileLock::holding(file)));
            }
            // Replaced (or removed) while we waited: lock what is there now.
            _ => continue,
        }
    }
}
