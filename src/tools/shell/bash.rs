//! `bash`: run one command with `sh -c` to completion and report its output and
//! status.
//!
//! The command gets a closed stdin (a program waiting for input ends instead of
//! hanging), runs in its own process group, and at the deadline or on cancel the
//! whole group is killed — a `sleep 1000 &` inside the command does not survive it,
//! and a backgrounded child holding the pipes open cannot keep `bash` waiting. The
//! report is `stdout:` and `stderr:` sections (each only when non-empty) and a
//! `status:` line; anything but exit code 0 marks the result `is_error`. Each
//! stream is clamped on its own, keeping its head and tail, so a flood on stdout
//! cannot push the error message on stderr out of view.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Checkpoint, Effect, ScanWhen, Seat, SeedList, ToolMeta};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::shared::{signal_name, working_dir};
use super::spill::{Cut, Spilling};
use crate::kernel::input::Args;
use crate::kernel::output::{ceil_char_boundary, floor_char_boundary};
use crate::kernel::text::plural;
use crate::kernel::{
    DefinedTool, Dropped, ExecTimeout, InputWait, ShellExecOptions, ShellLaunchOptions, Tool,
    ToolContext, ToolResult, define_tool,
};
use crate::tools::{clamp_for, text_and_record};

/// The default deadline: 2 minutes.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// The deadline's ceiling: 10 minutes.
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// Room kept for a stream's elision notice and the section headers (and,
/// with a spill, for the file and the `read` call the notice names).
const NOTICE_ROOM: usize = 96;

struct BashTool;

/// The `bash` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Builtin(SeedList::Mutating),
    effect: Effect::Runs,
    checkpoint: Checkpoint::ByScan(ScanWhen::Always),
    core: true,
    fields: FIELDS,
    description: "Run a shell command (sh -c) and wait: output and exit status (non-zero is an error). For servers and watchers, use process.",
    output: Some(include_str!("bash.output.json")),
    ..ToolMeta::new(
        "bash",
        "Run shell command",
        "Run a shell command and return its output and exit status.",
    )
};

/// `bash`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("command", Kind::Name, "Command line."),
    Field::new(
        "timeoutMs",
        Kind::Millis {
            max: MAX_TIMEOUT_MS,
        },
        "Deadline in ms (default 120000, at most 600000).",
    ),
    Field::new("cwd", Kind::Text, "Directory to run in."),
];

#[async_trait]
impl Tool for BashTool {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match run_bash(&input, ctx).await {
            Ok(result) | Err(result) => result,
        }
    }
}

fn fail(message: impl Into<String>) -> ToolResult {
    ToolResult::failure(message)
}

async fn run_bash(input: &Value, ctx: &ToolContext) -> Result<ToolResult, ToolResult> {
    let args = Args::new(META.name, input).map_err(fail)?;
    let command = args.required_str("command").map_err(fail)?;
    let timeout_ms = args
        .opt_millis("timeoutMs", MAX_TIMEOUT_MS)
        .map_err(fail)?
        .unwrap_or(DEFAULT_TIMEOUT_MS);
    let cwd = working_dir(ctx, &args).await.map_err(fail)?;
    let spilling = Spilling::open(ctx);
    let options = ShellExecOptions {
        launch: ShellLaunchOptions {
            cwd: Some(cwd),
            env: Vec::new(),
            detach_terminal: false,
        },
        timeout_ms: Some(timeout_ms),
        input: None,
        // A stream never shows more than the budget, head and tail together; a
        // flood beyond that is counted, not held (the spill keeps it whole).
        capture_limit: Some(ctx.budget.max_bytes.max(1024)),
        tap: spilling.tap(),
    };
    let started = std::time::Instant::now();
    let exec = ctx.shell.exec(command, options);
    // Dropping the exec future on cancel kills the command's process group.
    let outcome = tokio::select! {
        r = exec => r,
        _ = ctx.cancel.cancelled() => {
            return Err(fail("bash was cancelled; the command's process group was killed."));
        }
    };
    match outcome {
        Ok(done) => {
            let status = match (done.code, done.signal) {
                (Some(code), _) => format!("status: exit code {code}"),
                (None, Some(sig)) => format!("status: killed by {}", signal_name(sig)),
                (None, None) => "status: ended without an exit code".to_string(),
            };
            let ran = Ran {
                stdout: (&done.stdout, done.stdout_dropped),
                stderr: (&done.stderr, done.stderr_dropped),
                status,
                ended: (done.code, done.signal, false),
                input_wait: done.input_wait.as_ref(),
                took: started.elapsed(),
            };
            Ok(answer(ctx, spilling, command, ran))
        }
        Err(e) => match ExecTimeout::of(&e) {
            Some(t) => {
                let status = format!(
                    "status: timed out after {} ms; {}",
                    t.timeout_ms,
                    t.ended
                        .as_deref()
                        .unwrap_or("the command's process group was killed")
                );
                let ran = Ran {
                    stdout: (&t.stdout, t.stdout_dropped),
                    stderr: (&t.stderr, t.stderr_dropped),
                    status,
                    ended: (None, None, true),
                    input_wait: None,
                    took: started.elapsed(),
                };
                Err(answer(ctx, spilling, command, ran))
            }
            None => Err(fail(format!("bash could not run the command: {e}"))),
        },
    }
}

