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
//! in the same timestamp tick leaves the stat as it was.
//!
//! What is covered: the files git would see (tracked and untracked-not-ignored:
//! `.gitignore`, `.git/info/exclude` and the user's global excludes, applied
//! inside and outside a repository alike), their folders and symlinks (the link
//! itself, never followed). `.git` and `.indus-process` folders are never
//! covered. A file over the cap is hashed but not copied: a command that changes
//! it is recorded as changed with its content not kept.
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
use std::sync::Mutex;

use ignore::{ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

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
    pub sum: String,
    /// A file whose content is kept in `blobs/<sum>` (not over the cap).
    pub kept: bool,
    /// Changed so near the scan that the next one reads it again.
    pub racy: bool,
}

impl Entry {
    /// Whether `self` (an older scan's) stands for the same content as a path
    /// with metadata `m` now, without reading it.
    fn same_stat(&self, kind: Kind, m: &std::fs::Metadata) -> bool {
        !self.racy
            && self.kind == kind
            && self.size == m.len()
            && self.mtime == nanos(m.mtime(), m.mtime_nsec())
            && self.ctime == nanos(m.ctime(), m.ctime_nsec())
            && self.ino == m.ino()
            && self.mode == m.mode() & 0o7777
    }

    /// The state a rewind compares against and a record's `after` holds: the
    /// hash of a file, `dir`, or `link:TARGET`.
    pub fn signature(&self) -> String {
        match self.kind {
            Kind::File => self.sum.clone(),
            Kind::Dir => SIG_DIR.to_string(),
            Kind::Link => format!("{SIG_LINK}{}", self.sum),
        }
    }
}

/// A record's `after` for a folder.
pub const SIG_DIR: &str = "dir";
/// A record's `after` for a symlink is this, then its target.
pub const SIG_LINK: &str = "link:";

fn nanos(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

/// A scan: every covered path below the root, relative to it.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The folder scanned (absolute); a cache of another root is not reused.
    pub root: PathBuf,
    pub entries: HashMap<String, Entry>,
}

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
            let sum = crate::kernel::digest::sha256_of_reader(file)?;
            return Ok((sum, false));
        }
        let mut bytes = Vec::with_capacity(size_hint as usize);
        (&mut file).take(self.cap + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > self.cap {
            // Grew past the cap while being read: hash what is there now.
            let sum = crate::kernel::digest::sha256_of_reader(super::files::open_file(path)?)?;
            return Ok((sum, false));
        }
        let sum = sha256_hex(&bytes);
        let blob = self.dir.join(&sum);
        if std::fs::symlink_metadata(&blob).is_err() {
            crate::sys::atomic_replace(&blob, &bytes, false)?;
        }
        Ok((sum, true))
    }
}

/// A path that could not be scanned: it is left out (not covered), and said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unscanned {
    pub path: String,
    pub why: String,
}

/// Scan `root`: stat every covered path, reuse `prev`'s entry where the stat is
/// unchanged, read, hash and keep (in `blobs`) every other file.
pub fn scan(root: &Path, prev: &Snapshot, blobs: &Blobs) -> (Snapshot, Vec<Unscanned>) {
    let started = {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        nanos(now.as_secs() as i64, now.subsec_nanos() as i64)
    };
    let reuse = prev.root == root;
    let mut builder = WalkBuilder::new(root);
    builder
        .standard_filters(false)
        .hidden(false)
        .follow_links(false)
        .ignore(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .parents(true)
        .require_git(false)
        .threads(2)
        .filter_entry(|e| {
            let name = e.file_name().as_bytes();
            name != b".git" && name != super::STATE_DIR_NAME.as_bytes()
        });
    let out = Mutex::new((HashMap::new(), Vec::new()));
    let mut threads = ScanThreads {
        root,
        prev: if reuse { Some(prev) } else { None },
        blobs,
        started,
        out: &out,
    };
    builder.build_parallel().visit(&mut threads);
    let (entries, unscanned) = out.into_inner().unwrap_or_else(|p| p.into_inner());
    (
        Snapshot {
            root: root.to_path_buf(),
            entries,
        },
        unscanned,
    )
}

struct ScanThreads<'a> {
    root: &'a Path,
    prev: Option<&'a Snapshot>,
    blobs: &'a Blobs<'a>,
    started: i64,
    out: &'a Mutex<(HashMap<String, Entry>, Vec<Unscanned>)>,
}

