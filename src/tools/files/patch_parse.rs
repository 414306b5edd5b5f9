//! Reading a patch: codex's `*** Begin Patch` envelope or a unified diff (plain
//! `diff -u`, or `git diff` with its extended headers), told apart by the text,
//! into one model of file operations and hunks that `apply_patch` matches and
//! applies. Pure: no file is read here, so the parser is tested on text alone
//! (codex's own crate keeps its parser apart from its matcher for the same
//! reason).
//!
//! Written by hand: no maintained crate reads both formats with git's headers
//! (rename, mode, quoted paths) and codex's lenient markers (padded with
//! whitespace, wrapped in a heredoc) and says where a malformed line is.
//!
//! What the model keeps of each format:
//!
//! - a hunk is its lines (context, removed, added) with, for a unified diff, the
//!   line where the old side starts (1-based, as written) and whether either
//!   side's last line has no line break (`\ No newline at end of file`); for an
//!   envelope, the `@@ anchor` line that precedes it and `*** End of File`;
//! - an added file is its content; a deleted file, for a unified diff, the
//!   content the patch says it had (checked before deleting), for an envelope
//!   nothing;
//! - an updated file may move (`*** Move to`, git's rename) and change mode.

use std::fmt;

/// Which format the text was read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Envelope,
    Unified,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Envelope => "envelope",
            Format::Unified => "unified",
        }
    }
}

/// One line of a hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Context,
    Remove,
    Add,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// The text after `@@ ` in an envelope: a line the hunk comes after.
    pub anchor: Option<String>,
    /// 1-based first line of the old side (unified diffs), as written.
    pub old_start: Option<usize>,
    /// 1-based first line of the new side (unified diffs), for `-R`.
    pub new_start: Option<usize>,
    /// The lines' texts, one after another (one buffer per hunk, not one
    /// string per line: a patch of 100,000 lines is read in a few copies).
    text: String,
    /// Each line's kind and where its text ends in `text`.
    ends: Vec<(Kind, usize)>,
    /// The old side's last line has no line break.
    pub old_no_newline: bool,
    /// The new side's last line has no line break.
    pub new_no_newline: bool,
    /// `*** End of File`: the hunk's old lines end the file.
    pub eof: bool,
    /// 1-based line of the patch where the hunk starts (for messages).
    pub at: usize,
}

impl Hunk {
    fn new(at: usize) -> Self {
        Hunk {
            anchor: None,
            old_start: None,
            new_start: None,
            text: String::new(),
            ends: Vec::new(),
            old_no_newline: false,
            new_no_newline: false,
            eof: false,
            at,
        }
    }

    /// The hunk's lines, in order: each one's kind and text (without its
    /// line break).
    pub fn lines(&self) -> impl ExactSizeIterator<Item = (Kind, &str)> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&(kind, end)| {
            let line = &self.text[start..end];
            start = end;
            (kind, line)
        })
    }

    /// Whether the hunk has no line at all.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub(crate) fn push(&mut self, kind: Kind, line: &str) {
        self.text.push_str(line);
        self.ends.push((kind, self.text.len()));
    }

    /// The old side's text, every line ending in `\n` unless it has none.
    pub fn old_text(&self) -> String {
        side(self, Kind::Remove, self.old_no_newline)
    }

    /// The new side's text.
    pub fn new_text(&self) -> String {
        side(self, Kind::Add, self.new_no_newline)
    }

    /// Whether the hunk has any line the file must already hold.
    pub fn has_old(&self) -> bool {
        self.lines().any(|(k, _)| k != Kind::Add)
    }

    fn reversed(&self) -> Hunk {
        let flip = |k: Kind| match k {
            Kind::Context => Kind::Context,
            Kind::Remove => Kind::Add,
            Kind::Add => Kind::Remove,
        };
        Hunk {
            anchor: self.anchor.clone(),
            old_start: self.new_start,
            new_start: self.old_start,
            text: self.text.clone(),
            ends: self.ends.iter().map(|&(k, e)| (flip(k), e)).collect(),
            old_no_newline: self.new_no_newline,
            new_no_newline: self.old_no_newline,
            eof: self.eof,
            at: self.at,
        }
    }
}

/// One side of a hunk (`own`: `Remove` for the old side, `Add` for the new):
/// its lines, each ending in `\n`, a `\r` before it taken off when `strip_cr`
/// (a diff of a CRLF file read as LF).
pub fn side_lines(hunk: &Hunk, own: Kind, strip_cr: bool) -> String {
    let mut out = String::with_capacity(hunk.text.len() + hunk.ends.len());
    for (_, t) in hunk
        .lines()
        .filter(|(k, _)| *k == Kind::Context || *k == own)
    {
        let t = if strip_cr {
            t.strip_suffix('\r').unwrap_or(t)
        } else {
            t
        };
        out.push_str(t);
        out.push('\n');
    }
    out
}

