//! The whole-line stages of `edit`'s matching ladder (stages 2 to 6), used only
//! when `oldText` does not occur literally.
//!
//! A model or a person copies `oldText` with the wrong indentation, without its
//! trailing spaces, with its first line cut at the indentation, with `read`'s
//! line-number gutter, or with typographic quotes. Each of those is a stage with
//! its own line relation; the first stage that finds anything decides, and finding
//! more than one place (or places that overlap) is a refusal, never a guess.
//!
//! Every stage compares whole lines and writes whole lines. A line is split into
//! its indentation (leading spaces and tabs), its core, and its trailing spaces and
//! tabs. The relations:
//!
//! - `line-trimmed`: indentation and core equal, trailing whitespace ignored;
//! - `indent-shifted`: cores equal, and one indentation mapping takes every
//!   non-blank line of `oldText` to the file's (a common prefix swapped for
//!   another, or, where one side indents with tabs and the other with spaces, a
//!   column shift at a tab width of 4, 8 or 2), so the block's own structure must be
//!   the file's: `}` under `}` at another depth is no match;
//! - `first-line-indent`: as `indent-shifted`, the mapping taken from every line
//!   but the first, whose indentation may be anything (a selection started at the
//!   first line's text);
//! - `gutter-stripped`: `read`'s `{:>6}\t` gutter on every line of `oldText`, with
//!   consecutive numbers, is removed (and from `newText` when every line of it has
//!   one), then the three relations above are tried;
//! - `typography`: the three relations again with curly quotes, dashes, the
//!   ellipsis and non-breaking spaces read as ASCII, for the comparison only.
//!
//! Blank lines match blank lines. What is written: a line of `newText` that is
//! also a line of `oldText` (the two snippets aligned by a line diff) is written as
//! the file has it, byte for byte, so context the caller merely copied is never
//! altered; any other line gets its indentation through the stage's mapping (so a
//! block written at the wrong depth lands at the file's depth) and its trailing
//! whitespace through the mapping the match showed (a trailing space that every
//! line of `oldText` had and the file has not is dropped). A changed blank line is
//! never indented. A line of `newText` less indented than the mapping can place is
//! refused rather than guessed.
//!
//! Whether `newText` is written in `oldText`'s frame (shifted by the mapping) or
//! at the file's indentation (written as it is) is read from witnesses, and only
//! when the two readings give different files: lines of `newText` that copy a
//! line of `oldText` at one frame's indentation; the first line and the outermost
//! line, at `oldText`'s depth or the file's; and the brackets at the edges of the
//! replacement, since a line that starts with `}` stands under the line that
//! opened its block. Witnesses that disagree, or none, refuse with both readings.
//! Tabs written for spaces (or the reverse) match at any depth; among several
//! places, the one place at the very columns the tabs span is the one meant.
//!
//! The work is bounded: past 2^26 line comparisons a stage finds nothing.
//! Hand-written because no crate does indentation-aware line matching; the line
//! alignment of the two snippets comes from `similar`.

use std::borrow::Cow;
use std::collections::HashMap;

use memchr::memmem;
use similar::{Algorithm, DiffOp};

/// Line comparisons one stage may spend before it gives up and finds nothing.
const LINE_BUDGET: usize = 1 << 26;

/// Which rule found the text `edit` replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchStage {
    Exact,
    LineTrimmed,
    IndentShifted,
    FirstLineIndent,
    GutterStripped,
    Typography,
}

impl MatchStage {
    /// The stage's name as results show it (`"match": "indent-shifted"`).
    pub fn name(self) -> &'static str {
        match self {
            MatchStage::Exact => "exact",
            MatchStage::LineTrimmed => "line-trimmed",
            MatchStage::IndentShifted => "indent-shifted",
            MatchStage::FirstLineIndent => "first-line-indent",
            MatchStage::GutterStripped => "gutter-stripped",
            MatchStage::Typography => "typography",
        }
    }

    /// How the stage compared, as the refusals word it.
    pub fn relation(self) -> &'static str {
        match self {
            MatchStage::Exact => "exactly",
            MatchStage::LineTrimmed => "as whole lines with trailing whitespace ignored",
            MatchStage::IndentShifted => "as whole lines at another indentation",
            MatchStage::FirstLineIndent => {
                "as whole lines at another indentation of the first line"
            }
            MatchStage::GutterStripped => "once the line-number gutter was stripped",
            MatchStage::Typography => "with typographic quotes, dashes and spaces read as ASCII",
        }
    }

    /// The sentence a successful edit's summary adds for this stage (none for
    /// an exact match).
    pub fn summary(self) -> Option<&'static str> {
        Some(match self {
            MatchStage::Exact => return None,
            MatchStage::LineTrimmed => {
                "oldText matched whole lines with trailing whitespace ignored (match: line-trimmed)."
            }
            MatchStage::IndentShifted => {
                "oldText matched whole lines at another indentation (match: indent-shifted); newText was re-indented to the file's."
            }
            MatchStage::FirstLineIndent => {
                "oldText matched whole lines, its first line without the file's indentation (match: first-line-indent); newText was re-indented to the file's."
            }
            MatchStage::GutterStripped => {
                "oldText carried read's line-number gutter, stripped before matching (match: gutter-stripped)."
            }
            MatchStage::Typography => {
                "oldText matched with typographic quotes, dashes and spaces read as ASCII (match: typography)."
            }
        })
    }
}

/// Where a stage may find its place: all of the file for `edit`; for a patch's
/// hunk, the lines after the hunk before it (and the `@@` anchor) and before the
/// hunk after it, the line the hunk states, and whether it must end the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scope<'a> {
    /// 0-based first line a place may start at.
    pub from_line: usize,
    /// 0-based line a place must end before (exclusive).
    pub to_line: usize,
    /// Among several places, the one starting at this 0-based line is meant
    /// (a unified diff's stated line, moved by the offset of the hunks before).
    pub at_line: Option<usize>,
    /// The place must end at the file's last line (`*** End of File`).
    pub at_end: bool,
    /// A patch's context: for each line of newText, the line of oldText it is
    /// (the hunk says so; no line diff guesses it). Those lines are copies by
    /// the format's construction, not by the writer's choice, so they are no
    /// witness of newText's frame, and they are written as the file has them
    /// whatever the frame.
    pub context: Option<&'a [Option<usize>]>,
}

impl Scope<'static> {
    /// The whole file, as `edit` searches it.
    pub const WHOLE: Scope<'static> = Scope {
        from_line: 0,
        to_line: usize::MAX,
        at_line: None,
        at_end: false,
        context: None,
    };
}

/// A replacement found by a whole-line stage: view offsets and the LF text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replacement {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// What the whole-line stages concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineOutcome {
    /// No stage found anything.
    Nothing,
    Applied {
        stage: MatchStage,
        replacements: Vec<Replacement>,
    },
    /// More than one place (without `replaceAll`), or places that overlap.
    Ambiguous {
        stage: MatchStage,
        /// 1-based line of each place's first non-blank line.
        lines: Vec<usize>,
        overlapping: bool,
    },
    /// A line of `newText` cannot be placed by the stage's indentation mapping.
    Unplaceable {
        stage: MatchStage,
        /// 1-based line of `newText`.
        new_line: usize,
    },
    /// `newText` could be written at the file's indentation or in `oldText`'s
    /// frame, the two readings give different files, and nothing in the texts
    /// tells which: `line` (1-based, of the file after the edit) would read
    /// `as_written` or `shifted`.
    FrameAmbiguous {
        stage: MatchStage,
        line: usize,
        as_written: String,
        shifted: String,
    },
}

/// The frame `newText`'s indentation is written in, at one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// `oldText`'s: every line goes through the place's indentation mapping.
    Old,
    /// The file's: lines stand at the indentation they were written with (the way
    /// a model writes the replacement after reading the file).
    File,
}

/// A text's lines as offsets, the view the stages index.
struct Lines<'a> {
    text: &'a str,
    /// Start offset of each line; a final `\n` opens no line of its own.
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 40 + 1);
        if !text.is_empty() {
            starts.push(0);
        }
        for nl in memchr::memchr_iter(b'\n', text.as_bytes()) {
            if nl + 1 < text.len() {
                starts.push(nl + 1);
            }
        }
        Lines { text, starts }
    }

    fn len(&self) -> usize {
        self.starts.len()
    }

    /// The end of line `i`'s content (before its `\n`).
    fn content_end(&self, i: usize) -> usize {
        match self.starts.get(i + 1) {
            Some(&next) => next - 1,
            None => match self.text.as_bytes().last() {
                Some(b'\n') => self.text.len() - 1,
                _ => self.text.len(),
            },
        }
    }

    /// The end of line `i` including its `\n`, if it has one.
    fn full_end(&self, i: usize) -> usize {
        self.starts.get(i + 1).copied().unwrap_or(self.text.len())
    }

    fn line(&self, i: usize) -> &'a str {
        &self.text[self.starts[i]..self.content_end(i)]
    }

    /// The line holding byte `at`.
    fn index_of(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at) - 1
    }
}

/// A snippet (`oldText` or `newText`) as lines without their `\n`.
#[derive(Debug, Clone)]
struct Snippet<'a> {
    lines: Vec<&'a str>,
    /// The snippet ended with a line break.
    newline: bool,
}

impl<'a> Snippet<'a> {
    fn new(text: &'a str) -> Self {
        let (body, newline) = match text.strip_suffix('\n') {
            Some(b) => (b, true),
            None => (text, false),
        };
        let lines = if body.is_empty() && newline {
            vec![""]
        } else if body.is_empty() {
            Vec::new()
        } else {
            body.split('\n').collect()
        };
        Snippet { lines, newline }
    }
}

fn is_indent_byte(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A line as indentation, core and trailing whitespace. A blank line is all
/// trailing whitespace.
#[derive(Debug, Clone, Copy)]
struct Parts<'a> {
    indent: &'a str,
    core: &'a str,
    trail: &'a str,
}

impl Parts<'_> {
    fn blank(&self) -> bool {
        self.core.is_empty()
    }
}

