//! The journal that makes a multi-file change all or nothing on disk:
//! `.indus-process/patches/<id>/`.
//!
//! A rename replaces one file atomically; nothing replaces several at once. So a
//! change of several files is staged first: every new content is written (and
//! synced) into the apply's folder, then `journal.json` is written atomically.
//! That write is the commit point. Only then are the staged files renamed over
//! their targets and the deleted files removed, and the folder goes last.
//!
//! An apply interrupted at any moment (SIGKILL, power loss) leaves one of two
//! things, and the next invocation in the project finishes it
//! ([`recover`]): a folder without a journal (nothing in the tree was touched
//! yet) is removed, which rolls the apply back; a folder with a journal is
//! rolled forward, every step being idempotent (a staged file still present is
//! renamed in, a path to delete is removed if it is there). Each path appears
//! once in a journal, holding its final state, so replaying a step can never
//! undo another. A live apply holds the lock of its folder, and recovery leaves
//! a locked folder alone.
//!
//! A folder a deletion leaves empty is removed, as `git apply` does.
//!
//! Staging under the state folder, not beside each target, keeps an
//! interrupted apply's half-written files out of the user's tree. A target on
//! another filesystem than the state folder (where a rename cannot reach) is
//! written through a temporary file beside it instead, still by a rename.

use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::StateDir;
use crate::backends::local::atomic_write;

/// The folder of pending applies inside the state folder.
pub const PATCHES_DIR: &str = "patches";
const JOURNAL: &str = "journal.json";
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

#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    steps: Vec<Step>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Step {
    path: PathBuf,
    /// The staged file's name in the apply's folder; `None` deletes `path`.
    staged: Option<String>,
}

/// Apply `changes` all or nothing (see the module comment). The caller has
/// checked everything it can beforehand (each target a regular file or absent,
/// its folder creatable); an error here before the commit point leaves the tree
/// as it was, one after it is finished by the next [`recover`].
pub fn apply(dir: &StateDir, changes: &[Change]) -> io::Result<()> {
    debug_assert!({
        let mut paths: Vec<&PathBuf> = changes.iter().map(|c| &c.path).collect();
        paths.sort();
        paths.windows(2).all(|w| w[0] != w[1])
    });
    dir.ensure()?;
    let base = dir.path(PATCHES_DIR);
    std::fs::create_dir_all(&base)?;
    let folder = new_folder(&base)?;
    let _lock = super::try_lock_at(&folder.join(LOCK))?
        .ok_or_else(|| io::Error::other("a fresh patch folder is locked by another process"))?;
    let staged = stage(&folder, changes);
    let (steps, staged_files) = match staged {
        Ok(staged) => staged,
        Err(e) => {
            // Nothing in the tree was touched: the apply is rolled back.
            let _ = std::fs::remove_dir_all(&folder);
            return Err(e);
        }
    };
    // Every staged file reaches the disk before the journal that commits them.
    if let Err(e) = sync_all(&staged_files) {
        let _ = std::fs::remove_dir_all(&folder);
        return Err(e);
    }
    let journal = serde_json::to_vec(&Journal { steps }).map_err(io::Error::other)?;
    if let Err(e) = atomic_write(&folder.join(JOURNAL), &journal) {
        let _ = std::fs::remove_dir_all(&folder);
        return Err(e);
    }
    sync_dir(&folder);
    roll_forward(&folder)?;
    std::fs::remove_dir_all(&folder)
}

/// Finish every apply an interrupted invocation left (see the module comment);
/// how many were rolled forward and how many back. Cheap when there is none: one
/// `stat` of the folder.
pub fn recover(dir: &StateDir) -> io::Result<(usize, usize)> {
    let base = dir.path(PATCHES_DIR);
    let entries = match std::fs::read_dir(&base) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((0, 0)),
        Err(e) => return Err(e),
    };
    let (mut forward, mut back) = (0, 0);
    for entry in entries.flatten() {
        let folder = entry.path();
        if !folder.is_dir() {
            continue;
        }
        // A live apply holds its folder's lock and is left alone. A folder
        // made an instant ago, before its maker locked it, holds no journal and
        // is removed: its maker then fails before touching the tree.
        let Ok(Some(_lock)) = super::try_lock_at(&folder.join(LOCK)) else {
            continue;
        };
        if folder.join(JOURNAL).is_file() {
            roll_forward(&folder)?;
            forward += 1;
        } else {
            back += 1;
        }
        std::fs::remove_dir_all(&folder)?;
    }
    Ok((forward, back))
}

