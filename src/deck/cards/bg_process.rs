//! `bg-process`: the seed's background-process card, over the same job engine as
//! the `process` built-in (one engine, two tables). Its table and its jobs' files
//! live in the session's folder, so two sessions never see each other's jobs;
//! ids are `bg-1`, `bg-2`, …
//!
//! What the card adds is the seed's view of output: per stream, a ring of the last
//! [`RING_LINES`] lines. `poll` shows the ring (or, with `sinceLast`, only what
//! arrived since the previous poll, still at most the ring). The supervisor keeps
//! writing the whole stream to its capture file; the ring is how much of it a poll
//! reads back, from the end, so a chatty job never costs more than the ring to
//! look at.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Checkpoint, Effect, ScanWhen, Seat, ToolMeta};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::kernel::clock::now_ms;
use crate::kernel::input::Args;
use crate::kernel::{DefinedTool, JsonSchema, Tool, ToolContext, ToolResult, define_tool};
use crate::state::StateDir;
use crate::state::jobs::{JobBook, JobTable};
use crate::tools::shell::job::{Fate, find_job, headline, job_json, seen_of, state_error};
use crate::tools::shell::poll::read_window;
use crate::tools::shell::process::{list, start, stop};
use crate::tools::{clamp_for, text_and_record};

use super::session::session_rel;

/// Lines kept per stream.
pub const RING_LINES: usize = 2_000;
/// The most bytes of a stream one poll reads back (the ring's lines must fit).
pub const RING_BYTES: u64 = 1024 * 1024;

const ACTIONS: [&str; 4] = ["start", "poll", "stop", "list"];

/// The session's book of background jobs.
fn book(ctx: &ToolContext) -> JobBook {
    JobBook {
        state: StateDir::of(ctx),
        table: session_rel(ctx, "bg-jobs.json"),
        jobs_dir: session_rel(ctx, "bg-jobs"),
        prefix: "bg-",
    }
}

/// The last `keep` lines of `text`, and how many lines came before them.
fn last_lines(text: &str, keep: usize) -> (&str, usize) {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if body.is_empty() {
        return (text, 0);
    }
    let total = body.split('\n').count();
    if total <= keep {
        return (text, 0);
    }
    let dropped = total - keep;
    let start = body
        .match_indices('\n')
        .nth(dropped - 1)
        .map_or(0, |(i, _)| i + 1);
    (&text[start..], dropped)
}

struct Ring {
    text: String,
    /// Earlier lines left out of the ring (counted within what was read).
    dropped_lines: usize,
    /// Earlier bytes not read at all (past [`RING_BYTES`]).
    skipped_bytes: u64,
    end: u64,
}

async fn read_ring(
    ctx: &ToolContext,
    path: &str,
    from: u64,
    running: bool,
) -> Result<Ring, ToolResult> {
    let w = read_window(ctx, path, from, running, RING_BYTES).await?;
    let mut window = &w.bytes[..];
    let mut skipped = w.skipped;
    // A window cut inside a line begins at the next whole one.
    if skipped > 0
        && let Some(nl) = window.iter().position(|&b| b == b'\n')
    {
        skipped += nl as u64 + 1;
        window = &window[nl + 1..];
    }
    let text = String::from_utf8_lossy(window);
    let (kept, dropped_lines) = last_lines(&text, RING_LINES);
    Ok(Ring {
        text: kept.to_string(),
        dropped_lines,
        skipped_bytes: skipped,
        end: w.new_cursor,
    })
}

