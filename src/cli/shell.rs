//! The shell's habits around the tools' exact answers, for the command line only.
//!
//! Agents (JSON, batch, MCP) get the seeds' byte-stable texts; a shell user judges
//! the same answer by what rg, fd, grep and diff do. This module owns that
//! difference and nothing else: which exit status a tool's outcome is (`grep` 0
//! found, 1 nothing found, 2 trouble, as rg; `find` 0 either way, 1 nothing found
//! only under `-q`, as fd), what goes to stdout when it is not
//! a terminal (the rows; the summary, truncation notices and hints to stderr),
//! `-q`, `-0` and `--stats`, `bash`'s raw streams and `--exit-status`, and hints
//! that name the flags a person types (`--offset 67`) instead of JSON keys.
//! The split works on the tools' own texts and records; it never re-renders a row.

use std::io::IsTerminal;
use std::process::ExitCode;

use clap::ArgMatches;
use serde_json::Value;

use super::command::kebab;
use super::output::Printer;
use super::peers::{EXIT_STATUS, PRINT0, QUIET, STATS};
use super::tools::{Layout, StatusRule, row_of};
use crate::kernel::render_text;
use crate::kernel::{ToolDescriptor, ToolOutcome, program_view};

/// The command-line-only switches of a tool call (none reaches the tool).
#[derive(Debug, Clone, Default)]
pub struct ShellOpts {
    /// `-q/--quiet`: print nothing; the exit status says it.
    pub quiet: bool,
    /// `-0`: rows end with NUL instead of a newline (for `xargs -0`).
    pub print0: bool,
    /// `--stats`: the summary line on stderr even when it says nothing new.
    pub stats: bool,
    /// `bash --exit-status`: exit with the command's own status.
    pub exit_status: bool,
}

impl ShellOpts {
    pub fn from_matches(m: &ArgMatches) -> Self {
        let on = |id: &str| matches!(m.try_get_one::<bool>(id), Ok(Some(true)));
        Self {
            quiet: on(QUIET),
            print0: on(PRINT0),
            stats: on(STATS),
            exit_status: on(EXIT_STATUS),
        }
    }
}

