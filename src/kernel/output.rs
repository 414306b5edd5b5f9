//! Output budgeting: bounding a tool's text to a UTF-8 byte window.
//!
//! Every tool's output is fed to a model (or a script) with finite room, so no tool
//! may return an unbounded blob. [`OutputBudget`] names a window policy and [`clamp`]
//! applies it. Cuts are measured in UTF-8 bytes and always land on a character
//! boundary, so a multibyte sequence is never split. Written by hand because the
//! policy (head/tail/middle with a spliced, byte-exact notice) is this project's own
//! wire contract; no crate reproduces it.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// Which slice of an over-budget string survives a clamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipEnd {
    /// Keep the beginning; the notice goes after it.
    Head,
    /// Keep the end; the notice goes before it.
    Tail,
    /// Keep both ends; the notice replaces the dropped centre.
    Middle,
}

/// The callback that renders the marker spliced in where bytes were dropped.
pub type NoticeFn = Arc<dyn Fn(usize) -> String + Send + Sync>;

/// A request to bound a string's UTF-8 byte length.
#[derive(Clone)]
pub struct OutputBudget {
    pub kind: ClipEnd,
    pub max_bytes: usize,
    /// Renders the marker for `n` omitted bytes; `None` uses [`default_notice`].
    pub notice: Option<NoticeFn>,
}

impl fmt::Debug for OutputBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputBudget")
            .field("kind", &self.kind)
            .field("max_bytes", &self.max_bytes)
            .field("notice", &self.notice.as_ref().map(|_| "<fn>"))
            .finish()
    }
}

impl OutputBudget {
    /// A budget using the default notice.
    pub fn new(kind: ClipEnd, max_bytes: usize) -> Self {
        Self {
            kind,
            max_bytes,
            notice: None,
        }
    }

    /// A budget with a custom notice.
    pub fn with_notice(
        kind: ClipEnd,
        max_bytes: usize,
        notice: impl Fn(usize) -> String + Send + Sync + 'static,
    ) -> Self {
        Self {
            kind,
            max_bytes,
            notice: Some(Arc::new(notice)),
        }
    }

    /// The same window with another notice: tools prefix the standard marker with
    /// their own name (`read: …`) while keeping the host's size and policy.
    pub fn renoticed(&self, notice: impl Fn(usize) -> String + Send + Sync + 'static) -> Self {
        Self {
            kind: self.kind,
            max_bytes: self.max_bytes,
            notice: Some(Arc::new(notice)),
        }
    }

    /// Render the notice for `omitted` bytes.
    pub fn render_notice(&self, omitted: usize) -> String {
        match &self.notice {
            Some(f) => f(omitted),
            None => default_notice(omitted),
        }
    }
}

/// The default marker, byte-exact with the original edition.
pub fn default_notice(omitted: usize) -> String {
    let s = if omitted == 1 { "" } else { "s" };
    format!("\n… trimmed {omitted} byte{s} to fit the window …\n")
}

/// Largest char boundary `<= at`.
pub fn floor_char_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    let mut i = at;
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Smallest char boundary `>= at`.
pub fn ceil_char_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    let mut i = at;
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Bound `text` to `policy`, splicing in a notice where bytes were dropped.
/// Text within the budget is returned untouched.
pub fn clamp(text: &str, policy: &OutputBudget) -> String {
    let mut one = Clamp::new(policy.clone());
    one.push(text);
    one.finish()
}

/// [`clamp`] of many pieces joined, fed one at a time and never joined whole:
/// only the pieces that can reach the kept head or tail are held, so a text of
/// megabytes clamped to a window of kilobytes costs the window, not the text.
/// [`Clamp::finish`] gives exactly `clamp(&pieces.concat(), policy)`; [`clamp`]
/// is the clamp of one piece.
pub struct Clamp<'a> {
    policy: OutputBudget,
    total: usize,
    /// The first pieces, until they hold `max_bytes`.
    head: Vec<Cow<'a, str>>,
    head_len: usize,
    /// The pieces after the head, only as many of the last ones as hold
    /// `max_bytes` more than the newest's own bytes.
    tail: std::collections::VecDeque<Cow<'a, str>>,
    tail_len: usize,
}

impl<'a> Clamp<'a> {
    pub fn new(policy: OutputBudget) -> Self {
        Self {
            policy,
            total: 0,
            head: Vec::new(),
            head_len: 0,
            tail: std::collections::VecDeque::new(),
            tail_len: 0,
        }
    }

