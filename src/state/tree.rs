//! The project tree as a checkpoint last saw it, so a checkpointed shell command
//! (`bash`, `run_shell`, `task`, a background job) can be rewound: what it
//! changed is the difference between a scan before it and a scan after it, and
//! what a changed file held before is a content-addressed copy kept in the
//! session's `blobs/`.
//!
//! A scan is a stat cache in the manner of git's index: each entry keeps the
//! path, kind, size, modification and change times, inode and mode, and for a
//! file the SHA-256 of its content. An entry whose stat is unchanged is taken as
//! unchanged without reading the file, so a scan of an unchanged tree reads no
//! content; only new or changed files are read, hashed and copied (a copy, not a
//! hard link: a command writing a file in place, `>>` or `truncate`, would change
//! a hard-linked copy with it). A file changed within [`RACY_NS`] of the scan is
//! marked racy and read again by the next scan, as git does, since a second change
//! in the same timestamp tick leaves the stat as it was; a time in the future (an
//! mtime of 2099) is not racy, or it would be read by every scan for ever (a
//! change to it still moves its ctime, which only the kernel sets).
//!
//! What is covered: the files git would see (tracked and untracked-not-ignored:
//! `.gitignore`, `.git/info/exclude` and the user's global excludes, applied
//! inside and outside a repository alike), their folders and symlinks (the link
//! itself, never followed). `.git` folders and the project's own state folder
//! (`.indus-process` at the root) are never covered; a nested `.indus-process`
//! and a file named like the toolbox's temp files are (only this process's
//! own temp files are passed over). A file over the cap is neither read nor
//! copied: its size, mtime and inode stand for its content, so a command that
//! changes it is recorded as changed with its content not kept. An ignore file
//! over its caps ([`super::ignore_files`]) is skipped, and said.
//!
//! The cache lives in `checkpoints/<session>/tree`, sealed with this user's key
//! like every checkpoint record ([`user::seal`]): one without the seal (a
//! checkout's) is passed over and the tree is scanned afresh.
//!
//! Scans run under the state folder's lock (the caller holds it): blobs written
//! here are referenced by the saved cache before any collection can run.

use std::collections::HashMap;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::user;
use crate::kernel::digest::sha256_hex;

/// A file changed this close to a scan's start is read again by the next scan.
pub const RACY_NS: i64 = 200_000_000;

const SEAL_TREE: &str = "indus-tool checkpoint tree 1";
const MAGIC: &str = "indus-tool tree 1";

/// What a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Link,
}

impl Kind {
    fn letter(self) -> u8 {
        match self {
            Kind::File => b'f',
            Kind::Dir => b'd',
            Kind::Link => b'l',
        }
    }
}

/// One path as a scan saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub kind: Kind,
    /// Permission bits.
    pub mode: u32,
    pub size: u64,
    pub mtime: i64,
    pub ctime: i64,
    pub ino: u64,
    /// A file: the SHA-256 of its content; a link: its target; a folder: empty.
    pub sum: Arc<str>,
    /// A file whose content is kept in `blobs/<sum>` (not over the cap).
    pub kept: bool,
    /// Changed so near the scan that the next one reads it again.
    pub racy: bool,
}

impl Entry {
    /// Whether `self` (an older scan's) stands for the same content as a path
    /// with metadata `m` now, without reading it.
    fn same_stat(&self, kind: Kind, m: &Stat) -> bool {
        !self.racy
            && self.kind == kind
            && self.size == m.size
            && self.mtime == m.mtime
            && self.ctime == m.ctime
            && self.ino == m.ino
            && self.mode == m.mode
    }

    /// The state a rewind compares against and a record's `after` holds: the
    /// hash of a file, `dir`, or `link:TARGET`.
    pub fn signature(&self) -> String {
        match self.kind {
            Kind::File => self.sum.to_string(),
            Kind::Dir => SIG_DIR.to_string(),
            Kind::Link => format!("{SIG_LINK}{}", self.sum),
        }
    }
}

/// A record's `after` for a folder.
pub const SIG_DIR: &str = "dir";
/// A record's `after` for a symlink is this, then its target.
pub const SIG_LINK: &str = "link:";

/// What a scan reads of a path's `lstat`.
struct Stat {
    kind: Option<Kind>,
    mode: u32,
    size: u64,
    mtime: i64,
    ctime: i64,
    ino: u64,
}

