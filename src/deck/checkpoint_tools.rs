//! The checkpoint views (`list`, `diff`, `rewind`) over a session's store
//! (`state::checkpoints`), each answered as a text for people and a record for
//! programs, and the three tools built on them: `checkpoint_list`,
//! `checkpoint_diff` and `checkpoint_rewind`.
//!
//! One code for two faces: the command line's `checkpoint list|diff|rewind`
//! prints these views (text, or the record under `--format json`), and the tools
//! answer them through every face (subcommand, `call`, `batch`, `mcp`), so an
//! agent served over MCP can list its turns, see what one changed and rewind it.
//! They live on the deck's floor because the diff is the `edit` tool's engine
//! (the tools floor) and the store is the state floor's.
//!
//! The tools are not catalog rows: they belong to no profile, and the command
//! line exposes them only when checkpointing is on (`--checkpoint`,
//! `INDUS_CHECKPOINT`, `checkpoint on`), when there is something to list. Each
//! finds its store from the call's context (state folder, session, root), as the
//! command line finds it from its options, so both read the same nodes.
//!
//! Paths are shown relative to the working directory when they lie inside it
//! (the store keeps them absolute).

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::kernel::input::Args;
use crate::kernel::{
    DefinedTool, JsonSchema, Root, Tool, ToolContext, ToolResult, WriteGuard, define_tool,
};
use crate::state::StateDir;
use crate::state::checkpoints::{CheckpointError, CheckpointStore, Image, iso8601_utc};
use crate::tools::files::diff::{DEFAULT_CONTEXT, render_unified_diff_with_headers};

use super::cards::session::session_of;

/// The names of the checkpoint tools, in the order they are listed.
pub const CHECKPOINT_TOOLS: [&str; 3] = ["checkpoint_list", "checkpoint_diff", "checkpoint_rewind"];

/// A view's answer: the text a person reads and the record a program reads.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    pub text: String,
    pub record: Value,
}

/// Where a view reads: the store, the folder paths are shown relative to, and
/// the root (`--root`) a diff and a rewind stay inside.
#[derive(Clone)]
pub struct Scope {
    pub store: CheckpointStore,
    pub cwd: String,
    pub root: Option<Arc<Root>>,
    /// Where a rewind may write (protected paths lifted or not).
    pub writes: Option<Arc<WriteGuard>>,
}

impl Scope {
    /// The scope of a tool's call: the session's store in the context's state
    /// folder, under its root.
    pub fn of(ctx: &ToolContext) -> Self {
        Self {
            store: CheckpointStore::new(StateDir::of(ctx), session_of(ctx))
                .with_root(ctx.root.clone()),
            cwd: ctx.cwd.clone(),
            root: ctx.root.clone(),
            writes: ctx.writes.clone(),
        }
    }

    /// A stored absolute path as the user sees it: relative to the working
    /// directory inside it.
    fn shown(&self, path: &str) -> String {
        match Path::new(path).strip_prefix(&self.cwd) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
            _ => path.to_string(),
        }
    }
}

/// A file of a listed node: `{path, before, size?, sha256?, notKept?}`.
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
        Image::Dir { .. } => json!({"path": path, "before": "folder"}),
        Image::Link { target } => json!({"path": path, "before": "link", "target": target}),
    }
}

/// A listed file's record, with why its node could not tell the change was its
/// own (`uncertain`), when it could not.
fn listed(path: String, f: &crate::state::checkpoints::FileRecord) -> Value {
    let mut v = file_record(path, &f.before);
    if let Some(why) = &f.uncertain {
        v["uncertain"] = Value::from(why.as_str());
    }
    v
}

