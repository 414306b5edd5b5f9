//! What a refusal shows when `oldText` is not found: the closest region of the
//! file (lines vote for the window where they would line up, words when no line
//! does; common keys stop voting, the best few windows are ranked by `similar`'s
//! character ratio), and whether the edit appears to be applied already.

use super::lines::line_starts;
use memchr::memmem;
use std::collections::HashMap;
use std::time::Duration;

/// How many lines of the closest region a "not found" refusal shows.
pub(super) const MAX_REGION_LINES: usize = 30;

/// A line or word seen more often than this says nothing about where the
/// snippet was meant to be, and stops voting.
pub(super) const MAX_VOTES_PER_KEY: usize = 256;

/// How many of the best-voted windows are ranked by similarity.
pub(super) const RANKED_WINDOWS: usize = 5;

/// How many of `oldText`'s words may vote when no line matched.
pub(super) const VOTING_WORDS: usize = 32;

/// The region of the file most like an `oldText` that was not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closest {
    /// 1-based line where the region starts.
    pub line: usize,
    /// The region as shown in the message (already capped).
    pub region: String,
}

/// Whether an `oldText` that was not found was most likely replaced by `newText`
/// already: `newText` of several lines is present, or `newText` stands where
/// `oldText` is closest (inside that region), or, with nothing close,
/// it stands as whole lines. A short `newText` that merely occurs somewhere (one
/// character, a common word) says nothing, and the closest region is more use.
pub(super) fn already_applied(hay: &str, old: &str, new: &str, closest: Option<&Closest>) -> bool {
    if new.trim().is_empty() {
        return false;
    }
    let hits: Vec<usize> = memmem::find_iter(hay.as_bytes(), new.as_bytes()).collect();
    if hits.is_empty() {
        return false;
    }
    if new.lines().filter(|l| !l.trim().is_empty()).count() >= 2 {
        return true;
    }
    let starts = line_starts(hay);
    let line_of = |at: usize| starts.partition_point(|&s| s <= at);
    match closest {
        Some(c) => {
            let k = old.lines().count().max(1);
            let (from, to) = (c.line, c.line + k - 1);
            hits.iter().any(|&at| {
                let (a, b) = (line_of(at), line_of(at + new.len().saturating_sub(1)));
                a >= from && b <= to
            })
        }
        // The hit's line start from the table, not a scan back per hit (one
        // long line holding many hits would make that quadratic); the forward
        // check stops at the line's first non-blank byte.
        None => hits.iter().any(|&at| {
            let bytes = hay.as_bytes();
            let end = at + new.len();
            let line_start = starts[line_of(at) - 1];
            bytes[line_start..at]
                .iter()
                .all(|&b| b == b' ' || b == b'\t')
                && (end == bytes.len() || bytes[end] == b'\n' || new.ends_with('\n'))
        }),
    }
}

/// The region of `hay` most like `old` (see the module notes), if anything is.
pub(super) fn closest_region(hay: &str, old: &str) -> Option<Closest> {
    if hay.is_empty() {
        return None;
    }
    let old_lines: Vec<&str> = old.strip_suffix('\n').unwrap_or(old).split('\n').collect();
    let starts = line_starts(hay);
    let line_end = |i: usize| {
        starts
            .get(i + 1)
            .map_or(hay.strip_suffix('\n').unwrap_or(hay).len(), |&e| e - 1)
    };
    let line = |i: usize| &hay[starts[i]..line_end(i)];

    // Lines equal up to surrounding whitespace vote for where they would line up.
    let mut votes: HashMap<usize, usize> = HashMap::new();
    let mut wanted: HashMap<&str, (Vec<usize>, usize)> = HashMap::new();
    for (j, l) in old_lines.iter().enumerate() {
        let t = l.trim();
        if !t.is_empty() {
            wanted.entry(t).or_default().0.push(j);
        }
    }
    let lengths: std::collections::HashSet<usize> = wanted.keys().map(|k| k.len()).collect();
    for i in 0..starts.len() {
        let t = line(i).trim();
        if !lengths.contains(&t.len()) {
            continue;
        }
        if let Some((js, hits)) = wanted.get_mut(t)
            && *hits < MAX_VOTES_PER_KEY
        {
            *hits += 1;
            for &j in js.iter().filter(|&&j| j <= i) {
                *votes.entry(i - j).or_default() += 1;
            }
        }
    }

    // With no line in common, the longest words vote instead.
    if votes.is_empty() {
        let mut seen = std::collections::HashSet::new();
        let mut words: Vec<(&str, usize)> = Vec::new();
        for (j, l) in old_lines.iter().enumerate() {
            for w in l.split_whitespace() {
                if seen.insert(w) {
                    words.push((w, j));
                }
            }
        }
        words.sort_by_key(|&(w, j)| (std::cmp::Reverse(w.len()), j));
        for &(w, j) in words.iter().take(VOTING_WORDS) {
            let hits: Vec<usize> = memmem::find_iter(hay.as_bytes(), w.as_bytes())
                .take(MAX_VOTES_PER_KEY + 1)
                .collect();
            if hits.len() > MAX_VOTES_PER_KEY {
                continue;
            }
            let mut last_line = None;
            for at in hits {
                let i = starts.partition_point(|&s| s <= at) - 1;
                if i >= j && last_line != Some(i) {
                    *votes.entry(i - j).or_default() += 1;
                }
                last_line = Some(i);
            }
        }
    }
    if votes.is_empty() {
        return None;
    }

    let mut ranked: Vec<(usize, usize)> = votes.into_iter().collect();
    ranked.sort_by_key(|&(start, n)| (std::cmp::Reverse(n), start));
    ranked.truncate(RANKED_WINDOWS);
    let window = |start: usize| {
        let last = (start + old_lines.len()).min(starts.len()) - 1;
        &hay[starts[start]..line_end(last)]
    };
    let wanted_text = old.strip_suffix('\n').unwrap_or(old);
    let mut best: Option<(f32, usize, usize)> = None;
    for &(start, n) in &ranked {
        let ratio = similarity(window(start), wanted_text);
        let better = match best {
            None => true,
            Some((r, bn, bs)) => {
                (ratio, n, std::cmp::Reverse(start)) > (r, bn, std::cmp::Reverse(bs))
            }
        };
        if better {
            best = Some((ratio, n, start));
        }
    }
    let (_, _, start) = best?;

    let lines: Vec<&str> = window(start).split('\n').collect();
    let mut region = lines
        .iter()
        .take(MAX_REGION_LINES)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    if lines.len() > MAX_REGION_LINES {
        region.push_str(&format!(
            "\n… ({} more lines)",
            lines.len() - MAX_REGION_LINES
        ));
    }
    Some(Closest {
        line: start + 1,
        region,
    })
}

/// `similar`'s ratio of two snippets: by characters while they are small, by
/// lines beyond that, and time-boxed either way.
pub(super) fn similarity(a: &str, b: &str) -> f32 {
    let mut config = similar::TextDiff::configure();
    config.timeout(Duration::from_millis(50));
    if a.len() + b.len() <= 16 * 1024 {
        config.diff_chars(a, b).ratio()
    } else {
        config.diff_lines(a, b).ratio()
    }
}
