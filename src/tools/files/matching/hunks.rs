//! apply_patch's hunk matcher: each hunk of a file placed on the ladder (the
//! exact lines first, then the whole-line stages), in order, after the hunk
//! before it and at its `@@` anchor, or at the end of the file for `*** End of
//! File`; a hunk that finds no place, or several, refuses with the hunk's own
//! words.

use super::applied::not_found;
use super::budget::Budget;
use super::codec::{View, lf_to_crlf, wants_crlf};
use super::lines::Lines;
use super::lines::line_starts;
use super::refusal::{EditFailure, line_numbers};
use super::stages::{LineOutcome, MatchStage, Scope, match_lines_within};
use memchr::memmem;
use std::borrow::Cow;
use std::collections::HashMap;

/// One hunk of a patch, for [`plan_hunks`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkSpec {
    /// The lines the file holds (context and removed), each ending in `\n`.
    pub old: String,
    /// The lines it will hold (context and added), each ending in `\n`.
    pub new: String,
    /// 0-based line where the old side starts, as the patch states it.
    pub at_line: Option<usize>,
    /// A line the hunk comes after (an envelope's `@@ anchor`).
    pub anchor: Option<String>,
    /// The old lines end the file (`*** End of File`).
    pub at_end: bool,
    /// The new side's last line has no line break (a unified diff's
    /// `\ No newline at end of file`), when the hunk reaches the file's end.
    pub new_no_newline: bool,
    /// For each line of `new`, the line of `old` it is when it is context.
    pub context: Vec<Option<usize>>,
}

/// Where a hunk went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkPlaced {
    pub stage: MatchStage,
    /// 1-based line of the file (before the patch) where the hunk's old side starts.
    pub line: usize,
    /// Lines between the stated line and where it was found (unified diffs).
    pub offset: Option<isize>,
}

/// Why a hunk could not be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkFailure {
    /// The `@@` anchor line is not in the file after the hunk before.
    Anchor { anchor: String },
    /// The hunk's old lines, as `edit` words an oldText it cannot place.
    Match(EditFailure),
}

impl HunkFailure {
    /// The refusal for hunk `n` (1-based) of `path`.
    pub fn message(&self, path: &str, n: usize) -> String {
        match self {
            HunkFailure::Anchor { anchor } => format!(
                "hunk {n}: its @@ line {anchor:?} was not found in {path} after the hunk before it."
            ),
            // `edit`'s wording, said of a hunk: its sides for oldText/newText,
            // and no `replaceAll`, which a patch does not have.
            HunkFailure::Match(f) => {
                let text = f
                    .message(path)
                    .replace("The edit appears", "The hunk appears")
                    .replace(", or set replaceAll to replace every occurrence", "")
                    .replace("surrounding context", "context lines")
                    .replace("oldText", "the old side")
                    .replace("newText", "the new side");
                format!("hunk {n}: {text}")
            }
        }
    }
}

/// A file's text after every hunk of it, and where each went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunksPlan {
    pub text: String,
    pub placed: Vec<HunkPlaced>,
}

/// Place every hunk of one file and build its new text: all or nothing, every
/// failure reported (by hunk index) rather than only the first.
///
/// Hunks are matched against the text as it is, in order: each one after the one
/// before it, and before the latest place the hunks after it can still take
/// (their exact places read from the end), so a context repeated elsewhere in
/// the file is told apart by the order the patch gives. Within that window the
/// ladder is `edit`'s: exact whole lines (the one at the stated line when there
/// are several, else the only one, its offset said), then the whole-line stages
/// with the same frame inference, the hunk's context lines kept as the file
/// has them. Two places left are a refusal naming both lines.
///
/// A file whose last line has no line break is matched as if it had one; the
/// break stays absent unless a hunk replaced that line (an envelope always
/// ends a changed file with one, as codex does; a unified diff says).
///
/// `keep_cr`: the hunks carry the file's `\r`s in their lines (a diff of a file
/// whose line endings are mixed), so the text is matched as its bytes are, not
/// through the CRLF-blind view.
pub fn plan_hunks(
    text: &str,
    hunks: &[HunkSpec],
    keep_cr: bool,
) -> Result<HunksPlan, Vec<(usize, HunkFailure)>> {
    plan_hunks_within(text, hunks, keep_cr, &Budget::default())
}