fn parts(line: &str) -> Parts<'_> {
    let b = line.as_bytes();
    let Some(i) = b.iter().position(|&c| !is_indent_byte(c)) else {
        return Parts {
            indent: "",
            core: "",
            trail: line,
        };
    };
    let j = b
        .iter()
        .rposition(|&c| !is_indent_byte(c))
        .map_or(b.len(), |j| j + 1);
    Parts {
        indent: &line[..i],
        core: &line[i..j],
        trail: &line[j..],
    }
}

/// Typographic characters read as their ASCII look-alikes (for comparison only).
fn ascii_typography(text: &str) -> Cow<'_, str> {
    fn plain(c: char) -> Option<&'static str> {
        Some(match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => "'",
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => "\"",
            '\u{2010}'..='\u{2015}' | '\u{2212}' => "-",
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' => " ",
            '\u{2026}' => "...",
            _ => return None,
        })
    }
    if text.is_ascii() || !text.chars().any(|c| plain(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match plain(c) {
            Some(p) => out.push_str(p),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Columns an indentation spans at tab width `width`.
fn columns(indent: &str, width: usize) -> usize {
    indent.bytes().fold(0, |c, b| {
        if b == b'\t' {
            (c / width + 1) * width
        } else {
            c + 1
        }
    })
}

fn render_columns(cols: usize, width: usize, tabs: bool) -> String {
    if tabs {
        let mut s = "\t".repeat(cols / width);
        s.push_str(&" ".repeat(cols % width));
        s
    } else {
        " ".repeat(cols)
    }
}

/// How `oldText`'s indentation maps to the file's.
#[derive(Debug, Clone, PartialEq, Eq)]
enum IndentMap {
    Same,
    /// The prefix `from` of every indentation is `to` in the file.
    Prefix {
        from: String,
        to: String,
    },
    /// Tabs on one side, spaces on the other: columns shifted by `delta` at tab
    /// width `width`, written with tabs when the file indents with them.
    Columns {
        width: usize,
        delta: isize,
        tabs: bool,
    },
}

impl IndentMap {
    /// The single mapping every `(old, file)` indentation pair obeys, if any.
    fn infer(pairs: &[(&str, &str)]) -> Option<IndentMap> {
        if pairs.iter().all(|(o, f)| o == f) {
            return Some(IndentMap::Same);
        }
        let uses = |old_side: bool, b: u8| {
            pairs.iter().any(|(o, f)| {
                let side = if old_side { o } else { f };
                side.as_bytes().contains(&b)
            })
        };
        let styles_differ =
            uses(true, b'\t') != uses(false, b'\t') || uses(true, b' ') != uses(false, b' ');
        if styles_differ {
            Self::columns(pairs).or_else(|| Self::prefix(pairs))
        } else {
            Self::prefix(pairs).or_else(|| Self::columns(pairs))
        }
    }

    fn prefix(pairs: &[(&str, &str)]) -> Option<IndentMap> {
        let &(from, to) = pairs.iter().min_by_key(|(o, _)| o.len())?;
        pairs
            .iter()
            .all(|(o, f)| match (o.strip_prefix(from), f.strip_prefix(to)) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            })
            .then(|| IndentMap::Prefix {
                from: from.to_string(),
                to: to.to_string(),
            })
    }

    fn columns(pairs: &[(&str, &str)]) -> Option<IndentMap> {
        let tabs = pairs.iter().any(|(_, f)| f.contains('\t'));
        let mut best: Option<IndentMap> = None;
        for width in [4, 8, 2] {
            let (o0, f0) = pairs.iter().min_by_key(|(o, _)| columns(o, width))?;
            let delta = columns(f0, width) as isize - columns(o0, width) as isize;
            let fits = pairs.iter().all(|(o, f)| {
                let want = columns(o, width) as isize + delta;
                want >= 0
                    && columns(f, width) as isize == want
                    && render_columns(want as usize, width, tabs) == *f
            });
            let closer = match &best {
                Some(IndentMap::Columns { delta: d, .. }) => delta.abs() < d.abs(),
                _ => true,
            };
            if fits && closer {
                best = Some(IndentMap::Columns { width, delta, tabs });
            }
        }
        best
    }

    /// The file's indentation for a line indented `indent` in `oldText`'s frame.
    fn apply(&self, indent: &str) -> Option<String> {
        match self {
            IndentMap::Same => Some(indent.to_string()),
            IndentMap::Prefix { from, to } => {
                if let Some(rest) = indent.strip_prefix(from.as_str()) {
                    return Some(format!("{to}{rest}"));
                }
                // Less indented than the block: take the missing part off the
                // file's indentation when it ends with it.
                let missing = from.strip_prefix(indent)?;
                to.strip_suffix(missing).map(str::to_string)
            }
            IndentMap::Columns { width, delta, tabs } => {
                let want = columns(indent, *width) as isize + delta;
                (want >= 0).then(|| render_columns(want as usize, *width, *tabs))
            }
        }
    }
}

/// The trailing whitespace the match showed: each of `oldText`'s trailing
/// strings that the file always had as one other string. Anything else is kept.
#[derive(Debug, Default, Clone)]
struct TrailMap {
    map: HashMap<String, Option<String>>,
}

impl TrailMap {
    fn learn(&mut self, old: &str, file: &str) {
        match self.map.get(old) {
            None => {
                self.map.insert(old.to_string(), Some(file.to_string()));
            }
            Some(Some(seen)) if seen != file => {
                self.map.insert(old.to_string(), None);
            }
            _ => {}
        }
    }

    fn apply<'a>(&'a self, trail: &'a str) -> &'a str {
        match self.map.get(trail) {
            Some(Some(file)) => file,
            _ => trail,
        }
    }
}

/// How the stages relate indentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Indentation {
    Equal,
    Shifted,
    FirstLineFree,
}

/// One place a stage found, with what it learned there.
#[derive(Debug, Clone)]
struct Place {
    /// 0-based file line where the place starts.
    first: usize,
    indent: IndentMap,
    /// The first line's own indentation pair, for `FirstLineFree`.
    first_pair: Option<(String, String)>,
    trail: TrailMap,
}

struct Stage<'a, 'b> {
    lines: &'b Lines<'a>,
    old: &'b Snippet<'b>,
    indentation: Indentation,
    typography: bool,
}

impl Stage<'_, '_> {
    fn prepare<'s>(&self, line: &'s str) -> Cow<'s, str> {
        if self.typography {
            ascii_typography(line)
        } else {
            Cow::Borrowed(line)
        }
    }

    /// Whether `oldText` matches at file line `first`, and how.
    fn check(&self, first: usize, budget: &mut usize) -> Option<Place> {
        let k = self.old.lines.len();
        let mut pairs: Vec<(usize, String, String)> = Vec::new();
        let mut trail = TrailMap::default();
        for (j, old_line) in self.old.lines.iter().enumerate() {
            *budget = budget.checked_sub(1)?;
            let (o, f) = (
                self.prepare(old_line),
                self.prepare(self.lines.line(first + j)),
            );
            let (po, pf) = (parts(&o), parts(&f));
            if po.blank() != pf.blank() || po.core != pf.core {
                return None;
            }
            trail.learn(po.trail, pf.trail);
            if po.blank() {
                continue;
            }
            if self.indentation == Indentation::Equal && po.indent != pf.indent {
                return None;
            }
            pairs.push((j, po.indent.to_string(), pf.indent.to_string()));
        }
        debug_assert!(k > 0);
        let (indent, first_pair) = match self.indentation {
            Indentation::Equal => (IndentMap::Same, None),
            Indentation::Shifted => {
                let p: Vec<(&str, &str)> = pairs
                    .iter()
                    .map(|(_, o, f)| (o.as_str(), f.as_str()))
                    .collect();
                (IndentMap::infer(&p)?, None)
            }
            Indentation::FirstLineFree => {
                let (head, rest) = pairs.split_first()?;
                if head.0 != 0 || rest.is_empty() {
                    return None;
                }
                let p: Vec<(&str, &str)> = rest
                    .iter()
                    .map(|(_, o, f)| (o.as_str(), f.as_str()))
                    .collect();
                (
                    IndentMap::infer(&p)?,
                    Some((head.1.clone(), head.2.clone())),
                )
            }
        };
        Some(Place {
            first,
            indent,
            first_pair,
            trail,
        })
    }

    /// Every place `oldText` matches, in file order; `None` when the budget ran out.
    fn find(&self, budget: &mut usize) -> Option<Vec<Place>> {
        let k = self.old.lines.len();
        let anchor = self
            .old
            .lines
            .iter()
            .position(|l| !parts(l).blank())
            .expect("the caller refuses a blank oldText");
        let n = self.lines.len();
        if n < k {
            return Some(Vec::new());
        }
        let mut found = Vec::new();
        let mut consider = |line: usize, budget: &mut usize| -> Option<()> {
            if line >= anchor && line - anchor + k <= n {
                if let Some(place) = self.check(line - anchor, budget) {
                    found.push(place);
                }
                if *budget == 0 {
                    return None;
                }
            }
            Some(())
        };
        if self.typography {
            // Typographic characters change byte lengths, so every line is read.
            let want = ascii_typography(parts(self.old.lines[anchor]).core).into_owned();
            for i in 0..n {
                *budget = budget.checked_sub(1)?;
                if parts(&ascii_typography(self.lines.line(i))).core == want {
                    consider(i, budget)?;
                }
            }
        } else {
            // The anchor line's core, found literally and confirmed to be a whole
            // line's core, picks the places worth checking.
            let core = parts(self.old.lines[anchor]).core;
            let finder = memmem::Finder::new(core.as_bytes());
            let bytes = self.lines.text.as_bytes();
            let mut from = 0;
            while let Some(hit) = finder.find(&bytes[from..]) {
                *budget = budget.checked_sub(1)?;
                let at = from + hit;
                let i = self.lines.index_of(at);
                let (start, end) = (self.lines.starts[i], self.lines.content_end(i));
                let whole = bytes[start..at].iter().all(|&b| is_indent_byte(b))
                    && bytes[at + core.len()..end]
                        .iter()
                        .all(|&b| is_indent_byte(b));
                if whole {
                    consider(i, budget)?;
                    from = self.lines.full_end(i);
                } else {
                    from = at + 1;
                }
                if from >= bytes.len() {
                    break;
                }
            }
        }
        Some(found)
    }
}