impl Stat {
    fn of(m: &std::fs::Metadata) -> Stat {
        let ft = m.file_type();
        Stat {
            kind: if ft.is_symlink() {
                Some(Kind::Link)
            } else if ft.is_dir() {
                Some(Kind::Dir)
            } else if ft.is_file() {
                Some(Kind::File)
            } else {
                None
            },
            mode: m.mode() & 0o7777,
            size: m.len(),
            mtime: nanos(m.mtime(), m.mtime_nsec()),
            ctime: nanos(m.ctime(), m.ctime_nsec()),
            ino: m.ino(),
        }
    }

    /// `name` in the open folder `dir`, not followed: the kernel resolves one
    /// name, not the whole path (most of a scan's time on a large tree).
    fn at(dir: &std::fs::File, name: &str) -> io::Result<Stat> {
        use nix::sys::stat::{SFlag, fstatat};
        let st = fstatat(dir, name, nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW)?;
        let fmt = SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT;
        Ok(Stat {
            kind: if fmt == SFlag::S_IFLNK {
                Some(Kind::Link)
            } else if fmt == SFlag::S_IFDIR {
                Some(Kind::Dir)
            } else if fmt == SFlag::S_IFREG {
                Some(Kind::File)
            } else {
                None
            },
            mode: st.st_mode & 0o7777,
            size: st.st_size as u64,
            mtime: nanos(st.st_mtime, st.st_mtime_nsec),
            ctime: nanos(st.st_ctime, st.st_ctime_nsec),
            ino: st.st_ino,
        })
    }

    fn is_dir(&self) -> bool {
        self.kind == Some(Kind::Dir)
    }

    /// The entry of a path with this stat, racy when changed within
    /// [`RACY_NS`] of `started`.
    fn entry(&self, kind: Kind, sum: Arc<str>, kept: bool, started: i64) -> Entry {
        Entry {
            kind,
            mode: self.mode,
            size: self.size,
            mtime: self.mtime,
            ctime: self.ctime,
            ino: self.ino,
            sum,
            kept,
            racy: self.racy(started),
        }
    }

    /// Whether a scan starting at `started` may have missed a change in the
    /// same timestamp tick: a time within [`RACY_NS`] of it. A time past it (an
    /// mtime set to 2099) is no sign of a recent change and is not racy, or the
    /// file would be read again by every scan for ever; a change to such a file
    /// still shows, in its ctime, which only the kernel sets (to the time of
    /// the change).
    fn racy(&self, started: i64) -> bool {
        let near = |t: i64| t >= started - RACY_NS && t <= started.saturating_add(RACY_NS);
        near(self.mtime) || near(self.ctime)
    }
}

fn nanos(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

/// A scan: every covered path below the root, relative to it.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The folder scanned (absolute); a cache of another root is not reused.
    pub root: PathBuf,
    pub entries: Map<Entry>,
}

/// The snapshot's map, by relative path.
/// Keys are shared between a scan and the next (an unchanged path costs no
/// allocation).
pub type Map<V> = HashMap<Arc<str>, V, foldhash::fast::RandomState>;

/// Where blobs go and how big a copied file may be.
pub struct Blobs<'a> {
    pub dir: &'a Path,
    pub cap: u64,
}

impl Blobs<'_> {
    /// Hash `path` (a regular file) and keep its content unless over the cap or
    /// a blob of that hash is there already. Answers (sum, kept, size read).
    fn keep(&self, path: &Path, size_hint: u64) -> io::Result<(String, bool)> {
        use std::io::Read;
        let mut file = super::files::open_file(path)?;
        if size_hint > self.cap {
            return Ok((over_cap_sum(&Stat::of(&file.metadata()?)), false));
        }
        let mut bytes = Vec::with_capacity(size_hint as usize);
        (&mut file).take(self.cap + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > self.cap {
            // Grew past the cap while being read: its stat stands for it.
            return Ok((over_cap_sum(&Stat::of(&file.metadata()?)), false));
        }
        let sum = sha256_hex(&bytes);
        let blob = self.dir.join(&sum);
        if std::fs::symlink_metadata(&blob).is_err() {
            crate::sys::atomic_replace(&blob, &bytes, false)?;
        }
        Ok((sum, true))
    }
}

/// What stands for the content of a file over the cap, which is never read (a
/// sparse 20 GB file would take minutes to hash): its size, modification time
/// and inode. A change to any of them is a change; a rewind cannot check such a
/// file's content, so it counts as changed since (its content was not kept
/// anyway).
fn over_cap_sum(m: &Stat) -> String {
    format!("{OVER_CAP_SUM}{}:{}:{}", m.size, m.mtime, m.ino)
}

