//! `read` of what is not a plain UTF-8 window from the start: images, PDF
//! pages, notebooks, a legacy encoding, and the end of a file (`tail`). Each
//! reads the file, makes it text (or an image block), and hands the text to
//! the same window, budget and record as any file (`read::answer_window`).

use serde_json::json;

use crate::backends::local_fs::blocking;
use crate::kernel::digest::sha256_hex;
use crate::kernel::text::plural;
use crate::kernel::{ToolContentBlock, ToolContext, ToolResult};
use crate::state::StateDir;
use crate::state::line_marks::{self, Mark};
use crate::tools::files::edit::EDIT_MAX_BYTES;
use crate::tools::files::read_window::{
    Ask, Doc, Scan, answer_window, record_gate, scan, scan_error,
};
use crate::tools::files::{encoding, image, notebook, pdf};

/// The largest image file read: 64 MiB.
const IMAGE_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// The most image blocks one notebook window sends.
const NOTEBOOK_MAX_IMAGES: usize = 8;
/// Files up to this size are counted whole for a tail; larger ones keep a
/// line mark (see `state::line_marks`).
const TAIL_COUNT_WHOLE: u64 = 64 * 1024 * 1024;
/// The most bytes a tail shows from (the budget cuts the window far sooner).
const TAIL_MAX_BYTES: u64 = 256 * 1024 * 1024;
/// The chunk a tail reads backwards and counts forwards with.
const TAIL_CHUNK: usize = 1024 * 1024;

/// The whole file, refused past `cap` bytes with what it is.
async fn whole(
    ctx: &ToolContext,
    ask: &Ask<'_>,
    size: u64,
    cap: u64,
    what: &str,
) -> Result<Vec<u8>, String> {
    if size > cap {
        return Err(format!(
            "{} is {what} of {}; read shows {what} of up to {}.",
            ask.path,
            plural(size, "byte", "bytes"),
            plural(cap, "byte", "bytes")
        ));
    }
    // One byte past the cap tells a file that grew since it was measured,
    // without reading it all.
    let (bytes, len) = ctx
        .fs
        .read_range(&ask.abs, 0, cap as usize + 1)
        .await
        .map_err(|e| format!("Cannot read {}: {e}", crate::kernel::text::inert(ask.path)))?;
    if bytes.len() as u64 > cap {
        return Err(format!(
            "{} is {what} of {}; read shows {what} of up to {}.",
            ask.path,
            plural(len, "byte", "bytes"),
            plural(cap, "byte", "bytes")
        ));
    }
    Ok(bytes)
}

/// Scan `text` (a rendering or a decoding) as a file of its own.
async fn scan_text(ctx: &ToolContext, ask: &Ask<'_>, text: String) -> Result<Scan, String> {
    let mut window = ask.window(ctx, false);
    if let Some(n) = ask.tail {
        let lines = text.lines().count() as u64;
        window.offset = lines.saturating_sub(n) + 1;
    }
    let cancel = ctx.cancel.clone();
    blocking(move || {
        scan(
            Box::new(std::io::Cursor::new(text.into_bytes())),
            window,
            &cancel,
        )
    })
    .await
    .map_err(|e| scan_error(ask.path, &e))
}

/// The offset a tail of a rendering starts at, for the answer's check.
fn tail_offset(ask: &Ask<'_>, s: &Scan) -> u64 {
    match ask.tail {
        Some(_) => s.first,
        None => ask.offset,
    }
}

/// An image: its header, the image block, the record.
pub async fn image(ctx: &ToolContext, ask: &Ask<'_>, size: u64, mime: &'static str) -> ToolResult {
    let bytes = match whole(ctx, ask, size, IMAGE_MAX_BYTES, "an image file").await {
        Ok(b) => b,
        Err(e) => return ToolResult::failure(e),
    };
    let (path, caps) = (ask.path.to_string(), ask.caps);
    let shown = blocking(move || {
        let sha = sha256_hex(&bytes);
        Ok::<_, std::io::Error>(image::show(&path, &bytes, mime, &sha, caps))
    })
    .await;
    let shown = match shown {
        Ok(Ok(shown)) => shown,
        Ok(Err(e)) => return ToolResult::failure(e),
        Err(e) => return ToolResult::failure(scan_error(ask.path, &e)),
    };
    if let Err(e) = record_gate(ctx, &ask.abs).await {
        return ToolResult::failure(e);
    }
    let mut content = vec![
        ToolContentBlock::Text(shown.header),
        ToolContentBlock::Json(shown.block),
    ];
    if ctx.record_rows {
        content.push(ToolContentBlock::Json(shown.record));
    }
    ToolResult {
        content,
        is_error: false,
    }
}

