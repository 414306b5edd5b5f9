//! The concrete tools, one folder per family of the spec, plus the few helpers every
//! tool shares (the tool-prefixed clamp notice).

pub mod code;
pub mod files;
pub mod operator;
pub mod planning;
pub mod search;
pub mod shell;
pub mod web;

use crate::kernel::text::plural;
use crate::kernel::{FsEntryInfo, OutputBudget, ToolContext, ToolResult, clamp};

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

/// [`clamp_for`] of an owned text, given back as it is when it fits: a diff of
/// megabytes is not copied to be found short enough.
pub fn clamp_owned_for(ctx: &ToolContext, tool: &'static str, text: String) -> String {
    if text.len() <= ctx.budget.max_bytes {
        text
    } else {
        clamp_for(ctx, tool, &text)
    }
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
    // A line break goes before every row but a first one with no head before it.
    let sep = |i: usize| usize::from(i > 0 || !head.is_empty());
    let join = |k: usize, notice: Option<String>| {
        let mut out = String::from(head);
        for (i, row) in rows[..k].iter().enumerate() {
            if sep(i) == 1 {
                out.push('\n');
            }
            out.push_str(row);
        }
        if let Some(n) = notice {
            out.push('\n');
            out.push_str(&n);
        }
        out.push_str(tail);
        out
    };
    // Lengths are summed once, so finding the cut costs no rebuilding.
    let mut upto = Vec::with_capacity(rows.len() + 1);
    upto.push(head.len());
    for (i, row) in rows.iter().enumerate() {
        upto.push(upto[i] + sep(i) + row.len());
    }
    let budget = ctx.budget.max_bytes;
    if upto[rows.len()] + tail.len() <= budget {
        return join(rows.len(), None);
    }
    let notice = |k: usize| {
        format!(
            "[{tool}: {} left out to stay within the output ceiling]",
            plural((rows.len() - k) as u64, "row", "rows")
        )
    };
    let k = longest_fitting_prefix(rows.len(), |k| {
        upto[k] + 1 + notice(k).len() + tail.len() <= budget
    });
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
    record: serde_json::Map<String, serde_json::Value>,
    key: &str,
    rows: Vec<serde_json::Value>,
    max_bytes: usize,
) -> serde_json::Value {
    let k = rows_that_fit(&record, key, &rows, max_bytes, 0);
    rows_record(record, key, rows, k)
}

/// How many of `rows` [`record_with_rows`] keeps, each row counted `reserve` bytes
/// longer than it is now (room for a field filled in after the cut). Every row is
/// serialized once; the cut is then found on sums.
pub fn rows_that_fit(
    record: &serde_json::Map<String, serde_json::Value>,
    key: &str,
    rows: &[serde_json::Value],
    max_bytes: usize,
    reserve: usize,
) -> usize {
    let total = rows.len();
    let mut upto = Vec::with_capacity(total + 1);
    upto.push(0usize);
    for (i, row) in rows.iter().enumerate() {
        upto.push(upto[i] + row.to_string().len() + reserve + usize::from(i > 0));
    }
    // The record around the rows, measured twice (without and with an
    // `omitted` count) rather than once per candidate: it may hold a text of
    // tens of kilobytes (apply_patch's diff).
    let framed = |omitted: Option<usize>| {
        let mut r = record.clone();
        r.insert(key.to_string(), serde_json::Value::Array(Vec::new()));
        if let Some(n) = omitted {
            r.insert("omitted".to_string(), serde_json::Value::from(n));
        }
        serde_json::Value::Object(r).to_string().len()
    };
    let bare = framed(None);
    // `"omitted":0` and its comma; a count of more digits is that much longer.
    let with_count = if record.contains_key("omitted") {
        None
    } else {
        Some(framed(Some(0)) - 1)
    };
    let digits = |n: usize| n.to_string().len();
    let frame = |k: usize| match (k < total, with_count) {
        (false, _) => bare,
        (true, Some(base)) => base + digits(total - k),
        (true, None) => framed(Some(total - k)),
    };
    if frame(total) + upto[total] <= max_bytes {
        return total;
    }
    longest_fitting_prefix(total, |k| frame(k) + upto[k] <= max_bytes)
}

/// `record` with the first `k` of `rows` under `key`, and `"omitted"` for the rest.
pub fn rows_record(
    mut record: serde_json::Map<String, serde_json::Value>,
    key: &str,
    mut rows: Vec<serde_json::Value>,
    k: usize,
) -> serde_json::Value {
    let total = rows.len();
    rows.truncate(k);
    record.insert(key.to_string(), serde_json::Value::Array(rows));
    if k < total {
        record.insert("omitted".to_string(), serde_json::Value::from(total - k));
    }
    serde_json::Value::Object(record)
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
    fn rows_that_fit_is_the_longest_prefix_whose_record_fits() {
        let mut record = serde_json::Map::new();
        record.insert("diff".into(), serde_json::Value::from("x\"y".repeat(40)));
        let rows: Vec<serde_json::Value> = (0..150)
            .map(|i| serde_json::json!({"path": format!("f{i}"), "n": i}))
            .collect();
        let size = |k: usize| {
            let kept = rows_record(record.clone(), "rows", rows.clone(), k);
            kept.to_string().len()
        };
        for max in [0, 100, 250, 1_000, 2_345, 4_000, 100_000] {
            let k = rows_that_fit(&record, "rows", &rows, max, 0);
            let want = (0..=rows.len())
                .rev()
                .find(|&k| size(k) <= max)
                .unwrap_or(0);
            assert_eq!(k, want, "max {max}");
        }
    }

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
