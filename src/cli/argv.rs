//! The one reading of argv before clap, and what is done to argv before clap
//! parses it.
//!
//! Some answers are needed before clap can parse: whether the call runs on
//! another machine (`--exec`, so that nothing else is loaded), which MCP tools
//! to graft (their names are subcommands), whether errors are JSON (a usage
//! error clap reports must be JSON too), where the subcommand is (to parse with
//! its tree alone) and whether the root help is asked for. Each was once its
//! own walk over argv, with its own idea of which words are option values;
//! here one walk classifies every word once, with one table of what it looks
//! for ([`LATE`] and the global options' table), and the others read the
//! result: the `--exec` request (read before anything else loads), the tool
//! name rewritten to its registered spelling, and global options written after
//! it moved in front.

use std::ffi::OsString;
use std::path::PathBuf;

use super::command::{self, META_COMMANDS};
use super::global_options;
use crate::kernel::{ToolDescriptor, ToolRegistry};

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

/// The `--exec` options of an invocation (flags, else `INDUS_EXEC`…): the remote
/// target and the arguments to run there (without those options), or `None` to
/// run here. Read from the argv scan, so a forwarded call loads nothing else;
/// clap still knows the options, for help, completions and `--exec local`.
pub(crate) fn remote_request(
    args: &[OsString],
    scan: &Scan,
) -> Result<Option<(crate::backends::remote::Remote, Vec<String>)>, String> {
    use crate::backends::remote::{Engine, Remote, Target};
    const EXEC: [&str; 4] = ["--exec", "--exec-cwd", "--engine", "--ssh-config"];
    let given = |name: &str, var: &str| -> Result<Option<String>, String> {
        match scan.last(name) {
            Some(seen) => seen
                .value
                .clone()
                .map(Some)
                .ok_or_else(|| format!("{name} needs a value")),
            None => Ok(std::env::var(var).ok().filter(|s| !s.is_empty())),
        }
    };
    let spec = given("--exec", "INDUS_EXEC")?;
    if spec.as_deref().is_none_or(|s| s.is_empty() || s == "local") {
        return Ok(None);
    }
    let target = Target::parse(spec.as_deref().unwrap_or(""))?;
    if target == Target::Local {
        return Ok(None);
    }
    let cwd = given("--exec-cwd", "INDUS_EXEC_CWD")?;
    let engine = given("--engine", "INDUS_ENGINE")?;
    let ssh_config = given("--ssh-config", "INDUS_SSH_CONFIG")?;
    if scan.has("--cwd") {
        return Err(format!(
            "--cwd names a local folder; with --exec {} give the remote one with --exec-cwd",
            target.describe()
        ));
    }
    // What runs there: argv without the options that say where.
    let taken = |i: usize| {
        scan.options
            .iter()
            .any(|o| EXEC.contains(&o.name.as_str()) && (o.at..o.at + o.words).contains(&i))
    };
    if let Some(i) = scan.not_utf8 {
        return Err(format!(
            "argument {i} ({}) is not valid UTF-8",
            args[i].to_string_lossy()
        ));
    }
    let rest: Vec<String> = (1..args.len())
        .filter(|&i| !taken(i))
        .map(|i| args[i].to_string_lossy().into_owned())
        .collect();
    let engine = match engine.as_deref() {
        None => None,
        Some("docker") => Some(Engine::Docker),
        Some("podman") => Some(Engine::Podman),
        Some(other) => return Err(format!("--engine {other}: expected docker or podman")),
    };
    let here =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    Ok(Some((
        Remote {
            target,
            cwd,
            engine,
            ssh_config: ssh_config.map(PathBuf::from),
            state: crate::state::StateDir::new(here),
        },
        rest,
    )))
}

/// Rewrite the tool name in argv to its registered spelling, so `todo-set`,
/// `TodoSet` and `todoset` all reach `todo_set`, and move global options written
/// after the tool name (`indus-tool grep foo --format json`) in front of it, unless
/// the tool has a flag of the same name (`bash --cwd`, `webfetch --format`); the
/// same for `call` and `batch`.
/// Also the named tool's descriptor, built once here for the hoisting and kept
/// for the parser (see `command::focused_command`).
pub(crate) fn normalize_argv(
    mut args: Vec<OsString>,
    scan: &Scan,
    registry: &ToolRegistry,
) -> (Vec<OsString>, Option<ToolDescriptor>) {
    let Some(i) = scan.sub_at else {
        return (args, None);
    };
    let word = args[i].to_str().unwrap_or_default();
    if !META_COMMANDS.contains(&word)
        && let Some(tool) = registry.resolve(word)
    {
        args[i] = OsString::from(tool.name());
        let descriptor = tool.descriptor();
        let own = command::tool_flags(&descriptor);
        return (hoist_globals(args, i, &own), Some(descriptor));
    }
    // `call` and `batch` take the global options after their name too
    // (`call --format text -`), as a tool does: neither has a flag a global
    // option's name could clash with.
    if matches!(word, "call" | "batch") {
        return (hoist_globals(args, i, &[]), None);
    }
    (args, None)
}

/// Move the global options found after the subcommand at `at` to just before
/// it, except the subcommand's `own` flags of the same name.
pub(crate) fn hoist_globals(
    args: Vec<OsString>,
    at: usize,
    own: &[command::ToolFlag],
) -> Vec<OsString> {
    let (mut head, tail) = (args[..at].to_vec(), &args[at..]);
    let mut kept: Vec<OsString> = vec![tail[0].clone()];
    let mut j = 1;
    while j < tail.len() {
        let Some(arg) = tail[j].to_str() else {
            kept.extend_from_slice(&tail[j..]);
            break;
        };
        if arg == "--" {
            kept.extend_from_slice(&tail[j..]);
            break;
        }
        let name = arg.split_once('=').map_or(arg, |(n, _)| n);
        match own.iter().find(|f| f.spelling == name) {
            // The tool's own flag: its value (a separate word, which may start
            // with `-`) stays with it.
            Some(flag) => {
                kept.push(tail[j].clone());
                if flag.takes_value && !arg.contains('=') && j + 1 < tail.len() {
                    j += 1;
                    kept.push(tail[j].clone());
                }
            }
            None if global_options::is_global(name) => {
                head.push(tail[j].clone());
                if global_options::takes_value(name) && !arg.contains('=') && j + 1 < tail.len() {
                    j += 1;
                    head.push(tail[j].clone());
                }
            }
            None => kept.push(tail[j].clone()),
        }
        j += 1;
    }
    head.extend(kept);
    head
}

/// argv without its help request and with `list` as the subcommand, to read the
/// selection the root help describes through the same parsing as any call.
pub(crate) fn without_help(args: &[OsString]) -> Vec<OsString> {
    let mut out: Vec<OsString> = args
        .iter()
        .filter(|a| !matches!(a.to_str(), Some("-h" | "--help" | "help")))
        .cloned()
        .collect();
    out.push(OsString::from("list"));
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
