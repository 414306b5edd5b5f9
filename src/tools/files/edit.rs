//! `edit`: replace an exact snippet of a file (or, failing that, whole lines found by
//! the match engine's ladder) and answer with a text summary plus a
//! `{path, replacements, match, diff}` JSON block.
//!
//! This module is the tool's I/O and policy, in the order a call takes: parse the
//! input, check the file (stat, the read-before-edit gate, the lock, the size
//! bound, the `expectSha256` stale-write guard), plan (decode and place every
//! edit), write (atomically, then the read-state), answer (diff, summary,
//! record). The matching itself, and the wording of why an edit could not be
//! applied, live in `matching/`, which is pure and fuzzed.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Checkpoint, Effect, Seat, SeedList, ToolMeta};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::kernel::digest::sha256_hex;
use crate::kernel::input::Args;
use crate::kernel::text::plural;
use crate::kernel::{
    ClipEnd, DefinedTool, FileLock, OutputBudget, Tool, ToolContentBlock, ToolContext, ToolResult,
    clamp, define_tool,
};
use crate::tools::files::diff::{
    DEFAULT_CONTEXT, render_splice_diff, render_unified_diff_with_headers,
};
use crate::tools::files::gate::{
    GateOutcome, enforce_read_gate, get_read_state_handle, record_read_state,
};
use crate::tools::files::{encoding, matching, notebook};
use crate::tools::tool_notice;

/// The diff in the JSON block is middle-clamped to this many bytes.
pub const DIFF_MAX_BYTES: usize = 16 * 1024;
/// The largest file `edit` changes: 128 MiB. The whole file is held (and matched,
/// and rewritten) in memory, so the bound is what keeps a huge or endlessly
/// growing file from exhausting it.
pub const EDIT_MAX_BYTES: usize = 128 * 1024 * 1024;

struct EditTool;

/// What the diff of an edit is rendered from.
enum DiffSource {
    /// One replacement made in place: where, the bytes it removed, how many it put.
    Splice(usize, String, usize),
    /// The file as it was, decoded.
    Whole(matching::Decoded),
}

/// The `edit` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Builtin(SeedList::Mutating),
    effect: Effect::Writes { idempotent: false },
    checkpoint: Checkpoint::ByPath,
    core: true,
    heavy: true,
    fields: FIELDS,
    description: "Replace oldText with newText in a file; returns the diff. oldText must match one place (or replaceAll). Whitespace, line-number-gutter and quote slips are forgiven when only one place fits; ambiguity is refused. edits: several replacements at once, all or none.",
    output: Some(include_str!("edit.output.json")),
    ..ToolMeta::new(
        "edit",
        "Edit file",
        "Replace a span of a file's text and show the unified diff.",
    )
};

/// `edit`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("path", Kind::Name, "File path."),
    Field::new("oldText", Kind::Text, "Exact text to replace."),
    Field::new("newText", Kind::Text, "Replacement."),
    Field::new("replaceAll", Kind::Bool, "Replace every occurrence."),
    Field::new(
        "edits",
        Kind::Objects {
            fields: &[
                Field::required("oldText", Kind::Name, ""),
                Field::required("newText", Kind::Name, ""),
                Field::new("replaceAll", Kind::Bool, ""),
            ],
            expected: EDITS_EXPECTED,
        },
        "[{oldText, newText}] instead, each matched against the file as it was.",
    ),
    Field::new(
        "expectSha256",
        Kind::Text,
        "Refuse unless the file's SHA-256 is this (read gives it).",
    ),
    Field::new(
        "encoding",
        Kind::Text,
        "The file's encoding, or auto; kept.",
    ),
    Field::new("cell", Kind::Text, "Notebook cell id or number."),
    Field::new(
        "cellAction",
        Kind::Enum(&["replace", "insert", "delete"]),
        "Insert newText after cell (0: first), or delete it.",
    ),
    Field::new(
        "cellType",
        Kind::Enum(&["code", "markdown", "raw"]),
        "Inserted cell's type.",
    ),
    crate::tools::code::diagnose::DIAGNOSE_FIELD,
];

