//! Jupyter notebooks (`.ipynb`): how `read` shows one (cells with their
//! sources and clamped outputs, image outputs as image blocks) and how `edit`
//! changes one cell (through the match engine's ladder and refusals), inserts
//! or deletes one, and writes the file back in nbformat's own layout.
//!
//! nbformat writes `json.dumps(nb, sort_keys=True, indent=1,
//! ensure_ascii=False)` plus a newline, with each cell's source split into a
//! list of lines by Python's `str.splitlines(True)`. [`to_nbformat_json`] and
//! [`split_lines`] reproduce exactly that, so a notebook Jupyter saved and we
//! edited differs from the original only in the edited cell (`git diff` shows
//! that cell), and `nbformat.validate` accepts it. Cells we do not touch keep
//! their JSON values as they were.

use serde_json::{Map, Value, json};

use crate::tools::files::matching;

/// The most characters shown of one output, and of its lines.
pub const OUTPUT_MAX_CHARS: usize = 2_000;
pub const OUTPUT_MAX_LINES: usize = 40;

/// A notebook parsed and checked: nbformat 4, with a `cells` list.
pub fn parse(path: &str, bytes: &[u8]) -> Result<Value, String> {
    let nb: Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("{path} is not a notebook: its JSON does not parse ({e})."))?;
    let major = nb.get("nbformat").and_then(Value::as_u64);
    if major != Some(4) {
        return Err(format!(
            "{path} is not an nbformat 4 notebook (nbformat is {}); upgrade it with `jupyter nbconvert --to notebook`.",
            nb.get("nbformat")
                .map_or("missing".into(), Value::to_string)
        ));
    }
    if !nb.get("cells").is_some_and(Value::is_array) {
        return Err(format!(
            "{path} is not a notebook: it has no \"cells\" list."
        ));
    }
    Ok(nb)
}

/// A cell's source (a string, or a list of line strings) as one string.
pub fn source_of(cell: &Value) -> String {
    match cell.get("source") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(lines)) => lines.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

/// Python's `str.splitlines(True)`: lines with their ends, split at every
/// line boundary Python knows (not only `\n`).
pub fn split_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            '\r' if chars.peek().is_some_and(|&(_, n)| n == '\n') => {
                chars.next();
                i + 2
            }
            '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}'
            | '\u{2028}' | '\u{2029}' => i + c.len_utf8(),
            _ => continue,
        };
        out.push(text[start..end].to_string());
        start = end;
    }
    if start < text.len() {
        out.push(text[start..].to_string());
    }
    out
}

/// An image output found while rendering: the rendered line of its marker,
/// its MIME type and base64 data.
pub struct ImageOutput {
    pub line: u64,
    pub mime: String,
    pub data: String,
}