/// A PDF: `Page N of M` and each asked page's text layer, windowed as text.
pub async fn pdf(ctx: &ToolContext, ask: &Ask<'_>, size: u64) -> ToolResult {
    let bytes = match whole(ctx, ask, size, pdf::PDF_MAX_BYTES, "a PDF").await {
        Ok(b) => b,
        Err(e) => return ToolResult::failure(e),
    };
    let sha = ctx.record_rows.then(|| sha256_hex(&bytes));
    let extracted = match pdf::extract(ask.path, bytes, ask.pages).await {
        Ok(x) => x,
        Err(e) => return ToolResult::failure(e),
    };
    let m = extracted.page_count;
    if m == 0 {
        return ToolResult::failure(format!(
            "{} has no pages that can be found (its page tree is empty, or loops); pdftotext (poppler) may read it.",
            ask.path
        ));
    }
    let mut text = String::new();
    let mut empty_pages = Vec::new();
    for (n, page) in &extracted.pages {
        text.push_str(&format!("Page {n} of {m}\n"));
        let page = page.trim_end_matches('\n');
        if page.trim().is_empty() {
            text.push_str(&format!("(no text layer on page {n}: a scanned page?)\n"));
            empty_pages.push(*n);
        } else {
            text.push_str(page);
            text.push('\n');
        }
    }
    let shown: Vec<u32> = extracted.pages.iter().map(|(n, _)| *n).collect();
    let scan = match scan_text(ctx, ask, text).await {
        Ok(s) => s,
        Err(e) => return ToolResult::failure(e),
    };
    let mut doc = Doc {
        notice: format!(
            " The text layer of {} of {}, page by page (pages picks others).",
            describe_pages(&shown),
            plural(u64::from(m), "page", "pages")
        ),
        file: Some((sha, size)),
        ..Doc::default()
    };
    if !empty_pages.is_empty() {
        doc.notice.push_str(&format!(
            " {} no text layer.",
            match empty_pages.len() {
                1 => format!("Page {} has", empty_pages[0]),
                _ => format!("{} pages have", empty_pages.len()),
            }
        ));
    }
    doc.extra.insert("kind".into(), json!("pdf"));
    doc.extra.insert("pageCount".into(), json!(m));
    doc.extra.insert("pages".into(), json!(shown));
    doc.extra
        .insert("pagesWithoutText".into(), json!(empty_pages));
    let ask = Ask {
        offset: tail_offset(ask, &scan),
        ..ask.clone()
    };
    answer_window(ctx, &ask, scan, doc).await
}

/// `pages 3–5` / `page 2` / `pages 1, 4–6`.
fn describe_pages(pages: &[u32]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &p in pages {
        match runs.last_mut() {
            Some((_, b)) if *b + 1 == p => *b = p,
            _ => runs.push((p, p)),
        }
    }
    let words: Vec<String> = runs
        .iter()
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    match pages.len() {
        1 => format!("page {}", words[0]),
        _ => format!("pages {}", words.join(", ")),
    }
}

/// A notebook: its cells rendered, windowed as text, with the image outputs
/// of the shown cells as image blocks.
pub async fn notebook(ctx: &ToolContext, ask: &Ask<'_>, size: u64) -> ToolResult {
    let bytes = match whole(ctx, ask, size, EDIT_MAX_BYTES as u64, "a notebook").await {
        Ok(b) => b,
        Err(e) => return ToolResult::failure(e),
    };
    let nb = match notebook::parse(ask.path, &bytes) {
        Ok(nb) => nb,
        Err(e) => return ToolResult::failure(e),
    };
    let sha = ctx.record_rows.then(|| sha256_hex(&bytes));
    drop(bytes);
    let cells = nb["cells"].as_array().map_or(0, Vec::len);
    let (text, outputs) = notebook::render(&nb);
    drop(nb);
    let scan = match scan_text(ctx, ask, text).await {
        Ok(s) => s,
        Err(e) => return ToolResult::failure(e),
    };
    let mut doc = Doc {
        notice: format!(
            " A notebook of {}; edit changes one with cell (its id or number).",
            plural(cells as u64, "cell", "cells")
        ),
        file: Some((sha, size)),
        ..Doc::default()
    };
    let in_window: Vec<&notebook::ImageOutput> = outputs
        .iter()
        .filter(|o| o.line >= scan.first && o.line <= scan.last)
        .collect();
    for output in in_window.iter().take(NOTEBOOK_MAX_IMAGES) {
        use base64::Engine as _;
        let Ok(raw) = base64::engine::general_purpose::STANDARD.decode(&output.data) else {
            doc.notice.push_str(&format!(
                " The image output on line {} is not sent: its base64 does not decode.",
                output.line
            ));
            continue;
        };
        let label = format!("{}:{}", ask.path, output.line);
        match image::show(&label, &raw, &output.mime, &sha256_hex(&raw), ask.caps) {
            Ok(shown) => doc.images.push(shown.block),
            Err(e) => doc.notice.push_str(&format!(
                " The image output on line {} is not sent: {e}",
                output.line
            )),
        }
    }
    if in_window.len() > NOTEBOOK_MAX_IMAGES {
        doc.notice.push_str(&format!(
            " {} image outputs are in this window; the first {NOTEBOOK_MAX_IMAGES} are sent (a smaller window sends the rest).",
            in_window.len()
        ));
    }
    doc.extra.insert("kind".into(), json!("notebook"));
    doc.extra.insert("cells".into(), json!(cells));
    doc.extra.insert("images".into(), json!(doc.images.len()));
    let ask = Ask {
        offset: tail_offset(ask, &scan),
        ..ask.clone()
    };
    answer_window(ctx, &ask, scan, doc).await
}

