//! `diagnose`: the settled diagnostics of files from their language servers, as a
//! compiler prints them, and the delta against an earlier state — a CI gate (exit 0
//! none, 1 some, 2 trouble) and what `edit`/`write`/`apply_patch` append with
//! `diagnose: true`.
//!
//! Which files: those named, else the files the session's last checkpointed change
//! touched (or every change since `since`). The earlier state for `new`: a baseline
//! file (`saveBaseline` writes one), else each file as it was before those changes
//! (its checkpoint pre-image; a file they did not touch is its own before). The
//! earlier text is sent to the same warm server, settled, then the current one,
//! and the two sets compared by `delta` (path, severity, code, message and the
//! line's content, never the line number).
//!
//! A timeout is an error naming the server, never "no errors"; servers run through
//! the broker (`lsp::broker`), warm after the first call.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::delta::{self, BASELINE_FORMAT, Baseline, Row, severity_rank};
use super::lsp::{self, Doc, Reply, broker};
use crate::kernel::fields::{Field, Kind};
use crate::kernel::input::Args;
use crate::kernel::text::plural;
use crate::kernel::{DefinedTool, Effect, Tool, ToolContext, ToolMeta, ToolResult, define_tool};
use crate::state::StateDir;
use crate::state::checkpoints::{CheckpointStore, Image};
use crate::tools::{clamp_rows, record_with_rows, text_and_record};

const SEVERITIES: &[&str] = &["error", "warning", "information", "hint"];

const FIELDS: &[Field] = &[
    Field::new(
        "paths",
        Kind::Strings,
        "Files (default: those of the last change).",
    ),
    Field::new("new", Kind::Bool, "Only new ones."),
    Field::new("since", Kind::Name, "Checkpoint node to compare from."),
    Field::new("baseline", Kind::Name, "Baseline file (implies new)."),
    Field::new("saveBaseline", Kind::Name, "Write a baseline file."),
    Field::new(
        "severity",
        Kind::Enum(SEVERITIES),
        "Least severity shown (default warning).",
    ),
    Field::new("server", Kind::Name, "Server name."),
    Field::new(
        "timeoutMs",
        Kind::Millis {
            max: lsp::MAX_TIMEOUT_MS,
        },
        "Default 60000.",
    ),
];

/// The `diagnose` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    effect: Effect::Runs,
    fields: FIELDS,
    output: Some(include_str!("diagnose.output.json")),
    heavy: true,
    description: "Errors and warnings of files from their language server, settled for the text just sent: PATH:LINE:COL: error[CODE] message rows. new: only what the last change (or a baseline) made new.",
    ..ToolMeta::new(
        "diagnose",
        "Diagnostics from language servers",
        "Settled language-server diagnostics of files, and what is new since a change.",
    )
};

struct DiagnoseTool;

#[async_trait]
impl Tool for DiagnoseTool {
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

/// The `diagnose` tool.
pub fn diagnose_tool() -> DefinedTool {
    define_tool(Arc::new(DiagnoseTool))
}

/// What a run was asked.
struct Ask<'a> {
    new: bool,
    baseline: Option<&'a str>,
    save: Option<&'a str>,
    least: u8,
    server: Option<&'a str>,
    timeout_ms: u64,
}

