//! The checkpoint store: what `write` and `edit` changed, turn by turn, so a later
//! `indus-tool checkpoint rewind` can put files back exactly as they were.
//!
//! One session's checkpoints live in `.indus-process/checkpoints/<session>/`:
//!
//! - `nodes/<start>-<name>.json`: one file per node (turn), `start` (the node's
//!   start, epoch milliseconds) giving the order the nodes began in; each holds, per file it touched, the file's content
//!   before its first change in that node (the pre-image: first seen wins) and the
//!   SHA-256 of what the toolbox last wrote there (`after`), so a rewind can tell a
//!   file changed outside the toolbox since. A file per node keeps a checkpointed
//!   call's cost independent of how many nodes are kept.
//! - `nodes/<start>-<name>.after`: those hashes as they are noted, one JSON line per
//!   change, appended (every checkpointed call notes one, and an append costs far
//!   less than rewriting the node); folded into the node's file when it is next
//!   rewritten.
//! - `blobs/<sha256>`: pre-image contents, named by their hash, so the same content
//!   recorded a hundred times is stored once.
//!
//! A pre-image over the size cap is recorded as not kept (with its size) rather
//! than silently skipped; the caller reports it. Every index change, blob writes
//! and garbage collection included, happens under the state folder's lock
//! ([`StateDir::lock`]), so concurrent invocations never lose a record and a blob is
//! never collected between being written and being referenced.
//!
//! Everything here that a later call acts on — a node (what a rewind puts back
//! and what `checkpoint diff` shows), a journal line, the rewind plan, the
//! `always` marker — carries this user's seal ([`user::seal_json`]); one without
//! it came with the checkout, not from this user's toolbox, and is passed over
//! with a line on stderr. Records are read without following links and with a
//! size cap ([`super::files::read_file`]).
//!
//! This module owns the data and the file operations (record, list, diff inputs,
//! rewind, drop); the tool wrapper is `deck::wrappers::checkpoint`, the command line
//! `cli::checkpoint_command`. Its child `runs` continues the store's impl for
//! commands (a tree scanned before and after): the store closes runs left open
//! before any read (`settle`) and keeps their copies from collection, which is
//! why the two are one type in two files.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

pub mod runs;

use super::{READ_CAP, StateDir, StateLock, file_key, same_place, user};
use crate::kernel::digest::{sha256_hex, sha256_of_reader};
use crate::kernel::{Root, WriteGuard};
use crate::sys::atomic_replace;

/// The folder of every session's checkpoints, inside the state folder.
pub const CHECKPOINTS_DIR: &str = "checkpoints";
/// What a record's `after` holds when the toolbox's last change deleted the
/// file (`apply_patch`): no hash is ever this word, so the two cannot meet.
pub const AFTER_ABSENT: &str = "absent";
/// The largest pre-image kept: 16 MiB. A bigger file is recorded as not kept.
pub const DEFAULT_CAP: u64 = 16 * 1024 * 1024;

/// What a file was before a node first changed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum Image {
    /// The file did not exist: a rewind deletes it.
    Absent,
    /// The content is kept in `blobs/<sha256>`.
    Kept {
        sha256: String,
        size: u64,
        /// The file's permission bits, put back by a rewind (a file recreated
        /// gets its own mode, not the default).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<u32>,
    },
    /// The file was over the cap; its content was not kept.
    OverCap { size: u64, cap: u64 },
    /// The file existed but could not be read (the write went ahead regardless).
    Unreadable { reason: String },
    /// A folder (a shell command removed it or put a file in its place): a
    /// rewind makes it again, with its mode.
    Dir {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<u32>,
    },
    /// A symbolic link, never followed: a rewind puts the link back.
    Link { target: String },
}

impl Image {
    /// Why a rewind cannot restore this image, if it cannot.
    pub fn not_kept(&self) -> Option<String> {
        match self {
            Image::Absent | Image::Kept { .. } | Image::Dir { .. } | Image::Link { .. } => None,
            Image::OverCap { size, cap } => Some(format!(
                "not kept: over the cap ({size} bytes; the cap is {cap})"
            )),
            Image::Unreadable { reason } => Some(format!("not kept: unreadable ({reason})")),
        }
    }

    /// One-phrase description for listings: `absent`, `12 bytes`, or why not kept.
    pub fn describe(&self) -> String {
        match self {
            Image::Absent => "absent (created since)".to_string(),
            Image::Kept { size, .. } => crate::kernel::text::plural(*size, "byte", "bytes"),
            Image::Dir { .. } => "a folder".to_string(),
            Image::Link { target } => format!("a link to {target}"),
            other => other.not_kept().unwrap_or_default(),
        }
    }
}

/// One file a node touched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// The absolute path the tool resolved (stored relative to the project
    /// when inside it; read back absolute).
    pub path: String,
    /// The file before this node first changed it.
    pub before: Image,
    /// SHA-256 of what the toolbox last wrote in this node (`None` until a change
    /// succeeded and was read back).
    #[serde(default)]
    pub after: Option<String>,
    /// Folders the node's write created for the file (absolute, outermost
    /// first): a rewind that deletes the file removes them again when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_dirs: Vec<String>,
    /// Why the node cannot tell whether this change is its own (a shell command
    /// ran while another writer changed the same file): a rewind refuses the
    /// file unless forced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncertain: Option<String>,
}

/// One checkpoint node: a turn (`--turn`) or one invocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    pub name: String,
    /// When the node began, epoch milliseconds.
    pub created_ms: u64,
    /// Whether the name was given (`--turn`) rather than made up per invocation.
    #[serde(default)]
    pub named: bool,
    pub files: Vec<FileRecord>,
    /// The tree a command of this node was checkpointed over (a scan's root),
    /// when one was: `checkpoint diff` then says what that covers and what not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tree: Option<String>,
}

/// Every node of a session, oldest first (read from `nodes/`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Index {
    #[serde(default)]
    pub nodes: Vec<Node>,
}

impl Index {
    fn position(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }

    /// Every path touched at or after node `from`, in the order first touched,
    /// with its earliest pre-image among those nodes (what a rewind restores) and
    /// the hash of the toolbox's latest write there.
    pub fn touched_since(&self, from: usize) -> Vec<Touched> {
        let mut order: Vec<Touched> = Vec::new();
        let mut at: HashMap<&str, usize> = HashMap::new();
        for node in &self.nodes[from..] {
            for rec in &node.files {
                match at.get(rec.path.as_str()) {
                    Some(&i) => {
                        order[i].last_after = rec.after.clone();
                        order[i]
                            .created_dirs
                            .extend(rec.created_dirs.iter().cloned());
                        if rec.uncertain.is_some() {
                            order[i].uncertain.clone_from(&rec.uncertain);
                        }
                    }
                    None => {
                        at.insert(&rec.path, order.len());
                        order.push(Touched {
                            path: rec.path.clone(),
                            restore: rec.before.clone(),
                            last_after: rec.after.clone(),
                            created_dirs: rec.created_dirs.clone(),
                            uncertain: rec.uncertain.clone(),
                        });
                    }
                }
            }
        }
        order
    }

    /// Every blob hash a record still refers to.
    fn referenced(&self) -> BTreeSet<&str> {
        self.nodes
            .iter()
            .flat_map(|n| &n.files)
            .filter_map(|f| match &f.before {
                Image::Kept { sha256, .. } => Some(sha256.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The node names, for messages.
    pub fn names(&self) -> Vec<String> {
        self.nodes.iter().map(|n| n.name.clone()).collect()
    }
}

/// A path touched at or after some node (see [`Index::touched_since`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    pub path: String,
    pub restore: Image,
    pub last_after: Option<String>,
    /// Folders created for the file by these nodes, outermost first.
    pub created_dirs: Vec<String>,
    /// Why a node among these could not tell the change was its own.
    pub uncertain: Option<String>,
}

/// A rewind's plan, written before its first step (see
/// [`CheckpointStore::rewind`]): the node rewound and every file step.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Journal {
    from: String,
    steps: Vec<Step>,
    /// The state folder the plan was made in: a plan found in another (a
    /// copied project's) names the original's files and is not carried out.
    #[serde(default)]
    home: PathBuf,
}

/// The seals' domains, one per kind of record.
const SEAL_NODE: &str = "indus-tool checkpoint node 1";
const SEAL_LINE: &str = "indus-tool checkpoint line 1";
const SEAL_PLAN: &str = "indus-tool rewind plan 1";
const SEAL_ALWAYS: &str = "indus-tool checkpoint always 1";

/// The most a node's file or the rewind plan may hold (64 MiB): they are
/// checked against their seal before they are parsed, so the cap bounds only
/// what the toolbox itself wrote.
const NODE_CAP: u64 = 64 * 1024 * 1024;

/// Say once that a record without this user's seal is passed over.
fn passed_over(path: &Path, what: &str) {
    user::ignore_foreign(&format!("{what} {}", path.display()));
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "camelCase")]
enum Step {
    #[serde(rename_all = "camelCase")]
    Delete {
        path: String,
        created_dirs: Vec<String>,
        already: bool,
    },
    #[serde(rename_all = "camelCase")]
    Restore {
        path: String,
        sha256: String,
        mode: Option<u32>,
        already: bool,
    },
    /// A folder a command made (or put where a file was) taken away: only
    /// when empty by then, else left and said.
    RemoveDir { path: String },
    /// A folder a command removed, made again with its mode.
    MakeDir { path: String, mode: Option<u32> },
    /// A symbolic link put back (replacing what is there, never followed).
    Link { path: String, target: String },
}

impl Step {
    fn path(&self) -> &str {
        match self {
            Step::Delete { path, .. }
            | Step::Restore { path, .. }
            | Step::RemoveDir { path }
            | Step::MakeDir { path, .. }
            | Step::Link { path, .. } => path,
        }
    }

    /// The order steps run in: files and links away, then folders away
    /// (deepest first), folders made (outermost first), files and links back.
    fn phase(&self) -> (u8, isize) {
        let depth = Path::new(self.path()).components().count() as isize;
        match self {
            Step::Delete { .. } => (0, 0),
            Step::RemoveDir { .. } => (1, -depth),
            Step::MakeDir { .. } => (2, depth),
            Step::Restore { .. } | Step::Link { .. } => (3, 0),
        }
    }
}

/// What the wrapper read of a file before the tool ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Capture {
    Absent,
    Bytes(Vec<u8>),
    OverCap(u64),
    Unreadable(String),
}

