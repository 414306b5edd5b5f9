//! `task`: hand a self-contained objective to a sub-agent — a command-line coding
//! agent (Claude Code, Codex, Gemini CLI, opencode, or any configured command) run
//! non-interactively — and return its final answer.
//!
//! This module owns the agent roster and the one run of a sub-agent:
//!
//! - **The roster** is read from JSON files, `<cwd>/.indusvx/agents.json` (the
//!   project) then `$XDG_CONFIG_HOME/indusvx/agents.json` (the user; `~/.config`
//!   when `XDG_CONFIG_HOME` is unset), merged by agent name with the project's
//!   entry winning. A file that cannot be read or parsed, or an entry that is not a
//!   valid agent, is skipped with a warning naming it on stderr. It is read again at
//!   every run (a long-lived host sees edits), and at build time for the tool's
//!   description, which lists the configured agents — so the card builds in a
//!   [`DeckContext`]; with no working directory (generated docs) the description
//!   is the machine-independent one. The project's file comes with the checkout,
//!   which may be a stranger's, and its agents are programs to run: it is read
//!   only when the user trusted its exact content (`indus-tool trust FILE`, see
//!   `state::trust`); an untrusted one is named once on stderr with the command
//!   that trusts it, and none of its agents is used (nor does one replace the
//!   user's agent of the same name). The trust also covers the project files
//!   its agents' command lines launch (`state::trust::launched_by`, from the
//!   working directory, where agents run): when one changed, or one is not
//!   covered, the file is not used either, and the line says which.
//! - **Approval**: the agent's command line is approved as `bash`'s command is
//!   (`--confirm`, the policy's rules; see `deck::wrappers::approval` and
//!   [`approval_command`]).
//! - **The run** goes through the context's [`Shell`](crate::kernel::Shell) seam,
//!   as `bash` does: the agent's argv is quoted into an `exec` line, so the child
//!   leads its own process group with no terminal on its streams, stdin is
//!   `/dev/null` unless the prompt goes there (then it is written and closed), and
//!   at the deadline or on cancel the whole group is killed.
//!
//! With no agent configured the card is the seed's typed stub: an `is_error`
//! result saying so and showing exactly how to configure one.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Checkpoint, Effect, ScanWhen, Seat, ToolMeta};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{Map, Value, json};

use crate::deck::row::DeckContext;
use crate::kernel::input::{Args, invalid};
use crate::kernel::{
    DefinedTool, ExecTimeout, ShellExecOptions, ShellLaunchOptions, Tool, ToolContext, ToolResult,
    define_tool,
};
use crate::tools::shell::shared::{exec_line, human_duration, signal_name};
use crate::tools::{clamp_for, text_and_record};

/// The default deadline: 10 minutes (agents think for a while).
pub const DEFAULT_TIMEOUT_MS: u64 = 600_000;
/// The deadline's ceiling: 1 hour.
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;
/// The project's agents file, relative to the working directory.
pub const PROJECT_AGENTS_FILE: &str = ".indusvx/agents.json";
/// The user's agents file, relative to the configuration folder.
pub const USER_AGENTS_FILE: &str = "indusvx/agents.json";
/// The argv element replaced by the prompt when the prompt goes on the command line.
pub const PROMPT_PLACEHOLDER: &str = "{prompt}";
/// The built-in presets, by name.
pub const PRESETS: [&str; 4] = ["claude", "codex", "gemini", "opencode"];

/// Bytes of the failing agent's stderr shown (its last lines).
const STDERR_TAIL_BYTES: usize = 2000;
const AGENT_FIELDS: [&str; 7] = [
    "preset",
    "command",
    "prompt",
    "output",
    "resultField",
    "description",
    "default",
];

/// Where an agent reads its prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptVia {
    /// As an argument: each `{prompt}` element of the argv, else appended last.
    Arg,
    /// On standard input, which is then closed.
    Stdin,
}

/// How an agent's stdout is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// The trimmed stdout is the answer.
    Text,
    /// Stdout is JSON; the answer is `resultField` of it (the whole value without one).
    Json,
}

