//! `lsp`: a language server's navigation as rows like grep's — `definition`,
//! `references`, `hover` at `PATH:LINE:COL`; `symbols` of a file; the
//! `workspace-symbols` matching a name; `rename` at a position, written as one
//! patch through `apply_patch` (its all-or-nothing journal; under `--checkpoint`
//! the call is scanned like a command, so a rewind undoes it) and shown as a diff
//! (`check: true`: the diff only). `status` shows the warm broker and its servers;
//! `stop` ends them.
//!
//! Positions are 1-based lines and 1-based byte columns, as grep's rows print
//! them, converted to the protocol's UTF-16 offsets against the file's text.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::delta::{byte_column, utf16_offset};
use super::lsp::{self, Doc, Reply, broker};
use crate::kernel::fields::{Field, Kind};
use crate::kernel::input::Args;
use crate::kernel::text::plural;
use crate::kernel::{
    Checkpoint, DefinedTool, Effect, ScanWhen, Tool, ToolContext, ToolMeta, ToolResult, define_tool,
};
use crate::tools::files::diff::render_unified_diff_with_headers;
use crate::tools::{clamp_rows, record_with_rows, text_and_record};

const ACTIONS: &[&str] = &[
    "definition",
    "references",
    "hover",
    "symbols",
    "workspace-symbols",
    "rename",
    "status",
    "stop",
];

const FIELDS: &[Field] = &[
    Field::required("action", Kind::Enum(ACTIONS), "What to ask."),
    Field::new("at", Kind::Text, "PATH:LINE:COL (symbols: PATH)."),
    Field::new("query", Kind::Text, "workspace-symbols: name."),
    Field::new(
        "path",
        Kind::Text,
        "workspace-symbols: a file of the language.",
    ),
    Field::new("newName", Kind::Name, "rename: new name."),
    Field::new("check", Kind::Bool, "rename: diff only."),
    Field::new("server", Kind::Name, "Server name."),
    Field::new(
        "timeoutMs",
        Kind::Millis {
            max: lsp::MAX_TIMEOUT_MS,
        },
        "Default 60000.",
    ),
];

/// The `lsp` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    effect: Effect::Runs,
    // Every call: besides a rename, the language server a call starts or
    // wakes may write into the tree itself (a lock file, a build folder).
    checkpoint: Checkpoint::ByScan(ScanWhen::Always),
    fields: FIELDS,
    output: Some(include_str!("navigate.output.json")),
    heavy: true,
    description: "The language server at PATH:LINE:COL: definition, references, hover; symbols of a file; workspace-symbols by name; rename everywhere (one patch; check: diff only). status, stop: the warm servers.",
    ..ToolMeta::new(
        "lsp",
        "Language-server navigation",
        "Definition, references, hover, symbols and rename from the project's language server.",
    )
};

struct LspTool;

#[async_trait]
impl Tool for LspTool {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match run(&input, ctx).await {
            Ok(r) => r,
            Err(e) => ToolResult::failure(e),
        }
    }
}

/// The `lsp` tool.
pub fn lsp_tool() -> DefinedTool {
    define_tool(Arc::new(LspTool))
}

/// `PATH:LINE:COL` split; `PATH` alone gives no position.
fn parse_at(at: &str) -> Result<(String, Option<(u64, u64)>), String> {
    let mut parts = at.rsplitn(3, ':');
    let last = parts.next().unwrap_or_default();
    let mid = parts.next();
    let first = parts.next();
    match (first, mid, last.parse::<u64>()) {
        (Some(path), Some(line), Ok(col)) if !path.is_empty() => {
            let line: u64 = line
                .parse()
                .map_err(|_| format!("Invalid \"at\": {at:?}: the line is not a number"))?;
            if line == 0 || col == 0 {
                return Err(format!(
                    "Invalid \"at\": {at:?}: lines and columns count from 1"
                ));
            }
            Ok((path.to_string(), Some((line, col))))
        }
        _ => Ok((at.to_string(), None)),
    }
}