/// The stand-in sum of the over-the-cap file whose metadata is `m`, as the scan
/// records it: what a rewind compares such a file by.
pub fn over_cap_sig(m: &std::fs::Metadata) -> String {
    over_cap_sum(&Stat::of(m))
}

/// The start of an over-the-cap file's stand-in sum ([`over_cap_sum`]).
pub const OVER_CAP_SUM: &str = "over-cap:";

/// A path that could not be scanned: it is left out (not covered), and said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unscanned {
    pub path: String,
    pub why: String,
}

/// Scan `root`: stat every covered path, reuse `prev`'s entry where the stat is
/// unchanged, read, hash and keep (in `blobs`) every other file.
///
/// A folder whose stat is unchanged since `prev` (names added, removed or
/// renamed in it change its modification time) is not listed again: its
/// covered children are `prev`'s, and only they are stat'ed, as git's index
/// is. When an ignore file changed (a `.gitignore`, `.git/info/exclude`, the
/// user's excludes file) the tree is walked afresh.
///
/// The flag answered is whether the snapshot is `prev` as it was (nothing
/// changed, nothing to save).
pub fn scan(root: &Path, prev: &Snapshot, blobs: &Blobs) -> (Snapshot, Vec<Unscanned>, bool) {
    let rules = Rules::new(root);
    let reuse = prev.root == root
        && rules
            .stamps
            .iter()
            .all(|(k, e)| prev.entries.get(*k) == e.as_ref());
    let first = walk(root, reuse.then_some(prev), Some(blobs), &rules, None);
    let (snap, unscanned, rules_changed, same) = first;
    if reuse && rules_changed {
        let (snap, unscanned, _, _) = walk(root, None, Some(blobs), &rules, None);
        return (snap, unscanned, false);
    }
    (snap, unscanned, reuse && same)
}

/// What a scan of `root` passes over: the paths git would ignore, each named
/// at its top (a folder, not its files, shown with a `/`), sorted; at most
/// `limit` of them, and how many there are. For `checkpoint diff`, which says
/// what a command's checkpoint does not cover.
pub fn not_covered(root: &Path, limit: usize) -> (Vec<String>, usize) {
    let rules = Rules::new(root);
    let ignored = Mutex::new(Vec::new());
    // Only names are wanted: nothing is read or kept.
    let _ = walk(root, None, None, &rules, Some(&ignored));
    let mut found = ignored.into_inner().unwrap_or_else(|p| p.into_inner());
    found.sort();
    let total = found.len();
    found.truncate(limit);
    (found, total)
}

/// The ignore rules above every `.gitignore`: the repository's
/// `.git/info/exclude` and the user's excludes file (`core.excludesFile`, or
/// git's default), with their stats as pseudo-entries of the snapshot (keys
/// starting with `/`, which no relative path does), so a change to either
/// makes the next scan walk afresh.
struct Rules {
    exclude: Option<ignore::gitignore::Gitignore>,
    global: Option<ignore::gitignore::Gitignore>,
    stamps: Vec<(&'static str, Option<Entry>)>,
}

const EXCLUDE_KEY: &str = "/info-exclude";
const GLOBAL_KEY: &str = "/global-excludes";

impl Rules {
    fn new(root: &Path) -> Rules {
        let exclude_path = root.join(".git/info/exclude");
        let global_path = ignore::gitignore::gitconfig_excludes_path();
        // Never racy (no scan starts at the end of time): a stamp is
        // compared, not read.
        let stamp = |p: &Path| {
            let m = Stat::of(&std::fs::metadata(p).ok()?);
            Some(m.entry(Kind::File, Arc::from(""), false, i64::MAX))
        };
        let load = |p: &Path| {
            p.is_file()
                .then(|| super::ignore_files::load(p, p.parent().unwrap_or(root)))
                .filter(|g| !g.is_empty())
        };
        Rules {
            exclude: load(&exclude_path),
            global: global_path.as_deref().and_then(|p| {
                // Relative to the project, as git reads it for this repository.
                Some(super::ignore_files::load(p, root)).filter(|g| !g.is_empty())
            }),
            stamps: vec![
                (EXCLUDE_KEY, stamp(&exclude_path)),
                (GLOBAL_KEY, global_path.as_deref().and_then(stamp)),
            ],
        }
    }
}

/// The `.gitignore` files that apply in a folder, innermost last, each built
/// when first needed (most folders' names are known covered from the cache).
#[derive(Clone, Default)]
struct Stack(Vec<std::sync::Arc<Lazy>>);

struct Lazy {
    path: PathBuf,
    built: std::sync::OnceLock<ignore::gitignore::Gitignore>,
}

impl Stack {
    fn with(&self, dir: &Path) -> Stack {
        let mut next = self.clone();
        next.0.push(std::sync::Arc::new(Lazy {
            path: dir.join(".gitignore"),
            built: std::sync::OnceLock::new(),
        }));
        next
    }

