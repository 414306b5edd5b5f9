//! Every global option of the command line, once: its spelling, value, default,
//! environment variable and help. The root command takes them as they are; the
//! argv work done before clap (finding the tool name, moving options written
//! after it to the front, reading `--exec` before anything else loads) derives
//! from them which spellings exist and which take the next word as their value.
//! What each option does is read into `Globals` by its id (`globals`).

use std::sync::OnceLock;

use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgAction, value_parser};

/// The global options, in the order `--help` lists them.
pub fn global_options() -> Vec<Arg> {
    vec![
        Arg::new("format")
            .long("format")
            .env("INDUS_FORMAT")
            .value_name("FORMAT")
            .value_parser(PossibleValuesParser::new(["text", "json"]))
            .default_value("text")
            .help("Output format: text blocks, or one JSON ToolOutcome line"),
        Arg::new("cwd")
            .long("cwd")
            .value_name("DIR")
            .value_parser(value_parser!(std::path::PathBuf))
            .help("Working directory the tools resolve paths against (default: the current directory)"),
        Arg::new("root")
            .long("root")
            .value_name("DIR")
            .env("INDUS_ROOT")
            // Not PathBuf's parser: it refuses the empty value that means "unset".
            .value_parser(value_parser!(std::ffi::OsString))
            .help("Confine every path a tool touches to DIR, after symlinks (commands run by bash/process are not sandboxed; only their cwd is)"),
        Arg::new("collection")
            .long("collection")
            .value_name("NAME")
            .env("INDUS_COLLECTION")
            .value_parser(PossibleValuesParser::new(["read-only", "coding", "all"]))
            .help("Expose a standard collection of the twelve built-ins (read-only, coding, all)"),
        Arg::new("profile")
            .long("profile")
            .value_name("NAME")
            .env("INDUS_PROFILE")
            .value_parser(PossibleValuesParser::new(crate::deck::Profile::NAMES))
            .help("Expose a deck profile: authoring (the observe-only built-ins), survey (every built-in), all (every built-in and the app cards; the default). A flag beats the environment; of two flags, --profile wins over --collection"),
        Arg::new("tools")
            .long("tools")
            .value_name("A,B")
            .value_delimiter(',')
            .action(ArgAction::Append)
            .help("Allow-list: expose only these tools of the profile or collection (names match case-insensitively, _ and - ignored)"),
        Arg::new("no-tools")
            .long("no-tools")
            .action(ArgAction::SetTrue)
            .conflicts_with("tools")
            .help("Expose no tools at all"),
        Arg::new("max-bytes")
            .long("max-bytes")
            .value_name("N")
            .value_parser(value_parser!(u64).range(1..=(1u64 << 40)))
            .help("Output budget in bytes (default 65536); longer output is clamped with a notice"),
        Arg::new("session")
            .long("session")
            .env("INDUS_SESSION")
            .value_name("NAME")
            .default_value("default")
            .help("Session name keying the todo list and the gate's read-state under .indus-process/"),
        Arg::new("gate")
            .long("gate")
            .action(ArgAction::SetTrue)
            .help("Turn on the read-before-edit gate: write/edit refuse a file not read (or changed since read) in this session"),
        Arg::new("color")
            .long("color")
            .value_name("WHEN")
            .value_parser(PossibleValuesParser::new(["auto", "always", "never"]))
            .default_value("auto")
            .help("Colour on a terminal (auto honours NO_COLOR); never in JSON"),
        Arg::new("id")
            .long("id")
            .value_name("ID")
            .help("The id of the ToolCall (echoed in the JSON outcome; default \"cli\")"),
        Arg::new("checkpoint")
            .long("checkpoint")
            .env("INDUS_CHECKPOINT")
            .action(ArgAction::SetTrue)
            // INDUS_CHECKPOINT=0 (or false, no, off) is off, any other value on.
            .value_parser(clap::builder::FalseyValueParser::new())
            .help("Record what write and edit change (the content before, per file and turn) under .indus-process/checkpoints/<session>/, for `checkpoint diff` and `checkpoint rewind`"),
        Arg::new("confirm")
            .long("confirm")
            .env("INDUS_CONFIRM")
            .action(ArgAction::SetTrue)
            .value_parser(clap::builder::FalseyValueParser::new())
            .help("Ask `Run: <cmd> [y/N]` on the terminal before bash, process start and the buddy shell tools run a command the policy does not allow (no terminal: denied); also \"shell_confirm\": true in .indusvx/buddy.json"),
        Arg::new("suppress-repeats")
            .long("suppress-repeats")
            .env("INDUS_SUPPRESS_REPEATS")
            .value_name("BOOL")
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("true")
            .value_parser(clap::builder::FalseyValueParser::new())
            .help("Refuse a call that already failed the same way 3 times in the session (default: on in the buddy profile, batch and mcp; off for one-shot calls)"),
        Arg::new("envelope")
            .long("envelope")
            .env("INDUS_ENVELOPE")
            .action(ArgAction::SetTrue)
            .value_parser(clap::builder::FalseyValueParser::new())
            .help("Wrap every result in the buddy seed's envelope {\"harness_timestamp\": {\"source\": \"harness\", \"unix_millis\": N}, \"result\": …} (always on in the buddy profile)"),
        Arg::new("turn")
            .long("turn")
            .env("INDUS_TURN")
            .value_name("NAME")
            .help("The checkpoint node this invocation's changes belong to (default: one node per invocation, t-<base36 ms>-<pid>)"),
        Arg::new("mcp-config")
            .long("mcp-config")
            .value_name("FILE")
            .value_parser(value_parser!(std::path::PathBuf))
            .help("An MCP config file read before the discovered ones (.indusvx/mcp.json, ~/.config/indusvx/mcp.json, …); its servers' tools are grafted as SERVER__TOOL"),
        Arg::new("no-mcp")
            .long("no-mcp")
            .env("INDUS_NO_MCP")
            .action(ArgAction::SetTrue)
            .value_parser(clap::builder::FalseyValueParser::new())
            .help("Graft no MCP server's tools (read no MCP config)"),
        Arg::new("mcp-log")
            .long("mcp-log")
            .value_name("LEVEL")
            .value_parser(PossibleValuesParser::new([
                "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
            ]))
            .help("Ask MCP servers that log for LEVEL and print their log notifications at LEVEL and above on stderr (default: none)"),
        Arg::new("save-media")
            .long("save-media")
            .value_name("DIR")
            .value_parser(value_parser!(std::path::PathBuf))
            .help("Write the images, audio and binary resources an MCP tool returns into DIR (made if missing) and show their paths; text mode otherwise shows one line per such block"),
        Arg::new("exact")
            .long("exact")
            .env("INDUS_EXACT")
            .action(ArgAction::SetTrue)
            .value_parser(clap::builder::FalseyValueParser::new())
            .help("Print a tool's text exactly as an agent receives it (summary, hints and bash's report on stdout, errors on stderr), even when stdout is a pipe"),
        Arg::new("state-dir")
            .long("state-dir")
            .env("INDUS_STATE_DIR")
            .value_name("DIR")
            .value_parser(value_parser!(std::path::PathBuf))
            .help("The folder holding .indus-process/ (default: the nearest folder upwards from the working directory that holds .git or .indus-process, else the working directory)"),
        Arg::new("tmux")
            .long("tmux")
            .env("INDUS_TMUX")
            .value_name("SESSION")
            .num_args(0..=1)
            .require_equals(true)
            .default_missing_value("shared")
            .help("Type the commands of bash (and run_shell without a target) into a managed tmux pane a person can attach to: the shared pane of SESSION (default: the shared session)"),
        Arg::new("exec")
            .long("exec")
            .env("INDUS_EXEC")
            .value_name("TARGET")
            .help("Run the invocation elsewhere: local, container:NAME (docker/podman exec) or ssh:[USER@]HOST[:PORT] (OpenSSH, a persistent master connection); the toolbox itself runs there"),
        Arg::new("exec-cwd")
            .long("exec-cwd")
            .env("INDUS_EXEC_CWD")
            .value_name("DIR")
            .help("The working directory on the --exec target (default: the login directory, or the container's)"),
        Arg::new("engine")
            .long("engine")
            .env("INDUS_ENGINE")
            .value_name("ENGINE")
            .value_parser(PossibleValuesParser::new(["docker", "podman"]))
            .help("The container engine of --exec container: (default: podman, else docker, whichever is installed)"),
        Arg::new("ssh-config")
            .long("ssh-config")
            .env("INDUS_SSH_CONFIG")
            .value_name("FILE")
            .value_parser(value_parser!(std::path::PathBuf))
            .help("The ssh configuration file of --exec ssh: (ssh -F; default: ssh's own, ~/.ssh/config)"),
    ]
}

