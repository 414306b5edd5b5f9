//! The clap command tree, generated from the registry's descriptors.
//!
//! Each registered tool becomes a subcommand with one `--kebab-case` flag per input
//! key (typed by its JSON Schema), `--json` for a whole input object, and the
//! positionals, short and peer flags of its row (`tools`): a new tool needs no CLI
//! code beyond its row, and none at all for the plain face.
//! Global options go before the tool name, or after it when the tool has no flag of
//! that name (the CLI moves them in front before clap parses); they are not
//! `global` in clap's sense because tools have inputs of the same names
//! (`bash --cwd`, `webfetch --format`).

use clap::builder::PossibleValuesParser;
use clap::{Arg, ArgAction, Command, value_parser};
use serde_json::Value;

use super::global_options::global_options;
use super::tools::{ToolRow, row_of, short_of};
use crate::kernel::ToolDescriptor;

/// The clap id of a grafted MCP tool's input words.
pub const GRAFTED_WORDS: &str = "words@grafted";

/// A grafted MCP tool's name (`<server>__<tool>`): its command takes input words
/// (`KEY=VALUE`, or bare values for its required keys in order) instead of a
/// row of its own (see `tools`).
pub fn is_grafted(tool: &str) -> bool {
    tool.contains("__")
}

/// One spelling of a tool's flag, as argv holds it.
pub struct ToolFlag {
    pub spelling: String,
    /// Whether the next word is its value (booleans take theirs after `=` only).
    pub takes_value: bool,
}

/// The placeholder of a string key's value: a value name a person reads
/// (`--old-text OLD`, `--expect-sha256 SHA256`), not the key upper-cased.
pub fn value_name(key: &str) -> String {
    match key {
        "oldText" => "OLD".into(),
        "newText" => "NEW".into(),
        "expectSha256" => "SHA256".into(),
        "content" => "TEXT".into(),
        "url" => "URL".into(),
        _ => kebab(key).to_uppercase().replace('-', "_"),
    }
}

/// The long spellings peer flags claim for `tool` (their generated flags give way).
fn claimed_by_peers(row: &ToolRow) -> (Vec<&'static str>, Vec<char>) {
    let flags = row.peers;
    (
        flags.iter().map(|f| f.long).collect(),
        flags.iter().filter_map(|f| f.short).collect(),
    )
}

/// Every flag spelling of a tool's subcommand (long and short), for telling them
/// from global options written after the tool name.
pub fn tool_flags(descriptor: &ToolDescriptor) -> Vec<ToolFlag> {
    let mut flags = vec![ToolFlag {
        spelling: "--json".to_string(),
        takes_value: true,
    }];
    let props = properties(descriptor);
    let row = row_of(&descriptor.name);
    let (claimed, claimed_shorts) = claimed_by_peers(row);
    for (key, schema) in props {
        let takes_value = schema_type(schema) != "boolean";
        let long = kebab(key);
        if claimed.contains(&long.as_str()) {
            continue;
        }
        flags.push(ToolFlag {
            spelling: format!("--{long}"),
            takes_value,
        });
        if let Some(c) = short_of(row, key).filter(|c| !claimed_shorts.contains(c)) {
            flags.push(ToolFlag {
                spelling: format!("-{c}"),
                takes_value,
            });
        }
    }
    for f in row.peers {
        let takes_value = super::peers::takes_value(f);
        flags.push(ToolFlag {
            spelling: format!("--{}", f.long),
            takes_value,
        });
        if let Some(c) = f.short {
            flags.push(ToolFlag {
                spelling: format!("-{c}"),
                takes_value,
            });
        }
    }
    flags
}

