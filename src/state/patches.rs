//! The journal that makes a multi-file change all or nothing on disk:
//! `.indus-process/patches/<id>/`.
//!
//! A rename replaces one file atomically; nothing replaces several at once. So
//! a change of several files is an undo log: before the tree is touched, every
//! file the apply replaces or deletes is hard-linked into the apply's folder
//! (its old bytes kept without a copy), and `journal.json` lists the steps —
//! each target, the temporary file its new content goes through, that
//! content's hash — and is synced (written under another name and renamed
//! into place, so a kill leaves it whole or absent). Then each new content is
//! written to its temporary file beside the target and renamed over it, the
//! deleted files are unlinked, and a `done` marker written. (Beside the
//! target, not in the apply's folder: on ext4 a file created in a fresh folder
//! costs several times one created beside its neighbours, which made staging
//! there the largest part of an apply.)
//!
//! An apply interrupted at any moment is undone by the next invocation in the
//! project ([`recover`]): a folder without a journal means the tree was not
//! touched (the folder goes); a journal without `done` is rolled back, each
//! step by what it finds — a temporary file left beside a target is removed, a
//! target holding the new content gets its hard-linked original back (or is
//! removed, when it was added), a deleted file is linked back. A target that
//! holds neither the old nor the new content was written by someone else
//! after the kill, and is left as it is and named.
//!
//! Durability without a sync per file. `git apply` syncs nothing; a sync per
//! written file made this apply several times slower than it. Here only the
//! journal and its folder are synced before the tree is touched; the new files
//! reach the disk when the kernel writes them back. The folder stays until
//! then: a later invocation finishes a done apply (syncs its files, removes the
//! folder) once the kernel's writeback window has passed. If the machine loses
//! power first, the next boot finds the folder with another boot's id and
//! checks every target against the journal's hashes: all new (or changed
//! later by someone else) keeps the apply; any target torn or still old rolls
//! the whole apply back from the hard links, whose bytes were on the disk
//! before the apply began. Either way never a tree with some files changed and
//! others not.
//!
//! A live apply holds the lock of its folder, and recovery leaves a locked
//! folder alone. Folders are handled newest first, so an older apply is judged
//! on the tree a newer one has already settled.
//!
//! A folder a deletion leaves empty is removed, as `git apply` does. A target
//! on another filesystem than the state folder (where neither a rename nor a
//! link can reach) is written through a synced temporary file beside it, and
//! its original is copied into the folder.

use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::StateDir;
use super::files::same_place;
use crate::kernel::Root;
use crate::kernel::digest::sha256_hex;

/// The folder of pending applies inside the state folder.
pub const PATCHES_DIR: &str = "patches";
const JOURNAL: &str = "journal.json";
/// The journal while it is written.
const JOURNAL_PART: &str = "journal.json.part";
const DONE: &str = "done";
const LOCK: &str = ".lock";

/// One path's final state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Absolute path of the file (links already followed by the caller where
    /// the file itself is meant).
    pub path: PathBuf,
    /// The new content, or `None` to delete the file.
    pub content: Option<Vec<u8>>,
    /// Permission bits of the new file (`None`: the target's own, or the
    /// default for a new file).
    pub mode: Option<u32>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Journal {
    /// The kernel's boot id when the apply began: a folder from another boot
    /// may have lost unsynced writes to a power cut.
    boot: String,
    /// Where the folder was made: a folder found elsewhere was copied with its
    /// project (`cp -a`), and its steps name the original's files.
    #[serde(default)]
    home: PathBuf,
    steps: Vec<Step>,
    /// Folders the apply creates for new files, outermost first.
    #[serde(default)]
    made: Vec<PathBuf>,
}

/// The seal's domain: a seal made for another kind of record never passes.
const SEAL_DOMAIN: &str = "indus-tool apply_patch journal 1";

/// The most a journal may hold when read back: 64 MiB is some 300,000 steps.
/// A journal is checked against this user's seal on its bytes before it is
/// parsed (a checkout can carry any `.indus-process/`, and recovery runs on
/// every invocation), so a planted one costs a streamed hash, never a parse.
const JOURNAL_CAP: u64 = 64 * 1024 * 1024;
/// A journal over this size is looked at after the others.
const BIG_JOURNAL: u64 = 1024 * 1024;
/// The most journal bytes one call reads to check their seals: one journal of
/// the largest size (0.2 s of hashing in the release build).
const CHECK_BUDGET: u64 = JOURNAL_CAP;

