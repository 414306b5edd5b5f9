//! State that outlives one invocation, under `<project>/.indus-process/`.
//!
//! The project is found as git finds `.git`: from the working directory upwards,
//! the first folder holding `.git` or `.indus-process` (so `todo_read` or `process
//! list` from `src/` sees what was set from the repository root); none found, the
//! working directory itself. The filesystem root and the system temp folder are
//! never taken, since unrelated projects share them. `--state-dir` names the
//! folder outright (`ToolContext::state_root`).
//!
//! Every persisted thing (the gate's read-state, the todo lists, the job table) goes
//! through [`StateDir::update`]: an exclusive lock on `.indus-process/.lock`, then
//! read-modify-write, then an atomic replace (temp file + fsync + rename), so two
//! concurrent invocations never lose an update or leave a torn file. A state file
//! that does not parse is an error naming the file; it is never silently reset,
//! because resetting would quietly drop what a session recorded.
//!
//! The folder comes with the checkout, so whoever wrote the repository may have
//! written it (docs/security.md). Every path into it goes through
//! [`StateDir::checked`]: no component below the project may be a link (a
//! linked `.indus-process`, a `todos` linked elsewhere, a dangling link where a
//! file will be written), and files are read with [`read_file`] (never through a
//! link, regular files only, a size cap) and replaced, never written through. A
//! record the toolbox will act on is honoured only under this user's seal
//! ([`user::seal`]).

pub mod buddy_config;
pub mod checkpoints;
pub mod files;
pub mod ignore_files;
pub mod jobs;
pub mod line_marks;
pub mod lock;
pub mod outputs;
pub mod patches;
pub mod read_state;
pub mod todos;
pub mod tree;
pub mod trust;
pub mod user;

use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::sys::atomic_replace;
pub(crate) use files::same_place;
pub use files::{
    READ_CAP, open_capped, open_file, open_to_write, read_file, try_lock_at, write_private,
};

/// The folder's name under the working directory.
pub const STATE_DIR_NAME: &str = ".indus-process";

/// A sealed document as read back (see [`read_sealed`]).
#[derive(Debug)]
pub enum Sealed<T> {
    /// No such file.
    Absent,
    /// There, but without this user's seal: never parsed, never acted on.
    Foreign,
    /// This user's toolbox wrote it.
    Ours(T),
}

/// A value written with its seal first (see [`user::seal_document`]).
#[derive(Serialize)]
struct WithSeal<'a, T: Serialize> {
    seal: &'static str,
    #[serde(flatten)]
    value: &'a T,
}

/// A value as a sealed JSON document (pretty, with a final newline).
pub fn sealed_bytes<T: Serialize>(domain: &str, value: &T) -> io::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(&WithSeal {
        seal: user::PLACEHOLDER,
        value,
    })
    .map_err(io::Error::other)?;
    bytes.push(b'\n');
    user::seal_document(domain, &mut bytes);
    Ok(bytes)
}

/// Read a sealed document: its seal checked on the bytes as stored, streamed,
/// before anything is parsed, so a planted one costs a hash and no more.
pub fn read_sealed<T: DeserializeOwned>(
    path: &Path,
    domain: &str,
    cap: u64,
) -> io::Result<Sealed<T>> {
    match user::verify_document(domain, path, cap) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Sealed::Absent),
        Err(e) => Err(e),
        Ok(false) => Ok(Sealed::Foreign),
        Ok(true) => {
            let bytes = read_file(path, cap)?;
            serde_json::from_slice(&bytes)
                .map(Sealed::Ours)
                .map_err(|e| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!(
                            "state file {} is corrupt ({e}); fix or delete it",
                            path.display()
                        ),
                    )
                })
        }
    }
}

