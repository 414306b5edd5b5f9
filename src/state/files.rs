//! The one way the state store opens a file: never through a link, never
//! blocking on a FIFO, only a regular file, and never more than a cap read; a
//! private file written atomically; a lock file taken without waiting. Below
//! the store itself (`mod.rs`) and the user's state (`user.rs`), which both
//! read and write through it.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The most a JSON state file may hold when read (2 MiB): far above any table
/// or list the toolbox keeps (some 6,000 jobs, 13,000 files read under the
/// gate), and a bound on what a planted one (data, not sealed before it is
/// parsed) can make a call allocate: a 2 MiB checklist of tiny items parses
/// into some 60 MB. Sealed documents are
/// checked before they are parsed ([`read_sealed`]) and have caps of their own.
pub const READ_CAP: u64 = 2 * 1024 * 1024;

/// Open a file of the state folder with `options`: never through a link, never
/// blocking (a FIFO planted there cannot hang the call), and only a regular file.
fn open_with(path: &Path, options: &mut std::fs::OpenOptions) -> io::Result<File> {
    let file = options
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            Some(nix::libc::ELOOP) => io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is a symbolic link, not a state file", path.display()),
            ),
            _ => e,
        })?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(file)
}

/// Open a file of the state folder for reading (see [`open_with`]).
pub fn open_file(path: &Path) -> io::Result<File> {
    open_with(path, File::options().read(true))
}

/// Open (creating it) a file of the state folder to append to, or, when not
/// `append`, to lock (written never, truncated never); see [`open_with`].
pub fn open_to_write(path: &Path, append: bool) -> io::Result<File> {
    let mut options = File::options();
    options.create(true);
    if append {
        options.append(true);
    } else {
        options.write(true).truncate(false);
    }
    open_with(path, &mut options)
}

/// Whether a file of lines ends in a line cut short (a crash mid-append): its
/// last byte is not a newline. An absent or empty file is not torn.
pub fn last_line_torn(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    open_file(path).is_ok_and(|mut f| {
        let mut last = [0u8; 1];
        f.seek(SeekFrom::End(-1)).is_ok() && f.read_exact(&mut last).is_ok() && last[0] != b'\n'
    })
}

/// [`open_file`], refusing a file over `cap` bytes; the file and its length.
pub fn open_capped(path: &Path, cap: u64) -> io::Result<(File, u64)> {
    let file = open_file(path)?;
    let len = file.metadata()?.len();
    if len > cap {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} holds {len} bytes, over the {cap} a state file may",
                path.display()
            ),
        ));
    }
    Ok((file, len))
}

/// Read a whole file of the state folder through [`open_capped`].
pub fn read_file(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let (file, len) = open_capped(path, cap)?;
    let mut out = Vec::with_capacity(len as usize);
    file.take(cap + 1).read_to_end(&mut out)?;
    if out.len() as u64 > cap {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} grew over the {cap} bytes a state file may",
                path.display()
            ),
        ));
    }
    Ok(out)
}

/// Write a small file only this user can read (0600), atomically, replacing
/// whatever is at `path` (a link included) rather than writing through it.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("f"),
        std::process::id()
    ));
    let _ = std::fs::remove_file(&tmp);
    let mut f = File::options()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Whether two spellings name one folder (a project reached through a link is
/// the same project): the records that name files say where they were made,
/// and one found elsewhere came with a copied project.
pub(crate) fn same_place(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

/// Open (creating it) the lock file at `path` and take its exclusive lock
/// without waiting: `Ok(None)` while another holder has it. For locks that a
/// caller refuses on or waits for in steps (a pane's, a file's changes).
pub fn try_lock_at(path: &Path) -> io::Result<Option<File>> {
    // Never through a link (a planted one would create its target) nor
    // blocking on a FIFO.
    let file = open_to_write(path, false)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}
