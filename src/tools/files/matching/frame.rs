//! The witnesses of which frame `newText` is written in — `oldText`'s (shifted
//! by the match's indentation mapping) or the file's (written as it is) — each
//! reading one kind of evidence: copies and versions of `oldText`'s lines, the
//! first and the outermost line, the brackets at the edges of the replacement
//! (a line that starts with `}` stands under the line that opened its block)
//! and Python block headers, the line above the replacement (the edge), a
//! hunk's added runs among their siblings and their layout. Each only says;
//! `stages::decide` takes a frame when they agree (the rule, and each
//! witness's figures on tuned and held-out histories, are in the module doc of
//! `matching`), and a refusal names both readings' first differing line (see
//! [`first_difference`]).

use super::lines::{
    Frame, Lines, Place, Replacement, Snippet, alike, ascii_typography, bracket_balance, columns,
    directive, ends_with_block_keyword, is_indent_byte, parts,
};
use similar::{Algorithm, DiffOp};
use std::collections::HashMap;

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
pub(super) fn infer_frame(
    lines: &Lines<'_>,
    old: &Snippet<'_>,
    new: &Snippet<'_>,
    line0_mapped: bool,
    hunk_deeper: Option<bool>,
    place: &Place,
) -> Inference {
    let patch = hunk_deeper.is_some();
    let votes = copy_votes(lines, old, new, place, patch);
    let indents = Indents::at(lines, old, new, place);
    // newText's line 0 is its first non-blank one (the one `write_place` maps by
    // the first line's own pair) only when it is not blank itself.
    let line0 = line0_mapped && new.lines.first().is_some_and(|l| !parts(l).blank());
    let (possible, plausible) = placements(&indents, place, line0, hunk_deeper);
    let first = first_line_witness(lines, old, new, place);
    let first_at = match (first.at_old, first.at_file) {
        (true, _) => Some(Frame::Old),
        (_, true) => Some(Frame::File),
        _ => None,
    };
    // A hunk's first added line and its outermost one stand wherever the
    // change falls, not in place of the hunk's first or outermost line: for a
    // patch they witness nothing.
    let first_at = first_at.filter(|_| !patch);
    let first_says = first_at.filter(|_| first.alike);
    let base_says = outermost_witness(&indents);
    // A first line unlike the one it replaces still tells the frame when the
    // outermost lines say the same: two witnesses that agree.
    let both_say = first_at.filter(|f| base_says == Some(*f));
    let voted = match votes.old.cmp(&votes.file) {
        std::cmp::Ordering::Greater => Some(Frame::Old),
        std::cmp::Ordering::Less => Some(Frame::File),
        // A line that reads as a copy in either frame, or no copy at all: the
        // votes say nothing.
        std::cmp::Ordering::Equal => None,
    };
    // Copies of punctuation lines (`}`) are in every block: they vote only
    // beside a first line at the same frame's indentation.
    let weak = if votes.weak_old > votes.weak_file && first.at_old {
        Some(Frame::Old)
    } else if votes.weak_file > votes.weak_old && first.at_file {
        Some(Frame::File)
    } else {
        None
    };
    let mut inference = Inference {
        frame: None,
        possible,
        plausible,
        copies: voted,
        copies_split: votes.old > 0 && votes.file > 0,
        // Exact copies, where there are any, say more than versions, which the
        // edit changed (and may have moved with the change).
        versions: match votes.versions {
            _ if votes.old + votes.file > 0 => None,
            (o, 0) if o > 0 => Some(Frame::Old),
            (0, f) if f > 0 => Some(Frame::File),
            _ => None,
        },
        weak,
        first: first_says,
        first_unlike: first_at.filter(|_| !first.alike),
        // A hunk's added lines stand wherever the change falls, so their outermost
        // line is no witness (on the tuned histories it was wrong in 265 of 1,382
        // hunks where it spoke).
        base: base_says.filter(|_| !patch),
        lone_file_copy: !patch
            && votes.file == 1
            && votes.old == 0
            && !votes.keeps_all_old
            && (first_says != Some(Frame::File) || votes.first_is_file_copy),
    };
    inference.frame = frame_of_texts(&inference, votes.either, both_say);
    inference
}