/// One configured sub-agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSpec {
    pub name: String,
    pub command: Vec<String>,
    pub prompt: PromptVia,
    pub output: OutputKind,
    /// A dotted path into the JSON answer (`result`, `message.content`).
    pub result_field: Option<String>,
    pub description: Option<String>,
    pub default: bool,
    /// The file it was configured in.
    pub source: PathBuf,
}

/// The agents configured for a working directory, and what was skipped.
#[derive(Debug, Clone, Default)]
pub struct Roster {
    /// Merged, the project's first (in file order), then the user's not shadowed.
    pub agents: Vec<AgentSpec>,
    /// One line per skipped file or entry, naming it.
    pub warnings: Vec<String>,
    /// The files looked at, project first (whether or not they exist).
    pub files: Vec<PathBuf>,
    /// The project's file, when it exists but is not trusted (not used), and why.
    pub untrusted: Option<(PathBuf, crate::state::trust::Distrust)>,
}

impl Roster {
    /// The agent a call without `agent` runs: the first marked `"default": true`,
    /// else the first configured.
    pub fn default_agent(&self) -> Option<&AgentSpec> {
        self.agents
            .iter()
            .find(|a| a.default)
            .or_else(|| self.agents.first())
    }

    pub fn find(&self, name: &str) -> Option<&AgentSpec> {
        self.agents.iter().find(|a| a.name == name)
    }

    fn names(&self) -> String {
        self.agents
            .iter()
            .map(|a| format!("\"{}\"", a.name))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The user's configuration folder: `$XDG_CONFIG_HOME` when set to an absolute
/// path, else `$HOME/.config`.
fn config_home() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    xdg.or_else(|| {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".config"))
    })
}

/// The agents files for `cwd`, project first.
pub fn agents_files(cwd: &Path) -> Vec<PathBuf> {
    let mut files = vec![cwd.join(PROJECT_AGENTS_FILE)];
    if let Some(home) = config_home() {
        files.push(home.join(USER_AGENTS_FILE));
    }
    files
}

/// Read and merge the agents files for `cwd`. A missing file is no agents; a bad
/// one is a warning.
pub fn load_roster(cwd: &Path) -> Roster {
    let mut roster = Roster {
        files: agents_files(cwd),
        ..Roster::default()
    };
    for (i, file) in roster.files.clone().into_iter().enumerate() {
        let bytes = match crate::state::trust::read_config(&file) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => continue,
            Err(e) => {
                roster
                    .warnings
                    .push(format!("{} was skipped: {e}", file.display()));
                continue;
            }
        };
        // The project's file (the first) only when trusted, or when it is the
        // user's own file reached through the project.
        let grant = if i == 0
            && !roster.files[1..]
                .iter()
                .any(|u| crate::state::trust::same_file(u, &file))
        {
            match crate::state::trust::check(&file, &bytes) {
                Ok(grant) => Some(grant),
                Err(why) => {
                    roster.untrusted = Some((file, why));
                    continue;
                }
            }
        } else {
            None
        };
        let text = String::from_utf8_lossy(&bytes);
        match parse_agents_file(&text, &file) {
            Ok((agents, skipped)) => {
                // Trusted, but launching a project file its trust does not
                // cover: not used either.
                if let Some(grant) = &grant
                    && let Some(project) = grant.project()
                    && let Err(why) = grant.covers(&agents_launch(project, cwd, &agents))
                {
                    roster.untrusted = Some((file, why));
                    continue;
                }
                roster.warnings.extend(skipped);
                for agent in agents {
                    if roster.find(&agent.name).is_none() {
                        roster.agents.push(agent);
                    }
                }
            }
            Err(e) => roster
                .warnings
                .push(format!("{} was skipped: {e}", file.display())),
        }
    }
    roster
}

/// The files of `project` the `agents`' command lines launch when run in
/// `cwd` (see `state::trust::launched_by`; the `{prompt}` placeholder is no
/// file).
fn agents_launch(project: &Path, cwd: &Path, agents: &[AgentSpec]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for agent in agents {
        let argv: Vec<String> = agent
            .command
            .iter()
            .filter(|w| w.as_str() != PROMPT_PLACEHOLDER)
            .cloned()
            .collect();
        for file in crate::state::trust::launched_by(project, cwd, &argv, None) {
            if !out.contains(&file) {
                out.push(file);
            }
        }
    }
    out
}

