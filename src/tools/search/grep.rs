//! `grep`: regex content search beneath a path, one `PATH:LINE: TEXT` row per
//! matching line, in path order, with an exact summary line.
//!
//! The pattern is compiled once with ripgrep's own matcher (`grep-regex`, RE2-style:
//! no lookaround, no backreferences) and each file is searched with `grep-searcher`
//! on the backend's walker threads. JS flag letters are kept for parity with the
//! seed and translated to inline flags. Every file is searched to the end, so the
//! summary's counts are exact and identical at any thread count; only the rows
//! that can still be among the first `limit` keep their text (see `walk::FirstN`).
//!
//! A file named as `path` is not walked: it is streamed through `Fs::open_read`, so
//! the walk's size limit (`maxFileSize`, which bounds what each walking thread holds
//! in memory) never hides the one file the caller asked about.
//!
//! The optional keys beside those mirror ripgrep's flags one for one, with rg's
//! meaning, so a command line can map rg's flags onto them: several roots
//! (`paths`), `-g` (`globs`), `-t`/`-T` (`type`/`typeNot`), `-v`, `-w`, `-S`,
//! `-B`/`-A`, `-m`, and `-l`/`-c` (`outputMode`). Absent, they change nothing.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Seat, SeedList, ToolMeta};
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::overrides::Override;
use ignore::types::{Types, TypesBuilder};
use serde_json::{Value, json};

use super::walk::{
    FirstN, GlobLine, Ranked, build_overrides, display_path, is_hidden_below_root, join_and, merge,
    override_match, parse_roots, path_order, run_walk, walk_options,
};
use crate::kernel::input::{Args, invalid};
use crate::kernel::text::{inert, plural};
use crate::kernel::{
    CancellationToken, DefinedTool, FileRead, ReadLimits, RowSink, Tool, ToolContext, ToolResult,
    WalkEntry, WalkEntryKind, WalkEvent, WalkFlow, WalkVisitor, WalkVisitorFactory, define_tool,
};
use crate::tools::{clamp_rows, rows_record, rows_that_fit, text_and_record};

/// Hits shown when `limit` is absent.
pub const DEFAULT_LIMIT: u64 = 200;
/// The largest `limit` an agent's face accepts (see `row_limit`).
pub const LIMIT_CEILING: u64 = 5000;
/// Files found by the walk that are larger than this are skipped when
/// `maxFileSize` is absent: 2 MiB holds any hand-written source file and passes
/// over the bundles, dumps and logs a tree search rarely means.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 2 * 1024 * 1024;
/// `maxFileSize` is pinned to this: each walking thread holds a file whole, so the
/// limit bounds memory (128 MiB, the bound on what indus-tool holds whole elsewhere).
pub const MAX_FILE_SIZE_CEILING: u64 = 128 * 1024 * 1024;
/// A file with a NUL byte among its first this-many bytes is binary and skipped.
pub const NUL_SNIFF: usize = 4096;
/// The walk's caps when `maxFileSize` is absent.
pub const READ_LIMITS: ReadLimits = ReadLimits {
    max_size: DEFAULT_MAX_FILE_SIZE,
    nul_sniff: NUL_SNIFF,
};
/// Lines longer than this many characters are cut.
pub const MAX_LINE_CHARS: usize = 500;

const FLAG_LETTERS: &str = "only the letters g, i, m, s, u, y";

struct Grep;

/// The JS flag letters that change matching.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct RegexFlags {
    pub ignore_case: bool,
    pub multi_line: bool,
    pub dot_all: bool,
}

/// Parse the `flags` field: any of `gimsuy` (repeats allowed); `g`, `y` and `u`
/// are accepted and change nothing (the matcher is stateless and always Unicode).
pub fn parse_flags(value: Option<&Value>) -> Result<RegexFlags, String> {
    let mut flags = RegexFlags::default();
    let Some(value) = value else {
        return Ok(flags);
    };
    let Value::String(letters) = value else {
        return Err(invalid(
            "flags",
            "a string of the letters g, i, m, s, u, y",
            value,
        ));
    };
    for c in letters.chars() {
        match c {
            'i' => flags.ignore_case = true,
            'm' => flags.multi_line = true,
            's' => flags.dot_all = true,
            'g' | 'u' | 'y' => {}
            _ => return Err(invalid("flags", FLAG_LETTERS, value)),
        }
    }
    Ok(flags)
}

/// The regex handed to the matcher: inline flags, then the pattern (escaped when
/// `literal`).
pub fn regex_source(pattern: &str, literal: bool, flags: RegexFlags) -> String {
    let mut inline = String::new();
    for (on, letter) in [
        (flags.ignore_case, 'i'),
        (flags.multi_line, 'm'),
        (flags.dot_all, 's'),
    ] {
        if on {
            inline.push(letter);
        }
    }
    let body = if literal {
        regex_syntax::escape(pattern)
    } else {
        pattern.to_string()
    };
    if inline.is_empty() {
        body
    } else {
        format!("(?{inline}){body}")
    }
}

/// Compile like ripgrep does: `^`/`$` at line boundaries, no octal escapes, and a
/// line terminator the pattern can never match across.
pub fn compile(source: &str) -> Result<RegexMatcher, String> {
    compile_with(source, MatchOptions::default())
}

/// rg's matcher switches beyond the pattern's own flags.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct MatchOptions {
    /// rg `-w`: a match must stand between word boundaries.
    pub word: bool,
    /// rg `-S`: case-insensitive unless the pattern holds an uppercase literal.
    pub smart_case: bool,
    /// rg `-U`: no line terminator is forbidden, so a match may span lines.
    pub multiline: bool,
}

/// [`compile`] with rg's `-w` and `-S`.
pub fn compile_with(source: &str, options: MatchOptions) -> Result<RegexMatcher, String> {
    let fail = |e: &dyn std::fmt::Display| format!("Could not compile the search pattern: {e}");
    // Parsed on its own first so a syntax error quotes the pattern as given, not
    // the wrapped form the matcher builds around it.
    regex_syntax::ParserBuilder::new()
        .octal(false)
        .build()
        .parse(source)
        .map_err(|e| fail(&e))?;
    RegexMatcherBuilder::new()
        .multi_line(true)
        .octal(false)
        .word(options.word)
        .case_smart(options.smart_case)
        .line_terminator((!options.multiline).then_some(b'\n'))
        .build(source)
        .map_err(|e| fail(&e))
}

const GLOB_EXPECTED: &str = "a file-name glob such as \"*.rs\"";
const GLOBS_EXPECTED: &str = "a glob such as \"*.rs\" or \"!*.min.js\"";
const TYPE_EXPECTED: &str = "names of rg file types such as \"rust\", \"py\", \"js\", \"toml\" or \"md\" (rg --type-list lists them)";

/// rg's file filters beside the pattern: the `-g` globs (`glob`, `globs`) and the
/// `-t`/`-T` file types (`type`, `typeNot`). They apply below the root only: a root
/// named outright is searched whatever they say, as rg searches a path it is given.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    overrides: Option<Override>,
    types: Option<Types>,
}

impl Filters {
    /// Compile the globs (`glob` first, then `globs`, in order: later ones win, as
    /// in rg) and the type names.
    pub fn new(globs: &[GlobLine], select: &[&str], negate: &[&str]) -> Result<Self, String> {
        Ok(Self {
            overrides: build_overrides(globs)?,
            types: file_types(select, negate)?,
        })
    }

    /// Whether an entry below the root is kept (searched when a file, entered when
    /// a folder), in rg's precedence: a glob's verdict, include or exclude, is
    /// final; otherwise a file of a negated type, or of no selected type when some
    /// are selected, is left out.
    pub(crate) fn keeps(&self, entry: &dyn WalkEntry) -> bool {
        if let Some(overrides) = &self.overrides {
            match override_match(overrides, entry) {
                ignore::Match::Ignore(()) => return false,
                ignore::Match::Whitelist(()) => return true,
                ignore::Match::None => {}
            }
        }
        match &self.types {
            Some(types) => !types
                .matched(entry.path(), entry.kind() == WalkEntryKind::Dir)
                .is_ignore(),
            None => true,
        }
    }
}

/// The `-t`/`-T` matcher over rg's built-in file types; `all` selects or negates
/// every type, as in rg. An unknown name is refused naming its field.
fn file_types(select: &[&str], negate: &[&str]) -> Result<Option<Types>, String> {
    if select.is_empty() && negate.is_empty() {
        return Ok(None);
    }
    let mut builder = TypesBuilder::new();
    builder.add_defaults();
    let known: Vec<String> = builder
        .definitions()
        .iter()
        .map(|d| d.name().to_string())
        .collect();
    for (field, names) in [("type", select), ("typeNot", negate)] {
        for name in names {
            if *name != "all" && !known.iter().any(|k| k == name) {
                return Err(invalid(
                    field,
                    TYPE_EXPECTED,
                    &Value::String(name.to_string()),
                ));
            }
            if field == "type" {
                builder.select(name);
            } else {
                builder.negate(name);
            }
        }
    }
    builder
        .build()
        .map(Some)
        .map_err(|e| format!("Could not build the file types: {e}"))
}

/// What the rows are: rg's default lines, `-l` (`files`) or `-c` (`count`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum OutputMode {
    #[default]
    Content,
    Files,
    Count,
}

/// How each file is searched and shown: context on each side (rg `-B`/`-A`),
/// inverted matching (`-v`), a per-file match cap (`-m`) and the output mode.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub before: usize,
    pub after: usize,
    pub invert: bool,
    pub max_count: Option<u64>,
    pub mode: OutputMode,
    /// rg `-U`: the file is searched whole and a match may span lines.
    pub multiline: bool,
}

/// The lines of one match as the searcher reports it: the line itself, or with
/// `multiline` each line the match spans (rg -U prints each as a row).
fn match_lines(bytes: &[u8], multiline: bool) -> impl Iterator<Item = &[u8]> {
    let body = if multiline {
        bytes.strip_suffix(b"\n").unwrap_or(bytes)
    } else {
        bytes
    };
    body.split(move |b| multiline && *b == b'\n')
}

