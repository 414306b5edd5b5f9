//! `process poll` and `process screen`: a job's output since the last look,
//! and a terminal job's screen.
//!
//! `poll` returns what is new past the cursor (the newest 32 KiB of each
//! stream) and moves the cursor. With `until` or `waitMs` it first waits
//! (see `wait`): the answer then ends just after the matching line, and its
//! record says why the wait ended, which the command line turns into
//! timeout(1)'s statuses: 0 matched (or new output), 1 the job ended first,
//! 124 the time ran out, 3 the job stopped to wait for input. What a poll
//! skips stays in the job's capture file, and the notice names the `read`
//! call that shows it. A terminal job's output is shown as plain text (escapes
//! stripped, see `terminal`) unless `raw` is asked.

use std::time::Duration;

use regex::Regex;
use serde_json::{Value, json};

use super::job::{Fate, find_job, headline, job_json, required_id, seen_of, state_error};
use super::terminal::{self, SCREEN_REPLAY, plain_text};
use super::wait::{self, Outcome, WaitSpec};
use crate::kernel::clock::now_ms;
use crate::kernel::input::Args;
use crate::kernel::{ToolContext, ToolResult};
use crate::state::jobs::{JobBook, JobTable};

/// The most of each stream one `poll` returns: the newest bytes win.
pub const POLL_WINDOW: u64 = 32 * 1024;
/// How long `until` waits when `waitMs` is not given.
pub const DEFAULT_WAIT_MS: u64 = 30_000;
/// The longest wait: 10 minutes, as `bash`'s deadline.
pub const MAX_WAIT_MS: u64 = 600_000;

fn fail(message: impl Into<String>) -> ToolResult {
    ToolResult::failure(message)
}

/// `until` and `waitMs`: a wait, or none (a poll that returns at once).
fn wait_spec(args: &Args<'_>) -> Result<Option<WaitSpec>, String> {
    let until = match args.opt_str("until")? {
        Some(pattern) => Some(
            Regex::new(pattern)
                .map_err(|e| format!("\"until\" is not a valid regular expression: {e}"))?,
        ),
        None => None,
    };
    let wait = args.opt_millis("waitMs", MAX_WAIT_MS)?;
    Ok(match (until, wait) {
        (None, None) => None,
        (until, wait) => Some(WaitSpec {
            until,
            wait: Duration::from_millis(wait.unwrap_or(DEFAULT_WAIT_MS)),
        }),
    })
}

/// The wait's line of the answer and its record.
fn wait_report(spec: &WaitSpec, outcome: &Outcome, took: Duration, id: &str) -> (String, Value) {
    let ms = took.as_millis() as u64;
    let pattern = spec.until.as_ref().map(|r| r.as_str());
    let what = pattern.map_or("new output".to_string(), |p| {
        format!("a line matching /{p}/")
    });
    let (name, line) = match outcome {
        Outcome::Matched { stream, line, .. } => (
            "matched",
            format!(
                "matched /{}/ on {stream} after {ms} ms: {line}",
                pattern.unwrap_or("")
            ),
        ),
        Outcome::Output => ("output", format!("new output after {ms} ms")),
        Outcome::Ended => (
            "ended",
            format!("{id} ended before {what} came (waited {ms} ms)"),
        ),
        Outcome::TimedOut => (
            "timeout",
            format!(
                "timed out after {} ms waiting for {what}; {id} is still running",
                spec.wait.as_millis()
            ),
        ),
        Outcome::Input(w) => (
            "input",
            format!(
                "{id} stopped to wait for input before {what} came: {} (pid {}) is {}; answer with process write",
                w.name, w.pid, w.how
            ),
        ),
    };
    let mut record = json!({
        "outcome": name,
        "waitedMs": ms,
        "until": pattern,
    });
    if let Outcome::Matched { stream, line, .. } = outcome {
        record["stream"] = json!(stream);
        record["line"] = json!(line);
    }
    (line, record)
}

/// Where a window of new bytes starts and ends so it decodes cleanly: skip the
/// continuation bytes of a character cut by the window's start, and while the job
/// runs, hold back a character it has only half written.
fn clean_window(bytes: &[u8], cut_at_start: bool, running: bool) -> (usize, usize) {
    let mut start = 0;
    if cut_at_start {
        while start < bytes.len().min(3) && bytes[start] & 0xC0 == 0x80 {
            start += 1;
        }
    }
    let mut end = bytes.len();
    if running {
        for back in 1..=3.min(end - start) {
            let b = bytes[end - back];
            if b & 0xC0 == 0x80 {
                continue;
            }
            let need = match b {
                0xC0..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 1,
            };
            if need > back {
                end -= back;
            }
            break;
        }
    }
    (start, end)
}

struct StreamRead {
    text: String,
    skipped: u64,
    new_cursor: u64,
    /// Where the skipped bytes begin (the old cursor).
    cursor: u64,
}

/// What one look at a capture file found past a cursor: the newest bytes, at most
/// a window of them, cut so they decode cleanly.
pub(crate) struct Window {
    pub(crate) bytes: Vec<u8>,
    /// Bytes past the cursor left out, before the window.
    pub(crate) skipped: u64,
    /// Where the next look starts.
    pub(crate) new_cursor: u64,
}