/// [`plan_hunks`], every hunk's whole-line stages spending the one `budget`
/// (the call's); once it is spent, each hunk left to match fuzzily is refused.
pub fn plan_hunks_within(
    text: &str,
    hunks: &[HunkSpec],
    keep_cr: bool,
    budget: &Budget,
) -> Result<HunksPlan, Vec<(usize, HunkFailure)>> {
    let view = view_of(text, keep_cr);
    let virtual_nl = !view.text.is_empty() && !view.text.ends_with('\n');
    let owned;
    let hay: &str = if virtual_nl {
        owned = format!("{}\n", view.text);
        &owned
    } else {
        view.text.as_ref()
    };
    let starts = line_starts(hay);
    let nlines = if hay.is_empty() { 0 } else { starts.len() };
    let line_of = |at: usize| starts.partition_point(|&s| s <= at).saturating_sub(1);
    // Exact places of each hunk: whole lines, at a line's start.
    let exact = exact_places(hay, &starts, hunks, nlines);
    let upper = latest_ends(&exact, hunks, nlines);
    // The file's lines, made once for every hunk that needs the stages.
    let mut file_lines: Option<Lines<'_>> = None;
    let mut failures = Vec::new();
    let mut spans: Vec<(usize, usize, String)> = Vec::new();
    let mut placed = Vec::new();
    let mut lo = 0usize;
    let mut carry: isize = 0;
    for (i, h) in hunks.iter().enumerate() {
        let from = match &h.anchor {
            None => lo,
            Some(anchor) => match after_anchor(hay, &starts, lo, anchor, h, budget) {
                Ok(from) => from,
                Err(failure) => {
                    let spent =
                        matches!(failure, HunkFailure::Match(EditFailure::TooCostly { .. }));
                    failures.push((i, failure));
                    if spent {
                        break;
                    }
                    continue;
                }
            },
        };
        let expected = h
            .at_line
            .map(|l| (l as isize + carry).clamp(0, nlines as isize) as usize);
        let at_offset = |line: usize| h.at_line.map(|l| line as isize - l as isize);
        if h.old.is_empty() {
            let line = addition_line(expected, h.anchor.is_some(), from, nlines);
            let at = starts.get(line).copied().unwrap_or(hay.len());
            spans.push((at, at, h.new.clone()));
            placed.push(HunkPlaced {
                stage: MatchStage::Exact,
                line: line + 1,
                offset: at_offset(line),
            });
            lo = line;
            continue;
        }
        let scope = Scope {
            from_line: from,
            to_line: upper[i].max(from),
            at_line: expected,
            at_end: h.at_end,
            context: Some(&h.context),
        };
        match place_in_window(hay, &starts, &exact[i], h, &scope, &mut file_lines, budget) {
            Ok((stage, s, e, new_text)) => {
                let line = line_of(s);
                if let Some(off) = at_offset(line) {
                    carry = off;
                }
                placed.push(HunkPlaced {
                    stage,
                    line: line + 1,
                    offset: at_offset(line),
                });
                lo = line_of(e.saturating_sub(1)).max(line) + usize::from(e > s);
                spans.push((s, e, new_text));
            }
            Err(f) => {
                let spent = matches!(f, EditFailure::TooCostly { .. });
                failures.push((i, HunkFailure::Match(f)));
                // The budget is the call's: the hunks after it are not tried.
                if spent {
                    break;
                }
            }
        }
    }
    if !failures.is_empty() {
        return Err(failures);
    }
    if let Some(overlap) = addition_inside(&spans, line_of) {
        return Err(vec![overlap]);
    }
    let out = splice_hunks(text, &view, hay.len(), hunks, spans);
    Ok(HunksPlan { text: out, placed })
}

/// The text hunks are matched against: the file's very bytes when the hunks
/// carry its `\r`s (line endings mixed), else the CRLF-blind view, so that a
/// hunk's lines compare with the file's as they were written.
fn view_of(text: &str, keep_cr: bool) -> View<'_> {
    if keep_cr {
        View {
            text: Cow::Borrowed(text),
            crs: Vec::new(),
        }
    } else {
        View::new(text)
    }
}

/// Where a pure addition goes, having no old lines to be found by: at the
/// stated line (not before `from`), after the anchor, or at the end.
fn addition_line(expected: Option<usize>, anchored: bool, from: usize, nlines: usize) -> usize {
    match (expected, anchored) {
        (Some(l), _) => l.max(from),
        (None, true) => from,
        (None, false) => nlines,
    }
}