impl Journal {
    /// The folders that hold the targets, each once: the renames and unlinks
    /// in them are what a sync of a folder makes durable.
    fn parents(&self) -> Vec<&Path> {
        let mut parents: Vec<&Path> = self.steps.iter().filter_map(|s| s.path.parent()).collect();
        parents.sort();
        parents.dedup();
        parents
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Step {
    path: PathBuf,
    /// The temporary file beside `path` its new content is written to and
    /// renamed from; `None` deletes `path`.
    staged: Option<PathBuf>,
    /// The new file's permission bits.
    #[serde(default)]
    mode: Option<u32>,
    /// SHA-256 of the new content.
    #[serde(default)]
    hash: Option<String>,
    /// The hard link (or copy) of what `path` held before; `None`: it was
    /// absent.
    backup: Option<String>,
}

/// Apply `changes` all or nothing (see the module comment). The caller has
/// checked everything it can beforehand (each target a regular file, a link or
/// absent, its folder creatable); an error before the tree is touched leaves it
/// as it was, one after that is undone here or by the next [`recover`].
pub fn apply(dir: &StateDir, changes: &[Change]) -> io::Result<()> {
    debug_assert!({
        let mut paths: Vec<&PathBuf> = changes.iter().map(|c| &c.path).collect();
        paths.sort();
        paths.windows(2).all(|w| w[0] != w[1])
    });
    dir.ensure()?;
    let base = dir.checked(PATCHES_DIR)?;
    if !base.is_dir() {
        dir.make_dirs(PATCHES_DIR)?;
        sync_dir(dir.root());
    }
    let folder = new_folder(&base)?;
    let _lock = super::files::try_lock_at(&folder.join(LOCK))?
        .ok_or_else(|| io::Error::other("a fresh patch folder is locked by another process"))?;
    let umask = current_umask();
    let journal = match prepare(&folder, changes, umask) {
        Ok(j) => j,
        Err(e) => {
            // Nothing in the tree was touched: the apply is rolled back.
            let _ = std::fs::remove_dir_all(&folder);
            return Err(e);
        }
    };
    if let Err(e) = carry_out(&folder, &journal, changes, umask) {
        // Undone at once where possible; else the next invocation does it.
        if roll_back(&folder, &journal, Era::SameBoot).is_ok() {
            let _ = std::fs::remove_dir_all(&folder);
        }
        return Err(e);
    }
    // The marker that the tree holds the whole apply. Not synced: without it
    // after a power cut the apply is judged by the targets' hashes.
    std::fs::write(folder.join(DONE), journal.boot.as_bytes())?;
    Ok(())
}

/// Settle every apply an earlier invocation left (see the module comment);
/// how many were undone. Cheap when there is none: one `open` of the folder.
///
/// Under a root (`--root`), an apply whose files are not all inside it is left
/// pending, said on stderr, for an invocation whose root admits it: an
/// invocation never touches a file outside its root, its own earlier work's
/// included.
pub fn recover(dir: &StateDir, root: Option<&Root>) -> io::Result<usize> {
    recover_within(dir, writeback_window(), root)
}

/// [`recover`], a done apply of this boot being finished once `window` has
/// passed since it was done.
fn recover_within(dir: &StateDir, window: Duration, root: Option<&Root>) -> io::Result<usize> {
    let base = dir.checked(PATCHES_DIR)?;
    let entries = match std::fs::read_dir(&base) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let folders: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    // Newest first: the names begin with the time the apply began. Journals
    // over 1 MiB come after the others, so that big planted ones (each checked
    // against the seal before it is trusted) cannot use up the call's budget
    // before an ordinary one of the user's is looked at.
    let size = |f: &Path| std::fs::symlink_metadata(f.join(JOURNAL)).map_or(0, |m| m.len());
    let mut folders: Vec<(u64, PathBuf)> = folders.into_iter().map(|f| (size(&f), f)).collect();
    folders
        .sort_by(|(sa, a), (sb, b)| (*sa > BIG_JOURNAL).cmp(&(*sb > BIG_JOURNAL)).then(b.cmp(a)));
    if folders.is_empty() {
        return Ok(0);
    }
    let boot = boot_id();
    let mut undone = 0;
    let (mut checked, mut deferred) = (0u64, 0usize);
    for (len, folder) in folders {
        // What one call reads to check seals is bounded; the rest waits.
        if checked.saturating_add(len) > CHECK_BUDGET {
            deferred += 1;
            continue;
        }
        checked += len;
        // The common case, cheaply and before taking its lock: a done apply
        // of this boot, still inside the writeback window, is left for later.
        let young = std::fs::symlink_metadata(folder.join(DONE))
            .ok()
            .and_then(|d| d.modified().ok())
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age < window);
        if young
            && super::files::read_file(&folder.join(DONE), 256).is_ok_and(|b| b == boot.as_bytes())
        {
            continue;
        }
        // A live apply holds its folder's lock and is left alone. A folder
        // made an instant ago, before its maker locked it, holds no journal and
        // is removed: its maker then fails before touching the tree.
        let Ok(Some(_lock)) = super::files::try_lock_at(&folder.join(LOCK)) else {
            continue;
        };
        // Looked at again under the lock: its maker writes it before letting go.
        let done = std::fs::symlink_metadata(folder.join(DONE)).ok();
        let journal = match read_journal(&folder) {
            Read::Absent => {
                // No journal: the tree was never touched.
                std::fs::remove_dir_all(&folder)?;
                continue;
            }
            Read::Refused(why) => {
                // Never replayed, never fatal: said, and left for a person.
                eprintln!(
                    "indus-tool: ignoring the apply_patch journal in {}: {why}",
                    folder.display()
                );
                continue;
            }
            Read::Sealed(journal) => journal,
        };
        if let Some(root) = root
            && let Some(why) = journal
                .steps
                .iter()
                .map(|s| &s.path)
                .chain(&journal.made)
                .find_map(|p| root.admit(&p.to_string_lossy(), p).err())
        {
            eprintln!(
                "indus-tool: leaving the interrupted apply_patch in {} pending: {why}",
                folder.display()
            );
            continue;
        }
        if !journal.home.as_os_str().is_empty() && !same_place(&journal.home, &folder) {
            // A copy's (or a moved project's): its steps name files elsewhere,
            // and the original project settles its own apply.
            std::fs::remove_dir_all(&folder)?;
            continue;
        }
        let same_boot = journal.boot == boot;
        match done {
            Some(_) if same_boot => finish(&folder, &journal)?,
            Some(done) => {
                let when = done.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                if whole_after_power_cut(&folder, &journal, when) {
                    finish(&folder, &journal)?;
                } else {
                    roll_back(&folder, &journal, Era::AfterDone(when))?;
                    std::fs::remove_dir_all(&folder)?;
                    undone += 1;
                }
            }
            None => {
                let era = if same_boot {
                    Era::SameBoot
                } else {
                    Era::OtherBoot
                };
                roll_back(&folder, &journal, era)?;
                std::fs::remove_dir_all(&folder)?;
                undone += 1;
            }
        }
    }
    if deferred > 0 {
        eprintln!(
            "indus-tool: {deferred} more apply_patch folder(s) in {} not looked at: this call checks {} MiB of journals at most",
            base.display(),
            CHECK_BUDGET >> 20
        );
    }
    Ok(undone)
}

fn new_folder(base: &Path) -> io::Result<PathBuf> {
    let stamp = crate::kernel::clock::base36(crate::kernel::clock::now_ms());
    for n in 0..1000u32 {
        let folder = base.join(format!("{stamp}-{}-{n}", std::process::id()));
        match std::fs::create_dir(&folder) {
            Ok(()) => return Ok(folder),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other("cannot make a patch folder"))
}

/// Keep every old content in `folder` and write and sync the journal:
/// everything the undo needs is on the disk before the tree is touched.
fn prepare(folder: &Path, changes: &[Change], umask: u32) -> io::Result<Journal> {
    let id = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut journal = Journal {
        boot: boot_id(),
        home: folder.to_path_buf(),
        steps: Vec::with_capacity(changes.len()),
        made: Vec::new(),
    };
    let deleted: std::collections::HashSet<&Path> = changes
        .iter()
        .filter(|c| c.content.is_none())
        .map(|c| c.path.as_path())
        .collect();
    let mut known_dirs: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    for (n, change) in changes.iter().enumerate() {
        let old = std::fs::symlink_metadata(&change.path).ok();
        let backup = match &old {
            Some(meta) if !meta.is_dir() => {
                let name = format!("b{n}");
                keep_original(&change.path, &folder.join(&name), meta)?;
                Some(name)
            }
            _ => None,
        };
        let Some(content) = &change.content else {
            journal.steps.push(Step {
                path: change.path.clone(),
                staged: None,
                mode: None,
                hash: None,
                backup,
            });
            continue;
        };
        // The mode the file will have: the one asked, else the target's own,
        // else a new file's default (0666 less the umask).
        let mode = change
            .mode
            .or_else(|| {
                old.as_ref()
                    .filter(|m| m.is_file())
                    .map(|m| m.permissions().mode() & 0o7777)
            })
            .unwrap_or(0o666 & !umask);
        if let Some(parent) = change.path.parent() {
            missing_folders(parent, &deleted, &mut known_dirs, &mut journal.made);
        }
        journal.steps.push(Step {
            path: change.path.clone(),
            staged: Some(temp_beside(&change.path, &id, n)),
            mode: Some(mode),
            hash: Some(sha256_hex(content)),
            backup,
        });
    }
    let bytes = super::sealed_bytes(SEAL_DOMAIN, &journal)?;
    // Written whole under another name, then renamed: a kill in the middle
    // of the write leaves no journal (the tree untouched, the folder
    // removed by the next invocation), never a cut one, which would read
    // as a foreign seal and be left for a person.
    let part = folder.join(JOURNAL_PART);
    let mut f = std::fs::File::create_new(&part)?;
    #[cfg(test)]
    if let Some(cut) = tests::KILL_IN_JOURNAL_WRITE.take() {
        f.write_all(&bytes[..cut.min(bytes.len())])?;
        return Err(io::Error::other("killed while writing the journal"));
    }
    f.write_all(&bytes)?;
    f.sync_data()?;
    drop(f);
    std::fs::rename(&part, folder.join(JOURNAL))?;
    // The journal's and the links' entries, and the folder's own in
    // `patches/`.
    std::fs::File::open(folder)?.sync_all()?;
    if let Some(base) = folder.parent() {
        sync_dir(base);
    }
    Ok(journal)
}

/// Keep what `path` holds now at `keep`: a hard link (no bytes copied), or a
/// synced copy where the state folder is on another filesystem.
fn keep_original(path: &Path, keep: &Path, meta: &std::fs::Metadata) -> io::Result<()> {
    // A link to a symlink is the symlink itself (`linkat` without following).
    match std::fs::hard_link(path, keep) {
        Ok(()) => Ok(()),
        Err(e) if matches!(e.raw_os_error(), Some(nix::libc::EXDEV | nix::libc::EPERM)) => {
            if meta.file_type().is_symlink() {
                std::os::unix::fs::symlink(std::fs::read_link(path)?, keep)
            } else {
                std::fs::copy(path, keep)?;
                std::fs::File::open(keep)?.sync_all()
            }
        }
        Err(e) => Err(e),
    }
}

/// The folders above `dir` that do not exist yet (a file the patch deletes
/// counts as absent: its name may become a folder), outermost first, each
/// looked up once per apply.
fn missing_folders(
    dir: &Path,
    deleted: &std::collections::HashSet<&Path>,
    known: &mut std::collections::HashSet<PathBuf>,
    made: &mut Vec<PathBuf>,
) {
    let mut chain = Vec::new();
    for d in dir.ancestors() {
        if d.as_os_str().is_empty() || known.contains(d) {
            break;
        }
        known.insert(d.to_path_buf());
        if !deleted.contains(d) && d.is_dir() {
            break;
        }
        chain.push(d.to_path_buf());
    }
    made.extend(chain.into_iter().rev());
}

/// The temporary file `path`'s new content goes through: a hidden name beside
/// it, unique to the apply (its folder's id) and the step.
fn temp_beside(path: &Path, id: &str, n: usize) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Room for the suffix within a name's 255 bytes.
    let mut cut = name.len().min(160);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    path.with_file_name(format!(".{}.indus-patch.{id}.{n}", &name[..cut]))
}

/// Change the tree: deletions, new folders, each new content written beside
/// its target and renamed over it, and folders the deletions emptied removed.
fn carry_out(folder: &Path, journal: &Journal, changes: &[Change], umask: u32) -> io::Result<()> {
    for step in journal.steps.iter().filter(|s| s.staged.is_none()) {
        match std::fs::remove_file(&step.path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    for d in &journal.made {
        match std::fs::create_dir(d) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && d.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    for (step, change) in journal.steps.iter().zip(changes) {
        if let (Some(temp), Some(content)) = (&step.staged, &change.content) {
            write_in(temp, &step.path, content, step.mode, umask)?;
        }
    }
    // Folders a deletion left empty go too, as `git apply` removes them (never
    // the project folder, which holds the state folder, nor anything above it).
    let project = folder.ancestors().nth(3).map(Path::to_path_buf);
    for step in journal.steps.iter().filter(|s| s.staged.is_none()) {
        prune(step.path.parent(), project.as_deref());
    }
    Ok(())
}

/// Write `content` to `temp` (created with `mode`) and rename it over `path`.
fn write_in(
    temp: &Path,
    path: &Path,
    content: &[u8],
    mode: Option<u32>,
    umask: u32,
) -> io::Result<()> {
    let mode = mode.unwrap_or(0o666 & !umask);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(temp)?;
    let written = f.write_all(content).and_then(|()| {
        if mode & !umask != mode || mode & 0o7000 != 0 {
            f.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        Ok(())
    });
    drop(f);
    match written.and_then(|()| std::fs::rename(temp, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(temp);
            Err(e)
        }
    }
}

fn prune(mut dir: Option<&Path>, project: Option<&Path>) {
    while let Some(d) = dir {
        let inside = project.is_some_and(|p| d.starts_with(p) && d != p);
        if !inside || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// Rename `from` (a kept original in the state folder) to `to`, through a
/// synced temporary file beside `to` when they are on different filesystems.
fn move_in(from: &Path, to: &Path) -> io::Result<()> {
    match std::fs::rename(from, to) {
        Err(e) if e.raw_os_error() == Some(nix::libc::EXDEV) => {
            let name = to
                .file_name()
                .ok_or_else(|| io::Error::other("a target without a name"))?;
            let mut temp_name = std::ffi::OsString::from(".");
            temp_name.push(name);
            temp_name.push(format!(".indus-patch.{}", std::process::id()));
            let temp = to.with_file_name(temp_name);
            std::fs::copy(from, &temp)?;
            std::fs::File::open(&temp)?.sync_all()?;
            // The source goes first: an undo reads "still in the folder" as
            // "never moved", which must not be true once the target changed.
            std::fs::remove_file(from)?;
            std::fs::rename(&temp, to)
        }
        other => other,
    }
}

/// When a roll-back happens, which decides what a target that holds neither
/// the old nor the new content is.
#[derive(Clone, Copy)]
enum Era {
    /// The process died in this boot: such a target was written by someone
    /// else since, and is left alone.
    SameBoot,
    /// Power was lost mid-apply: such a target is a torn write of ours.
    OtherBoot,
    /// Power was lost after the apply was done: such a target is ours and
    /// torn if it was changed no later than `done`, else someone else's.
    AfterDone(SystemTime),
}

/// What a target holds now, against the journal.
#[derive(PartialEq)]
enum Now {
    /// The apply's new state (its content, or absent for a deletion).
    New,
    /// What it held before (the kept original, or absent for an addition).
    Old,
    /// Anything else; when it was last changed.
    Other(SystemTime),
}

fn look(folder: &Path, step: &Step) -> Now {
    let meta = std::fs::symlink_metadata(&step.path).ok();
    let kept = step
        .backup
        .as_ref()
        .and_then(|b| std::fs::symlink_metadata(folder.join(b)).ok());
    let Some(meta) = meta else {
        return match (&step.staged, &step.backup) {
            (None, _) => Now::New,
            (Some(_), None) => Now::Old,
            (Some(_), Some(_)) => Now::Other(SystemTime::UNIX_EPOCH),
        };
    };
    if let Some(kept) = &kept
        && kept.dev() == meta.dev()
        && kept.ino() == meta.ino()
    {
        return Now::Old;
    }
    if let (Some(hash), true) = (&step.hash, meta.is_file())
        && std::fs::read(&step.path).is_ok_and(|b| &sha256_hex(&b) == hash)
    {
        return Now::New;
    }
    Now::Other(meta.modified().unwrap_or(SystemTime::UNIX_EPOCH))
}

/// After a power cut, whether the tree holds the whole done apply: every
/// target new, or changed after the apply by someone else.
fn whole_after_power_cut(folder: &Path, journal: &Journal, done: SystemTime) -> bool {
    journal.steps.iter().all(|s| match look(folder, s) {
        Now::New => true,
        Now::Old => false,
        Now::Other(when) => when > done,
    })
}

/// Put back what each target held before, step by step as found (see the
/// module comment): additions removed, folders made removed, originals linked
/// back.
fn roll_back(folder: &Path, journal: &Journal, era: Era) -> io::Result<()> {
    let mut left = Vec::new();
    let mut restore = Vec::new();
    for step in &journal.steps {
        // A temporary file still beside its target was never renamed in.
        if let Some(temp) = &step.staged {
            match std::fs::remove_file(temp) {
                Ok(()) => continue,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        let ours = match look(folder, step) {
            Now::Old => continue,
            Now::New => true,
            Now::Other(when) => match era {
                Era::SameBoot => false,
                Era::OtherBoot => true,
                Era::AfterDone(done) => when <= done,
            },
        };
        if !ours {
            left.push(step.path.display().to_string());
            continue;
        }
        match &step.backup {
            None => match std::fs::remove_file(&step.path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            },
            Some(_) => restore.push(step),
        }
    }
    for d in journal.made.iter().rev() {
        let _ = std::fs::remove_dir(d);
    }
    for step in restore {
        let Some(backup) = &step.backup else { continue };
        // Already put back by an undo that was itself cut short.
        if std::fs::symlink_metadata(folder.join(backup)).is_err() {
            continue;
        }
        if let Some(parent) = step.path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        move_in(&folder.join(backup), &step.path)?;
    }
    let _ = sync_all(&journal.parents());
    if !left.is_empty() {
        eprintln!(
            "indus-tool: undoing an interrupted apply_patch left {} as it is: changed by someone else since",
            left.join(", ")
        );
    }
    Ok(())
}

/// A done apply whose files the kernel should have written back by now: made
/// durable for certain, then its folder (and the kept originals) removed.
fn finish(folder: &Path, journal: &Journal) -> io::Result<()> {
    let written: Vec<&Path> = journal
        .steps
        .iter()
        .filter(|s| s.staged.is_some())
        .map(|s| s.path.as_path())
        .collect();
    // Best effort: a target removed or replaced since is not this apply's to
    // sync any more.
    let _ = sync_all(&written);
    let _ = sync_all(&journal.parents());
    std::fs::remove_dir_all(folder)
}

/// A folder's journal as read back.
enum Read {
    /// None, or one cut short (never synced, so the tree was never touched).
    Absent,
    /// Not to be acted on, and why.
    Refused(String),
    /// Written by this user's toolbox.
    Sealed(Journal),
}

fn read_journal(folder: &Path) -> Read {
    let journal: Journal = match super::read_sealed(&folder.join(JOURNAL), SEAL_DOMAIN, JOURNAL_CAP)
    {
        Ok(super::Sealed::Ours(j)) => j,
        Ok(super::Sealed::Absent) => return Read::Absent,
        Ok(super::Sealed::Foreign) => {
            return Read::Refused(super::user::NOT_OURS.into());
        }
        // Sealed yet not parsed: cut short it cannot be (it is synced before
        // the tree is touched), so it is said and left.
        Err(e) => return Read::Refused(e.to_string()),
    };
    // Sealed, yet a kept original is only ever a plain name in the folder.
    if journal.steps.iter().any(|s| {
        s.backup
            .as_deref()
            .is_some_and(|b| b.is_empty() || b.contains('/') || b == "." || b == "..")
    }) {
        return Read::Refused("a kept original is not a name in its folder".into());
    }
    Read::Sealed(journal)
}

/// The kernel's id of this boot (empty where `/proc` is not mounted: then
/// every folder counts as this boot's).
fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// How long the kernel may keep written data in memory before writing it back
/// (`vm.dirty_expire_centisecs` plus `vm.dirty_writeback_centisecs`; 35 s by
/// default).
fn writeback_window() -> Duration {
    let read = |name: &str| {
        std::fs::read_to_string(format!("/proc/sys/vm/{name}"))
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
    };
    let centis = read("dirty_expire_centisecs").unwrap_or(3000)
        + read("dirty_writeback_centisecs").unwrap_or(500);
    Duration::from_millis(centis.clamp(100, 60_000) * 10)
}

/// The process's umask, read from `/proc/self/status` where it can be: setting
/// it to read it back would, for that instant, change it for every other
/// thread's file creations (the MCP server runs calls on several).
fn current_umask() -> u32 {
    let from_proc = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        });
    from_proc.unwrap_or_else(|| {
        use nix::sys::stat::{Mode, umask};
        let old = umask(Mode::from_bits_truncate(0o022));
        umask(old);
        old.bits()
    })
}

/// Files' (or folders') data made durable, several at once: a filesystem with
/// a journal commits concurrent syncs together, so 300 files cost a few
/// commits, not 300 in a row. Not `syncfs`, which would also wait for every
/// other process's unwritten data on the filesystem (a build's, a copy's).
/// Each is opened only while it is synced: a patch of thousands of files
/// holds no more descriptors than there are workers.
fn sync_all<P: AsRef<Path> + Sync>(paths: &[P]) -> io::Result<()> {
    const WORKERS: usize = 8;
    let sync = |chunk: &[P]| {
        chunk
            .iter()
            .try_for_each(|p| std::fs::File::open(p)?.sync_data())
    };
    if paths.len() <= 1 {
        return sync(paths);
    }
    let per = paths.len().div_ceil(WORKERS);
    std::thread::scope(|scope| {
        let workers: Vec<_> = paths
            .chunks(per)
            .map(|chunk| scope.spawn(move || sync(chunk)))
            .collect();
        workers.into_iter().try_for_each(|w| {
            w.join()
                .unwrap_or_else(|_| Err(io::Error::other("a sync thread failed")))
        })
    })
}

/// Best effort: a folder's entries made durable (a rename or unlink in it).
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Set: [`prepare`] writes this many bytes of the journal, then
        /// stops as a SIGKILL would stop it.
        pub(super) static KILL_IN_JOURNAL_WRITE: std::cell::Cell<Option<usize>> =
            const { std::cell::Cell::new(None) };
    }

    fn change(path: &Path, content: Option<&str>) -> Change {
        Change {
            path: path.to_path_buf(),
            content: content.map(|c| c.as_bytes().to_vec()),
            mode: None,
        }
    }

    fn read(p: &Path) -> Option<String> {
        std::fs::read_to_string(p).ok()
    }

    fn folders(state: &StateDir) -> Vec<PathBuf> {
        std::fs::read_dir(state.path(PATCHES_DIR))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    }

    /// A tree of three files and the change of all of them: `a` rewritten,
    /// `b` deleted, `new/deep/c` added.
    struct Fixture {
        _tmp: tempfile::TempDir,
        state: StateDir,
        a: PathBuf,
        b: PathBuf,
        c: PathBuf,
        changes: Vec<Change>,
    }

    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let state = StateDir::at(tmp.path().join(".indus-process"));
        let (a, b, c) = (
            tmp.path().join("a"),
            tmp.path().join("b"),
            tmp.path().join("new/deep/c"),
        );
        std::fs::write(&a, "a").unwrap();
        std::fs::write(&b, "b").unwrap();
        std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o755)).unwrap();
        let changes = vec![
            change(&a, Some("A")),
            change(&b, None),
            change(&c, Some("C")),
        ];
        Fixture {
            _tmp: tmp,
            state,
            a,
            b,
            c,
            changes,
        }
    }

    impl Fixture {
        fn is_before(&self) -> bool {
            read(&self.a).as_deref() == Some("a")
                && read(&self.b).as_deref() == Some("b")
                && !self.c.exists()
                && !self.c.parent().unwrap().parent().unwrap().exists()
        }
        fn is_after(&self) -> bool {
            read(&self.a).as_deref() == Some("A")
                && !self.b.exists()
                && read(&self.c).as_deref() == Some("C")
        }
        /// The folder of an apply interrupted after `renamed` of its staged
        /// files went in (deletions first, as `carry_out` does).
        fn interrupted(&self, renamed: usize) -> (PathBuf, Journal) {
            self.state.ensure().unwrap();
            let base = self.state.path(PATCHES_DIR);
            std::fs::create_dir_all(&base).unwrap();
            let folder = new_folder(&base).unwrap();
            let journal = prepare(&folder, &self.changes, current_umask()).unwrap();
            std::fs::remove_file(&self.b).unwrap();
            for d in &journal.made {
                std::fs::create_dir(d).unwrap();
            }
            let mut content_steps = journal
                .steps
                .iter()
                .zip(&self.changes)
                .filter(|(s, _)| s.staged.is_some());
            for (step, change) in content_steps.by_ref().take(renamed) {
                let content = change.content.as_ref().unwrap();
                let temp = step.staged.as_ref().unwrap();
                write_in(temp, &step.path, content, step.mode, current_umask()).unwrap();
            }
            // The next one killed between its write and its rename.
            if let Some((step, _)) = content_steps.next() {
                std::fs::write(step.staged.as_ref().unwrap(), "half").unwrap();
            }
            (folder, journal)
        }
        fn set_boot(&self, folder: &Path, boot: &str) {
            let Read::Sealed(mut journal) = read_journal(folder) else {
                panic!("a sealed journal")
            };
            journal.boot = boot.to_string();
            std::fs::write(
                folder.join(JOURNAL),
                super::super::sealed_bytes(SEAL_DOMAIN, &journal).unwrap(),
            )
            .unwrap();
            if folder.join(DONE).exists() {
                std::fs::write(folder.join(DONE), boot).unwrap();
            }
        }
    }

    fn recover_now(state: &StateDir) -> usize {
        recover_within(state, Duration::ZERO, None).unwrap()
    }

    #[test]
    fn an_apply_writes_deletes_keeps_modes_and_is_finished_after_the_window() {
        let f = fixture();
        apply(&f.state, &f.changes).unwrap();
        assert!(f.is_after());
        assert_eq!(
            std::fs::metadata(&f.a).unwrap().permissions().mode() & 0o777,
            0o755
        );
        // Done, inside the writeback window: kept, and a recovery leaves it.
        let left = folders(&f.state);
        assert_eq!(left.len(), 1);
        assert!(left[0].join(DONE).exists());
        assert_eq!(recover(&f.state, None).unwrap(), 0);
        assert_eq!(folders(&f.state).len(), 1);
        // Past it: synced and removed, the tree untouched.
        assert_eq!(recover_now(&f.state), 0);
        assert!(folders(&f.state).is_empty());
        assert!(f.is_after());
    }

    #[test]
    fn an_interrupted_apply_is_undone_at_every_point() {
        for renamed in 0..=2 {
            let f = fixture();
            f.interrupted(renamed);
            assert_eq!(
                recover(&f.state, None).unwrap(),
                1,
                "after {renamed} renames"
            );
            assert!(f.is_before(), "after {renamed} renames");
            let litter: Vec<_> = std::fs::read_dir(f.a.parent().unwrap())
                .unwrap()
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().contains(".indus-patch."))
                .collect();
            assert!(litter.is_empty(), "after {renamed} renames: {litter:?}");
            assert!(folders(&f.state).is_empty());
        }
    }

    #[test]
    fn an_apply_killed_while_writing_its_journal_is_removed_untouched() {
        // SIGKILL halfway through the journal's write (tests/it/apply_patch.rs
        // met it 1 round in 700): a cut journal under the journal's own name
        // read as a foreign seal and was left for a person.
        let f = fixture();
        let base = f.state.path(PATCHES_DIR);
        std::fs::create_dir_all(&base).unwrap();
        let folder = new_folder(&base).unwrap();
        KILL_IN_JOURNAL_WRITE.set(Some(100));
        assert!(prepare(&folder, &f.changes, 0o022).is_err());
        assert!(folder.join("b0").exists(), "the originals were kept");
        assert_eq!(recover(&f.state, None).unwrap(), 0);
        assert!(folders(&f.state).is_empty());
        assert!(f.is_before());
    }

    #[test]
    fn a_folder_without_a_journal_is_removed_untouched() {
        let f = fixture();
        let folder = f.state.path(PATCHES_DIR).join("x");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("0"), "never").unwrap();
        assert_eq!(recover(&f.state, None).unwrap(), 0);
        assert!(folders(&f.state).is_empty());
        assert_eq!(read(&f.a).as_deref(), Some("a"));
    }