fn side(hunk: &Hunk, own: Kind, no_newline: bool) -> String {
    let mut out = String::with_capacity(hunk.text.len() + hunk.ends.len());
    side_into(&mut out, hunk, own, no_newline);
    out
}

/// [`side`] appended to `out`.
fn side_into(out: &mut String, hunk: &Hunk, own: Kind, no_newline: bool) {
    let start = out.len();
    for (_, t) in hunk
        .lines()
        .filter(|(k, _)| *k == Kind::Context || *k == own)
    {
        out.push_str(t);
        out.push('\n');
    }
    if no_newline && out.len() > start {
        out.pop();
    }
}

/// What a patch does to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    /// Create `path` with `content` (an existing file is replaced, as codex and
    /// `patch` do; the gate still asks for it to have been read).
    Add {
        path: String,
        content: String,
        mode: Option<u32>,
    },
    /// Delete `path`; `content`, when the patch states it (a unified diff), must
    /// be what the file holds.
    Delete {
        path: String,
        content: Option<String>,
    },
    /// Change `path` by `hunks`, perhaps moving it to `move_to` and changing its
    /// mode.
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
        new_mode: Option<u32>,
    },
}

impl FileOp {
    /// The path the operation starts from.
    pub fn path(&self) -> &str {
        match self {
            FileOp::Add { path, .. }
            | FileOp::Delete { path, .. }
            | FileOp::Update { path, .. } => path,
        }
    }

    /// Every path the operation reads or writes.
    pub fn paths(&self) -> Vec<&str> {
        match self {
            FileOp::Update {
                path,
                move_to: Some(to),
                ..
            } => vec![path, to],
            other => vec![other.path()],
        }
    }
}

/// A file's section of the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    pub op: FileOp,
    /// 1-based line of the patch where the section starts.
    pub at: usize,
    /// A plain diff whose paths read `a/…` and `b/…` (git's prefixes without a
    /// `diff --git` line, as many tools write): the paths are as given, unless
    /// the file is not there and the one without the first component is.
    pub prefixed: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub format: Format,
    pub files: Vec<FilePatch>,
}

/// Why a patch could not be read: the 1-based line of the patch and what is
/// wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {} of the patch: {}", self.line, self.message)
        }
    }
}

fn err(line: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
    }
}

/// Read `text` as whichever format it is written in.
pub fn parse(text: &str) -> Result<Patch, ParseError> {
    // A patch saved with CRLF endings throughout: its lines are the LF ones.
    let owned;
    let text = if text.contains("\r\n") && text.split_inclusive('\n').all(|l| l.ends_with("\r\n")) {
        owned = text.replace("\r\n", "\n");
        owned.as_str()
    } else {
        text
    };
    // Split at `\n` only: a `\r` before it is the line's own (a diff of a CRLF
    // file), which `str::lines` would drop.
    let body = text.strip_suffix('\n').unwrap_or(text);
    let lines: Vec<&str> = if body.is_empty() {
        Vec::new()
    } else {
        // Counted first: one allocation for a patch of any length.
        let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', body.as_bytes()).count() + 1);
        lines.extend(body.split('\n'));
        lines
    };
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let Some(first) = first else {
        return Err(err(0, "the patch is empty"));
    };
    let head = lines[first].trim();
    if head == "*** Begin Patch" || is_heredoc_open(head) {
        return parse_envelope(&lines);
    }
    if lines.iter().any(|l| l.starts_with("@@ -"))
        || lines
            .iter()
            .any(|l| l.starts_with("diff --git ") || l.starts_with("GIT binary patch"))
    {
        return parse_unified(&lines);
    }
    if lines.iter().any(|l| l.starts_with("Binary files ")) {
        return Err(err(
            0,
            "the patch changes binary files only; apply_patch applies text patches (use git apply for binary ones)",
        ));
    }
    Err(err(
        first + 1,
        format!(
            "not a patch: expected \"*** Begin Patch\" (codex's envelope) or a unified diff (\"--- a/FILE\", \"+++ b/FILE\", \"@@ -L,N +L,N @@\"), found {:?}",
            clip(lines[first])
        ),
    ))
}

/// A hunk's line by its first byte: context, removed or added, and its text; an
/// empty line is an empty context line whose space an editor or mailer trimmed.
/// `None` for any other first byte.
fn hunk_line(l: &str) -> Option<(Kind, &str)> {
    match l.as_bytes().first() {
        Some(b' ') => Some((Kind::Context, &l[1..])),
        Some(b'-') => Some((Kind::Remove, &l[1..])),
        Some(b'+') => Some((Kind::Add, &l[1..])),
        None => Some((Kind::Context, "")),
        Some(_) => None,
    }
}