async fn poll(
    ctx: &ToolContext,
    args: &Args<'_>,
    book: &JobBook,
) -> Result<(String, Value), ToolResult> {
    let id = args.required_str("id").map_err(ToolResult::failure)?;
    let since_last = args
        .opt_bool("sinceLast")
        .map_err(ToolResult::failure)?
        .unwrap_or(false);
    // Under the lock, so two polls with sinceLast never both return the same lines.
    let lock = book.state.lock().map_err(state_error)?;
    let mut table: JobTable = book.state.read(&lock, &book.table).map_err(state_error)?;
    let job = find_job(&table, id)?;
    let files = book.files(id);
    let seen = seen_of(ctx, &files, &job).await?;
    let running = seen.fate == Fate::Running;
    let (out_from, err_from) = if since_last {
        (job.cursor.stdout, job.cursor.stderr)
    } else {
        (0, 0)
    };
    let out = read_ring(ctx, &files.stdout(), out_from, running).await?;
    let err = read_ring(ctx, &files.stderr(), err_from, running).await?;
    // Every poll moves the mark, so sinceLast means "since the previous poll".
    let (out_end, err_end) = (
        out.end.max(job.cursor.stdout),
        err.end.max(job.cursor.stderr),
    );
    if out_end != job.cursor.stdout || err_end != job.cursor.stderr {
        let entry = table.find_mut(id).expect("found above");
        entry.cursor.stdout = out_end;
        entry.cursor.stderr = err_end;
        book.state
            .write(&lock, &book.table, &table)
            .map_err(state_error)?;
    }
    drop(lock);

    let mut record = job_json(&job, &seen);
    for (name, ring) in [("stdout", &out), ("stderr", &err)] {
        record[name] = json!(ring.text);
        record[format!("{name}DroppedLines")] = json!(ring.dropped_lines);
        record[format!("{name}SkippedBytes")] = json!(ring.skipped_bytes);
    }
    let mut text = headline(&job, &seen, now_ms());
    text.push('\n');
    let quiet = |r: &Ring| r.text.is_empty() && r.dropped_lines == 0 && r.skipped_bytes == 0;
    if quiet(&out) && quiet(&err) {
        text.push_str(if since_last {
            "(no new output)"
        } else {
            "(no output)"
        });
        return Ok((text, record));
    }
    for (name, ring) in [("stdout", &out), ("stderr", &err)] {
        if quiet(ring) {
            continue;
        }
        text.push_str(name);
        text.push_str(":\n");
        if ring.dropped_lines > 0 || ring.skipped_bytes > 0 {
            let mut what = Vec::new();
            if ring.skipped_bytes > 0 {
                what.push(format!("{} earlier bytes", ring.skipped_bytes));
            }
            if ring.dropped_lines > 0 {
                what.push(format!("{} earlier lines", ring.dropped_lines));
            }
            text.push_str(&format!(
                "[bg-process: {} left out; the ring keeps the last {RING_LINES} lines]\n",
                what.join(" and ")
            ));
        }
        text.push_str(&ring.text);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    text.pop();
    Ok((text, record))
}

struct BgProcessCard;

/// The `bg-process` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Card,
    effect: Effect::Runs,
    checkpoint: Checkpoint::ByScan(ScanWhen::Key {
        key: "action",
        value: Some("start"),
        unless: None,
    }),
    fields: FIELDS,
    description: "Background jobs of this session (bg-N) keeping each job's last 2,000 lines: start, poll (sinceLast: only new), stop, list. Apart from process's jobs; use one of the two.",
    ..ToolMeta::new(
        "bg-process",
        "Background process",
        "Start, poll and stop long-lived commands, keeping the last 2,000 lines per stream.",
    )
};

/// `bg-process`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("action", Kind::Enum(&ACTIONS), "What to do."),
    Field::new("command", Kind::Text, "start: command line."),
    Field::new("cwd", Kind::Text, "start: directory."),
    Field::new("id", Kind::Text, "Job id."),
    Field::new("sinceLast", Kind::Bool, "poll: only what is new."),
];

#[async_trait]
impl Tool for BgProcessCard {
    fn output_schema(&self) -> Option<JsonSchema> {
        Some(crate::tools::shell::process::job_tool_schema(
            crate::kernel::schema_text(include_str!("bg_process.output.json")),
        ))
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let run = async {
            let args = Args::new(META.name, &input).map_err(ToolResult::failure)?;
            let action = args
                .required_enum("action", &ACTIONS)
                .map_err(ToolResult::failure)?;
            let book = book(ctx);
            book.guard()
                .map_err(|e| ToolResult::failure(format!("bg-process: {e}")))?;
            match action {
                "start" => start(ctx, &args, &book).await,
                "poll" => poll(ctx, &args, &book).await,
                "stop" => stop(ctx, &args, &book).await,
                _ => list(ctx, &book).await,
            }
        };
        match run.await {
            Ok((text, record)) => {
                text_and_record(clamp_for(ctx, "bg-process", &text), record, false)
            }
            Err(failure) => failure,
        }
    }
}

/// The `bg-process` card.
pub fn bg_process_card() -> DefinedTool {
    define_tool(Arc::new(BgProcessCard))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_keeps_the_last_lines() {
        assert_eq!(last_lines("", 2), ("", 0));
        assert_eq!(last_lines("a\nb\n", 2), ("a\nb\n", 0));
        assert_eq!(last_lines("a\nb\nc\n", 2), ("b\nc\n", 1));
        assert_eq!(last_lines("a\nb\nc", 2), ("b\nc", 1));
        assert_eq!(last_lines("a\nb\nc\nd", 1), ("d", 3));
        let many: String = (0..5000).map(|i| format!("{i}\n")).collect();
        let (kept, dropped) = last_lines(&many, RING_LINES);
        assert_eq!(dropped, 3000);
        assert!(kept.starts_with("3000\n") && kept.ends_with("4999\n"));
    }
}
