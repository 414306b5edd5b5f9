//! Which refusal an `oldText` that was not found gets: "already applied", or
//! the closest region (issue 39). The claim sends a caller on as if its edit
//! were made, so it is made only when the file shows it; the closest region at
//! worst shows the caller what it got wrong, so it is the answer whenever the
//! evidence does not decide.
//!
//! The file shows it when `newText` stands where `oldText` would have been and
//! nothing else is as good a guess at what `oldText` meant. `newText` stands
//! there when:
//!
//! - `oldText` and `newText` share context, a common prefix or suffix holding a
//!   letter or digit (`version = "` and `.0.0"`): an occurrence of `newText`
//!   carries it, so stands where `oldText` would have;
//! - else, aligned by `similar` against one of the windows `closest` ranks,
//!   `oldText` lines up with an occurrence of `newText`, at least half of it
//!   matched: the characters it matches lie in the occurrence, which begins
//!   where its first character lines up when that one is matched (an unmatched
//!   beginning is what was replaced), and ends likewise. `total` on the line
//!   where `saturating_add(l - 3)` lines up with `saturating_add(l - 2)` is no
//!   sign of an edit;
//! - else, when no window lines up with `oldText` at all, `newText` stands as
//!   whole lines.
//!
//! Something else is as good a guess when a text within a typo of `oldText`
//! ([`typo_budget`] character edits) and no farther from it than `newText` is
//! stands anywhere but within an occurrence of `newText`: `oldText` may be a
//! typo of it, and a tie decides nothing. A text holding `newText` and more
//! counts (`0 + ` is a typo away from `a + `, though ` + ` stands in it).
//!
//! The search for such texts is Myers' bit-parallel approximate search over the
//! whole file for an `oldText` of at most [`NEAR_MAX_CHARS`] characters, and
//! Sellers' table over the ranked windows for a longer one; a table of the texts
//! that end within an occurrence of `newText` but begin before it tells its own
//! near matches from rivals. It is bounded ([`MAX_TABLE_CELLS`],
//! [`NEAR_MAX_HITS`], time-boxed alignments), what is not searched is not
//! vouched for, and all of it runs only on a refusal.

use super::closest::{Windows, windows};
use super::lines::line_starts;
use super::refusal::EditFailure;
use memchr::memmem;
use similar::{DiffOp, TextDiff};
use std::collections::HashMap;
use std::ops::Range;
use std::time::Duration;

/// Texts up to this many bytes together are aligned by characters, longer
/// ones by lines.
const BY_CHARS_UP_TO: usize = 16 * 1024;

/// How long one alignment may take; past it `similar` approximates.
const ALIGN_TIMEOUT: Duration = Duration::from_millis(50);

/// The longest `oldText`, in characters, whose near matches can be looked for.
const NEAR_MAX_CHARS: usize = 64;

/// The largest table the edit distances are computed with (characters of
/// `oldText` times characters of the text searched).
const MAX_TABLE_CELLS: usize = 1 << 24;

/// How many near matches of `oldText` are looked at before the search gives
/// up (and claims nothing).
const NEAR_MAX_HITS: usize = 1024;

/// The refusal for `old`, which is not in `hay`: [`EditFailure::AlreadyApplied`]
/// when the file shows `old` was replaced by `new` (see the module notes), else
/// [`EditFailure::NotFound`] with the closest region.
pub(super) fn not_found(hay: &str, old: &str, new: &str) -> EditFailure {
    let windows = windows(hay, old);
    if already_applied(hay, old, new, windows.as_ref()) {
        EditFailure::AlreadyApplied
    } else {
        EditFailure::NotFound {
            closest: windows.map(|w| w.closest(hay)),
        }
    }
}

fn already_applied(hay: &str, old: &str, new: &str, windows: Option<&Windows>) -> bool {
    if new.trim().is_empty() || memmem::find(hay.as_bytes(), new.as_bytes()).is_none() {
        return false;
    }
    let stands = shares_context(old, new)
        || match windows {
            Some(windows) => aligns_on_new(hay, old, new, windows),
            None => stands_as_whole_lines(hay, new),
        };
    stands && no_rival(hay, old, new, windows)
}

