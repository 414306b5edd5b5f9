//! The `indus-tool` command line: a thin front end over the registry.
//!
//! It turns argv into a `ToolCall`, dispatches it through the same `ToolBox` a
//! library user gets, and prints the projected `ToolOutcome`. It holds no tool logic.
//! Exit status: 0 success, 1 the tool reported `is_error`, 2 a usage error; `grep`
//! 0 found, 1 nothing found, 2 trouble (rg's); `find` 0, with `-q` 1 when nothing
//! was found, 2 trouble (fd's); `diff` 0 equal, 1 different, 2 trouble (see
//! `shell`). A closed stdout ends the program quietly.
//!
//! The layout, one module per concern: `argv` (the one reading of argv before
//! clap), `globals` (the options before the tool name, read from clap's matches,
//! and argv's rewriting around clap), `command` (the clap tree generated from
//! the descriptors), `peers` (rg's, fd's and the CLI-only flags mapped onto tool
//! inputs), `input` (argv to a tool's input), `dispatch` (running a call),
//! `shell` (exit statuses and what a piped stdout carries), `output` (printing),
//! `faces` (call, batch, mcp), `meta` (list, describe, schema), `diff`,
//! `checkpoint`, `trust` (the user's trust in project configuration files), and
//! `docs` (help for people, completions, man pages).

mod argv;
mod checkpoint;
pub mod command;
mod diff;
mod dispatch;
mod docs;
mod error;
mod faces;
mod global_options;
mod globals;
mod input;
mod meta;
mod output;
mod peers;
mod shell;
mod tools;
mod trust;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::error::ErrorKind;

use crate::deck::{DeckContext, deck_registry, rebuild_in_context};
use crate::kernel::ToolDescriptor;
use argv::{normalize_argv, remote_request};
use command::build_command;
use dispatch::install_operator_wrappers;
pub use dispatch::{context_factory, long_running_factory, selected_box, selected_names};
pub use docs::{completion_file_name, completion_script, examples, write_man_pages};
pub use error::UsageError;
use faces::{graft_notes, graft_tools, mcp_graft};
use globals::read_globals;
pub use globals::{Globals, Selection};
pub use output::ColorMode;
use output::Printer;

/// Run the program on `args` (including argv[0]) and return its exit code.
pub fn run(args: Vec<OsString>) -> ExitCode {
    // The PDF worker (tools::files::pdf) is this program started again: it
    // needs none of the command line's set-up.
    if args
        .get(1)
        .is_some_and(|a| a == crate::tools::files::pdf::WORKER_ARG)
    {
        let pages = args.get(2).and_then(|p| p.to_str()).unwrap_or("");
        return crate::tools::files::pdf::worker_main(pages);
    }
    let (args, scan, fallback) = match forwarded_or_here(args) {
        Ok(here) => here,
        Err(code) => return code,
    };
    let mut registry = deck_registry();
    // The grafted MCP tools must be known before clap parses (their names are
    // subcommands); with no MCP config this reads a few absent files and nothing
    // else.
    let mut graft = mcp_graft(&scan);
    let grafted = graft_tools(graft.as_ref());
    registry.register_all(grafted.iter().cloned());
    // The checkpoint tools are known to the command tree always (so
    // `indus-tool --checkpoint checkpoint_list` parses), but exposed only when
    // checkpointing is on (see `selected_names`).
    registry.register_all(crate::deck::checkpoint_tools::checkpoint_tools());
    let (args, named) = normalize_argv(args, &scan, &registry);
    let mut printer = Printer::new(ColorMode::Auto).with_json(scan.json());
    graft_notes(graft.as_ref(), &mut printer);
    // clap's own report ("invalid UTF-8 was detected in one or more arguments")
    // does not say which; every input is JSON text, so name the argument.
    if let Some(i) = scan.not_utf8 {
        return printer.usage(&format!(
            "argument {i} ({}) is not valid UTF-8; paths and inputs are taken as UTF-8 text (the invalid bytes are shown as U+FFFD)",
            args[i].to_string_lossy()
        ));
    }
    let cmd = command_for(&args, &scan, named, &registry, &grafted);
    let matches = match cmd.try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) => return clap_error(e, &mut printer),
    };
    let mut globals = match read_globals(&matches) {
        Ok(g) => g,
        Err(e) => return printer.usage(&e.0),
    };
    globals.grafted = grafted.iter().map(|t| t.name().to_string()).collect();
    #[cfg(feature = "mcp")]
    if let Some(level) = globals
        .mcp_log
        .as_deref()
        .and_then(|l| serde_json::from_value(serde_json::Value::from(l)).ok())
    {
        crate::interop::mcp_client::client::set_log_level(level);
    }
    if let Some((remote, cwd)) = fallback
        && let Err(code) = run_here_for(remote, cwd, &mut globals, &mut printer)
    {
        return code;
    }
    printer = Printer::new(globals.color).with_json(globals.json);
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
        "list" => meta::list(&registry, &globals, &mut printer),
        "describe" => meta::describe(&registry, &globals, sub_matches, &mut printer),
        "schema" => meta::schema(&registry, &globals, sub_matches, &mut printer),
        "call" => faces::call(&registry, &globals, sub_matches, &mut printer),
        "batch" => faces::batch(&registry, &globals, sub_matches, &mut printer),
        "mcp" => faces::mcp(&registry, &globals, sub_matches, &mut printer, &mut graft),
        "diff" => diff::diff(&globals, sub_matches, &mut printer),
        "lsp-broker" => faces::lsp_broker(&globals, sub_matches, &mut printer),
        "checkpoint" => checkpoint::command(&globals, sub_matches, &mut printer),
        "trust" => trust::command(&globals, sub_matches, &mut printer),
        "completions" => docs::completions(&deck_descriptors(), sub_matches, &mut printer),
        "man" => docs::man(&deck_descriptors(), sub_matches, &mut printer),
        tool => dispatch::tool_invocation(&registry, &globals, tool, sub_matches, &mut printer),
    };
    match result {
        Ok(code) => code,
        Err(e) => printer.usage(&e.0),
    }
}