/// The matches in one group of lines the multiline searcher reports at once
/// (it joins matches whose lines touch): rg -U counts each of them.
fn matches_in(matcher: &RegexMatcher, bytes: &[u8]) -> u32 {
    use grep_matcher::Matcher;
    let mut n = 0u32;
    let _ = matcher.find_iter(bytes, |_| {
        n += 1;
        true
    });
    n.max(1)
}

/// A matched or context line as shown: terminator dropped, invalid UTF-8 replaced,
/// cut after `max_chars` characters (`MAX_LINE_CHARS` for an agent, unbounded
/// for a pipe, as rg prints) with a marker saying how much was cut.
pub fn display_line(raw: &[u8], max_chars: usize) -> String {
    let mut out = String::new();
    push_display_line(&mut out, raw, max_chars);
    out
}

/// [`display_line`] onto the end of `out`, allocating nothing of its own for a
/// line that is valid UTF-8 and not cut (the streamed rows' common case).
fn push_display_line(out: &mut String, raw: &[u8], max_chars: usize) {
    let line = raw.strip_suffix(b"\n").unwrap_or(raw);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let text = String::from_utf8_lossy(line);
    if text.len() <= max_chars {
        out.push_str(&text);
        return;
    }
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => {
            out.push_str(&text[..cut]);
            out.push_str(&format!(
                " … [line truncated, {} more bytes]",
                text.len() - cut
            ));
        }
        None => out.push_str(&text),
    }
}

/// One stored line of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    number: u64,
    is_match: bool,
    /// The matches that start on this line, which the limit, the offset and
    /// the counts count: 1 on each matching line; in multiline mode the
    /// matches of a group of touching lines on its first (rg -U counts each),
    /// 0 on the group's other lines and on context.
    starts: u32,
    text: String,
}

/// A file's stored lines (its first matches, up to the limit, and their context).
struct FileHits {
    path: String,
    /// Rows it takes: the matches stored, or 1 in the files and count modes.
    stored_matches: usize,
    /// Every matching line of the file (for the count mode).
    count: u64,
    lines: Vec<Line>,
}

impl Ranked for FileHits {
    fn key(&self) -> &str {
        &self.path
    }
    fn weight(&self) -> usize {
        self.stored_matches
    }
}

/// The sink of one file's search: counts every matching line, stores lines only
/// while they can still be shown.
struct Collect<'a> {
    store: bool,
    limit: usize,
    line_chars: usize,
    /// Lines of after-context: past the limit, only the last stored match's trail.
    after: u64,
    total: u64,
    stored: usize,
    last_match: u64,
    multiline: bool,
    /// In multiline mode, to count the matches of each group of lines the
    /// searcher reports at once (see [`matches_in`]).
    matcher: Option<&'a RegexMatcher>,
    lines: &'a mut Vec<Line>,
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let n = self
            .matcher
            .map_or(1, |matcher| matches_in(matcher, m.bytes()));
        self.total += u64::from(n);
        if self.store && self.stored < self.limit {
            let first = m.line_number().unwrap_or(0);
            for (i, raw) in match_lines(m.bytes(), self.multiline).enumerate() {
                let number = first + i as u64;
                self.lines.push(Line {
                    number,
                    is_match: true,
                    starts: if i == 0 { n } else { 0 },
                    text: display_line(raw, self.line_chars),
                });
                self.last_match = number;
            }
            self.stored += n as usize;
        }
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, io::Error> {
        if !self.store {
            return Ok(true);
        }
        let number = c.line_number().unwrap_or(0);
        let keep = self.stored < self.limit
            || (*c.kind() == SinkContextKind::After
                && number <= self.last_match.saturating_add(self.after));
        if keep {
            self.lines.push(Line {
                number,
                is_match: false,
                starts: 0,
                text: display_line(c.bytes(), self.line_chars),
            });
        }
        Ok(true)
    }
}

/// What one walking thread gathered.
struct Gathered {
    kept: FirstN<FileHits>,
    searched: u64,
    with_matches: u64,
    matches: u64,
    binary: u64,
    too_large: u64,
    unreadable: u64,
    /// Folders left out by a name rule that may hold the project's files.
    pruned: u64,
    /// Why the root itself could not be read, which fails the whole search.
    root_error: Option<String>,
}

/// Everything the walking threads share; also the visitor factory.
struct Shared {
    matcher: RegexMatcher,
    filters: Filters,
    limit: usize,
    line_chars: usize,
    shape: Shape,
    read_limits: ReadLimits,
    skip_hidden: bool,
    cancel: CancellationToken,
    cancelled: AtomicBool,
    gathered: Mutex<Vec<Gathered>>,
}

/// Binary files are recognised before searching (a NUL in the head), so the
/// searcher itself never stops at one.
/// The longest line grep holds (64 MiB): the searcher's buffer grows to fit
/// a line, so one file of a single 2 GiB line cost several times that in
/// memory; past this the file is reported, not searched.
pub const LINE_HEAP_LIMIT: usize = 64 * 1024 * 1024;

fn searcher_for(shape: Shape) -> Searcher {
    SearcherBuilder::new()
        .heap_limit(Some(LINE_HEAP_LIMIT))
        .line_number(true)
        .before_context(shape.before)
        .after_context(shape.after)
        .invert_match(shape.invert)
        .max_matches(shape.max_count)
        .multi_line(shape.multiline)
        .binary_detection(BinaryDetection::none())
        .build()
}

impl Shared {
    fn searcher(&self) -> Searcher {
        searcher_for(self.shape)
    }

    fn gathered(&self) -> Gathered {
        Gathered {
            kept: FirstN::new(self.limit),
            searched: 0,
            with_matches: 0,
            matches: 0,
            binary: 0,
            too_large: 0,
            unreadable: 0,
            pruned: 0,
            root_error: None,
        }
    }

    /// Search one text with `search` (over a slice or a stream) and tally it.
    fn search_one(
        &self,
        path: &str,
        g: &mut Gathered,
        search: impl FnOnce(&mut Collect<'_>) -> io::Result<()>,
    ) {
        let mut lines = Vec::new();
        let content = self.shape.mode == OutputMode::Content;
        let mut sink = Collect {
            // The files and count modes show no lines, so none is kept.
            store: content && g.kept.wants(path),
            limit: self.limit,
            line_chars: self.line_chars,
            after: self.shape.after as u64,
            total: 0,
            stored: 0,
            last_match: 0,
            multiline: self.shape.multiline,
            matcher: self.shape.multiline.then_some(&self.matcher),
            lines: &mut lines,
        };
        if let Err(e) = search(&mut sink) {
            g.unreadable += 1;
            // A file named outright says why it was not searched.
            if path.is_empty() && e.to_string().contains("allocation limit") {
                g.root_error.get_or_insert(format!(
                    "it has a line longer than grep's {} MiB limit (a file of one huge line is not text to search by line)",
                    LINE_HEAP_LIMIT >> 20
                ));
            }
            return;
        }
        let (total, stored) = (sink.total, sink.stored);
        g.searched += 1;
        if total > 0 {
            g.with_matches += 1;
            g.matches += total;
            if stored > 0 {
                g.kept.push(FileHits {
                    path: path.to_string(),
                    stored_matches: stored,
                    count: total,
                    lines,
                });
            } else if !content && g.kept.wants(path) {
                g.kept.push(FileHits {
                    path: path.to_string(),
                    stored_matches: 1,
                    count: total,
                    lines,
                });
            }
        }
    }

    /// Search a file named outright, streamed: no size limit, and memory holds
    /// about one line at a time however large the file is.
    fn search_stream(&self, mut reader: Box<dyn Read + Send>, g: &mut Gathered) {
        let mut head = Vec::with_capacity(NUL_SNIFF);
        if (&mut reader)
            .take(NUL_SNIFF as u64)
            .read_to_end(&mut head)
            .is_err()
        {
            g.unreadable += 1;
            return;
        }
        if memchr::memchr(0, &head).is_some() {
            g.binary += 1;
            return;
        }
        let stream = Cancellable {
            inner: io::Cursor::new(head).chain(reader),
            cancel: &self.cancel,
        };
        let mut searcher = self.searcher();
        self.search_one("", g, |sink| {
            searcher.search_reader(&self.matcher, stream, sink)
        });
        if self.cancel.is_cancelled() {
            self.cancelled.store(true, Ordering::Relaxed);
        }
    }
}

/// A reader that fails once the call is cancelled, so a search through a huge file
/// stops between two reads instead of running to its end.
struct Cancellable<'a, R> {
    inner: R,
    cancel: &'a CancellationToken,
}

impl<R: Read> Read for Cancellable<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.cancel.is_cancelled() {
            return Err(io::Error::other("grep was cancelled"));
        }
        self.inner.read(buf)
    }
}

impl WalkVisitorFactory for Shared {
    fn visitor(&self) -> Box<dyn WalkVisitor + '_> {
        Box::new(Visitor {
            shared: self,
            matcher: self.matcher.clone(),
            searcher: self.searcher(),
            buf: Vec::new(),
            gathered: Some(self.gathered()),
        })
    }
}

struct Visitor<'a> {
    shared: &'a Shared,
    matcher: RegexMatcher,
    searcher: Searcher,
    buf: Vec<u8>,
    gathered: Option<Gathered>,
}

impl Visitor<'_> {
    fn search(&mut self, entry: &dyn WalkEntry, g: &mut Gathered) {
        match entry.read(&mut self.buf, self.shared.read_limits) {
            Err(_) => g.unreadable += 1,
            Ok(FileRead::TooLarge { .. }) => g.too_large += 1,
            Ok(FileRead::Binary) => g.binary += 1,
            Ok(FileRead::Read) => {
                let (searcher, matcher, buf) = (&mut self.searcher, &self.matcher, &self.buf);
                self.shared.search_one(entry.path(), g, |sink| {
                    searcher.search_slice(matcher, buf, sink)
                });
            }
        }
    }
}