/// A finished (or timed-out) run, as the answer is made from it.
struct Ran<'a> {
    stdout: Stream<'a>,
    stderr: Stream<'a>,
    status: String,
    /// Exit code, signal, timed out.
    ended: (Option<i32>, Option<i32>, bool),
    input_wait: Option<&'a InputWait>,
    took: std::time::Duration,
}

/// The answer: both streams cut to share the budget, each cut kept in the
/// spill store and named (see `spill`), a note when the command stopped at a
/// prompt, the status line last. The record for programs carries the same
/// streams: `{exitCode, signal, stdout, stderr, timedOut, durationMs,
/// inputWait, spill}`.
fn answer(ctx: &ToolContext, spilling: Spilling, command: &str, ran: Ran<'_>) -> ToolResult {
    let budget = ctx.budget.max_bytes;
    let notes = NOTICE_ROOM + spilling.note_room();
    let (qa, qb) = quotas(
        ran.stdout.0.len(),
        ran.stderr.0.len(),
        ran.status.len() + 2 * notes,
        budget,
    );
    let cuts = [cut_of(ran.stdout, qa), cut_of(ran.stderr, qb)];
    let settled = spilling.settle(
        "bash",
        command,
        [
            (ran.stdout.0, ran.stdout.1, cuts[0]),
            (ran.stderr.0, ran.stderr.1, cuts[1]),
        ],
    );
    let shown = [
        render(ran.stdout, cuts[0], "stdout", settled.notes[0].as_deref()),
        render(ran.stderr, cuts[1], "stderr", settled.notes[1].as_deref()),
    ];
    let mut text = String::new();
    for (name, body) in ["stdout", "stderr"].into_iter().zip(&shown) {
        if body.is_empty() {
            continue;
        }
        text.push_str(name);
        text.push_str(":\n");
        text.push_str(body);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    if let Some(w) = ran.input_wait {
        text.push_str(&format!(
            "note: the command stopped to read input: {} (pid {}) was {}, which bash leaves empty, so it got end-of-input. To answer a prompt, run it with process start (tty) and process write, or give the answers on its stdin (printf ... | cmd).\n",
            w.name, w.pid, w.how
        ));
    }
    if let Some(line) = &settled.line {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&ran.status);
    let (code, signal, timed_out) = ran.ended;
    let record = json!({
        "exitCode": code,
        "signal": signal.map(signal_name),
        "stdout": shown[0],
        "stderr": shown[1],
        "timedOut": timed_out,
        "durationMs": ran.took.as_millis() as u64,
        "inputWait": ran.input_wait.map(|w| json!({"pid": w.pid, "name": w.name, "how": w.how})),
        "spill": settled.record,
    });
    let failed = timed_out || code != Some(0);
    text_and_record(clamp_for(ctx, "bash", &text), record, failed)
}

/// One captured stream: the kept text and what the capture dropped from it.
type Stream<'a> = (&'a str, Dropped);