/// The notebook as text for `read`: a `[cell N TYPE id=…]` line per cell, its
/// source, and its outputs each under an `[output …]` line, clamped.
pub fn render(nb: &Value) -> (String, Vec<ImageOutput>) {
    let mut out = String::new();
    let mut images = Vec::new();
    let mut line: u64 = 0;
    let mut push = |out: &mut String, text: &str| {
        for l in text.split('\n') {
            out.push_str(l);
            out.push('\n');
            line += 1;
        }
        line
    };
    let cells = nb["cells"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    for (i, cell) in cells.iter().enumerate() {
        let kind = cell.get("cell_type").and_then(Value::as_str).unwrap_or("?");
        let mut head = format!("[cell {} {kind}", i + 1);
        if let Some(id) = cell.get("id").and_then(Value::as_str) {
            head.push_str(&format!(" id={id}"));
        }
        match cell.get("execution_count") {
            Some(Value::Number(n)) => head.push_str(&format!(" execution_count={n}")),
            _ if kind == "code" => head.push_str(" not run"),
            _ => {}
        }
        head.push(']');
        push(&mut out, &head);
        let source = source_of(cell);
        let source = source.strip_suffix('\n').unwrap_or(&source);
        if !source.is_empty() {
            push(&mut out, source);
        }
        let outputs = cell
            .get("outputs")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (j, output) in outputs.iter().enumerate() {
            let (label, text, image) = describe_output(output);
            let marker = push(&mut out, &format!("[output {} {label}]", j + 1));
            if let Some((mime, data)) = image {
                images.push(ImageOutput {
                    line: marker,
                    mime,
                    data,
                });
            }
            if !text.is_empty() {
                push(&mut out, &clamp_output(&text));
            }
        }
    }
    if out.ends_with('\n') {
        out.pop();
    }
    (out, images)
}

/// An output's label, its text, and its image (MIME type, base64) if any.
fn describe_output(output: &Value) -> (String, String, Option<(String, String)>) {
    let kind = output
        .get("output_type")
        .and_then(Value::as_str)
        .unwrap_or("?");
    let joined = |v: Option<&Value>| match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    };
    match kind {
        "stream" => {
            let name = output
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("stdout");
            (format!("stream {name}"), joined(output.get("text")), None)
        }
        "error" => {
            let ename = output.get("ename").and_then(Value::as_str).unwrap_or("");
            let evalue = output.get("evalue").and_then(Value::as_str).unwrap_or("");
            let trace: Vec<String> = output
                .get("traceback")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|l| crate::tools::shell::terminal::plain_text(l.as_bytes()))
                .collect();
            (format!("error {ename}: {evalue}"), trace.join("\n"), None)
        }
        _ => {
            let data = output.get("data").and_then(Value::as_object);
            let image = data.and_then(|d| {
                ["image/png", "image/jpeg", "image/gif", "image/webp"]
                    .iter()
                    .find_map(|m| {
                        let b64: String = joined(d.get(*m)).split_whitespace().collect();
                        (!b64.is_empty()).then(|| (m.to_string(), b64))
                    })
            });
            let text = data
                .map(|d| joined(d.get("text/plain")))
                .unwrap_or_default();
            let mimes: Vec<&str> = data
                .map(|d| d.keys().map(String::as_str).collect())
                .unwrap_or_default();
            let mut label = format!("{kind} {}", mimes.join(" "));
            if let Some((mime, _)) = &image {
                label.push_str(&format!(
                    "; the {mime} is sent as an image block where the face carries images"
                ));
            }
            (label.trim_end().to_string(), text, image)
        }
    }
}

/// An output's text cut at [`OUTPUT_MAX_LINES`] and [`OUTPUT_MAX_CHARS`],
/// saying how much was not shown.
fn clamp_output(text: &str) -> String {
    let text = text.strip_suffix('\n').unwrap_or(text);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut kept = String::new();
    let mut shown_lines = 0;
    for l in &lines {
        if shown_lines == OUTPUT_MAX_LINES
            || kept.chars().count() + l.chars().count() > OUTPUT_MAX_CHARS
        {
            break;
        }
        if shown_lines > 0 {
            kept.push('\n');
        }
        kept.push_str(l);
        shown_lines += 1;
    }
    if shown_lines == 0 && !lines.is_empty() {
        kept = lines[0].chars().take(OUTPUT_MAX_CHARS).collect();
        shown_lines = 1;
    }
    if shown_lines < lines.len()
        || kept.len() < lines.iter().map(|l| l.len() + 1).sum::<usize>() - 1
    {
        let hidden = lines.len() - shown_lines;
        kept.push_str(&format!(
            "\n[… this output is clamped: {hidden} more line{} not shown]",
            if hidden == 1 { "" } else { "s" }
        ));
    }
    kept
}

/// What `edit` does to a notebook's cell.
#[derive(Debug, Clone, PartialEq)]
pub enum CellOp {
    /// oldText/newText (or `edits`) inside the cell's source.
    Replace,
    /// A new cell after this one (`0` for the start), its source `newText`.
    Insert {
        cell_type: String,
    },
    Delete,
}

