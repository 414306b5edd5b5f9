//! Legacy text encodings: what `read`, `edit` and `write` do with a file that is
//! text in another encoding than UTF-8 (Latin-1, Shift_JIS, GBK, UTF-16…).
//!
//! The rule is that nothing is ever converted silently. Without `encoding` a
//! non-UTF-8 file is shown with U+FFFD (read) or refused (edit), and the message
//! names the likely encoding and the flag. With it, the file is decoded for the
//! tools, and written back in its own encoding, byte for byte where the text did
//! not change: a file whose bytes do not come back exactly from their own
//! decoding is refused before anything is written, and a character the encoding
//! cannot represent is refused by name.
//!
//! Labels are the WHATWG Encoding Standard's (encoding_rs), so `latin1` and
//! `iso-8859-1` name windows-1252, as in every browser: its bytes 0x80–0x9F are
//! characters (€, “…”) where strict ISO-8859-1 has control codes. The round trip
//! is exact either way. encoding_rs encodes UTF-16 to UTF-8 (the Standard's
//! rule for form submission), so UTF-16 is encoded here, by `encode_utf16`.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

/// What the caller asked for: one encoding, or a guess (`auto`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Choice {
    Named(&'static Encoding),
    Auto,
}

/// The `encoding` field read: a WHATWG label or `auto`; `None` when not given.
pub fn parse_choice(label: Option<&str>) -> Result<Option<Choice>, String> {
    let Some(label) = label.map(str::trim).filter(|l| !l.is_empty()) else {
        return Ok(None);
    };
    if label.eq_ignore_ascii_case("auto") {
        return Ok(Some(Choice::Auto));
    }
    // encoding_rs knows `utf-16le`/`utf-16be`; `utf16le` is a common spelling.
    let normalized = match label.to_ascii_lowercase().as_str() {
        "utf16le" | "utf-16" | "utf16" => "utf-16le".to_string(),
        "utf16be" => "utf-16be".to_string(),
        "shift-jis" | "sjis" => "shift_jis".to_string(),
        "eucjp" => "euc-jp".to_string(),
        other => other.to_string(),
    };
    match Encoding::for_label(normalized.as_bytes()) {
        Some(e) if e == encoding_rs::REPLACEMENT => Err(format!(
            "encoding: {label:?} names an encoding that cannot be decoded safely (it maps to the replacement encoding)."
        )),
        Some(e) => Ok(Some(Choice::Named(e))),
        None => Err(format!(
            "encoding: {label:?} is not an encoding label; try latin1, windows-1252, shift_jis, euc-jp, gbk, big5, euc-kr, utf-16le, utf-16be, koi8-r, or auto."
        )),
    }
}

/// A file's text decoded from its encoding, with what writing it back needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub encoding: &'static Encoding,
    /// The file began with the encoding's byte-order mark (not part of `text`).
    pub bom: bool,
    /// How the encoding was chosen: `named`, `bom` or `detected`.
    pub how: &'static str,
    pub text: String,
    /// The first byte offset that is malformed in this encoding (shown as
    /// U+FFFD in `text`).
    pub malformed: Option<usize>,
}

/// The BOM of `encoding` at the start of `bytes`, if there is one.
fn bom_len(encoding: &'static Encoding, bytes: &[u8]) -> usize {
    match Encoding::for_bom(bytes) {
        Some((e, len)) if e == encoding => len,
        _ => 0,
    }
}

/// The encoding `choice` gives for `bytes`: the named one, or by BOM, by being
/// valid UTF-8, or by chardetng's guess; a build without the detector (no
/// `media` feature) asks for the name instead of guessing.
pub fn resolve(choice: Choice, bytes: &[u8]) -> Result<(&'static Encoding, &'static str), String> {
    match choice {
        Choice::Named(e) => Ok((e, "named")),
        Choice::Auto => match Encoding::for_bom(bytes) {
            Some((e, _)) => Ok((e, "bom")),
            None if std::str::from_utf8(bytes).is_ok() => Ok((UTF_8, "detected")),
            None => guess(bytes).map(|e| (e, "detected")).ok_or_else(|| {
                "encoding auto: this indus-tool was built without the media feature, which guesses encodings; name the encoding (latin1, shift_jis, gbk…).".to_string()
            }),
        },
    }
}

