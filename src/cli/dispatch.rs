//! Running one tool call for the command line: the selection's box, the per-call
//! context (state, gate, checklist, tmux and remote seams), the operator wrappers
//! (approval, repeated-failure suppression, envelope), signals turned into the
//! cancel token, and the exit status of the printed outcome.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use clap::ArgMatches;
use serde_json::Value;

use super::error::{CliResult, UsageError};
use super::globals::*;
use super::input::*;
use super::output::Printer;
use super::shell::{self, ShellOpts};
use super::tools::row_of;
use crate::backends::local::{budget_of, confine_local, make_local_context};
use crate::deck::{Profile, rows_for_profile};
use crate::kernel::{
    CancellationToken, ContextFactory, Framework, ReadStateHandle, TodoStoreHandle, ToolBox,
    ToolCall, ToolOutcome, ToolRegistry, WriteGuard, normalize_tool_name,
};
use crate::state::read_state::{CachedReadState, PersistentReadState};
use crate::state::todos::{CachedTodoStore, PersistentTodoStore};
use crate::sys::signals;

/// The wrappers around the tools, innermost first: approval of commands, then
/// repeated-failure suppression, then the envelope. Each is installed only when
/// it can change something, and its configuration is read only then.
pub(crate) fn install_operator_wrappers(
    registry: &mut ToolRegistry,
    globals: &Globals,
    sub: &str,
    printer: &mut Printer,
) {
    use crate::deck::wrappers::approval::{APPROVED_TOOLS, Approval, install_approval, policy_of};
    use crate::state::buddy_config::{BuddyConfig, DEFAULT_SUPPRESS_AFTER};
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
            crate::deck::cards::task::approval_command,
        );
    }
    if suppress {
        crate::deck::wrappers::suppress::install_suppression(
            registry,
            config.suppress_after.unwrap_or(DEFAULT_SUPPRESS_AFTER),
        );
    }
    if globals.envelope {
        crate::deck::wrappers::envelope::install_envelope(registry);
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
    // The checkpoint tools, when there are checkpoints to act on: in no profile,
    // beside every one (and `--tools` may narrow them).
    if globals.checkpoint {
        use crate::deck::checkpoint_tools::CHECKPOINT_TOOLS;
        members.extend(
            CHECKPOINT_TOOLS
                .iter()
                .filter(|n| registry.has(n))
                .map(|n| n.to_string()),
        );
    }
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

/// Where this invocation's file tools may write (see `kernel::write_guard`):
/// protected paths unless `--allow-protected` lifts them; outside the project,
/// an agent's face (`agent`: `batch`, `mcp`) is refused unless `--allow-outside`
/// or `--root` widens it, `--confirm` asks, and a plain call writes where named.
pub(crate) fn write_guard_of(globals: &Globals, agent: bool) -> WriteGuard {
    use crate::kernel::Outside;
    let cwd = Path::new(&globals.cwd);
    let mut guard = match &globals.root {
        Some(root) => crate::backends::local::local_write_guard(root.path()),
        None => crate::backends::local::local_write_guard(cwd),
    };
    if globals.remote.is_some() {
        guard = WriteGuard::new(cwd.to_path_buf(), Vec::new()).remote();
    } else if let Some(root) = &globals.root {
        guard = guard.with_project(root.path().to_path_buf());
    }
    let outside = if agent {
        Outside::Refuse
    } else if globals.confirm == Some(true) {
        Outside::Ask
    } else {
        Outside::Anywhere
    };
    guard.lifting(globals.allow_protected.clone()).outside(
        outside,
        globals.allow_outside.clone(),
        Some(crate::deck::wrappers::approval::ask_terminal),
    )
}

pub(crate) fn factory_with(globals: &Globals, cached: bool) -> ContextFactory {
    // An apply_patch an earlier invocation left half done (killed, power lost)
    // is undone before any tool of this one looks at the tree.
    if globals.remote.is_none() {
        match crate::state::patches::recover(&globals.state_dir(), globals.root.as_deref()) {
            Ok(0) => {}
            Ok(n) => eprintln!(
                "indus-tool: undid {} an interrupted invocation left half done",
                crate::kernel::text::plural(n as u64, "apply_patch", "apply_patch calls")
            ),
            Err(e) => {
                eprintln!("indus-tool: interrupted apply_patch calls could not be settled: {e}")
            }
        }
    }
    let cwd = globals.cwd.clone();
    // A reader that takes every row (a pipe) gets no byte cut it did not ask for.
    let budget = match globals.max_bytes {
        None if globals.unbounded_rows => Some(budget_of(usize::MAX)),
        asked => asked.map(budget_of),
    };
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
        todo: Some({
            let persistent = PersistentTodoStore::new(globals.state_dir(), &globals.session);
            if cached {
                Arc::new(CachedTodoStore::new(persistent)) as Arc<dyn TodoStoreHandle>
            } else {
                Arc::new(persistent) as Arc<dyn TodoStoreHandle>
            }
        }),
        session: Some(globals.session.clone()),
    };
    let root = globals.root.clone();
    let (record_rows, unbounded_rows) = (globals.record_rows, globals.unbounded_rows);
    let agent_face = globals.agent_face;
    let rows = globals
        .stream_rows
        .then(|| Arc::new(super::output::StdoutRows::default()) as Arc<dyn crate::kernel::RowSink>);
    let (remote, state_root) = (globals.remote.clone(), globals.state_root.clone());
    // A long-running face serves an agent's calls: its writes stay in the project.
    let writes = Arc::new(write_guard_of(globals, cached));
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
        }
        // Found once for the invocation, not again by every tool that keeps state.
        ctx.state_root = state_root.clone();
        ctx.record_rows = record_rows;
        ctx.unbounded_rows = unbounded_rows;
        ctx.agent_face = agent_face;
        ctx.rows = rows.clone();
        ctx.writes = Some(Arc::clone(&writes));
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

pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime builds")
}

/// Tools that run other programs and must clean them up when `indus-tool` itself is
/// interrupted: their commands lead their own process groups, out of reach of the
/// terminal's Ctrl-C, so the signal is turned into the cancel token instead. Other
/// tools keep the default action (die at once), which loses nothing; installing
/// handlers for them would cost every call a signal driver it does not need.
pub(crate) fn runs_commands(name: &str) -> bool {
    // A grafted MCP tool may run a stdio server in its own process group.
    row_of(name).runs_commands || name.contains(crate::interop::mcp_client::ledger::QUALIFIER)
}

/// Cancel `cancel`, as on SIGHUP, once the reader of standard output is gone:
/// only when stdout is a pipe or a socket (a file or a terminal has no reader
/// to lose). A thread blocked in `poll`, woken by the error or hang-up alone.
fn cancel_on_hangup(cancel: CancellationToken) {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use nix::sys::stat::{SFlag, fstat};
    use std::os::fd::AsFd;
    let stdout = std::io::stdout();
    let piped = fstat(stdout.as_fd()).is_ok_and(|st| {
        let kind = SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT;
        kind == SFlag::S_IFIFO || kind == SFlag::S_IFSOCK
    });
    if !piped {
        return;
    }
    std::thread::spawn(move || {
        let stdout = std::io::stdout();
        let mut fds = [PollFd::new(stdout.as_fd(), PollFlags::empty())];
        loop {
            match poll(&mut fds, PollTimeout::NONE) {
                Ok(n) if n > 0 => {
                    let gone = fds[0].revents().is_some_and(|r| {
                        r.intersects(PollFlags::POLLERR | PollFlags::POLLHUP | PollFlags::POLLNVAL)
                    });
                    if gone {
                        signals::note(1);
                        cancel.cancel();
                        return;
                    }
                }
                Err(nix::errno::Errno::EINTR) | Ok(_) => continue,
                Err(_) => return,
            }
        }
    });
}