    /// Whether git ignores `path` (absolute): the innermost `.gitignore` with
    /// a say decides, then the repository's excludes, then the user's.
    fn ignores(&self, rules: &Rules, path: &Path, is_dir: bool) -> bool {
        for lazy in self.0.iter().rev() {
            let g = lazy.built.get_or_init(|| {
                let dir = lazy.path.parent().unwrap_or(Path::new("/"));
                super::ignore_files::load(&lazy.path, dir)
            });
            let m = g.matched(path, is_dir);
            if !m.is_none() {
                return m.is_ignore();
            }
        }
        for g in [&rules.exclude, &rules.global].into_iter().flatten() {
            let m = g.matched(path, is_dir);
            if !m.is_none() {
                return m.is_ignore();
            }
        }
        false
    }
}

/// A folder to list: its path relative to the root and the rules over it.
struct Job {
    rel: Arc<str>,
    stack: Stack,
    /// Its stat is as `prev` has it (so its names are `prev`'s).
    unchanged: bool,
}

struct Shared<'a> {
    root: &'a Path,
    prev: Option<&'a Snapshot>,
    /// `prev`'s children by folder (relative paths), for folders not listed again.
    children: HashMap<&'a str, Vec<(&'a Arc<str>, &'a Entry)>, foldhash::fast::RandomState>,
    /// Where new contents are kept; `None`: stat only (no file is read).
    blobs: Option<&'a Blobs<'a>>,
    rules: &'a Rules,
    started: i64,
    ignored: Option<&'a Mutex<Vec<String>>>,
    queue: Mutex<(Vec<Job>, usize)>,
    wake: std::sync::Condvar,
    rules_changed: std::sync::atomic::AtomicBool,
}

/// `prev`'s entries by folder, so that a folder whose stat is unchanged is
/// walked from what `prev` knows of it, without reading it.
fn children_of(
    prev: Option<&Snapshot>,
) -> HashMap<&str, Vec<(&Arc<str>, &Entry)>, foldhash::fast::RandomState> {
    let mut children: HashMap<&str, Vec<(&Arc<str>, &Entry)>, foldhash::fast::RandomState> =
        HashMap::default();
    if let Some(prev) = prev {
        for (path, e) in &prev.entries {
            if !is_path(path) {
                continue;
            }
            let parent = path.rfind('/').map_or("", |i| &path[..i]);
            children.entry(parent).or_default().push((path, e));
        }
    }
    children
}

/// Walk the tree on a few threads (see [`scan`]). Answers the snapshot, what
/// could not be scanned, and whether an ignore file changed since `prev`.
fn walk(
    root: &Path,
    prev: Option<&Snapshot>,
    blobs: Option<&Blobs>,
    rules: &Rules,
    ignored: Option<&Mutex<Vec<String>>>,
) -> (Snapshot, Vec<Unscanned>, bool, bool) {
    let started = {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        nanos(now.as_secs() as i64, now.subsec_nanos() as i64)
    };
    let children = children_of(prev);
    let root_stack = Stack::default().with(root);
    let root_unchanged = prev.is_some_and(|p| {
        p.entries.get("").is_some_and(|old| {
            std::fs::symlink_metadata(root).is_ok_and(|m| old.same_stat(Kind::Dir, &Stat::of(&m)))
        })
    });
    let shared = Shared {
        root,
        prev,
        children,
        blobs,
        rules,
        started,
        ignored,
        queue: Mutex::new((
            vec![Job {
                rel: Arc::from(""),
                stack: root_stack,
                unchanged: root_unchanged,
            }],
            0,
        )),
        wake: std::sync::Condvar::new(),
        rules_changed: std::sync::atomic::AtomicBool::new(false),
    };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 8));
    let mut entries: Map<Entry> = Map::with_capacity_and_hasher(
        prev.map_or(1024, |p| p.entries.len() + 16),
        Default::default(),
    );
    let mut same = 0;
    let mut unscanned = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| scope.spawn(|| worker(&shared)))
            .collect();
        for h in handles {
            if let Ok((e, u, n)) = h.join() {
                same += n;
                entries.extend(e);
                unscanned.extend(u);
            }
        }
    });
    // The root itself, for its mode and stat, and the rules' stamps.
    if let Ok(m) = std::fs::symlink_metadata(root) {
        entries.insert(Arc::from(""), dir_entry(&Stat::of(&m), started));
    }
    for (key, stamp) in &rules.stamps {
        if let Some(e) = stamp {
            entries.insert(Arc::from(*key), e.clone());
        }
    }
    let changed = shared
        .rules_changed
        .load(std::sync::atomic::Ordering::Relaxed);
    // Every path found as `prev` had it, as many as it had, and the root and
    // the rules' stamps as they were: the same snapshot.
    let same = prev.is_some_and(|p| {
        let paths = p.entries.keys().filter(|k| is_path(k)).count();
        same == paths
            && entries.len() == p.entries.len()
            && entries
                .iter()
                .filter(|(k, _)| !is_path(k))
                .all(|(k, e)| p.entries.get(k) == Some(e))
    });
    (
        Snapshot {
            root: root.to_path_buf(),
            entries,
        },
        unscanned,
        changed,
        same,
    )
}

