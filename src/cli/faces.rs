//! The JSON faces for programs (`call`, `batch`, `mcp` and its client views) and
//! the grafting of configured MCP servers' tools, which must be known before clap
//! parses because their names are subcommands.

#[cfg(feature = "mcp")]
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ArgMatches;
use serde_json::Value;

use super::dispatch::*;
use super::error::{CliResult, UsageError};
use super::globals::*;
use super::input::*;
use super::output::Printer;
use crate::kernel::{CancellationToken, ToolBox, ToolCall, ToolRegistry};

pub(crate) fn call(
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
    // The call's own turn wins over `--turn` for its checkpoint node.
    let turn = match obj.remove("turn") {
        None | Some(Value::Null) => None,
        Some(Value::String(t)) => Some(t).filter(|t| !t.is_empty()),
        Some(other) => {
            return Err(UsageError(format!(
                "call: \"turn\" must be a string naming the checkpoint turn, got {}",
                crate::kernel::input::describe_value(&other)
            )));
        }
    };
    if let Some(message) = crate::kernel::input::unknown_call_keys(obj.keys()) {
        return Err(UsageError(format!("call: {message}")));
    }
    // The exit status is the subcommand's (grep 1 when nothing matched).
    let tool = registry
        .resolve(&name)
        .map_or_else(|| name.clone(), |t| t.name().to_string());
    let echo = echo.unwrap_or_else(|| Value::String(id.clone()));
    let call = ToolCall {
        id,
        name,
        input,
        turn,
    };
    let outcome = dispatch(registry, globals, call)?;
    finish_as(&outcome, &tool, globals, printer, Some(&echo))
}

/// The box a long-running face (`batch`, `mcp`) serves. Its client is a model's
/// session, so the gate is on unless `--no-gate` turns it off, and the gate's
/// records are cached for the run.
pub(crate) fn long_running_box(
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
pub(crate) fn batch(
    registry: &ToolRegistry,
    globals: &Globals,
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let jobs = m.get_one::<u16>("jobs").copied().map_or(1, usize::from);
    let tool_box = long_running_box(registry, globals, m)?;
    let face = globals.batch_face();
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
        crate::interop::batch::run_batch(tool_box.runner, input, out, jobs, face, cancel).await
    });
    // Calls that failed were answered in the stream; only the stream itself failing
    // (unreadable stdin) or a signal changes the exit status.
    if let Err(e) = result {
        printer.error_text(&format!("batch: cannot read standard input: {e}"));
        return Ok(ExitCode::from(1));
    }
    Ok(crate::sys::signals::caught().map_or(ExitCode::SUCCESS, |n| ExitCode::from(128 + n as u8)))
}