/// Cancel `cancel` on the first SIGINT, SIGTERM or SIGHUP, remembering which
/// (and, on the far side of `--exec`, when the connection is lost).
pub(crate) fn cancel_on_signals(cancel: CancellationToken) {
    if std::env::var_os(crate::backends::remote::HANGUP_WATCH).is_some() {
        cancel_on_hangup(cancel.clone());
    }
    use tokio::signal::unix::{SignalKind, signal};
    // Recorded in the handler too (see `sys::signals`): the exit status
    // must say the signal even when a child's end is seen first.
    signals::record();
    for kind in [
        SignalKind::interrupt(),
        SignalKind::terminate(),
        SignalKind::hangup(),
    ] {
        let Ok(mut stream) = signal(kind) else {
            continue;
        };
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if stream.recv().await.is_some() {
                signals::note(kind.as_raw_value());
                cancel.cancel();
            }
        });
    }
    // A signal that came after `record` but before its stream was listening
    // was only noted: it cancels all the same (an interrupt the instant the
    // call began must not leave it running).
    if signals::caught().is_some() {
        cancel.cancel();
    }
}

pub(crate) fn dispatch(
    registry: &ToolRegistry,
    globals: &Globals,
    call: ToolCall,
) -> CliResult<ToolOutcome> {
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

/// Print a JSON face's outcome (`call`): one JSON line or its text blocks (with
/// `--format text` asked for, the text as batch's JSON line), and exit as the
/// tool's subcommand would (grep 1 when nothing matched, find 0), or 128+N after
/// signal N.
pub(crate) fn finish_as(
    outcome: &ToolOutcome,
    tool: &str,
    globals: &Globals,
    printer: &mut Printer,
    id: Option<&Value>,
) -> CliResult<ExitCode> {
    let shown = match globals.exact {
        Some(face @ (Exact::Batch | Exact::Mcp)) => Some(face),
        _ if globals.format_given && !globals.json => Some(Exact::Batch),
        _ => None,
    };
    match shown {
        Some(face) => print_face(outcome, face, globals, printer, id)?,
        None => printer.outcome_as(outcome, globals.json, id),
    }
    Ok(signal_status().unwrap_or_else(|| shell::exit_status(tool, outcome, &ShellOpts::default())))
}

/// Print `outcome` as the `batch` or `mcp` face would send it (`--exact=batch`,
/// `--exact=mcp`), as one JSON line on stdout (an error too: it is what the
/// face sends, not a message to the person). `id` is the call's id as sent.
pub(crate) fn print_face(
    outcome: &ToolOutcome,
    face: Exact,
    globals: &Globals,
    printer: &mut Printer,
    id: Option<&Value>,
) -> CliResult<()> {
    let id = id
        .cloned()
        .unwrap_or_else(|| Value::String(outcome.id.clone()));
    let line = match face {
        Exact::Mcp => mcp_result_json(outcome)?,
        _ => crate::interop::batch::answer_line(globals.batch_face(), id, outcome),
    };
    printer.stdout_line(&line.to_string());
    Ok(())
}

/// The result of `tools/call` the MCP server sends for `outcome`, as JSON: built
/// by the server's own `call_result`, so it shows whatever that sends.
#[cfg(feature = "mcp")]
fn mcp_result_json(outcome: &ToolOutcome) -> CliResult<Value> {
    crate::interop::mcp::call_result_json(outcome.clone()).map_err(|e| {
        UsageError(format!(
            "--exact=mcp: the MCP result did not serialize: {e}"
        ))
    })
}

#[cfg(not(feature = "mcp"))]
fn mcp_result_json(_outcome: &ToolOutcome) -> CliResult<Value> {
    Err(UsageError(
        "--exact=mcp: this indus-tool was built without the MCP server (cargo feature `mcp`)"
            .into(),
    ))
}

/// The shell convention for "ended by signal N", when a signal cancelled the call.
fn signal_status() -> Option<ExitCode> {
    signals::caught().map(|n| ExitCode::from(128 + n as u8))
}

/// Print a tool subcommand's outcome with the shell's habits (see `shell`): the
/// peer tool's exit status, and in text mode the rows alone on a piped stdout.
fn finish_tool(
    outcome: &ToolOutcome,
    descriptor: &crate::kernel::ToolDescriptor,
    globals: &Globals,
    printer: &mut Printer,
    opts: &ShellOpts,
) -> CliResult<ExitCode> {
    // A face's line is printed even under -q: `--exact=batch|mcp` asked for it.
    if let Some(face @ (Exact::Batch | Exact::Mcp)) = globals.exact {
        print_face(outcome, face, globals, printer, None)?;
    // JSON is printed even under -q: a program asked for one line of it.
    } else if globals.json || (globals.exact.is_some() && !opts.quiet) {
        printer.outcome_as(outcome, globals.json, None);
    } else {
        shell::print_text(printer, descriptor, outcome, opts);
    }
    Ok(signal_status().unwrap_or_else(|| shell::exit_status(&descriptor.name, outcome, opts)))
}

pub(crate) fn tool_invocation(
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
    let opts = ShellOpts::from_matches(m);
    let input = assemble_input(&descriptor, m)?;
    if opts.print0
        && let Some(needs) = row_of(&descriptor.name).print0_needs
        && input.get(needs.key).and_then(Value::as_str) != Some(needs.value)
    {
        return Err(UsageError(needs.message.into()));
    }
    let call = ToolCall::new(globals.id.clone(), descriptor.name.clone(), input);
    // Printed as text (without -0, whose paths come from the record), nothing
    // reads a record's rows: the tool may skip them and what they cost.
    // A face's line (`--exact=batch|mcp`) carries the record as that face does.
    let face_line = matches!(globals.exact, Some(Exact::Batch | Exact::Mcp));
    let text_face = !(globals.json || globals.envelope || opts.print0 || face_line);
    // Rows for a pipe or for xargs -0 are all printed, as rg and fd print them;
    // the exact agent view (`--exact`) and a terminal keep the seeds' limits.
    let all_rows = row_of(&descriptor.name).all_rows
        && !(globals.json || globals.envelope || globals.exact.is_some() || opts.quiet)
        && (opts.print0 || !shell::stdout_is_terminal());
    // The plain text face (a person, or a pipe) keeps the seeds' windows; the
    // exact agent view shows what an agent would be given.
    let agent_face = globals.json || globals.envelope || globals.exact.is_some();
    let mut outcome = if text_face || all_rows {
        let globals = Globals {
            record_rows: !text_face,
            unbounded_rows: all_rows,
            agent_face,
            stream_rows: all_rows && text_face,
            ..globals.clone()
        };
        dispatch(registry, &globals, call)?
    } else {
        dispatch(registry, globals, call)?
    };
    if let Some(dir) = globals.save_media.as_ref().filter(|_| !globals.json) {
        let dir = Path::new(&globals.cwd).join(dir);
        outcome.output = super::output::save_media(&outcome.output, &dir, &descriptor.name)
            .map_err(UsageError)?;
    }
    let code = finish_tool(&outcome, &descriptor, globals, printer, &opts)?;
    // Only a refusal can be "not exposed"; the exact text is the agent's, with
    // nothing added.
    if outcome.is_error
        && !globals.json
        && globals.exact.is_none()
        && !selected_names(registry, globals)?.contains(&descriptor.name)
        && let Some(hint) = other_profile_hint(&descriptor.name, globals)
    {
        printer.error_text(&hint);
    }
    Ok(code)
}

/// For a tool the selection does not expose but a profile has: where it is and
/// how to call it (`run_shell is in profile buddy: indus-tool --profile buddy
/// run_shell …`).
fn other_profile_hint(tool: &str, globals: &Globals) -> Option<String> {
    if crate::deck::checkpoint_tools::CHECKPOINT_TOOLS.contains(&tool) {
        return Some(format!(
            "{tool} is exposed when checkpointing is on: indus-tool --checkpoint {tool} …"
        ));
    }
    let row = crate::deck::find_row(tool).filter(|r| r.id == tool)?;
    let profiles = row.profile_names();
    let first = profiles.first()?;
    let current = globals.selection.describe();
    Some(format!(
        "{tool} is in profile {} (this call used {current}): indus-tool --profile {first} {tool} …",
        profiles.join(", ")
    ))
}
