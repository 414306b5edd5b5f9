//! The command line's side of checkpoints: turning the wrapper on for an
//! invocation (`--checkpoint`, `--turn`), and the `checkpoint list|diff|rewind|drop`
//! meta-command over the session's store (`state::checkpoints`). `list`, `diff`
//! and `rewind` print the views the `checkpoint_*` tools answer with
//! (`deck::checkpoint_tools`): one code for both.
//!
//! Paths are shown relative to `--cwd` when they lie inside it (the store keeps
//! them absolute). Exit status: 0 done, 1 refused or failed (an unknown node, a
//! rewind over changes made outside the toolbox, a state file that cannot be
//! read), 2 a usage error (clap's).

use std::process::ExitCode;

use clap::ArgMatches;
use serde_json::json;

use super::error::CliResult;
use super::globals::Globals;
use super::output::Printer;
use crate::deck::checkpoint_tools::{self as views, Scope, View};
use crate::deck::wrappers::checkpoint::CheckpointHandle;
use crate::deck::wrappers::install_checkpoints;
use crate::kernel::ToolRegistry;
use crate::state::checkpoints::{CheckpointError, CheckpointStore, NodeName};

fn store_of(globals: &Globals) -> CheckpointStore {
    CheckpointStore::new(globals.state_dir(), &globals.session).with_root(globals.root.clone())
}

/// Wrap `write` and `edit` in `registry` to record into the session's store under
/// this invocation's node.
pub fn install(registry: &mut ToolRegistry, globals: &Globals) {
    let node = match &globals.turn {
        Some(turn) => NodeName::turn(turn.clone()),
        None => NodeName::invocation(),
    };
    install_checkpoints(
        registry,
        CheckpointHandle {
            store: store_of(globals),
            node,
        },
    );
}

/// The views' scope for this invocation: its store, `--cwd` for the paths shown,
/// `--root`.
fn scope_of(globals: &Globals) -> Scope {
    Scope {
        store: store_of(globals),
        cwd: globals.cwd.clone(),
        root: globals.root.clone(),
        writes: Some(std::sync::Arc::new(super::dispatch::write_guard_of(
            globals, false,
        ))),
    }
}

fn fail(printer: &mut Printer, e: &CheckpointError) -> ExitCode {
    printer.error_text(&format!("checkpoint: {e}"));
    ExitCode::from(1)
}

/// `checkpoint list|diff|rewind|drop`.
pub fn command(globals: &Globals, m: &ArgMatches, printer: &mut Printer) -> CliResult<ExitCode> {
    let store = store_of(globals);
    let (sub, sm) = m.subcommand().expect("clap requires a subcommand");
    let node = sm.try_get_one::<String>("node").ok().flatten().cloned();
    let name = node.as_deref().unwrap_or_default();
    let scope = scope_of(globals);
    let result = match sub {
        // `list --format json` answers the nodes alone (an array), as it always
        // has; the tool's record wraps them with the session.
        "list" => views::list(&scope, &globals.session).map(|mut v| {
            v.record = v.record["nodes"].take();
            show(v, globals, printer)
        }),
        "diff" => views::diff(&scope, name).map(|v| show(v, globals, printer)),
        "rewind" => {
            views::rewind(&scope, name, sm.get_flag("force")).map(|v| show(v, globals, printer))
        }
        "drop" => drop_nodes(&store, globals, node.as_deref(), printer),
        "gc" => gc(&store, globals, sm.get_flag("tree"), printer),
        "on" | "off" => always(&store, globals, sub == "on", printer),
        other => unreachable!("clap knows no checkpoint subcommand {other}"),
    };
    Ok(match result {
        Ok(code) => code,
        Err(e) => fail(printer, &e),
    })
}

/// Print a view: its record as one JSON line, or its text.
fn show(view: View, globals: &Globals, printer: &mut Printer) -> ExitCode {
    if globals.json {
        printer.stdout_line(&view.record.to_string());
    } else {
        printer.stdout_raw(&view.text);
    }
    ExitCode::SUCCESS
}

/// `checkpoint on|off`: the session's default.
fn always(
    store: &CheckpointStore,
    globals: &Globals,
    on: bool,
    printer: &mut Printer,
) -> Result<ExitCode, CheckpointError> {
    store.set_always(on)?;
    let text = if on {
        format!(
            "Checkpoints are on for session {}: every write and edit is recorded (until `checkpoint off`; INDUS_CHECKPOINT=0 skips one invocation).",
            globals.session
        )
    } else {
        format!(
            "Checkpoints are off for session {} unless --checkpoint asks; the nodes recorded so far stay.",
            globals.session
        )
    };
    if globals.json {
        printer.stdout_line(&json!({"session": globals.session, "checkpoint": on}).to_string());
    } else {
        printer.stdout_line(&text);
    }
    Ok(ExitCode::SUCCESS)
}

fn drop_nodes(
    store: &CheckpointStore,
    globals: &Globals,
    name: Option<&str>,
    printer: &mut Printer,
) -> Result<ExitCode, CheckpointError> {
    let dropped = store.drop_nodes(name)?;
    if globals.json {
        printer.stdout_line(&json!({"dropped": dropped}).to_string());
    } else if dropped.is_empty() {
        printer.stdout_line("Nothing to drop.");
    } else {
        printer.stdout_line(&format!("Dropped {}.", dropped.join(", ")));
    }
    Ok(ExitCode::SUCCESS)
}

/// `checkpoint gc [--tree]`: free what no node needs.
fn gc(
    store: &CheckpointStore,
    globals: &Globals,
    tree: bool,
    printer: &mut Printer,
) -> Result<ExitCode, CheckpointError> {
    let freed = store.gc(tree)?;
    let (bytes, blobs) = store.size()?;
    if globals.json {
        printer.stdout_line(
            &json!({"session": globals.session, "freedBytes": freed, "storeBytes": bytes, "blobs": blobs})
                .to_string(),
        );
    } else {
        printer.stdout_line(&format!(
            "Freed {}; the store holds {} ({} kept).",
            crate::kernel::text::plural(freed, "byte", "bytes"),
            crate::kernel::text::plural(bytes, "byte", "bytes"),
            crate::kernel::text::plural(blobs, "content", "contents"),
        ));
    }
    Ok(ExitCode::SUCCESS)
}
