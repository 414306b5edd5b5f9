//! The whole-line stages of the ladder (stages 2 to 6), tried one after the
//! other when `oldText` does not occur literally: `line-trimmed`,
//! `indent-shifted`, `first-line-indent`, `gutter-stripped`, `typography`. The
//! first stage that finds anything decides; more than one place, or places that
//! overlap, is a refusal, never a guess. [`match_lines`] is the entry for both
//! tools: `edit` gives the whole file as its [`Scope`], a patch's hunk the lines
//! it may stand in. Bounded: every comparison is a cell of the call's
//! [`Budget`], and a search that runs it out ends in [`LineOutcome::OverBudget`].

use super::budget::{Budget, Stop};
use super::frame::{
    Inference, between_fit, bracket_fit, edge_fit, first_difference, infer_frame, kept_lines,
    layout_fit, lines_kept, open_mid_line,
};
use super::lines::{
    Frame, IndentMap, Indentation, Lines, Parts, Place, Replacement, Snippet, TrailMap, alike,
    ascii_typography, columns, is_indent_byte, parts,
};
use memchr::memmem;
use std::borrow::Cow;

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
    /// The search ran out of the call's work budget (or was cancelled) before
    /// it was done; nothing is claimed about where `oldText` stands.
    OverBudget(Stop),
}

pub(super) struct Stage<'a, 'b> {
    pub(super) lines: &'b Lines<'a>,
    pub(super) old: &'b Snippet<'b>,
    pub(super) indentation: Indentation,
    pub(super) typography: bool,
}