#[async_trait]
impl Tool for EditTool {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let path = input["path"].as_str().map(str::to_string);
        let change = self.run_plain(&input, ctx);
        crate::tools::code::diagnose::around_change(ctx, &input, path.into_iter().collect(), change)
            .await
    }
}

impl EditTool {
    async fn run_plain(&self, input: &Value, ctx: &ToolContext) -> ToolResult {
        let input = input.clone();
        let outcome = async {
            let request = parse(&input)?;
            let checked = check(&request, ctx).await?;
            let budget = matching::Budget::for_call(ctx.cancel.clone());
            let (planned, bytes) = match (&request.cell, request.encoding) {
                (Some((key, op)), _) => {
                    let done = notebook::apply(
                        request.path,
                        &checked.bytes,
                        key,
                        op,
                        &request.edits,
                        &budget,
                    )?;
                    let before =
                        matching::decode_vec(checked.bytes).map_err(|e| e.message(request.path))?;
                    let planned = Planned {
                        new_content: done.new_json,
                        source: DiffSource::Whole(before),
                        replacements: done.replacements,
                        stage: done.stage,
                        stages: Vec::new(),
                        anchored: false,
                        cell: Some(done.summary),
                    };
                    (planned, None)
                }
                (None, Some(choice)) => {
                    let decoded = encoding::decode_for_edit(request.path, &checked.bytes, choice)?;
                    let planned = plan(&request, decoded.text.clone().into_bytes(), &budget)?;
                    let bytes =
                        encoding::encode(&planned.new_content, decoded.encoding, decoded.bom)
                            .map_err(|e| format!("Cannot edit {}: {e}", request.path))?;
                    (planned, Some(bytes))
                }
                (None, None) => {
                    let hint = std::str::from_utf8(&checked.bytes)
                        .is_err()
                        .then(|| not_text_hint(request.path, &checked.bytes));
                    let planned = plan(&request, checked.bytes, &budget)
                        .map_err(|e| e + hint.as_deref().unwrap_or(""))?;
                    (planned, None)
                }
            };
            write(
                &request,
                ctx,
                &checked.abs,
                checked.lock,
                &planned.new_content,
                bytes.as_deref(),
            )
            .await?;
            Ok::<_, String>(answer(&request, ctx, planned))
        };
        outcome.await.unwrap_or_else(ToolResult::failure)
    }
}

/// A file whose magic number names a binary format (an image, a PDF, a
/// database, an archive) is not edited as text, in any encoding: its bytes
/// may well decode, and the rewrite would destroy it.
fn refuse_binary(path: &str, bytes: &[u8]) -> Result<(), String> {
    use crate::tools::files::sniff::{FileKind, sniff};
    let what = match sniff(path, bytes) {
        FileKind::Image(mime) => format!("an image ({mime})"),
        FileKind::Pdf => "a PDF".to_string(),
        FileKind::Binary(name) => name.to_string(),
        FileKind::Text | FileKind::Notebook => return Ok(()),
    };
    Err(format!(
        "{path} is {what}; edit changes text files only, and never rewrites a binary file."
    ))
}

/// What follows the refusal of a file that is not UTF-8: what it is, when its
/// magic number says (an image, a database: no encoding makes it text), or
/// the encoding it likely is and the flag that edits it.
fn not_text_hint(path: &str, bytes: &[u8]) -> String {
    use crate::tools::files::sniff::{FileKind, sniff};
    match sniff(path, bytes) {
        FileKind::Image(mime) => format!(" It is an image ({mime}); edit changes text files only."),
        FileKind::Pdf => " It is a PDF; edit changes text files only.".into(),
        FileKind::Binary(name) => format!(" It is {name}; edit changes text files only."),
        FileKind::Text | FileKind::Notebook => encoding::hint(bytes),
    }
}

