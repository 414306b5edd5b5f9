//! Checkpoints of shell commands: a command the toolbox runs under
//! `--checkpoint` (`bash`, `run_shell`, `task`, a background job) is bracketed by
//! two scans of the project tree ([`super::super::tree`]), and what differs
//! between them is recorded in the call's node like a file tool's change: the
//! content before (a kept copy the first scan made), the state after.
//!
//! A command cannot say which changes are its own, so what else wrote the tree
//! meanwhile is told apart through the change log, `checkpoints/changes.log`
//! (shared by every session of the state folder, one sealed JSON line each):
//!
//! - every checkpointed `write`, `edit` and `apply_patch` notes, under its file
//!   locks, the file's state before and after its change: a change the log
//!   explains from the first scan's state to the second's is that call's, and the
//!   command's node does not claim it;
//! - every command run notes its begin and its end: a change no write explains,
//!   made while another command ran in the tree, could be either's, and is
//!   recorded as uncertain (a rewind refuses it unless forced), as is a file
//!   both the command and a logged write changed.
//!
//! The log is emptied when it passes 1 MiB at the start of a run that finds no
//! other run active, so no reader's window loses its lines.
//!
//! Each run is kept open in `checkpoints/<session>/runs/` (sealed) until it
//! ends; one whose toolbox was killed meanwhile is closed by the next call, so
//! what its command changed is still recorded. A background job (`process
//! start`) has no end the toolbox sees: its run stays open until the session's next
//! checkpointed call or `checkpoint` command, which closes it first, so the job's
//! changes so far are its node's. That moment is chosen because it is the first
//! one at which the session looks at the tree again; what a job still running
//! changes after it is not told from what comes next.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::super::tree::{self, Blobs, Kind, Snapshot, Unscanned};
use super::*;

const LOG_REL: &str = "checkpoints/changes.log";
/// The runs open, of every session (see [`CheckpointStore::any_run_open`]).
const RUNS_REL: &str = "checkpoints/runs";
const SEAL_LOG: &str = "indus-tool checkpoint change 1";
const SEAL_PENDING: &str = "indus-tool checkpoint pending run 1";
/// Past this the change log is emptied by a run that finds no other active.
const LOG_ROTATE: u64 = 1024 * 1024;

/// One line of the change log.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct LogLine {
    /// A write's file (its real path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    /// Its state before (a hash, `absent`, `dir`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    before: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    after: Option<String>,
    /// A command run's id, at its begin and its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    run: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    end: bool,
    /// The process running it (liveness of a run whose end never came); 0 for a
    /// background job's run, open until closed.
    #[serde(default)]
    pid: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seal: Option<String>,
}

/// A command run between its two scans.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    node: String,
    named: bool,
    root: PathBuf,
    /// Where the change log ended at the first scan.
    log_at: u64,
    id: String,
    /// Another run active at the first scan (its id), if one was.
    overlap: Option<String>,
    /// The process running the command: while it lives, the run is its own.
    pid: u32,
    /// A background job's run, closed by the session's next checkpointed call.
    #[serde(default)]
    job: bool,
    /// Paths the first scan could not read (not covered), said once.
    #[serde(skip)]
    pub unscanned: Vec<Unscanned>,
    #[serde(skip)]
    before: Snapshot,
}

impl Run {
    pub fn node(&self) -> NodeName {
        NodeName {
            name: self.node.clone(),
            named: self.named,
        }
    }
}

/// What a run recorded, for the command's answer.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct RunReport {
    /// The paths changed (absolute), in the node now.
    pub recorded: Vec<String>,
    /// Changed, but the content before was not kept: `(path, why)`.
    pub not_kept: Vec<(String, String)>,
    /// Changed while another writer was at work: `(path, why)`.
    pub uncertain: Vec<(String, String)>,
    /// Not covered: could not be scanned.
    pub unscanned: Vec<Unscanned>,
}

/// The state a record's `after` and the log hold for a scanned entry (or its
/// absence).
fn sig(e: Option<&tree::Entry>) -> String {
    e.map_or_else(|| AFTER_ABSENT.to_string(), tree::Entry::signature)
}

/// Free a large snapshot on a thread of its own: tens of thousands of entries
/// take milliseconds to free, which the call need not wait for (a one-shot
/// invocation exits before they would be of use).
fn drop_aside(snap: Snapshot) {
    if snap.entries.len() > 4096 {
        std::thread::spawn(move || drop(snap));
    }
}

