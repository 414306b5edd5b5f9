//! The match engine: where `edit`'s `oldText` and each hunk of an
//! `apply_patch` go, and why, when they cannot go anywhere. One engine for both
//! tools, pure (no file I/O: a tool reads the bytes, decodes them, plans, encodes
//! and writes), in rooms of its own:
//!
//! - `codec`: bytes to text and back (UTF-8, BOM, line endings), the
//!   line-ending-blind view;
//! - `snippet`: `edit`'s plan (stage 1, then the ladder; `replaceAll`; `edits`);
//! - `hunks`: apply_patch's plan, each hunk on the same ladder within its scope;
//! - `stages`: the whole-line stages 2 to 6;
//! - `lines`: the line model the stages and the witnesses share;
//! - `frame`: the witnesses that decide which frame `newText` is written in;
//! - `closest`: where an `oldText` that was not found would line up, and the
//!   closest region a refusal shows;
//! - `applied`: whether such an edit is already made ("already applied"), or
//!   the closest region is the answer;
//! - `refusal`: every refusal, worded.
//!
//! # The ladder, for both tools
//!
//! Stage 1 is an exact, literal search (a hunk: its lines exactly, at its
//! place). Only when there is no literal match do the whole-line stages run,
//! each tried only when the one before found nothing, and the first that finds
//! anything decides: more than one place, or places that overlap, is a refusal,
//! never a guess. [`MatchStage`] names the stage that matched, and every answer
//! says it.
//!
//! # Encoding, BOM and line endings
//!
//! A file must be valid UTF-8; anything else is refused ([`NotUtf8`]), never
//! rewritten lossily. A UTF-8 byte-order mark is stripped on decode and put back on
//! encode.
//!
//! Line endings follow one rule: **a file is normalized only when every line
//! ending in it is CRLF** (and it has at least one). Its text then has `\n` endings,
//! [`Decoded::crlf`] is set, and [`encode`] turns every `\n` back into `\r\n`; that
//! round trip is exact, since every `\n` of the text came from a `\r\n`. A file
//! with only LF endings, no line ending at all, or a mix of CRLF and LF is left
//! exactly as it is, so a mixed file is never silently converted.
//!
//! Matching is line-ending blind all the same. `oldText` and `newText` are taken
//! with any `\r\n` read as `\n` (a model writes `\n`), and [`apply_edit`] matches
//! them against a view of the text in which every `\r\n` reads as `\n`, mapping the
//! match back to the real bytes. So in a mixed file `oldText` written with `\n`
//! matches CRLF lines too. Each replacement takes the line ending of the lines it
//! replaces: the majority ending inside the matched bytes, or, when they hold no
//! line break (or as many of each), the ending of the line the match ends on (the
//! line before it when that is the last, unterminated line). A lone `\r` is never a
//! line ending and always stays where it is.
//!
//! # Matching
//!
//! Stage 1 is an exact, literal search (memchr's `memmem`, the hot path; a one-line
//! edit of a 50 MB file does one scan). A match must be unique unless `replaceAll`;
//! matches do not overlap (leftmost first). Only when there is no literal match do
//! the whole-line stages of `stages` run (trailing whitespace, indentation, a
//! first line without its indentation, `read`'s gutter, typography), each tried
//! only when the one before found nothing; [`EditApplied::stage`] names the one
//! that matched. Replacements are rebuilt in order so offsets stay valid.
//!
//! # Refusals
//!
//! Every refusal is an [`EditFailure`]; [`EditFailure::message`] words it with the
//! file's path, byte-stable:
//!
//! - `oldText must not be empty.`
//! - `oldText and newText are identical; there is nothing to change.`
//! - `The edit would not change PATH.`
//! - `The edit appears to be already applied: newText is present in PATH and oldText is not.`
//! - `oldText was found N times in PATH (lines A, B, C); add surrounding context to make
//!   it unique, or set replaceAll to replace every occurrence.` — the distinct
//!   1-based lines where the matches begin (their first non-blank character): `line A`
//!   when they share one line, the first 20 then ` and M more` when there are more.
//! - `oldText matched N places in PATH RELATION (match: STAGE; lines A, B); add
//!   surrounding context to make it unique, or set replaceAll to replace every
//!   occurrence.` — a whole-line stage's places, by the line of their first
//!   non-blank line; `oldText matched N overlapping places in PATH RELATION (match:
//!   STAGE; lines A, B); add surrounding context to make it unique.` when they share
//!   lines, whatever `replaceAll` says. RELATION is [`MatchStage::relation`].
//! - `oldText matched in PATH RELATION (match: STAGE), but line N of newText is
//!   indented less than that match lets it be placed; give oldText and newText at
//!   the file's indentation.`
//! - `oldText was not found in PATH. The closest match is at line L:` followed by a
//!   newline and that region of the file (as many lines as `oldText` has, at most 30,
//!   then `… (M more lines)`), or just `oldText was not found in PATH.` when nothing
//!   in the file resembles it.
//! - [`NotUtf8`]: `PATH is not valid UTF-8 (first bad byte at offset N); edit refuses
//!   to rewrite it.` with N counted in the file's bytes, BOM included.
//!
//! The closest region is found by voting: every line of the file equal (ignoring
//! surrounding whitespace) to a line of `oldText` votes for the window where the two
//! would line up; when no line matches, the words of `oldText` vote instead. Common
//! lines and words stop voting after a bounded number of hits, and the best few
//! windows are ranked by `similar`'s character ratio, so a big file costs a few
//! linear scans, not a search over every window.
//!
//! "Already applied" is said only when the file shows it (`applied`): `newText`
//! stands where `oldText` would have been, and no other text is a typo away
//! from `oldText` and as near it. When the evidence does not decide, the
//! closest region is the answer.
//!
//! # The whole-line stages
//!
//! A model or a person copies `oldText` with the wrong indentation, without its
//! trailing spaces, with its first line cut at the indentation, with `read`'s
//! line-number gutter, or with typographic quotes. Each of those is a stage with
//! its own line relation; the first stage that finds anything decides, and finding
//! more than one place (or places that overlap) is a refusal, never a guess.
//!
//! Every stage compares whole lines and writes whole lines. A line is split into
//! its indentation (leading spaces and tabs), its core, and its trailing spaces and
//! tabs. The relations:
//!
//! - `line-trimmed`: indentation and core equal, trailing whitespace ignored;
//! - `indent-shifted`: cores equal, and one indentation mapping takes every
//!   non-blank line of `oldText` to the file's (a common prefix swapped for
//!   another, or, where one side indents with tabs and the other with spaces, a
//!   column shift at a tab width of 4, 8 or 2), so the block's own structure must be
//!   the file's: `}` under `}` at another depth is no match;
//! - `first-line-indent`: as `indent-shifted`, the mapping taken from every line
//!   but the first, whose indentation may be anything (a selection started at the
//!   first line's text);
//! - `gutter-stripped`: `read`'s `{:>6}\t` gutter on every line of `oldText`, with
//!   consecutive numbers, is removed (and from `newText` when every line of it has
//!   one), then the three relations above are tried;
//! - `typography`: the three relations again with curly quotes, dashes, the
//!   ellipsis and non-breaking spaces read as ASCII, for the comparison only.
//!
//! Blank lines match blank lines. What is written: a line of `newText` that is
//! also a line of `oldText` (the two snippets aligned by a line diff) is written as
//! the file has it, byte for byte, so context the caller merely copied is never
//! altered; any other line gets its indentation through the stage's mapping (so a
//! block written at the wrong depth lands at the file's depth) and its trailing
//! whitespace through the mapping the match showed (a trailing space that every
//! line of `oldText` had and the file has not is dropped). A changed blank line is
//! never indented. A line of `newText` less indented than the mapping can place is
//! refused rather than guessed.
//!
//! Whether `newText` is written in `oldText`'s frame (shifted by the mapping) or
//! at the file's indentation (written as it is) is read from witnesses, and only
//! when the two readings give different files: lines of `newText` that copy a
//! line of `oldText` at one frame's indentation; the first line and the outermost
//! line, at `oldText`'s depth or the file's; and the brackets at the edges of the
//! replacement, since a line that starts with `}` stands under the line that
//! opened its block. Witnesses that disagree, or none, refuse with both readings.
//! Tabs written for spaces (or the reverse) match at any depth; among several
//! places, the one place at the very columns the tabs span is the one meant.
//!
//! The work is bounded: past 2^26 line comparisons a stage finds nothing.
//! Hand-written because no crate does indentation-aware line matching; the line
//! alignment of the two snippets comes from `similar`.

mod applied;
mod closest;
mod codec;
mod frame;
mod hunks;
mod lines;
mod refusal;
mod snippet;
mod stages;
#[cfg(test)]
mod tests_applied;
#[cfg(test)]
mod tests_plans;
#[cfg(test)]
mod tests_shapes;
#[cfg(test)]
mod tests_stages;

pub use codec::{Decoded, NotUtf8, decode, decode_vec, encode, encode_owned};
pub use hunks::{HunkFailure, HunkPlaced, HunkSpec, HunksPlan, plan_hunks};
pub use refusal::{EditFailure, MultiFailure};
pub use snippet::{
    EditApplied, EditPlan, MultiPlan, Splice, apply_edit, plan_edit, plan_edits, splice_text,
};
pub use stages::MatchStage;
