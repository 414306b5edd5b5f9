//! `read`: a text file as `cat -n` would number it, windowed by `offset`/`limit`,
//! under a header that states exactly which lines are shown.
//!
//! The file is streamed, never loaded whole: lines before the window are only
//! counted (memchr over large buffers), lines in the window are kept until the
//! output budget is full, and the rest are counted for the total. So a window near
//! the end of a 1 GiB file costs one sequential scan and a few MiB of memory.

use std::io::Read;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::backends::local_fs::blocking;
use crate::kernel::input::Args;
use crate::kernel::text::lossy_utf8;
use crate::kernel::text::plural;
use crate::kernel::{
    CancellationToken, DefinedTool, JsonSchema, Tool, ToolContext, ToolResult, define_tool,
};
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

struct ReadTool;

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
    pub invalid_utf8: bool,
    pub binary: bool,
}

struct Window {
    offset: u64,
    limit: Option<u64>,
    budget: usize,
}

impl Window {
    fn end(&self) -> u64 {
        self.limit
            .map_or(u64::MAX, |l| self.offset.saturating_add(l - 1))
    }
}

/// One pass over `reader`. Blocking; polls `cancel` once per chunk.
fn scan(
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
    let mut line_no: u64 = 1; // the line the next byte belongs to
    let mut current: Vec<u8> = Vec::new(); // bytes of a window line being gathered
    let mut current_len: usize = 0; // its true length, past what we kept
    let mut collecting = true;
    let mut last_byte: Option<u8> = None;
    let mut sniffed = 0usize;

    let in_window = |collecting: bool, l: u64| collecting && l >= w.offset && l <= end;
    let finish_line =
        |s: &mut Scan, line_no: u64, bytes: &[u8], true_len: usize, collecting: &mut bool| {
            if !in_window(*collecting, line_no) {
                return;
            }
            let mut bytes = bytes;
            if true_len > bytes.len()
                && let Err(e) = std::str::from_utf8(bytes)
                && e.error_len().is_none()
            {
                // The cut fell inside a character: drop its partial bytes.
                bytes = &bytes[..e.valid_up_to()];
            }
            let text = lossy_utf8(bytes);
            if matches!(text, std::borrow::Cow::Owned(_)) {
                s.invalid_utf8 = true;
            }
            if true_len > bytes.len() {
                s.cut_line = Some((line_no, true_len, bytes.len()));
            }
            // `{line_no:>6}\t{text}`, written straight into the body (no
            // string per line: a long window is many thousands of them).
            let digits = line_no.checked_ilog10().unwrap_or(0) as usize + 1;
            let rendered_len = digits.max(6) + 1 + text.len();
            let room = w.budget.saturating_sub(HEADER_RESERVE);
            let needed = s.body.len() + rendered_len + 1;
            if s.last >= s.first && needed > room {
                s.budget_stop = true;
                *collecting = false;
                return;
            }
            if !s.body.is_empty() || s.last >= s.first {
                s.body.push('\n');
            }
            push_gutter(&mut s.body, line_no);
            s.body.push_str(&text);
            s.last = line_no;
        };

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
            let keep_cap = w.budget;
            match memchr::memchr(b'\n', &chunk[pos..]) {
                Some(i) => {
                    let piece = &chunk[pos..pos + i];
                    let room = keep_cap.saturating_sub(current.len());
                    current.extend_from_slice(&piece[..piece.len().min(room)]);
                    current_len += piece.len();
                    finish_line(&mut s, line_no, &current, current_len, &mut collecting);
                    current.clear();
                    current_len = 0;
                    pos += i + 1;
                    line_no += 1;
                }
                None => {
                    let piece = &chunk[pos..];
                    let room = keep_cap.saturating_sub(current.len());
                    current.extend_from_slice(&piece[..piece.len().min(room)]);
                    current_len += piece.len();
                    pos = n;
                }
            }
        }
    }
    // A final line without a newline.
    if last_byte.is_some_and(|b| b != b'\n') {
        finish_line(&mut s, line_no, &current, current_len, &mut collecting);
        s.total_lines = line_no;
    } else {
        s.total_lines = line_no - 1;
    }
    Ok(s)
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
fn header(path: &str, s: &Scan) -> String {
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
    if s.invalid_utf8 {
        h.push_str(" The file is not valid UTF-8; bad bytes are shown as U+FFFD.");
    }
    h
}

