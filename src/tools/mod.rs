//! The concrete tools, one folder per family of the spec, plus the few helpers every
//! tool shares (the tool-prefixed clamp notice).

pub mod files;
pub mod planning;
pub mod search;
pub mod shell;
pub mod web;

use crate::kernel::{FsEntryInfo, OutputBudget, ToolContext, ToolResult, clamp};

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

/// The largest `k` in `0..=len` for which `fits(k)` holds, given that `fits` holds
/// for every `k` below one where it holds (a prefix that fits stays fitting when
/// shortened). How JSON blocks that list items keep the longest prefix that fits
/// the output budget; `fits(0)` is not asked, 0 is the floor.
pub fn longest_fitting_prefix(len: usize, fits: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// Rows for people within the context's budget, cut between rows, never inside
/// one: `head`, then the longest prefix of `rows` that fits with the notice
/// `[TOOL: K rows left out to stay within the output ceiling]`, then `tail` (a
/// summary line, say). When even the head and tail do not fit, the byte clamp of
/// [`clamp_for`] has the last word.
pub fn clamp_rows(
    ctx: &ToolContext,
    tool: &'static str,
    head: &str,
    rows: &[String],
    tail: &str,
) -> String {
    let join = |k: usize, notice: Option<String>| {
        let mut out = String::from(head);
        for row in &rows[..k] {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(row);
        }
        if let Some(n) = notice {
            out.push('\n');
            out.push_str(&n);
        }
        if !tail.is_empty() {
            out.push_str(tail);
        }
        out
    };
    let budget = ctx.budget.max_bytes;
    let whole = join(rows.len(), None);
    if whole.len() <= budget {
        return whole;
    }
    let notice = |k: usize| {
        format!(
            "[{tool}: {} left out to stay within the output ceiling]",
            plural((rows.len() - k) as u64, "row", "rows")
        )
    };
    let k = longest_fitting_prefix(rows.len(), |k| join(k, Some(notice(k))).len() <= budget);
    clamp_for(ctx, tool, &join(k, Some(notice(k))))
}

/// An answer in two forms: `text` for people and `record` for programs (what
/// `program_view` gives `--format json` and `batch`).
pub fn text_and_record(text: String, record: serde_json::Value, is_error: bool) -> ToolResult {
    ToolResult {
        content: vec![
            crate::kernel::ToolContentBlock::Text(text),
            crate::kernel::ToolContentBlock::Json(record),
        ],
        is_error,
    }
}

/// A record for programs holding `rows` under `key`, within `max_bytes`: when the
/// whole record does not fit, the longest prefix of whole rows that does, and
/// `"omitted": K` for the rest. Rows are never cut.
pub fn record_with_rows(
    mut record: serde_json::Map<String, serde_json::Value>,
    key: &str,
    rows: Vec<serde_json::Value>,
    max_bytes: usize,
) -> serde_json::Value {
    use serde_json::Value;
    let total = rows.len();
    let with = |record: &serde_json::Map<String, Value>, k: usize| {
        let mut r = record.clone();
        r.insert(key.to_string(), Value::Array(rows[..k].to_vec()));
        if k < total {
            r.insert("omitted".to_string(), Value::from(total - k));
        }
        Value::Object(r)
    };
    let whole = with(&record, total);
    if whole.to_string().len() <= max_bytes {
        return whole;
    }
    let k = longest_fitting_prefix(total, |k| with(&record, k).to_string().len() <= max_bytes);
    record.insert(key.to_string(), Value::Array(Vec::new()));
    with(&record, k)
}

/// What a path that is neither a regular file nor a directory is, for the refusals
/// of the tools that only handle those (read, write, edit, grep). The seam reports
/// a link that resolves to nothing (dangling, or a loop) as the link itself, so a
/// link is named as a link.
pub fn not_regular(path: &str, info: &FsEntryInfo) -> String {
    if info.is_symlink {
        format!(
            "{path} is a symbolic link that does not lead to a regular file (it dangles, loops, or leads to a FIFO, socket or device)"
        )
    } else {
        format!("{path} is not a regular file (a FIFO, socket or device)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_fitting_prefix_is_found_at_every_size() {
        for len in 0..20 {
            for limit in 0..=len {
                assert_eq!(longest_fitting_prefix(len, |k| k <= limit), limit);
            }
            assert_eq!(longest_fitting_prefix(len, |_| true), len);
        }
    }
}