/// A text file in a legacy encoding, decoded for the window.
pub async fn encoded(
    ctx: &ToolContext,
    ask: &Ask<'_>,
    size: u64,
    choice: encoding::Choice,
) -> ToolResult {
    let bytes = match whole(
        ctx,
        ask,
        size,
        EDIT_MAX_BYTES as u64,
        "a file in a legacy encoding",
    )
    .await
    {
        Ok(b) => b,
        Err(e) => return ToolResult::failure(e),
    };
    let (enc, how) = match encoding::resolve(choice, &bytes) {
        Ok(found) => found,
        Err(e) => return ToolResult::failure(e),
    };
    let decoded = encoding::decode(&bytes, enc, how);
    let sha = ctx.record_rows.then(|| sha256_hex(&bytes));
    drop(bytes);
    let name = enc.name().to_ascii_lowercase();
    let mut notice = format!(
        " Decoded from {name}{}{}; edit and write keep it (give them encoding too).",
        match how {
            "named" => "",
            "bom" => " (by its byte-order mark)",
            _ => " (detected)",
        },
        if decoded.bom {
            " with its byte-order mark"
        } else {
            ""
        }
    );
    if let Some(at) = decoded.malformed {
        notice.push_str(&format!(
            " Bytes from offset {at} are not valid {name} and are shown as U+FFFD."
        ));
    }
    let described = encoding::describe(&decoded);
    let scan = match scan_text(ctx, ask, decoded.text).await {
        Ok(s) => s,
        Err(e) => return ToolResult::failure(e),
    };
    let mut doc = Doc {
        notice,
        file: Some((sha, size)),
        ..Doc::default()
    };
    doc.extra.insert("kind".into(), json!("text"));
    doc.extra.insert("encoding".into(), described);
    let ask = Ask {
        offset: tail_offset(ask, &scan),
        ..ask.clone()
    };
    answer_window(ctx, &ask, scan, doc).await
}

/// The last `n` lines of a file of any size: found by reading backwards from
/// the end, numbered by a count of the lines before them (see
/// `state::line_marks` for how a large file's count is kept).
pub async fn tail(ctx: &ToolContext, ask: &Ask<'_>, size: u64, n: u64) -> ToolResult {
    // A tail must show the end: without a limit, as many of the last lines
    // as the budget holds. With one (a negative offset and a limit), the
    // window starts where asked and the budget cuts it as any window.
    let room = match ask.limit {
        Some(_) => u64::MAX,
        None => (ctx.budget.max_bytes.saturating_sub(1024) as u64) * 9 / 10,
    };
    let (start, fitting) = match tail_start(ctx, &ask.abs, size, n, room).await {
        Ok(s) => s,
        Err(e) => return ToolResult::failure(scan_error(ask.path, &e)),
    };
    if size - start > TAIL_MAX_BYTES {
        return ToolResult::failure(format!(
            "The last {} of {} are {}; read shows a tail of up to {}. Ask for fewer lines.",
            plural(n, "line", "lines"),
            ask.path,
            plural(size - start, "byte", "bytes"),
            plural(TAIL_MAX_BYTES, "byte", "bytes")
        ));
    }
    let before = match lines_before(ctx, &ask.abs, start).await {
        Ok(l) => l,
        Err(e) => return ToolResult::failure(scan_error(ask.path, &e)),
    };
    let bytes = match ctx
        .fs
        .read_range(&ask.abs, start, (size - start) as usize)
        .await
    {
        Ok((b, _)) => b,
        Err(e) => return ToolResult::failure(scan_error(ask.path, &e)),
    };
    let mut window = ask.window(ctx, false);
    window.base = before + 1;
    window.offset = before + 1;
    window.limit = ask.limit.or(Some(fitting)).map(|l| l.min(n));
    let cancel = ctx.cancel.clone();
    let scanned =
        blocking(move || scan(Box::new(std::io::Cursor::new(bytes)), window, &cancel)).await;
    let mut scan = match scanned {
        Ok(s) => s,
        Err(e) => return ToolResult::failure(scan_error(ask.path, &e)),
    };
    if scan.binary {
        return ToolResult::failure(format!(
            "{} looks binary (NUL bytes in its last lines); read shows text files only.",
            ask.path
        ));
    }
    scan.total_bytes = size;
    let ask = Ask {
        offset: before + 1,
        ..ask.clone()
    };
    let mut doc = Doc {
        file: Some((None, size)),
        ..Doc::default()
    };
    if fitting < n && ask.limit.is_none() && before > 0 {
        doc.notice = format!(" The last {fitting} of the {n} lines asked fit the output budget.");
    }
    answer_window(ctx, &ask, scan, doc).await
}

