//! The read-before-edit gate: `write` and `edit` refuse to change a file this session
//! has not read, or one that changed on disk since it was read (by the user, a
//! linter, another agent). Active only when the host installed a `ReadStateHandle`
//! on `ctx.framework.read_state`; without one every function here is a no-op.

use std::sync::Arc;

use crate::kernel::clock::now_ms;
use crate::kernel::{ReadStateHandle, ReadStateRecord, ToolContext};

/// Refusal for a file never read this session (byte-stable).
pub const READ_BEFORE_EDIT_MESSAGE: &str =
    "File has not been read yet. Read it first before writing to it.";
/// Refusal for a file changed since it was read (byte-stable).
pub const MODIFIED_SINCE_READ_MESSAGE: &str = "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.";

/// What the gate decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateOutcome {
    Ok,
    Refused(String),
}

/// The handle installed on the context, if any.
pub fn get_read_state_handle(ctx: &ToolContext) -> Option<&Arc<dyn ReadStateHandle>> {
    ctx.framework.read_state.as_ref()
}

/// Refuse a mutation of `abs_path` when it was never read, or when its mtime
/// advanced or its size changed since. A path that cannot be stat'ed passes (the
/// tool then reports its own error, or creates the file).
pub async fn enforce_read_gate(
    ctx: &ToolContext,
    abs_path: &str,
    handle: Option<&Arc<dyn ReadStateHandle>>,
) -> GateOutcome {
    let Some(handle) = handle else {
        return GateOutcome::Ok;
    };
    let Ok(info) = ctx.fs.stat(abs_path).await else {
        return GateOutcome::Ok;
    };
    match handle.get(abs_path) {
        Err(e) => GateOutcome::Refused(format!(
            "The read-before-edit gate cannot check {abs_path}: {e}"
        )),
        Ok(None) => GateOutcome::Refused(READ_BEFORE_EDIT_MESSAGE.to_string()),
        Ok(Some(record)) => {
            let mtime = info.modified_ms.floor() as u64;
            if mtime > record.mtime_ms || info.size != record.size {
                GateOutcome::Refused(MODIFIED_SINCE_READ_MESSAGE.to_string())
            } else {
                GateOutcome::Ok
            }
        }
    }
}

/// Record (or refresh) what the session knows of `abs_path` from a fresh stat,
/// flooring the mtime to whole milliseconds so sub-millisecond skew cannot trip the
/// staleness check. Returns the store's error, if any, for the tool to report; a
/// failed stat records nothing.
pub async fn record_read_state(
    ctx: &ToolContext,
    abs_path: &str,
    handle: Option<&Arc<dyn ReadStateHandle>>,
    content_hash: Option<String>,
) -> std::io::Result<()> {
    let Some(handle) = handle else {
        return Ok(());
    };
    let Ok(info) = ctx.fs.stat(abs_path).await else {
        return Ok(());
    };
    handle.set(
        abs_path,
        ReadStateRecord {
            mtime_ms: info.modified_ms.floor() as u64,
            size: info.size,
            content_hash,
            read_at: now_ms(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::local::make_local_context;
    use crate::kernel::Framework;
    use crate::state::read_state::MemoryReadState;

    #[tokio::test]
    async fn the_gate_refuses_unread_and_stale_files() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "one").unwrap();
        let path = file.to_str().unwrap();
        let handle: Arc<dyn ReadStateHandle> = Arc::new(MemoryReadState::default());
        let ctx = make_local_context(
            dir.path().to_str().unwrap(),
            None,
            None,
            Some(Framework {
                read_state: Some(handle.clone()),
                ..Default::default()
            }),
        );
        let h = get_read_state_handle(&ctx);
        assert_eq!(
            enforce_read_gate(&ctx, path, h).await,
            GateOutcome::Refused(READ_BEFORE_EDIT_MESSAGE.into())
        );
        record_read_state(&ctx, path, h, None).await.unwrap();
        assert_eq!(enforce_read_gate(&ctx, path, h).await, GateOutcome::Ok);
        std::fs::write(&file, "three").unwrap();
        assert_eq!(
            enforce_read_gate(&ctx, path, h).await,
            GateOutcome::Refused(MODIFIED_SINCE_READ_MESSAGE.into())
        );
        // A missing file passes (ENOENT bypass), and no handle means no gate.
        let missing = dir.path().join("new.txt");
        assert_eq!(
            enforce_read_gate(&ctx, missing.to_str().unwrap(), h).await,
            GateOutcome::Ok
        );
        assert_eq!(enforce_read_gate(&ctx, path, None).await, GateOutcome::Ok);
    }
}