/// A remote this build cannot run on, and the folder there: the invocation
/// runs here over shell commands there.
type Fallback = Option<(crate::backends::remote::Remote, String)>;

/// Where the invocation runs. Elsewhere (`--exec ssh:…`/`container:…`): the
/// whole invocation runs there, before anything here is loaded, and its exit
/// code is the answer (`Err`); or this build cannot run there, and it runs
/// here over shell commands there (the remote and its folder returned beside
/// the arguments). `--version` alone is answered here at once.
fn forwarded_or_here(
    args: Vec<OsString>,
) -> Result<(Vec<OsString>, argv::Scan, Fallback), ExitCode> {
    use crate::backends::remote::Forwarded;
    let scan = argv::scan(&args);
    match remote_request(&args, &scan) {
        // `--version` alone, as clap would print it, before anything is built:
        // scripts call it to probe for the tool.
        Ok(None) if matches!(&args[1..], [a] if a == "--version" || a == "-V") => {
            use std::io::Write;
            let line = concat!("indus-tool ", env!("CARGO_PKG_VERSION"), "\n");
            // As clap: a closed stdout is not worth a complaint.
            let _ = std::io::stdout().write_all(line.as_bytes());
            Err(ExitCode::SUCCESS)
        }
        Ok(None) => Ok((args, scan, None)),
        Ok(Some((remote, forwarded))) => {
            match remote.forward(&forwarded, &crate::backends::remote::forwarded_env()) {
                Forwarded::Done(code) => Err(code),
                // This build cannot run there: run here, over shell commands there.
                Forwarded::Fallback { cwd } => {
                    let args: Vec<OsString> = std::iter::once(args[0].clone())
                        .chain(forwarded.into_iter().map(OsString::from))
                        .collect();
                    // Read again: the options that said where are gone.
                    let scan = argv::scan(&args);
                    Ok((args, scan, Some((remote, cwd))))
                }
            }
        }
        Err(message) => Err(Printer::new(ColorMode::Auto)
            .with_json(scan.json())
            .usage(&message)),
    }
}