/// `read`'s gutter (`{:>6}\t`, or any digits and a tab after spaces) removed from
/// every line, when every line has one and, if `consecutive`, the numbers count up
/// by one.
fn strip_gutter(text: &str, consecutive: bool) -> Option<String> {
    let snippet = Snippet::new(text);
    if snippet.lines.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut last: Option<u64> = None;
    for (i, line) in snippet.lines.iter().enumerate() {
        let digits = line.trim_start_matches(' ');
        let end = digits.bytes().position(|b| !b.is_ascii_digit())?;
        if end == 0 || digits.as_bytes()[end] != b'\t' {
            return None;
        }
        let n: u64 = digits[..end].parse().ok()?;
        if consecutive && last.is_some_and(|l| l + 1 != n) {
            return None;
        }
        last = Some(n);
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&digits[end + 1..]);
    }
    if snippet.newline {
        out.push('\n');
    }
    Some(out)
}

/// Run stages 2 to 6 over `hay` (the LF view of the file). `old` is not blank and
/// does not occur literally.
pub(crate) fn match_lines(
    hay: &str,
    old: &str,
    new: &str,
    replace_all: bool,
    scope: &Scope<'_>,
) -> LineOutcome {
    let lines = Lines::new(hay);
    let relations = [
        (MatchStage::LineTrimmed, Indentation::Equal),
        (MatchStage::IndentShifted, Indentation::Shifted),
        (MatchStage::FirstLineIndent, Indentation::FirstLineFree),
    ];
    for (stage, indentation) in relations {
        if let Some(outcome) = try_stage(&lines, old, new, replace_all, scope, stage, indentation) {
            return outcome;
        }
    }
    if let Some(bare_old) = strip_gutter(old, true)
        && !bare_old.trim().is_empty()
    {
        let bare_new = strip_gutter(new, false).unwrap_or_else(|| new.to_string());
        for (_, indentation) in relations {
            if let Some(outcome) = try_stage(
                &lines,
                &bare_old,
                &bare_new,
                replace_all,
                scope,
                MatchStage::GutterStripped,
                indentation,
            ) {
                return outcome;
            }
        }
    }
    for (_, indentation) in relations {
        if let Some(outcome) = try_stage(
            &lines,
            old,
            new,
            replace_all,
            scope,
            MatchStage::Typography,
            indentation,
        ) {
            return outcome;
        }
    }
    LineOutcome::Nothing
}

/// One relation of one stage: `None` when it finds nothing.
fn try_stage(
    lines: &Lines<'_>,
    old: &str,
    new: &str,
    replace_all: bool,
    scope: &Scope<'_>,
    stage: MatchStage,
    indentation: Indentation,
) -> Option<LineOutcome> {
    // The last stage reads curly quotes and dashes as ASCII, for comparing only.
    let typography = stage == MatchStage::Typography;
    // A snippet that starts with a line break starts at the end of a line; when
    // both do, that break is context and the snippets are whole lines after it.
    let (old, new, cut) = match (old.strip_prefix('\n'), new.strip_prefix('\n')) {
        (Some(o), Some(n)) if !o.is_empty() => (o, n, true),
        _ => (old, new, false),
    };
    let old_snippet = Snippet::new(old);
    if old_snippet.lines.iter().all(|l| parts(l).blank()) {
        return None;
    }
    let stage_search = Stage {
        lines,
        old: &old_snippet,
        indentation,
        typography,
    };
    let mut budget = LINE_BUDGET;
    let mut places = stage_search.find(&mut budget)?;
    let k = old_snippet.lines.len();
    places.retain(|p| {
        p.first >= scope.from_line
            && p.first + k <= scope.to_line
            && (!scope.at_end || p.first + k == lines.len())
    });
    if places.is_empty() {
        return None;
    }
    if places.len() > 1
        && let Some(at) = scope.at_line
        && let Some(p) = places.iter().find(|p| p.first == at)
    {
        places = vec![p.clone()];
    }
    let anchor = old_snippet
        .lines
        .iter()
        .position(|l| !parts(l).blank())
        .unwrap_or(0);
    // oldText indented with tabs where the file has spaces (or the other way)
    // matches every depth; a single place at the very columns it was written at
    // is the one meant (one tab read as 4 columns at one place, as 8 at another
    // leaves two, and the refusal stands).
    if places.len() > 1 && !replace_all {
        let same_columns: Vec<Place> = places
            .iter()
            .filter(|p| matches!(p.indent, IndentMap::Columns { delta: 0, .. }))
            .cloned()
            .collect();
        if same_columns.len() == 1 {
            places = same_columns;
        }
    }
    // Several places at different depths for an unindented oldText, and
    // newText's first line, a version of oldText's, indented as exactly one of
    // them: that one was read and meant.
    if places.len() > 1 && !replace_all {
        fn first(l: &str) -> Option<Parts<'_>> {
            Some(parts(l)).filter(|p| !p.blank())
        }
        let old_first = old_snippet.lines.iter().find_map(|l| first(l));
        let new_first = Snippet::new(new).lines.iter().find_map(|l| first(l));
        let wanted = match (old_first, new_first) {
            (Some(o), Some(n))
                if o.indent.is_empty() && !n.indent.is_empty() && alike(o.core, n.core) =>
            {
                Some(n.indent)
            }
            _ => None,
        };
        if let Some(wanted) = wanted {
            let at_wanted: Vec<Place> = places
                .iter()
                .filter(|p| first(lines.line(p.first + anchor)).map(|f| f.indent) == Some(wanted))
                .cloned()
                .collect();
            if at_wanted.len() == 1 {
                places = at_wanted;
            }
        }
    }
    let overlapping = places.windows(2).any(|w| w[1].first < w[0].first + k);
    if overlapping || (places.len() > 1 && !replace_all) {
        return Some(LineOutcome::Ambiguous {
            stage,
            lines: places.iter().map(|p| p.first + anchor + 1).collect(),
            overlapping,
        });
    }
    let new_snippet = Snippet::new(new);
    let patch = scope.context.is_some();
    let kept: Vec<Option<usize>> = match scope.context {
        // The first line cut above was a blank line of context on both sides.
        Some(context) if cut => context[1..]
            .iter()
            .map(|k| k.and_then(|i| i.checked_sub(1)))
            .collect(),
        Some(context) => context.to_vec(),
        None => kept_lines(&old_snippet, &new_snippet),
    };
    // A patch's context lines say nothing of the frame: only the lines it adds
    // are weighed (its first line is then the mapped "line 0" only when it is
    // itself an added one).
    let (weighed, line0_mapped) = if patch {
        let added = Snippet {
            lines: new_snippet
                .lines
                .iter()
                .zip(&kept)
                .filter(|(_, k)| k.is_none())
                .map(|(l, _)| *l)
                .collect(),
            newline: new_snippet.newline,
        };
        (added, kept.first().is_some_and(Option::is_none))
    } else {
        (new_snippet.clone(), true)
    };
    // Read in the hunk's own frame, a line it adds stands at most a level deeper
    // than the context line just above it, as the hunk writes both (a hunk whose
    // context alone was written shallower shows its added lines deeper still):
    // then the hunk's frame is a possible one, however deep its added lines
    // stand against its outermost line.
    // A line continuing a bracket the context line leaves open may stand
    // anywhere (aligned with the bracket, as Python and Lisp write it).
    let hunk_deeper = patch.then(|| {
        let mut above: Option<(usize, bool, bool)> = None;
        new_snippet.lines.iter().zip(&kept).all(|(l, k)| {
            let p = parts(l);
            if p.blank() {
                return true;
            }
            let indent = columns(p.indent, 4);
            let fits = match above {
                Some((a, true, open)) if k.is_none() => open || indent <= a + 4,
                _ => true,
            };
            above = Some((indent, k.is_some(), open_mid_line(p.core).is_some()));
            fits
        })
    });
    let mut replacements = Vec::with_capacity(places.len());
    for place in &places {
        let write = |frame| {
            write_place(
                lines,
                &old_snippet,
                &new_snippet,
                &kept,
                place,
                frame,
                patch,
            )
        };
        let inferred = infer_frame(
            lines,
            &old_snippet,
            &weighed,
            line0_mapped,
            hunk_deeper,
            place,
        );
        let written = match (write(Frame::Old), write(Frame::File)) {
            (Ok(a), Ok(b)) if a != b => {
                // The brackets at the edges of the replacement are a witness the
                // texts' indentation cannot give: a closing line stands at the
                // depth of the line that opened its block.
                let (fit_old, fit_file) =
                    (bracket_fit(lines.text, &a), bracket_fit(lines.text, &b));
                let brackets = fit_old.against(&fit_file).filter(|f| inferred.can(*f));
                // A patch's hunk has its neighbours written beside it.
                let layout = if patch {
                    let (lo, lf) = (layout_fit(lines.text, &a), layout_fit(lines.text, &b));
                    match lo.disagree.cmp(&lf.disagree) {
                        std::cmp::Ordering::Less => Some(Frame::Old),
                        std::cmp::Ordering::Greater => Some(Frame::File),
                        std::cmp::Ordering::Equal => None,
                    }
                } else {
                    None
                };
                // A hunk is a diff: a reading in which one of its removed lines
                // comes back unchanged among its added ones (where the diff
                // would have kept it as context) is not the change it describes,
                // when the other reading has no such line.
                let minimal = if patch {
                    let context = kept.iter().filter(|k| k.is_some()).count();
                    let (ko, kf) = (
                        lines_kept(lines.text, &a) > context,
                        lines_kept(lines.text, &b) > context,
                    );
                    match (ko, kf) {
                        (false, true) => Some(Frame::Old),
                        (true, false) => Some(Frame::File),
                        _ => None,
                    }
                } else {
                    None
                };
                let witness = brackets
                    .or(minimal.filter(|f| inferred.can(*f)))
                    .or(layout.filter(|f| inferred.can(*f)));
                match (inferred.frame, witness) {
                    (Some(Frame::Old), Some(Frame::Old) | None) => Ok(a),
                    (Some(Frame::File), Some(Frame::File) | None) => Ok(b),
                    (_, Some(Frame::Old)) => Ok(a),
                    (_, Some(Frame::File)) => Ok(b),
                    _ => {
                        let (line, shifted, as_written) = first_difference(lines.text, &a, &b);
                        return Some(LineOutcome::FrameAmbiguous {
                            stage,
                            line,
                            as_written,
                            shifted,
                        });
                    }
                }
            }
            (a, b) => match inferred.frame {
                Some(Frame::Old) => a,
                Some(Frame::File) => b,
                // No evidence: when both readings give the same file, either is it.
                None => match (a, b) {
                    (Ok(a), Ok(b)) if a == b => Ok(a),
                    (Ok(a), Ok(b)) => {
                        let (line, shifted, as_written) = first_difference(lines.text, &a, &b);
                        return Some(LineOutcome::FrameAmbiguous {
                            stage,
                            line,
                            as_written,
                            shifted,
                        });
                    }
                    // Only one reading can be placed at all: that one was meant.
                    (Err(_), Ok(b)) => Ok(b),
                    (a, _) => a,
                },
            },
        };
        match written {
            Ok(r) => replacements.push(r),
            Err(new_line) => return Some(LineOutcome::Unplaceable { stage, new_line }),
        }
    }
    Some(LineOutcome::Applied {
        stage,
        replacements,
    })
}