impl WalkVisitor for Visitor<'_> {
    fn visit(&mut self, event: WalkEvent<'_>) -> WalkFlow {
        if self.shared.cancel.is_cancelled() {
            self.shared.cancelled.store(true, Ordering::Relaxed);
            return WalkFlow::Quit;
        }
        let Some(mut g) = self.gathered.take() else {
            return WalkFlow::Quit;
        };
        match event {
            WalkEvent::Unreadable { path, message } => {
                g.unreadable += 1;
                if path.is_some_and(|p| p.is_empty()) {
                    g.root_error.get_or_insert(message);
                }
            }
            WalkEvent::Pruned { path } => {
                g.pruned += u64::from(super::walk::counts_as_pruned(&path));
            }
            WalkEvent::Entry(entry) if self.shared.skip_hidden && is_hidden_below_root(entry) => {
                self.gathered = Some(g);
                return WalkFlow::Skip;
            }
            // A root that is a file (one swapped in for the folder after the stat)
            // is searched whatever the globs and types, as a named file would be.
            WalkEvent::Entry(entry)
                if !entry.path().is_empty() && !self.shared.filters.keeps(entry) =>
            {
                // Left out by a glob or type: not searched, and a folder not entered.
                self.gathered = Some(g);
                return WalkFlow::Skip;
            }
            WalkEvent::Entry(entry) => {
                if entry.kind() == WalkEntryKind::File {
                    self.search(entry, &mut g);
                }
            }
        }
        self.gathered = Some(g);
        WalkFlow::Continue
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        if let Some(mut g) = self.gathered.take() {
            g.kept.finish();
            self.shared
                .gathered
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(g);
        }
    }
}

/// One file's rows as the searcher finds them, spelled as `render` spells them
/// (a `--` between the file's groups, none before its first): what a pipe that
/// reads every row gets, held one file at a time (see [`stream_rows`]).
struct FileRows {
    path: String,
    line_chars: usize,
    separators: bool,
    /// Whether a `--` goes before the first row (an earlier file wrote rows).
    lead: bool,
    last: Option<u64>,
    /// The rows, each ending with a newline: one buffer, not a string a row.
    rows: String,
    /// Where the rows go as they pile up, for a file whose turn it already is (a
    /// file named outright, which no size limit bounds): `None` holds them all
    /// for the caller.
    direct: Option<Arc<dyn RowSink>>,
    matches: u64,
    /// The matcher, in multiline mode (see [`matches_in`]).
    multiline: Option<RegexMatcher>,
}

/// How much of a file named outright is held before it is written out.
const DIRECT_CHUNK: usize = 64 * 1024;

impl FileRows {
    /// One row (a match's lines are counted as one match by the caller).
    fn write_line(&mut self, number: u64, is_match: bool, bytes: &[u8]) -> io::Result<()> {
        let apart = match self.last {
            Some(last) => last.wrapping_add(1) != number,
            None => self.lead,
        };
        if self.separators && apart {
            self.rows.push_str("--\n");
        }
        let sep = if is_match { ':' } else { '-' };
        self.rows.push_str(&self.path);
        self.rows.push(sep);
        // Writing to a String cannot fail.
        let _ = std::fmt::Write::write_fmt(&mut self.rows, format_args!("{number}"));
        self.rows.push(sep);
        self.rows.push(' ');
        push_display_line(&mut self.rows, bytes, self.line_chars);
        self.rows.push('\n');
        self.last = Some(number);
        if let Some(sink) = &self.direct
            && self.rows.len() >= DIRECT_CHUNK
        {
            sink.rows(&self.rows)?;
            self.rows.clear();
        }
        Ok(())
    }
}

/// Search one file again for its rows (see [`stream_rows`]). `direct`: write
/// them to that sink as they pile up instead of returning them; `lead`: a `--`
/// goes before the first. The rows not yet written, the matching lines, and
/// whether any row was made.
async fn file_rows(
    ctx: &ToolContext,
    query: &Query,
    (path, abs): (String, String),
    lead: bool,
    direct: Option<Arc<dyn RowSink>>,
) -> io::Result<(String, u64, bool)> {
    let (matcher, shape, line_chars) = (query.matcher.clone(), query.shape, query.line_chars);
    let (fs, cancel) = (Arc::clone(&ctx.fs), ctx.cancel.clone());
    // A file gone since the walk counted it has no rows to give.
    let Ok(reader) = fs.open_read(&abs).await else {
        return Ok((String::new(), 0, false));
    };
    crate::backends::local_fs::blocking(move || {
        let mut rows = FileRows {
            path,
            line_chars,
            separators: shape.before > 0 || shape.after > 0,
            lead,
            last: None,
            rows: String::new(),
            direct,
            matches: 0,
            multiline: shape.multiline.then(|| matcher.clone()),
        };
        let stream = Cancellable {
            inner: reader,
            cancel: &cancel,
        };
        searcher_for(shape).search_reader(&matcher, stream, &mut rows)?;
        Ok((rows.rows, rows.matches, rows.last.is_some()))
    })
    .await
}

impl Sink for FileRows {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let first = m.line_number().unwrap_or(0);
        for (i, raw) in match_lines(m.bytes(), self.multiline.is_some()).enumerate() {
            self.write_line(first + i as u64, true, raw)?;
        }
        self.matches += u64::from(
            self.multiline
                .as_ref()
                .map_or(1, |mt| matches_in(mt, m.bytes())),
        );
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, c: &SinkContext<'_>) -> Result<bool, io::Error> {
        self.write_line(c.line_number().unwrap_or(0), false, c.bytes())?;
        Ok(true)
    }
}

/// The content rows of every file `found` lists, in order, to `sink`: the walk
/// only counted, so each file with a match is searched again, a few at once
/// (`buffered` keeps their order), and its rows written as soon as the files
/// before it are. A file named outright is searched on its turn and written as
/// its rows pile up. Memory holds a few files' rows (each file found by the walk
/// is at most `maxFileSize`), whatever the tree holds. How many matching lines
/// were written.
async fn stream_rows(
    ctx: &ToolContext,
    query: &Query,
    found: &[(Option<String>, String, Vec<FileHits>)],
    sink: &Arc<dyn RowSink>,
) -> Result<u64, String> {
    use futures_util::{StreamExt, stream};
    let failed = |e: io::Error| format!("grep could not write its rows: {e}");
    let separators = query.shape.before > 0 || query.shape.after > 0;
    let in_flight = std::thread::available_parallelism().map_or(2, |n| n.get() * 2);
    let (mut earlier, mut shown) = (false, 0u64);
    for (spelled, abs, files) in found {
        // (path as shown, path to read): owned, so the futures borrow nothing.
        let pairs: Vec<(String, String)> = files
            .iter()
            .map(|file| {
                (
                    // Shown with its control characters escaped (a name must
                    // not forge a row); the record keeps it as it is.
                    inert(&display_path(spelled.as_deref(), &file.path)).into_owned(),
                    super::walk::below_root(abs, &file.path),
                )
            })
            .collect();
        if files.first().is_some_and(|f| f.path.is_empty()) {
            // The root is a file named outright: its turn has come.
            for pair in pairs {
                let (rest, matches, wrote) =
                    file_rows(ctx, query, pair, earlier, Some(Arc::clone(sink)))
                        .await
                        .map_err(failed)?;
                sink.rows(&rest).map_err(failed)?;
                earlier |= wrote;
                shown += matches;
            }
            continue;
        }
        let mut searched = stream::iter(pairs)
            .map(|pair| file_rows(ctx, query, pair, false, None))
            .buffered(in_flight);
        while let Some(result) = searched.next().await {
            if ctx.cancel.is_cancelled() {
                return Err("grep was cancelled.".to_string());
            }
            let (rows, matches, wrote) = result.map_err(failed)?;
            if !wrote {
                continue;
            }
            if separators && earlier {
                sink.row("--").map_err(failed)?;
            }
            sink.rows(&rows).map_err(failed)?;
            earlier = true;
            shown += matches;
        }
    }
    if ctx.cancel.is_cancelled() {
        return Err("grep was cancelled.".to_string());
    }
    sink.flush().map_err(failed)?;
    Ok(shown)
}

/// A validated request.
#[derive(Clone)]
struct Query {
    matcher: RegexMatcher,
    /// How the pattern is named in the no-match message.
    label: String,
    /// The roots in the order given, each as spelled (`None`: the working
    /// directory, unspelled).
    roots: Vec<Option<String>>,
    filters: Filters,
    shape: Shape,
    limit: usize,
    /// Matches (or files) passed over before the rows shown: paging.
    offset: usize,
    /// Characters of a line shown before it is cut.
    line_chars: usize,
    gitignore: bool,
    max_file_size: u64,
    skip_hidden: bool,
}

/// rg's file filters from the `glob`, `globs`, `type` and `typeNot` keys, as
/// grep reads them (sgrep and outline read them the same way).
pub(crate) fn filters_of(args: &Args<'_>) -> Result<Filters, String> {
    let mut globs = Vec::new();
    if let Some(g) = args.opt_filled_str("glob")? {
        globs.push(GlobLine {
            field: "glob",
            line: g.to_string(),
            given: g.to_string(),
            expected: GLOB_EXPECTED,
        });
    }
    for g in args.opt_str_array("globs")?.unwrap_or_default() {
        if !g.is_empty() {
            globs.push(GlobLine {
                field: "globs",
                line: g.to_string(),
                given: g.to_string(),
                expected: GLOBS_EXPECTED,
            });
        }
    }
    let select = args.opt_str_array("type")?.unwrap_or_default();
    let negate = args.opt_str_array("typeNot")?.unwrap_or_default();
    Filters::new(&globs, &select, &negate)
}