/// A hunk's place within its window (`scope`): the one exact place there, or
/// the one at the stated line among several; with none, the whole-line
/// stages'. Several exact places with none stated is a refusal, never a guess.
fn place_in_window<'h>(
    hay: &'h str,
    starts: &[usize],
    exact: &[usize],
    h: &HunkSpec,
    scope: &Scope<'_>,
    file_lines: &mut Option<Lines<'h>>,
    budget: &Budget,
) -> Result<(MatchStage, usize, usize, String), EditFailure> {
    let nlines = if hay.is_empty() { 0 } else { starts.len() };
    let k = h.old.matches('\n').count();
    let (from, to, expected) = (scope.from_line, scope.to_line, scope.at_line);
    let fits = |c: usize| c >= from && c + k <= to;
    let mut exact_here: Vec<usize> = exact.iter().copied().filter(|&c| fits(c)).collect();
    if exact_here.len() > 1
        && let Some(e) = expected.filter(|e| exact_here.contains(e))
    {
        exact_here = vec![e];
    }
    match exact_here[..] {
        [c] => {
            let s = starts[c];
            Ok((MatchStage::Exact, s, s + h.old.len(), h.new.clone()))
        }
        [] => {
            let lines = file_lines.get_or_insert_with(|| Lines::new(hay));
            let outcome = match_lines_within(lines, &h.old, &h.new, false, scope, budget);
            hunk_outcome(outcome, hay, h, nlines, budget)
        }
        _ => Err(EditFailure::FoundMany {
            count: exact_here.len(),
            lines: exact_here.iter().map(|c| c + 1).collect(),
            stage: MatchStage::Exact,
            overlapping: false,
        }),
    }
}

/// The latest line each hunk may end before: the latest exact place of the
/// hunk after it that fits before the one after that. Read from the end, so
/// that an early hunk does not take a place a later one needs.
fn latest_ends(exact: &[Vec<usize>], hunks: &[HunkSpec], nlines: usize) -> Vec<usize> {
    let mut upper = vec![nlines; hunks.len()];
    let mut bound = nlines;
    for i in (0..hunks.len()).rev() {
        upper[i] = bound;
        let k = hunks[i].old.matches('\n').count();
        if let Some(&latest) = exact[i].iter().rev().find(|&&c| c + k <= bound) {
            bound = latest;
        }
    }
    upper
}

/// The line a hunk's search starts at after its `@@ anchor` (searched from
/// `from`, the end of the hunk before), exactly or as a model may have retyped
/// it; apart because the anchor can fail a hunk before its lines are looked at.
fn after_anchor(
    hay: &str,
    starts: &[usize],
    from: usize,
    anchor: &str,
    h: &HunkSpec,
    budget: &Budget,
) -> Result<usize, HunkFailure> {
    let nlines = if hay.is_empty() { 0 } else { starts.len() };
    // The search for the anchor line reads the rest of the file.
    if !budget.charge_scan(nlines.saturating_sub(from)) {
        let stop = budget.stopped().unwrap_or(super::budget::Stop::Spent);
        let (old_lines, file_lines) = (h.old.matches('\n').count().max(1), nlines);
        let failure = EditFailure::TooCostly {
            old_lines,
            file_lines,
            stop,
        };
        return Err(HunkFailure::Match(failure));
    }
    let want = anchor.trim();
    let found = (from..nlines)
        .find(|&l| line_text(hay, starts, l).trim() == want)
        .or_else(|| {
            let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            let want = squash(&ascii_punctuation(want));
            (from..nlines).find(|&l| squash(&ascii_punctuation(line_text(hay, starts, l))) == want)
        });
    match found {
        Some(l) => Ok(l + 1),
        None => Err(HunkFailure::Anchor {
            anchor: anchor.to_string(),
        }),
    }
}

/// Hunks in order never overlap (each starts after the one before ends), but
/// a pure addition stated inside the hunk before is refused, not merged.
fn addition_inside(
    spans: &[(usize, usize, String)],
    line_of: impl Fn(usize) -> usize,
) -> Option<(usize, HunkFailure)> {
    for (i, w) in spans.windows(2).enumerate() {
        if w[1].0 < w[0].1 {
            return Some((
                i + 1,
                HunkFailure::Match(EditFailure::FoundMany {
                    count: 2,
                    lines: vec![line_of(w[0].0) + 1, line_of(w[1].0) + 1],
                    stage: MatchStage::Exact,
                    overlapping: true,
                }),
            ));
        }
    }
    None
}

/// The file's raw text with each hunk's span replaced: spans are offsets in the
/// view (`hay_len` long, a last line break perhaps added), so each is mapped
/// back to the raw bytes and written with the line endings the file has there.
fn splice_hunks(
    text: &str,
    view: &View<'_>,
    hay_len: usize,
    hunks: &[HunkSpec],
    spans: Vec<(usize, usize, String)>,
) -> String {
    let real_len = view.text.len();
    let mut out = String::with_capacity(text.len() + 64);
    let mut prev = 0usize;
    // No hunk failed, so the spans are the hunks', one each, in order.
    for (h, (s, e, mut new_text)) in hunks.iter().zip(spans) {
        if e >= hay_len && h.new_no_newline && new_text.ends_with('\n') {
            new_text.pop();
        }
        let (rs, re) = (view.raw(s.min(real_len)), view.raw(e.min(real_len)));
        out.push_str(&text[prev..rs]);
        if !view.crs.is_empty() && new_text.contains('\n') && wants_crlf(text, rs, re) {
            out.push_str(&lf_to_crlf(&new_text));
        } else {
            out.push_str(&new_text);
        }
        prev = re;
    }
    out.push_str(&text[prev..]);
    out
}

