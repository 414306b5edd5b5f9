//! Whole-file replacement that a reader or a crash sees as the old bytes or the
//! new, never a torn mix: the one way every floor writes a file (a user's file
//! through the local backend, the toolbox's own state records, checkpoints'
//! pre-images). On the ground floor because the state store needs it as much as
//! the backends do, and it is an OS primitive, not a seam a backend may swap.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::kernel::{OutsideRoot, Root};

/// Where a write to `path` must land: a symlink (or a chain of them) is followed to
/// its final target, even a dangling one, so the link itself stays a link.
pub fn write_target(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::from_raw_os_error(nix::libc::ELOOP))
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replace a file's contents so that a reader (or a crash) sees either the old bytes
/// or the new, never a torn mix: write a temp file in the same directory, fsync it,
/// and rename it over the target. The target's permission bits (and, when allowed,
/// owner) carry over; a new file gets `0666 & !umask` like any `open(O_CREAT)`; a
/// symlink is written through to its target. A hard-linked file becomes a new inode
/// (the other names keep the old contents), as with every rename-based editor.
pub fn atomic_write(path: &Path, data: &[u8]) -> io::Result<()> {
    atomic_write_within(path, data, None)
}

/// [`atomic_write`] confined to `root`. Everything after the directory is opened
/// goes through its descriptor (`openat`, `renameat`), and under a root that
/// descriptor's real path is checked first: a directory or link swapped in after
/// the caller's check cannot lead the write out, and a link swapped in for the file
/// itself is replaced, not followed.
pub fn atomic_write_within(path: &Path, data: &[u8], root: Option<&Root>) -> io::Result<()> {
    let target = write_target(path)?;
    if let Some(root) = root {
        let shown = target.to_string_lossy();
        root.admit(&shown, &target).map_err(OutsideRoot::io)?;
    }
    let (dir, name) = dir_and_name(&target)?;
    replace_in_dir(&dir, name, data, root, true)
}

/// [`atomic_write_within`] without the `fsync`s, for many files put back at
/// once and flushed together afterwards ([`sync_tree`]).
pub fn atomic_write_within_unsynced(
    path: &Path,
    data: &[u8],
    root: Option<&Root>,
) -> io::Result<()> {
    let target = write_target(path)?;
    if let Some(root) = root {
        let shown = target.to_string_lossy();
        root.admit(&shown, &target).map_err(OutsideRoot::io)?;
    }
    let (dir, name) = dir_and_name(&target)?;
    replace_in_dir(&dir, name, data, root, false)
}

/// Flush the filesystem holding `path` (its nearest existing folder): one
/// `syncfs` for a batch of unsynced replacements, best effort.
pub fn sync_tree(path: &str) {
    if let Some(dir) = Path::new(path)
        .ancestors()
        .find(|d| !d.as_os_str().is_empty() && d.is_dir())
        && let Ok(f) = std::fs::File::open(dir)
    {
        let _ = nix::unistd::syncfs(&f);
    }
}

/// The tag of a replacement's temp file beside its target:
/// `.NAME.indus-tmp.PID.N`.
const TEMP_TAG: &str = "indus-tmp";
/// The tag of a symlink's temp beside its target ([`atomic_symlink`]):
/// `.NAME.indus-link.PID`.
const LINK_TAG: &str = "indus-link";

/// A temp file this module makes beside a file it replaces, read back from
/// its name: the name it stands beside and the process that made it. Another
/// call's write in flight, or one a killed process left.
pub fn temp_owner(file_name: &str) -> Option<(&str, u32)> {
    let temp = file_name.strip_prefix('.')?;
    [TEMP_TAG, LINK_TAG].iter().find_map(|tag| {
        let (name, rest) = temp.rsplit_once(&format!(".{tag}."))?;
        let pid = rest.split('.').next()?.parse().ok()?;
        Some((name, pid))
    })
}