/// The protocol position of 1-based `line`, byte `col` in `text`.
fn position(text: &str, line: u64, col: u64, at: &str) -> Result<Value, String> {
    let Some(content) = text.split('\n').nth((line - 1) as usize) else {
        return Err(format!(
            "Invalid \"at\": {at}: the file has {} lines",
            text.split('\n').count()
        ));
    };
    Ok(json!({"line": line - 1, "character": utf16_offset(content.trim_end_matches('\r'), col)}))
}

struct Call<'a> {
    server: Option<&'a str>,
    timeout_ms: u64,
}

async fn run(input: &Value, ctx: &ToolContext) -> Result<ToolResult, String> {
    let args = Args::new(META.name, input)?;
    lsp::local_only(ctx, "lsp")?;
    let action = args.required_enum("action", ACTIONS)?;
    let call = Call {
        server: args.opt_filled_str("server")?,
        timeout_ms: args
            .opt_positive_int("timeoutMs")?
            .unwrap_or(lsp::DEFAULT_TIMEOUT_MS)
            .min(lsp::MAX_TIMEOUT_MS),
    };
    match action {
        "status" | "stop" => {
            // Both block on the broker's socket (and `stop` on its job).
            let ctx2 = ctx.clone();
            let action = action.to_string();
            return tokio::task::spawn_blocking(move || match action.as_str() {
                "status" => status(&ctx2),
                _ => stop(&ctx2),
            })
            .await
            .map_err(|e| format!("lsp: {e}"))?;
        }
        "workspace-symbols" => return workspace_symbols(ctx, &args, &call).await,
        _ => {}
    }
    let at = args
        .opt_filled_str("at")?
        .ok_or_else(|| format!("Missing \"at\": {action} needs PATH:LINE:COL."))?;
    let (path, pos) = parse_at(at)?;
    let doc = lsp::read_doc(ctx, "lsp", &path).await?;
    if action == "symbols" {
        let result = ask(
            ctx,
            &call,
            &doc,
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri(&doc.abs)}}),
        )
        .await?;
        return Ok(symbol_rows(ctx, &doc, &result));
    }
    let (line, col) =
        pos.ok_or_else(|| format!("Invalid \"at\": {action} needs PATH:LINE:COL, got {at:?}."))?;
    let mut params = json!({
        "textDocument": {"uri": uri(&doc.abs)},
        "position": position(&doc.text, line, col, at)?,
    });
    match action {
        "definition" => {
            let result = ask(ctx, &call, &doc, "textDocument/definition", params).await?;
            Ok(location_rows(ctx, "definition", &result).await)
        }
        "references" => {
            params["context"] = json!({"includeDeclaration": true});
            let result = ask(ctx, &call, &doc, "textDocument/references", params).await?;
            Ok(location_rows(ctx, "references", &result).await)
        }
        "hover" => {
            let result = ask(ctx, &call, &doc, "textDocument/hover", params).await?;
            Ok(hover(ctx, &result))
        }
        _ => {
            let new_name = args
                .opt_filled_str("newName")?
                .ok_or("Missing \"newName\": rename needs the new name.")?;
            params["newName"] = json!(new_name);
            let result = ask(ctx, &call, &doc, "textDocument/rename", params).await?;
            rename(ctx, &result, args.opt_bool("check")?.unwrap_or(false)).await
        }
    }
}

fn uri(path: &Path) -> String {
    lsp_types::Url::from_file_path(path)
        .map(|u| u.to_string())
        .unwrap_or_default()
}

/// Ask `doc`'s server `method`; a timeout is an error naming the server.
async fn ask(
    ctx: &ToolContext,
    call: &Call<'_>,
    doc: &Doc,
    method: &str,
    params: Value,
) -> Result<Value, String> {
    let servers = lsp::servers_of(ctx);
    let spec = servers
        .for_file(&doc.abs, call.server, Path::new(&ctx.cwd))
        .map_err(|e| format!("lsp: {}: {e}", doc.shown))?;
    let request = broker::query_request(spec, vec![doc.wire()], method, params, call.timeout_ms);
    match lsp::ask(ctx, request, call.timeout_ms).await? {
        Reply::Done(answer) => Ok(answer["result"].clone()),
        Reply::TimedOut(why, _) => Err(format!("lsp: {why}")),
    }
}