/// `unbounded`: the caller reads every row (`ToolContext::unbounded_rows`).
fn parse(input: &Value, unbounded: bool) -> Result<Query, String> {
    let args = Args::new(META.name, input)?;
    let pattern = args.required_str("pattern")?;
    let roots = parse_roots(&args)?;
    let mut flags = parse_flags(args.get("flags"))?;
    let ignore_case = args.opt_bool("ignoreCase")?.unwrap_or(false);
    let literal = args.opt_bool("literal")?.unwrap_or(false);
    let context = args.opt_non_negative_int("context")?.unwrap_or(0);
    let before = args
        .opt_non_negative_int("beforeContext")?
        .unwrap_or(context);
    let after = args
        .opt_non_negative_int("afterContext")?
        .unwrap_or(context);
    let filters = filters_of(&args)?;
    let limit = super::walk::row_limit(&args, unbounded, DEFAULT_LIMIT, LIMIT_CEILING)?;
    let gitignore = args.opt_bool("gitignore")?.unwrap_or(false);
    let max_file_size = args
        .opt_positive_int("maxFileSize")?
        .unwrap_or(DEFAULT_MAX_FILE_SIZE)
        .min(MAX_FILE_SIZE_CEILING);
    let skip_hidden = args.opt_bool("skipHidden")?.unwrap_or(false);
    let invert = args.opt_bool("invertMatch")?.unwrap_or(false);
    let options = MatchOptions {
        word: args.opt_bool("wordRegexp")?.unwrap_or(false),
        smart_case: args.opt_bool("smartCase")?.unwrap_or(false),
        multiline: args.opt_bool("multiline")?.unwrap_or(false),
    };
    let max_count = args.opt_positive_int("maxCount")?;
    let multiline = args.opt_bool("multiline")?.unwrap_or(false);
    let offset = args.opt_non_negative_int("offset")?.unwrap_or(0);
    let mode = match args.opt_enum("outputMode", &["content", "files", "count"])? {
        Some("files") => OutputMode::Files,
        Some("count") => OutputMode::Count,
        _ => OutputMode::Content,
    };
    flags.ignore_case |= ignore_case;
    let matcher = compile_with(&regex_source(pattern, literal, flags), options)?;
    let label = if literal {
        let quoted = Value::String(pattern.to_string()).to_string();
        if flags.ignore_case {
            format!("{quoted} (ignoring case)")
        } else {
            quoted
        }
    } else {
        let mut letters = args
            .get("flags")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        if ignore_case && !letters.contains('i') {
            letters.push('i');
        }
        format!("/{pattern}/{letters}")
    };
    let lines = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    Ok(Query {
        matcher,
        label,
        roots,
        filters,
        shape: Shape {
            before: lines(before),
            after: lines(after),
            invert,
            max_count,
            mode,
            multiline,
        },
        limit,
        offset: usize::try_from(offset).unwrap_or(usize::MAX),
        line_chars: if unbounded {
            usize::MAX
        } else {
            MAX_LINE_CHARS
        },
        gitignore,
        max_file_size,
        skip_hidden,
    })
}

/// The totals behind the summary line.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Totals {
    searched: u64,
    with_matches: u64,
    matches: u64,
    binary: u64,
    too_large: u64,
    unreadable: u64,
    pruned: u64,
}

/// The rows: matches as `PATH:LINE: TEXT` (each line of a multiline match),
/// context as `PATH-LINE- TEXT`, `--` between groups that are not adjacent, one
/// text row each; beside them the same lines as records (`{path, line, text,
/// kind}`, `kind` `match` or `context`). In the files mode a row is a file's
/// path (record `{path}`), in the count mode `PATH:N` (record `{path, count}`).
/// Files come root by root, in the order the roots were given, each root's in
/// path order; the first `page.offset` matches (or files) are passed over.
/// Returns the rows, the records (when `with_records`, see
/// `ToolContext::record_rows`), whether each record starts a match, and how
/// many of the limit they used (matches shown, or files shown).
fn render(
    roots: &[(Option<String>, Vec<FileHits>)],
    page: Page,
    shape: Shape,
    with_records: bool,
) -> Rendered {
    let files = roots
        .iter()
        .flat_map(|(root, files)| files.iter().map(move |f| (root.as_deref(), f)));
    let mut out = Rendered::default();
    if shape.mode != OutputMode::Content {
        for (root, file) in files.skip(page.offset).take(page.limit) {
            let shown_path = display_path(root, &file.path);
            if shape.mode == OutputMode::Files {
                if with_records {
                    out.records.push(json!({ "path": shown_path }));
                }
                out.rows.push(inert(&shown_path).into_owned());
            } else {
                out.rows
                    .push(format!("{}:{}", inert(&shown_path), file.count));
                if with_records {
                    out.records
                        .push(json!({ "path": shown_path, "count": file.count }));
                }
            }
            out.starts.push(1);
        }
        out.shown = out.rows.len();
        return out;
    }
    let separators = shape.before > 0 || shape.after > 0;
    let mut skip = page.offset;
    let mut last_match = 0u64;
    let mut previous: Option<(usize, u64)> = None;
    'files: for (index, (root, file)) in files.enumerate() {
        let shown_path = display_path(root, &file.path);
        let text_path = inert(&shown_path);
        let from = past_offset(&file.lines, &mut skip, shape.before);
        for line in &file.lines[from..] {
            if out.shown >= page.limit {
                // Past the limit only the rest of the last match and its trailing
                // context show.
                let trailing = line.starts == 0
                    && previous == Some((index, line.number.wrapping_sub(1)))
                    && (line.is_match
                        || line.number <= last_match.saturating_add(shape.after as u64));
                if !trailing {
                    break 'files;
                }
            }
            if separators
                && let Some((pi, pn)) = previous
                && (pi != index || pn.wrapping_add(1) != line.number)
            {
                out.rows.push("--".to_string());
            }
            let sep = if line.is_match { ':' } else { '-' };
            out.rows.push(format!(
                "{text_path}{sep}{}{sep} {}",
                line.number, line.text
            ));
            if with_records {
                out.records.push(json!({
                    "path": shown_path,
                    "line": line.number,
                    "text": line.text,
                    "kind": if line.is_match { "match" } else { "context" },
                }));
                out.starts.push(line.starts);
            }
            if line.is_match {
                out.shown += line.starts as usize;
                last_match = line.number;
            }
            previous = Some((index, line.number));
        }
    }
    out
}

/// The page `render` shows: the first `offset` matches (or files) passed over,
/// then at most `limit`.
#[derive(Debug, Clone, Copy)]
struct Page {
    offset: usize,
    limit: usize,
}

/// What `render` made.
#[derive(Debug, Default)]
struct Rendered {
    rows: Vec<String>,
    records: Vec<Value>,
    /// Per record: whether it is the first line of a match (or a file's row).
    starts: Vec<u32>,
    shown: usize,
}

/// Where a file's shown lines begin once `skip` more matches are passed over
/// (taking them off `skip`): after the last passed-over match's lines, at the
/// before-context of the first match shown (rg's `-B` lines of it).
fn past_offset(lines: &[Line], skip: &mut usize, before: usize) -> usize {
    if *skip == 0 {
        return 0;
    }
    // A group of touching lines (multiline) is passed over whole or shown
    // whole: an offset inside one shows it from its start.
    let mut first = None;
    for (i, line) in lines.iter().enumerate() {
        if line.starts == 0 {
            continue;
        }
        if (line.starts as usize) > *skip {
            first = Some(i);
            break;
        }
        *skip -= line.starts as usize;
    }
    let Some(first) = first else {
        return lines.len();
    };
    *skip = 0;
    let mut from = first;
    while from > 0
        && !lines[from - 1].is_match
        && lines[from - 1].number + 1 == lines[from].number
        && lines[first].number - lines[from - 1].number <= before as u64
    {
        from -= 1;
    }
    from
}

/// How the summary names the size limit: `2 MiB` for the default (the wording
/// scripts already match), the exact byte count for any other value.
fn size_limit_label(max_file_size: u64) -> String {
    if max_file_size == DEFAULT_MAX_FILE_SIZE {
        "2 MiB".to_string()
    } else {
        plural(max_file_size, "byte", "bytes")
    }
}

/// The closing line of the files and count modes, whose rows are files: the
/// content mode's line when every file with a match is shown; otherwise it says
/// how many of those files the limit let through.
fn files_summary(
    t: &Totals,
    shown_files: usize,
    label: &str,
    max_file_size: u64,
    more: &str,
) -> String {
    if shown_files as u64 >= t.with_matches {
        let all = usize::try_from(t.matches).unwrap_or(usize::MAX);
        return summary(t, all, label, max_file_size, more);
    }
    let line = format!(
        "Showing the first {shown_files} of {} with matches ({}, searched {}); {more}.",
        plural(t.with_matches, "file", "files"),
        plural(t.matches, "match", "matches"),
        plural(t.searched, "file", "files"),
    );
    with_skipped(line, t, max_file_size)
}

/// The closing line of a page past the first: which matches (or files) it
/// shows of how many, and the offset of the next page while there is one.
fn paged_summary(t: &Totals, query: &Query, shown: usize) -> String {
    let (unit, found) = if query.shape.mode == OutputMode::Content {
        ("matches", t.matches)
    } else {
        ("files with matches", t.with_matches)
    };
    let searched = plural(t.searched, "file", "files");
    let (from, to) = (query.offset as u64, (query.offset + shown) as u64);
    let line = if found == 0 {
        format!("No matches for {} in {searched}.", query.label)
    } else if shown == 0 {
        format!(
            "No {unit} past offset={from}: there are {found} (searched {searched}); offset=0 is the first page."
        )
    } else {
        let span = match (from + 1 == to, query.shape.mode) {
            (true, OutputMode::Content) => format!("match {to}"),
            (true, _) => format!("file with matches {to}"),
            (false, _) => format!("{unit} {}-{to}", from + 1),
        };
        if to < found {
            format!(
                "Showing {span} of {found} (searched {searched}); the next page is offset={to}."
            )
        } else {
            format!("Showing {span} of {found}, the last page (searched {searched}).")
        }
    };
    with_skipped(line, t, query.max_file_size)
}

