//! Checkpoints of the tools that run commands: `bash` (in a tmux pane too),
//! `run_shell`, `task`, `lsp` (its language servers), the start of a
//! background job (`process`, `bg-process`) and sgrep's rewrites, as each
//! descriptor's [`ScanWhen`] says. A command can change anything, so the
//! wrapper cannot read a
//! pre-image the way the file tools' wrapper does; it brackets the call with two
//! scans of the project tree (`CheckpointStore::begin_run`/`end_run`, over
//! `state::tree`'s stat cache and kept copies) and records what differs in the
//! call's node, beside the file tools' records.
//!
//! Commands of one process take turns (a `batch --jobs 4` of four `bash` calls
//! runs them one after another when checkpointed): two commands changing the
//! tree at once cannot be told apart, and a node that claimed the other's change
//! would rewind it. File tools of the same process are not held up; they note
//! their changes in the change log, which the command's node then leaves out.
//!
//! A command that fails still had its changes recorded: a failing build may have
//! written half its output. A command on a remote host (`--ssh`, a container) is
//! not covered, and its answer says so.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use super::checkpoint::{CheckpointHandle, with_notice};
use crate::kernel::{Around, DefinedTool, JsonSchema, ScanWhen, ToolContext, ToolResult};
use crate::state::checkpoints::runs::RunReport;

/// The wrapper of one of an invocation's command tools (the handle and the
/// turn are shared by all of them).
#[derive(Clone)]
pub struct Commands {
    pub handle: Arc<CheckpointHandle>,
    /// One command of this process at a time (see the module comment).
    pub serial: Arc<tokio::sync::Mutex<()>>,
    /// Which of the tool's calls may change the tree (its descriptor's rule).
    pub when: ScanWhen,
}

/// The answer's note on what the checkpoint could not do, if anything.
fn report_notice(node: &str, report: &RunReport, shown: &dyn Fn(&str) -> String) -> Option<String> {
    fn names(list: Vec<String>) -> String {
        let more = list.len().saturating_sub(5);
        let mut out = list.into_iter().take(5).collect::<Vec<_>>().join(", ");
        if more > 0 {
            out.push_str(&format!(" and {more} more"));
        }
        out
    }
    let mut parts = Vec::new();
    if !report.not_kept.is_empty() {
        parts.push(format!(
            "the previous content of {} was not kept ({}), so a rewind cannot restore it",
            names(report.not_kept.iter().map(|(p, _)| shown(p)).collect()),
            report.not_kept[0].1
        ));
    }
    if !report.uncertain.is_empty() {
        parts.push(format!(
            "{} {} ({}), so a rewind asks for --force",
            names(report.uncertain.iter().map(|(p, _)| shown(p)).collect()),
            if report.uncertain.len() == 1 {
                "is uncertain"
            } else {
                "are uncertain"
            },
            report.uncertain[0].1
        ));
    }
    if !report.unscanned.is_empty() {
        parts.push(format!(
            "not covered, as they could not be scanned: {} ({})",
            names(
                report
                    .unscanned
                    .iter()
                    .map(|u| if u.path.is_empty() {
                        "a folder".to_string()
                    } else {
                        u.path.clone()
                    })
                    .collect()
            ),
            report.unscanned[0].why
        ));
    }
    (!parts.is_empty()).then(|| format!("Checkpoint {node}: {}.", parts.join("; ")))
}

#[async_trait]
impl Around for Commands {
    async fn call(&self, inner: &DefinedTool, input: Value, ctx: &ToolContext) -> ToolResult {
        if !self.when.covers(&input) {
            return inner.run_result(input, ctx).await;
        }
        let job = matches!(inner.name(), "process" | "bg-process");
        if let Some(remote) = &ctx.remote {
            let result = inner.run_result(input, ctx).await;
            return with_notice(
                result,
                &format!(
                    "Checkpoint: not recorded, the command ran on {remote}, outside this project's tree."
                ),
            );
        }
        let node = self.handle.node_for(ctx);
        let _serial = self.serial.lock().await;
        let store = self.handle.store.clone();
        let root = store.tree_root(&ctx.cwd);
        let begun = {
            let (store, node) = (store.clone(), node.clone());
            tokio::task::spawn_blocking(move || {
                store
                    .begin_run(&node, &root, std::process::id())
                    .map_err(|e| e.to_string())
            })
            .await
            .unwrap_or_else(|e| Err(e.to_string()))
        };
        let run = match begun {
            Ok(run) => run,
            Err(e) => {
                return ToolResult::failure(format!(
                    "{}: the command was not run, because its checkpoint could not be recorded: {e}",
                    inner.name()
                ));
            }
        };
        let result = inner.run_result(input, ctx).await;
        let cwd = ctx.cwd.clone();
        let shown = move |p: &str| match std::path::Path::new(p).strip_prefix(&cwd) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.to_string_lossy().into_owned(),
            _ => p.to_string(),
        };
        if job && !result.is_error {
            // Open until the session's next checkpointed call.
            // The job's process, as the tool's record names it.
            let job_pid = result.content.iter().find_map(|b| match b {
                crate::kernel::ToolContentBlock::Json(v) => {
                    v.get("pid").and_then(Value::as_u64).map(|p| p as u32)
                }
                _ => None,
            });
            return match store.park_run(&run, job_pid) {
                Ok(()) => result,
                Err(e) => with_notice(
                    result,
                    &format!(
                        "Checkpoint {}: the job's changes will not be recorded ({e}).",
                        node.name
                    ),
                ),
            };
        }
        let ended =
            tokio::task::spawn_blocking(move || store.end_run(run).map_err(|e| e.to_string()))
                .await
                .unwrap_or_else(|e| Err(e.to_string()));
        match ended {
            Ok(report) => match report_notice(&node.name, &report, &shown) {
                Some(notice) => with_notice(result, &notice),
                None => result,
            },
            Err(e) => with_notice(
                result,
                &format!(
                    "Checkpoint {}: what the command changed could not be recorded ({e}), so a rewind will not restore it.",
                    node.name
                ),
            ),
        }
    }

    /// The record may carry the checkpoint's note (`checkpoint`).
    fn output_schema(&self, inner: Option<JsonSchema>) -> Option<JsonSchema> {
        let mut schema = inner?;
        fn add(s: &mut Value) {
            if let Some(Value::Object(props)) = s.get_mut("properties") {
                props.insert(
                    "checkpoint".into(),
                    serde_json::json!({"type": "string", "description": "What the checkpoint of this call could not do."}),
                );
            }
            for key in ["oneOf", "anyOf"] {
                if let Some(Value::Array(branches)) = s.get_mut(key) {
                    branches.iter_mut().for_each(add);
                }
            }
        }
        add(&mut schema);
        Some(schema)
    }
}
