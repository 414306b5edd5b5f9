//! Diagnostics as rows, and the delta between two sets of them.
//!
//! A diagnostic's identity for the delta is its path, severity, code and message,
//! and the content of the line it starts on (trimmed) — never its line number, so
//! a diagnostic that only moved because lines were inserted above it is
//! `unchanged`, not `new`. Two identical diagnostics are counted (a multiset): a
//! second copy of an old error on another line is new.
//!
//! Columns are 1-based byte columns, as rg's `--column` and compilers print them,
//! converted from the protocol's UTF-16 offsets against the text that was checked.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One diagnostic, as the tools show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    pub path: String,
    pub line: u64,
    pub column: u64,
    pub severity: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    pub message: String,
    /// The line's content, trimmed: the delta's anchor.
    pub line_text: String,
}

impl Row {
    /// What the delta compares (see the module comment).
    pub fn key(&self) -> (String, String, Option<String>, String, String) {
        (
            self.path.clone(),
            self.severity.clone(),
            self.code.clone(),
            self.message.clone(),
            self.line_text.clone(),
        )
    }

    /// `PATH:LINE:COL: severity[CODE] message`, the message on one line.
    pub fn render(&self) -> String {
        let code = self
            .code
            .as_deref()
            .map(|c| format!("[{c}]"))
            .unwrap_or_default();
        let message = self.message.replace('\n', " ⏎ ");
        format!(
            "{}:{}:{}: {}{code} {message}",
            self.path, self.line, self.column, self.severity
        )
    }

    pub fn is_error(&self) -> bool {
        self.severity == "error"
    }
}

/// The severity's word; the protocol's default (none given) is error.
pub fn severity_name(n: Option<u64>) -> &'static str {
    match n {
        Some(2) => "warning",
        Some(3) => "information",
        Some(4) => "hint",
        _ => "error",
    }
}

/// The rank of a severity word (lower is graver).
pub fn severity_rank(name: &str) -> u8 {
    match name {
        "error" => 1,
        "warning" => 2,
        "information" => 3,
        _ => 4,
    }
}

/// The 1-based byte column of UTF-16 offset `utf16` in `line`.
pub fn byte_column(line: &str, utf16: u64) -> u64 {
    let mut units = 0u64;
    for (i, c) in line.char_indices() {
        if units >= utf16 {
            return i as u64 + 1;
        }
        units += c.len_utf16() as u64;
    }
    line.len() as u64 + 1
}

/// The UTF-16 offset of 1-based byte column `column` in `line` (the inverse of
/// [`byte_column`], for positions a caller gives).
pub fn utf16_offset(line: &str, column: u64) -> u64 {
    let byte = (column.max(1) - 1) as usize;
    line.char_indices()
        .take_while(|(i, _)| *i < byte)
        .map(|(_, c)| c.len_utf16() as u64)
        .sum()
}

/// The rows of the protocol's diagnostics of one file, whose text was `text`.
pub fn rows_of(path: &str, text: &str, diagnostics: &[Value]) -> Vec<Row> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut rows: Vec<Row> = diagnostics
        .iter()
        .map(|d| {
            let line0 = d["range"]["start"]["line"].as_u64().unwrap_or(0);
            let char0 = d["range"]["start"]["character"].as_u64().unwrap_or(0);
            let content = lines
                .get(line0 as usize)
                .map(|l| l.trim_end_matches('\r'))
                .unwrap_or("");
            let code = match &d["code"] {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            };
            Row {
                path: path.to_string(),
                line: line0 + 1,
                column: byte_column(content, char0),
                severity: severity_name(d["severity"].as_u64()).to_string(),
                code,
                source: d["source"].as_str().map(str::to_string),
                message: d["message"].as_str().unwrap_or("").trim().to_string(),
                line_text: content.trim().to_string(),
            }
        })
        .collect();
    rows.sort_by_key(|r| (r.line, r.column));
    rows
}

/// The delta between `before` and `after`: which of `after` are new and which
/// of `before` are fixed; the rest of `after` are unchanged.
#[derive(Debug, Default)]
pub struct Delta {
    pub new: Vec<Row>,
    pub unchanged: Vec<Row>,
    pub fixed: Vec<Row>,
}

pub fn delta(before: &[Row], after: &[Row]) -> Delta {
    let mut left: HashMap<_, usize> = HashMap::new();
    for row in before {
        *left.entry(row.key()).or_default() += 1;
    }
    let mut out = Delta::default();
    for row in after {
        match left.get_mut(&row.key()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                out.unchanged.push(row.clone());
            }
            _ => out.new.push(row.clone()),
        }
    }
    // What is left of `before` was not matched: fixed (in their order).
    for row in before {
        if let Some(n) = left.get_mut(&row.key())
            && *n > 0
        {
            *n -= 1;
            out.fixed.push(row.clone());
        }
    }
    out
}