/// A file's lines, read once per file for the rows.
#[derive(Default)]
struct Lines(BTreeMap<PathBuf, Vec<String>>);

impl Lines {
    async fn line(&mut self, ctx: &ToolContext, path: &Path, line0: u64) -> String {
        if !self.0.contains_key(path) {
            let text = ctx
                .fs
                .read_text(&path.to_string_lossy())
                .await
                .unwrap_or_default();
            self.0.insert(
                path.to_path_buf(),
                text.split('\n')
                    .map(|l| l.trim_end_matches('\r').to_string())
                    .collect(),
            );
        }
        self.0[path]
            .get(line0 as usize)
            .cloned()
            .unwrap_or_default()
    }
}

/// `file://` URI to a path.
fn path_of(uri: &str) -> Option<PathBuf> {
    lsp_types::Url::parse(uri).ok()?.to_file_path().ok()
}

/// Rows `PATH:LINE:COL: line` of a Location, Location[] or LocationLink[] answer.
async fn location_rows(ctx: &ToolContext, what: &str, result: &Value) -> ToolResult {
    let items: Vec<&Value> = match result {
        Value::Array(a) => a.iter().collect(),
        Value::Null => Vec::new(),
        one => vec![one],
    };
    let mut lines = Lines::default();
    let mut rows = Vec::new();
    let mut records = Vec::new();
    for item in items {
        let uri = item["uri"].as_str().or(item["targetUri"].as_str());
        let range = if item["range"].is_object() {
            &item["range"]
        } else {
            &item["targetSelectionRange"]
        };
        let Some(path) = uri.and_then(path_of) else {
            continue;
        };
        let line0 = range["start"]["line"].as_u64().unwrap_or(0);
        let content = lines.line(ctx, &path, line0).await;
        let column = byte_column(&content, range["start"]["character"].as_u64().unwrap_or(0));
        let shown = lsp::shown_path(&ctx.cwd, &path);
        rows.push(format!("{shown}:{}:{column}:{content}", line0 + 1));
        records.push(json!({"path": shown, "line": line0 + 1, "column": column, "text": content}));
    }
    let summary = format!(
        "{} ({what})",
        plural(records.len() as u64, "location", "locations")
    );
    finish(ctx, rows, summary, records)
}

fn finish(
    ctx: &ToolContext,
    rows: Vec<String>,
    summary: String,
    records: Vec<Value>,
) -> ToolResult {
    let tail = if rows.is_empty() {
        summary
    } else {
        format!("\n\n{summary}")
    };
    let text = clamp_rows(ctx, "lsp", "", &rows, &tail);
    let mut record = serde_json::Map::new();
    record.insert("count".into(), json!(records.len()));
    let record = record_with_rows(record, "rows", records, ctx.budget.max_bytes);
    text_and_record(text, record, false)
}

/// The symbol kinds' names (LSP `SymbolKind`, 1-based).
fn kind_name(n: u64) -> &'static str {
    const KINDS: [&str; 26] = [
        "file",
        "module",
        "namespace",
        "package",
        "class",
        "method",
        "property",
        "field",
        "constructor",
        "enum",
        "interface",
        "function",
        "variable",
        "constant",
        "string",
        "number",
        "boolean",
        "array",
        "object",
        "key",
        "null",
        "enum-member",
        "struct",
        "event",
        "operator",
        "type-parameter",
    ];
    KINDS
        .get((n as usize).wrapping_sub(1))
        .copied()
        .unwrap_or("symbol")
}