/// The command tree to parse `args` with. A call of one tool parses with that
/// tool's subcommand alone (see `focused_command`), a meta-command that reads
/// the registry itself with the meta-commands alone; help and mistakes get the
/// whole tree, and the root help lists what the selection exposes.
fn command_for(
    args: &[OsString],
    scan: &argv::Scan,
    named: Option<ToolDescriptor>,
    registry: &crate::kernel::ToolRegistry,
    grafted: &[crate::kernel::DefinedTool],
) -> clap::Command {
    let root_help = scan.root_help;
    let treeless = !root_help && scan.sub.as_deref().is_some_and(command::treeless_meta);
    let cmd = match named.filter(|_| !root_help) {
        Some(descriptor) => command::focused_command(&descriptor),
        None if treeless => command::meta_command(),
        None => {
            let tree: Vec<ToolDescriptor> = registry.tools().map(|t| t.descriptor()).collect();
            build_command(&tree)
        }
    };
    if !root_help {
        return cmd;
    }
    let exposed = cmd
        .clone()
        .try_get_matches_from(argv::without_help(args))
        .ok()
        .and_then(|m| read_globals(&m).ok())
        .map(|mut g| {
            g.grafted = grafted.iter().map(|t| t.name().to_string()).collect();
            let names = selected_names(registry, &g).unwrap_or_default();
            (names, g.selection.describe())
        });
    let (names, selection) = exposed.unwrap_or_default();
    docs::people_help(cmd, &names, &selection)
}

/// Set `globals` up to run here over shell commands on `remote` (its folder
/// `cwd`): refused for what needs indus-tool itself there.
fn run_here_for(
    remote: crate::backends::remote::Remote,
    cwd: String,
    globals: &mut globals::Globals,
    printer: &mut Printer,
) -> Result<(), ExitCode> {
    if globals.root.is_some() || globals.checkpoint || globals.tmux.is_some() {
        return Err(printer.usage(&format!(
            "--root, --tmux and checkpoints need indus-tool itself on {}, which cannot run it there",
            remote.target.describe()
        )));
    }
    globals.state_root = match remote.fallback_state() {
        Ok(dir) => Some(dir),
        Err(e) => {
            printer.error_text(&e);
            return Err(ExitCode::from(1));
        }
    };
    globals.cwd = cwd;
    globals.remote = Some(crate::backends::remote_fs::Channel::new(remote));
    Ok(())
}

/// The descriptors of the machine-independent deck, which the generated man
/// pages and completion scripts describe (not this folder's task roster, nor
/// grafted tools).
fn deck_descriptors() -> Vec<ToolDescriptor> {
    deck_registry().tools().map(|t| t.descriptor()).collect()
}

fn clap_error(e: clap::Error, printer: &mut Printer) -> ExitCode {
    use clap::error::{ContextKind, ContextValue};
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            if printer.json {
                let message = "no tool given; indus-tool --help lists them";
                let line = serde_json::json!({"error": {"kind": "usage", "message": message}});
                printer.stdout_line(&line.to_string());
            }
            let _ = e.print();
            return ExitCode::from(2);
        }
        _ => {}
    }
    // clap's tip for an unknown flag ("to pass '-x' as a value, use '-- -x'") is
    // wrong here: the words after `--` are not taken as values. Ours says where
    // the flags are.
    let mut text = e.render().to_string();
    if e.kind() == ErrorKind::UnknownArgument && text.contains(" use '-- ") {
        let sub = match e.get(ContextKind::Usage) {
            Some(ContextValue::StyledStr(u)) => u
                .to_string()
                .split_whitespace()
                .skip_while(|w| *w != "indus-tool")
                .nth(1)
                .filter(|w| !w.starts_with('[') && !w.starts_with('<'))
                .map(|w| format!(" {w}"))
                .unwrap_or_default(),
            _ => String::new(),
        };
        text = text
            .lines()
            .map(|l| {
                if l.contains(" use '-- ") {
                    format!("  tip: 'indus-tool{sub} --help' lists its flags")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n";
    }
    // clap's whole report: the problem, the usage line and its hint (which
    // argument is missing, which values are allowed, a near spelling).
    if printer.json {
        let message = text
            .lines()
            .next()
            .unwrap_or_default()
            .trim_start_matches("error: ")
            .to_string();
        let line = serde_json::json!({"error": {"kind": "usage", "message": message}});
        printer.stdout_line(&line.to_string());
    }
    printer.stderr_raw(&text);
    ExitCode::from(2)
}
