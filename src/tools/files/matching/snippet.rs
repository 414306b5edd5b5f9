//! `edit`'s plan: stage 1 (the exact, literal search, memchr's `memmem`, one
//! scan of the file), then the whole-line stages; a literal match that starts at
//! a line's indentation written as whole lines; `replaceAll`; several `edits`
//! against the one original text; the splices that rebuild the text in order.

use super::applied::not_found;
use super::budget::Budget;
use super::codec::{View, crlf_to_lf, lf_to_crlf, wants_crlf};
use super::frame::{brackets_fitting, edge_fit};
use super::lines::{Lines, Snippet};
use super::lines::{Replacement, alike, bracket_balance, directive, ends_with_block_keyword};
use super::refusal::{EditFailure, MultiFailure, line_numbers};
use super::stages::{LineOutcome, MatchStage, Scope, match_lines_within};
use memchr::memmem;
use std::borrow::Cow;

/// A successful edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditApplied {
    /// The whole new text, in the same form as the text passed in.
    pub text: String,
    pub replacements: usize,
    /// The stage of the ladder that found the match(es).
    pub stage: MatchStage,
    /// See [`EditPlan::anchored`].
    pub anchored: bool,
}

/// Replace `old` with `new` in `text` (see the module notes for the rules).
pub fn apply_edit(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<EditApplied, EditFailure> {
    let plan = plan_edit(text, old, new, replace_all)?;
    Ok(EditApplied {
        text: splice_text(text, &plan.splices),
        replacements: plan.splices.len(),
        stage: plan.stage,
        anchored: plan.anchored,
    })
}

/// The indentation of a text's first line, when that line is not blank.
pub(crate) fn first_line_indent(text: &str) -> Option<&str> {
    let line = text.split('\n').next()?;
    let core = line.trim_start_matches([' ', '\t']);
    (!core.trim().is_empty()).then(|| &line[..line.len() - core.len()])
}

/// `text` with every splice of a plan made.
pub fn splice_text(text: &str, splices: &[Splice]) -> String {
    let grown: usize = splices.iter().map(|s| s.text.len()).sum();
    let mut out = String::with_capacity(text.len() + grown);
    let mut prev = 0;
    for splice in splices {
        out.push_str(&text[prev..splice.start]);
        out.push_str(&splice.text);
        prev = splice.end;
    }
    out.push_str(&text[prev..]);
    out
}

/// One replacement in the text's own bytes: `text[start..end]` becomes `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// What an edit will do, before any new text is built: the splices in ascending,
/// non-overlapping order, and the stage that found them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditPlan {
    pub splices: Vec<Splice>,
    pub stage: MatchStage,
    /// An exact match began at a line's indentation and `newText` was written as
    /// whole lines there (see [`anchor_at_indentation`]).
    pub anchored: bool,
}