/// The keys a tool's input schema requires, in the schema's order.
pub fn required(descriptor: &ToolDescriptor) -> Vec<&str> {
    descriptor
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A descriptor's input keys and their schemas (none when it declares none).
pub fn properties(descriptor: &ToolDescriptor) -> &serde_json::Map<String, Value> {
    static EMPTY: std::sync::OnceLock<serde_json::Map<String, Value>> = std::sync::OnceLock::new();
    descriptor
        .parameters
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or_else(|| EMPTY.get_or_init(serde_json::Map::new))
}

/// The meta-commands, which are not tools.
pub const META_COMMANDS: &[&str] = &[
    "list",
    "describe",
    "schema",
    "call",
    "batch",
    "mcp",
    "checkpoint",
    "trust",
    "completions",
    "man",
    "help",
];

/// `mcp --tool-search`: the deferred tool list (see `interop::mcp::search`).
fn tool_search_arg() -> Arg {
    Arg::new("tool-search")
        .long("tool-search")
        .action(ArgAction::SetTrue)
        .env("INDUS_TOOL_SEARCH")
        .value_parser(clap::builder::FalseyValueParser::new())
        .help("List only read, grep, find, edit, write and bash, plus find_tool and load_tool to add the others when needed")
}

/// `mcp --no-gate`: the read-before-edit gate off.
fn no_gate_arg() -> Arg {
    Arg::new("no-gate")
        .long("no-gate")
        .action(ArgAction::SetTrue)
        .help("Turn the read-before-edit gate off (it is on in the MCP server)")
}

/// `mcp --no-output-schemas`: the list without the records' schemas.
fn no_output_schemas_arg() -> Arg {
    Arg::new("no-output-schemas")
        .long("no-output-schemas")
        .action(ArgAction::SetTrue)
        .help("List the tools without their outputSchema (half the list's bytes; structuredContent is still sent)")
}

/// `oldText` → `old-text`.
pub fn kebab(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for (i, c) in key.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else if c == '_' {
            out.push('-');
        } else {
            out.push(c);
        }
    }
    out
}

/// The id clap uses for a positional spelling of `key`.
pub fn positional_id(key: &str) -> String {
    format!("{key}@positional")
}

pub use crate::kernel::contract::summary;

/// A string key's allowed values, for completion and clap's check.
fn enum_values(schema: &Value) -> Option<Vec<String>> {
    let values: Vec<String> = schema
        .get("enum")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    (!values.is_empty()).then_some(values)
}

fn schema_type(schema: &Value) -> &str {
    schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string")
}

fn flag_help(schema: &Value) -> String {
    let mut help = schema
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        help.push_str(&format!(" [one of: {}]", names.join(", ")));
    }
    help
}

/// The subcommand of one tool.
pub fn tool_command(descriptor: &ToolDescriptor) -> Command {
    let name = descriptor.name.clone();
    let mut cmd = Command::new(name.clone())
        .about(summary(&descriptor.description).to_string())
        .long_about(descriptor.description.clone())
        .arg(
            Arg::new("json")
                .long("json")
                .value_name("OBJECT|-|@FILE")
                .help("The whole input as a JSON object ('-' reads stdin, '@FILE' reads a file); flags override its keys"),
        );
    let row = row_of(&name);
    let required = required(descriptor);
    let props = properties(descriptor);
    if row.tool.is_empty() && is_grafted(&name) {
        cmd = cmd.arg(
            Arg::new(GRAFTED_WORDS)
                .value_name("KEY=VALUE|VALUE")
                .num_args(0..)
                .allow_hyphen_values(false)
                .help(format!(
                    "Input words: KEY=VALUE sets an input key (typed by the schema); a bare VALUE fills the next required key ({})",
                    if required.is_empty() { "none".to_string() } else { required.join(", ") }
                )),
        );
    }
    {
        for (i, key) in row.positionals.iter().enumerate() {
            if let Some(schema) = props.get(*key) {
                let file = row.file_positional == Some(*key);
                let mut help = if file {
                    "A file holding it ('-' or none: standard input)".to_string()
                } else {
                    flag_help(schema)
                };
                if required.contains(key) && !file {
                    help.push_str(" (required)");
                }
                let last = i + 1 == row.positionals.len();
                let mut arg = Arg::new(positional_id(key))
                    .value_name(if file {
                        "FILE".to_string()
                    } else {
                        value_name(key)
                    })
                    .help(help)
                    .action(ArgAction::Set);
                if last && row.many.is_some() {
                    arg = arg.num_args(1..).action(ArgAction::Append);
                }
                if let Some(values) = enum_values(schema) {
                    arg = arg.value_parser(PossibleValuesParser::new(values));
                }
                cmd = cmd.arg(arg);
            }
        }
    }
    // A grafted MCP tool's keys are whatever its server chose: a key whose flag
    // or short is taken (`json`, `help`, two keys kebab-casing alike) gets no
    // flag of its own and is reached through `--json`.
    let mut longs: Vec<String> = vec!["json".into(), "help".into()];
    let mut shorts: Vec<char> = vec!['h'];
    for f in row.peers {
        longs.push(f.long.to_string());
        shorts.extend(f.short);
        cmd = cmd.arg(super::peers::peer_arg(f));
    }
    for (key, schema) in props {
        let flag = kebab(key);
        if longs.contains(&flag) || flag.is_empty() || flag.starts_with('-') {
            continue;
        }
        longs.push(flag.clone());
        let mut arg = Arg::new(key.clone()).long(flag).help(flag_help(schema));
        if let Some(c) = short_of(row, key).filter(|c| !shorts.contains(c)) {
            shorts.push(c);
            arg = arg.short(c);
        }
        // A value may start with `-` (`--pattern -x`, `--old-text '- item'`): the
        // word after a flag that takes one is its value, as with `git commit -m`.
        arg = match schema_type(schema) {
            "boolean" => arg
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("true")
                .value_parser(PossibleValuesParser::new(["true", "false"])),
            "integer" | "number" => arg.value_name("N").allow_hyphen_values(true),
            "array" | "object" => arg.value_name("JSON").allow_hyphen_values(true),
            _ => {
                let arg = arg.value_name(value_name(key)).allow_hyphen_values(true);
                match enum_values(schema) {
                    Some(values) => arg.value_parser(PossibleValuesParser::new(values)),
                    None => arg,
                }
            }
        };
        cmd = cmd.arg(arg);
    }
    cmd
}

