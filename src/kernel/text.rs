//! Bytes shown as text: file contents, names on disk and paths, decoded as UTF-8
//! with U+FFFD for what is not.
//!
//! One helper for every floor that shows bytes (the local backend's walk names,
//! `read`'s lines), in the kernel because backends and tools both use it. Valid
//! UTF-8 is the common case, and `str::from_utf8` checks it a word at a time,
//! where `String::from_utf8_lossy` walks it in chunks: a walk of 20,000 entries
//! spent 4% of its instructions there.
//!
//! [`inert`] is the other half: text that comes from a record (a checklist
//! item, a job's command, a node's name) shown on one line of an answer, with
//! its control characters escaped, so it can neither drive a terminal (ANSI
//! escapes) nor forge a line of the answer (a newline and "All checks passed").

use std::borrow::Cow;

/// `bytes` as text: borrowed when they are valid UTF-8, else with U+FFFD.
pub fn lossy_utf8(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// `text` with every control character (C0, DEL, C1) written as an escape
/// (`\n`, `\t`, `\r`, `\x1b`, `\u{9b}`); borrowed when there is none.
pub fn inert(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 && c.is_control() => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `1 file`, `2 files`: the counting phrase every tool's summary uses.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `n` with a comma between thousands (`100,000`), as a header states a size.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inert_escapes_every_control_character_and_nothing_else() {
        assert!(matches!(inert("plain é 𝄞"), Cow::Borrowed(_)));
        assert_eq!(
            inert("a\nAll checks passed\x1b[32m\r\t\u{9b}\u{7f}"),
            "a\\nAll checks passed\\x1b[32m\\r\\t\\u{9b}\\x7f"
        );
    }

    #[test]
    fn same_as_the_lossy_decoder() {
        for bytes in [&b"plain"[..], "é€𝄞".as_bytes(), b"a\xffb", b"\xe2\x82", b""] {
            let ours = lossy_utf8(bytes);
            assert_eq!(ours, String::from_utf8_lossy(bytes));
            assert_eq!(
                matches!(ours, Cow::Borrowed(_)),
                std::str::from_utf8(bytes).is_ok()
            );
        }
    }
}
