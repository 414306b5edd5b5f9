//! `run_shell`: the seed's risk-annotated shell. Every call carries `risk`,
//! `mutation`, `privesc` and `why` (required by the schema, checked here, read by
//! the approval wrapper). Without a tmux target it runs like `bash`, through the
//! context's `Shell` seam (own process group, closed stdin, killed at its
//! deadline); with `session`, `pane` or `wait: false` it is typed into a managed
//! tmux pane by the tmux engine, which tells completion and the exit status by its
//! marker. There the seed's guardrails refuse what would end or poison the pane's
//! persistent shell. The result is the seed's `{exit_code, stdout, stderr}`, each
//! stream cut to 4,000 characters.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Checkpoint, Effect, ScanWhen, Seat, ToolMeta};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::shared::{MUTATION, PRIVESC, RISK, WHY, check_safety, duration_of, tmux_of};
use crate::backends::tmux::{Missing, PaneRef, RunWait, SHARED, Tmux};
use crate::kernel::input::{Args, invalid};
use crate::kernel::{
    DefinedTool, Dropped, ExecTimeout, JsonSchema, ShellExecOptions, ShellLaunchOptions, Tool,
    ToolContext, ToolResult, define_tool,
};
use crate::tools::shell::spill::{Cut, Spilling};
use crate::tools::text_and_record;

/// The seed's cap of each stream: 4,000 characters.
pub const STREAM_CAP: usize = 4000;
/// What is kept of a stream before cutting (enough for 4,000 characters).
const CAPTURE_BYTES: usize = 64 * 1024;

/// A stream cut to [`STREAM_CAP`] characters with the seed's marker.
fn cap_stream(text: &str) -> String {
    super::shared::cap_text_at(text, STREAM_CAP)
}

/// How long to wait for the command.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Wait {
    Done,
    Forget,
    UpTo(Duration),
}

fn wait_of(args: &Args<'_>) -> Result<Wait, String> {
    match args.get("wait") {
        None | Some(Value::Bool(true)) => Ok(Wait::Done),
        Some(Value::Bool(false)) => Ok(Wait::Forget),
        Some(Value::String(s)) if s == "true" => Ok(Wait::Done),
        Some(Value::String(s)) if s == "false" => Ok(Wait::Forget),
        Some(v @ (Value::Number(_) | Value::String(_))) => duration_of("wait", v).map(Wait::UpTo),
        Some(other) => Err(invalid(
            "wait",
            "true, false, a number of seconds or a duration such as \"30s\"",
            other,
        )),
    }
}

/// The seed's result record and the text people read.
fn finished(exit_code: i32, stdout: &str, stderr: &str) -> ToolResult {
    finished_kept(
        exit_code,
        (stdout, Dropped::default()),
        (stderr, Dropped::default()),
        None,
    )
}

/// Where the seed's cap cuts a stream: after its first 4,000 characters. What
/// the capture drops lies past it: a capture drops only beyond 64 KiB at each
/// end, and 4,000 characters are at most 16,000 bytes.
fn cap_cut(text: &str) -> Option<Cut> {
    text.char_indices().nth(STREAM_CAP).map(|(at, _)| Cut {
        head_end: at,
        tail_start: text.len(),
    })
}

/// [`finished`] with the streams' cuts kept in the spill store and named
/// after the seed's marker; the record gains `spill` only when something was.
fn finished_kept(
    exit_code: i32,
    out: (&str, Dropped),
    err: (&str, Dropped),
    spill: Option<(Spilling, &str)>,
) -> ToolResult {
    let cuts = [cap_cut(out.0), cap_cut(err.0)];
    let settled = match spill {
        Some((spilling, command)) => spilling.settle(
            "run_shell",
            command,
            [(out.0, out.1, cuts[0]), (err.0, err.1, cuts[1])],
        ),
        None => Default::default(),
    };
    let shown = |i: usize, (text, _): (&str, Dropped)| {
        let mut body = cap_stream(text);
        if let Some(note) = &settled.notes[i] {
            body.push_str(&format!("\n[run_shell{}]", note.trim_start_matches(';')));
        }
        body
    };
    let (stdout, stderr) = (shown(0, out), shown(1, err));
    let mut text = String::new();
    for (name, body) in [("stdout", &stdout), ("stderr", &stderr)] {
        if !body.is_empty() {
            text.push_str(&format!("{name}:\n{body}"));
            if !body.ends_with('\n') {
                text.push('\n');
            }
        }
    }
    if let Some(line) = &settled.line {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&format!("exit_code: {exit_code}"));
    let mut record = json!({"exit_code": exit_code, "stdout": stdout, "stderr": stderr});
    if !settled.record.is_null() {
        record["spill"] = settled.record;
    }
    text_and_record(text, record, exit_code != 0)
}

