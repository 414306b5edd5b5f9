//! `apply_patch`: change several files at once from a codex envelope or a
//! unified diff, all or nothing.
//!
//! This module is the tool's I/O and policy: reading the patch (`patch_parse`),
//! the paths under `--root`, the per-file locks `edit` takes, the read-before-edit
//! gate, decoding each file as `edit` does (BOM and CRLF kept, UTF-8 required),
//! and the answer. Where each hunk goes is the match engine's (`matching::
//! plan_hunks`, the ladder `edit` climbs), and the write of every file at once is
//! the state folder's journal (`state::patches`): nothing is written until every
//! hunk of every file has its place and every new content is built, and an
//! interrupted write is undone by the next invocation.

use crate::kernel::fields::{Field, Kind as FieldKind};
use crate::kernel::{Checkpoint, Effect, ToolMeta};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::kernel::input::Args;
use crate::kernel::output::Clamp;
use crate::kernel::text::plural;
use crate::kernel::{DefinedTool, FileLock, Tool, ToolContext, ToolResult, define_tool};
use crate::state::StateDir;
use crate::state::patches::{self, Change};
use crate::tools::files::diff::{
    DEFAULT_CONTEXT, render_unified_diff_with_headers, rendered_counts,
};
use crate::tools::files::edit::EDIT_MAX_BYTES;
use crate::tools::files::gate::{
    GateOutcome, enforce_read_gate, get_read_state_handle, record_read_state,
};
use crate::tools::files::matching::{self, Decoded, HunkPlaced, HunkSpec, MatchStage};
use crate::tools::files::patch_parse::{self, FileOp, Format, Kind, Patch};
use crate::tools::{clamp_owned_for, text_and_record, tool_budget};

struct ApplyPatchTool;

/// A file as the plan sees it: what it holds now (the disk, or an earlier
/// operation of the same patch).
#[derive(Clone)]
enum Slot {
    Absent,
    File { bytes: Vec<u8>, mode: Option<u32> },
}

/// One operation's outcome, for the answer.
struct Row {
    status: &'static str,
    path: String,
    from: Option<String>,
    added: usize,
    removed: usize,
    hunks: Vec<HunkPlaced>,
}

/// The `apply_patch` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    effect: Effect::Writes { idempotent: false },
    checkpoint: Checkpoint::ByPatch,
    heavy: true,
    fields: FIELDS,
    description: "Apply a patch to files, all or nothing: codex's envelope (*** Begin Patch, *** Update File: PATH, @@, -old/+new lines, *** End Patch; also Add File, Delete File, Move to) or a unified diff. Ambiguous hunks are refused.",
    output: Some(include_str!("apply_patch.output.json")),
    ..ToolMeta::new(
        "apply_patch",
        "Apply patch",
        "Apply a multi-file patch (codex envelope or unified diff), all or nothing.",
    )
};

/// `apply_patch`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("patch", FieldKind::Name, "Patch text."),
    Field::new("check", FieldKind::Bool, "Only test whether it applies."),
    Field::new(
        "reverse",
        FieldKind::Bool,
        "Apply a unified diff backwards.",
    ),
    crate::tools::code::diagnose::DIAGNOSE_FIELD,
];

#[async_trait]
impl Tool for ApplyPatchTool {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        // Every spelling of every path the patch names: those it changed are
        // diagnosed, the others are passed over.
        let mut paths = Vec::new();
        if let Some(patch) = input["patch"]
            .as_str()
            .and_then(|t| patch_parse::parse(t).ok())
        {
            for f in &patch.files {
                paths.extend(f.op.paths().iter().map(|p| p.to_string()));
                if f.prefixed {
                    paths.extend(f.stripped().paths().iter().map(|p| p.to_string()));
                }
            }
        }
        let change = self.run_plain(&input, ctx);
        crate::tools::code::diagnose::around_change(ctx, &input, paths, change).await
    }
}

