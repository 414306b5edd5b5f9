//! Every tool's command-line face, one row a tool: what grep, find, read or a
//! card accepts beyond its generated `--kebab-case` flags and how its answer is
//! shown to a shell. Its positionals and the key standard input fills, its short
//! and peer flags (rg's for grep, fd's for find), the exit rule, the text layout,
//! the group it is listed under in `--help`, and its man page's EXIT STATUS and
//! EXAMPLES. The clap tree (`command`), the input assembly (`input`), the exit
//! status and printing (`shell`), the help, the man pages and the completions
//! (`docs`) are all derived from these rows; none of those names a tool.
//!
//! As ripgrep keeps every flag once in its `defs.rs` and fd its whole command line
//! in `cli.rs`: to change what `grep -l` does on the command line, change the
//! `GREP` row's peer flag here. A tool without a row (a grafted MCP tool, a new
//! tool) gets [`PLAIN`]: its flags, `--json`, exit 0 or 1, its text as written.

use super::peers::{
    EXIT_STATUS, Effect, LINE_NUMBER, PRINT0, PeerFlag, QUIET, STATS, flag, valued,
};
use crate::kernel::normalize_tool_name;

/// How a tool's outcome maps to an exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusRule {
    /// 0 success, 1 the tool reported an error.
    Plain,
    /// As rg and grep: 0 something found, 1 nothing found, 2 an error.
    Search,
    /// As fd: 0 whether or not something was found, 2 an error; with `-q`, 0
    /// something found, 1 nothing.
    Find,
    /// A command runner: 0 or 1, or with `--exit-status` the command's own status.
    Command,
    /// A gate, as a compiler: 0 nothing to report, 1 something (the record's
    /// `count` is not 0), 2 trouble (the tool could not tell).
    Gate,
}

/// How a tool's text is laid out, which says what goes to stdout when it is a
/// pipe: only the rows, with the tool's own sentence on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Not split: the answer as the tool wrote it (it may quote a file's content,
    /// which no hint rewriting may touch).
    AsWritten,
    /// A command's record: its stdout and stderr as they were, on the toolbox's
    /// stdout and stderr, the status line on stderr.
    Streams,
    /// Rows, a blank line, the summary (rows never hold a blank line: every row
    /// carries its path). No blank line: no rows, only the summary.
    RowsThenSummary,
    /// A header line, then the rows. A lone line is the header (an empty file,
    /// an empty folder).
    HeaderThenRows,
}

/// `-0` (NUL-separated paths) asks for a mode of the tool's input: grep's paths
/// come only with `-l`.
#[derive(Debug, Clone, Copy)]
pub struct Print0Needs {
    pub key: &'static str,
    pub value: &'static str,
    /// The usage error when the mode is not asked for.
    pub message: &'static str,
}

/// One tool's command-line face.
#[derive(Debug, Clone, Copy)]
pub struct ToolRow {
    /// The registered name.
    pub tool: &'static str,
    /// Input keys given as words, in order.
    pub positionals: &'static [&'static str],
    /// The array key that takes the last positional when it is given more than
    /// once (`grep PATTERN a b` → `paths`); once, it fills its own key.
    pub many: Option<&'static str>,
    /// A positional that names a file holding the key's value (`-`: standard
    /// input), as `patch` and `git apply` take their patch.
    pub file_positional: Option<&'static str>,
    /// The key standard input fills when absent and stdin is not a terminal.
    pub stdin_key: Option<&'static str>,
    /// Whether an absent `stdin_key` at a terminal is refused (a `write FILE`
    /// with nothing to write would empty the file: a slip, never what was meant).
    pub stdin_required: bool,
    /// Short flags of input keys beside the usual ones (`-i`, `-C`, `-n`), and
    /// usual ones taken away (`None`: grep's `-n` is rg's line numbers).
    pub shorts: &'static [(&'static str, Option<char>)],
    /// The flags people already type, as the peer tool spells them.
    pub peers: &'static [PeerFlag],
    /// What `-0` needs of the input.
    pub print0_needs: Option<Print0Needs>,
    /// The array of the record whose rows' `path`s `-0` prints.
    pub print0_rows: &'static str,
    /// A key that, left out or typed as `.`, means this value (fd lists
    /// everything when no pattern is given, and `.` as a regex matches any name).
    pub everything: Option<(&'static str, &'static str)>,
    /// `(action, from, to)`: with `action` as the first word, the second word is
    /// `to`, not `from` (`process start CMD`, against `process poll job-2`).
    pub second_word: Option<(&'static str, &'static str, &'static str)>,
    pub status: StatusRule,
    pub layout: Layout,
    /// Whether every row goes to a pipe (and to `-0`), as the peer prints them:
    /// no default row limit or byte budget there (see `ToolContext::unbounded_rows`).
    pub all_rows: bool,
    /// Whether the tool runs other programs, which must be cleaned up when the
    /// toolbox is interrupted (the signal becomes the call's cancel).
    pub runs_commands: bool,
    /// The family it is listed under in `indus-tool --help`.
    pub group: &'static str,
    /// The man page's EXIT STATUS (`None`: the plain one).
    pub man_status: Option<&'static [(&'static str, &'static str)]>,
    /// The man page's EXAMPLES: what it does, the command line (run by
    /// tests/it/shell.rs from a project folder).
    pub examples: &'static [(&'static str, &'static str)],
}