fn clip(line: &str) -> String {
    if line.chars().count() > 60 {
        format!("{}…", line.chars().take(60).collect::<String>())
    } else {
        line.to_string()
    }
}

fn is_heredoc_open(line: &str) -> bool {
    matches!(line, "<<EOF" | "<<'EOF'" | "<<\"EOF\"")
}

// ---------------------------------------------------------------- envelope

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const EOF_MARK: &str = "*** End of File";

/// Where the envelope's `*** Begin Patch` and, past it, `*** End Patch` stand
/// (blank lines and a `<<'EOF'` heredoc around it left out): `(begin, end)`,
/// `end` one past the end line. Lines are numbered in the text as given.
fn envelope_bounds(all: &[&str]) -> Result<(usize, usize), ParseError> {
    let mut start = all.iter().position(|l| !l.trim().is_empty()).unwrap_or(0);
    let mut end = all.len();
    while end > start && all[end - 1].trim().is_empty() {
        end -= 1;
    }
    // `<<'EOF'` … `EOF` around the patch, as a model writes it for a shell.
    if is_heredoc_open(all[start].trim()) {
        if end - start >= 2 && all[end - 1].trim() == "EOF" {
            start += 1;
            end -= 1;
        } else {
            return Err(err(
                start + 1,
                "a heredoc opened with <<EOF is not closed by EOF",
            ));
        }
    }
    if all[start].trim() != BEGIN {
        return Err(err(start + 1, "the first line must be \"*** Begin Patch\""));
    }
    if end - start < 2 || all[end - 1].trim() != END {
        return Err(err(end, "the last line must be \"*** End Patch\""));
    }
    Ok((start, end))
}

/// The hunks of an `*** Update File: PATH` section, read from line `*i` up to
/// the next file header (or `stop`); `*i` is left on it.
fn update_hunks(
    all: &[&str],
    i: &mut usize,
    stop: usize,
    path: &str,
) -> Result<Vec<Hunk>, ParseError> {
    let mut hunks: Vec<Hunk> = Vec::new();
    while *i < stop {
        let l = all[*i];
        let t = l.trim();
        if t.starts_with("*** ") && t != EOF_MARK {
            break;
        }
        if t == EOF_MARK {
            match hunks.last_mut() {
                Some(h) if !h.is_empty() => h.eof = true,
                _ => return Err(err(*i + 1, "\"*** End of File\" ends no hunk")),
            }
            *i += 1;
            continue;
        }
        if l == "@@" || l.starts_with("@@ ") || t == "@@" {
            let mut h = Hunk::new(*i + 1);
            let anchor = l.trim().strip_prefix("@@").unwrap_or("").trim();
            h.anchor = (!anchor.is_empty()).then(|| anchor.to_string());
            hunks.push(h);
            *i += 1;
            continue;
        }
        let (kind, text) = match hunk_line(l) {
            Some(line) => line,
            None => {
                return Err(err(
                    *i + 1,
                    format!(
                        "{:?} in the hunk of {path}: every line of a hunk starts with ' ' (context), '-' (removed) or '+' (added)",
                        clip(l)
                    ),
                ));
            }
        };
        // The first hunk of a file may leave out its `@@` line.
        if hunks.is_empty() || hunks.last().is_some_and(|h| h.eof) {
            hunks.push(Hunk::new(*i + 1));
        }
        if let Some(h) = hunks.last_mut() {
            h.push(kind, text);
        }
        *i += 1;
    }
    if let Some(h) = hunks.iter().find(|h| h.is_empty()) {
        return Err(err(h.at, format!("a hunk of {path} has no lines")));
    }
    Ok(hunks)
}

