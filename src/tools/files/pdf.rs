//! PDF text layers for `read`: the text of each page, laid out in reading order
//! the way poppler's `pdftotext` does it, extracted in a worker process.
//!
//! **Why a worker.** The pure-Rust extractor (`pdf-extract`, on `lopdf`) was
//! measured against `lopdf`'s own `extract_text` on PDFs made by groff and
//! ghostscript: lopdf's run words and lines together (about half the lines
//! match pdftotext's), pdf-extract's glyph positions reproduce them once laid
//! out here. But pdf-extract panics on malformed input (`panic!` on an
//! unexpected object in ~60 places), the shipping build aborts on a panic, and
//! a PDF's object graph can loop. So the extraction runs in this program
//! started again as `indus-tool __pdf-text` ([`WORKER_ARG`]) with the PDF on its
//! stdin, under an address-space and CPU-time limit and a wall-clock timeout:
//! a crash, a loop or a memory bomb ends the worker, and the read answers with
//! what went wrong.
//!
//! **Layout** (in the worker): every glyph's position is collected, glyphs are
//! grouped into lines by baseline, a gap wider than a tenth of the font size
//! is a space and one wider than the font size starts a new line (pdftotext
//! puts text blocks on lines of their own), a line ending in a hyphen after a
//! letter is joined to a next line that begins in lower case, and ligatures
//! (ﬁ, ﬂ…) are spelled out. pdf-extract ignores the `'` and `"` operators
//! (move to the next line and show), which groff's PostScript makes
//! everywhere; they are rewritten to `T*` and `Tj` first.

use serde_json::{Value, json};
use std::time::Duration;

/// The hidden first argument that makes this program the PDF worker.
pub const WORKER_ARG: &str = "__pdf-text";
/// The worker's wall-clock limit.
pub const WORKER_TIMEOUT: Duration = Duration::from_secs(30);
/// The worker's CPU-time limit, in seconds.
const WORKER_CPU_SECS: u64 = 30;
/// The worker's address-space limit: 2 GiB.
const WORKER_MEMORY: u64 = 2 << 30;
/// The largest PDF read: 256 MiB.
pub const PDF_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// What the worker found: the page count and the asked-for pages' text.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    pub page_count: u32,
    pub pages: Vec<(u32, String)>,
}

/// A `pages` value (`3`, `3-5`, `1,4-6`, `7-`) as its ranges, each `(first,
/// last)` with `None` for an open end; an error names what was wrong. Read
/// before any worker starts, so a typo costs nothing.
pub fn page_ranges(spec: &str) -> Result<Vec<(u32, Option<u32>)>, String> {
    let mut ranges = Vec::new();
    for part in spec.split(',').map(str::trim) {
        let bad = || format!("pages: {part:?} is not a page or range (give 3, 3-5, 1,4-6 or 7-).");
        let num = |t: &str| t.trim().parse::<u32>().map_err(|_| bad());
        let (a, b) = match part.split_once('-') {
            Some((a, "")) => (num(a)?, None),
            Some((a, b)) => (num(a)?, Some(num(b)?)),
            None => (num(part)?, Some(num(part)?)),
        };
        if a == 0 || b.is_some_and(|b| b < a) {
            return Err(bad());
        }
        ranges.push((a, b));
    }
    Ok(ranges)
}

/// A `pages` value as a sorted set of page numbers within `count`.
pub fn parse_pages(spec: &str, count: u32) -> Result<Vec<u32>, String> {
    let mut pages = Vec::new();
    for (a, b) in page_ranges(spec)? {
        if a > count {
            return Err(format!(
                "pages: page {a} is past the end; the PDF has {count} page{}.",
                if count == 1 { "" } else { "s" }
            ));
        }
        pages.extend(a..=b.unwrap_or(count).min(count));
    }
    pages.sort_unstable();
    pages.dedup();
    Ok(pages)
}

