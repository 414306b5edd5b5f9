//! The flags people already type, spelled as the peer tool spells them: ripgrep's
//! for `grep`, fd's for `find`, plus the command-line-only switches (`-q`, `-0`,
//! `--stats`, `bash --exit-status`).
//!
//! Each entry maps one peer flag onto a tool input key (a switch that sets a value,
//! a value typed by the key's schema, or a repeatable flag collected into an
//! array), so the tools keep one input shape for every face and the command line
//! holds no search logic. A peer flag claims its long and short spellings; the
//! generated flag of an input key with the same long name gives way to it.

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Arg, ArgAction};

/// The clap ids of the command-line-only switches (read by `shell::ShellOpts`).
pub const QUIET: &str = "quiet@shell";
pub const PRINT0: &str = "print0@shell";
pub const STATS: &str = "stats@shell";
pub const EXIT_STATUS: &str = "exit-status@shell";

/// What a peer flag does to the tool's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// A switch setting `key` to a JSON value (written as JSON text).
    Set(&'static str, &'static str),
    /// One value for `key`, typed by the key's schema.
    Value(&'static str),
    /// Repeatable; every value is collected into the array `key`.
    Append(&'static str),
    /// A switch the command line keeps to itself (its clap id), or one that
    /// changes nothing because the tool already behaves so (`rg -n`).
    Cli(&'static str),
}

pub struct PeerFlag {
    pub tool: &'static str,
    pub long: &'static str,
    pub short: Option<char>,
    pub effect: Effect,
    pub value_name: &'static str,
    /// The values offered by completion (and accepted); hidden ones are accepted
    /// but not offered.
    pub values: &'static [&'static str],
    pub hidden_values: &'static [&'static str],
    pub help: &'static str,
}

/// A switch (no value).
const fn flag(
    tool: &'static str,
    short: Option<char>,
    long: &'static str,
    effect: Effect,
    help: &'static str,
) -> PeerFlag {
    valued(tool, short, long, effect, "", help)
}

/// A flag taking a value named `value_name`.
const fn valued(
    tool: &'static str,
    short: Option<char>,
    long: &'static str,
    effect: Effect,
    value_name: &'static str,
    help: &'static str,
) -> PeerFlag {
    PeerFlag {
        tool,
        long,
        short,
        effect,
        value_name,
        values: &[],
        hidden_values: &[],
        help,
    }
}

/// The no-op clap id of `rg -n` (line numbers are always shown).
pub const LINE_NUMBER: &str = "line-number@shell";