/// Find what [`apply_edit`] would replace, without building the new text, so a
/// caller can splice a big file in place. Within the default [`Budget`].
pub fn plan_edit(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<EditPlan, EditFailure> {
    plan_edit_within(text, old, new, replace_all, &Budget::default())
}

/// [`plan_edit`], the whole-line stages spending `budget` (the call's).
pub fn plan_edit_within(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
    budget: &Budget,
) -> Result<EditPlan, EditFailure> {
    if old.is_empty() {
        return Err(EditFailure::EmptyOld);
    }
    let old = crlf_to_lf(old);
    let new = crlf_to_lf(new);
    if old == new {
        return Err(EditFailure::Identical);
    }
    let view = View::new(text);
    let hay = view.text.as_ref();

    let mut anchored = false;
    let mut exact: Vec<(usize, usize)> = memmem::find_iter(hay.as_bytes(), old.as_bytes())
        .map(|at| (at, at + old.len()))
        .collect();
    if exact.len() > 1 && !replace_all {
        exact = at_new_first_indent(exact, hay, &old, &new);
    }
    let (stage, spans): (MatchStage, Vec<(usize, usize, Cow<'_, str>)>) = if !exact.is_empty() {
        if exact.len() > 1 && !replace_all {
            return Err(found_many_exact(hay, &exact));
        }
        let mut prev_end = 0;
        let mut anchors = Vec::with_capacity(exact.len());
        for &(s, e) in &exact {
            match anchor_or_brackets(hay, s, e, &old, &new) {
                Ok(anchor) => anchors.push(anchor.filter(|&(start, _)| start >= prev_end)),
                Err((written, relative)) => {
                    return Err(indent_ambiguous(hay, s, &written, &relative));
                }
            }
            prev_end = e;
        }
        let spans = exact
            .into_iter()
            .zip(anchors)
            .map(|((s, e), anchor)| match anchor {
                Some((start, text)) => {
                    anchored |= text
                        .strip_prefix(&hay[start..s])
                        .is_none_or(|rest| rest != new.as_ref());
                    (start, e, Cow::Owned(text))
                }
                None => (s, e, Cow::Borrowed(new.as_ref())),
            })
            .collect();
        (MatchStage::Exact, spans)
    } else {
        let outcome = if old.trim().is_empty() {
            LineOutcome::Nothing
        } else {
            let lines = Lines::new(hay);
            match_lines_within(&lines, &old, &new, replace_all, &Scope::WHOLE, budget)
        };
        line_spans(outcome, hay, &old, &new)?
    };
    let splices = raw_splices(text, &view, spans)?;
    Ok(EditPlan {
        splices,
        stage,
        anchored,
    })
}

/// oldText without its indentation stands after several lines'
/// indentation; newText's first line, a version of oldText's, written at
/// the file's indentation says which.
fn at_new_first_indent(
    exact: Vec<(usize, usize)>,
    hay: &str,
    old: &str,
    new: &str,
) -> Vec<(usize, usize)> {
    let first = |t: &str| t.split('\n').next().unwrap_or("").trim().to_string();
    let wanted = first_line_indent(new).filter(|i| {
        !i.is_empty() && !old.starts_with([' ', '\t']) && alike(&first(old), &first(new))
    });
    if let Some(wanted) = wanted {
        let at_wanted: Vec<(usize, usize)> = exact
            .iter()
            .copied()
            .filter(|&(s, _)| hay[..s].rsplit('\n').next() == Some(wanted))
            .collect();
        if at_wanted.len() == 1 {
            return at_wanted;
        }
    }
    exact
}

/// The refusal of several exact places, each named by the line its text
/// starts on (past its leading whitespace), so that the lines said are the
/// ones a reader would look at.
fn found_many_exact(hay: &str, exact: &[(usize, usize)]) -> EditFailure {
    let starts = exact.iter().map(|&(s, e)| {
        let lead = hay[s..e].len() - hay[s..e].trim_start().len();
        if lead == e - s { s } else { s + lead }
    });
    let mut lines = line_numbers(hay, starts);
    lines.dedup();
    EditFailure::FoundMany {
        count: exact.len(),
        lines,
        stage: MatchStage::Exact,
        overlapping: false,
    }
}

/// The two readings of an anchored newText, told apart by the brackets
/// at their edges when the texts cannot tell.
/// Every reading is weighed, newText wholly relative to the line
/// included, which the two the refusal names may leave out.
fn anchor_or_brackets(hay: &str, s: usize, e: usize, old: &str, new: &str) -> AnchorReading {
    anchor_at_indentation(hay, s, e, old, new).or_else(|(written, relative)| {
        let line_start = hay[..s].rfind('\n').map_or(0, |i| i + 1);
        let all = indented(&hay[line_start..s], new, true);
        let texts = [written.as_str(), relative.as_str(), all.as_str()];
        // Only one reading the brackets fit; two that fit (newText
        // from the line's start, and wholly relative to it) are
        // refused like any two readings nothing else tells apart.
        match brackets_fitting(hay, line_start, e, &texts)[..] {
            [i] => Ok(Some((line_start, texts[i].to_string()))),
            _ => Err((written, relative)),
        }
    })
}

/// The refusal of an anchored match whose two readings nothing tells apart,
/// naming the match's line and the first line where the readings differ.
fn indent_ambiguous(hay: &str, s: usize, written: &str, relative: &str) -> EditFailure {
    let line = line_numbers(hay, std::iter::once(s))[0];
    let differs = written
        .split('\n')
        .zip(relative.split('\n'))
        .position(|(a, b)| a != b)
        .map(|i| {
            let at = |t: &str| t.split('\n').nth(i).unwrap_or("").to_string();
            (line + i, at(written), at(relative))
        });
    EditFailure::IndentAmbiguous { line, differs }
}

/// The spans (offsets in the LF view) as splices of the text's own bytes, each
/// written with the line endings the file has there; an edit that changes
/// nothing is refused rather than reported as done.
fn raw_splices(
    text: &str,
    view: &View<'_>,
    spans: Vec<(usize, usize, Cow<'_, str>)>,
) -> Result<Vec<Splice>, EditFailure> {
    let mut splices = Vec::with_capacity(spans.len());
    let mut changed = false;
    for (s, e, replacement) in spans {
        let (rs, re) = (view.raw(s), view.raw(e));
        let replacement =
            if !view.crs.is_empty() && replacement.contains('\n') && wants_crlf(text, rs, re) {
                lf_to_crlf(&replacement)
            } else {
                replacement.into_owned()
            };
        changed |= text[rs..re] != replacement;
        splices.push(Splice {
            start: rs,
            end: re,
            text: replacement,
        });
    }
    if !changed {
        return Err(EditFailure::Unchanged);
    }
    Ok(splices)
}

/// Several edits of one text, planned against the text as it is before any of
/// them: every edit's splices, in order, and no two overlapping. All or nothing:
/// the first edit that fails is the answer, named by its index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MultiPlan {
    pub splices: Vec<Splice>,
    /// The least exact stage among the edits (the one worth naming).
    pub stage: MatchStage,
    /// Each edit's stage, in the order given.
    pub stages: Vec<MatchStage>,
    pub anchored: bool,
}

/// What the whole-line stages concluded, as the spans of the edit or its refusal.
type Spans<'n> = (MatchStage, Vec<(usize, usize, Cow<'n, str>)>);
fn line_spans<'n>(
    outcome: LineOutcome,
    hay: &str,
    old: &str,
    new: &str,
) -> Result<Spans<'n>, EditFailure> {
    let (stage, replacements) = outcome.into_places(
        || (Snippet::new(old).lines.len(), Lines::new(hay).len()),
        || not_found(hay, old, new),
    )?;
    Ok((
        stage,
        replacements
            .into_iter()
            .map(|r| (r.start, r.end, Cow::Owned(r.text)))
            .collect(),
    ))
}