/// chardetng's guess at the encoding of non-UTF-8 `bytes` (the first 64 KiB),
/// or the one its byte-order mark names.
pub fn guess(bytes: &[u8]) -> Option<&'static Encoding> {
    if let Some((e, _)) = Encoding::for_bom(bytes) {
        return Some(e);
    }
    #[cfg(feature = "media")]
    {
        let mut detector = chardetng::EncodingDetector::new();
        detector.feed(&bytes[..bytes.len().min(64 * 1024)], true);
        Some(detector.guess(None, true))
    }
    #[cfg(not(feature = "media"))]
    None
}

/// The sentence that names the likely encoding of a file that is not UTF-8 and
/// how to read it so: `It looks like shift_jis; give --encoding shift_jis (or auto).`
pub fn hint(bytes: &[u8]) -> String {
    match guess(bytes) {
        Some(e) => {
            let name = e.name().to_ascii_lowercase();
            format!(
                " It looks like {name}; give --encoding {name} (JSON \"encoding\": \"{name}\"), or --encoding auto."
            )
        }
        None => " Give its encoding with --encoding (latin1, shift_jis, gbk, utf-16le…).".into(),
    }
}

/// `bytes` decoded as `encoding`, its BOM set aside. Malformed sequences are
/// U+FFFD and the first one's offset is kept: `read` shows them, `edit` refuses.
pub fn decode(bytes: &[u8], encoding: &'static Encoding, how: &'static str) -> Decoded {
    let skip = bom_len(encoding, bytes);
    let body = &bytes[skip..];
    let (text, malformed) = match encoding.decode_without_bom_handling_and_without_replacement(body)
    {
        Some(text) => (text.into_owned(), None),
        None => {
            let (text, _) = encoding.decode_without_bom_handling(body);
            (
                text.into_owned(),
                Some(skip + first_malformed(encoding, body)),
            )
        }
    };
    Decoded {
        encoding,
        bom: skip > 0,
        how,
        text,
        malformed,
    }
}

/// The offset of the first malformed sequence in `body` (decoded through a
/// decoder in one call, which reports how much it read before it).
fn first_malformed(encoding: &'static Encoding, body: &[u8]) -> usize {
    let mut decoder = encoding.new_decoder_without_bom_handling();
    let mut out = String::with_capacity(
        decoder
            .max_utf8_buffer_length_without_replacement(body.len())
            .unwrap_or(body.len() * 3 + 16),
    );
    let (result, read) = decoder.decode_to_string_without_replacement(body, &mut out, true);
    match result {
        encoding_rs::DecoderResult::Malformed(bad, unread) => {
            read.saturating_sub(bad as usize + unread as usize)
        }
        _ => read,
    }
}