/// The frame the texts alone settle on, so that the witnesses' order of
/// precedence (copies, then the weak copies and the first line, then what can
/// stand at all) is one rule in one place.
fn frame_of_texts(inferred: &Inference, either: bool, both_say: Option<Frame>) -> Option<Frame> {
    let other = |f: Frame| {
        if f == Frame::Old {
            Frame::File
        } else {
            Frame::Old
        }
    };
    let possible = |f: Frame| inferred.possible[f as usize];
    let plausible = |f: Frame| inferred.plausible[f as usize];
    match inferred.copies {
        // The first line against the copies: a kept line moved by the edit by
        // exactly the slip's depth looks like the other frame. Undecided.
        Some(f) if inferred.first == Some(other(f)) => None,
        // The votes' frame must also be a plausible placement; when only the
        // other one is, the lines that voted were moved by the edit itself (a
        // block wrapped in a new one shifts every kept line by the same depth as
        // the slip did): nothing tells which was meant.
        Some(f) if plausible(f) || !plausible(other(f)) => Some(f),
        Some(_) => None,
        None if either => None,
        None => match inferred.weak.or(inferred.first).or(both_say) {
            Some(f) if possible(f) && plausible(f) => Some(f),
            Some(_) => None,
            None => match (possible(Frame::Old), possible(Frame::File)) {
                (true, false) => Some(Frame::Old),
                (false, true) => Some(Frame::File),
                _ => None,
            },
        },
    }
}

/// How newText's copies and versions of oldText's lines voted.
#[derive(Default)]
struct Votes {
    /// Telling copies at oldText's indentation, and at the file's.
    old: usize,
    file: usize,
    /// A copy that reads as one in either frame.
    either: bool,
    /// Copies of lines that tell nothing of their block (`}`, `fi`).
    weak_old: usize,
    weak_file: usize,
    /// An edit's versions of oldText's lines, `(Old, File)`.
    versions: (usize, usize),
    /// Whether newText's first non-blank line is a telling copy at the file's
    /// indentation (then the first-line witness reads that same line).
    first_is_file_copy: bool,
    /// Whether every non-blank line of oldText is in newText (up to
    /// indentation): the edit only adds lines around oldText.
    keeps_all_old: bool,
}

/// A line's content with its typography read as ASCII: copies are found by it.
fn plain_core(l: &str) -> String {
    let p = parts(l);
    ascii_typography(p.core).into_owned()
}

/// A line of punctuation alone (`}`, `);`) is in every block: a copy of it says
/// nothing about which one, so it does not vote.
/// Nor does a keyword that only ends a block (`fi`, `done`, `end`).
fn telling(core: &str) -> bool {
    core.chars().any(char::is_alphanumeric)
        && !matches!(
            core.trim_end_matches(';'),
            "fi" | "done" | "esac" | "end" | "else" | "then" | "do" | "endif" | "endfor"
        )
}