/// Patches of more hunks than this find their exact places through an index
/// of the file's lines instead of one scan of the file per hunk.
const SCANNED_HUNKS: usize = 8;

/// Each hunk's exact places: the lines where its old lines stand, whole and in
/// order, not overlapping (leftmost first, as a scan finds them). A patch of
/// a few hunks scans the file once per hunk; one of many looks its hunks'
/// first lines up in an index of the file's lines, made once, so 20,000 hunks
/// against 400,000 lines cost one pass and the lookups, not 20,000 passes.
fn exact_places(hay: &str, starts: &[usize], hunks: &[HunkSpec], nlines: usize) -> Vec<Vec<usize>> {
    let line_of = |at: usize| starts.partition_point(|&s| s <= at).saturating_sub(1);
    let fits = |h: &HunkSpec, l: usize| !h.at_end || l + h.old.matches('\n').count() == nlines;
    let scan = |h: &HunkSpec| -> Vec<usize> {
        if h.old.is_empty() {
            return Vec::new();
        }
        memmem::find_iter(hay.as_bytes(), h.old.as_bytes())
            .filter(|&at| at == 0 || hay.as_bytes()[at - 1] == b'\n')
            .map(line_of)
            .filter(|&l| fits(h, l))
            .collect()
    };
    if hunks.len() <= SCANNED_HUNKS {
        return hunks.iter().map(scan).collect();
    }
    let mut index: HashMap<&str, Vec<usize>> = HashMap::new();
    for l in 0..nlines {
        index.entry(line_text(hay, starts, l)).or_default().push(l);
    }
    hunks
        .iter()
        .map(|h| {
            // Whole lines only; a hunk without its last line break is scanned for.
            let Some(first) = h.old.split_inclusive('\n').next() else {
                return Vec::new();
            };
            let Some(first) = first.strip_suffix('\n').filter(|_| h.old.ends_with('\n')) else {
                return scan(h);
            };
            let mut end = 0;
            let mut places = Vec::new();
            for &l in index.get(first).map_or(&[][..], Vec::as_slice) {
                let at = starts[l];
                if at >= end && hay[at..].starts_with(h.old.as_str()) {
                    end = at + h.old.len();
                    if fits(h, l) {
                        places.push(l);
                    }
                }
            }
            places
        })
        .collect()
}

/// What the whole-line stages concluded for hunk `h`: where it goes (stage,
/// view offsets, the text written there) or its refusal.
fn hunk_outcome(
    outcome: LineOutcome,
    hay: &str,
    h: &HunkSpec,
    nlines: usize,
    budget: &Budget,
) -> Result<(MatchStage, usize, usize, String), EditFailure> {
    // Where a hunk that matched nowhere would have been is a pass over the
    // file's lines: each is a cell, so many such hunks cannot add up unbounded.
    let outcome = match outcome {
        LineOutcome::Nothing if !budget.charge(nlines as u64) => {
            LineOutcome::OverBudget(budget.stopped().unwrap_or(super::budget::Stop::Spent))
        }
        other => other,
    };
    let (stage, mut replacements) = outcome.into_places(
        || (h.old.matches('\n').count().max(1), nlines),
        || not_found(hay, &h.old, &h.new),
    )?;
    if replacements.len() == 1 {
        let r = replacements.pop().expect("one replacement");
        return Ok((stage, r.start, r.end, r.text));
    }
    Err(EditFailure::FoundMany {
        count: replacements.len(),
        lines: line_numbers(hay, replacements.iter().map(|r| r.start)),
        stage,
        overlapping: false,
    })
}

/// Line `l` of `hay` without its line break.
pub(super) fn line_text<'a>(hay: &'a str, starts: &[usize], l: usize) -> &'a str {
    let end = starts.get(l + 1).map_or(hay.len(), |&n| n - 1);
    hay[starts[l]..end].trim_end_matches('\n')
}

/// Curly quotes and dashes as ASCII, for finding an anchor line a model retyped.
pub(super) fn ascii_punctuation(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' => ' ',
            c => c,
        })
        .collect()
}