/// The closing line: what was found, whether the limit cut it, what was skipped.
/// `more`: what to do to see what the limit cut (see `walk::more_hint`).
fn summary(t: &Totals, shown: usize, label: &str, max_file_size: u64, more: &str) -> String {
    let searched = plural(t.searched, "file", "files");
    let line = if t.matches == 0 {
        format!("No matches for {label} in {searched}.")
    } else if (shown as u64) < t.matches {
        format!(
            "Showing the first {shown} of {} in {} (searched {searched}); {more}.",
            plural(t.matches, "match", "matches"),
            plural(t.with_matches, "file", "files"),
        )
    } else {
        format!(
            "Found {} in {} (searched {searched}).",
            plural(t.matches, "match", "matches"),
            plural(t.with_matches, "file", "files"),
        )
    };
    with_skipped(line, t, max_file_size)
}

/// `line` followed by what was skipped, if anything.
fn with_skipped(mut line: String, t: &Totals, max_file_size: u64) -> String {
    let mut skipped = Vec::new();
    if t.binary > 0 {
        skipped.push(format!(
            "{} binary {}",
            t.binary,
            if t.binary == 1 { "file" } else { "files" }
        ));
    }
    if t.too_large > 0 {
        skipped.push(format!(
            "{} over {}",
            plural(t.too_large, "file", "files"),
            size_limit_label(max_file_size)
        ));
    }
    if t.unreadable > 0 {
        skipped.push(format!(
            "{} unreadable {}",
            t.unreadable,
            if t.unreadable == 1 {
                "entry"
            } else {
                "entries"
            }
        ));
    }
    skipped.extend(super::walk::pruned_words(t.pruned));
    if !skipped.is_empty() {
        line.push_str(&format!(" Skipped {}.", join_and(&skipped)));
    }
    line
}

/// Search the one file named as `path` (streamed, see the module comment) into
/// `shared.gathered`, like one walking thread that met only the root. A file that
/// cannot be opened is counted as unreadable, as the walk counts it.
async fn search_named_file(
    ctx: &ToolContext,
    abs: &str,
    shared: &Arc<Shared>,
) -> Result<(), String> {
    let mut g = shared.gathered();
    match ctx.fs.open_read(abs).await {
        Err(_) => g.unreadable += 1,
        Ok(reader) => {
            let worker = Arc::clone(shared);
            g = crate::backends::local_fs::blocking(move || {
                worker.search_stream(reader, &mut g);
                Ok(g)
            })
            .await
            .map_err(|e| format!("The search failed unexpectedly: {e}"))?;
        }
    }
    g.kept.finish();
    shared
        .gathered
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(g);
    Ok(())
}

/// A root checked before any search: as spelled, resolved, and whether it is a
/// file (streamed) or a folder (walked).
struct Root {
    spelled: Option<String>,
    abs: String,
    named_file: bool,
}

/// Resolve and stat one root; an `Err` is the call's failure.
async fn check_root(ctx: &ToolContext, spelled: Option<String>) -> Result<Root, String> {
    let shown_root = spelled.as_deref().unwrap_or(".");
    let abs = ctx.confine(shown_root)?;
    let named_file = match ctx.fs.stat(&abs).await {
        Err(e) => {
            return Err(format!(
                "Cannot search {shown_root}: {e}",
                shown_root = crate::kernel::text::inert(shown_root)
            ));
        }
        // Named outright, a FIFO or device would otherwise be skipped in silence
        // (a walk never opens one: reading could block or never end).
        Ok(info) if !info.is_file && !info.is_directory => {
            return Err(format!(
                "{}; grep searches regular files and folders.",
                crate::tools::not_regular(shown_root, &info)
            ));
        }
        Ok(info) => info.is_file,
    };
    Ok(Root {
        spelled,
        abs,
        named_file,
    })
}

/// Search one root into `totals`; its files with kept hits, in path order.
async fn search_root(
    ctx: &ToolContext,
    query: &Query,
    root: Root,
    totals: &mut Totals,
) -> Result<Vec<FileHits>, String> {
    let shown_root = root.spelled.as_deref().unwrap_or(".");
    let read_limits = ReadLimits {
        max_size: query.max_file_size,
        nul_sniff: NUL_SNIFF,
    };
    let shared = Arc::new(Shared {
        matcher: query.matcher.clone(),
        filters: query.filters.clone(),
        // The matches passed over are kept too: the page starts after them.
        limit: query.limit.saturating_add(query.offset),
        line_chars: query.line_chars,
        shape: query.shape,
        read_limits,
        skip_hidden: query.skip_hidden,
        cancel: ctx.cancel.clone(),
        cancelled: AtomicBool::new(false),
        gathered: Mutex::new(Vec::new()),
    });
    if root.named_file {
        search_named_file(ctx, &root.abs, &shared).await?;
    } else {
        let options = walk_options(root.abs, query.gitignore);
        run_walk(ctx, options, Arc::clone(&shared), Some(read_limits)).await?;
    }
    if shared.cancelled.load(Ordering::Relaxed) || ctx.cancel.is_cancelled() {
        return Err("grep was cancelled.".to_string());
    }
    let parts = std::mem::take(&mut *shared.gathered.lock().unwrap_or_else(|p| p.into_inner()));
    if let Some(message) = parts.iter().find_map(|g| g.root_error.as_ref()) {
        return Err(format!(
            "Cannot search {shown_root}: {message}",
            shown_root = crate::kernel::text::inert(shown_root)
        ));
    }
    let mut kept = Vec::with_capacity(parts.len());
    for g in parts {
        totals.searched += g.searched;
        totals.with_matches += g.with_matches;
        totals.matches += g.matches;
        totals.binary += g.binary;
        totals.too_large += g.too_large;
        totals.unreadable += g.unreadable;
        totals.pruned += g.pruned;
        kept.push(g.kept);
    }
    let files = merge(kept);
    debug_assert!(
        files
            .windows(2)
            .all(|w| path_order(&w[0].path, &w[1].path).is_lt())
    );
    Ok(files)
}

/// Run a validated query: every root is checked first (a bad one fails the call
/// before any search), then searched in the order given.
async fn execute(query: Query, ctx: &ToolContext) -> ToolResult {
    let mut roots = Vec::with_capacity(query.roots.len());
    for spelled in &query.roots {
        match check_root(ctx, spelled.clone()).await {
            Ok(root) => roots.push(root),
            Err(message) => return ToolResult::failure(message),
        }
    }
    // Every row for a reader that takes them as they come (a pipe): none is
    // held. Content rows come from a second search of each file with a match,
    // the walk having only counted them.
    let streaming = ctx.rows.clone().filter(|_| {
        ctx.unbounded_rows && !ctx.record_rows && query.limit == usize::MAX && query.offset == 0
    });
    let counting;
    let walked = match &streaming {
        Some(_) if query.shape.mode == OutputMode::Content => {
            counting = Query {
                shape: Shape {
                    mode: OutputMode::Count,
                    before: 0,
                    after: 0,
                    ..query.shape
                },
                ..query.clone()
            };
            &counting
        }
        _ => &query,
    };
    let mut totals = Totals::default();
    let mut found = Vec::with_capacity(roots.len());
    for root in roots {
        let (spelled, abs) = (root.spelled.clone(), root.abs.clone());
        match search_root(ctx, walked, root, &mut totals).await {
            Ok(files) => found.push((spelled, abs, files)),
            Err(message) => return ToolResult::failure(message),
        }
    }
    let (rows, records, shown) = match &streaming {
        Some(sink) if query.shape.mode == OutputMode::Content => {
            match stream_rows(ctx, &query, &found, sink).await {
                Ok(shown) => (Vec::new(), (Vec::new(), Vec::new()), shown as usize),
                Err(message) => return ToolResult::failure(message),
            }
        }
        _ => {
            let roots: Vec<_> = found.into_iter().map(|(s, _, f)| (s, f)).collect();
            let page = Page {
                offset: query.offset,
                limit: query.limit,
            };
            let r = render(&roots, page, query.shape, ctx.record_rows);
            match &streaming {
                Some(sink) => {
                    if let Err(message) = super::walk::write_rows(&**sink, "grep", &r.rows) {
                        return ToolResult::failure(message);
                    }
                    (Vec::new(), (r.records, r.starts), r.shown)
                }
                None => (r.rows, (r.records, r.starts), r.shown),
            }
        }
    };
    let more = format!(
        "{}, or page on with offset={}",
        super::walk::more_hint(query.limit, LIMIT_CEILING, ctx.unbounded_rows),
        query.offset.saturating_add(shown)
    );
    let closing = if query.offset > 0 {
        paged_summary(&totals, &query, shown)
    } else if query.shape.mode == OutputMode::Content {
        summary(&totals, shown, &query.label, query.max_file_size, &more)
    } else {
        files_summary(&totals, shown, &query.label, query.max_file_size, &more)
    };
    let tail = if rows.is_empty() {
        closing
    } else {
        format!("\n\n{closing}")
    };
    let text = clamp_rows(ctx, "grep", "", &rows, &tail);
    text_and_record(text, record_of(ctx, &query, &totals, records, shown), false)
}

/// The record for programs: the totals (`count` = 0 is "no match"), the rows
/// shown that fit the output budget, and `omitted`, which counts what the
/// limit counts (matching lines, or files) that the record leaves out, whether
/// the limit or the budget cut it.
fn record_of(
    ctx: &ToolContext,
    query: &Query,
    totals: &Totals,
    (records, starts): (Vec<Value>, Vec<u32>),
    shown: usize,
) -> Value {
    let mut record = serde_json::Map::new();
    record.insert("count".into(), json!(totals.matches));
    record.insert("files".into(), json!(totals.with_matches));
    record.insert("searched".into(), json!(totals.searched));
    record.insert("shown".into(), json!(shown));
    record.insert(
        "skipped".into(),
        json!({
            "binary": totals.binary,
            "tooLarge": totals.too_large,
            "unreadable": totals.unreadable,
            "pruned": totals.pruned,
        }),
    );
    let k = rows_that_fit(&record, "rows", &records, ctx.budget.max_bytes, 0);
    let (found, kept) = if query.shape.mode == OutputMode::Content {
        let matches = starts[..k].iter().map(|s| *s as usize).sum::<usize>();
        (
            totals.matches,
            if ctx.record_rows { matches } else { shown },
        )
    } else {
        (totals.with_matches, if ctx.record_rows { k } else { shown })
    };
    let mut record = rows_record(record, "rows", records, k);
    let before = query.offset as u64;
    let omitted = found.saturating_sub(before).saturating_sub(kept as u64);
    record["omitted"] = json!(omitted);
    record["offset"] = json!(before);
    record["nextOffset"] = if omitted > 0 {
        json!(before + kept as u64)
    } else {
        Value::Null
    };
    record
}