fn parse_envelope(all: &[&str]) -> Result<Patch, ParseError> {
    let (start, end) = envelope_bounds(all)?;
    let mut files = Vec::new();
    let mut i = start + 1;
    let stop = end - 1;
    while i < stop {
        let raw = all[i];
        let line = raw.trim();
        let at = i + 1;
        if line.is_empty() {
            i += 1;
            continue;
        }
        if let Some(path) = line.strip_prefix(ADD.trim_end()).map(str::trim) {
            let path = file_path(path, at)?;
            i += 1;
            let mut content = String::new();
            while i < stop && all[i].starts_with('+') {
                content.push_str(&all[i][1..]);
                content.push('\n');
                i += 1;
            }
            files.push(FilePatch {
                op: FileOp::Add {
                    path,
                    content,
                    mode: None,
                },
                at,
                prefixed: false,
            });
        } else if let Some(path) = line.strip_prefix(DELETE.trim_end()).map(str::trim) {
            let path = file_path(path, at)?;
            files.push(FilePatch {
                op: FileOp::Delete {
                    path,
                    content: None,
                },
                at,
                prefixed: false,
            });
            i += 1;
        } else if let Some(path) = line.strip_prefix(UPDATE.trim_end()).map(str::trim) {
            let path = file_path(path, at)?;
            i += 1;
            let mut move_to = None;
            if i < stop
                && let Some(to) = all[i].trim().strip_prefix(MOVE.trim_end())
            {
                move_to = Some(file_path(to.trim(), i + 1)?);
                i += 1;
            }
            let hunks = update_hunks(all, &mut i, stop, &path)?;
            if hunks.is_empty() && move_to.is_none() {
                return Err(err(
                    at,
                    format!("\"*** Update File: {path}\" has no hunk: nothing to change"),
                ));
            }
            files.push(FilePatch {
                op: FileOp::Update {
                    path,
                    move_to,
                    hunks,
                    new_mode: None,
                },
                at,
                prefixed: false,
            });
        } else {
            return Err(err(
                at,
                format!(
                    "{:?} is not a file header; expected \"*** Add File: PATH\", \"*** Delete File: PATH\" or \"*** Update File: PATH\"",
                    clip(line)
                ),
            ));
        }
    }
    if files.is_empty() {
        return Err(err(0, "the patch changes no file"));
    }
    Ok(Patch {
        format: Format::Envelope,
        files,
    })
}

fn file_path(path: &str, at: usize) -> Result<String, ParseError> {
    if path.is_empty() {
        return Err(err(at, "the file header names no path"));
    }
    Ok(path.to_string())
}

// ----------------------------------------------------------------- unified

/// One file's headers while they are being read.
#[derive(Default)]
struct Section {
    at: usize,
    git: bool,
    /// From `diff --git a/X b/Y` (used when no `---`/`+++` follow: a pure
    /// rename or mode change).
    git_old: Option<String>,
    git_new: Option<String>,
    old: Option<String>,
    new: Option<String>,
    rename_from: Option<String>,
    rename_to: Option<String>,
    new_file: bool,
    deleted: bool,
    new_mode: Option<u32>,
    hunks: Vec<Hunk>,
}

fn parse_unified(lines: &[&str]) -> Result<Patch, ParseError> {
    let mut files = Vec::new();
    let mut cur: Option<Section> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let at = i + 1;
        if let Some(rest) = line.strip_prefix("diff --git ") {
            if let Some(s) = cur.take() {
                files.push(finish(s)?);
            }
            let (a, b) = split_git_header(rest)
                .ok_or_else(|| err(at, format!("cannot read the paths of {:?}", clip(line))))?;
            cur = Some(Section {
                at,
                git: true,
                git_old: Some(strip_prefix_component(&a, "a/")),
                git_new: Some(strip_prefix_component(&b, "b/")),
                ..Section::default()
            });
            i += 1;
            continue;
        }
        if line.starts_with("GIT binary patch") || line.starts_with("Binary files ") {
            let name = cur
                .as_ref()
                .and_then(|s| s.git_new.clone().or(s.new.clone()))
                .unwrap_or_else(|| "a file".to_string());
            return Err(err(
                at,
                format!(
                    "the patch changes {name} as a binary file; apply_patch applies text patches (use git apply for binary ones). Nothing was changed."
                ),
            ));
        }
        if line.starts_with("--- ") && lines.get(i + 1).is_some_and(|n| n.starts_with("+++ ")) {
            // A `---` line outside a hunk opens a file (a plain diff has no
            // `diff --git` line, so each pair starts a section of its own).
            let git = cur.as_ref().is_some_and(|s| s.git && s.old.is_none());
            if !git {
                if let Some(s) = cur.take() {
                    files.push(finish(s)?);
                }
                cur = Some(Section {
                    at,
                    ..Section::default()
                });
            }
            let s = cur.as_mut().expect("a section was opened");
            s.old = Some(header_path(&line[4..], s.git, "a/"));
            s.new = Some(header_path(&lines[i + 1][4..], s.git, "b/"));
            i += 2;
            continue;
        }
        if line.starts_with("@@ -") {
            let Some(s) = cur.as_mut() else {
                return Err(err(
                    at,
                    "a hunk before any file header (\"--- a/FILE\" and \"+++ b/FILE\")",
                ));
            };
            let (hunk, next) = read_hunk(lines, i)?;
            s.hunks.push(hunk);
            i = next;
            continue;
        }
        if let Some(s) = cur.as_mut().filter(|s| s.git && s.hunks.is_empty()) {
            if let Some(m) = line.strip_prefix("new file mode ") {
                s.new_file = true;
                s.new_mode = parse_mode(m);
            } else if line.starts_with("deleted file mode ") {
                s.deleted = true;
            } else if let Some(m) = line.strip_prefix("new mode ") {
                s.new_mode = parse_mode(m);
            } else if let Some(p) = line.strip_prefix("rename from ") {
                s.rename_from = Some(unquote(p));
            } else if let Some(p) = line.strip_prefix("rename to ") {
                s.rename_to = Some(unquote(p));
            } else if line.starts_with("copy from ") || line.starts_with("copy to ") {
                return Err(err(
                    at,
                    "git's copy headers are not applied; give the copy as a new file",
                ));
            }
        }
        // Anything else (a commit message, `index` lines, `similarity index`)
        // is not part of what the patch does.
        i += 1;
    }
    if let Some(s) = cur.take() {
        files.push(finish(s)?);
    }
    if files.is_empty() {
        return Err(err(0, "the patch changes no file"));
    }
    Ok(Patch {
        format: Format::Unified,
        files,
    })
}

