//! The line diff engine behind `edit`'s JSON block and the `diff` command.
//!
//! The alignment comes from the `similar` crate (Myers with its practical
//! heuristics and a deadline); everything around it is ours, because the output is a
//! contract: a unified diff that GNU `patch` and `git apply` accept and that applies
//! back to the exact bytes.
//!
//! That is why we do not use `similar`'s own line tokenizer or unified renderer. It
//! treats a lone `\r` as a line terminator, so a line like `a\rb` would be rendered as
//! two patch lines that no patch tool reads back the way the file has them. Here a
//! line is everything up to and including a `\n`: a `\r` (lone or before the `\n`)
//! stays part of the line's bytes, so a CRLF file's patch lines carry their `\r` and
//! apply back byte for byte. A last line without a `\n` is followed by the
//! `\ No newline at end of file` marker, exactly as GNU `diff -u` writes it, and hunk
//! headers follow GNU's spelling (`-5` for a one-line range, `-4,0` for an empty one).
//!
//! Two views of lines exist on purpose. [`split_lines`] is the seed's display
//! splitter (`\r\n` and `\n` both end a line, no phantom line after a final newline,
//! `""` is one empty line). The diff itself compares the raw lines, terminators
//! included, so a line that only changed from CRLF to LF, or lost its final newline,
//! is a change; [`DiffOp::text`] then shows it without its terminator. An empty text
//! has no lines to diff.
//!
//! Speed matters because `diff` is measured against GNU `diff -u` on big files.
//! Rendering skips the shared prefix and suffix (keeping only the context lines
//! around them), maps every line to an integer id through a small hash table, and,
//! as GNU diff does, sets aside lines that have no equal on the other side before
//! Myers runs, so scattered edits of a big file align in close to linear time.

use std::ops::Range;
use std::time::{Duration, Instant};

use similar::Algorithm;
use similar::algorithms::{self, Capture, Compact, DiffHook, Replace};

/// Lines of context around each hunk, as `diff -u` has it.
pub const DEFAULT_CONTEXT: usize = 3;

/// How long the aligner may search for a minimal script before settling for a
/// correct but longer one. A diff is never wrong because of it, only less tidy.
const DIFF_DEADLINE: Duration = Duration::from_secs(5);

const NO_NEWLINE_MARKER: &str = "\\ No newline at end of file\n";

/// What happened to one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DiffOpKind {
    Keep,
    Add,
    Remove,
}

/// One line of the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffOp {
    pub kind: DiffOpKind,
    /// The line without its `\n` or `\r\n` terminator.
    pub text: String,
    /// 1-based line number in the old text (for `Keep` and `Remove`).
    pub before_line: Option<usize>,
    /// 1-based line number in the new text (for `Keep` and `Add`).
    pub after_line: Option<usize>,
}

/// The whole line diff: every line in order, plus the tallies.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LineDiff {
    pub ops: Vec<DiffOp>,
    pub added: usize,
    pub removed: usize,
}

/// Split text into lines for display: `\r\n` and `\n` both end a line, a final
/// newline adds no phantom empty line, and an empty text is a single empty line.
/// A lone `\r` does not end a line.
pub fn split_lines(text: &str) -> Vec<&str> {
    let body = text
        .strip_suffix('\n')
        .map(|t| t.strip_suffix('\r').unwrap_or(t))
        .unwrap_or(text);
    body.split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect()
}

/// The raw lines of a text, each with its `\n` (and any `\r` before it). Only the
/// last line can lack a `\n`; an empty text has none.
fn raw_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::with_capacity(text.len() / 32 + 1);
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', text.as_bytes()) {
        lines.push(&text[start..=nl]);
        start = nl + 1;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

fn strip_terminator(line: &str) -> &str {
    match line.strip_suffix('\n') {
        Some(l) => l.strip_suffix('\r').unwrap_or(l),
        None => line,
    }
}

/// A maximal run of changed lines: old lines `old` replaced by new lines `new`
/// (either may be empty). Equal lines lie between consecutive blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Block {
    old: Range<usize>,
    new: Range<usize>,
}

/// The part of two texts that needs aligning, as raw lines, with its changes.
///
/// Both texts share a prefix and a suffix of whole lines that no diff needs to
/// look inside; the window keeps only `margin` lines of each (the context a hunk
/// can show) around the middle. That keeps a one-line edit of a 50 MB file from
/// splitting and hashing 50 MB of lines.
struct Window<'a> {
    old: Vec<&'a str>,
    new: Vec<&'a str>,
    /// Lines before the window, the same number on both sides.
    skipped: usize,
    blocks: Vec<Block>,
}

fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 256;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + CHUNK <= n && a[i..i + CHUNK] == b[i..i + CHUNK] {
        i += CHUNK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

fn common_suffix_len(a: &[u8], b: &[u8]) -> usize {
    const CHUNK: usize = 256;
    let n = a.len().min(b.len());
    let (la, lb) = (a.len(), b.len());
    let mut i = 0;
    while i + CHUNK <= n && a[la - i - CHUNK..la - i] == b[lb - i - CHUNK..lb - i] {
        i += CHUNK;
    }
    while i < n && a[la - i - 1] == b[lb - i - 1] {
        i += 1;
    }
    i
}

fn count_newlines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

fn window<'a>(before: &'a str, after: &'a str, margin: Option<usize>) -> Window<'a> {
    let (b, a) = (before.as_bytes(), after.as_bytes());
    let Some(margin) = margin else {
        let old = raw_lines(before);
        let new = raw_lines(after);
        let blocks = if before == after {
            Vec::new()
        } else {
            align(&old, &new)
        };
        return Window {
            old,
            new,
            skipped: 0,
            blocks,
        };
    };

    // The shared prefix, cut back to the start of the line where the texts part.
    let prefix = common_prefix_len(b, a);
    let prefix = memchr::memrchr(b'\n', &b[..prefix]).map_or(0, |i| i + 1);
    // The shared suffix, cut forward to whole lines on both sides.
    let suffix = common_suffix_len(&b[prefix..], &a[prefix..]);
    let (mut end_b, mut end_a) = (b.len() - suffix, a.len() - suffix);
    let line_start = |text: &[u8], at: usize| at == prefix || text[at - 1] == b'\n';
    if suffix > 0 && !(line_start(b, end_b) && line_start(a, end_a)) {
        match memchr::memchr(b'\n', &b[end_b..]) {
            Some(i) => {
                end_b += i + 1;
                end_a += i + 1;
            }
            None => {
                end_b = b.len();
                end_a = a.len();
            }
        }
    }

    let start = lines_back(b, prefix, margin).0;
    let (stop_b, stop_a) = lines_on(b, a, (end_b, end_a), margin);

    let old = raw_lines(&before[start..stop_b]);
    let new = raw_lines(&after[start..stop_a]);
    let mut blocks = align(&old, &new);

    // The aligner may slide a change through a run of equal lines into the margin
    // (a deletion of one of several equal lines can be placed at either end of the
    // run), which leaves the hunk fewer than `margin` lines of context inside the
    // window. Lines outside the window are equal on both sides, so the window is
    // widened by whole lines there and the changes stay where they are.
    let (first, last) = match (blocks.first(), blocks.last()) {
        (Some(f), Some(l)) => (f.old.start, l.old.end),
        _ => (margin, 0),
    };
    let mut lead_missing = margin.saturating_sub(first);
    let mut trail_missing = margin.saturating_sub(old.len() - last.min(old.len()));
    if blocks.is_empty() {
        (lead_missing, trail_missing) = (0, 0);
    }
    let (front, shift) = lines_back(b, start, lead_missing);
    let (back_b, back_a) = lines_on(b, a, (stop_b, stop_a), trail_missing);
    if front == start && back_b == stop_b {
        return Window {
            old,
            new,
            skipped: count_newlines(&b[..start]),
            blocks,
        };
    }
    for block in &mut blocks {
        block.old = block.old.start + shift..block.old.end + shift;
        block.new = block.new.start + shift..block.new.end + shift;
    }
    Window {
        old: raw_lines(&before[front..back_b]),
        new: raw_lines(&after[front..back_a]),
        skipped: count_newlines(&b[..front]),
        blocks,
    }
}

/// The start of the line `n` lines before the one holding `at` (a line start), and
/// how many lines were stepped over (fewer at the text's start).
fn lines_back(b: &[u8], mut at: usize, n: usize) -> (usize, usize) {
    let mut stepped = 0;
    while stepped < n && at > 0 {
        at = memchr::memrchr(b'\n', &b[..at - 1]).map_or(0, |i| i + 1);
        stepped += 1;
    }
    (at, stepped)
}

/// `n` whole lines on from `(at_b, at_a)`, positions in `b` and `a` whose rest is
/// the same bytes; at the end of `b`, both ends.
fn lines_on(b: &[u8], a: &[u8], (mut at_b, mut at_a): (usize, usize), n: usize) -> (usize, usize) {
    for _ in 0..n {
        match memchr::memchr(b'\n', &b[at_b..]) {
            Some(i) => {
                at_b += i + 1;
                at_a += i + 1;
            }
            None => return (b.len(), a.len()),
        }
    }
    (at_b, at_a)
}

/// A fast, non-cryptographic hash of a line (FxHash's mixing over 8-byte words).
/// A collision only costs a string comparison.
fn line_hash(line: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let bytes = line.as_bytes();
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let mut tail = [0u8; 8];
    let rest = chunks.remainder();
    tail[..rest.len()].copy_from_slice(rest);
    (h.rotate_left(5) ^ u64::from_le_bytes(tail)).wrapping_mul(K)
}

/// Lines as small integers: equal lines get equal ids, so the aligner compares
/// and hashes integers instead of strings.
struct Interned {
    old: Vec<u32>,
    new: Vec<u32>,
    /// Ids below this stand for lines that occur in the old text.
    old_distinct: u32,
    /// Per old id: whether the line occurs in the new text too.
    in_new: Vec<bool>,
}

fn intern(old: &[&str], new: &[&str]) -> Interned {
    let bits = (old.len() * 2).next_power_of_two().max(16).trailing_zeros();
    let mask = (1usize << bits) - 1;
    // The slot comes from the hash's high bits (the well-mixed ones).
    let slot_of = |h: u64| (h >> (64 - bits)) as usize;
    // Open addressing over 1 + id (0 is empty). The table is kept to four bytes a
    // slot so it stays in cache; the full hash of each id sits beside `first`, the
    // index of the line it stands for, and settles most probes without a string
    // comparison.
    let mut slots = vec![0u32; 1 << bits];
    let mut first: Vec<(u64, u32)> = Vec::with_capacity(old.len());
    let old_hashes: Vec<u64> = old.iter().map(|l| line_hash(l)).collect();
    let mut old_ids = Vec::with_capacity(old.len());
    for (i, (line, &h)) in old.iter().zip(&old_hashes).enumerate() {
        let mut at = slot_of(h);
        let id = loop {
            let s = slots[at];
            if s == 0 {
                let id = first.len() as u32;
                first.push((h, i as u32));
                slots[at] = id + 1;
                break id;
            }
            let (fh, fi) = first[s as usize - 1];
            if fh == h && old[fi as usize] == *line {
                break s - 1;
            }
            at = (at + 1) & mask;
        };
        old_ids.push(id);
    }
    drop(old_hashes);

    let old_distinct = first.len() as u32;
    let mut in_new = vec![false; first.len()];
    let new_hashes: Vec<u64> = new.iter().map(|l| line_hash(l)).collect();
    // Probing is bound by memory latency, not arithmetic. The table no longer
    // changes, so every line's home slot is gathered up front in a loop of
    // independent loads, which lets the CPU overlap the cache misses instead of
    // taking them one at a time.
    let homes: Vec<u32> = new_hashes.iter().map(|&h| slots[slot_of(h)]).collect();
    // A new line that matches no old line gets an id of its own: nothing ever
    // compares two new lines with each other.
    let mut fresh = old_distinct;
    let mut new_ids = Vec::with_capacity(new.len());
    for ((line, &h), &home) in new.iter().zip(&new_hashes).zip(&homes) {
        let mut at = slot_of(h);
        let mut s = home;
        let id = loop {
            if s == 0 {
                fresh += 1;
                break fresh - 1;
            }
            let (fh, fi) = first[s as usize - 1];
            if fh == h && old[fi as usize] == *line {
                in_new[s as usize - 1] = true;
                break s - 1;
            }
            at = (at + 1) & mask;
            s = slots[at];
        };
        new_ids.push(id);
    }
    Interned {
        old: old_ids,
        new: new_ids,
        old_distinct,
        in_new,
    }
}

/// Align two line lists and return the changed blocks in order.
///
/// A line with no equal on the other side can never be part of a common
/// subsequence, so, as GNU diff does, those lines are set aside before `similar`'s
/// Myers runs: with scattered edits what remains is nearly identical and aligns in
/// linear time, and the script stays as short as Myers makes it. The matches
/// found are then mapped back and `similar`'s compaction slides each change to
/// its tidiest position on the full lists.
fn align(old: &[&str], new: &[&str]) -> Vec<Block> {
    // A file added or deleted whole: one block, with nothing to hash or align
    // (a patch that adds hundreds of files would otherwise intern every line).
    if old.is_empty() || new.is_empty() {
        if old.is_empty() && new.is_empty() {
            return Vec::new();
        }
        return vec![Block {
            old: 0..old.len(),
            new: 0..new.len(),
        }];
    }
    align_lists(old, new)
}

/// [`align`] of two lists that are both non-empty.
fn align_lists(old: &[&str], new: &[&str]) -> Vec<Block> {
    let deadline = Instant::now() + DIFF_DEADLINE;
    let ids = intern(old, new);

    let (mut red_old, mut old_at) = (Vec::new(), Vec::new());
    for (i, &id) in ids.old.iter().enumerate() {
        if ids.in_new[id as usize] {
            red_old.push(id);
            old_at.push(i);
        }
    }
    let (mut red_new, mut new_at) = (Vec::new(), Vec::new());
    for (j, &id) in ids.new.iter().enumerate() {
        if id < ids.old_distinct {
            red_new.push(id);
            new_at.push(j);
        }
    }
    let mut reduced = Capture::new();
    let _ = algorithms::diff_deadline(
        Algorithm::Myers,
        &mut reduced,
        red_old.as_slice(),
        0..red_old.len(),
        red_new.as_slice(),
        0..new_at.len(),
        Some(deadline),
    );

    let mut hook = Compact::new(
        Replace::new(Capture::new()),
        ids.old.as_slice(),
        ids.new.as_slice(),
    );
    let (mut o, mut n) = (0, 0);
    // Runs of matched lines in full-list positions, adjacent pairs merged.
    let mut run: Option<(usize, usize, usize)> = None;
    let mut emit = |hook: &mut Compact<'_, '_, [u32], [u32], _>,
                    (mo, mn, len): (usize, usize, usize)| {
        if mo > o {
            let _ = hook.delete(o, mo - o, n);
        }
        if mn > n {
            let _ = hook.insert(mo, n, mn - n);
        }
        let _ = hook.equal(mo, mn, len);
        o = mo + len;
        n = mn + len;
    };
    for op in reduced.ops() {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        {
            for k in 0..len {
                let (mo, mn) = (old_at[old_index + k], new_at[new_index + k]);
                run = match run {
                    Some((ro, rn, rl)) if ro + rl == mo && rn + rl == mn => Some((ro, rn, rl + 1)),
                    Some(r) => {
                        emit(&mut hook, r);
                        Some((mo, mn, 1))
                    }
                    None => Some((mo, mn, 1)),
                };
            }
        }
    }
    if let Some(r) = run {
        emit(&mut hook, r);
    }
    if old.len() > o {
        let _ = hook.delete(o, old.len() - o, n);
    }
    if new.len() > n {
        let _ = hook.insert(old.len(), n, new.len() - n);
    }
    let _ = hook.finish();
    blocks_of(hook.into_inner().into_inner().into_ops())
}

/// The changed blocks of a diff's operations. A delete directly followed by an
/// insert is one block, so its removed lines print before its added ones as
/// `diff -u` does.
fn blocks_of(ops: Vec<similar::DiffOp>) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    for op in ops {
        if matches!(op, similar::DiffOp::Equal { .. }) {
            continue;
        }
        let (old_range, new_range) = (op.old_range(), op.new_range());
        match blocks.last_mut() {
            Some(last) if last.old.end == old_range.start && last.new.end == new_range.start => {
                last.old.end = old_range.end;
                last.new.end = new_range.end;
            }
            _ => blocks.push(Block {
                old: old_range,
                new: new_range,
            }),
        }
    }
    blocks
}