/// Rows of a documentSymbol answer, nested items indented two spaces a level.
fn symbol_rows(ctx: &ToolContext, doc: &Doc, result: &Value) -> ToolResult {
    fn walk(
        items: &[Value],
        depth: usize,
        doc: &Doc,
        lines: &[&str],
        rows: &mut Vec<String>,
        records: &mut Vec<Value>,
    ) {
        for s in items {
            // DocumentSymbol has selectionRange; SymbolInformation a location.
            let range = if s["selectionRange"].is_object() {
                &s["selectionRange"]
            } else {
                &s["location"]["range"]
            };
            let line0 = range["start"]["line"].as_u64().unwrap_or(0);
            let content = lines.get(line0 as usize).copied().unwrap_or("");
            let column = byte_column(content, range["start"]["character"].as_u64().unwrap_or(0));
            let kind = kind_name(s["kind"].as_u64().unwrap_or(0));
            let name = s["name"].as_str().unwrap_or("?");
            let detail = s["detail"].as_str().filter(|d| !d.is_empty());
            let indent = "  ".repeat(depth);
            let shown_detail = detail.map(|d| format!(" {d}")).unwrap_or_default();
            rows.push(format!(
                "{}:{}:{column}: {indent}{kind} {name}{shown_detail}",
                doc.shown,
                line0 + 1
            ));
            records.push(
                json!({"path": doc.shown, "line": line0 + 1, "column": column,
                "kind": kind, "name": name, "detail": detail, "depth": depth}),
            );
            if let Some(children) = s["children"].as_array() {
                walk(children, depth + 1, doc, lines, rows, records);
            }
        }
    }
    let lines: Vec<&str> = doc.text.split('\n').collect();
    let (mut rows, mut records) = (Vec::new(), Vec::new());
    let items = result.as_array().cloned().unwrap_or_default();
    walk(&items, 0, doc, &lines, &mut rows, &mut records);
    let summary = plural(records.len() as u64, "symbol", "symbols");
    finish(ctx, rows, summary, records)
}

async fn workspace_symbols(
    ctx: &ToolContext,
    args: &Args<'_>,
    call: &Call<'_>,
) -> Result<ToolResult, String> {
    let query = args
        .opt_str("query")?
        .or(args.opt_str("at")?)
        .ok_or("Missing \"query\": workspace-symbols needs a name to look for.")?;
    let path = args.opt_filled_str("path")?.ok_or(
        "Missing \"path\": workspace-symbols needs a file of the project, to know which server to ask.",
    )?;
    let doc = lsp::read_doc(ctx, "lsp", path).await?;
    let result = ask(ctx, call, &doc, "workspace/symbol", json!({"query": query})).await?;
    let mut lines = Lines::default();
    let (mut rows, mut records) = (Vec::new(), Vec::new());
    for s in result.as_array().cloned().unwrap_or_default() {
        let Some(p) = s["location"]["uri"].as_str().and_then(path_of) else {
            continue;
        };
        let range = &s["location"]["range"];
        let line0 = range["start"]["line"].as_u64().unwrap_or(0);
        let content = lines.line(ctx, &p, line0).await;
        let column = byte_column(&content, range["start"]["character"].as_u64().unwrap_or(0));
        let kind = kind_name(s["kind"].as_u64().unwrap_or(0));
        let name = s["name"].as_str().unwrap_or("?");
        let container = s["containerName"].as_str().filter(|c| !c.is_empty());
        let shown = lsp::shown_path(&ctx.cwd, &p);
        let inside = container.map(|c| format!(" (in {c})")).unwrap_or_default();
        rows.push(format!(
            "{shown}:{}:{column}: {kind} {name}{inside}",
            line0 + 1
        ));
        records.push(json!({"path": shown, "line": line0 + 1, "column": column, "kind": kind, "name": name, "container": container}));
    }
    let summary = plural(records.len() as u64, "symbol", "symbols");
    Ok(finish(ctx, rows, summary, records))
}

fn hover(ctx: &ToolContext, result: &Value) -> ToolResult {
    let text = match &result["contents"] {
        Value::String(s) => s.clone(),
        Value::Object(o) => o
            .get("value")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => s.clone(),
                other => other["value"].as_str().unwrap_or_default().to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    };
    let text = text.trim().to_string();
    let shown = if text.is_empty() {
        "No hover information here.".to_string()
    } else {
        crate::tools::clamp_for(ctx, "lsp", &text)
    };
    text_and_record(
        shown,
        json!({"count": usize::from(!text.is_empty()), "contents": text}),
        false,
    )
}