async fn run(input: &Value, ctx: &ToolContext) -> Result<ToolResult, String> {
    let args = Args::new(META.name, input)?;
    lsp::local_only(ctx, "diagnose")?;
    let paths = args.opt_str_array("paths")?.unwrap_or_default();
    let since = args.opt_filled_str("since")?;
    let baseline = args.opt_filled_str("baseline")?;
    let ask = Ask {
        new: args.opt_bool("new")?.unwrap_or(false) || baseline.is_some(),
        baseline,
        save: args.opt_filled_str("saveBaseline")?,
        least: severity_rank(args.opt_enum("severity", SEVERITIES)?.unwrap_or("warning")),
        server: args.opt_filled_str("server")?,
        timeout_ms: args
            .opt_positive_int("timeoutMs")?
            .unwrap_or(lsp::DEFAULT_TIMEOUT_MS)
            .min(lsp::MAX_TIMEOUT_MS),
    };
    let changes = if paths.is_empty() || (ask.new && ask.baseline.is_none()) {
        Some(changed_files(ctx, since, paths.is_empty())?)
    } else {
        None
    };
    let servers = lsp::servers_of(ctx);
    let mut docs = Vec::new();
    let mut passed_over = Vec::new();
    if paths.is_empty() {
        for (abs, _) in changes.as_deref().unwrap_or_default() {
            // A file the change deleted has nothing to check; one no server
            // reads (a picture, a lock file) is named in the summary.
            if !Path::new(abs).is_file() {
                continue;
            }
            let shown = lsp::shown_path(&ctx.cwd, Path::new(abs));
            if servers.reads(Path::new(abs)) {
                docs.push(lsp::read_doc(ctx, "diagnose", &shown).await?);
            } else {
                passed_over.push(shown);
            }
        }
        if docs.is_empty() {
            return Err(
                "diagnose: the session's last change left no file a language server reads; name the files"
                    .into(),
            );
        }
    } else {
        for p in &paths {
            docs.push(lsp::read_doc(ctx, "diagnose", p).await?);
        }
    }
    let before = match (&changes, ask.new, ask.baseline) {
        (_, _, Some(file)) => Some(Before::Rows(load_baseline(ctx, file).await?)),
        (Some(c), true, None) => Some(Before::Texts(before_texts(ctx, c, &docs)?)),
        _ => None,
    };
    let mut outcome = check(ctx, &servers, docs, before.as_ref(), &ask).await?;
    outcome.passed_over = passed_over;
    if let Some(file) = ask.save {
        save_baseline(ctx, file, &outcome.after).await?;
    }
    Ok(render(ctx, &ask, outcome))
}

/// The earlier state: a baseline's rows, or each document's earlier text.
enum Before {
    Rows(Vec<Row>),
    Texts(HashMap<String, String>),
}

/// The files touched by the session's last checkpointed change (or every change
/// since `since`), with what each was before.
fn changed_files(
    ctx: &ToolContext,
    since: Option<&str>,
    for_paths: bool,
) -> Result<Vec<(String, Image)>, String> {
    let session = ctx.framework.session.as_deref().unwrap_or("default");
    let store = CheckpointStore::new(StateDir::of(ctx), session).with_root(ctx.root.clone());
    let index = store
        .load()
        .map_err(|e| format!("diagnose: cannot read the checkpoints: {e}"))?;
    let from = match since {
        Some(name) => CheckpointStore::find(&index, name).map_err(|e| format!("diagnose: {e}"))?,
        None if index.nodes.is_empty() => {
            return Err(if for_paths {
                "diagnose: no files named, and this session has no checkpointed change to take them from (name the files, or turn checkpoints on: `indus-tool checkpoint on`)".into()
            } else {
                "diagnose: \"new\" needs an earlier state: this session has no checkpointed change (give \"baseline\", or turn checkpoints on: `indus-tool checkpoint on`)".into()
            });
        }
        None => index.nodes.len() - 1,
    };
    Ok(index
        .touched_since(from)
        .into_iter()
        .map(|t| (t.path, t.restore))
        .collect())
}

/// Each document's text before the changes: its pre-image when they touched it,
/// else its text now. A file the changes created was empty before.
fn before_texts(
    ctx: &ToolContext,
    changes: &[(String, Image)],
    docs: &[Doc],
) -> Result<HashMap<String, String>, String> {
    let session = ctx.framework.session.as_deref().unwrap_or("default");
    let store = CheckpointStore::new(StateDir::of(ctx), session);
    let mut out = HashMap::new();
    for doc in docs {
        let abs = doc.abs.to_string_lossy().into_owned();
        let text = match changes.iter().find(|(p, _)| *p == abs) {
            None => doc.text.clone(),
            Some((_, Image::Absent)) => String::new(),
            Some((_, Image::Kept { sha256, .. })) => {
                let bytes = store
                    .blob(sha256)
                    .map_err(|e| format!("diagnose: {}: {e}", doc.shown))?;
                String::from_utf8(bytes).map_err(|_| {
                    format!("diagnose: {}: its earlier content is not UTF-8", doc.shown)
                })?
            }
            Some((_, image)) => {
                return Err(format!(
                    "diagnose: {}: its earlier content was {}; give \"baseline\" instead",
                    doc.shown,
                    image.describe()
                ));
            }
        };
        out.insert(abs, text);
    }
    Ok(out)
}