/// Diff two texts line by line.
pub fn diff_lines(before: &str, after: &str) -> LineDiff {
    let Window {
        old, new, blocks, ..
    } = window(before, after, None);
    let mut diff = LineDiff {
        ops: Vec::with_capacity(old.len().max(new.len())),
        added: 0,
        removed: 0,
    };
    let keep = |diff: &mut LineDiff, o: usize, n: usize| {
        diff.ops.push(DiffOp {
            kind: DiffOpKind::Keep,
            text: strip_terminator(old[o]).to_string(),
            before_line: Some(o + 1),
            after_line: Some(n + 1),
        })
    };
    let (mut o, mut n) = (0, 0);
    for block in &blocks {
        while o < block.old.start {
            keep(&mut diff, o, n);
            o += 1;
            n += 1;
        }
        for i in block.old.clone() {
            diff.ops.push(DiffOp {
                kind: DiffOpKind::Remove,
                text: strip_terminator(old[i]).to_string(),
                before_line: Some(i + 1),
                after_line: None,
            });
        }
        for j in block.new.clone() {
            diff.ops.push(DiffOp {
                kind: DiffOpKind::Add,
                text: strip_terminator(new[j]).to_string(),
                before_line: None,
                after_line: Some(j + 1),
            });
        }
        diff.removed += block.old.len();
        diff.added += block.new.len();
        o = block.old.end;
        n = block.new.end;
    }
    while o < old.len() {
        keep(&mut diff, o, n);
        o += 1;
        n += 1;
    }
    diff
}

/// A hunk header range in GNU's spelling: `start,count`, just `start` for one line,
/// and for no lines the number of the line before the range with `,0`.
fn push_range(out: &mut String, start: usize, count: usize) {
    use std::fmt::Write;
    let _ = match count {
        0 => write!(out, "{start},0"),
        1 => write!(out, "{}", start + 1),
        _ => write!(out, "{},{count}", start + 1),
    };
}

fn push_line(out: &mut String, prefix: char, line: &str) {
    out.push(prefix);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push('\n');
        out.push_str(NO_NEWLINE_MARKER);
    }
}

