//! The seed's tmux tools over the tmux engine: `capture-pane` (read-only; a
//! missing managed target falls back once to the shared pane, with a notice),
//! `send-keys` (a missing managed target is a hard error, never retargeted), and
//! the four `tmux-*` tools that create and kill managed sessions and panes within
//! the configured caps, the shared session and shared panes protected.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Effect, Seat, ToolMeta};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::shared::{MUTATION, PRIVESC, RISK, WHY, check_safety, duration_of, tmux_of};
use crate::backends::tmux::{CaptureOptions, Missing, Tmux};
use crate::kernel::input::{Args, invalid};
use crate::kernel::{DefinedTool, JsonSchema, Tool, ToolContext, ToolResult, define_tool};
use crate::tools::text_and_record;

/// The seed's cap of a capture: 8,000 characters, kept from the tail.
pub const CAPTURE_CAP: usize = 8000;

/// `text` cut to its last [`CAPTURE_CAP`] characters, with the seed's notice.
fn keep_tail(text: &str) -> String {
    let total = text.chars().count();
    if total <= CAPTURE_CAP {
        return text.to_string();
    }
    let cut = total - CAPTURE_CAP;
    let at = text.char_indices().nth(cut).map_or(text.len(), |(i, _)| i);
    format!("[truncated {cut} chars from start]\n{}", &text[at..])
}

// The target selectors every pane tool takes.

/// The selector `target`.
const TARGET: Field = Field::new(
    "target",
    Kind::Text,
    "A raw tmux target (-t syntax, e.g. %3 or mysession:1.0); beats session and pane.",
);
/// The selector `session`.
const SESSION: Field = Field::new(
    "session",
    Kind::Text,
    "A managed tmux session (default: the shared one).",
);
/// The selector `pane`.
const PANE: Field = Field::new(
    "pane",
    Kind::Text,
    "A managed pane of the session (default: its shared pane).",
);

/// Sleep for the input's `delay`, if any.
async fn delay(args: &Args<'_>, ctx: &ToolContext) -> Result<(), String> {
    if let Some(v) = args.get("delay") {
        let d = duration_of("delay", v)?;
        tokio::select! {
            _ = tokio::time::sleep(d) => {}
            _ = ctx.cancel.cancelled() => return Err("cancelled during the delay".to_string()),
        }
    }
    Ok(())
}

fn opt_flag(args: &Args<'_>, field: &str, default: bool) -> Result<bool, String> {
    Ok(args.opt_bool(field)?.unwrap_or(default))
}

/// A capture line bound, `-S`/`-E`: a line number or `-`.
fn bound(args: &Args<'_>, field: &str) -> Result<Option<String>, String> {
    match args.get(field) {
        None => Ok(None),
        Some(Value::Number(n)) if n.is_i64() => Ok(Some(n.to_string())),
        Some(Value::String(s)) if s == "-" || s.parse::<i64>().is_ok() => Ok(Some(s.clone())),
        Some(other) => Err(invalid(field, "a line number or \"-\"", other)),
    }
}

struct CapturePane;

/// The `capture-pane` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const CAPTURE_PANE: ToolMeta = ToolMeta {
    seat: Seat::Operator { in_all: false },
    fields: CAPTURE_FIELDS,
    ..ToolMeta::new(
        "capture-pane",
        "Capture tmux pane",
        "Return the text on a tmux pane's screen, up to its last 8,000 characters.",
    )
};

/// `capture-pane`'s input fields.
const CAPTURE_FIELDS: &[Field] = &[
    TARGET,
    SESSION,
    PANE,
    Field::new(
        "start",
        Kind::AnyOf(&["integer", "string"]),
        "First line (-S): a line number (negative = history) or \"-\" for the start of the history.",
    ),
    Field::new(
        "end",
        Kind::AnyOf(&["integer", "string"]),
        "Last line (-E): a line number or \"-\" for the end of the visible area.",
    ),
    Field::new(
        "join_wrapped_lines",
        Kind::Bool,
        "Join soft-wrapped lines (-J; default true).",
    ),
    Field::new(
        "preserve_trailing_spaces",
        Kind::Bool,
        "Keep trailing spaces (-N; default false).",
    ),
    Field::new(
        "include_escape_sequences",
        Kind::Bool,
        "Keep colour and attribute escapes (-e; default false).",
    ),
    Field::new(
        "escape_non_printable",
        Kind::Bool,
        "Octal-escape non-printable characters (-C; default false).",
    ),
    Field::new(
        "include_alternate_screen",
        Kind::Bool,
        "Capture the alternate screen (-a; default false); the main screen, with a notice, when none is active.",
    ),
    Field::new(
        "delay",
        Kind::AnyOf(&["string", "number"]),
        "Wait this long before capturing (\"2s\", \"500ms\" or seconds).",
    ),
];

