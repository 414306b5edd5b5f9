//! A background job as the `process` tool's actions see it: its fate, read
//! live from the exit record and `/proc` (see `process`), and how it is shown
//! (the record, the headline, the refusal that names the jobs there are).
//! Shared by the tool, its `poll` and its waits, and the deck's `bg-process`.

use std::time::Duration;

use serde_json::{Value, json};

use super::shared::{human_duration, one_line, signal_name};
use crate::kernel::clock::iso8601_utc;
use crate::kernel::input::Args;
use crate::kernel::{InputWait, JobLiveness, ToolContext, ToolResult};
use crate::state::jobs::{JobBook, JobFiles, JobRecord, JobTable};

fn fail(message: impl Into<String>) -> ToolResult {
    ToolResult::failure(message)
}

pub(crate) fn state_error(e: std::io::Error) -> ToolResult {
    fail(format!("process could not use its state: {e}"))
}

/// A job as a record: `{id, pid, status, exitCode, signal, command, cwd,
/// startedAt, endedAt, stopped}` (`status` is `running`, `exited`, `killed` or
/// `lost`; times as ISO 8601 UTC with milliseconds, the one time format of the
/// tools' records, though the job table keeps epoch ms).
pub(crate) fn job_json(job: &JobRecord, seen: &Seen) -> Value {
    let (status, code, signal) = match seen.fate {
        Fate::Running => ("running", None, None),
        Fate::Exited(code) => ("exited", Some(code), None),
        Fate::Signalled(sig) => ("killed", None, Some(signal_name(sig))),
        Fate::Lost => ("lost", None, None),
    };
    json!({
        "id": job.id,
        "pid": job.pid,
        "status": status,
        "exitCode": code,
        "signal": signal,
        "command": job.command,
        "cwd": job.cwd,
        "startedAt": iso8601_utc(job.started_at),
        // The end is the exit record's mtime, which the file system stamps from
        // a coarser clock than the start's: never before the start.
        "endedAt": seen.ended_at.map(|end| iso8601_utc(end.max(job.started_at))),
        "stopped": job.stopped.is_some(),
        "tty": job.tty.map(|t| json!({"cols": t.cols, "rows": t.rows})),
        "waitingForInput": seen.waiting.as_ref().map(|w| json!({"pid": w.pid, "name": w.name, "how": w.how})),
    })
}

/// How a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fate {
    Running,
    Exited(i32),
    Signalled(i32),
    /// Ended, but no exit record exists (its supervisor was killed, or the machine
    /// restarted).
    Lost,
}

pub(crate) struct Seen {
    pub(crate) fate: Fate,
    /// Epoch ms when the exit was recorded.
    pub(crate) ended_at: Option<u64>,
    /// A running job caught waiting for input (filled by [`seen_of`]).
    pub(crate) waiting: Option<InputWait>,
}

impl Fate {
    /// `running`, `exited with code 0`, `killed by SIGTERM`, …
    pub(crate) fn phrase(self) -> String {
        match self {
            Fate::Running => "running".into(),
            Fate::Exited(code) => format!("exited with code {code}"),
            Fate::Signalled(sig) => format!("killed by {}", signal_name(sig)),
            Fate::Lost => "gone (its exit status was not recorded)".into(),
        }
    }

    /// The same as a predicate: `it exited with code 0`, `it was killed by SIGTERM`.
    pub(crate) fn sentence(self) -> String {
        match self {
            Fate::Running => "is still running".into(),
            Fate::Exited(code) => format!("exited with code {code}"),
            Fate::Signalled(sig) => format!("was killed by {}", signal_name(sig)),
            Fate::Lost => "is gone, its exit status not recorded".into(),
        }
    }

    /// The `list` column.
    pub(crate) fn short(self, stopped: bool) -> String {
        match self {
            Fate::Running => "running".into(),
            _ if stopped => "stopped".into(),
            Fate::Exited(code) => format!("exited {code}"),
            Fate::Signalled(sig) => format!("killed {}", signal_name(sig)),
            Fate::Lost => "gone".into(),
        }
    }
}

/// Parse the supervisor's record (`exit N`, `signal N`, or our own `lost`).
fn parse_record(text: &str) -> Option<Fate> {
    let line = text.trim();
    if line == "lost" {
        return Some(Fate::Lost);
    }
    let (kind, n) = line.split_once(' ')?;
    let n: i32 = n.parse().ok()?;
    match kind {
        "exit" => Some(Fate::Exited(n)),
        "signal" => Some(Fate::Signalled(n)),
        _ => None,
    }
}

