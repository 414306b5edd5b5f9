//! The engine of `read`: one streaming pass over a file's bytes (or a
//! rendering of a PDF, a notebook, a decoded legacy file) that numbers the
//! window's lines as `cat -n` does, keeps them within the output budget, and
//! hashes the whole file on the way; and the answer every kind of read ends
//! in (`answer_window`). The tool itself, which decides what kind of file it
//! has, is `read.rs`; the kinds are `read_kinds.rs`.
//!
//!
//! The file is streamed, never loaded whole: lines before the window are only
//! counted (memchr over large buffers), lines in the window are kept until the
//! output budget is full, and the rest are counted for the total. So a window near
//! the end of a 1 GiB file costs one sequential scan and a few MiB of memory.
//!
//! The answer is `[text, json]`: the text for people and models (the seed's
//! byte-stable header and `cat -n` rows), and a record for programs — the shown
//! lines without their numbers, the window (`startLine`, `endLine`, `totalLines`,
//! `nextOffset`), and the SHA-256 of the whole file, hashed during the same pass,
//! which is the value `edit`'s `expectSha256` accepts (null over `edit`'s 128 MiB,
//! where no edit could use it and the hash would cost more than the read). The
//! command line's plain text face reads no record, so there the record and the
//! hash are skipped.
//!
//! On an agent's face ([`ToolContext::agent_face`]) a read without `limit` shows
//! at most [`AGENT_WINDOW`] lines and cuts each line at [`AGENT_LINE_WIDTH`]
//! characters, saying so; see those constants for why these numbers.

use std::io::Read;

use serde_json::{Value, json};

use crate::kernel::digest::Sha256Stream;
use crate::kernel::input::Args;
use crate::kernel::text::lossy_utf8;
use crate::kernel::text::plural;
use crate::kernel::{CancellationToken, ToolContentBlock, ToolContext, ToolResult};
use crate::tools::clamp_for;
use crate::tools::files::gate::{get_read_state_handle, record_read_state};

/// How much of the start is sniffed for NUL bytes.
pub const BINARY_SNIFF_BYTES: usize = 8 * 1024;
/// The read buffer: `cat`'s size. It is filled through `read_to_end`, which
/// reads into the spare capacity without zeroing it first (a zeroed buffer cost a
/// memset of its whole size per `read` of even a one-line file).
const CHUNK: usize = 128 * 1024;
/// Room kept for the header inside the budget.
const HEADER_RESERVE: usize = 512;
/// The default window on an agent's face, in lines. Measured: the median source
/// file here and in Python's standard library is 220–240 lines and three in four
/// are under ~500, at ~37 bytes a line; so 500 lines (~19 KB, ~5k tokens) show
/// most files whole, where the seeds' 64 KiB budget alone let one bare read
/// spend ~1,700 lines (~16k tokens) of a model's context on a file it usually
/// wanted a part of. The header says how to go on (`offset`), and an explicit
/// `limit` is honoured up to the budget.
pub const AGENT_WINDOW: u64 = 500;
/// The line width on an agent's face, in characters: grep's row cut. No line of
/// Python's standard library (304,000 lines) and 18 of this crate's 40,000 are
/// longer; what is longer is generated or minified (jQuery's one 88,947-character
/// line), where the first 500 characters say what the line is and the rest
/// would fill the window. The count of characters cut is stated per line.
pub const AGENT_LINE_WIDTH: usize = 500;

/// What one streaming pass found.
#[derive(Debug, Default, PartialEq)]
pub struct Scan {
    /// Every line of the file (a final line without `\n` counts; no phantom line).
    pub total_lines: u64,
    pub total_bytes: u64,
    /// The rendered gutter lines of the window, joined with `\n`.
    pub body: String,
    /// First and last line shown (1-based); `last < first` when nothing was shown.
    pub first: u64,
    pub last: u64,
    /// The window stopped early because the budget was full.
    pub budget_stop: bool,
    /// A shown line longer than the budget: (line number, its length in bytes, bytes shown).
    pub cut_line: Option<(u64, usize, usize)>,
    /// Every shown line that was cut, at the width or by the budget: (line
    /// number, characters not shown).
    pub cut_lines: Vec<(u64, u64)>,
    pub invalid_utf8: bool,
    pub binary: bool,
    /// The SHA-256 of every byte of the file, when asked for.
    pub sha256: Option<String>,
    /// What the record's `lines` take as JSON so far (see [`json_cost`]).
    pub record_bytes: usize,
}

