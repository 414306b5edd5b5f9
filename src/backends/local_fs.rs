//! The `Fs` seam bound to the local filesystem: `LocalFs`, optionally confined to
//! a root (every open and mkdir walked by descriptor, so a link swapped in
//! cannot lead out), its locks (`flock` that follows an atomically replaced
//! file), and the blocking calls run inline on the one-shot CLI's
//! current-thread runtime. Errors read as libuv's (`sys::fs_error`).

use crate::kernel::{
    ChangeWatch, DirChild, FileLock, Fs, FsEntryInfo, OutsideRoot, RemoveOptions, Root,
};
use crate::sys::{atomic_write_within, fs_error, try_lock_file};
use async_trait::async_trait;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::time::Instant;

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

/// A folder watched with inotify: woken by a file written (closed after
/// writing, or appended to), created or renamed in.
struct Inotified(nix::sys::inotify::Inotify);

impl ChangeWatch for Inotified {
    fn wait(&mut self, timeout: Duration) -> io::Result<bool> {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        use std::os::fd::AsFd;
        let ms = timeout.as_millis().min(i32::MAX as u128) as i32;
        let ready = {
            let mut fds = [PollFd::new(self.0.as_fd(), PollFlags::POLLIN)];
            match poll(
                &mut fds,
                PollTimeout::try_from(ms).unwrap_or(PollTimeout::MAX),
            ) {
                Ok(n) => n > 0,
                Err(nix::errno::Errno::EINTR) => true,
                Err(e) => return Err(e.into()),
            }
        };
        if ready {
            // Drain: one wake-up covers every event so far.
            while let Ok(events) = self.0.read_events() {
                if events.is_empty() {
                    break;
                }
            }
        }
        Ok(ready)
    }
}

#[async_trait]
impl Fs for LocalFs {
    fn watch_changes(&self, dir: &str) -> io::Result<Box<dyn ChangeWatch>> {
        use nix::sys::inotify::{AddWatchFlags, InitFlags, Inotify};
        self.admit(dir)?;
        let watch = Inotify::init(InitFlags::IN_CLOEXEC | InitFlags::IN_NONBLOCK)?;
        let flags = AddWatchFlags::IN_MODIFY
            | AddWatchFlags::IN_CLOSE_WRITE
            | AddWatchFlags::IN_CREATE
            | AddWatchFlags::IN_MOVED_TO
            | AddWatchFlags::IN_DELETE_SELF
            | AddWatchFlags::IN_ONLYDIR;
        watch
            .add_watch(dir, flags)
            .map_err(|e| fs_error(e.into(), "watch", dir))?;
        Ok(Box::new(Inotified(watch)))
    }

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

    async fn write_bytes(&self, path: &str, data: &[u8]) -> io::Result<()> {
        self.admit(path)?;
        let (p, d, root) = (path.to_string(), data.to_vec(), self.root.clone());
        blocking(move || {
            atomic_write_within(Path::new(&p), &d, root.as_deref())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::atomic_write;
    use crate::sys::tests::swapped_tree;

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
}