/// Plan `edits` (`(oldText, newText, replaceAll)`) against `text` (see [`MultiPlan`]),
/// within the default [`Budget`].
pub fn plan_edits(text: &str, edits: &[(String, String, bool)]) -> Result<MultiPlan, MultiFailure> {
    plan_edits_within(text, edits, &Budget::default())
}

/// [`plan_edits`], every edit's whole-line stages spending the one `budget`.
pub fn plan_edits_within(
    text: &str,
    edits: &[(String, String, bool)],
    budget: &Budget,
) -> Result<MultiPlan, MultiFailure> {
    let of = edits.len();
    let mut all: Vec<(usize, Splice)> = Vec::new();
    let mut stages = Vec::with_capacity(of);
    let mut anchored = false;
    for (index, (old, new, replace_all)) in edits.iter().enumerate() {
        let plan = plan_edit_within(text, old, new, *replace_all, budget)
            .map_err(|failure| MultiFailure::Edit { index, of, failure })?;
        stages.push(plan.stage);
        anchored |= plan.anchored;
        all.extend(plan.splices.into_iter().map(|s| (index, s)));
    }
    all.sort_by_key(|(_, s)| (s.start, s.end));
    for w in all.windows(2) {
        let ((a, x), (b, y)) = (&w[0], &w[1]);
        // Two insertions at one point, or a span reaching into the next, overlap.
        if y.start < x.end || (x.start == y.start && a != b) {
            let line = text[..y.start].matches('\n').count() + 1;
            let (first, second) = if a < b { (*a, *b) } else { (*b, *a) };
            return Err(MultiFailure::Overlap {
                first,
                second,
                line,
            });
        }
    }
    let stage = stages
        .iter()
        .copied()
        .find(|s| *s != MatchStage::Exact)
        .unwrap_or(MatchStage::Exact);
    Ok(MultiPlan {
        splices: all.into_iter().map(|(_, s)| s).collect(),
        stage,
        stages,
        anchored,
    })
}

/// What [`anchor_at_indentation`] answers: where the replacement starts and its
/// text (`Ok(None)`: a literal replacement), or the two readings it cannot
/// tell apart.
type AnchorReading = Result<Option<(usize, String)>, (String, String)>;

