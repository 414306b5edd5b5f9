//! Generated documentation: shell completion scripts (with the fixes clap_complete's
//! output needs and the grafted MCP tools' names) and man pages.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ArgMatches;

use super::command::{self, META_COMMANDS, build_command};
use super::error::{CliResult, UsageError};
use super::output::Printer;
use super::tools::{GROUPS, PLAIN, PLAIN_STATUS, ROWS, row_of};
use crate::kernel::ToolDescriptor;

/// The file name of a shell's completion script in `completions/`.
pub fn completion_file_name(shell: clap_complete::Shell) -> &'static str {
    use clap_complete::Shell;
    match shell {
        Shell::Bash => "indus-tool.bash",
        Shell::Zsh => "_indus-tool",
        Shell::Fish => "indus-tool.fish",
        Shell::PowerShell => "_indus-tool.ps1",
        Shell::Elvish => "indus-tool.elv",
        _ => "indus-tool.completion",
    }
}

/// The program name the completion scripts complete.
pub(crate) const BIN_NAME: &str = "indus-tool";

/// A completion script for `shell`, as bytes.
pub fn completion_script(descriptors: &[ToolDescriptor], shell: clap_complete::Shell) -> Vec<u8> {
    let mut cmd = build_command(descriptors);
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, BIN_NAME, &mut buf);
    match shell {
        clap_complete::Shell::Bash => complete_grafted_bash(&respell_bash_states(&buf)),
        clap_complete::Shell::Zsh => complete_grafted_zsh(&buf),
        clap_complete::Shell::Fish => {
            let script = complete_positional_values_fish(&loosen_fish_guard(&buf), descriptors);
            complete_grafted_fish(&script)
        }
        _ => buf,
    }
}

/// Bash: the grafted MCP tools (`SERVER__TOOL`) are offered where a command goes,
/// from `indus-tool mcp names` (the ledger cache: nothing is spawned). clap's
/// function runs first; a wrapper adds the names when no command is typed yet,
/// passing on the `--cwd`, `--mcp-config` and `--no-mcp` already typed.
pub(crate) fn complete_grafted_bash(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    let values = super::global_options::value_spellings()
        .collect::<Vec<_>>()
        .join("|");
    let wrapper = format!(
        r#"
# Grafted MCP tools (SERVER__TOOL), from the ledger cache (`mcp names` spawns nothing).
_indus__tool_grafted() {{
    _indus__tool "$@"
    local i w cur="${{COMP_WORDS[COMP_CWORD]}}" passed=()
    [[ $cur == -* ]] && return 0
    for (( i=1; i<COMP_CWORD; i++ )); do
        w=${{COMP_WORDS[i]}}
        case "$w" in
            --cwd|--mcp-config) passed+=("$w" "${{COMP_WORDS[i+1]}}"); (( i++ )) ;;
            {values}) (( i++ )) ;;
            --no-mcp|--cwd=*|--mcp-config=*) passed+=("$w") ;;
            -*) ;;
            *) return 0 ;;
        esac
    done
    local line names=()
    while IFS= read -r line; do
        names+=("${{line%%$'\t'*}}")
    done < <("${{COMP_WORDS[0]}}" "${{passed[@]}}" mcp names 2>/dev/null)
    [[ ${{#names[@]}} -gt 0 ]] && COMPREPLY+=( $(compgen -W "${{names[*]}}" -- "$cur") )
    return 0
}}
"#
    );
    let registered = text.replace(
        "complete -F _indus__tool ",
        "complete -F _indus__tool_grafted ",
    );
    let at = registered
        .find("\nif [[ \"${BASH_VERSINFO[0]}\"")
        .unwrap_or(registered.len());
    let mut out = registered[..at].to_string();
    out.push_str(&wrapper);
    out.push_str(&registered[at..]);
    out.into_bytes()
}