/// The exit status of a printed outcome (a caught signal is decided by the caller).
pub fn exit_status(tool: &str, outcome: &ToolOutcome, opts: &ShellOpts) -> ExitCode {
    match row_of(tool).status {
        StatusRule::Search | StatusRule::Find if outcome.is_error => ExitCode::from(2),
        StatusRule::Find if !opts.quiet => ExitCode::SUCCESS,
        StatusRule::Search | StatusRule::Find => {
            let record = program_view(&outcome.output);
            let number = |key: &str| record.get(key).and_then(Value::as_u64);
            // A page past the last match selects nothing, as a search that
            // found nothing: a script's `while grep --offset N` loop ends.
            let past_end = number("shown") == Some(0) && number("offset").is_some_and(|o| o > 0);
            if number("count") == Some(0) || past_end {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        StatusRule::Gate if outcome.is_error => ExitCode::from(2),
        StatusRule::Gate => {
            let record = program_view(&outcome.output);
            match record.get("count").and_then(Value::as_u64) {
                Some(0) | None => ExitCode::SUCCESS,
                Some(_) => ExitCode::from(1),
            }
        }
        StatusRule::Command if opts.exit_status => command_status(&outcome.output),
        _ if outcome.is_error => ExitCode::from(1),
        // `process poll --until/--wait-ms`: as timeout(1) and expect(1) say it.
        _ if let Some(code) = wait_status(&program_view(&outcome.output)) => code,
        // `edit --diagnose` and its kin: the change stands, and new errors
        // after it are the shell's 1, as diagnose's gate says them.
        _ if program_view(&outcome.output)
            .get("newErrors")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty()) =>
        {
            ExitCode::from(1)
        }
        _ => ExitCode::SUCCESS,
    }
}

/// The status of a poll that waited: 0 the line came (or new output), 1 the
/// job ended first, 124 the time ran out, 3 the job waits for input.
fn wait_status(record: &Value) -> Option<ExitCode> {
    let code = match record.pointer("/wait/outcome")?.as_str()? {
        "matched" | "output" => 0,
        "ended" => 1,
        "timeout" => 124,
        "input" => 3,
        _ => return None,
    };
    Some(ExitCode::from(code))
}

/// `bash --exit-status`: the command's exit code, 128+N for a signal, 124 for a
/// timeout (as timeout(1)), 1 when the command never ran.
fn command_status(output: &Value) -> ExitCode {
    let record = program_view(output);
    if let Some(code) = record.get("exitCode").and_then(Value::as_i64) {
        return ExitCode::from(code.clamp(0, 255) as u8);
    }
    if record.get("timedOut").and_then(Value::as_bool) == Some(true) {
        return ExitCode::from(124);
    }
    if let Some(name) = record.get("signal").and_then(Value::as_str)
        && let Some(n) = signal_number(name)
    {
        return ExitCode::from(128 + n);
    }
    ExitCode::from(1)
}

fn signal_number(name: &str) -> Option<u8> {
    use std::str::FromStr;
    nix::sys::signal::Signal::from_str(name)
        .ok()
        .map(|s| s as i32 as u8)
}

/// Whether stdout is a terminal (a person reading) rather than a pipe or file.
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// Print a successful or failed outcome in text mode the shell's way.
pub fn print_text(
    printer: &mut Printer,
    descriptor: &ToolDescriptor,
    outcome: &ToolOutcome,
    opts: &ShellOpts,
) {
    let tool = descriptor.name.as_str();
    let row = row_of(tool);
    if opts.quiet {
        // Nothing at all on stdout; an error still explains itself on stderr.
        if outcome.is_error {
            printer.error_text(&flags_in(
                Layout::HeaderThenRows,
                descriptor,
                &render_text(&outcome.output),
            ));
        }
        return;
    }
    if row.layout == Layout::Streams {
        print_streams(printer, outcome);
        return;
    }
    if outcome.is_error {
        printer.error_text(&flags_in(
            Layout::HeaderThenRows,
            descriptor,
            &render_text(&outcome.output),
        ));
        return;
    }
    let text = render_text(&outcome.output);
    let piped = !stdout_is_terminal();
    let layout = row.layout;
    if !layout.splits() {
        // Not split: the answer as the tool wrote it (it may quote a file's
        // content, which no hint rewriting may touch).
        if !text.is_empty() {
            printer.stdout_line(&text);
        }
        return;
    }
    let Split {
        rows,
        notes,
        summary,
    } = layout.split(&text);
    if opts.print0 {
        let record = program_view(&outcome.output);
        let key = row.print0_rows;
        let mut out = Vec::new();
        let mut printed = 0u64;
        for row in record
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(path) = row.get("path").and_then(Value::as_str) {
                out.extend_from_slice(path.as_bytes());
                out.push(0);
                printed += 1;
            }
        }
        printer.stdout_bytes(&out);
        // The record keeps what fits the output budget; never cut in silence.
        let shown = record
            .get("shown")
            .and_then(Value::as_u64)
            .unwrap_or(printed);
        if shown > printed {
            printer.error_text(&format!(
                "[{tool}: {} paths left out to stay within the output ceiling; raise --max-bytes]",
                shown - printed
            ));
        }
    } else if !piped {
        // A person at a terminal reads the whole answer, summary included, its
        // hints named as flags and its rows as they are.
        printer.stdout_line(&flags_in(layout, descriptor, &text));
        return;
    } else if !rows.is_empty() {
        printer.stdout_line(&rows);
    }
    // With -0 the paths come from the record, which said its own cut above.
    for note in notes.into_iter().filter(|_| !opts.print0) {
        printer.error_text(&name_flags(descriptor, &note));
    }
    if let Some(summary) = summary
        && (opts.stats || says_more_than_counts(&summary))
    {
        printer.error_text(&name_flags(descriptor, &summary));
    }
}