/// An exact match of `old` at `hay[s..e]` that starts right after a line's
/// indentation and ends at the end of a line is a snippet of whole lines whose
/// first line was copied without its indentation. Its replacement is then whole
/// lines too: the span starts at the line's start, and the question is which
/// lines of `new` take the indentation. A first line of text at the match's
/// whole indentation: none (written as it stands). Otherwise the first line
/// takes it when it is a version of `old`'s, or a new line that would stand
/// shallower than its neighbours at column 0 (a directive or a label stands
/// there as written); the later lines are as written when `old` has several
/// non-blank lines (they matched the file as it stands), and for a one-line
/// `old` a copy of it, sibling first lines and the edge witness tell (see the
/// module doc). Whatever they do not decide, or decide both ways, is `Err` with
/// the two readings (the caller lets the brackets pick one, else refuses).
/// `Ok(None)` when the match is not of that shape: a literal replacement it is.
pub(super) fn anchor_at_indentation(
    hay: &str,
    s: usize,
    e: usize,
    old: &str,
    new: &str,
) -> AnchorReading {
    let bytes = hay.as_bytes();
    let line_start = memchr::memrchr(b'\n', &bytes[..s]).map_or(0, |i| i + 1);
    let indent = &hay[line_start..s];
    if indent.is_empty() || !indent.bytes().all(|b| b == b' ' || b == b'\t') {
        return Ok(None);
    }
    let at_line_end = old.ends_with('\n') || e == bytes.len() || bytes[e] == b'\n';
    if !at_line_end {
        return Ok(None);
    }
    let a = AnchoredMatch::new(hay, line_start, s, e, old, new);
    let (first_new, old_lines) = (a.first_new, &a.old_lines);
    // newText's first line of text already carries the indentation the match
    // starts after (oldText's does not): newText is written at the file's
    // indentation, as a model writes it after reading the file. Its lines stand
    // as written, from the line's start; putting the indentation in front again
    // would double it. A copy cut like oldText, or the edge, says otherwise:
    // undecided.
    if !a.first_text.is_empty() && a.first_text.starts_with(indent) {
        if a.copies.contains(&"") || a.edge() == Some(false) {
            return Err(a.both(false));
        }
        // Deeper than the match, as written it moves the line in by the
        // difference, and cut like oldText by its whole depth: the first line
        // carries the indentation either way, so it tells nothing. (An edit
        // that keeps every line of oldText only adds lines around it.)
        if depth(a.first_text) > indent.len()
            && !super::frame::keeps_every_line(old.lines(), new.lines())
            && a.edge() != Some(true)
        {
            return Err(a.both(false));
        }
        return Ok(Some((line_start, new.to_string())));
    }
    // A first line indented, but less than the match: written at the file's
    // depth (the edit moves it out), or relative to the line like oldText, cut
    // (the edit moves it in)? Only the brackets can tell (the caller weighs them).
    if a.first_text.starts_with([' ', '\t']) {
        return Err(a.both(false));
    }
    // A first line of punctuation alone (`}`, `);`) that is not oldText's first
    // line: a closing line at column 0 as written, or one cut like oldText's.
    // Blocks close at every depth; nothing tells which.
    if !blank(first_new)
        && !first_new.chars().any(char::is_alphanumeric)
        && old_lines[0] != first_new
    {
        return Err(a.both(true));
    }
    // newText's first line repeats one of oldText's later lines (which matched
    // the file as it stands) and not the first: it may be that later line kept,
    // or the first line's replacement cut like oldText's. Nothing tells which.
    if !blank(first_new)
        && old_lines[0] != first_new
        && old_lines.iter().skip(1).any(|l| *l == first_new)
    {
        return Err(a.both(true));
    }
    if let Some(reading) = a.new_line_at_column_0() {
        return reading;
    }
    a.cut_like_old()
}

/// Whether a line is blank (spaces and tabs only).
fn blank(l: &str) -> bool {
    l.bytes().all(|b| b == b' ' || b == b'\t')
}

/// A line's indentation, in bytes.
fn depth(l: &str) -> usize {
    l.len() - l.trim_start_matches([' ', '\t']).len()
}

/// An exact match anchored at a line's indentation, with newText's and
/// oldText's lines read once for every decision about where newText's lines
/// stand.
struct AnchoredMatch<'t> {
    hay: &'t str,
    line_start: usize,
    e: usize,
    /// The indentation the match starts after.
    indent: &'t str,
    new: &'t str,
    /// newText's first line, and its first line of text.
    first_new: &'t str,
    first_text: &'t str,
    /// newText's later lines that are not blank.
    later: Vec<&'t str>,
    old_lines: Vec<&'t str>,
    one_line: bool,
    /// One line and blank ones after it: as one line, for what tells newText's
    /// later lines apart.
    undecided: bool,
    /// oldText's first line, trimmed.
    old_line: &'t str,
    /// The indentation of each copy of a one-line oldText among newText's later
    /// lines.
    copies: Vec<&'t str>,
    /// newText wholly relative to the line.
    relative: String,
    siblings: bool,
}