async fn exit_record(ctx: &ToolContext, files: &JobFiles) -> Result<Option<Seen>, ToolResult> {
    let path = files.exit();
    match ctx.fs.read_text(&path).await {
        Ok(text) => {
            let fate = parse_record(&text).ok_or_else(|| {
                fail(format!(
                    "process could not use its state: the exit record {path} is corrupt ({:?}); fix or delete it",
                    text.trim()
                ))
            })?;
            let ended_at = ctx.fs.stat(&path).await.ok().map(|i| i.modified_ms as u64);
            Ok(Some(Seen {
                fate,
                ended_at,
                waiting: None,
            }))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(state_error(e)),
    }
}

/// A job's fate and, while it runs, whether it waits for input: what a view
/// of a job (`list`, `poll`, `screen`) shows. The look at `/proc` is taken only
/// here, not by the actions that need the fate alone (`write`, `stop`, `remove`).
/// A backend that cannot tell says nothing.
pub(crate) async fn seen_of(
    ctx: &ToolContext,
    files: &JobFiles,
    job: &JobRecord,
) -> Result<Seen, ToolResult> {
    let mut seen = fate_of(ctx, files, job).await?;
    if seen.fate == Fate::Running {
        seen.waiting = ctx.shell.job_input_wait(&job.identity()).ok().flatten();
    }
    Ok(seen)
}

/// Read a job's fate live (see the module comment).
pub(crate) async fn fate_of(
    ctx: &ToolContext,
    files: &JobFiles,
    job: &JobRecord,
) -> Result<Seen, ToolResult> {
    if let Some(seen) = exit_record(ctx, files).await? {
        return Ok(seen);
    }
    let alive = ctx
        .shell
        .probe_job(&job.identity())
        .map_err(|e| fail(format!("process cannot inspect {}: {e}", job.id)))?;
    if alive == JobLiveness::Running {
        return Ok(Seen {
            fate: Fate::Running,
            ended_at: None,
            waiting: None,
        });
    }
    // Ended: its supervisor is reaping it and writing the record right now, or
    // the supervisor is gone too. Give it a moment, then write the verdict down
    // so the next look is instant.
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(5)).await;
        if let Some(seen) = exit_record(ctx, files).await? {
            return Ok(seen);
        }
    }
    let _ = ctx.fs.write_file(&files.exit(), "lost\n").await;
    Ok(Seen {
        fate: Fate::Lost,
        ended_at: None,
        waiting: None,
    })
}

pub(crate) fn age(job: &JobRecord, now: u64) -> String {
    human_duration(now.saturating_sub(job.started_at))
}

pub(crate) fn load_table(book: &JobBook) -> Result<JobTable, ToolResult> {
    book.state.load(&book.table).map_err(state_error)
}

/// The job called `id`, or the refusal that lists the jobs there are.
pub(crate) fn find_job(table: &JobTable, id: &str) -> Result<JobRecord, ToolResult> {
    table
        .find(id)
        .cloned()
        .ok_or_else(|| unknown_job(id, table))
}

fn unknown_job(id: &str, table: &JobTable) -> ToolResult {
    if table.jobs.is_empty() {
        fail(format!(
            "No job \"{id}\": there are no background jobs in this directory."
        ))
    } else {
        let known: Vec<&str> = table.jobs.iter().map(|j| j.id.as_str()).collect();
        fail(format!(
            "No job \"{id}\"; the jobs here are {}.",
            known.join(", ")
        ))
    }
}

/// The header line `poll` and `stop` share.
pub(crate) fn headline(job: &JobRecord, seen: &Seen, now: u64) -> String {
    let command = one_line(&job.command);
    match seen.fate {
        Fate::Running => format!(
            "{} running for {} (pid {}){}: {command}",
            job.id,
            age(job, now),
            job.pid,
            seen.waiting.as_ref().map_or(String::new(), |w| format!(
                ", waiting for input ({} is {})",
                w.name, w.how
            ))
        ),
        fate => {
            let ran = seen
                .ended_at
                .map(|end| {
                    format!(
                        " after {}",
                        human_duration(end.saturating_sub(job.started_at))
                    )
                })
                .unwrap_or_default();
            let stopped = if job.stopped.is_some() {
                " (stopped)"
            } else {
                ""
            };
            format!("{} {}{ran}{stopped}: {command}", job.id, fate.phrase())
        }
    }
}

pub(crate) fn required_id<'a>(args: &Args<'a>) -> Result<&'a str, ToolResult> {
    args.required_str("id").map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_never_ends_before_it_started() {
        let job = JobRecord {
            id: "job-1".into(),
            command: "true".into(),
            cwd: "/".into(),
            pid: 1,
            pgid: 1,
            start_time: 0,
            started_at: 1_000,
            cursor: Default::default(),
            stopped: None,
            tty: None,
            seal: None,
        };
        // The exit record's mtime, from a coarser clock, 1 ms before the start.
        let early = Seen {
            fate: Fate::Exited(0),
            ended_at: Some(999),
            waiting: None,
        };
        assert_eq!(
            job_json(&job, &early)["endedAt"],
            "1970-01-01T00:00:01.000Z"
        );
        let later = Seen {
            fate: Fate::Exited(0),
            ended_at: Some(1_500),
            waiting: None,
        };
        assert_eq!(
            job_json(&job, &later)["endedAt"],
            "1970-01-01T00:00:01.500Z"
        );
    }

    #[test]
    fn records_parse() {
        assert_eq!(parse_record("exit 0\n"), Some(Fate::Exited(0)));
        assert_eq!(parse_record("signal 9\n"), Some(Fate::Signalled(9)));
        assert_eq!(parse_record("lost\n"), Some(Fate::Lost));
        assert_eq!(parse_record("exit"), None);
        assert_eq!(parse_record("boom 1"), None);
    }

    #[test]
    fn fates_read_naturally() {
        assert_eq!(Fate::Exited(3).phrase(), "exited with code 3");
        assert_eq!(Fate::Signalled(15).phrase(), "killed by SIGTERM");
        assert_eq!(Fate::Signalled(9).short(false), "killed SIGKILL");
        assert_eq!(Fate::Signalled(15).short(true), "stopped");
        assert_eq!(Fate::Running.short(true), "running");
    }
}
