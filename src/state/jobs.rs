//! The background-job table of the `process` tool: `.indus-process/jobs.json`, plus
//! one folder per job under `.indus-process/jobs/<id>/` holding what the job's
//! supervisor writes (`stdout`, `stderr`, the `stdin` FIFO, the `exit` record).
//!
//! The table is shared by every session of a working directory (a job is a thing
//! in the directory, not in a conversation) and only changes under the state lock.
//! It records who the job is (pid, group, start time), what it runs, and how far
//! each stream has been polled; the job's fate is never cached here but read live
//! from the exit record and `/proc`, so a table can never claim a dead job runs.
//!
//! A record names a process to signal and a folder to remove, so it is honoured
//! only under this user's seal ([`user::seal_json`]): a table that came with a
//! checkout loses its unsealed records as it is read (each said once on
//! stderr), and an id only ever names a folder inside `jobs/` ([`file_key`]).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{StateDir, file_key, user};
use crate::kernel::{JobIdentity, TtySize};

/// The table's file name inside the state folder.
pub const JOB_TABLE: &str = "jobs.json";

/// Every job of a working directory.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobTable {
    /// The number of the last job started; ids are never reused, even after `remove`.
    #[serde(default)]
    pub last_id: u64,
    #[serde(default, deserialize_with = "sealed_jobs")]
    pub jobs: Vec<JobRecord>,
}

/// The seal's domain for job records.
const SEAL_DOMAIN: &str = "indus-tool job 1";

/// The table's records that carry this user's seal; the others are said once
/// on stderr and left out, so nothing acts on them and the next write of the
/// table drops them.
fn sealed_jobs<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<JobRecord>, D::Error> {
    let all = Vec::<JobRecord>::deserialize(d)?;
    Ok(all
        .into_iter()
        .filter(|j| {
            let ok = j.sealed();
            if !ok {
                user::ignore_foreign(&format!("the job record {:?} (pid {})", j.id, j.pid));
            }
            ok
        })
        .collect())
}

/// One job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobRecord {
    pub id: String,
    pub command: String,
    pub cwd: String,
    pub pid: u32,
    pub pgid: u32,
    /// Clock ticks since boot, from `/proc/<pid>/stat`: tells the job's pid apart
    /// from a later process that reuses it.
    pub start_time: u64,
    /// Epoch milliseconds.
    pub started_at: u64,
    /// Bytes of each stream already returned by `poll`.
    #[serde(default)]
    pub cursor: Cursors,
    /// Set by `stop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<StopRecord>,
    /// The terminal's size, for a job started with `--tty` (its output is the
    /// terminal's, escapes and all, in `stdout`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tty: Option<TtySize>,
    /// This user's seal of who the job is (see [`JobRecord::sealed`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seal: Option<String>,
}

/// Poll positions.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursors {
    pub stdout: u64,
    pub stderr: u64,
}

/// When and how a job was stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StopRecord {
    /// Epoch milliseconds.
    pub at: u64,
    /// The last signal sent: `SIGTERM`, or `SIGKILL` when the grace ran out.
    pub signal: String,
}

impl JobRecord {
    /// What the seal covers: who the job is and what it runs (the cursors and
    /// the stop record change as it is polled and stopped), and a terminal's
    /// size (a screen is drawn in memory at that size), which a record without
    /// one leaves out so that older records still verify.
    fn sealed_part(&self) -> serde_json::Value {
        let who = (
            &self.id,
            &self.command,
            &self.cwd,
            self.pid,
            self.pgid,
            self.start_time,
            self.started_at,
        );
        match self.tty {
            None => serde_json::json!(who),
            Some(size) => serde_json::json!([who, size]),
        }
    }

    /// Seal the record as this user's (when it is made).
    pub fn seal(mut self) -> Self {
        let seal = user::seal_json(SEAL_DOMAIN, &self.sealed_part());
        self.seal = seal;
        self
    }

    /// Whether this user's toolbox wrote the record.
    pub fn sealed(&self) -> bool {
        user::verify_json(SEAL_DOMAIN, &self.sealed_part(), self.seal.as_deref())
    }

    pub fn identity(&self) -> JobIdentity {
        JobIdentity {
            pid: self.pid,
            pgid: self.pgid,
            start_time: self.start_time,
        }
    }
}

impl JobTable {
    /// Claim the next id (`job-1`, `job-2`, …).
    pub fn next_id(&mut self) -> String {
        self.next_id_with("job-")
    }

    /// Claim the next id with another prefix (`bg-1`, …).
    pub fn next_id_with(&mut self, prefix: &str) -> String {
        let highest = self
            .jobs
            .iter()
            .filter_map(|j| j.id.strip_prefix(prefix)?.parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        self.last_id = self.last_id.max(highest) + 1;
        format!("{prefix}{}", self.last_id)
    }

    pub fn find(&self, id: &str) -> Option<&JobRecord> {
        self.jobs.iter().find(|j| j.id == id)
    }

    pub fn find_mut(&mut self, id: &str) -> Option<&mut JobRecord> {
        self.jobs.iter_mut().find(|j| j.id == id)
    }
}

/// One table of jobs and the folder of their files. The job engine is one; its
/// tables are several: `process` keeps one per working directory (`jobs.json`,
/// `jobs/<id>/`), the deck's `bg-process` card one per session (in the session's
/// folder), so two sessions never see each other's jobs.
#[derive(Debug, Clone)]
pub struct JobBook {
    pub state: StateDir,
    /// The table file, relative to the state folder.
    pub table: String,
    /// The folder of the jobs' files, relative to the state folder.
    pub jobs_dir: String,
    /// What ids start with (`job-`, `bg-`).
    pub prefix: &'static str,
}

impl JobBook {
    /// The `process` tool's book.
    pub fn process(state: StateDir) -> Self {
        Self {
            state,
            table: JOB_TABLE.to_string(),
            jobs_dir: "jobs".to_string(),
            prefix: "job-",
        }
    }

