//! Line marks: where `read --tail` last counted a large file's lines, so the
//! next tail of it (a log that grew) counts only what came after, and answers
//! with real line numbers in milliseconds instead of a scan of the whole file.
//!
//! A mark is `(path, byte offset at a line start, lines before it, probe)`.
//! The probe is the SHA-256 of the file's first 4 KiB and of the 4 KiB before
//! the offset: a file rotated, truncated or rewritten around the mark fails it
//! and is counted again from the start. (A rewrite that keeps both pieces and
//! the length before the mark would keep a wrong count; logs are appended to.)
//!
//! The marks are one sealed document (`line-marks.json`): a checkout that
//! plants one with false counts is read as empty. At most [`MAX_MARKS`] files
//! are remembered, the oldest forgotten first.

use serde::{Deserialize, Serialize};

use super::StateDir;

const FILE: &str = "line-marks.json";
const DOMAIN: &str = "indus-tool line marks 1";
/// How many files keep a mark.
pub const MAX_MARKS: usize = 64;

/// One file's mark.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    pub path: String,
    /// A byte offset at the start of a line.
    pub offset: u64,
    /// The lines before `offset` (its line's number minus one).
    pub lines: u64,
    pub probe: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Marks {
    #[serde(default)]
    marks: Vec<Mark>,
}

/// The mark of `path`, if this user's store has one.
pub fn load(state: &StateDir, path: &str) -> Option<Mark> {
    let marks: Marks = state.load_sealed(FILE, DOMAIN).ok()?;
    marks.marks.into_iter().find(|m| m.path == path)
}

/// Remember `mark` (replacing the file's earlier one). Best effort: a state
/// folder that cannot be written costs the next tail a full count, no more.
pub fn save(state: &StateDir, mark: Mark) {
    let _ = state.update_sealed(FILE, DOMAIN, |marks: &mut Marks| {
        marks.marks.retain(|m| m.path != mark.path);
        marks.marks.push(mark);
        let over = marks.marks.len().saturating_sub(MAX_MARKS);
        marks.marks.drain(..over);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_round_trip_and_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::new(dir.path());
        for i in 0..(MAX_MARKS + 3) {
            save(
                &state,
                Mark {
                    path: format!("/f{i}"),
                    offset: 10,
                    lines: i as u64,
                    probe: "p".into(),
                },
            );
        }
        assert_eq!(load(&state, "/f0"), None, "the oldest are forgotten");
        assert_eq!(
            load(&state, &format!("/f{}", MAX_MARKS + 2)).unwrap().lines,
            (MAX_MARKS + 2) as u64
        );
    }
}