/// The folder whose `.indus-process/` serves `cwd` (see the module comment).
pub fn locate(cwd: &Path) -> PathBuf {
    let temp = std::env::temp_dir();
    let shared = |dir: &Path| dir.parent().is_none() || dir == temp;
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        if shared(d) {
            break;
        }
        if d.join(STATE_DIR_NAME).is_dir() || d.join(".git").exists() {
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    cwd.to_path_buf()
}

/// A handle on `<project>/.indus-process/`.
#[derive(Debug, Clone)]
pub struct StateDir {
    root: PathBuf,
}

/// Session names become file names; anything outside `[A-Za-z0-9._-]` is
/// percent-encoded so a name can never reach outside the folder.
pub fn file_key(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || (b == b'.' && !out.is_empty()) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.is_empty() {
        out.push_str("%00");
    }
    out
}

/// The per-user folder for sockets whose path in a state folder would be too
/// long for `sun_path`.
pub fn private_socket_dir() -> PathBuf {
    std::env::temp_dir().join(format!("indus-tool-{}", nix::unistd::getuid()))
}

/// A socket outside a state folder is used only in a folder that is ours and
/// closed to others, so nobody else can plant a listener for us to talk to.
pub fn trusted_socket(socket: &Path) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let Some(dir) = socket.parent() else {
        return false;
    };
    // The socket itself, when there: a real socket of this user. A link in its
    // place (a checkout's state folder may carry one) could lead to any socket:
    // another project's broker, a master connection to another host.
    if let Ok(m) = std::fs::symlink_metadata(socket)
        && (!m.file_type().is_socket() || m.uid() != nix::unistd::getuid().as_raw())
    {
        return false;
    }
    if dir != private_socket_dir() {
        return true;
    }
    std::fs::symlink_metadata(dir).is_ok_and(|m| {
        m.is_dir() && m.uid() == nix::unistd::getuid().as_raw() && m.mode() & 0o077 == 0
    })
}

/// Create the folder of a socket from [`StateDir::socket_path`] (the private one
/// closed to others), refusing a private folder that is not ours.
pub fn prepare_socket_dir(socket: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = socket.parent().unwrap_or(Path::new("."));
    if dir == private_socket_dir() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        if !trusted_socket(socket) {
            return Err(io::Error::other(format!(
                "{} is not a folder of this user closed to others",
                dir.display()
            )));
        }
    } else {
        std::fs::create_dir_all(dir)?;
        // A folder of the state folder (`ssh/`, `mcp/`): a link there, as a
        // checkout can carry, would put our socket (and whoever listens on it)
        // wherever it points.
        if std::fs::symlink_metadata(dir)?.file_type().is_symlink() {
            return Err(io::Error::other(format!(
                "{} is a symbolic link; the state folder holds none (remove it)",
                dir.display()
            )));
        }
    }
    Ok(())
}

impl StateDir {
    /// The state folder of a working directory (nothing is created yet).
    pub fn new(cwd: impl AsRef<Path>) -> Self {
        Self {
            root: locate(cwd.as_ref()).join(STATE_DIR_NAME),
        }
    }