/// What an `edit` call asks for, read and checked from its input.
struct Request<'a> {
    path: &'a str,
    /// `(oldText, newText, replaceAll)`, one or the `edits` list.
    edits: Vec<(String, String, bool)>,
    /// `expectSha256`, lower-case.
    expect: Option<String>,
    /// The file's encoding, when it is not UTF-8.
    encoding: Option<encoding::Choice>,
    /// A notebook's cell and what to do there.
    cell: Option<(String, notebook::CellOp)>,
}

/// Parse: the input's fields, each wrong one named.
fn parse(input: &Value) -> Result<Request<'_>, String> {
    let args = Args::new(META.name, input)?;
    let path = args.required_str("path")?;
    // A strict-mode caller (OpenAI's strict function schemas make every key
    // required and none nullable) must fill the keys it does not mean: an empty
    // `edits` beside oldText, an empty `expectSha256`, and an empty
    // oldText/newText pair beside `edits` count as not given. (An empty `edits`
    // alone is still refused by its name.)
    let filler =
        |e: &&Value| e.as_array().is_some_and(Vec::is_empty) && args.get("oldText").is_some();
    let cell_action = args.opt_filled_str("cellAction")?;
    let edits = match args.get("edits").filter(|e| !filler(e)) {
        None | Some(Value::Null) if matches!(cell_action, Some("insert" | "delete")) => {
            let new = args.opt_str("newText")?.unwrap_or("");
            if cell_action == Some("insert") && args.get("newText").is_none() {
                return Err("Missing \"newText\": expected the new cell's source.".into());
            }
            vec![(String::new(), new.to_string(), false)]
        }
        None | Some(Value::Null) => {
            let old = args
                .opt_str("oldText")?
                .ok_or("Missing \"oldText\": expected the text to replace.")?;
            let new = args
                .opt_str("newText")?
                .ok_or("Missing \"newText\": expected the replacement text (it may be empty).")?;
            let replace_all = args.opt_bool("replaceAll")?.unwrap_or(false);
            vec![(old.to_string(), new.to_string(), replace_all)]
        }
        Some(list) => {
            let unmeant = |key| args.get(key).is_none_or(|v| v.as_str() == Some(""));
            if !unmeant("oldText") || !unmeant("newText") {
                return Err("Give \"edits\" or \"oldText\"/\"newText\", not both.".into());
            }
            parse_edits(list)?
        }
    };
    let expect = match args.opt_filled_str("expectSha256")? {
        Some(h) if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Some(h.to_ascii_lowercase())
        }
        Some(h) => {
            return Err(crate::kernel::input::invalid(
                "expectSha256",
                "64 hexadecimal characters",
                &Value::String(h.to_string()),
            ));
        }
        None => None,
    };
    let encoding = encoding::parse_choice(args.opt_str("encoding")?)?;
    let cell = match args.opt_filled_str("cell")? {
        None => {
            // "replace" is the default a strict caller fills in; the others
            // act on a cell.
            if matches!(
                args.opt_filled_str("cellAction")?,
                Some("insert" | "delete")
            ) {
                return Err("cellAction needs cell: the id or number of the notebook cell.".into());
            }
            None
        }
        Some(key) => {
            let op = match args.opt_enum("cellAction", &["replace", "insert", "delete"])? {
                None | Some("replace") => notebook::CellOp::Replace,
                Some("delete") => notebook::CellOp::Delete,
                Some(_) => notebook::CellOp::Insert {
                    cell_type: args
                        .opt_enum("cellType", &["code", "markdown", "raw"])?
                        .unwrap_or("code")
                        .to_string(),
                },
            };
            if encoding.is_some() {
                return Err("A notebook is UTF-8 JSON: give cell or encoding, not both.".into());
            }
            Some((key.to_string(), op))
        }
    };
    Ok(Request {
        path,
        edits,
        expect,
        encoding,
        cell,
    })
}

/// The file, checked and read: its path, the lock held until the write is
/// recorded, and its bytes.
struct Checked {
    abs: String,
    lock: FileLock,
    bytes: Vec<u8>,
}