/// The whole command tree for the given tool descriptors.
pub fn build_command(descriptors: &[ToolDescriptor]) -> Command {
    let mut cmd = root_command();
    for d in descriptors {
        cmd = cmd.subcommand(tool_command(d));
    }
    with_meta_commands(cmd)
}

/// The tree of an invocation that names one tool: the root's global options and
/// that tool's subcommand alone. A one-shot call pays for building its parser on
/// every run; building all forty subcommands (and every tool's descriptor) to
/// parse one was most of the start-up. It parses exactly as the whole tree does,
/// since subcommands do not see each other.
pub fn focused_command(descriptor: &ToolDescriptor) -> Command {
    root_command().subcommand(tool_command(descriptor))
}

/// Whether `word` is a meta-command that never looks at the tools'
/// subcommands (it reads the registry itself): its invocation parses with
/// [`meta_command`]. `help`, `completions` and `man` render the whole tree.
pub fn treeless_meta(word: &str) -> bool {
    META_COMMANDS.contains(&word) && !matches!(word, "help" | "completions" | "man")
}

/// The tree of an invocation of a [`treeless_meta`] command: the root's global
/// options and the meta-commands, without a subcommand per tool (building those
/// for a hundred grafted tools made `list` twice as slow as a tool's call).
/// It parses exactly as the whole tree does, as [`focused_command`] does.
pub fn meta_command() -> Command {
    with_meta_commands(root_command())
}

/// The root command: name, version, about, and the global options.
fn root_command() -> Command {
    Command::new("indus-tool")
        .version(env!("CARGO_PKG_VERSION"))
        .about("The tool layer a coding agent needs (read, write, edit, ls, grep, find, bash, process, todo, web) as one-shot subcommands with exact, byte-stable output")
        .long_about("The tool layer a coding agent needs, as one-shot subcommands with exact, byte-stable output, as text or JSON.\n\nGlobal options go before the tool name or after it: `indus-tool --format json read src/lib.rs`.\nExit status: 0 success, 1 the tool reported an error, 2 a usage error; grep exits 0 found, 1 nothing found (or --offset past the last match), 2 trouble (as rg); find 0, or with -q 1 when nothing was found, 2 trouble (as fd); diff 0 equal, 1 different, 2 trouble.")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .args(global_options())
}