/// The frame `newText` is written in at `place`, from the evidence of the lines it
/// shares with `oldText` up to indentation: where `oldText`'s indentation differs
/// from the file's at a line, a line of `newText` with the same content at
/// `oldText`'s indentation says `Old`, at the file's says `File`; the majority
/// decides, provided that reading does not put `newText` shallower than every
/// line it replaces, or read relative, more than a level deeper than `oldText`'s
/// outermost line, while the other would not (then the copies were moved by the
/// edit itself, and nothing decides). With no evidence, the one reading that is a
/// plausible placement, if only one is. `None`: undecided, and the caller refuses
/// when the two readings differ.
fn infer_frame(
    lines: &Lines<'_>,
    old: &Snippet<'_>,
    new: &Snippet<'_>,
    line0_mapped: bool,
    hunk_deeper: Option<bool>,
    place: &Place,
) -> Inference {
    let patch = hunk_deeper.is_some();
    let core = |l: &str| -> String {
        let p = parts(l);
        ascii_typography(p.core).into_owned()
    };
    // Each line of oldText whose indentation differs from the file's, by content:
    // a line of newText with that content is a copy of one of them.
    let mut by_core: HashMap<String, Vec<(&str, &str)>> = HashMap::new();
    // A line of punctuation alone (`}`, `);`) is in every block: a copy of it says
    // nothing about which one, so it does not vote.
    let telling = |core: &str| core.chars().any(char::is_alphanumeric);
    for (i, l) in old.lines.iter().enumerate() {
        let (o, f) = (parts(l), parts(lines.line(place.first + i)));
        if !o.blank() && o.indent != f.indent {
            by_core
                .entry(core(l))
                .or_default()
                .push((o.indent, f.indent));
        }
    }
    let (mut old_votes, mut file_votes, mut either) = (0usize, 0usize, false);
    let (mut weak_old, mut weak_file) = (0usize, 0usize);
    for l in &new.lines {
        let n = parts(l);
        if n.blank() {
            continue;
        }
        // A patch's added line is weighed against a line it is a version of
        // (`-call(a)` then `+call(a, b)`, or a neighbour much like it) when no
        // line of oldText is its copy: the two stand at one depth.
        let c = core(l);
        // Every line it is a version of weighs in (a line split in two has two
        // halves); which ones, not the map's order, decides.
        let pairs: Vec<&(&str, &str)> = match by_core.get(&c) {
            Some(pairs) => pairs.iter().collect(),
            None if patch => by_core
                .iter()
                .filter(|(k, _)| alike(k, &c))
                .flat_map(|(_, v)| v)
                .collect(),
            None => continue,
        };
        if pairs.is_empty() {
            continue;
        }
        let as_old = pairs.iter().any(|(o, _)| *o == n.indent);
        let as_file = pairs.iter().any(|(_, f)| *f == n.indent);
        match (as_old, as_file, telling(n.core)) {
            (true, false, true) => old_votes += 1,
            (false, true, true) => file_votes += 1,
            (true, false, false) => weak_old += 1,
            (false, true, false) => weak_file += 1,
            (true, true, _) => either = true,
            _ => {}
        }
    }
    // The non-blank lines' indentation in oldText, in newText, and in the file's
    // lines at the place, which every test below reads.
    let indents = |ls: &mut dyn Iterator<Item = &str>| -> Vec<String> {
        ls.map(parts)
            .filter(|p| !p.blank())
            .map(|p| p.indent.to_string())
            .collect()
    };
    let old_indents = indents(&mut old.lines.iter().copied());
    let new_indents = indents(&mut new.lines.iter().copied());
    let file_indents = indents(&mut (0..old.lines.len()).map(|i| lines.line(place.first + i)));
    let least = |is: &mut dyn Iterator<Item = &str>| is.map(|i| columns(i, 4)).min();
    // Where each reading puts newText's outermost line, against the outermost
    // line of the lines it replaces: a replacement that reaches shallower than
    // everything it replaces is not what an edit of those lines means.
    let region = least(&mut file_indents.iter().map(String::as_str));
    // newText's line 0 is its first non-blank one (the one `write_place` maps by
    // the first line's own pair) only when it is not blank itself.
    let line0 = line0_mapped && new.lines.first().is_some_and(|l| !parts(l).blank());
    let reach = |frame: Frame| -> Option<usize> {
        let placed: Vec<Option<String>> = new_indents
            .iter()
            .enumerate()
            .map(|(j, indent)| match (frame, &place.first_pair) {
                (Frame::File, _) => Some(indent.clone()),
                // As `write_place` places it: the first line by the first line's
                // own pair, the rest by the mapping.
                (Frame::Old, Some((old_first, file_first))) if j == 0 && line0 => indent
                    .strip_prefix(old_first.as_str())
                    .map(|rest| format!("{file_first}{rest}"))
                    .or_else(|| place.indent.apply(indent)),
                (Frame::Old, _) => place.indent.apply(indent),
            })
            .collect();
        least(&mut placed.iter().flatten().map(String::as_str))
    };
    // Read in oldText's frame, newText's outermost line sits at most one level
    // deeper than oldText's outermost (or at its first line's depth): a
    // replacement written relative to a dedented snippet does not start two
    // levels in.
    let old_first = old_indents.first().map(|i| columns(i, 4));
    let shallow_enough = match (
        least(&mut new_indents.iter().map(String::as_str)),
        least(&mut old_indents.iter().map(String::as_str)),
    ) {
        (Some(n), Some(o)) => n <= (o + 4).max(old_first.unwrap_or(0)),
        _ => true,
    };
    // Read as written, newText's indentation is the file's own kind (tabs or
    // spaces), where the lines it replaces are indented at all.
    let uses = |is: &[String], c: char| is.iter().any(|i| i.contains(c));
    let (file_tabs, file_spaces) = (uses(&file_indents, '\t'), uses(&file_indents, ' '));
    let same_kind = !(file_tabs || file_spaces)
        || ((!uses(&new_indents, '\t') || file_tabs) && (!uses(&new_indents, ' ') || file_spaces));
    // Where each reading can stand at all (the kind of indentation, the depth
    // relative to oldText), and whether it stays within the depth of what it
    // replaces (a diff's hunk may close a block and open another, so that alone
    // never picks a reading; it only vetoes what the copies voted).
    let possible = |frame: Frame| match frame {
        Frame::Old => shallow_enough || hunk_deeper == Some(true),
        Frame::File => same_kind,
    };
    let plausible = |frame: Frame| {
        possible(frame)
            && match (reach(frame), region) {
                (Some(r), Some(g)) => r >= g,
                _ => true,
            }
    };
    // newText's first line, when it replaces oldText's (the two alike; a first
    // line that is something else says nothing about depth): at oldText's first
    // line's indentation and not the file's there says `Old`, the other way
    // round `File`.
    let first_of = |ls: &[&str]| {
        ls.iter()
            .map(|l| parts(l))
            .find(|p| !p.blank())
            .map(|p| (p.indent.to_string(), p.core.to_lowercase()))
    };
    let anchor = old.lines.iter().position(|l| !parts(l).blank());
    let f0 = anchor.map(|a| parts(lines.line(place.first + a)).indent.to_string());
    let (first_old, first_new) = (first_of(&old.lines), first_of(&new.lines));
    let (o0, n0) = (
        first_old.as_ref().map(|f| f.0.clone()),
        first_new.as_ref().map(|f| f.0.clone()),
    );
    let alike = match (&first_old, &first_new) {
        (Some((_, a)), Some((_, b))) => alike(a, b),
        _ => false,
    };
    let at_old = n0 == o0 && n0 != f0;
    let at_file = n0 == f0 && n0 != o0;
    let first_at = match (at_old, at_file) {
        (true, _) => Some(Frame::Old),
        (_, true) => Some(Frame::File),
        _ => None,
    };
    // A hunk's first added line and its outermost one stand wherever the
    // change falls, not in place of the hunk's first or outermost line: for a
    // patch they witness nothing.
    let first_at = first_at.filter(|_| !patch);
    let first_says = first_at.filter(|_| alike);
    // newText's outermost line against oldText's and the file's there: at
    // oldText's outermost depth and not the file's says `Old`, the other way round
    // `File` (a replacement mostly stands at the depth of what it replaces).
    let outermost = |is: &[String]| is.iter().min_by_key(|i| columns(i, 4)).cloned();
    let (new_base, old_base, file_base) = (
        outermost(&new_indents),
        outermost(&old_indents),
        outermost(&file_indents),
    );
    let base_says = match (new_base == old_base, new_base == file_base) {
        (true, false) => Some(Frame::Old),
        (false, true) => Some(Frame::File),
        _ => None,
    };
    // A first line unlike the one it replaces still tells the frame when the
    // outermost lines say the same: two witnesses that agree.
    let both_say = first_at.filter(|f| base_says == Some(*f));
    let other = |f: Frame| {
        if f == Frame::Old {
            Frame::File
        } else {
            Frame::Old
        }
    };
    let voted = match old_votes.cmp(&file_votes) {
        std::cmp::Ordering::Greater => Some(Frame::Old),
        std::cmp::Ordering::Less => Some(Frame::File),
        // A line that reads as a copy in either frame, or no copy at all: the
        // votes say nothing.
        std::cmp::Ordering::Equal => None,
    };
    let frame = match voted {
        // The first line against the copies: a kept line moved by the edit by
        // exactly the slip's depth looks like the other frame. Undecided.
        Some(f) if first_says == Some(other(f)) => None,
        // The votes' frame must also be a plausible placement; when only the
        // other one is, the lines that voted were moved by the edit itself (a
        // block wrapped in a new one shifts every kept line by the same depth as
        // the slip did): nothing tells which was meant.
        Some(f) if plausible(f) || !plausible(other(f)) => Some(f),
        Some(_) => None,
        None if either => None,
        None => {
            // Copies of punctuation lines (`}`) are in every block: they vote
            // only beside a first line at the same frame's indentation.
            let weak = if weak_old > weak_file && at_old {
                Some(Frame::Old)
            } else if weak_file > weak_old && at_file {
                Some(Frame::File)
            } else {
                None
            };
            match weak.or(first_says).or(both_say) {
                Some(f) if possible(f) && plausible(f) => Some(f),
                Some(_) => None,
                None => match (possible(Frame::Old), possible(Frame::File)) {
                    (true, false) => Some(Frame::Old),
                    (false, true) => Some(Frame::File),
                    _ => None,
                },
            }
        }
    };
    Inference {
        frame,
        possible: [possible(Frame::Old), possible(Frame::File)],
    }
}

