//! Bytes shown as text: file contents, names on disk and paths, decoded as UTF-8
//! with U+FFFD for what is not.
//!
//! One helper for every floor that shows bytes (the local backend's walk names,
//! `read`'s lines), in the kernel because backends and tools both use it. Valid
//! UTF-8 is the common case, and `str::from_utf8` checks it a word at a time,
//! where `String::from_utf8_lossy` walks it in chunks: a walk of 20,000 entries
//! spent 4% of its instructions there.

use std::borrow::Cow;

/// `bytes` as text: borrowed when they are valid UTF-8, else with U+FFFD.
pub fn lossy_utf8(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
