//! The invocation's global options as clap parsed them: the [`Globals`] every
//! face runs with, read from the matches (argv itself is read before clap, in
//! `argv`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::ArgMatches;

use super::error::{CliResult, UsageError};
use super::output::ColorMode;
use crate::deck::Profile;
use crate::kernel::Root;
use crate::state::StateDir;

/// Which face `--exact` shows a call through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exact {
    /// The text the command line prints to an agent (bare `--exact`): the
    /// tool's whole text, whatever stdout is, with no shell split.
    Cli,
    /// The line `batch` would answer (in batch's format, see `batch_face`).
    Batch,
    /// The tool result the MCP server would send, as its JSON.
    Mcp,
}

impl Exact {
    /// The value of `--exact=VALUE` / `INDUS_EXACT`: a face, or a boolean as
    /// before faces existed (true/1/yes/on: `cli`; false/0/no/off/empty: off).
    pub fn parse(value: &str) -> Result<Option<Exact>, String> {
        match value.trim().to_ascii_lowercase().as_str() {
            "cli" | "1" | "true" | "yes" | "on" | "y" | "t" => Ok(Some(Exact::Cli)),
            "batch" => Ok(Some(Exact::Batch)),
            "mcp" => Ok(Some(Exact::Mcp)),
            "" | "0" | "false" | "no" | "off" | "n" | "f" => Ok(None),
            _ => Err(format!(
                "--exact takes cli, batch or mcp (the face to show; bare --exact is cli), not \"{value}\""
            )),
        }
    }
}

/// The options that come before the tool name.
#[derive(Debug, Clone)]
pub struct Globals {
    pub json: bool,
    /// Whether `--format` (or `INDUS_FORMAT`) was given rather than defaulted:
    /// `batch` answers JSON unless text was asked for, and `call` sends its text
    /// as a JSON line only when asked.
    pub format_given: bool,
    pub cwd: String,
    /// `--root` / `INDUS_ROOT`: the folder every tool's paths are confined to.
    pub root: Option<Arc<Root>>,
    /// `--allow-protected PATH…`: protected paths the file tools may write
    /// (absolute, tidied).
    pub allow_protected: Vec<PathBuf>,
    /// `--allow-outside DIR…`: folders outside the project the file tools may
    /// write without a question or a refusal (absolute, tidied).
    pub allow_outside: Vec<PathBuf>,
    /// What the invocation exposes before `--tools` narrows it.
    pub selection: Selection,
    pub tools: Option<Vec<String>>,
    pub no_tools: bool,
    pub max_bytes: Option<usize>,
    pub session: String,
    pub gate: bool,
    pub color: ColorMode,
    pub id: String,
    /// `--checkpoint` / `INDUS_CHECKPOINT`: record what write and edit change.
    pub checkpoint: bool,
    /// `--turn` / `INDUS_TURN`: the checkpoint node (default: one per invocation).
    pub turn: Option<String>,
    /// The grafted MCP tools' names (`<server>__<tool>`), exposed beside the
    /// selection unless `--no-mcp`.
    pub grafted: Vec<String>,
    /// `--mcp-config FILE`.
    pub mcp_config: Option<PathBuf>,
    pub no_mcp: bool,
    /// `--save-media DIR`: media blocks written there (text mode).
    pub save_media: Option<PathBuf>,
    /// `--mcp-log LEVEL`: MCP servers' log notifications at LEVEL and above.
    pub mcp_log: Option<String>,
    /// `--exact[=cli|batch|mcp]` / `INDUS_EXACT`: the call as that face would
    /// send it; `cli` is the tool's text as an agent gets it, whatever stdout is
    /// (no shell split).
    pub exact: Option<Exact>,
    /// `--envelope` / `INDUS_ENVELOPE`, or the `buddy` profile: results in the
    /// buddy seed's envelope.
    pub envelope: bool,
    /// `--confirm` / `INDUS_CONFIRM` (or `shell_confirm` in `buddy.json`).
    pub confirm: Option<bool>,
    /// `--suppress-repeats[=BOOL]` / `INDUS_SUPPRESS_REPEATS`, when given.
    pub suppress: Option<bool>,
    /// The channel of `--exec` when this build cannot run on the target: the
    /// tools run here over shell commands there, `cwd` is the remote one, and
    /// the state is kept here in `state_root`.
    pub remote: Option<crate::backends::remote_fs::Channel>,
    /// The `.indus-process` folder, found once per invocation (`--state-dir`, or
    /// upwards from `cwd`; see `state`), or the remote target's kept here.
    pub state_root: Option<PathBuf>,
    /// `--tmux[=SESSION]` / `INDUS_TMUX`: commands go to that session's shared
    /// tmux pane.
    pub tmux: Option<String>,
    /// Whether the tools' records keep their rows (see `ToolContext::record_rows`):
    /// false only for a tool subcommand printed as text without `-0`.
    pub record_rows: bool,
    /// Whether a listing tool prints every row to a reader that wants them all
    /// (see `ToolContext::unbounded_rows`): a tool subcommand whose rows go to a
    /// pipe, or with `-0`. Its budget is then unbounded unless `--max-bytes` asks.
    pub unbounded_rows: bool,
    /// Whether the answer goes to an agent's face (see `ToolContext::agent_face`):
    /// false only for a tool subcommand printed as plain text (no `--exact`).
    pub agent_face: bool,
    /// With `unbounded_rows`, a text face: rows go to stdout as the tool finds
    /// them (`ToolContext::rows`) rather than whole in its answer.
    pub stream_rows: bool,
}