    /// The language-server broker's book (`lsp/`): ids `lsp-N`, which the
    /// `process` tool's actions on one id also reach (`process stop lsp-1`).
    pub fn lsp_broker(state: StateDir) -> Self {
        Self {
            state,
            table: "lsp/broker-jobs.json".to_string(),
            jobs_dir: "lsp/broker".to_string(),
            prefix: "lsp-",
        }
    }

    /// The book an id of the `process` tool's actions is in: the broker's for
    /// `lsp-N`, else the tool's own.
    pub fn for_id(state: StateDir, id: Option<&str>) -> Self {
        match id {
            Some(id) if id.starts_with("lsp-") => Self::lsp_broker(state),
            _ => Self::process(state),
        }
    }

    /// The book's table and folder checked (see [`StateDir::checked`]): no link
    /// on the way, so removing a job's folder stays inside the state folder.
    /// Every action on the book starts here.
    pub fn guard(&self) -> std::io::Result<()> {
        self.state.checked(&self.table)?;
        self.state.checked(format!("{}/x", self.jobs_dir))?;
        Ok(())
    }

    /// Where job `id`'s files live.
    pub fn files(&self, id: &str) -> JobFiles {
        JobFiles {
            dir: self.state.path(&self.jobs_dir).join(file_key(id)),
        }
    }
}

/// Where one job's files live.
#[derive(Debug, Clone)]
pub struct JobFiles {
    pub dir: PathBuf,
}

impl JobFiles {
    pub fn of(state: &StateDir, id: &str) -> Self {
        Self {
            dir: state.path("jobs").join(file_key(id)),
        }
    }

    fn file(&self, name: &str) -> String {
        self.dir.join(name).to_string_lossy().into_owned()
    }

    pub fn dir_str(&self) -> String {
        self.dir.to_string_lossy().into_owned()
    }
    pub fn stdout(&self) -> String {
        self.file("stdout")
    }
    pub fn stderr(&self) -> String {
        self.file("stderr")
    }
    pub fn stdin(&self) -> String {
        self.file("stdin")
    }
    pub fn exit(&self) -> String {
        self.file("exit")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> JobRecord {
        JobRecord {
            id: id.into(),
            command: "true".into(),
            cwd: "/".into(),
            pid: 1,
            pgid: 1,
            start_time: 1,
            started_at: 0,
            cursor: Cursors::default(),
            stopped: None,
            tty: None,
            seal: None,
        }
        .seal()
    }

    #[test]
    fn ids_are_monotonic_and_never_reused() {
        let mut t = JobTable::default();
        assert_eq!(t.next_id(), "job-1");
        t.jobs.push(record("job-1"));
        assert_eq!(t.next_id(), "job-2");
        t.jobs.clear();
        assert_eq!(t.next_id(), "job-3");
        // A hand-edited table with a higher id than the counter still moves on.
        t.jobs.push(record("job-10"));
        assert_eq!(t.next_id(), "job-11");
    }

    #[test]
    fn the_table_round_trips_through_json() {
        let mut t = JobTable::default();
        t.next_id();
        let mut r = record("job-1");
        r.stopped = Some(StopRecord {
            at: 5,
            signal: "SIGTERM".into(),
        });
        t.jobs.push(r);
        let text = serde_json::to_string(&t).unwrap();
        assert!(text.contains("\"startTime\":1"), "{text}");
        let back: JobTable = serde_json::from_str(&text).unwrap();
        assert_eq!(back.jobs, t.jobs);
        assert_eq!(back.last_id, 1);
    }

    #[test]
    fn unsealed_or_altered_records_are_left_out_as_the_table_is_read() {
        let mut t = JobTable::default();
        t.jobs.push(record("job-1"));
        let mut forged = record("/home/u");
        forged.seal = None;
        t.jobs.push(forged);
        let mut altered = record("job-3");
        altered.pgid = 4242;
        t.jobs.push(altered);
        // A terminal's size is sealed too: a forged one is never drawn.
        let mut resized = record("job-4");
        resized.tty = Some(TtySize { cols: 80, rows: 24 });
        let mut resized = resized.seal();
        resized.tty = Some(TtySize {
            cols: 60000,
            rows: 60000,
        });
        t.jobs.push(resized);
        let back: JobTable = serde_json::from_str(&serde_json::to_string(&t).unwrap()).unwrap();
        assert_eq!(back.jobs.len(), 1);
        assert_eq!(back.jobs[0].id, "job-1");
    }

    #[test]
    fn an_id_never_leaves_the_jobs_folder() {
        let state = StateDir::at("/p/.indus-process");
        assert_eq!(
            JobFiles::of(&state, "/etc").dir,
            PathBuf::from("/p/.indus-process/jobs/%2Fetc")
        );
        assert_eq!(
            JobFiles::of(&state, "..").dir,
            PathBuf::from("/p/.indus-process/jobs/%2E.")
        );
        assert_eq!(
            JobFiles::of(&state, "job-7").dir,
            PathBuf::from("/p/.indus-process/jobs/job-7")
        );
    }
}