/// The text edits of a WorkspaceEdit, by file (`changes` or `documentChanges`).
fn edits_by_file(edit: &Value) -> Result<BTreeMap<PathBuf, Vec<Value>>, String> {
    let mut out: BTreeMap<PathBuf, Vec<Value>> = BTreeMap::new();
    if let Some(changes) = edit["changes"].as_object() {
        for (uri, edits) in changes {
            let p =
                path_of(uri).ok_or_else(|| format!("lsp: the server named {uri}, not a file"))?;
            out.entry(p)
                .or_default()
                .extend(edits.as_array().cloned().unwrap_or_default());
        }
    }
    for change in edit["documentChanges"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        if change.get("kind").is_some() {
            return Err(format!(
                "lsp: the rename would {} a file; this tool applies text edits only",
                change["kind"].as_str().unwrap_or("change")
            ));
        }
        let uri = change["textDocument"]["uri"].as_str().unwrap_or_default();
        let p = path_of(uri).ok_or_else(|| format!("lsp: the server named {uri}, not a file"))?;
        out.entry(p)
            .or_default()
            .extend(change["edits"].as_array().cloned().unwrap_or_default());
    }
    Ok(out)
}

/// `text` with the protocol's `edits` applied (ranges in UTF-16 offsets; edits
/// must not overlap, as the protocol requires).
pub fn apply_edits(text: &str, edits: &[Value]) -> Result<String, String> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |pos: &Value| -> Result<usize, String> {
        let line = pos["line"].as_u64().ok_or("an edit without a line")? as usize;
        let ch = pos["character"]
            .as_u64()
            .ok_or("an edit without a character")?;
        let Some(&start) = starts.get(line) else {
            return Ok(text.len());
        };
        let end = starts.get(line + 1).map_or(text.len(), |e| e - 1);
        let content = &text[start..end];
        let mut units = 0u64;
        for (i, c) in content.char_indices() {
            if units >= ch {
                return Ok(start + i);
            }
            units += c.len_utf16() as u64;
        }
        Ok(end)
    };
    let mut spans = Vec::new();
    for e in edits {
        let a = offset(&e["range"]["start"])?;
        let b = offset(&e["range"]["end"])?;
        if b < a {
            return Err("lsp: the server sent an edit whose end is before its start".into());
        }
        spans.push((a, b, e["newText"].as_str().unwrap_or_default().to_string()));
    }
    spans.sort_by_key(|s| (s.0, s.1));
    for w in spans.windows(2) {
        if w[1].0 < w[0].1 {
            return Err("lsp: the server sent overlapping edits; nothing was written".into());
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (a, b, new) in spans {
        out.push_str(&text[at..a]);
        out.push_str(&new);
        at = b;
    }
    out.push_str(&text[at..]);
    Ok(out)
}

/// Apply a rename's WorkspaceEdit as one patch through `apply_patch`.
async fn rename(ctx: &ToolContext, edit: &Value, check: bool) -> Result<ToolResult, String> {
    if edit.is_null() {
        return Err("lsp: the server found nothing to rename there".into());
    }
    let files = edits_by_file(edit)?;
    let mut patch = String::new();
    let mut changed = Vec::new();
    for (path, edits) in &files {
        let abs = path.to_string_lossy();
        let shown = lsp::shown_path(&ctx.cwd, path);
        ctx.confine_write(&shown)
            .map_err(|m| format!("lsp: the rename would change {shown}: {m}"))?;
        let before = ctx
            .fs
            .read_text(&abs)
            .await
            .map_err(|e| format!("lsp: {shown}: {e}"))?;
        let after = apply_edits(&before, edits)?;
        if after != before {
            patch.push_str(&render_unified_diff_with_headers(
                &before,
                &after,
                3,
                &format!("a/{shown}"),
                &format!("b/{shown}"),
            ));
            changed.push(shown);
        }
    }
    let summary = format!(
        "{} {}",
        plural(changed.len() as u64, "file", "files"),
        if check { "would change" } else { "changed" }
    );
    let record = json!({"count": changed.len(), "files": changed, "diff": patch, "written": !check && !patch.is_empty()});
    if check || patch.is_empty() {
        let text = crate::tools::clamp_owned_for(ctx, "lsp", format!("{patch}{summary}"));
        return Ok(text_and_record(text, record, false));
    }
    // The gate of apply_patch is about files the caller has not read; these
    // edits come from the server's reading of them, checked again by the
    // patch's context as it applies.
    let mut quiet = ctx.clone();
    quiet.framework.read_state = None;
    let applied = crate::tools::files::apply_patch::apply_patch_tool()
        .run_result(json!({"patch": patch}), &quiet)
        .await;
    if applied.is_error {
        let why = crate::tools::shell::warm::text_of(&applied);
        return Err(format!("lsp: the rename was not written: {why}"));
    }
    let text = crate::tools::clamp_owned_for(ctx, "lsp", format!("{patch}{summary}"));
    Ok(text_and_record(text, record, false))
}

fn status(ctx: &ToolContext) -> Result<ToolResult, String> {
    let cwd = PathBuf::from(&ctx.cwd);
    let Some(pong) = broker::ping(&cwd) else {
        return Ok(text_and_record(
            "The lsp broker is not running (the first diagnose or lsp call starts it).".into(),
            json!({"running": false, "count": 0, "servers": []}),
            false,
        ));
    };
    let servers = pong["servers"].as_array().cloned().unwrap_or_default();
    let mut text = format!(
        "lsp broker: pid {}, socket {}, exits after {} s idle",
        pong["pid"],
        pong["socket"].as_str().unwrap_or_default(),
        pong["idleSecs"]
    );
    for s in &servers {
        text.push_str(&format!(
            "\n  {} (pid {}): started in {} ms, {} MiB",
            s["name"].as_str().unwrap_or("?"),
            s["pid"],
            s["startMs"],
            s["rssBytes"].as_u64().unwrap_or(0) >> 20
        ));
    }
    Ok(text_and_record(
        text,
        json!({"running": true, "pid": pong["pid"], "count": servers.len(), "servers": servers}),
        false,
    ))
}

fn stop(ctx: &ToolContext) -> Result<ToolResult, String> {
    let cwd = PathBuf::from(&ctx.cwd);
    let pong = broker::ping(&cwd);
    let stopped = broker::WARM
        .stop(ctx, &broker::Request::Shutdown)
        .map_err(|e| format!("lsp stop: {}", e.join("; ")))?;
    let text = match (&pong, stopped.first()) {
        (_, Some(pid)) => format!("lsp broker stopped: pid {pid}"),
        (Some(p), None) => format!("lsp broker stopped: pid {}", p["pid"]),
        (None, None) => "The lsp broker is not running.".to_string(),
    };
    let running = pong.is_some() || !stopped.is_empty();
    Ok(text_and_record(
        text,
        json!({"stopped": running, "count": usize::from(running)}),
        false,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_parse_from_the_right() {
        assert_eq!(
            parse_at("src/a:b.py:3:7").unwrap(),
            ("src/a:b.py".to_string(), Some((3, 7)))
        );
        assert_eq!(parse_at("x.py").unwrap(), ("x.py".to_string(), None));
        assert!(parse_at("x.py:0:1").is_err());
    }

    #[test]
    fn edits_apply_by_utf16_offsets_and_overlaps_are_refused() {
        let text = "é = 1\nprint(é)\n";
        let e = |l: u64, a: u64, b: u64, t: &str| json!({"range": {"start": {"line": l, "character": a}, "end": {"line": l, "character": b}}, "newText": t});
        let out = apply_edits(text, &[e(0, 0, 1, "x"), e(1, 6, 7, "x")]).unwrap();
        assert_eq!(out, "x = 1\nprint(x)\n");
        assert!(apply_edits(text, &[e(0, 0, 3, "x"), e(0, 2, 4, "y")]).is_err());
    }
}