/// Whether `old`, aligned against one of the `windows`, lines up with an
/// occurrence of `new` (see the module notes), at least half of it matched.
fn aligns_on_new(hay: &str, old: &str, new: &str, windows: &Windows) -> bool {
    // A newText of more lines than oldText may have grown past the window on
    // either side.
    let grow = line_count(new).saturating_sub(windows.lines);
    windows.ranked.iter().any(|&first| {
        let from = first.saturating_sub(grow);
        let span = windows.span(hay, from, first + windows.lines + grow - from);
        let by_chars = old.len() + span.len() <= BY_CHARS_UP_TO;
        let Some(a) = align(old, &hay[span.clone()], by_chars) else {
            return false;
        };
        let core = span.start + a.core.start..span.start + a.core.end;
        2 * a.matched >= a.tokens
            && holding(hay, new, &core).into_iter().any(|q| {
                (a.head > 0 || q == core.start) && (a.tail > 0 || q + new.len() == core.end)
            })
    })
}

/// How many character edits of a text of `n` characters a typo may make: one
/// in eight, at least one.
pub(super) fn typo_budget(n: usize) -> usize {
    (n / 8).max(1)
}

/// Whether no text within a typo of `old`, and no farther from it than `new`
/// is, stands in `hay` but within an occurrence of `new`. Searched in all of
/// `hay` for an `old` of at most [`NEAR_MAX_CHARS`] characters, else in the
/// `windows` where it would line up; as far as [`MAX_TABLE_CELLS`] and
/// [`NEAR_MAX_HITS`] reach. What cannot be searched is not vouched for.
fn no_rival(hay: &str, old: &str, new: &str, windows: Option<&Windows>) -> bool {
    let chars: Vec<char> = old.chars().collect();
    let budget = typo_budget(chars.len());
    let k = distance_within(old, new, budget).unwrap_or(budget);
    let mut own = Own {
        hay,
        old: &chars,
        new,
        k,
        seen: 0,
        before: HashMap::new(),
    };
    if chars.len() <= NEAR_MAX_CHARS {
        return near_ends(hay, old, k, |end| own.owns(end));
    }
    let Some(windows) = windows else {
        return false;
    };
    windows.ranked.iter().all(|&first| {
        // A line either side: the votes may put the window a line off.
        let from = first.saturating_sub(1);
        let span = windows.span(hay, from, first + windows.lines + 1 - from);
        near_ends_by_table(&hay[span.clone()], old, k, |end| own.owns(span.start + end))
    })
}

/// Tells near matches of `oldText` that lie within an occurrence of
/// `newText` (its own) from the rest (rivals).
struct Own<'a> {
    hay: &'a str,
    old: &'a [char],
    new: &'a str,
    /// How near a text must be to count.
    k: usize,
    /// Near matches looked at.
    seen: usize,
    /// By occurrence of `newText`: for each end within it, the fewest edits of
    /// `oldText` into a text ending there that begins before it (`None` when
    /// that table would be too big).
    before: HashMap<usize, Option<Vec<usize>>>,
}

impl Own<'_> {
    /// Whether every text within `k` edits of `oldText` ending at byte `end`
    /// lies within an occurrence of `newText`: `end` is in one, and no such
    /// text begins before it.
    fn owns(&mut self, end: usize) -> bool {
        self.seen += 1;
        let n = self.new.len();
        let lo = end.saturating_sub(n);
        let hi = (end + n).min(self.hay.len());
        // The earliest occurrence holding `end` lets the most texts be its own.
        let Some(q) = memmem::find_iter(&self.hay.as_bytes()[lo..hi], self.new.as_bytes())
            .map(|i| lo + i)
            .find(|&q| q < end && end <= q + n)
        else {
            return false;
        };
        let (hay, old, k) = (self.hay, self.old, self.k);
        let before = self
            .before
            .entry(q)
            .or_insert_with(|| begun_before(hay, old, q, n, k));
        self.seen <= NEAR_MAX_HITS && before.as_ref().is_some_and(|d| d[end - q] > k)
    }
}