impl ApplyPatchTool {
    async fn run_plain(&self, input: &Value, ctx: &ToolContext) -> ToolResult {
        let args = Args::checked(input);
        let parsed = (|| -> Result<_, String> {
            let patch = args.required_str("patch")?;
            let check = args.opt_bool("check")?.unwrap_or(false);
            let reverse = args.opt_bool("reverse")?.unwrap_or(false);
            Ok((patch, check, reverse))
        })();
        let (text, check, reverse) = match parsed {
            Ok(p) => p,
            Err(e) => return ToolResult::failure(e),
        };
        if let Some(target) = &ctx.remote {
            return ToolResult::failure(format!(
                "apply_patch needs indus-tool itself on {target} (its all-or-nothing journal lives beside the files); copy the toolbox there or run it locally."
            ));
        }
        let patch = match patch_parse::parse(text).and_then(|p| {
            if reverse {
                patch_parse::reverse(p)
            } else {
                Ok(p)
            }
        }) {
            Ok(p) => p,
            Err(e) => {
                return ToolResult::failure(format!(
                    "Cannot read the patch: {e}. Nothing was changed."
                ));
            }
        };
        let patch = resolve_prefixes(ctx, patch).await;
        let state = StateDir::of(ctx);
        // An apply that an earlier invocation left half done is finished (or
        // undone) before this one looks at any file.
        let recovered = match patches::recover(&state, ctx.root.as_deref()) {
            Ok(r) => r,
            Err(e) => {
                return ToolResult::failure(format!(
                    "An interrupted earlier apply_patch could not be undone: {e}. Nothing was changed."
                ));
            }
        };
        match apply(ctx, &state, &patch, check).await {
            Ok((rows, summary, diff)) => answer(ctx, &patch, rows, summary, diff, check, recovered),
            Err(message) => ToolResult::failure(message),
        }
    }
}

/// A plain diff's `a/`/`b/` paths taken as given when they name files here,
/// else without their first component when those do (see
/// [`patch_parse::FilePatch::prefixed`]).
async fn resolve_prefixes(ctx: &ToolContext, mut patch: Patch) -> Patch {
    for f in patch.files.iter_mut().filter(|f| f.prefixed) {
        let stripped = f.stripped();
        let exists = |p: &str| {
            let abs = ctx.resolve_path(p);
            async move { ctx.fs.stat(&abs).await.is_ok() }
        };
        let (given, bare) = match (&f.op, &stripped) {
            // A new file: by whether its folder `b/` is here.
            (FileOp::Add { path, .. }, _) => {
                let top = path.split('/').next().unwrap_or_default().to_string();
                (exists(&top).await, true)
            }
            (op, bare) => (exists(op.path()).await, exists(bare.path()).await),
        };
        if !given && bare {
            f.op = stripped;
        }
    }
    patch
}