pub const PEER_FLAGS: &[PeerFlag] = &[
    // apply_patch, as patch and git apply.
    flag(
        "apply_patch",
        Some('R'),
        "reverse",
        Effect::Set("reverse", "true"),
        "Apply a unified diff in reverse (patch -R, git apply -R)",
    ),
    // grep, as rg.
    flag(
        "grep",
        Some('S'),
        "smart-case",
        Effect::Set("smartCase", "true"),
        "Ignore case when the pattern has no uppercase letter (rg -S)",
    ),
    flag(
        "grep",
        Some('F'),
        "fixed-strings",
        Effect::Set("literal", "true"),
        "Take the pattern as exact text, not a regular expression (rg -F; same as --literal)",
    ),
    flag(
        "grep",
        Some('w'),
        "word-regexp",
        Effect::Set("wordRegexp", "true"),
        "Only match whole words (rg -w)",
    ),
    flag(
        "grep",
        Some('v'),
        "invert-match",
        Effect::Set("invertMatch", "true"),
        "Show the lines that do not match (rg -v)",
    ),
    flag(
        "grep",
        Some('l'),
        "files-with-matches",
        Effect::Set("outputMode", "\"files\""),
        "Print only the paths of files with a match, one per line (rg -l)",
    ),
    flag(
        "grep",
        Some('c'),
        "count",
        Effect::Set("outputMode", "\"count\""),
        "Print PATH:N, the number of matching lines of each file with a match (rg -c)",
    ),
    valued(
        "grep",
        Some('A'),
        "after-context",
        Effect::Value("afterContext"),
        "N",
        "Show N lines after each match (rg -A)",
    ),
    valued(
        "grep",
        Some('B'),
        "before-context",
        Effect::Value("beforeContext"),
        "N",
        "Show N lines before each match (rg -B)",
    ),
    valued(
        "grep",
        Some('g'),
        "glob",
        Effect::Append("globs"),
        "GLOB",
        "Only search files matching GLOB; a leading ! excludes (files and folders); repeatable (rg -g)",
    ),
    valued(
        "grep",
        Some('t'),
        "type",
        Effect::Append("type"),
        "TYPE",
        "Only search files of this rg type (rust, py, js, md, ...); repeatable (rg -t)",
    ),
    valued(
        "grep",
        Some('T'),
        "type-not",
        Effect::Append("typeNot"),
        "TYPE",
        "Do not search files of this rg type; repeatable (rg -T)",
    ),
    valued(
        "grep",
        Some('m'),
        "max-count",
        Effect::Value("maxCount"),
        "N",
        "At most N matching lines per file (rg -m)",
    ),
    flag(
        "grep",
        Some('n'),
        "line-number",
        Effect::Cli(LINE_NUMBER),
        "Show line numbers (always on; accepted as rg's -n)",
    ),
    flag(
        "grep",
        None,
        "hidden",
        Effect::Set("skipHidden", "false"),
        "Search hidden files and folders (the default here; rg needs --hidden)",
    ),
    flag(
        "grep",
        None,
        "no-ignore",
        Effect::Set("gitignore", "false"),
        "Search what ignore files exclude (the default here; rg needs --no-ignore)",
    ),
    flag(
        "grep",
        Some('q'),
        "quiet",
        Effect::Cli(QUIET),
        "Print nothing; exit 0 if a line matched, 1 if none, 2 on error (rg -q)",
    ),
    flag(
        "grep",
        Some('0'),
        "null",
        Effect::Cli(PRINT0),
        "With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)",
    ),
    flag(
        "grep",
        None,
        "stats",
        Effect::Cli(STATS),
        "Print the summary line on stderr even when stdout is not a terminal",
    ),
    // find, as fd.
    PeerFlag {
        tool: "find",
        long: "type",
        short: Some('t'),
        effect: Effect::Value("type"),
        value_name: "TYPE",
        values: &["f", "d", "l", "x"],
        hidden_values: &["file", "dir", "symlink", "executable"],
        help: "Only list this kind: f file, d directory, l symlink, x executable (fd -t)",
    },
    valued(
        "find",
        Some('e'),
        "extension",
        Effect::Append("extension"),
        "EXT",
        "Only list entries with this file extension; repeatable (fd -e)",
    ),
    valued(
        "find",
        Some('E'),
        "exclude",
        Effect::Append("exclude"),
        "GLOB",
        "Leave out entries matching GLOB and do not enter such folders; repeatable (fd -E)",
    ),
    valued(
        "find",
        Some('d'),
        "max-depth",
        Effect::Value("maxDepth"),
        "N",
        "Descend at most N levels; 1 lists the root's own entries (fd -d)",
    ),
    flag(
        "find",
        Some('H'),
        "hidden",
        Effect::Set("skipHidden", "false"),
        "List hidden entries (the default here; fd needs -H)",
    ),
    flag(
        "find",
        Some('I'),
        "no-ignore",
        Effect::Set("gitignore", "false"),
        "List what ignore files exclude (the default here; fd needs -I)",
    ),
    flag(
        "find",
        Some('q'),
        "quiet",
        Effect::Cli(QUIET),
        "Print nothing; exit 0 if something matched, 1 if nothing, 2 on error",
    ),
    flag(
        "find",
        Some('0'),
        "print0",
        Effect::Cli(PRINT0),
        "End each path with NUL instead of a newline, for xargs -0 (fd -0)",
    ),
    flag(
        "find",
        None,
        "stats",
        Effect::Cli(STATS),
        "Print the summary line on stderr even when stdout is not a terminal",
    ),
    // bash.
    flag(
        "bash",
        None,
        "exit-status",
        Effect::Cli(EXIT_STATUS),
        "Exit with the command's own status (128+N for signal N, 124 on timeout)",
    ),
];

/// The peer flags of `tool`.
pub fn peer_flags(tool: &str) -> impl Iterator<Item = &'static PeerFlag> {
    let tool = tool.to_string();
    PEER_FLAGS.iter().filter(move |f| f.tool == tool)
}

/// The clap id of a peer flag.
pub fn peer_id(f: &PeerFlag) -> String {
    match f.effect {
        Effect::Cli(id) => id.to_string(),
        _ => format!("{}@peer", f.long),
    }
}

/// Whether a peer flag takes a value (the next word).
pub fn takes_value(f: &PeerFlag) -> bool {
    matches!(f.effect, Effect::Value(_) | Effect::Append(_))
}

/// The clap argument of a peer flag.
pub fn peer_arg(f: &PeerFlag) -> Arg {
    let mut arg = Arg::new(peer_id(f)).long(f.long).help(f.help);
    if let Some(c) = f.short {
        arg = arg.short(c);
    }
    match f.effect {
        Effect::Set(..) | Effect::Cli(_) => arg.action(ArgAction::SetTrue),
        Effect::Value(_) | Effect::Append(_) => {
            arg = arg
                .value_name(f.value_name)
                .allow_hyphen_values(false)
                .action(if matches!(f.effect, Effect::Append(_)) {
                    ArgAction::Append
                } else {
                    ArgAction::Set
                });
            if !f.values.is_empty() {
                let values = f.values.iter().map(|v| PossibleValue::new(*v)).chain(
                    f.hidden_values
                        .iter()
                        .map(|v| PossibleValue::new(*v).hide(true)),
                );
                arg = arg.value_parser(PossibleValuesParser::new(values));
            }
            arg
        }
    }
}

/// The single-valued key a repeatable flag fills when given once (`-g` → `glob`).
pub fn singular_of(key: &str) -> Option<&'static str> {
    match key {
        "globs" => Some("glob"),
        _ => None,
    }
}