/// The row of a tool with no face of its own.
pub const PLAIN: ToolRow = ToolRow {
    tool: "",
    positionals: &[],
    many: None,
    file_positional: None,
    stdin_key: None,
    stdin_required: false,
    shorts: &[],
    peers: &[],
    print0_needs: None,
    print0_rows: "rows",
    everything: None,
    second_word: None,
    status: StatusRule::Plain,
    layout: Layout::AsWritten,
    all_rows: false,
    runs_commands: false,
    group: "More",
    man_status: None,
    examples: &[],
};

/// The plain EXIT STATUS of a tool's man page.
pub const PLAIN_STATUS: &[(&str, &str)] = &[
    ("0", "Success."),
    (
        "1",
        "The tool reported an error (is_error in --format json).",
    ),
    ("2", "A usage error."),
];

const SEARCH_STATUS: &[(&str, &str)] = &[
    ("0", "Something was found."),
    ("1", "Nothing was found."),
    (
        "2",
        "An error: a bad pattern or input, an unreadable root, a usage error.",
    ),
];

/// grep's, with its pages: a page past the last match selects nothing.
const GREP_STATUS: &[(&str, &str)] = &[
    ("0", "Something was found."),
    (
        "1",
        "Nothing was found, or --offset is past the last match (as rg -m 0).",
    ),
    (
        "2",
        "An error: a bad pattern or input, an unreadable root, a usage error.",
    ),
];

const FIND_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "Success, whether or not something was found (as fd); with -q, something was found.",
    ),
    ("1", "With -q: nothing was found."),
    (
        "2",
        "An error: a bad pattern or input, an unreadable root, a usage error.",
    ),
];

const GATE_STATUS: &[(&str, &str)] = &[
    ("0", "No errors (with --new or --baseline: no new errors)."),
    (
        "1",
        "Errors were found (with --new or --baseline: new errors).",
    ),
    (
        "2",
        "Trouble: no language server for a file, a server that did not settle within --timeout-ms, a bad input, a usage error.",
    ),
];

/// The help groups, in the order `--help` lists them.
pub const GROUPS: &[&str] = &[
    "Files", "Search", "Code", "Shell", "Planning", "Web", "Deck", "Operator", "MCP", "More",
];

const DIAGNOSE: ToolRow = ToolRow {
    many: Some("paths"),
    status: StatusRule::Gate,
    layout: Layout::RowsThenSummary,
    man_status: Some(GATE_STATUS),
    examples: &[
        (
            "The errors and warnings of a file, as a compiler prints them",
            "indus-tool diagnose src/app.c",
        ),
        (
            "A CI gate: fail only on errors that are new since a baseline",
            "indus-tool diagnose --save-baseline base.json src/app.c && indus-tool diagnose --baseline base.json src/app.c",
        ),
    ],
    ..words("diagnose", "Code", &["paths"])
};