/// Read the hunk whose `@@` line is `lines[i]`; returns it and the index after it.
fn read_hunk(lines: &[&str], i: usize) -> Result<(Hunk, usize), ParseError> {
    let at = i + 1;
    let header = lines[i];
    let bad = || {
        err(
            at,
            format!(
                "{:?} is not a hunk header (\"@@ -START,COUNT +START,COUNT @@\")",
                clip(header)
            ),
        )
    };
    let rest = header.strip_prefix("@@ -").ok_or_else(bad)?;
    let close = rest.find(" @@").ok_or_else(bad)?;
    let mut ranges = rest[..close].split(' ');
    let old = ranges.next().ok_or_else(bad)?;
    let new = ranges
        .next()
        .and_then(|n| n.strip_prefix('+'))
        .ok_or_else(bad)?;
    let range = |r: &str| -> Option<(usize, usize)> {
        match r.split_once(',') {
            Some((s, c)) => Some((s.parse().ok()?, c.parse().ok()?)),
            None => Some((r.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = range(old).ok_or_else(bad)?;
    let (new_start, new_count) = range(new).ok_or_else(bad)?;
    let mut hunk = Hunk::new(at);
    // Sized once: at most old + new lines follow (fewer when some are context).
    let most = old_count.saturating_add(new_count).min(lines.len() - i - 1);
    hunk.ends.reserve(most);
    hunk.text
        .reserve(lines[i + 1..i + 1 + most].iter().map(|l| l.len()).sum());
    // A count of 0 states the line *before* the hunk: the insertion point.
    hunk.old_start = Some(if old_count == 0 {
        old_start + 1
    } else {
        old_start
    });
    hunk.new_start = Some(if new_count == 0 {
        new_start + 1
    } else {
        new_start
    });
    let (mut old_left, mut new_left) = (old_count, new_count);
    let mut j = i + 1;
    let mut last: Option<Kind> = None;
    while j < lines.len() {
        let l = lines[j];
        if l.starts_with('\\') {
            match last {
                Some(Kind::Remove) => hunk.old_no_newline = true,
                Some(Kind::Add) => hunk.new_no_newline = true,
                Some(Kind::Context) => {
                    hunk.old_no_newline = true;
                    hunk.new_no_newline = true;
                }
                None => {}
            }
            j += 1;
            continue;
        }
        if old_left == 0 && new_left == 0 {
            break;
        }
        let (kind, text) = match hunk_line(l) {
            Some(line) => line,
            None => {
                return Err(err(
                    j + 1,
                    format!(
                        "the hunk at line {at} ends early: {} old and {} new lines are still missing",
                        old_left, new_left
                    ),
                ));
            }
        };
        match kind {
            Kind::Context if old_left > 0 && new_left > 0 => {
                old_left -= 1;
                new_left -= 1;
            }
            Kind::Remove if old_left > 0 => old_left -= 1,
            Kind::Add if new_left > 0 => new_left -= 1,
            _ => {
                return Err(err(
                    j + 1,
                    format!(
                        "the hunk at line {at} has more lines than its header counts ({header})"
                    ),
                ));
            }
        }
        hunk.push(kind, text);
        last = Some(kind);
        j += 1;
    }
    if old_left > 0 || new_left > 0 {
        return Err(err(
            at,
            format!(
                "the hunk is cut short: {old_left} old and {new_left} new lines are missing at the end of the patch"
            ),
        ));
    }
    Ok((hunk, j))
}

fn finish(s: Section) -> Result<FilePatch, ParseError> {
    let dev_null = |p: &Option<String>| p.as_deref() == Some("/dev/null");
    let old = if dev_null(&s.old) {
        None
    } else {
        s.rename_from
            .clone()
            .or(s.old.clone())
            .or(s.git_old.clone())
    };
    let new = if dev_null(&s.new) {
        None
    } else {
        s.rename_to.clone().or(s.new.clone()).or(s.git_new.clone())
    };
    let body = |hunks: &[Hunk], kind: Kind| -> String {
        let mut out =
            String::with_capacity(hunks.iter().map(|h| h.text.len() + h.ends.len()).sum());
        for h in hunks {
            let no_newline = if kind == Kind::Add {
                h.new_no_newline
            } else {
                h.old_no_newline
            };
            side_into(&mut out, h, kind, no_newline);
        }
        out
    };
    let op = if s.new_file || (old.is_none() && s.old.is_some()) {
        let path = new.ok_or_else(|| err(s.at, "a new file without a name"))?;
        if s.hunks.iter().any(|h| h.has_old()) {
            return Err(err(
                s.at,
                format!("{path} is a new file, but its hunk has context or removed lines"),
            ));
        }
        FileOp::Add {
            content: body(&s.hunks, Kind::Add),
            path,
            mode: s.new_mode,
        }
    } else if s.deleted || (new.is_none() && s.new.is_some()) {
        let path = old.ok_or_else(|| err(s.at, "a deleted file without a name"))?;
        if s.hunks
            .iter()
            .any(|h| h.lines().any(|(k, _)| k != Kind::Remove))
        {
            return Err(err(
                s.at,
                format!("{path} is deleted, but its hunk adds or keeps lines"),
            ));
        }
        FileOp::Delete {
            content: Some(body(&s.hunks, Kind::Remove)),
            path,
        }
    } else {
        let path = old
            .clone()
            .ok_or_else(|| err(s.at, "a file section without a path"))?;
        let target = new.unwrap_or_else(|| path.clone());
        if s.hunks.is_empty() && target == path && s.new_mode.is_none() {
            return Err(err(s.at, format!("the section of {path} changes nothing")));
        }
        FileOp::Update {
            move_to: (target != path).then_some(target),
            path,
            hunks: s.hunks,
            new_mode: s.new_mode,
        }
    };
    let prefixed = !s.git
        && [&s.old, &s.new].iter().all(|p| {
            p.as_deref()
                .is_some_and(|p| p == "/dev/null" || p.starts_with("a/") || p.starts_with("b/"))
        })
        && s.old.as_deref().is_some_and(|p| p.starts_with("a/"))
            | s.new.as_deref().is_some_and(|p| p.starts_with("b/"));
    Ok(FilePatch {
        op,
        at: s.at,
        prefixed,
    })
}

impl FilePatch {
    /// The operation with its paths' first component taken off (`-p1`).
    pub fn stripped(&self) -> FileOp {
        let strip = |p: &str| p.split_once('/').map_or(p, |(_, rest)| rest).to_string();
        match &self.op {
            FileOp::Add {
                path,
                content,
                mode,
            } => FileOp::Add {
                path: strip(path),
                content: content.clone(),
                mode: *mode,
            },
            FileOp::Delete { path, content } => FileOp::Delete {
                path: strip(path),
                content: content.clone(),
            },
            FileOp::Update {
                path,
                move_to,
                hunks,
                new_mode,
            } => FileOp::Update {
                path: strip(path),
                move_to: move_to.as_deref().map(strip),
                hunks: hunks.clone(),
                new_mode: *new_mode,
            },
        }
    }
}

fn parse_mode(m: &str) -> Option<u32> {
    u32::from_str_radix(m.trim(), 8).ok().map(|m| m & 0o7777)
}

/// `a/x b/y` (each perhaps quoted) from a `diff --git` line.
fn split_git_header(rest: &str) -> Option<(String, String)> {
    if rest.starts_with('"') {
        let (a, after) = quoted(rest)?;
        let b = after.trim_start();
        let b = if b.starts_with('"') {
            quoted(b)?.0
        } else {
            b.to_string()
        };
        return Some((a, b));
    }
    // Unquoted: the two halves are the same length when the name is unchanged;
    // otherwise split before ` b/`.
    if let Some(pos) = rest.find(" \"") {
        return Some((rest[..pos].to_string(), quoted(&rest[pos + 1..])?.0));
    }
    let n = rest.len();
    if n % 2 == 1 {
        let (a, b) = (&rest[..n / 2], &rest[n / 2 + 1..]);
        if a.get(2..) == b.get(2..) {
            return Some((a.to_string(), b.to_string()));
        }
    }
    let pos = rest.find(" b/")?;
    Some((rest[..pos].to_string(), rest[pos + 1..].to_string()))
}

/// A path from a `---`/`+++` line: quotes undone, a timestamp after a tab cut,
/// git's `a/`/`b/` prefix stripped in a git diff.
fn header_path(raw: &str, git: bool, prefix: &str) -> String {
    let raw = raw.trim_end();
    let path = if raw.starts_with('"') {
        quoted(raw).map(|q| q.0).unwrap_or_else(|| raw.to_string())
    } else {
        raw.split('\t').next().unwrap_or(raw).to_string()
    };
    if path == "/dev/null" {
        return path;
    }
    if git {
        strip_prefix_component(&path, prefix)
    } else {
        path
    }
}

fn strip_prefix_component(path: &str, prefix: &str) -> String {
    let path = unquote(path);
    path.strip_prefix(prefix)
        .map(str::to_string)
        .unwrap_or(path)
}

fn unquote(p: &str) -> String {
    if p.starts_with('"') {
        quoted(p).map(|q| q.0).unwrap_or_else(|| p.to_string())
    } else {
        p.to_string()
    }
}

/// A C-style quoted string at the start of `s` (git's quoting of unusual
/// names): its value and the rest after the closing quote.
fn quoted(s: &str) -> Option<(String, &str)> {
    let bytes = s.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut out: Vec<u8> = Vec::new();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                return Some((String::from_utf8_lossy(&out).into_owned(), &s[i + 1..]));
            }
            b'\\' if i + 1 < bytes.len() => {
                let c = bytes[i + 1];
                match c {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'"' => out.push(b'"'),
                    b'\\' => out.push(b'\\'),
                    b'a' => out.push(7),
                    b'b' => out.push(8),
                    b'f' => out.push(12),
                    b'r' => out.push(b'\r'),
                    b'v' => out.push(11),
                    b'0'..=b'7' if i + 3 < bytes.len() => {
                        let oct = std::str::from_utf8(&bytes[i + 1..i + 4]).ok()?;
                        out.push(u8::from_str_radix(oct, 8).ok()?);
                        i += 4;
                        continue;
                    }
                    other => out.push(other),
                }
                i += 2;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

/// The patch read backwards (`-R`): added files deleted, deleted ones added,
/// every hunk's sides swapped, a move made the other way. Only a unified diff
/// states enough to be reversed (an envelope deletes a file without its content).
pub fn reverse(patch: Patch) -> Result<Patch, ParseError> {
    if patch.format == Format::Envelope {
        return Err(err(
            0,
            "-R reverses unified diffs; an envelope's \"*** Delete File\" does not carry the content to bring back",
        ));
    }
    let files = patch
        .files
        .into_iter()
        .map(|f| {
            let op = match f.op {
                FileOp::Add { path, content, .. } => FileOp::Delete {
                    path,
                    content: Some(content),
                },
                FileOp::Delete { path, content } => FileOp::Add {
                    path,
                    content: content.unwrap_or_default(),
                    mode: None,
                },
                FileOp::Update {
                    path,
                    move_to,
                    hunks,
                    ..
                } => {
                    let (path, move_to) = match move_to {
                        Some(to) => (to, Some(path)),
                        None => (path, None),
                    };
                    FileOp::Update {
                        path,
                        move_to,
                        hunks: hunks.iter().map(Hunk::reversed).collect(),
                        // git states the old mode beside the new one, but the
                        // model keeps only the new: reversed, the file keeps
                        // the mode it has.
                        new_mode: None,
                    }
                }
            };
            FilePatch {
                op,
                at: f.at,
                prefixed: f.prefixed,
            }
        })
        .collect();
    Ok(Patch {
        format: patch.format,
        files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_envelope_with_every_operation() {
        let p = parse(
            "*** Begin Patch\n*** Add File: n/new.txt\n+created\n*** Delete File: gone.txt\n*** Update File: m.txt\n*** Move to: moved.txt\n@@ fn main\n line1\n-line2\n+changed\n\n*** End of File\n*** End Patch\n",
        )
        .unwrap();
        assert_eq!(p.format, Format::Envelope);
        assert_eq!(p.files.len(), 3);
        assert_eq!(
            p.files[0].op,
            FileOp::Add {
                path: "n/new.txt".into(),
                content: "created\n".into(),
                mode: None
            }
        );
        let FileOp::Update {
            path,
            move_to,
            hunks,
            ..
        } = &p.files[2].op
        else {
            panic!("an update")
        };
        assert_eq!(
            (path.as_str(), move_to.as_deref()),
            ("m.txt", Some("moved.txt"))
        );
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].anchor.as_deref(), Some("fn main"));
        assert!(hunks[0].eof);
        assert_eq!(hunks[0].old_text(), "line1\nline2\n\n");
        assert_eq!(hunks[0].new_text(), "line1\nchanged\n\n");
    }

    #[test]
    fn envelope_markers_may_be_padded_or_wrapped_in_a_heredoc() {
        let p = parse("  *** Begin Patch \n  *** Update File: f\n@@\n-one\n+two\n *** End Patch\n")
            .unwrap();
        assert_eq!(p.files.len(), 1);
        let p =
            parse("<<'EOF'\n*** Begin Patch\n*** Delete File: f\n*** End Patch\nEOF\n").unwrap();
        assert_eq!(p.files[0].op.path(), "f");
    }

    #[test]
    fn envelope_errors_name_the_line() {
        let e = parse("*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("not a file header"), "{e}");
        assert_eq!(
            parse("*** Begin Patch\n*** End Patch\n")
                .unwrap_err()
                .message,
            "the patch changes no file"
        );
        let e = parse("*** Begin Patch\n*** Update File: foo\n*** End Patch\n").unwrap_err();
        assert!(e.message.contains("has no hunk"), "{e}");
        let e = parse("*** Begin Patch\n*** Update File: f\n@@\n?x\n*** End Patch\n").unwrap_err();
        assert_eq!(e.line, 4);
        assert!(parse("*** Begin Patch\n*** Delete File: f\n").is_err());
    }

    #[test]
    fn a_git_diff_with_rename_mode_and_new_file() {
        let text = "\
diff --git a/src/old.rs b/src/new.rs
similarity index 90%
rename from src/old.rs
rename to src/new.rs
index 1..2 100644
--- a/src/old.rs
+++ b/src/new.rs
@@ -1,3 +1,3 @@ fn f()
 a
-b
+B
 c
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
diff --git a/n.txt b/n.txt
new file mode 100644
index 0000000..1
--- /dev/null
+++ b/n.txt
@@ -0,0 +1,2 @@
+x
+y
\\ No newline at end of file
diff --git a/d.txt b/d.txt
deleted file mode 100644
--- a/d.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
";
        let p = parse(text).unwrap();
        assert_eq!(p.format, Format::Unified);
        assert_eq!(p.files.len(), 4);
        let FileOp::Update {
            path,
            move_to,
            hunks,
            ..
        } = &p.files[0].op
        else {
            panic!()
        };
        assert_eq!(
            (path.as_str(), move_to.as_deref()),
            ("src/old.rs", Some("src/new.rs"))
        );
        assert_eq!(hunks[0].old_start, Some(1));
        assert_eq!(hunks[0].old_text(), "a\nb\nc\n");
        assert_eq!(
            p.files[1].op,
            FileOp::Update {
                path: "run.sh".into(),
                move_to: None,
                hunks: vec![],
                new_mode: Some(0o755)
            }
        );
        assert_eq!(
            p.files[2].op,
            FileOp::Add {
                path: "n.txt".into(),
                content: "x\ny".into(),
                mode: Some(0o644)
            }
        );
        assert_eq!(
            p.files[3].op,
            FileOp::Delete {
                path: "d.txt".into(),
                content: Some("gone\n".into())
            }
        );
        let r = reverse(p).unwrap();
        assert!(matches!(&r.files[2].op, FileOp::Delete { path, .. } if path == "n.txt"));
        let FileOp::Update {
            path,
            move_to,
            hunks,
            ..
        } = &r.files[0].op
        else {
            panic!()
        };
        assert_eq!(
            (path.as_str(), move_to.as_deref()),
            ("src/new.rs", Some("src/old.rs"))
        );
        assert_eq!(hunks[0].old_text(), "a\nB\nc\n");
    }

    #[test]
    fn a_plain_diff_keeps_its_paths_and_counts_its_lines() {
        // A removed line that looks like a header is still the hunk's.
        let text = "--- x.txt\t2026-01-01 00:00:00\n+++ x.txt\t2026-01-02\n@@ -1,2 +1,2 @@\n--- not a header\n+++ nor this\n ctx\n";
        let p = parse(text).unwrap();
        let FileOp::Update { path, hunks, .. } = &p.files[0].op else {
            panic!()
        };
        assert_eq!(path, "x.txt");
        assert_eq!(hunks[0].old_text(), "-- not a header\nctx\n");
        assert_eq!(hunks[0].new_text(), "++ nor this\nctx\n");
    }

    #[test]
    fn unified_errors_and_binary_refusals() {
        let e = parse("--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n").unwrap_err();
        assert!(e.message.contains("cut short"), "{e}");
        let e = parse("diff --git a/i.png b/i.png\nindex 1..2\nGIT binary patch\nliteral 5\n")
            .unwrap_err();
        assert!(e.message.contains("binary"), "{e}");
        assert!(
            parse("hello\n")
                .unwrap_err()
                .message
                .contains("not a patch")
        );
        assert_eq!(parse("").unwrap_err().message, "the patch is empty");
    }

    #[test]
    fn quoted_git_paths_are_unquoted() {
        let p = parse(
            "diff --git \"a/sp ace\\tx\" \"b/sp ace\\tx\"\n--- \"a/sp ace\\tx\"\n+++ \"b/sp ace\\tx\"\n@@ -1 +1 @@\n-a\n+b\n",
        )
        .unwrap();
        assert_eq!(p.files[0].op.path(), "sp ace\tx");
    }
}
