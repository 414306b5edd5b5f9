//! The command line's side of checkpoints: turning the wrapper on for an
//! invocation (`--checkpoint`, `--turn`), and the `checkpoint list|diff|rewind|drop`
//! meta-command over the session's store (`state::checkpoints`).
//!
//! Paths are shown relative to `--cwd` when they lie inside it (the store keeps
//! them absolute). Exit status: 0 done, 1 refused or failed (an unknown node, a
//! rewind over changes made outside the toolbox, a state file that cannot be
//! read), 2 a usage error (clap's).

use std::path::Path;
use std::process::ExitCode;

use clap::ArgMatches;
use serde_json::{Value, json};

use super::error::CliResult;
use super::globals::Globals;
use super::output::Printer;
use crate::deck::wrappers::checkpoint::{CheckpointHandle, install_checkpoints};
use crate::kernel::ToolRegistry;
use crate::state::checkpoints::{CheckpointError, CheckpointStore, Image, NodeName, iso8601_utc};
use crate::tools::files::diff::{DEFAULT_CONTEXT, render_unified_diff_with_headers};

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

/// A stored absolute path as the user sees it: relative to `--cwd` inside it.
fn shown(globals: &Globals, path: &str) -> String {
    match Path::new(path).strip_prefix(&globals.cwd) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
        _ => path.to_string(),
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
    let result = match sub {
        "list" => list(&store, globals, printer),
        "diff" => diff(
            &store,
            globals,
            node.as_deref().unwrap_or_default(),
            printer,
        ),
        "rewind" => rewind(
            &store,
            globals,
            node.as_deref().unwrap_or_default(),
            sm.get_flag("force"),
            printer,
        ),
        "drop" => drop_nodes(&store, globals, node.as_deref(), printer),
        "on" | "off" => always(&store, globals, sub == "on", printer),
        other => unreachable!("clap knows no checkpoint subcommand {other}"),
    };
    Ok(match result {
        Ok(code) => code,
        Err(e) => fail(printer, &e),
    })
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

/// A file of `list --format json`: `{path, before, size?, sha256?, notKept?}`.
fn file_record(path: String, image: &Image) -> Value {
    match image {
        Image::Absent => json!({"path": path, "before": "absent"}),
        Image::Kept { size, sha256, .. } => {
            json!({"path": path, "before": "kept", "size": size, "sha256": sha256})
        }
        Image::OverCap { size, .. } => {
            json!({"path": path, "before": "overCap", "size": size, "notKept": image.not_kept()})
        }
        Image::Unreadable { .. } => {
            json!({"path": path, "before": "unreadable", "notKept": image.not_kept()})
        }
    }
}

fn list(
    store: &CheckpointStore,
    globals: &Globals,
    printer: &mut Printer,
) -> Result<ExitCode, CheckpointError> {
    let index = store.load()?;
    if globals.json {
        let rows: Vec<Value> = index
            .nodes
            .iter()
            .map(|n| {
                let files: Vec<Value> = n
                    .files
                    .iter()
                    .map(|f| file_record(shown(globals, &f.path), &f.before))
                    .collect();
                json!({"node": n.name, "createdAt": iso8601_utc(n.created_ms), "files": files})
            })
            .collect();
        printer.stdout_line(&Value::Array(rows).to_string());
        return Ok(ExitCode::SUCCESS);
    }
    if index.nodes.is_empty() {
        printer.stdout_line(&format!(
            "No checkpoints in session \"{}\".",
            globals.session
        ));
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    for n in &index.nodes {
        out.push_str(&format!(
            "{}  {}  {}\n",
            crate::kernel::text::inert(&n.name),
            iso8601_utc(n.created_ms),
            crate::kernel::text::plural(n.files.len() as u64, "file", "files")
        ));
        // A file name may hold any byte but `/` and NUL: shown inert.
        let paths: Vec<String> = n
            .files
            .iter()
            .map(|f| crate::kernel::text::inert(&shown(globals, &f.path)).into_owned())
            .collect();
        let width = paths.iter().map(|p| p.chars().count()).max().unwrap_or(0);
        for (f, path) in n.files.iter().zip(&paths) {
            out.push_str(&format!("  {path:<width$}  {}\n", f.before.describe()));
        }
    }
    printer.stdout_raw(&out);
    Ok(ExitCode::SUCCESS)
}

/// The current bytes of a file, `None` when it does not exist. Only a regular
/// file is read, without blocking and up to the store's cap: the tree may have
/// changed since (a pull can put a link to a device or a FIFO there).
fn current(path: &str, cap: u64) -> Result<Option<Vec<u8>>, CheckpointError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let failed =
        |e: std::io::Error| std::io::Error::new(e.kind(), format!("cannot read {path}: {e}"));
    let file = match std::fs::File::options()
        .read(true)
        .custom_flags(nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(failed(e).into()),
    };
    let meta = file.metadata().map_err(failed)?;
    if !meta.is_file() || meta.len() > cap {
        return Err(std::io::Error::other(format!(
            "cannot read {path}: it is {} now",
            if meta.is_file() {
                "over the checkpoint size cap"
            } else {
                "not a regular file"
            }
        ))
        .into());
    }
    let mut out = Vec::with_capacity(meta.len() as usize);
    file.take(cap).read_to_end(&mut out).map_err(failed)?;
    Ok(Some(out))
}

fn diff(
    store: &CheckpointStore,
    globals: &Globals,
    name: &str,
    printer: &mut Printer,
) -> Result<ExitCode, CheckpointError> {
    let index = store.load()?;
    let from = CheckpointStore::find(&index, name)?;
    let mut whole = String::new();
    let mut files = Vec::new();
    for t in index.touched_since(from) {
        let rel = shown(globals, &t.path);
        // Under a root, a file that resolves outside it now (a folder swapped
        // for a link since) is named, never read: as a rewind leaves it alone.
        if let Some(root) = &globals.root
            && let Err(why) = root.admit(&t.path, Path::new(&t.path))
        {
            let note = format!("Not shown: {why}\n");
            whole.push_str(&note);
            files.push(json!({"path": rel, "status": "outsideRoot", "diff": note}));
            continue;
        }
        let (a, b) = (format!("a/{rel}"), format!("b/{rel}"));
        let now = current(&t.path, store.cap())?;
        let (status, patch) = match &t.restore {
            Image::OverCap { .. } | Image::Unreadable { .. } => (
                "notKept",
                format!(
                    "Content before {name} of {a} was {}\n",
                    t.restore.not_kept().unwrap_or_default()
                ),
            ),
            before => {
                let then = match before {
                    Image::Kept { sha256, .. } => Some(store.blob(sha256)?),
                    _ => None,
                };
                let status = match (&then, &now) {
                    (None, None) => "unchanged",
                    (None, Some(_)) => "created",
                    (Some(_), None) => "deleted",
                    (Some(x), Some(y)) if x == y => "unchanged",
                    _ => "modified",
                };
                let text = |b: &Option<Vec<u8>>| match b {
                    None => Some(String::new()),
                    Some(bytes) => String::from_utf8(bytes.clone()).ok(),
                };
                let old_name = if then.is_none() { "/dev/null" } else { &a };
                let new_name = if now.is_none() { "/dev/null" } else { &b };
                let patch = match (text(&then), text(&now)) {
                    _ if status == "unchanged" => String::new(),
                    (Some(x), Some(y)) => render_unified_diff_with_headers(
                        &x,
                        &y,
                        DEFAULT_CONTEXT,
                        old_name,
                        new_name,
                    ),
                    _ => format!("Binary files {old_name} and {new_name} differ\n"),
                };
                (status, patch)
            }
        };
        whole.push_str(&patch);
        files.push(json!({"path": rel, "status": status, "diff": patch}));
    }
    if globals.json {
        let record = json!({"node": name, "files": files, "diff": whole});
        printer.stdout_line(&record.to_string());
    } else {
        printer.stdout_raw(&whole);
    }
    Ok(ExitCode::SUCCESS)
}

fn rewind(
    store: &CheckpointStore,
    globals: &Globals,
    name: &str,
    force: bool,
    printer: &mut Printer,
) -> Result<ExitCode, CheckpointError> {
    let report = match store.rewind(name, force, globals.root.as_deref()) {
        Ok(r) => r,
        Err(CheckpointError::Refused { files }) => {
            // The paths as the user knows them.
            let files = files
                .into_iter()
                .map(|(p, why)| (shown(globals, &p), why))
                .collect();
            return Err(CheckpointError::Refused { files });
        }
        Err(e) => return Err(e),
    };
    let rel = |v: &[String]| -> Vec<String> { v.iter().map(|p| shown(globals, p)).collect() };
    let skipped: Vec<(String, String)> = report
        .skipped
        .iter()
        .map(|(p, why)| (shown(globals, p), why.clone()))
        .collect();
    if globals.json {
        let record = json!({
            "node": name,
            "restored": rel(&report.restored),
            "deleted": rel(&report.deleted),
            "skipped": skipped.iter().map(|(p, why)| json!({"path": p, "reason": why})).collect::<Vec<_>>(),
            "dropped": report.dropped,
        });
        printer.stdout_line(&record.to_string());
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = format!(
        "Rewound to before {name}; forgot {}.\n",
        report.dropped.join(", ")
    );
    for p in rel(&report.restored) {
        out.push_str(&format!("restored  {p}\n"));
    }
    for p in rel(&report.deleted) {
        out.push_str(&format!("deleted   {p}\n"));
    }
    for (p, why) in &skipped {
        out.push_str(&format!("left      {p}: {why}\n"));
    }
    printer.stdout_raw(&out);
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