const LSP: ToolRow = ToolRow {
    // `lsp definition a.py:3:5`; `lsp workspace-symbols NAME --path a.py`.
    second_word: Some(("workspace-symbols", "at", "query")),
    examples: &[
        (
            "Where the name at line 2, column 25 is defined",
            "indus-tool lsp definition src/app.c:2:25",
        ),
        (
            "Rename a symbol in every file, diff only",
            "indus-tool lsp rename src/app.c:1:5 --new-name total --check",
        ),
    ],
    ..words("lsp", "Code", &["action", "at"])
};

const OUTLINE: ToolRow = ToolRow {
    many: Some("paths"),
    shorts: &[("lang", Some('l'))],
    peers: &[
        valued(
            Some('g'),
            "glob",
            Effect::Append("globs"),
            "GLOB",
            "Only files matching GLOB; a leading ! excludes; repeatable (rg -g)",
        ),
        valued(
            Some('t'),
            "type",
            Effect::Append("type"),
            "TYPE",
            "Only files of this rg type (rust, py, ...); repeatable (rg -t)",
        ),
        flag(
            None,
            "stats",
            Effect::Cli(STATS),
            "Print the summary line on stderr even when stdout is not a terminal",
        ),
    ],
    layout: Layout::RowsThenSummary,
    all_rows: true,
    examples: &[
        (
            "The definitions of every file in a folder, nested ones indented",
            "indus-tool outline src",
        ),
        (
            "The repository map: the most referred-to definitions in 4 KB",
            "indus-tool outline --map --budget 4096 .",
        ),
    ],
    ..words("outline", "Code", &["path"])
};

const SGREP: ToolRow = ToolRow {
    many: Some("paths"),
    shorts: &[("lang", Some('l')), ("rewrite", Some('r'))],
    peers: &[
        valued(
            Some('g'),
            "glob",
            Effect::Append("globs"),
            "GLOB",
            "Only search files matching GLOB; a leading ! excludes; repeatable (rg -g)",
        ),
        valued(
            Some('t'),
            "type",
            Effect::Append("type"),
            "TYPE",
            "Only search files of this rg type; repeatable (rg -t)",
        ),
        valued(
            Some('T'),
            "type-not",
            Effect::Append("typeNot"),
            "TYPE",
            "Do not search files of this rg type; repeatable (rg -T)",
        ),
        flag(
            Some('l'),
            "files-with-matches",
            Effect::Set("outputMode", "\"files\""),
            "Print only the paths of files with a match (rg -l)",
        ),
        flag(
            Some('c'),
            "count",
            Effect::Set("outputMode", "\"count\""),
            "Print PATH:N, the matches of each file with one (rg -c)",
        ),
        flag(
            Some('0'),
            "null",
            Effect::Cli(PRINT0),
            "With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)",
        ),
        flag(
            None,
            "stats",
            Effect::Cli(STATS),
            "Print the summary line on stderr even when stdout is not a terminal",
        ),
    ],
    print0_needs: Some(Print0Needs {
        key: "outputMode",
        value: "files",
        message: "sgrep -0 ends each path with NUL, so it goes with -l (--files-with-matches)",
    }),
    status: StatusRule::Search,
    layout: Layout::RowsThenSummary,
    all_rows: true,
    man_status: Some(SEARCH_STATUS),
    examples: &[
        (
            "Every call of a function, whatever its arguments",
            "indus-tool sgrep 'log_error($$$ARGS)' --lang rust src",
        ),
        (
            "Rewrite a call everywhere, diff only",
            "indus-tool sgrep 'old_api($A, $B)' --rewrite 'new_api($B, $A)' --lang python --check .",
        ),
    ],
    ..words("sgrep", "Search", &["pattern", "path"])
};

/// A row that only takes its input keys as words.
const fn words(
    tool: &'static str,
    group: &'static str,
    positionals: &'static [&'static str],
) -> ToolRow {
    ToolRow {
        tool,
        positionals,
        group,
        ..PLAIN
    }
}

const READ: ToolRow = ToolRow {
    layout: Layout::HeaderThenRows,
    examples: &[(
        "Lines 2 to 4",
        "indus-tool read src/lib.rs --offset 2 --limit 3",
    )],
    ..words("read", "Files", &["path"])
};

const WRITE: ToolRow = ToolRow {
    stdin_key: Some("content"),
    stdin_required: true,
    examples: &[
        (
            "Write a file from a pipe",
            "printf 'hello\\n' | indus-tool write greeting.txt",
        ),
        (
            "Make a file empty (on purpose)",
            "indus-tool write notes.txt --content ''",
        ),
    ],
    ..words("write", "Files", &["path"])
};