struct RunShell;

/// The `run_shell` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Operator { in_all: false },
    effect: Effect::Runs,
    checkpoint: Checkpoint::ByScan(ScanWhen::Always),
    fields: FIELDS,
    ..ToolMeta::new(
        "run_shell",
        "Run shell command (risk-annotated)",
        "Run a command, stating its risk, directly or typed into a managed tmux pane.",
    )
};

/// `run_shell`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required(
        "command",
        Kind::Name,
        "The shell command, run with sh -c (in a tmux pane, sourced by its bash).",
    ),
    RISK,
    MUTATION,
    PRIVESC,
    WHY,
    Field::new(
        "session",
        Kind::Text,
        "A managed tmux session (default: the shared one); implies a tmux target.",
    ),
    Field::new(
        "pane",
        Kind::Text,
        "A managed pane of the session (default: its shared pane); implies a tmux target.",
    ),
    Field::new(
        "wait",
        Kind::AnyOf(&["boolean", "string", "integer"]),
        "true (default): until the command exits; false: dispatch to the tmux pane and return; \"30s\", \"10m\", \"1h\" or seconds: wait up to that long.",
    ),
];

#[async_trait]
impl Tool for RunShell {
    fn output_schema(&self) -> Option<JsonSchema> {
        // The buddy seed fixes the record's snake_case names. A command typed into a
        // pane and not awaited (wait false) answers with text instead.
        Some(json!({
            "type": ["object", "string"],
            "description": "How the command ended; a string when wait is false (the command was only typed into the pane).",
            "properties": {
                "exit_code": { "type": "integer" },
                "stdout": { "type": "string" },
                "stderr": { "type": "string" }
            },
            "required": ["exit_code", "stdout", "stderr"],
            "additionalProperties": false
        }))
    }

    fn description(&self) -> &str {
        "Run a shell command and return {exit_code, stdout, stderr}, each stream cut to 4,000 characters. Every call states its risk (low/medium/high), whether it mutates the system, whether it escalates privileges, and why.\n\nWhen to use: to inspect or change the machine: list files, read logs, check services, install packages, run builds. With session or pane (or wait: false) the command is typed into a managed tmux pane a person can attach to, and its shell persists across calls (cd and export stick).\n\nWhen NOT to use: to read or write a whole file (read_file, write_file); to answer an interactive prompt or interrupt a command (send-keys); to look at a pane's screen (capture-pane).\n\nDisambiguation: wait: true (default) blocks until the command exits; wait: false dispatches it to the tmux pane and returns at once (poll with capture-pane); \"30s\"/\"10m\"/\"1h\" or a number of seconds waits up to that long, then reports the command still running there (without tmux it is stopped instead). In a tmux pane, set -e, exit, logout and exec are refused because they would end or poison the shared shell: use bash -lc 'set -e; …'.\n\nExamples: {\"command\": \"du -sh /var\", \"risk\": \"low\", \"mutation\": false, \"privesc\": false, \"why\": \"Inspect disk usage before cleanup\"}; {\"command\": \"npm run build\", \"wait\": false, \"risk\": \"low\", \"mutation\": true, \"privesc\": false, \"why\": \"Build in the background\"}"
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match run_shell(&input, ctx).await {
            Ok(r) | Err(r) => r,
        }
    }
}

async fn run_shell(input: &Value, ctx: &ToolContext) -> Result<ToolResult, ToolResult> {
    let fail = ToolResult::failure;
    let args = Args::new(META.name, input).map_err(fail)?;
    let command = args.required_str("command").map_err(fail)?;
    check_safety(&args).map_err(fail)?;
    let session = args.opt_str("session").map_err(fail)?;
    let pane = args.opt_str("pane").map_err(fail)?;
    let wait = wait_of(&args).map_err(fail)?;
    if session.is_none() && pane.is_none() && wait != Wait::Forget {
        return run_direct(command, wait, ctx).await;
    }
    let tmux = tmux_of(ctx).map_err(fail)?;
    let target = tmux_target(&tmux, session, pane).await.map_err(fail)?;
    let run = tmux
        .dispatch(&target, command, "run_shell")
        .await
        .map_err(fail)?;
    let limit = match wait {
        Wait::Forget => {
            return Ok(ToolResult::text(format!(
                "command dispatched to tmux pane {}",
                target.id
            )));
        }
        Wait::Done => None,
        Wait::UpTo(d) => Some(d),
    };
    match tmux.await_run(&run, limit, &ctx.cancel).await {
        Ok(done) => Ok(finished(done.exit_code, &done.stdout, &done.stderr)),
        Err(RunWait::StillRunning(after)) => Err(fail(format!(
            "The command is still running after {:.1} s in {}; it keeps running there. Watch it with capture-pane (session {:?}, pane {:?}), interrupt it with send-keys C-c, or attach: {}",
            after.as_secs_f64(),
            target.describe(),
            target.session,
            target.name,
            tmux.attach_hint(&target.session)
        ))),
        Err(RunWait::Cancelled) => Err(fail(format!(
            "run_shell was cancelled; the command keeps running in {}",
            target.describe()
        ))),
        Err(RunWait::Failed(message)) => Err(fail(message)),
    }
}