    /// A state folder at exactly `root`.
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The state folder of a tool's context: its own when it names one (a remote
    /// target's, kept here), else its working directory's.
    pub fn of(ctx: &crate::kernel::ToolContext) -> Self {
        match &ctx.state_root {
            Some(root) => Self::at(root.clone()),
            None => Self::new(&ctx.cwd),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A path inside the folder.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// A unix socket's path for `rel` in the folder, or, when that would be
    /// longer than `max` bytes (`sun_path` holds 108 with its NUL, and some
    /// programs add a suffix of their own), a hashed name in
    /// [`private_socket_dir`].
    pub fn socket_path(&self, rel: &str, max: usize) -> PathBuf {
        let preferred = self.path(rel);
        if preferred.as_os_str().len() <= max {
            return preferred;
        }
        let hash = crate::kernel::digest::sha256_hex(preferred.as_os_str().as_encoded_bytes());
        private_socket_dir().join(format!("{}.sock", &hash[..24]))
    }

    /// The folder itself, checked: it must be a real folder, not a link (a
    /// `--state-dir` the user named through a link is resolved before it gets
    /// here) (which would move every state file, and every file a
    /// record names, wherever its author pointed it). `Ok(false)`: absent.
    fn check_root(&self) -> io::Result<bool> {
        match std::fs::symlink_metadata(&self.root) {
            Ok(m) if m.file_type().is_symlink() => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the state folder {} is a symbolic link; the toolbox does not follow it \
                     (remove the link, or name a folder with --state-dir)",
                    self.root.display()
                ),
            )),
            Ok(_) if self.root.is_dir() => Ok(true),
            Ok(_) => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the state folder {} is not a folder", self.root.display()),
            )),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(self.error(&self.root, e)),
        }
    }

    /// The path of `rel` inside the folder, checked: `rel` is plain names (no
    /// `..`, not absolute) and nothing on the way is a link, nor a file where a
    /// folder must be; the last component, when it exists, is not a link either.
    /// What a state file names cannot lead a read or a write out of the folder.
    pub fn checked(&self, rel: impl AsRef<Path>) -> io::Result<PathBuf> {
        let rel = rel.as_ref();
        let exists = self.check_root()?;
        let comps: Vec<Component> = rel.components().collect();
        if comps.is_empty() || comps.iter().any(|c| !matches!(c, Component::Normal(_))) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a name inside the state folder", rel.display()),
            ));
        }
        let mut p = self.root.clone();
        if exists {
            for (i, c) in comps.iter().enumerate() {
                p.push(c);
                match std::fs::symlink_metadata(&p) {
                    Ok(m) if m.file_type().is_symlink() => {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!(
                                "{} is a symbolic link; the state folder holds none (remove it)",
                                p.display()
                            ),
                        ));
                    }
                    Ok(m) if i + 1 < comps.len() && !m.is_dir() => {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!("{} is not a folder", p.display()),
                        ));
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => break,
                    Err(e) => return Err(self.error(&p, e)),
                }
            }
        }
        Ok(self.root.join(rel))
    }

    /// [`StateDir::checked`], then every missing folder on the way made (each
    /// one by one, so a link raced in is not followed by a recursive create).
    pub fn make_dirs(&self, rel: impl AsRef<Path>) -> io::Result<PathBuf> {
        let rel = rel.as_ref();
        self.ensure()?;
        let path = self.checked(rel)?;
        let mut p = self.root.clone();
        for c in rel.components() {
            p.push(c);
            match std::fs::create_dir(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let m = std::fs::symlink_metadata(&p).map_err(|e| self.error(&p, e))?;
                    if !m.is_dir() {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidData,
                            format!("{} is not a folder", p.display()),
                        ));
                    }
                }
                Err(e) => return Err(self.error(&p, e)),
            }
        }
        Ok(path)
    }

    /// Create the folder (with its `.gitignore` of `*`) if it does not exist.
    pub fn ensure(&self) -> io::Result<()> {
        if !self.check_root()? {
            if let Some(parent) = self.root.parent()
                && !parent.as_os_str().is_empty()
            {
                std::fs::create_dir_all(parent).map_err(|e| self.error(parent, e))?;
            }
            match std::fs::create_dir(&self.root) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    self.check_root()?;
                }
                Err(e) => return Err(self.error(&self.root, e)),
            }
        }
        let ignore = self.root.join(".gitignore");
        if std::fs::symlink_metadata(&ignore).is_err() {
            atomic_replace(&ignore, b"*\n", true).map_err(|e| self.error(&ignore, e))?;
        }
        Ok(())
    }

    fn error(&self, path: &Path, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("state file {}: {e}", path.display()))
    }

    /// Take the folder's exclusive lock (creating the folder first); it is held
    /// until the guard is dropped, so a tool can read, do its (async) work and
    /// write back as one transaction. Waits at most [`lock::STATE_LOCK_WAIT`],
    /// then answers which process holds it.
    pub fn lock(&self) -> io::Result<StateLock> {
        self.ensure()?;
        let lock_path = self.checked(".lock")?;
        let file = open_to_write(&lock_path, false).map_err(|e| self.error(&lock_path, e))?;
        lock::take(&file, &lock_path, &self.root, lock::STATE_LOCK_WAIT).map_err(|e| {
            if e.kind() == io::ErrorKind::TimedOut {
                e
            } else {
                self.error(&lock_path, e)
            }
        })?;
        Ok(StateLock { _file: file })
    }

    /// Hold the folder's exclusive lock for the duration of `f`.
    pub fn locked<R>(&self, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
        let _lock = self.lock()?;
        f()
    }

    fn load_unlocked<T: DeserializeOwned + Default>(&self, rel: &str) -> io::Result<T> {
        let file = &self.checked(rel)?;
        match read_file(file, READ_CAP) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "state file {} is corrupt ({e}); fix or delete it",
                        file.display()
                    ),
                )
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(T::default()),
            Err(e) => Err(self.error(file, e)),
        }
    }

    fn store_unlocked<T: Serialize>(&self, rel: &str, value: &T) -> io::Result<()> {
        self.store_with(rel, value, true)
    }

    fn store_with<T: Serialize>(&self, rel: &str, value: &T, durable: bool) -> io::Result<()> {
        let mut bytes = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
        bytes.push(b'\n');
        self.replace(rel, &bytes, durable)
    }

    /// Replace the state file `rel` with `bytes` (its folders made): never
    /// through a link (see [`StateDir::checked`]).
    pub fn replace(&self, rel: &str, bytes: &[u8], durable: bool) -> io::Result<()> {
        if let Some(parent) = Path::new(rel).parent()
            && !parent.as_os_str().is_empty()
        {
            self.make_dirs(parent)?;
        } else {
            self.ensure()?;
        }
        let file = self.checked(rel)?;
        atomic_replace(&file, bytes, durable).map_err(|e| self.error(&file, e))
    }

    /// Read a JSON state file (absent → `T::default()`), under the lock.
    pub fn load<T: DeserializeOwned + Default>(&self, rel: &str) -> io::Result<T> {
        if !self.check_root()? {
            return Ok(T::default());
        }
        self.locked(|| self.load_unlocked(rel))
    }

    /// Read a JSON state file inside a transaction opened with [`StateDir::lock`].
    pub fn read<T: DeserializeOwned + Default>(
        &self,
        _lock: &StateLock,
        rel: &str,
    ) -> io::Result<T> {
        self.load_unlocked(rel)
    }

    /// Replace a state file with `value` as a sealed document (see
    /// [`read_sealed`]) inside a transaction.
    pub fn write_sealed<T: Serialize>(
        &self,
        _lock: &StateLock,
        rel: &str,
        domain: &str,
        value: &T,
        durable: bool,
    ) -> io::Result<()> {
        self.replace(rel, &sealed_bytes(domain, value)?, durable)
    }

    /// A sealed document of the folder as a value (see [`read_sealed`]): absent,
    /// or not this user's (said once on stderr), it is `T::default()`.
    pub fn load_sealed<T: DeserializeOwned + Default>(
        &self,
        rel: &str,
        domain: &str,
    ) -> io::Result<T> {
        if !self.check_root()? {
            return Ok(T::default());
        }
        let path = self.checked(rel)?;
        Ok(match read_sealed(&path, domain, READ_CAP)? {
            Sealed::Ours(value) => value,
            Sealed::Absent => T::default(),
            Sealed::Foreign => {
                user::ignore_foreign(&path.display().to_string());
                T::default()
            }
        })
    }

    /// Read-modify-write a sealed document under the lock ([`StateDir::update`]
    /// for [`StateDir::load_sealed`] and [`StateDir::write_sealed`]).
    pub fn update_sealed<T, R>(
        &self,
        rel: &str,
        domain: &str,
        f: impl FnOnce(&mut T) -> R,
    ) -> io::Result<R>
    where
        T: DeserializeOwned + Serialize + Default,
    {
        let lock = self.lock()?;
        let mut value: T = self.load_sealed(rel, domain)?;
        let out = f(&mut value);
        self.write_sealed(&lock, rel, domain, &value, true)?;
        Ok(out)
    }

    /// Replace a JSON state file atomically inside a transaction.
    pub fn write<T: Serialize>(&self, _lock: &StateLock, rel: &str, value: &T) -> io::Result<()> {
        self.store_unlocked(rel, value)
    }

    /// [`StateDir::write`] without waiting for the disk (see
    /// [`atomic_write_unsynced`]): never torn, durable once the kernel writes back.
    pub fn write_unsynced<T: Serialize>(
        &self,
        _lock: &StateLock,
        rel: &str,
        value: &T,
    ) -> io::Result<()> {
        self.store_with(rel, value, false)
    }

    /// Read-modify-write a JSON state file under the lock, replacing it atomically.
    pub fn update<T, R>(&self, rel: &str, f: impl FnOnce(&mut T) -> R) -> io::Result<R>
    where
        T: DeserializeOwned + Serialize + Default,
    {
        self.locked(|| {
            let mut value: T = self.load_unlocked(rel)?;
            let out = f(&mut value);
            self.store_unlocked(rel, &value)?;
            Ok(out)
        })
    }
}