const LS: ToolRow = ToolRow {
    layout: Layout::HeaderThenRows,
    ..words("ls", "Files", &["path"])
};

const APPLY_PATCH: ToolRow = ToolRow {
    file_positional: Some("patch"),
    stdin_key: Some("patch"),
    peers: &[flag(
        Some('R'),
        "reverse",
        Effect::Set("reverse", "true"),
        "Apply a unified diff in reverse (patch -R, git apply -R)",
    )],
    ..words("apply_patch", "More", &["patch"])
};

const GREP: ToolRow = ToolRow {
    many: Some("paths"),
    // rg's -n is line numbers; the row limit stays --limit.
    shorts: &[("pattern", Some('e')), ("limit", None)],
    peers: &[
        flag(
            Some('S'),
            "smart-case",
            Effect::Set("smartCase", "true"),
            "Ignore case when the pattern has no uppercase letter (rg -S)",
        ),
        flag(
            Some('F'),
            "fixed-strings",
            Effect::Set("literal", "true"),
            "Take the pattern as exact text, not a regular expression (rg -F; same as --literal)",
        ),
        flag(
            Some('w'),
            "word-regexp",
            Effect::Set("wordRegexp", "true"),
            "Only match whole words (rg -w)",
        ),
        flag(
            Some('v'),
            "invert-match",
            Effect::Set("invertMatch", "true"),
            "Show the lines that do not match (rg -v)",
        ),
        flag(
            Some('l'),
            "files-with-matches",
            Effect::Set("outputMode", "\"files\""),
            "Print only the paths of files with a match, one per line (rg -l)",
        ),
        flag(
            Some('U'),
            "multiline",
            Effect::Set("multiline", "true"),
            "Let a match span lines; each line of it is a row (rg -U)",
        ),
        flag(
            Some('c'),
            "count",
            Effect::Set("outputMode", "\"count\""),
            "Print PATH:N, the number of matching lines of each file with a match (rg -c)",
        ),
        valued(
            Some('A'),
            "after-context",
            Effect::Value("afterContext"),
            "N",
            "Show N lines after each match (rg -A)",
        ),
        valued(
            Some('B'),
            "before-context",
            Effect::Value("beforeContext"),
            "N",
            "Show N lines before each match (rg -B)",
        ),
        valued(
            Some('g'),
            "glob",
            Effect::Append("globs"),
            "GLOB",
            "Only search files matching GLOB; a leading ! excludes (files and folders); repeatable (rg -g)",
        ),
        valued(
            Some('t'),
            "type",
            Effect::Append("type"),
            "TYPE",
            "Only search files of this rg type (rust, py, js, md, ...); repeatable (rg -t)",
        ),
        valued(
            Some('T'),
            "type-not",
            Effect::Append("typeNot"),
            "TYPE",
            "Do not search files of this rg type; repeatable (rg -T)",
        ),
        valued(
            Some('m'),
            "max-count",
            Effect::Value("maxCount"),
            "N",
            "At most N matching lines per file (rg -m)",
        ),
        flag(
            Some('n'),
            "line-number",
            Effect::Cli(LINE_NUMBER),
            "Show line numbers (always on; accepted as rg's -n)",
        ),
        flag(
            None,
            "hidden",
            Effect::Set("skipHidden", "false"),
            "Search hidden files and folders (the default here; rg needs --hidden)",
        ),
        flag(
            None,
            "no-ignore",
            Effect::Set("gitignore", "false"),
            "Search what ignore files exclude (the default here; rg needs --no-ignore)",
        ),
        flag(
            Some('q'),
            "quiet",
            Effect::Cli(QUIET),
            "Print nothing; exit 0 if a line matched, 1 if none, 2 on error (rg -q)",
        ),
        flag(
            Some('0'),
            "null",
            Effect::Cli(PRINT0),
            "With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)",
        ),
        flag(
            None,
            "stats",
            Effect::Cli(STATS),
            "Print the summary line on stderr even when stdout is not a terminal",
        ),
    ],
    print0_needs: Some(Print0Needs {
        key: "outputMode",
        value: "files",
        message: "grep -0 ends each path with NUL, so it goes with -l (--files-with-matches)",
    }),
    status: StatusRule::Search,
    layout: Layout::RowsThenSummary,
    all_rows: true,
    man_status: Some(GREP_STATUS),
    examples: &[
        (
            "Files mentioning a word, as rg -l",
            "indus-tool grep -l -w TODO src",
        ),
        (
            "Matches with two lines after, only in Rust files",
            "indus-tool grep -A 2 -t rust 'unsafe' .",
        ),
        (
            "Everything but generated files, counted per file",
            "indus-tool grep -c -g '!*.lock' version",
        ),
        (
            "Rewrite the files that mention a name",
            "indus-tool grep -l -F legacy_name src | xargs sed -i 's/legacy_name/new_name/g'",
        ),
    ],
    ..words("grep", "Search", &["pattern", "path"])
};