fn render_hunks(out: &mut String, w: &Window<'_>, context: usize) {
    let (old, new, blocks) = (&w.old, &w.new, &w.blocks);
    let mut i = 0;
    while i < blocks.len() {
        // Blocks whose gap fits in the context of both sides share a hunk.
        let mut j = i;
        while j + 1 < blocks.len() && blocks[j + 1].old.start - blocks[j].old.end <= 2 * context {
            j += 1;
        }
        let (first, last) = (&blocks[i], &blocks[j]);
        // The lines before the first block and after the last are equal on both
        // sides, so one lead and one trail length serve both.
        let lead = context.min(first.old.start);
        let trail = context.min(old.len() - last.old.end);
        let old_start = first.old.start - lead;
        let new_start = first.new.start - lead;
        let old_end = last.old.end + trail;
        let new_end = last.new.end + trail;

        out.push_str("@@ -");
        push_range(out, w.skipped + old_start, old_end - old_start);
        out.push_str(" +");
        push_range(out, w.skipped + new_start, new_end - new_start);
        out.push_str(" @@\n");

        let mut o = old_start;
        for block in &blocks[i..=j] {
            for line in &old[o..block.old.start] {
                push_line(out, ' ', line);
            }
            for line in &old[block.old.clone()] {
                push_line(out, '-', line);
            }
            for line in &new[block.new.clone()] {
                push_line(out, '+', line);
            }
            o = block.old.end;
        }
        for line in &old[o..old_end] {
            push_line(out, ' ', line);
        }
        i = j + 1;
    }
}

fn render(before: &str, after: &str, context: usize, names: Option<(&str, &str)>) -> String {
    if before == after {
        return String::new();
    }
    let w = window(before, after, Some(context));
    if w.blocks.is_empty() {
        return String::new();
    }
    let changed: usize = w
        .blocks
        .iter()
        .map(|b| b.old.len() + b.new.len() + 2 * context)
        .sum();
    let mut out = String::with_capacity(changed * 48 + 64);
    if let Some((old_name, new_name)) = names {
        out.push_str("--- ");
        out.push_str(old_name);
        out.push_str("\n+++ ");
        out.push_str(new_name);
        out.push('\n');
    }
    render_hunks(&mut out, &w, context);
    out
}

/// The diff of one in-place replacement: `after` is the new text, in which the
/// `inserted_len` bytes at `at` replaced `removed`. Gives what
/// [`render_unified_diff_with_headers`] gives for the whole old and new texts, from
/// excerpts of whole lines around the change, so an edit of a big file never holds
/// the old text whole.
pub fn render_splice_diff(
    after: &str,
    at: usize,
    removed: &str,
    inserted_len: usize,
    context: usize,
    names: (&str, &str),
) -> String {
    let bytes = after.as_bytes();
    let mut margin = 4 * context + 16;
    loop {
        let line = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        let start = lines_back(bytes, line, margin).0;
        let end = lines_on(bytes, bytes, (at + inserted_len, 0), margin + 1).0;
        let before = format!(
            "{}{removed}{}",
            &after[start..at],
            &after[at + inserted_len..end]
        );
        let first_line = count_newlines(&bytes[..start]);
        let edges = (start > 0, end < bytes.len());
        if let Some(diff) = render_excerpt_diff(
            &before,
            &after[start..end],
            context,
            names,
            first_line,
            edges,
        ) {
            return diff;
        }
        // A change that slid through a long run of equal lines: widen and retry
        // (at the whole text both edges are the file's and this always answers).
        margin = margin.saturating_mul(8);
    }
}

/// The diff of two excerpts of a file, `before` and `after`, which start at the
/// file's 0-based line `first_line` and are equal to each other outside the
/// excerpts: the hunks [`render_unified_diff_with_headers`] gives for the whole
/// files, without holding them. `more_before`/`more_after` say whether the file goes
/// on before or after the excerpts; `None` when a hunk would need context from
/// there (a change that reaches within `context` lines of a cut), so the caller
/// takes a wider excerpt.
pub fn render_excerpt_diff(
    before: &str,
    after: &str,
    context: usize,
    (old_name, new_name): (&str, &str),
    first_line: usize,
    (more_before, more_after): (bool, bool),
) -> Option<String> {
    if before == after {
        return Some(String::new());
    }
    let mut w = window(before, after, Some(context));
    let (Some(first), Some(last)) = (w.blocks.first(), w.blocks.last()) else {
        return Some(String::new());
    };
    // The window only stops short of `context` lines at an end of the excerpt.
    if (more_before && first.old.start < context)
        || (more_after && w.old.len() - last.old.end < context)
    {
        return None;
    }
    w.skipped += first_line;
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    render_hunks(&mut out, &w, context);
    Some(out)
}

/// Render the change from `before` to `after` as unified-diff hunks (no `---`/`+++`
/// header), with `context` unchanged lines around each change. Identical texts give
/// an empty string.
pub fn render_unified_diff(before: &str, after: &str, context: usize) -> String {
    render(before, after, context, None)
}

/// [`render_unified_diff`] preceded by `--- old_name` and `+++ new_name` lines, the
/// form `patch` and `git apply` take as a file. Identical texts give an empty string.
pub fn render_unified_diff_with_headers(
    before: &str,
    after: &str,
    context: usize,
    old_name: &str,
    new_name: &str,
) -> String {
    render(before, after, context, Some((old_name, new_name)))
}

/// Added and removed lines of a diff as [`render_unified_diff_with_headers`]
/// writes it (every changed line is in a hunk, so no second alignment is needed
/// to count them). Its `---`/`+++` header is the first two lines; a changed line
/// whose text starts with `++ ` or `-- ` is still counted.
pub fn rendered_counts(diff: &str) -> (usize, usize) {
    let mut bytes = diff.as_bytes();
    if bytes.starts_with(b"--- ") {
        for _ in 0..2 {
            bytes = memchr::memchr(b'\n', bytes).map_or(&[], |i| &bytes[i + 1..]);
        }
    }
    let (mut added, mut removed) = (0, 0);
    let starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
    for at in starts {
        match bytes.get(at) {
            Some(b'+') => added += 1,
            Some(b'-') => removed += 1,
            _ => {}
        }
    }
    (added, removed)
}