/// `cmd` with the meta-commands (list, describe, schema, call, batch, mcp, …).
fn with_meta_commands(cmd: Command) -> Command {
    cmd.subcommand(
        Command::new("list").about("List the exposed tools with their collections and one-line summaries"),
    )
    .subcommand(
        Command::new("describe")
            .about("Print one tool's descriptor (name, description, JSON Schema) as JSON")
            .arg(Arg::new("tool").required(true).value_name("TOOL")),
    )
    .subcommand(
        Command::new("schema")
            .about("Print every exposed tool's descriptor as a JSON array, or (--for) the tool definitions in the shape a model API takes")
            .arg(
                Arg::new("for")
                    .long("for")
                    .value_name("API")
                    .value_parser(PossibleValuesParser::new(crate::interop::tool_defs::ToolApi::NAMES))
                    .help("openai: Chat Completions `tools`; anthropic: Messages `tools`; mcp: the MCP server's tools/list result"),
            ),
    )
    .subcommand(
        Command::new("call")
            .about("Run one ToolCall given as JSON: {\"id\":..,\"name\":..,\"input\":{..}} ('-' reads stdin, '@FILE' reads a file)")
            .arg(Arg::new("call").required(true).value_name("TOOLCALL")),
    )
    .subcommand(
        Command::new("batch")
            .about("Answer JSONL ToolCalls from stdin with JSONL ToolOutcomes on stdout, one line each, flushed as they are written")
            .long_about("Answer JSONL ToolCalls ({\"id\", \"name\", \"input\", \"turn\"}) from stdin with JSONL ToolOutcomes ({\"id\", \"output\", \"is_error\"}) on stdout, one line each, flushed as they are written, in input order (with --jobs, as calls finish). A line {\"cancel\": ID} cancels the running or waiting call with that id; it is answered as cancelled, and the cancel line itself is not answered. Ends with status 0 at the end of stdin, once every call has answered.")
            .arg(
                Arg::new("jobs")
                    .long("jobs")
                    .short('j')
                    .value_name("N")
                    .value_parser(clap::value_parser!(u16).range(1..=256))
                    .default_value("1")
                    .help("Run up to N calls at once; outcomes are then written as calls finish, each with its call's id"),
            )
            .arg(
                Arg::new("no-gate")
                    .long("no-gate")
                    .action(ArgAction::SetTrue)
                    .help("Turn the read-before-edit gate off (it is on in batch mode)"),
            ),
    )
    .subcommand(mcp_command())
    .subcommand(diff_command())
    .subcommand(lsp_broker_command())
    .subcommand(checkpoint_command())
    .subcommand(trust_command())
    .subcommand(
        Command::new("completions")
            .about("Print a shell completion script, or install it where the shell looks")
            .arg(
                Arg::new("shell")
                    .required(true)
                    .value_parser(PossibleValuesParser::new(["bash", "zsh", "fish", "powershell", "elvish"])),
            )
            .arg(
                Arg::new("install")
                    .long("install")
                    .action(ArgAction::SetTrue)
                    .help("Write the script where the shell finds it for this user (bash: $XDG_DATA_HOME/bash-completion/completions, zsh: $XDG_DATA_HOME/zsh/site-functions, fish: $XDG_CONFIG_HOME/fish/completions; ~/.local/share and ~/.config when unset) and print its path"),
            ),
    )
    .subcommand(
        Command::new("man")
            .about("Write man pages (indus-tool.1 and one per subcommand) into a directory, or install them")
            // One of the two forms is needed; clap alone would show an optional
            // `[DIR]`, so the usage says it and DIR is described after the options.
            .override_usage("indus-tool man [OPTIONS] DIR\n       indus-tool man --install [PREFIX]")
            .after_help("DIR is the folder to write the pages into (made if missing).")
            .arg(
                Arg::new("dir")
                    .value_name("DIR")
                    .hide(true)
                    .required_unless_present("install")
                    .value_parser(value_parser!(std::path::PathBuf)),
            )
            .arg(
                Arg::new("install")
                    .long("install")
                    .value_name("PREFIX")
                    .num_args(0..=1)
                    .conflicts_with("dir")
                    .value_parser(value_parser!(std::path::PathBuf))
                    .help("Write the pages into PREFIX/share/man/man1 (PREFIX: ~/.local when not given), where `man indus-tool` finds them"),
            ),
    )
}

