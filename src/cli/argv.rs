//! The one reading of argv before clap.
//!
//! Some answers are needed before clap can parse: whether the call runs on
//! another machine (`--exec`, so that nothing else is loaded), which MCP tools
//! to graft (their names are subcommands), whether errors are JSON (a usage
//! error clap reports must be JSON too), where the subcommand is (to parse with
//! its tree alone) and whether the root help is asked for. Each was once its
//! own walk over argv, with its own idea of which words are option values;
//! here one walk classifies every word once, with one table of what it looks
//! for ([`LATE`] and the global options' table), and the others read the
//! result.

use std::ffi::OsString;

use super::global_options;

/// The options read wherever they stand before `--`, after the subcommand too:
/// where a call runs (`--exec` and its companions), grafting (`--no-mcp`,
/// `--mcp-config`) and `--format`, whose answer must be known for clap's own
/// errors. Every other global option is read before the subcommand only.
const LATE: &[&str] = &[
    "--exec",
    "--exec-cwd",
    "--engine",
    "--ssh-config",
    "--no-mcp",
    "--mcp-config",
    "--format",
];

/// One option found in argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seen {
    /// Its spelling without a value (`--exec`).
    pub name: String,
    /// Its value, inline (`--exec=ssh:h`) or the next word; `None` for a
    /// switch, or a value option at the end of argv.
    pub value: Option<String>,
    /// The index of its first word and how many words it spans (1 or 2).
    pub at: usize,
    pub words: usize,
}

/// What the walk found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Scan {
    /// The subcommand word's index: the first word that is not an option or a
    /// global option's value, before any `--`.
    pub sub_at: Option<usize>,
    /// The subcommand word itself.
    pub sub: Option<String>,
    /// The first word after the subcommand that is no option nor a [`LATE`]
    /// option's value (`mcp serve` → `serve`).
    pub next_word: Option<String>,
    /// `-h`, `--help` or a last `help` before any subcommand, or no
    /// subcommand at all: the root help.
    pub root_help: bool,
    /// The index of the first argument that is not UTF-8 (the walk stops
    /// there: what follows is not read).
    pub not_utf8: Option<usize>,
    /// The options found, in order: every global option before the
    /// subcommand, the [`LATE`] ones anywhere before `--` (so an option not in
    /// [`LATE`], `--cwd` say, is always one before the subcommand).
    pub options: Vec<Seen>,
}

impl Scan {
    /// The last value given to `name`, if it was given.
    pub fn last(&self, name: &str) -> Option<&Seen> {
        self.options.iter().rev().find(|s| s.name == name)
    }

    /// Whether `name` was given at all.
    pub fn has(&self, name: &str) -> bool {
        self.options.iter().any(|s| s.name == name)
    }

    /// Whether the answer is JSON: the last `--format` says `json`, or none
    /// was given and `INDUS_FORMAT=json`. `webfetch --format` takes text,
    /// markdown or html, never json, so the spelling cannot be the tool's own.
    pub fn json(&self) -> bool {
        match self.last("--format") {
            Some(seen) => seen.value.as_deref() == Some("json"),
            None => std::env::var("INDUS_FORMAT").is_ok_and(|f| f == "json"),
        }
    }
}

/// Walks argv (argv[0] included) once.
pub(crate) fn scan(args: &[OsString]) -> Scan {
    let mut out = Scan {
        not_utf8: args
            .iter()
            .skip(1)
            .position(|a| a.to_str().is_none())
            .map(|p| p + 1),
        ..Scan::default()
    };
    let mut i = 1;
    while i < args.len() {
        let Some(arg) = args[i].to_str() else {
            break;
        };
        if arg == "--" {
            break;
        }
        let before_sub = out.sub_at.is_none();
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg, None),
        };
        let wanted = LATE.contains(&name) || (before_sub && global_options::is_global(name));
        if wanted {
            let takes = global_options::takes_value(name);
            let next = (takes && inline.is_none())
                .then(|| args.get(i + 1).map(|v| v.to_string_lossy().into_owned()))
                .flatten();
            let words = if next.is_some() { 2 } else { 1 };
            out.options.push(Seen {
                name: name.to_string(),
                value: inline.or(next),
                at: i,
                words,
            });
            i += words;
            continue;
        }
        if before_sub {
            match arg {
                "-h" | "--help" => out.root_help = true,
                "help" if i + 1 == args.len() => out.root_help = true,
                _ => {}
            }
            if !arg.starts_with('-') {
                out.sub_at = Some(i);
                out.sub = Some(arg.to_string());
            }
        } else if out.next_word.is_none() && !arg.starts_with('-') {
            out.next_word = Some(arg.to_string());
        }
        i += 1;
    }
    if out.sub_at.is_none() {
        out.root_help = true;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<OsString> {
        std::iter::once("indus-tool")
            .chain(line.split_whitespace())
            .map(OsString::from)
            .collect()
    }

    #[test]
    fn the_subcommand_is_the_first_word_no_option_takes() {
        let s = scan(&words("--cwd grep --format json grep foo --exec=ssh:h"));
        assert_eq!(s.sub_at, Some(5));
        assert_eq!(s.sub.as_deref(), Some("grep"));
        assert_eq!(s.next_word.as_deref(), Some("foo"));
        assert!(s.json());
        let exec = s.last("--exec").unwrap();
        assert_eq!(exec.value.as_deref(), Some("ssh:h"));
        assert!(exec.at > s.sub_at.unwrap(), "after the subcommand");
        assert!(!s.root_help);
    }

    #[test]
    fn after_dashes_nothing_is_read() {
        let s = scan(&words("grep -- --format json"));
        assert!(s.options.is_empty());
        assert_eq!(s.sub.as_deref(), Some("grep"));
    }

    #[test]
    fn root_help_before_any_subcommand_only() {
        assert!(scan(&words("--help")).root_help);
        assert!(scan(&words("--format json")).root_help);
        assert!(scan(&words("help")).root_help);
        assert!(!scan(&words("help grep")).root_help);
        assert!(!scan(&words("grep --help")).root_help);
        assert!(scan(&words("-h grep")).root_help);
    }

    #[test]
    fn a_global_option_after_the_subcommand_is_the_tools_unless_late() {
        let s = scan(&words("bash --cwd /x --mcp-config c.json"));
        assert!(s.last("--cwd").is_none());
        assert_eq!(
            s.last("--mcp-config").and_then(|o| o.value.as_deref()),
            Some("c.json")
        );
    }
}