/// [`name_flags`] on the tool's own sentence in `text` only (where `layout` puts
/// it), never on the rows or file content beside it. An error is laid out as a
/// header: its sentence, then any region of the file it quotes.
fn flags_in(layout: Layout, descriptor: &ToolDescriptor, text: &str) -> String {
    let at = layout.prose(text);
    format!(
        "{}{}{}",
        &text[..at.start],
        name_flags(descriptor, &text[at.clone()]),
        &text[at.end..]
    )
}

/// The answer's parts: the rows, notices found among them, the closing summary.
#[derive(Debug, PartialEq, Eq)]
pub struct Split {
    pub rows: String,
    pub notes: Vec<String>,
    pub summary: Option<String>,
}

/// Where a split layout puts the tool's own sentence (the rest is rows, which
/// no rewriting touches).
impl Layout {
    /// Whether the text is split into rows and the tool's sentence.
    pub fn splits(self) -> bool {
        matches!(self, Layout::RowsThenSummary | Layout::HeaderThenRows)
    }

    /// The byte range of the tool's own sentence in `text`.
    pub fn prose(self, text: &str) -> std::ops::Range<usize> {
        match self {
            Layout::RowsThenSummary => text.rfind("\n\n").map_or(0, |i| i + 2)..text.len(),
            Layout::HeaderThenRows => 0..text.find('\n').unwrap_or(text.len()),
            Layout::AsWritten | Layout::Streams => 0..text.len(),
        }
    }

    /// The rows (a clamp notice taken out), the notices, the sentence.
    pub fn split(self, text: &str) -> Split {
        let at = self.prose(text);
        let rows = match self {
            Layout::RowsThenSummary => &text[..at.start.saturating_sub(2)],
            Layout::HeaderThenRows => text.get(at.end + 1..).unwrap_or(""),
            Layout::AsWritten | Layout::Streams => "",
        };
        let (rows, notes) = take_clamp_notice(rows);
        Split {
            rows,
            notes,
            summary: Some(text[at].to_string()).filter(|s| !s.is_empty()),
        }
    }
}

/// The output ceiling's notice (`[grep: 3 rows left out …]`) is the last row when
/// present; it belongs on stderr.
fn take_clamp_notice(rows: &str) -> (String, Vec<String>) {
    if let Some((before, last)) = rows.rsplit_once('\n').or(Some(("", rows)))
        && last.starts_with('[')
        && last.ends_with(']')
        && last.contains(" left out ")
    {
        return (before.to_string(), vec![last.to_string()]);
    }
    (rows.to_string(), Vec::new())
}

/// Whether a summary says more than how much was found: a cut, a skip, a hint.
/// Those go to stderr even without `--stats`; a bare count does not (rg and fd
/// print nothing after their rows).
fn says_more_than_counts(summary: &str) -> bool {
    let bare = (summary.starts_with("Found ") || summary.starts_with("No matches for "))
        && !summary.contains("Skipped")
        && !summary.contains('\n');
    // The bare header (`Showing lines 1–9 of 9 in f.`) is cat's silence; one
    // that says more (not UTF-8, decoded from Shift_JIS, PDF pages) is said.
    let header = summary.starts_with("Showing lines ")
        && !summary.contains("remain")
        && !summary.contains(". ");
    let listing = summary.ends_with(" entries") || summary.ends_with(" entry");
    // outline's count (`3 definitions in 2 files; parsed 2 files.`), as ctags
    // prints nothing after its rows; syntax errors and skips are said.
    !(bare || header || listing || is_bare_outline_count(summary))
}