/// Plan every operation, then (unless `check`) write them all at once.
async fn apply(
    ctx: &ToolContext,
    state: &StateDir,
    patch: &Patch,
    check: bool,
) -> Result<(Vec<Row>, String, String), String> {
    let (abs_of, locks) = resolve_and_lock(ctx, patch, check).await?;
    let handle = get_read_state_handle(ctx);
    let mut slots: BTreeMap<String, Slot> = BTreeMap::new();
    let mut rows = Vec::new();
    // The combined diff, clamped to the output budget as each file's is made.
    let mut joined = Clamp::new(tool_budget(ctx, "apply_patch"));
    let mut failures: Vec<String> = Vec::new();
    // One work budget for the fuzzy matching of every hunk of every file.
    let budget = matching::Budget::for_call(ctx.cancel.clone());
    let planning = Planning {
        ctx,
        handle,
        abs_of: &abs_of,
    };
    let (mut total_added, mut total_removed) = (0usize, 0usize);
    for f in &patch.files {
        let path = f.op.path();
        let abs = &abs_of[path];
        let vouched = vouched_by_patch(&f.op);
        let before = match load(ctx, &mut slots, abs, path).await {
            Ok(s) => s,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let exists = matches!(before, Slot::File { .. });
        if exists
            && !vouched
            && let GateOutcome::Refused(m) = enforce_read_gate(ctx, abs, handle).await
        {
            failures.push(format!("{path}: {m}"));
            continue;
        }
        let planned = match &f.op {
            FileOp::Add { content, mode, .. } => Ok(plan_add(&before, content, *mode, path, abs)),
            FileOp::Delete { content, .. } => plan_delete(&before, content.as_deref(), path, abs),
            FileOp::Update {
                move_to,
                hunks,
                new_mode,
                ..
            } => {
                let text = updated(&before, path, hunks, patch.format, &budget);
                match text {
                    Ok(text) => {
                        let moved = move_to.as_deref();
                        planning
                            .update(&mut slots, path, text, moved, *new_mode)
                            .await
                    }
                    Err(why) => Err(why),
                }
            }
        };
        let planned = match planned {
            Ok(p) => p,
            Err(why) => {
                failures.extend(why);
                continue;
            }
        };
        joined.push(planned.diff);
        for (abs, slot) in planned.slots {
            slots.insert(abs, slot);
        }
        rows.push(planned.row);
        if let Some(r) = rows.last() {
            total_added += r.added;
            total_removed += r.removed;
        }
    }
    if !failures.is_empty() {
        return Err(format!(
            "The patch was not applied; nothing was changed. {} failed:\n{}",
            plural(failures.len() as u64, "part", "parts"),
            failures.join("\n")
        ));
    }
    let summary = format!(
        "{}, +{total_added} -{total_removed}",
        plural(rows.len() as u64, "file", "files")
    );
    if check {
        return Ok((rows, summary, joined.finish()));
    }
    write_all(ctx, state, slots, handle).await?;
    drop(locks);
    Ok((rows, summary, joined.finish()))
}

/// What the patch's own lines vouch for: context or removed lines the file
/// must hold, or a deleted file's stated content. Anything else changes a
/// file the session must have read.
fn vouched_by_patch(op: &FileOp) -> bool {
    match op {
        FileOp::Update { hunks, .. } => hunks.iter().any(|h| h.has_old()),
        FileOp::Delete { content, .. } => content.is_some(),
        FileOp::Add { .. } => false,
    }
}

/// One operation planned: its diff for the answer, the paths it sets (in
/// order) and its row. Nothing is recorded until the operation has passed every
/// check, so a failed one leaves no trace in the plan.
struct Planned {
    diff: String,
    slots: Vec<(String, Slot)>,
    row: Row,
}

/// What every operation of one apply reads, beside the file it changes. (The
/// work budget is not among them: it is not `Sync`, and this is held across
/// awaits.)
struct Planning<'p> {
    ctx: &'p ToolContext,
    handle: Option<&'p Arc<dyn crate::kernel::ReadStateHandle>>,
    abs_of: &'p BTreeMap<String, String>,
}

/// An updated file's new text, before any await: what it held, its mode, the
/// text after every hunk and where each went.
struct Updated<'b> {
    bytes: &'b [u8],
    mode: Option<u32>,
    new_text: String,
    placed: Vec<HunkPlaced>,
}

/// An updated file must exist and take every hunk; apart from the move's checks
/// because the matching spends the call's budget, which no await may hold.
fn updated<'b>(
    before: &'b Slot,
    path: &str,
    hunks: &[patch_parse::Hunk],
    format: Format,
    budget: &matching::Budget,
) -> Result<Updated<'b>, Vec<String>> {
    let Slot::File { bytes, mode } = before else {
        return Err(vec![format!(
            "{path}: the patch updates it, but it does not exist."
        )]);
    };
    let (new_text, placed) = updated_text(path, bytes, hunks, format, budget)?;
    Ok(Updated {
        bytes,
        mode: *mode,
        new_text,
        placed,
    })
}