/// Put the link `path` → `target` in place, replacing a file or link there
/// (a temp link beside it renamed over it, so the name is never missing).
pub fn atomic_symlink(path: &Path, target: &str) -> io::Result<()> {
    if std::fs::read_link(path).is_ok_and(|t| t.as_os_str() == target) {
        return Ok(());
    }
    let (dir, name) = dir_and_name(path)?;
    std::fs::create_dir_all(&dir)?;
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(format!(".{LINK_TAG}.{}", std::process::id()));
    let temp = dir.join(temp);
    let _ = std::fs::remove_file(&temp);
    std::os::unix::fs::symlink(target, &temp)?;
    std::fs::rename(&temp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })
}

/// The folder a path's last component is in (`.` for a bare name), and that
/// component; a path ending in `..` or `/` has none (EISDIR).
fn dir_and_name(path: &Path) -> io::Result<(PathBuf, &std::ffi::OsStr)> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::from_raw_os_error(nix::libc::EISDIR))?;
    Ok((dir, name))
}

/// [`atomic_write`] without the two `fsync`s: still never torn (the rename is
/// atomic, and a process killed at any point leaves the old or the new file), but
/// only as durable as the page cache until the kernel writes it back. For records
/// that must not slow down the write they accompany (checkpoint pre-images), never
/// for a user's file.
pub fn atomic_write_unsynced(path: &Path, data: &[u8]) -> io::Result<()> {
    atomic_replace(&write_target(path)?, data, false)
}

/// Replace the file at `path` itself, atomically: a link there is replaced, never
/// followed, and a folder, FIFO or device is refused. For the toolbox's own state
/// files, where a link can only have been planted (a checkout's `.indus-process/`
/// comes from whoever wrote the repository); `durable` fsyncs the file and folder.
pub fn atomic_replace(path: &Path, data: &[u8], durable: bool) -> io::Result<()> {
    let (dir, name) = dir_and_name(path)?;
    replace_in_dir(&dir, name, data, None, durable)
}