/// Whether two lines' cores are versions of one line: mostly the same
/// characters, or one the start of the other (a condition split over lines, a
/// call given more arguments), or the same call with other arguments.
pub(crate) fn alike(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    (short.len() >= 4 && long.starts_with(short))
        || same_call_head(a, b)
        || similar::TextDiff::from_chars(a, b).ratio() >= 0.6
}

/// Whether both lines open the same call or method by a name of five characters
/// or more (`.is_some_and(`, `assert_eq!(`): a line whose arguments were
/// rewritten keeps its head, however little of the rest stays (`.is_some_and(|w|
/// LIST.contains(&w))` became `.is_some_and(is_listed)`).
fn same_call_head(a: &str, b: &str) -> bool {
    fn head(s: &str) -> Option<&str> {
        s.find('(').map(|i| &s[..i]).filter(|h| {
            h.len() >= 5
                && h.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '!'))
        })
    }
    matches!((head(a), head(b)), (Some(x), Some(y)) if x == y)
}

/// What the texts say of `newText`'s frame at one place.
struct Inference {
    /// The frame they decide, if any.
    frame: Option<Frame>,
    /// Whether each reading (`Old`, `File`) can stand at all.
    possible: [bool; 2],
}

impl Inference {
    fn can(&self, frame: Frame) -> bool {
        self.possible[frame as usize]
    }
}

/// How the closing lines of a replacement, and of the file after it, line up
/// with the lines that opened their blocks: a line starting with `}`, `)` or `]`
/// that closes a block opened by a line ending with its opener, one of the two
/// in the replacement, agrees when it stands at the opener line's indentation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Fit {
    agree: usize,
    disagree: usize,
}

impl Fit {
    /// Which of two readings the brackets tell, when one fits with no
    /// disagreement and the other does not fit.
    fn against(&self, file: &Fit) -> Option<Frame> {
        let clean = |f: &Fit| f.disagree == 0 && f.agree > 0;
        match (clean(self), clean(file)) {
            (true, false) if file.disagree > 0 => Some(Frame::Old),
            (false, true) if self.disagree > 0 => Some(Frame::File),
            _ => None,
        }
    }
}

/// Of several texts for `hay[start..end]`, the ones the bracket witness says fit:
/// those with agreeing closing lines and none disagreeing, when every other one
/// disagrees somewhere (none otherwise).
pub(crate) fn brackets_fitting(hay: &str, start: usize, end: usize, texts: &[&str]) -> Vec<usize> {
    let fits: Vec<Fit> = texts
        .iter()
        .map(|text| {
            bracket_fit(
                hay,
                &Replacement {
                    start,
                    end,
                    text: text.to_string(),
                },
            )
        })
        .collect();
    // Two readings that give the same text are one.
    let clean: Vec<usize> = (0..fits.len())
        .filter(|&i| fits[i].disagree == 0 && fits[i].agree > 0)
        .filter(|&i| (0..i).all(|j| texts[j] != texts[i]))
        .collect();
    let others_disagree = (0..fits.len()).all(|i| {
        clean.contains(&i) || fits[i].disagree > 0 || clean.iter().any(|&c| texts[c] == texts[i])
    });
    if others_disagree { clean } else { Vec::new() }
}

/// Lines of context the bracket witness reads on either side of a replacement.
const BRACKET_CONTEXT: usize = 400;

/// The bracket witness for `hay` with `r` written in: the file's lines before the
/// replacement (at most [`BRACKET_CONTEXT`]) open blocks, the replacement's lines
/// and the file's after it close them. Strings in double quotes, character
/// literals and `//` comments are skipped; a language without brackets gives no
/// evidence at all, which is what the caller needs.
fn bracket_fit(hay: &str, r: &Replacement) -> Fit {
    let mut stack: Vec<Open> = Vec::new();
    let mut fit = Fit::default();
    let before: Vec<&str> = hay[..r.start].lines().collect();
    let skip = before.len().saturating_sub(BRACKET_CONTEXT);
    for line in &before[skip..] {
        scan_brackets(line, Side::Before, &mut stack, &mut fit);
    }
    for line in r.text.lines() {
        scan_brackets(line, Side::New, &mut stack, &mut fit);
    }
    for line in hay[r.end..].lines().take(BRACKET_CONTEXT) {
        if !stack.iter().any(|e| e.2 == Side::New) {
            break;
        }
        scan_brackets(line, Side::After, &mut stack, &mut fit);
    }
    // Python's blocks have no brackets: a header (`def …:`, `if …:`) is
    // followed by a deeper line. Each pair of consecutive non-blank lines that
    // involves the replacement is a witness too.
    let last_before = before.iter().rev().find(|l| !parts(l).blank());
    let first_after = hay[r.end..].lines().find(|l| !parts(l).blank());
    let mut prev: Option<(usize, bool, Side)> = None;
    let sides = last_before
        .map(|l| (*l, Side::Before))
        .into_iter()
        .chain(r.text.lines().map(|l| (l, Side::New)))
        .chain(first_after.map(|l| (l, Side::After)));
    for (line, side) in sides {
        let p = parts(line);
        if p.blank() {
            continue;
        }
        let indent = columns(p.indent, 4);
        if let Some((above, true, above_side)) = prev
            && (above_side == Side::New || side == Side::New)
        {
            if indent > above {
                fit.agree += 1;
            } else {
                fit.disagree += 1;
            }
        }
        prev = Some((indent, python_header(p.core), side));
    }
    fit
}

