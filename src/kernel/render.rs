//! The text a person reads for a projected output (see `program_view` for what
//! a program reads). It lives on the kernel's floor because every face that shows
//! text needs the same rendering: the command line prints it, `batch --format text`
//! and `call --format text` send it as a JSON line's `text`, and a copy anywhere
//! else would drift from what the command line prints.

use serde_json::Value;

use super::spec::media_kind;

/// The text form of a projected output: strings as-is, a block array block by block,
/// any other JSON pretty-printed. A JSON block beside text is the text's record
/// for programs (see `program_view`) and is not printed for people.
pub fn render_text(output: &Value) -> String {
    match output {
        Value::String(s) => s.clone(),
        Value::Array(items) if !items.is_empty() && items.iter().all(is_block) => {
            let has_text = items
                .iter()
                .any(|b| b.get("kind").and_then(Value::as_str) == Some("text"));
            let media = |b: &Value| b.get("value").and_then(placeholder);
            let parts: Vec<String> = items
                .iter()
                .filter(|b| {
                    !has_text
                        || b.get("kind").and_then(Value::as_str) == Some("text")
                        || media(b).is_some()
                })
                .map(|b| match b.get("kind").and_then(Value::as_str) {
                    Some("text") => b
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                    _ => media(b).unwrap_or_else(|| pretty(b.get("value").unwrap_or(&Value::Null))),
                })
                .collect();
            parts
                .iter()
                .map(|p| p.trim_end_matches('\n'))
                .collect::<Vec<_>>()
                .join("\n")
        }
        other => placeholder(other).unwrap_or_else(|| pretty(other)),
    }
}

/// The one line a person sees for an MCP content block that is not text (see
/// `kernel::media_kind`): `[image/png, 1.2 KiB]`, `[resource: URI]`,
/// `[resource link: NAME URI]`. `--format json` keeps the block itself.
fn placeholder(v: &Value) -> Option<String> {
    let s = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
    Some(match media_kind(v)? {
        "image" | "audio" => {
            // The decoded size of the base64 data.
            let data = s("data").trim_end_matches('=');
            let bytes = data.len() * 3 / 4;
            format!(
                "[{}, {} — --save-media DIR writes it]",
                s("mimeType"),
                human_size(bytes as u64)
            )
        }
        "resource" => {
            let uri = v
                .get("resource")
                .and_then(|r| r.get("uri"))
                .and_then(Value::as_str)
                .unwrap_or("");
            format!("[resource: {uri}]")
        }
        _ => format!("[resource link: {} {}]", s("name"), s("uri")),
    })
}

/// A byte count as a person reads it: `512 B`, `1.2 KiB`, `3.4 MiB`.
pub fn human_size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
    }
}

/// Whether `v` is one block of a projected mix (`{"kind":"text","text"}` or
/// `{"kind":"json","value"}`).
pub fn is_block(v: &Value) -> bool {
    match v.get("kind").and_then(Value::as_str) {
        Some("text") => v.get("text").is_some_and(Value::is_string),
        Some("json") => v.get("value").is_some(),
        _ => false,
    }
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).expect("JSON values serialize")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A grafted tool's mixed content keeps every block: texts as they are,
    /// each non-text block as one line, the record (structuredContent) not shown.
    #[test]
    fn mcp_content_is_shown_as_placeholders_beside_the_texts() {
        let out = json!([
            {"kind": "text", "text": "before"},
            {"kind": "json", "value": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}},
            {"kind": "json", "value": {"type": "resource_link", "uri": "test://r/1", "name": "one"}},
            {"kind": "json", "value": {"type": "resource", "resource": {"uri": "test://r/2", "text": "x"}}},
            {"kind": "text", "text": "after"},
            {"kind": "json", "value": {"type": "image", "note": "a record, not content"}}
        ]);
        assert_eq!(
            render_text(&out),
            "before\n[image/png, 8 B — --save-media DIR writes it]\n[resource link: one test://r/1]\n[resource: test://r/2]\nafter"
        );
        // Programs get every block, in order.
        assert_eq!(crate::kernel::program_view(&out), out);
        // A lone image (read_media_file) is its line too.
        assert_eq!(
            render_text(
                &json!({"type": "image", "data": "R0lGODlhAQABAAAAADs=", "mimeType": "image/gif"})
            ),
            "[image/gif, 14 B — --save-media DIR writes it]"
        );
    }

    #[test]
    fn text_rendering() {
        assert_eq!(render_text(&json!("hi\n")), "hi\n");
        assert_eq!(render_text(&json!({"a": 1})), "{\n  \"a\": 1\n}");
        assert_eq!(
            render_text(
                &json!([{"kind": "text", "text": "sum\n"}, {"kind": "json", "value": [1]}])
            ),
            "sum"
        );
        // A plain array that is not a block list is just JSON.
        assert_eq!(render_text(&json!([1, 2])), "[\n  1,\n  2\n]");
    }
}
