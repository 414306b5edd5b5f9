//! The pure logic of `edit`: decoding a file's bytes, finding `oldText`, replacing it
//! with `newText`, and saying precisely why when that cannot be done. No file I/O
//! happens here; the tool reads the bytes, calls [`decode`], [`apply_edit`] and
//! [`encode`], and writes the result.
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
//! the whole-line stages of `edit_lines` run (trailing whitespace, indentation, a
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

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use memchr::memmem;

pub use super::edit_lines::MatchStage;
use super::edit_lines::{LineOutcome, Scope, alike, brackets_fitting, match_lines};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How many distinct lines a "found N times" refusal lists.
const MAX_LISTED_LINES: usize = 20;
/// How many lines of the closest region a "not found" refusal shows.
const MAX_REGION_LINES: usize = 30;
/// A line or word seen more often than this says nothing about where the
/// snippet was meant to be, and stops voting.
const MAX_VOTES_PER_KEY: usize = 256;
/// How many of the best-voted windows are ranked by similarity.
const RANKED_WINDOWS: usize = 5;
/// How many of `oldText`'s words may vote when no line matched.
const VOTING_WORDS: usize = 32;

/// A file's text ready for matching, with what [`encode`] needs to restore it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The file began with a UTF-8 byte-order mark (not part of `text`).
    pub bom: bool,
    /// Every line ending of the file was CRLF; `text` has them as `\n`.
    pub crlf: bool,
    pub text: String,
}

/// The file is not valid UTF-8; `offset` is the first bad byte in the file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotUtf8 {
    pub offset: usize,
}

impl NotUtf8 {
    pub fn message(&self, path: &str) -> String {
        format!(
            "{path} is not valid UTF-8 (first bad byte at offset {}); edit refuses to rewrite it.",
            self.offset
        )
    }
}

/// True when the text has at least one line ending and all of them are CRLF.
fn all_crlf(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut any = false;
    for nl in memchr::memchr_iter(b'\n', bytes) {
        if nl == 0 || bytes[nl - 1] != b'\r' {
            return false;
        }
        any = true;
    }
    any
}

/// `\r\n` read as `\n`, borrowing when there is none.
fn crlf_to_lf(text: &str) -> Cow<'_, str> {
    let mut pieces = memmem::find_iter(text.as_bytes(), b"\r\n").peekable();
    if pieces.peek().is_none() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut prev = 0;
    for at in pieces {
        out.push_str(&text[prev..at]);
        prev = at + 1;
    }
    out.push_str(&text[prev..]);
    Cow::Owned(out)
}

fn lf_to_crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut prev = 0;
    for nl in memchr::memchr_iter(b'\n', text.as_bytes()) {
        out.push_str(&text[prev..nl]);
        out.push_str("\r\n");
        prev = nl + 1;
    }
    out.push_str(&text[prev..]);
    out
}

fn finish_decode(bom: bool, text: String) -> Decoded {
    if all_crlf(&text) {
        let text = crlf_to_lf(&text).into_owned();
        Decoded {
            bom,
            crlf: true,
            text,
        }
    } else {
        Decoded {
            bom,
            crlf: false,
            text,
        }
    }
}

/// Decode a file's bytes: UTF-8 or refused, BOM stripped, CRLF normalized when
/// every line ending is CRLF (see the module notes).
pub fn decode(bytes: &[u8]) -> Result<Decoded, NotUtf8> {
    let (bom, body) = match bytes.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let text = std::str::from_utf8(body).map_err(|e| NotUtf8 {
        offset: e.valid_up_to() + if bom { BOM.len() } else { 0 },
    })?;
    Ok(finish_decode(bom, text.to_owned()))
}

/// [`decode`] taking the bytes by value, which spares a copy of a big LF file.
pub fn decode_vec(mut bytes: Vec<u8>) -> Result<Decoded, NotUtf8> {
    let bom = bytes.starts_with(BOM);
    if bom {
        bytes.drain(..BOM.len());
    }
    let text = String::from_utf8(bytes).map_err(|e| NotUtf8 {
        offset: e.utf8_error().valid_up_to() + if bom { BOM.len() } else { 0 },
    })?;
    Ok(finish_decode(bom, text))
}

/// The bytes to write for `new_text` in `d`'s encoding: its BOM back in front and,
/// for a CRLF file, every `\n` as `\r\n`.
pub fn encode(d: &Decoded, new_text: &str) -> Vec<u8> {
    let body: Cow<'_, str> = if d.crlf {
        Cow::Owned(lf_to_crlf(new_text))
    } else {
        Cow::Borrowed(new_text)
    };
    let mut out = Vec::with_capacity(body.len() + BOM.len());
    if d.bom {
        out.extend_from_slice(BOM);
    }
    out.extend_from_slice(body.as_bytes());
    out
}

/// [`encode`] taking the text by value: a file with neither BOM nor CRLF endings
/// is written from the same buffer, sparing a copy of a big file.
pub fn encode_owned(d: &Decoded, new_text: String) -> Vec<u8> {
    if d.bom || d.crlf {
        encode(d, &new_text)
    } else {
        new_text.into_bytes()
    }
}

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

/// The region of the file most like an `oldText` that was not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closest {
    /// 1-based line where the region starts.
    pub line: usize,
    /// The region as shown in the message (already capped).
    pub region: String,
}

/// Why an edit was refused. [`EditFailure::message`] gives the wording.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditFailure {
    EmptyOld,
    Identical,
    Unchanged,
    AlreadyApplied,
    NotFound {
        closest: Option<Closest>,
    },
    FoundMany {
        count: usize,
        /// Distinct 1-based lines where the matches begin, ascending.
        lines: Vec<usize>,
        /// The stage that found them.
        stage: MatchStage,
        /// Whole-line places that share lines (refused even with `replaceAll`).
        overlapping: bool,
    },
    /// `oldText` (one line, or one line and blank ones) starts right after the
    /// indentation of `line`, and newText's later lines could be meant as written
    /// or relative to that line: nothing tells which.
    IndentAmbiguous {
        line: usize,
        /// The first line the two readings write differently: its 1-based number
        /// in the edited file, as written and relative to the line.
        differs: Option<(usize, String, String)>,
    },
    /// A whole-line stage matched, and `newText` could be at the file's
    /// indentation or in `oldText`'s frame: line `line` of the edited file would
    /// read `as_written` or `shifted`, and nothing in the texts tells which.
    FrameAmbiguous {
        stage: MatchStage,
        line: usize,
        as_written: String,
        shifted: String,
    },
    /// A line of `newText` is less indented than a whole-line stage's indentation
    /// mapping can place in the file.
    Unplaceable {
        stage: MatchStage,
        /// 1-based line of `newText`.
        new_line: usize,
    },
}

impl EditFailure {
    /// The refusal, byte-stable, naming the file as `path`.
    pub fn message(&self, path: &str) -> String {
        match self {
            EditFailure::EmptyOld => "oldText must not be empty.".to_string(),
            EditFailure::Identical => {
                "oldText and newText are identical; there is nothing to change.".to_string()
            }
            EditFailure::Unchanged => format!("The edit would not change {path}."),
            EditFailure::AlreadyApplied => format!(
                "The edit appears to be already applied: newText is present in {path} and oldText is not."
            ),
            EditFailure::NotFound { closest: None } => {
                format!("oldText was not found in {path}.")
            }
            EditFailure::NotFound {
                closest: Some(Closest { line, region }),
            } => format!(
                "oldText was not found in {path}. The closest match is at line {line}:\n{region}"
            ),
            EditFailure::FoundMany {
                count,
                lines,
                stage,
                overlapping,
            } => {
                let listed: Vec<String> = lines
                    .iter()
                    .take(MAX_LISTED_LINES)
                    .map(usize::to_string)
                    .collect();
                let more = match lines.len().saturating_sub(MAX_LISTED_LINES) {
                    0 => String::new(),
                    n => format!(" and {n} more"),
                };
                let noun = if lines.len() == 1 { "line" } else { "lines" };
                let listed = listed.join(", ");
                match (stage, overlapping) {
                    (MatchStage::Exact, _) => format!(
                        "oldText was found {count} times in {path} ({noun} {listed}{more}); add surrounding context to make it unique, or set replaceAll to replace every occurrence."
                    ),
                    (_, false) => format!(
                        "oldText matched {count} places in {path} {} (match: {}; {noun} {listed}{more}); add surrounding context to make it unique, or set replaceAll to replace every occurrence.",
                        stage.relation(),
                        stage.name()
                    ),
                    (_, true) => format!(
                        "oldText matched {count} overlapping places in {path} {} (match: {}; {noun} {listed}{more}); add surrounding context to make it unique.",
                        stage.relation(),
                        stage.name()
                    ),
                }
            }
            EditFailure::IndentAmbiguous { line, differs } => {
                let mut m = format!(
                    "oldText starts after the indentation of line {line} in {path}, and the later lines of newText could be meant as written or relative to that line."
                );
                if let Some((at, written, relative)) = differs {
                    m.push_str(&format!(
                        " Line {at} would read {} as written, or {} relative to it.",
                        serde_json::Value::from(written.as_str()),
                        serde_json::Value::from(relative.as_str())
                    ));
                }
                m.push_str(
                    " Include the line's indentation in oldText and write newText at the file's indentation.",
                );
                m
            }
            EditFailure::FrameAmbiguous {
                stage,
                line,
                as_written,
                shifted,
            } => format!(
                "oldText matched in {path} {} (match: {}), and newText could be written at the file's indentation or at oldText's: line {line} would read {} as written, or {} shifted like oldText. Write oldText and newText at the file's indentation.",
                stage.relation(),
                stage.name(),
                serde_json::Value::from(as_written.as_str()),
                serde_json::Value::from(shifted.as_str())
            ),
            EditFailure::Unplaceable { stage, new_line } => format!(
                "oldText matched in {path} {} (match: {}), but line {new_line} of newText is indented less than that match lets it be placed; give oldText and newText at the file's indentation.",
                stage.relation(),
                stage.name()
            ),
        }
    }
}