impl Globals {
    /// The face `batch` answers in: text only when `--format text` was asked
    /// for, JSON otherwise (its default, whatever `--format` defaults to).
    pub fn batch_face(&self) -> crate::interop::batch::Face {
        if self.format_given && !self.json {
            crate::interop::batch::Face::Text
        } else {
            crate::interop::batch::Face::Json
        }
    }

    /// The state folder of this invocation's tools.
    pub fn state_dir(&self) -> StateDir {
        match &self.state_root {
            Some(root) => StateDir::at(root.clone()),
            None => StateDir::new(&self.cwd),
        }
    }
}

/// The catalog selection of an invocation: a deck profile or a standard collection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    Profile(Profile),
    Collection(String),
}

impl Selection {
    /// `profile all` or `collection coding`, for messages.
    pub fn describe(&self) -> String {
        match self {
            Selection::Profile(p) => format!("profile {}", p.name()),
            Selection::Collection(c) => format!("collection {c}"),
        }
    }
}

/// The paths given to a repeatable option, absolute against `cwd` and tidied.
fn absolute_all(m: &ArgMatches, id: &str, cwd: &Path) -> Vec<PathBuf> {
    m.get_many::<PathBuf>(id)
        .into_iter()
        .flatten()
        .filter(|p| !p.as_os_str().is_empty())
        .map(|p| crate::kernel::root::tidy(&cwd.join(p)))
        .collect()
}

/// `--root`: the folder every path is confined to. An empty INDUS_ROOT (or
/// `--root ''`) confines nothing, like an unset one.
fn root_of(m: &ArgMatches, here: &Path) -> CliResult<Option<Arc<Root>>> {
    Ok(match m.get_one::<OsString>("root").map(Path::new) {
        Some(dir) if !dir.as_os_str().is_empty() => {
            let root = Root::new(dir, here).map_err(|e| {
                let why = match e.kind() {
                    std::io::ErrorKind::NotFound => "no such directory".to_string(),
                    std::io::ErrorKind::NotADirectory => "not a directory".to_string(),
                    _ => e.to_string(),
                };
                UsageError(format!("--root {}: {why}", dir.display()))
            })?;
            Some(Arc::new(root))
        }
        _ => None,
    })
}

/// `--cwd`: the working directory, which must exist and, under a root, lie in
/// it; without one, a current directory outside the root gives way to it.
fn cwd_of(m: &ArgMatches, here: &Path, root: Option<&Root>) -> CliResult<PathBuf> {
    Ok(match m.get_one::<PathBuf>("cwd") {
        Some(dir) => {
            let abs = crate::kernel::root::tidy(&here.join(dir));
            if !abs.is_dir() {
                let why = if abs.exists() {
                    "not a directory"
                } else {
                    "the directory does not exist"
                };
                return Err(UsageError(format!("--cwd {}: {why}", dir.display())));
            }
            if let Some(root) = root {
                root.admit(&dir.to_string_lossy(), &abs)
                    .map_err(|m| UsageError(format!("--cwd {m}")))?;
            }
            abs
        }
        // Under a root, a current directory outside it gives way to the root.
        None => match root {
            Some(root) if root.admit(".", here).is_err() => root.path().to_path_buf(),
            _ => here.to_path_buf(),
        },
    })
}

