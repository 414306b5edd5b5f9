//! `ls`: one directory's immediate children as aligned `kind size name` rows (or,
//! for a path that is not a directory, that one entry's row).
//!
//! Directories come first, then names case-insensitively with a case-sensitive
//! tiebreak, so the order is stable across filesystems. Dot-entries are hidden unless
//! `showHidden`, and the header says how many were hidden so nothing is silently lost.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Seat, SeedList, ToolMeta};
use std::cmp::Ordering;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::kernel::input::Args;
use crate::kernel::text::{inert, plural};
use crate::kernel::{DefinedTool, OutsideRoot, Tool, ToolContext, ToolResult, define_tool};
use crate::tools::{clamp_for, clamp_rows, record_with_rows, text_and_record};

struct Ls;

/// One listed child.
struct Row {
    name: String,
    kind: &'static str,
    is_dir: bool,
    size: u64,
}

fn kind_of(info: &crate::kernel::FsEntryInfo) -> &'static str {
    if info.is_symlink {
        "link"
    } else if info.is_directory {
        "dir"
    } else if info.is_file {
        "file"
    } else {
        "other"
    }
}

fn order(a: &Row, b: &Row) -> Ordering {
    b.is_dir
        .cmp(&a.is_dir)
        .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
        .then_with(|| a.name.cmp(&b.name))
}

/// The `ls` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Builtin(SeedList::ReadOnly),
    fields: FIELDS,
    description: "List a directory's entries (`kind size name`), directories first.",
    output: Some(include_str!("ls.output.json")),
    ..ToolMeta::new(
        "ls",
        "List directory",
        "List a directory's entries with kind and size, directories first.",
    )
};

/// `ls`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::new("path", Kind::Text, "Directory (default \".\")."),
    Field::new("showHidden", Kind::Bool, "Include dot-entries."),
    Field::new(
        "limit",
        Kind::Int { min: 1, max: None },
        "Most entries shown.",
    ),
];

#[async_trait]
impl Tool for Ls {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let args = Args::checked(&input);
        let (path, show_hidden, limit) = match (
            args.opt_str("path"),
            args.opt_bool("showHidden"),
            args.opt_positive_int("limit"),
        ) {
            (Ok(p), Ok(h), Ok(l)) => (
                p.filter(|p| !p.is_empty()).unwrap_or("."),
                h.unwrap_or(false),
                l,
            ),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return ToolResult::failure(e),
        };
        let abs = match ctx.confine(path) {
            Ok(abs) => abs,
            Err(message) => return ToolResult::failure(message),
        };
        match ctx.fs.stat(&abs).await {
            Ok(info) if info.is_directory => {}
            // A file named outright is listed as its one row, as `ls FILE` does.
            Ok(info) => {
                let row = Row {
                    kind: kind_of(&info),
                    is_dir: false,
                    size: info.size,
                    name: path.to_string(),
                };
                let out = format!(
                    "{}: 1 entry\n{} {} {}",
                    inert(path),
                    row.kind,
                    row.size,
                    inert(&row.name)
                );
                return answer(ctx, path, clamp_for(ctx, "ls", &out), &[row], 1, 0);
            }
            Err(e) => return ToolResult::failure(format!("Cannot list {}: {e}", inert(path))),
        }
        let children = match ctx.fs.read_dir(&abs).await {
            Ok(c) => c,
            Err(e) => return ToolResult::failure(format!("Cannot list {}: {e}", inert(path))),
        };
        let (mut rows, hidden) = match rows_of(ctx, &abs, children, show_hidden).await {
            Ok(found) => found,
            Err(cancelled) => return cancelled,
        };
        rows.sort_by(order);
        let shown_total = rows.len();
        if let Some(limit) = limit {
            rows.truncate(limit as usize);
        }
        let text = listing(ctx, path, &rows, shown_total, hidden);
        answer(ctx, path, text, &rows, shown_total, hidden)
    }
}