/// The node records go to: a `--turn` name, or one made up for the invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeName {
    pub name: String,
    /// Given with `--turn`: reusing it after a later node began is refused.
    pub named: bool,
}

impl NodeName {
    /// The node named by `--turn`.
    pub fn turn(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            named: true,
        }
    }

    /// This invocation's own node: `t-<base36 epoch-ms>-<pid>`, unique per process.
    pub fn invocation() -> Self {
        Self {
            name: format!(
                "t-{}-{}",
                crate::kernel::clock::base36(crate::kernel::clock::now_ms()),
                std::process::id()
            ),
            named: false,
        }
    }
}

/// Why a checkpoint operation did not happen.
#[derive(Debug)]
pub enum CheckpointError {
    /// No node of that name; the known ones, oldest first.
    UnknownNode {
        name: String,
        known: Vec<String>,
    },
    /// A `--turn` name reused after a later node began.
    StaleTurn {
        name: String,
        newest: String,
    },
    /// A rewind that would overwrite changes made outside the toolbox (or could
    /// not restore some files): `(path, why)`, nothing was touched.
    Refused {
        files: Vec<(String, String)>,
    },
    Io(io::Error),
}

impl From<io::Error> for CheckpointError {
    fn from(e: io::Error) -> Self {
        CheckpointError::Io(e)
    }
}

impl std::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckpointError::UnknownNode { name, known } if known.is_empty() => {
                write!(f, "no checkpoint named \"{name}\": this session has none")
            }
            CheckpointError::UnknownNode { name, known } => write!(
                f,
                "no checkpoint named \"{name}\"; known: {}",
                known.join(", ")
            ),
            CheckpointError::StaleTurn { name, newest } => write!(
                f,
                "checkpoint turn \"{name}\" is not the newest (\"{newest}\" began after it); name a new turn, so a rewind to \"{newest}\" stays exact"
            ),
            CheckpointError::Refused { files } => {
                write!(f, "rewind refused; nothing was changed:")?;
                for (path, why) in files {
                    write!(f, "\n  {path}: {why}")?;
                }
                write!(
                    f,
                    "\n(--force overwrites changed files and leaves files whose content was not kept as they are)"
                )
            }
            CheckpointError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// What a rewind did, per path (absolute).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RewindReport {
    pub restored: Vec<String>,
    pub deleted: Vec<String>,
    /// Left as they are: `(path, why)`.
    pub skipped: Vec<(String, String)>,
    /// The nodes forgotten (the rewound one and every later one).
    pub dropped: Vec<String>,
}

/// The file a write to `path` reaches, named by its real path: links followed
/// (a dangling one to where its target would be), the folders canonical. So one
/// file reached by two paths (a symlinked folder) is one record, and a rewind
/// writes the file, never over the link.
pub fn real_path(path: &str) -> String {
    fn real(path: &Path, depth: usize) -> PathBuf {
        if let Ok(p) = std::fs::canonicalize(path) {
            return p;
        }
        if depth < 40
            && let Ok(target) = std::fs::read_link(path)
        {
            let next = match path.parent() {
                Some(dir) if target.is_relative() => dir.join(&target),
                _ => target,
            };
            return real(&next, depth + 1);
        }
        // Not there yet: its nearest folder that is, canonical, and the rest.
        match (path.parent(), path.file_name()) {
            (Some(dir), Some(name)) if !dir.as_os_str().is_empty() => {
                real(dir, depth + 1).join(name)
            }
            _ => path.to_path_buf(),
        }
    }
    real(Path::new(path), 0).to_string_lossy().into_owned()
}

/// The folders above `path` that do not exist yet, outermost first: what a
/// write of `path` will create.
pub fn missing_dirs(path: &str) -> Vec<String> {
    let mut missing: Vec<String> = Path::new(path)
        .ancestors()
        .skip(1)
        .take_while(|d| !d.as_os_str().is_empty() && std::fs::symlink_metadata(d).is_err())
        .map(|d| d.to_string_lossy().into_owned())
        .collect();
    missing.reverse();
    missing
}

/// The current hash of a file: `None` when it does not exist.
fn current_hash(path: &Path) -> io::Result<Option<String>> {
    match std::fs::File::open(path) {
        Ok(f) => {
            if !f.metadata()?.is_file() {
                return Err(io::Error::other("not a regular file"));
            }
            sha256_of_reader(f).map(Some)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The state of a path as a record's `after` holds it: the hash of a file,
/// `dir`, `link:TARGET`; `None` when nothing is there.
fn current_sig(path: &Path) -> io::Result<Option<String>> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
        Ok(m) if m.is_dir() => Ok(Some(super::tree::SIG_DIR.to_string())),
        Ok(m) if m.file_type().is_symlink() => Ok(Some(format!(
            "{}{}",
            super::tree::SIG_LINK,
            std::fs::read_link(path)?.to_string_lossy()
        ))),
        Ok(_) => current_hash(path),
    }
}

/// The signature of `path` now, in the form of `recorded`: a file the scan
/// found over the cap was recorded by its size, mtime and inode (never read),
/// and is compared so again, never hashed whole (a 20 GB sparse file cost a
/// rewind minutes); anything else by [`current_sig`].
fn sig_like(path: &Path, recorded: Option<&str>) -> io::Result<Option<String>> {
    if recorded.is_some_and(|r| r.starts_with(super::tree::OVER_CAP_SUM))
        && let Ok(m) = std::fs::symlink_metadata(path)
        && m.is_file()
    {
        return Ok(Some(super::tree::over_cap_sig(&m)));
    }
    current_sig(path)
}

/// A rewind's delete step: the file removed unless it is gone already (a
/// replayed plan), then the folders made for it, innermost first, while empty.
fn delete_step(path: &str, created_dirs: &[String], already: bool) -> io::Result<()> {
    if !already {
        match in_writable_parent(Path::new(path), || std::fs::remove_file(path)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot delete {path}: {e}"),
                ));
            }
        }
    }
    for dir in created_dirs.iter().rev() {
        if !inside_git(dir) {
            let _ = std::fs::remove_dir(dir);
        }
    }
    Ok(())
}

/// Remove what a rewind killed in the middle of a step left beside the steps'
/// paths: a restore's temp file (`.NAME.indus-tmp.PID.N`) or a link's
/// (`.NAME.indus-link.PID`) whose process is gone. Each folder is listed once.
fn remove_stale_temps(steps: &[Step]) {
    let mut by_dir: HashMap<&Path, HashSet<&str>> = HashMap::new();
    for step in steps {
        let path = Path::new(step.path());
        if let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str()))
        {
            by_dir.entry(dir).or_default().insert(name);
        }
    }
    for (dir, names) in by_dir {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let file = e.file_name();
            let Some((name, pid)) = file.to_str().and_then(crate::sys::temp_owner) else {
                continue;
            };
            let gone = names.contains(name)
                && pid != std::process::id()
                && nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), None).is_err();
            if gone && e.file_type().is_ok_and(|t| !t.is_dir()) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// The name of the lock file (in `checkpoints/locks/`) that checkpointed
/// changes of the file at `real` share.
fn change_lock_name(real: &str) -> String {
    format!("{}.lock", &sha256_hex(real.as_bytes())[..24])
}

/// Whether a path lies inside a `.git` folder (a rewind never touches one).
/// `op` on an entry of a folder, and if the folder's mode forbids it (a
/// command made it read-only after adding the entry, as `go mod download` does
/// to its cache), again with the folder made writable for that time, its mode
/// put back after. Without this a rewind failed on its first step there.
fn in_writable_parent<T>(path: &Path, op: impl Fn() -> io::Result<T>) -> io::Result<T> {
    use std::os::unix::fs::PermissionsExt;
    let error = match op() {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => e,
        done => return done,
    };
    let Some(parent) = path.parent() else {
        return Err(error);
    };
    let Ok(meta) = std::fs::symlink_metadata(parent) else {
        return Err(error);
    };
    let mode = meta.permissions().mode() & 0o7777;
    if !meta.is_dir() || mode & 0o300 == 0o300 {
        return Err(error);
    }
    std::fs::set_permissions(parent, std::fs::Permissions::from_mode(mode | 0o700))?;
    let done = op();
    let _ = std::fs::set_permissions(parent, std::fs::Permissions::from_mode(mode));
    done
}

/// The longest path the system takes in one call (Linux's `PATH_MAX`, with its
/// final NUL): a rewind refuses a longer one before it begins rather than
/// failing on it halfway.
const PATH_MAX: usize = 4096;

/// Why a rewind will not restore `path`, a protected path `writes` does not
/// lift (the names alone when no guard is given), and the flag that would.
fn protected_refusal(writes: Option<&WriteGuard>, path: &str) -> Option<String> {
    let names_only;
    let writes = match writes {
        Some(w) => w,
        None => {
            names_only = WriteGuard::new(PathBuf::from("/"), Vec::new());
            &names_only
        }
    };
    let why = writes.protected(Path::new(path))?;
    Some(format!(
        "a protected path ({why}), not restored: pass --allow-protected {path} to restore it"
    ))
}

pub fn inside_git(path: &str) -> bool {
    Path::new(path)
        .components()
        .any(|c| c.as_os_str() == ".git")
}

/// Past this size a node's journal of hashes is folded into its file (about 400
/// lines).
const AFTER_LOG_FOLD: u64 = 64 * 1024;

/// One line of a node's journal (`<node file stem>.after`).
#[derive(Debug, Serialize, Deserialize)]
struct AfterLine {
    path: String,
    /// A record begun by this line (the file's pre-image), when the node's file
    /// did not need rewriting for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    before: Option<Image>,
    /// This user's seal of the rest of the line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seal: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    after: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    created: Vec<String>,
}

/// A node's files in `nodes/`: `<seq>-<key>.json` and its journal `<seq>-<key>.after`,
/// `seq` being the node's start in epoch milliseconds (a `--turn` node begun in
/// the same millisecond as the newest node is put one past it, so it sorts after).
#[derive(Debug, Clone)]
struct NodeFiles {
    seq: u64,
    /// The node's name as a file key ([`file_key`] is one-to-one).
    key: String,
    json: PathBuf,
    after: PathBuf,
}

