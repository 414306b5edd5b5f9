//! Every refusal of an edit or a set of edits, worded byte-stable with the
//! file's path ([`EditFailure::message`], [`MultiFailure`]): the texts the docs
//! list, the lines of several matches (the first 20, then "and M more").

use super::budget::Stop;
use super::closest::Closest;
use super::lines::Replacement;
use super::stages::{LineOutcome, MatchStage};
use std::fmt;

/// How many distinct lines a "found N times" refusal lists.
pub(super) const MAX_LISTED_LINES: usize = 20;

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
    /// The exact text was not found, and the whole-line stages ran out of the
    /// call's work budget, or the call was cancelled, before they were done:
    /// `old_lines` of `oldText` against `file_lines` of the file.
    TooCostly {
        old_lines: usize,
        file_lines: usize,
        stop: Stop,
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
            EditFailure::TooCostly {
                old_lines,
                file_lines,
                stop,
            } => too_costly(path, *old_lines, *file_lines, *stop),
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
                // Which of newText's lines the two readings place differently: the
                // first (cut like oldText's, or a new line at column 0) or later ones.
                let lines = if differs.as_ref().is_some_and(|d| d.0 == *line) {
                    "newText's first line"
                } else {
                    "the later lines of newText"
                };
                let mut m = format!(
                    "oldText starts after the indentation of line {line} in {path}, and {lines} could be meant as written or relative to that line."
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

/// 1-based line numbers of ascending offsets, in one pass.
pub(super) fn line_numbers(text: &str, offsets: impl Iterator<Item = usize>) -> Vec<usize> {
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

/// The words of [`EditFailure::TooCostly`].
fn too_costly(path: &str, old_lines: usize, file_lines: usize, stop: Stop) -> String {
    let (old, file) = (thousands(old_lines), thousands(file_lines));
    let lines = if old_lines == 1 { "line" } else { "lines" };
    match stop {
        Stop::Cancelled => format!(
            "The call was cancelled while oldText ({old} {lines}) was being matched fuzzily against {path} ({file} lines); nothing was changed."
        ),
        Stop::Spent | Stop::Late => format!(
            "too costly to match fuzzily: the exact text was not found in {path}, and a fuzzy search of {old} {lines} against {file} would exceed the work budget; give more exact context (copy the lines as they are in the file)."
        ),
    }
}

/// `n` with a comma between thousands (`100,000`).
pub(super) fn thousands(n: usize) -> String {
    crate::kernel::text::thousands(n as u64)
}

// Here rather than beside `LineOutcome`: the refusals are this file's, and
// the stages never name them (the import runs one way).
impl LineOutcome {
    /// The places the stages found, or the refusal the outcome stands for:
    /// `sizes` gives oldText's and the file's line counts for a budget
    /// refusal, `nothing` the failure when no stage found anything. Whether
    /// several places are one too many is the caller's to say.
    pub(super) fn into_places(
        self,
        sizes: impl FnOnce() -> (usize, usize),
        nothing: impl FnOnce() -> EditFailure,
    ) -> Result<(MatchStage, Vec<Replacement>), EditFailure> {
        match self {
            LineOutcome::Applied {
                stage,
                replacements,
            } => Ok((stage, replacements)),
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
            LineOutcome::OverBudget(stop) => {
                let (old_lines, file_lines) = sizes();
                Err(EditFailure::TooCostly {
                    old_lines,
                    file_lines,
                    stop,
                })
            }
            LineOutcome::Nothing => Err(nothing()),
        }
    }
}