/// Check: the path admitted by the root, a regular file, read before (the
/// gate), locked, at most [`EDIT_MAX_BYTES`], and the content expected.
async fn check(request: &Request<'_>, ctx: &ToolContext) -> Result<Checked, String> {
    let path = request.path;
    let abs = ctx.confine_write(path)?;
    match ctx.fs.stat(&abs).await {
        Ok(info) if info.is_directory => {
            return Err(format!("{path} is a directory; edit needs a file."));
        }
        Ok(info) if !info.is_file => {
            return Err(format!(
                "{}; edit changes regular files only.",
                crate::tools::not_regular(path, &info)
            ));
        }
        Ok(_) => {}
        Err(e) => {
            return Err(format!(
                "Cannot edit {path}: {e}",
                path = crate::kernel::text::inert(path)
            ));
        }
    }
    // What the file is, before the gate: a binary file's refusal is the true
    // one, read or not.
    if let Ok((head, _)) = ctx
        .fs
        .read_range(&abs, 0, crate::tools::files::sniff::SNIFF_BYTES)
        .await
    {
        refuse_binary(path, &head)?;
    }
    let handle = get_read_state_handle(ctx);
    if let GateOutcome::Refused(message) = enforce_read_gate(ctx, &abs, handle).await {
        return Err(message);
    }
    // Held until the new content is renamed in and its read-state recorded: a
    // concurrent edit or write of this file waits its turn instead of undoing
    // ours, and the gate records our write, not a later one.
    let lock = ctx
        .fs
        .lock_file(&abs, crate::kernel::backends::FILE_LOCK_WAIT)
        .await
        .map_err(|e| {
            format!(
                "Cannot edit {path}: {e}",
                path = crate::kernel::text::inert(path)
            )
        })?;
    // One byte past the limit tells an over-long file without reading it all.
    let bytes = match ctx.fs.read_range(&abs, 0, EDIT_MAX_BYTES + 1).await {
        Ok((b, _)) if b.len() <= EDIT_MAX_BYTES => b,
        Ok((_, len)) => {
            return Err(format!(
                "{path} is {len} bytes; edit changes files of up to {EDIT_MAX_BYTES} bytes (128 MiB). Use bash (sed, a script) for larger files."
            ));
        }
        Err(e) => {
            return Err(format!(
                "Cannot edit {path}: {e}",
                path = crate::kernel::text::inert(path)
            ));
        }
    };
    if let Some(expected) = &request.expect {
        let actual = sha256_hex(&bytes);
        if actual != *expected {
            return Err(format!(
                "{path} has changed: its SHA-256 is {actual}, not the expected {expected}. Read it again before editing."
            ));
        }
    }
    Ok(Checked { abs, lock, bytes })
}

/// What the engine planned: the new content, what its diff is rendered from,
/// and what the answer reports.
struct Planned {
    new_content: String,
    source: DiffSource,
    replacements: usize,
    stage: matching::MatchStage,
    stages: Vec<matching::MatchStage>,
    anchored: bool,
    /// What a notebook edit did (`in cell 3`, `deleted cell 2`).
    cell: Option<String>,
}

/// Plan: decode the bytes and place every edit with the match engine, its
/// fuzzy stages within the call's `budget` (the call's token stops them).
fn plan(
    request: &Request<'_>,
    bytes: Vec<u8>,
    budget: &matching::Budget,
) -> Result<Planned, String> {
    let path = request.path;
    // Memory: the file's buffer becomes the text matched (no copy for a file
    // without BOM or CRLF). One replacement in such a file is made in that
    // buffer and its diff rendered from excerpts, so the edit holds one copy of
    // the file; otherwise the new text is a second one.
    let decoded = matching::decode_vec(bytes).map_err(|e| e.message(path))?;
    let plan = matching::plan_edits_within(&decoded.text, &request.edits, budget)
        .map_err(|e| e.message(path))?;
    let (replacements, stage, anchored) = (plan.splices.len(), plan.stage, plan.anchored);
    let stages = plan.stages;
    let mut splices = plan.splices;
    let in_place = !decoded.bom && !decoded.crlf && splices.len() == 1;
    let (new_content, source) = if let Some(splice) = in_place.then(|| splices.pop()).flatten() {
        let mut text = decoded.text;
        let removed = text[splice.start..splice.end].to_string();
        text.replace_range(splice.start..splice.end, &splice.text);
        let inserted = splice.text.len();
        (text, DiffSource::Splice(splice.start, removed, inserted))
    } else {
        let new_text = matching::splice_text(&decoded.text, &splices);
        let new_content =
            String::from_utf8(matching::encode_owned(&decoded, new_text)).map_err(|_| {
                format!(
                    "Cannot edit {path}: the result is not valid UTF-8.",
                    path = crate::kernel::text::inert(path)
                )
            })?;
        (new_content, DiffSource::Whole(decoded))
    };
    Ok(Planned {
        new_content,
        source,
        replacements,
        stage,
        stages,
        anchored,
        cell: None,
    })
}