/// Proof that the state folder's lock is held; dropping it releases the lock.
#[derive(Debug)]
pub struct StateLock {
    _file: File,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn keys_are_safe_file_names() {
        assert_eq!(file_key("default"), "default");
        assert_eq!(file_key("a/b"), "a%2Fb");
        assert_eq!(file_key(".."), "%2E.");
        assert_eq!(file_key(""), "%00");
        assert_eq!(file_key("s-1_x.y"), "s-1_x.y");
    }

    #[test]
    fn update_creates_the_folder_with_a_gitignore_and_persists() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::new(dir.path());
        let n: usize = state
            .update("counts.json", |m: &mut BTreeMap<String, usize>| {
                *m.entry("a".into()).or_default() += 1;
                m.len()
            })
            .unwrap();
        assert_eq!(n, 1);
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".indus-process/.gitignore")).unwrap(),
            "*\n"
        );
        let m: BTreeMap<String, usize> = state.load("counts.json").unwrap();
        assert_eq!(m["a"], 1);
    }

    #[test]
    fn a_corrupt_file_is_an_error_naming_it_and_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::new(dir.path());
        state.ensure().unwrap();
        let file = state.path("bad.json");
        std::fs::write(&file, "{ nope").unwrap();
        let err = state
            .load::<BTreeMap<String, usize>>("bad.json")
            .unwrap_err();
        assert!(
            err.to_string().contains(&file.display().to_string()),
            "{err}"
        );
        assert!(err.to_string().contains("corrupt"));
        let err = state
            .update("bad.json", |_: &mut BTreeMap<String, usize>| ())
            .unwrap_err();
        assert!(err.to_string().contains("corrupt"));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "{ nope");
    }

    #[test]
    fn concurrent_updates_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let root = dir.path().to_path_buf();
                std::thread::spawn(move || {
                    let state = StateDir::new(&root);
                    for _ in 0..25 {
                        state.update("n.json", |n: &mut u64| *n += 1).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let n: u64 = StateDir::new(dir.path()).load("n.json").unwrap();
        assert_eq!(n, 200);
    }

    #[test]
    fn loading_without_a_folder_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::new(dir.path());
        let m: BTreeMap<String, u8> = state.load("x.json").unwrap();
        assert!(m.is_empty());
        assert!(!state.root().exists());
    }
}

