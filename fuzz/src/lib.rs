//! The properties the fuzz targets check, one function per target.
//!
//! They live here, not in the targets, so that two runners share them: libFuzzer
//! (`cargo +nightly fuzz run TARGET`, see `fuzz/README.md`) feeds them generated
//! inputs, and `tests/it/fuzz_corpus.rs` in the main package replays every committed
//! corpus file through them on stable in `cargo test`, so a finding turned into a
//! corpus file stays a regression test. Each function panics (which libFuzzer
//! reports as a crash) when a property fails; inputs are raw bytes, cut into fields
//! at NUL bytes and read as UTF-8 lossily, so a corpus file is mostly readable text.

use indus_tool::kernel::output::{ceil_char_boundary, floor_char_boundary};
use indus_tool::tools::files::matching::{EditFailure, MatchStage, apply_edit, decode, encode};
use indus_tool::tools::web::{ddg, html};
use indus_tool::{ClipEnd, OutputBudget, apply_unified_diff};
use serde_json::Value;

/// The first `n - 1` NUL-separated fields of `data` and the rest as the last one,
/// each as lossy UTF-8; missing fields are empty.
fn fields(data: &[u8], n: usize) -> Vec<String> {
    let mut out: Vec<String> = data
        .splitn(n, |&b| b == 0)
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    out.resize(n, String::new());
    out
}

/// The first byte (a parameter) and the rest.
fn split_first(data: &[u8]) -> (u8, &[u8]) {
    match data.split_first() {
        Some((&b, rest)) => (b, rest),
        None => (0, &[]),
    }
}

/// `clamp` keeps a character-aligned head, tail or both, within the budget, and the
/// notice counts exactly the bytes it dropped.
pub fn clamp(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let kind = [ClipEnd::Head, ClipEnd::Tail, ClipEnd::Middle][data[0] as usize % 3];
    let max = u16::from_le_bytes([data[1], data[2]]) as usize % 4096;
    // The notice is fenced by NULs, which the text is kept free of, so the
    // middle case can find it without knowing where the cut fell.
    let text = String::from_utf8_lossy(&data[3..]).replace('\0', "");
    let notice = |n: usize| format!("\0{n}\0");
    let budget = OutputBudget::with_notice(kind, max, notice);
    let out = indus_tool::clamp(&text, &budget);
    if text.len() <= max {
        assert_eq!(out, text, "text within the budget must be untouched");
        return;
    }
    match kind {
        ClipEnd::Head => {
            let end = floor_char_boundary(&text, max);
            assert!(max - end < 4, "head kept {end} of {max} bytes");
            assert_eq!(out, format!("{}{}", &text[..end], notice(text.len() - end)));
        }
        ClipEnd::Tail => {
            let start = ceil_char_boundary(&text, text.len() - max);
            assert!(text.len() - start <= max);
            assert_eq!(out, format!("{}{}", notice(start), &text[start..]));
        }
        ClipEnd::Middle => {
            if out == text {
                // Only when the two halves meet: nothing would be dropped.
                let head = floor_char_boundary(&text, max / 2);
                let tail = ceil_char_boundary(&text, text.len() - (max - max / 2));
                assert!(
                    head >= tail,
                    "middle clamp returned an over-budget text whole"
                );
                return;
            }
            let open = out.find('\0').expect("the notice is present");
            let close = open + 1 + out[open + 1..].find('\0').expect("the notice closes");
            let omitted: usize = out[open + 1..close].parse().expect("a count");
            let (head, tail) = (&out[..open], &out[close + 1..]);
            assert!(head.len() <= max / 2 && tail.len() <= max - max / 2);
            assert_eq!(head.len() + omitted + tail.len(), text.len());
            assert!(text.starts_with(head) && text.ends_with(tail));
        }
    }
}

/// `coerce_input` turns `null` into `{}`, a string holding a JSON object or array
/// into that value, passes everything else through, and is idempotent.
pub fn coerce_input(data: &[u8]) {
    let text = String::from_utf8_lossy(data).into_owned();
    let mut values = vec![Value::String(text.clone()), Value::Null];
    if let Ok(v) = serde_json::from_slice::<Value>(data) {
        values.push(v);
    }
    for value in values {
        let once = indus_tool::coerce_input(value.clone());
        let twice = indus_tool::coerce_input(once.clone());
        assert_eq!(once, twice, "coerce_input is not idempotent on {value:?}");
        match (&value, &once) {
            (Value::Null, v) => assert_eq!(v, &Value::Object(Default::default())),
            (Value::String(s), Value::String(t)) => assert_eq!(s, t),
            (Value::String(s), v) => {
                let t = s.trim();
                assert!(v.is_object() || v.is_array(), "{s:?} became {v:?}");
                assert_eq!(&serde_json::from_str::<Value>(t).unwrap(), v);
            }
            (v, w) => assert_eq!(v, w),
        }
    }
}