impl fmt::Display for EditFailure {
    /// The message with the file called `the file`; tools use [`Self::message`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message("the file"))
    }
}

impl std::error::Error for EditFailure {}

/// The text as matching sees it: every `\r\n` read as `\n`, with the positions
/// needed to map an offset back to the real text.
struct View<'a> {
    text: Cow<'a, str>,
    /// View offsets of the `\n`s that were `\r\n` in the real text, ascending.
    crs: Vec<usize>,
}

impl<'a> View<'a> {
    fn new(raw: &'a str) -> Self {
        let mut at = memmem::find_iter(raw.as_bytes(), b"\r\n").peekable();
        if at.peek().is_none() {
            return View {
                text: Cow::Borrowed(raw),
                crs: Vec::new(),
            };
        }
        let mut text = String::with_capacity(raw.len());
        let mut crs = Vec::new();
        let mut prev = 0;
        for r in at {
            text.push_str(&raw[prev..r]);
            crs.push(text.len());
            prev = r + 1;
        }
        text.push_str(&raw[prev..]);
        View {
            text: Cow::Owned(text),
            crs,
        }
    }

    /// The real offset of a view offset: each `\r` dropped before it moves it on.
    fn raw(&self, at: usize) -> usize {
        at + self.crs.partition_point(|&k| k < at)
    }
}