/// An added file always plans: whatever was there (read, as the gate checked)
/// is replaced, as codex and `patch` do.
fn plan_add(before: &Slot, content: &str, mode: Option<u32>, path: &str, abs: &str) -> Planned {
    let exists = matches!(before, Slot::File { .. });
    let old_text = match before {
        Slot::File { bytes, .. } => String::from_utf8_lossy(bytes),
        Slot::Absent => std::borrow::Cow::Borrowed(""),
    };
    let diff = file_diff(&old_text, content, path, path, !exists, false);
    let (added, removed) = rendered_counts(&diff);
    Planned {
        diff,
        slots: vec![(
            abs.to_string(),
            Slot::File {
                bytes: content.to_string().into_bytes(),
                mode,
            },
        )],
        row: Row {
            status: if exists { "replaced" } else { "added" },
            path: path.to_string(),
            from: None,
            added,
            removed,
            hunks: Vec::new(),
        },
    }
}

/// A deleted file must exist, decode, and hold what a unified diff says it
/// holds: a file changed since the patch was made is not deleted blind.
fn plan_delete(
    before: &Slot,
    content: Option<&str>,
    path: &str,
    abs: &str,
) -> Result<Planned, Vec<String>> {
    let Slot::File { bytes, .. } = before else {
        return Err(vec![format!(
            "{path}: the patch deletes it, but it does not exist."
        )]);
    };
    let decoded = matching::decode(bytes).map_err(|e| vec![e.message(path)])?;
    if let Some(stated) = content
        && !same_text(&decoded, stated)
    {
        return Err(vec![format!(
            "{path}: the patch deletes it, but it does not hold what the patch says it holds (it changed since the patch was made)."
        )]);
    }
    let old_text = String::from_utf8_lossy(bytes);
    let diff = file_diff(&old_text, "", path, path, false, true);
    let (added, removed) = rendered_counts(&diff);
    Ok(Planned {
        diff,
        slots: vec![(abs.to_string(), Slot::Absent)],
        row: Row {
            status: "deleted",
            path: path.to_string(),
            from: None,
            added,
            removed,
            hunks: Vec::new(),
        },
    })
}

impl Planning<'_> {
    /// An updated file's plan: a move's target, when it exists, must have been
    /// read like any file the patch overwrites.
    async fn update(
        &self,
        slots: &mut BTreeMap<String, Slot>,
        path: &str,
        updated: Updated<'_>,
        move_to: Option<&str>,
        new_mode: Option<u32>,
    ) -> Result<Planned, Vec<String>> {
        let Updated {
            bytes,
            mode,
            new_text,
            placed,
        } = updated;
        let abs = &self.abs_of[path];
        let target = move_to.unwrap_or(path);
        let target_abs = self.abs_of[target].clone();
        if let Some(to) = move_to {
            match load(self.ctx, slots, &target_abs, to).await {
                Ok(Slot::File { .. }) => {
                    if let GateOutcome::Refused(m) =
                        enforce_read_gate(self.ctx, &target_abs, self.handle).await
                    {
                        return Err(vec![format!("{to}: {m}")]);
                    }
                }
                Ok(Slot::Absent) => {}
                Err(e) => return Err(vec![e]),
            }
        }
        let old_text = String::from_utf8_lossy(bytes);
        let diff = file_diff(&old_text, &new_text, path, target, false, false);
        let (added, removed) = rendered_counts(&diff);
        let mode = new_mode.or(mode).or_else(|| {
            use std::os::unix::fs::PermissionsExt;
            move_to.as_ref()?;
            std::fs::metadata(abs)
                .ok()
                .map(|m| m.permissions().mode() & 0o7777)
        });
        let mut planned_slots = Vec::new();
        if move_to.is_some() {
            planned_slots.push((abs.clone(), Slot::Absent));
        }
        planned_slots.push((
            target_abs,
            Slot::File {
                bytes: new_text.into_bytes(),
                mode,
            },
        ));
        Ok(Planned {
            diff,
            slots: planned_slots,
            row: Row {
                status: if move_to.is_some() {
                    "renamed"
                } else {
                    "modified"
                },
                path: target.to_string(),
                from: move_to.as_ref().map(|_| path.to_string()),
                added,
                removed,
                hunks: placed,
            },
        })
    }
}