/// The project files the agents of the agents file `file` (its `text`) launch:
/// what `indus-tool trust` records beside the file's hash. Agents run in the
/// folder that holds `.indusvx/`; a file that does not parse launches nothing.
pub fn launched_files(file: &Path, text: &str) -> Vec<PathBuf> {
    let Ok((agents, _)) = parse_agents_file(text, file) else {
        return Vec::new();
    };
    let project = crate::state::trust::project_of(file);
    agents_launch(&project, &crate::state::trust::workspace_of(file), &agents)
}

/// Parse one agents file: `{"agents": {NAME: AGENT, …}}`. A file that is not of
/// that shape is an error; a bad entry is skipped with a warning (the rest load).
pub fn parse_agents_file(text: &str, file: &Path) -> Result<(Vec<AgentSpec>, Vec<String>), String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("it is not valid JSON ({e})"))?;
    let Value::Object(top) = &value else {
        return Err(invalid(
            "(top level)",
            "an object {\"agents\": {…}}",
            &value,
        ));
    };
    if let Some(key) = top.keys().find(|k| k.as_str() != "agents") {
        return Err(format!(
            "unknown top-level field \"{key}\" (only \"agents\" is read)"
        ));
    }
    let agents = match top.get("agents") {
        None => return Err("Missing \"agents\": expected an object of named agents.".into()),
        Some(Value::Object(agents)) => agents,
        Some(other) => return Err(invalid("agents", "an object of named agents", other)),
    };
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for (name, entry) in agents {
        match parse_agent(name, entry, file) {
            Ok(agent) => out.push(agent),
            Err(e) => warnings.push(format!(
                "{}: agent \"{name}\" was skipped: {e}",
                file.display()
            )),
        }
    }
    Ok((out, warnings))
}

/// A preset's fields: command, prompt, output, resultField, description.
fn preset(
    name: &str,
) -> (
    Vec<String>,
    PromptVia,
    OutputKind,
    Option<&'static str>,
    &'static str,
) {
    let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match name {
        "claude" => (
            argv(&[
                "claude",
                "-p",
                PROMPT_PLACEHOLDER,
                "--output-format",
                "json",
            ]),
            PromptVia::Arg,
            OutputKind::Json,
            Some("result"),
            "Claude Code (claude -p)",
        ),
        "codex" => (
            argv(&["codex", "exec", PROMPT_PLACEHOLDER]),
            PromptVia::Arg,
            OutputKind::Text,
            None,
            "OpenAI Codex CLI (codex exec)",
        ),
        "gemini" => (
            argv(&["gemini", "-p", PROMPT_PLACEHOLDER]),
            PromptVia::Arg,
            OutputKind::Text,
            None,
            "Gemini CLI (gemini -p)",
        ),
        _ => (
            argv(&["opencode", "run", PROMPT_PLACEHOLDER]),
            PromptVia::Arg,
            OutputKind::Text,
            None,
            "opencode (opencode run)",
        ),
    }
}