    #[test]
    fn undoing_leaves_a_file_someone_else_wrote_since() {
        let f = fixture();
        f.interrupted(2);
        std::fs::write(&f.a, "edited by hand").unwrap();
        assert_eq!(recover(&f.state, None).unwrap(), 1);
        assert_eq!(read(&f.a).as_deref(), Some("edited by hand"));
        assert_eq!(read(&f.b).as_deref(), Some("b"));
        assert!(!f.c.exists());
    }

    #[test]
    fn after_a_power_cut_a_torn_done_apply_is_undone_whole() {
        let f = fixture();
        apply(&f.state, &f.changes).unwrap();
        let folder = folders(&f.state).remove(0);
        f.set_boot(&folder, "another boot");
        // The kernel never wrote `c` back: renamed in, empty.
        std::fs::write(&f.c, "").unwrap();
        let t = std::fs::metadata(folder.join(DONE))
            .unwrap()
            .modified()
            .unwrap();
        std::fs::File::options()
            .write(true)
            .open(&f.c)
            .unwrap()
            .set_modified(t)
            .unwrap();
        assert_eq!(recover(&f.state, None).unwrap(), 1);
        assert!(f.is_before());
        assert!(folders(&f.state).is_empty());
    }

    #[test]
    fn after_a_power_cut_a_whole_done_apply_is_kept() {
        let f = fixture();
        apply(&f.state, &f.changes).unwrap();
        let folder = folders(&f.state).remove(0);
        f.set_boot(&folder, "another boot");
        // One target changed by hand after the apply: still a whole apply.
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&f.c, "later").unwrap();
        assert_eq!(recover(&f.state, None).unwrap(), 0);
        assert!(folders(&f.state).is_empty());
        assert_eq!(read(&f.a).as_deref(), Some("A"));
        assert_eq!(read(&f.c).as_deref(), Some("later"));
    }

    #[test]
    fn after_a_power_cut_mid_apply_every_target_goes_back() {
        let f = fixture();
        let (folder, _) = f.interrupted(1);
        f.set_boot(&folder, "another boot");
        // `a` went in, but its bytes never reached the disk.
        std::fs::write(&f.a, "").unwrap();
        assert_eq!(recover(&f.state, None).unwrap(), 1);
        assert!(f.is_before());
    }

    #[test]
    fn an_undo_cut_short_is_finished_by_the_next() {
        let f = fixture();
        let (folder, journal) = f.interrupted(2);
        // The first undo put `a` back and was killed before the rest.
        let a = journal.steps.iter().find(|s| s.path == f.a).unwrap();
        move_in(&folder.join(a.backup.as_ref().unwrap()), &f.a).unwrap();
        assert_eq!(recover(&f.state, None).unwrap(), 1);
        assert!(f.is_before());
        assert!(folders(&f.state).is_empty());
    }

    #[test]
    fn a_copied_projects_journal_never_touches_the_original() {
        let f = fixture();
        let (folder, _) = f.interrupted(1);
        // `cp -a` of the project: the copy's state folder holds the journal.
        let copy = tempfile::tempdir().unwrap();
        let state = StateDir::at(copy.path().join(".indus-process"));
        let there = state.path(PATCHES_DIR).join(folder.file_name().unwrap());
        std::fs::create_dir_all(&there).unwrap();
        for e in std::fs::read_dir(&folder).unwrap().flatten() {
            std::fs::copy(e.path(), there.join(e.file_name())).unwrap();
        }
        assert_eq!(recover(&state, None).unwrap(), 0);
        assert!(folders(&state).is_empty());
        // The original is still half done, for its own project to undo.
        assert_eq!(read(&f.a).as_deref(), Some("A"));
        assert_eq!(recover(&f.state, None).unwrap(), 1);
        assert!(f.is_before());
    }

    #[test]
    fn a_project_reached_through_a_link_undoes_its_own_apply() {
        let f = fixture();
        f.interrupted(1);
        let links = tempfile::tempdir().unwrap();
        let link = links.path().join("project");
        std::os::unix::fs::symlink(f.a.parent().unwrap(), &link).unwrap();
        let state = StateDir::at(link.join(".indus-process"));
        assert_eq!(recover(&state, None).unwrap(), 1);
        assert!(f.is_before());
    }

    #[test]
    fn a_live_apply_is_left_alone() {
        let f = fixture();
        let (folder, _) = f.interrupted(1);
        let held = crate::state::files::try_lock_at(&folder.join(LOCK))
            .unwrap()
            .unwrap();
        assert_eq!(recover(&f.state, None).unwrap(), 0);
        assert!(folder.exists());
        drop(held);
        assert_eq!(recover(&f.state, None).unwrap(), 1);
        assert!(f.is_before());
    }

    #[test]
    fn a_journal_without_this_users_seal_is_never_replayed() {
        let f = fixture();
        let (folder, journal) = f.interrupted(1);
        // The same journal as a checkout could carry it: unsealed, or sealed
        // by someone else, or edited after sealing.
        for forged in [
            serde_json::json!({"boot": journal.boot, "home": folder, "steps": [], "made": []}),
            {
                let mut v = serde_json::to_value(&journal).unwrap();
                v["seal"] = serde_json::json!("00".repeat(32));
                v
            },
            {
                let mut v = serde_json::to_value(&journal).unwrap();
                v["made"] = serde_json::json!(["/nowhere"]);
                v
            },
        ] {
            let mut forged = forged;
            if forged
                .get("steps")
                .is_some_and(|s| s.as_array().unwrap().is_empty())
            {
                forged["steps"] = serde_json::to_value(&journal.steps).unwrap();
            }
            std::fs::write(folder.join(JOURNAL), serde_json::to_vec(&forged).unwrap()).unwrap();
            assert_eq!(recover(&f.state, None).unwrap(), 0);
            assert!(
                folder.join(JOURNAL).exists(),
                "left for a person to look at"
            );
            assert!(!f.is_before(), "nothing undone");
        }
    }

    #[test]
    fn a_journal_that_is_a_link_is_not_followed() {
        let f = fixture();
        let (folder, _) = f.interrupted(1);
        let real = folder.join("real.json");
        std::fs::rename(folder.join(JOURNAL), &real).unwrap();
        // A link to a FIFO or /dev/zero would hang or exhaust memory if read.
        std::os::unix::fs::symlink("/dev/zero", folder.join(JOURNAL)).unwrap();
        assert_eq!(recover(&f.state, None).unwrap(), 0);
        assert!(matches!(read_journal(&folder), Read::Refused(_)));
    }

    #[test]
    fn a_linked_patches_folder_is_refused() {
        let f = fixture();
        let elsewhere = tempfile::tempdir().unwrap();
        let victim = elsewhere.path().join("victim");
        std::fs::create_dir(&victim).unwrap();
        std::fs::write(victim.join("keep"), "x").unwrap();
        f.state.ensure().unwrap();
        let _ = std::fs::remove_dir_all(f.state.path(PATCHES_DIR));
        std::os::unix::fs::symlink(elsewhere.path(), f.state.path(PATCHES_DIR)).unwrap();
        assert!(recover(&f.state, None).is_err());
        assert!(victim.join("keep").exists());
    }

    #[test]
    fn under_a_root_that_does_not_hold_its_files_an_apply_stays_pending() {
        let f = fixture();
        let (folder, _) = f.interrupted(1);
        let elsewhere = tempfile::tempdir().unwrap();
        let root = Root::new(elsewhere.path(), Path::new("/")).unwrap();
        assert_eq!(recover(&f.state, Some(&root)).unwrap(), 0);
        assert!(folder.exists() && !f.is_before());
        // Its own root (the project) admits every file: undone there.
        let project = Root::new(f.a.parent().unwrap(), Path::new("/")).unwrap();
        assert_eq!(recover(&f.state, Some(&project)).unwrap(), 1);
        assert!(f.is_before());
    }
}