/// The `mcp` meta-command.
fn mcp_command() -> Command {
    Command::new("mcp")
        .about("Serve the selected tools as an MCP server on stdio (tools/list, tools/call, cancellation), until stdin closes; or inspect the MCP servers whose tools are grafted")
        .long_about("Serve the selected tools as a Model Context Protocol server on stdin/stdout: tools/list gives each tool's name, description, input schema and behaviour hints; tools/call runs it (text as text content, JSON also as structuredContent, isError from the tool); notifications/cancelled stops a call in flight. The global options (--profile, --collection, --tools, --no-tools, --cwd, --session, --max-bytes) choose what is served; grafted MCP tools (SERVER__TOOL) are served too. Ends with status 0 when stdin closes or on SIGINT/SIGTERM.\n\nThe subcommands servers, tools, ledger and refresh show and refresh the MCP client's view of the configured servers, and up and down start and stop the warm broker that keeps their connections open (--mcp-config FILE, then .indusvx/mcp.json, $XDG_CONFIG_HOME/indusvx/mcp.json, ~/.indusvx/agent/mcp.json and mcp-servers.json).")
        .arg(no_gate_arg())
        .arg(tool_search_arg())
        .arg(no_output_schemas_arg())
        .subcommand(
            Command::new("serve")
                .about("Serve the selected tools (grafted ones included) on stdio, as `mcp` alone does")
                .arg(no_gate_arg())
                .arg(tool_search_arg())
                .arg(no_output_schemas_arg()),
        )
        .subcommand(
            Command::new("servers")
                .about("The configured MCP servers: name, transport, status, tool count, last error"),
        )
        .subcommand(
            Command::new("tools")
                .about("The grafted tools (from the ledger cache; nothing is spawned)")
                .arg(Arg::new("server").value_name("SERVER").help("Only this server's tools")),
        )
        .subcommand(
            Command::new("ledger")
                .about("The bridge ledger's event log (--format json: one JSON event per line)"),
        )
        .subcommand(
            Command::new("refresh")
                .about("Connect to the configured servers (or SERVER), list their tools and update the ledger; exit 1 if one failed")
                .arg(Arg::new("server").value_name("SERVER").help("Only this server")),
        )
        .subcommand(
            Command::new("up")
                .about("Start the warm broker for this directory (unless it runs) and connect it to every configured server, so grafted calls skip the servers' startup; exit 1 if it did not start or a server failed")
                .arg(
                    Arg::new("idle")
                        .long("idle")
                        .value_name("SECS")
                        .value_parser(value_parser!(u64).range(1..))
                        .default_value("600")
                        .help("Exit after this many seconds without a call"),
                ),
        )
        .subcommand(
            Command::new("down")
                .about("Stop this directory's warm broker and the servers it keeps open (not running is not an error)"),
        )
        .subcommand(
            Command::new("names")
                .hide(true)
                .about("The grafted tools as `NAME<TAB>SUMMARY` lines, from the ledger cache (for shell completion; nothing is spawned)"),
        )
        .subcommand(
            Command::new("broker")
                .hide(true)
                .about("The warm broker itself (started by `mcp up`)")
                .arg(
                    Arg::new("idle")
                        .long("idle")
                        .value_name("SECS")
                        .value_parser(value_parser!(u64).range(1..))
                        .default_value("600"),
                ),
        )
}

/// The hidden `lsp-broker`: the warm language-server broker itself.
fn lsp_broker_command() -> Command {
    Command::new("lsp-broker")
        .hide(true)
        .about("The warm language-server broker itself (started by diagnose and lsp)")
        .arg(
            Arg::new("idle")
                .long("idle")
                .value_name("SECS")
                .value_parser(value_parser!(u64).range(1..))
                .default_value("900"),
        )
}

