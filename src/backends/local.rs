//! The local context: the `Fs` and `Shell` seams bound to this machine
//! (`local_fs`, `local_shell`) assembled into a `ToolContext` with the standard
//! output budget. Nothing above the backends touches `std::fs`/`std::process`
//! directly.

use super::local_fs::LocalFs;
use super::local_shell::LocalShell;
use crate::kernel::CancellationToken;
use crate::kernel::{ClipEnd, Framework, Fs, OutputBudget, Root, Shell, ToolContext, WriteGuard};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// The default output ceiling: 64 KiB.
pub const STANDARD_MAX_BYTES: usize = 64 * 1024;

/// The shared local filesystem.
pub fn local_fs() -> Arc<dyn Fs> {
    static FS: OnceLock<Arc<dyn Fs>> = OnceLock::new();
    Arc::clone(FS.get_or_init(|| Arc::new(LocalFs::default())))
}

/// The shared local shell.
pub fn local_shell() -> Arc<dyn Shell> {
    static SHELL: OnceLock<Arc<dyn Shell>> = OnceLock::new();
    Arc::clone(SHELL.get_or_init(|| Arc::new(LocalShell)))
}

/// The notice of the standard budget.
pub fn standard_notice(omitted: usize) -> String {
    format!("\n[{omitted} bytes elided to stay within the output ceiling]\n")
}

/// The default ceiling: a middle clamp of `max_bytes` with the standard notice.
pub fn budget_of(max_bytes: usize) -> OutputBudget {
    OutputBudget::with_notice(ClipEnd::Middle, max_bytes, standard_notice)
}

/// The kernel's default ceiling: a 64 KiB middle clamp.
pub fn standard_budget() -> OutputBudget {
    budget_of(STANDARD_MAX_BYTES)
}

/// The write guard of a context at `cwd` on this machine: the protected names,
/// and the user's own toolbox folders — `$XDG_CONFIG_HOME/indusvx` and
/// `~/.config/indusvx` (the configuration: approval policy, agents, MCP
/// servers) and the state folder (the sealing key, the trust list) — with the
/// project's edge at the git root of `cwd`; it writes anywhere until a host
/// says otherwise ([`WriteGuard::outside`]).
pub fn local_write_guard(cwd: &Path) -> WriteGuard {
    let absolute = |k: &str| {
        std::env::var_os(k)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    let mut dirs = Vec::new();
    let config = "your indus-tool configuration folder (approval policy, agents, MCP servers)";
    if let Some(xdg) = absolute("XDG_CONFIG_HOME") {
        dirs.push((xdg.join("indusvx"), config.to_string()));
    }
    if let Some(home) = absolute("HOME") {
        dirs.push((home.join(".config").join("indusvx"), config.to_string()));
    }
    if let Some(state) = crate::state::user::dir() {
        dirs.push((
            state,
            "your indus-tool state folder (its sealing key and trust list)".to_string(),
        ));
    }
    WriteGuard::new(PathBuf::new(), dirs).in_project_of(cwd)
}

/// A context over the local backend. Absent parts default to a never-firing cancel
/// token, [`standard_budget`] and an empty framework (gate off); its writes are
/// guarded by [`local_write_guard`].
pub fn make_local_context(
    cwd: &str,
    cancel: Option<CancellationToken>,
    budget: Option<OutputBudget>,
    framework: Option<Framework>,
) -> ToolContext {
    let mut ctx = ToolContext::new(
        cwd,
        local_fs(),
        local_shell(),
        cancel.unwrap_or_default(),
        budget.unwrap_or_else(standard_budget),
        framework.unwrap_or_default(),
    );
    ctx.writes = Some(Arc::new(local_write_guard(Path::new(cwd))));
    ctx
}

/// `ctx` confined to `root`: its paths are admitted by the root, and its
/// filesystem is a [`LocalFs`] that enforces the same root.
pub fn confine_local(mut ctx: ToolContext, root: Arc<Root>) -> ToolContext {
    ctx.fs = Arc::new(LocalFs::confined(Arc::clone(&root)));
    ctx.root = Some(root);
    ctx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_notice_is_byte_exact() {
        assert_eq!(
            standard_notice(12),
            "\n[12 bytes elided to stay within the output ceiling]\n"
        );
        let b = standard_budget();
        assert_eq!(b.max_bytes, 65536);
        assert_eq!(b.kind, ClipEnd::Middle);
    }

    #[test]
    fn make_local_context_defaults() {
        let ctx = make_local_context("/x", None, None, None);
        assert_eq!(ctx.cwd, "/x");
        assert!(!ctx.cancel.is_cancelled());
        assert_eq!(ctx.budget.max_bytes, STANDARD_MAX_BYTES);
        assert!(ctx.framework.read_state.is_none());
    }
}