/// The rows of a folder's children, and how many hidden ones were left out:
/// each child is stat'ed apart, so one that vanished, is unreadable or leads
/// out of the root is still listed, as what can be said of it.
async fn rows_of(
    ctx: &ToolContext,
    abs: &str,
    children: Vec<crate::kernel::DirChild>,
    show_hidden: bool,
) -> Result<(Vec<Row>, usize), ToolResult> {
    let mut hidden = 0usize;
    let mut rows = Vec::with_capacity(children.len());
    for child in children {
        if ctx.cancel.is_cancelled() {
            return Err(ToolResult::failure("ls was cancelled."));
        }
        if !show_hidden && child.name.starts_with('.') {
            hidden += 1;
            continue;
        }
        let child_path = format!("{}/{}", abs.trim_end_matches('/'), child.name);
        let row = match ctx.fs.stat(&child_path).await {
            Ok(info) => Row {
                kind: kind_of(&info),
                is_dir: info.is_directory,
                size: if info.is_directory { 0 } else { info.size },
                name: child.name,
            },
            // A link leaving the root: listed as a link, never followed.
            Err(e) if OutsideRoot::is(&e) => Row {
                kind: "link",
                is_dir: false,
                size: 0,
                name: child.name,
            },
            // Vanished or unreadable between read_dir and stat: still listed.
            Err(_) => Row {
                kind: "?",
                is_dir: child.is_directory,
                size: 0,
                name: child.name,
            },
        };
        rows.push(row);
    }
    Ok((rows, hidden))
}

/// The text of a listing: a header saying what was cut and left out, then
/// aligned rows. Names are shown with their control characters escaped: a
/// name must neither forge a row of the answer nor drive a terminal (the
/// record keeps them as they are).
fn listing(
    ctx: &ToolContext,
    path: &str,
    rows: &[Row],
    shown_total: usize,
    hidden: usize,
) -> String {
    let mut header = format!(
        "{}: {}",
        inert(path),
        plural(shown_total as u64, "entry", "entries")
    );
    if rows.len() < shown_total {
        header.push_str(&format!(
            ", showing the first {} (raise limit to see more)",
            rows.len()
        ));
    }
    if hidden > 0 {
        header.push_str(&format!(
            "; {} omitted (set showHidden to include them)",
            plural(hidden as u64, "hidden entry", "hidden entries")
        ));
    }
    let kind_w = rows.iter().map(|r| r.kind.len()).max().unwrap_or(0);
    let size_w = rows
        .iter()
        .map(|r| r.size.to_string().len())
        .max()
        .unwrap_or(0);
    let lines: Vec<String> = rows
        .iter()
        .map(|r| {
            let slash = if r.is_dir { "/" } else { "" };
            format!(
                "{:<kind_w$} {:>size_w$} {}{slash}",
                r.kind,
                r.size,
                inert(&r.name)
            )
        })
        .collect();
    clamp_rows(ctx, "ls", &header, &lines, "")
}

/// The text for people and the record for programs:
/// `{path, count, shown, hidden, entries: [{name, path, kind, size}]}`.
fn answer(
    ctx: &ToolContext,
    path: &str,
    text: String,
    rows: &[Row],
    count: usize,
    hidden: usize,
) -> ToolResult {
    let entries: Vec<Value> = rows
        .iter()
        .map(|r| {
            let shown = if r.name == path || path == "." {
                r.name.clone()
            } else {
                format!("{}/{}", path.trim_end_matches('/'), r.name)
            };
            json!({"name": r.name, "path": shown, "kind": r.kind, "size": r.size})
        })
        .collect();
    let mut record = serde_json::Map::new();
    record.insert("path".into(), json!(path));
    record.insert("count".into(), json!(count));
    record.insert("shown".into(), json!(rows.len()));
    record.insert("hidden".into(), json!(hidden));
    let record = record_with_rows(record, "entries", entries, ctx.budget.max_bytes);
    text_and_record(text, record, false)
}

/// The `ls` tool.
pub fn ls_tool() -> DefinedTool {
    define_tool(Arc::new(Ls))
}