/// A baseline file: the rows of a run, to compare a later one with.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Baseline {
    /// `indus-tool diagnose baseline 1`.
    pub format: String,
    pub rows: Vec<Row>,
}

pub const BASELINE_FORMAT: &str = "indus-tool diagnose baseline 1";

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn diag(line: u64, ch: u64, msg: &str) -> Value {
        json!({"range": {"start": {"line": line, "character": ch}, "end": {"line": line, "character": ch}},
               "severity": 1, "code": "E1", "message": msg})
    }

    #[test]
    fn a_diagnostic_that_only_moved_is_not_new() {
        let before_text = "a = 1\nb = x\n";
        let after_text = "# new\n# lines\na = 1\nb = x\n";
        let before = rows_of("f.py", before_text, &[diag(1, 4, "x is undefined")]);
        let after = rows_of("f.py", after_text, &[diag(3, 4, "x is undefined")]);
        let d = delta(&before, &after);
        assert!(d.new.is_empty() && d.fixed.is_empty());
        assert_eq!(d.unchanged[0].line, 4);
    }

    #[test]
    fn a_second_copy_on_another_line_is_new_and_a_gone_one_is_fixed() {
        let text = "b = x\nc = x\nd = y\n";
        let before = rows_of("f.py", text, &[diag(0, 4, "x"), diag(2, 4, "y")]);
        let after = rows_of("f.py", text, &[diag(0, 4, "x"), diag(1, 4, "x")]);
        let d = delta(&before, &after);
        assert_eq!(d.new.len(), 1);
        assert_eq!(d.new[0].line, 2);
        assert_eq!(d.fixed.len(), 1);
        assert_eq!(d.fixed[0].message, "y");
        assert_eq!(d.unchanged.len(), 1);
    }

    #[test]
    fn columns_are_bytes_from_utf16_offsets() {
        // "é" is one UTF-16 unit and two bytes; "😀" two units and four bytes.
        assert_eq!(byte_column("é😀x", 0), 1);
        assert_eq!(byte_column("é😀x", 1), 3);
        assert_eq!(byte_column("é😀x", 3), 7);
        assert_eq!(byte_column("ab", 9), 3);
        for col in [1, 3, 7] {
            assert_eq!(byte_column("é😀x", utf16_offset("é😀x", col)), col);
        }
    }

    #[test]
    fn rows_render_as_a_compiler_prints_them() {
        let rows = rows_of(
            "src/a.py",
            "x = y\n",
            &[diag(0, 4, "\"y\" is not defined\nmore")],
        );
        assert_eq!(
            rows[0].render(),
            "src/a.py:1:5: error[E1] \"y\" is not defined ⏎ more"
        );
    }

    proptest::proptest! {
        /// Every diagnostic after is new or unchanged, every one before fixed
        /// or unchanged; and lines inserted anywhere make nothing new.
        #[test]
        fn the_delta_partitions_and_ignores_moves(
            lines in proptest::collection::vec("[a-c ]{0,6}", 1..12),
            marks in proptest::collection::vec((0usize..12, 0u64..3), 0..8),
            at in 0usize..12,
            extra in 1usize..4,
        ) {
            let text = lines.join("\n");
            let diags: Vec<Value> = marks
                .iter()
                .filter(|(l, _)| *l < lines.len())
                .map(|(l, m)| diag(*l as u64, 0, &format!("m{m}")))
                .collect();
            let before = rows_of("f", &text, &diags);
            // The same diagnostics, `extra` lines lower when at or below `at`.
            let at = at.min(lines.len());
            let mut moved_lines = lines.clone();
            for _ in 0..extra {
                moved_lines.insert(at, "inserted line".into());
            }
            let moved_diags: Vec<Value> = marks
                .iter()
                .filter(|(l, _)| *l < lines.len())
                .map(|(l, m)| {
                    let l = if *l >= at { *l + extra } else { *l };
                    diag(l as u64, 0, &format!("m{m}"))
                })
                .collect();
            let after = rows_of("f", &moved_lines.join("\n"), &moved_diags);
            let d = delta(&before, &after);
            proptest::prop_assert!(d.new.is_empty() && d.fixed.is_empty());
            proptest::prop_assert_eq!(d.unchanged.len(), after.len());
            // Against nothing: all new; from something to nothing: all fixed.
            let d = delta(&[], &after);
            proptest::prop_assert_eq!(d.new.len(), after.len());
            let d = delta(&before, &[]);
            proptest::prop_assert_eq!(d.fixed.len(), before.len());
        }
    }
}