/// The program to start as the worker: `INDUS_TOOL_EXE`, or this program when
/// it is indus-tool (a host that links the library is not started with
/// arguments it does not know).
fn worker_program() -> Result<std::path::PathBuf, String> {
    if let Some(exe) = std::env::var_os("INDUS_TOOL_EXE") {
        return Ok(exe.into());
    }
    let exe = std::env::current_exe().map_err(|e| {
        format!("PDF text needs the indus-tool program, and its path is unknown: {e}")
    })?;
    let name = exe.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.starts_with("indus-tool") {
        Ok(exe)
    } else {
        Err(format!(
            "PDF text is extracted by the indus-tool program in a process of its own, and this program ({name}) is not it; set INDUS_TOOL_EXE to its path."
        ))
    }
}

/// The text of `pages` (all when `None`) of the PDF `bytes`, from the worker.
pub async fn extract(path: &str, bytes: Vec<u8>, pages: Option<&str>) -> Result<Extracted, String> {
    use tokio::io::AsyncWriteExt;
    if cfg!(not(feature = "media")) {
        return Err(format!(
            "{path} is a PDF; this indus-tool was built without the media feature, which reads PDF text (the default build has it)."
        ));
    }
    let program = worker_program()?;
    let mut command = tokio::process::Command::new(program);
    command
        .arg(WORKER_ARG)
        .arg(pages.unwrap_or(""))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork
    // and exec.
    unsafe {
        command.pre_exec(|| {
            use nix::sys::resource::{Resource, setrlimit};
            setrlimit(Resource::RLIMIT_AS, WORKER_MEMORY, WORKER_MEMORY)?;
            setrlimit(Resource::RLIMIT_CPU, WORKER_CPU_SECS, WORKER_CPU_SECS)?;
            Ok(())
        });
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("Cannot start the PDF worker for {path}: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped");
    let feed = tokio::spawn(async move {
        let _ = stdin.write_all(&bytes).await;
    });
    let waited = tokio::time::timeout(WORKER_TIMEOUT, child.wait_with_output()).await;
    feed.abort();
    let output = match waited {
        Ok(Ok(output)) => output,
        Ok(Err(e)) => return Err(format!("The PDF worker for {path} failed: {e}")),
        Err(_) => {
            return Err(format!(
                "{path}: the PDF's text was not extracted within {} s (a PDF whose objects loop, or one too large); the worker was stopped.",
                WORKER_TIMEOUT.as_secs()
            ));
        }
    };
    let answer: Option<Value> = serde_json::from_slice(&output.stdout).ok();
    match answer {
        Some(v) if v.get("error").is_some() => {
            let error = v["error"].as_str().unwrap_or("unknown error");
            match error.starts_with("pages:") {
                true => Err(error.to_string()),
                false => Err(format!(
                    "{path} is not a PDF whose text can be read: {}.",
                    error.trim_end_matches('.')
                )),
            }
        }
        Some(v) => Ok(Extracted {
            page_count: v["pageCount"].as_u64().unwrap_or(0) as u32,
            pages: v["pages"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|p| {
                    (
                        p["n"].as_u64().unwrap_or(0) as u32,
                        p["text"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect(),
        }),
        None => {
            let why = String::from_utf8_lossy(&output.stderr);
            let why = why
                .lines()
                .find(|l| l.contains("panicked") || l.contains("memory"))
                .or_else(|| why.lines().next())
                .unwrap_or("no message");
            let how = match std::os::unix::process::ExitStatusExt::signal(&output.status) {
                Some(sig) => format!("killed by signal {sig}"),
                None => format!("exit {}", output.status.code().unwrap_or(-1)),
            };
            Err(format!(
                "{path}: the PDF extractor failed on this file ({how}: {}); its text cannot be read here. pdftotext (poppler) may read it.",
                crate::kernel::text::inert(why.trim())
            ))
        }
    }
}

/// The worker's whole life: the PDF on stdin, `pages` as its argument, the
/// answer as one JSON object on stdout. Run by `cli::run` before anything
/// else of the program is set up.
pub fn worker_main(pages: &str) -> std::process::ExitCode {
    use std::io::{Read, Write};
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin()
        .take(PDF_MAX_BYTES + 1)
        .read_to_end(&mut bytes)
    {
        println!("{}", json!({"error": format!("cannot read the PDF: {e}")}));
        return std::process::ExitCode::from(1);
    }
    #[cfg(not(feature = "media"))]
    let extracted: Result<(u32, Vec<(u32, String)>), String> = {
        let _ = pages;
        Err("this indus-tool was built without the media feature, which reads PDF text (the default build has it)".into())
    };
    #[cfg(feature = "media")]
    let extracted = layout::extract_pages(&bytes, pages);
    let answer = match extracted {
        Ok((count, pages)) => json!({
            "pageCount": count,
            "pages": pages.into_iter().map(|(n, text)| json!({"n": n, "text": text})).collect::<Vec<_>>(),
        }),
        Err(e) => json!({"error": e}),
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{answer}");
    std::process::ExitCode::SUCCESS
}

#[cfg(feature = "media")]
mod layout {
    //! The worker's extraction (see the module doc): pdf-extract's glyphs,
    //! laid out into lines.

    use pdf_extract::{Document, MediaBox, Object, ObjectId, OutputDev, OutputError, Transform};

    struct Glyph {
        x: f64,
        y: f64,
        end: f64,
        size: f64,
        text: String,
    }

    #[derive(Default)]
    struct Collect {
        glyphs: Vec<Glyph>,
    }

    impl OutputDev for Collect {
        fn begin_page(
            &mut self,
            _: u32,
            _: &MediaBox,
            _: Option<(f64, f64, f64, f64)>,
        ) -> Result<(), OutputError> {
            Ok(())
        }
        fn end_page(&mut self) -> Result<(), OutputError> {
            Ok(())
        }
        fn output_character(
            &mut self,
            trm: &Transform,
            width: f64,
            _: f64,
            font_size: f64,
            text: &str,
        ) -> Result<(), OutputError> {
            let size = font_size * (trm.m11 * trm.m22 - trm.m12 * trm.m21).abs().sqrt();
            let (x, y) = (trm.m31, trm.m32);
            if x.is_finite() && y.is_finite() && size.is_finite() {
                self.glyphs.push(Glyph {
                    x,
                    y,
                    end: x + width * size,
                    size,
                    text: text.to_string(),
                });
            }
            Ok(())
        }
        fn begin_word(&mut self) -> Result<(), OutputError> {
            Ok(())
        }
        fn end_word(&mut self) -> Result<(), OutputError> {
            Ok(())
        }
        fn end_line(&mut self) -> Result<(), OutputError> {
            Ok(())
        }
    }

    /// The page count and the text of the pages `spec` names (all when empty).
    pub fn extract_pages(bytes: &[u8], spec: &str) -> Result<(u32, Vec<(u32, String)>), String> {
        let mut doc = Document::load_mem(bytes).map_err(|e| e.to_string())?;
        if doc.is_encrypted() && doc.decrypt("").is_err() {
            return Err("it is encrypted with a password".into());
        }
        rewrite_quote_operators(&mut doc);
        let count = doc.get_pages().len() as u32;
        let pages = if spec.is_empty() {
            (1..=count).collect()
        } else {
            crate::tools::files::pdf::parse_pages(spec, count)?
        };
        let mut out = Vec::with_capacity(pages.len());
        for n in pages {
            let mut collect = Collect::default();
            pdf_extract::output_doc_page(&doc, &mut collect, n)
                .map_err(|e| format!("page {n}: {e}"))?;
            out.push((n, lay_out(collect.glyphs)));
        }
        Ok((count, out))
    }

    /// `'` and `"` as the `T*` and `Tj` (with `Tw`, `Tc`) they stand for, in
    /// every page's and form's content.
    fn rewrite_quote_operators(doc: &mut Document) {
        use pdf_extract::content::{Content, Operation};
        let mut ids: Vec<ObjectId> = doc
            .objects
            .iter()
            .filter(|(_, o)| {
                o.as_stream().is_ok_and(|s| {
                    s.dict.get(b"Subtype").ok().and_then(|t| t.as_name().ok())
                        == Some(b"Form".as_slice())
                })
            })
            .map(|(id, _)| *id)
            .collect();
        for (_, page) in doc.get_pages() {
            ids.extend(doc.get_page_contents(page));
        }
        for id in ids {
            let Ok(Object::Stream(stream)) = doc.get_object_mut(id) else {
                continue;
            };
            let Ok(data) = stream.decompressed_content() else {
                continue;
            };
            let Ok(content) = Content::decode(&data) else {
                continue;
            };
            if !content
                .operations
                .iter()
                .any(|o| o.operator == "'" || o.operator == "\"")
            {
                continue;
            }
            let mut ops = Vec::with_capacity(content.operations.len() + 16);
            for op in content.operations {
                match (op.operator.as_str(), op.operands.len()) {
                    ("'", _) => {
                        ops.push(Operation::new("T*", vec![]));
                        ops.push(Operation::new("Tj", op.operands));
                    }
                    ("\"", 3) => {
                        let mut it = op.operands.into_iter();
                        let (aw, ac, s) = (it.next(), it.next(), it.next());
                        ops.push(Operation::new("Tw", aw.into_iter().collect()));
                        ops.push(Operation::new("Tc", ac.into_iter().collect()));
                        ops.push(Operation::new("T*", vec![]));
                        ops.push(Operation::new("Tj", s.into_iter().collect()));
                    }
                    _ => ops.push(op),
                }
            }
            if let Ok(bytes) = (Content { operations: ops }).encode() {
                stream.set_plain_content(bytes);
            }
        }
    }

    /// A run of a line's glyphs with no wide gap in it: where it is and its text.
    struct Segment {
        x0: f64,
        x1: f64,
        y: f64,
        size: f64,
        text: String,
    }

    /// One glyph's text, ligatures spelled out, onto `out`.
    fn push_glyph(out: &mut String, text: &str) {
        for c in text.chars() {
            match c {
                '\u{FB00}' => out.push_str("ff"),
                '\u{FB01}' => out.push_str("fi"),
                '\u{FB02}' => out.push_str("fl"),
                '\u{FB03}' => out.push_str("ffi"),
                '\u{FB04}' => out.push_str("ffl"),
                '\u{FB05}' | '\u{FB06}' => out.push_str("st"),
                c => out.push(c),
            }
        }
    }

    /// The glyphs as segments: grouped into lines by baseline, each line cut
    /// where a gap is wider than the font size, a space where one is wider
    /// than a tenth of it. In reading order (top to bottom, left to right).
    fn segments(mut glyphs: Vec<Glyph>) -> Vec<Segment> {
        glyphs.retain(|g| !g.text.trim().is_empty());
        glyphs.sort_by(|a, b| b.y.total_cmp(&a.y).then(a.x.total_cmp(&b.x)));
        let mut lines: Vec<Vec<Glyph>> = Vec::new();
        for g in glyphs {
            match lines.last_mut() {
                Some(line) if (line[0].y - g.y).abs() < 0.5 * line[0].size.max(g.size) => {
                    line.push(g)
                }
                _ => lines.push(vec![g]),
            }
        }
        let mut out = Vec::new();
        for mut line in lines {
            line.sort_by(|a, b| a.x.total_cmp(&b.x));
            let wide = wide_gap(&line);
            let mut current: Option<Segment> = None;
            for g in &line {
                match current.as_mut() {
                    Some(seg) if g.x - seg.x1 <= wide => {
                        if g.x - seg.x1 > 0.1 * g.size {
                            seg.text.push(' ');
                        }
                        push_glyph(&mut seg.text, &g.text);
                        seg.x1 = seg.x1.max(g.end);
                        seg.size = seg.size.max(g.size);
                    }
                    _ => {
                        out.extend(current.take());
                        let mut text = String::new();
                        push_glyph(&mut text, &g.text);
                        current = Some(Segment {
                            x0: g.x,
                            x1: g.end,
                            y: line[0].y,
                            size: g.size,
                            text,
                        });
                    }
                }
            }
            out.extend(current);
        }
        out
    }

    /// The gap that cuts a line into segments: wider than the font size and
    /// than twice the line's narrow spaces between words, so a justified line
    /// whose spaces are all stretched stays whole.
    fn wide_gap(line: &[Glyph]) -> f64 {
        let size = line.iter().map(|g| g.size).fold(0.0, f64::max);
        let mut gaps: Vec<f64> = line
            .windows(2)
            .map(|w| w[1].x - w[0].end)
            .filter(|&gap| gap > 0.1 * size)
            .collect();
        if gaps.len() < 4 {
            return size;
        }
        // The lower quartile: a line of a few words and one wide gap (a
        // running head) keeps its cut.
        gaps.sort_by(f64::total_cmp);
        size.max(2.0 * gaps[gaps.len() / 4])
    }

    /// The page as text: segments gathered into blocks and the blocks read
    /// in order of their first line. A segment joins the block whose last
    /// segment is on the line just above it (within 1.5 font sizes) and
    /// overlaps it across; so a table's columns are blocks of their own, read
    /// one after the other, as pdftotext reads them.
    fn lay_out(glyphs: Vec<Glyph>) -> String {
        let segs = segments(glyphs);
        // Each block: the indexes of its segments, in order.
        let mut blocks: Vec<Vec<usize>> = Vec::new();
        for (i, seg) in segs.iter().enumerate() {
            let joins = blocks.iter_mut().rev().find(|b| {
                let last = &segs[*b.last().expect("never empty")];
                let below = last.y - seg.y;
                below > 0.5 * seg.size
                    && below <= 1.5 * last.size.max(seg.size)
                    && seg.x0 < last.x1
                    && last.x0 < seg.x1
            });
            match joins {
                Some(block) => block.push(i),
                None => blocks.push(vec![i]),
            }
        }
        let mut raw = String::new();
        for block in &blocks {
            for &i in block {
                raw.push_str(&segs[i].text);
                raw.push('\n');
            }
        }
        dehyphenate(&raw)
    }

    /// `manip-` / `ulate` as `manipulate`, as pdftotext joins them.
    fn dehyphenate(raw: &str) -> String {
        let mut out = String::with_capacity(raw.len());
        let mut lines = raw.lines().peekable();
        while let Some(line) = lines.next() {
            let mut line = line.to_string();
            while line.ends_with('-')
                && line.chars().rev().nth(1).is_some_and(char::is_alphabetic)
                && lines
                    .peek()
                    .is_some_and(|n| n.starts_with(char::is_lowercase))
            {
                line.pop();
                line.push_str(lines.next().unwrap_or_default());
            }
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn hyphens_join_only_before_lower_case() {
            assert_eq!(dehyphenate("manip-\nulate this\n"), "manipulate this\n");
            assert_eq!(dehyphenate("GNU-\nLinux\n"), "GNU-\nLinux\n");
            assert_eq!(dehyphenate("x -\ny\n"), "x -\ny\n");
        }

        #[test]
        fn glyphs_become_lines_words_and_blocks() {
            let g = |x: f64, y: f64, t: &str| Glyph {
                x,
                y,
                end: x + 6.0,
                size: 10.0,
                text: t.into(),
            };
            // Words and spaces on a line; a wide gap starts a segment; the
            // line below under the first segment continues its block.
            let text = lay_out(vec![
                g(12.0, 100.0, "b"),
                g(6.0, 100.0, "a"),
                g(20.0, 100.0, "c"),
                g(200.0, 100.0, "far"),
                g(6.0, 88.0, "ﬁ"),
            ]);
            assert_eq!(text, "ab c\nfi\nfar\n");
            // A two-column table is read a column at a time.
            let table = lay_out(vec![
                g(6.0, 100.0, "k1"),
                g(100.0, 100.0, "d1"),
                g(6.0, 88.0, "k2"),
                g(100.0, 88.0, "d2"),
            ]);
            assert_eq!(table, "k1\nk2\nd1\nd2\n");
        }

        #[test]
        fn garbage_is_an_error_not_a_panic() {
            assert!(extract_pages(b"%PDF-1.4\nnot a pdf", "").is_err());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_ranges_parse_within_the_count() {
        assert_eq!(parse_pages("3", 5).unwrap(), vec![3]);
        assert_eq!(parse_pages("4-,1", 5).unwrap(), vec![1, 4, 5]);
        assert_eq!(parse_pages("2-9", 5).unwrap(), vec![2, 3, 4, 5]);
        assert!(parse_pages("6", 5).unwrap_err().contains("has 5 pages"));
        assert!(parse_pages("0", 5).is_err());
        assert!(parse_pages("x", 5).unwrap_err().contains("\"x\""));
    }
}