/// What `text` takes as one entry of a JSON array of strings: its bytes, the
/// escapes serde_json writes (`\"`, `\\`, `\n`…, `\u00XX` for the other
/// control characters), two quotes and a comma. A window of control
/// characters is six times longer as a record than as text, and the record
/// must fit the budget as the text does.
fn json_cost(text: &str) -> usize {
    let escapes: usize = text
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 1,
            0..=0x1f => 5,
            _ => 0,
        })
        .sum();
    text.len() + escapes + 3
}

pub struct Window {
    /// The number of the stream's first line (1, or where a tail begins).
    pub base: u64,
    pub offset: u64,
    pub limit: Option<u64>,
    pub budget: usize,
    /// Cut each shown line at this many characters.
    pub width: Option<usize>,
    /// Hash the whole file on the way.
    pub hash: bool,
    /// A record will carry the shown lines: the window stops where either the
    /// text or the record would pass the budget.
    pub record: bool,
}

impl Window {
    fn end(&self) -> u64 {
        self.limit
            .map_or(u64::MAX, |l| self.offset.saturating_add(l - 1))
    }
}

/// A window line read whole (`line`: its number, the bytes kept, its true
/// length and the characters of the bytes not kept) written into the body, or
/// the window closed when the text or the record would pass the budget.
fn finish_line(s: &mut Scan, w: &Window, line: (u64, &[u8], usize, u64), collecting: &mut bool) {
    let (line_no, bytes, true_len, dropped_chars) = line;
    if !(*collecting && line_no >= w.offset && line_no <= w.end()) {
        return;
    }
    let mut bytes = bytes;
    let mut cut_chars = dropped_chars;
    if true_len > bytes.len()
        && let Err(e) = std::str::from_utf8(bytes)
        && e.error_len().is_none()
    {
        // The cut fell inside a character: drop its partial bytes (and
        // count the character as not shown).
        bytes = &bytes[..e.valid_up_to()];
        cut_chars += 1;
    }
    let mut text = lossy_utf8(bytes);
    let invalid = matches!(text, std::borrow::Cow::Owned(_));
    let kept_len = bytes.len();
    let mut budget_cut = None;
    if let Some(width) = w.width
        && let Some((at, _)) = text.char_indices().nth(width)
    {
        cut_chars += text[at..].chars().count() as u64;
        match &mut text {
            std::borrow::Cow::Owned(t) => t.truncate(at),
            std::borrow::Cow::Borrowed(t) => *t = &t[..at],
        }
    } else if true_len > kept_len {
        // Cut by the budget, not at the width: the seed's byte notice.
        budget_cut = Some((line_no, true_len, kept_len));
    }
    // `{line_no:>6}\t{text}`, written straight into the body (no
    // string per line: a long window is many thousands of them).
    let digits = line_no.checked_ilog10().unwrap_or(0) as usize + 1;
    let rendered_len = digits.max(6) + 1 + text.len();
    let room = w.budget.saturating_sub(HEADER_RESERVE);
    let needed = s.body.len() + rendered_len + 1;
    let record_cost = if w.record { json_cost(&text) } else { 0 };
    if s.last >= s.first && (needed > room || s.record_bytes + record_cost > room) {
        s.budget_stop = true;
        *collecting = false;
        return;
    }
    // What the header and the record say of a line, only once it is shown.
    s.invalid_utf8 |= invalid;
    if budget_cut.is_some() {
        s.cut_line = budget_cut;
    }
    if cut_chars > 0 {
        s.cut_lines.push((line_no, cut_chars));
    }
    if !s.body.is_empty() || s.last >= s.first {
        s.body.push('\n');
    }
    push_gutter(&mut s.body, line_no);
    s.body.push_str(&text);
    s.record_bytes += record_cost;
    s.last = line_no;
}