/// The newest at most `window` bytes of `path` past `cursor` (a capture file
/// truncated by hand starts over), for `poll` here and the `bg-process` card's ring.
pub(crate) async fn read_window(
    ctx: &ToolContext,
    path: &str,
    cursor: u64,
    running: bool,
    window: u64,
) -> Result<Window, ToolResult> {
    read_window_to(ctx, path, cursor, running, window, None).await
}

/// A capture file's length; one not made yet is empty.
async fn capture_len(ctx: &ToolContext, path: &str) -> Result<u64, ToolResult> {
    match ctx.fs.stat(path).await {
        Ok(info) => Ok(info.size),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(state_error(e)),
    }
}

/// [`read_window`] of the bytes before `end` (where a matched line ends).
async fn read_window_to(
    ctx: &ToolContext,
    path: &str,
    cursor: u64,
    running: bool,
    window: u64,
    end: Option<u64>,
) -> Result<Window, ToolResult> {
    let size = capture_len(ctx, path).await?;
    let cursor = if cursor > size { 0 } else { cursor };
    let len = end.map_or(size, |e| e.clamp(cursor, size));
    let from = cursor.max(len.saturating_sub(window));
    if from >= len {
        return Ok(Window {
            bytes: Vec::new(),
            skipped: 0,
            new_cursor: cursor,
        });
    }
    let (mut bytes, _) = ctx
        .fs
        .read_range(path, from, (len - from) as usize)
        .await
        .map_err(state_error)?;
    let (s, e) = clean_window(&bytes, from > cursor, running && end.is_none());
    bytes.truncate(e);
    bytes.drain(..s);
    Ok(Window {
        bytes,
        skipped: from + s as u64 - cursor,
        new_cursor: from + e as u64,
    })
}

/// What is new in one stream, as text: a terminal's with its escapes
/// stripped unless `raw`.
async fn read_new(
    ctx: &ToolContext,
    path: &str,
    (cursor, end): (u64, Option<u64>),
    running: bool,
    strip: bool,
) -> Result<StreamRead, ToolResult> {
    let w = read_window_to(ctx, path, cursor, running, POLL_WINDOW, end).await?;
    let text = if strip {
        plain_text(&w.bytes)
    } else {
        String::from_utf8_lossy(&w.bytes).into_owned()
    };
    Ok(StreamRead {
        text,
        skipped: w.skipped,
        new_cursor: w.new_cursor,
        cursor,
    })
}

/// Newlines in bytes `from..to` of a capture file, read a megabyte at a time.
async fn newlines(ctx: &ToolContext, path: &str, from: u64, to: u64) -> Result<u64, ToolResult> {
    let (mut at, mut count) = (from, 0);
    while at < to {
        let step = (to - at).min(1 << 20) as usize;
        let (bytes, _) = ctx
            .fs
            .read_range(path, at, step)
            .await
            .map_err(state_error)?;
        if bytes.is_empty() {
            break;
        }
        count += memchr::memchr_iter(b'\n', &bytes).count() as u64;
        at += bytes.len() as u64;
    }
    Ok(count)
}

/// The `read` call that shows what a poll skipped: the lines from the one the
/// skip starts in to the one it ends in, of the capture file.
async fn skipped_read(ctx: &ToolContext, path: &str, r: &StreamRead) -> Result<Value, ToolResult> {
    let before = newlines(ctx, path, 0, r.cursor).await?;
    let inside = newlines(ctx, path, r.cursor, r.cursor + r.skipped).await?;
    Ok(json!({"path": path, "offset": before + 1, "limit": inside + 1}))
}

