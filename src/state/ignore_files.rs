//! Ignore files (`.gitignore`, `.ignore`, `.git/info/exclude`, the user's
//! excludes) read as what they are in a checkout: input its author wrote. Each
//! pattern with a wildcard compiles to a matcher of some kilobytes, so 60,000
//! lines cost gigabytes; git itself never compiles them. A file over
//! [`IGNORE_FILE_CAP`] bytes or [`IGNORE_PATTERN_CAP`] patterns is skipped
//! whole (its patterns do not apply: a part of them could ignore less or more
//! than their author meant) and named once per call on stderr.
//!
//! The checkpoint scan ([`super::tree`]) and the search walk (the local
//! backend's) both load ignore files through here.

use std::path::Path;

use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// The largest ignore file read: 1 MiB, as a configuration file.
pub const IGNORE_FILE_CAP: u64 = 1024 * 1024;

/// The most patterns one ignore file may hold (non-blank, non-comment lines).
pub const IGNORE_PATTERN_CAP: usize = 10_000;

/// Why an ignore file is skipped, in words, or `None` when it is within the
/// caps (or absent: nothing to skip). Reads at most the cap.
pub fn over_cap(path: &Path) -> Option<String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    if meta.len() > IGNORE_FILE_CAP {
        return Some(format!("{}, over the 1 MiB cap", megabytes(meta.len())));
    }
    let mut bytes = Vec::new();
    super::files::open_file(path)
        .ok()?
        .take(IGNORE_FILE_CAP + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    let patterns = bytes
        .split(|b| *b == b'\n')
        .filter(|l| {
            let l = l.trim_ascii();
            !l.is_empty() && !l.starts_with(b"#")
        })
        .count();
    (patterns > IGNORE_PATTERN_CAP)
        .then(|| format!("{patterns} patterns, over the cap of {IGNORE_PATTERN_CAP}"))
}

/// A size in decimal megabytes, one decimal: `1.9 MB`.
fn megabytes(n: u64) -> String {
    format!("{:.1} MB", n as f64 / 1_000_000.0)
}

/// Say once per call (on stderr) that the ignore file at `path` is skipped.
pub fn say_skipped(path: &Path, why: &str) {
    static SAID: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|p| p.into_inner());
    if !said.iter().any(|p| p == path) {
        said.push(path.to_path_buf());
        eprintln!(
            "indus-tool: skipped the ignore file {}: {why} (its patterns do not apply)",
            path.display()
        );
    }
}

/// The matcher of the ignore file at `path`, its patterns relative to `root`;
/// empty when it is absent, unreadable, or over a cap (then said on stderr).
pub fn load(path: &Path, root: &Path) -> Gitignore {
    if let Some(why) = over_cap(path) {
        say_skipped(path, &why);
        return Gitignore::empty();
    }
    let mut builder = GitignoreBuilder::new(root);
    builder.add(path);
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}