/// The layout witness, for a patch's hunk only: how each line of the
/// replacement stands against the non-blank line above it, by habits that
/// brace and indentation languages share. After a comment, code stands at the
/// comment's depth. After a line ending with an opener (or a shell `case`
/// pattern) the next is deeper, a closer at its depth. A closing line is
/// shallower than the line above it. A line is deeper than the one above only
/// as a continuation (an operator ending the line above, or starting its own);
/// a continuation (`.call()`, `&& cond`) is not shallower than the line above
/// unless that line closes a bracket; after a statement's `;` the next stands
/// no deeper than where that statement began; inside a block the replacement
/// opens, a line is deeper than the opener's. A hunk's added lines carry no
/// copy of the file's lines to tell their depth (a new comment, a new
/// statement): only their neighbours tell whether the hunk was written at the
/// file's depth or at its context's, and the reading with fewer
/// disagreements is the witness. An edit's snippet has no neighbours written
/// beside it; edits keep to their own witnesses.
///
/// Measured by `bench/patch-replay.py` (the dedent classes, where only this
/// tells): every rule here removed a wrong or undecided hunk of real history
/// without adding one.
fn layout_fit(hay: &str, r: &Replacement) -> Fit {
    // A trailing comma is left out: a list's next item stands at its depth.
    const CONTINUES: [&str; 11] = ["=", "&&", "||", "+", "-", "*", "|", "->", "=>", "\\", "?"];
    const CONTINUED: [&str; 12] = [
        ".", "&&", "||", "+", "-", "*", "|", "?", ":", "as ", "or ", "and ",
    ];
    let comment = |core: &str| {
        ["//", "/*", "* ", "--", "#"]
            .iter()
            .any(|m| core.starts_with(m))
            && !core.starts_with("#[")
            && !core.starts_with("#!")
    };
    let closes = |core: &str| core.starts_with(['}', ')', ']']);
    let before: Vec<&str> = hay[..r.start].lines().collect();
    let last_before = before.iter().rev().find(|l| !parts(l).blank()).copied();
    let first_after = hay[r.end..].lines().find(|l| !parts(l).blank());
    let sides = last_before
        .map(|l| (l, Side::Before))
        .into_iter()
        .chain(r.text.lines().map(|l| (l, Side::New)))
        .chain(first_after.map(|l| (l, Side::After)));
    // A line inside a block the replacement opens (not its closing line)
    // stands deeper than the line that opened it. The blocks open before it are
    // followed so that its own closers pair with theirs.
    let (mut blocks, mut unused) = (Vec::new(), Fit::default());
    for line in &before[before.len().saturating_sub(BRACKET_CONTEXT)..] {
        scan_brackets(line, Side::Before, &mut blocks, &mut unused);
    }
    // A shell `case` pattern (`pat)`, `a|b)`) opens its arm like a bracket.
    let opens = |code: &str| {
        code.ends_with(['{', '(', '['])
            || (code.ends_with(')')
                && !code.starts_with(')')
                && code.matches(')').count() > code.matches('(').count())
    };
    let mut fit = Fit::default();
    let mut prev: Option<(usize, &str, Side)> = None;
    // Where the statement the line above belongs to started: the next
    // statement stands no deeper than that (a chain's `.call();` ends it).
    let mut statement = 0usize;
    for (line, side) in sides {
        let p = parts(line);
        if p.blank() {
            continue;
        }
        let (indent, core) = (columns(p.indent, 4), p.core);
        let continues = |code: &str| {
            CONTINUES.iter().any(|t| code.ends_with(t))
                || CONTINUED.iter().any(|t| core.starts_with(t))
                || open_mid_line(code).is_some()
        };
        if side != Side::Before {
            if let Some(&(_, opened_at, Side::New, true)) = blocks.last()
                && !closes(core)
            {
                if indent > opened_at {
                    fit.agree += 1;
                } else {
                    fit.disagree += 1;
                }
            }
            scan_brackets(line, side, &mut blocks, &mut unused);
        }
        if let Some((above, code, above_side)) = prev
            && (above_side == Side::New || side == Side::New)
        {
            let verdict = if comment(code) {
                (!comment(core) && !closes(core)).then_some(indent == above)
            } else if opens(code) {
                Some(if closes(core) {
                    indent == above
                } else {
                    indent > above
                })
            } else if closes(core) {
                (indent >= above).then_some(false)
            } else if indent > above {
                // A bracket left open with more of the line after it: the next
                // line aligns with what follows the bracket.
                match open_mid_line(code) {
                    Some(at) => Some(indent == above + code[..at].chars().count() + 1),
                    None => Some(continues(code)),
                }
            } else if indent < above
                && [".", "&&", "||", "+", "|", "?", "or ", "and "]
                    .iter()
                    .any(|t| core.starts_with(t))
            {
                Some(closes(code))
            } else if code.ends_with(';') && indent > statement && !comment(core) {
                Some(false)
            } else {
                None
            };
            match verdict {
                Some(true) => fit.agree += 1,
                Some(false) => fit.disagree += 1,
                None => {}
            }
        }
        let starts = match prev {
            Some((_, code, _)) => {
                !(continues(code) || CONTINUED.iter().any(|t| core.starts_with(t)))
                    || code.ends_with(';')
            }
            None => true,
        };
        if starts && !comment(core) {
            statement = indent;
        }
        prev = Some((indent, core, side));
    }
    fit
}

/// A Python block header: a compound statement's keyword, and a colon ending
/// the line (before a comment).
fn python_header(core: &str) -> bool {
    const KEYWORDS: [&str; 12] = [
        "def", "class", "if", "elif", "else", "for", "while", "try", "except", "finally", "with",
        "async",
    ];
    let code = match core.find(" #") {
        Some(at) => core[..at].trim_end(),
        None => core,
    };
    let word: String = code
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    // `else`, `try` and `finally` take nothing before their colon; a line that
    // closes more brackets than it opens ends a condition begun above.
    let bare = matches!(word.as_str(), "else" | "try" | "finally");
    let balance =
        |open: char, close: char| code.matches(open).count() == code.matches(close).count();
    code.ends_with(':')
        && KEYWORDS.contains(&word.as_str())
        && (!bare || code[word.len()..].trim_start() == ":")
        && balance('(', ')')
        && balance('[', ']')
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Before,
    New,
    After,
}

/// An opening bracket not closed yet: the closer it expects, its line's
/// indentation in columns, which side of the edge it is on, and whether it ends
/// its line (opens a block, so its closing line stands under it).
type Open = (u8, usize, Side, bool);

fn scan_brackets(line: &str, side: Side, stack: &mut Vec<Open>, fit: &mut Fit) {
    let p = parts(line);
    // A comment line of the shell or Python (`# …`); Rust's `#[…]` and `#!` are code.
    if p.core.starts_with('#') && !p.core.starts_with("#[") && !p.core.starts_with("#!") {
        return;
    }
    let indent = columns(p.indent, 4);
    let b = p.core.as_bytes();
    let mut tokens: Vec<(usize, u8)> = Vec::new();
    let mut end = b.len();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' => {
                let ident = b[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                    .count();
                if b.get(i + 1) == Some(&b'\\') && b.get(i + 3) == Some(&b'\'') {
                    // An escaped character literal ('\'', '\n').
                    i += 3;
                } else if ident > 0 && b.get(i + 1 + ident) != Some(&b'\'') {
                    // A lifetime or a label ('a, 'static): no closing quote.
                    i += ident;
                } else if let Some(k) = b[i + 1..].iter().position(|&c| c == b'\'') {
                    // A quoted run ('{', a shell's '*}'), to its closing quote.
                    i += k + 1;
                }
            }
            // `//` opens a comment at the start or after a blank, not inside a
            // word (a shell's `${x//a/b}`, a URL).
            b'/' if b.get(i + 1) == Some(&b'/') && (i == 0 || is_indent_byte(b[i - 1])) => {
                end = i;
                break;
            }
            c @ (b'{' | b'(' | b'[' | b'}' | b')' | b']') => tokens.push((i, c)),
            _ => {}
        }
        i += 1;
    }
    let last = b[..end].iter().rposition(|c| !is_indent_byte(*c));
    for (at, c) in tokens {
        let close = match c {
            b'{' => b'}',
            b'(' => b')',
            b'[' => b']',
            _ => {
                // A closer that is not the innermost opener's is left alone: the
                // scan is a witness, not a parser.
                if stack.last().is_none_or(|e| e.0 != c) {
                    continue;
                }
                let Some((_, opened_at, opened_on, block)) = stack.pop() else {
                    continue;
                };
                // Pairs that involve the replacement: across its edges, and
                // within it (its first line may be placed apart from the rest).
                let involves = side == Side::New || opened_on == Side::New;
                if at == 0 && block && involves {
                    if opened_at == indent {
                        fit.agree += 1;
                    } else {
                        fit.disagree += 1;
                    }
                }
                continue;
            }
        };
        stack.push((close, indent, side, Some(at) == last));
    }
}

/// Where two candidate texts for `hay[start..]` first differ: the 1-based line of
/// the edited file and that line in each.
fn first_difference(hay: &str, a: &Replacement, b: &Replacement) -> (usize, String, String) {
    let base = hay[..a.start.min(b.start)].matches('\n').count();
    let (la, lb): (Vec<&str>, Vec<&str>) =
        (a.text.split('\n').collect(), b.text.split('\n').collect());
    let i = la
        .iter()
        .zip(&lb)
        .position(|(x, y)| x != y)
        .unwrap_or(la.len().min(lb.len()));
    (
        base + i + 1,
        la.get(i).copied().unwrap_or_default().to_string(),
        lb.get(i).copied().unwrap_or_default().to_string(),
    )
}

/// The bracket `code` leaves open when more of the line follows it (its byte
/// offset): the next line is aligned with what follows the bracket, at any
/// depth.
fn open_mid_line(code: &str) -> Option<usize> {
    open_bracket(code).filter(|&at| at + 1 < code.len())
}

/// The byte offset of the innermost bracket `code` leaves open, if any.
/// Double-quoted strings are skipped (a single quote is as often a Rust
/// lifetime or an apostrophe as a string).
fn open_bracket(code: &str) -> Option<usize> {
    let (mut open, mut quoted, mut escaped) = (Vec::new(), false, false);
    for (at, c) in code.char_indices() {
        if quoted {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => quoted = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            '(' | '[' | '{' => open.push(at),
            ')' | ']' | '}' => {
                open.pop();
            }
            _ => {}
        }
    }
    open.pop()
}

/// How many of the lines `r` replaces in `hay` it keeps unchanged, as a diff of
/// the two counts them.
fn lines_kept(hay: &str, r: &Replacement) -> usize {
    let old: Vec<&str> = hay[r.start..r.end].lines().collect();
    let new: Vec<&str> = r.text.lines().collect();
    similar::capture_diff_slices(Algorithm::Myers, &old, &new)
        .iter()
        .map(|op| match op {
            DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum()
}

/// For each line of `new`, the line of `old` it repeats unchanged, if any.
fn kept_lines(old: &Snippet<'_>, new: &Snippet<'_>) -> Vec<Option<usize>> {
    let mut kept = vec![None; new.lines.len()];
    for op in similar::capture_diff_slices(Algorithm::Myers, &old.lines, &new.lines) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for d in 0..len {
                kept[new_index + d] = Some(old_index + d);
            }
        }
    }
    kept
}