impl<'s, 'a: 's> ParallelVisitorBuilder<'s> for ScanThreads<'a> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(ScanThread {
            root: self.root,
            prev: self.prev,
            blobs: self.blobs,
            started: self.started,
            out: self.out,
            entries: Vec::new(),
            unscanned: Vec::new(),
        })
    }
}

struct ScanThread<'a> {
    root: &'a Path,
    prev: Option<&'a Snapshot>,
    blobs: &'a Blobs<'a>,
    started: i64,
    out: &'a Mutex<(HashMap<String, Entry>, Vec<Unscanned>)>,
    entries: Vec<(String, Entry)>,
    unscanned: Vec<Unscanned>,
}

impl Drop for ScanThread<'_> {
    fn drop(&mut self) {
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        out.0.extend(self.entries.drain(..));
        out.1.append(&mut self.unscanned);
    }
}

impl ScanThread<'_> {
    fn entry(&self, path: &Path, rel: &str) -> io::Result<Entry> {
        let m = std::fs::symlink_metadata(path)?;
        let ft = m.file_type();
        let kind = if ft.is_symlink() {
            Kind::Link
        } else if ft.is_dir() {
            Kind::Dir
        } else if ft.is_file() {
            Kind::File
        } else {
            return Err(io::Error::other(
                "not a file, folder or link (a socket, FIFO or device)",
            ));
        };
        let mtime = nanos(m.mtime(), m.mtime_nsec());
        let ctime = nanos(m.ctime(), m.ctime_nsec());
        let racy = mtime.max(ctime) >= self.started - RACY_NS;
        if let Some(old) = self.prev.and_then(|p| p.entries.get(rel))
            && old.same_stat(kind, &m)
        {
            return Ok(Entry {
                racy,
                ..old.clone()
            });
        }
        let (sum, kept) = match kind {
            Kind::Dir => (String::new(), true),
            Kind::Link => (
                std::fs::read_link(path)?
                    .to_string_lossy()
                    .into_owned(),
                true,
            ),
            Kind::File => self.blobs.keep(path, m.len())?,
        };
        Ok(Entry {
            kind,
            mode: m.mode() & 0o7777,
            size: m.len(),
            mtime,
            ctime,
            ino: m.ino(),
            sum,
            kept,
            racy,
        })
    }
}

impl ParallelVisitor for ScanThread<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> WalkState {
        let dent = match entry {
            Ok(d) => d,
            Err(e) => {
                self.unscanned.push(Unscanned {
                    path: String::new(),
                    why: e.to_string(),
                });
                return WalkState::Continue;
            }
        };
        if dent.depth() == 0 {
            return WalkState::Continue;
        }
        let path = dent.path();
        let Ok(rel) = path.strip_prefix(self.root) else {
            return WalkState::Continue;
        };
        let Some(rel) = rel.to_str().map(str::to_string) else {
            self.unscanned.push(Unscanned {
                path: rel.to_string_lossy().into_owned(),
                why: "its name is not UTF-8".into(),
            });
            return WalkState::Skip;
        };
        match self.entry(path, &rel) {
            Ok(e) => self.entries.push((rel, e)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => self.unscanned.push(Unscanned {
                path: rel,
                why: e.to_string(),
            }),
        }
        WalkState::Continue
    }
}