/// One pass over `reader`. Blocking; polls `cancel` once per chunk.
pub fn scan(
    mut reader: Box<dyn Read + Send>,
    w: Window,
    cancel: &CancellationToken,
) -> std::io::Result<Scan> {
    let mut s = Scan {
        first: w.offset,
        last: w.offset - 1,
        ..Scan::default()
    };
    let end = w.end();
    // Small first: most files read whole in one small read; a buffer filled to
    // the brim grows to CHUNK for the rest.
    let mut buf: Vec<u8> = Vec::with_capacity(16 * 1024);
    let mut grow = false;
    let mut line_no: u64 = w.base; // the line the next byte belongs to
    let mut current: Vec<u8> = Vec::new(); // bytes of a window line being gathered
    let mut current_len: usize = 0; // its true length, past what we kept
    // Characters of the line in bytes not kept (counted by their first bytes).
    let mut dropped_chars: u64 = 0;
    let mut hasher = w.hash.then(Sha256Stream::default);
    let mut collecting = true;
    let mut last_byte: Option<u8> = None;
    let mut sniffed = 0usize;

    let in_window = |collecting: bool, l: u64| collecting && l >= w.offset && l <= end;

    loop {
        if cancel.is_cancelled() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "read was cancelled.",
            ));
        }
        buf.clear();
        if grow {
            buf.reserve_exact(CHUNK);
            grow = false;
        }
        let want = buf.capacity() as u64;
        // Interrupted reads are retried inside.
        let n = match (&mut reader).take(want).read_to_end(&mut buf)? {
            0 => break,
            n => n,
        };
        if n as u64 == want && buf.capacity() < CHUNK {
            // Grown after this chunk is used: `chunk` borrows the buffer.
            grow = true;
        }
        let chunk = &buf[..n];
        if sniffed < BINARY_SNIFF_BYTES {
            let take = (BINARY_SNIFF_BYTES - sniffed).min(n);
            if memchr::memchr(0, &chunk[..take]).is_some() {
                s.binary = true;
            }
            sniffed += take;
        }
        s.total_bytes += n as u64;
        if let Some(h) = hasher.as_mut() {
            h.update(chunk);
        }
        last_byte = Some(chunk[n - 1]);
        let mut pos = 0usize;
        // Fast path: a chunk with no window line in it is only counted.
        if !in_window(collecting, line_no) {
            let newlines = memchr::memchr_iter(b'\n', chunk).count() as u64;
            let reaches_window = collecting && line_no < w.offset && line_no + newlines >= w.offset;
            if !reaches_window {
                line_no += newlines;
                continue;
            }
        }
        while pos < n {
            if !in_window(collecting, line_no) {
                match memchr::memchr(b'\n', &chunk[pos..]) {
                    Some(i) => {
                        pos += i + 1;
                        line_no += 1;
                        continue;
                    }
                    None => break,
                }
            }
            // With a width, enough bytes for one character past it (a
            // character is at most 4 bytes), so a longer line is seen to be.
            let keep_cap = w
                .width
                .map_or(w.budget, |width| w.budget.min(width * 4 + 4));
            let end_of_line = memchr::memchr(b'\n', &chunk[pos..]);
            let piece = &chunk[pos..end_of_line.map_or(n, |i| pos + i)];
            let room = keep_cap.saturating_sub(current.len());
            let kept = piece.len().min(room);
            current.extend_from_slice(&piece[..kept]);
            current_len += piece.len();
            dropped_chars += char_starts(&piece[kept..]);
            match end_of_line {
                Some(i) => {
                    finish_line(
                        &mut s,
                        &w,
                        (line_no, &current, current_len, dropped_chars),
                        &mut collecting,
                    );
                    current.clear();
                    current_len = 0;
                    dropped_chars = 0;
                    pos += i + 1;
                    line_no += 1;
                }
                None => pos = n,
            }
        }
    }
    // A final line without a newline.
    if last_byte.is_some_and(|b| b != b'\n') {
        finish_line(
            &mut s,
            &w,
            (line_no, &current, current_len, dropped_chars),
            &mut collecting,
        );
        s.total_lines = line_no;
    } else {
        s.total_lines = line_no - 1;
    }
    s.sha256 = hasher.map(Sha256Stream::finish_hex);
    Ok(s)
}