/// The pane a tmux-bound call runs in: the default session is started when
/// needed; a named session or pane must exist already.
async fn tmux_target(
    tmux: &Tmux,
    session: Option<&str>,
    pane: Option<&str>,
) -> Result<PaneRef, String> {
    let session_name = tmux.session_name(session)?;
    let pane_name = Tmux::pane_name(pane)?;
    if session_name == tmux.session_name(None)? && pane_name == SHARED {
        return tmux.ensure_session(&session_name).await.map(|(p, _)| p);
    }
    match tmux.resolve(session, pane).await? {
        Ok(p) => Ok(p),
        Err(Missing(m)) => Err(m),
    }
}

/// Without tmux: like `bash`, with `wait` as the deadline.
async fn run_direct(
    command: &str,
    wait: Wait,
    ctx: &ToolContext,
) -> Result<ToolResult, ToolResult> {
    let timeout_ms = match wait {
        Wait::UpTo(d) => Some((d.as_millis() as u64).max(1)),
        _ => None,
    };
    let spilling = Spilling::open(ctx);
    let options = ShellExecOptions {
        launch: ShellLaunchOptions {
            cwd: Some(ctx.cwd.clone()),
            env: Vec::new(),
            detach_terminal: false,
        },
        timeout_ms,
        input: None,
        capture_limit: Some(CAPTURE_BYTES),
        tap: spilling.tap(),
    };
    let exec = ctx.shell.exec(command, options);
    let outcome = tokio::select! {
        r = exec => r,
        _ = ctx.cancel.cancelled() => {
            return Err(ToolResult::failure("run_shell was cancelled; the command's process group was killed."));
        }
    };
    match outcome {
        Ok(done) => {
            let code = match (done.code, done.signal) {
                (Some(c), _) => c,
                (None, Some(sig)) => 128 + sig,
                (None, None) => -1,
            };
            Ok(finished_kept(
                code,
                (&done.stdout, done.stdout_dropped),
                (&done.stderr, done.stderr_dropped),
                Some((spilling, command)),
            ))
        }
        Err(e) => match ExecTimeout::of(&e) {
            Some(t) => {
                let mut result = finished_kept(
                    -1,
                    (&t.stdout, t.stdout_dropped),
                    (&t.stderr, t.stderr_dropped),
                    Some((spilling, command)),
                );
                result.is_error = true;
                result.content.insert(
                    0,
                    crate::kernel::ToolContentBlock::Text(format!(
                        "The command did not finish within {} ms and was stopped (its process group was killed); run it on a tmux pane (session or pane) to let it go on running.\n",
                        t.timeout_ms
                    )),
                );
                Err(result)
            }
            None => Err(ToolResult::failure(format!(
                "run_shell could not run the command: {e}"
            ))),
        },
    }
}

/// The `run_shell` tool.
pub fn run_shell_tool() -> DefinedTool {
    define_tool(Arc::new(RunShell))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait_takes_the_seeds_spellings() {
        let w = |v: Value| {
            let input = json!({ "wait": v });
            wait_of(&Args::new(META.name, &input).unwrap())
        };
        assert_eq!(w(json!(true)).unwrap(), Wait::Done);
        assert_eq!(w(json!(false)).unwrap(), Wait::Forget);
        assert_eq!(w(json!("false")).unwrap(), Wait::Forget);
        assert_eq!(
            w(json!("30s")).unwrap(),
            Wait::UpTo(Duration::from_secs(30))
        );
        assert_eq!(w(json!(500)).unwrap(), Wait::UpTo(Duration::from_secs(500)));
        assert!(w(json!({})).unwrap_err().starts_with("Invalid \"wait\""));
        assert!(w(json!("later")).is_err());
    }

    #[test]
    fn streams_are_cut_to_4000_characters() {
        let long = "ü".repeat(STREAM_CAP + 1);
        let cut = cap_stream(&long);
        assert!(cut.ends_with("...[truncated]"));
        assert_eq!(cut.chars().count(), STREAM_CAP + "...[truncated]".len());
        assert_eq!(cap_stream("ok\n"), "ok\n");
    }
}
