//! The `indus-tool` command line: a thin front end over the registry.
//!
//! It turns argv into a `ToolCall`, dispatches it through the same `ToolBox` a
//! library user gets, and prints the projected `ToolOutcome`. It holds no tool logic.
//! Exit status: 0 success, 1 the tool reported `is_error`, 2 a usage error (always
//! one line on stderr naming the problem). A closed stdout ends the program quietly.

mod checkpoint;
pub mod command;
mod output;

use std::ffi::OsString;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use clap::ArgMatches;
use clap::error::ErrorKind;
use serde_json::{Map, Value};

use crate::backends::local::{budget_of, confine_local, make_local_context, open_confined};
use crate::deck::{DeckContext, Profile, deck_registry, rebuild_in_context, rows_for_profile};
use crate::kernel::{
    CancellationToken, ContextFactory, Framework, ToolBox, ToolCall, ToolDescriptor, ToolOutcome,
    ToolRegistry, no_such_tool_message, normalize_tool_name,
};
use crate::kernel::{ReadStateHandle, Root, TodoStoreHandle};
use crate::state::StateDir;
use crate::state::read_state::{CachedReadState, PersistentReadState};
use crate::state::todos::PersistentTodoStore;
use command::{META_COMMANDS, VALUE_GLOBALS, build_command, positional_id, shape_of, summary};
pub use output::ColorMode;
use output::Printer;

/// A usage error: printed as one line, exit status 2.
#[derive(Debug)]
pub struct UsageError(pub String);

type CliResult<T> = Result<T, UsageError>;

/// The options that come before the tool name.
#[derive(Debug, Clone)]
pub struct Globals {
    pub json: bool,
    pub cwd: String,
    /// `--root` / `INDUS_ROOT`: the folder every tool's paths are confined to.
    pub root: Option<Arc<Root>>,
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
    pub state_root: Option<PathBuf>,
    /// `--tmux[=SESSION]` / `INDUS_TMUX`: commands go to that session's shared
    /// tmux pane.
    pub tmux: Option<String>,
}

impl Globals {
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

/// Run the program on `args` (including argv[0]) and return its exit code.
pub fn run(args: Vec<OsString>) -> ExitCode {
    // Elsewhere (`--exec ssh:…`/`container:…`): the whole invocation runs there,
    // before anything here is loaded.
    use crate::backends::remote::Forwarded;
    let mut fallback = None;
    let args = match remote_request(&args) {
        Ok(None) => args,
        Ok(Some((remote, forwarded))) => {
            match remote.forward(&forwarded, &crate::backends::remote::forwarded_env()) {
                Forwarded::Done(code) => return code,
                // This build cannot run there: run here, over shell commands there.
                Forwarded::Fallback { cwd } => {
                    fallback = Some((remote, cwd));
                    std::iter::once(args[0].clone())
                        .chain(forwarded.into_iter().map(OsString::from))
                        .collect()
                }
            }
        }
        Err(message) => return Printer::new(ColorMode::Auto).usage(&message),
    };
    let mut registry = deck_registry();
    // The grafted MCP tools must be known before clap parses (their names are
    // subcommands); with no MCP config this reads a few absent files and nothing
    // else.
    let mut graft = mcp_graft(&args);
    let grafted = graft_tools(graft.as_ref());
    let descriptors: Vec<ToolDescriptor> = registry.tools().map(|t| t.descriptor()).collect();
    registry.register_all(grafted.iter().cloned());
    let args = normalize_argv(args, &registry);
    let mut printer = Printer::new(ColorMode::Auto);
    graft_notes(graft.as_ref(), &mut printer);
    // clap's own report ("invalid UTF-8 was detected in one or more arguments")
    // does not say which; every input is JSON text, so name the argument.
    if let Some((i, bad)) = args
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, a)| a.to_str().is_none())
    {
        return printer.usage(&format!(
            "argument {i} ({}) is not valid UTF-8; paths and inputs are taken as UTF-8 text (the invalid bytes are shown as U+FFFD)",
            bad.to_string_lossy()
        ));
    }
    let tree: std::borrow::Cow<[ToolDescriptor]> = if grafted.is_empty() {
        std::borrow::Cow::Borrowed(&descriptors)
    } else {
        let mut all = descriptors.clone();
        all.extend(grafted.iter().map(|t| t.descriptor()));
        std::borrow::Cow::Owned(all)
    };
    let matches = match build_command(&tree).try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => return clap_error(e),
    };
    let mut globals = match read_globals(&matches) {
        Ok(g) => g,
        Err(e) => return printer.usage(&e.0),
    };
    globals.grafted = grafted.iter().map(|t| t.name().to_string()).collect();
    if let Some((remote, cwd)) = fallback {
        if globals.root.is_some() || globals.checkpoint || globals.tmux.is_some() {
            return printer.usage(&format!(
                "--root, --tmux and checkpoints need indus-tool itself on {}, which cannot run it there",
                remote.target.describe()
            ));
        }
        globals.state_root = Some(remote.fallback_state());
        globals.cwd = cwd;
        globals.remote = Some(crate::backends::remote_fs::Channel::new(remote));
    }
    printer = Printer::new(globals.color);
    // The tools that run are built for the working directory: the rows whose tool
    // reads its configuration (the task card's roster) are built again for it; the
    // command tree above, docs and completions use the machine-independent deck.
    rebuild_in_context(&mut registry, &DeckContext::at(&globals.cwd));
    // Off (the default): nothing is wrapped, the tools are the deck's own.
    if globals.checkpoint {
        checkpoint::install(&mut registry, &globals);
    }
    let (sub, sub_matches) = matches.subcommand().expect("clap enforces a subcommand");
    install_operator_wrappers(&mut registry, &globals, sub, &mut printer);
    let result = match sub {
        "list" => list(&registry, &globals, &mut printer),
        "describe" => describe(&registry, &globals, sub_matches, &mut printer),
        "schema" => schema(&registry, &globals, sub_matches, &mut printer),
        "call" => call(&registry, &globals, sub_matches, &mut printer),
        "batch" => batch(&registry, &globals, sub_matches, &mut printer),
        "mcp" => mcp(&registry, &globals, sub_matches, &mut printer, &mut graft),
        "diff" => diff(&globals, sub_matches, &mut printer),
        "checkpoint" => checkpoint::command(&globals, sub_matches, &mut printer),
        "completions" => completions(&descriptors, sub_matches, &mut printer),
        "man" => man(&descriptors, sub_matches, &mut printer),
        tool => tool_invocation(&registry, &globals, tool, sub_matches, &mut printer),
    };
    match result {
        Ok(code) => code,
        Err(e) => printer.usage(&e.0),
    }
}