fn alive(pid: u32) -> bool {
    pid == 0 || nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), None).is_ok()
}

impl CheckpointStore {
    pub(super) fn tree_rel(&self) -> String {
        format!("{}/tree", self.rel)
    }

    /// Where an open run is kept until it ends: a run whose process died
    /// (SIGKILL) or a background job's is closed by the next call.
    fn pending_rel(&self, id: &str) -> String {
        format!("{RUNS_REL}/{}", file_key(id))
    }

    /// The tree a session's commands are checkpointed over: the project (the
    /// folder holding `.indus-process`), else `fallback` (the call's folder).
    pub fn tree_root(&self, fallback: &str) -> PathBuf {
        self.project()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| std::fs::canonicalize(fallback).unwrap_or_else(|_| fallback.into()))
    }

    /// The last scan (empty when there is none, or it is not this user's).
    pub(super) fn load_tree(&self) -> Snapshot {
        let Ok(path) = self.dir.checked(self.tree_rel()) else {
            return Snapshot::default();
        };
        match super::super::files::read_file(&path, 1 << 30) {
            Ok(bytes) => tree::decode(&bytes).unwrap_or_else(|| {
                passed_over(&path, "the checkpoint tree cache");
                Snapshot::default()
            }),
            Err(_) => Snapshot::default(),
        }
    }

    fn save_tree(&self, lock: &StateLock, snap: &Snapshot) -> io::Result<()> {
        let _ = lock;
        let bytes = tree::encode(snap).ok_or_else(|| {
            io::Error::other(
                "no folder for the user's state (set HOME or XDG_STATE_HOME): the tree cache could not be sealed",
            )
        })?;
        self.dir.make_dirs(&self.rel)?;
        self.dir.replace(&self.tree_rel(), &bytes, false)
    }

    /// Scan the tree (under the lock), keeping copies of what is new.
    fn scan_tree(
        &self,
        root: &Path,
        prev: &Snapshot,
    ) -> io::Result<(Snapshot, Vec<Unscanned>, bool)> {
        let dir = self.dir.make_dirs(format!("{}/blobs", self.rel))?;
        Ok(tree::scan(
            root,
            prev,
            &Blobs {
                dir: &dir,
                cap: self.cap,
            },
        ))
    }

    /// The files the last scan of `root` saw over the cap (not kept), sorted.
    pub fn over_cap(&self, root: &Path) -> Vec<(String, u64)> {
        let snap = self.load_tree();
        if snap.root != root {
            return Vec::new();
        }
        let mut out: Vec<(String, u64)> = snap
            .entries
            .into_iter()
            .filter(|(p, e)| tree::is_path(p) && e.kind == Kind::File && !e.kept)
            .map(|(p, e)| (p.to_string(), e.size))
            .collect();
        out.sort();
        out
    }

    /// Every blob the last scan refers to (kept from collection).
    pub(super) fn tree_blobs(&self) -> BTreeSet<String> {
        self.load_tree()
            .entries
            .into_values()
            .filter(|e| e.kind == Kind::File && e.kept)
            .map(|e| e.sum.to_string())
            .collect()
    }

    /// The change log's lines after byte `from`, those with this user's seal.
    fn log_lines(&self, from: u64) -> io::Result<(Vec<LogLine>, u64)> {
        let path = self.dir.checked(LOG_REL)?;
        let bytes = match super::super::files::read_file(&path, 64 * LOG_ROTATE) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
            Err(e) => return Err(state_error(&path, e)),
        };
        let end = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let from = (from as usize).min(end);
        let mut out = Vec::new();
        for line in bytes[from..end]
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
        {
            let Ok(mut l) = serde_json::from_slice::<LogLine>(line) else {
                continue;
            };
            let seal = l.seal.take();
            if user::verify_json(SEAL_LOG, &l, seal.as_deref()) {
                out.push(l);
            }
        }
        Ok((out, end as u64))
    }

    fn append_log(&self, lock: &StateLock, mut line: LogLine) -> io::Result<()> {
        use std::io::Write;
        let _ = lock;
        line.seal = None;
        line.seal = user::seal_json(SEAL_LOG, &line);
        let mut bytes = serde_json::to_vec(&line).map_err(io::Error::other)?;
        bytes.push(b'\n');
        self.dir.make_dirs(CHECKPOINTS_DIR)?;
        let path = self.dir.checked(LOG_REL)?;
        // A last line cut short (a power cut mid-append) is ended first, so
        // the new line does not join it and become unreadable with it.
        if super::super::files::last_line_torn(&path) {
            bytes.insert(0, b'\n');
        }
        super::super::files::open_to_write(&path, true)
            .and_then(|mut f| f.write_all(&bytes))
            .map_err(|e| state_error(&path, e))
    }

    /// Note a checkpointed file tool's change of `real` (its state before, when
    /// known, and after), and the folders it made, so a command running
    /// meanwhile does not claim it.
    ///
    /// Only while a run is open: called after the write, under the file's
    /// change lock, so a run begun before the write is open still (a run ending
    /// waits for that lock), and a run begun after it saw the write in its
    /// first scan.
    pub fn note_change(
        &self,
        real: &str,
        before: Option<&str>,
        after: &str,
        created: &[String],
    ) -> io::Result<()> {
        if !self.any_run_open() {
            return Ok(());
        }
        self.guard()?;
        let lock = self.dir.lock()?;
        for dir in created {
            self.append_log(
                &lock,
                LogLine {
                    path: Some(dir.clone()),
                    before: Some(AFTER_ABSENT.into()),
                    after: Some(tree::SIG_DIR.into()),
                    ..LogLine::default()
                },
            )?;
        }
        self.append_log(
            &lock,
            LogLine {
                path: Some(real.to_string()),
                before: before.map(str::to_string),
                after: Some(after.to_string()),
                ..LogLine::default()
            },
        )
    }

    /// Whether a command's run is open in this state folder (any session).
    pub(super) fn any_run_open(&self) -> bool {
        self.dir
            .checked(format!("{RUNS_REL}/x"))
            .ok()
            .and_then(|p| std::fs::read_dir(p.parent()?).ok())
            .is_some_and(|mut d| d.next().is_some())
    }

    /// Before a command runs: finish what is pending, refuse a stale turn (so
    /// nothing is run that could not be rewound), scan the tree (copying what
    /// changed since the last scan), and note the run's begin.
    pub fn begin_run(
        &self,
        node: &NodeName,
        root: &Path,
        pid: u32,
    ) -> Result<Run, CheckpointError> {
        self.guard()?;
        let lock = self.dir.lock()?;
        self.settle(&lock)?;
        self.begin_locked(&lock, node, root, pid)
    }

    fn begin_locked(
        &self,
        lock: &StateLock,
        node: &NodeName,
        root: &Path,
        pid: u32,
    ) -> Result<Run, CheckpointError> {
        // A tree that is the user's home folder or the filesystem's root is no
        // project: its first scan would copy all of it.
        let home = std::env::var_os("HOME").and_then(|h| std::fs::canonicalize(h).ok());
        if root.parent().is_none() || home.as_deref() == Some(root) {
            return Err(io::Error::other(format!(
                "{} is not a project folder (it is {}), and checkpointing a command copies the tree it runs in; run it in a project (a folder with .git or .indus-process), or without --checkpoint",
                root.display(),
                if root.parent().is_none() {
                    "the filesystem's root"
                } else {
                    "your home folder"
                }
            ))
            .into());
        }
        if node.named {
            self.open_node(lock, node)?;
        }
        let prev = self.load_tree();
        let (snap, unscanned, same) = self.scan_tree(root, &prev)?;
        if !same {
            self.save_tree(lock, &snap)?;
        }
        drop_aside(prev);
        // The runs still active (begun, not ended, their process alive).
        let (lines, end) = self.log_lines(0)?;
        let mut active: Vec<String> = Vec::new();
        for l in &lines {
            if let Some(id) = &l.run {
                // A later line of a run (a job's, parked) says again whether
                // it is open.
                active.retain(|a| a != id);
                let parked = || {
                    self.dir
                        .checked(self.pending_rel(id))
                        .is_ok_and(|p| p.is_file())
                };
                if !l.end && alive(l.pid) && (l.pid != 0 || parked()) {
                    active.push(id.clone());
                }
            }
        }
        let mut log_at = end;
        if active.is_empty() && end > LOG_ROTATE {
            remove_if_there(&self.dir.checked(LOG_REL)?)?;
            log_at = 0;
        }
        static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let id = format!(
            "{}:{}:{}:{}",
            self.rel,
            std::process::id(),
            crate::kernel::clock::now_ms(),
            RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        self.append_log(
            lock,
            LogLine {
                run: Some(id.clone()),
                pid,
                ..LogLine::default()
            },
        )?;
        let run = Run {
            node: node.name.clone(),
            named: node.named,
            root: root.to_path_buf(),
            log_at,
            id,
            overlap: active.into_iter().next(),
            pid,
            job: false,
            unscanned,
            before: snap,
        };
        // Kept until the run ends: one cut short (the toolbox killed while the
        // command ran) is closed by the next call, its changes still recorded.
        self.dir.make_dirs(RUNS_REL)?;
        self.dir
            .write_sealed(lock, &self.pending_rel(&run.id), SEAL_PENDING, &run, false)?;
        Ok(run)
    }

    /// After the command: scan again and record in the run's node what changed
    /// that no logged write explains.
    pub fn end_run(&self, run: Run) -> Result<RunReport, CheckpointError> {
        self.guard()?;
        let mut lock = self.dir.lock()?;
        self.finish_interrupted(&lock)?;
        let scanned = self.scan_tree(&run.root, &run.before)?;
        // A checkpointed write of a changed file still in flight (it has
        // written, and notes its change under this lock): let it finish, so
        // its line is in the log, rather than call its change uncertain. The
        // wait is bounded; what is still in flight after it is uncertain.
        let waiting: Vec<String> = if scanned.2 {
            Vec::new()
        } else {
            let (lines, _) = self.log_lines(run.log_at)?;
            tree::changes(&run.before, &scanned.0)
                .into_iter()
                .map(|(rel, _, _)| run.root.join(rel).to_string_lossy().into_owned())
                .filter(|abs| {
                    !lines
                        .iter()
                        .any(|l| l.path.as_deref() == Some(abs.as_str()))
                })
                .filter(|abs| self.file_change_in_flight(abs))
                .collect()
        };
        if !waiting.is_empty() {
            drop(lock);
            let deadline = std::time::Instant::now() + crate::kernel::backends::FILE_LOCK_WAIT;
            for abs in &waiting {
                while self.file_change_in_flight(abs) && std::time::Instant::now() < deadline {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            }
            lock = self.dir.lock()?;
        }
        self.finish_run(&lock, run, Some(scanned))
    }

    fn finish_run(
        &self,
        lock: &StateLock,
        run: Run,
        scanned: Option<(Snapshot, Vec<Unscanned>, bool)>,
    ) -> Result<RunReport, CheckpointError> {
        let (after, mut unscanned, same) = match scanned {
            Some(s) => s,
            None => self.scan_tree(&run.root, &run.before)?,
        };
        let (lines, _) = self.log_lines(run.log_at)?;
        let other_run = run.overlap.clone().or_else(|| {
            lines
                .iter()
                .filter_map(|l| l.run.clone())
                .find(|id| *id != run.id)
        });
        let mut report = RunReport::default();
        let mut records = Vec::new();
        let changed = if same {
            Vec::new()
        } else {
            tree::changes(&run.before, &after)
        };
        for (rel, b, a) in changed {
            let abs = run.root.join(rel).to_string_lossy().into_owned();
            let (from, to) = (sig(b), sig(a));
            let writes: Vec<&LogLine> = lines
                .iter()
                .filter(|l| l.path.as_deref() == Some(abs.as_str()))
                .collect();
            let uncertain = if writes.is_empty() {
                // A checkpointed write of it in flight (its lock held: it has
                // written and not yet noted) cannot be told from the command's.
                let in_flight = || self.file_change_in_flight(&abs);
                if other_run.is_some() {
                    Some("changed while another checkpointed command ran in this tree, so it may be that command's change".to_string())
                } else if in_flight() {
                    Some("changed while another checkpointed call was changing it, so it may be that call's change".to_string())
                } else {
                    None
                }
            } else {
                let chained = writes.first().and_then(|w| w.before.as_deref()) == Some(&from)
                    && writes
                        .windows(2)
                        .all(|w| w[1].before.is_some() && w[1].before == w[0].after)
                    && writes.last().and_then(|w| w.after.as_deref()) == Some(&to);
                if chained {
                    // Another call's own checkpointed change: its node holds it.
                    continue;
                }
                Some(
                    "changed by this command and by another checkpointed call at the same time"
                        .to_string(),
                )
            };
            let before = match b {
                None => Image::Absent,
                Some(e) => match e.kind {
                    Kind::File if e.kept => Image::Kept {
                        sha256: e.sum.to_string(),
                        size: e.size,
                        mode: Some(e.mode),
                    },
                    Kind::File => Image::OverCap {
                        size: e.size,
                        cap: self.cap,
                    },
                    Kind::Dir => Image::Dir { mode: Some(e.mode) },
                    Kind::Link => Image::Link {
                        target: e.sum.to_string(),
                    },
                },
            };
            if let Some(why) = before.not_kept() {
                report.not_kept.push((abs.clone(), why));
            }
            if let Some(why) = &uncertain {
                report.uncertain.push((abs.clone(), why.clone()));
            }
            report.recorded.push(abs.clone());
            records.push(FileRecord {
                path: abs,
                before,
                after: Some(to),
                created_dirs: Vec::new(),
                uncertain,
            });
        }
        if !records.is_empty() {
            let root = run.root.to_string_lossy().into_owned();
            self.record_changes(lock, &run.node(), records, root)?;
        }
        if !same {
            self.save_tree(lock, &after)?;
        }
        self.append_log(
            lock,
            LogLine {
                run: Some(run.id.clone()),
                end: true,
                ..LogLine::default()
            },
        )?;
        remove_if_there(&self.dir.checked(self.pending_rel(&run.id))?)?;
        drop_aside(after);
        drop_aside(run.before);
        report.unscanned = run.unscanned;
        for u in unscanned.drain(..) {
            if !report.unscanned.contains(&u) {
                report.unscanned.push(u);
            }
        }
        Ok(report)
    }

    /// Records of a run added to its node: a path the node holds already keeps
    /// its content before (first seen wins) and takes the new state after.
    fn record_changes(
        &self,
        lock: &StateLock,
        node: &NodeName,
        records: Vec<FileRecord>,
        root: String,
    ) -> Result<(), CheckpointError> {
        let (files, current) = self.open_node(lock, node)?;
        let mut n = match current {
            Some(n) => n,
            None => self.read_node(&files)?,
        };
        n.tree = Some(root);
        for rec in records {
            match n.files.iter_mut().find(|f| f.path == rec.path) {
                Some(f) => {
                    f.after = rec.after;
                    if rec.uncertain.is_some() {
                        f.uncertain = rec.uncertain;
                    }
                }
                None => n.files.push(rec),
            }
        }
        self.write_node(lock, &files, &n)?;
        self.forget_paths();
        Ok(())
    }

    /// Leave a background job's run open until the session's next checkpointed
    /// call (see the module comment).
    /// `job_pid` is the job's process, when the tool said it: while it lives
    /// the run is open for every other run (the process that started it has
    /// returned); a job of unknown process counts as open until closed.
    pub fn park_run(&self, run: &Run, job_pid: Option<u32>) -> io::Result<()> {
        self.guard()?;
        let lock = self.dir.lock()?;
        let mut run = run.clone();
        run.job = true;
        run.pid = job_pid.unwrap_or(0);
        self.append_log(
            &lock,
            LogLine {
                run: Some(run.id.clone()),
                pid: run.pid,
                ..LogLine::default()
            },
        )?;
        self.dir
            .write_sealed(&lock, &self.pending_rel(&run.id), SEAL_PENDING, &run, false)
    }

    /// Close the runs left open that are no longer running: a background job's
    /// (at the session's next call), one whose process died. Their changes
    /// since their first scan are recorded, oldest run first.
    pub(super) fn close_pending(&self, lock: &StateLock) -> Result<(), CheckpointError> {
        let dir = self.dir.checked(format!("{RUNS_REL}/x"))?;
        let Some(dir) = dir.parent() else {
            return Ok(());
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(());
        };
        // This session's runs: their ids begin with its folder's name.
        let mine = file_key(&format!("{}:", self.rel));
        let mut open: Vec<(PathBuf, Run)> = Vec::new();
        for e in entries.flatten() {
            if !e.file_name().to_string_lossy().starts_with(&mine) {
                continue;
            }
            let path = e.path();
            match super::super::read_sealed::<Run>(&path, SEAL_PENDING, NODE_CAP) {
                Ok(super::super::Sealed::Ours(run)) => open.push((path, run)),
                Ok(super::super::Sealed::Absent) => {}
                Ok(super::super::Sealed::Foreign) | Err(_) => {
                    passed_over(&path, "the open command run");
                }
            }
        }
        open.sort_by(|a, b| a.1.id.cmp(&b.1.id));
        for (path, mut run) in open {
            if !run.job && alive(run.pid) {
                continue;
            }
            run.before = self.load_tree();
            // One of another folder (a copied project's) is not this tree's.
            if run.before.root == run.root {
                self.finish_run(lock, run, None)?;
            }
            remove_if_there(&path)?;
        }
        Ok(())
    }

    /// What the session's store takes on disk: `(bytes, blobs)`.
    pub fn size(&self) -> io::Result<(u64, u64)> {
        let mut total = 0;
        let mut blobs = 0;
        let mut stack = vec![self.folder()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let Ok(m) = e.metadata() else { continue };
                if m.is_dir() {
                    stack.push(e.path());
                } else {
                    total += m.len();
                    if dir.ends_with("blobs") {
                        blobs += 1;
                    }
                }
            }
        }
        Ok((total, blobs))
    }

    /// Delete every blob neither a node nor the last scan refers to, and, with
    /// `tree`, the last scan too (the next checkpointed command copies the tree
    /// again). Answers the bytes freed.
    pub fn gc(&self, tree: bool) -> Result<u64, CheckpointError> {
        self.guard()?;
        let lock = self.dir.lock()?;
        self.settle(&lock)?;
        let before = self.size()?.0;
        if tree {
            remove_if_there(&self.dir.checked(self.tree_rel())?)?;
        }
        let (index, _) = self.read_index(&lock)?;
        self.collect_garbage(&lock, &index)?;
        Ok(before.saturating_sub(self.size()?.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_appended_after_a_torn_one_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let s = CheckpointStore::new(StateDir::new(&root), "s");
        let lock = s.dir.lock().unwrap();
        s.append_log(
            &lock,
            LogLine {
                run: Some("r1".into()),
                ..LogLine::default()
            },
        )
        .unwrap();
        // A power cut in the middle of the next append.
        let log = s.dir.checked(LOG_REL).unwrap();
        let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
        std::io::Write::write_all(&mut f, b"{\"run\":\"r2").unwrap();
        s.append_log(
            &lock,
            LogLine {
                run: Some("r3".into()),
                ..LogLine::default()
            },
        )
        .unwrap();
        let (lines, _) = s.log_lines(0).unwrap();
        let runs: Vec<_> = lines.iter().filter_map(|l| l.run.as_deref()).collect();
        assert_eq!(runs, ["r1", "r3"]);
    }

    #[test]
    fn a_run_records_what_the_command_changed_and_not_what_a_logged_write_did() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::write(root.join("a"), "one\n").unwrap();
        std::fs::write(root.join("b"), "bee\n").unwrap();
        let s = CheckpointStore::new(StateDir::new(&root), "s");
        let node = NodeName::turn("t1");
        let run = s.begin_run(&node, &root, std::process::id()).unwrap();
        // The command: a changed, c created; b changed by a logged write.
        std::fs::write(root.join("a"), "two\n").unwrap();
        std::fs::write(root.join("c"), "new\n").unwrap();
        std::fs::write(root.join("b"), "bee2\n").unwrap();
        let b = root.join("b").to_string_lossy().into_owned();
        s.note_change(&b, Some(&sha256_hex(b"bee\n")), &sha256_hex(b"bee2\n"), &[])
            .unwrap();
        let report = s.end_run(run).unwrap();
        let a = root.join("a").to_string_lossy().into_owned();
        let c = root.join("c").to_string_lossy().into_owned();
        assert_eq!(report.recorded, vec![a.clone(), c.clone()]);
        assert!(report.uncertain.is_empty());
        let rewound = s.rewind("t1", false, None, None).unwrap();
        assert_eq!(rewound.restored, vec![a]);
        assert_eq!(rewound.deleted, vec![c]);
        assert_eq!(std::fs::read_to_string(root.join("a")).unwrap(), "one\n");
        assert_eq!(std::fs::read_to_string(root.join("b")).unwrap(), "bee2\n");
        assert!(!root.join("c").exists());
    }
}