    pub fn push(&mut self, piece: impl Into<Cow<'a, str>>) {
        let piece = piece.into();
        let max = self.policy.max_bytes;
        self.total += piece.len();
        if self.head_len < max {
            self.head_len += piece.len();
            self.head.push(piece);
            return;
        }
        self.tail_len += piece.len();
        self.tail.push_back(piece);
        while self
            .tail
            .front()
            .is_some_and(|f| self.tail_len - f.len() >= max)
        {
            let f = self.tail.pop_front().expect("checked above");
            self.tail_len -= f.len();
        }
    }

    /// The held pieces with where each starts in the joined text: the head
    /// from 0, the tail up to the end.
    fn held(&self) -> impl Iterator<Item = (usize, &str)> {
        let mut head_at = 0;
        let head = self.head.iter().map(move |p| {
            head_at += p.len();
            (head_at - p.len(), p.as_ref())
        });
        let mut tail_at = self.total - self.tail_len;
        let tail = self.tail.iter().map(move |p| {
            tail_at += p.len();
            (tail_at - p.len(), p.as_ref())
        });
        head.chain(tail)
    }

    /// The byte at `at` of the joined text (`at` inside what is held).
    fn byte(&self, at: usize) -> u8 {
        self.held()
            .find(|(o, p)| *o <= at && at < o + p.len())
            .map_or(0, |(o, p)| p.as_bytes()[at - o])
    }

    fn is_boundary(&self, at: usize) -> bool {
        at == 0 || at >= self.total || self.byte(at) & 0xC0 != 0x80
    }

    fn floor(&self, mut at: usize) -> usize {
        if at >= self.total {
            return self.total;
        }
        while !self.is_boundary(at) {
            at -= 1;
        }
        at
    }

    fn ceil(&self, mut at: usize) -> usize {
        if at >= self.total {
            return self.total;
        }
        while !self.is_boundary(at) {
            at += 1;
        }
        at
    }

    /// Append the joined text's bytes `from..to` (char boundaries, held).
    fn copy(&self, from: usize, to: usize, out: &mut String) {
        for (offset, piece) in self.held() {
            push_overlap(out, piece, offset, from, to);
        }
    }

    pub fn finish(self) -> String {
        let max = self.policy.max_bytes;
        let total = self.total;
        let mut out = String::new();
        if total <= max {
            out.reserve(total);
            self.copy(0, total, &mut out);
            return out;
        }
        match self.policy.kind {
            ClipEnd::Head => {
                let end = self.floor(max);
                self.copy(0, end, &mut out);
                out.push_str(&self.policy.render_notice(total - end));
            }
            ClipEnd::Tail => {
                let start = self.ceil(total - max);
                out.push_str(&self.policy.render_notice(start));
                self.copy(start, total, &mut out);
            }
            ClipEnd::Middle => {
                let head_budget = max / 2;
                let tail_budget = max - head_budget;
                let head_end = self.floor(head_budget);
                let tail_start = self.ceil(total - tail_budget);
                if head_end >= tail_start {
                    self.copy(0, total, &mut out);
                    return out;
                }
                self.copy(0, head_end, &mut out);
                out.push_str(&self.policy.render_notice(tail_start - head_end));
                self.copy(tail_start, total, &mut out);
            }
        }
        out
    }
}