/// Every path of `patch` resolved under the root once, and (unless `check`)
/// every file locked, in one order so that two patches cannot deadlock.
async fn resolve_and_lock(
    ctx: &ToolContext,
    patch: &Patch,
    check: bool,
) -> Result<(BTreeMap<String, String>, Vec<FileLock>), String> {
    let mut abs_of: BTreeMap<String, String> = BTreeMap::new();
    for f in &patch.files {
        for p in f.op.paths() {
            let abs = ctx
                .confine_write(p)
                .map_err(|e| format!("{e} Nothing was changed."))?;
            abs_of.insert(p.to_string(), abs);
        }
    }
    let mut locks: Vec<FileLock> = Vec::new();
    let mut lock_paths: Vec<&String> = abs_of.values().collect();
    lock_paths.sort();
    lock_paths.dedup();
    if !check {
        for abs in lock_paths {
            let lock = ctx
                .fs
                .lock_file(abs, crate::kernel::backends::FILE_LOCK_WAIT)
                .await
                .map_err(|e| {
                    format!(
                        "Cannot lock {abs}: {e}. Nothing was changed.",
                        abs = crate::kernel::text::inert(abs)
                    )
                })?;
            locks.push(lock);
        }
    }
    Ok((abs_of, locks))
}

/// An updated file's new text, and where each hunk went: the file decoded,
/// its hunks placed by the match engine within the call's `budget`, the
/// result encoded back. `Err`: each part that failed, worded for the answer.
fn updated_text(
    path: &str,
    bytes: &[u8],
    hunks: &[super::patch_parse::Hunk],
    format: Format,
    budget: &matching::Budget,
) -> Result<(String, Vec<HunkPlaced>), Vec<String>> {
    let mut decoded = matching::decode(bytes).map_err(|e| vec![e.message(path)])?;
    // A diff of a CRLF file carries a `\r` on every line; one whose
    // lines only sometimes do changes the line endings themselves,
    // and is matched against the file's very bytes.
    let with_cr = |t: &str| t.ends_with('\r');
    let some_cr = hunks.iter().any(|h| h.lines().any(|(_, t)| with_cr(t)));
    let all_cr = hunks.iter().all(|h| h.lines().all(|(_, t)| with_cr(t)));
    let keep_cr = some_cr && !(decoded.crlf && all_cr);
    if keep_cr && decoded.crlf {
        decoded.text = decoded.text.replace('\n', "\r\n");
        decoded.crlf = false;
    }
    let specs: Vec<HunkSpec> = hunks.iter().map(|h| spec(h, &decoded, format)).collect();
    let plan =
        matching::plan_hunks_within(&decoded.text, &specs, keep_cr, budget).map_err(|fails| {
            fails
                .into_iter()
                .map(|(i, f)| format!("{path}: {}", f.message(path, i + 1)))
                .collect::<Vec<_>>()
        })?;
    let new_bytes = matching::encode_owned(&decoded, plan.text);
    let new_text = String::from_utf8(new_bytes)
        .map_err(|_| vec![format!("{path}: the result is not valid UTF-8.")])?;
    Ok((new_text, plan.placed))
}