/// The characters that begin in `bytes`: every byte but UTF-8's continuation
/// bytes (an invalid byte counts as one, as it is shown as one U+FFFD).
fn char_starts(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count() as u64
}

/// `{line_no:>6}\t`, as `cat -n` writes it, without the formatting machinery
/// (a window is many thousands of lines).
fn push_gutter(body: &mut String, line_no: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = line_no;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let width = digits.len() - at;
    for _ in width..6 {
        body.push(' ');
    }
    for &d in &digits[at..] {
        body.push(char::from(d));
    }
    body.push('\t');
}

/// The header line that states the view.
pub fn header(path: &str, s: &Scan, width: Option<usize>) -> String {
    let mut h = format!(
        "Showing lines {}–{} of {} in {path}.",
        s.first, s.last, s.total_lines
    );
    let remaining = s.total_lines - s.last;
    if remaining > 0 {
        h.push_str(&format!(
            " {} {}; continue with offset={}.",
            plural(remaining, "line", "lines"),
            if remaining == 1 { "remains" } else { "remain" },
            s.last + 1
        ));
    }
    if s.budget_stop {
        h.push_str(" The window stopped early to fit the output budget.");
    }
    if let Some((line, len, shown)) = s.cut_line {
        h.push_str(&format!(
            " Line {line} is {len} bytes long; only its first {shown} are shown."
        ));
    }
    if let Some(width) = width {
        h.push_str(&width_notice(s, width));
    }
    if s.invalid_utf8 {
        h.push_str(" The file is not valid UTF-8; bad bytes are shown as U+FFFD.");
    }
    h
}

/// How many lines the width cut and where, in the header's notice style:
/// ` Line 3 is cut at 500 characters (88447 characters not shown).`, or for several
/// the first few line numbers and the characters not shown in all. Empty when
/// no line was cut at the width.
fn width_notice(s: &Scan, width: usize) -> String {
    // The budget's own cut has its own sentence; this one counts the width's.
    let cut: Vec<(u64, u64)> = s
        .cut_lines
        .iter()
        .copied()
        .filter(|(line, _)| s.cut_line.is_none_or(|(l, _, _)| l != *line))
        .collect();
    match cut.as_slice() {
        [] => String::new(),
        [(line, chars)] => format!(
            " Line {line} is cut at {width} characters ({} not shown).",
            plural(*chars, "character", "characters")
        ),
        many => {
            const NAMED: usize = 5;
            let mut named: Vec<String> = many
                .iter()
                .take(NAMED)
                .map(|(l, _)| l.to_string())
                .collect();
            if many.len() > NAMED {
                named.push("…".into());
            }
            let total: u64 = many.iter().map(|(_, c)| c).sum();
            format!(
                " {} lines are cut at {width} characters (lines {}; {} not shown).",
                many.len(),
                named.join(", "),
                plural(total, "character", "characters")
            )
        }
    }
}

/// The record of a shown window (see the module doc and docs/json.md).
pub fn record(path: &str, s: &Scan, width: Option<usize>) -> Value {
    // The body's rows are `{gutter}\t{line}`; the line is what follows the first tab.
    let lines: Vec<&str> = if s.last >= s.first {
        s.body
            .split('\n')
            .map(|row| row.split_once('\t').map_or("", |(_, line)| line))
            .collect()
    } else {
        Vec::new()
    };
    let remaining = s.total_lines.saturating_sub(s.last);
    json!({
        "path": path,
        "startLine": s.first,
        "endLine": s.last,
        "totalLines": s.total_lines,
        "remainingLines": remaining,
        "nextOffset": if remaining > 0 { json!(s.last + 1) } else { Value::Null },
        "sha256": s.sha256,
        "bytes": s.total_bytes,
        "lineWidth": width,
        "cutLines": s.cut_lines.iter().map(|(line, chars)| json!({"line": line, "cutChars": chars})).collect::<Vec<_>>(),
        "stoppedAtBudget": s.budget_stop,
        "invalidUtf8": s.invalid_utf8,
        "lines": lines,
    })
}