/// Apply a body of hunks as [`render_unified_diff`] writes them (no `---`/`+++`
/// header) to `before`, insisting on the exact line numbers and counts of every
/// header and on every context and removed line being the file's bytes.
///
/// `patch` and diffy search for a place when a header is off; this does not, so it
/// is the check that a rendered diff is exactly right: the fuzz target and the
/// property tests both require `apply_unified_diff(before, diff) == after`. The
/// error says which hunk line disagreed.
pub fn apply_unified_diff(before: &str, diff: &str) -> Result<String, String> {
    fn range(spec: &str) -> Option<(usize, usize)> {
        match spec.split_once(',') {
            Some((l, c)) => Some((l.parse().ok()?, c.parse().ok()?)),
            None => Some((spec.parse().ok()?, 1)),
        }
    }
    let old = raw_lines(before);
    let mut out: Vec<&str> = Vec::new();
    let mut cursor = 0;
    let mut lines = diff.split_inclusive('\n').peekable();
    while let Some(header) = lines.next() {
        let bad_header = || format!("not a hunk header: {header:?}");
        let inner = header
            .strip_prefix("@@ -")
            .and_then(|h| h.strip_suffix(" @@\n"))
            .ok_or_else(bad_header)?;
        let (o, n) = inner.split_once(" +").ok_or_else(bad_header)?;
        let ((ol, oc), (nl, nc)) = (
            range(o).ok_or_else(bad_header)?,
            range(n).ok_or_else(bad_header)?,
        );
        let start = if oc == 0 { ol } else { ol.wrapping_sub(1) };
        if start < cursor || start > old.len() {
            return Err(format!("hunk {header:?} is out of order or out of range"));
        }
        out.extend(&old[cursor..start]);
        if (if nc == 0 { nl } else { nl.wrapping_sub(1) }) != out.len() {
            return Err(format!(
                "hunk {header:?} starts at new line {nl}, but the result has {} lines there",
                out.len()
            ));
        }
        let (mut at, mut added) = (start, 0);
        while let Some(line) = lines.next_if(|l| !l.starts_with("@@")) {
            let body = line
                .get(1..)
                .ok_or_else(|| format!("bad hunk line {line:?}"))?;
            let text = if lines.next_if_eq(&NO_NEWLINE_MARKER).is_some() {
                body.strip_suffix('\n').unwrap_or(body)
            } else {
                body
            };
            match line.as_bytes()[0] {
                b' ' | b'-' => {
                    if old.get(at) != Some(&text) {
                        return Err(format!(
                            "line {} of the file is {:?}, the diff says {text:?}",
                            at + 1,
                            old.get(at)
                        ));
                    }
                    at += 1;
                    if line.starts_with(' ') {
                        out.push(text);
                        added += 1;
                    }
                }
                b'+' => {
                    out.push(text);
                    added += 1;
                }
                _ => return Err(format!("bad hunk line {line:?}")),
            }
        }
        if (at - start, added) != (oc, nc) {
            return Err(format!(
                "hunk {header:?} covers {} old and {added} new lines",
                at - start
            ));
        }
        cursor = at;
    }
    out.extend(&old[cursor..]);
    Ok(out.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_side_aligns_as_the_general_aligner_does() {
        for lines in [vec!["a\n"], vec!["a\n", "b\n", "a\n"], vec!["x", "y\n"]] {
            assert_eq!(align(&[], &lines), align_lists(&[], &lines));
            assert_eq!(align(&lines, &[]), align_lists(&lines, &[]));
        }
        assert!(align(&[], &[]).is_empty());
    }
    use proptest::prelude::*;

    fn apply_with_diffy(before: &str, diff: &str) -> String {
        let patch_text = format!("--- a\n+++ b\n{diff}");
        let patch = diffy::Patch::from_str(&patch_text)
            .unwrap_or_else(|e| panic!("diffy cannot parse {patch_text:?}: {e}"));
        diffy::apply(before, &patch)
            .unwrap_or_else(|e| panic!("diffy cannot apply {patch_text:?} to {before:?}: {e}"))
    }

    #[test]
    fn split_lines_follows_the_seed() {
        assert_eq!(split_lines(""), vec![""]);
        assert_eq!(split_lines("\n"), vec![""]);
        assert_eq!(split_lines("a"), vec!["a"]);
        assert_eq!(split_lines("a\n"), vec!["a"]);
        assert_eq!(split_lines("a\nb"), vec!["a", "b"]);
        assert_eq!(split_lines("a\r\nb\r\n"), vec!["a", "b"]);
        assert_eq!(split_lines("a\n\n"), vec!["a", ""]);
        assert_eq!(split_lines("a\rb\n"), vec!["a\rb"]);
        assert_eq!(split_lines("a\r\n\r\n"), vec!["a", ""]);
    }

    #[test]
    fn diff_lines_reports_ops_and_tallies() {
        let d = diff_lines("one\ntwo\nthree\n", "one\nTWO\nthree\nfour\n");
        assert_eq!(d.added, 2);
        assert_eq!(d.removed, 1);
        let kinds: Vec<_> = d.ops.iter().map(|o| (o.kind, o.text.as_str())).collect();
        assert_eq!(
            kinds,
            vec![
                (DiffOpKind::Keep, "one"),
                (DiffOpKind::Remove, "two"),
                (DiffOpKind::Add, "TWO"),
                (DiffOpKind::Keep, "three"),
                (DiffOpKind::Add, "four"),
            ]
        );
        assert_eq!(d.ops[1].before_line, Some(2));
        assert_eq!(d.ops[1].after_line, None);
        assert_eq!(d.ops[2].after_line, Some(2));
        assert_eq!(d.ops[3].before_line, Some(3));
        assert_eq!(d.ops[3].after_line, Some(3));
        assert_eq!(d.ops[4].after_line, Some(4));
    }

    #[test]
    fn diff_lines_of_identical_texts_keeps_everything() {
        let d = diff_lines("a\r\nb", "a\r\nb");
        assert_eq!((d.added, d.removed), (0, 0));
        assert_eq!(d.ops.len(), 2);
        assert_eq!(d.ops[0].text, "a");
        assert!(d.ops.iter().all(|o| o.kind == DiffOpKind::Keep));
        assert!(diff_lines("", "").ops.is_empty());
    }

    #[test]
    fn a_terminator_change_is_a_change() {
        let d = diff_lines("a\r\n", "a\n");
        assert_eq!((d.added, d.removed), (1, 1));
        assert_eq!(d.ops[0].text, "a");
        assert_eq!(d.ops[1].text, "a");
    }

    #[test]
    fn identical_texts_render_nothing() {
        assert_eq!(render_unified_diff("a\nb\n", "a\nb\n", 3), "");
        assert_eq!(render_unified_diff("", "", 3), "");
        assert_eq!(
            render_unified_diff_with_headers("x", "x", 3, "a/f", "b/f"),
            ""
        );
    }

    #[test]
    fn one_changed_line_in_the_middle() {
        assert_eq!(
            render_unified_diff("one\ntwo\nthree\n", "one\nTWO\nthree\n", DEFAULT_CONTEXT),
            "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
        );
    }

    #[test]
    fn headers_come_first() {
        assert_eq!(
            render_unified_diff_with_headers("a\n", "b\n", 3, "a/x.txt", "b/x.txt"),
            "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n"
        );
    }

    #[test]
    fn context_is_trimmed_and_far_changes_split_into_hunks() {
        let before: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let after = before.replace("l2\n", "L2\n").replace("l18\n", "L18\n");
        assert_eq!(
            render_unified_diff(&before, &after, 3),
            "@@ -1,5 +1,5 @@\n l1\n-l2\n+L2\n l3\n l4\n l5\n\
             @@ -15,6 +15,6 @@\n l15\n l16\n l17\n-l18\n+L18\n l19\n l20\n"
        );
        // Gaps of up to twice the context join one hunk.
        let after = before.replace("l2\n", "L2\n").replace("l9\n", "L9\n");
        assert_eq!(
            render_unified_diff(&before, &after, 3),
            "@@ -1,12 +1,12 @@\n l1\n-l2\n+L2\n l3\n l4\n l5\n l6\n l7\n l8\n-l9\n+L9\n l10\n l11\n l12\n"
        );
        let after = before.replace("l2\n", "L2\n").replace("l10\n", "L10\n");
        assert_eq!(
            render_unified_diff(&before, &after, 3)
                .matches("@@ -")
                .count(),
            2
        );
    }

    #[test]
    fn a_change_deep_in_a_long_text_keeps_its_line_numbers() {
        let before: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
        let after = before.replace("line 500\n", "line five hundred\n");
        assert_eq!(
            render_unified_diff(&before, &after, 3),
            "@@ -497,7 +497,7 @@\n line 497\n line 498\n line 499\n-line 500\n\
             +line five hundred\n line 501\n line 502\n line 503\n"
        );
        let after = before.replace("line 1000\n", "line 1000");
        assert_eq!(
            render_unified_diff(&before, &after, 2),
            "@@ -998,3 +998,3 @@\n line 998\n line 999\n-line 1000\n\
             +line 1000\n\\ No newline at end of file\n"
        );
        let after = format!("line 0\n{before}");
        assert_eq!(
            render_unified_diff(&before, &after, 1),
            "@@ -1 +1,2 @@\n+line 0\n line 1\n"
        );
    }

    #[test]
    fn shared_bytes_that_are_not_whole_lines_are_still_diffed() {
        // The texts share "bc\n" at the end and "x\na" at the start, neither a
        // whole line of the changed part.
        assert_eq!(
            render_unified_diff("x\nabc\n", "x\nazbc\n", 3),
            "@@ -1,2 +1,2 @@\n x\n-abc\n+azbc\n"
        );
        assert_eq!(
            render_unified_diff("a\nb", "a\nbb", 0),
            "@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+bb\n\\ No newline at end of file\n"
        );
        assert_eq!(
            render_unified_diff("same\n", "same\nsame\n", 3),
            "@@ -1 +1,2 @@\n same\n+same\n"
        );
    }

    #[test]
    fn zero_context() {
        assert_eq!(
            render_unified_diff("a\nb\nc\n", "a\nB\nc\n", 0),
            "@@ -2 +2 @@\n-b\n+B\n"
        );
        assert_eq!(
            render_unified_diff("a\nc\n", "a\nb\nc\n", 0),
            "@@ -1,0 +2 @@\n+b\n"
        );
        assert_eq!(
            render_unified_diff("a\nb\nc\n", "a\nc\n", 0),
            "@@ -2 +1,0 @@\n-b\n"
        );
    }

    #[test]
    fn empty_sides_use_gnu_ranges() {
        assert_eq!(
            render_unified_diff("", "a\nb\n", 3),
            "@@ -0,0 +1,2 @@\n+a\n+b\n"
        );
        assert_eq!(render_unified_diff("a\n", "", 3), "@@ -1 +0,0 @@\n-a\n");
    }

    #[test]
    fn missing_final_newline_gets_the_marker() {
        assert_eq!(
            render_unified_diff("a\nb", "a\nb\n", 3),
            "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
        );
        assert_eq!(
            render_unified_diff("a\nb\n", "a\nc", 3),
            "@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n"
        );
        // An unchanged last line without a newline is context with the marker.
        assert_eq!(
            render_unified_diff("x\nb", "y\nb", 3),
            "@@ -1,2 +1,2 @@\n-x\n+y\n b\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn crlf_lines_keep_their_carriage_return() {
        assert_eq!(
            render_unified_diff("one\r\ntwo\r\n", "one\r\nTWO\r\n", 3),
            "@@ -1,2 +1,2 @@\n one\r\n-two\r\n+TWO\r\n"
        );
    }

    #[test]
    fn a_lone_carriage_return_stays_inside_its_line() {
        assert_eq!(
            render_unified_diff("a\rb\nc\n", "a\rB\nc\n", 3),
            "@@ -1,2 +1,2 @@\n-a\rb\n+a\rB\n c\n"
        );
        assert_eq!(
            render_unified_diff("x\n", "x\n\r", 3),
            "@@ -1 +1,2 @@\n x\n+\r\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn diffy_applies_the_tricky_cases() {
        let cases = [
            ("a\nb", "a\nb\n"),
            ("a\nb\n", "a\nc"),
            ("one\r\ntwo\r\n", "one\r\nTWO\r\n"),
            ("a\r\nb\n", "a\nb\r\n"),
            ("a\rb\nc\n", "a\rB\nc\n"),
            ("x\r", "x\r\n"),
            ("\r", ""),
            ("", "\r\r\n\r"),
            ("", "a"),
            ("a", ""),
            ("ä\nß\n", "ä\nẞ\n"),
        ];
        for (before, after) in cases {
            let diff = render_unified_diff(before, after, 3);
            assert_eq!(apply_with_diffy(before, &diff), after, "diff {diff:?}");
            assert_eq!(
                apply_unified_diff(before, &diff).unwrap(),
                after,
                "diff {diff:?}"
            );
        }
    }

    /// Applies rendered diffs with GNU `patch` and `git apply`, byte for byte.
    #[test]
    fn gnu_patch_and_git_apply_accept_the_output() {
        let cases = [
            ("one\ntwo\nthree\n", "one\nTWO\nthree\n"),
            ("a\nb", "a\nb\n"),
            ("a\nb\n", "a\nc"),
            ("one\r\ntwo\r\nthree\r\n", "one\r\nTWO\r\nthree\r\n"),
            ("a\r\nb\r\n", "a\r\nb"),
            ("a\rb\nc\n", "a\rB\nc\n"),
            ("x\r", "y\r"),
            ("x\n", "x\n\r"),
            ("", "new\n"),
            ("gone\n", ""),
            ("ä\nß\n", "ä\nẞ\nend"),
            (
                "l0\nl0\nl0\nl0\nl12\nl0\nl12\nl0\nl0\nl0\n",
                "l0\nl0\nl0\nl0\nl0\nl12\nl12\nl0\nl0\n",
            ),
        ];
        let long: String = (1..=60).map(|i| format!("line {i}\r\n")).collect();
        let long_after = long
            .replace("line 3\r\n", "")
            .replace("line 30\r\n", "line 30\nline 30b\r\n")
            .replace("line 60\r\n", "line 60");
        let cases: Vec<(&str, &str)> = cases
            .into_iter()
            .chain([(long.as_str(), long_after.as_str())])
            .collect();
        let have = |tool: &str, arg: &str| {
            std::process::Command::new(tool)
                .arg(arg)
                .output()
                .is_ok_and(|o| o.status.success())
        };
        let (have_patch, have_git) = (have("patch", "--version"), have("git", "--version"));
        if !have_patch {
            eprintln!("note: GNU patch is not on PATH; skipping its half of this test");
        }
        if !have_git {
            eprintln!("note: git is not on PATH; skipping its half of this test");
        }
        let dir = tempfile::tempdir().unwrap();
        for (n, (before, after, context)) in cases
            .iter()
            .flat_map(|&(b, a)| [(b, a, 0), (b, a, 3)])
            .enumerate()
        {
            let name = format!("f{n}.txt");
            let diff = render_unified_diff_with_headers(
                before,
                after,
                context,
                &format!("a/{name}"),
                &format!("b/{name}"),
            );
            let patch_file = dir.path().join(format!("{name}.patch"));
            std::fs::write(&patch_file, &diff).unwrap();
            let target = dir.path().join(&name);
            if have_patch {
                std::fs::write(&target, before).unwrap();
                let out = std::process::Command::new("patch")
                    .current_dir(dir.path())
                    .args(["-p1", "--quiet", "--no-backup-if-mismatch", "-i"])
                    .arg(&patch_file)
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "patch refused {diff:?}: {}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                assert_eq!(
                    std::fs::read(&target).unwrap(),
                    after.as_bytes(),
                    "{diff:?}"
                );
            }
            if have_git {
                std::fs::write(&target, before).unwrap();
                // git insists on context unless told that a zero-context diff is
                // meant, as it does for `diff -U0`.
                let out = std::process::Command::new("git")
                    .current_dir(dir.path())
                    .args(["apply", "--unsafe-paths", "--whitespace=nowarn"])
                    .args((context == 0).then_some("--unidiff-zero"))
                    .arg(&patch_file)
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "git apply refused {diff:?}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert_eq!(
                    std::fs::read(&target).unwrap(),
                    after.as_bytes(),
                    "{diff:?}"
                );
            }
        }
    }

    #[test]
    fn diff_lines_agrees_with_the_rendered_counts() {
        let before: String = (0..200).map(|i| format!("{}\n", i % 17)).collect();
        let after: String = (0..210).map(|i| format!("{}\n", i % 13)).collect();
        let d = diff_lines(&before, &after);
        let diff = render_unified_diff(&before, &after, 3);
        let minus = diff.lines().filter(|l| l.starts_with('-')).count();
        let plus = diff.lines().filter(|l| l.starts_with('+')).count();
        assert_eq!((d.removed, d.added), (minus, plus));
        assert_eq!(apply_with_diffy(&before, &diff), after);
        let kept: Vec<&str> = d
            .ops
            .iter()
            .filter(|o| o.kind != DiffOpKind::Add)
            .map(|o| o.text.as_str())
            .collect();
        assert_eq!(kept, split_lines(&before));
    }

    #[test]
    fn a_splice_in_a_long_run_of_equal_lines_matches_the_whole_diff() {
        let before = format!("head\n{}tail\n", "same\n".repeat(500));
        for (at, removed, inserted) in [(5 + 250 * 5, "same\n", ""), (5 + 100 * 5, "", "same\n")] {
            let after = format!(
                "{}{inserted}{}",
                &before[..at],
                &before[at + removed.len()..]
            );
            let whole = render_unified_diff_with_headers(&before, &after, 3, "a/f", "b/f");
            assert!(whole.contains("@@ -"), "{whole}");
            assert_eq!(
                render_splice_diff(&after, at, removed, inserted.len(), 3, ("a/f", "b/f")),
                whole
            );
        }
    }

    /// Every hunk carries full context: `context` lines before its first change and
    /// after its last, or as many as the file has there. GNU `patch` takes a hunk
    /// with less trailing than leading context to be anchored at the end of the
    /// file, so a short tail is a diff that does not apply.
    fn assert_full_context(before: &str, diff: &str, context: usize) -> Result<(), String> {
        let total = raw_lines(before).len();
        let mut hunks = Vec::new();
        for line in diff.split_inclusive('\n') {
            if let Some(h) = line.strip_prefix("@@ -") {
                let spec = h.split(' ').next().unwrap_or("");
                let (start, count) = match spec.split_once(',') {
                    Some((s, c)) => (s.parse::<usize>().unwrap(), c.parse::<usize>().unwrap()),
                    None => (spec.parse::<usize>().unwrap(), 1),
                };
                hunks.push((start, count, Vec::new()));
            } else if let Some(last) = hunks.last_mut()
                && !line.starts_with('\\')
            {
                last.2.push(line.as_bytes()[0]);
            }
        }
        for (start, count, kinds) in hunks {
            let lead = kinds.iter().take_while(|&&k| k == b' ').count();
            let trail = kinds.iter().rev().take_while(|&&k| k == b' ').count();
            let first = if count == 0 { start } else { start - 1 };
            let want_lead = context.min(first + lead);
            let want_trail = context.min(total - (first + count - trail));
            if lead != want_lead.min(kinds.len()) || trail != want_trail.min(kinds.len()) {
                return Err(format!(
                    "hunk at -{start},{count} has {lead} leading and {trail} trailing context lines, wants {want_lead} and {want_trail}: {diff:?}"
                ));
            }
        }
        Ok(())
    }

    /// Text made of lines drawn from a small pool so that diffs have both matches and
    /// changes, with every ending the engine must survive.
    fn text_strategy() -> impl Strategy<Value = String> {
        let line = prop_oneof![
            Just("alpha".to_string()),
            Just("beta".to_string()),
            Just("".to_string()),
            Just("  indented".to_string()),
            Just("a\rb".to_string()),
            Just("\r".to_string()),
            Just("ünïcödé ✓".to_string()),
            "[a-c ]{0,4}",
        ];
        let ending = prop_oneof![Just("\n"), Just("\r\n")];
        (
            prop::collection::vec((line, ending), 0..30),
            any::<bool>(),
            prop_oneof![Just(""), Just("tail"), Just("\r"), Just("x\r")],
        )
            .prop_map(|(lines, final_newline, tail)| {
                let mut s: String = lines.into_iter().map(|(l, e)| l + e).collect();
                if !final_newline {
                    s.push_str(tail);
                }
                s
            })
    }

    /// A text and a lightly edited copy of it: most lines shared, so the shared
    /// prefix and suffix and the hunk splitting all get exercised.
    fn edited_pair() -> impl Strategy<Value = (String, String)> {
        (
            prop::collection::vec(0u8..40, 0..60),
            prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, "[a-z\r]{0,3}"), 0..5),
            any::<bool>(),
        )
            .prop_map(|(ids, edits, crlf)| {
                let eol = if crlf { "\r\n" } else { "\n" };
                let mut lines: Vec<String> =
                    ids.iter().map(|i| format!("l{}{eol}", i % 25)).collect();
                let before = lines.concat();
                for (at, what, text) in edits {
                    let i = if lines.is_empty() {
                        0
                    } else {
                        at.index(lines.len())
                    };
                    match what {
                        0 if !lines.is_empty() => {
                            lines.remove(i);
                        }
                        1 => lines.insert(i, format!("{text}\n")),
                        2 if !lines.is_empty() => lines[i] = format!("{text}{eol}"),
                        _ => lines.push(text),
                    }
                }
                (before, lines.concat())
            })
    }

    // diffy places a hunk by its new-side start, which for a context-free pure
    // deletion (`@@ -17 +16,0 @@`, GNU's spelling) is one line early, so it only
    // checks diffs with context; `apply_unified_diff` checks every one at its exact line.
    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn lightly_edited_texts_diff_exactly((before, after) in edited_pair(), context in 0usize..5) {
            let diff = render_unified_diff(&before, &after, context);
            prop_assert_eq!(diff.is_empty(), before == after);
            prop_assert_eq!(apply_unified_diff(&before, &diff).unwrap(), after.clone());
            if let Err(e) = assert_full_context(&before, &diff, context) {
                prop_assert!(false, "{}", e);
            }
            if context > 0 {
                prop_assert_eq!(apply_with_diffy(&before, &diff), after.clone());
            }
            let d = diff_lines(&before, &after);
            let minus = diff.lines().filter(|l| l.starts_with('-')).count();
            let plus = diff.lines().filter(|l| l.starts_with('+')).count();
            prop_assert_eq!((d.removed, d.added), (minus, plus));
            // The counts `diff` reports, read off the diff with its header.
            let headed = render_unified_diff_with_headers(&before, &after, context, "a/f", "b/f");
            prop_assert_eq!(rendered_counts(&headed), (d.added, d.removed));
        }

        /// A replacement rendered from excerpts is the diff of the whole texts.
        #[test]
        fn a_splice_diff_is_the_whole_diff(
            (before, _) in edited_pair(),
            at in any::<prop::sample::Index>(),
            len in 0usize..40,
            inserted in "(l[0-9]|x|\n|\r\n){0,12}",
            context in 0usize..4,
        ) {
            let mut at = at.index(before.len() + 1);
            while !before.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + len).min(before.len());
            while !before.is_char_boundary(end) {
                end -= 1;
            }
            let after = format!("{}{inserted}{}", &before[..at], &before[end..]);
            let whole = render_unified_diff_with_headers(&before, &after, context, "a/f", "b/f");
            let spliced = render_splice_diff(&after, at, &before[at..end], inserted.len(), context, ("a/f", "b/f"));
            if whole.is_empty() {
                prop_assert_eq!(spliced, "");
            } else {
                prop_assert_eq!(spliced, whole);
            }
        }

        #[test]
        fn applying_any_text_as_a_diff_never_panics(before in "[ab\n]{0,12}", diff in "(@@ -[0-9,]{1,4} \\+[0-9,]{1,4} @@\n|[ +\\-][ab]{0,2}\n|\\\\ No newline at end of file\n|é|x){0,8}") {
            let _ = apply_unified_diff(&before, &diff);
        }

        #[test]
        fn rendered_diffs_apply_back(before in text_strategy(), after in text_strategy(), context in 0usize..4) {
            let diff = render_unified_diff(&before, &after, context);
            if before == after {
                prop_assert_eq!(diff, "");
            } else {
                prop_assert_eq!(apply_unified_diff(&before, &diff).unwrap(), after.clone());
                if let Err(e) = assert_full_context(&before, &diff, context) {
                    prop_assert!(false, "{}", e);
                }
                if context > 0 {
                    prop_assert_eq!(apply_with_diffy(&before, &diff), after.clone());
                }
                let d = diff_lines(&before, &after);
                let old_count = d.ops.iter().filter(|o| o.kind != DiffOpKind::Add).count();
                let new_count = d.ops.iter().filter(|o| o.kind != DiffOpKind::Remove).count();
                prop_assert_eq!(old_count, raw_lines(&before).len());
                prop_assert_eq!(new_count, raw_lines(&after).len());
            }
        }
    }
}
