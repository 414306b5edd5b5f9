//! The checkpoint wrapper (seed `002_…`, "The Checkpoint Wrapper"): `write` and
//! `edit` folded inside a tool that records the target file's current content
//! under the active checkpoint node before the inner tool runs, so a later
//! `checkpoint rewind` can restore it.
//!
//! The kernel's `Framework` has no checkpoint handle and the tool factories take
//! no arguments, so the wrapper is where the store reaches the two tools: the
//! command line re-registers the wrapped `write` and `edit` (same names) when
//! checkpointing is on, and registers nothing extra when it is off, which keeps an
//! invocation without `--checkpoint` exactly as before (same tool, no cost).
//!
//! The wrapper takes a lock of its own for the file (in the state folder, shared
//! by every session) and the file's lock (the one `write` and `edit` take) before
//! it reads the pre-image, and holds both until the written content's hash is
//! noted (the file's own lock alone ends with the rename of the new content): with
//! several agents on one file each node's pre-image is exactly the content its
//! own write replaced, its hash exactly what it wrote, and nodes chain in the
//! order of the writes.
//!
//! A call that names its turn (`ToolCall::turn`, carried to `ToolContext::turn`)
//! records under that turn's node instead of the invocation's, so one `batch` or
//! `mcp` run can hold many turns, each rewound alone.
//!
//! Every model-facing field (name, description, parameters) is the inner tool's, so
//! the wrap is invisible in descriptors; only `run` is augmented. Reading the prior
//! content is best effort (an unreadable file is recorded as such and the write
//! goes ahead); a pre-image over the cap is recorded as not kept and the tool's
//! result says so. A store that cannot record (a corrupt index, a reused old
//! `--turn`) fails the call before the file is touched, since a change that could
//! not be rewound must not happen silently under `--checkpoint`.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::kernel::digest::sha256_of_reader;
use crate::kernel::{
    Around, Checkpoint, DefinedTool, DirChild, FileLock, Fs, FsEntryInfo, RemoveOptions,
    ToolContentBlock, ToolContext, ToolResult, WalkOptions, WalkVisitorFactory, wrap_tool,
};
use crate::state::checkpoints::{
    AFTER_ABSENT, Capture, CheckpointStore, Image, NodeName, missing_dirs, real_path,
};

/// Where a wrapped tool records: one session's store and the active node.
#[derive(Debug, Clone)]
pub struct CheckpointHandle {
    pub store: CheckpointStore,
    pub node: NodeName,
}

impl CheckpointHandle {
    /// The node a call records under: the call's own turn (`ToolCall::turn`,
    /// an MCP call's `_meta.turn`) when it names one, so each turn of a long run
    /// is a node of its own; else the invocation's (`--turn`, or one per process).
    pub fn node_for(&self, ctx: &ToolContext) -> NodeName {
        match &ctx.turn {
            Some(turn) => NodeName::turn(turn.clone()),
            None => self.node.clone(),
        }
    }
}

/// `tool` folded inside the checkpoint wrapper when a handle is given and the
/// tool's descriptor says a checkpoint reads what it will write (the file tools;
/// the command tools are wrapped by `command_checkpoint`, which scans the tree);
/// otherwise the very same tool.
pub fn maybe_wrap_checkpoint(
    tool: DefinedTool,
    handle: Option<&Arc<CheckpointHandle>>,
) -> DefinedTool {
    match handle {
        Some(handle)
            if matches!(
                crate::deck::checkpoint_of(tool.name()),
                Checkpoint::ByPath | Checkpoint::ByPatch
            ) =>
        {
            let around = Checkpointing {
                handle: Arc::clone(handle),
            };
            wrap_tool(tool, Arc::new(around))
        }
        _ => tool,
    }
}

struct Checkpointing {
    handle: Arc<CheckpointHandle>,
}

/// The context's filesystem, with the lock on one file already held by the
/// wrapper: the inner tool's own `lock_file` of that path answers at once (a
/// second `flock` of the same file from this process would wait for ourselves),
/// every other call goes through unchanged.
struct HeldLock {
    inner: Arc<dyn Fs>,
    path: String,
}