/// `3 definitions in 2 files; parsed 2 files.` and nothing more: outline's
/// count alone (the map's summary, which says what it left out, is not).
fn is_bare_outline_count(summary: &str) -> bool {
    let counted = |words: &str, one: &str, many: &str| {
        let mut w = words.split(' ');
        let n = w.next().is_some_and(|n| n.parse::<u64>().is_ok());
        let unit = w.next().is_some_and(|u| u == one || u == many);
        n && unit && w.next().is_none()
    };
    let Some((found, parsed)) = summary
        .strip_suffix('.')
        .and_then(|s| s.split_once("; parsed "))
    else {
        return false;
    };
    let Some((defs, files)) = found.split_once(" in ") else {
        return false;
    };
    counted(defs, "definition", "definitions")
        && counted(files, "file", "files")
        && counted(parsed, "file", "files")
}

/// A command's record in text mode (`bash`): its stdout and stderr as they
/// were, on the toolbox's stdout and stderr; the status line on stderr.
fn print_streams(printer: &mut Printer, outcome: &ToolOutcome) {
    let record = program_view(&outcome.output);
    let (Some(out), Some(err)) = (
        record.get("stdout").and_then(Value::as_str),
        record.get("stderr").and_then(Value::as_str),
    ) else {
        // Never ran (bad input, cancelled before the start): the message alone.
        printer.error_text(&render_text(&outcome.output));
        return;
    };
    printer.stdout_raw(out);
    printer.stderr_raw(err);
    let text = render_text(&outcome.output);
    // What the tool adds about the run (a prompt met, spills evicted) is said
    // even when the command succeeded.
    for note in text.lines().filter(|l| l.starts_with("note: ")) {
        printer.error_text(note);
    }
    if let Some(status) = text.lines().rev().find(|l| l.starts_with("status: ")) {
        // Success is silent, as in a shell; anything else is said.
        if outcome.is_error {
            printer.error_text(status);
        }
    }
}

