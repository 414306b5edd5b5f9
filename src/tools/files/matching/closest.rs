//! Where an `oldText` that was not found would have been: lines vote for the
//! window where they would line up, words when no line does; common keys stop
//! voting, and the best few windows are ranked by `similar`'s character ratio.
//! The closest is what the refusal shows; `applied` weighs them all before
//! saying the edit was made already.

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

/// Where an `oldText` that was not found would line up in the file: the
/// best-voted windows of its line count, the closest first. The refusal shows
/// the closest; "already applied" weighs them all (`applied`).
#[derive(Debug)]
pub(super) struct Windows {
    /// Byte offset of every line of the file.
    starts: Vec<usize>,
    /// How many lines `oldText` spans (a final line break ends its last line).
    pub lines: usize,
    /// First line (0-based) of each ranked window, the closest first.
    pub ranked: Vec<usize>,
}

impl Windows {
    /// The bytes of lines `first..first + count` of `hay` (as many as there
    /// are), their line breaks included.
    pub fn span(&self, hay: &str, first: usize, count: usize) -> std::ops::Range<usize> {
        let first = first.min(self.starts.len() - 1);
        let end = self
            .starts
            .get(first + count.max(1))
            .copied()
            .unwrap_or(hay.len());
        self.starts[first]..end
    }

    /// The closest window as the refusal shows it: at most
    /// [`MAX_REGION_LINES`] lines, without the last one's line break.
    pub fn closest(&self, hay: &str) -> Closest {
        let start = self.ranked[0];
        let span = self.span(hay, start, self.lines);
        let text = &hay[span];
        let text = text.strip_suffix('\n').unwrap_or(text);
        let lines: Vec<&str> = text.split('\n').collect();
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
        Closest {
            line: start + 1,
            region,
        }
    }
}

/// The windows of `hay` where `old` would line up (see the module notes), if
/// any line or word of it votes for one.
pub(super) fn windows(hay: &str, old: &str) -> Option<Windows> {
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
    // The best-voted few, ranked by how alike they read (more votes, then the
    // earlier window, breaking ties).
    let mut rated: Vec<(f32, usize, usize)> = ranked
        .iter()
        .map(|&(start, n)| (similarity(window(start), wanted_text), n, start))
        .collect();
    rated.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    Some(Windows {
        lines: old_lines.len(),
        ranked: rated.into_iter().map(|(_, _, start)| start).collect(),
        starts,
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