/// One agent entry: a preset with overrides, or a command of its own.
pub fn parse_agent(name: &str, entry: &Value, file: &Path) -> Result<AgentSpec, String> {
    if name.trim().is_empty() {
        return Err("an agent's name must not be empty".into());
    }
    let Value::Object(map) = entry else {
        return Err(invalid(
            name,
            "an object (a \"preset\" or a \"command\")",
            entry,
        ));
    };
    if let Some(key) = map.keys().find(|k| !AGENT_FIELDS.contains(&k.as_str())) {
        return Err(format!(
            "unknown field \"{key}\" (known: {})",
            AGENT_FIELDS.join(", ")
        ));
    }
    let args = Args::nested(map, name.to_string());
    let base = args.opt_enum("preset", &PRESETS)?.map(preset);
    let command = match args.get("command") {
        None => match &base {
            Some(p) => p.0.clone(),
            None => {
                return Err(format!(
                    "Missing \"{name}.command\": expected an array of strings (the program and its arguments), or a \"preset\" (one of {})",
                    PRESETS.join(", ")
                ));
            }
        },
        Some(Value::Array(items)) if !items.is_empty() => {
            let mut argv = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) if !s.contains('\0') && (i > 0 || !s.is_empty()) => {
                        argv.push(s.clone())
                    }
                    other => {
                        return Err(invalid(
                            &format!("{name}.command[{i}]"),
                            "a string (the program first, not empty; no NUL)",
                            other,
                        ));
                    }
                }
            }
            argv
        }
        Some(other) => {
            return Err(invalid(
                &format!("{name}.command"),
                "a non-empty array of strings",
                other,
            ));
        }
    };
    let prompt = match args.opt_enum("prompt", &["stdin", "arg"])? {
        Some("stdin") => PromptVia::Stdin,
        Some(_) => PromptVia::Arg,
        None => base.as_ref().map_or(PromptVia::Arg, |p| p.1),
    };
    let output = match args.opt_enum("output", &["text", "json"])? {
        Some("json") => OutputKind::Json,
        Some(_) => OutputKind::Text,
        None => base.as_ref().map_or(OutputKind::Text, |p| p.2),
    };
    let result_field = match args.opt_str("resultField")? {
        Some("") => None,
        Some(f) => Some(f.to_string()),
        None if output == OutputKind::Json => base.as_ref().and_then(|p| p.3).map(str::to_string),
        None => None,
    };
    if result_field.is_some() && output == OutputKind::Text {
        return Err(format!(
            "\"{name}.resultField\" needs \"output\": \"json\" (a text answer has no fields)"
        ));
    }
    let description = args
        .opt_str("description")?
        .map(str::to_string)
        .or_else(|| base.as_ref().map(|p| p.4.to_string()));
    Ok(AgentSpec {
        name: name.to_string(),
        command,
        prompt,
        output,
        result_field,
        description,
        default: args.opt_bool("default")?.unwrap_or(false),
        source: file.to_path_buf(),
    })
}

/// What the sub-agent is told: the objective, then — when `context` holds more
/// than white space — a blank line, `Context:` and the context.
pub fn compose_prompt(objective: &str, context: Option<&str>) -> String {
    match context.map(str::trim).filter(|c| !c.is_empty()) {
        Some(c) => format!("{objective}\n\nContext:\n{c}"),
        None => objective.to_string(),
    }
}

/// The argv run for `agent` with `prompt`: on the command line, each
/// `{prompt}` element is replaced by it (appended last when there is none); on
/// stdin, the argv as configured.
pub fn argv_for(agent: &AgentSpec, prompt: &str) -> Vec<String> {
    let mut argv = agent.command.clone();
    if agent.prompt == PromptVia::Arg {
        let mut placed = false;
        for a in &mut argv {
            if a == PROMPT_PLACEHOLDER {
                *a = prompt.to_string();
                placed = true;
            }
        }
        if !placed {
            argv.push(prompt.to_string());
        }
    }
    argv
}

/// The last lines of `text`, within [`STDERR_TAIL_BYTES`].
fn tail(text: &str) -> String {
    let text = text.trim_end();
    if text.len() <= STDERR_TAIL_BYTES {
        return text.to_string();
    }
    let mut start = crate::kernel::output::ceil_char_boundary(text, text.len() - STDERR_TAIL_BYTES);
    if let Some(nl) = text[start..].find('\n') {
        start += nl + 1;
    }
    format!("[…]\n{}", &text[start..])
}

/// The value at a dotted `path` of `value`.
fn field_at<'v>(value: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.').try_fold(value, |v, key| match v {
        Value::Object(map) => map.get(key),
        Value::Array(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => None,
    })
}

