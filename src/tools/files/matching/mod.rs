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
//! - `refusal`: every refusal, worded;
//! - `budget`: the work one call's fuzzy matching may do.
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
//! # Which frame `newText` is written in: the witnesses
//!
//! Whether `newText` is written in `oldText`'s frame (shifted by the mapping) or
//! at the file's indentation (written as it is) is asked only when the two
//! readings give different files. Each witness below looks at one thing and says
//! `Old`, `File` or nothing; `stages::decide` takes a frame only when **every
//! witness that speaks says the same**, the frame can stand at all, the
//! placement witness does not speak against it, and it is said by a witness
//! that decides alone or by two that agree. Anything else is refused, naming
//! both readings' first differing line. With no witness speaking, the one
//! reading that can stand at all is taken, if only one can.
//!
//! The authority of each witness comes from data: `bench/edit-replay.py
//! --trace` and `bench/patch-replay.py --trace` (a build with `--features
//! frame-trace`) record what every witness said at every decision and which
//! reading gave the real next revision; `bench/frame-witnesses.py` counts them.
//! Figures: spoke / wrong, first on the histories the rules were tuned on
//! (ripgrep, this repository, click, cobra, express, jq, bats-core, newest 40
//! commits each), then on a held-out set measured before anyone looked at it
//! (flask, bubbletea, zod, hiredis, neofetch, fd), edits and hunks apart.
//!
//! - **Copies** (`frame::infer_frame`): a line of `newText` equal, up to
//!   indentation, to a line of `oldText` whose indentation differs from the
//!   file's stands at one frame's depth; the majority says. Copies voting both
//!   ways refuse. Lines of punctuation alone and block-ending keywords (`}`,
//!   `fi`) do not vote (they are in every block). Decides alone for an edit:
//!   tuned 1,463 / 22, held-out 1,152 / 10 (never alone-wrong on the tuned
//!   set). For a hunk an exact copy is a line the change re-indented (one it
//!   kept is context), so it does not vote; a version does (below).
//! - **Versions**: a line much like one of `oldText`'s (`call(a)`, `call(a,
//!   b)`), when no exact copy speaks. Tuned 1,385 / 10, held-out 923 / 8; never
//!   alone. For a hunk, versions are its copies: 1,709 / 22 tuned, 1,181 / 10
//!   held-out.
//! - **Weak copies**: punctuation lines, beside a first line at the same
//!   frame's depth. 539 / 1, held-out 291 / 1; never alone.
//! - **First line**, a version of `oldText`'s first line, at `oldText`'s
//!   indentation and not the file's (or the reverse). Tuned 2,473 / 0,
//!   held-out 1,725 / 1: decides alone. Silent for a hunk (its first added line
//!   stands wherever the change falls).
//! - **First line unlike** `oldText`'s, and **outermost line**: weaker
//!   (tuned 717 / 5 and 3,042 / 13; held-out 583 / 13 and 2,185 / 26): never
//!   alone, and silent for a hunk (outermost: 265 wrong of 1,382 there).
//! - **Brackets** (`frame::bracket_fit`): a line that starts with `}`, `)` or
//!   `]` stands under the line that opened its block, read over 400 lines of
//!   the file around the replacement; strings, character literals and `//`
//!   comments skipped; a Python block header is followed by a deeper line.
//!   Tuned 638 / 0 (edits) and 568 / 0 (hunks), held-out 439 / 2 and 238 / 2:
//!   decides alone. In the anchored exact path (`snippet`), a block the
//!   replacement opens and leaves open is not paired with a closing line after
//!   it (that one closes an enclosing block).
//! - **Edge** (`frame::edge_fit`): the file's line above the replacement opens
//!   a block (`{`, a Python header, a braceless `if (x)`) and the first line
//!   stands deeper; or it is a plain statement (`x = 1;`), a line that only
//!   closes (`}`) or an attribute or decorator (`#[test]`, `@Override`), and
//!   the first line stands beside it. Tuned 613 / 1,
//!   held-out 301 / 3; never alone.
//! - **Siblings** (`frame::between_fit`, hunks): a run of added lines between
//!   two lines at one depth, or after a plain statement, stands at that depth.
//!   Tuned 945 / 6, held-out 685 / 6; never alone.
//! - **Layout** (`frame::layout_fit`, hunks): the habits of braces, operators
//!   and comments around each added line. Tuned 1,734 / 67, held-out 1,222 /
//!   32; never alone.
//! - **Minimal** (hunks): a reading in which a removed line comes back
//!   unchanged among the added ones is not the change the diff describes.
//!   Tuned 32 / 0, held-out 13 / 0: decides alone.
//! - **One unchanged line at the file's column** (`stages::decide`,
//!   `Inference::lone_file_copy`): when the copies say `File` from one line
//!   alone and the first-line witness, if it speaks, reads that same line, the
//!   call is byte for byte what a model sends for two commits: newText at the
//!   file's indentation, or newText cut like oldText where the commit moved
//!   the block in by exactly the cut (YAML re-indented, a nested list moved, a
//!   body wrapped). The witnesses that read newText against oldText all read
//!   that line, so they count as none: only a witness that reads the file
//!   (brackets, edge, siblings) decides it, or newText as written starting
//!   one step inside a block the line above opens where the other reading
//!   would start two steps in (`frame::one_step_inside_opener`). Else
//!   refused, naming both readings. An edit that keeps every line of
//!   oldText is an insertion around it (which does not move its own
//!   context) and is not this shape. Held out (flysystem, the Rust
//!   reference, sinatra; newest 200 commits): 1 wrong edit refused, 4 right
//!   ones refused; the rounds before are in `docs/benchmarks.md`.
//! - **Placement** (vetoes only): a reading whose outermost line reaches
//!   shallower than every line it replaces, or more than a level deeper than
//!   `oldText`'s outermost, is implausible; it never decides (it was wrong 38
//!   times in 2,868 on the tuned edits: real edits do unwrap blocks), but it
//!   refuses the other reading.
//!
//! Decisions taken: tuned edits 3,310 / 0 wrong, tuned hunks 1,635 / 0;
//! held-out 2,356 / 4 and 1,196 / 2 before the last round of fixes (the six
//! cases, and every wrong file of the final held-out set, are regression tests
//! in `tests_shapes`). The figures per repository and class are in
//! `docs/benchmarks.md`, *Replay over real history*.
//!
//! The exact-match path (`oldText` found literally, right after a line's
//! indentation, its first line cut) weighs the same kinds of evidence in
//! `snippet::anchor_at_indentation`: newText's first line of text at the
//! match's whole indentation, a one-line `oldText`'s copy at the match's depth
//! or at none, a new first line that would stand shallower than its neighbours
//! at column 0 (only a directive or a label does; a key above a YAML sequence
//! item, `ruby:` then `- "3.0"`, is no label), first lines that are
//! siblings as written, and the edge; when they disagree or none speaks, the
//! brackets may pick one reading, else the edit is refused. A first line that
//! carries the match's indentation and more is no witness: as written it moves
//! the line in by the difference, cut like oldText by its whole depth.
//!
//! Tabs written for spaces (or the reverse) match at any depth; among several
//! places, the one place at the very columns the tabs span is the one meant. An
//! `oldText` cut to no indentation at all takes the file's prefix, so spaces
//! that align after a tab stay spaces.
//!
//! The work is bounded: every whole-line stage of a call (an `edit`, all the
//! hunks of a patch) counts its comparisons against one [`Budget`] (`budget`),
//! which also carries the call's deadline and cancellation token; a search that
//! runs it out is refused as [`EditFailure::TooCostly`], never read as "not
//! found". The exact stage costs nothing.
//! Hand-written because no crate does indentation-aware line matching; the line
//! alignment of the two snippets comes from `similar`.

mod applied;
mod budget;
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

pub use budget::{Budget, Stop};
pub use codec::{Decoded, NotUtf8, decode, decode_vec, encode, encode_owned};
pub use hunks::{HunkFailure, HunkPlaced, HunkSpec, HunksPlan, plan_hunks, plan_hunks_within};
pub use refusal::{EditFailure, MultiFailure};
pub use snippet::{
    EditApplied, EditPlan, MultiPlan, Splice, apply_edit, plan_edit, plan_edit_within, plan_edits,
    plan_edits_within, splice_text,
};
pub use stages::MatchStage;