/// The copies' votes are kept apart from the rest of the inference because they
/// are the one witness that reads newText line by line against oldText's.
fn copy_votes(
    lines: &Lines<'_>,
    old: &Snippet<'_>,
    new: &Snippet<'_>,
    place: &Place,
    patch: bool,
) -> Votes {
    // Each line of oldText whose indentation differs from the file's, by content:
    // a line of newText with that content is a copy of one of them.
    let mut by_core: HashMap<String, Vec<(&str, &str)>> = HashMap::new();
    for (i, l) in old.lines.iter().enumerate() {
        let (o, f) = (parts(l), parts(lines.line(place.first + i)));
        if !o.blank() && o.indent != f.indent {
            by_core
                .entry(plain_core(l))
                .or_default()
                .push((o.indent, f.indent));
        }
    }
    let mut votes = Votes::default();
    let mut first_line = true;
    for l in &new.lines {
        let n = parts(l);
        if n.blank() {
            continue;
        }
        let is_first = std::mem::replace(&mut first_line, false);
        // A patch's added line is weighed against a line it is a version of
        // (`-call(a)` then `+call(a, b)`, or a neighbour much like it) when no
        // line of oldText is its copy: the two stand at one depth.
        let c = plain_core(l);
        // Every line it is a version of weighs in (a line split in two has two
        // halves); which ones, not the map's order, decides.
        // A hunk's added line with the very content of a removed one is a line
        // the change re-indented (one it left alone is context): its depth says how
        // far the change moved it, not which frame the hunk is written in.
        let (pairs, version): (Vec<&(&str, &str)>, bool) = match by_core.get(&c) {
            Some(_) if patch => continue,
            Some(pairs) => (pairs.iter().collect(), false),
            // A line that is a version of one of oldText's (`call(a)` and
            // `call(a, b)`, or a neighbour much like it) stands at its depth too.
            None => (
                by_core
                    .iter()
                    .filter(|(k, _)| alike(k, &c))
                    .flat_map(|(_, v)| v)
                    .collect(),
                !patch,
            ),
        };
        if pairs.is_empty() {
            continue;
        }
        let as_old = pairs.iter().any(|(o, _)| *o == n.indent);
        let as_file = pairs.iter().any(|(_, f)| *f == n.indent);
        match (as_old, as_file, telling(n.core)) {
            // An edit's versions are a witness of their own (see `Inference`).
            (true, false, true) if version => votes.versions.0 += 1,
            (false, true, true) if version => votes.versions.1 += 1,
            (true, false, true) => votes.old += 1,
            (false, true, true) => {
                votes.file += 1;
                votes.first_is_file_copy |= is_first;
            }
            (true, false, false) => votes.weak_old += 1,
            (false, true, false) => votes.weak_file += 1,
            (true, true, _) => votes.either = true,
            _ => {}
        }
    }
    votes.keeps_all_old = keeps_every_line(old.lines.iter().copied(), new.lines.iter().copied());
    votes
}

/// Whether every non-blank line of oldText stands in newText (up to
/// indentation and typography): the edit only adds lines around oldText.
pub(super) fn keeps_every_line<'a>(
    mut old: impl Iterator<Item = &'a str>,
    new: impl Iterator<Item = &'a str>,
) -> bool {
    let kept: std::collections::HashSet<String> = new.map(plain_core).collect();
    old.all(|l| parts(l).blank() || kept.contains(&plain_core(l)))
}

/// The non-blank lines' indentation in oldText, in newText, and in the file's
/// lines at the place, which every test below reads.
struct Indents {
    old: Vec<String>,
    new: Vec<String>,
    file: Vec<String>,
}

impl Indents {
    /// Gathered once, because the depth, kind and outermost-line witnesses all
    /// read the same three columns of indentation.
    fn at(lines: &Lines<'_>, old: &Snippet<'_>, new: &Snippet<'_>, place: &Place) -> Indents {
        // A preprocessor directive stands at column 0 in every frame: it tells
        // nothing of one.
        let indents = |ls: &mut dyn Iterator<Item = &str>| -> Vec<String> {
            ls.map(parts)
                .filter(|p| !p.blank() && !directive(p.core))
                .map(|p| p.indent.to_string())
                .collect()
        };
        Indents {
            old: indents(&mut old.lines.iter().copied()),
            new: indents(&mut new.lines.iter().copied()),
            file: indents(&mut (0..old.lines.len()).map(|i| lines.line(place.first + i))),
        }
    }
}

/// The least depth (in columns, a tab as 4) among indentations.
fn least(is: &mut dyn Iterator<Item = &str>) -> Option<usize> {
    is.map(|i| columns(i, 4)).min()
}