/// `mcp` (or `mcp serve`): the selected tools, grafted ones included, as an MCP
/// server on stdio (see `interop::mcp`); `mcp servers | tools | ledger | refresh`:
/// the MCP client's views (see `interop::mcp_client::graft`).
#[cfg(feature = "mcp")]
pub(crate) fn mcp(
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
    let upstream = upstream_of(graft.as_ref());
    let options = crate::interop::mcp::ServeOptions {
        tool_search: m.get_flag("tool-search"),
        no_output_schemas: m.get_flag("no-output-schemas"),
    };
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
        crate::interop::mcp::serve_stdio_with(tool_box, &upstream, options, stop).await
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
pub(crate) fn view_output(
    printer: &mut Printer,
    out: &crate::interop::mcp_client::status::ViewOutput,
) -> ExitCode {
    printer.stdout_raw(&out.stdout);
    for line in &out.stderr {
        printer.error_text(line);
    }
    ExitCode::from(out.code)
}

/// `mcp` in a build without the `mcp` feature: a usage error that says so.
#[cfg(not(feature = "mcp"))]
pub(crate) fn mcp(
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
pub(crate) fn graft_options(globals: &Globals) -> crate::interop::mcp_client::graft::Options {
    crate::interop::mcp_client::graft::Options {
        explicit: globals.mcp_config.clone(),
        cwd: PathBuf::from(&globals.cwd),
        no_mcp: globals.no_mcp,
        no_auto_refresh: false,
        cache_only: false,
    }
}

/// Whether `INDUS_NO_MCP` turns grafting off, as clap reads the variable for
/// `--no-mcp` (unset, empty, `0`, `false`, `no`, `off`: not off).
#[cfg(feature = "mcp")]
pub(crate) fn no_mcp_from_env() -> bool {
    std::env::var("INDUS_NO_MCP").is_ok_and(|v| {
        !matches!(
            v.to_ascii_lowercase().as_str(),
            "" | "0" | "false" | "no" | "off" | "n" | "f"
        )
    })
}

/// The grafting options read from the argv scan, before clap parses it (the
/// grafted tools are subcommands, so they must be known first): `--no-mcp` and
/// `--mcp-config FILE` anywhere before `--`, `--cwd DIR` before the subcommand,
/// and `INDUS_NO_MCP`. Nothing is grafted for the static outputs
/// (`completions`, `man`), help, or `trust`.
#[cfg(feature = "mcp")]
pub(crate) fn mcp_graft(
    scan: &super::argv::Scan,
) -> Option<crate::interop::mcp_client::graft::Graft> {
    if scan.not_utf8.is_some() {
        return None;
    }
    let no_mcp = no_mcp_from_env() || scan.has("--no-mcp");
    let explicit = scan
        .last("--mcp-config")
        .and_then(|o| o.value.as_ref())
        .map(PathBuf::from);
    let cwd = scan
        .last("--cwd")
        .and_then(|o| o.value.as_ref())
        .map(PathBuf::from);
    let sub = scan.sub.as_deref();
    let next_word = scan.next_word.as_deref();
    // The broker reads no config: its callers send theirs with each call.
    if matches!(
        sub,
        None | Some("completions" | "man" | "help" | "trust" | "lsp-broker")
    ) || (sub == Some("mcp") && next_word == Some("broker"))
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
        // Built-in tools (and diff, checkpoint) read the cache only: they never
        // wait on an MCP server, nor start one.
        cache_only: !sub.is_some_and(|s| {
            matches!(s, "list" | "describe" | "schema" | "call" | "batch" | "mcp")
                || s.contains(crate::interop::mcp_client::ledger::QUALIFIER)
        }),
    };
    // A `--cwd` that is no directory is a usage error, reported after parsing.
    if !opts.cwd.is_dir() {
        return None;
    }
    crate::interop::mcp_client::graft::Graft::prepare(&opts)
}

#[cfg(not(feature = "mcp"))]
pub(crate) fn mcp_graft(_scan: &super::argv::Scan) -> Option<()> {
    None
}

/// What the grafted tools' servers said of them, for `indus-tool mcp` to
/// re-export (see `interop::mcp::Upstream`).
#[cfg(feature = "mcp")]
fn upstream_of(
    graft: Option<&crate::interop::mcp_client::graft::Graft>,
) -> crate::interop::mcp::UpstreamTools {
    let Some(graft) = graft else {
        return Default::default();
    };
    graft
        .ledger
        .live_capabilities()
        .into_iter()
        .map(|live| {
            let c = live.capability;
            let up = crate::interop::mcp::Upstream {
                title: c.title.clone(),
                annotations: c.annotations.clone(),
                output_schema: c.output_schema.clone(),
            };
            (c.name.clone(), up)
        })
        .collect()
}

#[cfg(feature = "mcp")]
pub(crate) fn graft_tools(
    graft: Option<&crate::interop::mcp_client::graft::Graft>,
) -> Vec<crate::kernel::DefinedTool> {
    graft.map(|g| g.tools()).unwrap_or_default()
}

#[cfg(not(feature = "mcp"))]
pub(crate) fn graft_tools(_graft: Option<&()>) -> Vec<crate::kernel::DefinedTool> {
    Vec::new()
}

/// Config warnings and refresh failures, on stderr, when the invocation uses
/// MCP (a built-in tool's call never reports on MCP servers).
#[cfg(feature = "mcp")]
pub(crate) fn graft_notes(
    graft: Option<&crate::interop::mcp_client::graft::Graft>,
    printer: &mut Printer,
) {
    let Some(graft) = graft.filter(|g| g.concerns_mcp) else {
        return;
    };
    for note in &graft.notes {
        printer.error_text(note);
    }
}

#[cfg(not(feature = "mcp"))]
pub(crate) fn graft_notes(_graft: Option<&()>, _printer: &mut Printer) {}

/// The hidden `lsp-broker`: the warm language-server broker of the working
/// directory (see `tools::code::lsp::broker`), started by `diagnose` and `lsp`.
pub(crate) fn lsp_broker(
    globals: &Globals,
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let idle = std::time::Duration::from_secs(*m.get_one::<u64>("idle").expect("default"));
    match crate::tools::code::lsp::broker::run(std::path::Path::new(&globals.cwd), idle) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            printer.error_text(&format!("lsp broker: {e}"));
            Ok(ExitCode::from(1))
        }
    }
}