/// Where the last `n` lines of the file begin (a final line ending is not a
/// line of its own), and how many lines that is: fewer than `n` when their
/// bytes, with a gutter each, would pass `room`, since a tail must show the
/// end (the last line is kept even alone; the budget then cuts it).
async fn tail_start(
    ctx: &ToolContext,
    abs: &str,
    size: u64,
    n: u64,
    room: u64,
) -> std::io::Result<(u64, u64)> {
    let mut end = size;
    let mut seen = 0u64;
    let mut first = true;
    let fits = |start: u64, lines: u64| (size - start) + lines * 8 <= room;
    // The start of the earliest line taken so far.
    let mut taken = size;
    while end > 0 {
        let from = end.saturating_sub(TAIL_CHUNK as u64);
        let (chunk, _) = ctx.fs.read_range(abs, from, (end - from) as usize).await?;
        let mut slice = &chunk[..];
        if first {
            first = false;
            if slice.last() == Some(&b'\n') {
                slice = &slice[..slice.len() - 1];
            }
        }
        for at in memchr::memrchr_iter(b'\n', slice) {
            let start = from + at as u64 + 1;
            if seen >= 1 && !fits(start, seen + 1) {
                // The line starting at `start` would not fit: the tail is the
                // `seen` lines after it.
                return Ok((taken, seen));
            }
            seen += 1;
            taken = start;
            if seen == n {
                return Ok((start, seen));
            }
        }
        end = from;
        if ctx.cancel.is_cancelled() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "cancelled",
            ));
        }
    }
    // The file's first line is the last one reached.
    match seen >= 1 && !fits(0, seen + 1) {
        true => Ok((taken, seen)),
        false => Ok((0, seen + 1)),
    }
}

/// The lines before byte `offset` (a line start): counted, from the file's
/// line mark on when it has a valid one, and a mark left for the next tail.
async fn lines_before(ctx: &ToolContext, abs: &str, offset: u64) -> std::io::Result<u64> {
    let large = offset > TAIL_COUNT_WHOLE;
    let state = StateDir::of(ctx);
    let mut from = (0u64, 0u64);
    if large
        && let Some(mark) = line_marks::load(&state, abs)
        && mark.offset <= offset
        && probe(ctx, abs, mark.offset).await? == mark.probe
    {
        from = (mark.offset, mark.lines);
    }
    let (mut at, mut lines) = from;
    while at < offset {
        let len = (offset - at).min(TAIL_CHUNK as u64 * 8) as usize;
        let (chunk, _) = ctx.fs.read_range(abs, at, len).await?;
        if chunk.is_empty() {
            break;
        }
        lines += memchr::memchr_iter(b'\n', &chunk).count() as u64;
        at += chunk.len() as u64;
        if ctx.cancel.is_cancelled() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "cancelled",
            ));
        }
    }
    if large && from.0 != offset {
        let probe = probe(ctx, abs, offset).await?;
        line_marks::save(
            &state,
            Mark {
                path: abs.to_string(),
                offset,
                lines,
                probe,
            },
        );
    }
    Ok(lines)
}

/// The SHA-256 of the file's first 4 KiB and of the 4 KiB before `offset`.
async fn probe(ctx: &ToolContext, abs: &str, offset: u64) -> std::io::Result<String> {
    let (head, _) = ctx.fs.read_range(abs, 0, 4096).await?;
    let from = offset.saturating_sub(4096);
    let (before, _) = ctx
        .fs
        .read_range(abs, from, (offset - from) as usize)
        .await?;
    let mut both = head;
    both.extend_from_slice(&before);
    Ok(sha256_hex(&both))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_lists_read_as_runs() {
        assert_eq!(describe_pages(&[3]), "page 3");
        assert_eq!(describe_pages(&[3, 4, 5]), "pages 3–5");
        assert_eq!(describe_pages(&[1, 4, 5, 6, 9]), "pages 1, 4–6, 9");
    }
}