const FIND: ToolRow = ToolRow {
    many: Some("paths"),
    shorts: &[("limit", None)],
    peers: &[
        PeerFlag {
            values: &["f", "d", "l", "x"],
            hidden_values: &["file", "dir", "symlink", "executable"],
            ..valued(
                Some('t'),
                "type",
                Effect::Value("type"),
                "TYPE",
                "Only list this kind: f file, d directory, l symlink, x executable (fd -t)",
            )
        },
        valued(
            Some('e'),
            "extension",
            Effect::Append("extension"),
            "EXT",
            "Only list entries with this file extension; repeatable (fd -e)",
        ),
        valued(
            Some('E'),
            "exclude",
            Effect::Append("exclude"),
            "GLOB",
            "Leave out entries matching GLOB and do not enter such folders; repeatable (fd -E)",
        ),
        valued(
            Some('d'),
            "max-depth",
            Effect::Value("maxDepth"),
            "N",
            "Descend at most N levels; 1 lists the root's own entries (fd -d)",
        ),
        flag(
            Some('H'),
            "hidden",
            Effect::Set("skipHidden", "false"),
            "List hidden entries (the default here; fd needs -H)",
        ),
        flag(
            Some('I'),
            "no-ignore",
            Effect::Set("gitignore", "false"),
            "List what ignore files exclude (the default here; fd needs -I)",
        ),
        flag(
            Some('q'),
            "quiet",
            Effect::Cli(QUIET),
            "Print nothing; exit 0 if something matched, 1 if nothing, 2 on error (fd -q)",
        ),
        flag(
            Some('0'),
            "print0",
            Effect::Cli(PRINT0),
            "End each path with NUL instead of a newline, for xargs -0 (fd -0)",
        ),
        flag(
            None,
            "stats",
            Effect::Cli(STATS),
            "Print the summary line on stderr even when stdout is not a terminal",
        ),
    ],
    print0_rows: "entries",
    everything: Some(("pattern", "**/*")),
    status: StatusRule::Find,
    layout: Layout::RowsThenSummary,
    all_rows: true,
    man_status: Some(FIND_STATUS),
    examples: &[
        (
            "Rust files two levels deep at most, as fd",
            "indus-tool find -e rs -d 2",
        ),
        (
            "Folders named test, leaving out target",
            "indus-tool find -t d test -E target",
        ),
        (
            "Every Markdown file, NUL-separated for xargs -0",
            "indus-tool find '*.md' -0 | xargs -0 wc -l",
        ),
    ],
    ..words("find", "Search", &["pattern", "path"])
};

const BASH: ToolRow = ToolRow {
    peers: &[flag(
        None,
        "exit-status",
        Effect::Cli(EXIT_STATUS),
        "Exit with the command's own status (128+N for signal N, 124 on timeout)",
    )],
    status: StatusRule::Command,
    layout: Layout::Streams,
    runs_commands: true,
    man_status: Some(&[
        ("0", "The command exited 0."),
        (
            "1",
            "The command failed, timed out or could not run (with --exit-status: its own status, 128+N for signal N, 124 on timeout).",
        ),
        ("2", "A usage error."),
    ]),
    examples: &[(
        "Run a command; its status is the toolbox's",
        "indus-tool bash --exit-status 'make test'",
    )],
    ..words("bash", "Shell", &["command"])
};

