//! Every global option of the command line, once: its spelling, how it takes a
//! value, its environment variable, help, parser and default. The root command
//! builds its arguments from these rows; the argv work done before clap (finding
//! the tool name, moving options written after it to the front, reading `--exec`
//! before anything else loads) reads from the same rows which spellings exist
//! and which take the next word, without building a clap argument (a one-shot
//! call pays for every one it builds). What each option does is read into
//! `Globals` by its id (`globals`).

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Arg, ArgAction, value_parser};

/// How a global option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// A switch: no value.
    Switch,
    /// The next word (or `=VALUE`).
    Value,
    /// A value given with `=` only; the next word is not it.
    Optional,
}

/// One global option: its id (which is also its long spelling), how it takes a
/// value, its environment variable and help, and what clap needs beyond those
/// (value name, parser, default, conflicts).
pub struct GlobalOption {
    pub id: &'static str,
    pub takes: Takes,
    pub env: Option<&'static str>,
    pub help: &'static str,
    pub build: fn(Arg) -> Arg,
}

/// The global options, in the order `--help` lists them.
pub const GLOBAL_OPTIONS: &[GlobalOption] = &[
    GlobalOption {
        id: "format",
        takes: Takes::Value,
        env: Some("INDUS_FORMAT"),
        help: "Output format: text blocks, or one JSON ToolOutcome line",
        build: |a| {
            a.value_name("FORMAT")
                .value_parser(PossibleValuesParser::new(["text", "json"]))
                .default_value("text")
        },
    },
    GlobalOption {
        id: "cwd",
        takes: Takes::Value,
        env: None,
        help: "Working directory the tools resolve paths against (default: the current directory)",
        build: |a| {
            a.value_name("DIR")
                .value_parser(value_parser!(std::path::PathBuf))
        },
    },
    GlobalOption {
        id: "root",
        takes: Takes::Value,
        env: Some("INDUS_ROOT"),
        help: "Confine every path a tool touches to DIR, after symlinks (commands bash runs are not sandboxed)",
        build: |a| {
            a.value_name("DIR")
                // Not PathBuf's parser: it refuses the empty value that means "unset".
                .value_parser(value_parser!(std::ffi::OsString))
        },
    },
    GlobalOption {
        id: "allow-protected",
        takes: Takes::Value,
        env: None,
        help: "Let write, edit and apply_patch write PATH though protected",
        build: |a| {
            a.value_name("PATH")
                .value_parser(value_parser!(std::path::PathBuf))
                .action(ArgAction::Append)
        },
    },
    GlobalOption {
        id: "allow-outside",
        takes: Takes::Value,
        env: None,
        help: "Let write, edit and apply_patch write in DIR outside the project",
        build: |a| {
            a.value_name("DIR")
                .value_parser(value_parser!(std::path::PathBuf))
                .action(ArgAction::Append)
        },
    },
    GlobalOption {
        id: "collection",
        takes: Takes::Value,
        env: Some("INDUS_COLLECTION"),
        help: "Expose a standard collection of the twelve built-ins (read-only, coding, all)",
        build: |a| {
            a.value_name("NAME")
                .value_parser(PossibleValuesParser::new(["read-only", "coding", "all"]))
        },
    },
    GlobalOption {
        id: "profile",
        takes: Takes::Value,
        env: Some("INDUS_PROFILE"),
        help: "Expose a deck profile (default all; it wins over --collection)",
        build: |a| {
            a.value_name("NAME")
                .value_parser(PossibleValuesParser::new(crate::deck::Profile::NAMES))
        },
    },
    GlobalOption {
        id: "tools",
        takes: Takes::Value,
        env: None,
        help: "Expose only these tools of the profile (case, _ and - ignored)",
        build: |a| {
            a.value_name("A,B")
                .value_delimiter(',')
                .action(ArgAction::Append)
        },
    },
    GlobalOption {
        id: "no-tools",
        takes: Takes::Switch,
        env: None,
        help: "Expose no tools at all",
        build: |a| a.action(ArgAction::SetTrue).conflicts_with("tools"),
    },
    GlobalOption {
        id: "max-bytes",
        takes: Takes::Value,
        env: None,
        help: "Output budget in bytes (default 65536); longer output is clamped with a notice",
        build: |a| {
            a.value_name("N")
                .value_parser(value_parser!(u64).range(1..=(1u64 << 40)))
        },
    },
    GlobalOption {
        id: "session",
        takes: Takes::Value,
        env: Some("INDUS_SESSION"),
        help: "Session name keying the checklist and the gate's read-state",
        build: |a| a.value_name("NAME").default_value("default"),
    },
    GlobalOption {
        id: "gate",
        takes: Takes::Switch,
        env: None,
        help: "write/edit refuse a file not read (or changed since) in this session",
        build: |a| a.action(ArgAction::SetTrue),
    },
    GlobalOption {
        id: "color",
        takes: Takes::Value,
        env: None,
        help: "Colour on a terminal (auto honours NO_COLOR); never in JSON",
        build: |a| {
            a.value_name("WHEN")
                .value_parser(PossibleValuesParser::new(["auto", "always", "never"]))
                .default_value("auto")
        },
    },
    GlobalOption {
        id: "id",
        takes: Takes::Value,
        env: None,
        help: "The id of the ToolCall (echoed in the JSON outcome; default \"cli\")",
        build: |a| a.value_name("ID"),
    },
    GlobalOption {
        id: "checkpoint",
        takes: Takes::Switch,
        env: Some("INDUS_CHECKPOINT"),
        help: "Record what write, edit and apply_patch change, and what commands (bash, run_shell, task, process start) change in the project tree, for `checkpoint diff|rewind`",
        build: |a| {
            a
                // INDUS_CHECKPOINT=0 (or false, no, off) is off, any other value on.
                .action(ArgAction::SetTrue)
                .value_parser(clap::builder::FalseyValueParser::new())
        },
    },
    GlobalOption {
        id: "confirm",
        takes: Takes::Switch,
        env: Some("INDUS_CONFIRM"),
        help: "Ask on the terminal before a command the policy does not allow runs (no terminal: denied)",
        build: |a| {
            a.action(ArgAction::SetTrue)
                .value_parser(clap::builder::FalseyValueParser::new())
        },
    },
    GlobalOption {
        id: "allow-private-network",
        takes: Takes::Switch,
        env: Some("INDUS_ALLOW_PRIVATE_NETWORK"),
        help: "Let webfetch and websearch reach loopback, link-local and private addresses (refused by default)",
        build: |a| {
            a.action(ArgAction::SetTrue)
                .value_parser(clap::builder::FalseyValueParser::new())
        },
    },
    GlobalOption {
        id: "suppress-repeats",
        takes: Takes::Optional,
        env: Some("INDUS_SUPPRESS_REPEATS"),
        help: "Refuse a call that failed the same way 3 times in the session (default: on in buddy, batch, mcp)",
        build: |a| {
            a.value_name("BOOL")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("true")
                .value_parser(clap::builder::FalseyValueParser::new())
        },
    },
    GlobalOption {
        id: "envelope",
        takes: Takes::Switch,
        env: Some("INDUS_ENVELOPE"),
        help: "Wrap every result in the harness_timestamp envelope (always on in buddy)",
        build: |a| {
            a.action(ArgAction::SetTrue)
                .value_parser(clap::builder::FalseyValueParser::new())
        },
    },
    GlobalOption {
        id: "turn",
        takes: Takes::Value,
        env: Some("INDUS_TURN"),
        help: "The checkpoint node this invocation's changes belong to (default: one per invocation)",
        build: |a| a.value_name("NAME"),
    },
    GlobalOption {
        id: "mcp-config",
        takes: Takes::Value,
        env: None,
        help: "An MCP config file read before the discovered ones; its tools are grafted as SERVER__TOOL",
        build: |a| {
            a.value_name("FILE")
                .value_parser(value_parser!(std::path::PathBuf))
        },
    },
    GlobalOption {
        id: "no-mcp",
        takes: Takes::Switch,
        env: Some("INDUS_NO_MCP"),
        help: "Graft no MCP server's tools (read no MCP config)",
        build: |a| {
            a.action(ArgAction::SetTrue)
                .value_parser(clap::builder::FalseyValueParser::new())
        },
    },
    GlobalOption {
        id: "mcp-log",
        takes: Takes::Value,
        env: None,
        help: "Print MCP servers' log notifications at LEVEL and above on stderr",
        build: |a| {
            a.value_name("LEVEL")
                .value_parser(PossibleValuesParser::new([
                    "debug",
                    "info",
                    "notice",
                    "warning",
                    "error",
                    "critical",
                    "alert",
                    "emergency",
                ]))
        },
    },
    GlobalOption {
        id: "save-media",
        takes: Takes::Value,
        env: None,
        help: "Write the images, audio and binary resources MCP tools return into DIR",
        build: |a| {
            a.value_name("DIR")
                .value_parser(value_parser!(std::path::PathBuf))
        },
    },
    GlobalOption {
        id: "exact",
        takes: Takes::Optional,
        env: Some("INDUS_EXACT"),
        help: "Print the call exactly as an agent receives it, even to a pipe: cli (bare --exact) the text, batch the batch line, mcp the MCP tool result",
        build: |a| {
            a.value_name("FACE")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("cli")
                .ignore_case(true)
                // The faces, and hidden, the booleans INDUS_EXACT took before
                // there were faces (read by `Exact::parse`).
                .value_parser(PossibleValuesParser::new(
                    ["cli", "batch", "mcp"]
                        .into_iter()
                        .map(PossibleValue::new)
                        .chain(
                            [
                                "1", "0", "true", "false", "yes", "no", "on", "off", "y", "n", "t",
                                "f", "",
                            ]
                            .into_iter()
                            .map(|b| PossibleValue::new(b).hide(true)),
                        ),
                ))
        },
    },
    GlobalOption {
        id: "state-dir",
        takes: Takes::Value,
        env: Some("INDUS_STATE_DIR"),
        help: "The folder holding .indus-process/ (default: the nearest upwards with .git or .indus-process)",
        build: |a| {
            a.value_name("DIR")
                .value_parser(value_parser!(std::path::PathBuf))
        },
    },
    GlobalOption {
        id: "tmux",
        takes: Takes::Optional,
        env: Some("INDUS_TMUX"),
        help: "Type bash's commands into a managed tmux pane a person can attach to",
        build: |a| {
            a.value_name("SESSION")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("shared")
        },
    },
    GlobalOption {
        id: "exec",
        takes: Takes::Value,
        env: Some("INDUS_EXEC"),
        help: "Run the invocation elsewhere: local, container:NAME or ssh:[USER@]HOST[:PORT]",
        build: |a| a.value_name("TARGET"),
    },
    GlobalOption {
        id: "exec-cwd",
        takes: Takes::Value,
        env: Some("INDUS_EXEC_CWD"),
        help: "The working directory on the --exec target (default: the login directory)",
        build: |a| a.value_name("DIR"),
    },
    GlobalOption {
        id: "engine",
        takes: Takes::Value,
        env: Some("INDUS_ENGINE"),
        help: "The container engine of --exec container: (default: podman, else docker)",
        build: |a| {
            a.value_name("ENGINE")
                .value_parser(PossibleValuesParser::new(["docker", "podman"]))
        },
    },
    GlobalOption {
        id: "ssh-config",
        takes: Takes::Value,
        env: Some("INDUS_SSH_CONFIG"),
        help: "The ssh configuration file of --exec ssh: (ssh -F)",
        build: |a| {
            a.value_name("FILE")
                .value_parser(value_parser!(std::path::PathBuf))
        },
    },
];