/// Where each reading can stand at all (`possible`: the kind of indentation,
/// the depth relative to oldText), and whether it stays within the depth of
/// what it replaces (`plausible`), each `[Old, File]`: they bound what the
/// witnesses may decide, apart from which frame they say.
fn placements(
    indents: &Indents,
    place: &Place,
    line0: bool,
    hunk_deeper: Option<bool>,
) -> ([bool; 2], [bool; 2]) {
    // Where each reading puts newText's outermost line, against the outermost
    // line of the lines it replaces: a replacement that reaches shallower than
    // everything it replaces is not what an edit of those lines means.
    let region = least(&mut indents.file.iter().map(String::as_str));
    let reach = |frame: Frame| -> Option<usize> {
        let placed: Vec<Option<String>> = indents
            .new
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
    let old_first = indents.old.first().map(|i| columns(i, 4));
    let shallow_enough = match (
        least(&mut indents.new.iter().map(String::as_str)),
        least(&mut indents.old.iter().map(String::as_str)),
    ) {
        (Some(n), Some(o)) => n <= (o + 4).max(old_first.unwrap_or(0)),
        _ => true,
    };
    // Read as written, newText's indentation is the file's own kind (tabs or
    // spaces), where the lines it replaces are indented at all.
    // Spaces after a tab align (`\t    b) {`): a line indents with what its
    // indentation starts with.
    let uses = |is: &[String], c: char| {
        is.iter().any(|i| {
            if c == ' ' {
                i.starts_with(' ')
            } else {
                i.contains(c)
            }
        })
    };
    let (file_tabs, file_spaces) = (uses(&indents.file, '\t'), uses(&indents.file, ' '));
    let same_kind = !(file_tabs || file_spaces)
        || ((!uses(&indents.new, '\t') || file_tabs) && (!uses(&indents.new, ' ') || file_spaces));
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
    (
        [possible(Frame::Old), possible(Frame::File)],
        [plausible(Frame::Old), plausible(Frame::File)],
    )
}

/// newText's first line against oldText's first and the file's there.
struct FirstLine {
    /// At oldText's first line's indentation and not the file's there.
    at_old: bool,
    /// At the file's and not oldText's.
    at_file: bool,
    /// A version of oldText's first line.
    alike: bool,
}

/// newText's first line, when it replaces oldText's (the two alike; a first
/// line that is something else says nothing about depth): at oldText's first
/// line's indentation and not the file's there says `Old`, the other way
/// round `File`. Apart because the weak copies read its sides too.
fn first_line_witness(
    lines: &Lines<'_>,
    old: &Snippet<'_>,
    new: &Snippet<'_>,
    place: &Place,
) -> FirstLine {
    let first_of = |ls: &[&str]| {
        ls.iter()
            .map(|l| parts(l))
            .find(|p| !p.blank() && !directive(p.core))
            .map(|p| (p.indent.to_string(), p.core.to_lowercase()))
    };
    let anchor = old
        .lines
        .iter()
        .position(|l| !parts(l).blank() && !directive(parts(l).core));
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
    FirstLine {
        at_old: n0 == o0 && n0 != f0,
        at_file: n0 == f0 && n0 != o0,
        alike,
    }
}

/// newText's outermost line against oldText's and the file's there: at
/// oldText's outermost depth and not the file's says `Old`, the other way round
/// `File` (a replacement mostly stands at the depth of what it replaces).
fn outermost_witness(indents: &Indents) -> Option<Frame> {
    let outermost = |is: &[String]| is.iter().min_by_key(|i| columns(i, 4)).cloned();
    let (new_base, old_base, file_base) = (
        outermost(&indents.new),
        outermost(&indents.old),
        outermost(&indents.file),
    );
    match (new_base == old_base, new_base == file_base) {
        (true, false) => Some(Frame::Old),
        (false, true) => Some(Frame::File),
        _ => None,
    }
}

/// What the texts say of `newText`'s frame at one place.
#[derive(Debug)]
pub(super) struct Inference {
    /// The frame they decide, if any.
    pub(super) frame: Option<Frame>,
    /// Whether each reading (`Old`, `File`) can stand at all.
    pub(super) possible: [bool; 2],
    pub(super) plausible: [bool; 2],
    pub(super) copies: Option<Frame>,
    pub(super) copies_split: bool,
    /// An edit's lines that are versions of oldText's lines (not copies), when
    /// they all say one frame.
    pub(super) versions: Option<Frame>,
    pub(super) weak: Option<Frame>,
    pub(super) first: Option<Frame>,
    pub(super) first_unlike: Option<Frame>,
    pub(super) base: Option<Frame>,
    /// The copies say `File` from one line alone, the first-line witness, if
    /// it speaks, reads that same line, and the edit changes a line of oldText
    /// (one that only adds lines around oldText is an insertion, which does not
    /// move its own context): one unchanged line at the file's column is all
    /// the texts show (see `stages::decide`).
    pub(super) lone_file_copy: bool,
}

impl Inference {
    pub(super) fn can(&self, frame: Frame) -> bool {
        self.possible[frame as usize]
    }
}

/// How the closing lines of a replacement, and of the file after it, line up
/// with the lines that opened their blocks: a line starting with `}`, `)` or `]`
/// that closes a block opened by a line ending with its opener, one of the two
/// in the replacement, agrees when it stands at the opener line's indentation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Fit {
    pub(super) agree: usize,
    pub(super) disagree: usize,
}