/// For each end in `q..=q + n` (by its offset from `q`), the fewest edits of
/// `old` into a text of `hay` ending there and beginning before `q`: Sellers'
/// table from as far back as such a text can begin and still be within `k`
/// edits, where a text may begin only before `q`. `None` past
/// [`MAX_TABLE_CELLS`].
fn begun_before(hay: &str, old: &[char], q: usize, n: usize, k: usize) -> Option<Vec<usize>> {
    let m = old.len();
    let mut dist = vec![usize::MAX; n + 1];
    let from = hay[..q]
        .char_indices()
        .rev()
        .nth((m + k).saturating_sub(1))
        .map_or(0, |(i, _)| i);
    if from >= q {
        return Some(dist);
    }
    let text = &hay[from..q + n];
    if m.saturating_mul(text.len()) > MAX_TABLE_CELLS {
        return None;
    }
    // column[i]: the fewest edits of old[..i] into a text ending here.
    let mut column: Vec<usize> = (0..=m).collect();
    for (at, c) in text.char_indices() {
        let end = from + at + c.len_utf8();
        let mut diag = column[0];
        // Empty, the text begins here: allowed only before `q`.
        column[0] = if end < q {
            0
        } else {
            column[0].saturating_add(1)
        };
        for i in 1..=m {
            let here = column[i];
            column[i] = diag
                .saturating_add(usize::from(old[i - 1] != c))
                .min(column[i - 1].saturating_add(1))
                .min(here.saturating_add(1));
            diag = here;
        }
        if end > q {
            dist[end - q] = column[m];
        }
    }
    Some(dist)
}

/// Where `oldText` lines up in a text.
#[derive(Debug)]
struct Alignment {
    /// Bytes of the text from the first token `oldText` matches to the end of
    /// the last.
    core: Range<usize>,
    /// `oldText`'s tokens before its first matched one, and after its last.
    head: usize,
    tail: usize,
    /// `oldText`'s tokens matched, and all of them.
    matched: usize,
    tokens: usize,
}

fn diff<'a>(old: &'a str, text: &'a str, by_chars: bool) -> TextDiff<'a, 'a, str> {
    let mut config = TextDiff::configure();
    config.timeout(ALIGN_TIMEOUT);
    if by_chars {
        config.diff_chars(old, text)
    } else {
        config.diff_lines(old, text)
    }
}

/// `oldText` aligned against `text`, if any token of it matches.
fn align(old: &str, text: &str, by_chars: bool) -> Option<Alignment> {
    let diff = diff(old, text, by_chars);
    let mut offsets = Vec::with_capacity(diff.new_len() + 1);
    offsets.push(0);
    let mut at = 0;
    for token in diff.iter_new_slices() {
        at += token.len();
        offsets.push(at);
    }
    let (mut first, mut last, mut matched) = (None, (0, 0), 0);
    for op in diff.ops() {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        {
            first.get_or_insert((old_index, new_index));
            last = (old_index + len, new_index + len);
            matched += len;
        }
    }
    let (head, w0) = first?;
    let (o1, w1) = last;
    Some(Alignment {
        core: offsets[w0]..offsets[w1],
        head,
        tail: diff.old_len() - o1,
        matched,
        tokens: diff.old_len(),
    })
}

/// The occurrences of `new` in `hay` that hold all of `core`. Only those can:
/// the search is bounded by `new`'s length, so a short `new` seen all over the
/// file costs nothing here.
fn holding(hay: &str, new: &str, core: &Range<usize>) -> Vec<usize> {
    let n = new.len();
    if core.len() > n {
        return Vec::new();
    }
    let lo = core.end - n.min(core.end);
    let hi = (core.start + n).min(hay.len());
    memmem::find_iter(&hay.as_bytes()[lo..hi], new.as_bytes())
        .map(|i| lo + i)
        .filter(|&q| q <= core.start && q + n >= core.end)
        .collect()
}

/// Whether `old` and `new` share a common prefix or suffix holding a letter
/// or digit (they never overlap: the suffix is sought in what the prefix left).
fn shares_context(old: &str, new: &str) -> bool {
    let p: usize = old
        .chars()
        .zip(new.chars())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    let (o, n) = (&old[p..], &new[p..]);
    let s: usize = o
        .chars()
        .rev()
        .zip(n.chars().rev())
        .take_while(|(a, b)| a == b)
        .map(|(a, _)| a.len_utf8())
        .sum();
    let word = |t: &str| t.chars().any(char::is_alphanumeric);
    word(&old[..p]) || word(&o[o.len() - s..])
}

/// Lines of a text, a final line break ending the last one.
fn line_count(text: &str) -> usize {
    text.strip_suffix('\n').unwrap_or(text).split('\n').count()
}