/// Rewrite the hints of a tool's prose to name the flags a person types: `offset=67`
/// → `--offset 67`, `raise limit` → `raise --limit`, `set replaceAll` → `pass
/// --replace-all`. Only the tool's own input keys are rewritten, and only in the
/// summary, notice and error lines handed here (never a row of file content).
pub fn name_flags(descriptor: &ToolDescriptor, text: &str) -> String {
    let keys: Vec<&String> = descriptor
        .parameters
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().collect())
        .unwrap_or_default();
    let mut out = text.to_string();
    for key in keys {
        let flag = format!("--{}", kebab(key));
        out = replace_word(&out, &format!("set {key}"), &format!("pass {flag}"));
        out = replace_word(&out, &format!("raise {key}"), &format!("raise {flag}"));
        out = replace_assignment(&out, key, &flag);
    }
    out
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Replace `from` where it stands as whole words.
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(from) {
        let before_ok = rest[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !is_word_char(c));
        let after = &rest[i + from.len()..];
        let after_ok = after.chars().next().is_none_or(|c| !is_word_char(c));
        out.push_str(&rest[..i]);
        out.push_str(if before_ok && after_ok { to } else { from });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// `key=VALUE` (a word) → `--flag VALUE`.
fn replace_assignment(text: &str, key: &str, flag: &str) -> String {
    let pattern = format!("{key}=");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(&pattern) {
        let before_ok = rest[..i]
            .chars()
            .next_back()
            .is_none_or(|c| !is_word_char(c));
        let after = &rest[i + pattern.len()..];
        let value_ok = after.chars().next().is_some_and(|c| c.is_alphanumeric());
        out.push_str(&rest[..i]);
        if before_ok && value_ok {
            out.push_str(flag);
            out.push(' ');
        } else {
            out.push_str(&pattern);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn descriptor(keys: &[&str]) -> ToolDescriptor {
        let props: serde_json::Map<String, Value> = keys
            .iter()
            .map(|k| (k.to_string(), json!({"type": "string"})))
            .collect();
        ToolDescriptor {
            name: "t".into(),
            description: String::new(),
            parameters: json!({"type": "object", "properties": props}),
        }
    }

    #[test]
    fn hints_name_flags() {
        let d = descriptor(&["offset", "limit", "replaceAll"]);
        assert_eq!(
            name_flags(&d, "4 lines remain; continue with offset=7."),
            "4 lines remain; continue with --offset 7."
        );
        assert_eq!(
            name_flags(&d, "Showing the first 5 of 12; raise limit to see more."),
            "Showing the first 5 of 12; raise --limit to see more."
        );
        assert_eq!(
            name_flags(
                &d,
                "add context, or set replaceAll to replace every occurrence."
            ),
            "add context, or pass --replace-all to replace every occurrence."
        );
        // Not a key of this tool, or not a whole word: left alone.
        assert_eq!(name_flags(&d, "raise timeoutMs"), "raise timeoutMs");
        assert_eq!(
            name_flags(&d, "xoffset=3 set limits"),
            "xoffset=3 set limits"
        );
    }

    #[test]
    fn search_text_splits_rows_from_the_summary() {
        let s = Layout::RowsThenSummary
            .split("a:1: x\nb:2: y\n\nFound 2 matches in 2 files (searched 2 files).");
        assert_eq!(s.rows, "a:1: x\nb:2: y");
        assert!(s.notes.is_empty());
        assert_eq!(
            s.summary.as_deref(),
            Some("Found 2 matches in 2 files (searched 2 files).")
        );
        let s = Layout::RowsThenSummary.split("No matches for /x/ in 3 files.");
        assert_eq!(s.rows, "");
        let s = Layout::RowsThenSummary.split(
            "a\nb\n[find: 2 rows left out to stay within the output ceiling]\n\nFound 4 matches among 9 entries.",
        );
        assert_eq!(s.rows, "a\nb");
        assert_eq!(
            s.notes,
            vec!["[find: 2 rows left out to stay within the output ceiling]"]
        );
    }

    #[test]
    fn headers_split_from_rows() {
        let s = Layout::HeaderThenRows.split("Showing lines 1–2 of 3 in f.\n     1\ta\n     2\tb");
        assert_eq!(s.rows, "     1\ta\n     2\tb");
        assert_eq!(s.summary.as_deref(), Some("Showing lines 1–2 of 3 in f."));
        let s = Layout::HeaderThenRows.split("f is empty (0 bytes).");
        assert_eq!(s.rows, "");
    }

    #[test]
    fn only_news_reaches_stderr_without_stats() {
        assert!(!says_more_than_counts(
            "Found 2 matches in 2 files (searched 2 files)."
        ));
        assert!(!says_more_than_counts(
            "No matches for \"x\" among 3 entries."
        ));
        assert!(!says_more_than_counts("Showing lines 1–3 of 3 in f."));
        assert!(!says_more_than_counts(".: 7 entries"));
        assert!(says_more_than_counts(
            "Showing the first 5 of 9 matches among 20 entries; raise limit to see more."
        ));
        assert!(says_more_than_counts(
            "Found 2 matches in 2 files (searched 3 files). Skipped 1 binary file."
        ));
        assert!(says_more_than_counts(
            "Showing lines 1–2 of 30 in f. 28 lines remain; continue with offset=3."
        ));
        assert!(says_more_than_counts("f is empty (0 bytes)."));
        assert!(!says_more_than_counts(
            "3 definitions in 2 files; parsed 2 files."
        ));
        assert!(says_more_than_counts(
            "3 definitions in 2 files; parsed 2 files. Skipped 1 file with no grammar."
        ));
        assert!(says_more_than_counts(
            "1 definition in 1 file; parsed 1 file, 1 with syntax errors (outlined as far as they parse)."
        ));
        // The map says what it left out.
        assert!(says_more_than_counts(
            "Repository map: 94 of 84420 definitions from 54 of 5053 files, chosen most referred-to first and shown by file, in 8191 of 8192 bytes; left out 84326 definitions, 4999 files not shown at all; raise --budget to see more; parsed 5664 files."
        ));
    }
}