/// Whether a replacement of `raw[start..end]` should use CRLF line endings.
fn wants_crlf(raw: &str, start: usize, end: usize) -> bool {
    let bytes = raw.as_bytes();
    let (mut crlf, mut lf) = (0usize, 0usize);
    for nl in memchr::memchr_iter(b'\n', &bytes[start..end]) {
        if start + nl > 0 && bytes[start + nl - 1] == b'\r' {
            crlf += 1;
        } else {
            lf += 1;
        }
    }
    if crlf != lf {
        return crlf > lf;
    }
    // The line the match ends on: the one whose line break ends the match, or
    // else the one the match stops inside.
    let from = if end > start && bytes[end - 1] == b'\n' {
        end - 1
    } else {
        end
    };
    let ending = match memchr::memchr(b'\n', &bytes[from..]) {
        Some(i) => Some(from + i),
        None => memchr::memrchr(b'\n', &bytes[..start]),
    };
    ending.is_some_and(|nl| nl > 0 && bytes[nl - 1] == b'\r')
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
/// caller can splice a big file in place.
pub fn plan_edit(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
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
        // oldText without its indentation stands after several lines'
        // indentation; newText's first line, a version of oldText's, written at
        // the file's indentation says which.
        let first = |t: &str| t.split('\n').next().unwrap_or("").trim().to_string();
        let wanted = first_line_indent(&new).filter(|i| {
            !i.is_empty() && !old.starts_with([' ', '\t']) && alike(&first(&old), &first(&new))
        });
        if let Some(wanted) = wanted {
            let at_wanted: Vec<(usize, usize)> = exact
                .iter()
                .copied()
                .filter(|&(s, _)| hay[..s].rsplit('\n').next() == Some(wanted))
                .collect();
            if at_wanted.len() == 1 {
                exact = at_wanted;
            }
        }
    }
    let (stage, spans): (MatchStage, Vec<(usize, usize, Cow<'_, str>)>) = if !exact.is_empty() {
        if exact.len() > 1 && !replace_all {
            let starts = exact.iter().map(|&(s, e)| {
                let lead = hay[s..e].len() - hay[s..e].trim_start().len();
                if lead == e - s { s } else { s + lead }
            });
            let mut lines = line_numbers(hay, starts);
            lines.dedup();
            return Err(EditFailure::FoundMany {
                count: exact.len(),
                lines,
                stage: MatchStage::Exact,
                overlapping: false,
            });
        }
        let mut prev_end = 0;
        let mut anchors = Vec::with_capacity(exact.len());
        for &(s, e) in &exact {
            // The two readings of an anchored newText, told apart by the brackets
            // at their edges when the texts cannot tell.
            // Every reading is weighed, newText wholly relative to the line
            // included, which the two the refusal names may leave out.
            let anchor =
                anchor_at_indentation(hay, s, e, &old, &new).or_else(|(written, relative)| {
                    let line_start = hay[..s].rfind('\n').map_or(0, |i| i + 1);
                    let all = indented(&hay[line_start..s], &new, true);
                    let texts = [written.as_str(), relative.as_str(), all.as_str()];
                    match brackets_fitting(hay, line_start, e, &texts)[..] {
                        [i] => Ok(Some((line_start, texts[i].to_string()))),
                        // newText from the line's start and wholly relative to it
                        // both fit: the one not shallower than the line it
                        // replaces (a first line meant at the file's indentation
                        // would have carried it).
                        [0, 2] => Ok(Some((line_start, all))),
                        _ => Err((written, relative)),
                    }
                });
            match anchor {
                Ok(anchor) => anchors.push(anchor.filter(|&(start, _)| start >= prev_end)),
                Err((written, relative)) => {
                    let line = line_numbers(hay, std::iter::once(s))[0];
                    let differs = written
                        .split('\n')
                        .zip(relative.split('\n'))
                        .position(|(a, b)| a != b)
                        .map(|i| {
                            let at = |t: &str| t.split('\n').nth(i).unwrap_or("").to_string();
                            (line + i, at(&written), at(&relative))
                        });
                    return Err(EditFailure::IndentAmbiguous { line, differs });
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
            match_lines(hay, &old, &new, replace_all, &Scope::WHOLE)
        };
        match outcome {
            LineOutcome::Applied {
                stage,
                replacements,
            } => (
                stage,
                replacements
                    .into_iter()
                    .map(|r| (r.start, r.end, Cow::Owned(r.text)))
                    .collect(),
            ),
            LineOutcome::Ambiguous {
                stage,
                lines,
                overlapping,
            } => {
                return Err(EditFailure::FoundMany {
                    count: lines.len(),
                    lines,
                    stage,
                    overlapping,
                });
            }
            LineOutcome::Unplaceable { stage, new_line } => {
                return Err(EditFailure::Unplaceable { stage, new_line });
            }
            LineOutcome::FrameAmbiguous {
                stage,
                line,
                as_written,
                shifted,
            } => {
                return Err(EditFailure::FrameAmbiguous {
                    stage,
                    line,
                    as_written,
                    shifted,
                });
            }
            LineOutcome::Nothing => {
                let closest = closest_region(hay, &old);
                if already_applied(hay, &old, &new, closest.as_ref()) {
                    return Err(EditFailure::AlreadyApplied);
                }
                return Err(EditFailure::NotFound { closest });
            }
        }
    };

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
    Ok(EditPlan {
        splices,
        stage,
        anchored,
    })
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

/// Why a list of edits was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MultiFailure {
    /// One edit alone (or the only one) failed.
    Edit {
        index: usize,
        of: usize,
        failure: EditFailure,
    },
    /// Two edits' matches share text.
    Overlap {
        first: usize,
        second: usize,
        line: usize,
    },
}

impl MultiFailure {
    pub fn message(&self, path: &str) -> String {
        match self {
            MultiFailure::Edit { failure, of: 1, .. } => failure.message(path),
            MultiFailure::Edit { index, failure, .. } => {
                format!(
                    "edits[{index}]: {} Nothing was changed.",
                    failure.message(path)
                )
            }
            MultiFailure::Overlap {
                first,
                second,
                line,
            } => format!(
                "edits[{first}] and edits[{second}] change the same text of {path} (line {line}); merge them into one edit. Nothing was changed."
            ),
        }
    }
}

/// Plan `edits` (`(oldText, newText, replaceAll)`) against `text` (see [`MultiPlan`]).
pub fn plan_edits(text: &str, edits: &[(String, String, bool)]) -> Result<MultiPlan, MultiFailure> {
    let of = edits.len();
    let mut all: Vec<(usize, Splice)> = Vec::new();
    let mut stages = Vec::with_capacity(of);
    let mut anchored = false;
    for (index, (old, new, replace_all)) in edits.iter().enumerate() {
        let plan = plan_edit(text, old, new, *replace_all)
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

/// An exact match of `old` at `hay[s..e]` that starts right after a line's
/// indentation and ends at the end of a line is a snippet of whole lines whose
/// first line was copied without its indentation. Its replacement is then whole
/// lines too: the span starts at the line's start, a non-blank first line of `new`
/// gets the indentation back (as a literal replacement would), a blank one does
/// not (an emptied line keeps no indentation). When `old` has several non-blank
/// lines, the later ones matched the file as they are, so the later lines of `new`
/// are in the file's frame and stand as written. When `old` is one line, they are
/// in that line's frame (written relative to column 0) if any of them is less
/// indented than the line; if every one is at least as deep, or `old` is one line
/// followed by blank ones (the shape of a whole-line selection whose first line lost
/// its indentation, too), either reading could be meant and the edit is refused
/// (`Err`). `Ok(None)` when the match is not of that shape: a literal replacement
/// it is.
fn anchor_at_indentation(
    hay: &str,
    s: usize,
    e: usize,
    old: &str,
    new: &str,
) -> Result<Option<(usize, String)>, (String, String)> {
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
    let blank = |l: &str| l.bytes().all(|b| b == b' ' || b == b'\t');
    // newText's first line already carries the indentation the match starts after
    // (oldText's does not): newText is written at the file's indentation, as a
    // model writes it after reading the file. Its lines stand as written, from the
    // line's start; putting the indentation in front again would double it.
    let first_new = new.split('\n').next().unwrap_or("");
    // Any indentation at all on newText's first line says the same: a model that
    // cut the first line of oldText and wrote newText like it cuts newText's
    // first line whole, so an indented one was written at the file's depth.
    if !blank(first_new) && (first_new.starts_with(indent) || first_new.starts_with([' ', '\t'])) {
        return Ok(Some((line_start, new.to_string())));
    }
    let old_lines: Vec<&str> = old.strip_suffix('\n').unwrap_or(old).split('\n').collect();
    // A first line of punctuation alone (`}`, `);`) that is not oldText's first
    // line: a closing line at column 0 as written, or one cut like oldText's.
    // Blocks close at every depth; nothing tells which.
    if !blank(first_new)
        && !first_new.chars().any(char::is_alphanumeric)
        && old_lines[0] != first_new
    {
        return Err((new.to_string(), format!("{indent}{new}")));
    }
    // newText's first line repeats one of oldText's later lines (which matched
    // the file as it stands) and not the first: it may be that later line kept,
    // or the first line's replacement cut like oldText's. Nothing tells which.
    if !blank(first_new)
        && old_lines[0] != first_new
        && old_lines.iter().skip(1).any(|l| *l == first_new)
    {
        return Err((new.to_string(), format!("{indent}{new}")));
    }
    let one_line = old_lines.len() == 1;
    // One line with blank lines after it says no more about the frame of newText's
    // later lines than one line does, but it is also how a whole-line selection
    // whose first line lost its indentation looks: the later lines then stand as
    // the file has them. Either reading is as likely.
    let undecided = !one_line && old_lines.iter().skip(1).all(|l| blank(l));
    let lines: Vec<&str> = new.split('\n').collect();
    // The last piece after a final `\n` is not a line of its own.
    let body = if new.ends_with('\n') {
        &lines[..lines.len() - 1]
    } else {
        &lines[..]
    };
    let later: Vec<&str> = body.iter().skip(1).copied().filter(|l| !blank(l)).collect();
    let framed = one_line && later.iter().any(|l| !l.starts_with(indent));
    let write = |framed: bool| indented(indent, new, framed);
    if (one_line || undecided) && !later.is_empty() && !framed {
        // Every later line is at least as deep as the line: as written, they sit
        // beside or under it; read relative to it (column 0 being the line's own
        // start), one indentation deeper. Nothing tells which was meant.
        return Err((write(false), write(true)));
    }
    Ok(Some((line_start, write(framed))))
}

/// `new` written after `indent`: its first line always, and with `framed` every
/// later line that is not blank too (a final line break opens no line).
fn indented(indent: &str, new: &str, framed: bool) -> String {
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

/// Whether an `oldText` that was not found was most likely replaced by `newText`
/// already: `newText` of several lines is present, or `newText` stands where
/// `oldText` is closest (inside that region), or, with nothing close,
/// it stands as whole lines. A short `newText` that merely occurs somewhere (one
/// character, a common word) says nothing, and the closest region is more use.
fn already_applied(hay: &str, old: &str, new: &str, closest: Option<&Closest>) -> bool {
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

/// 1-based line numbers of ascending offsets, in one pass.
fn line_numbers(text: &str, offsets: impl Iterator<Item = usize>) -> Vec<usize> {
    let bytes = text.as_bytes();
    let (mut line, mut at) = (1, 0);
    offsets
        .map(|o| {
            line += bytes[at..o].iter().filter(|&&b| b == b'\n').count();
            at = o;
            line
        })
        .collect()
}

/// Start offsets of every line.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
    if starts.len() > 1 && *starts.last().unwrap() == text.len() {
        starts.pop();
    }
    starts
}

/// The region of `hay` most like `old` (see the module notes), if anything is.
fn closest_region(hay: &str, old: &str) -> Option<Closest> {
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
fn similarity(a: &str, b: &str) -> f32 {
    let mut config = similar::TextDiff::configure();
    config.timeout(Duration::from_millis(50));
    if a.len() + b.len() <= 16 * 1024 {
        config.diff_chars(a, b).ratio()
    } else {
        config.diff_lines(a, b).ratio()
    }
}

/// One hunk of a patch, for [`plan_hunks`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkSpec {
    /// The lines the file holds (context and removed), each ending in `\n`.
    pub old: String,
    /// The lines it will hold (context and added), each ending in `\n`.
    pub new: String,
    /// 0-based line where the old side starts, as the patch states it.
    pub at_line: Option<usize>,
    /// A line the hunk comes after (an envelope's `@@ anchor`).
    pub anchor: Option<String>,
    /// The old lines end the file (`*** End of File`).
    pub at_end: bool,
    /// The new side's last line has no line break (a unified diff's
    /// `\ No newline at end of file`), when the hunk reaches the file's end.
    pub new_no_newline: bool,
    /// For each line of `new`, the line of `old` it is when it is context.
    pub context: Vec<Option<usize>>,
}

/// Where a hunk went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkPlaced {
    pub stage: MatchStage,
    /// 1-based line of the file (before the patch) where the hunk's old side starts.
    pub line: usize,
    /// Lines between the stated line and where it was found (unified diffs).
    pub offset: Option<isize>,
}

/// Why a hunk could not be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkFailure {
    /// The `@@` anchor line is not in the file after the hunk before.
    Anchor { anchor: String },
    /// The hunk's old lines, as `edit` words an oldText it cannot place.
    Match(EditFailure),
}

impl HunkFailure {
    /// The refusal for hunk `n` (1-based) of `path`.
    pub fn message(&self, path: &str, n: usize) -> String {
        match self {
            HunkFailure::Anchor { anchor } => format!(
                "hunk {n}: its @@ line {anchor:?} was not found in {path} after the hunk before it."
            ),
            // `edit`'s wording, said of a hunk: its sides for oldText/newText,
            // and no `replaceAll`, which a patch does not have.
            HunkFailure::Match(f) => {
                let text = f
                    .message(path)
                    .replace("The edit appears", "The hunk appears")
                    .replace(", or set replaceAll to replace every occurrence", "")
                    .replace("surrounding context", "context lines")
                    .replace("oldText", "the old side")
                    .replace("newText", "the new side");
                format!("hunk {n}: {text}")
            }
        }
    }
}

/// A file's text after every hunk of it, and where each went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunksPlan {
    pub text: String,
    pub placed: Vec<HunkPlaced>,
}

/// Place every hunk of one file and build its new text: all or nothing, every
/// failure reported (by hunk index) rather than only the first.
///
/// Hunks are matched against the text as it is, in order: each one after the one
/// before it, and before the latest place the hunks after it can still take
/// (their exact places read from the end), so a context repeated elsewhere in
/// the file is told apart by the order the patch gives. Within that window the
/// ladder is `edit`'s: exact whole lines (the one at the stated line when there
/// are several, else the only one, its offset said), then the whole-line stages
/// with the same frame inference, the hunk's context lines kept as the file
/// has them. Two places left are a refusal naming both lines.
///
/// A file whose last line has no line break is matched as if it had one; the
/// break stays absent unless a hunk replaced that line (an envelope always
/// ends a changed file with one, as codex does; a unified diff says).
///
/// `keep_cr`: the hunks carry the file's `\r`s in their lines (a diff of a file
/// whose line endings are mixed), so the text is matched as its bytes are, not
/// through the CRLF-blind view.
pub fn plan_hunks(
    text: &str,
    hunks: &[HunkSpec],
    keep_cr: bool,
) -> Result<HunksPlan, Vec<(usize, HunkFailure)>> {
    let view = if keep_cr {
        View {
            text: Cow::Borrowed(text),
            crs: Vec::new(),
        }
    } else {
        View::new(text)
    };
    let virtual_nl = !view.text.is_empty() && !view.text.ends_with('\n');
    let owned;
    let hay: &str = if virtual_nl {
        owned = format!("{}\n", view.text);
        &owned
    } else {
        view.text.as_ref()
    };
    let real_len = view.text.len();
    let starts = line_starts(hay);
    let nlines = if hay.is_empty() { 0 } else { starts.len() };
    let line_of = |at: usize| starts.partition_point(|&s| s <= at).saturating_sub(1);
    let old_lines = |h: &HunkSpec| h.old.matches('\n').count();
    // Exact places of each hunk: whole lines, at a line's start.
    let exact: Vec<Vec<usize>> = hunks
        .iter()
        .map(|h| {
            if h.old.is_empty() {
                return Vec::new();
            }
            memmem::find_iter(hay.as_bytes(), h.old.as_bytes())
                .filter(|&at| at == 0 || hay.as_bytes()[at - 1] == b'\n')
                .map(line_of)
                .filter(|&l| !h.at_end || l + old_lines(h) == nlines)
                .collect()
        })
        .collect();
    // The latest line each hunk may end before: the latest exact place of the
    // hunk after it that fits before the one after that.
    let mut upper = vec![nlines; hunks.len()];
    let mut bound = nlines;
    for i in (0..hunks.len()).rev() {
        upper[i] = bound;
        let k = old_lines(&hunks[i]);
        if let Some(&latest) = exact[i].iter().rev().find(|&&c| c + k <= bound) {
            bound = latest;
        }
    }
    let mut failures = Vec::new();
    let mut spans: Vec<(usize, usize, String)> = Vec::new();
    let mut placed = Vec::new();
    let mut lo = 0usize;
    let mut carry: isize = 0;
    for (i, h) in hunks.iter().enumerate() {
        let mut from = lo;
        if let Some(anchor) = &h.anchor {
            let want = anchor.trim();
            let found = (from..nlines)
                .find(|&l| line_text(hay, &starts, l).trim() == want)
                .or_else(|| {
                    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
                    let want = squash(&ascii_punctuation(want));
                    (from..nlines)
                        .find(|&l| squash(&ascii_punctuation(line_text(hay, &starts, l))) == want)
                });
            match found {
                Some(l) => from = l + 1,
                None => {
                    failures.push((
                        i,
                        HunkFailure::Anchor {
                            anchor: anchor.clone(),
                        },
                    ));
                    continue;
                }
            }
        }
        let expected = h
            .at_line
            .map(|l| (l as isize + carry).clamp(0, nlines as isize) as usize);
        let k = old_lines(h);
        let at_offset = |line: usize| h.at_line.map(|l| line as isize - l as isize);
        if h.old.is_empty() {
            // Pure addition: at the stated line, after the anchor, or at the end.
            let line = match (expected, &h.anchor) {
                (Some(l), _) => l.max(from),
                (None, Some(_)) => from,
                (None, None) => nlines,
            };
            let at = starts.get(line).copied().unwrap_or(hay.len());
            spans.push((at, at, h.new.clone()));
            placed.push(HunkPlaced {
                stage: MatchStage::Exact,
                line: line + 1,
                offset: at_offset(line),
            });
            lo = line;
            continue;
        }
        let to = upper[i].max(from);
        let fits = |c: usize| c >= from && c + k <= to;
        let mut exact_here: Vec<usize> = exact[i].iter().copied().filter(|&c| fits(c)).collect();
        if exact_here.len() > 1
            && let Some(e) = expected.filter(|e| exact_here.contains(e))
        {
            exact_here = vec![e];
        }
        let outcome: Result<(MatchStage, usize, usize, String), EditFailure> = match exact_here[..]
        {
            [c] => {
                let s = starts[c];
                Ok((MatchStage::Exact, s, s + h.old.len(), h.new.clone()))
            }
            [] => {
                let scope = Scope {
                    from_line: from,
                    to_line: to,
                    at_line: expected,
                    at_end: h.at_end,
                    context: Some(&h.context),
                };
                match match_lines(hay, &h.old, &h.new, false, &scope) {
                    LineOutcome::Applied {
                        stage,
                        mut replacements,
                    } if replacements.len() == 1 => {
                        let r = replacements.pop().expect("one replacement");
                        Ok((stage, r.start, r.end, r.text))
                    }
                    LineOutcome::Applied {
                        stage,
                        replacements,
                    } => Err(EditFailure::FoundMany {
                        count: replacements.len(),
                        lines: line_numbers(hay, replacements.iter().map(|r| r.start)),
                        stage,
                        overlapping: false,
                    }),
                    LineOutcome::Ambiguous {
                        stage,
                        lines,
                        overlapping,
                    } => Err(EditFailure::FoundMany {
                        count: lines.len(),
                        lines,
                        stage,
                        overlapping,
                    }),
                    LineOutcome::Unplaceable { stage, new_line } => {
                        Err(EditFailure::Unplaceable { stage, new_line })
                    }
                    LineOutcome::FrameAmbiguous {
                        stage,
                        line,
                        as_written,
                        shifted,
                    } => Err(EditFailure::FrameAmbiguous {
                        stage,
                        line,
                        as_written,
                        shifted,
                    }),
                    LineOutcome::Nothing => {
                        let closest = closest_region(hay, &h.old);
                        if already_applied(hay, &h.old, &h.new, closest.as_ref()) {
                            Err(EditFailure::AlreadyApplied)
                        } else {
                            Err(EditFailure::NotFound { closest })
                        }
                    }
                }
            }
            _ => Err(EditFailure::FoundMany {
                count: exact_here.len(),
                lines: exact_here.iter().map(|c| c + 1).collect(),
                stage: MatchStage::Exact,
                overlapping: false,
            }),
        };
        match outcome {
            Ok((stage, s, e, new_text)) => {
                let line = line_of(s);
                if let Some(off) = at_offset(line) {
                    carry = off;
                }
                placed.push(HunkPlaced {
                    stage,
                    line: line + 1,
                    offset: at_offset(line),
                });
                lo = line_of(e.saturating_sub(1)).max(line) + usize::from(e > s);
                spans.push((s, e, new_text));
            }
            Err(f) => failures.push((i, HunkFailure::Match(f))),
        }
    }
    if !failures.is_empty() {
        return Err(failures);
    }
    // Hunks in order never overlap (each starts after the one before ends), but
    // a pure addition stated inside the hunk before is refused, not merged.
    for (i, w) in spans.windows(2).enumerate() {
        if w[1].0 < w[0].1 {
            return Err(vec![(
                i + 1,
                HunkFailure::Match(EditFailure::FoundMany {
                    count: 2,
                    lines: vec![line_of(w[0].0) + 1, line_of(w[1].0) + 1],
                    stage: MatchStage::Exact,
                    overlapping: true,
                }),
            )]);
        }
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut prev = 0usize;
    // No hunk failed, so the spans are the hunks', one each, in order.
    for (h, (s, e, mut new_text)) in hunks.iter().zip(spans) {
        if e >= hay.len() && h.new_no_newline && new_text.ends_with('\n') {
            new_text.pop();
        }
        let (rs, re) = (view.raw(s.min(real_len)), view.raw(e.min(real_len)));
        out.push_str(&text[prev..rs]);
        if !view.crs.is_empty() && new_text.contains('\n') && wants_crlf(text, rs, re) {
            out.push_str(&lf_to_crlf(&new_text));
        } else {
            out.push_str(&new_text);
        }
        prev = re;
    }
    out.push_str(&text[prev..]);
    Ok(HunksPlan { text: out, placed })
}

/// Line `l` of `hay` without its line break.
fn line_text<'a>(hay: &'a str, starts: &[usize], l: usize) -> &'a str {
    let end = starts.get(l + 1).map_or(hay.len(), |&n| n - 1);
    hay[starts[l]..end].trim_end_matches('\n')
}

/// Curly quotes and dashes as ASCII, for finding an anchor line a model retyped.
fn ascii_punctuation(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' => ' ',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn edit(text: &str, old: &str, new: &str) -> Result<String, EditFailure> {
        apply_edit(text, old, new, false).map(|a| a.text)
    }

    /// A hunk's refusal speaks of the hunk's sides, in grammatical sentences,
    /// and offers no `replaceAll`, which a patch does not have.
    #[test]
    fn hunk_refusals_are_worded_for_a_patch() {
        let m = |f: EditFailure| HunkFailure::Match(f).message("app.py", 1);
        assert_eq!(
            m(EditFailure::AlreadyApplied),
            "hunk 1: The hunk appears to be already applied: the new side is present in app.py and the old side is not."
        );
        assert_eq!(
            m(EditFailure::NotFound { closest: None }),
            "hunk 1: the old side was not found in app.py."
        );
        assert_eq!(
            m(EditFailure::FoundMany {
                count: 2,
                lines: vec![3, 9],
                stage: MatchStage::Exact,
                overlapping: false,
            }),
            "hunk 1: the old side was found 2 times in app.py (lines 3, 9); add context lines to make it unique."
        );
    }

    #[test]
    fn exact_unique_replacement() {
        let r = apply_edit("one\ntwo\nthree\n", "two", "TWO", false).unwrap();
        assert_eq!(r.text, "one\nTWO\nthree\n");
        assert_eq!(r.replacements, 1);
        assert_eq!(r.stage, MatchStage::Exact);
    }

    #[test]
    fn exact_match_wins_over_fuzzy() {
        // "a  b" is there literally; the single-spaced "a b" must not be touched.
        let r = apply_edit("a b\na  b\n", "a  b", "X", false).unwrap();
        assert_eq!(r.text, "a b\nX\n");
        assert_eq!(r.stage, MatchStage::Exact);
    }

    #[test]
    fn empty_old_is_refused() {
        let e = apply_edit("abc", "", "x", false).unwrap_err();
        assert_eq!(e, EditFailure::EmptyOld);
        assert_eq!(e.message("f.txt"), "oldText must not be empty.");
    }

    #[test]
    fn identical_texts_are_refused() {
        let e = apply_edit("abc", "b", "b", false).unwrap_err();
        assert_eq!(e, EditFailure::Identical);
        assert_eq!(
            e.message("f.txt"),
            "oldText and newText are identical; there is nothing to change."
        );
        // Differing only in how lines end is no difference either.
        assert_eq!(
            apply_edit("a\nb\n", "a\r\nb", "a\nb", false).unwrap_err(),
            EditFailure::Identical
        );
    }

    #[test]
    fn a_change_that_changes_nothing_is_refused() {
        // Fuzzy finds "a b" for "a  b"; writing "a b" back changes nothing.
        let e = apply_edit("x\na b\n", "     2\ta b", "2\ta b", false).unwrap_err();
        assert_eq!(e, EditFailure::Unchanged);
        assert_eq!(e.message("src/x.rs"), "The edit would not change src/x.rs.");
    }

    #[test]
    fn many_matches_are_refused_with_their_lines() {
        let text = "a\nfoo\nb\nfoo\nfoo bar foo\n";
        let e = apply_edit(text, "foo", "baz", false).unwrap_err();
        assert_eq!(
            e,
            EditFailure::FoundMany {
                count: 4,
                lines: vec![2, 4, 5],
                stage: MatchStage::Exact,
                overlapping: false,
            }
        );
        assert_eq!(
            e.message("PATH"),
            "oldText was found 4 times in PATH (lines 2, 4, 5); add surrounding context to make it unique, or set replaceAll to replace every occurrence."
        );
        let e = apply_edit("x x\n", "x", "y", false).unwrap_err();
        assert_eq!(
            e.message("p"),
            "oldText was found 2 times in p (line 1); add surrounding context to make it unique, or set replaceAll to replace every occurrence."
        );
    }

    #[test]
    fn many_matches_list_at_most_twenty_lines() {
        let text = "k\n".repeat(25);
        let e = apply_edit(&text, "k", "j", false).unwrap_err();
        let lines: Vec<String> = (1..=20).map(|i| i.to_string()).collect();
        assert_eq!(
            e.message("p"),
            format!(
                "oldText was found 25 times in p (lines {} and 5 more); add surrounding context to make it unique, or set replaceAll to replace every occurrence.",
                lines.join(", ")
            )
        );
    }

    #[test]
    fn many_match_lines_point_at_the_first_visible_character() {
        let text = "x\n  foo\ny\n  foo\n";
        let e = apply_edit(text, "\n  foo", "\n  bar", false).unwrap_err();
        assert_eq!(
            e,
            EditFailure::FoundMany {
                count: 2,
                lines: vec![2, 4],
                stage: MatchStage::Exact,
                overlapping: false,
            }
        );
    }

    #[test]
    fn replace_all_replaces_every_occurrence() {
        let r = apply_edit("foo bar foo\nfoo\n", "foo", "qux", true).unwrap();
        assert_eq!(r.text, "qux bar qux\nqux\n");
        assert_eq!(r.replacements, 3);
        // Matches do not overlap.
        let r = apply_edit("aaaa", "aa", "b", true).unwrap();
        assert_eq!((r.text.as_str(), r.replacements), ("bb", 2));
    }

    #[test]
    fn already_applied_is_recognized() {
        let e = apply_edit("let x = 2;\n", "let x = 1;", "let x = 2;", false).unwrap_err();
        assert_eq!(e, EditFailure::AlreadyApplied);
        assert_eq!(
            e.message("a.rs"),
            "The edit appears to be already applied: newText is present in a.rs and oldText is not."
        );
    }

    #[test]
    fn already_applied_only_when_newtext_stands_where_oldtext_would() {
        let text = "fn main() {\n    let total = 1;\n    println!(\"x\");\n}\n";
        // A one-character newText present elsewhere and a typo in oldText: the
        // closest region, not "already applied".
        let e = apply_edit(text, "let totl = 1;", "x", false).unwrap_err();
        assert!(
            matches!(&e, EditFailure::NotFound { closest: Some(c) } if c.line == 2),
            "{e:?}"
        );
        // newText where oldText is closest: already applied.
        let e = apply_edit(text, "let total = 2;", "let total = 1;", false).unwrap_err();
        assert_eq!(e, EditFailure::AlreadyApplied);
        // Several lines of newText present, oldText absent.
        let e = apply_edit(
            text,
            "zzz",
            "    let total = 1;\n    println!(\"x\");",
            false,
        )
        .unwrap_err();
        assert_eq!(e, EditFailure::AlreadyApplied);
    }

    #[test]
    fn not_found_shows_the_closest_region() {
        let text = "fn main() {\n    let a = 1;\n    let b = 2;\n    println!(\"{}\", a + b);\n}\n";
        let e = apply_edit(
            text,
            "    let a = 1;\n    let b = 3;\n",
            "    let a = 1;\n    let b = 4;\n",
            false,
        )
        .unwrap_err();
        assert_eq!(
            e.message("src/main.rs"),
            "oldText was not found in src/main.rs. The closest match is at line 2:\n    let a = 1;\n    let b = 2;"
        );
    }

    #[test]
    fn not_found_falls_back_to_words() {
        let text = "alpha\nbeta gamma_long_word delta\nepsilon\n";
        let e = apply_edit(text, "gamma_long_word delta2", "QQQ", false).unwrap_err();
        assert_eq!(
            e,
            EditFailure::NotFound {
                closest: Some(Closest {
                    line: 2,
                    region: "beta gamma_long_word delta".into()
                })
            }
        );
    }

    #[test]
    fn not_found_with_nothing_alike() {
        let e = apply_edit("alpha\nbeta\n", "zzz", "QQQ", false).unwrap_err();
        assert_eq!(e, EditFailure::NotFound { closest: None });
        assert_eq!(e.message("f"), "oldText was not found in f.");
        assert_eq!(
            apply_edit("", "zzz", "y", false).unwrap_err(),
            EditFailure::NotFound { closest: None }
        );
    }

    #[test]
    fn closest_region_is_capped() {
        let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let old: String = (10..50).map(|i| format!("line {i}\n")).collect::<String>() + "nope\n";
        let e = apply_edit(&text, &old, "x", false).unwrap_err();
        let EditFailure::NotFound {
            closest: Some(Closest { line, region }),
        } = e
        else {
            panic!("{e:?}")
        };
        assert_eq!(line, 11);
        let shown: String = (10..40).map(|i| format!("line {i}\n")).collect();
        assert_eq!(region, format!("{shown}… (11 more lines)"));
    }

    fn stage_of(text: &str, old: &str, new: &str) -> (MatchStage, String) {
        let r = apply_edit(text, old, new, false).unwrap();
        (r.stage, r.text)
    }

    #[test]
    fn tabs_in_the_file_spaces_in_the_snippet() {
        let text = "fn f() {\n\tif x {\n\t\treturn 1;\n\t}\n}\n";
        let (stage, out) = stage_of(
            text,
            "    if x {\n        return 1;\n    }\n",
            "    if y {\n        return 2;\n    }\n",
        );
        assert_eq!(stage, MatchStage::IndentShifted);
        assert_eq!(out, "fn f() {\n\tif y {\n\t\treturn 2;\n\t}\n}\n");
    }

    #[test]
    fn whole_lines_only_a_reflowed_or_partial_snippet_is_not_found() {
        assert!(matches!(
            apply_edit(
                "call(a,\n     b,   c);\nnext();\n",
                "call(a, b, c);",
                "QQQ",
                false
            ),
            Err(EditFailure::NotFound { .. })
        ));
        assert!(matches!(
            apply_edit("  x = 1\n", "x =  1", "x = 3", false),
            Err(EditFailure::NotFound { .. })
        ));
    }

    #[test]
    fn a_single_line_at_another_indentation() {
        let (stage, out) = stage_of("  x = 1\n  y = 2\n", "    x = 1\n", "    x = 3\n");
        assert_eq!(stage, MatchStage::IndentShifted);
        assert_eq!(out, "  x = 3\n  y = 2\n");
        // Without the final line break the line's own break stays.
        let (_, out) = stage_of("  x = 1\n  y = 2\n", "    x = 1", "    x = 3");
        assert_eq!(out, "  x = 3\n  y = 2\n");
    }

    #[test]
    fn fuzzy_keeps_the_following_line_intact() {
        let text = "a {\n  b;\n  c;\n}\n";
        let (stage, out) = stage_of(text, "b;\n c;\n", "B;\n C;\n");
        assert_eq!(stage, MatchStage::FirstLineIndent);
        assert_eq!(out, "a {\n  B;\n  C;\n}\n");
    }

    #[test]
    fn an_anchored_one_liner_split_over_lines_is_told_by_its_brackets() {
        // `(` … `),` written from column 0 or relative to the line: both close
        // where they open; the reading not shallower than the line is taken.
        let text =
            "    let rows = [\n        (\"1\", \"one\"),\n        (\"2\", \"two\"),\n    ];\n";
        let r = apply_edit(
            text,
            "(\"2\", \"two\"),",
            "(\n    \"2\",\n    \"two\",\n),",
            false,
        )
        .unwrap();
        assert_eq!(
            r.text,
            "    let rows = [\n        (\"1\", \"one\"),\n        (\n            \"2\",\n            \"two\",\n        ),\n    ];\n"
        );
        // Python: a `def` line's body is deeper than it, so the body of an
        // anchored one-line oldText's replacement is relative to the line.
        let text = "class A:\n    def f(self):\n        return 1\n";
        let r = apply_edit(
            text,
            "def f(self):",
            "def f(self, x):\n    if x:\n        return 2",
            false,
        )
        .unwrap();
        assert_eq!(
            r.text,
            "class A:\n    def f(self, x):\n        if x:\n            return 2\n        return 1\n"
        );
        // A closing line that closes the enclosing block as written: taken so.
        let text = "fn f() {\n    true\n}\n";
        let r = apply_edit(text, "true", "}\n\nfn g() {\n    false", false).unwrap();
        assert_eq!(r.text, "fn f() {\n}\n\nfn g() {\n    false\n}\n");
    }

    #[test]
    fn newtext_at_one_places_indentation_picks_it() {
        // Exact, after the indentation of two lines: newText written at one of
        // them (its first line a version of oldText's) says which.
        let text = "a:\n    run(x)\nb:\n        run(x)\n";
        let r = apply_edit(text, "run(x)", "        run(y)", false).unwrap();
        assert_eq!(r.text, "a:\n    run(x)\nb:\n        run(y)\n");
        // Unindented newText, or a first line that is something else: refused.
        for new in ["run(y)", "        stop()"] {
            let e = apply_edit(text, "run(x)", new, false).unwrap_err();
            assert!(
                matches!(e, EditFailure::FoundMany { count: 2, .. }),
                "{new}: {e:?}"
            );
        }
        // Whole lines at another indentation, the same way.
        let text = "fn a() {\n    if x {\n        go();\n    }\n}\nfn b() {\n    {\n        if x {\n            go();\n        }\n    }\n}\n";
        let old = "if x {\n    go();\n}\n";
        let new = "        if y {\n            go();\n        }\n";
        let r = apply_edit(text, old, new, false).unwrap();
        assert_eq!(r.text, text.replacen("        if x {", "        if y {", 1));
        let e = apply_edit(text, old, "if y {\n    go();\n}\n", false).unwrap_err();
        assert!(
            matches!(e, EditFailure::FoundMany { count: 2, .. }),
            "{e:?}"
        );
    }

    #[test]
    fn fuzzy_ambiguity_is_refused_with_the_lines() {
        let text = "if x {\n}\n  if x {\n  }\n    if x {\n    }\n";
        let e = apply_edit(text, " if x {\n }\n", "if y {\n}\n", false).unwrap_err();
        assert_eq!(
            e,
            EditFailure::FoundMany {
                count: 3,
                lines: vec![1, 3, 5],
                stage: MatchStage::IndentShifted,
                overlapping: false,
            }
        );
        assert_eq!(
            e.message("f.rs"),
            "oldText matched 3 places in f.rs as whole lines at another indentation (match: indent-shifted; lines 1, 3, 5); add surrounding context to make it unique, or set replaceAll to replace every occurrence."
        );
        let r = apply_edit(text, " if x {\n }\n", " if y {\n }\n", true).unwrap();
        assert_eq!(r.replacements, 3);
        assert_eq!(r.stage, MatchStage::IndentShifted);
        assert_eq!(r.text, "if y {\n}\n  if y {\n  }\n    if y {\n    }\n");
    }

    #[test]
    fn overlapping_places_are_refused_even_with_replace_all() {
        let e = apply_edit("}\n}\n}\n", "  }\n  }\n", "]\n", true).unwrap_err();
        assert_eq!(
            e.message("x.rs"),
            "oldText matched 2 overlapping places in x.rs as whole lines at another indentation (match: indent-shifted; lines 1, 2); add surrounding context to make it unique."
        );
    }

    #[test]
    fn an_unplaceable_line_is_refused_with_its_number() {
        let e = apply_edit("a\nb\n", "    a\n    b\n", "  x\n    b\n", false).unwrap_err();
        assert_eq!(
            e.message("f"),
            "oldText matched in f as whole lines at another indentation (match: indent-shifted), but line 1 of newText is indented less than that match lets it be placed; give oldText and newText at the file's indentation."
        );
    }

    #[test]
    fn typography_and_gutter_stages_through_apply_edit() {
        let (stage, out) = stage_of("a \u{2014} b\n", "a - b\n", "a -- b\n");
        assert_eq!(stage, MatchStage::Typography);
        assert_eq!(out, "a -- b\n");
        let (stage, out) = stage_of("x\ny\n", "     1\tx\n     2\ty\n", "     1\tx\n     2\tz\n");
        assert_eq!(stage, MatchStage::GutterStripped);
        assert_eq!(out, "x\nz\n");
    }

    #[test]
    fn an_exact_match_at_a_lines_indentation_writes_whole_lines() {
        let text = "fn f() {\n    go();\n}\n";
        // One line quoted without its indentation; newText in that line's frame.
        let r = apply_edit(text, "go();\n", "go();\nstop();\n", false).unwrap();
        assert_eq!(r.text, "fn f() {\n    go();\n    stop();\n}\n");
        assert!(r.anchored && r.stage == MatchStage::Exact);
        // Later lines all at least as deep could be meant either way: refused.
        let e = apply_edit(text, "go();", "go();\n    stop();", false).unwrap_err();
        assert!(matches!(e, EditFailure::IndentAmbiguous { line: 2, .. }));
        assert_eq!(
            e.message("f.rs"),
            "oldText starts after the indentation of line 2 in f.rs, and the later lines of newText could be meant as written or relative to that line. Line 3 would read \"    stop();\" as written, or \"        stop();\" relative to it. Include the line's indentation in oldText and write newText at the file's indentation."
        );
        // newText's first line at the file's indentation: newText is in the
        // file's frame, its lines stand as written (never a doubled indentation).
        let r = apply_edit(text, "go();", "    go();\n    stop();", false).unwrap();
        assert_eq!(r.text, "fn f() {\n    go();\n    stop();\n}\n");
        let r = apply_edit(
            "mod t {\n    #[test]\n    fn a() {}\n}\n",
            "#[test]\n    fn a() {}",
            "    #[test]\n    fn b() {}",
            false,
        )
        .unwrap();
        assert_eq!(r.text, "mod t {\n    #[test]\n    fn b() {}\n}\n");
        // With the indentation in oldText it is a plain literal edit.
        let r = apply_edit(text, "    go();", "    go();\n    stop();", false).unwrap();
        assert_eq!(r.text, "fn f() {\n    go();\n    stop();\n}\n");
        assert!(!r.anchored);
        // Deleting the line deletes its indentation too.
        let r = apply_edit(text, "go();\n", "", false).unwrap();
        assert_eq!(r.text, "fn f() {\n}\n");
        assert!(r.anchored);
        // Several lines, the first without its indentation: the rest is the file's
        // frame already, and an emptied first line keeps no indentation.
        let text = "a {\n    b;\n    c;\n}\n";
        let r = apply_edit(text, "b;\n    c;\n", "\n    c;\n", false).unwrap();
        assert_eq!(r.text, "a {\n\n    c;\n}\n");
        let r = apply_edit(text, "b;\n    c;\n", "B;\n    C;\n", false).unwrap();
        assert_eq!(r.text, "a {\n    B;\n    C;\n}\n");
        assert!(!r.anchored);
        // A match inside a line, or ending inside one, is literal.
        let r = apply_edit("    x = f(a);\n", "f(a", "g(\nb", false).unwrap();
        assert_eq!(r.text, "    x = g(\nb);\n");
        let r = apply_edit("    go(a);\n", "go(", "run(\n", false).unwrap();
        assert_eq!(r.text, "    run(\na);\n");
        assert!(!r.anchored);
    }

    #[test]
    fn whitespace_only_old_is_never_fuzzy() {
        assert!(matches!(
            apply_edit("a\tb", "   ", "x", false),
            Err(EditFailure::NotFound { .. })
        ));
    }

    #[test]
    fn unicode_exact_edits() {
        assert_eq!(edit("α β γ\n", "β", "δ").unwrap(), "α δ γ\n");
        assert_eq!(edit("😀x", "x", "😀").unwrap(), "😀😀");
    }

    #[test]
    fn decode_and_encode_round_trip_crlf_and_bom() {
        let bytes = b"\xEF\xBB\xBFone\r\ntwo\r\nthree\r\n";
        let d = decode(bytes).unwrap();
        assert!(d.bom && d.crlf);
        assert_eq!(d.text, "one\ntwo\nthree\n");
        assert_eq!(encode(&d, &d.text), bytes);
        let r = apply_edit(&d.text, "two\nthree\n", "2\n3\n4\n", false).unwrap();
        assert_eq!(encode(&d, &r.text), b"\xEF\xBB\xBFone\r\n2\r\n3\r\n4\r\n");
        // A model may also send CRLF itself.
        let r = apply_edit(&d.text, "one\r\ntwo", "1\r\n2", false).unwrap();
        assert_eq!(encode(&d, &r.text), b"\xEF\xBB\xBF1\r\n2\r\nthree\r\n");
    }

    #[test]
    fn decode_leaves_lf_mixed_and_unterminated_files_alone() {
        for text in [
            "a\nb\n",
            "a\r\nb\n",
            "no newline",
            "",
            "lone\rcr\n",
            "a\r\nb\nc\r\n",
        ] {
            let d = decode(text.as_bytes()).unwrap();
            assert!(!d.crlf && !d.bom, "{text:?}");
            assert_eq!(d.text, text);
            assert_eq!(encode(&d, &d.text), text.as_bytes());
        }
        let d = decode(b"a\r\nb").unwrap();
        assert!(d.crlf);
        assert_eq!(d.text, "a\nb");
        // \r\r\n keeps its first \r as text.
        let d = decode(b"a\r\r\nb\r\n").unwrap();
        assert!(d.crlf);
        assert_eq!(d.text, "a\r\nb\n");
        assert_eq!(encode(&d, &d.text), b"a\r\r\nb\r\n");
    }

    #[test]
    fn invalid_utf8_is_refused_with_its_offset() {
        let e = decode(b"ok\n\xFFbad").unwrap_err();
        assert_eq!(e, NotUtf8 { offset: 3 });
        assert_eq!(
            e.message("bin.dat"),
            "bin.dat is not valid UTF-8 (first bad byte at offset 3); edit refuses to rewrite it."
        );
        assert_eq!(decode(b"\xEF\xBB\xBFab\xC3").unwrap_err().offset, 5);
        assert_eq!(
            decode_vec(b"\xEF\xBB\xBFab\xC3".to_vec())
                .unwrap_err()
                .offset,
            5
        );
        assert_eq!(
            decode_vec(b"\xEF\xBB\xBFa\r\n".to_vec()).unwrap(),
            decode(b"\xEF\xBB\xBFa\r\n").unwrap()
        );
    }

    #[test]
    fn mixed_endings_match_both_kinds_and_keep_each() {
        let text = "lf one\nlf two\ncr one\r\ncr two\r\nlast\n";
        let d = decode(text.as_bytes()).unwrap();
        assert!(!d.crlf);
        // Written with \n, matching CRLF lines; the replacement is CRLF too.
        let r = apply_edit(&d.text, "cr one\ncr two\n", "CR\nCR2\nCR3\n", false).unwrap();
        assert_eq!(
            encode(&d, &r.text),
            b"lf one\nlf two\nCR\r\nCR2\r\nCR3\r\nlast\n"
        );
        // LF lines get LF.
        let r = apply_edit(&d.text, "lf one\nlf two", "X\nY", false).unwrap();
        assert_eq!(r.text, "X\nY\ncr one\r\ncr two\r\nlast\n");
        // A one-line match takes its line's ending for inserted lines.
        let r = apply_edit(&d.text, "cr one", "cr one\nnew", false).unwrap();
        assert_eq!(r.text, "lf one\nlf two\ncr one\r\nnew\r\ncr two\r\nlast\n");
        let r = apply_edit(&d.text, "last", "last\nmore", false).unwrap();
        assert_eq!(r.text, "lf one\nlf two\ncr one\r\ncr two\r\nlast\nmore\n");
        // A span across both kinds, with a tie, takes its last line's ending.
        let r = apply_edit(&d.text, "lf two\ncr one\n", "a\nb\n", false).unwrap();
        assert_eq!(r.text, "lf one\na\r\nb\r\ncr two\r\nlast\n");
        // Counting and line numbers see CRLF lines as lines.
        let e = apply_edit("x\r\ny\nx\r\n", "x\n", "z\n", false).unwrap_err();
        assert_eq!(
            e,
            EditFailure::FoundMany {
                count: 2,
                lines: vec![1, 3],
                stage: MatchStage::Exact,
                overlapping: false,
            }
        );
    }

    #[test]
    fn fuzzy_works_in_mixed_files() {
        let text = "a\r\n\tb  c\r\nd\n";
        let r = apply_edit(text, "  b  c\n", "  B\n  C\n", false).unwrap();
        assert_eq!(r.stage, MatchStage::IndentShifted);
        assert_eq!(r.text, "a\r\n\tB\r\n\tC\r\nd\n");
    }

    #[test]
    fn lone_carriage_returns_stay_put() {
        let text = "a\rb\nc\n";
        let r = apply_edit(text, "b\nc", "B\nC", false).unwrap();
        assert_eq!(r.text, "a\rB\nC\n");
    }

    #[test]
    fn display_uses_a_generic_name() {
        assert_eq!(
            EditFailure::Unchanged.to_string(),
            "The edit would not change the file."
        );
    }

    /// A line of text from pieces that exercise endings, unicode and whitespace.
    fn piece() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            Just("a"),
            Just("b "),
            Just("\t"),
            Just("é"),
            Just("日本"),
            Just("\r"),
            Just("  "),
            Just("x"),
        ]
    }

    fn body(crlf: bool) -> impl Strategy<Value = String> {
        prop::collection::vec((prop::collection::vec(piece(), 0..5), any::<bool>()), 0..8).prop_map(
            move |lines| {
                let mut out = String::new();
                for (pieces, terminated) in lines {
                    out.push_str(&pieces.concat());
                    // A `.` keeps a lone `\r` piece from turning into a CRLF.
                    if terminated {
                        out.push_str(if crlf { ".\r\n" } else { ".\n" });
                    }
                }
                out
            },
        )
    }

    proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            #[test]
            fn decode_encode_round_trips(
                bom in any::<bool>(),
                parts in prop::collection::vec(
                    prop_oneof![Just("\r\n"), Just("\n"), Just("\r"), Just("a"), Just("ü"), Just(" ")],
                    0..20,
                ),
            ) {
                let mut bytes = if bom { BOM.to_vec() } else { Vec::new() };
                bytes.extend_from_slice(parts.concat().as_bytes());
                let d = decode(&bytes).unwrap();
                prop_assert_eq!(d.bom, bom);
                prop_assert_eq!(encode(&d, &d.text), bytes.clone());
                prop_assert_eq!(encode_owned(&d, d.text.clone()), bytes.clone());
                prop_assert_eq!(decode_vec(bytes).unwrap(), d);
            }

            /// A unique edit changes exactly the edited bytes, through decode and encode,
            /// for LF and CRLF files, with or without a BOM.
            #[test]
            fn unique_edit_preserves_everything_else(
                crlf in any::<bool>(),
                bom in any::<bool>(),
                before in body(false),
                after in body(false),
                old_tail in "[a-z]{0,3}",
                new in "[A-Z]{0,3}(\n[A-Z]{1,3}){0,2}",
            ) {
                let eol = if crlf { "\r\n" } else { "\n" };
                let (before, after) = (before.replace('\n', eol), after.replace('\n', eol));
                // Only the old text holds the marker, so it is unique.
                let old = format!("«{old_tail}»");
                let mut bytes = if bom { BOM.to_vec() } else { Vec::new() };
                bytes.extend_from_slice(format!("{before}{old}{after}").as_bytes());
                let d = decode(&bytes).unwrap();
                let r = apply_edit(&d.text, &old, &new, false);
                if new == old {
                    prop_assert_eq!(r.unwrap_err(), EditFailure::Identical);
                } else {
                    let r = r.unwrap();
                    prop_assert_eq!(r.replacements, 1);
                    let out = encode(&d, &r.text);
                    // A match right after a line's indentation that ends the line is
                    // written as whole lines at that indentation: the later lines of
                    // `new` (never indented here) under it, an empty first line bare.
                    let prefix = before.rsplit('\n').next().unwrap_or(&before);
                    let anchored = !prefix.is_empty()
                        && prefix.bytes().all(|b| b == b' ' || b == b'\t')
                        && (after.is_empty() || after.starts_with('\n') || after.starts_with("\r\n"));
                    prop_assert_eq!(r.anchored, anchored && (new.is_empty() || new.contains('\n')));
                    let (head, new) = if anchored {
                        let lines: Vec<String> = new
                            .split('\n')
                            .map(|l| if l.is_empty() { String::new() } else { format!("{prefix}{l}") })
                            .collect();
                        (&before[..before.len() - prefix.len()], lines.join("\n"))
                    } else {
                        (before.as_str(), new.clone())
                    };
                    // Inserted lines take the file's ending where the file has one.
                    let has_crlf = format!("{before}{after}").contains("\r\n");
                    let new_raw = if has_crlf { new.replace('\n', "\r\n") } else { new.clone() };
                    let mut want = if bom { BOM.to_vec() } else { Vec::new() };
                    want.extend_from_slice(format!("{head}{new_raw}{after}").as_bytes());
                    prop_assert_eq!(out, want);
                }
            }

            /// Applying an edit and then its reverse gives the original back.
            #[test]
            fn edit_then_reverse_is_identity(
                crlf in any::<bool>(),
                before in body(false),
                after in body(false),
                old in "«[a-z ]{0,4}(\n[a-z]{0,3})?»",
                new in "‹[A-Z ]{0,4}(\n[A-Z]{0,3})?›",
            ) {
                // A line break after the edit tells which ending inserted lines take.
                let eol = if crlf { "\r\n" } else { "\n" };
                let text = format!("{before}{old}{after}end\n").replace('\n', eol);
                let once = apply_edit(&text, &old, &new, false).unwrap();
                let back = apply_edit(&once.text, &new, &old, false).unwrap();
                prop_assert_eq!(back.text, text);
            }

            /// Whatever a whole-line stage matches, it replaces one block of at most as
            /// many lines as `oldText` has: no line outside the matched block changes.
            #[test]
            fn fuzzy_edits_touch_only_the_matched_block(
                lines in prop::collection::vec((0usize..4, 0usize..8, any::<bool>()), 1..24),
                start in any::<prop::sample::Index>(),
                len in 1usize..5,
                perturb in 0u8..5,
                change in any::<prop::sample::Index>(),
            ) {
                let pool = ["fn a() {", "}", "x = 1;", "return y;", "", "// c", "if z {", "}"];
                let text: String = lines
                    .iter()
                    .map(|&(depth, w, trail)| {
                        let indent = if pool[w].is_empty() { String::new() } else { "    ".repeat(depth) };
                        format!("{indent}{}{}\n", pool[w], if trail { " " } else { "" })
                    })
                    .collect();
                let file: Vec<&str> = text.split_inclusive('\n').collect();
                let s = start.index(file.len());
                let k = len.min(file.len() - s);
                let block: Vec<String> = file[s..s + k].iter().map(|l| l.to_string()).collect();
                let old_lines: Vec<String> = block
                    .iter()
                    .enumerate()
                    .map(|(i, l)| match perturb {
                        0 => l.replacen("    ", "", 1),
                        1 => format!("  {l}"),
                        2 => l.replace(" \n", "\n").replace('\n', "  \n"),
                        3 if i == 0 => l.trim_start().to_string(),
                        3 => l.clone(),
                        _ => format!("{:>6}\t{l}", s + i + 1),
                    })
                    .collect();
                let old = old_lines.concat();
                let mut new_lines = old_lines.clone();
                let c = change.index(new_lines.len());
                new_lines[c] = new_lines[c].replace('\n', "");
                new_lines[c].push_str(" changed\n");
                let new = new_lines.concat();
                if let Ok(r) = apply_edit(&text, &old, &new, false)
                    && r.stage != MatchStage::Exact
                {
                    let out: Vec<&str> = r.text.split_inclusive('\n').collect();
                    let p = file.iter().zip(&out).take_while(|(a, b)| a == b).count();
                    let q = file[p..]
                        .iter()
                        .rev()
                        .zip(out[p..].iter().rev())
                        .take_while(|(a, b)| a == b)
                        .count();
                    prop_assert!(file.len() - p - q <= k, "{} lines changed for a {}-line oldText: {:?} -> {:?}", file.len() - p - q, k, text, r.text);
                }
            }

            /// The same block at two depths: a snippet at a third depth matches both
            /// through indentation, and the edit is refused, never placed at one;
            /// unless its tabs span the very columns of exactly one of them.
            #[test]
            fn an_ambiguous_fuzzy_match_is_always_refused(
                block in prop::collection::vec((0usize..3, 0usize..4), 2..5),
                depths in (1usize..4, 1usize..4).prop_filter("two depths", |(a, b)| a != b),
                filler in prop::collection::vec("[a-z]{1,6};", 0..4),
                replace_all in any::<bool>(),
            ) {
                let pool = ["open {", "close }", "call(x);", "let y = 2;"];
                let at = |base: usize| -> String {
                    block
                        .iter()
                        .map(|&(d, w)| format!("{}{}\n", "  ".repeat(base + d), pool[w]))
                        .collect()
                };
                let fill: String = filler.iter().map(|f| format!("{f}\n")).collect();
                let text = format!("{fill}{}{fill}{}{fill}", at(depths.0 * 2), at(depths.1 * 2));
                let old = at(0).replace("  ", "\t");
                let new = format!("{old}added();\n");
                // The tabs (one per level) read at tab width 4, 8 or 2 as exactly
                // the columns of the block at `base`.
                let same_columns = |base: usize| {
                    [4, 8, 2].iter().any(|w| block.iter().all(|&(d, _)| d * w == 2 * (base + d)))
                };
                let exact: Vec<usize> = [depths.0 * 2, depths.1 * 2]
                    .into_iter()
                    .filter(|&b| same_columns(b))
                    .collect();
                if let [base] = exact[..] && !replace_all {
                    let r = apply_edit(&text, &old, &new, false).unwrap();
                    // At the very columns, both frames are one: newText as written.
                    let edit = |b: usize| if b == base { format!("{}added();\n", at(b)) } else { at(b) };
                    let want = format!("{fill}{}{fill}{}{fill}", edit(depths.0 * 2), edit(depths.1 * 2));
                    prop_assert_eq!(r.text, want);
                    return Ok(());
                }
                match apply_edit(&text, &old, &new, replace_all) {
                    Ok(r) => prop_assert!(
                        replace_all && r.replacements == 2,
                        "applied at {} place(s) through {:?}",
                        r.replacements,
                        r.stage
                    ),
                    Err(e) => prop_assert!(
                        matches!(e, EditFailure::FoundMany { count, .. } if count >= 2),
                        "{e:?}"
                    ),
                }
            }

            /// Whole-line edits of an indented file, called with the slips models make
            /// in oldText (its common indentation, or its first line's, cut) and newText
            /// in either convention (at the file's indentation, or cut like oldText):
            /// the written file is the intended one, or the edit is refused. Never a
            /// third result.
            #[test]
            fn whole_line_edits_in_either_frame_are_right_or_refused(
                file in prop::collection::vec((0usize..4, 0usize..6), 3..14),
                span in (0usize..14, 1usize..5),
                repl in prop::collection::vec((0usize..4, 0usize..8), 0..5),
                slip in 0usize..3,
                file_frame in any::<bool>(),
            ) {
                let words = ["fn a() {", "}", "x += 1;", "return y;", "if z {", "let w = 2;", "call(q);", "// note"];
                let line = |&(d, w): &(usize, usize)| format!("{}{}", "    ".repeat(d), words[w]);
                // The file is code: its depth follows its blocks, each `}` under the
                // line that opened it (starting at the first token's depth).
                let mut depth = file[0].0;
                let file: Vec<(usize, usize)> = file
                    .iter()
                    .map(|&(_, w)| match w {
                        0 | 4 => {
                            depth += 1;
                            (depth - 1, w)
                        }
                        1 if depth > 0 => {
                            depth -= 1;
                            (depth, w)
                        }
                        1 => (depth, 2),
                        _ => (depth, w),
                    })
                    .collect();
                let lines: Vec<String> = file.iter().map(line).collect();
                let start = span.0 % lines.len();
                let end = (start + span.1).min(lines.len());
                let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
                let old_lines = &lines[start..end];
                // The replacement sits where the replaced lines sit, as real edits do:
                // a line that repeats a replaced line stays at its level, the first
                // line is at the first replaced line's level, the others at the
                // block's outermost level or up to two deeper. (Text alone cannot
                // tell a kept line moved by exactly the slip's depth from one left
                // alone, nor place a replacement at an unrelated level.)
                let block = &file[start..end];
                let base = block.iter().map(|&(d, _)| d).min().unwrap_or(0);
                let new_lines: Vec<String> = repl
                    .iter()
                    .enumerate()
                    .map(|(k, &(d, w))| {
                        let word = w % 6 + 2;
                        let level = match block.iter().find(|&&(_, bw)| bw == word) {
                            Some(&(kept, _)) => kept,
                            None if k == 0 => block[0].0,
                            None => base + d % 3,
                        };
                        line(&(level, word))
                    })
                    .collect();
                let intended: String = lines[..start]
                    .iter()
                    .chain(new_lines.iter())
                    .chain(lines[end..].iter())
                    .map(|l| format!("{l}\n"))
                    .collect();
                let indent_of = |l: &str| l.len() - l.trim_start().len();
                let join = |ls: &[String]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
                // The slip: 0 none, 1 the common indentation cut, 2 the first line's.
                let cut_all = old_lines.iter().map(|l| indent_of(l)).min().unwrap_or(0);
                let cut_first = old_lines.first().map_or(0, |l| indent_of(l));
                let (old, new) = match slip {
                    0 => (join(old_lines), join(&new_lines)),
                    1 => {
                        let cut = |ls: &[String]| -> Option<Vec<String>> {
                            ls.iter()
                                .map(|l| l.get(cut_all..).filter(|_| indent_of(l) >= cut_all).map(str::to_string))
                                .collect()
                        };
                        let old = cut(old_lines).unwrap();
                        let new = if file_frame { Some(new_lines.clone()) } else { cut(&new_lines) };
                        prop_assume!(new.is_some());
                        (join(&old), join(&new.unwrap()))
                    }
                    _ => {
                        let mut old = old_lines.to_vec();
                        old[0] = old[0].trim_start().to_string();
                        let mut new = new_lines.clone();
                        if !file_frame && !new.is_empty() {
                            // Both first lines lose their indentation; when newText's
                            // had another, cutting it lost what no frame can restore.
                            prop_assume!(indent_of(&new[0]) == cut_first);
                            new[0] = new[0].trim_start().to_string();
                        }
                        (join(&old), join(&new))
                    }
                };
                prop_assume!(!old.trim().is_empty() && old != new);
                // The intended file is code too (the bracket witness reads a closing
                // line's depth from its opener's): a replacement that leaves a `}`
                // under another depth than its block's is not a real edit's result.
                let well_formed = |t: &str| {
                    let mut open = Vec::new();
                    t.lines().all(|l| {
                        let (d, core) = (indent_of(l), l.trim_start());
                        if core.ends_with('{') {
                            open.push(d);
                        } else if core == "}" {
                            return open.pop().is_none_or(|o| o == d);
                        }
                        true
                    })
                };
                prop_assume!(well_formed(&intended));
                // oldText as sent must not also stand somewhere else in the file: then
                // no tool can know which place was meant.
                let region = (
                    lines[..start].iter().map(|l| l.len() + 1).sum::<usize>(),
                    lines[..end].iter().map(|l| l.len() + 1).sum::<usize>(),
                );
                let elsewhere = memmem::find_iter(text.as_bytes(), old.as_bytes())
                    .any(|at| at < region.0 || at > region.0 + cut_first);
                prop_assume!(!elsewhere);
                if let Ok(r) = apply_edit(&text, &old, &new, false) {
                    prop_assert_eq!(
                        &r.text, &intended,
                        "slip {} file_frame {} old {:?} new {:?} stage {:?}", slip, file_frame, old, new, r.stage
                    );
                }
            }
    }
}