/// The `grep` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Builtin(SeedList::ReadOnly),
    core: true,
    fields: FIELDS,
    description: "Search file contents for a regular expression (Rust syntax), like rg: `PATH:LINE: TEXT` rows in path order, then a summary. Hidden and gitignored files are searched too. find searches names.",
    output: Some(include_str!("grep.output.json")),
    ..ToolMeta::new(
        "grep",
        "Search file contents",
        "Find lines matching a regular expression or literal across a tree.",
    )
};

/// `grep`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("pattern", Kind::Name, "Regex (exact text with literal)."),
    Field::new(
        "path",
        Kind::Text,
        "Directory or file (default: the working directory).",
    ),
    Field::deprecated(
        "flags",
        Kind::Text,
        "JavaScript-style flag letters: i ignores case, m and s set the inline flags (?m)/(?s); g, u and y are accepted and change nothing.",
    )
    .in_own_words(),
    Field::new("ignoreCase", Kind::Bool, "Ignore case."),
    Field::new("literal", Kind::Bool, "pattern is exact text."),
    Field::new(
        "context",
        Kind::Int { min: 0, max: None },
        "Lines of context around matches.",
    ),
    Field::new(
        "glob",
        Kind::Text,
        "Only files matching this glob, e.g. \"*.rs\".",
    ),
    Field::new(
        "limit",
        Kind::Int { min: 1, max: None },
        "Most rows (default 200, at most 5000).",
    )
    .in_own_words(),
    Field::new("gitignore", Kind::Bool, "Skip files .gitignore excludes."),
    Field::deprecated(
        "skipHidden",
        Kind::Bool,
        "Skip files and directories whose name starts with a dot below the search root (default false: unlike rg, hidden files are searched, since an agent must see every file it may edit; a dot-named path given outright is still searched).",
    ),
    Field::deprecated(
        "maxFileSize",
        Kind::Int {
            min: 1,
            max: Some(MAX_FILE_SIZE_CEILING),
        },
        "Skip files found by the walk that are larger than this many bytes, counting them in the summary (default 2097152 = 2 MiB, at most 134217728 = 128 MiB); a file named as path is searched whatever its size.",
    ),
    Field::deprecated(
        "paths",
        Kind::Strings,
        "Several directories or files to search instead of path, in the order given, each one's rows spelled under it as given (not together with path).",
    ),
    Field::deprecated(
        "globs",
        Kind::Strings,
        "Globs as in rg -g, tested on the path below the search root (later ones win): \"*.rs\" includes, \"!*.min.js\" excludes; with any include, files matching none are skipped, and an excluded directory is not entered (glob joins this list first).",
    ),
    Field::deprecated(
        "type",
        Kind::Strings,
        "Only files of these rg types, e.g. [\"rust\", \"py\"].",
    ),
    Field::deprecated(
        "typeNot",
        Kind::Strings,
        "Skip files of these rg file types, as rg -T.",
    ),
    Field::deprecated(
        "invertMatch",
        Kind::Bool,
        "Show the lines that do not match.",
    ),
    Field::new("wordRegexp", Kind::Bool, "Whole words only."),
    Field::deprecated(
        "smartCase",
        Kind::Bool,
        "Ignore case unless the pattern holds an uppercase letter, as rg -S (default false; ignoreCase and flag i still ignore case).",
    ),
    Field::deprecated(
        "beforeContext",
        Kind::Int { min: 0, max: None },
        "Lines of context before each match, as rg -B (overrides context on that side).",
    ),
    Field::deprecated(
        "afterContext",
        Kind::Int { min: 0, max: None },
        "Lines of context after each match, as rg -A (overrides context on that side).",
    ),
    Field::deprecated(
        "maxCount",
        Kind::Int { min: 1, max: None },
        "Stop searching a file after this many matching lines, as rg -m (the counts count only those).",
    ),
    Field::new(
        "multiline",
        Kind::Bool,
        "A match may span lines, as rg -U; each line is a row.",
    ),
    Field::new(
        "offset",
        Kind::Int { min: 0, max: None },
        "Skip this many matches (files) first: the next page.",
    ),
    Field::new(
        "outputMode",
        Kind::Enum(&["content", "files", "count"]),
        "content (matching lines, default), files (paths) or count (PATH:N).",
    ),
];

#[async_trait]
impl Tool for Grep {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match parse(&input, ctx.unbounded_rows) {
            Ok(query) => execute(query, ctx).await,
            Err(message) => ToolResult::failure(message),
        }
    }
}

