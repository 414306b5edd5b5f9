//! The line model the whole-line stages share: a text's lines as offsets
//! ([`Lines`]), a snippet's lines, a line split into indentation, core and
//! trailing whitespace ([`parts`]), typography read as ASCII, tab columns, the
//! indentation and trailing-space mappings a match shows ([`IndentMap`],
//! [`TrailMap`]), the frame `newText` is written in, and a place or replacement
//! a stage found. The stages and the frame witnesses both build on it.

use std::borrow::Cow;
use std::collections::HashMap;

/// A replacement found by a whole-line stage: view offsets and the LF text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replacement {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// The frame `newText`'s indentation is written in, at one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Frame {
    /// `oldText`'s: every line goes through the place's indentation mapping.
    Old,
    /// The file's: lines stand at the indentation they were written with (the way
    /// a model writes the replacement after reading the file).
    File,
}

/// A text's lines as offsets, the view the stages index.
pub(super) struct Lines<'a> {
    pub(super) text: &'a str,
    /// Start offset of each line; a final `\n` opens no line of its own.
    pub(super) starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Self {
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

    pub(super) fn len(&self) -> usize {
        self.starts.len()
    }

    /// The end of line `i`'s content (before its `\n`).
    pub(super) fn content_end(&self, i: usize) -> usize {
        match self.starts.get(i + 1) {
            Some(&next) => next - 1,
            None => match self.text.as_bytes().last() {
                Some(b'\n') => self.text.len() - 1,
                _ => self.text.len(),
            },
        }
    }

    /// The end of line `i` including its `\n`, if it has one.
    pub(super) fn full_end(&self, i: usize) -> usize {
        self.starts.get(i + 1).copied().unwrap_or(self.text.len())
    }

    pub(super) fn line(&self, i: usize) -> &'a str {
        &self.text[self.starts[i]..self.content_end(i)]
    }

    /// The line holding byte `at`.
    pub(super) fn index_of(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at) - 1
    }
}

/// A snippet (`oldText` or `newText`) as lines without their `\n`.
#[derive(Debug, Clone)]
pub(super) struct Snippet<'a> {
    pub(super) lines: Vec<&'a str>,
    /// The snippet ended with a line break.
    pub(super) newline: bool,
}

impl<'a> Snippet<'a> {
    pub(super) fn new(text: &'a str) -> Self {
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

pub(super) fn is_indent_byte(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// A line as indentation, core and trailing whitespace. A blank line is all
/// trailing whitespace.
#[derive(Debug, Clone, Copy)]
pub(super) struct Parts<'a> {
    pub(super) indent: &'a str,
    pub(super) core: &'a str,
    pub(super) trail: &'a str,
}

impl Parts<'_> {
    pub(super) fn blank(&self) -> bool {
        self.core.is_empty()
    }
}

pub(super) fn parts(line: &str) -> Parts<'_> {
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
pub(super) fn ascii_typography(text: &str) -> Cow<'_, str> {
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
pub(super) fn columns(indent: &str, width: usize) -> usize {
    indent.bytes().fold(0, |c, b| {
        if b == b'\t' {
            (c / width + 1) * width
        } else {
            c + 1
        }
    })
}

pub(super) fn render_columns(cols: usize, width: usize, tabs: bool) -> String {
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
pub(super) enum IndentMap {
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
    pub(super) fn infer(pairs: &[(&str, &str)]) -> Option<IndentMap> {
        if pairs.iter().all(|(o, f)| o == f) {
            return Some(IndentMap::Same);
        }
        let uses = |old_side: bool, b: u8| {
            pairs.iter().any(|(o, f)| {
                let side = if old_side { o } else { f };
                side.as_bytes().contains(&b)
            })
        };
        // oldText indents with a character the file does not use there: tabs for
        // spaces or spaces for tabs, read as columns. An oldText cut to no
        // indentation uses none: its lines take the file's prefix, alignment
        // spaces after a tab included.
        let styles_differ =
            (uses(true, b'\t') && !uses(false, b'\t')) || (uses(true, b' ') && !uses(false, b' '));
        if styles_differ {
            Self::columns(pairs).or_else(|| Self::prefix(pairs))
        } else {
            Self::prefix(pairs).or_else(|| Self::columns(pairs))
        }
    }

    pub(super) fn prefix(pairs: &[(&str, &str)]) -> Option<IndentMap> {
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

    pub(super) fn columns(pairs: &[(&str, &str)]) -> Option<IndentMap> {
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
    pub(super) fn apply(&self, indent: &str) -> Option<String> {
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
pub(super) struct TrailMap {
    pub(super) map: HashMap<String, Option<String>>,
}

impl TrailMap {
    pub(super) fn learn(&mut self, old: &str, file: &str) {
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

    pub(super) fn apply<'a>(&'a self, trail: &'a str) -> &'a str {
        match self.map.get(trail) {
            Some(Some(file)) => file,
            _ => trail,
        }
    }
}

/// How the stages relate indentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Indentation {
    Equal,
    Shifted,
    FirstLineFree,
}

/// One place a stage found, with what it learned there.
#[derive(Debug, Clone)]
pub(super) struct Place {
    /// 0-based file line where the place starts.
    pub(super) first: usize,
    pub(super) indent: IndentMap,
    /// The first line's own indentation pair, for `FirstLineFree`.
    pub(super) first_pair: Option<(String, String)>,
    pub(super) trail: TrailMap,
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
pub(super) fn same_call_head(a: &str, b: &str) -> bool {
    fn head(s: &str) -> Option<&str> {
        s.find('(').map(|i| &s[..i]).filter(|h| {
            h.len() >= 5
                && h.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '!'))
        })
    }
    matches!((head(a), head(b)), (Some(x), Some(y)) if x == y)
}

/// Start offsets of every line.
pub(super) fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
    if starts.len() > 1 && *starts.last().unwrap() == text.len() {
        starts.pop();
    }
    starts
}

/// A C preprocessor directive, which stands at column 0 whatever the code's
/// depth (`#ifdef`, `#endif`); a comment (`# note`) is not one.
pub(super) fn directive(line: &str) -> bool {
    let word: String = line
        .strip_prefix('#')
        .unwrap_or("")
        .trim_start()
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect();
    line.starts_with('#')
        && matches!(
            word.as_str(),
            "if" | "ifdef"
                | "ifndef"
                | "elif"
                | "else"
                | "endif"
                | "define"
                | "undef"
                | "include"
                | "pragma"
                | "error"
                | "warning"
                | "line"
        )
}

/// Brackets a line of code opens minus those it closes (strings not skipped:
/// a witness's count, not a parser's): above 0 the line leaves one open (`if (a
/// &&`), below 0 it ends one opened above (`b);`).
pub(super) fn bracket_balance(code: &str) -> isize {
    let count = |cs: [char; 3]| code.chars().filter(|c| cs.contains(c)).count() as isize;
    count(['(', '[', '{']) - count([')', ']', '}'])
}

/// A line whose last word opens a block in the languages that spell blocks
/// with words (`then`, `do`, `else`, `in`, `begin`).
pub(super) fn ends_with_block_keyword(code: &str) -> bool {
    let last = code.rsplit([' ', ';']).next().unwrap_or("");
    matches!(last, "then" | "do" | "else" | "in" | "begin")
}
