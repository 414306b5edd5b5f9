//! `process poll --until REGEX --wait-ms N`: wait for the line that matters.
//!
//! The wait follows the job's capture files from the poll cursor and sleeps on
//! the backend's change watch (inotify on the job's folder locally), so it
//! wakes when a byte is written or the exit record appears, never on a timer:
//! a line is seen within milliseconds and an idle job costs nothing. The one
//! look that is not an event is "waiting for input" (a process blocked reading
//! its stdin shows in `/proc`, not in a file): it is taken 100 ms into the
//! wait and 100 ms after output goes quiet, and every second otherwise.
//!
//! Nothing is held while waiting: not the state lock (other calls go on), not
//! the job (a caller killed mid-wait leaves the job and its record as they
//! were; the cursor moves only when the answer is made).
//!
//! Lines are matched as `grep` matches them, with the regex crate, whose
//! matching time is linear in the text (no backtracking), so no pattern can
//! hang a wait. A line longer than 64 KiB is matched on its last 64 KiB. A
//! line still being written (a prompt without a newline) is matched too.

use std::time::{Duration, Instant};

use regex::Regex;

use super::terminal::plain_text;
use crate::kernel::{ChangeWatch, InputWait, JobLiveness, TickWatch, ToolContext, ToolResult};
use crate::state::jobs::{JobFiles, JobRecord};

/// What is kept of one line for matching.
const LINE_KEEP: usize = 64 * 1024;
/// How much of a capture file one read takes.
const STEP: usize = 1 << 20;
/// How soon after output goes quiet the input-wait look is taken.
const QUIET_LOOK: Duration = Duration::from_millis(100);
/// How often it is taken while nothing happens.
const IDLE_LOOK: Duration = Duration::from_secs(1);

/// What a poll waits for.
pub(crate) struct WaitSpec {
    /// A line to wait for; `None`: any new output.
    pub until: Option<Regex>,
    pub wait: Duration,
}

/// Why a wait ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// A new line matched: the stream it is in, its text, and where each
    /// stream's answer ends (just after the line in its stream).
    Matched {
        stream: &'static str,
        line: String,
        ends: [u64; 2],
    },
    /// New output came (a wait without a pattern).
    Output,
    /// The job ended first.
    Ended,
    TimedOut,
    /// The job stopped to wait for input before the pattern came.
    Input(InputWait),
}

/// A capture file followed from a cursor.
struct Follow {
    path: String,
    pos: u64,
    line: Vec<u8>,
}

impl Follow {
    fn new(path: String, pos: u64) -> Self {
        Self {
            path,
            pos,
            line: Vec::new(),
        }
    }

    /// Read what is new. Whether anything was, and the first line matching
    /// `until` with the offset just after it.
    async fn scan(
        &mut self,
        ctx: &ToolContext,
        until: Option<&Regex>,
        terminal: bool,
    ) -> Result<(bool, Option<(u64, String)>), ToolResult> {
        let mut grew = false;
        loop {
            let (bytes, len) = match ctx.fs.read_range(&self.path, self.pos, STEP).await {
                Ok(read) => read,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((grew, None)),
                Err(e) => return Err(super::job::state_error(e)),
            };
            if len < self.pos {
                // Truncated by hand: start over, as `poll` does.
                (self.pos, self.line) = (0, Vec::new());
                continue;
            }
            if bytes.is_empty() {
                break;
            }
            grew = true;
            let base = self.pos;
            self.pos += bytes.len() as u64;
            let Some(re) = until else {
                continue;
            };
            let mut from = 0;
            for nl in memchr::memchr_iter(b'\n', &bytes) {
                self.keep(&bytes[from..nl]);
                from = nl + 1;
                let text = line_text(self.tail(), terminal);
                self.line.clear();
                if re.is_match(&text) {
                    return Ok((true, Some((base + from as u64, text))));
                }
            }
            self.keep(&bytes[from..]);
        }
        // A line still being written: a prompt never ends with a newline.
        if let Some(re) = until
            && !self.line.is_empty()
        {
            let text = line_text(self.tail(), terminal);
            if re.is_match(&text) {
                self.line.clear();
                return Ok((grew, Some((self.pos, text))));
            }
        }
        Ok((grew, None))
    }