/// The `--exec` options of an invocation (flags, else `INDUS_EXEC`…): the remote
/// target and the arguments to run there (without those options), or `None` to
/// run here. Read from argv before clap, so a forwarded call loads nothing else;
/// clap still knows the options, for help, completions and `--exec local`.
fn remote_request(
    args: &[OsString],
) -> Result<Option<(crate::backends::remote::Remote, Vec<String>)>, String> {
    use crate::backends::remote::{Engine, Remote, Target};
    let mut spec = std::env::var("INDUS_EXEC").ok();
    let mut cwd = std::env::var("INDUS_EXEC_CWD")
        .ok()
        .filter(|s| !s.is_empty());
    let mut engine = std::env::var("INDUS_ENGINE").ok().filter(|s| !s.is_empty());
    let mut ssh_config = std::env::var("INDUS_SSH_CONFIG")
        .ok()
        .filter(|s| !s.is_empty());
    let quick = args.iter().skip(1).any(|a| {
        a.to_str()
            .is_some_and(|a| matches!(a.split_once('=').map_or(a, |(n, _)| n), "--exec"))
    });
    if !quick && spec.as_deref().is_none_or(|s| s.is_empty() || s == "local") {
        return Ok(None);
    }
    let mut rest: Vec<String> = Vec::new();
    let mut local_cwd = false;
    // Before the tool name, the value of a global option is not the tool name.
    let (mut past_tool, mut value_next) = (false, false);
    let mut i = 1;
    let mut after_dashes = false;
    while i < args.len() {
        let Some(arg) = args[i].to_str() else {
            return Err(format!(
                "argument {i} ({}) is not valid UTF-8",
                args[i].to_string_lossy()
            ));
        };
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg, None),
        };
        let slot = match name {
            _ if after_dashes => None,
            "--exec" => Some(&mut spec),
            "--exec-cwd" => Some(&mut cwd),
            "--engine" => Some(&mut engine),
            "--ssh-config" => Some(&mut ssh_config),
            _ => None,
        };
        match slot {
            Some(slot) => {
                let value = match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        args.get(i)
                            .and_then(|v| v.to_str())
                            .ok_or_else(|| format!("{name} needs a value"))?
                            .to_string()
                    }
                };
                *slot = Some(value);
            }
            None => {
                if arg == "--" {
                    after_dashes = true;
                }
                if !after_dashes && !past_tool {
                    if name == "--cwd" {
                        local_cwd = true;
                    }
                    if value_next {
                        value_next = false;
                    } else if VALUE_GLOBALS.contains(&name) && inline.is_none() {
                        value_next = true;
                    } else if !arg.starts_with('-') {
                        past_tool = true;
                    }
                }
                rest.push(arg.to_string());
            }
        }
        i += 1;
    }
    let target = Target::parse(spec.as_deref().unwrap_or(""))?;
    if target == Target::Local {
        return Ok(None);
    }
    if local_cwd {
        return Err(format!(
            "--cwd names a local folder; with --exec {} give the remote one with --exec-cwd",
            target.describe()
        ));
    }
    let engine = match engine.as_deref() {
        None => None,
        Some("docker") => Some(Engine::Docker),
        Some("podman") => Some(Engine::Podman),
        Some(other) => return Err(format!("--engine {other}: expected docker or podman")),
    };
    let here =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    Ok(Some((
        Remote {
            target,
            cwd,
            engine,
            ssh_config: ssh_config.map(PathBuf::from),
            state: crate::state::StateDir::new(here),
        },
        rest,
    )))
}

fn clap_error(e: clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            // clap's whole report: the problem, the usage line and its hint (which
            // argument is missing, which values are allowed, a near spelling).
            let _ = e.print();
            ExitCode::from(2)
        }
    }
}

/// Rewrite the tool name in argv to its registered spelling, so `todo-set`,
/// `TodoSet` and `todoset` all reach `todo_set`, and move global options written
/// after the tool name (`indus-tool grep foo --format json`) in front of it, unless
/// the tool has a flag of the same name (`bash --cwd`, `webfetch --format`).
fn normalize_argv(mut args: Vec<OsString>, registry: &ToolRegistry) -> Vec<OsString> {
    let mut i = 1;
    while i < args.len() {
        let Some(arg) = args[i].to_str() else {
            return args;
        };
        if arg == "--" {
            break;
        }
        if arg.starts_with("--") {
            if !arg.contains('=') && VALUE_GLOBALS.contains(&arg) {
                i += 1;
            }
        } else if !arg.starts_with('-') {
            if !META_COMMANDS.contains(&arg)
                && let Some(tool) = registry.resolve(arg)
            {
                args[i] = OsString::from(tool.name());
                let descriptor = tool.descriptor();
                return hoist_globals(args, i, &descriptor);
            }
            break;
        }
        i += 1;
    }
    args
}

/// Move the global options found after the tool name at `at` to just before it.
fn hoist_globals(args: Vec<OsString>, at: usize, descriptor: &ToolDescriptor) -> Vec<OsString> {
    let own = command::tool_flags(descriptor);
    let (mut head, tail) = (args[..at].to_vec(), &args[at..]);
    let mut kept: Vec<OsString> = vec![tail[0].clone()];
    let mut j = 1;
    while j < tail.len() {
        let Some(arg) = tail[j].to_str() else {
            kept.extend_from_slice(&tail[j..]);
            break;
        };
        if arg == "--" {
            kept.extend_from_slice(&tail[j..]);
            break;
        }
        let name = arg.split_once('=').map_or(arg, |(n, _)| n);
        match own.iter().find(|f| f.spelling == name) {
            // The tool's own flag: its value (a separate word, which may start
            // with `-`) stays with it.
            Some(flag) => {
                kept.push(tail[j].clone());
                if flag.takes_value && !arg.contains('=') && j + 1 < tail.len() {
                    j += 1;
                    kept.push(tail[j].clone());
                }
            }
            None if command::GLOBAL_FLAGS.contains(&name) => {
                head.push(tail[j].clone());
                if VALUE_GLOBALS.contains(&name) && !arg.contains('=') && j + 1 < tail.len() {
                    j += 1;
                    head.push(tail[j].clone());
                }
            }
            None => kept.push(tail[j].clone()),
        }
        j += 1;
    }
    head.extend(kept);
    head
}