impl Fit {
    /// Which of two readings the brackets tell, when one fits with no
    /// disagreement and the other does not fit.
    pub(super) fn against(&self, file: &Fit) -> Option<Frame> {
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
            bracket_fit_within(
                hay,
                &Replacement {
                    start,
                    end,
                    text: text.to_string(),
                },
                false,
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
pub(super) const BRACKET_CONTEXT: usize = 400;

/// The bracket witness for `hay` with `r` written in: the file's lines before the
/// replacement (at most [`BRACKET_CONTEXT`]) open blocks, the replacement's lines
/// and the file's after it close them. Strings in double quotes, character
/// literals and `//` comments are skipped; a language without brackets gives no
/// evidence at all, which is what the caller needs.
pub(super) fn bracket_fit(hay: &str, r: &Replacement) -> Fit {
    bracket_fit_within(hay, r, true)
}

/// [`bracket_fit`], reading the file's lines after the replacement only when
/// `after`: a block the replacement opens and leaves open (its closing line
/// still to come, in a later edit) would otherwise take the closing line of an
/// enclosing block as its own.
fn bracket_fit_within(hay: &str, r: &Replacement, after: bool) -> Fit {
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
    if after {
        for line in hay[r.end..].lines().take(BRACKET_CONTEXT) {
            if !stack.iter().any(|e| e.2 == Side::New) {
                break;
            }
            scan_brackets(line, Side::After, &mut stack, &mut fit);
        }
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
pub(super) fn layout_fit(hay: &str, r: &Replacement) -> Fit {
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
        if side != Side::Before {
            if let Some(&(_, opened_at, Side::New, true)) = blocks.last()
                && !layout_closes(core)
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
            match layout_verdict((above, code), (indent, core), statement) {
                Some(true) => fit.agree += 1,
                Some(false) => fit.disagree += 1,
                None => {}
            }
        }
        let starts = match prev {
            Some((_, code, _)) => {
                !(layout_continues(code, core) || CONTINUED.iter().any(|t| core.starts_with(t)))
                    || code.ends_with(';')
            }
            None => true,
        };
        if starts && !layout_comment(core) {
            statement = indent;
        }
        prev = Some((indent, core, side));
    }
    fit
}

/// Line endings that continue a statement on the next line. A trailing comma is
/// left out: a list's next item stands at its depth.
const CONTINUES: [&str; 11] = ["=", "&&", "||", "+", "-", "*", "|", "->", "=>", "\\", "?"];
/// Line starts that continue the statement of the line above.
const CONTINUED: [&str; 12] = [
    ".", "&&", "||", "+", "-", "*", "|", "?", ":", "as ", "or ", "and ",
];

/// Whether a line is a comment, for the layout witness: code after a comment
/// stands at its depth, whatever the comment's content.
fn layout_comment(core: &str) -> bool {
    ["//", "/*", "* ", "--", "#"]
        .iter()
        .any(|m| core.starts_with(m))
        && !core.starts_with("#[")
        && !core.starts_with("#!")
}

/// Whether a line closes a bracket first: a closer stands shallower than the
/// line above it, not deeper.
fn layout_closes(core: &str) -> bool {
    core.starts_with(['}', ')', ']'])
}

/// Whether a line opens a block the next line stands inside. A shell `case`
/// pattern (`pat)`, `a|b)`) opens its arm like a bracket, and a braceless
/// `if (x)` its one statement.
fn layout_opens(code: &str) -> bool {
    code.ends_with(['{', '(', '['])
        || braceless_header(code)
        || (code.ends_with(')')
            && !code.starts_with(')')
            && code.matches(')').count() > code.matches('(').count())
}

/// Whether the line `core` continues the statement of the line `code` above
/// it: only a continuation may stand deeper than the line above.
fn layout_continues(code: &str, core: &str) -> bool {
    CONTINUES.iter().any(|t| code.ends_with(t))
        || CONTINUED.iter().any(|t| core.starts_with(t))
        || open_mid_line(code).is_some()
}

/// Whether the line `core` at depth `indent` stands where the line `code` at
/// `above` says it should, by one habit at a time in order (the first that
/// applies decides); `None` when no habit applies. `statement`: where the
/// statement `code` belongs to started.
fn layout_verdict(
    (above, code): (usize, &str),
    (indent, core): (usize, &str),
    statement: usize,
) -> Option<bool> {
    if layout_comment(code) {
        (!layout_comment(core) && !layout_closes(core)).then_some(indent == above)
    } else if layout_opens(code) {
        Some(if layout_closes(core) {
            indent == above
        } else {
            indent > above
        })
    } else if layout_closes(core) {
        (indent >= above).then_some(false)
    } else if indent > above {
        // A bracket left open with more of the line after it: the next
        // line aligns with what follows the bracket.
        match open_mid_line(code) {
            Some(at) => Some(indent == above + code[..at].chars().count() + 1),
            None => Some(layout_continues(code, core)),
        }
    } else if indent < above
        && [".", "&&", "||", "+", "|", "?", "or ", "and "]
            .iter()
            .any(|t| core.starts_with(t))
    {
        Some(layout_closes(code))
    } else if code.ends_with(';') && indent > statement && !layout_comment(core) {
        Some(false)
    } else {
        None
    }
}

/// The sibling witness, for a patch's hunk: a run of added lines between two
/// lines at one depth (the non-blank lines just above and below it, context or
/// the file's) stands at that depth, unless the line above opens a block, the
/// line below closes one, or the run starts with a closer, a continuation or a
/// directive. `Some(true)` when every such run of `r` stands so, `Some(false)`
/// when one does not, `None` when no run is between siblings. `kept` says, for
/// each line of the replacement, whether it is context.
pub(super) fn between_fit(hay: &str, r: &Replacement, kept: &[Option<usize>]) -> Option<bool> {
    let text: Vec<&str> = r.text.lines().collect();
    if text.len() != kept.len() {
        return None;
    }
    let depth = |l: &str| columns(parts(l).indent, 4);
    let code = |l: &str| parts(l).core.trim_end().to_string();
    let opens = |l: &str| {
        let c = code(l);
        c.ends_with(['{', '(', '[', ':', '\\'])
            || ["=", "&&", "||", "+", "-", "|", "->", "=>", "?"]
                .iter()
                .any(|t| c.ends_with(t))
            || ends_with_block_keyword(&c)
            || open_bracket(&c).is_some()
            || braceless_header(&c)
    };
    // A closer, a continuation or a directive stands elsewhere than its
    // siblings; a comment stands with them.
    let odd = |l: &str| {
        let c = code(l);
        c.starts_with(['}', ')', ']', '.'])
            || directive(&c)
            || ["&&", "||", "+", "|", "?", ":"]
                .iter()
                .any(|t| c.starts_with(t))
    };
    let before = hay[..r.start].lines().rev().find(|l| !parts(l).blank());
    let after = hay[r.end..].lines().find(|l| !parts(l).blank());
    let mut verdict = None;
    let mut i = 0;
    while i < text.len() {
        if kept[i].is_some() || parts(text[i]).blank() {
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && kept[i].is_none() {
            i += 1;
        }
        let run: Vec<&str> = text[start..i]
            .iter()
            .copied()
            .filter(|l| !parts(l).blank())
            .collect();
        let Some(first) = run.first() else { continue };
        let above = text[..start]
            .iter()
            .rev()
            .copied()
            .find(|l| !parts(l).blank())
            .or(before);
        let below = text[i..]
            .iter()
            .copied()
            .find(|l| !parts(l).blank())
            .or(after);
        let (Some(above), Some(below)) = (above, below) else {
            continue;
        };
        // After a plain statement (`let x = 1;`) the run is its sibling,
        // whatever follows it (a `}` closing the block included).
        let plain = plain_statement(&code(above));
        let siblings = depth(above) == depth(below) && !odd(below);
        if !(siblings || plain) || opens(above) || odd(first) || opens(first) && run.len() == 1 {
            continue;
        }
        let fits = depth(first) == depth(above);
        verdict = Some(verdict.unwrap_or(true) && fits);
    }
    verdict
}

/// The edge witness: when the file's last non-blank line before the
/// replacement opens a block (it ends with `{`, `(` or `[`, or is a Python
/// block header), the replacement's first non-blank line stands deeper than it;
/// when it is a plain statement (ending with `;`, its brackets balanced, no
/// `return` or `break` after which a block ends), a line that only closes
/// (`}`, `});`) or an attribute or decorator, at its depth. Unless the
/// first line closes something itself or either is a directive. `None` when
/// the line above is neither.
pub(super) fn edge_fit(hay: &str, r: &Replacement) -> Option<bool> {
    let above = hay[..r.start].lines().rev().find(|l| !parts(l).blank())?;
    let first = r.text.lines().find(|l| !parts(l).blank())?;
    let (a, f) = (parts(above), parts(first));
    let code = a.core.trim_end();
    let opens = opens_block(a.core);
    if f.core.starts_with(['}', ')', ']']) || directive(f.core) || directive(a.core) {
        return None;
    }
    let (fd, ad) = (columns(f.indent, 4), columns(a.indent, 4));
    // The tail of a header continued from lines above (`    b) {`): the block
    // it opens is indented from where the statement began, which is not here.
    let count = |cs: &[char]| code.chars().filter(|c| cs.contains(c)).count();
    if count(&[')', ']']) > count(&['(', '[']) {
        return None;
    }
    if opens {
        return Some(fd > ad);
    }
    // A statement that ends on its line and closes nothing it did not open:
    // the line after it is its sibling.
    let plain = plain_statement(code);
    // A line that only closes (`}`, `});`): the statement it ends is done, and
    // the next one stands beside it.
    let closes_only = !code.is_empty() && code.chars().all(|c| "})];,".contains(c));
    (plain || closes_only || decorates(code)).then_some(fd == ad)
}

/// An attribute or a decorator alone on its line (`#[test]`, `@Override`,
/// `@app.route("/")`): the item it decorates follows at its depth.
fn decorates(code: &str) -> bool {
    if code.starts_with("#[") {
        return code.ends_with(']');
    }
    let Some(rest) = code.strip_prefix('@') else {
        return false;
    };
    // A name, dotted, then perhaps its arguments: not Ruby's `@x = 1`.
    let name_end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(rest.len());
    let (name, args) = rest.split_at(name_end);
    name.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && (args.is_empty() || args.starts_with('(') && args.ends_with(')'))
}

/// For one unchanged line at the file's column (see `stages::decide`): the
/// file's line above the replacement opens a block, and newText as written
/// starts one step inside it where the shifted reading would start two steps
/// in (the step being the slip's depth). A block's first line stands one step
/// inside its opener, so this reads the file, not newText's own lines.
pub(super) fn one_step_inside_opener(hay: &str, old: &Replacement, file: &Replacement) -> bool {
    let Some(above) = hay[..file.start].lines().rev().find(|l| !parts(l).blank()) else {
        return false;
    };
    let a = parts(above);
    if !opens_block(a.core) {
        return false;
    }
    let first = |r: &Replacement| {
        r.text
            .lines()
            .find(|l| !parts(l).blank())
            .map(|l| columns(parts(l).indent, 4))
    };
    let (Some(fo), Some(ff)) = (first(old), first(file)) else {
        return false;
    };
    let ad = columns(a.indent, 4);
    ff > ad && fo > ff && ff - ad == fo - ff
}

/// Whether a line opens a block its next line stands one step inside: it
/// ends with `{`, `(` or `[`, or is a Python block header or a braceless C
/// header (`if (x)`).
fn opens_block(core: &str) -> bool {
    core.trim_end().ends_with(['{', '(', '[']) || python_header(core) || braceless_header(core)
}

/// A C-family control header without its brace (`if (x)`, `for (;;)`,
/// `else`, `do`): the one statement it governs stands deeper on the next line.
pub(super) fn braceless_header(core: &str) -> bool {
    let code = core.trim_end();
    if matches!(code, "else" | "do") {
        return true;
    }
    let rest = ["if", "else if", "for", "while", "switch"]
        .iter()
        .find_map(|k| code.strip_prefix(k))
        .map(str::trim_start);
    rest.is_some_and(|r| {
        r.starts_with('(') && r.ends_with(')') && r.matches('(').count() == r.matches(')').count()
    })
}

/// A statement that ends on its line (`x = f(a);`) and closes nothing it did
/// not open: the next line is its sibling (after `return` or `break`, a block
/// may end instead).
fn plain_statement(code: &str) -> bool {
    // A line that starts with a quote ends a multi-line string (`"#;`, `""")`,
    // `` `; ``): its indentation is the string's, not the code's.
    code.ends_with(';')
        && bracket_balance(code) == 0
        && !code.starts_with(['}', ')', ']', '.', '"', '\'', '`'])
        && !["return", "break", "continue", "goto", "throw", "exit"]
            .iter()
            .any(|w| code.starts_with(w))
}

/// A Python block header: a compound statement's keyword, and a colon ending
/// the line (before a comment).
pub(super) fn python_header(core: &str) -> bool {
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
pub(super) enum Side {
    Before,
    New,
    After,
}

/// An opening bracket not closed yet: the closer it expects, its line's
/// indentation in columns, which side of the edge it is on, and whether it ends
/// its line (opens a block, so its closing line stands under it).
pub(super) type Open = (u8, usize, Side, bool);

pub(super) fn scan_brackets(line: &str, side: Side, stack: &mut Vec<Open>, fit: &mut Fit) {
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
pub(super) fn first_difference(
    hay: &str,
    a: &Replacement,
    b: &Replacement,
) -> (usize, String, String) {
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
pub(super) fn open_mid_line(code: &str) -> Option<usize> {
    open_bracket(code).filter(|&at| at + 1 < code.len())
}

/// The byte offset of the innermost bracket `code` leaves open, if any.
/// Double-quoted strings are skipped (a single quote is as often a Rust
/// lifetime or an apostrophe as a string).
pub(super) fn open_bracket(code: &str) -> Option<usize> {
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
pub(super) fn lines_kept(hay: &str, r: &Replacement) -> usize {
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
pub(super) fn kept_lines(old: &Snippet<'_>, new: &Snippet<'_>) -> Vec<Option<usize>> {
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

#[cfg(test)]
mod tests {
    use super::decorates;

    #[test]
    fn attributes_and_decorators_decorate_and_ruby_ivars_do_not() {
        for yes in [
            "#[test]",
            "#[cfg(test)]",
            "@Override",
            "@app.route(\"/\")",
            "@pytest.fixture",
        ] {
            assert!(decorates(yes), "{yes}");
        }
        for no in [
            "@x = 1",
            "@count += 1",
            "#include <x>",
            "@",
            "@1",
            "# [x]",
            "@media (x) {",
        ] {
            assert!(!decorates(no), "{no}");
        }
    }
}