/// What a check found.
struct Outcome {
    after: Vec<Row>,
    delta: Option<delta::Delta>,
    files: usize,
    servers: Vec<Value>,
    /// Files of the change no server reads, left out.
    passed_over: Vec<String>,
}

/// The settled diagnostics of `docs`, and of their earlier texts when asked.
async fn check(
    ctx: &ToolContext,
    servers: &lsp::servers::Servers,
    docs: Vec<Doc>,
    before: Option<&Before>,
    ask: &Ask<'_>,
) -> Result<Outcome, String> {
    let files = docs.len();
    let groups = lsp::group(servers, docs, ask.server, Path::new(&ctx.cwd))?;
    let mut after_rows = Vec::new();
    let mut before_rows = Vec::new();
    let mut used = Vec::new();
    for (spec, docs) in groups {
        if let Some(Before::Texts(texts)) = before {
            let earlier: Vec<Doc> = docs
                .iter()
                .map(|d| d.with_text(texts[&d.abs.to_string_lossy().into_owned()].clone()))
                .collect();
            let (rows, _) = settled(ctx, &spec, &earlier, ask.timeout_ms).await?;
            before_rows.extend(rows);
        }
        let (rows, server) = settled(ctx, &spec, &docs, ask.timeout_ms).await?;
        after_rows.extend(rows);
        used.push(server);
    }
    let keep = |r: &Row| severity_rank(&r.severity) <= ask.least;
    after_rows.retain(keep);
    let delta = match before {
        None => None,
        Some(Before::Rows(rows)) => {
            let rows: Vec<Row> = rows.iter().filter(|r| keep(r)).cloned().collect();
            Some(delta::delta(&rows, &after_rows))
        }
        Some(Before::Texts(_)) => {
            before_rows.retain(keep);
            Some(delta::delta(&before_rows, &after_rows))
        }
    };
    Ok(Outcome {
        after: after_rows,
        delta,
        files,
        servers: used,
        passed_over: Vec::new(),
    })
}

/// One server's settled rows for `docs`, and its part of the record.
async fn settled(
    ctx: &ToolContext,
    spec: &lsp::servers::ServerSpec,
    docs: &[Doc],
    timeout_ms: u64,
) -> Result<(Vec<Row>, Value), String> {
    let wire = docs.iter().map(Doc::wire).collect();
    let request = broker::diagnose_request(spec.clone(), wire, timeout_ms);
    let answer = match lsp::ask(ctx, request, timeout_ms).await? {
        Reply::Done(a) => a,
        Reply::TimedOut(why, _) => return Err(format!("diagnose: {why}")),
    };
    let mut rows = Vec::new();
    let files = answer["files"].as_array().cloned().unwrap_or_default();
    let mut settled_by = Vec::new();
    for (doc, file) in docs.iter().zip(&files) {
        let diags = file["diagnostics"].as_array().cloned().unwrap_or_default();
        rows.extend(delta::rows_of(&doc.shown, &doc.text, &diags));
        if let Some(by) = file["settledBy"].as_str()
            && !settled_by.contains(&by)
        {
            settled_by.push(by);
        }
    }
    let mut server = answer["server"].clone();
    server["settledBy"] = json!(settled_by.join(", "));
    Ok((rows, server))
}