impl GlobalOption {
    /// The option as a clap argument.
    pub fn arg(&self) -> Arg {
        let arg = Arg::new(self.id).long(self.id).help(self.help);
        let arg = match self.env {
            Some(env) => arg.env(env),
            None => arg,
        };
        (self.build)(arg)
    }
}

/// The global options as clap arguments.
pub fn global_options() -> impl Iterator<Item = Arg> {
    GLOBAL_OPTIONS.iter().map(GlobalOption::arg)
}

/// Whether `word` is a global option's spelling (`--format`).
pub fn is_global(word: &str) -> bool {
    option_of(word).is_some()
}

/// Whether `word` is a global option that takes the next word as its value
/// (needed to find the tool name in argv before clap runs).
pub fn takes_value(word: &str) -> bool {
    option_of(word).is_some_and(|o| o.takes == Takes::Value)
}

fn option_of(word: &str) -> Option<&'static GlobalOption> {
    let id = word.strip_prefix("--")?;
    GLOBAL_OPTIONS.iter().find(|o| o.id == id)
}

/// The spellings of the global options that take the next word as their value,
/// in order.
pub fn value_spellings() -> impl Iterator<Item = String> {
    GLOBAL_OPTIONS
        .iter()
        .filter(|o| o.takes == Takes::Value)
        .map(|o| format!("--{}", o.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The row says how an option takes its value; clap's argument must agree,
    /// or argv would be read one way before clap and another way by it.
    #[test]
    fn each_row_takes_its_value_as_its_clap_argument_does() {
        for (o, arg) in GLOBAL_OPTIONS.iter().zip(global_options()) {
            let takes = if !arg.get_action().takes_values() {
                Takes::Switch
            } else if arg.is_require_equals_set() {
                Takes::Optional
            } else {
                Takes::Value
            };
            assert_eq!(o.takes, takes, "--{}", o.id);
            assert_eq!(arg.get_long(), Some(o.id));
        }
    }

    /// Every value clap lets through `--exact` (and INDUS_EXACT) means something
    /// to `Exact::parse`: a face, or off.
    #[test]
    fn exact_takes_the_faces_and_the_old_booleans() {
        use super::super::globals::Exact;
        let arg = GLOBAL_OPTIONS
            .iter()
            .find(|o| o.id == "exact")
            .unwrap()
            .arg();
        let cmd = clap::Command::new("t").arg(arg);
        let read = |argv: &[&str]| {
            let m = cmd
                .clone()
                .try_get_matches_from(argv)
                .map_err(|e| e.kind())?;
            Ok::<_, clap::error::ErrorKind>(
                m.get_one::<String>("exact")
                    .map(|v| Exact::parse(v).expect("clap admitted it")),
            )
        };
        assert_eq!(read(&["t", "--exact"]), Ok(Some(Some(Exact::Cli))));
        assert_eq!(read(&["t", "--exact=mcp"]), Ok(Some(Some(Exact::Mcp))));
        assert_eq!(read(&["t", "--exact=BATCH"]), Ok(Some(Some(Exact::Batch))));
        assert_eq!(read(&["t", "--exact=1"]), Ok(Some(Some(Exact::Cli))));
        assert_eq!(read(&["t", "--exact=off"]), Ok(Some(None)));
        assert_eq!(read(&["t", "--exact="]), Ok(Some(None)));
        assert_eq!(
            read(&["t", "--exact=all"]),
            Err(clap::error::ErrorKind::InvalidValue)
        );
    }

    #[test]
    fn spellings_and_values_are_read_from_the_table() {
        assert!(takes_value("--format") && takes_value("--exec") && takes_value("--tools"));
        assert!(is_global("--gate") && !takes_value("--gate"));
        // An optional value goes with `=`: the next word is the tool.
        assert!(is_global("--tmux") && !takes_value("--tmux"));
        assert!(is_global("--suppress-repeats") && !takes_value("--suppress-repeats"));
        assert!(!is_global("--pattern") && !is_global("format"));
        assert_eq!(value_spellings().count(), 21);
    }
}