/// One session's checkpoints.
#[derive(Debug, Clone)]
pub struct CheckpointStore {
    dir: StateDir,
    /// `checkpoints/<session key>`, relative to the state folder.
    rel: String,
    cap: u64,
    /// The files of the node this store last recorded into, so later calls of the
    /// same invocation (and the hash noted after each) find it without listing
    /// `nodes/`.
    slot: Arc<Mutex<Option<NodeFiles>>>,
    /// The paths that node holds as last seen, with the stamp of its files then.
    paths: Arc<Mutex<Option<PathCache>>>,
    /// The folder holding the state folder, canonical (records hold real
    /// paths), when the state folder is `.indus-process` (see `project`).
    project: Option<PathBuf>,
    /// The invocation's `--root`: a rewind an earlier call left unfinished is
    /// completed only when every file it names is inside it.
    root: Option<Arc<Root>>,
}

/// A node's file and journal as they were: lengths and the file's change time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp(Option<(u64, i64, i64)>, u64);

impl Stamp {
    fn of(files: &NodeFiles) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        let json = std::fs::metadata(&files.json)
            .ok()
            .map(|m| (m.len(), m.mtime(), m.mtime_nsec()));
        let log = std::fs::metadata(&files.after).map_or(0, |m| m.len());
        Stamp(json, log)
    }
}

#[derive(Debug)]
struct PathCache {
    key: String,
    seq: u64,
    stamp: Stamp,
    /// Stored (project-relative) paths.
    paths: HashSet<String>,
}

impl PathCache {
    /// Whether this is `files`' node as it stood at `stamp`.
    fn holds(&self, files: &NodeFiles, stamp: Stamp) -> bool {
        self.key == files.key && self.seq == files.seq && self.stamp == stamp
    }
}

/// The steps that put the files of `work` back (each with whether it is
/// already at its pre-image); what cannot be put back (under a link now, a
/// folder that holds what the checkpoint did not record) goes to `report`.
fn plan_steps(
    work: Vec<(Touched, bool)>,
    under_link: &HashSet<String>,
    leave_dirs: &mut HashMap<String, String>,
    report: &mut RewindReport,
) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for (t, already) in work {
        let under_link = under_link.contains(&t.path);
        let now = if under_link {
            None
        } else {
            std::fs::symlink_metadata(&t.path).ok()
        };
        let now_dir = now.as_ref().is_some_and(|m| m.is_dir());
        let now_link = now.as_ref().is_some_and(|m| m.file_type().is_symlink());
        let already = already && !under_link;
        if under_link && matches!(t.restore, Image::Absent) {
            report.skipped.push((
                t.path,
                "reached through a link now; what is there is not the checkpoint's".into(),
            ));
            continue;
        }
        match t.restore {
            Image::Absent if now_dir => match leave_dirs.remove(&t.path) {
                Some(why) => report.skipped.push((t.path, why)),
                None => steps.push(Step::RemoveDir { path: t.path }),
            },
            Image::Absent => steps.push(Step::Delete {
                path: t.path,
                created_dirs: t.created_dirs,
                already,
            }),
            Image::Kept { sha256, mode, .. } => {
                if now_dir && !already {
                    steps.push(Step::RemoveDir {
                        path: t.path.clone(),
                    });
                }
                // A link there is taken away, never written through.
                if now_link {
                    steps.push(Step::Delete {
                        path: t.path.clone(),
                        created_dirs: Vec::new(),
                        already: false,
                    });
                }
                steps.push(Step::Restore {
                    path: t.path,
                    sha256,
                    mode,
                    already,
                });
            }
            Image::Dir { mode } => {
                if !now_dir && now.is_some() {
                    steps.push(Step::Delete {
                        path: t.path.clone(),
                        created_dirs: Vec::new(),
                        already: false,
                    });
                }
                steps.push(Step::MakeDir { path: t.path, mode });
            }
            Image::Link { target } => {
                if now_dir {
                    steps.push(Step::RemoveDir {
                        path: t.path.clone(),
                    });
                }
                if !already {
                    steps.push(Step::Link {
                        path: t.path,
                        target,
                    });
                }
            }
            Image::OverCap { .. } | Image::Unreadable { .. } => {}
        }
    }
    steps
}

/// How the file of `t` stands now against the toolbox's last write to it (why
/// it changed since, if it did), and whether it is already back at its
/// pre-image, whoever put it there.
fn changed_and_back(t: &Touched) -> (Option<String>, bool) {
    let now = sig_like(Path::new(&t.path), t.last_after.as_deref());
    let changed = match (&now, &t.last_after) {
        (Err(e), _) => Some(format!("cannot be read ({e})")),
        (Ok(_), None) => Some("the toolbox's last write to it was not recorded".into()),
        (Ok(None), Some(want)) if want == AFTER_ABSENT => None,
        (Ok(Some(_)), Some(want)) if want == AFTER_ABSENT => {
            Some("created since the toolbox deleted it".into())
        }
        (Ok(None), Some(_)) => Some("deleted since the toolbox last wrote it".into()),
        (Ok(Some(h)), Some(want)) if h != want => {
            Some("changed since the toolbox last wrote it".into())
        }
        _ => None,
    };
    // A file already back at its pre-image needs nothing, whoever put it there.
    let already = match (&now, &t.restore) {
        (Ok(None), Image::Absent) => true,
        (Ok(Some(h)), Image::Kept { sha256, .. }) => h == sha256,
        (Ok(Some(h)), Image::Dir { .. }) => h == super::tree::SIG_DIR,
        (Ok(Some(h)), Image::Link { target }) => {
            h.strip_prefix(super::tree::SIG_LINK) == Some(target.as_str())
        }
        _ => false,
    };
    (changed, already)
}