/// What a scan of `root` passes over: the paths git would ignore, each named
/// at its top (a folder, not its files), sorted; at most `limit` of them, and
/// how many there are. For `checkpoint diff`, which says what a command's
/// checkpoint does not cover.
pub fn not_covered(root: &Path, limit: usize) -> (Vec<String>, usize) {
    let mut covered = std::collections::HashSet::new();
    let mut seen = WalkBuilder::new(root);
    seen.standard_filters(false)
        .hidden(false)
        .ignore(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .require_git(false)
        .filter_entry(|e| {
            let name = e.file_name().as_bytes();
            name != b".git" && name != super::STATE_DIR_NAME.as_bytes()
        });
    for e in seen.build().flatten() {
        covered.insert(e.into_path());
    }
    let found = std::sync::Arc::new(Mutex::new(Vec::new()));
    let covered = std::sync::Arc::new(covered);
    let base = root.to_path_buf();
    let mut all = WalkBuilder::new(root);
    let into = found.clone();
    all.standard_filters(false).hidden(false).filter_entry(move |e| {
        let name = e.file_name().as_bytes();
        if e.depth() == 0 {
            return true;
        }
        if name == b".git" || name == super::STATE_DIR_NAME.as_bytes() {
            return false;
        }
        if covered.contains(e.path()) {
            return true;
        }
        let rel = e.path().strip_prefix(&base).unwrap_or(e.path());
        let mut shown = rel.to_string_lossy().into_owned();
        if std::fs::symlink_metadata(e.path()).is_ok_and(|m| m.is_dir()) {
            shown.push('/');
        }
        into.lock().unwrap_or_else(|p| p.into_inner()).push(shown);
        false
    });
    for _ in all.build() {}
    let mut found = std::mem::take(&mut *found.lock().unwrap_or_else(|p| p.into_inner()));
    found.sort();
    let total = found.len();
    found.truncate(limit);
    (found, total)
}

/// What changed between two scans, by path (sorted): `(path, before, after)`,
/// either side `None` for a path that was not there. A folder's times are not a
/// change; its mode is.
pub fn changes<'a>(
    old: &'a Snapshot,
    new: &'a Snapshot,
) -> Vec<(&'a str, Option<&'a Entry>, Option<&'a Entry>)> {
    let mut out = Vec::new();
    for (path, after) in &new.entries {
        match old.entries.get(path) {
            None => out.push((path.as_str(), None, Some(after))),
            Some(before)
                if before.kind != after.kind
                    || before.sum != after.sum
                    || before.mode != after.mode =>
            {
                out.push((path.as_str(), Some(before), Some(after)))
            }
            Some(_) => {}
        }
    }
    for (path, before) in &old.entries {
        if !new.entries.contains_key(path) {
            out.push((path.as_str(), Some(before), None));
        }
    }
    out.sort_by(|a, b| a.0.cmp(b.0));
    out
}

/// The cache's bytes: a header line with the root and the seal, then one entry
/// per path: `KIND MODE SIZE MTIME CTIME INO KEPT RACY SUM\tPATH\0` (a path holds
/// no NUL; a link's target, the one `SUM` that may hold anything, is hex-encoded).
pub fn encode(snap: &Snapshot) -> Option<Vec<u8>> {
    use std::fmt::Write;
    let mut body = String::with_capacity(snap.entries.len() * 120);
    let mut paths: Vec<&String> = snap.entries.keys().collect();
    paths.sort();
    for path in paths {
        let e = &snap.entries[path];
        let sum = match e.kind {
            Kind::Link => hex(e.sum.as_bytes()),
            _ => e.sum.clone(),
        };
        let _ = write!(
            body,
            "{} {:o} {} {} {} {} {} {} {sum}\t{path}\0",
            e.kind.letter() as char,
            e.mode,
            e.size,
            e.mtime,
            e.ctime,
            e.ino,
            u8::from(e.kept),
            u8::from(e.racy),
        );
    }
    let root = hex(snap.root.as_os_str().as_bytes());
    let mut signed = format!("{root}\n").into_bytes();
    signed.extend_from_slice(body.as_bytes());
    let seal = user::seal(SEAL_TREE, &signed)?;
    let mut out = format!("{MAGIC} {seal}\n").into_bytes();
    out.extend_from_slice(&signed);
    Some(out)
}

