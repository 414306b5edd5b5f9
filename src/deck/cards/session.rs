//! Where a card keeps what must outlive one invocation: the session's folder of
//! the state store (`.indus-process/sessions/<session>/`), so state survives
//! across invocations and two sessions never share it. Apart from the cards'
//! list (`mod.rs`) because every card, and the suppression wrapper, use it.

use std::path::PathBuf;

use crate::kernel::ToolContext;
use crate::state::{StateDir, file_key};

/// The session a card keeps its state for (`--session`; `default` when the host
/// names none).
pub fn session_of(ctx: &ToolContext) -> &str {
    ctx.framework.session.as_deref().unwrap_or("default")
}

/// The path of the session's folder, relative to the state folder
/// (`sessions/<session>`), for [`StateDir`]'s JSON files.
pub fn session_rel(ctx: &ToolContext, file: &str) -> String {
    format!("sessions/{}/{file}", file_key(session_of(ctx)))
}

/// The session's folder on disk (nothing is created).
pub fn session_dir(ctx: &ToolContext) -> PathBuf {
    StateDir::of(ctx).path(&format!("sessions/{}", file_key(session_of(ctx))))
}