/// The answer in a JSON agent's stdout, or why there is none. The stdout is parsed
/// whole, else its last line that parses (agents that stream JSON lines end with
/// the result). An answer object whose `is_error` is `true` is an error.
pub fn json_answer(stdout: &str, result_field: Option<&str>) -> Result<String, String> {
    let trimmed = stdout.trim();
    let value: Value = serde_json::from_str(trimmed)
        .ok()
        .or_else(|| {
            trimmed
                .lines()
                .rev()
                .filter(|l| !l.trim().is_empty())
                .find_map(|l| serde_json::from_str(l.trim()).ok())
        })
        .ok_or_else(|| {
            let shown: String = trimmed.chars().take(200).collect();
            format!("its output is not JSON (the agent is configured with \"output\": \"json\"); it began: {shown:?}")
        })?;
    let picked = match result_field {
        Some(path) => field_at(&value, path)
            .ok_or_else(|| format!("its JSON output has no \"{path}\" field"))?,
        None => &value,
    };
    let text = match picked {
        Value::String(s) => s.trim().to_string(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    };
    if value.get("is_error") == Some(&Value::Bool(true)) {
        return Err(format!("it reported an error: {text}"));
    }
    Ok(text)
}

/// The command line approval decides on for a `task` call with `input` in
/// `cwd`: the command of the agent the call would run (without the prompt);
/// `None` when it would run none (no agent, an unknown one), as the call then
/// fails by itself.
pub fn approval_command(cwd: &Path, input: &Value) -> Option<String> {
    let roster = load_roster(cwd);
    let agent = match input.get("agent") {
        Some(Value::String(name)) => roster.find(name)?,
        None | Some(Value::Null) => roster.default_agent()?,
        Some(_) => return None,
    };
    let line = exec_line(&agent.command);
    Some(line.strip_prefix("exec ").unwrap_or(&line).to_string())
}

/// The seed's typed stub: no agent is configured, and how to configure one.
fn not_configured(roster: &Roster) -> String {
    let mut files = roster.files.iter().map(|f| f.display().to_string());
    let project = files.next().unwrap_or_else(|| PROJECT_AGENTS_FILE.into());
    let user = files
        .next()
        .unwrap_or_else(|| format!("$XDG_CONFIG_HOME/{USER_AGENTS_FILE}"));
    let mut text = format!(
        "task: no delegate agent is configured, so the objective was not handed off.\n\
         Configure one in {project} (this project) or {user} (every project), for example:\n\
         {{\n  \"agents\": {{\n    \"claude\": {{ \"preset\": \"claude\", \"default\": true }},\n    \"reviewer\": {{ \"command\": [\"my-agent\", \"--quiet\"], \"prompt\": \"stdin\", \"description\": \"Reviews diffs\" }}\n  }}\n}}\n\
         Presets: {} (each runs that CLI non-interactively).",
        PRESETS.join(", ")
    );
    if let Some((file, why)) = &roster.untrusted {
        text.push_str(&format!(
            "\nwarning: {}",
            crate::state::trust::distrust_text("the agents", file, why)
        ));
    }
    for w in &roster.warnings {
        text.push_str(&format!("\nwarning: {w}"));
    }
    text
}

struct TaskCard {
    description: String,
}

/// The description: what the card does, and the roster when built for a
/// working directory.
fn describe(ctx: &DeckContext) -> String {
    let mut text = format!(
        "Delegate a self-contained objective to a sub-agent CLI (Claude Code, Codex, Gemini CLI, opencode) and return its final answer. It does not see this conversation: state everything it needs. Agents are configured in {PROJECT_AGENTS_FILE} or $XDG_CONFIG_HOME/{USER_AGENTS_FILE}."
    );
    let Some(cwd) = &ctx.cwd else {
        return text;
    };
    let roster = load_roster(cwd);
    if roster.agents.is_empty() {
        text.push_str(" No agent is configured here, so a call reports how to configure one.");
        return text;
    }
    let default = roster.default_agent().map(|a| a.name.clone());
    let rows: Vec<String> = roster
        .agents
        .iter()
        .map(|a| {
            let mut row = a.name.clone();
            if Some(&a.name) == default.as_ref() {
                row.push_str(" (default)");
            }
            if let Some(d) = &a.description {
                row.push_str(": ");
                row.push_str(d);
            }
            row
        })
        .collect();
    text.push_str(&format!(" Configured agents: {}.", rows.join("; ")));
    text
}

fn record(
    agent: &str,
    exit: Option<i32>,
    result: &str,
    took: Duration,
    timed_out: bool,
) -> Map<String, Value> {
    let mut r = Map::new();
    r.insert("agent".into(), json!(agent));
    r.insert("exitCode".into(), json!(exit));
    r.insert("result".into(), json!(result));
    r.insert("durationMs".into(), json!(took.as_millis() as u64));
    r.insert("timedOut".into(), json!(timed_out));
    r
}

/// The `task` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Card,
    effect: Effect::Runs,
    checkpoint: Checkpoint::ByScan(ScanWhen::Always),
    fields: FIELDS,
    output: Some(include_str!("task.output.json")),
    ..ToolMeta::new(
        "task",
        "Delegate task",
        "Hand a self-contained objective to a configured sub-agent CLI and return its answer.",
    )
};