/// `text` in `encoding` (its BOM first when `bom`), or the first character it
/// cannot represent, named with its line.
pub fn encode(text: &str, encoding: &'static Encoding, bom: bool) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() + 4);
    if encoding == UTF_16LE || encoding == UTF_16BE {
        let le = encoding == UTF_16LE;
        let mut push =
            |u: u16| out.extend_from_slice(&if le { u.to_le_bytes() } else { u.to_be_bytes() });
        if bom {
            push(0xFEFF);
        }
        text.encode_utf16().for_each(push);
        return Ok(out);
    }
    if bom && encoding == UTF_8 {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    let mut encoder = encoding.new_encoder();
    let mut rest = text;
    loop {
        let mut buf = vec![0u8; rest.len() * 4 + 16];
        let (result, read, written) =
            encoder.encode_from_utf8_without_replacement(rest, &mut buf, true);
        out.extend_from_slice(&buf[..written]);
        match result {
            encoding_rs::EncoderResult::InputEmpty => return Ok(out),
            encoding_rs::EncoderResult::OutputFull => rest = &rest[read..],
            encoding_rs::EncoderResult::Unmappable(c) => {
                let at = text.len() - rest.len() + read - c.len_utf8();
                let line = text[..at].matches('\n').count() + 1;
                return Err(format!(
                    "{c:?} (U+{:04X}) on line {line} cannot be written in {}; nothing was written. Use characters the encoding has, or convert the file deliberately (iconv) first.",
                    c as u32,
                    encoding.name().to_ascii_lowercase()
                ));
            }
        }
    }
}

/// A decoded file checked for editing: well-formed, and giving back exactly
/// its own bytes when encoded again (so the parts an edit does not touch stay
/// byte-identical).
pub fn decode_for_edit(path: &str, bytes: &[u8], choice: Choice) -> Result<Decoded, String> {
    let (encoding, how) = resolve(choice, bytes)?;
    let decoded = decode(bytes, encoding, how);
    let name = encoding.name().to_ascii_lowercase();
    if let Some(at) = decoded.malformed {
        return Err(format!(
            "{path} is not valid {name} (first bad byte at offset {at}); edit refuses to rewrite it."
        ));
    }
    match encode(&decoded.text, encoding, decoded.bom) {
        Ok(again) if again == bytes => Ok(decoded),
        Ok(again) => {
            let at = again
                .iter()
                .zip(bytes)
                .position(|(a, b)| a != b)
                .unwrap_or(again.len().min(bytes.len()));
            Err(format!(
                "{path} does not round-trip through {name} (its bytes differ from offset {at} when written back); edit refuses to change it."
            ))
        }
        Err(e) => Err(format!("{path} does not round-trip through {name}: {e}")),
    }
}

/// The record's `encoding` object.
pub fn describe(d: &Decoded) -> serde_json::Value {
    serde_json::json!({
        "name": d.encoding.name().to_ascii_lowercase(),
        "bom": d.bom,
        "chosen": d.how,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_parse_and_unknown_ones_are_named() {
        assert_eq!(parse_choice(Some("auto")).unwrap(), Some(Choice::Auto));
        assert_eq!(parse_choice(None).unwrap(), None);
        let Some(Choice::Named(e)) = parse_choice(Some("Shift-JIS")).unwrap() else {
            panic!()
        };
        assert_eq!(e, encoding_rs::SHIFT_JIS);
        assert!(
            parse_choice(Some("klingon"))
                .unwrap_err()
                .contains("\"klingon\"")
        );
        assert!(
            parse_choice(Some("iso-2022-kr")).is_err(),
            "the replacement encoding is refused"
        );
    }

    #[test]
    fn legacy_files_round_trip_byte_exact() {
        for (label, text) in [
            ("shift_jis", "日本語のテキスト\r\nです\r\n"),
            ("gbk", "中文文本\n"),
            ("windows-1252", "café €5\n"),
            ("big5", "中文\n"),
            ("euc-jp", "日本\n"),
        ] {
            let Some(Choice::Named(e)) = parse_choice(Some(label)).unwrap() else {
                panic!()
            };
            let bytes = encode(text, e, false).unwrap();
            let d = decode_for_edit("f", &bytes, Choice::Named(e)).unwrap();
            assert_eq!(d.text, text, "{label}");
        }
    }

    #[test]
    fn utf16_keeps_its_bom_and_is_encoded_as_utf16() {
        let bytes = encode("hé\n", UTF_16LE, true).unwrap();
        assert_eq!(bytes, b"\xff\xfeh\x00\xe9\x00\n\x00");
        let d = decode_for_edit("f", &bytes, Choice::Auto).unwrap();
        assert_eq!((d.text.as_str(), d.bom, d.how), ("hé\n", true, "bom"));
        assert_eq!(encode(&d.text, d.encoding, d.bom).unwrap(), bytes);
    }

    #[test]
    fn an_unrepresentable_character_is_named_with_its_line() {
        let e = encode("a\nb☃", encoding_rs::SHIFT_JIS, false).unwrap_err();
        assert!(e.contains("'☃' (U+2603) on line 2"), "{e}");
        let e = encode("日本", encoding_rs::WINDOWS_1252, false).unwrap_err();
        assert!(e.contains("U+65E5") && e.contains("windows-1252"), "{e}");
    }

    #[test]
    fn malformed_bytes_are_found_and_refused_for_editing() {
        let bytes = b"ok \x82";
        let d = decode(bytes, encoding_rs::SHIFT_JIS, "named");
        assert_eq!(d.malformed, Some(3));
        assert!(
            decode_for_edit("f", bytes, Choice::Named(encoding_rs::SHIFT_JIS))
                .unwrap_err()
                .contains("offset 3")
        );
    }

    #[test]
    #[cfg(feature = "media")]
    fn a_guess_names_the_likely_encoding() {
        let sjis = encode(
            "これは日本語の文章です。ファイルの中身。",
            encoding_rs::SHIFT_JIS,
            false,
        )
        .unwrap();
        assert!(hint(&sjis).contains("shift_jis"), "{}", hint(&sjis));
    }
}