/// `process poll`: wait if asked, then what is new (see the module comment).
pub(crate) async fn poll(
    ctx: &ToolContext,
    args: &Args<'_>,
    book: &JobBook,
) -> Result<(String, Value), ToolResult> {
    let id = required_id(args)?;
    let spec = wait_spec(args).map_err(fail)?;
    let raw = args.opt_bool("raw").map_err(fail)?.unwrap_or(false);
    // The wait holds nothing: no lock, no cursor (see `wait`).
    let waited = match &spec {
        Some(spec) => {
            let table: JobTable = book.state.load(&book.table).map_err(state_error)?;
            let job = find_job(&table, id)?;
            Some(wait::wait(ctx, &book.files(id), &job, spec).await?)
        }
        None => None,
    };
    let ends = match &waited {
        Some((Outcome::Matched { ends, .. }, _)) => [Some(ends[0]), Some(ends[1])],
        _ => [None, None],
    };
    // Under the lock, so two concurrent polls never both return the same bytes.
    let lock = book.state.lock().map_err(state_error)?;
    let mut table: JobTable = book.state.read(&lock, &book.table).map_err(state_error)?;
    let job = find_job(&table, id)?;
    let files = book.files(id);
    // The fate first: if the job has ended, everything it wrote is on disk now.
    let seen = seen_of(ctx, &files, &job).await?;
    let running = seen.fate == Fate::Running;
    let strip = job.tty.is_some() && !raw;
    let out_path = files.stdout();
    let err_path = files.stderr();
    let out = read_new(ctx, &out_path, (job.cursor.stdout, ends[0]), running, strip).await?;
    let err = read_new(ctx, &err_path, (job.cursor.stderr, ends[1]), running, strip).await?;
    if out.new_cursor != job.cursor.stdout || err.new_cursor != job.cursor.stderr {
        let entry = table.find_mut(id).expect("found above");
        entry.cursor.stdout = out.new_cursor;
        entry.cursor.stderr = err.new_cursor;
        book.state
            .write(&lock, &book.table, &table)
            .map_err(state_error)?;
    }
    drop(lock);

    let mut record = job_json(&job, &seen);
    record["stdout"] = json!(out.text);
    record["stderr"] = json!(err.text);
    record["stdoutSkipped"] = json!(out.skipped);
    record["stderrSkipped"] = json!(err.skipped);
    let mut text = headline(&job, &seen, now_ms());
    text.push('\n');
    if let (Some(spec), Some((outcome, took))) = (&spec, &waited) {
        let (line, wait_record) = wait_report(spec, outcome, *took, id);
        record["wait"] = wait_record;
        text.push_str(&line);
        text.push('\n');
    }
    if out.text.is_empty() && err.text.is_empty() && out.skipped == 0 && err.skipped == 0 {
        text.push_str("(no new output)");
        return Ok((text, record));
    }
    for (name, read, path) in [("stdout", &out, &out_path), ("stderr", &err, &err_path)] {
        if read.text.is_empty() && read.skipped == 0 {
            continue;
        }
        text.push_str(name);
        text.push_str(":\n");
        if read.skipped > 0 {
            let call = skipped_read(ctx, path, read).await?;
            text.push_str(&format!(
                "[process: {} earlier bytes of {name} skipped; showing the newest {}. They are kept: read {path} --offset {} --limit {}]\n",
                read.skipped,
                read.text.len(),
                call["offset"],
                call["limit"],
            ));
            record[format!("{name}SkippedRead")] = call;
        }
        text.push_str(&read.text);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    text.pop();
    Ok((text, record))
}

/// `process screen`: the screen of a `--tty` job as a person would see it,
/// drawn from the newest output (at most [`SCREEN_REPLAY`] bytes of it). The
/// cursor is not moved.
pub(crate) async fn screen(
    ctx: &ToolContext,
    args: &Args<'_>,
    book: &JobBook,
) -> Result<(String, Value), ToolResult> {
    let id = required_id(args)?;
    let table: JobTable = book.state.load(&book.table).map_err(state_error)?;
    let job = find_job(&table, id)?;
    let Some(size) = job.tty else {
        return Err(fail(format!(
            "{id} has no terminal (it was started without tty), so there is no screen; poll shows its output."
        )));
    };
    let files = book.files(id);
    let seen = seen_of(ctx, &files, &job).await?;
    let path = files.stdout();
    let len = capture_len(ctx, &path).await?;
    let from = len.saturating_sub(SCREEN_REPLAY);
    let (bytes, _) = ctx
        .fs
        .read_range(&path, from, (len - from) as usize)
        .await
        .map_err(state_error)?;
    let drawn = terminal::screen(&bytes, size);
    // Down to the last row written or the cursor's, whichever is lower.
    let shown = drawn
        .rows
        .iter()
        .rposition(|r| !r.is_empty())
        .map_or(0, |i| i + 1)
        .max(drawn.cursor.0 as usize + 1)
        .min(drawn.rows.len());
    let mut text = headline(&job, &seen, now_ms());
    text.push_str(&format!(
        "\nscreen {}x{}, cursor at row {} column {}{}{}:\n",
        size.cols,
        size.rows,
        drawn.cursor.0 + 1,
        drawn.cursor.1 + 1,
        if drawn.alternate {
            ", full-screen program"
        } else {
            ""
        },
        if from > 0 {
            format!(", drawn from the newest {SCREEN_REPLAY} bytes of {len}")
        } else {
            String::new()
        }
    ));
    text.push_str(&drawn.rows[..shown].join("\n"));
    let mut record = job_json(&job, &seen);
    record["screen"] = json!(drawn.rows);
    record["cursor"] = json!({"row": drawn.cursor.0 + 1, "column": drawn.cursor.1 + 1});
    record["alternateScreen"] = json!(drawn.alternate);
    record["replayedFrom"] = json!(from);
    Ok((text, record))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_never_split_a_character() {
        let s = "aé✓😀".as_bytes();
        // A window starting inside "é" skips its continuation byte.
        assert_eq!(clean_window(&s[2..], true, false), (1, s.len() - 2));
        // A running job's half-written emoji is held back; a finished job's is not.
        let half = &s[..s.len() - 2];
        assert_eq!(clean_window(half, false, true), (0, 6));
        assert_eq!(clean_window(half, false, false), (0, half.len()));
        // Complete text is taken whole.
        assert_eq!(clean_window(s, false, true), (0, s.len()));
    }
}