/// The `diff` meta-command.
fn diff_command() -> Command {
    Command::new("diff")
        .about("Unified diff of two files (or with -r two trees), with the engine edit uses; exit 0 when equal, 1 when different, 2 on trouble")
        .long_about("Unified diff of two files, or with -r of two trees, with the engine edit uses, spoken as GNU diff: -u (the only format here), -U N, -q, -r; `Only in DIR: NAME`, `Binary files A and B differ` and `Common subdirectories` as diff words them. Exit 0 when equal, 1 when different, 2 on trouble. The output applies with `patch -p0`; `--format json` gives one record.")
        .arg(
            Arg::new("unified")
                .short('u')
                .long("unified")
                .action(ArgAction::SetTrue)
                .help("Unified format with 3 lines of context (the only format; accepted as diff's -u)"),
        )
        .arg(
            Arg::new("brief")
                .short('q')
                .long("brief")
                .action(ArgAction::SetTrue)
                .help("Only say which files differ (diff -q)"),
        )
        .arg(
            Arg::new("recursive")
                .short('r')
                .long("recursive")
                .action(ArgAction::SetTrue)
                .help("Compare folders' subfolders too (diff -r)"),
        )
        .arg(Arg::new("before").required(true).value_name("BEFORE").value_parser(value_parser!(std::path::PathBuf)))
        .arg(Arg::new("after").required(true).value_name("AFTER").value_parser(value_parser!(std::path::PathBuf)))
        .arg(
            Arg::new("context")
                .long("context")
                .short('U')
                .visible_alias("unified-context")
                .value_name("N")
                .value_parser(value_parser!(usize))
                .default_value("3")
                .help("Lines of context around each change (diff -U N)"),
        )
}

/// The `checkpoint` meta-command.
fn checkpoint_command() -> Command {
    Command::new("checkpoint")
        .about("List, diff, rewind or drop the checkpoints --checkpoint recorded for file tools and commands")
        .long_about("List, diff, rewind or drop the checkpoints that --checkpoint (INDUS_CHECKPOINT=1) recorded in the session (--session): what write, edit and apply_patch changed, and what commands run by bash, run_shell, task and process start changed in the project's tree. A node is a turn (--turn NAME) or one invocation.")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(Command::new("list").about("The nodes, oldest first, with their time and the files they touched (size before, or why not kept)"))
        .subcommand(Command::new("on").about("Checkpoint every write and edit of this session from now on, without --checkpoint (INDUS_CHECKPOINT=0 still turns it off for one invocation)"))
        .subcommand(Command::new("off").about("Stop checkpointing this session by default (the nodes already recorded stay)"))
        .subcommand(
            Command::new("diff")
                .about("Unified diff from the state before NODE to now, for every file touched at or after NODE")
                .arg(Arg::new("node").required(true).value_name("NODE")),
        )
        .subcommand(
            Command::new("rewind")
                .about("Put every file touched at or after NODE back as it was before NODE (files created since are deleted), then forget NODE and later nodes")
                .arg(Arg::new("node").required(true).value_name("NODE"))
                .arg(
                    Arg::new("force")
                        .long("force")
                        .action(ArgAction::SetTrue)
                        .help("Overwrite files changed outside the toolbox since it wrote them (refused otherwise)"),
                ),
        )
        .subcommand(
            Command::new("gc")
                .about("Delete kept contents no node needs; with --tree also the copy of the tree kept for checkpointing commands")
                .arg(
                    Arg::new("tree")
                        .long("tree")
                        .action(ArgAction::SetTrue)
                        .help("Also forget the last scan of the tree and its copies (the next checkpointed command copies the tree again)"),
                ),
        )
        .subcommand(
            Command::new("drop")
                .about("Forget NODE and every older node (or --all), deleting contents no node needs")
                .arg(Arg::new("node").value_name("NODE").required_unless_present("all"))
                .arg(
                    Arg::new("all")
                        .long("all")
                        .action(ArgAction::SetTrue)
                        .conflicts_with("node")
                        .help("Forget every node of the session"),
                ),
        )
}