/// The cache read back: `None` when it is not this user's (no seal of theirs)
/// or does not parse, and the tree is then scanned afresh.
pub fn decode(bytes: &[u8]) -> Option<Snapshot> {
    let nl = bytes.iter().position(|b| *b == b'\n')?;
    let header = std::str::from_utf8(&bytes[..nl]).ok()?;
    let seal = header.strip_prefix(MAGIC)?.trim();
    let signed = &bytes[nl + 1..];
    if !user::verify(SEAL_TREE, signed, seal) {
        return None;
    }
    let nl = signed.iter().position(|b| *b == b'\n')?;
    let root = PathBuf::from(std::ffi::OsStr::from_bytes(&unhex(&signed[..nl])?));
    let mut entries = HashMap::new();
    for rec in signed[nl + 1..].split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let rec = std::str::from_utf8(rec).ok()?;
        let (fields, path) = rec.split_once('\t')?;
        let mut f = fields.split(' ');
        let kind = match f.next()? {
            "f" => Kind::File,
            "d" => Kind::Dir,
            "l" => Kind::Link,
            _ => return None,
        };
        let mode = u32::from_str_radix(f.next()?, 8).ok()?;
        let size = f.next()?.parse().ok()?;
        let mtime = f.next()?.parse().ok()?;
        let ctime = f.next()?.parse().ok()?;
        let ino = f.next()?.parse().ok()?;
        let kept = f.next()? == "1";
        let racy = f.next()? == "1";
        let sum = f.next().unwrap_or_default();
        let sum = match kind {
            Kind::Link => String::from_utf8(unhex(sum.as_bytes())?).ok()?,
            _ => sum.to_string(),
        };
        entries.insert(
            path.to_string(),
            Entry {
                kind,
                mode,
                size,
                mtime,
                ctime,
                ino,
                sum,
                kept,
                racy,
            },
        );
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
    if s.len() % 2 != 0 {
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
        let (first, unscanned) = scan(root, &Snapshot::default(), &blobs);
        assert!(unscanned.is_empty(), "{unscanned:?}");
        let mut paths: Vec<&str> = first.entries.keys().map(String::as_str).collect();
        paths.sort();
        assert_eq!(paths, [".gitignore", "a.txt", "d", "d/e", "ln"]);
        assert_eq!(first.entries["ln"].sum, "a.txt");
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
        // A change found, the rest reused.
        std::fs::write(root.join("a.txt"), "two\n").unwrap();
        std::fs::remove_dir(root.join("d/e")).unwrap();
        let (second, _) = scan(root, &first, &blobs);
        let got: Vec<(&str, bool, bool)> = changes(&first, &second)
            .into_iter()
            .map(|(p, b, a)| (p, b.is_some(), a.is_some()))
            .collect();
        assert_eq!(got, [("a.txt", true, true), ("d/e", true, false)]);
        drop(home);
    }

    #[test]
    fn over_the_cap_is_hashed_not_kept() {
        let home = tempfile::tempdir().unwrap();
        let tree = tempfile::tempdir().unwrap();
        std::fs::write(tree.path().join("big"), "0123456789").unwrap();
        let bdir = blobs_in(home.path());
        let (snap, _) = scan(
            tree.path(),
            &Snapshot::default(),
            &Blobs {
                dir: &bdir,
                cap: 4,
            },
        );
        let e = &snap.entries["big"];
        assert!(!e.kept);
        assert_eq!(e.sum, sha256_hex(b"0123456789"));
        assert_eq!(std::fs::read_dir(&bdir).unwrap().count(), 0);
    }
}