/// `task`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required(
        "objective",
        Kind::Name,
        "What the sub-agent should accomplish, complete in itself.",
    ),
    Field::new(
        "agent",
        Kind::Text,
        "Which configured agent (default: the default).",
    ),
    Field::new("context", Kind::Text, "Background for it."),
    Field::new(
        "timeoutMs",
        Kind::Millis {
            max: MAX_TIMEOUT_MS,
        },
        "Deadline in milliseconds (default 600000, at most 3600000).",
    ),
];

#[async_trait]
impl Tool for TaskCard {
    fn description(&self) -> &str {
        &self.description
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match run_task(&input, ctx).await {
            Ok(r) | Err(r) => r,
        }
    }
}

async fn run_task(input: &Value, ctx: &ToolContext) -> Result<ToolResult, ToolResult> {
    let fail = ToolResult::failure;
    let args = Args::new(META.name, input).map_err(fail)?;
    let objective = args.required_str("objective").map_err(fail)?;
    let wanted = match args.opt_str("agent").map_err(fail)? {
        Some("") => {
            return Err(fail(
                "Invalid \"agent\": expected an agent's name, got an empty string.".to_string(),
            ));
        }
        other => other,
    };
    let context = args.opt_str("context").map_err(fail)?;
    let timeout_ms = args
        .opt_millis("timeoutMs", MAX_TIMEOUT_MS)
        .map_err(fail)?
        .unwrap_or(DEFAULT_TIMEOUT_MS);

    let roster = load_roster(Path::new(&ctx.cwd));
    // With no agent at all, the stub's text names the untrusted file itself.
    if let Some((file, why)) = &roster.untrusted
        && !roster.agents.is_empty()
        && crate::state::trust::first_naming(file)
    {
        eprintln!(
            "{}",
            crate::state::trust::distrust_line("the agents", file, why)
        );
    }
    for w in &roster.warnings {
        eprintln!("indus-tool: warning: {w}");
    }
    if roster.agents.is_empty() {
        return Err(fail(not_configured(&roster)));
    }
    let agent = match wanted {
        Some(name) => roster.find(name).ok_or_else(|| {
            fail(format!(
                "Invalid \"agent\": no agent named \"{name}\" is configured; the configured agents are {}.",
                roster.names()
            ))
        })?,
        None => roster.default_agent().expect("the roster is not empty"),
    };
    let prompt = compose_prompt(objective, context);
    if agent.prompt == PromptVia::Arg && prompt.contains('\0') {
        return Err(fail(
            "Invalid \"objective\": a prompt passed as an argument cannot hold a NUL character."
                .to_string(),
        ));
    }
    let argv = argv_for(agent, &prompt);
    let options = ShellExecOptions {
        launch: ShellLaunchOptions {
            cwd: Some(ctx.cwd.clone()),
            env: Vec::new(),
            // No terminal: an agent CLI must never stop to prompt a person.
            detach_terminal: true,
        },
        timeout_ms: Some(timeout_ms),
        input: (agent.prompt == PromptVia::Stdin).then(|| prompt.clone()),
        capture_limit: None,
        tap: None,
    };
    let name = agent.name.as_str();
    let started = Instant::now();
    let line = exec_line(&argv);
    let exec = ctx.shell.exec(&line, options);
    // Dropping the exec future on cancel kills the agent's process group.
    let outcome = tokio::select! {
        r = exec => r,
        _ = ctx.cancel.cancelled() => {
            return Err(fail(format!("task was cancelled; agent \"{name}\" and its process group were killed.")));
        }
    };
    let took = started.elapsed();
    let done = match outcome {
        Ok(done) => done,
        Err(e) => {
            let Some(t) = ExecTimeout::of(&e) else {
                return Err(fail(format!("task could not start agent \"{name}\": {e}")));
            };
            return Err(timed_out(ctx, name, t, took));
        }
    };
    answered(ctx, agent, &done, took)
}