/// How two streams of `a` and `b` bytes share `budget` less `reserved`.
fn quotas(a: usize, b: usize, reserved: usize, budget: usize) -> (usize, usize) {
    let mut room = budget.saturating_sub(reserved);
    if a + b <= room {
        return (a, b);
    }
    room = room.max(2);
    if a <= room / 2 {
        (a, room - a)
    } else if b <= room / 2 {
        (room - b, b)
    } else {
        (room - room / 2, room / 2)
    }
}

/// Stitch the sections and the status line, clamping the streams to share `budget`.
#[cfg(test)]
fn report(stdout: Stream<'_>, stderr: Stream<'_>, status: &str, budget: usize) -> String {
    let (qa, qb) = quotas(
        stdout.0.len(),
        stderr.0.len(),
        status.len() + 2 * NOTICE_ROOM,
        budget,
    );
    let mut out = String::new();
    for (name, stream, quota) in [("stdout", stdout, qa), ("stderr", stderr, qb)] {
        if stream.0.is_empty() {
            continue;
        }
        out.push_str(name);
        out.push_str(":\n");
        out.push_str(&keep_ends(stream.0, stream.1, quota, name));
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out.push_str(status);
    out
}

/// Where to cut `text` to keep its head and tail within `quota` bytes, cutting
/// at line ends where one is near; `None` when it is shown whole. What the
/// capture `dropped` always falls inside the cut.
fn cut_of((text, dropped): Stream<'_>, quota: usize) -> Option<Cut> {
    let (mut head_end, mut tail_start) = if text.len() <= quota {
        if dropped.bytes == 0 {
            return None;
        }
        (dropped.at, dropped.at)
    } else {
        let head_budget = quota / 2;
        let tail_budget = quota - head_budget;
        let mut head_end = floor_char_boundary(text, head_budget);
        if let Some(nl) = text[..head_end].rfind('\n')
            && nl + 1 >= head_end / 2
        {
            head_end = nl + 1;
        }
        let mut tail_start = ceil_char_boundary(text, text.len() - tail_budget);
        if let Some(nl) = text[tail_start..].find('\n')
            && nl < tail_budget / 2
            && tail_start + nl + 1 < text.len()
        {
            tail_start += nl + 1;
        }
        (head_end, tail_start)
    };
    if dropped.bytes > 0 {
        head_end = head_end.min(dropped.at);
        tail_start = tail_start.max(dropped.at);
    }
    Some(Cut {
        head_end,
        tail_start,
    })
}

/// The stream as shown: head, a notice saying how many bytes and lines went
/// (counting what the capture already dropped) and where they are kept
/// (`kept`), tail.
fn render(
    (text, dropped): Stream<'_>,
    cut: Option<Cut>,
    stream: &str,
    kept: Option<&str>,
) -> String {
    let Some(Cut {
        head_end,
        tail_start,
    }) = cut
    else {
        return text.to_string();
    };
    let elided = &text[head_end..tail_start];
    let bytes = elided.len() as u64 + dropped.bytes;
    let lines = memchr::memchr_iter(b'\n', elided.as_bytes()).count() as u64 + dropped.lines;
    let mut out = String::with_capacity(text.len() - elided.len() + NOTICE_ROOM);
    out.push_str(&text[..head_end]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!(
        "[bash: {} ({}) of {stream} elided to stay within the output ceiling{}]\n",
        plural(bytes, "byte", "bytes"),
        plural(lines, "line", "lines"),
        kept.unwrap_or(""),
    ));
    out.push_str(&text[tail_start..]);
    out
}

/// Keep the head and the tail of `text` within `quota` bytes (see [`cut_of`]
/// and [`render`]), with no spill named.
#[cfg(test)]
fn keep_ends(text: &str, dropped: Dropped, quota: usize, stream: &str) -> String {
    render(
        (text, dropped),
        cut_of((text, dropped), quota),
        stream,
        None,
    )
}

/// The `bash` tool.
pub fn bash_tool() -> DefinedTool {
    define_tool(Arc::new(BashTool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn whole(text: &str) -> Stream<'_> {
        (text, Dropped::default())
    }

    #[test]
    fn sections_appear_only_when_non_empty() {
        assert_eq!(
            report(whole(""), whole(""), "status: exit code 0", 1000),
            "status: exit code 0"
        );
        assert_eq!(
            report(whole("hi"), whole(""), "status: exit code 0", 1000),
            "stdout:\nhi\nstatus: exit code 0"
        );
        assert_eq!(
            report(whole("a\n"), whole("b\n"), "status: exit code 1", 1000),
            "stdout:\na\nstderr:\nb\nstatus: exit code 1"
        );
    }

    #[test]
    fn a_flood_on_stdout_leaves_stderr_whole() {
        let flood: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        let text = report(
            whole(&flood),
            whole("the real error\n"),
            "status: exit code 1",
            2000,
        );
        assert!(text.len() <= 2000, "{}", text.len());
        assert!(text.contains("stderr:\nthe real error\n"));
        assert!(text.starts_with("stdout:\nline 0\nline 1\n"));
        assert!(text.contains("line 4999\n"));
        assert!(text.contains(" lines) of stdout elided to stay within the output ceiling]\n"));
    }

    #[test]
    fn the_notice_counts_bytes_and_lines_exactly() {
        let text: String = (0..100).map(|i| format!("{i:03}\n")).collect();
        let kept = keep_ends(&text, Dropped::default(), 40, "stdout");
        let (head, rest) = kept.split_once("[bash: ").unwrap();
        let (notice, tail) = rest.split_once("]\n").unwrap();
        let cut = text.len() - head.len() - tail.len();
        let lines = 100 - head.lines().count() - tail.lines().count();
        assert_eq!(
            notice,
            format!(
                "{cut} bytes ({lines} lines) of stdout elided to stay within the output ceiling"
            )
        );
        assert!(text.starts_with(head) && text.ends_with(tail));
    }

    #[test]
    fn what_the_capture_dropped_is_counted_in_the_notice() {
        // Kept: "a\nb\n" + "y\nz\n"; dropped between them: 1000 bytes, 10 lines.
        let dropped = Dropped {
            at: 4,
            bytes: 1000,
            lines: 10,
        };
        let kept = keep_ends("a\nb\ny\nz\n", dropped, 100, "stdout");
        assert_eq!(
            kept,
            "a\nb\n[bash: 1000 bytes (10 lines) of stdout elided to stay within the output ceiling]\ny\nz\n"
        );
        let text: String = (0..100).map(|i| format!("{i:03}\n")).collect();
        let dropped = Dropped {
            at: 200,
            bytes: 5000,
            lines: 7,
        };
        let kept = keep_ends(&text, dropped, 40, "stdout");
        let (head, rest) = kept.split_once("[bash: ").unwrap();
        let (notice, tail) = rest.split_once("]\n").unwrap();
        let cut = text.len() - head.len() - tail.len() + 5000;
        let lines = 100 - head.lines().count() - tail.lines().count() + 7;
        assert_eq!(
            notice,
            format!(
                "{cut} bytes ({lines} lines) of stdout elided to stay within the output ceiling"
            )
        );
    }

    proptest! {
        #[test]
        fn clamping_never_splits_a_character_and_keeps_both_ends(
            text in "[a-zé✓\n]{0,400}",
            quota in 0usize..200,
        ) {
            let kept = keep_ends(&text, Dropped::default(), quota, "stdout");
            if text.len() <= quota {
                prop_assert_eq!(kept, text);
            } else {
                let (head, rest) = kept.split_once("[bash: ").unwrap();
                let (_, tail) = rest.split_once("]\n").unwrap();
                prop_assert!(text.starts_with(head.trim_end_matches('\n')) || head.is_empty());
                prop_assert!(text.ends_with(tail));
            }
        }
    }
}