/// The `trust` meta-command.
fn trust_command() -> Command {
    Command::new("trust")
        .about("Trust this project's configuration files (MCP servers, agents, approval policy) as they are now, list or revoke trust")
        .long_about("Trust project configuration files as they are now. The MCP servers of .mcp.json, .cursor/mcp.json, .vscode/mcp.json and .indusvx/mcp.json, the agents of .indusvx/agents.json, and the allow rules and looser settings of .indusvx/policy.json and .indusvx/buddy.json are used only once you trusted the file: trust records its path and the SHA-256 of its content in your state folder ($XDG_STATE_HOME/indus-tool, default ~/.local/state/indus-tool), and any edit of the file revokes it. Trust also records the SHA-256 of every project file the config launches (an MCP server's or an agent's command and path-like arguments, such as sh tools/server.sh), and a change to any of them revokes it too; a program found on PATH, and what a script reads in turn, are not covered. Read a file, and what it launches, before you trust it: its servers and agents are programs that run as you.\n\nWith no FILE, trusts every project configuration file found from the working folder (up to the repository root). --list shows what is trusted and whether each file still has the content trusted; --revoke forgets FILE.")
        .arg(
            Arg::new("file")
                .value_name("FILE")
                .action(ArgAction::Append)
                .num_args(0..)
                .value_parser(value_parser!(std::path::PathBuf))
                .help("A configuration file to trust (default: the project's configuration files found from the working folder)"),
        )
        .arg(
            Arg::new("list")
                .long("list")
                .action(ArgAction::SetTrue)
                .conflicts_with_all(["file", "revoke"])
                .help("List the trusted files: path, SHA-256, and whether the file still holds that content"),
        )
        .arg(
            Arg::new("revoke")
                .long("revoke")
                .action(ArgAction::SetTrue)
                .requires("file")
                .help("Forget the trust of each FILE (whatever content was trusted)"),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kebab_cases() {
        assert_eq!(kebab("oldText"), "old-text");
        assert_eq!(kebab("replaceAll"), "replace-all");
        assert_eq!(kebab("timeoutMs"), "timeout-ms");
        assert_eq!(kebab("expectSha256"), "expect-sha256");
        assert_eq!(kebab("path"), "path");
        assert_eq!(kebab("todo_x"), "todo-x");
    }

    #[test]
    fn summaries_take_the_first_sentence() {
        assert_eq!(summary("Do a thing. Then more."), "Do a thing.");
        assert_eq!(summary("No period"), "No period");
    }

    #[test]
    fn the_tree_is_well_formed() {
        let reg = crate::builtins::builtin_registry();
        let descriptors: Vec<_> = reg.tools().map(|t| t.descriptor()).collect();
        build_command(&descriptors).debug_assert();
    }

    /// A call naming one tool is parsed by `focused_command`: its subcommand and
    /// the globals must be exactly those of the whole tree, or a flag would mean
    /// one thing in a call and another in `--help`.
    #[test]
    fn a_focused_tree_parses_as_the_whole_tree() {
        let reg = crate::deck::deck_registry();
        let descriptors: Vec<_> = reg.tools().map(|t| t.descriptor()).collect();
        let mut whole = build_command(&descriptors);
        whole.build();
        for d in &descriptors {
            let mut focused = focused_command(d);
            focused.build();
            let help = |c: &mut Command| c.find_subcommand_mut(&d.name).unwrap().render_long_help();
            assert_eq!(
                help(&mut focused).to_string(),
                help(&mut whole).to_string(),
                "{}",
                d.name
            );
            let globals = |c: &Command| {
                c.get_arguments()
                    .map(|a| format!("{a:?}"))
                    .collect::<Vec<_>>()
            };
            assert_eq!(globals(&focused), globals(&whole), "{}", d.name);
        }
        assert_eq!(
            whole.render_version(),
            concat!("indus-tool ", env!("CARGO_PKG_VERSION"), "\n"),
            "the fast `--version` of cli::run prints what clap would"
        );
        // The meta-commands' own tree: the same subcommands, the same globals.
        let mut meta = meta_command();
        meta.build();
        for name in META_COMMANDS.iter().filter(|w| treeless_meta(w)) {
            let help = |c: &mut Command| c.find_subcommand_mut(name).unwrap().render_long_help();
            assert_eq!(
                help(&mut meta).to_string(),
                help(&mut whole).to_string(),
                "{name}"
            );
        }
        let globals = |c: &Command| {
            c.get_arguments()
                .map(|a| format!("{a:?}"))
                .collect::<Vec<_>>()
        };
        assert_eq!(globals(&meta), globals(&whole));
    }
}