/// The descriptor-based half of [`atomic_write_within`]: replace `name` in `dir`
/// (`durable`: fsync the file and then the folder).
fn replace_in_dir(
    dir: &Path,
    name: &std::ffi::OsStr,
    data: &[u8],
    root: Option<&Root>,
    durable: bool,
) -> io::Result<()> {
    use nix::fcntl::AtFlags;
    use nix::fcntl::{OFlag, openat, renameat};
    use nix::sys::stat::{Mode, SFlag, fstatat};
    use nix::unistd::{UnlinkatFlags, unlinkat};
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};

    let dir_fd = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_DIRECTORY)
        .open(dir)?;
    if let Some(root) = root {
        root.admits_fd(std::os::fd::AsFd::as_fd(&dir_fd), &dir.to_string_lossy())?;
    }
    // Not followed: a link here now was swapped in after `write_target`, and it is
    // the link that gets replaced.
    let existing = match fstatat(&dir_fd, name, AtFlags::AT_SYMLINK_NOFOLLOW) {
        Ok(st) => {
            let kind = SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT;
            if kind == SFlag::S_IFDIR {
                return Err(io::Error::from_raw_os_error(nix::libc::EISDIR));
            }
            // A FIFO, socket or device swapped in after the caller's check is not
            // replaced: the rename would destroy it (as root, even `/dev/zero`).
            if kind != SFlag::S_IFREG && kind != SFlag::S_IFLNK {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "EINVAL: not a regular file",
                ));
            }
            (kind == SFlag::S_IFREG).then_some(st)
        }
        Err(nix::errno::Errno::ENOENT) => None,
        Err(e) => return Err(e.into()),
    };
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(format!(
        ".{TEMP_TAG}.{}.{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let fd = openat(
        &dir_fd,
        temp.as_os_str(),
        OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
        Mode::from_bits_truncate(0o666),
    )?;
    let result = (|| {
        let mut file = std::fs::File::from(fd);
        if let Some(st) = &existing {
            file.set_permissions(std::fs::Permissions::from_mode(st.st_mode & 0o7777))?;
            // Best effort: only root (or the owner keeping their group) may chown.
            let _ = std::os::unix::fs::fchown(&file, Some(st.st_uid), Some(st.st_gid));
        }
        file.write_all(data)?;
        if durable {
            file.sync_all()?;
        }
        drop(file);
        renameat(&dir_fd, temp.as_os_str(), &dir_fd, name)?;
        if durable {
            // Make the rename itself durable; some filesystems refuse fsync on a dir.
            let _ = dir_fd.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = unlinkat(&dir_fd, temp.as_os_str(), UnlinkatFlags::NoRemoveDir);
    }
    result
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    /// A root at `base/app`, with `base/out` outside it and a link `app/out`
    /// leading there: what a swapped-in link would look like by the time of use.
    pub(crate) fn swapped_tree() -> (tempfile::TempDir, PathBuf, Root) {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(base.join("app")).unwrap();
        std::fs::create_dir_all(base.join("out")).unwrap();
        std::fs::write(base.join("out/secret"), "keep").unwrap();
        std::os::unix::fs::symlink(base.join("out"), base.join("app/out")).unwrap();
        std::os::unix::fs::symlink(base.join("out/secret"), base.join("app/link")).unwrap();
        let root = Root::new(&base.join("app"), &base).unwrap();
        (dir, base, root)
    }

    #[test]
    fn a_directory_swapped_for_an_outgoing_link_is_not_written_into() {
        let (_d, base, root) = swapped_tree();
        // The name-based checks are past; only the descriptor check stands.
        let err = replace_in_dir(
            &base.join("app/out"),
            "new".as_ref(),
            b"x",
            Some(&root),
            true,
        )
        .unwrap_err();
        assert!(OutsideRoot::is(&err), "{err}");
        assert!(err.to_string().contains("outside the root"), "{err}");
        assert!(!base.join("out/new").exists());
        let names: Vec<_> = std::fs::read_dir(base.join("out")).unwrap().collect();
        assert_eq!(names.len(), 1, "no temp file is left outside");
        // Unconfined, the same call writes through the link.
        replace_in_dir(&base.join("app/out"), "new".as_ref(), b"x", None, true).unwrap();
        assert!(base.join("out/new").exists());
    }

    #[test]
    fn an_unsynced_write_still_replaces_atomically_and_keeps_the_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blob");
        atomic_write_unsynced(&path, b"one").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        atomic_write_unsynced(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temp file is left");
    }

    #[test]
    fn a_file_swapped_for_an_outgoing_link_is_replaced_not_followed() {
        let (_d, base, root) = swapped_tree();
        replace_in_dir(
            &base.join("app"),
            "link".as_ref(),
            b"mine",
            Some(&root),
            true,
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(base.join("out/secret")).unwrap(),
            "keep"
        );
        let meta = std::fs::symlink_metadata(base.join("app/link")).unwrap();
        assert!(meta.is_file());
        assert_eq!(
            std::fs::read_to_string(base.join("app/link")).unwrap(),
            "mine"
        );
        // The new file does not take the link's 0777 bits.
        assert_ne!(meta.mode() & 0o777, 0o777);
    }

    #[test]
    fn atomic_write_keeps_mode_and_writes_through_links() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.sh");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o750)).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("real.sh", &link).unwrap();
        atomic_write(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o750);
        // No temp files are left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        // A dangling link creates its target.
        let dangling = dir.path().join("dangling");
        std::os::unix::fs::symlink("made.txt", &dangling).unwrap();
        atomic_write(&dangling, b"m").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("made.txt")).unwrap(),
            "m"
        );
        // A directory is refused.
        assert!(atomic_write(dir.path(), b"x").is_err());
    }
}