impl CheckpointStore {
    pub fn new(dir: StateDir, session: &str) -> Self {
        let root = dir.root();
        let project = (root.file_name() == Some(std::ffi::OsStr::new(super::STATE_DIR_NAME)))
            .then(|| root.parent())
            .flatten()
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()));
        Self {
            project,
            dir,
            rel: format!("{CHECKPOINTS_DIR}/{}", file_key(session)),
            cap: DEFAULT_CAP,
            slot: Arc::default(),
            paths: Arc::default(),
            root: None,
        }
    }

    /// The same store under the invocation's root (see the field).
    pub fn with_root(mut self, root: Option<Arc<Root>>) -> Self {
        self.root = root;
        self
    }

    /// The project the state folder serves (the folder holding `.indus-process`),
    /// when the state folder is one: paths inside it are stored relative to it,
    /// so a copy of the project with its state (`cp -a`) rewinds itself and never
    /// the original.
    fn project(&self) -> Option<&Path> {
        self.project.as_deref()
    }

    /// A path as a record stores it: relative to the project when inside it.
    fn stored(&self, path: &str) -> String {
        match self
            .project()
            .and_then(|p| Path::new(path).strip_prefix(p).ok())
        {
            Some(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
            _ => path.to_string(),
        }
    }

    /// A stored path made absolute against the project as it is now (records of
    /// older versions hold absolute paths, taken as they are).
    fn resolved(&self, stored: &str) -> String {
        match self.project() {
            Some(p) if Path::new(stored).is_relative() => {
                p.join(stored).to_string_lossy().into_owned()
            }
            _ => stored.to_string(),
        }
    }

    /// Append one line to a node's journal. A journal whose last line was cut
    /// short (a crash mid-append) is folded into the node first, so the new line
    /// never joins the torn one.
    fn append_line(&self, lock: &StateLock, files: &NodeFiles, line: &[u8]) -> io::Result<()> {
        use std::io::Write;
        if super::files::last_line_torn(&files.after) {
            let node = self.read_node(files)?;
            self.write_node(lock, files, &node)?;
            self.forget_paths();
        }
        super::files::open_to_write(&files.after, true)
            .and_then(|mut f| f.write_all(line))
            .map_err(|e| state_error(&files.after, e))
    }

    fn note_paths(&self, files: &NodeFiles, paths: HashSet<String>) {
        *self.paths.lock().unwrap_or_else(|p| p.into_inner()) = Some(PathCache {
            key: files.key.clone(),
            seq: files.seq,
            stamp: Stamp::of(files),
            paths,
        });
    }

    /// One path appended by this store to a node whose files stood at `before`:
    /// the cache stays valid (with the new stamp) only if it was.
    fn add_path(&self, files: &NodeFiles, before: Stamp, stored: String) {
        let mut cache = self.paths.lock().unwrap_or_else(|p| p.into_inner());
        match cache.as_mut() {
            Some(c) if c.holds(files, before) => {
                c.paths.insert(stored);
                c.stamp = Stamp::of(files);
            }
            _ => *cache = None,
        }
    }

    fn forget_paths(&self) {
        *self.paths.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    fn remembered(&self, key: &str) -> Option<NodeFiles> {
        let slot = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        slot.as_ref().filter(|f| f.key == key).cloned()
    }

    fn remember(&self, files: &NodeFiles) {
        *self.slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(files.clone());
    }

    /// The files of a node that does not exist yet.
    fn new_node_files(&self, seq: u64, key: String) -> NodeFiles {
        let stem = format!("{}-{key}", seq_name(seq));
        NodeFiles {
            seq,
            key,
            json: self.nodes_dir().join(format!("{stem}.json")),
            after: self.nodes_dir().join(format!("{stem}.after")),
        }
    }

    /// Take, without waiting, the lock that checkpointed changes of the file at
    /// `real` share (any session): `Ok(None)` while another holder has it. A lock
    /// file of its own, not the file: a write renames a new file over the path,
    /// so a lock on the file itself no longer covers what a writer does after
    /// its rename (reading back and noting the hash of what it wrote).
    pub fn try_lock_file_changes(&self, real: &str) -> io::Result<Option<std::fs::File>> {
        let dir = self.dir.make_dirs(format!("{CHECKPOINTS_DIR}/locks"))?;
        let path = dir.join(change_lock_name(real));
        super::files::try_lock_at(&path).map_err(|e| state_error(&path, e))
    }

    /// Whether a checkpointed change of the file at `real` is in flight (its
    /// lock is held). Creates nothing: a file no checkpointed call ever
    /// changed has no lock file, and nothing in flight.
    pub fn file_change_in_flight(&self, real: &str) -> bool {
        let Ok(dir) = self.dir.checked(format!("{CHECKPOINTS_DIR}/locks/x")) else {
            return false;
        };
        let path = dir.with_file_name(change_lock_name(real));
        if std::fs::symlink_metadata(&path).is_err() {
            return false;
        }
        matches!(super::files::try_lock_at(&path), Ok(None))
    }

    /// The same store with another size cap (tests, library hosts).
    pub fn with_cap(mut self, cap: u64) -> Self {
        self.cap = cap;
        self
    }

    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// The session's folder.
    pub fn folder(&self) -> PathBuf {
        self.dir.path(&self.rel)
    }

    /// The session's folders checked (see [`StateDir::checked`]): no link on
    /// the way to its nodes or blobs. Every entry point starts here.
    fn guard(&self) -> io::Result<()> {
        self.dir.checked(format!("{}/nodes/x", self.rel))?;
        self.dir.checked(format!("{}/blobs/x", self.rel))?;
        Ok(())
    }

    /// Say a line carrying this user's seal.
    fn seal_line(line: &mut AfterLine) -> io::Result<Vec<u8>> {
        line.seal = None;
        line.seal = user::seal_json(SEAL_LINE, &*line);
        let mut bytes = serde_json::to_vec(&*line).map_err(io::Error::other)?;
        bytes.push(b'\n');
        Ok(bytes)
    }

    /// The marker of a session that asked to be checkpointed by default.
    fn always_marker(&self) -> PathBuf {
        self.folder().join("always")
    }

    /// Whether the session asked to be checkpointed by default (`checkpoint on`).
    pub fn always_on(&self) -> bool {
        // Every invocation asks: one `stat` when there is no marker, as before.
        if std::fs::symlink_metadata(self.always_marker()).is_err() || self.guard().is_err() {
            return false;
        }
        match super::files::read_file(&self.always_marker(), 4096) {
            Ok(bytes) => {
                let seal = String::from_utf8_lossy(&bytes).trim().to_string();
                let ok = user::verify(SEAL_ALWAYS, self.rel.as_bytes(), &seal);
                if !ok {
                    passed_over(&self.always_marker(), "the checkpoint marker");
                }
                ok
            }
            Err(_) => false,
        }
    }

    /// Ask (or stop asking) for every write and edit of the session to be
    /// checkpointed without `--checkpoint`.
    pub fn set_always(&self, on: bool) -> io::Result<()> {
        let marker = self.always_marker();
        if on {
            self.dir.make_dirs(&self.rel)?;
            let seal = user::seal(SEAL_ALWAYS, self.rel.as_bytes()).ok_or_else(|| {
                io::Error::other(
                    "no folder for the user's state (set HOME or XDG_STATE_HOME): the marker could not be sealed",
                )
            })?;
            atomic_replace(&marker, format!("{seal}\n").as_bytes(), true)
                .map_err(|e| state_error(&marker, e))
        } else {
            remove_if_there(&marker)
        }
    }

    fn nodes_dir(&self) -> PathBuf {
        self.folder().join("nodes")
    }

    /// Where a pre-image of this hash is kept.
    pub fn blob_path(&self, sha256: &str) -> PathBuf {
        self.folder().join("blobs").join(sha256)
    }

    /// The node files, oldest first (inside a lock). Names that are not a node's
    /// (a temp file of an interrupted write) are passed over.
    fn node_files(&self, _lock: &StateLock) -> io::Result<Vec<NodeFiles>> {
        let dir = self.nodes_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(state_error(&dir, e)),
        };
        let mut out = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| state_error(&dir, e))?;
            let name = entry.file_name();
            let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
                continue;
            };
            let Some((seq, key)) = stem.split_once('-') else {
                continue;
            };
            let Ok(seq) = seq.parse::<u64>() else {
                continue;
            };
            out.push(NodeFiles {
                seq,
                key: key.to_string(),
                json: dir.join(format!("{stem}.json")),
                after: dir.join(format!("{stem}.after")),
            });
        }
        out.sort_by(|a, b| (a.seq, &a.key).cmp(&(b.seq, &b.key)));
        Ok(out)
    }

    /// A node with the hashes of its journal folded in.
    fn read_node(&self, files: &NodeFiles) -> io::Result<Node> {
        let node = self.read_node_sealed(files)?;
        node.ok_or_else(|| {
            io::Error::other(format!(
                "the checkpoint node {} was not written by this user's indus-tool (it carries no seal of theirs); delete it",
                files.json.display()
            ))
        })
    }

    /// A node with the hashes of its journal folded in, or `None` when its file
    /// does not carry this user's seal (said on stderr). Journal lines without
    /// the seal are passed over the same way.
    fn read_node_sealed(&self, files: &NodeFiles) -> io::Result<Option<Node>> {
        let mut node: Node = match super::read_sealed(&files.json, SEAL_NODE, NODE_CAP)
            .map_err(|e| state_error(&files.json, e))?
        {
            super::Sealed::Ours(node) => node,
            super::Sealed::Absent => {
                return Err(state_error(
                    &files.json,
                    io::Error::new(io::ErrorKind::NotFound, "gone"),
                ));
            }
            super::Sealed::Foreign => {
                passed_over(&files.json, "the checkpoint node");
                return Ok(None);
            }
        };
        let log = match super::files::read_file(&files.after, READ_CAP) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(state_error(&files.after, e)),
        };
        // A last line without its newline is an append cut short by a crash: its
        // write counts as not noted (a rewind then asks for --force), the safe side.
        let complete = match log.iter().rposition(|b| *b == b'\n') {
            Some(end) => &log[..end],
            None => &[][..],
        };
        for line in complete.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let mut noted: AfterLine =
                serde_json::from_slice(line).map_err(|e| corrupt(&files.after, e))?;
            let seal = noted.seal.take();
            if !user::verify_json(SEAL_LINE, &noted, seal.as_deref()) {
                passed_over(&files.after, "lines of the checkpoint journal");
                continue;
            }
            if let Some(before) = noted.before
                && !node.files.iter().any(|f| f.path == noted.path)
            {
                node.files.push(FileRecord {
                    path: noted.path.clone(),
                    before,
                    after: None,
                    created_dirs: Vec::new(),
                    uncertain: None,
                });
            }
            if let Some(rec) = node.files.iter_mut().find(|f| f.path == noted.path) {
                if noted.after.is_some() {
                    rec.after = noted.after;
                }
                rec.created_dirs.extend(noted.created);
            }
        }
        for rec in &mut node.files {
            rec.path = self.resolved(&rec.path);
            for dir in &mut rec.created_dirs {
                *dir = self.resolved(dir);
            }
        }
        Ok(Some(node))
    }

    /// Replace a node's file (hashes included) and empty its journal, whose lines
    /// it now holds (a crash between the two only replays lines already folded
    /// in, to the same result).
    fn write_node(&self, lock: &StateLock, files: &NodeFiles, node: &Node) -> io::Result<()> {
        let rel = format!(
            "{}/nodes/{}-{}.json",
            self.rel,
            seq_name(files.seq),
            files.key
        );
        let mut stored = node.clone();
        for rec in &mut stored.files {
            rec.path = self.stored(&rec.path);
            for dir in &mut rec.created_dirs {
                *dir = self.stored(dir);
            }
        }
        self.dir
            .write_sealed(lock, &rel, SEAL_NODE, &stored, false)?;
        remove_if_there(&files.after)
    }

    fn remove_node(&self, files: &NodeFiles) -> io::Result<()> {
        remove_if_there(&files.json)?;
        remove_if_there(&files.after)
    }

    /// Every node, oldest first (inside a lock).
    /// Nodes without this user's seal are left out (said on stderr), so the
    /// index and its files stay one to one.
    fn read_index(&self, lock: &StateLock) -> io::Result<(Index, Vec<NodeFiles>)> {
        let mut nodes = Vec::new();
        let mut kept = Vec::new();
        for f in self.node_files(lock)? {
            if let Some(node) = self.read_node_sealed(&f)? {
                nodes.push(node);
                kept.push(f);
            }
        }
        Ok((Index { nodes }, kept))
    }

    /// Every node, oldest first (empty when nothing was recorded; creates nothing).
    pub fn load(&self) -> io::Result<Index> {
        self.guard()?;
        // Nothing recorded and no run open: nothing to read, nothing created.
        if !self.nodes_dir().is_dir() && !self.any_run_open() {
            return Ok(Index::default());
        }
        let lock = self.dir.lock()?;
        self.settle(&lock).map_err(|e| match e {
            CheckpointError::Io(e) => e,
            other => io::Error::other(other.to_string()),
        })?;
        Ok(self.read_index(&lock)?.0)
    }

    /// A kept pre-image's bytes, checked against its name.
    pub fn blob(&self, sha256: &str) -> io::Result<Vec<u8>> {
        let path = self.blob_path(sha256);
        let bytes = super::files::read_file(&path, READ_CAP.max(self.cap)).map_err(|e| {
            io::Error::new(e.kind(), format!("checkpoint blob {}: {e}", path.display()))
        })?;
        if sha256_hex(&bytes) != sha256 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "checkpoint blob {} is corrupt (its content does not hash to its name); fix or delete it",
                    path.display()
                ),
            ));
        }
        Ok(bytes)
    }

    /// Keep `bytes` as a blob unless a blob of that hash exists (inside a lock).
    fn keep_blob(&self, _lock: &StateLock, sha256: &str, bytes: &[u8]) -> io::Result<()> {
        let path = self.blob_path(sha256);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            return Ok(());
        }
        self.dir.make_dirs(format!("{}/blobs", self.rel))?;
        atomic_replace(&path, bytes, false).map_err(|e| state_error(&path, e))
    }

    /// The files of `node`, and the node itself when it is new (not written
    /// yet): a `--turn` node found by listing `nodes/` (refused when a later node
    /// began since), an invocation's node remembered after its first call.
    fn open_node(
        &self,
        lock: &StateLock,
        node: &NodeName,
    ) -> Result<(NodeFiles, Option<Node>), CheckpointError> {
        let key = file_key(&node.name);
        let fresh = || Node {
            name: node.name.clone(),
            created_ms: crate::kernel::clock::now_ms(),
            named: node.named,
            files: Vec::new(),
            tree: None,
        };
        let (files, current) = if node.named {
            // A turn may have been begun by another invocation, or be stale: the
            // folder is listed to tell.
            let all = self.node_files(lock)?;
            match all.iter().position(|f| f.key == key) {
                Some(i) if i + 1 != all.len() => {
                    let newest = self.read_node(&all[all.len() - 1])?;
                    return Err(CheckpointError::StaleTurn {
                        name: node.name.clone(),
                        newest: newest.name,
                    });
                }
                Some(i) => (all[i].clone(), None),
                None => {
                    let node = fresh();
                    let seq = all
                        .last()
                        .map_or(node.created_ms, |f| node.created_ms.max(f.seq + 1));
                    (self.new_node_files(seq, key), Some(node))
                }
            }
        } else {
            // An invocation's own node (its name holds the time and the pid): new
            // on its first call, then remembered; one a `drop` took meanwhile is
            // begun again.
            // A new node starts after every node there (two begun in one
            // millisecond still sort in the order their first writes came, which
            // the caller's file lock orders).
            let begin = |lock: &StateLock| -> io::Result<(NodeFiles, Option<Node>)> {
                let node = fresh();
                let last = self.node_files(lock)?.last().map(|f| f.seq);
                let seq = last.map_or(node.created_ms, |l| node.created_ms.max(l + 1));
                Ok((self.new_node_files(seq, key.clone()), Some(node)))
            };
            match self.remembered(&key) {
                Some(f) if f.json.is_file() => (f, None),
                _ => begin(lock)?,
            }
        };
        self.remember(&files);
        Ok((files, current))
    }

    /// What is kept of a file's content before a change: its bytes (and mode)
    /// up to the cap, or why not.
    fn image_of(
        &self,
        lock: &StateLock,
        path: &str,
        capture: Capture,
    ) -> Result<Image, CheckpointError> {
        Ok(match capture {
            Capture::Absent => Image::Absent,
            Capture::OverCap(size) => Image::OverCap {
                size,
                cap: self.cap,
            },
            Capture::Bytes(bytes) if bytes.len() as u64 > self.cap => Image::OverCap {
                size: bytes.len() as u64,
                cap: self.cap,
            },
            Capture::Bytes(bytes) => {
                let sha256 = sha256_hex(&bytes);
                self.keep_blob(lock, &sha256, &bytes)?;
                let mode = {
                    use std::os::unix::fs::PermissionsExt;
                    std::fs::metadata(path)
                        .ok()
                        .map(|m| m.permissions().mode() & 0o7777)
                };
                Image::Kept {
                    sha256,
                    size: bytes.len() as u64,
                    mode,
                }
            }
            Capture::Unreadable(reason) => Image::Unreadable { reason },
        })
    }

    /// Record `path`'s pre-image under `node` unless the node already holds one
    /// (first seen wins), creating the node when it is new. Answers the image when
    /// this call recorded it, `None` when the node already had the path.
    ///
    /// Only the node's own file is read and written (and the folder listed), so
    /// the cost does not grow with the number of nodes kept.
    pub fn record_before(
        &self,
        node: &NodeName,
        path: &str,
        capture: Capture,
    ) -> Result<Option<Image>, CheckpointError> {
        self.guard()?;
        let lock = self.dir.lock()?;
        // A rewind cut short is finished before anything new is recorded (and a
        // background job's run closed).
        self.settle(&lock)?;
        let (files, current) = self.open_node(&lock, node)?;
        let stored = self.stored(path);
        // The paths the node holds: as this store last saw them while its files
        // are unchanged since (a batch's calls then read nothing), else read.
        let stamp = Stamp::of(&files);
        let cached = {
            let cache = self.paths.lock().unwrap_or_else(|p| p.into_inner());
            cache
                .as_ref()
                .filter(|c| c.holds(&files, stamp))
                .map(|c| c.paths.contains(&stored))
        };
        let has = match (&current, cached) {
            (Some(node), _) => node.files.iter().any(|f| f.path == path),
            (None, Some(has)) => has,
            (None, None) => {
                let node = self.read_node(&files)?;
                let paths: HashSet<String> =
                    node.files.iter().map(|f| self.stored(&f.path)).collect();
                let has = paths.contains(&stored);
                self.note_paths(&files, paths);
                has
            }
        };
        if has {
            // Many changes to files a turn already holds only append to its
            // journal; past a bound it is folded in, so reading stays cheap.
            if std::fs::metadata(&files.after).is_ok_and(|m| m.len() > AFTER_LOG_FOLD) {
                let node = self.read_node(&files)?;
                self.write_node(&lock, &files, &node)?;
                self.forget_paths();
            }
            return Ok(None);
        }
        let image = self.image_of(&lock, path, capture)?;
        // A node whose file exists takes the record as one appended line (the
        // node is rewritten only past the bound): a turn of many files costs a
        // line per file, not a rewrite of every record so far.
        let log_len = std::fs::metadata(&files.after).map_or(0, |m| m.len());
        if current.is_none() && files.json.is_file() && log_len <= AFTER_LOG_FOLD {
            let line = Self::seal_line(&mut AfterLine {
                path: self.stored(path),
                before: Some(image.clone()),
                after: None,
                created: Vec::new(),
                seal: None,
            })?;
            self.append_line(&lock, &files, &line)?;
            self.add_path(&files, stamp, stored);
            return Ok(Some(image));
        }
        let mut current = match current {
            Some(node) => node,
            None => self.read_node(&files)?,
        };
        current.files.push(FileRecord {
            path: path.to_string(),
            before: image.clone(),
            after: None,
            created_dirs: Vec::new(),
            uncertain: None,
        });
        self.write_node(&lock, &files, &current)?;
        let paths = current.files.iter().map(|f| self.stored(&f.path)).collect();
        self.note_paths(&files, paths);
        Ok(Some(image))
    }

    /// Note what the toolbox wrote to `path` in `node` (its hash): one line
    /// appended to the node's journal under the lock, folded into the node's file
    /// when that is next rewritten. Every checkpointed call notes one, so it is
    /// kept to an append (no read or rewrite of the node).
    pub fn record_after(&self, node: &NodeName, path: &str, sha256: &str) -> io::Result<()> {
        self.record_after_creating(node, path, sha256, &[])
    }

    /// [`Self::record_after`], with the folders the write created for the file
    /// (outermost first), which a rewind deleting the file removes when empty.
    pub fn record_after_creating(
        &self,
        node: &NodeName,
        path: &str,
        sha256: &str,
        created: &[String],
    ) -> io::Result<()> {
        let line = Self::seal_line(&mut AfterLine {
            path: self.stored(path),
            before: None,
            after: Some(sha256.to_string()),
            created: created.iter().map(|d| self.stored(d)).collect(),
            seal: None,
        })?;
        self.guard()?;
        let lock = self.dir.lock()?;
        let key = file_key(&node.name);
        let files = match self.remembered(&key) {
            Some(f) if f.json.is_file() => Some(f),
            _ => self.node_files(&lock)?.into_iter().find(|f| f.key == key),
        };
        // Dropped meanwhile (a concurrent `checkpoint drop`): nothing to note.
        let Some(files) = files else {
            return Ok(());
        };
        let before = Stamp::of(&files);
        self.append_line(&lock, &files, &line)?;
        // A hash adds no path: the cached paths stay true for the new stamp.
        let mut cache = self.paths.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = cache.as_mut().filter(|c| c.holds(&files, before)) {
            c.stamp = Stamp::of(&files);
        }
        Ok(())
    }

    /// Take back a record this call made when the tool then changed nothing (it
    /// failed), so the listing shows only files that were changed.
    pub fn forget_record(&self, node: &NodeName, path: &str) -> io::Result<()> {
        self.guard()?;
        let lock = self.dir.lock()?;
        let key = file_key(&node.name);
        let Some(files) = self.node_files(&lock)?.into_iter().find(|f| f.key == key) else {
            return Ok(());
        };
        let mut current = self.read_node(&files)?;
        current.files.retain(|f| f.path != path);
        if current.files.is_empty() {
            self.remove_node(&files)?;
        } else {
            self.write_node(&lock, &files, &current)?;
        }
        let (index, _) = self.read_index(&lock)?;
        self.collect_garbage(&lock, &index)
    }

    /// The position of `name` in `index`, or the error naming the known nodes.
    pub fn find(index: &Index, name: &str) -> Result<usize, CheckpointError> {
        index
            .position(name)
            .ok_or_else(|| CheckpointError::UnknownNode {
                name: name.to_string(),
                known: index.names(),
            })
    }

    /// Put every file touched at or after `name` back as it was before that node,
    /// then forget that node and every later one.
    ///
    /// Refused as a whole (nothing touched) when a file was changed outside the
    /// toolbox since the toolbox last wrote it, or its pre-image was not kept,
    /// unless `force`: then changed files are overwritten and files without a kept
    /// pre-image are left as they are (and reported). A protected path (`.git`,
    /// the toolbox's folders: see [`WriteGuard`]) that `writes` does not lift is
    /// never touched, and never silently: the rewind is refused naming it, or,
    /// with `force`, leaves it and says so. Each file is replaced atomically
    /// (temp file and rename in its folder, mode kept), with the exact bytes
    /// recorded.
    pub fn rewind(
        &self,
        name: &str,
        force: bool,
        root: Option<&Root>,
        writes: Option<&WriteGuard>,
    ) -> Result<RewindReport, CheckpointError> {
        self.guard()?;
        let lock = self.dir.lock()?;
        self.settle(&lock)?;
        let (index, _) = self.read_index(&lock)?;
        let from = Self::find(&index, name)?;
        let touched = index.touched_since(from);
        let mut report = RewindReport::default();
        let mut refusals = Vec::new();
        let mut work = Vec::new();
        for t in touched {
            if let Some(why) = protected_refusal(writes, &t.path).or_else(|| {
                (t.path.len() >= PATH_MAX).then(|| {
                    format!(
                        "its path is {} bytes long, over the system's limit of {PATH_MAX}: it cannot be touched by name",
                        t.path.len()
                    )
                })
            }) {
                if force {
                    report.skipped.push((t.path, why));
                } else {
                    refusals.push((t.path, why));
                }
                continue;
            }
            if let Some(root) = root
                && let Err(message) = root.admit(&t.path, Path::new(&t.path))
            {
                report.skipped.push((t.path, message));
                continue;
            }
            if let Some(why) = t.restore.not_kept() {
                // Forcing cannot bring back what was not kept.
                if force {
                    report.skipped.push((t.path, why));
                } else {
                    refusals.push((t.path, why));
                }
                continue;
            }
            let (changed, already) = changed_and_back(&t);
            if let Some(why) = &t.uncertain
                && !already
                && !force
            {
                refusals.push((t.path, format!("uncertain: {why}")));
                continue;
            }
            if let Some(why) = changed
                && !already
                && !force
            {
                refusals.push((t.path, why));
                continue;
            }
            work.push((t, already));
        }
        let (under_link, mut leave_dirs) = self.obstacles(&work, &mut refusals);
        if !refusals.is_empty() {
            return Err(CheckpointError::Refused { files: refusals });
        }
        let mut steps = plan_steps(work, &under_link, &mut leave_dirs, &mut report);
        steps.sort_by_key(Step::phase);
        // The journal first: a rewind cut short (SIGKILL, power loss) is
        // completed by the next call on this session, never left half done.
        let journal = Journal {
            from: index.nodes[from].name.clone(),
            steps,
            home: self.dir.root().to_path_buf(),
        };
        self.dir
            .write_sealed(&lock, &self.journal_rel(), SEAL_PLAN, &journal, true)
            .map_err(|e| state_error(&self.dir.path(&self.journal_rel()), e))?;
        let done = self.complete_or_set_aside(&lock, &journal, root)?;
        report.restored = done.restored;
        report.deleted = done.deleted;
        report.dropped = done.dropped;
        Ok(report)
    }

    /// What stands in the way of the rewind's steps, checked before the first
    /// one runs (refusals pushed to `refusals`): a path that became a folder
    /// (or lost its folder to a file) cannot take a file back, forced or not,
    /// and nothing is touched then; a folder this rewind itself takes away or
    /// makes is no obstacle. Returns the paths reached through a link the
    /// rewind puts a folder back over, and the folders to leave (with why).
    fn obstacles(
        &self,
        work: &[(Touched, bool)],
        refusals: &mut Vec<(String, String)>,
    ) -> (HashSet<String>, HashMap<String, String>) {
        let planned: HashMap<&str, &Image> = work
            .iter()
            .map(|(t, _)| (t.path.as_str(), &t.restore))
            .collect();
        let goes = |p: &Path| {
            planned
                .get(p.to_string_lossy().as_ref())
                .is_some_and(|i| !matches!(i, Image::Dir { .. }))
        };
        let mut leave_dirs: HashMap<String, String> = HashMap::new();
        // A folder above a path that is a link now would lead a step out of the
        // project: refused, unless the rewind itself puts a folder back there
        // (then what lies under the link is not the node's, and is left).
        // What each folder above the paths is now, looked up once (a rewind of
        // 2,000 files in 20 folders asks 20 times, not 2,000).
        let kinds: std::cell::RefCell<HashMap<PathBuf, Option<std::fs::FileType>>> =
            Default::default();
        let kind_of = |d: &Path| -> Option<std::fs::FileType> {
            if let Some(k) = kinds.borrow().get(d) {
                return *k;
            }
            let k = std::fs::symlink_metadata(d).ok().map(|m| m.file_type());
            kinds.borrow_mut().insert(d.to_path_buf(), k);
            k
        };
        let link_above = |path: &Path| -> Option<PathBuf> {
            let project = self.project()?;
            path.ancestors()
                .skip(1)
                .take_while(|d| d.starts_with(project) && *d != project)
                .find(|d| kind_of(d).is_some_and(|k| k.is_symlink()))
                .map(Path::to_path_buf)
        };
        let mut under_link: HashSet<String> = HashSet::new();
        for (t, already) in work {
            if let Some(link) = link_above(Path::new(&t.path)) {
                let replaced = planned
                    .get(link.to_string_lossy().as_ref())
                    .is_some_and(|i| matches!(i, Image::Dir { .. }));
                if !replaced {
                    refusals.push((
                        t.path.clone(),
                        format!("{} is a link now, not a folder", link.display()),
                    ));
                    continue;
                }
                under_link.insert(t.path.clone());
                continue;
            }
            if *already {
                continue;
            }
            let path = Path::new(&t.path);
            let is_dir = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
            // A folder to take away must hold only what this rewind removes.
            let stray = || -> Option<String> {
                let entries = std::fs::read_dir(path).ok()?;
                entries
                    .flatten()
                    .map(|e| e.path())
                    .find(|c| !goes(c))
                    .map(|c| c.to_string_lossy().into_owned())
            };
            // A folder the node's own change did not make (made by hand since)
            // cannot take a file back, forced or not.
            let made_dir = t.last_after.as_deref() == Some(super::tree::SIG_DIR);
            let blocked = match &t.restore {
                Image::Dir { .. } => None,
                _ if is_dir && !made_dir => Some("is a folder now".to_string()),
                Image::Absent if is_dir => {
                    if let Some(stray) = stray() {
                        leave_dirs.insert(
                            t.path.clone(),
                            format!(
                                "folder left: it holds {stray}, which the checkpoint did not record"
                            ),
                        );
                    }
                    None
                }
                _ if is_dir => stray().map(|stray| {
                    format!("is a folder now, holding {stray}, which the checkpoint did not record")
                }),
                _ => path
                    .ancestors()
                    .skip(1)
                    .find(|d| {
                        kind_of(d).is_some_and(|k| !k.is_dir() && !k.is_symlink())
                            && !planned
                                .get(d.to_string_lossy().as_ref())
                                .is_some_and(|i| matches!(i, Image::Dir { .. } | Image::Absent))
                    })
                    .map(|d| format!("{} is a file now, not a folder", d.display())),
            };
            if let Some(why) = blocked {
                refusals.push((t.path.clone(), why));
            }
            if let Image::Kept { sha256, .. } = &t.restore
                && std::fs::symlink_metadata(self.blob_path(sha256)).is_err()
            {
                refusals.push((
                    t.path.clone(),
                    format!("its content before is missing from the store (blobs/{sha256})"),
                ));
            }
        }
        (under_link, leave_dirs)
    }

    /// What must be done before a checkpoint is read or written: a rewind an
    /// earlier call left unfinished completed, a background job's run closed.
    fn settle(&self, lock: &StateLock) -> Result<(), CheckpointError> {
        self.finish_interrupted(lock)?;
        self.close_pending(lock)
    }

    fn journal_rel(&self) -> String {
        format!("{}/rewind.json", self.rel)
    }

    /// Finish a rewind an earlier call began and could not end (its journal is
    /// there): every step again (each is idempotent), then the nodes dropped.
    fn finish_interrupted(&self, lock: &StateLock) -> Result<(), CheckpointError> {
        let path = self.dir.checked(self.journal_rel())?;
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(());
        }
        let journal: Journal = match super::read_sealed(&path, SEAL_PLAN, NODE_CAP) {
            Ok(super::Sealed::Ours(j)) => j,
            Ok(super::Sealed::Absent) => return Ok(()),
            Ok(super::Sealed::Foreign) => {
                passed_over(&path, "the rewind plan");
                return Ok(());
            }
            Err(e) => {
                // Never fatal for every later call: said, and left for a person.
                eprintln!(
                    "indus-tool: ignoring the rewind plan {}: {e}",
                    path.display()
                );
                return Ok(());
            }
        };
        if !journal.home.as_os_str().is_empty() && !same_place(&journal.home, self.dir.root()) {
            // A copied project's: its paths name the original's files.
            remove_if_there(&path)?;
            return Ok(());
        }
        let root = self.root.as_deref();
        if let Some(root) = root
            && let Some(why) = journal.steps.iter().find_map(|step| {
                let path = step.path();
                root.admit(path, Path::new(path)).err()
            })
        {
            // Never outside this invocation's root, even to finish the user's
            // own rewind; and nothing is recorded or dropped while it is
            // pending (its completion drops the nodes from where it began).
            return Err(io::Error::other(format!(
                "a rewind an earlier call left unfinished ({}) names a file outside this invocation's root ({why}); finish it with a call whose --root admits it",
                path.display()
            ))
            .into());
        }
        self.complete_or_set_aside(lock, &journal, root)?;
        Ok(())
    }

    /// [`complete`](Self::complete), and when a step fails, the plan set aside
    /// (renamed `rewind-failed-<ms>.json`, never replayed) rather than left to
    /// be retried, and failed, by every later call of the session. Its nodes
    /// are kept: `checkpoint rewind NODE` again, once the cause is fixed, plans
    /// anew from the tree as it is (what was already put back counts as done).
    fn complete_or_set_aside(
        &self,
        lock: &StateLock,
        journal: &Journal,
        root: Option<&Root>,
    ) -> Result<RewindReport, CheckpointError> {
        let error = match self.complete(lock, journal, root) {
            Ok(report) => return Ok(report),
            Err(e) => e,
        };
        let plan = self.dir.checked(self.journal_rel())?;
        let aside = plan.with_file_name(format!(
            "rewind-failed-{}.json",
            crate::kernel::clock::now_ms()
        ));
        let kept = match std::fs::rename(&plan, &aside) {
            Ok(()) => format!("its plan was set aside as {}", aside.display()),
            Err(e) => format!("its plan {} could not be set aside ({e})", plan.display()),
        };
        Err(io::Error::other(format!(
            "the rewind to before \"{}\" stopped: {error}. What it had put back stays; {kept}. Fix the cause, then run `indus-tool checkpoint rewind {}` again",
            journal.from, journal.from
        ))
        .into())
    }

    /// A rewind's restore step: the content put back unless it is there
    /// already (a replayed plan), then the mode.
    fn restore_step(
        &self,
        shown: &str,
        sha256: &str,
        mode: Option<u32>,
        already: bool,
        root: Option<&Root>,
    ) -> Result<(), CheckpointError> {
        let path = Path::new(shown);
        let restore_error =
            |e: io::Error| io::Error::new(e.kind(), format!("cannot restore {shown}: {e}"));
        if !already && current_hash(path).ok().flatten().as_deref() != Some(sha256) {
            let bytes = self.blob(sha256)?;
            if let Some(parent) = path.parent()
                && !parent.is_dir()
            {
                std::fs::create_dir_all(parent).map_err(restore_error)?;
            }
            in_writable_parent(path, || {
                crate::sys::atomic_write_within_unsynced(path, &bytes, root)
            })
            .map_err(restore_error)?;
        }
        if let Some(mode) = mode {
            use std::os::unix::fs::PermissionsExt;
            let now = std::fs::metadata(path).map(|m| m.permissions().mode() & 0o7777);
            if now.is_ok_and(|m| m != mode) {
                std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(
                    |e| {
                        io::Error::new(e.kind(), format!("cannot restore the mode of {shown}: {e}"))
                    },
                )?;
            }
        }
        Ok(())
    }

    /// Run a journal's steps, drop the rewound nodes, collect the blobs, and
    /// remove the journal: the last thing, so a cut anywhere before is redone.
    fn complete(
        &self,
        lock: &StateLock,
        journal: &Journal,
        root: Option<&Root>,
    ) -> Result<RewindReport, CheckpointError> {
        remove_stale_temps(&journal.steps);
        let mut report = RewindReport::default();
        for step in &journal.steps {
            match step {
                Step::Delete {
                    path,
                    created_dirs,
                    already,
                } => {
                    delete_step(path, created_dirs, *already)?;
                    report.deleted.push(path.clone());
                }
                Step::Restore {
                    path: shown,
                    sha256,
                    mode,
                    already,
                } => {
                    self.restore_step(shown, sha256, *mode, *already, root)?;
                    report.restored.push(shown.clone());
                }
                Step::RemoveDir { path } => match in_writable_parent(Path::new(path), || {
                    std::fs::remove_dir(path)
                }) {
                    Ok(()) => report.deleted.push(path.clone()),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {
                        report.deleted.push(path.clone())
                    }
                    // Something came into it since the plan: left, and said.
                    Err(e) if e.kind() == io::ErrorKind::DirectoryNotEmpty => report
                        .skipped
                        .push((path.clone(), "folder left: it is not empty".into())),
                    Err(e) => {
                        return Err(
                            io::Error::new(e.kind(), format!("cannot remove {path}: {e}")).into(),
                        );
                    }
                },
                Step::MakeDir { path, mode } => {
                    let made = std::fs::create_dir_all(path).and_then(|()| match mode {
                        Some(mode) => {
                            use std::os::unix::fs::PermissionsExt;
                            std::fs::set_permissions(path, std::fs::Permissions::from_mode(*mode))
                        }
                        None => Ok(()),
                    });
                    made.map_err(|e| io::Error::new(e.kind(), format!("cannot make {path}: {e}")))?;
                    report.restored.push(path.clone());
                }
                Step::Link { path, target } => {
                    in_writable_parent(Path::new(path), || {
                        crate::sys::atomic_symlink(Path::new(path), target)
                    })
                    .map_err(|e| io::Error::new(e.kind(), format!("cannot restore {path}: {e}")))?;
                    report.restored.push(path.clone());
                }
            }
        }
        // One flush for every file put back (each was renamed into place
        // unsynced), before the plan is removed: a power loss before here
        // replays the plan.
        if !journal.steps.is_empty() {
            crate::sys::sync_tree(journal.steps[0].path());
        }
        let (mut index, files) = self.read_index(lock)?;
        if let Some(from) = index.position(&journal.from) {
            report.dropped = index.nodes.drain(from..).map(|n| n.name).collect();
            for f in &files[from..] {
                self.remove_node(f)?;
            }
        }
        // With a scan of the tree kept (commands are checkpointed), the
        // contents just put back stay: the next scan finds them there and need
        // not copy them again. Without one, nothing needs them.
        let scanned = self.dir.checked(self.tree_rel()).is_ok_and(|p| p.is_file());
        let restored: Vec<&str> = journal
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Restore { sha256, .. } if scanned => Some(sha256.as_str()),
                _ => None,
            })
            .collect();
        self.collect_garbage_keeping(lock, &index, &restored)?;
        remove_if_there(&self.dir.checked(self.journal_rel())?)?;
        Ok(report)
    }

    /// Forget `name` and every older node (a rewind to a newer node needs only the
    /// newer ones, so it stays exact), or every node when `name` is `None`.
    /// Answers the names forgotten; unreferenced blobs are deleted.
    pub fn drop_nodes(&self, name: Option<&str>) -> Result<Vec<String>, CheckpointError> {
        self.guard()?;
        let lock = self.dir.lock()?;
        self.settle(&lock)?;
        let (mut index, files) = self.read_index(&lock)?;
        let upto = match name {
            Some(name) => Self::find(&index, name)? + 1,
            None => index.nodes.len(),
        };
        let dropped: Vec<String> = index.nodes.drain(..upto).map(|n| n.name).collect();
        for f in &files[..upto] {
            self.remove_node(f)?;
        }
        self.collect_garbage(&lock, &index)?;
        Ok(dropped)
    }

    /// Delete every blob no record refers to.
    fn collect_garbage(&self, lock: &StateLock, index: &Index) -> io::Result<()> {
        self.collect_garbage_keeping(lock, index, &[])
    }

    /// [`Self::collect_garbage`], keeping `also` too.
    fn collect_garbage_keeping(
        &self,
        _lock: &StateLock,
        index: &Index,
        also: &[&str],
    ) -> io::Result<()> {
        // A command's run open (between its scans, or waiting out another
        // call's write) holds copies no record names yet: collected later.
        if self.any_run_open() {
            return Ok(());
        }
        let tree = self.tree_blobs();
        let mut keep: HashSet<&str> = index.referenced().into_iter().collect();
        keep.extend(tree.iter().map(String::as_str));
        keep.extend(also.iter().copied());
        let dir = self.folder().join("blobs");
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(state_error(&dir, e)),
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if !keep.contains(name.to_string_lossy().as_ref()) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(())
    }
}

