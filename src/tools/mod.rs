//! The concrete tools, one folder per family of the spec, plus the few helpers every
//! tool shares (the tool-prefixed clamp notice).

pub mod files;
pub mod planning;
pub mod search;
pub mod shell;
pub mod web;

use crate::kernel::{OutputBudget, ToolContext, clamp};

/// The wall clock in epoch milliseconds, as the gate's records and the job table
/// store it.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// `1 file`, `2 files`: the counting phrase every tool's summary uses.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The notice a tool splices in when its output is clamped: the standard wording,
/// prefixed with the tool's name so a reader knows which tool cut what.
pub fn tool_notice(tool: &str, omitted: usize) -> String {
    format!("\n[{tool}: {omitted} bytes elided to stay within the output ceiling]\n")
}

/// The context's budget (size and policy) with `tool`'s notice.
pub fn tool_budget(ctx: &ToolContext, tool: &'static str) -> OutputBudget {
    ctx.budget.renoticed(move |n| tool_notice(tool, n))
}

/// Clamp `text` to the context's budget with `tool`'s notice.
pub fn clamp_for(ctx: &ToolContext, tool: &'static str, text: &str) -> String {
    clamp(text, &tool_budget(ctx, tool))
}