/// The answer to a task whose agent did not finish within its time: what it
/// printed so far, and the record saying so.
fn timed_out(
    ctx: &ToolContext,
    name: &str,
    t: &ExecTimeout,
    took: std::time::Duration,
) -> ToolResult {
    let partial = t.stdout.trim();
    let mut text = format!(
        "task: agent \"{name}\" did not finish within {} ms; its process group was killed.",
        t.timeout_ms
    );
    if !partial.is_empty() {
        text.push_str(&format!("\nIts output so far:\n{partial}"));
    }
    let mut r = record(name, None, "", took, true);
    r.insert(
        "error".into(),
        json!(format!("timed out after {} ms", t.timeout_ms)),
    );
    text_and_record(clamp_for(ctx, "task", &text), Value::Object(r), true)
}

/// The answer to a task whose agent ended: its answer (text or the configured
/// JSON field), or why it failed with the tails of what it printed.
fn answered(
    ctx: &ToolContext,
    agent: &AgentSpec,
    done: &crate::kernel::ShellExecResult,
    took: std::time::Duration,
) -> Result<ToolResult, ToolResult> {
    let name = agent.name.as_str();
    let stdout = done.stdout.trim();
    let ended = match (done.code, done.signal) {
        (Some(0), _) => None,
        (Some(127), _) if done.stderr.contains("not found") => Some(format!(
            "its command \"{}\" was not found (exit code 127); install it or fix \"command\" in {}",
            agent.command[0],
            agent.source.display()
        )),
        (Some(code), _) => Some(format!("it exited with code {code}")),
        (None, Some(sig)) => Some(format!("it was killed by {}", signal_name(sig))),
        (None, None) => Some("it ended without an exit code".to_string()),
    };
    let answer = match (&ended, agent.output) {
        (Some(why), _) => Err(why.clone()),
        (None, OutputKind::Text) => Ok(stdout.to_string()),
        (None, OutputKind::Json) => json_answer(stdout, agent.result_field.as_deref()),
    };
    let duration = human_duration(took.as_millis() as u64);
    match answer {
        Ok(result) => {
            // The record holds the answer within the budget, like the text.
            let kept = clamp_for(ctx, "task", &result);
            let text = if kept.is_empty() {
                format!("task: agent \"{name}\" finished in {duration} with no answer.")
            } else {
                kept.clone()
            };
            let r = record(name, done.code, &kept, took, false);
            Ok(text_and_record(text, Value::Object(r), false))
        }
        Err(why) => {
            let mut text = format!("task: agent \"{name}\" failed after {duration}: {why}.");
            let err_tail = tail(&done.stderr);
            if !stdout.is_empty() && ended.is_some() {
                text.push_str(&format!("\nstdout:\n{}", tail(stdout)));
            }
            if !err_tail.is_empty() {
                text.push_str(&format!("\nstderr (last lines):\n{err_tail}"));
            }
            let kept = clamp_for(ctx, "task", stdout);
            let mut r = record(name, done.code, &kept, took, false);
            r.insert("error".into(), json!(why));
            if !err_tail.is_empty() {
                r.insert("stderr".into(), json!(err_tail));
            }
            Err(text_and_record(
                clamp_for(ctx, "task", &text),
                Value::Object(r),
                true,
            ))
        }
    }
}