#[async_trait]
impl Fs for HeldLock {
    async fn read_text(&self, path: &str) -> std::io::Result<String> {
        self.inner.read_text(path).await
    }
    async fn read_bytes(&self, path: &str) -> std::io::Result<Vec<u8>> {
        self.inner.read_bytes(path).await
    }
    async fn write_file(&self, path: &str, data: &str) -> std::io::Result<()> {
        self.inner.write_file(path, data).await
    }
    async fn write_bytes(&self, path: &str, data: &[u8]) -> std::io::Result<()> {
        self.inner.write_bytes(path, data).await
    }
    async fn stat(&self, path: &str) -> std::io::Result<FsEntryInfo> {
        self.inner.stat(path).await
    }
    async fn read_dir(&self, path: &str) -> std::io::Result<Vec<DirChild>> {
        self.inner.read_dir(path).await
    }
    async fn mkdir(&self, path: &str, recursive: bool) -> std::io::Result<()> {
        self.inner.mkdir(path, recursive).await
    }
    async fn rm(&self, path: &str, options: RemoveOptions) -> std::io::Result<()> {
        self.inner.rm(path, options).await
    }
    async fn exists(&self, path: &str) -> bool {
        self.inner.exists(path).await
    }
    fn watch_changes(&self, dir: &str) -> std::io::Result<Box<dyn crate::kernel::ChangeWatch>> {
        self.inner.watch_changes(dir)
    }
    async fn lock_file(&self, path: &str, wait: std::time::Duration) -> std::io::Result<FileLock> {
        if path == self.path {
            return Ok(FileLock::default());
        }
        self.inner.lock_file(path, wait).await
    }
    async fn open_read(&self, path: &str) -> std::io::Result<Box<dyn std::io::Read + Send>> {
        self.inner.open_read(path).await
    }
    async fn read_range(
        &self,
        path: &str,
        offset: u64,
        max_len: usize,
    ) -> std::io::Result<(Vec<u8>, u64)> {
        self.inner.read_range(path, offset, max_len).await
    }
    fn walk_tree(
        &self,
        options: &WalkOptions,
        visitors: &dyn WalkVisitorFactory,
    ) -> std::io::Result<()> {
        self.inner.walk_tree(options, visitors)
    }
}