/// The file at `abs` opened for reading, with its size: a folder, a FIFO or a
/// device is refused before anything is read from it.
pub async fn open_regular(
    ctx: &ToolContext,
    path: &str,
    abs: &str,
) -> Result<(u64, Box<dyn std::io::Read + Send>), String> {
    let size = match ctx.fs.stat(abs).await {
        Ok(info) if info.is_directory => {
            return Err(format!("{path} is a directory; use ls to list it."));
        }
        Ok(info) if !info.is_file => {
            return Err(format!(
                "{}; read shows regular files only.",
                crate::tools::not_regular(path, &info)
            ));
        }
        Ok(info) => info.size,
        Err(e) => {
            return Err(format!(
                "Cannot read {path}: {e}",
                path = crate::kernel::text::inert(path)
            ));
        }
    };
    let reader = ctx.fs.open_read(abs).await.map_err(|e| {
        format!(
            "Cannot read {path}: {e}",
            path = crate::kernel::text::inert(path)
        )
    })?;
    Ok((size, reader))
}

/// A read's input, checked: the path, the window, and how other kinds of
/// file are shown.
#[derive(Clone)]
pub struct Ask<'a> {
    pub path: &'a str,
    pub abs: String,
    pub offset: u64,
    pub limit: Option<u64>,
    /// The width lines are cut at (agents' faces).
    pub width: Option<usize>,
    pub tail: Option<u64>,
    pub encoding: Option<crate::tools::files::encoding::Choice>,
    pub pages: Option<&'a str>,
    pub caps: crate::tools::files::image::Caps,
}

impl<'a> Ask<'a> {
    pub fn parse(input: &'a Value, ctx: &ToolContext) -> Result<Self, String> {
        use crate::tools::files::image::{Caps, DEFAULT_MAX_BYTES, DEFAULT_MAX_SIDE};
        let args = Args::checked(input);
        let path = args.required_str("path")?;
        let offset = args.opt_line("offset")?;
        let limit = args.opt_positive_int("limit")?;
        let mut tail = args.opt_positive_int("tail")?;
        if tail.is_some() && offset.is_some() {
            return Err(
                "Give offset or tail, not both: tail shows the last lines, offset where to start."
                    .into(),
            );
        }
        // A negative offset starts that many lines before the end: the
        // window of a tail, cut by limit.
        let offset = match offset {
            Some(n) if n < 0 => {
                tail = Some(n.unsigned_abs());
                None
            }
            n => n.map(|n| n as u64),
        };
        let encoding = crate::tools::files::encoding::parse_choice(args.opt_str("encoding")?)?;
        let pages = args.opt_filled_str("pages")?;
        let caps = Caps {
            max_side: args
                .opt_positive_int("maxImageSide")?
                .unwrap_or(DEFAULT_MAX_SIDE),
            max_bytes: args
                .opt_positive_int("maxImageBytes")?
                .unwrap_or(DEFAULT_MAX_BYTES),
        };
        let abs = ctx.confine(path)?;
        if let Some(spec) = pages {
            // The syntax now, before any worker starts; the count is the PDF's.
            crate::tools::files::pdf::page_ranges(spec)?;
        }
        // An agent gets a window sized for its context unless it asked for one
        // (a tail is its own window: the last N lines, cut by the budget).
        let (limit, width) = match ctx.agent_face {
            true if tail.is_none() => (limit.or(Some(AGENT_WINDOW)), Some(AGENT_LINE_WIDTH)),
            true => (limit, Some(AGENT_LINE_WIDTH)),
            false => (limit, None),
        };
        Ok(Ask {
            path,
            abs,
            offset: offset.unwrap_or(1),
            limit,
            width,
            tail,
            encoding,
            pages,
            caps,
        })
    }

    /// The scan window of this read over a stream of text.
    pub fn window(&self, ctx: &ToolContext, hash: bool) -> Window {
        Window {
            base: 1,
            offset: self.offset,
            limit: self.limit,
            budget: ctx.budget.max_bytes,
            width: self.width,
            // Only a record carries the hash; the plain text face reads none.
            // A file larger than edit changes is not hashed: no expectSha256
            // can use it, and hashing would cost more than the streamed read
            // (~4 s a GiB without SHA instructions).
            hash: ctx.record_rows && hash,
            record: ctx.record_rows,
        }
    }
}