/// A node file's start, zero-padded so names sort as numbers do.
fn seq_name(seq: u64) -> String {
    format!("{seq:013}")
}

fn state_error(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("state file {}: {e}", path.display()))
}

fn corrupt(path: &Path, e: serde_json::Error) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "state file {} is corrupt ({e}); fix or delete it",
            path.display()
        ),
    )
}

fn remove_if_there(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(state_error(path, e)),
    }
}

pub use crate::kernel::clock::iso8601_utc;

#[cfg(test)]
mod tests {
    use super::*;

    fn store(dir: &Path) -> CheckpointStore {
        CheckpointStore::new(StateDir::new(dir), "s/1")
    }

    fn file(dir: &Path, name: &str) -> String {
        dir.join(name).to_string_lossy().into_owned()
    }

    #[test]
    fn iso_dates() {
        assert_eq!(iso8601_utc(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601_utc(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso8601_utc(1_700_000_000_000), "2023-11-14T22:13:20.000Z");
    }

    #[test]
    fn first_seen_wins_and_blobs_are_shared() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let t1 = NodeName::turn("t1");
        let a = file(dir.path(), "a");
        let b = file(dir.path(), "b");
        let got = s
            .record_before(&t1, &a, Capture::Bytes(b"one".to_vec()))
            .unwrap();
        assert_eq!(
            got,
            Some(Image::Kept {
                sha256: sha256_hex(b"one"),
                size: 3,
                // No file there: nothing to read a mode from.
                mode: None,
            })
        );
        assert_eq!(
            s.record_before(&t1, &a, Capture::Bytes(b"two".to_vec()))
                .unwrap(),
            None
        );
        s.record_before(&t1, &b, Capture::Bytes(b"one".to_vec()))
            .unwrap();
        let index = s.load().unwrap();
        assert_eq!(index.nodes.len(), 1);
        assert_eq!(index.nodes[0].files.len(), 2);
        // One blob for the two records of the same content, under the session key.
        let blobs: Vec<_> = std::fs::read_dir(s.folder().join("blobs"))
            .unwrap()
            .collect();
        assert_eq!(blobs.len(), 1);
        assert!(s.folder().ends_with("checkpoints/s%2F1"));
        assert_eq!(s.blob(&sha256_hex(b"one")).unwrap(), b"one");
    }

    #[test]
    fn over_the_cap_is_recorded_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path()).with_cap(4);
        let t = NodeName::turn("t");
        let got = s
            .record_before(
                &t,
                &file(dir.path(), "big"),
                Capture::Bytes(b"12345".to_vec()),
            )
            .unwrap()
            .unwrap();
        assert_eq!(got, Image::OverCap { size: 5, cap: 4 });
        assert!(got.not_kept().unwrap().contains("over the cap"));
        assert!(!s.folder().join("blobs").exists());
    }

    #[test]
    fn a_stale_turn_is_refused_but_the_newest_is_reused() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let a = file(dir.path(), "a");
        s.record_before(&NodeName::turn("t1"), &a, Capture::Absent)
            .unwrap();
        s.record_before(&NodeName::turn("t2"), &a, Capture::Absent)
            .unwrap();
        let err = s
            .record_before(
                &NodeName::turn("t1"),
                &file(dir.path(), "b"),
                Capture::Absent,
            )
            .unwrap_err();
        assert!(err.to_string().contains("\"t2\" began after it"), "{err}");
        s.record_before(
            &NodeName::turn("t2"),
            &file(dir.path(), "b"),
            Capture::Absent,
        )
        .unwrap();
        assert_eq!(s.load().unwrap().nodes[1].files.len(), 2);
    }

    #[test]
    fn rewind_restores_deletes_refuses_and_collects() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let a = file(dir.path(), "a");
        let n = file(dir.path(), "new");
        // t1: a "v1" -> "v2"; t2: a "v2" -> "v3", new created.
        for (turn, path, before, after) in [
            ("t1", &a, Some(&b"v1"[..]), &b"v2"[..]),
            ("t2", &a, Some(b"v2"), b"v3"),
            ("t2", &n, None, b"n"),
        ] {
            let node = NodeName::turn(turn);
            let capture = before.map_or(Capture::Absent, |b| Capture::Bytes(b.to_vec()));
            s.record_before(&node, path, capture).unwrap();
            std::fs::write(path, after).unwrap();
            s.record_after(&node, path, &sha256_hex(after)).unwrap();
        }
        // Changed outside the toolbox: refused, nothing touched.
        std::fs::write(&a, "outside").unwrap();
        let err = s.rewind("t2", false, None, None).unwrap_err();
        assert!(
            matches!(&err, CheckpointError::Refused { files } if files.len() == 1 && files[0].0 == a)
        );
        assert!(Path::new(&n).exists());
        let err = s.rewind("t9", false, None, None).unwrap_err();
        assert_eq!(err.to_string(), "no checkpoint named \"t9\"; known: t1, t2");
        let report = s.rewind("t2", true, None, None).unwrap();
        assert_eq!(report.restored, vec![a.clone()]);
        assert_eq!(report.deleted, vec![n.clone()]);
        assert_eq!(report.dropped, vec!["t2".to_string()]);
        assert_eq!(std::fs::read(&a).unwrap(), b"v2");
        assert!(!Path::new(&n).exists());
        // Only t1's blob ("v1") is left.
        let blobs: Vec<String> = std::fs::read_dir(s.folder().join("blobs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(blobs, vec![sha256_hex(b"v1")]);
    }

    #[test]
    fn drop_forgets_the_node_and_older_ones() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        for t in ["t1", "t2", "t3"] {
            s.record_before(
                &NodeName::turn(t),
                &file(dir.path(), t),
                Capture::Bytes(t.as_bytes().to_vec()),
            )
            .unwrap();
        }
        assert_eq!(s.drop_nodes(Some("t2")).unwrap(), vec!["t1", "t2"]);
        assert_eq!(s.load().unwrap().names(), vec!["t3"]);
        assert_eq!(
            std::fs::read_dir(s.folder().join("blobs")).unwrap().count(),
            1
        );
        assert_eq!(s.drop_nodes(None).unwrap(), vec!["t3"]);
        assert!(s.load().unwrap().nodes.is_empty());
    }

    #[test]
    fn hashes_are_journaled_folded_and_a_torn_last_line_is_not_noted() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let t = NodeName::turn("t");
        let a = file(dir.path(), "a");
        s.record_before(&t, &a, Capture::Absent).unwrap();
        s.record_after(&t, &a, "h1").unwrap();
        s.record_after(&t, &a, "h2").unwrap();
        assert_eq!(
            s.load().unwrap().nodes[0].files[0].after.as_deref(),
            Some("h2")
        );
        // An append cut short: the complete lines count, the torn one does not.
        let files = s.node_files(&s.dir.lock().unwrap()).unwrap().remove(0);
        let log = files.after.clone();
        let mut bytes = std::fs::read(&log).unwrap();
        bytes.extend_from_slice(b"{\"pa");
        std::fs::write(&log, &bytes).unwrap();
        assert_eq!(
            s.load().unwrap().nodes[0].files[0].after.as_deref(),
            Some("h2")
        );
        // The next append folds the journal in first (the torn line dropped),
        // then starts it again with its own line.
        s.record_before(&t, &file(dir.path(), "b"), Capture::Absent)
            .unwrap();
        let node: Node = serde_json::from_slice(&std::fs::read(&files.json).unwrap()).unwrap();
        assert_eq!(node.files[0].after.as_deref(), Some("h2"));
        assert_eq!(
            std::fs::read(&log)
                .unwrap()
                .iter()
                .filter(|b| **b == b'\n')
                .count(),
            1
        );
        let loaded = s.load().unwrap();
        let paths: Vec<&str> = loaded.nodes[0]
            .files
            .iter()
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(paths, [a.as_str(), file(dir.path(), "b").as_str()]);
        // A complete line that does not parse is an error naming the file.
        std::fs::write(&log, "nope\n").unwrap();
        let err = s.load().unwrap_err();
        assert!(err.to_string().contains("t.after is corrupt"), "{err}");
    }

    #[test]
    fn an_invocations_node_is_remembered_and_begun_again_after_a_drop() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let me = NodeName::invocation();
        assert!(
            me.name.starts_with("t-") && me.name.ends_with(&format!("-{}", std::process::id()))
        );
        s.record_before(&me, &file(dir.path(), "a"), Capture::Absent)
            .unwrap();
        s.record_before(&me, &file(dir.path(), "b"), Capture::Absent)
            .unwrap();
        assert_eq!(s.load().unwrap().nodes[0].files.len(), 2);
        s.drop_nodes(None).unwrap();
        s.record_before(&me, &file(dir.path(), "c"), Capture::Absent)
            .unwrap();
        s.record_after(&me, &file(dir.path(), "c"), "h").unwrap();
        let index = s.load().unwrap();
        assert_eq!(index.names(), vec![me.name.clone()]);
        assert_eq!(index.nodes[0].files[0].after.as_deref(), Some("h"));
    }

    #[test]
    fn git_paths_are_never_touched() {
        assert!(inside_git("/r/.git/config"));
        assert!(!inside_git("/r/.github/x"));
    }

    /// A change recorded in a protected path (written under --allow-protected)
    /// is never dropped in silence: the rewind is refused naming it, leaves it
    /// and says so with force, and restores it when the same path is lifted.
    #[test]
    fn a_protected_change_is_named_never_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        let s = store(dir.path());
        let config = file(dir.path(), ".git/config");
        std::fs::write(&config, "[core]\n").unwrap();
        let node = NodeName::turn("t1");
        s.record_before(&node, &config, Capture::Bytes(b"[core]\n".to_vec()))
            .unwrap();
        let planted = b"[core]\n\tfsmonitor = touch /tmp/x\n";
        std::fs::write(&config, planted).unwrap();
        s.record_after(&node, &config, &sha256_hex(planted))
            .unwrap();
        let err = s.rewind("t1", false, None, None).unwrap_err();
        let CheckpointError::Refused { files } = &err else {
            panic!("{err}")
        };
        assert_eq!(files[0].0, config);
        assert!(files[0].1.contains("--allow-protected"), "{}", files[0].1);
        let lifted = WriteGuard::new(dir.path().to_path_buf(), Vec::new())
            .lifting(vec![PathBuf::from(&config)]);
        let report = s.rewind("t1", false, None, Some(&lifted)).unwrap();
        assert_eq!(report.restored, vec![config.clone()]);
        assert_eq!(std::fs::read(&config).unwrap(), b"[core]\n");
    }

    #[test]
    fn records_without_this_users_seal_are_passed_over() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "mine").unwrap();
        let s = store(dir.path());
        let a = file(dir.path(), "a");
        std::fs::write(&a, "v1").unwrap();
        s.record_before(&NodeName::turn("t1"), &a, Capture::Bytes(b"v1".to_vec()))
            .unwrap();
        // A node, a journal line and a rewind plan as a checkout could carry
        // them, all naming a file outside the project.
        let nodes = s.folder().join("nodes");
        let forged_node = serde_json::json!({"name": "evil", "createdMs": 1, "named": true,
            "files": [{"path": victim, "before": {"state": "absent"}, "after": null}]});
        std::fs::write(
            nodes.join("0000000000001-evil.json"),
            serde_json::to_vec(&forged_node).unwrap(),
        )
        .unwrap();
        let own = std::fs::read_dir(&nodes)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with("-t1.json"))
            .unwrap();
        let line = serde_json::json!({"path": victim, "before": {"state": "absent"}});
        std::fs::write(
            own.with_extension("after"),
            format!("{}\n", serde_json::to_string(&line).unwrap()),
        )
        .unwrap();
        let plan = serde_json::json!({"from": "t1", "steps": [{"do": "delete", "path": victim,
            "createdDirs": [], "already": false}]});
        std::fs::write(s.folder().join("rewind.json"), plan.to_string()).unwrap();
        std::fs::write(s.folder().join("always"), "on\n").unwrap();
        let index = s.load().unwrap();
        assert_eq!(index.names(), vec!["t1".to_string()]);
        assert_eq!(index.nodes[0].files.len(), 1, "{index:?}");
        assert!(!s.always_on());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
        // The user's own node still rewinds.
        std::fs::write(&a, "v2").unwrap();
        let node = NodeName::turn("t1");
        s.record_after(&node, &a, &sha256_hex(b"v2")).unwrap();
        let report = s.rewind("t1", false, None, None).unwrap();
        assert_eq!(report.restored, vec![a.clone()]);
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "v1");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine");
        s.set_always(true).unwrap();
        assert!(s.always_on());
    }

    #[test]
    fn a_linked_checkpoints_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        StateDir::new(dir.path()).ensure().unwrap();
        std::os::unix::fs::symlink(
            outside.path(),
            dir.path().join(".indus-process").join(CHECKPOINTS_DIR),
        )
        .unwrap();
        let a = file(dir.path(), "a");
        assert!(
            s.record_before(&NodeName::turn("t"), &a, Capture::Absent)
                .is_err()
        );
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn an_unfinished_rewind_is_finished_only_under_a_root_that_holds_its_files() {
        let dir = tempfile::tempdir().unwrap();
        let s = store(dir.path());
        let a = file(dir.path(), "a");
        std::fs::write(&a, "v1").unwrap();
        let t1 = NodeName::turn("t1");
        s.record_before(&t1, &a, Capture::Bytes(b"v1".to_vec()))
            .unwrap();
        std::fs::write(&a, "v2").unwrap();
        s.record_after(&t1, &a, &sha256_hex(b"v2")).unwrap();
        // A rewind cut short after its plan was written.
        let plan = Journal {
            from: "t1".into(),
            steps: vec![Step::Restore {
                path: a.clone(),
                sha256: sha256_hex(b"v1"),
                mode: None,
                already: false,
            }],
            home: s.dir.root().to_path_buf(),
        };
        std::fs::write(
            s.folder().join("rewind.json"),
            super::super::sealed_bytes(SEAL_PLAN, &plan).unwrap(),
        )
        .unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let outside = Root::new(elsewhere.path(), Path::new("/")).unwrap();
        let confined = store(dir.path()).with_root(Some(Arc::new(outside)));
        assert!(confined.load().is_err());
        assert!(
            confined
                .record_before(&NodeName::turn("t2"), &a, Capture::Absent)
                .is_err()
        );
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "v2");
        let project = Root::new(dir.path(), Path::new("/")).unwrap();
        let index = store(dir.path())
            .with_root(Some(Arc::new(project)))
            .load()
            .unwrap();
        assert!(index.nodes.is_empty());
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "v1");
    }
}