#[cfg(test)]
mod socket_tests {
    use super::*;

    #[test]
    fn a_link_to_a_live_socket_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&real).unwrap();
        assert!(trusted_socket(&real));
        let link = dir.path().join("broker.sock");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(!trusted_socket(&link));
        // A regular file where the socket goes is not one either.
        let file = dir.path().join("file.sock");
        std::fs::write(&file, "").unwrap();
        assert!(!trusted_socket(&file));
        // Absent: nothing to distrust yet (it is about to be made).
        assert!(trusted_socket(&dir.path().join("absent.sock")));
    }

    #[test]
    fn a_linked_socket_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("ssh")).unwrap();
        assert!(prepare_socket_dir(&dir.path().join("ssh/x.sock")).is_err());
    }

    #[test]
    fn checked_paths_refuse_links_dots_and_a_linked_state_folder() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let state = StateDir::new(dir.path());
        state.ensure().unwrap();
        assert!(state.checked("../x").is_err());
        assert!(state.checked("/etc/passwd").is_err());
        std::os::unix::fs::symlink(elsewhere.path(), state.path("todos")).unwrap();
        assert!(state.checked("todos/default.json").is_err());
        std::os::unix::fs::symlink("/nowhere/made", state.path("x.json")).unwrap();
        assert!(state.checked("x.json").is_err());
        assert!(state.update("x.json", |n: &mut u8| *n += 1).is_err());
        assert!(!Path::new("/nowhere/made").exists());
        // The whole folder a link: refused, nothing written where it points.
        let other = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), other.path().join(STATE_DIR_NAME)).unwrap();
        let linked = StateDir::new(other.path());
        assert!(linked.update("n.json", |n: &mut u8| *n += 1).is_err());
        assert!(!elsewhere.path().join("n.json").exists());
        assert!(!elsewhere.path().join(".gitignore").exists());
    }
}

#[cfg(test)]
mod locate_tests {
    use super::*;

    #[test]
    fn the_project_is_found_upwards_as_git_finds_dot_git() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        let deep = repo.join("src/deep");
        std::fs::create_dir_all(&deep).unwrap();
        // Nothing marks a project: the working directory itself.
        assert_eq!(locate(&deep), deep);
        std::fs::create_dir(repo.join(".git")).unwrap();
        assert_eq!(locate(&deep), repo);
        assert_eq!(StateDir::new(&deep).root(), repo.join(STATE_DIR_NAME));
        // A nearer .indus-process wins over the repository root.
        std::fs::create_dir(repo.join("src").join(STATE_DIR_NAME)).unwrap();
        assert_eq!(locate(&deep), repo.join("src"));
    }
}