/// Write: the new content in place of the old (atomically, by the backend), the
/// read-state recorded, then the lock let go.
async fn write(
    request: &Request<'_>,
    ctx: &ToolContext,
    abs: &str,
    lock: FileLock,
    new_content: &str,
    encoded: Option<&[u8]>,
) -> Result<(), String> {
    let path = request.path;
    if ctx.cancel.is_cancelled() {
        return Err("edit was cancelled before anything was written.".into());
    }
    let written = match encoded {
        Some(bytes) => ctx.fs.write_bytes(abs, bytes).await,
        None => ctx.fs.write_file(abs, new_content).await,
    };
    written.map_err(|e| {
        format!(
            "Cannot write {path}: {e}",
            path = crate::kernel::text::inert(path)
        )
    })?;
    let handle = get_read_state_handle(ctx);
    record_read_state(ctx, abs, handle, None)
        .await
        .map_err(|e| format!("Edited {path}, but its read-state could not be recorded: {e}"))?;
    drop(lock);
    Ok(())
}

/// Answer: the summary and the diff for people, the record for programs.
fn answer(request: &Request<'_>, ctx: &ToolContext, planned: Planned) -> ToolResult {
    let path = request.path;
    let Planned {
        new_content,
        source,
        replacements,
        stage,
        stages,
        anchored,
        cell,
    } = planned;
    let (old_name, new_name) = (format!("a/{path}"), format!("b/{path}"));
    let diff = match source {
        DiffSource::Splice(at, removed, inserted) => render_splice_diff(
            &new_content,
            at,
            &removed,
            inserted,
            DEFAULT_CONTEXT,
            (&old_name, &new_name),
        ),
        DiffSource::Whole(decoded) => {
            // The diff shows the file's own bytes: its BOM and CRLF endings.
            let before = if decoded.bom || decoded.crlf {
                std::borrow::Cow::Owned(matching::encode(&decoded, &decoded.text))
            } else {
                std::borrow::Cow::Borrowed(decoded.text.as_bytes())
            };
            render_unified_diff_with_headers(
                &String::from_utf8_lossy(&before),
                &new_content,
                DEFAULT_CONTEXT,
                &old_name,
                &new_name,
            )
        }
    };
    let diff = clamp(
        &diff,
        &OutputBudget::with_notice(
            ClipEnd::Middle,
            DIFF_MAX_BYTES.min(ctx.budget.max_bytes),
            |n| tool_notice("edit", n),
        ),
    );
    let several = request.edits.len() > 1;
    let mut summary = format!(
        "Edited {path}: {}.",
        plural(replacements as u64, "replacement", "replacements")
    );
    if several {
        summary.pop();
        summary.push_str(&format!(" in {} edits.", request.edits.len()));
        for (i, st) in stages.iter().enumerate() {
            if let Some(sentence) = st.summary() {
                summary.push_str(&format!(" Edit {}: {sentence}", i + 1));
            }
        }
    } else if let Some(sentence) = stage.summary() {
        summary.push(' ');
        summary.push_str(sentence);
    }
    match &cell {
        Some(cell) if cell.starts_with("in cell") => {
            summary.pop();
            summary.push_str(&format!(" ({cell})."));
        }
        Some(cell) => summary = format!("Edited {path}: {cell}."),
        None => {}
    }
    if anchored {
        summary.push_str(" oldText starts at a line's indentation, so newText was written as whole lines at that indentation.");
    }
    // People read the summary and the diff as a diff; programs read the record.
    let mut text = summary;
    if !diff.is_empty() {
        text.push_str("\n\n");
        text.push_str(diff.trim_end_matches('\n'));
    }
    let record = if several {
        json!({
            "path": path,
            "replacements": replacements,
            "match": stage.name(),
            "matches": stages.iter().map(|s| s.name()).collect::<Vec<_>>(),
            "diff": diff,
        })
    } else {
        json!({
            "path": path,
            "replacements": replacements,
            "match": stage.name(),
            "diff": diff,
        })
    };
    ToolResult {
        content: vec![ToolContentBlock::Text(text), ToolContentBlock::Json(record)],
        is_error: false,
    }
}