#[async_trait]
impl Tool for CapturePane {
    fn description(&self) -> &str {
        "Capture the text of a tmux pane's screen (and, with start, its history); the last 8,000 characters are kept, with [truncated N chars from start] when cut.\n\nWhen to use: to watch a command dispatched with run_shell wait: false, to read a prompt a program is waiting at, or to see what a person left on a pane.\n\nWhen NOT to use: to get a finished command's output (run_shell returns it); to type into the pane (send-keys).\n\nDisambiguation: read-only; the default is the shared pane of the shared session; a managed session or pane that is missing falls back once to the shared pane, with a notice saying so; delay waits before capturing, for polling.\n\nExamples: {\"delay\": \"5s\"}; {\"pane\": \"worker\", \"start\": \"-\", \"join_wrapped_lines\": true}"
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&CAPTURE_PANE)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match capture(&input, ctx).await {
            Ok(r) => r,
            Err(e) => ToolResult::failure(e),
        }
    }
}

async fn capture(input: &Value, ctx: &ToolContext) -> Result<ToolResult, String> {
    let args = Args::new(CAPTURE_PANE.name, input)?;
    let options = CaptureOptions {
        start: bound(&args, "start")?,
        end: bound(&args, "end")?,
        join_wrapped_lines: opt_flag(&args, "join_wrapped_lines", true)?,
        preserve_trailing_spaces: opt_flag(&args, "preserve_trailing_spaces", false)?,
        include_escape_sequences: opt_flag(&args, "include_escape_sequences", false)?,
        escape_non_printable: opt_flag(&args, "escape_non_printable", false)?,
        include_alternate_screen: opt_flag(&args, "include_alternate_screen", false)?,
    };
    let raw = args.opt_str("target")?;
    let session = args.opt_str("session")?;
    let pane = args.opt_str("pane")?;
    let tmux = tmux_of(ctx)?;
    // Resolve before the delay so a bad selector fails at once.
    let (pane_id, mut notice) = match raw {
        Some(t) => (tmux.raw_target(t).await?, String::new()),
        None => match tmux.resolve(session, pane).await? {
            Ok(p) => (p.id, String::new()),
            Err(Missing(m)) if session.is_some() || pane.is_some() => {
                match tmux.resolve(None, None).await? {
                    Ok(shared) => (
                        shared.id.clone(),
                        format!(
                            "[missing target: {m}; captured the shared pane {} of {} instead]\n",
                            shared.id, shared.session
                        ),
                    ),
                    Err(_) => return Err(m),
                }
            }
            Err(Missing(m)) => return Err(m),
        },
    };
    delay(&args, ctx).await?;
    let (text, no_alternate) = tmux.capture(&pane_id, &options).await?;
    // tmux pads the visible area with empty lines; they say nothing.
    let trimmed = text.trim_end_matches('\n');
    let mut body = keep_tail(trimmed);
    if !body.is_empty() {
        body.push('\n');
    }
    if no_alternate {
        body.push_str("[no alternate screen is active; captured the main screen]\n");
    }
    notice.push_str(&body);
    Ok(ToolResult::text(notice.trim_end_matches('\n').to_string()))
}

struct SendKeys;

/// The `send-keys` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const SEND_KEYS: ToolMeta = ToolMeta {
    seat: Seat::Operator { in_all: false },
    effect: Effect::Runs,
    fields: SEND_FIELDS,
    ..ToolMeta::new(
        "send-keys",
        "Send keys to tmux pane",
        "Type literal text and tmux key names into a tmux pane.",
    )
};

/// `send-keys`'s input fields.
const SEND_FIELDS: &[Field] = &[
    TARGET,
    SESSION,
    PANE,
    Field::new(
        "keys",
        Kind::Strings,
        "tmux key names, sent in order: \"C-c\", \"Enter\", \"Up\", …",
    )
    .in_own_words(),
    Field::new(
        "literal_text",
        Kind::Text,
        "Text typed as is (send-keys -l).",
    ),
    Field::new(
        "enter",
        Kind::Bool,
        "Press Enter after the text and keys (default false).",
    ),
    Field::new(
        "delay",
        Kind::AnyOf(&["string", "number"]),
        "Wait this long before sending (\"500ms\", \"2s\" or seconds).",
    ),
    RISK,
    MUTATION,
    PRIVESC,
    WHY,
];

