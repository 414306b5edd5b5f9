//! A file's bytes as text and back: UTF-8 only (anything else is refused, never
//! rewritten lossily), a byte-order mark stripped and put back, and line endings
//! kept — a file is normalized only when every line ending in it is CRLF, and
//! the round trip is exact. [`View`] is the line-ending-blind view every stage
//! matches against (each `\r\n` read as `\n`), mapped back to the real bytes,
//! and [`wants_crlf`] which ending a replacement takes.

use memchr::memmem;
use std::borrow::Cow;

pub(super) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A file's text ready for matching, with what [`encode`] needs to restore it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The file began with a UTF-8 byte-order mark (not part of `text`).
    pub bom: bool,
    /// Every line ending of the file was CRLF; `text` has them as `\n`.
    pub crlf: bool,
    pub text: String,
}

/// The file is not valid UTF-8; `offset` is the first bad byte in the file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotUtf8 {
    pub offset: usize,
}

impl NotUtf8 {
    pub fn message(&self, path: &str) -> String {
        format!(
            "{path} is not valid UTF-8 (first bad byte at offset {}); edit refuses to rewrite it.",
            self.offset
        )
    }
}

/// True when the text has at least one line ending and all of them are CRLF.
pub(super) fn all_crlf(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut any = false;
    for nl in memchr::memchr_iter(b'\n', bytes) {
        if nl == 0 || bytes[nl - 1] != b'\r' {
            return false;
        }
        any = true;
    }
    any
}

/// `\r\n` read as `\n`, borrowing when there is none.
pub(super) fn crlf_to_lf(text: &str) -> Cow<'_, str> {
    let mut pieces = memmem::find_iter(text.as_bytes(), b"\r\n").peekable();
    if pieces.peek().is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut prev = 0;
    for at in pieces {
        out.push_str(&text[prev..at]);
        prev = at + 1;
    }
    out.push_str(&text[prev..]);
    Cow::Owned(out)
}

pub(super) fn lf_to_crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut prev = 0;
    for nl in memchr::memchr_iter(b'\n', text.as_bytes()) {
        out.push_str(&text[prev..nl]);
        out.push_str("\r\n");
        prev = nl + 1;
    }
    out.push_str(&text[prev..]);
    out
}

pub(super) fn finish_decode(bom: bool, text: String) -> Decoded {
    if all_crlf(&text) {
        let text = crlf_to_lf(&text).into_owned();
        Decoded {
            bom,
            crlf: true,
            text,
        }
    } else {
        Decoded {
            bom,
            crlf: false,
            text,
        }
    }
}

/// Decode a file's bytes: UTF-8 or refused, BOM stripped, CRLF normalized when
/// every line ending is CRLF (see the module notes).
pub fn decode(bytes: &[u8]) -> Result<Decoded, NotUtf8> {
    let (bom, body) = match bytes.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let text = std::str::from_utf8(body).map_err(|e| NotUtf8 {
        offset: e.valid_up_to() + if bom { BOM.len() } else { 0 },
    })?;
    Ok(finish_decode(bom, text.to_owned()))
}

/// [`decode`] taking the bytes by value, which spares a copy of a big LF file.
pub fn decode_vec(mut bytes: Vec<u8>) -> Result<Decoded, NotUtf8> {
    let bom = bytes.starts_with(BOM);
    if bom {
        bytes.drain(..BOM.len());
    }
    let text = String::from_utf8(bytes).map_err(|e| NotUtf8 {
        offset: e.utf8_error().valid_up_to() + if bom { BOM.len() } else { 0 },
    })?;
    Ok(finish_decode(bom, text))
}

/// The bytes to write for `new_text` in `d`'s encoding: its BOM back in front and,
/// for a CRLF file, every `\n` as `\r\n`.
pub fn encode(d: &Decoded, new_text: &str) -> Vec<u8> {
    let body: Cow<'_, str> = if d.crlf {
        Cow::Owned(lf_to_crlf(new_text))
    } else {
        Cow::Borrowed(new_text)
    };
    let mut out = Vec::with_capacity(body.len() + BOM.len());
    if d.bom {
        out.extend_from_slice(BOM);
    }
    out.extend_from_slice(body.as_bytes());
    out
}

/// [`encode`] taking the text by value: a file with neither BOM nor CRLF endings
/// is written from the same buffer, sparing a copy of a big file.
pub fn encode_owned(d: &Decoded, new_text: String) -> Vec<u8> {
    if d.bom || d.crlf {
        encode(d, &new_text)
    } else {
        new_text.into_bytes()
    }
}

/// The text as matching sees it: every `\r\n` read as `\n`, with the positions
/// needed to map an offset back to the real text.
pub(super) struct View<'a> {
    pub(super) text: Cow<'a, str>,
    /// View offsets of the `\n`s that were `\r\n` in the real text, ascending.
    pub(super) crs: Vec<usize>,
}

impl<'a> View<'a> {
    pub(super) fn new(raw: &'a str) -> Self {
        let mut at = memmem::find_iter(raw.as_bytes(), b"\r\n").peekable();
        if at.peek().is_none() {
            return View {
                text: Cow::Borrowed(raw),
                crs: Vec::new(),
            };
        }
        let mut text = String::with_capacity(raw.len());
        let mut crs = Vec::new();
        let mut prev = 0;
        for r in at {
            text.push_str(&raw[prev..r]);
            crs.push(text.len());
            prev = r + 1;
        }
        text.push_str(&raw[prev..]);
        View {
            text: Cow::Owned(text),
            crs,
        }
    }

    /// The real offset of a view offset: each `\r` dropped before it moves it on.
    pub(super) fn raw(&self, at: usize) -> usize {
        at + self.crs.partition_point(|&k| k < at)
    }
}

/// Whether a replacement of `raw[start..end]` should use CRLF line endings.
pub(super) fn wants_crlf(raw: &str, start: usize, end: usize) -> bool {
    let bytes = raw.as_bytes();
    let (mut crlf, mut lf) = (0usize, 0usize);
    for nl in memchr::memchr_iter(b'\n', &bytes[start..end]) {
        if start + nl > 0 && bytes[start + nl - 1] == b'\r' {
            crlf += 1;
        } else {
            lf += 1;
        }
    }
    if crlf != lf {
        return crlf > lf;
    }
    // The line the match ends on: the one whose line break ends the match, or
    // else the one the match stops inside.
    let from = if end > start && bytes[end - 1] == b'\n' {
        end - 1
    } else {
        end
    };
    let ending = match memchr::memchr(b'\n', &bytes[from..]) {
        Some(i) => Some(from + i),
        None => memchr::memrchr(b'\n', &bytes[..start]),
    };
    ending.is_some_and(|nl| nl > 0 && bytes[nl - 1] == b'\r')
}