#[async_trait]
impl Tool for ReadTool {
    fn name(&self) -> &str {
        "read"
    }

    fn description(&self) -> &str {
        "Read a file with line numbers (as cat -n), a window at a time; the header gives the offset to continue from."
    }

    fn parameters(&self) -> JsonSchema {
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string", "description": "File path." },
                "offset": { "type": "integer", "minimum": 1, "description": "First line, 1-based." },
                "limit": { "type": "integer", "minimum": 1, "description": "Maximum number of lines to show (default: as many as fit the output budget)." }
            },
            "required": ["path"]
        })
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let args = match Args::new("read", &input) {
            Ok(a) => a,
            Err(e) => return ToolResult::failure(e),
        };
        let (path, offset, limit) = match (
            args.required_str("path"),
            args.opt_positive_int("offset"),
            args.opt_positive_int("limit"),
        ) {
            (Ok(p), Ok(o), Ok(l)) => (p, o.unwrap_or(1), l),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return ToolResult::failure(e),
        };
        let abs = match ctx.confine(path) {
            Ok(abs) => abs,
            Err(message) => return ToolResult::failure(message),
        };
        match ctx.fs.stat(&abs).await {
            Ok(info) if info.is_directory => {
                return ToolResult::failure(format!("{path} is a directory; use ls to list it."));
            }
            Ok(info) if !info.is_file => {
                return ToolResult::failure(format!(
                    "{}; read shows regular files only.",
                    crate::tools::not_regular(path, &info)
                ));
            }
            Ok(_) => {}
            Err(e) => return ToolResult::failure(format!("Cannot read {path}: {e}")),
        }
        let reader = match ctx.fs.open_read(&abs).await {
            Ok(r) => r,
            Err(e) => return ToolResult::failure(format!("Cannot read {path}: {e}")),
        };
        let window = Window {
            offset,
            limit,
            budget: ctx.budget.max_bytes,
        };
        let cancel = ctx.cancel.clone();
        let scan = match blocking(move || scan(reader, window, &cancel)).await {
            Ok(s) => s,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                return ToolResult::failure("read was cancelled.");
            }
            Err(e) => return ToolResult::failure(format!("Cannot read {path}: {e}")),
        };
        if scan.binary {
            return ToolResult::failure(format!(
                "{path} looks binary (NUL bytes in its first 8 KiB; {} in all); read shows text files only.",
                plural(scan.total_bytes, "byte", "bytes")
            ));
        }
        let empty = scan.total_lines == 0 && offset == 1;
        if offset > scan.total_lines && !empty {
            return ToolResult::failure(format!(
                "offset {offset} is past the end of {path}, which has {}.",
                plural(scan.total_lines, "line", "lines")
            ));
        }
        if let Err(e) = record_gate(ctx, &abs).await {
            return ToolResult::failure(e);
        }
        if empty {
            return ToolResult::text(format!("{path} is empty (0 bytes)."));
        }
        let text = format!("{}\n{}", header(path, &scan), scan.body);
        ToolResult::text(clamp_for(ctx, "read", &text))
    }
}

async fn record_gate(ctx: &ToolContext, abs: &str) -> Result<(), String> {
    record_read_state(ctx, abs, get_read_state_handle(ctx), None)
        .await
        .map_err(|e| format!("The read succeeded but its read-state could not be recorded: {e}"))
}

/// The `read` tool.
pub fn read_tool() -> DefinedTool {
    define_tool(Arc::new(ReadTool))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_scan(data: &[u8], offset: u64, limit: Option<u64>, budget: usize) -> Scan {
        scan(
            Box::new(std::io::Cursor::new(data.to_vec())),
            Window {
                offset,
                limit,
                budget,
            },
            &CancellationToken::new(),
        )
        .unwrap()
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
            header("f", &s),
            "Showing lines 4–6 of 10 in f. 4 lines remain; continue with offset=7."
        );
        let s = run_scan(data.as_bytes(), 8, Some(2), 65536);
        assert_eq!(
            header("f", &s),
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