#[async_trait]
impl Tool for SendKeys {
    fn description(&self) -> &str {
        "Type into a tmux pane: literal_text first (sent as is), then tmux key names (C-c, C-z, Enter, Up, Down, Escape, …), then Enter when enter is true. Every call states its risk, mutation, privesc and why.\n\nWhen to use: to interrupt a command (C-c), answer an interactive prompt, or drive a full-screen program running in a pane.\n\nWhen NOT to use: to run a command and get its output and exit code (run_shell); to read the screen (capture-pane).\n\nDisambiguation: the default is the shared pane of the shared session; a managed session or pane that is missing is an error, never retargeted, so keys never land in the wrong pane; delay waits before sending.\n\nExamples: {\"keys\": [\"C-c\"], \"risk\": \"low\", \"mutation\": false, \"privesc\": false, \"why\": \"Cancel a hung command\"}; {\"literal_text\": \"yes\", \"enter\": true, \"risk\": \"medium\", \"mutation\": true, \"privesc\": false, \"why\": \"Confirm the upgrade prompt\"}"
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&SEND_KEYS)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match send_keys(&input, ctx).await {
            Ok(r) => r,
            Err(e) => ToolResult::failure(e),
        }
    }
}

async fn send_keys(input: &Value, ctx: &ToolContext) -> Result<ToolResult, String> {
    let args = Args::new(SEND_KEYS.name, input)?;
    check_safety(&args)?;
    let keys: Vec<String> = match args.get("keys") {
        None => Vec::new(),
        Some(Value::String(k)) => vec![k.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, k)| match k {
                Value::String(s) if !s.is_empty() => Ok(s.clone()),
                other => Err(invalid(&format!("keys[{i}]"), "a tmux key name", other)),
            })
            .collect::<Result<_, _>>()?,
        Some(other) => Err(invalid("keys", "an array of tmux key names", other))?,
    };
    let literal = args.opt_filled_str("literal_text")?;
    let enter = opt_flag(&args, "enter", false)?;
    if keys.is_empty() && literal.is_none() && !enter {
        return Err(
            "send-keys needs something to send: literal_text, keys or enter: true".to_string(),
        );
    }
    let tmux = tmux_of(ctx)?;
    let (pane_id, described) = match args.opt_str("target")? {
        Some(t) => {
            let id = tmux.raw_target(t).await?;
            (id.clone(), format!("tmux pane {id}"))
        }
        None => match tmux
            .resolve(args.opt_str("session")?, args.opt_str("pane")?)
            .await?
        {
            Ok(p) => (p.id.clone(), p.describe()),
            Err(Missing(m)) => return Err(format!("{m} (send-keys never retargets keys)")),
        },
    };
    delay(&args, ctx).await?;
    tmux.send_keys(&pane_id, literal, &keys, enter).await?;
    let mut sent = Vec::new();
    if let Some(t) = literal {
        sent.push(format!("literal text ({} chars)", t.chars().count()));
    }
    if !keys.is_empty() {
        sent.push(format!("keys {}", keys.join(" ")));
    }
    if enter {
        sent.push("Enter".to_string());
    }
    Ok(ToolResult::text(format!(
        "Sent to {described}: {}",
        sent.join(", ")
    )))
}

/// What a `tmux-*` tool does.
#[derive(Clone, Copy)]
enum Manage {
    CreateSession,
    KillSession,
    CreatePane,
    KillPane,
}

impl Manage {
    fn meta(self) -> &'static ToolMeta {
        match self {
            Manage::CreateSession => &CREATE_SESSION,
            Manage::KillSession => &KILL_SESSION,
            Manage::CreatePane => &CREATE_PANE,
            Manage::KillPane => &KILL_PANE,
        }
    }

    fn name(self) -> &'static str {
        self.meta().name
    }
}

struct ManageTool(Manage);