impl Stage<'_, '_> {
    pub(super) fn prepare<'s>(&self, line: &'s str) -> Cow<'s, str> {
        if self.typography {
            ascii_typography(line)
        } else {
            Cow::Borrowed(line)
        }
    }

    /// Whether `oldText` matches at file line `first`, and how.
    pub(super) fn check(&self, first: usize, budget: &Budget) -> Option<Place> {
        let k = self.old.lines.len();
        // A first pass without allocating, each line a cell: most places fail
        // here, some of them only at the last line.
        for (j, old_line) in self.old.lines.iter().enumerate() {
            if !budget.charge(1) {
                return None;
            }
            let (o, f) = (
                self.prepare(old_line),
                self.prepare(self.lines.line(first + j)),
            );
            let (po, pf) = (parts(&o), parts(&f));
            if po.blank() != pf.blank()
                || po.core != pf.core
                || (self.indentation == Indentation::Equal && !po.blank() && po.indent != pf.indent)
            {
                return None;
            }
        }
        let mut pairs: Vec<(usize, String, String)> = Vec::new();
        let mut trail = TrailMap::default();
        for (j, old_line) in self.old.lines.iter().enumerate() {
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

    /// Every place `oldText` matches within `scope`, in file order; `None` when
    /// the budget ran out. A stated line (`scope.at_line`) where it matches is
    /// the answer without a search: among several places it is the one taken,
    /// and alone it is the only one.
    pub(super) fn find_in(&self, scope: &Scope<'_>, budget: &Budget) -> Option<Vec<Place>> {
        let (k, n) = (self.old.lines.len(), self.lines.len());
        if n < k {
            return Some(Vec::new());
        }
        let Some(last) = scope.to_line.min(n).checked_sub(k) else {
            return Some(Vec::new());
        };
        let firsts = if scope.at_end {
            (n - k)..(n - k + 1)
        } else {
            scope.from_line..last + 1
        };
        let firsts = firsts.start.max(scope.from_line)..firsts.end.min(last + 1);
        if let Some(at) = scope.at_line.filter(|at| firsts.contains(at))
            && let Some(place) = self.check(at, budget)
        {
            return Some(vec![place]);
        }
        budget.stopped().is_none().then_some(())?;
        self.find(firsts, budget)
    }

    /// Every place `oldText` matches with its first line in `firsts`, in file
    /// order; `None` when the budget ran out.
    fn find(&self, firsts: std::ops::Range<usize>, budget: &Budget) -> Option<Vec<Place>> {
        let k = self.old.lines.len();
        let anchor = self
            .old
            .lines
            .iter()
            .position(|l| !parts(l).blank())
            .expect("the caller refuses a blank oldText");
        let n = self.lines.len();
        if n < k || firsts.is_empty() {
            return Some(Vec::new());
        }
        // The lines the anchor line may stand on.
        let (a, b) = (firsts.start + anchor, firsts.end - 1 + anchor);
        let mut found = Vec::new();
        let mut consider = |line: usize, budget: &Budget| -> Option<()> {
            if line >= anchor && line - anchor + k <= n {
                if let Some(place) = self.check(line - anchor, budget) {
                    found.push(place);
                }
                budget.stopped().is_none().then_some(())?;
            }
            Some(())
        };
        if self.typography {
            // Typographic characters change byte lengths, so every line is read.
            let want = ascii_typography(parts(self.old.lines[anchor]).core).into_owned();
            for i in a..=b {
                budget.charge(1).then_some(())?;
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
            budget.charge_scan(b + 1 - a).then_some(())?;
            let (mut from, stop) = (self.lines.starts[a], self.lines.full_end(b));
            while let Some(hit) = finder.find(&bytes[from..stop]) {
                budget.charge(1).then_some(())?;
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
                if from >= stop {
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
pub(super) fn strip_gutter(text: &str, consecutive: bool) -> Option<String> {
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
/// does not occur literally. Within the default [`Budget`].
#[cfg(test)]
pub(crate) fn match_lines(
    hay: &str,
    old: &str,
    new: &str,
    replace_all: bool,
    scope: &Scope<'_>,
) -> LineOutcome {
    let lines = Lines::new(hay);
    match_lines_within(&lines, old, new, replace_all, scope, &Budget::default())
}

/// [`match_lines`] over the lines of the file, made once by the caller (a patch
/// matches many hunks against them), every comparison a cell of `budget`.
pub(crate) fn match_lines_within(
    lines: &Lines<'_>,
    old: &str,
    new: &str,
    replace_all: bool,
    scope: &Scope<'_>,
    budget: &Budget,
) -> LineOutcome {
    let relations = [
        (MatchStage::LineTrimmed, Indentation::Equal),
        (MatchStage::IndentShifted, Indentation::Shifted),
        (MatchStage::FirstLineIndent, Indentation::FirstLineFree),
    ];
    for (stage, indentation) in relations {
        if let Some(outcome) = try_stage(
            lines,
            old,
            new,
            replace_all,
            scope,
            stage,
            indentation,
            budget,
        ) {
            return outcome;
        }
    }
    if let Some(bare_old) = strip_gutter(old, true)
        && !bare_old.trim().is_empty()
    {
        let bare_new = strip_gutter(new, false).unwrap_or_else(|| new.to_string());
        for (_, indentation) in relations {
            if let Some(outcome) = try_stage(
                lines,
                &bare_old,
                &bare_new,
                replace_all,
                scope,
                MatchStage::GutterStripped,
                indentation,
                budget,
            ) {
                return outcome;
            }
        }
    }
    for (_, indentation) in relations {
        if let Some(outcome) = try_stage(
            lines,
            old,
            new,
            replace_all,
            scope,
            MatchStage::Typography,
            indentation,
            budget,
        ) {
            return outcome;
        }
    }
    LineOutcome::Nothing
}

/// One relation of one stage: `None` when it finds nothing.
#[allow(clippy::too_many_arguments)]
pub(super) fn try_stage(
    lines: &Lines<'_>,
    old: &str,
    new: &str,
    replace_all: bool,
    scope: &Scope<'_>,
    stage: MatchStage,
    indentation: Indentation,
    budget: &Budget,
) -> Option<LineOutcome> {
    // The last stage reads curly quotes and dashes as ASCII, for comparing only.
    let typography = stage == MatchStage::Typography;
    // A snippet that starts with a line break starts at the end of a line; when
    // both do, that break is context and the snippets are whole lines after it.
    // A hunk is whole lines already: its leading break is a blank line, which
    // must stand in the file.
    let (old, new, cut) = match (old.strip_prefix('\n'), new.strip_prefix('\n')) {
        (Some(o), Some(n)) if !o.is_empty() && scope.context.is_none() => (o, n, true),
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
    let Some(mut places) = stage_search.find_in(scope, budget) else {
        return budget.stopped().map(LineOutcome::OverBudget);
    };
    let k = old_snippet.lines.len();
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
    if places.len() > 1 && !replace_all {
        places = at_written_columns(places);
    }
    if places.len() > 1 && !replace_all {
        places = at_new_first_indent(places, lines, &old_snippet, new, anchor);
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
    let kept = kept_for(scope.context, cut, &old_snippet, &new_snippet);
    let (weighed, line0_mapped) = weighed_lines(patch, &new_snippet, &kept);
    let hunk_deeper = patch.then(|| added_within_a_level(&new_snippet, &kept));
    let readings = Readings {
        lines,
        old: &old_snippet,
        new: &new_snippet,
        kept: &kept,
        patch,
        stage,
    };
    let mut replacements = Vec::with_capacity(places.len());
    for place in &places {
        let inferred = infer_frame(
            lines,
            &old_snippet,
            &weighed,
            line0_mapped,
            hunk_deeper,
            place,
        );
        match readings.replacement_at(place, &inferred) {
            Ok(r) => replacements.push(r),
            Err(outcome) => return Some(outcome),
        }
    }
    Some(LineOutcome::Applied {
        stage,
        replacements,
    })
}

/// For each line of newText, the line of oldText it keeps: a patch's hunk says
/// so itself (its context), an edit's is found by a line diff.
fn kept_for(
    context: Option<&[Option<usize>]>,
    cut: bool,
    old_snippet: &Snippet<'_>,
    new_snippet: &Snippet<'_>,
) -> Vec<Option<usize>> {
    match context {
        // With `cut`, the first line `try_stage` cut was a blank line of context
        // on both sides.
        Some(context) if cut => context[1..]
            .iter()
            .map(|k| k.and_then(|i| i.checked_sub(1)))
            .collect(),
        Some(context) => context.to_vec(),
        None => kept_lines(old_snippet, new_snippet),
    }
}

/// oldText indented with tabs where the file has spaces (or the other way)
/// matches every depth; a single place at the very columns it was written at
/// is the one meant (one tab read as 4 columns at one place, as 8 at another
/// leaves two, and the refusal stands).
fn at_written_columns(places: Vec<Place>) -> Vec<Place> {
    let same_columns: Vec<Place> = places
        .iter()
        .filter(|p| matches!(p.indent, IndentMap::Columns { delta: 0, .. }))
        .cloned()
        .collect();
    if same_columns.len() == 1 {
        same_columns
    } else {
        places
    }
}

/// Several places at different depths for an unindented oldText, and
/// newText's first line, a version of oldText's, indented as exactly one of
/// them: that one was read and meant.
fn at_new_first_indent(
    places: Vec<Place>,
    lines: &Lines<'_>,
    old_snippet: &Snippet<'_>,
    new: &str,
    anchor: usize,
) -> Vec<Place> {
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
            return at_wanted;
        }
    }
    places
}

/// A patch's context lines say nothing of the frame: only the lines it adds
/// are weighed (its first line is then the mapped "line 0" only when it is
/// itself an added one).
fn weighed_lines<'n>(
    patch: bool,
    new_snippet: &Snippet<'n>,
    kept: &[Option<usize>],
) -> (Snippet<'n>, bool) {
    if patch {
        let added = Snippet {
            lines: new_snippet
                .lines
                .iter()
                .zip(kept)
                .filter(|(_, k)| k.is_none())
                .map(|(l, _)| *l)
                .collect(),
            newline: new_snippet.newline,
        };
        (added, kept.first().is_some_and(Option::is_none))
    } else {
        (new_snippet.clone(), true)
    }
}

/// Read in the hunk's own frame, a line it adds stands at most a level deeper
/// than the context line just above it, as the hunk writes both (a hunk whose
/// context alone was written shallower shows its added lines deeper still):
/// then the hunk's frame is a possible one, however deep its added lines
/// stand against its outermost line.
/// A line continuing a bracket the context line leaves open may stand
/// anywhere (aligned with the bracket, as Python and Lisp write it).
fn added_within_a_level(new_snippet: &Snippet<'_>, kept: &[Option<usize>]) -> bool {
    let mut above: Option<(usize, bool, bool)> = None;
    new_snippet.lines.iter().zip(kept).all(|(l, k)| {
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
}

/// One match's texts and how they pair up, shared by every place it found, so
/// that each place's two readings are written and weighed alike.
struct Readings<'r, 'a> {
    lines: &'r Lines<'a>,
    old: &'r Snippet<'r>,
    new: &'r Snippet<'r>,
    kept: &'r [Option<usize>],
    patch: bool,
    stage: MatchStage,
}

impl Readings<'_, '_> {
    /// The replacement at `place`: both readings are written, and where they
    /// differ the witnesses must pick one, or the edit is refused (an `Err` is
    /// the outcome of the whole stage).
    fn replacement_at(
        &self,
        place: &Place,
        inferred: &Inference,
    ) -> Result<Replacement, LineOutcome> {
        let write = |frame| {
            write_place(
                self.lines, self.old, self.new, self.kept, place, frame, self.patch,
            )
        };
        let written = match (write(Frame::Old), write(Frame::File)) {
            (Ok(a), Ok(b)) if a != b => match self.frame_by_witnesses(inferred, &a, &b) {
                Some(Frame::Old) => Ok(a),
                Some(Frame::File) => Ok(b),
                None => return Err(self.frame_ambiguous(&a, &b)),
            },
            (a, b) => match inferred.frame {
                Some(Frame::Old) => a,
                Some(Frame::File) => b,
                // No evidence: when both readings give the same file, either is it.
                None => match (a, b) {
                    (Ok(a), Ok(b)) if a == b => Ok(a),
                    (Ok(a), Ok(b)) => return Err(self.frame_ambiguous(&a, &b)),
                    // Only one reading can be placed at all: that one was meant.
                    (Err(_), Ok(b)) => Ok(b),
                    (a, _) => a,
                },
            },
        };
        written.map_err(|new_line| LineOutcome::Unplaceable {
            stage: self.stage,
            new_line,
        })
    }

    /// The refusal of two readings nothing tells apart, naming the first line
    /// where the files they give differ.
    fn frame_ambiguous(&self, a: &Replacement, b: &Replacement) -> LineOutcome {
        let (line, shifted, as_written) = first_difference(self.lines.text, a, b);
        LineOutcome::FrameAmbiguous {
            stage: self.stage,
            line,
            as_written,
            shifted,
        }
    }

    /// The frame of two readings that give different files, by the witnesses
    /// the texts' indentation cannot give (the edges, a hunk's neighbours and
    /// its being a diff) joined to those it can; `None` refuses.
    fn frame_by_witnesses(
        &self,
        inferred: &Inference,
        a: &Replacement,
        b: &Replacement,
    ) -> Option<Frame> {
        let (text, patch) = (self.lines.text, self.patch);
        // The brackets at the edges of the replacement are a witness the
        // texts' indentation cannot give: a closing line stands at the
        // depth of the line that opened its block.
        let (fit_old, fit_file) = (bracket_fit(text, a), bracket_fit(text, b));
        // A patch's hunk has its neighbours written beside it.
        let layout = if patch {
            let (lo, lf) = (layout_fit(text, a), layout_fit(text, b));
            match lo.disagree.cmp(&lf.disagree) {
                std::cmp::Ordering::Less => Some(Frame::Old),
                std::cmp::Ordering::Greater => Some(Frame::File),
                std::cmp::Ordering::Equal => None,
            }
        } else {
            None
        };
        // The line above opens a block: the replacement starts inside it.
        let edge = the_one_that_fits(edge_fit(text, a), edge_fit(text, b));
        // A run of added lines between two siblings stands at their depth.
        let between = if patch {
            the_one_that_fits(
                between_fit(text, a, self.kept),
                between_fit(text, b, self.kept),
            )
        } else {
            None
        };
        // A hunk is a diff: a reading in which one of its removed lines
        // comes back unchanged among its added ones (where the diff
        // would have kept it as context) is not the change it describes,
        // when the other reading has no such line.
        let minimal = if patch {
            let context = self.kept.iter().filter(|k| k.is_some()).count();
            let (ko, kf) = (lines_kept(text, a) > context, lines_kept(text, b) > context);
            match (ko, kf) {
                (false, true) => Some(Frame::Old),
                (true, false) => Some(Frame::File),
                _ => None,
            }
        } else {
            None
        };
        let one_step = !patch && super::frame::one_step_inside_opener(text, a, b);
        let decided = decide(
            inferred,
            one_step,
            &[
                (Witness::Copies, inferred.copies),
                (Witness::Weak, inferred.weak),
                (Witness::First, inferred.first),
                (Witness::FirstUnlike, inferred.first_unlike),
                (Witness::Outermost, inferred.base),
                (Witness::Brackets, fit_old.against(&fit_file)),
                (Witness::Layout, layout),
                (Witness::Minimal, minimal),
                (Witness::Between, between),
                (Witness::Edge, edge),
                (Witness::Versions, inferred.versions),
            ],
            patch,
        );
        #[cfg(feature = "frame-trace")]
        trace(
            inferred,
            (a, b),
            (fit_old, fit_file),
            [layout, minimal, between, edge],
            decided,
            patch,
            self.stage,
        );
        decided
    }
}

/// A witness that fits one reading and not the other speaks for the one that
/// fits; fitting both, neither, or not speaking of one, it says nothing.
fn the_one_that_fits(old: Option<bool>, file: Option<bool>) -> Option<Frame> {
    match (old, file) {
        (Some(true), Some(false)) => Some(Frame::Old),
        (Some(false), Some(true)) => Some(Frame::File),
        _ => None,
    }
}

/// A witness of the frame `newText` is written in (see `frame.rs` and the
/// module doc of `matching` for what each sees and how it was measured).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Witness {
    Copies,
    Weak,
    First,
    FirstUnlike,
    Outermost,
    Brackets,
    Layout,
    Minimal,
    Between,
    Edge,
    Versions,
}

impl Witness {
    /// Whether it reads the file around the replacement (the brackets, the
    /// edge, the siblings, the layout) or the diff's shape, rather than
    /// newText's lines against oldText's.
    fn reads_the_file(self) -> bool {
        matches!(
            self,
            Witness::Brackets
                | Witness::Layout
                | Witness::Minimal
                | Witness::Between
                | Witness::Edge
        )
    }

    /// Whether it may decide alone (with no other witness speaking): never wrong
    /// when it spoke on the tuned histories. A patch's copies are lines the
    /// commit re-indented (a line it kept unchanged is context), so for a hunk
    /// they say how far the edit moved them, not which frame it is written in.
    fn decides_alone(self, patch: bool) -> bool {
        match self {
            Witness::Brackets | Witness::Minimal | Witness::First => true,
            Witness::Copies => !patch,
            _ => false,
        }
    }
}

/// The frame two different readings are decided for, or `None` (refused): every
/// witness that speaks says the same frame, and it is one that can stand; it is
/// said by a witness that decides alone or by two that agree; copies voting both
/// ways, or the plausibility of the placement (how deep the replacement reaches
/// against what it replaces) speaking for the other reading, refuse. With no
/// witness speaking, the one reading that can stand at all, if only one can.
fn decide(
    inferred: &Inference,
    one_step: bool,
    says: &[(Witness, Option<Frame>)],
    patch: bool,
) -> Option<Frame> {
    let other = |f: Frame| match f {
        Frame::Old => Frame::File,
        Frame::File => Frame::Old,
    };
    let vetoed =
        |f: Frame| !inferred.plausible[f as usize] && inferred.plausible[other(f) as usize];
    if inferred.copies_split {
        return None;
    }
    let mut said: Option<Frame> = None;
    let (mut speakers, mut alone) = (0usize, false);
    for &(w, say) in says {
        let Some(f) = say else { continue };
        if said.is_some_and(|g| g != f) {
            return None;
        }
        said = Some(f);
        speakers += 1;
        alone |= w.decides_alone(patch);
    }
    // One unchanged line at the file's column is what a plain slip sends for
    // two commits alike: newText at the file's indentation, or in oldText's
    // frame where the commit moved the block by exactly the slip's depth (the
    // kept line moved with it). The witnesses that read newText's own lines
    // against oldText's then all read that line; only one that reads the file
    // around the replacement may decide it, or newText as written starting
    // one step inside the block the line above opens (`one_step`).
    let lone = said == Some(Frame::File)
        && inferred.lone_file_copy
        && inferred.can(Frame::Old)
        && !one_step
        && !says
            .iter()
            .any(|&(w, say)| say.is_some() && w.reads_the_file());
    match said {
        Some(_) if lone => None,
        // The other reading cannot stand at all (newText's indentation is not
        // the file's kind, or not placeable): one witness for this one is enough.
        Some(f) => {
            (inferred.can(f) && !vetoed(f) && (alone || speakers >= 2 || !inferred.can(other(f))))
                .then_some(f)
        }
        None => match (inferred.can(Frame::Old), inferred.can(Frame::File)) {
            (true, false) if !vetoed(Frame::Old) => Some(Frame::Old),
            (false, true) if !vetoed(Frame::File) => Some(Frame::File),
            _ => None,
        },
    }
}

/// The replacement for one place: kept lines as the file has them, the others
/// through the place's mappings. `Err` names a `newText` line (1-based) that the
/// indentation mapping cannot place.
pub(super) fn write_place(
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

/// Bench only: one frame decision's witnesses, as a JSON line on stderr (see
/// `bench/edit-replay.py --trace`).
#[cfg(feature = "frame-trace")]
fn trace(
    inferred: &super::frame::Inference,
    (a, b): (&Replacement, &Replacement),
    (fit_old, fit_file): (super::frame::Fit, super::frame::Fit),
    [layout, minimal, between, edge]: [Option<Frame>; 4],
    decided: Option<Frame>,
    patch: bool,
    stage: MatchStage,
) {
    let f = |x: Option<Frame>| match x {
        Some(Frame::Old) => "old",
        Some(Frame::File) => "file",
        None => "-",
    };
    let record = serde_json::json!({
        "patch": patch, "stage": stage.name(),
        "start": a.start, "end": a.end, "old_text": a.text, "file_text": b.text,
        "copies": f(inferred.copies), "copies_split": inferred.copies_split,
        "weak": f(inferred.weak),
        "first": f(inferred.first), "first_unlike": f(inferred.first_unlike),
        "base": f(inferred.base),
        "brackets_raw": f(fit_old.against(&fit_file)),
        "fit_old": [fit_old.agree, fit_old.disagree],
        "fit_file": [fit_file.agree, fit_file.disagree],
        "layout": f(layout), "minimal": f(minimal), "between": f(between), "edge": f(edge), "versions": f(inferred.versions),
        "possible": inferred.possible, "plausible": inferred.plausible,
        "inferred": f(inferred.frame), "decided": f(decided),
    });
    eprintln!("frame-trace {record}");
}