/// The lock checkpointed changes of `real` share, waited for in steps (an async
/// sleep between tries, so another call of this process holding it can finish).
async fn lock_changes(
    store: &CheckpointStore,
    real: &str,
    tool: &str,
    shown: &str,
) -> Result<std::fs::File, String> {
    let wait = crate::kernel::backends::FILE_LOCK_WAIT;
    let deadline = std::time::Instant::now() + wait;
    loop {
        match store.try_lock_file_changes(real) {
            Ok(Some(lock)) => return Ok(lock),
            Ok(None) if std::time::Instant::now() < deadline => {
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
            Ok(None) => {
                return Err(format!(
                    "{tool}: cannot change {shown}: another checkpointed change of it has held its lock for {} ms",
                    wait.as_millis()
                ));
            }
            Err(e) => {
                return Err(format!(
                    "{tool}: {shown} was not changed, because its checkpoint could not be recorded: {e}"
                ));
            }
        }
    }
}

/// Read the file's current content through the context's filesystem, up to the
/// cap; never fails (what could not be read is recorded as such).
async fn capture(ctx: &ToolContext, abs: &str, cap: u64) -> Option<Capture> {
    match ctx.fs.stat(abs).await {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(Capture::Absent),
        Err(e) => Some(Capture::Unreadable(e.to_string())),
        // A dangling link: the write creates its target, which did not exist.
        Ok(info) if info.is_symlink && !info.is_file && !info.is_directory => Some(Capture::Absent),
        // A directory or a device: the inner tool refuses it, nothing to record.
        Ok(info) if !info.is_file => None,
        Ok(info) if info.size > cap => Some(Capture::OverCap(info.size)),
        Ok(_) => match ctx.fs.read_range(abs, 0, cap as usize + 1).await {
            Ok((_, len)) if len > cap => Some(Capture::OverCap(len)),
            Ok((bytes, _)) => Some(Capture::Bytes(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(Capture::Absent),
            Err(e) => Some(Capture::Unreadable(e.to_string())),
        },
    }
}

/// What a capture says of the file's state before, as the change log holds it
/// (a hash, `absent`), when it says (not for content over the cap or unread).
fn captured_sig(captured: &Capture) -> Option<String> {
    match captured {
        Capture::Absent => Some(AFTER_ABSENT.to_string()),
        Capture::Bytes(b) => Some(crate::kernel::digest::sha256_hex(b)),
        Capture::OverCap(_) | Capture::Unreadable(_) => None,
    }
}

/// Append `notice` to the result's text (and, for a tool answering with a record,
/// as its `checkpoint` field, so `--format json` readers see it too).
pub(super) fn with_notice(mut result: ToolResult, notice: &str) -> ToolResult {
    let mut texted = false;
    for block in &mut result.content {
        match block {
            ToolContentBlock::Text(text) if !texted => {
                // After the summary line, before a diff if there is one.
                match text.find("\n\n") {
                    Some(at) => text.insert_str(at, &format!(" {notice}")),
                    None => {
                        text.push(' ');
                        text.push_str(notice);
                    }
                }
                texted = true;
            }
            ToolContentBlock::Json(Value::Object(record)) => {
                record.insert("checkpoint".into(), Value::String(notice.to_string()));
            }
            _ => {}
        }
    }
    if !texted {
        result
            .content
            .insert(0, ToolContentBlock::Text(notice.to_string()));
    }
    result
}

#[async_trait]
impl Around for Checkpointing {
    async fn call(&self, inner: &DefinedTool, input: Value, ctx: &ToolContext) -> ToolResult {
        if crate::deck::checkpoint_of(inner.name()) == Checkpoint::ByPatch {
            return self.run_patch(inner, input, ctx).await;
        }
        // A missing or refused path: the inner tool says what is wrong with it.
        let Some(abs) = input
            .get("path")
            .and_then(Value::as_str)
            .and_then(|p| ctx.confine(p).ok())
        else {
            return inner.run_result(input, ctx).await;
        };
        let shown = input["path"].as_str().unwrap_or_default().to_string();
        let store = &self.handle.store;
        let node = &self.handle.node_for(ctx);
        let (real, missing) = recorded_as(ctx, &abs);
        // Two checkpointed writers of one file take turns for the whole of it
        // (capture, write, hash noted): the file's own lock alone is released
        // by the rename of the new content, before the hash is read back.
        let _changes = match lock_changes(store, &real, inner.name(), &shown).await {
            Ok(lock) => lock,
            Err(message) => return ToolResult::failure(message),
        };
        // The file's lock too, taken before its content is captured and held
        // until the hash of what was written is noted: the pre-image is exactly
        // the file this call's write replaced, and a plain writer of the file
        // comes before or after, never between.
        let lock = match ctx
            .fs
            .lock_file(&abs, crate::kernel::backends::FILE_LOCK_WAIT)
            .await
        {
            Ok(lock) => lock,
            Err(e) => {
                return ToolResult::failure(format!(
                    "{}: cannot change {shown}: {e}",
                    inner.name()
                ));
            }
        };
        let mut held = ctx.clone();
        held.fs = Arc::new(HeldLock {
            inner: Arc::clone(&ctx.fs),
            path: abs.clone(),
        });
        let ctx = &held;
        let Some(captured) = capture(ctx, &abs, store.cap()).await else {
            return inner.run_result(input, ctx).await;
        };
        let before_sig = captured_sig(&captured);
        // The store works under the state folder's lock with blocking I/O; the
        // files are small (index, one blob at most) and the call is made once.
        let recorded = match store.record_before(node, &real, captured) {
            Ok(r) => r,
            Err(e) => {
                return ToolResult::failure(format!(
                    "{}: {shown} was not changed, because its checkpoint could not be recorded: {e}",
                    inner.name()
                ));
            }
        };
        let result = inner.run_result(input, ctx).await;
        if result.is_error {
            return take_back(store, node, &real, recorded.is_some(), result);
        }
        let written = Written {
            abs: &abs,
            real: &real,
            created: missing,
            before_sig: before_sig.as_deref(),
        };
        let noted = written.note(ctx, store, node).await;
        drop(lock);
        // The change was made: the call succeeded, and says what the checkpoint
        // lacks (a failure here would report a write that happened as not done).
        if let Err(e) = noted {
            return with_notice(
                result,
                &format!(
                    "Checkpoint {}: what was written to {shown} could not be noted ({e}), so a rewind of it will ask for --force.",
                    node.name
                ),
            );
        }
        match recorded {
            Some(image @ (Image::OverCap { .. } | Image::Unreadable { .. })) => with_notice(
                result,
                &format!(
                    "Checkpoint {}: the previous content of {shown} was {}, so a rewind cannot restore it.",
                    node.name,
                    image.not_kept().unwrap_or_default()
                ),
            ),
            _ => result,
        }
    }
}

/// Where a write is recorded: under the file's real path (links followed,
/// folders canonical) and with the folders the write will create, so that a
/// rewind restores the file itself and removes those folders again.
fn recorded_as(ctx: &ToolContext, abs: &str) -> (String, Vec<String>) {
    if ctx.remote.is_none() {
        let real = real_path(abs);
        let missing = missing_dirs(&real);
        (real, missing)
    } else {
        (abs.to_string(), Vec::new())
    }
}

/// A refused call wrote nothing, so a record made for it is taken back; if
/// that fails, the refusal says so.
fn take_back(
    store: &CheckpointStore,
    node: &NodeName,
    real: &str,
    recorded: bool,
    result: ToolResult,
) -> ToolResult {
    if recorded && let Err(e) = store.forget_record(node, real) {
        return with_notice(
            result,
            &format!("(Its checkpoint record could not be taken back: {e}.)"),
        );
    }
    result
}

/// A file one call wrote, to be noted in its checkpoint.
struct Written<'a> {
    abs: &'a str,
    real: &'a str,
    /// The folders the write may have created (those that exist are noted).
    created: Vec<String>,
    before_sig: Option<&'a str>,
}

impl Written<'_> {
    /// The hash of what was written, read back, so a rewind can tell a later
    /// change made outside the toolbox; and the change noted, so a command
    /// running meanwhile does not claim it.
    async fn note(
        self,
        ctx: &ToolContext,
        store: &CheckpointStore,
        node: &NodeName,
    ) -> std::io::Result<()> {
        let after = match ctx.fs.open_read(self.abs).await {
            Ok(reader) => sha256_of_reader(reader),
            Err(e) => Err(e),
        };
        let created: Vec<String> = self
            .created
            .into_iter()
            .filter(|d| Path::new(d).is_dir())
            .collect();
        after.and_then(|sha| {
            store.record_after_creating(node, self.real, &sha, &created)?;
            store.note_change(self.real, self.before_sig, &sha, &created)
        })
    }
}

impl Checkpointing {
    /// `apply_patch`: every file the patch may touch recorded in the one node of
    /// this call (its pre-image before, its hash or its absence after), so a
    /// rewind restores every changed file and removes the added ones. Files the
    /// patch named but did not change are taken back out of the node.
    async fn run_patch(&self, inner: &DefinedTool, input: Value, ctx: &ToolContext) -> ToolResult {
        use crate::tools::files::patch_parse;
        let Some(patch) = input
            .get("patch")
            .and_then(Value::as_str)
            .and_then(|t| patch_parse::parse(t).ok())
        else {
            // Unreadable: the tool says why, and changes nothing.
            return inner.run_result(input, ctx).await;
        };
        // Both spellings of a plain diff's `a/`/`b/` paths: the tool picks one.
        let mut shown: Vec<String> = Vec::new();
        for f in &patch.files {
            shown.extend(f.op.paths().iter().map(|p| p.to_string()));
            if f.prefixed {
                shown.extend(f.stripped().paths().iter().map(|p| p.to_string()));
            }
        }
        let mut targets: Vec<(String, String, Vec<String>)> = Vec::new();
        for p in &shown {
            let Ok(abs) = ctx.confine(p) else {
                return inner.run_result(input, ctx).await;
            };
            let real = if ctx.remote.is_none() {
                real_path(&abs)
            } else {
                abs.clone()
            };
            if !targets.iter().any(|(r, _, _)| *r == real) {
                let missing = missing_dirs(&real);
                targets.push((real, p.clone(), missing));
            }
        }
        targets.sort();
        let store = &self.handle.store;
        let node = &self.handle.node_for(ctx);
        let mut change_locks = Vec::with_capacity(targets.len());
        for (real, p, _) in &targets {
            match lock_changes(store, real, inner.name(), p).await {
                Ok(lock) => change_locks.push(lock),
                Err(message) => return ToolResult::failure(message),
            }
        }
        let mut recorded: Vec<(String, Option<Capture>, bool)> = Vec::new();
        for (real, p, _) in &targets {
            let captured = capture(ctx, real, store.cap()).await;
            let made = match &captured {
                Some(c) => match store.record_before(node, real, c.clone()) {
                    Ok(r) => r.is_some(),
                    Err(e) => {
                        for (r, _, made) in &recorded {
                            if *made {
                                let _ = store.forget_record(node, r);
                            }
                        }
                        return ToolResult::failure(format!(
                            "{}: nothing was changed, because the checkpoint of {p} could not be recorded: {e}",
                            inner.name()
                        ));
                    }
                },
                None => false,
            };
            recorded.push((real.clone(), captured, made));
        }
        let result = inner.run_result(input, ctx).await;
        let mut problems = Vec::new();
        for ((real, captured, made), (_, p, missing)) in recorded.iter().zip(&targets) {
            let after = match std::fs::File::open(real) {
                Ok(f) => sha256_of_reader(f).map(Some),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e),
            };
            let unchanged = match (&after, captured) {
                (Ok(None), Some(Capture::Absent)) => true,
                (Ok(Some(h)), Some(Capture::Bytes(b))) => {
                    *h == crate::kernel::digest::sha256_hex(b)
                }
                _ => false,
            };
            if result.is_error || unchanged {
                if *made && let Err(e) = store.forget_record(node, real) {
                    problems.push(format!("{p}: its record could not be taken back ({e})"));
                }
                continue;
            }
            let created: Vec<String> = missing
                .iter()
                .filter(|d| Path::new(d).is_dir())
                .cloned()
                .collect();
            let noted = after.and_then(|h| {
                let h = h.unwrap_or_else(|| AFTER_ABSENT.to_string());
                store.record_after_creating(node, real, &h, &created)?;
                let before = captured.as_ref().and_then(captured_sig);
                store.note_change(real, before.as_deref(), &h, &created)
            });
            if let Err(e) = noted {
                problems.push(format!(
                    "{p}: what was written could not be noted ({e}), so a rewind of it will ask for --force"
                ));
            }
        }
        drop(change_locks);
        if problems.is_empty() {
            result
        } else {
            with_notice(
                result,
                &format!("Checkpoint {}: {}.", node.name, problems.join("; ")),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::local::make_local_context;
    use crate::state::StateDir;
    use serde_json::json;

    fn handle(dir: &std::path::Path, cap: u64) -> Arc<CheckpointHandle> {
        Arc::new(CheckpointHandle {
            store: CheckpointStore::new(StateDir::new(dir), "default").with_cap(cap),
            node: NodeName::turn("t1"),
        })
    }

    #[test]
    fn without_a_handle_the_tool_is_the_same() {
        let tool = crate::tools::files::write_tool();
        let same = maybe_wrap_checkpoint(tool.clone(), None);
        assert_eq!(same.descriptor(), tool.descriptor());
        let dir = tempfile::tempdir().unwrap();
        let h = handle(dir.path(), 1024);
        let read = maybe_wrap_checkpoint(crate::tools::files::read_tool(), Some(&h));
        assert_eq!(format!("{read:?}"), "DefinedTool { name: \"read\" }");
        for tool in [
            crate::tools::files::write_tool(),
            crate::tools::files::edit_tool(),
        ] {
            let wrapped = maybe_wrap_checkpoint(tool.clone(), Some(&h));
            assert_eq!(wrapped.descriptor(), tool.descriptor());
        }
    }

    #[tokio::test]
    async fn records_before_and_after_and_reports_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let h = handle(dir.path(), 8);
        let write = maybe_wrap_checkpoint(crate::tools::files::write_tool(), Some(&h));
        let ctx = make_local_context(dir.path().to_str().unwrap(), None, None, None);
        std::fs::write(dir.path().join("big.txt"), "0123456789").unwrap();
        let out = write
            .run_result(json!({"path": "big.txt", "content": "x"}), &ctx)
            .await;
        assert!(!out.is_error);
        let ToolContentBlock::Text(text) = &out.content[0] else {
            panic!("text first")
        };
        assert!(text.starts_with("Saved 1 byte to big.txt."), "{text}");
        assert!(
            text.contains("over the cap (10 bytes; the cap is 8)"),
            "{text}"
        );
        let out = write
            .run_result(json!({"path": "new.txt", "content": "hi"}), &ctx)
            .await;
        assert!(!out.is_error);
        let index = h.store.load().unwrap();
        let files = &index.nodes[0].files;
        assert_eq!(files.len(), 2);
        assert_eq!(files[1].before, Image::Absent);
        assert_eq!(
            files[1].after.as_deref(),
            Some(crate::kernel::digest::sha256_hex(b"hi").as_str())
        );
        // A failed edit leaves no record behind.
        let edit = maybe_wrap_checkpoint(crate::tools::files::edit_tool(), Some(&h));
        std::fs::write(dir.path().join("e.txt"), "abc").unwrap();
        let out = edit
            .run_result(
                json!({"path": "e.txt", "oldText": "zzz", "newText": "y"}),
                &ctx,
            )
            .await;
        assert!(out.is_error);
        assert_eq!(h.store.load().unwrap().nodes[0].files.len(), 2);
    }
}