fn dir_entry(m: &Stat, started: i64) -> Entry {
    m.entry(Kind::Dir, Arc::from(""), true, started)
}

/// A thread's entries, what it could not scan, and how many entries it found
/// as `prev` has them.
type Found = (Vec<(Arc<str>, Entry)>, Vec<Unscanned>, usize);

fn worker(shared: &Shared) -> Found {
    let mut found: Found = (Vec::new(), Vec::new(), 0);
    loop {
        let job = {
            let mut q = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                if let Some(job) = q.0.pop() {
                    q.1 += 1;
                    break Some(job);
                }
                if q.1 == 0 {
                    break None;
                }
                q = shared.wake.wait(q).unwrap_or_else(|p| p.into_inner());
            }
        };
        let Some(job) = job else {
            shared.wake.notify_all();
            return found;
        };
        let more = list(shared, &job, &mut found);
        let mut q = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
        q.0.extend(more);
        q.1 -= 1;
        drop(q);
        shared.wake.notify_all();
    }
}

/// `name` below the folder `rel` (the root's own names stand alone).
fn joined(rel: &str, name: &str) -> Arc<str> {
    if rel.is_empty() {
        Arc::from(name)
    } else {
        Arc::from(format!("{rel}/{name}"))
    }
}

/// The children of a folder to look at, each with `prev`'s entry when it is
/// known covered: `prev`'s names for a folder whose stat is unchanged, else
/// the names read from it, less `.git` and what is the toolbox's own. Only the
/// project's own state folder (at the root) and this process's own temp files
/// are the toolbox's: a nested `.indus-process` or a file merely named like a
/// temp file is the project's, and covered.
fn names_of<'s>(
    shared: &Shared<'s>,
    job: &Job,
    dir: &Path,
    found: &mut Found,
) -> Vec<(Arc<str>, Option<&'s Entry>)> {
    let join = |name: &str| joined(&job.rel, name);
    let mut names: Vec<(Arc<str>, Option<&Entry>)> = Vec::new();
    if job.unchanged {
        if let Some(kids) = shared.children.get(&*job.rel) {
            names.extend(kids.iter().map(|(k, e)| (Arc::clone(k), Some(*e))));
        }
        return names;
    }
    match std::fs::read_dir(dir) {
        Ok(rd) => {
            for e in rd.flatten() {
                let name = e.file_name();
                let bytes = name.as_bytes();
                if bytes == b".git"
                    || (job.rel.is_empty() && bytes == super::STATE_DIR_NAME.as_bytes())
                    || name
                        .to_str()
                        .and_then(crate::sys::temp_owner)
                        .is_some_and(|(_, pid)| pid == std::process::id())
                {
                    continue;
                }
                match name.into_string() {
                    Ok(n) => names.push((join(&n), None)),
                    Err(n) => found.1.push(Unscanned {
                        path: join(&n.to_string_lossy()).to_string(),
                        why: "its name is not UTF-8".into(),
                    }),
                }
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => found.1.push(Unscanned {
            path: job.rel.to_string(),
            why: e.to_string(),
        }),
    }
    names
}

/// One folder: its children stat'ed (and read where changed), its subfolders
/// answered as more jobs.
fn list(shared: &Shared, job: &Job, found: &mut Found) -> Vec<Job> {
    let dir = if job.rel.is_empty() {
        shared.root.to_path_buf()
    } else {
        shared.root.join(&*job.rel)
    };
    let names = names_of(shared, job, &dir, found);
    let name_of = |key: &str| -> usize { key.rfind('/').map_or(0, |i| i + 1) };
    let dir_fd = match std::fs::File::open(&dir) {
        Ok(fd) => fd,
        Err(e) => {
            if e.kind() != io::ErrorKind::NotFound {
                found.1.push(Unscanned {
                    path: job.rel.to_string(),
                    why: e.to_string(),
                });
            }
            return Vec::new();
        }
    };
    let stack = if names.iter().any(|(k, _)| &k[name_of(k)..] == ".gitignore") {
        job.stack.with(&dir)
    } else {
        job.stack.clone()
    };
    let mut more = Vec::new();
    for (rel, old) in names {
        let name = &rel[name_of(&rel)..];
        let m = match Stat::at(&dir_fd, name) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => {
                found.1.push(Unscanned {
                    path: rel.to_string(),
                    why: e.to_string(),
                });
                continue;
            }
        };
        let is_dir = m.is_dir();
        let old = match old {
            Some(old) => Some(old),
            None => {
                let path = dir.join(name);
                if stack.ignores(shared.rules, &path, is_dir) {
                    if let Some(ignored) = shared.ignored {
                        let mut shown = rel.to_string();
                        if is_dir {
                            shown.push('/');
                        }
                        ignored
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(shown);
                    }
                    continue;
                }
                shared.prev.and_then(|p| p.entries.get(&rel))
            }
        };
        match entry_of(shared, &dir, name, old, &m) {
            Ok(e) => {
                if name == ".gitignore"
                    && shared.prev.is_some()
                    && old.is_none_or(|o| o.sum != e.sum)
                {
                    shared
                        .rules_changed
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                }
                if old == Some(&e) {
                    found.2 += 1;
                }
                if e.kind == Kind::Dir {
                    more.push(Job {
                        rel: Arc::clone(&rel),
                        stack: stack.clone(),
                        unchanged: old.is_some_and(|o| o.same_stat(Kind::Dir, &m)),
                    });
                }
                found.0.push((rel, e));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => found.1.push(Unscanned {
                path: rel.to_string(),
                why: e.to_string(),
            }),
        }
    }
    note_ignore_file_gone(shared, job, &dir);
    more
}

/// A `.gitignore` gone from a folder listed again changes the rules too.
fn note_ignore_file_gone(shared: &Shared, job: &Job, dir: &Path) {
    if !job.unchanged
        && let Some(prev) = shared.prev
        && prev.entries.contains_key(&*joined(&job.rel, ".gitignore"))
        && !dir.join(".gitignore").exists()
    {
        shared
            .rules_changed
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The entry of `name` in `dir`: `old` (`prev`'s) when its stat is unchanged,
/// else read.
fn entry_of(
    shared: &Shared,
    dir: &Path,
    name: &str,
    old: Option<&Entry>,
    m: &Stat,
) -> io::Result<Entry> {
    let Some(kind) = m.kind else {
        return Err(io::Error::other(
            "not a file, folder or link (a socket, FIFO or device)",
        ));
    };
    if kind == Kind::Dir {
        return Ok(dir_entry(m, shared.started));
    }
    let racy = m.racy(shared.started);
    if let Some(old) = old
        && old.same_stat(kind, m)
    {
        return Ok(Entry {
            racy,
            ..old.clone()
        });
    }
    let path = dir.join(name);
    let (sum, kept) = match kind {
        Kind::Link => (
            std::fs::read_link(&path)?.to_string_lossy().into_owned(),
            true,
        ),
        _ => match shared.blobs {
            Some(blobs) => blobs.keep(&path, m.size)?,
            None => (String::new(), false),
        },
    };
    Ok(m.entry(kind, Arc::from(sum), kept, shared.started))
}

/// Whether a snapshot's key is a path below the root (not the root itself,
/// nor a rule file's stamp).
pub fn is_path(key: &str) -> bool {
    !key.is_empty() && !key.starts_with('/')
}

/// What changed between two scans, by path (sorted): `(path, before, after)`,
/// either side `None` for a path that was not there. A folder's times are not a
/// change; its mode is.
pub fn changes<'a>(
    old: &'a Snapshot,
    new: &'a Snapshot,
) -> Vec<(&'a str, Option<&'a Entry>, Option<&'a Entry>)> {
    let mut out = Vec::new();
    for (path, after) in new.entries.iter().filter(|(p, _)| is_path(p)) {
        match old.entries.get(path) {
            None => out.push((&**path, None, Some(after))),
            Some(before)
                if before.kind != after.kind
                    || before.sum != after.sum
                    || before.mode != after.mode =>
            {
                out.push((&**path, Some(before), Some(after)))
            }
            Some(_) => {}
        }
    }
    for (path, before) in old.entries.iter().filter(|(p, _)| is_path(p)) {
        if !new.entries.contains_key(path) {
            out.push((&**path, Some(before), None));
        }
    }
    out.sort_by(|a, b| a.0.cmp(b.0));
    out
}

/// The cache's bytes: a header line with the seal, then the sealed body: the
/// root (hex) on a line, then one binary record per path (fixed-width
/// little-endian fields, then the sum's and the path's lengths and bytes),
/// read back with no text parsing: the cache of a large tree is read on every
/// checkpointed command.
pub fn encode(snap: &Snapshot) -> Option<Vec<u8>> {
    let root = hex(snap.root.as_os_str().as_bytes());
    let mut signed = Vec::with_capacity(snap.entries.len() * 140 + root.len() + 1);
    signed.extend_from_slice(root.as_bytes());
    signed.push(b'\n');
    for (path, e) in &snap.entries {
        signed.push(e.kind.letter());
        signed.push(u8::from(e.kept) | (u8::from(e.racy) << 1));
        signed.extend_from_slice(&e.mode.to_le_bytes());
        signed.extend_from_slice(&e.size.to_le_bytes());
        signed.extend_from_slice(&e.mtime.to_le_bytes());
        signed.extend_from_slice(&e.ctime.to_le_bytes());
        signed.extend_from_slice(&e.ino.to_le_bytes());
        signed.extend_from_slice(&(e.sum.len() as u32).to_le_bytes());
        signed.extend_from_slice(&(path.len() as u32).to_le_bytes());
        signed.extend_from_slice(e.sum.as_bytes());
        signed.extend_from_slice(path.as_bytes());
    }
    let seal = user::seal(SEAL_TREE, &signed)?;
    let mut out = format!("{MAGIC} {seal}\n").into_bytes();
    out.extend_from_slice(&signed);
    Some(out)
}

/// The fixed-width part of a record: kind, flags, mode, size, mtime, ctime,
/// inode, and the two lengths.
const RECORD: usize = 1 + 1 + 4 + 8 + 8 + 8 + 8 + 4 + 4;

/// The cache read back: `None` when it is not this user's (no seal of theirs)
/// or does not parse, and the tree is then scanned afresh.
pub fn decode(bytes: &[u8]) -> Option<Snapshot> {
    let nl = bytes.iter().position(|b| *b == b'\n')?;
    let header = std::str::from_utf8(&bytes[..nl]).ok()?;
    let seal = header.strip_prefix(MAGIC)?.trim();
    let signed = &bytes[nl + 1..];
    // The seal is checked on another thread while the records are read (a
    // few milliseconds each on a large tree); nothing read is used unless it
    // holds.
    let (sealed, snap) = std::thread::scope(|scope| {
        let check = scope.spawn(|| user::verify(SEAL_TREE, signed, seal));
        let snap = parse(signed);
        (check.join().unwrap_or(false), snap)
    });
    snap.filter(|_| sealed)
}

/// The sealed body's records (see [`decode`]).
fn parse(signed: &[u8]) -> Option<Snapshot> {
    let nl = signed.iter().position(|b| *b == b'\n')?;
    let root = PathBuf::from(std::ffi::OsStr::from_bytes(&unhex(&signed[..nl])?));
    let mut rest = &signed[nl + 1..];
    let mut entries = Map::with_capacity_and_hasher(rest.len() / 120 + 16, Default::default());
    let u32_at =
        |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap_or_default());
    let u64_at =
        |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or_default());
    while !rest.is_empty() {
        let head = rest.get(..RECORD)?;
        let kind = match head[0] {
            b'f' => Kind::File,
            b'd' => Kind::Dir,
            b'l' => Kind::Link,
            _ => return None,
        };
        let sum_len = u32_at(head, 38) as usize;
        let path_len = u32_at(head, 42) as usize;
        let sum = std::str::from_utf8(rest.get(RECORD..RECORD + sum_len)?).ok()?;
        let path =
            std::str::from_utf8(rest.get(RECORD + sum_len..RECORD + sum_len + path_len)?).ok()?;
        entries.insert(
            Arc::from(path),
            Entry {
                kind,
                kept: head[1] & 1 != 0,
                racy: head[1] & 2 != 0,
                mode: u32_at(head, 2),
                size: u64_at(head, 6),
                mtime: u64_at(head, 14) as i64,
                ctime: u64_at(head, 22) as i64,
                ino: u64_at(head, 30),
                sum: Arc::from(sum),
            },
        );
        rest = &rest[RECORD + sum_len + path_len..];
    }
    Some(Snapshot { root, entries })
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

fn unhex(s: &[u8]) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    s.chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blobs_in(dir: &Path) -> PathBuf {
        let b = dir.join("blobs");
        std::fs::create_dir_all(&b).unwrap();
        b
    }

    #[test]
    fn a_scan_sees_what_git_would_and_reuses_unchanged_entries() {
        let home = tempfile::tempdir().unwrap();
        let tree = tempfile::tempdir().unwrap();
        let root = tree.path();
        std::fs::write(root.join(".gitignore"), "*.log\nbuild/\n").unwrap();
        std::fs::write(root.join("a.txt"), "one\n").unwrap();
        std::fs::write(root.join("x.log"), "ignored\n").unwrap();
        std::fs::create_dir_all(root.join("build")).unwrap();
        std::fs::write(root.join("build/out"), "ignored\n").unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref\n").unwrap();
        std::fs::create_dir_all(root.join("d/e")).unwrap();
        std::os::unix::fs::symlink("a.txt", root.join("ln")).unwrap();
        let bdir = blobs_in(home.path());
        let blobs = Blobs {
            dir: &bdir,
            cap: 1024,
        };
        let (first, unscanned, _) = scan(root, &Snapshot::default(), &blobs);
        assert!(unscanned.is_empty(), "{unscanned:?}");
        let mut paths: Vec<&str> = first
            .entries
            .keys()
            .map(|k| &**k)
            .filter(|p| is_path(p))
            .collect();
        paths.sort();
        assert_eq!(paths, [".gitignore", "a.txt", "d", "d/e", "ln"]);
        assert_eq!(&*first.entries["ln"].sum, "a.txt");
        assert_eq!(
            std::fs::read(bdir.join(sha256_hex(b"one\n"))).unwrap(),
            b"one\n"
        );
        // Round trip through the sealed cache.
        let bytes = encode(&first).unwrap();
        let back = decode(&bytes).unwrap();
        assert_eq!(back.entries, first.entries);
        let mut forged = bytes.clone();
        let at = forged.len() - 3;
        forged[at] ^= 1;
        assert!(decode(&forged).is_none());
        let (again, _, same) = scan(root, &first, &blobs);
        assert!(same, "an unchanged tree scans the same");
        assert_eq!(again.entries, first.entries);
        // A change found, the rest reused.
        std::fs::write(root.join("a.txt"), "two\n").unwrap();
        std::fs::remove_dir(root.join("d/e")).unwrap();
        let (second, _, _) = scan(root, &first, &blobs);
        let got: Vec<(&str, bool, bool)> = changes(&first, &second)
            .into_iter()
            .map(|(p, b, a)| (p, b.is_some(), a.is_some()))
            .collect();
        assert_eq!(got, [("a.txt", true, true), ("d/e", true, false)]);
        drop(home);
    }

    #[test]
    fn over_the_cap_is_neither_read_nor_kept() {
        let home = tempfile::tempdir().unwrap();
        let tree = tempfile::tempdir().unwrap();
        std::fs::write(tree.path().join("big"), "0123456789").unwrap();
        let bdir = blobs_in(home.path());
        let blobs = Blobs { dir: &bdir, cap: 4 };
        let (snap, _, _) = scan(tree.path(), &Snapshot::default(), &blobs);
        let e = &snap.entries["big"];
        assert!(!e.kept);
        assert!(e.sum.starts_with(OVER_CAP_SUM), "{}", e.sum);
        assert_eq!(std::fs::read_dir(&bdir).unwrap().count(), 0);
        // A change of its stat is a change; a future mtime is not racy.
        let big = std::fs::File::options()
            .append(true)
            .open(tree.path().join("big"))
            .unwrap();
        std::io::Write::write_all(&mut &big, b"x").unwrap();
        let future = std::time::UNIX_EPOCH + std::time::Duration::from_secs(4_070_908_800);
        big.set_modified(future).unwrap();
        let (later, _, _) = scan(tree.path(), &snap, &blobs);
        assert_eq!(changes(&snap, &later).len(), 1);
        std::thread::sleep(std::time::Duration::from_millis(250));
        let (last, _, _) = scan(tree.path(), &later, &blobs);
        assert!(!last.entries["big"].racy);
    }
}