/// Push the part of `piece` (which starts at `offset` of the joined text) that
/// lies in `from..to`.
fn push_overlap(out: &mut String, piece: &str, offset: usize, from: usize, to: usize) {
    let (start, end) = (from.max(offset), to.min(offset + piece.len()));
    if start < end {
        out.push_str(&piece[start - offset..end - offset]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn under_budget_is_untouched() {
        let b = OutputBudget::new(ClipEnd::Middle, 10);
        assert_eq!(clamp("short", &b), "short");
        assert_eq!(clamp("exactly10!", &b), "exactly10!");
    }

    #[test]
    fn default_notice_is_byte_exact() {
        assert_eq!(
            default_notice(1),
            "\n… trimmed 1 byte to fit the window …\n"
        );
        assert_eq!(
            default_notice(42),
            "\n… trimmed 42 bytes to fit the window …\n"
        );
        assert_eq!(
            default_notice(0),
            "\n… trimmed 0 bytes to fit the window …\n"
        );
    }

    #[test]
    fn head_keeps_the_start() {
        let b = OutputBudget::with_notice(ClipEnd::Head, 4, |n| format!("[{n}]"));
        assert_eq!(clamp("abcdefgh", &b), "abcd[4]");
    }

    #[test]
    fn tail_keeps_the_end() {
        let b = OutputBudget::with_notice(ClipEnd::Tail, 3, |n| format!("[{n}]"));
        assert_eq!(clamp("abcdefgh", &b), "[5]fgh");
    }

    #[test]
    fn middle_splits_across_both_ends() {
        let b = OutputBudget::with_notice(ClipEnd::Middle, 4, |n| format!("[{n}]"));
        assert_eq!(clamp("abcdefghij", &b), "ab[6]ij");
        // Odd budgets give the extra byte to the tail.
        let b = OutputBudget::with_notice(ClipEnd::Middle, 5, |n| format!("[{n}]"));
        assert_eq!(clamp("abcdefghij", &b), "ab[5]hij");
    }

    #[test]
    fn cuts_never_split_a_character() {
        // "é" is two bytes; a head cut at byte 3 must back off to 2.
        let b = OutputBudget::with_notice(ClipEnd::Head, 3, |n| format!("[{n}]"));
        assert_eq!(clamp("aéé", &b), "aé[2]");
        let b = OutputBudget::with_notice(ClipEnd::Tail, 3, |n| format!("[{n}]"));
        assert_eq!(clamp("ééa", &b), "[2]éa");
        let b = OutputBudget::with_notice(ClipEnd::Middle, 2, |n| format!("[{n}]"));
        // head budget 1 byte => nothing of "日"; tail budget 1 byte => nothing of "本".
        assert_eq!(clamp("日本", &b), "[6]");
    }

    #[test]
    fn zero_budget_keeps_only_the_notice() {
        let b = OutputBudget::new(ClipEnd::Middle, 0);
        assert_eq!(clamp("abc", &b), default_notice(3));
        let b = OutputBudget::new(ClipEnd::Head, 0);
        assert_eq!(clamp("abc", &b), default_notice(3));
    }

    fn arb_kind() -> impl Strategy<Value = ClipEnd> {
        prop_oneof![
            Just(ClipEnd::Head),
            Just(ClipEnd::Tail),
            Just(ClipEnd::Middle)
        ]
    }

    proptest! {
        #[test]
        fn clamp_invariants(text in "\\PC{0,200}", max in 0usize..300, kind in arb_kind()) {
            // Control-character delimiters cannot occur in `\PC` text.
            let b = OutputBudget::with_notice(kind, max, |n| format!("\u{1}{n}\u{2}"));
            let out = clamp(&text, &b);
            if text.len() <= max {
                prop_assert_eq!(&out, &text);
            } else {
                // The result is a String, so no character was split; its size is
                // bounded by the budget plus the notice.
                let kept_plus_notice_bound = max + format!("\u{1}{}\u{2}", text.len()).len();
                prop_assert!(out.len() <= kept_plus_notice_bound, "{} > {}", out.len(), kept_plus_notice_bound);
                let notice_start = out.find('\u{1}').unwrap();
                let notice_end = out[notice_start..].find('\u{2}').unwrap() + notice_start + 1;
                let omitted: usize = out[notice_start + 1..notice_end - 1].parse().unwrap();
                let kept = out[..notice_start].len() + out[notice_end..].len();
                prop_assert_eq!(kept + omitted, text.len());
                prop_assert!(kept <= max);
                prop_assert!(text.starts_with(&out[..notice_start]));
                prop_assert!(text.ends_with(&out[notice_end..]));
            }
        }

        #[test]
        fn a_clamp_of_pieces_is_the_clamp_of_their_join(
            pieces in proptest::collection::vec("[a日é😀]{0,12}", 0..12),
            max in 0usize..80,
            kind in arb_kind(),
        ) {
            let b = OutputBudget::new(kind, max);
            let mut c = Clamp::new(b.clone());
            for p in &pieces {
                c.push(p.clone());
            }
            prop_assert_eq!(c.finish(), clamp(&pieces.concat(), &b));
        }

        #[test]
        fn multibyte_text_is_cut_on_boundaries(text in "[a日é😀]{0,80}", max in 0usize..120, kind in arb_kind()) {
            let b = OutputBudget::new(kind, max);
            let out = clamp(&text, &b);
            // Every char of the output came from the text or the notice; validity of
            // the String is the boundary guarantee, and no replacement char appears.
            prop_assert!(!out.contains(char::REPLACEMENT_CHARACTER));
            if text.len() <= max { prop_assert_eq!(out, text); }
        }
    }
}