impl<'t> AnchoredMatch<'t> {
    /// The facts every decision reads, gathered before any is taken (the
    /// decisions are tried in order, and each may end the search).
    fn new(
        hay: &'t str,
        line_start: usize,
        s: usize,
        e: usize,
        old: &'t str,
        new: &'t str,
    ) -> Self {
        let indent = &hay[line_start..s];
        let lines: Vec<&str> = new.split('\n').collect();
        // The last piece after a final `\n` is not a line of its own.
        let body = if new.ends_with('\n') {
            &lines[..lines.len() - 1]
        } else {
            &lines[..]
        };
        let first_new = body.first().copied().unwrap_or("");
        let first_text = body.iter().copied().find(|l| !blank(l)).unwrap_or("");
        let later: Vec<&str> = body.iter().skip(1).copied().filter(|l| !blank(l)).collect();
        let old_lines: Vec<&str> = old.strip_suffix('\n').unwrap_or(old).split('\n').collect();
        let one_line = old_lines.len() == 1;
        // One line and blank ones after it: as one line, for what tells newText's
        // later lines apart.
        let undecided = !one_line && old_lines.iter().skip(1).all(|l| blank(l));
        let old_line = old_lines[0].trim();
        // A one-line oldText's copies among newText's later lines, by indentation:
        // at the match's whole indentation they stand as the file has them, at none
        // they were cut like oldText.
        let copies: Vec<&str> = body
            .iter()
            .skip(1)
            .filter(|l| (one_line || undecided) && !old_line.is_empty() && l.trim() == old_line)
            .map(|l| &l[..depth(l)])
            .collect();
        // The readings a refusal names: newText as written, against newText
        // wholly relative to the line (or only its first line cut like oldText's).
        let relative = indented(indent, new, true);
        // newText's first line and the next are siblings as written (both
        // unindented), and the first ends nothing (it closes no bracket it did not
        // open, ends no string, and is no statement after which a block ends:
        // `pass`, `return`, `fi`). As written, the next line would stand a whole
        // indentation shallower than a statement it follows, which code does not
        // do; read relative to the line, the two stay siblings. (One-line oldText
        // only: a multi-line one's later lines matched the file as they are.)
        let siblings = one_line
            && later
                .first()
                .is_some_and(|l| depth(l) == 0 && !directive(l))
            && !first_new.starts_with([' ', '\t'])
            && !ends_something(first_new);
        AnchoredMatch {
            hay,
            line_start,
            e,
            indent,
            new,
            first_new,
            first_text,
            later,
            old_lines,
            one_line,
            undecided,
            old_line,
            copies,
            relative,
            siblings,
        }
    }

    /// The two readings a refusal names, so that each refusal words them alike:
    /// newText as written, against newText relative to the line (or, with
    /// `first_cut`, only its first line cut like oldText's).
    fn both(&self, first_cut: bool) -> (String, String) {
        (
            self.new.to_string(),
            if first_cut {
                format!("{}{}", self.indent, self.new)
            } else {
                self.relative.clone()
            },
        )
    }

    /// The edge witness (the line above the match opens a block, or is a plain
    /// statement whose sibling the first line is) for newText as written against
    /// newText relative to the line: `Some(true)` when it speaks for as written.
    fn edge(&self) -> Option<bool> {
        let fit = |text: &str| {
            edge_fit(
                self.hay,
                &Replacement {
                    start: self.line_start,
                    end: self.e,
                    text: text.to_string(),
                },
            )
        };
        match (fit(self.new), fit(&self.relative)) {
            (Some(true), Some(false)) => Some(true),
            (Some(false), Some(true)) => Some(false),
            _ => None,
        }
    }