/// The final state of each path the patch touched, written all at once
/// through the patch journal; the files written are then recorded as read.
async fn write_all(
    ctx: &ToolContext,
    state: &StateDir,
    slots: BTreeMap<String, Slot>,
    handle: Option<&Arc<dyn crate::kernel::ReadStateHandle>>,
) -> Result<(), String> {
    let written: Vec<String> = slots
        .iter()
        .filter(|(_, s)| matches!(s, Slot::File { .. }))
        .map(|(abs, _)| abs.clone())
        .collect();
    let mut changes = Vec::with_capacity(slots.len());
    for (abs, slot) in slots {
        changes.push(match slot {
            Slot::Absent => Change {
                // A link deleted is the link, not what it points at.
                path: PathBuf::from(abs),
                content: None,
                mode: None,
            },
            Slot::File { bytes, mode } => Change {
                path: crate::sys::write_target(std::path::Path::new(&abs))
                    .unwrap_or_else(|_| PathBuf::from(&abs)),
                content: Some(bytes),
                mode,
            },
        });
    }
    if ctx.cancel.is_cancelled() {
        return Err("apply_patch was cancelled before anything was written.".to_string());
    }
    patches::apply(state, &changes).map_err(|e| {
        format!("The patch could not be written: {e}. The next invocation undoes what was begun.")
    })?;
    for abs in &written {
        let _ = record_read_state(ctx, abs, handle, None).await;
    }
    Ok(())
}

/// The file at `abs` as the plan sees it, read from disk the first time.
async fn load(
    ctx: &ToolContext,
    slots: &mut BTreeMap<String, Slot>,
    abs: &str,
    path: &str,
) -> Result<Slot, String> {
    if let Some(s) = slots.get(abs) {
        return Ok(s.clone());
    }
    let slot = match ctx.fs.stat(abs).await {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Slot::Absent,
        Err(e) => return Err(format!("{path}: {e}")),
        Ok(info) if info.is_directory => {
            return Err(format!("{path} is a directory, not a file."));
        }
        Ok(info) if info.is_symlink && !info.is_file => Slot::Absent,
        Ok(info) if !info.is_file => return Err(crate::tools::not_regular(path, &info)),
        Ok(_) => {
            let bytes = match ctx.fs.read_range(abs, 0, EDIT_MAX_BYTES + 1).await {
                Ok((b, _)) if b.len() <= EDIT_MAX_BYTES => b,
                Ok((_, len)) => {
                    return Err(format!(
                        "{path} is {len} bytes; apply_patch changes files of up to {EDIT_MAX_BYTES} bytes (128 MiB)."
                    ));
                }
                Err(e) => return Err(format!("{path}: {e}")),
            };
            // The mode is the file's own unless the patch says otherwise (the
            // journal reads it when it writes); a renamed file's is read then.
            Slot::File { bytes, mode: None }
        }
    };
    // Not kept in `slots`: every operation that reads a path puts its own
    // result there, and a failed one fails the whole apply.
    Ok(slot)
}

/// A hunk as the match engine takes it: both sides as whole lines (a CRLF file's
/// `\r`s, which a diff of it carries, taken off as the file's text has them off).
fn spec(h: &patch_parse::Hunk, decoded: &Decoded, format: Format) -> HunkSpec {
    let side = |own: Kind| patch_parse::side_lines(h, own, decoded.crlf);
    // Each new-side line that is context, with its index on the old side.
    let (mut o, mut context) = (0usize, Vec::new());
    for (k, _) in h.lines() {
        match k {
            Kind::Context => {
                context.push(Some(o));
                o += 1;
            }
            Kind::Remove => o += 1,
            Kind::Add => context.push(None),
        }
    }
    HunkSpec {
        context,
        old: side(Kind::Remove),
        new: side(Kind::Add),
        at_line: h.old_start.map(|l| l.saturating_sub(1)),
        anchor: h.anchor.clone(),
        at_end: h.eof,
        // A unified diff says "no newline" outright. An envelope has no way to say
        // it, so a hunk that reaches the end of a file without a final newline
        // leaves it without one: the patch asked for no change there (codex adds
        // one; `git apply` of the same change does not).
        new_no_newline: match format {
            Format::Unified => h.new_no_newline,
            Format::Envelope => !decoded.text.is_empty() && !decoded.text.ends_with('\n'),
        },
    }
}

/// Whether a deleted file holds what the patch says (line endings as the
/// decoded text has them, a missing final newline either way).
fn same_text(decoded: &Decoded, stated: &str) -> bool {
    let stated = stated.replace("\r\n", "\n");
    decoded.text.trim_end_matches('\n') == stated.trim_end_matches('\n')
}