/// Read the global options. One of them is not a field of [`Globals`] but
/// process-wide: `--allow-private-network` / `INDUS_ALLOW_PRIVATE_NETWORK`
/// opens the private network to the web tools' clients (see
/// `tools::web::client`), for one-shot calls, `call`, `batch` and `mcp` alike.
pub(crate) fn read_globals(m: &ArgMatches) -> CliResult<Globals> {
    crate::tools::web::client::allow_private_network(m.get_flag("allow-private-network"));
    let here = std::env::current_dir()
        .map_err(|e| UsageError(format!("cannot read the current directory: {e}")))?;
    let root = root_of(m, &here)?;
    let cwd = cwd_of(m, &here, root.as_deref())?;
    let get = |k: &str| m.get_one::<String>(k).cloned().unwrap_or_default();
    let state_root = match m.get_one::<PathBuf>("state-dir") {
        // A folder the user named may be a link they chose: resolved here, so the
        // state store's refusal of a linked state folder meets only planted ones.
        Some(d) if !d.as_os_str().is_empty() => {
            let named = crate::kernel::root::tidy(&here.join(d));
            std::fs::canonicalize(&named).unwrap_or(named)
        }
        _ => crate::state::locate(&cwd),
    }
    .join(crate::state::STATE_DIR_NAME);
    Ok(Globals {
        json: get("format") == "json",
        format_given: matches!(
            m.value_source("format"),
            Some(clap::parser::ValueSource::CommandLine | clap::parser::ValueSource::EnvVariable)
        ),
        allow_protected: absolute_all(m, "allow-protected", &cwd),
        allow_outside: absolute_all(m, "allow-outside", &cwd),
        cwd: cwd.to_string_lossy().into_owned(),
        root,
        selection: selection_of(m),
        tools: m.get_many::<String>("tools").map(|v| {
            v.map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        }),
        no_tools: m.get_flag("no-tools"),
        max_bytes: m.get_one::<u64>("max-bytes").map(|n| *n as usize),
        session: get("session"),
        gate: m.get_flag("gate"),
        color: match get("color").as_str() {
            "always" => ColorMode::Always,
            "never" => ColorMode::Never,
            _ => ColorMode::Auto,
        },
        id: m
            .get_one::<String>("id")
            .cloned()
            .unwrap_or_else(|| "cli".to_string()),
        checkpoint: checkpoint_wanted(m, StateDir::at(state_root.clone()), &session_name(m)),
        turn: m
            .get_one::<String>("turn")
            .filter(|t| !t.is_empty())
            .cloned(),
        grafted: Vec::new(),
        mcp_config: m.get_one::<PathBuf>("mcp-config").cloned(),
        no_mcp: m.get_flag("no-mcp"),
        save_media: m.get_one::<PathBuf>("save-media").cloned(),
        mcp_log: m.get_one::<String>("mcp-log").cloned(),
        exact: match m.get_one::<String>("exact") {
            Some(v) => Exact::parse(v).map_err(UsageError)?,
            None => None,
        },
        envelope: m.get_flag("envelope") || selection_of(m) == Selection::Profile(Profile::Buddy),
        confirm: m.value_source("confirm").and_then(|s| {
            matches!(
                s,
                clap::parser::ValueSource::CommandLine | clap::parser::ValueSource::EnvVariable
            )
            .then(|| m.get_flag("confirm"))
        }),
        suppress: m.get_one::<bool>("suppress-repeats").copied(),
        remote: None,
        state_root: Some(state_root),
        tmux: m
            .get_one::<String>("tmux")
            .filter(|s| !s.is_empty() && *s != "0")
            .cloned(),
        record_rows: true,
        unbounded_rows: false,
        agent_face: true,
        stream_rows: false,
    })
}

pub(crate) fn session_name(m: &ArgMatches) -> String {
    m.get_one::<String>("session").cloned().unwrap_or_default()
}

/// Whether write and edit are checkpointed: `--checkpoint` or `INDUS_CHECKPOINT`
/// when given (`INDUS_CHECKPOINT=0` is off even for a session that asked), else
/// whether the session asked with `checkpoint on`.
pub(crate) fn checkpoint_wanted(m: &ArgMatches, state: StateDir, session: &str) -> bool {
    use clap::parser::ValueSource;
    match m.value_source("checkpoint") {
        Some(ValueSource::CommandLine | ValueSource::EnvVariable) => m.get_flag("checkpoint"),
        _ => crate::state::checkpoints::CheckpointStore::new(state, session).always_on(),
    }
}

/// The selection `--profile`/`--collection` (and their variables) ask for: a flag
/// beats the environment, and of two at the same level the profile wins. Neither
/// given: the profile `all`, the whole deck.
pub(crate) fn selection_of(m: &ArgMatches) -> Selection {
    use clap::parser::ValueSource;
    let level = |key: &str| match m.value_source(key) {
        Some(ValueSource::CommandLine) => 2,
        Some(ValueSource::EnvVariable) => 1,
        _ => 0,
    };
    let profile = m
        .get_one::<String>("profile")
        .and_then(|p| Profile::from_name(p));
    let collection = m.get_one::<String>("collection").cloned();
    match (profile, collection) {
        (Some(_), Some(c)) if level("collection") > level("profile") => Selection::Collection(c),
        (Some(p), _) => Selection::Profile(p),
        (None, Some(c)) => Selection::Collection(c),
        (None, None) => Selection::Profile(Profile::All),
    }
}