/// The index of the cell `key` names: a cell id, else a 1-based number; `0`
/// is the position before the first cell (for an insert).
fn find_cell(
    cells: &[Value],
    key: &str,
    path: &str,
    allow_start: bool,
) -> Result<Option<usize>, String> {
    if let Some(i) = cells
        .iter()
        .position(|c| c.get("id").and_then(Value::as_str) == Some(key))
    {
        return Ok(Some(i));
    }
    match key.parse::<usize>() {
        Ok(0) if allow_start => Ok(None),
        Ok(n) if n >= 1 && n <= cells.len() => Ok(Some(n - 1)),
        _ => Err(format!(
            "{path} has no cell {key:?}: give a cell's id or its number, 1 to {} (read shows both{}).",
            cells.len(),
            if allow_start {
                "; 0 inserts before the first cell"
            } else {
                ""
            }
        )),
    }
}

/// The new cell for an insert, with the keys nbformat 4 requires (an id from
/// 4.5 on, as nbformat makes them: 8 hex digits).
fn new_cell(cell_type: &str, source: &str, with_id: bool) -> Value {
    let mut cell = Map::new();
    cell.insert("cell_type".into(), json!(cell_type));
    if cell_type == "code" {
        cell.insert("execution_count".into(), Value::Null);
    }
    if with_id {
        let mut bytes = [0u8; 4];
        let _ = getrandom::fill(&mut bytes);
        cell.insert(
            "id".into(),
            json!(bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()),
        );
    }
    cell.insert("metadata".into(), json!({}));
    if cell_type == "code" {
        cell.insert("outputs".into(), json!([]));
    }
    cell.insert("source".into(), json!(split_lines(source)));
    Value::Object(cell)
}

/// What an edit of a notebook did: the new file and what the answer reports.
pub struct CellEdit {
    pub new_json: String,
    pub replacements: usize,
    pub stage: matching::MatchStage,
    pub summary: String,
}

/// Apply `op` to the cell `key` of the notebook `bytes`.
pub fn apply(
    path: &str,
    bytes: &[u8],
    key: &str,
    op: &CellOp,
    edits: &[(String, String, bool)],
    budget: &matching::Budget,
) -> Result<CellEdit, String> {
    let mut nb = parse(path, bytes)?;
    let with_ids = nb
        .get("nbformat_minor")
        .and_then(Value::as_u64)
        .unwrap_or(0)
        >= 5;
    let cells = nb["cells"].as_array_mut().expect("parse checked");
    let (replacements, stage, summary) = match op {
        CellOp::Replace => {
            let i = find_cell(cells, key, path, false)?.expect("no start");
            let source = source_of(&cells[i]);
            let plan = matching::plan_edits_within(&source, edits, budget)
                .map_err(|e| e.message(&format!("{path} cell {}", i + 1)))?;
            let new = matching::splice_text(&source, &plan.splices);
            cells[i]["source"] = json!(split_lines(&new));
            (plan.splices.len(), plan.stage, format!("in cell {}", i + 1))
        }
        CellOp::Delete => {
            let i = find_cell(cells, key, path, false)?.expect("no start");
            cells.remove(i);
            (
                1,
                matching::MatchStage::Exact,
                format!("deleted cell {}", i + 1),
            )
        }
        CellOp::Insert { cell_type } => {
            let at = find_cell(cells, key, path, true)?.map_or(0, |i| i + 1);
            let source = edits.first().map_or("", |(_, new, _)| new.as_str());
            cells.insert(at, new_cell(cell_type, source, with_ids));
            (
                1,
                matching::MatchStage::Exact,
                format!("inserted cell {} ({cell_type})", at + 1),
            )
        }
    };
    Ok(CellEdit {
        new_json: to_nbformat_json(&nb),
        replacements,
        stage,
        summary,
    })
}

/// `value` as nbformat writes it: keys sorted, one-space indent, non-ASCII
/// kept, a final newline (see the module doc).
pub fn to_nbformat_json(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    out.push('\n');
    out
}