async fn load_baseline(ctx: &ToolContext, file: &str) -> Result<Vec<Row>, String> {
    let abs = ctx.confine(file).map_err(|m| format!("diagnose: {m}"))?;
    let text = ctx
        .fs
        .read_text(&abs)
        .await
        .map_err(|e| format!("diagnose: baseline {file}: {e}"))?;
    let baseline: Baseline = serde_json::from_str(&text)
        .map_err(|e| format!("diagnose: baseline {file} is not a diagnose baseline: {e}"))?;
    if baseline.format != BASELINE_FORMAT {
        return Err(format!(
            "diagnose: baseline {file} is of format {:?}, expected {BASELINE_FORMAT:?}",
            baseline.format
        ));
    }
    Ok(baseline.rows)
}

async fn save_baseline(ctx: &ToolContext, file: &str, rows: &[Row]) -> Result<(), String> {
    let abs = ctx
        .confine_write(file)
        .map_err(|m| format!("diagnose: {m}"))?;
    let baseline = Baseline {
        format: BASELINE_FORMAT.to_string(),
        rows: rows.to_vec(),
    };
    let mut text = serde_json::to_string_pretty(&baseline).expect("baselines serialize");
    text.push('\n');
    ctx.fs
        .write_file(&abs, &text)
        .await
        .map_err(|e| format!("diagnose: cannot write the baseline {file}: {e}"))
}

/// `3 errors, 1 warning`: the counts of `rows` by severity, graver first.
pub fn counts(rows: &[Row]) -> String {
    let mut parts = Vec::new();
    for (sev, one, many) in [
        ("error", "error", "errors"),
        ("warning", "warning", "warnings"),
        ("information", "note", "notes"),
        ("hint", "hint", "hints"),
    ] {
        let n = rows.iter().filter(|r| r.severity == sev).count() as u64;
        if n > 0 || sev == "error" {
            parts.push(plural(n, one, many));
        }
    }
    parts.join(", ")
}