/// A rendered diff is empty exactly when the texts are equal, applies back to the
/// exact bytes at its exact line numbers, and (with context) through diffy too.
pub fn diff_apply(data: &[u8]) {
    let (param, rest) = split_first(data);
    let context = (param % 5) as usize;
    let f = fields(rest, 2);
    let (before, after) = (&f[0], &f[1]);
    let diff = indus_tool::render_unified_diff(before, after, context);
    if before == after {
        assert_eq!(diff, "");
        return;
    }
    match apply_unified_diff(before, &diff) {
        Ok(applied) => assert_eq!(&applied, after, "diff {diff:?}"),
        Err(e) => panic!("the diff does not apply back ({e}): {diff:?}"),
    }
    let d = indus_tool::diff_lines(before, after);
    let minus = diff.lines().filter(|l| l.starts_with('-')).count();
    let plus = diff.lines().filter(|l| l.starts_with('+')).count();
    assert_eq!((d.removed, d.added), (minus, plus));
    if context > 0 {
        let patch_text = format!("--- a\n+++ b\n{diff}");
        let patch = diffy::Patch::from_str(&patch_text)
            .unwrap_or_else(|e| panic!("diffy cannot parse {patch_text:?}: {e}"));
        let applied = diffy::apply(before, &patch)
            .unwrap_or_else(|e| panic!("diffy cannot apply {patch_text:?}: {e}"));
        assert_eq!(&applied, after);
    }
}

/// Edit matching never panics; decoding and encoding a file's bytes is exact; on a
/// text without `\r`, an exact match replaces exactly what `str::replacen` would,
/// and every refusal can be worded.
pub fn edit_match(data: &[u8]) {
    let (param, rest) = split_first(data);
    let replace_all = param & 1 == 1;
    if let Ok(d) = decode(rest) {
        assert_eq!(encode(&d, &d.text), rest, "decode/encode is not exact");
    } else {
        assert!(std::str::from_utf8(rest).is_err());
    }
    let f = fields(rest, 3);
    let (text, old, new) = (&f[0], &f[1], &f[2]);
    let result = apply_edit(text, old, new, replace_all);
    let plain = !text.contains('\r') && !old.contains('\r') && !new.contains('\r');
    // The cases whose outcome `str` can predict: a literal, line-ending-free match.
    let literal = plain && !old.is_empty() && old != new && text.contains(old.as_str());
    match result {
        Ok(applied) => {
            assert!(applied.replacements >= 1);
            assert_ne!(&applied.text, text, "an applied edit changed nothing");
            if literal {
                assert_eq!(
                    applied.stage,
                    MatchStage::Exact,
                    "a literal match fell through"
                );
                let count = text.matches(old.as_str()).count();
                assert_eq!(applied.replacements, if replace_all { count } else { 1 });
            }
            // A whole-line stage replaces one block of at most as many lines as
            // oldText has (one more for a final line without a break) per place:
            // nothing outside the matched lines changes.
            if applied.stage != MatchStage::Exact && applied.replacements == 1 {
                let (a, b): (Vec<&str>, Vec<&str>) = (
                    text.split_inclusive('\n').collect(),
                    applied.text.split_inclusive('\n').collect(),
                );
                let p = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
                let q = a[p..]
                    .iter()
                    .rev()
                    .zip(b[p..].iter().rev())
                    .take_while(|(x, y)| x == y)
                    .count();
                assert!(
                    a.len() - p - q <= old.split('\n').count() + 1,
                    "a {:?} edit changed {} lines for a {}-line oldText",
                    applied.stage,
                    a.len() - p - q,
                    old.split('\n').count()
                );
            }
            // A match at a line's indentation is written as whole lines there; every
            // other literal match replaces exactly what `str` would.
            if literal && !applied.anchored {
                let expected = if replace_all {
                    text.replace(old.as_str(), new)
                } else {
                    text.replacen(old.as_str(), new, 1)
                };
                assert_eq!(applied.text, expected);
            }
        }
        Err(failure) => {
            if literal {
                // Refused only as several places, or as a match at a line's
                // indentation whose newText could be meant two ways.
                assert!(
                    (matches!(failure, EditFailure::FoundMany { .. }) && !replace_all)
                        || matches!(failure, EditFailure::IndentAmbiguous { .. }),
                    "a literal match was refused: {failure:?}"
                );
            }
            let message = failure.message("f.txt");
            assert!(!message.is_empty());
        }
    }
}