fn new_folder(base: &Path) -> io::Result<PathBuf> {
    let stamp = crate::tools::base36(crate::tools::now_ms());
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

fn stage(folder: &Path, changes: &[Change]) -> io::Result<(Vec<Step>, Vec<PathBuf>)> {
    let mut steps = Vec::with_capacity(changes.len());
    let mut files = Vec::with_capacity(changes.len());
    for (n, change) in changes.iter().enumerate() {
        let Some(content) = &change.content else {
            steps.push(Step {
                path: change.path.clone(),
                staged: None,
            });
            continue;
        };
        let name = n.to_string();
        let file = folder.join(&name);
        let mut f = std::fs::File::create(&file)?;
        f.write_all(content)?;
        // The mode the file will have: the one asked, else the target's own,
        // else a new file's default (0666 less the umask, as `File::create`
        // just gave the staged file).
        let mode = change.mode.or_else(|| {
            std::fs::metadata(&change.path)
                .ok()
                .map(|m| m.permissions().mode() & 0o7777)
        });
        if let Some(mode) = mode {
            f.set_permissions(std::fs::Permissions::from_mode(mode))?;
        }
        steps.push(Step {
            path: change.path.clone(),
            staged: Some(name),
        });
        files.push(file);
    }
    Ok((steps, files))
}

/// Carry out a committed journal; every step may already have been done.
fn roll_forward(folder: &Path) -> io::Result<()> {
    let bytes = std::fs::read(folder.join(JOURNAL))?;
    let journal: Journal = serde_json::from_slice(&bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("patch journal {} is corrupt ({e})", folder.display()),
        )
    })?;
    for step in &journal.steps {
        match &step.staged {
            Some(name) => {
                let staged = folder.join(name);
                if !staged.exists() {
                    continue;
                }
                if let Some(parent) = step.path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                match std::fs::rename(&staged, &step.path) {
                    Ok(()) => {}
                    Err(e) if e.raw_os_error() == Some(nix::libc::EXDEV) => {
                        across_filesystems(&staged, &step.path)?;
                        std::fs::remove_file(&staged)?;
                    }
                    Err(e) => return Err(e),
                }
            }
            None => match std::fs::remove_file(&step.path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            },
        }
    }
    // Folders a deletion left empty go too, as `git apply` removes them (never
    // the project folder, which holds the state folder, nor anything above it).
    let project = folder.ancestors().nth(3).map(Path::to_path_buf);
    for step in journal.steps.iter().filter(|s| s.staged.is_none()) {
        let mut dir = step.path.parent();
        while let Some(d) = dir {
            let inside = project
                .as_deref()
                .is_some_and(|p| d.starts_with(p) && d != p);
            if !inside || std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
    }
    // The renames and unlinks made durable: each folder they touched, synced
    // (best effort: the journal still holds them until the folder goes).
    let mut parents: Vec<&Path> = journal
        .steps
        .iter()
        .filter_map(|s| s.path.parent())
        .collect();
    parents.sort();
    parents.dedup();
    let _ = sync_all(&parents);
    Ok(())
}

/// A staged file moved to another filesystem: copied beside the target (mode
/// kept), synced, renamed over it.
fn across_filesystems(staged: &Path, target: &Path) -> io::Result<()> {
    let name = target
        .file_name()
        .ok_or_else(|| io::Error::other("a target without a name"))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".indus-patch.{}", std::process::id()));
    let temp = target.with_file_name(temp_name);
    std::fs::copy(staged, &temp)?;
    std::fs::File::open(&temp)?.sync_all()?;
    std::fs::rename(&temp, target)
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

    fn change(path: &Path, content: Option<&str>) -> Change {
        Change {
            path: path.to_path_buf(),
            content: content.map(|c| c.as_bytes().to_vec()),
            mode: None,
        }
    }

    #[test]
    fn an_apply_writes_deletes_and_leaves_no_folder() {
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
        apply(
            &state,
            &[
                change(&a, Some("A")),
                change(&b, None),
                change(&c, Some("C")),
            ],
        )
        .unwrap();
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "A");
        assert_eq!(
            std::fs::metadata(&a).unwrap().permissions().mode() & 0o777,
            0o755
        );
        assert!(!b.exists());
        assert_eq!(std::fs::read_to_string(&c).unwrap(), "C");
        assert_eq!(
            std::fs::read_dir(state.path(PATCHES_DIR)).unwrap().count(),
            0
        );
    }

    #[test]
    fn recovery_rolls_a_journal_forward_and_a_bare_stage_back() {
        let tmp = tempfile::tempdir().unwrap();
        let state = StateDir::at(tmp.path().join(".indus-process"));
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        std::fs::write(&a, "a").unwrap();
        std::fs::write(&b, "b").unwrap();
        let base = state.path(PATCHES_DIR);
        // Committed, one step done (a renamed in), the other not.
        let f1 = base.join("one");
        std::fs::create_dir_all(&f1).unwrap();
        std::fs::write(f1.join("1"), "B").unwrap();
        let journal = Journal {
            steps: vec![
                Step {
                    path: a.clone(),
                    staged: Some("0".into()),
                },
                Step {
                    path: b.clone(),
                    staged: Some("1".into()),
                },
            ],
        };
        std::fs::write(f1.join(JOURNAL), serde_json::to_vec(&journal).unwrap()).unwrap();
        // Not committed: staged content only.
        let f2 = base.join("two");
        std::fs::create_dir_all(&f2).unwrap();
        std::fs::write(f2.join("0"), "never").unwrap();
        assert_eq!(recover(&state).unwrap(), (1, 1));
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a");
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "B");
        assert_eq!(std::fs::read_dir(&base).unwrap().count(), 0);
        assert_eq!(recover(&state).unwrap(), (0, 0));
    }

    #[test]
    fn a_live_apply_is_left_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let state = StateDir::at(tmp.path().join(".indus-process"));
        let folder = state.path(PATCHES_DIR).join("live");
        std::fs::create_dir_all(&folder).unwrap();
        let held = crate::state::try_lock_at(&folder.join(LOCK))
            .unwrap()
            .unwrap();
        assert_eq!(recover(&state).unwrap(), (0, 0));
        assert!(folder.exists());
        drop(held);
        assert_eq!(recover(&state).unwrap(), (0, 1));
    }
}