/// The words of a scan that failed.
pub fn scan_error(path: &str, e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::Interrupted {
        return "read was cancelled.".into();
    }
    format!(
        "Cannot read {path}: {e}",
        path = crate::kernel::text::inert(path)
    )
}

/// What a window of a file that is not plain UTF-8 text adds to the answer.
#[derive(Default)]
pub struct Doc {
    /// A sentence after the header's (`Page text of a PDF…`).
    pub notice: String,
    /// Keys the record gains (`kind`, `pages`, `encoding`…).
    pub extra: serde_json::Map<String, Value>,
    /// The file's own hash and size, where the scan saw a rendering of it.
    pub file: Option<(Option<String>, u64)>,
    /// Image blocks that go with the window (a notebook's image outputs).
    pub images: Vec<Value>,
}

/// The answer of a scanned window: the header and rows, the record, the
/// read-state recorded; an offset past the end refused.
pub async fn answer_window(
    ctx: &ToolContext,
    ask: &Ask<'_>,
    mut scan: Scan,
    doc: Doc,
) -> ToolResult {
    let path = ask.path;
    let empty = scan.total_lines == 0 && ask.offset == 1;
    if ask.offset > scan.total_lines && !empty {
        return ToolResult::failure(format!(
            "offset {} is past the end of {path}, which has {}.",
            ask.offset,
            plural(scan.total_lines, "line", "lines")
        ));
    }
    if let Err(e) = record_gate(ctx, &ask.abs).await {
        return ToolResult::failure(e);
    }
    if let Some((sha256, bytes)) = doc.file {
        scan.sha256 = sha256;
        scan.total_bytes = bytes;
    }
    let text = if empty {
        format!("{path} is empty (0 bytes).{}", doc.notice)
    } else {
        clamp_for(
            ctx,
            "read",
            &format!(
                "{}{}\n{}",
                header(path, &scan, ask.width),
                doc.notice,
                scan.body
            ),
        )
    };
    let mut content = vec![ToolContentBlock::Text(text)];
    content.extend(doc.images.into_iter().map(ToolContentBlock::Json));
    if ctx.record_rows {
        let mut record = record(path, &scan, ask.width);
        if let Value::Object(map) = &mut record {
            map.extend(doc.extra);
        }
        content.push(ToolContentBlock::Json(record));
    }
    ToolResult {
        content,
        is_error: false,
    }
}