/// Whether `new` stands somewhere as whole lines: from a line's indentation
/// to its end. The hit's line start comes from the table, not a scan back per
/// hit (one long line holding many hits would make that quadratic).
fn stands_as_whole_lines(hay: &str, new: &str) -> bool {
    let starts = line_starts(hay);
    let bytes = hay.as_bytes();
    memmem::find_iter(bytes, new.as_bytes()).any(|at| {
        let end = at + new.len();
        let line_start = starts[starts.partition_point(|&s| s <= at) - 1];
        bytes[line_start..at]
            .iter()
            .all(|&b| b == b' ' || b == b'\t')
            && (end == bytes.len() || bytes[end] == b'\n' || new.ends_with('\n'))
    })
}

/// Calls `visit` with the byte offset just past every character of `hay` where
/// a text within `k` character edits of `old` ends, while it answers true;
/// whether it always did. Myers' bit-parallel approximate search, one pass
/// over the characters, for an `old` of 1 to [`NEAR_MAX_CHARS`] characters
/// (false for any other).
pub(super) fn near_ends(
    hay: &str,
    old: &str,
    k: usize,
    mut visit: impl FnMut(usize) -> bool,
) -> bool {
    let pattern: Vec<char> = old.chars().collect();
    let m = pattern.len();
    if m == 0 || m > NEAR_MAX_CHARS {
        return false;
    }
    let mut ascii = [0u64; 128];
    let mut other: Vec<(char, u64)> = Vec::new();
    for (i, &c) in pattern.iter().enumerate() {
        if c.is_ascii() {
            ascii[c as usize] |= 1 << i;
        } else if let Some(e) = other.iter_mut().find(|e| e.0 == c) {
            e.1 |= 1 << i;
        } else {
            other.push((c, 1 << i));
        }
    }
    let last = 1u64 << (m - 1);
    // The score is the distance of all of `old` to the best text ending here.
    let (mut pv, mut mv, mut score) = (!0u64, 0u64, m);
    for (at, c) in hay.char_indices() {
        let eq = if c.is_ascii() {
            ascii[c as usize]
        } else {
            other.iter().find(|e| e.0 == c).map_or(0, |e| e.1)
        };
        let xv = eq | mv;
        let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
        let ph = mv | !(xh | pv);
        let mh = pv & xh;
        if ph & last != 0 {
            score += 1;
        } else if mh & last != 0 {
            score = score.saturating_sub(1);
        }
        // A match may start anywhere: nothing enters from the top row.
        let (ph, mh) = (ph << 1, mh << 1);
        pv = mh | !(xv | ph);
        mv = ph & xv;
        if score <= k && !visit(at + c.len_utf8()) {
            return false;
        }
    }
    true
}

/// As [`near_ends`], by Sellers' table: any length of `old`, but only while
/// the table has at most [`MAX_TABLE_CELLS`] cells (false beyond).
fn near_ends_by_table(
    text: &str,
    old: &str,
    k: usize,
    mut visit: impl FnMut(usize) -> bool,
) -> bool {
    let old: Vec<char> = old.chars().collect();
    if old.len().saturating_mul(text.len()) > MAX_TABLE_CELLS {
        return false;
    }
    // column[i]: the fewest edits of old[..i] into a text ending here.
    let mut column: Vec<usize> = (0..=old.len()).collect();
    for (at, c) in text.char_indices() {
        let mut diag = column[0];
        for i in 1..=old.len() {
            let here = column[i];
            column[i] = (diag + usize::from(old[i - 1] != c))
                .min(column[i - 1] + 1)
                .min(here + 1);
            diag = here;
        }
        if column[old.len()] <= k && !visit(at + c.len_utf8()) {
            return false;
        }
    }
    true
}

/// The character edit distance of `a` and `b` when it is at most `k`; `None`
/// when it is more, or the table would pass [`MAX_TABLE_CELLS`].
fn distance_within(a: &str, b: &str, k: usize) -> Option<usize> {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > k || a.len().saturating_mul(b.len()) > MAX_TABLE_CELLS {
        return None;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, y) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(x != y)).min(row[j] + 1).min(here + 1);
            prev = here;
        }
    }
    Some(row[b.len()]).filter(|&d| d <= k)
}