/// The `grep` tool.
pub fn grep_tool() -> DefinedTool {
    define_tool(Arc::new(Grep))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::local::make_local_context;
    use grep_matcher::Matcher;

    #[test]
    fn flags_translate_to_inline_flags() {
        let f = parse_flags(Some(&json!("gimsuy"))).unwrap();
        assert_eq!(
            f,
            RegexFlags {
                ignore_case: true,
                multi_line: true,
                dot_all: true
            }
        );
        assert_eq!(regex_source("a.b", false, f), "(?ims)a.b");
        assert_eq!(
            regex_source("a.b", false, parse_flags(Some(&json!("gu"))).unwrap()),
            "a.b"
        );
        assert_eq!(parse_flags(None).unwrap(), RegexFlags::default());
        assert!(parse_flags(Some(&json!("ii"))).unwrap().ignore_case);
        assert_eq!(
            parse_flags(Some(&json!("gx"))).unwrap_err(),
            "Invalid \"flags\": expected only the letters g, i, m, s, u, y, got the string \"gx\"."
        );
        assert_eq!(
            parse_flags(Some(&json!(3))).unwrap_err(),
            "Invalid \"flags\": expected a string of the letters g, i, m, s, u, y, got the number 3."
        );
    }

    #[test]
    fn literal_patterns_are_escaped() {
        let src = regex_source("a.b(c", true, RegexFlags::default());
        let m = compile(&src).unwrap();
        assert!(m.is_match(b"xa.b(c").unwrap());
        assert!(!m.is_match(b"axb(c").unwrap());
        let ci = RegexFlags {
            ignore_case: true,
            ..Default::default()
        };
        assert!(
            compile(&regex_source("A.B", true, ci))
                .unwrap()
                .is_match(b"a.b")
                .unwrap()
        );
    }

    #[test]
    fn uncompilable_patterns_are_reported() {
        for bad in ["(?=x)", "(a)\\1", "(", "a\\nb"] {
            let err = compile(bad).err().unwrap();
            assert!(
                err.starts_with("Could not compile the search pattern: "),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn anchors_work_per_line() {
        let m = compile("^fn").unwrap();
        assert!(m.is_match(b"fn main").unwrap());
    }

    #[test]
    fn globs_test_names_or_paths() {
        // The `glob` key as grep builds it: a glob without `/` tests the name at
        // any depth, one with `/` the path below the root.
        struct G(Override);
        impl G {
            fn new(glob: &str) -> Result<G, String> {
                let line = super::super::walk::GlobLine {
                    field: "glob",
                    line: glob.to_string(),
                    given: glob.to_string(),
                    expected: GLOB_EXPECTED,
                };
                super::super::walk::build_overrides(&[line]).map(|o| G(o.unwrap()))
            }
            fn matches(&self, path: &str, _name: &str) -> bool {
                self.0
                    .matched(std::path::Path::new(path), false)
                    .is_whitelist()
            }
        }
        let g = G::new("*.rs").unwrap();
        assert!(g.matches("src/deep/a.rs", "a.rs"));
        assert!(!g.matches("src/a.rsx", "a.rsx"));
        let g = G::new("src/*.rs").unwrap();
        assert!(g.matches("src/a.rs", "a.rs"));
        assert!(!g.matches("src/deep/a.rs", "a.rs"));
        let g = G::new("*.{md,txt}").unwrap();
        assert!(g.matches("x/README.md", "README.md"));
        let err = G::new("[a").err().unwrap();
        assert!(
            err.starts_with("Invalid \"glob\": expected a file-name glob such as \"*.rs\" ("),
            "{err}"
        );
        assert!(err.ends_with("got the string \"[a\"."), "{err}");
    }

    #[test]
    fn long_lines_are_cut_on_a_char_boundary() {
        assert_eq!(display_line(b"abc\r\n", MAX_LINE_CHARS), "abc");
        assert_eq!(display_line(b"abc\n", MAX_LINE_CHARS), "abc");
        assert_eq!(display_line(b"a\xffb", MAX_LINE_CHARS), "a\u{fffd}b");
        let exact = "é".repeat(MAX_LINE_CHARS);
        assert_eq!(display_line(exact.as_bytes(), MAX_LINE_CHARS), exact);
        let long = format!("{}{}", "é".repeat(MAX_LINE_CHARS), "xyz");
        assert_eq!(
            display_line(long.as_bytes(), MAX_LINE_CHARS),
            format!(
                "{} … [line truncated, 3 more bytes]",
                "é".repeat(MAX_LINE_CHARS)
            )
        );
        let ascii = "a".repeat(1000);
        let shown = display_line(ascii.as_bytes(), MAX_LINE_CHARS);
        assert!(shown.starts_with(&"a".repeat(MAX_LINE_CHARS)));
        assert!(shown.ends_with(" … [line truncated, 500 more bytes]"));
        // A pipe reads lines whole, as rg prints them.
        assert_eq!(display_line(long.as_bytes(), usize::MAX), long);
    }

    /// The hint below the ceiling, as the summaries' tests expect it.
    const RAISE: &str = "raise limit to see more";

    #[test]
    fn summary_wording() {
        let t = Totals {
            searched: 3,
            with_matches: 1,
            matches: 1,
            ..Default::default()
        };
        assert_eq!(
            summary(&t, 1, "/x/", DEFAULT_MAX_FILE_SIZE, RAISE),
            "Found 1 match in 1 file (searched 3 files)."
        );
        let t = Totals {
            searched: 1,
            matches: 0,
            binary: 2,
            too_large: 1,
            unreadable: 1,
            ..Default::default()
        };
        assert_eq!(
            summary(&t, 0, "/x/i", DEFAULT_MAX_FILE_SIZE, RAISE),
            "No matches for /x/i in 1 file. Skipped 2 binary files, 1 file over 2 MiB and 1 unreadable entry."
        );
        // Another limit is named exactly, in bytes.
        assert_eq!(
            summary(&t, 0, "/x/i", 1000, RAISE),
            "No matches for /x/i in 1 file. Skipped 2 binary files, 1 file over 1000 bytes and 1 unreadable entry."
        );
        assert_eq!(
            summary(&t, 0, "/x/i", 1, RAISE),
            "No matches for /x/i in 1 file. Skipped 2 binary files, 1 file over 1 byte and 1 unreadable entry."
        );
        let t = Totals {
            searched: 2,
            binary: 1,
            pruned: 2,
            ..Default::default()
        };
        assert_eq!(
            summary(&t, 0, "/x/", DEFAULT_MAX_FILE_SIZE, RAISE),
            "No matches for /x/ in 2 files. Skipped 1 binary file and 2 node_modules folders (name one as the path to search it)."
        );
        let t = Totals {
            searched: 9,
            with_matches: 4,
            matches: 12,
            ..Default::default()
        };
        assert_eq!(
            summary(&t, 5, "/x/", DEFAULT_MAX_FILE_SIZE, RAISE),
            "Showing the first 5 of 12 matches in 4 files (searched 9 files); raise limit to see more."
        );
    }

    #[test]
    fn max_file_size_is_pinned_not_refused() {
        let q = parse(&json!({"pattern": "x"}), false).unwrap();
        assert_eq!(q.max_file_size, DEFAULT_MAX_FILE_SIZE);
        let q = parse(&json!({"pattern": "x", "maxFileSize": 1e12}), false).unwrap();
        assert_eq!(q.max_file_size, MAX_FILE_SIZE_CEILING);
        let t = Totals {
            too_large: 1,
            ..Default::default()
        };
        assert_eq!(
            summary(&t, 0, "/x/", q.max_file_size, RAISE),
            "No matches for /x/ in 0 files. Skipped 1 file over 134217728 bytes."
        );
        let err = parse(&json!({"pattern": "x", "maxFileSize": -5}), false)
            .err()
            .unwrap();
        assert_eq!(
            err,
            "Invalid \"maxFileSize\": expected a positive integer, got the number -5."
        );
    }

    /// An entry whose file is gone by the time it is read.
    struct Vanished;
    impl WalkEntry for Vanished {
        fn path(&self) -> &str {
            "gone.txt"
        }
        fn name(&self) -> &str {
            "gone.txt"
        }
        fn kind(&self) -> WalkEntryKind {
            WalkEntryKind::File
        }
        fn is_dir_link(&self) -> bool {
            false
        }
        fn read(&self, _: &mut Vec<u8>, _: ReadLimits) -> io::Result<FileRead> {
            Err(io::Error::new(io::ErrorKind::NotFound, "ENOENT: gone"))
        }
    }

    #[test]
    fn vanished_and_unreadable_entries_are_counted_not_fatal() {
        let shared = Shared {
            matcher: compile("hit").unwrap(),
            filters: Filters::default(),
            limit: 10,
            line_chars: MAX_LINE_CHARS,
            shape: Shape::default(),
            read_limits: READ_LIMITS,
            skip_hidden: false,
            cancel: CancellationToken::new(),
            cancelled: AtomicBool::new(false),
            gathered: Mutex::new(Vec::new()),
        };
        {
            let mut visitor = shared.visitor();
            assert_eq!(
                visitor.visit(WalkEvent::Entry(&Vanished)),
                WalkFlow::Continue
            );
            let unreadable = WalkEvent::Unreadable {
                path: Some("locked".into()),
                message: "EACCES".into(),
            };
            assert_eq!(visitor.visit(unreadable), WalkFlow::Continue);
        }
        let gathered = shared.gathered.lock().unwrap();
        assert_eq!(
            gathered.len(),
            1,
            "the dropped visitor handed over its part"
        );
        assert_eq!(gathered[0].unreadable, 2);
        assert_eq!(gathered[0].searched, 0);
    }

    #[tokio::test]
    async fn a_cancel_during_the_walk_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "hit\n").unwrap();
        let ctx = make_local_context(dir.path().to_str().unwrap(), None, None, None);
        let token = CancellationToken::new();
        token.cancel();
        let query = parse(&json!({"pattern": "hit"}), false).unwrap();
        // `execute` is past the kernel's pre-flight check: the walk itself must notice.
        let result = execute(query, &ctx.with_cancel(token)).await;
        assert!(result.is_error);
        assert_eq!(result.project(), json!("grep was cancelled."));
    }

    #[tokio::test]
    async fn a_cancel_stops_a_streamed_named_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "hit\n".repeat(10_000)).unwrap();
        let ctx = make_local_context(dir.path().to_str().unwrap(), None, None, None);
        let token = CancellationToken::new();
        token.cancel();
        let query = parse(&json!({"pattern": "hit", "path": "a.txt"}), false).unwrap();
        let result = execute(query, &ctx.with_cancel(token)).await;
        assert!(result.is_error);
        assert_eq!(result.project(), json!("grep was cancelled."));
    }

    /// A tree for the rg-flag keys.
    fn rg_tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let files: &[(&str, &str)] = &[
            ("src/main.rs", "fn main() {\n    hit();\n}\n"),
            ("src/lib.rs", "// Hit\nhit here\nhitter\nhit again\n"),
            ("src/gen/out.rs", "hit generated\n"),
            ("docs/guide.md", "a hit\nno\n"),
            ("app.min.js", "hit minified\n"),
            ("app.js", "hit script\n"),
            ("Cargo.toml", "name = \"hit\"\n"),
            ("notes.txt", "one\nhit\ntwo\nthree\nhit\nfour\n"),
        ];
        for (path, content) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        }
        dir
    }

    async fn call(dir: &std::path::Path, input: Value) -> (String, Value, bool) {
        super::super::run_in(grep_tool(), dir, input).await
    }

    async fn ok(dir: &std::path::Path, input: Value) -> String {
        let (text, _, is_error) = call(dir, input.clone()).await;
        assert!(!is_error, "{input}: {text}");
        text
    }

    async fn err(dir: &std::path::Path, input: Value) -> String {
        let (text, _, is_error) = call(dir, input.clone()).await;
        assert!(is_error, "{input}: {text}");
        text
    }

    /// The rows of a text (everything before the blank line and summary).
    fn rows(text: &str) -> Vec<&str> {
        match text.rsplit_once("\n\n") {
            Some((rows, _)) => rows.lines().collect(),
            None => Vec::new(),
        }
    }

    #[tokio::test]
    async fn new_keys_at_their_defaults_change_nothing() {
        let dir = rg_tree();
        let d = dir.path();
        for (plain, spelled_out) in [
            (
                json!({"pattern": "hit", "context": 1}),
                json!({"pattern": "hit", "context": 1, "beforeContext": 1, "afterContext": 1,
                       "invertMatch": false, "wordRegexp": false, "smartCase": false,
                       "outputMode": "content", "globs": [], "type": [], "typeNot": []}),
            ),
            (
                json!({"pattern": "hit", "path": "src"}),
                json!({"pattern": "hit", "paths": ["src"]}),
            ),
            (
                json!({"pattern": "hit"}),
                json!({"pattern": "hit", "paths": []}),
            ),
            (
                json!({"pattern": "hit", "glob": "*.rs"}),
                json!({"pattern": "hit", "globs": ["*.rs"]}),
            ),
        ] {
            assert_eq!(
                call(d, plain.clone()).await,
                call(d, spelled_out).await,
                "{plain}"
            );
        }
    }

    #[tokio::test]
    async fn paths_search_each_root_in_the_order_given() {
        let dir = rg_tree();
        let d = dir.path();
        let text = ok(
            d,
            json!({"pattern": "hit", "paths": ["src/", "notes.txt", "docs"]}),
        )
        .await;
        assert_eq!(
            text,
            "src/gen/out.rs:1: hit generated\nsrc/lib.rs:2: hit here\nsrc/lib.rs:3: hitter\nsrc/lib.rs:4: hit again\nsrc/main.rs:2:     hit();\nnotes.txt:2: hit\nnotes.txt:5: hit\ndocs/guide.md:1: a hit\n\nFound 8 matches in 5 files (searched 5 files)."
        );
        // The limit spans the roots: the first root's rows first.
        let text = ok(
            d,
            json!({"pattern": "hit", "paths": ["notes.txt", "src"], "limit": 3}),
        )
        .await;
        assert_eq!(
            rows(&text),
            [
                "notes.txt:2: hit",
                "notes.txt:5: hit",
                "src/gen/out.rs:1: hit generated"
            ]
        );
        assert!(text.ends_with("Showing the first 3 of 7 matches in 4 files (searched 4 files); raise limit to see more, or page on with offset=3."), "{text}");
        // A bad root fails the whole call, before anything is searched.
        let message = err(d, json!({"pattern": "hit", "paths": ["src", "nope"]})).await;
        assert!(
            message.starts_with("Cannot search nope: ENOENT"),
            "{message}"
        );
        assert_eq!(
            err(
                d,
                json!({"pattern": "hit", "path": "src", "paths": ["docs"]})
            )
            .await,
            "Invalid \"paths\": give \"path\" (one root) or \"paths\" (several), not both."
        );
        assert_eq!(
            err(d, json!({"pattern": "hit", "paths": 3})).await,
            "Invalid \"paths\": expected an array of strings, got the number 3."
        );
    }

    #[tokio::test]
    async fn globs_include_exclude_and_prune_like_rg() {
        let dir = rg_tree();
        let d = dir.path();
        let found = |globs: Value| {
            let input = json!({"pattern": "hit", "globs": globs, "outputMode": "files"});
            async move {
                rows(&ok(d, input).await)
                    .iter()
                    .map(|r| r.to_string())
                    .collect::<Vec<_>>()
            }
        };
        assert_eq!(found(json!(["*.js"])).await, ["app.js", "app.min.js"]);
        assert_eq!(found(json!(["*.js", "!*.min.js"])).await, ["app.js"]);
        // Later globs win, as in rg.
        assert_eq!(
            found(json!(["!*.min.js", "*.js"])).await,
            ["app.js", "app.min.js"]
        );
        // An excluded folder is not entered; a glob with / is anchored at the root.
        assert_eq!(
            found(json!(["*.rs", "!src/gen"])).await,
            ["src/lib.rs", "src/main.rs"]
        );
        assert_eq!(
            found(json!(["src/*.rs"])).await,
            ["src/lib.rs", "src/main.rs"]
        );
        // Excludes alone keep everything else.
        assert_eq!(
            found(json!(["!*.rs", "!*.js", "!*.txt"])).await,
            ["Cargo.toml", "docs/guide.md"]
        );
        // `glob` joins the list and now negates with `!`, as rg's -g does.
        let text = ok(
            d,
            json!({"pattern": "hit", "glob": "!*.rs", "globs": ["!docs"], "outputMode": "files"}),
        )
        .await;
        assert_eq!(
            rows(&text),
            ["Cargo.toml", "app.js", "app.min.js", "notes.txt"]
        );
        // A leading `#` is a literal character, not a gitignore comment.
        std::fs::write(d.join("#notes.txt"), "hit\n").unwrap();
        assert_eq!(found(json!(["#*"])).await, ["#notes.txt"]);
        assert!(
            !found(json!(["!#*"]))
                .await
                .contains(&"#notes.txt".to_string())
        );
        std::fs::remove_file(d.join("#notes.txt")).unwrap();
        // A root named outright is searched whatever the globs.
        let text = ok(
            d,
            json!({"pattern": "hit", "path": "notes.txt", "globs": ["*.rs"]}),
        )
        .await;
        assert_eq!(rows(&text), ["notes.txt:2: hit", "notes.txt:5: hit"]);
        assert_eq!(
            err(d, json!({"pattern": "hit", "globs": ["*.rs", "[oops"]})).await,
            "Invalid \"globs\": expected a glob such as \"*.rs\" or \"!*.min.js\" (unclosed character class; missing ']'), got the string \"[oops\"."
        );
        assert_eq!(
            err(d, json!({"pattern": "hit", "glob": "[oops"})).await,
            "Invalid \"glob\": expected a file-name glob such as \"*.rs\" (unclosed character class; missing ']'), got the string \"[oops\"."
        );
        assert_eq!(
            err(d, json!({"pattern": "hit", "globs": [1]})).await,
            "Invalid \"globs[0]\": expected a string, got the number 1."
        );
    }

    #[tokio::test]
    async fn types_select_and_negate_rg_file_types() {
        let dir = rg_tree();
        let d = dir.path();
        let found = |input: Value| async move {
            rows(&ok(d, input).await)
                .iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            found(json!({"pattern": "hit", "type": ["rust"], "outputMode": "files"})).await,
            ["src/gen/out.rs", "src/lib.rs", "src/main.rs"]
        );
        assert_eq!(
            found(json!({"pattern": "hit", "type": ["toml", "md"], "outputMode": "files"})).await,
            ["Cargo.toml", "docs/guide.md"]
        );
        // A lone string is a list of one.
        assert_eq!(
            found(json!({"pattern": "hit", "type": "md", "outputMode": "files"})).await,
            ["docs/guide.md"]
        );
        assert_eq!(
            found(json!({"pattern": "hit", "typeNot": ["rust", "js"], "outputMode": "files"}))
                .await,
            ["Cargo.toml", "docs/guide.md", "notes.txt"]
        );
        // A glob's verdict comes first, as in rg.
        assert_eq!(
            found(
                json!({"pattern": "hit", "type": ["md"], "globs": ["*.txt"], "outputMode": "files"})
            )
            .await,
            ["notes.txt"]
        );
        assert_eq!(
            err(d, json!({"pattern": "hit", "type": ["rustt"]})).await,
            "Invalid \"type\": expected names of rg file types such as \"rust\", \"py\", \"js\", \"toml\" or \"md\" (rg --type-list lists them), got the string \"rustt\"."
        );
        assert!(
            err(d, json!({"pattern": "hit", "typeNot": ["nope"]}))
                .await
                .starts_with("Invalid \"typeNot\": expected names of rg file types")
        );
    }

    #[tokio::test]
    async fn invert_word_and_smart_case_match_like_rg() {
        let dir = rg_tree();
        let d = dir.path();
        let text = ok(
            d,
            json!({"pattern": "hit", "path": "notes.txt", "invertMatch": true}),
        )
        .await;
        assert_eq!(
            text,
            "notes.txt:1: one\nnotes.txt:3: two\nnotes.txt:4: three\nnotes.txt:6: four\n\nFound 4 matches in 1 file (searched 1 file)."
        );
        let text = ok(
            d,
            json!({"pattern": "hit", "path": "src/lib.rs", "wordRegexp": true}),
        )
        .await;
        assert_eq!(
            rows(&text),
            ["src/lib.rs:2: hit here", "src/lib.rs:4: hit again"]
        );
        // Smart case: no uppercase, so any case; an uppercase letter makes it exact.
        let text = ok(
            d,
            json!({"pattern": "hit", "path": "src/lib.rs", "smartCase": true}),
        )
        .await;
        assert_eq!(rows(&text).len(), 4);
        let text = ok(
            d,
            json!({"pattern": "Hit", "path": "src/lib.rs", "smartCase": true}),
        )
        .await;
        assert_eq!(rows(&text), ["src/lib.rs:1: // Hit"]);
        let text = ok(
            d,
            json!({"pattern": "Hit", "path": "src/lib.rs", "smartCase": true, "ignoreCase": true}),
        )
        .await;
        assert_eq!(rows(&text).len(), 4);
        assert_eq!(
            err(d, json!({"pattern": "hit", "invertMatch": "yes"})).await,
            "Invalid \"invertMatch\": expected true or false, got the string \"yes\"."
        );
    }

    #[tokio::test]
    async fn asymmetric_context_and_max_count() {
        let dir = rg_tree();
        let d = dir.path();
        let text = ok(
            d,
            json!({"pattern": "hit", "path": "notes.txt", "afterContext": 1}),
        )
        .await;
        assert_eq!(
            rows(&text),
            [
                "notes.txt:2: hit",
                "notes.txt-3- two",
                "--",
                "notes.txt:5: hit",
                "notes.txt-6- four"
            ]
        );
        let text = ok(d, json!({"pattern": "hit", "path": "notes.txt", "beforeContext": 1, "context": 3, "afterContext": 0})).await;
        assert_eq!(
            rows(&text),
            [
                "notes.txt-1- one",
                "notes.txt:2: hit",
                "--",
                "notes.txt-4- three",
                "notes.txt:5: hit"
            ]
        );
        // Past the limit only the last match's after-context trails.
        let text = ok(d, json!({"pattern": "hit", "path": "notes.txt", "beforeContext": 0, "afterContext": 2, "limit": 1})).await;
        assert_eq!(
            rows(&text),
            ["notes.txt:2: hit", "notes.txt-3- two", "notes.txt-4- three"]
        );
        let text = ok(
            d,
            json!({"pattern": "hit", "paths": ["notes.txt", "src/lib.rs"], "maxCount": 1}),
        )
        .await;
        assert_eq!(
            text,
            "notes.txt:2: hit\nsrc/lib.rs:2: hit here\n\nFound 2 matches in 2 files (searched 2 files)."
        );
        assert_eq!(
            err(d, json!({"pattern": "hit", "maxCount": 0})).await,
            "Invalid \"maxCount\": expected a positive integer, got the number 0."
        );
        assert_eq!(
            err(d, json!({"pattern": "hit", "afterContext": -1})).await,
            "Invalid \"afterContext\": expected a non-negative integer, got the number -1."
        );
    }

    #[tokio::test]
    async fn files_and_count_modes_show_one_row_per_file() {
        let dir = rg_tree();
        let d = dir.path();
        let (text, record, _) = call(
            d,
            json!({"pattern": "hit", "path": "src", "outputMode": "files"}),
        )
        .await;
        assert_eq!(
            text,
            "src/gen/out.rs\nsrc/lib.rs\nsrc/main.rs\n\nFound 5 matches in 3 files (searched 3 files)."
        );
        assert_eq!(
            record["rows"],
            json!([{"path": "src/gen/out.rs"}, {"path": "src/lib.rs"}, {"path": "src/main.rs"}])
        );
        assert_eq!(record["count"], json!(5));
        assert_eq!(record["shown"], json!(3));
        let (text, record, _) = call(
            d,
            json!({"pattern": "hit", "path": "src", "outputMode": "count", "limit": 2}),
        )
        .await;
        assert_eq!(
            text,
            "src/gen/out.rs:1\nsrc/lib.rs:3\n\nShowing the first 2 of 3 files with matches (5 matches, searched 3 files); raise limit to see more, or page on with offset=2."
        );
        assert_eq!(
            record["rows"],
            json!([{"path": "src/gen/out.rs", "count": 1}, {"path": "src/lib.rs", "count": 3}])
        );
        // A file named outright is shown as named; maxCount caps the count.
        let text = ok(
            d,
            json!({"pattern": "hit", "path": "notes.txt", "outputMode": "count", "maxCount": 1}),
        )
        .await;
        assert_eq!(
            text,
            "notes.txt:1\n\nFound 1 match in 1 file (searched 1 file)."
        );
        let text = ok(d, json!({"pattern": "nowhere", "outputMode": "files"})).await;
        assert_eq!(text, "No matches for /nowhere/ in 8 files.");
        assert_eq!(
            err(d, json!({"pattern": "hit", "outputMode": "lines"})).await,
            "Invalid \"outputMode\": expected one of \"content\", \"files\", \"count\", got the string \"lines\"."
        );
    }
}