pub async fn record_gate(ctx: &ToolContext, abs: &str) -> Result<(), String> {
    record_read_state(ctx, abs, get_read_state_handle(ctx), None)
        .await
        .map_err(|e| format!("The read succeeded but its read-state could not be recorded: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_scan(data: &[u8], offset: u64, limit: Option<u64>, budget: usize) -> Scan {
        scan(
            Box::new(std::io::Cursor::new(data.to_vec())),
            Window {
                base: 1,
                offset,
                limit,
                budget,
                width: None,
                hash: true,
                record: true,
            },
            &CancellationToken::new(),
        )
        .unwrap()
    }

    fn scan_with(data: &[u8], limit: Option<u64>, width: Option<usize>) -> Scan {
        scan(
            Box::new(std::io::Cursor::new(data.to_vec())),
            Window {
                base: 1,
                offset: 1,
                limit,
                budget: 65536,
                width,
                hash: true,
                record: true,
            },
            &CancellationToken::new(),
        )
        .unwrap()
    }

    #[test]
    fn the_width_cuts_lines_and_counts_the_characters_cut() {
        let data = format!("abc\n{}\n{}\nend", "é".repeat(10), "x".repeat(5000));
        let s = scan_with(data.as_bytes(), None, Some(4));
        assert_eq!(
            s.body,
            "     1\tabc\n     2\téééé\n     3\txxxx\n     4\tend"
        );
        // Line 3 was longer than what is kept of a line: its rest is counted too.
        assert_eq!(s.cut_lines, vec![(2, 6), (3, 4996)]);
        assert_eq!(s.cut_line, None, "the budget cut nothing");
        assert_eq!(
            header("f", &s, Some(4)),
            "Showing lines 1–4 of 4 in f. 2 lines are cut at 4 characters (lines 2, 3; 5002 characters not shown)."
        );
        let one = scan_with("ab\nxyzzy\n".as_bytes(), None, Some(4));
        assert_eq!(
            width_notice(&one, 4),
            " Line 2 is cut at 4 characters (1 character not shown)."
        );
        // Exactly the width is not a cut.
        assert!(scan_with(b"abcd\n", None, Some(4)).cut_lines.is_empty());
    }

    /// A record's lines fit the budget as the text does: control characters,
    /// six bytes each as JSON, end the window sooner when a record is made.
    #[test]
    fn the_record_fits_the_budget_too() {
        let data = format!("{}\n", "\u{1}".repeat(100)).repeat(200);
        let text_only = scan(
            Box::new(std::io::Cursor::new(data.clone().into_bytes())),
            Window {
                base: 1,
                offset: 1,
                limit: None,
                budget: 8192,
                width: None,
                hash: false,
                record: false,
            },
            &CancellationToken::new(),
        )
        .unwrap();
        let with_record = run_scan(data.as_bytes(), 1, None, 8192);
        assert!(with_record.budget_stop && text_only.budget_stop);
        assert!(
            with_record.last < text_only.last,
            "{} {}",
            with_record.last,
            text_only.last
        );
        let lines = record("f", &with_record, None)["lines"].to_string();
        assert!(lines.len() <= 8192, "{}", lines.len());
        assert_eq!(json_cost("a\"\u{1}"), 1 + 2 + 6 + 3);
    }

    /// A line the budget leaves out is not said to be cut or invalid: only
    /// shown lines are described.
    #[test]
    fn only_shown_lines_are_described() {
        let mut data = "short\n".to_string().into_bytes();
        data.extend_from_slice(&[b'x'; 2000]);
        data.extend_from_slice(b"\xff\n");
        let s = scan(
            Box::new(std::io::Cursor::new(data)),
            Window {
                base: 1,
                offset: 1,
                limit: None,
                budget: 1024,
                width: Some(500),
                hash: false,
                record: true,
            },
            &CancellationToken::new(),
        )
        .unwrap();
        assert!(s.budget_stop);
        assert_eq!((s.first, s.last), (1, 1));
        assert!(s.cut_lines.is_empty(), "{:?}", s.cut_lines);
        assert!(!s.invalid_utf8);
    }

    #[test]
    fn the_hash_is_the_whole_files_and_the_record_states_the_window() {
        let data: String = (1..=30_000).map(|i| format!("row {i}\r\n")).collect();
        let s = scan_with(data.as_bytes(), Some(2), None);
        assert_eq!(
            s.sha256.as_deref(),
            Some(crate::kernel::digest::sha256_hex(data.as_bytes()).as_str())
        );
        let r = record("f", &s, None);
        assert_eq!(r["lines"], json!(["row 1\r", "row 2\r"]));
        assert_eq!(
            (
                &r["startLine"],
                &r["endLine"],
                &r["totalLines"],
                &r["nextOffset"]
            ),
            (&json!(1), &json!(2), &json!(30_000), &json!(3))
        );
        assert_eq!(r["lineWidth"], Value::Null);
        let unhashed = scan(
            Box::new(std::io::Cursor::new(b"a\n".to_vec())),
            Window {
                base: 1,
                offset: 1,
                limit: None,
                budget: 100,
                width: None,
                hash: false,
                record: false,
            },
            &CancellationToken::new(),
        )
        .unwrap();
        assert_eq!(unhashed.sha256, None, "not asked, not hashed");
    }

    #[test]
    fn the_gutter_is_cat_n_s() {
        for n in [
            1,
            9,
            10,
            99_999,
            100_000,
            999_999,
            1_000_000,
            12_345_678,
            u64::MAX,
        ] {
            let mut body = String::new();
            push_gutter(&mut body, n);
            assert_eq!(body, format!("{n:>6}\t"));
        }
    }

    #[test]
    fn chunks_past_the_first_buffer_are_read_whole() {
        // Lines that straddle the small first buffer and the CHUNK-sized ones.
        let data: String = (1..=40_000).map(|i| format!("line {i} é\n")).collect();
        let s = run_scan(data.as_bytes(), 39_999, None, 65536);
        assert_eq!(s.total_lines, 40_000);
        assert_eq!(s.total_bytes, data.len() as u64);
        assert_eq!(s.body, " 39999\tline 39999 é\n 40000\tline 40000 é");
        assert!(!s.invalid_utf8);
    }

    #[test]
    fn counts_lines_without_a_phantom_last_line() {
        assert_eq!(run_scan(b"a\nb\n", 1, None, 65536).total_lines, 2);
        assert_eq!(run_scan(b"a\nb", 1, None, 65536).total_lines, 2);
        assert_eq!(run_scan(b"", 1, None, 65536).total_lines, 0);
        assert_eq!(run_scan(b"\n", 1, None, 65536).total_lines, 1);
        assert_eq!(run_scan(b"\n\n", 1, None, 65536).total_lines, 2);
    }

    #[test]
    fn gutter_matches_cat_n() {
        let s = run_scan(b"one\ntwo\r\nthree", 1, None, 65536);
        assert_eq!(s.body, "     1\tone\n     2\ttwo\r\n     3\tthree");
        assert_eq!((s.first, s.last), (1, 3));
    }

    /// Lines cut by the buffer's edges, in the small first read and in the
    /// grown ones, come out whole.
    #[test]
    fn lines_across_reads_are_whole() {
        let lines: Vec<String> = (0..4000)
            .map(|i| format!("{i}:{}", "x".repeat(i % 97)))
            .collect();
        let data = lines.join("\n") + "\n";
        assert!(data.len() > CHUNK + 16 * 1024);
        let s = run_scan(data.as_bytes(), 1, None, usize::MAX);
        assert_eq!(s.total_lines, 4000);
        let want: Vec<String> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| format!("{:>6}\t{l}", i + 1))
            .collect();
        assert_eq!(s.body, want.join("\n"));
    }

    #[test]
    fn windows_by_offset_and_limit() {
        let data: String = (1..=10).map(|i| format!("l{i}\n")).collect();
        let s = run_scan(data.as_bytes(), 4, Some(3), 65536);
        assert_eq!(s.body, "     4\tl4\n     5\tl5\n     6\tl6");
        assert_eq!(s.total_lines, 10);
        assert_eq!(
            header("f", &s, None),
            "Showing lines 4–6 of 10 in f. 4 lines remain; continue with offset=7."
        );
        let s = run_scan(data.as_bytes(), 8, Some(2), 65536);
        assert_eq!(
            header("f", &s, None),
            "Showing lines 8–9 of 10 in f. 1 line remains; continue with offset=10."
        );
    }

    #[test]
    fn windows_across_chunk_boundaries() {
        // Lines straddle the 1 MiB read chunks.
        let line = "x".repeat(999);
        let data: String = (0..3000).map(|_| format!("{line}\n")).collect();
        let s = run_scan(data.as_bytes(), 1050, Some(2), 65536);
        assert_eq!(s.total_lines, 3000);
        assert_eq!(s.body, format!("  1050\t{line}\n  1051\t{line}"));
    }

    #[test]
    fn budget_stops_the_window_early() {
        let data: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
        let s = run_scan(data.as_bytes(), 1, None, 1024);
        assert!(s.budget_stop);
        assert!(s.body.len() <= 1024 - HEADER_RESERVE);
        assert!(s.last > 10 && s.last < 100);
        assert_eq!(s.total_lines, 1000);
    }

    #[test]
    fn a_huge_line_is_cut_not_held() {
        let mut data = "é".repeat(50_000).into_bytes();
        data.push(b'\n');
        let s = run_scan(&data, 1, None, 1001);
        let (line, len, shown) = s.cut_line.unwrap();
        assert_eq!((line, len), (1, 100_000));
        assert!(shown <= 1001);
        assert!(
            !s.invalid_utf8,
            "a cut inside a character is not invalid input"
        );
    }

    #[test]
    fn flags_binary_and_invalid_utf8() {
        assert!(run_scan(b"ab\0cd", 1, None, 65536).binary);
        let s = run_scan(b"ok\n\xff\xfe\n", 1, None, 65536);
        assert!(!s.binary && s.invalid_utf8);
        assert_eq!(s.body, "     1\tok\n     2\t\u{FFFD}\u{FFFD}");
    }
}