/// HTML conversion, charset sniffing and decoding never panic, rendered content
/// cut to a budget fits it, and a body cut inside a UTF-8 character loses that
/// character rather than showing U+FFFD.
pub fn html_convert(data: &[u8]) {
    let (param, rest) = split_first(data);
    let f = fields(rest, 2);
    let (content_type, page) = (&f[0], &f[1]);
    let url = url::Url::parse("https://example.com/dir/page.html").unwrap();
    for style in [html::Style::Text, html::Style::Markdown] {
        // Whatever the budget, the content with its reference lines fits it.
        let rendered = html::render(page, &url, style);
        let max = param as usize * 7;
        let (out, cut) = rendered.fit(max);
        assert!(out.len() <= max, "{} > {max}", out.len());
        assert!(cut || rendered.fit(usize::MAX).0 == out);
    }
    let enc = html::charset(Some(content_type), page.as_bytes(), param & 1 == 1);
    let _ = html::decode(rest, enc, param & 2 == 2);
    let _ = html::looks_like_html(rest);
    let _ = html::binary_kind(rest);
    if !page.is_empty() {
        let cut = param as usize % page.len();
        let decoded = html::decode(&page.as_bytes()[..cut], encoding_rs::UTF_8, true);
        let whole = floor_char_boundary(page, cut);
        let expected = page[..whole]
            .strip_prefix('\u{feff}')
            .unwrap_or(&page[..whole]);
        assert_eq!(decoded, expected);
    }
}

/// The results parser never panics; every result has a title and an http(s) URL in
/// the `url` crate's normal form, no two the same; `result_url` gives only
/// http(s) URLs, whatever it is handed.
pub fn search_results(data: &[u8]) {
    let page = String::from_utf8_lossy(data);
    if let ddg::Page::Results(results) = ddg::parse_results(&page) {
        let mut seen = std::collections::HashSet::new();
        for r in &results {
            assert!(
                r.url.starts_with("http://") || r.url.starts_with("https://"),
                "{r:?}"
            );
            assert!(!r.title.is_empty(), "{r:?}");
            assert!(seen.insert(r.url.clone()), "duplicate {r:?}");
            let parsed = url::Url::parse(&r.url).expect("a result URL parses");
            assert_eq!(parsed.as_str(), r.url, "a result URL is in normal form");
        }
    }
    for href in page.split_whitespace().take(64) {
        if let Some(u) = ddg::result_url(href) {
            let parsed = url::Url::parse(&u).expect("result_url gives a URL");
            assert!(matches!(parsed.scheme(), "http" | "https"));
        }
    }
}

/// Images, notebooks and legacy encodings (issue 57) never panic on any bytes:
/// an image whose header parses is sent within the caps or refused in words; a
/// notebook that parses renders, and nbformat's layout of it is stable (writing
/// what was read and reading it again changes nothing); a file that decodes
/// for editing in an encoding encodes back to exactly its bytes. (PDFs are not
/// here: their extractor panics by design and runs in a worker process;
/// tests/it/media.rs feeds it mutated PDFs through the binary.)
pub fn media(data: &[u8]) {
    use indus_tool::tools::files::sniff::{FileKind, sniff};
    use indus_tool::tools::files::{encoding, image, notebook};
    let caps = image::Caps {
        max_side: 64,
        max_bytes: 20_000,
    };
    for mime in ["image/png", "image/jpeg", "image/gif", "image/webp"] {
        if let Ok(shown) = image::show("f", data, mime, "0", caps) {
            let sent = &shown.record["sent"];
            if shown.record["downscaled"] == true {
                assert!(
                    sent["width"].as_u64().unwrap() <= 64 && sent["height"].as_u64().unwrap() <= 64
                );
                assert!(sent["bytes"].as_u64().unwrap() <= 20_000);
            }
        }
    }
    if let FileKind::Image(_) | FileKind::Pdf | FileKind::Binary(_) = sniff("f.ipynb", data) {
        return;
    }
    if let Ok(nb) = notebook::parse("f.ipynb", data) {
        let _ = notebook::render(&nb);
        let once = notebook::to_nbformat_json(&nb);
        let again = notebook::parse("f.ipynb", once.as_bytes()).expect("our own layout parses");
        assert_eq!(notebook::to_nbformat_json(&again), once);
    }
    for label in [
        "shift_jis",
        "gbk",
        "windows-1252",
        "utf-16le",
        "euc-jp",
        "big5",
    ] {
        let Ok(Some(choice)) = encoding::parse_choice(Some(label)) else {
            panic!("{label} is a label");
        };
        if let Ok(decoded) = encoding::decode_for_edit("f", data, choice) {
            let back = encoding::encode(&decoded.text, decoded.encoding, decoded.bom).unwrap();
            assert_eq!(back, data, "{label} round trip");
        }
    }
}