    /// newText's first line, not a version of oldText's, at column 0: a line cut
    /// like oldText's, or a new one written there? A directive or a label
    /// (`#ifdef`, `out:`) stands at column 0 as written. Any other line there
    /// would stand shallower than the line after it, which only a line opening a
    /// block does (`fn f() {`, `def f():`): cut like oldText's it stands among
    /// them. A block opener is refused. `None`: the first line was cut like
    /// oldText's after all.
    /// (With no later line the first line is the whole replacement: it takes the
    /// line's indentation, as a literal replacement after it does.)
    fn new_line_at_column_0(&self) -> Option<AnchorReading> {
        let (first_new, later) = (self.first_new, &self.later);
        if blank(first_new) || alike(self.old_line, first_new.trim()) || later.is_empty() {
            return None;
        }
        // A YAML key above a sequence item (`ruby:` then `- "3.0"`) is no
        // label: no statement after a label starts with `- `.
        let item_below = later
            .first()
            .is_some_and(|l| l.trim_start().starts_with("- "));
        let label = !item_below
            && first_new.trim_end().strip_suffix(':').is_some_and(|w| {
                !w.is_empty()
                    && w.chars().all(|c| c.is_alphanumeric() || c == '_')
                    // Keywords that open a block or stand at a case's depth.
                    && !matches!(
                        w,
                        "try" | "else" | "finally" | "default" | "public" | "private" | "protected"
                    )
            });
        if directive(first_new) || label {
            // The later lines stand as the file has them: a multi-line oldText
            // matched them so; a one-line oldText's copy at the match's depth says so.
            if !self.one_line || (self.copies.contains(&self.indent) && !self.copies.contains(&""))
            {
                return Some(Ok(Some((self.line_start, self.new.to_string()))));
            }
            return Some(Err(self.both(false)));
        }
        // A block opener, or a statement its line leaves open (`if (a &&`).
        let code = first_new.trim_end();
        let opens = code.ends_with(['{', '(', '[', ':'])
            || bracket_balance(code) > 0
            || ends_with_block_keyword(code);
        let below_deeper = later.first().is_some_and(|l| depth(l) > 0);
        // Or siblings as written (above).
        if opens || !(below_deeper || self.siblings) {
            return Some(Err(self.both(true)));
        }
        None
    }

    /// From here newText's first line was cut like oldText's: it takes the
    /// match's indentation. A multi-line oldText's later lines matched the file
    /// as it stands, so newText's later lines are as written. A one-line
    /// oldText's (or one whose later lines are blank) say nothing of that.
    fn cut_like_old(&self) -> AnchorReading {
        let write = |framed: bool| indented(self.indent, self.new, framed);
        if (self.one_line || self.undecided) && !self.later.is_empty() {
            // A copy of oldText's line where the file has it says the later lines
            // stand as written; a copy cut like oldText, or the siblings, that they
            // were cut too. Both at once: a copy the edit moved by exactly the
            // cut's depth. Undecided.
            let as_written = self.copies.contains(&self.indent);
            let relative = self.copies.contains(&"") || self.siblings;
            match (as_written, relative) {
                (true, false) => return Ok(Some((self.line_start, write(false)))),
                (false, true) => return Ok(Some((self.line_start, write(true)))),
                _ => {}
            }
            // Otherwise: every later line at least as deep as the line, as written
            // they sit beside or under it, read relative to it one indentation
            // deeper; a later line shallower than the line, as written the edit
            // ends the line's block or statement there (after `args)`, `pass`,
            // `return`), read relative it stands inside it. Nothing tells which.
            return Err((write(false), write(true)));
        }
        Ok(Some((self.line_start, write(false))))
    }
}

/// Whether a line may be followed by a shallower one without closing a block
/// itself: it closes more brackets than it opens, ends a multi-line string, or
/// is a statement after which a block ends in languages without braces.
fn ends_something(line: &str) -> bool {
    let code = line.trim();
    let word = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    bracket_balance(code) < 0
        || code.matches("\"\"\"").count() % 2 == 1
        || code.matches("'''").count() % 2 == 1
        || code.starts_with(['}', ')', ']'])
        || matches!(
            word,
            "pass" | "return" | "break" | "continue" | "raise" | "fi" | "done" | "esac" | "end"
        )
        || code.ends_with(";;")
}

/// `new` written after `indent`: its first line always, and with `framed` every
/// later line that is not blank too (a final line break opens no line).
pub(super) fn indented(indent: &str, new: &str, framed: bool) -> String {
    let lines: Vec<&str> = new.split('\n').collect();
    let mut out = String::with_capacity(new.len() + indent.len() * lines.len());
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let last_piece = i == lines.len() - 1 && new.ends_with('\n');
        let blank = line.bytes().all(|b| b == b' ' || b == b'\t');
        if !last_piece && !blank && (i == 0 || framed) {
            out.push_str(indent);
        }
        out.push_str(line);
    }
    out
}