/// Zsh: the grafted MCP tools join the commands offered at the command's place.
pub(crate) fn complete_grafted_zsh(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    let anchor = format!("    _describe -t commands '{BIN_NAME} commands' commands \"$@\"");
    let names = format!(
        r#"    # Grafted MCP tools (SERVER__TOOL), from the ledger cache (nothing is spawned).
    local -a grafted
    grafted=(${{(f)"$({BIN_NAME} mcp names 2>/dev/null)"}})
    grafted=(${{grafted//:/\\:}})
    commands+=(${{grafted//$'\t'/:}})
{anchor}"#
    );
    text.replacen(&anchor, &names, 1).into_bytes()
}

/// Fish: a positional's allowed values (`process <TAB>` offers the actions).
/// clap_complete's fish generator writes values for options only.
fn complete_positional_values_fish(script: &[u8], descriptors: &[ToolDescriptor]) -> Vec<u8> {
    let mut text = String::from_utf8_lossy(script).into_owned();
    for d in descriptors {
        let props = command::properties(d);
        for key in row_of(&d.name).positionals {
            let values: Vec<&str> = props
                .get(*key)
                .and_then(|s| s.get("enum"))
                .and_then(serde_json::Value::as_array)
                .map(|v| v.iter().filter_map(serde_json::Value::as_str).collect())
                .unwrap_or_default();
            if values.is_empty() {
                continue;
            }
            text.push_str(&format!(
                "complete -c {BIN_NAME} -n \"__fish_indus_tool_using_subcommand {}\" -f -a \"{}\"\n",
                d.name,
                values.join(" ")
            ));
        }
    }
    text.into_bytes()
}

/// Fish: the grafted MCP tools complete where a command goes.
pub(crate) fn complete_grafted_fish(script: &[u8]) -> Vec<u8> {
    let mut text = String::from_utf8_lossy(script).into_owned();
    text.push_str(&format!(
        r#"
# Grafted MCP tools (SERVER__TOOL), from the ledger cache (`mcp names` spawns nothing).
function __fish_indus_tool_grafted
    set -l cmd (commandline -opc)
    $cmd[1] mcp names 2>/dev/null
end
complete -c {BIN_NAME} -n "__fish_indus_tool_needs_command" -f -a "(__fish_indus_tool_grafted)"
"#
    ));
    text.into_bytes()
}

/// Make the bash script's `case` labels match the states its word loop computes.
///
/// clap_complete's bash generator (4.6.11 and before; clap-rs/clap#6421) escapes
/// the program name twice over: the loop that walks the typed words turns
/// `indus-tool grep` into the state `indus__tool__subcmd__grep`, but the `case`
/// arm holding grep's flags is labelled `indus__subcmd__tool__subcmd__grep`, so no
/// subcommand of a hyphenated program ever completes a flag. The labels are
/// respelled the loop's way; once clap_complete spells them alike, this finds
/// nothing to change.
pub(crate) fn respell_bash_states(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    let wrong = BIN_NAME.replace('-', "__subcmd__");
    let right = BIN_NAME.replace('-', "__");
    text.replace(&wrong, &right).into_bytes()
}

/// Let fish complete the value of a global option (`indus-tool --format <TAB>`).
///
/// clap_complete's fish script decides whether a subcommand has been typed by
/// running `argparse` over the words so far, and gives up (`or return`, a failure)
/// when argparse fails, which it does while a global option still waits for its
/// value: every root-level completion, that value's among them, is then off and
/// fish falls back to file names. A command line argparse cannot parse yet has not
/// reached a subcommand, so the guard is made to say so (`or return 0`).
pub(crate) fn loosen_fish_guard(script: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(script);
    text.replace(
        "-- $cmd 2>/dev/null\n    or return\n",
        "-- $cmd 2>/dev/null\n    or return 0\n",
    )
    .into_bytes()
}

pub(crate) fn completions(
    descriptors: &[ToolDescriptor],
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let shell: clap_complete::Shell = m
        .get_one::<String>("shell")
        .expect("required")
        .parse()
        .map_err(|e: String| UsageError(e))?;
    let script = completion_script(descriptors, shell);
    if !m.get_flag("install") {
        printer.stdout_bytes(&script);
        return Ok(ExitCode::SUCCESS);
    }
    let home = home().ok_or_else(|| {
        UsageError(
            "completions --install: HOME is not set; print the script and place it yourself"
                .to_string(),
        )
    })?;
    // The XDG folders bash-completion and fish read, as they resolve them.
    let xdg = |var: &str, default: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(default))
    };
    let (data, config) = (
        xdg("XDG_DATA_HOME", ".local/share"),
        xdg("XDG_CONFIG_HOME", ".config"),
    );
    let (dir, file) = match shell {
        clap_complete::Shell::Bash => (
            data.join("bash-completion/completions"),
            BIN_NAME.to_string(),
        ),
        clap_complete::Shell::Zsh => (data.join("zsh/site-functions"), format!("_{BIN_NAME}")),
        clap_complete::Shell::Fish => (config.join("fish/completions"), format!("{BIN_NAME}.fish")),
        other => {
            return Err(UsageError(format!(
                "completions --install knows where bash, zsh and fish look; for {other}, print the script and load it from your profile"
            )));
        }
    };
    let path = dir.join(file);
    std::fs::create_dir_all(&dir)
        .and_then(|()| crate::sys::atomic_write(&path, &script))
        .map_err(|e| {
            UsageError(format!(
                "completions --install: cannot write {}: {e}",
                path.display()
            ))
        })?;
    printer.stdout_raw(&format!("{}\n", path.display()));
    if shell == clap_complete::Shell::Zsh {
        printer.error_text(&format!(
            "zsh reads it when {} is in fpath: add `fpath=({} $fpath)` before compinit in ~/.zshrc",
            dir.display(),
            dir.display()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

/// The user's home folder, from `HOME`.
fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// Everyday examples of the pages that are not a tool's (`""` is the main
/// page, then the meta-commands'); a tool's are in its row (`tools`).
const PAGE_EXAMPLES: &[(&str, &str, &str)] = &[
    (
        "",
        "Read a file, numbered like cat -n",
        "indus-tool read Cargo.toml",
    ),
    (
        "",
        "Search a tree as rg would, and branch on the result",
        "indus-tool grep -q 'fn main' src && echo found",
    ),
    (
        "",
        "Count the lines of every TOML file",
        "indus-tool find -e toml -0 | xargs -0 wc -l",
    ),
    (
        "",
        "Replace a span and see the diff",
        "indus-tool edit src/lib.rs --old-text 'old' --new-text 'new'",
    ),
    (
        "",
        "Compare two trees as diff -ru does",
        "indus-tool diff -r before after",
    ),
    (
        "diff",
        "Two files, unified",
        "indus-tool diff -u old.txt new.txt",
    ),
    (
        "diff",
        "Which files of two trees differ",
        "indus-tool diff -qr before after",
    ),
    (
        "diff",
        "A patch of two trees, applied with patch",
        "indus-tool diff -ru a b > change.patch; patch -d a -p1 < change.patch",
    ),
    (
        "trust",
        "The configuration files trusted, and whether each is unchanged",
        "indus-tool trust --list",
    ),
];

/// Every example, per page: a description and a command line run from a project
/// folder. tests/it/shell.rs runs every one.
pub fn examples() -> Vec<(&'static str, &'static str, &'static str)> {
    let mut all = PAGE_EXAMPLES.to_vec();
    for row in ROWS {
        all.extend(
            row.examples
                .iter()
                .map(|(what, line)| (row.tool, *what, *line)),
        );
    }
    all
}

/// The EXIT STATUS and EXAMPLES sections of a man page (roff), appended to what
/// clap_mangen renders.
fn man_sections(page: &str) -> String {
    let status: &[(&str, &str)] = match page {
        "diff" => &[
            ("0", "The files (or trees) are equal."),
            ("1", "They differ."),
            ("2", "Trouble: a file could not be read, a usage error."),
        ],
        "trust" => &[
            ("0", "Done."),
            (
                "1",
                "A file could not be trusted (absent, not a regular file, over 1 MiB, or the user's state folder unusable), or with no FILE no project configuration file was found.",
            ),
            ("2", "A usage error."),
        ],
        "" => &[
            (
                "0",
                "Success; for grep and find, something was found; for diff, equal.",
            ),
            (
                "1",
                "The tool reported an error (is_error); for grep and find, nothing was found; for diff, different.",
            ),
            (
                "2",
                "A usage error (unknown flag, malformed --json, unknown tool); for grep, find and diff, any trouble.",
            ),
            ("128+N", "Interrupted by signal N while a command ran."),
        ],
        tool => row_of(tool).man_status.unwrap_or(PLAIN_STATUS),
    };
    let esc = |t: &str| t.replace('\\', "\\e").replace('-', "\\-");
    let mut out = String::from(".SH \"EXIT STATUS\"\n");
    for (code, what) in status {
        out.push_str(&format!(".TP\n\\fB{code}\\fR\n{}\n", esc(what)));
    }
    let examples: Vec<_> = examples().into_iter().filter(|e| e.0 == page).collect();
    if !examples.is_empty() {
        out.push_str(".SH EXAMPLES\n");
        for (_, what, line) in examples {
            out.push_str(&format!(
                ".TP\n{}\n.nf\n\\f(CW{}\\fR\n.fi\n",
                esc(what),
                esc(line)
            ));
        }
    }
    out
}

/// Write `indus-tool.1` and one page per subcommand into `dir`.
pub fn write_man_pages(
    descriptors: &[ToolDescriptor],
    dir: &Path,
) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let cmd = build_command(descriptors);
    let source = format!("{BIN_NAME} {}", env!("CARGO_PKG_VERSION"));
    let mut written = Vec::new();
    let mut render = |cmd: clap::Command, file: String| -> std::io::Result<()> {
        let mut buf = Vec::new();
        let name = cmd.get_name().to_string();
        clap_mangen::Man::new(cmd)
            .source(source.clone())
            .render(&mut buf)?;
        let page = name.strip_prefix(&format!("{BIN_NAME}-")).unwrap_or("");
        buf.extend_from_slice(man_sections(page).as_bytes());
        let path = dir.join(file);
        std::fs::write(&path, buf)?;
        written.push(path);
        Ok(())
    };
    render(cmd.clone(), format!("{BIN_NAME}.1"))?;
    // A hidden command (the brokers' own) is no reader's: no page.
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        // The page is `indus-tool-grep(1)`, as git's are `git-commit(1)`, but its
        // SYNOPSIS shows the command as typed: clap_mangen writes the bin name
        // there, and the title and NAME from the command's name.
        let page = format!("{BIN_NAME}-{}", sub.get_name());
        let typed = format!("{BIN_NAME} {}", sub.get_name());
        render(
            sub.clone().name(page.clone()).bin_name(typed),
            format!("{page}.1"),
        )?;
    }
    Ok(written)
}

pub(crate) fn man(
    descriptors: &[ToolDescriptor],
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let dir = match (m.get_one::<PathBuf>("dir"), m.contains_id("install")) {
        (Some(dir), _) => dir.clone(),
        (None, true) => {
            let prefix = match m.get_one::<PathBuf>("install") {
                Some(p) => p.clone(),
                None => home()
                    .ok_or_else(|| {
                        UsageError("man --install: HOME is not set; give a PREFIX".to_string())
                    })?
                    .join(".local"),
            };
            prefix.join("share/man/man1")
        }
        (None, false) => return Err(UsageError("man: give a DIR or --install".to_string())),
    };
    let written = write_man_pages(descriptors, &dir)
        .map_err(|e| UsageError(format!("man {}: {e}", dir.display())))?;
    let mut out = String::new();
    for p in written {
        out.push_str(&format!("{}\n", p.display()));
    }
    printer.stdout_raw(&out);
    Ok(ExitCode::SUCCESS)
}

/// The family a command is listed under in `indus-tool --help`: its row's, and
/// for a grafted MCP tool "MCP".
fn group_of(name: &str) -> &'static str {
    match row_of(name) {
        row if !row.tool.is_empty() => row.group,
        _ if command::is_grafted(name) => "MCP",
        _ => PLAIN.group,
    }
}

/// One help line's summary, cut to fit a terminal line.
fn one_line(text: &str, room: usize) -> String {
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if first.chars().count() <= room {
        return first.to_string();
    }
    let cut: String = first.chars().take(room.saturating_sub(1)).collect();
    format!("{}…", cut.trim_end())
}

/// The root `--help` for people: the tools this invocation exposes, grouped by
/// family, one line each, then the meta-commands; every other subcommand stays
/// callable but unlisted. A tool's long guidance stays in `<tool> --help`.
pub fn people_help(mut cmd: clap::Command, exposed: &[String], selection: &str) -> clap::Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    let mut rows: Vec<(&str, String, String)> = Vec::new();
    let mut meta: Vec<(String, String)> = Vec::new();
    for sub in cmd.get_subcommands() {
        let name = sub.get_name().to_string();
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        if META_COMMANDS.contains(&name.as_str()) || name == "diff" {
            if !sub.is_hide_set() {
                meta.push((name, about));
            }
        } else if exposed.contains(&name) {
            let title = crate::deck::find_row(&name)
                .filter(|r| r.id == name)
                .map_or(about, |r| r.summary.to_string());
            rows.push((group_of(&name), name, title));
        }
    }
    let width = rows
        .iter()
        .map(|r| r.1.len())
        .chain(meta.iter().map(|m| m.0.len()))
        .max()
        .unwrap_or(0);
    let mut text = format!("Tools ({selection}):\n");
    for group in GROUPS {
        let members: Vec<_> = rows.iter().filter(|r| r.0 == *group).collect();
        if members.is_empty() {
            continue;
        }
        text.push_str(&format!("  {group}:\n"));
        for (_, name, about) in members {
            text.push_str(&format!(
                "    {name:<width$}  {}\n",
                one_line(about, 96usize.saturating_sub(width + 6))
            ));
        }
    }
    text.push_str("\nCommands:\n");
    for (name, about) in &meta {
        text.push_str(&format!(
            "    {name:<width$}  {}\n",
            one_line(about, 96usize.saturating_sub(width + 6))
        ));
    }
    text.push_str(
        "\nRun 'indus-tool TOOL --help' for a tool's flags. Other profiles (--profile authoring|survey|all|buddy) expose other tools.\n\nExit status: 0 success (grep: found), 1 the tool reported an error (grep, find -q: nothing found, or grep --offset past the last match; diff: files differ), 2 a usage error (grep/find/diff: any trouble).",
    );
    for name in names {
        cmd = cmd.mut_subcommand(name, |c| c.hide(true));
    }
    // `--help` is the same one screen as `-h` here: the options' long texts are
    // the man page's business.
    cmd.disable_help_flag(true)
        .arg(
            clap::Arg::new("help")
                .short('h')
                .long("help")
                .action(clap::ArgAction::HelpShort)
                .help("Print this help (a tool's own: indus-tool TOOL --help)"),
        )
        .override_usage("indus-tool [OPTIONS] <TOOL> [ARGS]...")
        .before_help(text)
        .help_template("{about-with-newline}\n{usage-heading} {usage}\n\n{before-help}Global options (before or after the tool name):\n{options}\n")
}