#[async_trait]
impl Tool for ManageTool {
    fn output_schema(&self) -> Option<JsonSchema> {
        let (props, required) = match self.0 {
            Manage::CreateSession => (
                json!({ "session": { "type": "string" }, "sharedPaneId": { "type": "string" }, "created": { "type": "boolean", "description": "False when the session was reused." } }),
                json!(["session", "sharedPaneId", "created"]),
            ),
            Manage::KillSession => (
                json!({ "session": { "type": "string" }, "killed": { "type": "boolean", "enum": [true] } }),
                json!(["session", "killed"]),
            ),
            Manage::CreatePane => (
                json!({ "session": { "type": "string" }, "pane": { "type": "string" }, "paneId": { "type": "string" }, "created": { "type": "boolean", "description": "False when the pane was reused." } }),
                json!(["session", "pane", "paneId", "created"]),
            ),
            Manage::KillPane => (
                json!({ "session": { "type": "string" }, "pane": { "type": "string" }, "paneId": { "type": "string" }, "killed": { "type": "boolean", "enum": [true] } }),
                json!(["session", "pane", "paneId", "killed"]),
            ),
        };
        Some(
            json!({ "type": "object", "properties": props, "required": required, "additionalProperties": false }),
        )
    }

    fn description(&self) -> &str {
        match self.0 {
            Manage::CreateSession => {
                "Create (or reuse) a managed tmux session, named indus-<owner>-<session>, with its shared pane ready; a person can attach to it. At most tmux.max_sessions (buddy.json, default 8) run at once.\n\nWhen to use: to give a long-lived job or a separate concern its own session, before run_shell with that session.\n\nWhen NOT to use: for the shared session, which run_shell starts by itself; for another shell in the same session (tmux-create-pane).\n\nDisambiguation: idempotent: an existing managed session is reused, not duplicated; a tmux session of that name not made by indus-tool is refused.\n\nExamples: {\"session\": \"ops\", \"risk\": \"low\", \"mutation\": true, \"privesc\": false, \"why\": \"A session for the deployment\"}"
            }
            Manage::KillSession => {
                "Kill a managed tmux session and every command running in it.\n\nWhen to use: when the work a session was made for is over, or to make room under tmux.max_sessions.\n\nWhen NOT to use: for the shared session (protected), or for sessions indus-tool did not create (refused).\n\nDisambiguation: kills the whole session; to close one pane use tmux-kill-pane.\n\nExamples: {\"session\": \"ops\", \"risk\": \"medium\", \"mutation\": true, \"privesc\": false, \"why\": \"The deployment is finished\"}"
            }
            Manage::CreatePane => {
                "Create (or reuse) a managed pane in a managed session (default: the shared session): a window of its own, named after the pane, running a fresh shell. At most tmux.max_panes (buddy.json, default 8) per session.\n\nWhen to use: to run a long command (a server, a watcher) beside the shared pane, then run_shell with that pane.\n\nWhen NOT to use: for the shared pane, which every session has.\n\nDisambiguation: idempotent: an existing managed pane of that name is reused.\n\nExamples: {\"pane\": \"worker\", \"risk\": \"low\", \"mutation\": true, \"privesc\": false, \"why\": \"A pane for the dev server\"}"
            }
            Manage::KillPane => {
                "Kill a managed pane and whatever runs in it.\n\nWhen to use: when a pane's job is over or it is stuck beyond send-keys C-c.\n\nWhen NOT to use: for a session's shared pane (protected), or panes indus-tool did not create (refused).\n\nDisambiguation: kills one pane; to end a whole session use tmux-kill-session.\n\nExamples: {\"pane\": \"worker\", \"risk\": \"medium\", \"mutation\": true, \"privesc\": false, \"why\": \"The dev server is no longer needed\"}"
            }
        }
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(self.0.meta())
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match manage(self.0, &input, ctx).await {
            Ok(r) => r,
            Err(e) => ToolResult::failure(e),
        }
    }
}