/// The `task` card, built for `ctx` (its description lists the configured agents).
pub fn task_card(ctx: &DeckContext) -> DefinedTool {
    define_tool(Arc::new(TaskCard {
        description: describe(ctx),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeout_description_names_the_constants() {
        let timeout = FIELDS.iter().find(|f| f.key == "timeoutMs").unwrap();
        assert!(timeout.description.contains(&format!(
            "default {DEFAULT_TIMEOUT_MS}, at most {MAX_TIMEOUT_MS})"
        )));
    }

    fn agent(entry: Value) -> Result<AgentSpec, String> {
        parse_agent("a", &entry, Path::new("/x/agents.json"))
    }

    #[test]
    fn presets_fill_and_fields_override() {
        let a = agent(json!({"preset": "claude"})).unwrap();
        assert_eq!(a.command[0], "claude");
        assert_eq!(a.output, OutputKind::Json);
        assert_eq!(a.result_field.as_deref(), Some("result"));
        let b = agent(json!({"preset": "codex", "command": ["/opt/codex", "exec"]})).unwrap();
        assert_eq!(b.command, ["/opt/codex", "exec"]);
        assert_eq!(b.output, OutputKind::Text);
        let c = agent(json!({"command": ["x"], "prompt": "stdin", "default": true})).unwrap();
        assert_eq!(c.prompt, PromptVia::Stdin);
        assert!(c.default);
    }

    #[test]
    fn bad_entries_name_the_field() {
        assert!(agent(json!({})).unwrap_err().contains("a.command"));
        assert!(
            agent(json!({"command": []}))
                .unwrap_err()
                .contains("a.command")
        );
        assert!(
            agent(json!({"command": [1]}))
                .unwrap_err()
                .contains("a.command[0]")
        );
        assert!(
            agent(json!({"preset": "nope"}))
                .unwrap_err()
                .contains("a.preset")
        );
        assert!(
            agent(json!({"command": ["x"], "comand": 1}))
                .unwrap_err()
                .contains("comand")
        );
        assert!(
            agent(json!({"command": ["x"], "resultField": "r"}))
                .unwrap_err()
                .contains("resultField")
        );
    }

    #[test]
    fn the_prompt_is_the_objective_then_the_context() {
        assert_eq!(compose_prompt("Do it", None), "Do it");
        assert_eq!(compose_prompt("Do it", Some("  ")), "Do it");
        assert_eq!(compose_prompt("Do it", Some("bg")), "Do it\n\nContext:\nbg");
    }

    #[test]
    fn the_prompt_replaces_the_placeholder_or_goes_last() {
        let mut a = agent(json!({"preset": "claude"})).unwrap();
        assert_eq!(argv_for(&a, "P")[2], "P");
        a.command = vec!["run".into()];
        assert_eq!(argv_for(&a, "P"), ["run", "P"]);
        a.prompt = PromptVia::Stdin;
        assert_eq!(argv_for(&a, "P"), ["run"]);
    }

    #[test]
    fn quoting_survives_quotes() {
        assert_eq!(
            exec_line(&["a b".into(), "it's".into()]),
            "exec 'a b' 'it'\\''s'"
        );
    }

    #[test]
    fn json_answers_are_read_by_field() {
        assert_eq!(
            json_answer("{\"result\":\" hi \"}", Some("result")).unwrap(),
            "hi"
        );
        assert_eq!(
            json_answer("noise\n{\"a\":{\"b\":1}}\n", Some("a.b")).unwrap(),
            "1"
        );
        assert!(
            json_answer("{}", Some("result"))
                .unwrap_err()
                .contains("\"result\"")
        );
        assert!(
            json_answer("not json", None)
                .unwrap_err()
                .contains("not JSON")
        );
        assert!(json_answer("{\"is_error\":true,\"result\":\"x\"}", Some("result")).is_err());
    }

    #[test]
    fn project_agents_shadow_the_users() {
        let (agents, warnings) = parse_agents_file(
            r#"{"agents": {"x": {"command": ["a"]}, "bad": {"command": 3}}}"#,
            Path::new("p.json"),
        )
        .unwrap();
        assert_eq!(agents.len(), 1);
        assert!(warnings[0].contains("\"bad\""));
        assert!(parse_agents_file("[]", Path::new("p.json")).is_err());
        assert!(parse_agents_file("{", Path::new("p.json")).is_err());
    }
}