/// How a wrong `edits` is refused.
const EDITS_EXPECTED: &str = "an array of {oldText, newText, replaceAll?} objects";

/// The `edits` list: each item `{oldText, newText, replaceAll?}`, named by its
/// index in errors (`edits[1].oldText`).
fn parse_edits(list: &Value) -> Result<Vec<(String, String, bool)>, String> {
    use crate::kernel::input::invalid;
    let Value::Array(items) = list else {
        return Err(invalid("edits", EDITS_EXPECTED, list));
    };
    if items.is_empty() {
        return Err(invalid("edits", "at least one edit", list));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Value::Object(map) = item else {
            return Err(invalid(
                &format!("edits[{i}]"),
                "an object {oldText, newText, replaceAll?}",
                item,
            ));
        };
        let text = |key: &str| -> Result<String, String> {
            match map.get(key) {
                Some(Value::String(s)) => Ok(s.clone()),
                Some(other) => Err(invalid(&format!("edits[{i}].{key}"), "a string", other)),
                None => Err(format!("Missing \"edits[{i}].{key}\": expected a string.")),
            }
        };
        let replace_all = match map.get("replaceAll") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(invalid(
                    &format!("edits[{i}].replaceAll"),
                    "true or false",
                    other,
                ));
            }
        };
        if let Some(key) = map
            .keys()
            .find(|k| !matches!(k.as_str(), "oldText" | "newText" | "replaceAll"))
        {
            return Err(format!(
                "Unknown key \"edits[{i}].{key}\": an edit has oldText, newText and replaceAll."
            ));
        }
        out.push((text("oldText")?, text("newText")?, replace_all));
    }
    Ok(out)
}

/// The `edit` tool.
pub fn edit_tool() -> DefinedTool {
    define_tool(Arc::new(EditTool))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a strict-mode model must send (every key, none null) is the call it
    /// means, in both forms; anything more than empty fillers is still refused.
    #[test]
    fn a_strict_callers_fillers_count_as_not_given() {
        let single = serde_json::json!({"path": "a", "oldText": "x", "newText": "y",
            "replaceAll": false, "edits": [], "expectSha256": ""});
        let r = parse(&single).unwrap();
        assert_eq!(r.edits, [("x".to_string(), "y".to_string(), false)]);
        assert_eq!(r.expect, None);
        let many = serde_json::json!({"path": "a", "oldText": "", "newText": "",
            "replaceAll": false, "edits": [{"oldText": "p", "newText": "q", "replaceAll": true}],
            "expectSha256": ""});
        assert_eq!(
            parse(&many).unwrap().edits,
            [("p".to_string(), "q".to_string(), true)]
        );
        let both = serde_json::json!({"path": "a", "oldText": "x", "newText": "",
            "edits": [{"oldText": "p", "newText": "q"}]});
        assert_eq!(
            parse(&both).err().unwrap(),
            "Give \"edits\" or \"oldText\"/\"newText\", not both."
        );
        let bad =
            serde_json::json!({"path": "a", "oldText": "x", "newText": "y", "expectSha256": "abc"});
        assert!(parse(&bad).err().unwrap().contains("expectSha256"));
    }

    #[test]
    fn sha256_is_lower_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