/// The replacement for one place: kept lines as the file has them, the others
/// through the place's mappings. `Err` names a `newText` line (1-based) that the
/// indentation mapping cannot place.
fn write_place(
    lines: &Lines<'_>,
    old: &Snippet<'_>,
    new: &Snippet<'_>,
    kept: &[Option<usize>],
    place: &Place,
    frame: Frame,
    context: bool,
) -> Result<Replacement, usize> {
    let k = old.lines.len();
    let last = place.first + k - 1;
    let file_ends_line = lines.full_end(last) > lines.content_end(last);
    let start = lines.starts[place.first];
    let end = if old.newline {
        lines.full_end(last)
    } else {
        lines.content_end(last)
    };
    // A patch says exactly what it adds: its added lines keep the trailing
    // whitespace they were written with (the file's own trailing whitespace is
    // kept on its context lines above).
    let trail = |t| if context { t } else { place.trail.apply(t) };
    let mut text = String::new();
    for (j, line) in new.lines.iter().enumerate() {
        if j > 0 {
            text.push('\n');
        }
        let p = parts(line);
        if let Some(i) = kept[j] {
            // A kept line is the file's line, unless newText is in the file's
            // frame and moved the line to another depth (its indentation, as
            // written, is then not the file's there). A patch's context line is
            // the file's line whatever the frame.
            let file_line = lines.line(place.first + i);
            if context || frame == Frame::Old || p.blank() || parts(file_line).indent == p.indent {
                text.push_str(file_line);
                continue;
            }
        }
        if p.blank() {
            text.push_str(trail(p.trail));
            continue;
        }
        if frame == Frame::File {
            text.push_str(p.indent);
            text.push_str(p.core);
            text.push_str(trail(p.trail));
            continue;
        }
        let indent = match (&place.first_pair, j) {
            (Some((old_first, file_first)), 0) => match p.indent.strip_prefix(old_first.as_str()) {
                Some(rest) => Some(format!("{file_first}{rest}")),
                None => place.indent.apply(p.indent),
            },
            _ => place.indent.apply(p.indent),
        };
        let Some(indent) = indent else {
            return Err(j + 1);
        };
        text.push_str(&indent);
        text.push_str(p.core);
        text.push_str(trail(p.trail));
    }
    // The file's last line had no line break: the caller's final one stands for
    // the end of the file, not for a new break.
    if new.newline && (file_ends_line || !old.newline) {
        text.push('\n');
    }
    Ok(Replacement { start, end, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A patch's hunk at one place: oldText, newText and the context map, as
    /// `plan_hunks` gives them.
    fn hunk(hay: &str, lines: &[(char, &str)]) -> String {
        let (mut old, mut new, mut context) = (String::new(), String::new(), Vec::new());
        let mut old_index = 0;
        for (tag, text) in lines {
            if *tag != '+' {
                old.push_str(text);
                old.push('\n');
            }
            if *tag != '-' {
                new.push_str(text);
                new.push('\n');
                context.push((*tag == ' ').then_some(old_index));
            }
            if *tag != '+' {
                old_index += 1;
            }
        }
        let scope = Scope {
            context: Some(&context),
            ..Scope::WHOLE
        };
        match match_lines(hay, &old, &new, false, &scope) {
            LineOutcome::Applied { replacements, .. } => {
                let r = &replacements[0];
                format!("{}{}{}", &hay[..r.start], r.text, &hay[r.end..])
            }
            other => panic!("not applied: {other:?}"),
        }
    }

    #[test]
    fn a_hunk_written_shallow_throughout_is_placed_at_the_files_depth() {
        let hay = "fn f(x: Option<u8>) -> u8 {\n    match x {\n        None => 0,\n        // Rest.\n        _ => 2,\n    }\n}\n";
        let got = hunk(
            hay,
            &[
                (' ', "match x {"),
                (' ', "    None => 0,"),
                ('+', "    // Large values."),
                ('+', "    Some(v) if v > 9 => large(v),"),
                (' ', "    // Rest."),
                (' ', "    _ => 2,"),
            ],
        );
        assert_eq!(
            got,
            "fn f(x: Option<u8>) -> u8 {\n    match x {\n        None => 0,\n        // Large values.\n        Some(v) if v > 9 => large(v),\n        // Rest.\n        _ => 2,\n    }\n}\n"
        );
    }

    #[test]
    fn a_hunk_whose_context_alone_is_shallow_keeps_its_added_lines() {
        let hay = "fn f() {\n    let a = 1;\n    if a > 0 {\n        go(a);\n    }\n}\n";
        let got = hunk(
            hay,
            &[
                (' ', "let a = 1;"),
                ('+', "    let b = 2;"),
                (' ', "if a > 0 {"),
                (' ', "    go(a);"),
            ],
        );
        assert_eq!(
            got,
            "fn f() {\n    let a = 1;\n    let b = 2;\n    if a > 0 {\n        go(a);\n    }\n}\n"
        );
    }

    #[test]
    fn a_chain_ended_by_its_semicolon_is_followed_at_the_statements_depth() {
        let hay = "fn f() {\n    {\n        use std::io::Write;\n    }\n    done();\n}\n";
        let got = hunk(
            hay,
            &[
                (' ', "{"),
                (' ', "    use std::io::Write;"),
                ('+', "    out"),
                ('+', "        .flush()"),
                ('+', "        .unwrap();"),
                (' ', "}"),
            ],
        );
        assert_eq!(
            got,
            "fn f() {\n    {\n        use std::io::Write;\n        out\n            .flush()\n            .unwrap();\n    }\n    done();\n}\n"
        );
    }

    #[test]
    fn a_removed_line_that_comes_back_was_moved_not_kept() {
        // Written one level shallow throughout: the copy of the removed line,
        // read at the file's depth, would equal it, and a diff would have kept it
        // as context; it came back deeper, under the new `else:`.
        let hay = "def f(xs, st):\n    for x in xs:\n        k = key(x)\n        st[k] += 1\n        done(x)\n";
        let got = hunk(
            hay,
            &[
                (' ', "    k = key(x)"),
                ('-', "    st[k] += 1"),
                ('+', "    if skip(x):"),
                ('+', "        st[\"skip\"][k] += 1"),
                ('+', "    else:"),
                ('+', "        st[k] += 1"),
                (' ', "    done(x)"),
            ],
        );
        assert_eq!(
            got,
            "def f(xs, st):\n    for x in xs:\n        k = key(x)\n        if skip(x):\n            st[\"skip\"][k] += 1\n        else:\n            st[k] += 1\n        done(x)\n"
        );
    }

    #[test]
    fn a_line_continuing_an_open_bracket_aligns_with_it() {
        let hay = "def f(s):\n    if True:\n        if any(s[c] or s[d]\n               for c in C):\n            go()\n";
        let want = "def f(s):\n    if True:\n        if any(s[c] or s[d]\n               or s[e]\n               for c in C):\n            go()\n";
        // The whole hunk one level shallow (the frame of its own lines)...
        let shallow = hunk(
            hay,
            &[
                (' ', "    if any(s[c] or s[d]"),
                ('+', "           or s[e]"),
                (' ', "           for c in C):"),
                (' ', "        go()"),
            ],
        );
        assert_eq!(shallow, want);
        // ...and its context alone shallow, the added line at the file's depth.
        let context = hunk(
            hay,
            &[
                (' ', "if any(s[c] or s[d]"),
                ('+', "               or s[e]"),
                (' ', "       for c in C):"),
                (' ', "    go()"),
            ],
        );
        assert_eq!(context, want);
    }

    #[test]
    fn a_patch_keeps_the_trailing_whitespace_it_adds() {
        // The writer put a trailing blank on the removed line the file does not
        // have; the added line's is meant all the same: it stays.
        let hay = "a\nb\n";
        let got = hunk(hay, &[('-', "a "), ('+', "c "), (' ', "b")]);
        assert_eq!(got, "c \nb\n");
    }

    #[test]
    fn python_headers_are_whole_statements() {
        assert!(python_header("else:"));
        assert!(python_header("if x in (1, 2):"));
        assert!(!python_header("else occurs(state, r[0])):"));
        assert!(!python_header("else x:"));
        assert!(!python_header("if f(a,"));
    }

    fn run(hay: &str, old: &str, new: &str) -> LineOutcome {
        match_lines(hay, old, new, false, &Scope::WHOLE)
    }

    fn applied(hay: &str, old: &str, new: &str) -> (MatchStage, String) {
        match run(hay, old, new) {
            LineOutcome::Applied {
                stage,
                replacements,
            } => {
                let mut out = String::new();
                let mut prev = 0;
                for r in replacements {
                    out.push_str(&hay[prev..r.start]);
                    out.push_str(&r.text);
                    prev = r.end;
                }
                out.push_str(&hay[prev..]);
                (stage, out)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn parts_split_indent_core_and_trail() {
        let p = parts("\t  let x = 1; \t");
        assert_eq!((p.indent, p.core, p.trail), ("\t  ", "let x = 1;", " \t"));
        let p = parts("   ");
        assert!(p.blank());
        assert_eq!(p.trail, "   ");
        assert!(parts("").blank());
    }

    #[test]
    fn snippets_know_their_final_break() {
        let s = Snippet::new("a\nb\n");
        assert_eq!((s.lines, s.newline), (vec!["a", "b"], true));
        let s = Snippet::new("a");
        assert_eq!((s.lines, s.newline), (vec!["a"], false));
        let s = Snippet::new("\n");
        assert_eq!((s.lines, s.newline), (vec![""], true));
        assert!(Snippet::new("").lines.is_empty());
    }

    #[test]
    fn indent_maps_are_inferred_and_applied() {
        let m = IndentMap::infer(&[("", "    "), ("    ", "        ")]).unwrap();
        assert_eq!(m.apply("  ").unwrap(), "      ");
        let m = IndentMap::infer(&[("        ", "    "), ("            ", "        ")]).unwrap();
        assert_eq!(m.apply("    ").unwrap(), "");
        assert_eq!(m.apply("").as_deref(), None);
        // Spaces in the snippet, tabs in the file: columns at width 4.
        let m = IndentMap::infer(&[("    ", "\t"), ("        ", "\t\t")]).unwrap();
        assert_eq!(m.apply("            ").unwrap(), "\t\t\t");
        // One level only still maps deeper levels by columns, not by prefix.
        let m = IndentMap::infer(&[("    ", "\t"), ("    ", "\t")]).unwrap();
        assert_eq!(m.apply("        ").unwrap(), "\t\t");
        // Tabs in the snippet, spaces in the file.
        let m = IndentMap::infer(&[("\t", "    "), ("\t\t", "        ")]).unwrap();
        assert_eq!(m.apply("\t\t\t").unwrap(), "            ");
        // Structure that differs has no mapping.
        assert_eq!(IndentMap::infer(&[("", ""), ("    ", "")]), None);
        assert_eq!(
            IndentMap::infer(&[("", "  "), ("  ", "    "), ("  ", "      ")]),
            None
        );
    }

    #[test]
    fn trailing_whitespace_is_ignored_and_kept_as_the_file_has_it() {
        let hay = "fn f() {   \n    a();\n}\n";
        let (stage, out) = applied(hay, "fn f() {\n    a();\n", "fn f() {\n    b();\n");
        assert_eq!(stage, MatchStage::LineTrimmed);
        assert_eq!(out, "fn f() {   \n    b();\n}\n");
        // Spaces the snippet added everywhere are not written either.
        let (_, out) = applied(
            "x = 1\ny = 2\n",
            "x = 1 \ny = 2 \n",
            "x = 1 \ny = 3 \nz = 4 \n",
        );
        assert_eq!(out, "x = 1\ny = 3\nz = 4\n");
    }

    #[test]
    fn newtext_at_the_files_indentation_is_written_as_it_stands() {
        let hay = "impl A {\n    fn f(&self) {\n        one();\n    }\n}\n";
        // oldText dedented, newText as the file has it (read, then rewritten).
        let (stage, out) = applied(
            hay,
            "fn f(&self) {\n    one();\n}\n",
            "    fn f(&self) {\n        two();\n    }\n",
        );
        assert_eq!(stage, MatchStage::IndentShifted);
        assert_eq!(
            out,
            "impl A {\n    fn f(&self) {\n        two();\n    }\n}\n"
        );
        // The same edit with newText in oldText's frame: shifted like oldText.
        let (_, out) = applied(
            hay,
            "fn f(&self) {\n    one();\n}\n",
            "fn f(&self) {\n    two();\n}\n",
        );
        assert_eq!(
            out,
            "impl A {\n    fn f(&self) {\n        two();\n    }\n}\n"
        );
        // The first line's indentation cut from oldText only.
        let (stage, out) = applied(
            hay,
            "fn f(&self) {\n        one();\n",
            "    fn f(&self) {\n        one();\n        two();\n",
        );
        assert_eq!(stage, MatchStage::FirstLineIndent);
        assert_eq!(
            out,
            "impl A {\n    fn f(&self) {\n        one();\n        two();\n    }\n}\n"
        );
        // ... and from both texts.
        let (_, out) = applied(
            hay,
            "fn f(&self) {\n        one();\n",
            "fn f(&self) {\n        one();\n        two();\n",
        );
        assert_eq!(
            out,
            "impl A {\n    fn f(&self) {\n        one();\n        two();\n    }\n}\n"
        );
    }

    #[test]
    fn a_call_with_rewritten_arguments_is_a_version_of_the_line() {
        assert!(alike(
            ".is_some_and(|w| command::TREELESS_META.contains(&w));",
            ".is_some_and(command::treeless_meta);"
        ));
        assert!(alike(
            "assert_eq!(a, b);",
            "assert_eq!(out.code(), Some(1));"
        ));
        // Short heads and heads that are not a bare name say nothing.
        assert!(!alike("Some(first_value_here)", "Some(x)"));
        assert!(!alike("if (ready && waiting) {", "if (done) {"));
        assert!(!alike("value.unwrap_or(0)", "other.expect(\"x\")"));
    }

    #[test]
    fn a_frame_nothing_decides_is_refused_with_both_readings() {
        // No line of newText repeats one of oldText, and its outermost level is
        // neither oldText's nor the file's: either reading could be meant.
        let hay = "a {\n    b {\n        c;\n    }\n}\n";
        match run(hay, "b {\n    c;\n}\n", "  x;\n") {
            LineOutcome::FrameAmbiguous {
                line,
                as_written,
                shifted,
                ..
            } => {
                assert_eq!(line, 2);
                assert_eq!(as_written, "  x;");
                assert_eq!(shifted, "      x;");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_dedented_snippet_is_written_at_the_files_depth() {
        let hay =
            "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        pass\n";
        let (stage, out) = applied(
            hay,
            "def f(self):\n    return 1\n",
            "def f(self):\n    if self:\n        return 2\n    return 1\n",
        );
        assert_eq!(stage, MatchStage::IndentShifted);
        assert_eq!(
            out,
            "class A:\n    def f(self):\n        if self:\n            return 2\n        return 1\n\n    def g(self):\n        pass\n"
        );
    }

    #[test]
    fn a_first_line_without_its_indentation() {
        let hay = "fn main() {\n    if x {\n        go();\n    }\n}\n";
        let (stage, out) = applied(
            hay,
            "if x {\n        go();\n    }\n",
            "if y {\n        stop();\n    }\n",
        );
        assert_eq!(stage, MatchStage::FirstLineIndent);
        assert_eq!(out, "fn main() {\n    if y {\n        stop();\n    }\n}\n");
    }

    #[test]
    fn a_read_gutter_is_stripped() {
        let hay = "a\n    b\nc\n";
        let (stage, out) = applied(
            hay,
            "     2\t    b\n     3\tc\n",
            "     2\t    B\n     3\tc\n",
        );
        assert_eq!(stage, MatchStage::GutterStripped);
        assert_eq!(out, "a\n    B\nc\n");
        // Numbers that do not count up are not a gutter.
        assert_eq!(strip_gutter("     2\ta\n     5\tb\n", true), None);
        assert_eq!(strip_gutter("2\ta\n3\t\n", true).unwrap(), "a\n\n");
    }

    #[test]
    fn typography_is_read_as_ascii_and_the_file_keeps_its_own() {
        let hay = "say(\u{201C}hi\u{201D}) \u{2013} ok\nnext\n";
        let (stage, out) = applied(hay, "say(\"hi\") - ok\nnext\n", "say(\"hi\") - ok\nlast\n");
        assert_eq!(stage, MatchStage::Typography);
        assert_eq!(out, "say(\u{201C}hi\u{201D}) \u{2013} ok\nlast\n");
    }

    #[test]
    fn several_places_are_ambiguous_with_their_lines() {
        let hay = "fn a() {\n    if x {\n    }\n}\nfn b() {\n        if x {\n        }\n}\n";
        assert_eq!(
            run(hay, "if x {\n}\n", "if y {\n}\n"),
            LineOutcome::Ambiguous {
                stage: MatchStage::IndentShifted,
                lines: vec![2, 6],
                overlapping: false
            }
        );
        // Overlapping places are refused even with replaceAll.
        let hay = "}\n}\n}\n";
        assert_eq!(
            match_lines(hay, " }\n }\n", "]\n]\n", true, &Scope::WHOLE),
            LineOutcome::Ambiguous {
                stage: MatchStage::IndentShifted,
                lines: vec![1, 2],
                overlapping: true
            }
        );
    }

    #[test]
    fn a_line_the_mapping_cannot_place_is_refused() {
        let hay = "a\nb\n";
        assert_eq!(
            run(hay, "        a\n        b\n", "    x\n        b\n"),
            LineOutcome::Unplaceable {
                stage: MatchStage::IndentShifted,
                new_line: 1
            }
        );
    }

    #[test]
    fn the_files_last_line_without_a_break_stays_so() {
        let (_, out) = applied("x\n  y", "x \n  y\n", "x \n  z\n");
        assert_eq!(out, "x\n  z");
    }

    #[test]
    fn brackets_tell_the_frame_when_the_texts_do_not() {
        // A replacement that closes the block and opens another: its `}` stands
        // under the `if` it closes only as written.
        let hay = "fn main() {\n    let a = 1;\n    if a > 0 {\n        run(a);\n        stop();\n    }\n}\n";
        let new = "        finish();\n    }\n    if b {\n        more();\n";
        let (_, out) = applied(hay, "run(a);\nstop();\n", new);
        assert_eq!(
            out,
            "fn main() {\n    let a = 1;\n    if a > 0 {\n        finish();\n    }\n    if b {\n        more();\n    }\n}\n"
        );
    }

    #[test]
    fn brackets_outweigh_the_first_and_outermost_lines() {
        // First line and outermost depth say "as written", but the file's `}` after
        // the place closes the `} else {` only when it is shifted.
        let hay = "fn f() {\n    // Look first.\n    if let Ok(md) = d.metadata() {\n        if md.hidden() {\n            return true;\n        }\n    }\n    false\n}\n";
        let old = "// Look first.\nif let Ok(md) = d.metadata() {\n    if md.hidden() {\n";
        let new = "    if let Some(n) = d.name() {\n        n.starts_with('.')\n    } else {\n        false\n";
        let (_, out) = applied(hay, old, new);
        assert_eq!(
            out,
            "fn f() {\n        if let Some(n) = d.name() {\n            n.starts_with('.')\n        } else {\n            false\n            return true;\n        }\n    }\n    false\n}\n"
        );
    }

    #[test]
    fn the_bracket_witness_skips_strings_characters_and_comments() {
        let hay = "fn f() {\n    let s = \"{ ( [\";\n    let c = '{';\n    // } ) ]\n    x();\n}\n";
        let at = hay.find("    x();").unwrap();
        let r = |text: &str| Replacement {
            start: at,
            end: at + "    x();\n".len(),
            text: text.to_string(),
        };
        // `}` under `fn f() {` agrees; one level in, it does not.
        assert_eq!(
            bracket_fit(hay, &r("}\nfn g() {\n")),
            Fit {
                agree: 2,
                disagree: 0
            }
        );
        assert_eq!(
            bracket_fit(hay, &r("    }\n    fn g() {\n")),
            Fit {
                agree: 0,
                disagree: 2
            }
        );
        assert_eq!(bracket_fit(hay, &r("    y();\n")), Fit::default());
        // A shell's `${x//a/b}` is no comment and its quoted `'*}'` no closer;
        // a brace that does not end its line opens no block.
        let sh = "f() {\n  x=1\n}\n";
        let at = sh.find("  x=1").unwrap();
        let r = |text: &str| Replacement {
            start: at,
            end: at + "  x=1\n".len(),
            text: text.to_string(),
        };
        assert_eq!(
            bracket_fit(sh, &r("e=( ${e//:/\\:} )\ncompset -P '*}'\n")),
            Fit::default()
        );
        assert_eq!(bracket_fit(sh, &r("  if x; then { y\n")), Fit::default());
        assert_eq!(
            bracket_fit(sh, &r("  g() {\n")),
            Fit {
                agree: 0,
                disagree: 1
            }
        );
    }
}