async fn manage(what: Manage, input: &Value, ctx: &ToolContext) -> Result<ToolResult, String> {
    let args = Args::new(what.name(), input)?;
    let tmux = tmux_of(ctx)?;
    let (session, pane) = match what {
        Manage::CreateSession | Manage::KillSession => (
            tmux.session_name(Some(args.required_str("session")?))?,
            None,
        ),
        Manage::CreatePane | Manage::KillPane => (
            tmux.session_name(args.opt_str("session")?)?,
            Some(Tmux::pane_name(Some(args.required_str("pane")?))?),
        ),
    };
    check_safety(&args)?;
    let pane = pane.unwrap_or_default();
    let (text, record) = match what {
        Manage::CreateSession => {
            let (shared, created) = tmux.ensure_session(&session).await?;
            let verb = if created { "Created" } else { "Reused" };
            (
                format!(
                    "{verb} tmux session {session} (shared pane {}); attach with: {}",
                    shared.id,
                    tmux.attach_hint(&session)
                ),
                json!({"session": session, "sharedPaneId": shared.id, "created": created}),
            )
        }
        Manage::KillSession => {
            tmux.kill_session(&session).await?;
            (
                format!("Killed tmux session {session}"),
                json!({"session": session, "killed": true}),
            )
        }
        Manage::CreatePane => {
            let (p, created) = tmux.ensure_pane(&session, &pane).await?;
            let verb = if created { "Created" } else { "Reused" };
            (
                format!("{verb} pane {pane} ({}) in tmux session {session}", p.id),
                json!({"session": session, "pane": pane, "paneId": p.id, "created": created}),
            )
        }
        Manage::KillPane => {
            let id = tmux.kill_pane(&session, &pane).await?;
            (
                format!("Killed pane {pane} ({id}) of tmux session {session}"),
                json!({"session": session, "pane": pane, "paneId": id, "killed": true}),
            )
        }
    };
    Ok(text_and_record(text, record, false))
}

pub fn capture_pane_tool() -> DefinedTool {
    define_tool(Arc::new(CapturePane))
}

pub fn send_keys_tool() -> DefinedTool {
    define_tool(Arc::new(SendKeys))
}

/// The `tmux-create-session` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const CREATE_SESSION: ToolMeta = ToolMeta {
    seat: Seat::Operator { in_all: false },
    effect: Effect::Records { idempotent: false },
    fields: SESSION_FIELDS,
    ..ToolMeta::new(
        "tmux-create-session",
        "Create tmux session",
        "Create or reuse a managed tmux session with its shared pane.",
    )
};

/// The input fields of `tmux-create-session` and `tmux-kill-session`.
const SESSION_FIELDS: &[Field] = &[
    Field::required(
        "session",
        Kind::Name,
        "The managed session (its short name, or indus-<owner>-<name>).",
    ),
    RISK,
    MUTATION,
    PRIVESC,
    WHY,
];

/// The `tmux-kill-session` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const KILL_SESSION: ToolMeta = ToolMeta {
    seat: Seat::Operator { in_all: false },
    effect: Effect::Records { idempotent: false },
    fields: SESSION_FIELDS,
    ..ToolMeta::new(
        "tmux-kill-session",
        "Kill tmux session",
        "Kill a managed tmux session (never the shared one).",
    )
};

/// The `tmux-create-pane` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const CREATE_PANE: ToolMeta = ToolMeta {
    seat: Seat::Operator { in_all: false },
    effect: Effect::Records { idempotent: false },
    fields: PANE_FIELDS,
    ..ToolMeta::new(
        "tmux-create-pane",
        "Create tmux pane",
        "Create or reuse a managed pane in a managed tmux session.",
    )
};

/// The input fields of `tmux-create-pane` and `tmux-kill-pane`.
const PANE_FIELDS: &[Field] = &[
    Field::required("pane", Kind::Name, "The managed pane's name."),
    Field::new(
        "session",
        Kind::Text,
        "The managed session (default: the shared one).",
    ),
    RISK,
    MUTATION,
    PRIVESC,
    WHY,
];

/// The `tmux-kill-pane` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const KILL_PANE: ToolMeta = ToolMeta {
    seat: Seat::Operator { in_all: false },
    effect: Effect::Records { idempotent: false },
    fields: PANE_FIELDS,
    ..ToolMeta::new(
        "tmux-kill-pane",
        "Kill tmux pane",
        "Kill a managed pane (never a session's shared pane).",
    )
};

pub fn tmux_create_session_tool() -> DefinedTool {
    define_tool(Arc::new(ManageTool(Manage::CreateSession)))
}

pub fn tmux_kill_session_tool() -> DefinedTool {
    define_tool(Arc::new(ManageTool(Manage::KillSession)))
}

pub fn tmux_create_pane_tool() -> DefinedTool {
    define_tool(Arc::new(ManageTool(Manage::CreatePane)))
}

pub fn tmux_kill_pane_tool() -> DefinedTool {
    define_tool(Arc::new(ManageTool(Manage::KillPane)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_keep_the_tail_with_the_seeds_notice() {
        assert_eq!(keep_tail("abc"), "abc");
        let text = format!("{}{}", "a".repeat(10), "b".repeat(CAPTURE_CAP));
        assert_eq!(
            keep_tail(&text),
            format!(
                "[truncated 10 chars from start]\n{}",
                "b".repeat(CAPTURE_CAP)
            )
        );
    }
}