fn read_globals(m: &ArgMatches) -> CliResult<Globals> {
    let here = std::env::current_dir()
        .map_err(|e| UsageError(format!("cannot read the current directory: {e}")))?;
    // An empty INDUS_ROOT (or `--root ''`) confines nothing, like an unset one.
    let root = match m.get_one::<OsString>("root").map(Path::new) {
        Some(dir) if !dir.as_os_str().is_empty() => {
            let root = Root::new(dir, &here).map_err(|e| {
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
    };
    let cwd = match m.get_one::<PathBuf>("cwd") {
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
            if let Some(root) = &root {
                root.admit(&dir.to_string_lossy(), &abs)
                    .map_err(|m| UsageError(format!("--cwd {m}")))?;
            }
            abs
        }
        // Under a root, a current directory outside it gives way to the root.
        None => match &root {
            Some(root) if root.admit(".", &here).is_err() => root.path().to_path_buf(),
            _ => here,
        },
    };
    let get = |k: &str| m.get_one::<String>(k).cloned().unwrap_or_default();
    Ok(Globals {
        json: get("format") == "json",
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
        checkpoint: checkpoint_wanted(m, &cwd, &session_name(m)),
        turn: m
            .get_one::<String>("turn")
            .filter(|t| !t.is_empty())
            .cloned(),
        grafted: Vec::new(),
        mcp_config: m.get_one::<PathBuf>("mcp-config").cloned(),
        no_mcp: m.get_flag("no-mcp"),
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
        state_root: None,
        tmux: m
            .get_one::<String>("tmux")
            .filter(|s| !s.is_empty() && *s != "0")
            .cloned(),
    })
}

fn session_name(m: &ArgMatches) -> String {
    m.get_one::<String>("session").cloned().unwrap_or_default()
}

/// Whether write and edit are checkpointed: `--checkpoint` or `INDUS_CHECKPOINT`
/// when given (`INDUS_CHECKPOINT=0` is off even for a session that asked), else
/// whether the session asked with `checkpoint on`.
fn checkpoint_wanted(m: &ArgMatches, cwd: &Path, session: &str) -> bool {
    use clap::parser::ValueSource;
    match m.value_source("checkpoint") {
        Some(ValueSource::CommandLine | ValueSource::EnvVariable) => m.get_flag("checkpoint"),
        _ => {
            crate::state::checkpoints::CheckpointStore::new(StateDir::new(cwd), session).always_on()
        }
    }
}

/// The wrappers around the tools, innermost first: approval of commands, then
/// repeated-failure suppression, then the envelope. Each is installed only when
/// it can change something, and its configuration is read only then.
fn install_operator_wrappers(
    registry: &mut ToolRegistry,
    globals: &Globals,
    sub: &str,
    printer: &mut Printer,
) {
    use crate::deck::approval::{APPROVED_TOOLS, Approval, install_approval, policy_of};
    use crate::deck::buddy_config::{BuddyConfig, DEFAULT_SUPPRESS_AFTER};
    let buddy = globals.selection == Selection::Profile(Profile::Buddy);
    let long_running = matches!(sub, "batch" | "mcp" | "call");
    let runs_commands = long_running || APPROVED_TOOLS.contains(&sub);
    let suppress = globals
        .suppress
        .unwrap_or(buddy || matches!(sub, "batch" | "mcp"));
    let cwd = Path::new(&globals.cwd);
    let needs_config = (runs_commands && globals.confirm.is_none()) || suppress;
    let config = if needs_config {
        let (config, warnings) = BuddyConfig::load(cwd);
        for w in warnings {
            printer.error_text(&format!("indus-tool: {w}"));
        }
        config
    } else {
        BuddyConfig::default()
    };
    if runs_commands {
        let (policy, warnings) = policy_of(cwd);
        for w in warnings {
            printer.error_text(&format!("indus-tool: {w}"));
        }
        let confirm = globals.confirm.or(config.shell_confirm).unwrap_or(false);
        install_approval(
            registry,
            Approval {
                confirm,
                policy: Arc::new(policy),
            },
        );
    }
    if suppress {
        crate::deck::suppress::install_suppression(
            registry,
            config.suppress_after.unwrap_or(DEFAULT_SUPPRESS_AFTER),
        );
    }
    if globals.envelope {
        crate::deck::envelope::install_envelope(registry);
    }
}

/// The selection `--profile`/`--collection` (and their variables) ask for: a flag
/// beats the environment, and of two at the same level the profile wins. Neither
/// given: the profile `all`, the whole deck.
fn selection_of(m: &ArgMatches) -> Selection {
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

/// The names this invocation exposes: the profile or collection, narrowed by
/// `--tools`, or nothing under `--no-tools`.
pub fn selected_names(registry: &ToolRegistry, globals: &Globals) -> CliResult<Vec<String>> {
    if globals.no_tools {
        return Ok(Vec::new());
    }
    let mut members: Vec<String> = match &globals.selection {
        Selection::Profile(p) => rows_for_profile(*p)
            .filter(|r| registry.has(r.id))
            .map(|r| r.id.to_string())
            .collect(),
        Selection::Collection(c) => registry
            .members_of(c)
            .map_err(|e| UsageError(e.to_string()))?,
    };
    // Grafted MCP tools belong to no profile or collection; they are exposed
    // whenever servers are configured (and `--tools` may narrow them).
    members.extend(globals.grafted.iter().filter(|n| registry.has(n)).cloned());
    let Some(allow) = &globals.tools else {
        return Ok(members);
    };
    let mut wanted = Vec::new();
    for name in allow {
        let tool = registry.resolve(name).ok_or_else(|| {
            UsageError(format!("--tools: No tool named \"{name}\" is registered."))
        })?;
        wanted.push(normalize_tool_name(tool.name()));
    }
    Ok(members
        .into_iter()
        .filter(|m| wanted.contains(&normalize_tool_name(m)))
        .collect())
}

/// The per-call context factory the command line uses.
pub fn context_factory(globals: &Globals) -> ContextFactory {
    factory_with(globals, false)
}

/// The context factory of a long-running face (`batch`, `mcp`): the gate's records
/// are cached in memory for the run (and still written through to the session).
pub fn long_running_factory(globals: &Globals) -> ContextFactory {
    factory_with(globals, true)
}

fn factory_with(globals: &Globals, cached: bool) -> ContextFactory {
    let cwd = globals.cwd.clone();
    let budget = globals.max_bytes.map(budget_of);
    // The gate is opt-in; the checklist always persists per session, since a
    // one-shot invocation's in-memory list would be gone before anyone read it.
    let framework = Framework {
        read_state: globals.gate.then(|| {
            let persistent = PersistentReadState::new(globals.state_dir(), &globals.session);
            if cached {
                Arc::new(CachedReadState::new(persistent)) as Arc<dyn ReadStateHandle>
            } else {
                Arc::new(persistent) as Arc<dyn ReadStateHandle>
            }
        }),
        todo: Some(Arc::new(PersistentTodoStore::new(
            globals.state_dir(),
            &globals.session,
        )) as Arc<dyn TodoStoreHandle>),
        session: Some(globals.session.clone()),
    };
    let root = globals.root.clone();
    let (remote, state_root) = (globals.remote.clone(), globals.state_root.clone());
    let tmux = globals.tmux.as_ref().and_then(|session| {
        crate::backends::tmux::Tmux::new(Path::new(&cwd), Some(&globals.session))
            .ok()
            .map(|t| (t, session.clone()))
    });
    Arc::new(move || {
        let mut ctx = make_local_context(&cwd, None, budget.clone(), Some(framework.clone()));
        if let Some((engine, session)) = &tmux {
            ctx.shell = Arc::new(crate::backends::tmux::TmuxShell::new(
                engine.clone(),
                Some(session.clone()),
                ctx.shell.clone(),
            ));
        }
        if let Some(channel) = &remote {
            use crate::backends::remote_fs::{RemoteFs, RemoteShell};
            ctx.fs = Arc::new(RemoteFs::new(channel.clone()));
            ctx.shell = Arc::new(RemoteShell::new(channel.clone()));
            ctx.remote = Some(channel.describe());
            ctx.state_root = state_root.clone();
        }
        match &root {
            Some(root) => confine_local(ctx, Arc::clone(root)),
            None => ctx,
        }
    })
}

/// The runnable box of this invocation's selection.
pub fn selected_box(registry: &ToolRegistry, globals: &Globals) -> CliResult<ToolBox> {
    let names = selected_names(registry, globals)?;
    registry
        .box_of(&names, context_factory(globals))
        .map_err(|e| UsageError(e.to_string()))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime builds")
}

/// The signal (SIGINT, SIGTERM, SIGHUP) that cancelled this invocation's tool, if any.
static CAUGHT_SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Tools that run other programs and must clean them up when `indus-tool` itself is
/// interrupted: their commands lead their own process groups, out of reach of the
/// terminal's Ctrl-C, so the signal is turned into the cancel token instead. Other
/// tools keep the default action (die at once), which loses nothing; installing
/// handlers for them would cost every call a signal driver it does not need.
fn runs_commands(name: &str) -> bool {
    // A grafted MCP tool may run a stdio server in its own process group.
    matches!(normalize_tool_name(name).as_str(), "bash" | "task")
        || name.contains(crate::interop::mcp_client::ledger::QUALIFIER)
}

/// Cancel `cancel` on the first SIGINT, SIGTERM or SIGHUP, remembering which.
fn cancel_on_signals(cancel: CancellationToken) {
    use tokio::signal::unix::{SignalKind, signal};
    let kinds = [
        (SignalKind::interrupt(), 2),
        (SignalKind::terminate(), 15),
        (SignalKind::hangup(), 1),
    ];
    for (kind, number) in kinds {
        let Ok(mut stream) = signal(kind) else {
            continue;
        };
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if stream.recv().await.is_some() {
                let _ =
                    CAUGHT_SIGNAL.compare_exchange(0, number, Ordering::SeqCst, Ordering::SeqCst);
                cancel.cancel();
            }
        });
    }
}

fn dispatch(registry: &ToolRegistry, globals: &Globals, call: ToolCall) -> CliResult<ToolOutcome> {
    let tool_box = selected_box(registry, globals)?;
    let cancel = CancellationToken::new();
    let watch = runs_commands(&call.name);
    Ok(runtime().block_on(async move {
        if watch {
            cancel_on_signals(cancel.clone());
        }
        tool_box.runner.run(call, cancel).await
    }))
}

fn finish(outcome: &ToolOutcome, globals: &Globals, printer: &mut Printer) -> ExitCode {
    finish_as(outcome, globals, printer, None)
}

fn finish_as(
    outcome: &ToolOutcome,
    globals: &Globals,
    printer: &mut Printer,
    id: Option<&Value>,
) -> ExitCode {
    printer.outcome_as(outcome, globals.json, id);
    let caught = CAUGHT_SIGNAL.load(Ordering::SeqCst);
    if caught != 0 {
        // The shell convention for "ended by signal N".
        return ExitCode::from(128 + caught as u8);
    }
    if outcome.is_error {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Read all of `reader`, but never more than `limit` bytes: past that, an error
/// naming `what` and the limit, without holding the rest in memory.
fn read_bounded(reader: impl Read, limit: usize, what: &str) -> CliResult<Vec<u8>> {
    let mut buf = Vec::new();
    reader
        .take(limit as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| UsageError(format!("cannot read {what}: {e}")))?;
    if buf.len() > limit {
        return Err(UsageError(format!(
            "{what} is over {} MiB; indus-tool does not hold more than that in memory",
            limit / (1024 * 1024)
        )));
    }
    Ok(buf)
}

/// Read a JSON argument spelled inline, as `-` (stdin) or as `@FILE`, each at
/// most one batch line's worth.
fn read_json_arg(what: &str, raw: &str) -> CliResult<Value> {
    let limit = crate::interop::batch::MAX_LINE;
    let bytes;
    let text = if raw == "-" {
        bytes = read_bounded(std::io::stdin().lock(), limit, &format!("{what} on stdin"))?;
        &bytes[..]
    } else if let Some(file) = raw.strip_prefix('@') {
        let f = std::fs::File::open(file)
            .map_err(|e| UsageError(format!("{what}: cannot read {file}: {e}")))?;
        bytes = read_bounded(f, limit, &format!("{what} file {file}"))?;
        &bytes[..]
    } else {
        raw.as_bytes()
    };
    serde_json::from_slice(text).map_err(|e| UsageError(format!("{what}: malformed JSON: {e}")))
}

/// Turn a flag's text into the JSON value of its input key, typed by the schema.
fn flag_value(key: &str, schema: &Value, raw: &str) -> CliResult<Value> {
    let ty = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    Ok(match ty {
        "boolean" => Value::Bool(raw == "true"),
        // A number that does not parse goes through as text, so the tool's own
        // validation names the field and what it accepts.
        "integer" | "number" => serde_json::from_str::<Value>(raw)
            .ok()
            .filter(Value::is_number)
            .unwrap_or_else(|| Value::String(raw.to_string())),
        "array" | "object" => serde_json::from_str(raw)
            .map_err(|e| UsageError(format!("--{}: malformed JSON: {e}", command::kebab(key))))?,
        _ => Value::String(raw.to_string()),
    })
}

/// The value standard input gives a tool's stdin key: verbatim text for a string
/// key; for an array or object key (`todo_set`'s `items`) the text parsed as JSON,
/// where empty or blank input (`< /dev/null`, a closed pipe) gives nothing, so the
/// tool reports the key as missing.
fn stdin_value(key: &str, schema: Option<&Value>, text: &str) -> CliResult<Option<Value>> {
    let ty = schema
        .and_then(|s| s.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("string");
    match ty {
        "array" | "object" if text.trim().is_empty() => Ok(None),
        "array" | "object" => serde_json::from_str(text)
            .map(Some)
            .map_err(|e| UsageError(format!("stdin for \"{key}\": malformed JSON: {e}"))),
        _ => Ok(Some(Value::String(text.to_string()))),
    }
}

/// Assemble a tool's input from `--json`, positionals, flags and (for the tool's
/// stdin key) standard input. Later sources win: flags override `--json`.
fn assemble_input(descriptor: &ToolDescriptor, m: &ArgMatches) -> CliResult<Value> {
    let mut stdin_used = false;
    let mut input = match m.get_one::<String>("json") {
        Some(raw) => {
            stdin_used = raw == "-";
            match read_json_arg("--json", raw)? {
                Value::Object(map) => map,
                other => {
                    return Err(UsageError(format!(
                        "--json: expected a JSON object, got {}",
                        crate::kernel::input::describe_value(&other)
                    )));
                }
            }
        }
        None => Map::new(),
    };
    let props = command::properties(descriptor);
    for (key, schema) in props {
        if let Some(raw) = m.get_one::<String>(key) {
            input.insert(key.clone(), flag_value(key, schema, raw)?);
        }
    }
    // Positional words fill the positional keys that no flag gave, in order, so
    // `grep -e PATTERN PATH` reads PATH as the path.
    let positionals = shape_of(&descriptor.name).map_or(&[][..], |s| s.positionals);
    let words: Vec<&String> = positionals
        .iter()
        .filter_map(|k| m.try_get_one::<String>(&positional_id(k)).ok().flatten())
        .collect();
    let mut free = positionals
        .iter()
        .filter(|k| m.get_one::<String>(k).is_none());
    for word in words {
        let Some(key) = free.next() else {
            let upper = |ks: Vec<&&str>| {
                ks.iter()
                    .map(|k| k.to_uppercase())
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let by_flag = positionals
                .iter()
                .filter(|k| m.get_one::<String>(k).is_some())
                .collect();
            return Err(UsageError(format!(
                "unexpected argument '{word}': {} takes {} as words, and a flag already gave {}",
                descriptor.name,
                upper(positionals.iter().collect()),
                upper(by_flag)
            )));
        };
        if let Some(schema) = props.get(*key) {
            input.insert(key.to_string(), flag_value(key, schema, word)?);
        }
    }
    if let Ok(Some(words)) = m.try_get_many::<String>(command::GRAFTED_WORDS) {
        let required: Vec<&str> = descriptor
            .parameters
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut bare: Vec<&String> = Vec::new();
        for word in words {
            match word.split_once('=') {
                Some((key, raw)) if props.contains_key(key) => {
                    input.insert(key.to_string(), flag_value(key, &props[key], raw)?);
                }
                _ => bare.push(word),
            }
        }
        let open: Vec<&str> = required
            .iter()
            .copied()
            .filter(|k| !input.contains_key(*k))
            .collect();
        let mut free = open.into_iter();
        for word in bare {
            let Some(key) = free.next() else {
                return Err(UsageError(format!(
                    "unexpected argument '{word}': {} takes KEY=VALUE words, and bare values only for its required keys ({})",
                    descriptor.name,
                    if required.is_empty() {
                        "none".to_string()
                    } else {
                        required.join(", ")
                    }
                )));
            };
            let schema = props.get(key).cloned().unwrap_or(Value::Null);
            input.insert(key.to_string(), flag_value(key, &schema, word)?);
        }
    }
    // `process start CMD` (and `bg-process start CMD`): the second word is the
    // command, not a job id.
    if matches!(descriptor.name.as_str(), "process" | "bg-process")
        && input.get("action").and_then(Value::as_str) == Some("start")
        && !input.contains_key("command")
        && m.try_get_one::<String>(&positional_id("id"))
            .ok()
            .flatten()
            .is_some()
        && let Some(word) = input.remove("id")
    {
        input.insert("command".to_string(), word);
    }
    if let Some(key) = shape_of(&descriptor.name).and_then(|s| s.stdin_key)
        && !input.contains_key(key)
        && !stdin_used
        && !std::io::stdin().is_terminal()
        // Forwarded from a terminal (`--exec`): the local stdin stayed local.
        && std::env::var_os("INDUS_STDIN_TERMINAL").is_none_or(|v| v != "1")
    {
        let buf = read_bounded(
            std::io::stdin().lock(),
            crate::tools::files::edit::EDIT_MAX_BYTES,
            &format!("stdin for \"{key}\""),
        )?;
        let text = String::from_utf8(buf)
            .map_err(|_| UsageError(format!("stdin for \"{key}\" is not valid UTF-8")))?;
        if let Some(value) = stdin_value(key, props.get(key), &text)? {
            input.insert(key.to_string(), value);
        }
    }
    Ok(Value::Object(input))
}

fn tool_invocation(
    registry: &ToolRegistry,
    globals: &Globals,
    tool: &str,
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let descriptor = registry
        .get(tool)
        .map(|t| t.descriptor())
        .ok_or_else(|| UsageError(format!("unknown subcommand '{tool}'")))?;
    let input = assemble_input(&descriptor, m)?;
    let call = ToolCall {
        id: globals.id.clone(),
        name: descriptor.name,
        input,
    };
    let outcome = dispatch(registry, globals, call)?;
    Ok(finish(&outcome, globals, printer))
}

fn call(
    registry: &ToolRegistry,
    globals: &Globals,
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let raw = m.get_one::<String>("call").expect("required");
    let value = read_json_arg("call", raw)?;
    let Value::Object(mut obj) = value else {
        return Err(UsageError(
            "call: expected a ToolCall object {\"id\",\"name\",\"input\"}".into(),
        ));
    };
    let name = match obj.remove("name") {
        Some(Value::String(n)) => n,
        _ => {
            return Err(UsageError(
                "call: \"name\" must be a string naming the tool".into(),
            ));
        }
    };
    // The id is echoed as sent: a number stays a number in the outcome.
    let (id, echo) = match obj.remove("id") {
        Some(Value::String(id)) => (id, None),
        Some(Value::Number(n)) => (n.to_string(), Some(Value::Number(n))),
        None | Some(Value::Null) => (globals.id.clone(), None),
        Some(_) => {
            return Err(UsageError(
                "call: \"id\" must be a string or a number".into(),
            ));
        }
    };
    let input = obj.remove("input").unwrap_or(Value::Null);
    let outcome = dispatch(registry, globals, ToolCall { id, name, input })?;
    Ok(finish_as(&outcome, globals, printer, echo.as_ref()))
}

/// The box a long-running face (`batch`, `mcp`) serves. Its client is a model's
/// session, so the gate is on unless `--no-gate` turns it off, and the gate's
/// records are cached for the run.
fn long_running_box(
    registry: &ToolRegistry,
    globals: &Globals,
    m: &ArgMatches,
) -> CliResult<ToolBox> {
    let mut globals = globals.clone();
    globals.gate = !m.get_flag("no-gate");
    let names = selected_names(registry, &globals)?;
    registry
        .box_of(&names, long_running_factory(&globals))
        .map_err(|e| UsageError(e.to_string()))
}

/// `batch`: JSONL calls on stdin, JSONL outcomes on stdout (see `interop::batch`).
fn batch(
    registry: &ToolRegistry,
    globals: &Globals,
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let jobs = m.get_one::<u16>("jobs").copied().map_or(1, usize::from);
    let tool_box = long_running_box(registry, globals, m)?;
    let runtime = if jobs > 1 {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("a multi-thread runtime builds")
    } else {
        runtime()
    };
    let result = runtime.block_on(async move {
        let cancel = CancellationToken::new();
        cancel_on_signals(cancel.clone());
        let input = tokio::io::BufReader::new(tokio::io::stdin());
        let out = std::io::stdout().lock();
        crate::interop::batch::run_batch(tool_box.runner, input, out, jobs, cancel).await
    });
    // Calls that failed were answered in the stream; only the stream itself failing
    // (unreadable stdin) or a signal changes the exit status.
    if let Err(e) = result {
        printer.error_text(&format!("batch: cannot read standard input: {e}"));
        return Ok(ExitCode::from(1));
    }
    let caught = CAUGHT_SIGNAL.load(Ordering::SeqCst);
    Ok(if caught != 0 {
        ExitCode::from(128 + caught as u8)
    } else {
        ExitCode::SUCCESS
    })
}

/// `mcp` (or `mcp serve`): the selected tools, grafted ones included, as an MCP
/// server on stdio (see `interop::mcp`); `mcp servers | tools | ledger | refresh`:
/// the MCP client's views (see `interop::mcp_client::graft`).
#[cfg(feature = "mcp")]
fn mcp(
    registry: &ToolRegistry,
    globals: &Globals,
    m: &ArgMatches,
    printer: &mut Printer,
    graft: &mut Option<crate::interop::mcp_client::graft::Graft>,
) -> CliResult<ExitCode> {
    let m = match m.subcommand() {
        None => m,
        Some(("serve", serve)) => serve,
        Some(("up", up)) => {
            let idle = std::time::Duration::from_secs(*up.get_one::<u64>("idle").expect("default"));
            let empty = crate::interop::mcp_client::config::McpConfig::default();
            let config = graft.as_ref().map_or(&empty, |g| &g.config);
            let out =
                crate::interop::mcp_client::broker::up(context_factory(globals)(), config, idle);
            return Ok(view_output(printer, &out));
        }
        Some(("down", _)) => {
            let out = crate::interop::mcp_client::broker::down(context_factory(globals)());
            return Ok(view_output(printer, &out));
        }
        Some(("broker", b)) => {
            let idle = std::time::Duration::from_secs(*b.get_one::<u64>("idle").expect("default"));
            return match crate::interop::mcp_client::broker::run(Path::new(&globals.cwd), idle) {
                Ok(()) => Ok(ExitCode::SUCCESS),
                Err(e) => {
                    printer.error_text(&format!("mcp broker: {e}"));
                    Ok(ExitCode::from(1))
                }
            };
        }
        Some((view, vm)) => {
            let opts = graft_options(globals);
            let arg = vm
                .try_get_one::<String>("server")
                .ok()
                .flatten()
                .map(String::as_str);
            let out = crate::interop::mcp_client::graft::view(
                graft.as_mut(),
                &opts,
                view,
                arg,
                globals.json,
            );
            return Ok(view_output(printer, &out));
        }
    };
    let tool_box = long_running_box(registry, globals, m)?;
    // One thread. rmcp still runs every request as its own task, so calls overlap
    // wherever they wait (a command, a socket, a timer) and a cancellation is read
    // while they do; the long walks of grep and find go to the blocking pool anyway.
    // What a multi-thread runtime would add is a thread hop for every `stat` and
    // `read` (the local backend runs single filesystem calls inline only on a
    // current-thread runtime, as for the one-shot commands): measured, that made a
    // `read` round trip about 1.6x slower (0.95 ms against 0.58 ms).
    let runtime = runtime();
    let result = runtime.block_on(async move {
        // A signal stops the server as end of input does: reading stops, calls in
        // flight are cancelled (a `bash` loses its process group), and the program
        // ends with status 0, since being told to stop is how a server's life ends.
        let stop = CancellationToken::new();
        cancel_on_signals(stop.clone());
        crate::interop::mcp::serve_stdio(tool_box, stop).await
    });
    // Standard input read through the blocking pool (a terminal, a file) would hold
    // a plain drop of the runtime until its next line; nothing is left to wait for.
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    if let Err(e) = result {
        printer.error_text(&format!("mcp: {e}"));
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Print an `mcp` view's output; its exit status.
#[cfg(feature = "mcp")]
fn view_output(
    printer: &mut Printer,
    out: &crate::interop::mcp_client::graft::ViewOutput,
) -> ExitCode {
    printer.stdout_raw(&out.stdout);
    for line in &out.stderr {
        printer.error_text(line);
    }
    ExitCode::from(out.code)
}

/// `mcp` in a build without the `mcp` feature: a usage error that says so.
#[cfg(not(feature = "mcp"))]
fn mcp(
    _registry: &ToolRegistry,
    _globals: &Globals,
    _m: &ArgMatches,
    _printer: &mut Printer,
    _graft: &mut Option<()>,
) -> CliResult<ExitCode> {
    Err(UsageError(
        "mcp: this indus-tool was built without the MCP server (cargo feature `mcp`)".into(),
    ))
}

/// Where grafting reads its config from, per the parsed globals.
#[cfg(feature = "mcp")]
fn graft_options(globals: &Globals) -> crate::interop::mcp_client::graft::Options {
    crate::interop::mcp_client::graft::Options {
        explicit: globals.mcp_config.clone(),
        cwd: PathBuf::from(&globals.cwd),
        no_mcp: globals.no_mcp,
        no_auto_refresh: false,
    }
}

/// The grafting options read from raw argv, before clap parses it (the grafted
/// tools are subcommands, so they must be known first): `--no-mcp` and
/// `--mcp-config FILE` anywhere before `--`, `--cwd DIR` before the subcommand.
/// Nothing is grafted for the static outputs (`completions`, `man`) or help.
#[cfg(feature = "mcp")]
fn mcp_graft(args: &[OsString]) -> Option<crate::interop::mcp_client::graft::Graft> {
    let mut explicit = None;
    let mut cwd: Option<PathBuf> = None;
    let mut no_mcp = false;
    let mut sub: Option<&str> = None;
    let mut next_word: Option<&str> = None;
    let mut i = 1;
    while i < args.len() {
        let arg = args[i].to_str()?;
        if arg == "--" {
            break;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (arg, None),
        };
        let value = |i: &mut usize| -> Option<String> {
            match inline {
                Some(v) => Some(v.to_string()),
                None => {
                    *i += 1;
                    args.get(*i).and_then(|a| a.to_str()).map(str::to_string)
                }
            }
        };
        match name {
            "--no-mcp" => no_mcp = true,
            "--mcp-config" => explicit = value(&mut i).map(PathBuf::from),
            "--cwd" if sub.is_none() => cwd = value(&mut i).map(PathBuf::from),
            n if sub.is_none() && VALUE_GLOBALS.contains(&n) && inline.is_none() => i += 1,
            n if sub.is_none() && !n.starts_with('-') => sub = Some(arg),
            n if sub.is_some() && next_word.is_none() && !n.starts_with('-') => {
                next_word = Some(arg)
            }
            _ => {}
        }
        i += 1;
    }
    // The broker reads no config: its callers send theirs with each call.
    if matches!(sub, None | Some("completions" | "man" | "help"))
        || (sub == Some("mcp") && next_word == Some("broker"))
    {
        return None;
    }
    let here = std::env::current_dir().ok()?;
    let opts = crate::interop::mcp_client::graft::Options {
        explicit,
        cwd: cwd.map_or(here.clone(), |c| crate::kernel::root::tidy(&here.join(c))),
        no_mcp,
        // `names` feeds shell completion, which must never start a server.
        no_auto_refresh: sub == Some("mcp") && matches!(next_word, Some("refresh" | "names")),
    };
    // A `--cwd` that is no directory is a usage error, reported after parsing.
    if !opts.cwd.is_dir() {
        return None;
    }
    crate::interop::mcp_client::graft::Graft::prepare(&opts)
}

#[cfg(not(feature = "mcp"))]
fn mcp_graft(_args: &[OsString]) -> Option<()> {
    None
}

#[cfg(feature = "mcp")]
fn graft_tools(
    graft: Option<&crate::interop::mcp_client::graft::Graft>,
) -> Vec<crate::kernel::DefinedTool> {
    graft.map(|g| g.tools()).unwrap_or_default()
}

#[cfg(not(feature = "mcp"))]
fn graft_tools(_graft: Option<&()>) -> Vec<crate::kernel::DefinedTool> {
    Vec::new()
}

/// Config warnings and refresh failures, on stderr.
#[cfg(feature = "mcp")]
fn graft_notes(graft: Option<&crate::interop::mcp_client::graft::Graft>, printer: &mut Printer) {
    for note in graft.map(|g| g.notes.as_slice()).unwrap_or_default() {
        printer.error_text(note);
    }
}

#[cfg(not(feature = "mcp"))]
fn graft_notes(_graft: Option<&()>, _printer: &mut Printer) {}

fn list(registry: &ToolRegistry, globals: &Globals, printer: &mut Printer) -> CliResult<ExitCode> {
    let names = selected_names(registry, globals)?;
    let rows: Vec<Value> = names
        .iter()
        .filter_map(|n| registry.get(n))
        .map(|t| catalog_entry(registry, t))
        .collect();
    if globals.json {
        printer.stdout_line(&Value::Array(rows).to_string());
    } else {
        let field = |r: &Value, k: &str| r[k].as_str().unwrap_or_default().to_string();
        let id_w = rows
            .iter()
            .map(|r| field(r, "name").len())
            .max()
            .unwrap_or(0);
        let title_w = rows
            .iter()
            .map(|r| field(r, "title").chars().count())
            .max()
            .unwrap_or(0);
        let mut out = String::new();
        for r in &rows {
            out.push_str(&format!(
                "{:<id_w$}  {:<title_w$}  {}\n",
                field(r, "name"),
                field(r, "title"),
                field(r, "summary")
            ));
        }
        printer.stdout_raw(&out);
    }
    Ok(ExitCode::SUCCESS)
}

/// A tool as the catalog lists it: `{name, title, summary, readOnly, profiles,
/// collections}` (a tool outside the catalog is titled by its name and summarised
/// by its description's first sentence).
fn catalog_entry(registry: &ToolRegistry, tool: &crate::kernel::DefinedTool) -> Value {
    let row = crate::deck::find_row(tool.name()).filter(|r| r.id == tool.name());
    serde_json::json!({
        "name": tool.name(),
        "title": row.map_or(tool.name(), |r| r.title),
        "summary": row.map_or(summary(tool.description()), |r| r.summary),
        "readOnly": row.is_some_and(|r| r.read_only),
        "profiles": row.map(|r| r.profile_names()).unwrap_or_default(),
        "collections": registry.collections_of(tool.name()),
    })
}

fn print_json(value: &Value, globals: &Globals, printer: &mut Printer) {
    let text = if globals.json {
        value.to_string()
    } else {
        serde_json::to_string_pretty(value).expect("JSON values serialize")
    };
    printer.stdout_line(&text);
}

fn describe(
    registry: &ToolRegistry,
    globals: &Globals,
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let wanted = m.get_one::<String>("tool").expect("required");
    let Some(tool) = registry.resolve(wanted) else {
        printer
            .error_text(&crate::kernel::CapabilityError::UnknownTool(wanted.clone()).to_string());
        return Ok(ExitCode::from(1));
    };
    if !selected_names(registry, globals)?
        .iter()
        .any(|n| n == tool.name())
    {
        printer.error_text(&no_such_tool_message(wanted));
        return Ok(ExitCode::from(1));
    }
    let mut described = serde_json::to_value(tool.descriptor()).expect("descriptors serialize");
    if let (Value::Object(d), Value::Object(entry)) =
        (&mut described, catalog_entry(registry, tool))
    {
        for key in ["title", "summary", "readOnly", "profiles", "collections"] {
            d.insert(key.to_string(), entry[key].clone());
        }
    }
    print_json(&described, globals, printer);
    Ok(ExitCode::SUCCESS)
}

/// `schema [--for API]`: the exposed tools' descriptors, or their definitions in
/// the shape `API` takes (see `interop::tool_defs`).
fn schema(
    registry: &ToolRegistry,
    globals: &Globals,
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    use crate::interop::tool_defs::{ToolApi, tool_definitions};
    let tool_box = selected_box(registry, globals)?;
    let descriptors = tool_box.descriptors();
    let value = match m.get_one::<String>("for") {
        None => serde_json::to_value(&descriptors).expect("descriptors serialize"),
        Some(name) => {
            let api = ToolApi::from_name(name)
                .ok_or_else(|| UsageError(format!("schema --for {name}: no such API")))?;
            tool_definitions(api, &descriptors)
                .map_err(|e| UsageError(format!("schema --for {name}: {e}")))?
        }
    };
    print_json(&value, globals, printer);
    Ok(ExitCode::SUCCESS)
}

/// `diff BEFORE AFTER`: relative paths resolve against `--cwd`; the headers spell
/// the paths as given.
fn diff(globals: &Globals, m: &ArgMatches, printer: &mut Printer) -> CliResult<ExitCode> {
    let read = |key: &str| -> CliResult<(String, String)> {
        let given = m.get_one::<PathBuf>(key).expect("required");
        let path = crate::kernel::root::tidy(&Path::new(&globals.cwd).join(given));
        if let Some(root) = &globals.root {
            root.admit(&given.to_string_lossy(), &path)
                .map_err(|m| UsageError(format!("diff: {m}")))?;
        }
        let file = open_confined(&path.to_string_lossy(), globals.root.as_deref(), false)
            .and_then(|file| {
                if !file.metadata()?.is_file() {
                    return Err(std::io::Error::other("not a regular file"));
                }
                Ok(file)
            })
            .map_err(|e| UsageError(format!("diff: cannot read {}: {e}", given.display())))?;
        // Both files are held whole to be aligned; edit's ceiling bounds them.
        let bytes = read_bounded(
            file,
            crate::tools::files::edit::EDIT_MAX_BYTES,
            &format!("diff: {}", given.display()),
        )?;
        let text = String::from_utf8(bytes).map_err(|_| {
            UsageError(format!("diff: {} is not valid UTF-8 text", given.display()))
        })?;
        Ok((given.to_string_lossy().into_owned(), text))
    };
    let (before_name, before) = read("before")?;
    let (after_name, after) = read("after")?;
    let context = *m.get_one::<usize>("context").expect("defaulted");
    let patch = crate::tools::files::diff::render_unified_diff_with_headers(
        &before,
        &after,
        context,
        &before_name,
        &after_name,
    );
    if globals.json {
        // For programs: the diff and its counts, one line, whatever the exit status.
        let d = crate::tools::files::diff::diff_lines(&before, &after);
        let record = serde_json::json!({
            "before": before_name,
            "after": after_name,
            "equal": patch.is_empty(),
            "added": d.added,
            "removed": d.removed,
            "diff": patch,
        });
        printer.stdout_raw(&format!("{record}\n"));
    } else if !patch.is_empty() {
        printer.stdout_raw(&patch);
    }
    Ok(if patch.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The file name of a shell's completion script in `completions/`.
pub fn completion_file_name(shell: clap_complete::Shell) -> &'static str {
    use clap_complete::Shell;
    match shell {
        Shell::Bash => "indus-tool.bash",
        Shell::Zsh => "_indus-tool",
        Shell::Fish => "indus-tool.fish",
        Shell::PowerShell => "_indus-tool.ps1",
        Shell::Elvish => "indus-tool.elv",
        _ => "indus-tool.completion",
    }
}

/// The program name the completion scripts complete.
const BIN_NAME: &str = "indus-tool";

/// A completion script for `shell`, as bytes.
pub fn completion_script(descriptors: &[ToolDescriptor], shell: clap_complete::Shell) -> Vec<u8> {
    let mut cmd = build_command(descriptors);
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, BIN_NAME, &mut buf);
    match shell {
        clap_complete::Shell::Bash => complete_grafted_bash(&respell_bash_states(&buf)),
        clap_complete::Shell::Zsh => complete_grafted_zsh(&buf),
        clap_complete::Shell::Fish => complete_grafted_fish(&loosen_fish_guard(&buf)),
        _ => buf,
    }
}

/// Bash: the grafted MCP tools (`SERVER__TOOL`) are offered where a command goes,
/// from `indus-tool mcp names` (the ledger cache: nothing is spawned). clap's
/// function runs first; a wrapper adds the names when no command is typed yet,
/// passing on the `--cwd`, `--mcp-config` and `--no-mcp` already typed.
fn complete_grafted_bash(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    let values = VALUE_GLOBALS.join("|");
    let wrapper = format!(
        r#"
# Grafted MCP tools (SERVER__TOOL), from the ledger cache (`mcp names` spawns nothing).
_indus__tool_grafted() {{
    _indus__tool "$@"
    local i w cur="${{COMP_WORDS[COMP_CWORD]}}" passed=()
    [[ $cur == -* ]] && return 0
    for (( i=1; i<COMP_CWORD; i++ )); do
        w=${{COMP_WORDS[i]}}
        case "$w" in
            --cwd|--mcp-config) passed+=("$w" "${{COMP_WORDS[i+1]}}"); (( i++ )) ;;
            {values}) (( i++ )) ;;
            --no-mcp|--cwd=*|--mcp-config=*) passed+=("$w") ;;
            -*) ;;
            *) return 0 ;;
        esac
    done
    local line names=()
    while IFS= read -r line; do
        names+=("${{line%%$'\t'*}}")
    done < <("${{COMP_WORDS[0]}}" "${{passed[@]}}" mcp names 2>/dev/null)
    [[ ${{#names[@]}} -gt 0 ]] && COMPREPLY+=( $(compgen -W "${{names[*]}}" -- "$cur") )
    return 0
}}
"#
    );
    let registered = text.replace(
        "complete -F _indus__tool ",
        "complete -F _indus__tool_grafted ",
    );
    let at = registered
        .find("\nif [[ \"${BASH_VERSINFO[0]}\"")
        .unwrap_or(registered.len());
    let mut out = registered[..at].to_string();
    out.push_str(&wrapper);
    out.push_str(&registered[at..]);
    out.into_bytes()
}

/// Zsh: the grafted MCP tools join the commands offered at the command's place.
fn complete_grafted_zsh(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    let anchor = format!("    _describe -t commands '{BIN_NAME} commands' commands \"$@\"");
    let names = format!(
        r#"    # Grafted MCP tools (SERVER__TOOL), from the ledger cache (nothing is spawned).
    local -a grafted
    grafted=(${{(f)"$({BIN_NAME} mcp names 2>/dev/null)"}})
    grafted=(${{grafted//:/\\:}})
    commands+=(${{grafted//$'\t'/:}})
{anchor}"#
    );
    text.replacen(&anchor, &names, 1).into_bytes()
}

/// Fish: the grafted MCP tools complete where a command goes.
fn complete_grafted_fish(script: &[u8]) -> Vec<u8> {
    let mut text = String::from_utf8_lossy(script).into_owned();
    text.push_str(&format!(
        r#"
# Grafted MCP tools (SERVER__TOOL), from the ledger cache (`mcp names` spawns nothing).
function __fish_indus_tool_grafted
    set -l cmd (commandline -opc)
    $cmd[1] mcp names 2>/dev/null
end
complete -c {BIN_NAME} -n "__fish_indus_tool_needs_command" -f -a "(__fish_indus_tool_grafted)"
"#
    ));
    text.into_bytes()
}

/// Make the bash script's `case` labels match the states its word loop computes.
///
/// clap_complete's bash generator (4.6.11 and before; clap-rs/clap#6421) escapes
/// the program name twice over: the loop that walks the typed words turns
/// `indus-tool grep` into the state `indus__tool__subcmd__grep`, but the `case`
/// arm holding grep's flags is labelled `indus__subcmd__tool__subcmd__grep`, so no
/// subcommand of a hyphenated program ever completes a flag. The labels are
/// respelled the loop's way; once clap_complete spells them alike, this finds
/// nothing to change.
fn respell_bash_states(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    let wrong = BIN_NAME.replace('-', "__subcmd__");
    let right = BIN_NAME.replace('-', "__");
    text.replace(&wrong, &right).into_bytes()
}

/// Let fish complete the value of a global option (`indus-tool --format <TAB>`).
///
/// clap_complete's fish script decides whether a subcommand has been typed by
/// running `argparse` over the words so far, and gives up (`or return`, a failure)
/// when argparse fails, which it does while a global option still waits for its
/// value: every root-level completion, that value's among them, is then off and
/// fish falls back to file names. A command line argparse cannot parse yet has not
/// reached a subcommand, so the guard is made to say so (`or return 0`).
fn loosen_fish_guard(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    text.replace(
        "-- $cmd 2>/dev/null\n    or return\n",
        "-- $cmd 2>/dev/null\n    or return 0\n",
    )
    .into_bytes()
}

fn completions(
    descriptors: &[ToolDescriptor],
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let shell: clap_complete::Shell = m
        .get_one::<String>("shell")
        .expect("required")
        .parse()
        .map_err(|e: String| UsageError(e))?;
    printer.stdout_bytes(&completion_script(descriptors, shell));
    Ok(ExitCode::SUCCESS)
}

/// Write `indus-tool.1` and one page per subcommand into `dir`.
pub fn write_man_pages(
    descriptors: &[ToolDescriptor],
    dir: &Path,
) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let cmd = build_command(descriptors);
    let source = format!("{BIN_NAME} {}", env!("CARGO_PKG_VERSION"));
    let mut written = Vec::new();
    let mut render = |cmd: clap::Command, file: String| -> std::io::Result<()> {
        let mut buf = Vec::new();
        clap_mangen::Man::new(cmd)
            .source(source.clone())
            .render(&mut buf)?;
        let path = dir.join(file);
        std::fs::write(&path, buf)?;
        written.push(path);
        Ok(())
    };
    render(cmd.clone(), format!("{BIN_NAME}.1"))?;
    for sub in cmd.get_subcommands() {
        // The page is `indus-tool-grep(1)`, as git's are `git-commit(1)`, but its
        // SYNOPSIS shows the command as typed: clap_mangen writes the bin name
        // there, and the title and NAME from the command's name.
        let page = format!("{BIN_NAME}-{}", sub.get_name());
        let typed = format!("{BIN_NAME} {}", sub.get_name());
        render(
            sub.clone().name(page.clone()).bin_name(typed),
            format!("{page}.1"),
        )?;
    }
    Ok(written)
}

fn man(
    descriptors: &[ToolDescriptor],
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let dir = m.get_one::<PathBuf>("dir").expect("required");
    let written = write_man_pages(descriptors, dir)
        .map_err(|e| UsageError(format!("man {}: {e}", dir.display())))?;
    let mut out = String::new();
    for p in written {
        out.push_str(&format!("{}\n", p.display()));
    }
    printer.stdout_raw(&out);
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_bounded_takes_up_to_the_limit_and_refuses_past_it() {
        let ok = read_bounded(&b"12345"[..], 5, "input").unwrap();
        assert_eq!(ok, b"12345");
        let err = read_bounded(&[0u8; 3 * 1024 * 1024][..], 2 * 1024 * 1024, "stdin").unwrap_err();
        assert_eq!(
            err.0,
            "stdin is over 2 MiB; indus-tool does not hold more than that in memory"
        );
        // The refusal reads at most one byte past the limit.
        let mut source = std::io::Cursor::new(vec![7u8; 100]);
        assert!(read_bounded(&mut source, 10, "x").is_err());
        assert_eq!(source.position(), 11);
    }
}