fn server_words(servers: &[Value]) -> String {
    servers
        .iter()
        .map(|s| {
            let name = s["name"].as_str().unwrap_or("?");
            match s["startMs"].as_u64() {
                Some(ms) if s["cold"] == true => format!("{name}, started in {ms} ms"),
                _ => format!("{name}, warm"),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn render(ctx: &ToolContext, ask: &Ask<'_>, outcome: Outcome) -> ToolResult {
    let files = plural(outcome.files as u64, "file", "files");
    let servers = server_words(&outcome.servers);
    let (shown, summary, count) = match &outcome.delta {
        Some(d) => {
            let new_errors = d.new.iter().filter(|r| r.is_error()).count();
            let summary = format!(
                "new: {}; fixed: {}; unchanged: {} in {files} ({servers})",
                counts(&d.new),
                counts(&d.fixed),
                counts(&d.unchanged),
            );
            (d.new.clone(), summary, new_errors)
        }
        None => {
            let errors = outcome.after.iter().filter(|r| r.is_error()).count();
            let summary = format!("{} in {files} ({servers})", counts(&outcome.after));
            (outcome.after.clone(), summary, errors)
        }
    };
    let summary = match outcome.passed_over.len() {
        0 => summary,
        n => format!(
            "{summary}; left out: {} no language server reads ({})",
            plural(n as u64, "file", "files"),
            outcome.passed_over.join(", ")
        ),
    };
    let rows: Vec<String> = shown.iter().map(Row::render).collect();
    let tail = if rows.is_empty() {
        summary.clone()
    } else {
        format!("\n\n{summary}")
    };
    let text = clamp_rows(ctx, "diagnose", "", &rows, &tail);
    let mut record = serde_json::Map::new();
    record.insert("count".into(), json!(count));
    record.insert("files".into(), json!(outcome.files));
    record.insert("servers".into(), json!(outcome.servers));
    if let Some(d) = &outcome.delta {
        record.insert("fixed".into(), json!(d.fixed));
        record.insert("unchanged".into(), json!(d.unchanged.len()));
    }
    if let Some(file) = ask.save {
        record.insert("savedBaseline".into(), json!(file));
    }
    if !outcome.passed_over.is_empty() {
        record.insert("leftOut".into(), json!(outcome.passed_over));
    }
    let rows_json: Vec<Value> = shown
        .iter()
        .map(|r| serde_json::to_value(r).expect("rows serialize"))
        .collect();
    let record = record_with_rows(record, "rows", rows_json, ctx.budget.max_bytes);
    text_and_record(text, record, false)
}

/// The input field `edit`, `write` and `apply_patch` take to append diagnostics.
pub const DIAGNOSE_FIELD: Field =
    Field::new("diagnose", Kind::Bool, "Append new language-server errors.");

/// Run `change` (a call of `edit`, `write` or `apply_patch` that may change
/// `paths`, as given); with `diagnose: true` in `input`, append to its answer the
/// new errors of each file it changed, worded as information: the change stands
/// whatever they say, and trouble (no server, a timeout) is said, never an error
/// of the change.
pub async fn around_change(
    ctx: &ToolContext,
    input: &Value,
    paths: Vec<String>,
    change: impl std::future::Future<Output = ToolResult>,
) -> ToolResult {
    if input.get("diagnose") != Some(&Value::Bool(true)) {
        return change.await;
    }
    let mut before = Vec::new();
    for p in paths {
        let text = match ctx.confine(&p) {
            Ok(abs) => ctx.fs.read_text(&abs).await.ok(),
            Err(_) => None,
        };
        before.push((p, text));
    }
    let mut result = change.await;
    if result.is_error {
        return result;
    }
    let mut note = String::new();
    let mut new_rows = Vec::new();
    let mut trouble = Vec::new();
    let servers = lsp::servers_of(ctx);
    for (p, old) in before {
        let Ok(abs) = ctx.confine(&p) else { continue };
        let Ok(now) = ctx.fs.read_text(&abs).await else {
            continue;
        };
        if old.as_deref() == Some(now.as_str()) {
            continue;
        }
        match edit_delta(ctx, &servers, &p, old.as_deref().unwrap_or(""), now).await {
            Ok(rows) => new_rows.extend(rows),
            // Each line names its file once (a missing server's already does).
            Err(e) if e.starts_with(&format!("{p}: ")) => trouble.push(e),
            Err(e) => trouble.push(format!("{p}: {e}")),
        }
    }
    if new_rows.is_empty() && trouble.is_empty() {
        note.push_str("\nNo new errors after this change.");
    } else if !new_rows.is_empty() {
        note.push_str(&format!(
            "\n{} after this change:",
            plural(new_rows.len() as u64, "new error", "new errors")
        ));
        for row in &new_rows {
            note.push('\n');
            note.push_str(&row.render());
        }
    }
    for t in &trouble {
        note.push_str(&format!("\nDiagnostics unavailable after this change: {t}"));
    }
    for block in &mut result.content {
        match block {
            crate::kernel::ToolContentBlock::Text(t) => t.push_str(&note),
            crate::kernel::ToolContentBlock::Json(Value::Object(r)) => {
                r.insert("newErrors".into(), json!(new_rows));
                if !trouble.is_empty() {
                    r.insert("diagnoseTrouble".into(), json!(trouble.join("; ")));
                }
            }
            _ => {}
        }
    }
    result
}

/// The new errors of `shown` from `before` to `after`: a [`check`] of the one
/// file against its earlier text, errors only.
async fn edit_delta(
    ctx: &ToolContext,
    servers: &lsp::servers::Servers,
    shown: &str,
    before: &str,
    after: String,
) -> Result<Vec<Row>, String> {
    lsp::local_only(ctx, "diagnose")?;
    let abs = ctx.confine(shown)?;
    let texts = HashMap::from([(abs.clone(), before.to_string())]);
    let doc = Doc {
        shown: shown.to_string(),
        abs: abs.into(),
        text: after,
    };
    let ask = Ask {
        new: true,
        baseline: None,
        save: None,
        least: severity_rank("error"),
        server: None,
        timeout_ms: lsp::DEFAULT_TIMEOUT_MS,
    };
    let outcome = check(ctx, servers, vec![doc], Some(&Before::Texts(texts)), &ask).await?;
    Ok(outcome.delta.map(|d| d.new).unwrap_or_default())
}