fn file_diff(
    before: &str,
    after: &str,
    from: &str,
    to: &str,
    added: bool,
    deleted: bool,
) -> String {
    let old_name = if added {
        "/dev/null".to_string()
    } else {
        format!("a/{from}")
    };
    let new_name = if deleted {
        "/dev/null".to_string()
    } else {
        format!("b/{to}")
    };
    render_unified_diff_with_headers(before, after, DEFAULT_CONTEXT, &old_name, &new_name)
}

fn answer(
    ctx: &ToolContext,
    patch: &Patch,
    rows: Vec<Row>,
    summary: String,
    shown: String,
    check: bool,
    recovered: usize,
) -> ToolResult {
    let kind = match patch.format {
        Format::Envelope => "envelope",
        Format::Unified => "unified diff",
    };
    let mut text = if check {
        format!("The patch applies ({kind}): {summary}. Nothing was written (check).")
    } else {
        format!("Applied the patch ({kind}): {summary}.")
    };
    if recovered > 0 {
        text.push_str(&format!(
            " (First undid {} an interrupted earlier invocation left half done.)",
            plural(recovered as u64, "apply", "applies"),
        ));
    }
    let mut notes = Vec::new();
    for r in &rows {
        let name = match &r.from {
            Some(from) => format!("{from} -> {}", r.path),
            None => r.path.clone(),
        };
        text.push_str(&format!(
            "\n  {:<9} {name}  +{} -{}",
            r.status, r.added, r.removed
        ));
        for (i, h) in r.hunks.iter().enumerate() {
            let moved = h.offset.filter(|o| *o != 0).map(|o| {
                format!(
                    " (offset {o:+} {})",
                    if o.abs() == 1 { "line" } else { "lines" }
                )
            });
            if moved.is_some() || h.stage != MatchStage::Exact {
                notes.push(format!(
                    "{}: hunk {} at line {}{}; match: {}",
                    r.path,
                    i + 1,
                    h.line,
                    moved.unwrap_or_default(),
                    h.stage.name()
                ));
            }
        }
    }
    for n in &notes {
        text.push('\n');
        text.push_str(n);
    }
    if !shown.is_empty() {
        text.push_str("\n\n");
        text.push_str(shown.trim_end_matches('\n'));
    }
    let files: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut row = json!({
                "path": r.path,
                "status": r.status,
                "added": r.added,
                "removed": r.removed,
            });
            if let Some(from) = &r.from {
                row["from"] = json!(from);
            }
            if !r.hunks.is_empty() {
                row["hunks"] = Value::Array(
                    r.hunks
                        .iter()
                        .map(|h| {
                            let mut v = json!({ "line": h.line, "match": h.stage.name() });
                            if let Some(o) = h.offset {
                                v["offset"] = json!(o);
                            }
                            v
                        })
                        .collect(),
                );
            }
            row
        })
        .collect();
    let mut record = serde_json::Map::new();
    record.insert("format".into(), json!(patch.format.name()));
    record.insert("applied".into(), json!(!check));
    record.insert("diff".into(), Value::String(shown));
    let record = crate::tools::record_with_rows(record, "files", files, ctx.budget.max_bytes);
    text_and_record(clamp_owned_for(ctx, "apply_patch", text), record, false)
}

/// The `apply_patch` tool.
pub fn apply_patch_tool() -> DefinedTool {
    define_tool(Arc::new(ApplyPatchTool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_skip_the_header_only() {
        let diff = file_diff(
            "a\n++ b\nc\n",
            "a\n+++ x\n-- y\nc\n",
            "f",
            "f",
            false,
            false,
        );
        assert_eq!(rendered_counts(&diff), (2, 1), "{diff}");
        let added = file_diff("", "x\ny\n", "n", "n", true, false);
        assert_eq!(rendered_counts(&added), (2, 0), "{added}");
        assert_eq!(rendered_counts(""), (0, 0));
    }
}