/// The session's nodes, oldest first, with the files each changed. The record
/// is `{"session", "nodes": [{"node", "createdAt", "files": [...]}]}`.
pub fn list(scope: &Scope, session: &str) -> Result<View, CheckpointError> {
    let index = scope.store.load()?;
    let nodes: Vec<Value> = index
        .nodes
        .iter()
        .map(|n| {
            let files: Vec<Value> = n
                .files
                .iter()
                .map(|f| listed(scope.shown(&f.path), f))
                .collect();
            json!({"node": n.name, "createdAt": iso8601_utc(n.created_ms), "files": files})
        })
        .collect();
    let (bytes, blobs) = scope.store.size()?;
    let record =
        json!({"session": session, "nodes": nodes, "store": {"bytes": bytes, "blobs": blobs}});
    let store_line = format!(
        "Store: {} ({} kept) in {}.\n",
        crate::kernel::text::plural(bytes, "byte", "bytes"),
        crate::kernel::text::plural(blobs, "content", "contents"),
        scope.shown(&scope.store.folder().to_string_lossy())
    );
    if index.nodes.is_empty() {
        let mut text = format!("No checkpoints in session \"{session}\".\n");
        if bytes > 0 {
            text.push_str(&store_line);
        }
        return Ok(View { text, record });
    }
    let mut text = String::new();
    for n in &index.nodes {
        text.push_str(&format!(
            "{}  {}  {}\n",
            crate::kernel::text::inert(&n.name),
            iso8601_utc(n.created_ms),
            crate::kernel::text::plural(n.files.len() as u64, "file", "files")
        ));
        // A file name may hold any byte but `/` and NUL: shown inert.
        let paths: Vec<String> = n
            .files
            .iter()
            .map(|f| crate::kernel::text::inert(&scope.shown(&f.path)).into_owned())
            .collect();
        let width = paths.iter().map(|p| p.chars().count()).max().unwrap_or(0);
        for (f, path) in n.files.iter().zip(&paths) {
            let uncertain = if f.uncertain.is_some() {
                "  (uncertain)"
            } else {
                ""
            };
            text.push_str(&format!(
                "  {path:<width$}  {}{uncertain}\n",
                f.before.describe()
            ));
        }
    }
    text.push_str(&store_line);
    Ok(View { text, record })
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

/// What changed since before node `name`: a unified diff of every file touched
/// at or after it, from its content then to its content now. The text is the
/// whole diff (empty when nothing differs); the record is `{"node", "files":
/// [{"path", "status", "diff"}], "diff"}`.
pub fn diff(scope: &Scope, name: &str) -> Result<View, CheckpointError> {
    let store = &scope.store;
    let index = store.load()?;
    let from = CheckpointStore::find(&index, name)?;
    let mut whole = String::new();
    let mut files = Vec::new();
    for t in index.touched_since(from) {
        let rel = scope.shown(&t.path);
        // Text shows a name with its control characters escaped (it could
        // forge a line of the diff or drive a terminal); the record's `path`
        // keeps it as it is.
        let text_rel = crate::kernel::text::inert(&rel).into_owned();
        // Under a root, a file that resolves outside it now (a folder swapped
        // for a link since) is named, never read: as a rewind leaves it alone.
        if let Some(root) = &scope.root
            && let Err(why) = root.admit(&t.path, Path::new(&t.path))
        {
            let note = format!("Not shown: {}\n", crate::kernel::text::inert(&why));
            whole.push_str(&note);
            files.push(json!({"path": rel, "status": "outsideRoot", "diff": note}));
            continue;
        }
        let (a, b) = (format!("a/{text_rel}"), format!("b/{text_rel}"));
        // A folder or a link, then or now: said in a line (a diff has no
        // hunks for them; `patch` passes the line over).
        let now_meta = std::fs::symlink_metadata(&t.path).ok();
        let special = |m: &std::fs::Metadata| m.is_dir() || m.file_type().is_symlink();
        if matches!(t.restore, Image::Dir { .. } | Image::Link { .. })
            || now_meta.as_ref().is_some_and(special)
        {
            let (status, note) =
                special_note(&t.restore, &t.path, now_meta.as_ref(), &text_rel, name);
            whole.push_str(&note);
            files.push(json!({"path": rel, "status": status, "diff": note}));
            continue;
        }
        let now = current(&t.path, store.cap())?;
        // The mode, when a command changed it (put back by a rewind).
        let mode_note = match (&t.restore, &now_meta) {
            (
                Image::Kept {
                    mode: Some(then), ..
                },
                Some(m),
            ) => {
                use std::os::unix::fs::MetadataExt;
                let now = m.mode() & 0o7777;
                (now != *then).then(|| format!("old mode {then:o}\nnew mode {now:o}\n"))
            }
            _ => None,
        };
        let (status, patch) = content_patch(store, &t.restore, &now, (&a, &b), name)?;
        let (status, patch) = match mode_note {
            Some(note) if status == "unchanged" => ("modified", format!("{text_rel}: {note}")),
            Some(note) => (status, format!("{text_rel}: {note}{patch}")),
            None => (status, patch),
        };
        whole.push_str(&patch);
        files.push(json!({"path": rel, "status": status, "diff": patch}));
    }
    // What a command's checkpoint over the tree does not cover, said after
    // the diff (a line `patch` and `git apply` pass over).
    let mut record = json!({"node": name, "files": files});
    not_covered_notes(scope, &index, from, &mut whole, &mut record);
    record["diff"] = Value::from(whole.clone());
    Ok(View {
        text: whole,
        record,
    })
}

/// A folder or a link, then or now: said in a line (a diff has no hunks for
/// them; `patch` passes the line over). The status and the line (empty when
/// nothing changed).
fn special_note(
    restore: &Image,
    path: &str,
    now_meta: Option<&std::fs::Metadata>,
    text_rel: &str,
    name: &str,
) -> (&'static str, String) {
    let then = match restore {
        Image::Absent => "absent".to_string(),
        Image::Kept { size, .. } => {
            format!(
                "a file of {}",
                crate::kernel::text::plural(*size, "byte", "bytes")
            )
        }
        other => other.describe(),
    };
    let now = match now_meta {
        None => "absent".to_string(),
        Some(m) if m.is_dir() => "a folder".to_string(),
        Some(m) if m.file_type().is_symlink() => format!(
            "a link to {}",
            std::fs::read_link(path)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default()
        ),
        Some(m) => format!(
            "a file of {}",
            crate::kernel::text::plural(m.len(), "byte", "bytes")
        ),
    };
    let status = match (then.as_str(), now.as_str()) {
        (x, y) if x == y => "unchanged",
        ("absent", _) => "created",
        (_, "absent") => "deleted",
        _ => "modified",
    };
    let note = if status == "unchanged" {
        String::new()
    } else {
        format!(
            "{text_rel}: {} before {name}, {} now\n",
            crate::kernel::text::inert(&then),
            crate::kernel::text::inert(&now)
        )
    };
    (status, note)
}

/// The status and unified diff of a file from its content before node `name`
/// (`restore`) to its content `now`; `names` are its `a/…` and `b/…` headers.
fn content_patch(
    store: &CheckpointStore,
    restore: &Image,
    now: &Option<Vec<u8>>,
    names: (&str, &str),
    name: &str,
) -> Result<(&'static str, String), CheckpointError> {
    let (a, b) = names;
    let (status, patch): (&'static str, String) = match restore {
        Image::OverCap { .. } | Image::Unreadable { .. } => (
            "notKept",
            format!(
                "Content before {name} of {a} was {}\n",
                restore.not_kept().unwrap_or_default()
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
            let old_name = if then.is_none() { "/dev/null" } else { a };
            let new_name = if now.is_none() { "/dev/null" } else { b };
            let patch = match (text(&then), text(now)) {
                _ if status == "unchanged" => String::new(),
                (Some(x), Some(y)) => {
                    render_unified_diff_with_headers(&x, &y, DEFAULT_CONTEXT, old_name, new_name)
                }
                _ => format!("Binary files {old_name} and {new_name} differ\n"),
            };
            (status, patch)
        }
    };
    Ok((status, patch))
}

/// What a command's checkpoint over the tree does not cover, said after the
/// diff (a line `patch` and `git apply` pass over) and in the record.
fn not_covered_notes(
    scope: &Scope,
    index: &crate::state::checkpoints::Index,
    from: usize,
    whole: &mut String,
    record: &mut Value,
) {
    let store = &scope.store;
    let trees: std::collections::BTreeSet<&str> = index.nodes[from..]
        .iter()
        .filter_map(|n| n.tree.as_deref())
        .collect();
    let mut ignored_all = Vec::new();
    let mut over_all = Vec::new();
    for tree in trees {
        let root = Path::new(tree);
        let (ignored, total) = crate::state::tree::not_covered(root, 20);
        let shown = |rel: &str| scope.shown(&root.join(rel).to_string_lossy());
        if total > 0 {
            let mut names: Vec<String> = ignored.iter().map(|p| shown(p)).collect();
            if total > names.len() {
                names.push(format!("and {} more", total - names.len()));
            }
            whole.push_str(&format!(
                "Not covered by checkpoints of commands (ignored as git ignores them): {}\n",
                names.join(", ")
            ));
        }
        ignored_all.extend(ignored.iter().map(|p| shown(p)));
        let over = store.over_cap(root);
        if !over.is_empty() {
            whole.push_str(&format!(
                "Not kept by checkpoints of commands (over the {}-byte cap): {}\n",
                store.cap(),
                over.iter()
                    .map(|(p, _)| shown(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        over_all.extend(
            over.iter()
                .map(|(p, size)| json!({"path": shown(p), "size": size})),
        );
        record["notCovered"] =
            json!({"ignored": ignored_all, "ignoredTotal": total, "overCap": over_all});
    }
}

/// Put every file touched at or after node `name` back as it was before it, and
/// forget that node and every later one (see `CheckpointStore::rewind`; `force`
/// overwrites files changed outside the toolbox since). The record is `{"node",
/// "restored", "deleted", "skipped": [{"path", "reason"}], "dropped"}`.
pub fn rewind(scope: &Scope, name: &str, force: bool) -> Result<View, CheckpointError> {
    let report =
        match scope
            .store
            .rewind(name, force, scope.root.as_deref(), scope.writes.as_deref())
        {
            Ok(r) => r,
            Err(CheckpointError::Refused { files }) => {
                // The paths as the user knows them.
                let files = files
                    .into_iter()
                    .map(|(p, why)| (scope.shown(&p), why))
                    .collect();
                return Err(CheckpointError::Refused { files });
            }
            Err(e) => return Err(e),
        };
    let rel = |v: &[String]| -> Vec<String> { v.iter().map(|p| scope.shown(p)).collect() };
    let skipped: Vec<(String, String)> = report
        .skipped
        .iter()
        .map(|(p, why)| (scope.shown(p), why.clone()))
        .collect();
    let record = json!({
        "node": name,
        "restored": rel(&report.restored),
        "deleted": rel(&report.deleted),
        "skipped": skipped.iter().map(|(p, why)| json!({"path": p, "reason": why})).collect::<Vec<_>>(),
        "dropped": report.dropped,
    });
    let mut text = format!(
        "Rewound to before {name}; forgot {}.\n",
        report.dropped.join(", ")
    );
    for p in rel(&report.restored) {
        text.push_str(&format!("restored  {p}\n"));
    }
    for p in rel(&report.deleted) {
        text.push_str(&format!("deleted   {p}\n"));
    }
    for (p, why) in &skipped {
        text.push_str(&format!("left      {p}: {why}\n"));
    }
    Ok(View { text, record })
}

/// The three checkpoint tools.
pub fn checkpoint_tools() -> Vec<DefinedTool> {
    vec![
        define_tool(Arc::new(CheckpointTool::List)),
        define_tool(Arc::new(CheckpointTool::Diff)),
        define_tool(Arc::new(CheckpointTool::Rewind)),
    ]
}

enum CheckpointTool {
    List,
    Diff,
    Rewind,
}

impl CheckpointTool {
    /// The tool's name, for the clamp notice too (which wants it `'static`).
    fn id(&self) -> &'static str {
        match self {
            CheckpointTool::List => CHECKPOINT_TOOLS[0],
            CheckpointTool::Diff => CHECKPOINT_TOOLS[1],
            CheckpointTool::Rewind => CHECKPOINT_TOOLS[2],
        }
    }
}

/// The node a diff or rewind names: `turn` (the name a call gave its turn) or
/// `node` (a name `checkpoint_list` shows); both name a node, so either will do,
/// and two that differ are refused rather than one silently chosen.
fn node_arg(tool: &str, args: &Args) -> Result<String, String> {
    let turn = args.opt_filled_str("turn")?;
    let node = args.opt_filled_str("node")?;
    match (turn, node) {
        (Some(t), Some(n)) if t != n => Err(format!(
            "{tool}: \"turn\" ({t}) and \"node\" ({n}) name different checkpoints; give one"
        )),
        (Some(name), _) | (None, Some(name)) => Ok(name.to_string()),
        (None, None) => Err(format!(
            "{tool}: name the checkpoint with \"turn\" (the turn your calls gave) or \"node\" (a name checkpoint_list shows)"
        )),
    }
}

#[async_trait]
impl Tool for CheckpointTool {
    fn name(&self) -> &str {
        self.id()
    }

    fn description(&self) -> &str {
        match self {
            CheckpointTool::List => {
                "List this session's checkpoints, oldest first: one per turn (or per run), with the files it changed."
            }
            CheckpointTool::Diff => {
                "Show what changed since before a turn: the diff of every file that turn or a later one changed."
            }
            CheckpointTool::Rewind => {
                "Undo a turn and every later one: their files put back as they were before it. Refused, changing nothing, if a file changed outside the toolbox since (force overwrites it)."
            }
        }
    }

    fn output_schema(&self) -> Option<JsonSchema> {
        Some(crate::kernel::schema_text(match self {
            CheckpointTool::List => include_str!("checkpoint_list.output.json"),
            CheckpointTool::Diff => include_str!("checkpoint_diff.output.json"),
            CheckpointTool::Rewind => include_str!("checkpoint_rewind.output.json"),
        }))
    }

    fn parameters(&self) -> JsonSchema {
        let turn = json!({"type": "string", "description": "The turn, as your calls named it (checkpoint_list shows them)."});
        // A second spelling of `turn`: every checkpoint is named by its turn.
        let node = json!({"type": "string", "deprecated": true, "description": "A node's name as checkpoint_list shows it (the same as turn)."});
        match self {
            CheckpointTool::List => json!({"type": "object", "properties": {}}),
            CheckpointTool::Diff => json!({
                "type": "object",
                "properties": {"turn": turn, "node": node}
            }),
            CheckpointTool::Rewind => json!({
                "type": "object",
                "properties": {
                    "turn": turn,
                    "node": node,
                    "force": {"type": "boolean", "description": "Overwrite files changed outside the toolbox since."}
                }
            }),
        }
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let tool = self.id();
        let args = match Args::new(tool, &input) {
            Ok(args) => args,
            Err(e) => return ToolResult::failure(e),
        };
        let scope = Scope::of(ctx);
        let session = session_of(ctx).to_string();
        let asked = match self {
            CheckpointTool::List => Ok(None),
            CheckpointTool::Diff => node_arg(tool, &args).map(|n| Some((n, false))),
            CheckpointTool::Rewind => node_arg(tool, &args).and_then(|n| {
                let force = args.opt_bool("force")?.unwrap_or(false);
                Ok(Some((n, force)))
            }),
        };
        let asked = match asked {
            Ok(a) => a,
            Err(e) => return ToolResult::failure(e),
        };
        let kind = match self {
            CheckpointTool::List => 0,
            CheckpointTool::Diff => 1,
            CheckpointTool::Rewind => 2,
        };
        // The store works with blocking file I/O under its lock, and a diff or a
        // rewind reads and writes whole files: off the async threads.
        let done = tokio::task::spawn_blocking(move || match (kind, asked) {
            (1, Some((name, _))) => diff(&scope, &name).map(|mut v| {
                if v.text.is_empty() {
                    v.text = format!("No changes since before {name}.");
                }
                v
            }),
            (2, Some((name, force))) => rewind(&scope, &name, force),
            _ => list(&scope, &session),
        })
        .await;
        match done {
            Ok(Ok(mut view)) => {
                // The subcommand's view ends its lines; a tool's text, as every
                // other tool's, does not end with a line end.
                view.text.truncate(view.text.trim_end_matches('\n').len());
                crate::tools::text_and_record(
                    crate::tools::clamp_owned_for(ctx, tool, view.text),
                    view.record,
                    false,
                )
            }
            Ok(Err(e)) => ToolResult::failure(format!("{tool}: {e}")),
            Err(e) => ToolResult::failure(format!("{tool}: the checkpoint store failed: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::local::make_local_context;
    use crate::kernel::Framework;
    use crate::state::checkpoints::{Capture, NodeName};

    /// The record of `r` holds to `tool`'s published output schema.
    fn assert_valid(tool: &DefinedTool, r: &ToolResult) {
        let crate::kernel::ToolContentBlock::Json(record) = &r.content[1] else {
            panic!("a record: {r:?}")
        };
        let schema = serde_json::to_value(tool.output_schema().expect("a schema")).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(record)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?} in {record}", tool.name());
    }

    fn text_of(r: &ToolResult) -> String {
        match &r.content[0] {
            crate::kernel::ToolContentBlock::Text(t) => t.clone(),
            other => panic!("text first, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn the_tools_list_diff_and_rewind_one_turn() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().canonicalize().unwrap();
        let cwd_s = cwd.to_str().unwrap();
        let framework = Framework {
            session: Some("s1".into()),
            ..Framework::default()
        };
        let ctx = make_local_context(cwd_s, None, None, Some(framework));
        let store = Scope::of(&ctx).store;
        let file = cwd.join("a.txt");
        std::fs::write(&file, "one\n").unwrap();
        let path = file.to_str().unwrap();
        let turn = NodeName::turn("t1");
        store
            .record_before(&turn, path, Capture::Bytes(b"one\n".to_vec()))
            .unwrap();
        std::fs::write(&file, "two\n").unwrap();
        let sha = crate::kernel::digest::sha256_hex(b"two\n");
        store.record_after(&turn, path, &sha).unwrap();

        let [list_tool, diff_tool, rewind_tool] = &checkpoint_tools()[..] else {
            panic!("three tools")
        };
        let out = list_tool.run_result(json!({}), &ctx).await;
        assert!(!out.is_error, "{out:?}");
        assert_valid(list_tool, &out);
        assert!(text_of(&out).starts_with("t1  "), "{}", text_of(&out));
        assert!(text_of(&out).contains("  a.txt  "), "{}", text_of(&out));

        let out = diff_tool.run_result(json!({"turn": "t1"}), &ctx).await;
        // The text ends without a line end, as edit's does; the record's diff
        // is whole, for patch.
        assert_eq!(
            text_of(&out),
            "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two"
        );
        assert_valid(diff_tool, &out);
        let crate::kernel::ToolContentBlock::Json(record) = &out.content[1] else {
            panic!("a record")
        };
        assert!(
            record["diff"].as_str().unwrap().ends_with("+two\n"),
            "{record}"
        );
        let out = diff_tool.run_result(json!({}), &ctx).await;
        assert!(out.is_error);
        assert!(text_of(&out).contains("\"turn\""), "{}", text_of(&out));
        let out = diff_tool
            .run_result(json!({"turn": "t1", "node": "t2"}), &ctx)
            .await;
        assert!(out.is_error);
        let out = diff_tool.run_result(json!({"node": "zz"}), &ctx).await;
        assert_eq!(
            text_of(&out),
            "checkpoint_diff: no checkpoint named \"zz\"; known: t1"
        );

        let out = rewind_tool.run_result(json!({"node": "t1"}), &ctx).await;
        assert!(!out.is_error, "{out:?}");
        assert_valid(rewind_tool, &out);
        assert_eq!(
            text_of(&out),
            "Rewound to before t1; forgot t1.\nrestored  a.txt"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "one\n");
        let out = list_tool.run_result(json!({}), &ctx).await;
        assert_eq!(text_of(&out), "No checkpoints in session \"s1\".");
    }
}