/// Every tool with a face of its own.
pub const ROWS: &[ToolRow] = &[
    // The built-ins.
    READ,
    WRITE,
    words("edit", "Files", &["path"]),
    LS,
    APPLY_PATCH,
    GREP,
    FIND,
    DIAGNOSE,
    LSP,
    OUTLINE,
    SGREP,
    BASH,
    ToolRow {
        // `process poll job-2`; `process start CMD`.
        second_word: Some(("start", "id", "command")),
        ..words("process", "Shell", &["action", "id"])
    },
    ToolRow {
        stdin_key: Some("items"),
        ..words("todo_set", "Planning", &[])
    },
    words("todo_read", "Planning", &[]),
    words("websearch", "Web", &["query"]),
    words("webfetch", "Web", &["url"]),
    // The app cards.
    words("todo", "Planning", &["action"]),
    words("memory", "Planning", &["action", "content"]),
    words("enter_plan_mode", "Planning", &[]),
    ToolRow {
        stdin_key: Some("plan"),
        ..words("exit_plan_mode", "Planning", &["plan"])
    },
    ToolRow {
        second_word: Some(("start", "id", "command")),
        ..words("bg-process", "Deck", &["action", "id"])
    },
    ToolRow {
        stdin_key: Some("context"),
        runs_commands: true,
        ..words("task", "Deck", &["objective"])
    },
    words("saas-action", "Deck", &["action", "slug"]),
    // The operator's tools (the buddy profile).
    words("time", "Operator", &[]),
    words("read_file", "Files", &["path"]),
    ToolRow {
        stdin_key: Some("content"),
        stdin_required: true,
        ..words("write_file", "Files", &["path"])
    },
    words("fetch_url", "Web", &["url"]),
    words("web_search", "Web", &["query"]),
    ToolRow {
        runs_commands: true,
        ..words("run_shell", "Shell", &["command"])
    },
    words("capture-pane", "Operator", &[]),
    words("send-keys", "Operator", &[]),
    words("tmux-create-session", "Operator", &["session"]),
    words("tmux-kill-session", "Operator", &["session"]),
    words("tmux-create-pane", "Operator", &["pane"]),
    words("tmux-kill-pane", "Operator", &["pane"]),
];

/// The row of `tool` (its registered name, or any spelling that normalizes to
/// it); [`PLAIN`] for a tool without one.
pub fn row_of(tool: &str) -> &'static ToolRow {
    ROWS.iter()
        .find(|r| r.tool == tool)
        .or_else(|| {
            let wanted = normalize_tool_name(tool);
            ROWS.iter().find(|r| normalize_tool_name(r.tool) == wanted)
        })
        .unwrap_or(&PLAIN)
}

/// The short flag of input `key` of `row`: the row's own, else the usual one.
pub fn short_of(row: &ToolRow, key: &str) -> Option<char> {
    if let Some((_, short)) = row.shorts.iter().find(|(k, _)| *k == key) {
        return *short;
    }
    match key {
        "ignoreCase" => Some('i'),
        "context" => Some('C'),
        "limit" | "count" => Some('n'),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_named_once_and_in_a_listed_group() {
        for (i, row) in ROWS.iter().enumerate() {
            assert!(
                ROWS[..i].iter().all(|r| r.tool != row.tool),
                "{} has two rows",
                row.tool
            );
            assert!(GROUPS.contains(&row.group), "{}: {}", row.tool, row.group);
            for peer in row.peers {
                assert!(
                    row.peers.iter().filter(|p| p.long == peer.long).count() == 1,
                    "{} --{} twice",
                    row.tool,
                    peer.long
                );
            }
            if let Some(key) = row.file_positional {
                assert!(row.positionals.contains(&key), "{}", row.tool);
            }
        }
    }

    #[test]
    fn a_row_is_found_by_any_spelling_and_an_unknown_tool_is_plain() {
        assert_eq!(row_of("runshell").tool, "run_shell");
        assert_eq!(row_of("grep").status, StatusRule::Search);
        assert_eq!(row_of("srv__tool").tool, "");
        assert_eq!(short_of(row_of("grep"), "limit"), None);
        assert_eq!(short_of(row_of("grep"), "pattern"), Some('e'));
        assert_eq!(short_of(row_of("read"), "limit"), Some('n'));
    }
}