    /// Keep the newest [`LINE_KEEP`] bytes of the line being read (trimmed
    /// in batches, so a long line costs amortised O(1) per byte).
    fn keep(&mut self, bytes: &[u8]) {
        let bytes = &bytes[bytes.len().saturating_sub(LINE_KEEP)..];
        self.line.extend_from_slice(bytes);
        if self.line.len() > 2 * LINE_KEEP {
            self.line.drain(..self.line.len() - LINE_KEEP);
        }
    }

    /// The line as matched: its newest [`LINE_KEEP`] bytes.
    fn tail(&self) -> &[u8] {
        &self.line[self.line.len().saturating_sub(LINE_KEEP)..]
    }
}

/// One line as matched: a terminal's without its escapes, a pipe's as text.
fn line_text(bytes: &[u8], terminal: bool) -> String {
    if terminal {
        plain_text(bytes)
    } else {
        let text = String::from_utf8_lossy(bytes);
        text.strip_suffix('\r').unwrap_or(&text).to_string()
    }
}

/// Wait as `spec` says on the job's output past its cursor (see the module
/// comment). Returns why the wait ended and how long it took.
pub(crate) async fn wait(
    ctx: &ToolContext,
    files: &JobFiles,
    job: &JobRecord,
    spec: &WaitSpec,
) -> Result<(Outcome, Duration), ToolResult> {
    let start = Instant::now();
    let deadline = start + spec.wait;
    let dir = files.dir_str();
    // A folder the backend cannot watch (outside a `--root`) is looked at on a
    // 50 ms tick instead: slower to wake, never wrong.
    let mut watch: Box<dyn ChangeWatch> = ctx
        .fs
        .watch_changes(&dir)
        .unwrap_or_else(|_| Box::new(TickWatch));
    let terminal = job.tty.is_some();
    let until = spec.until.as_ref();
    let mut streams = [
        ("stdout", Follow::new(files.stdout(), job.cursor.stdout)),
        ("stderr", Follow::new(files.stderr(), job.cursor.stderr)),
    ];
    // Not at once: input just written may not have been read yet.
    let mut next_look = start + QUIET_LOOK;
    loop {
        // The exit first: once it is recorded, everything the job wrote is on disk.
        let ended = ctx.fs.exists(&files.exit()).await
            || ctx.shell.probe_job(&job.identity()).ok() != Some(JobLiveness::Running);
        let mut grew = false;
        for i in 0..2 {
            let (g, found) = streams[i].1.scan(ctx, until, terminal).await?;
            grew |= g;
            if let Some((end, line)) = found {
                let mut ends = [streams[0].1.pos, streams[1].1.pos];
                ends[i] = end;
                let stream = streams[i].0;
                return Ok((Outcome::Matched { stream, line, ends }, start.elapsed()));
            }
        }
        if grew && until.is_none() {
            return Ok((Outcome::Output, start.elapsed()));
        }
        if ended {
            return Ok((Outcome::Ended, start.elapsed()));
        }
        let now = Instant::now();
        if grew {
            next_look = now + QUIET_LOOK;
        } else if now >= next_look {
            if let Ok(Some(waiting)) = ctx.shell.job_input_wait(&job.identity()) {
                return Ok((Outcome::Input(waiting), start.elapsed()));
            }
            next_look = now + IDLE_LOOK;
        }
        if now >= deadline {
            return Ok((Outcome::TimedOut, start.elapsed()));
        }
        let nap = deadline.min(next_look).saturating_duration_since(now);
        let slept = tokio::task::spawn_blocking(move || {
            let r = watch.wait(nap);
            (watch, r)
        });
        tokio::select! {
            r = slept => {
                let (back, woke) = r.map_err(|e| ToolResult::failure(format!("process: the wait failed: {e}")))?;
                watch = back;
                woke.map_err(|e| ToolResult::failure(format!("process cannot watch {dir}: {e}")))?;
            }
            _ = ctx.cancel.cancelled() => {
                return Err(ToolResult::failure("process poll was cancelled while waiting; the job is untouched."));
            }
        }
    }
}