/// The spellings of the global options (`--format`), and whether each takes the
/// next word as its value (an optional value is given with `=` only).
fn spellings() -> &'static [(String, bool)] {
    static SPELLINGS: OnceLock<Vec<(String, bool)>> = OnceLock::new();
    SPELLINGS.get_or_init(|| {
        global_options()
            .iter()
            .filter_map(|arg| {
                let long = arg.get_long()?;
                let takes = arg.get_action().takes_values() && !arg.is_require_equals_set();
                Some((format!("--{long}"), takes))
            })
            .collect()
    })
}

/// Whether `word` is a global option's spelling.
pub fn is_global(word: &str) -> bool {
    spellings().iter().any(|(s, _)| s == word)
}

/// Whether `word` is a global option that takes the next word as its value
/// (needed to find the tool name in argv).
pub fn takes_value(word: &str) -> bool {
    spellings().iter().any(|(s, takes)| *takes && s == word)
}

/// The global options that take the next word as their value, in order.
pub fn value_spellings() -> impl Iterator<Item = &'static str> {
    spellings()
        .iter()
        .filter(|(_, takes)| *takes)
        .map(|(s, _)| s.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_and_values_are_read_from_the_table() {
        assert!(takes_value("--format") && takes_value("--exec") && takes_value("--tools"));
        assert!(is_global("--gate") && !takes_value("--gate"));
        // An optional value goes with `=`: the next word is the tool.
        assert!(is_global("--tmux") && !takes_value("--tmux"));
        assert!(is_global("--suppress-repeats") && !takes_value("--suppress-repeats"));
        assert!(!is_global("--pattern"));
        assert_eq!(value_spellings().count(), 19);
    }
}