fn write_value(out: &mut String, value: &Value, depth: usize) {
    let indent = |out: &mut String, d: usize| {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', d));
    };
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, depth + 1);
                write_value(out, item, depth + 1);
            }
            indent(out, depth);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push('{');
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, depth + 1);
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                write_value(out, &map[key], depth + 1);
            }
            indent(out, depth);
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NB: &str = r##"{
 "cells": [
  {
   "cell_type": "markdown",
   "id": "aa11",
   "metadata": {},
   "source": [
    "# Title ü\n",
    "text"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 2,
   "id": "bb22",
   "metadata": {},
   "outputs": [
    {
     "name": "stdout",
     "output_type": "stream",
     "text": [
      "hi\n"
     ]
    }
   ],
   "source": [
    "def f(x):\n",
    "    return x + 1\n",
    "print('hi')"
   ]
  }
 ],
 "metadata": {
  "kernelspec": {
   "display_name": "Python 3",
   "language": "python",
   "name": "python3"
  }
 },
 "nbformat": 4,
 "nbformat_minor": 5
}
"##;

    #[test]
    fn an_unedited_notebook_is_written_back_byte_identical() {
        let nb = parse("n.ipynb", NB.as_bytes()).unwrap();
        assert_eq!(to_nbformat_json(&nb), NB);
    }

    #[test]
    fn splitlines_is_pythons() {
        assert_eq!(
            split_lines("a\nb\r\nc\rd"),
            vec!["a\n", "b\r\n", "c\r", "d"]
        );
        assert_eq!(split_lines("x\u{2028}y\n"), vec!["x\u{2028}", "y\n"]);
        assert!(split_lines("").is_empty());
    }

    #[test]
    fn a_cell_edit_changes_only_that_cell() {
        let budget = matching::Budget::for_call(crate::kernel::CancellationToken::new());
        let edits = vec![(
            "return x + 1".to_string(),
            "return x + 2".to_string(),
            false,
        )];
        let done = apply(
            "n.ipynb",
            NB.as_bytes(),
            "bb22",
            &CellOp::Replace,
            &edits,
            &budget,
        )
        .unwrap();
        assert_eq!(done.new_json, NB.replace("x + 1", "x + 2"));
        // By number too, and a missing text is the ladder's refusal.
        let again = apply(
            "n.ipynb",
            NB.as_bytes(),
            "2",
            &CellOp::Replace,
            &edits,
            &budget,
        )
        .unwrap();
        assert_eq!(again.new_json, done.new_json);
        let missing = vec![("nope".to_string(), "x".to_string(), false)];
        assert!(
            apply(
                "n.ipynb",
                NB.as_bytes(),
                "aa11",
                &CellOp::Replace,
                &missing,
                &budget
            )
            .is_err()
        );
        assert!(
            apply(
                "n.ipynb",
                NB.as_bytes(),
                "zz",
                &CellOp::Replace,
                &edits,
                &budget
            )
            .err()
            .unwrap()
            .contains("no cell \"zz\"")
        );
    }

    #[test]
    fn insert_and_delete_cells() {
        let budget = matching::Budget::for_call(crate::kernel::CancellationToken::new());
        let edits = vec![(String::new(), "x = 1\ny = 2".to_string(), false)];
        let op = CellOp::Insert {
            cell_type: "code".into(),
        };
        let done = apply("n.ipynb", NB.as_bytes(), "0", &op, &edits, &budget).unwrap();
        let nb: Value = serde_json::from_str(&done.new_json).unwrap();
        assert_eq!(nb["cells"][0]["source"], json!(["x = 1\n", "y = 2"]));
        assert_eq!(nb["cells"][0]["outputs"], json!([]));
        assert_eq!(nb["cells"][0]["id"].as_str().unwrap().len(), 8);
        let gone = apply(
            "n.ipynb",
            NB.as_bytes(),
            "aa11",
            &CellOp::Delete,
            &[],
            &budget,
        )
        .unwrap();
        let nb: Value = serde_json::from_str(&gone.new_json).unwrap();
        assert_eq!(nb["cells"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn render_shows_cells_and_outputs() {
        let nb = parse("n.ipynb", NB.as_bytes()).unwrap();
        let (text, images) = render(&nb);
        assert_eq!(
            text,
            "[cell 1 markdown id=aa11]\n# Title ü\ntext\n[cell 2 code id=bb22 execution_count=2]\ndef f(x):\n    return x + 1\nprint('hi')\n[output 1 stream stdout]\nhi"
        );
        assert!(images.is_empty());
        let long = (0..100)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(clamp_output(&long).ends_with("60 more lines not shown]"));
    }
}
