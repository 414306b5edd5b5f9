//! The committed completion scripts (`completions/`), loaded into the real shells and
//! asked for completions the way a user's TAB asks: bash through the function its
//! `complete -F` registered, zsh through its completion system driven on a
//! pseudo-terminal, fish through `complete -C`.
//!
//! `tests/it/docs.rs` checks the scripts are what the binary generates; this checks
//! that what it generates works. A shell that is not installed is skipped with a loud
//! NOTE, except in CI (`CI` set), where `.ci/run` installs all three and a missing
//! one fails the test.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What every shell must offer: the line typed so far, and one completion of it.
const CASES: [(&str, &str); 13] = [
    ("indus-tool gr", "grep"),
    ("indus-tool grep --ig", "--ignore-case"),
    ("indus-tool todo_set --i", "--items"),
    ("indus-tool --format ", "json"),
    ("indus-tool schema --for ", "anthropic"),
    // A positional's allowed values (the tool's enum) and fd's -t letters.
    ("indus-tool process ", "poll"),
    ("indus-tool process ", "start"),
    ("indus-tool find -t ", "f"),
    ("indus-tool find -t ", "d"),
    ("indus-tool find -t ", "l"),
    ("indus-tool find -t ", "x"),
    ("indus-tool grep --files-w", "--files-with-matches"),
    ("indus-tool diff --rec", "--recursive"),
];

fn committed(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("completions")
        .join(file)
}

/// Whether `shell` runs here; when it does not, say so loudly (or fail, in CI).
fn have(shell: &str) -> bool {
    let runs = Command::new(shell)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !runs {
        assert!(
            std::env::var_os("CI").is_none_or(|v| v.is_empty()),
            "{shell} is not installed, but CI must run every shell's completion test: .ci/run installs it"
        );
        common::skipped(&format!(
            "{shell} is not installed: its completion script was not tested (apt-get install {shell})"
        ));
    }
    runs
}

/// `shell` with nothing of the user's: an empty home and config folders, the
/// working directory empty too (so file-name completion adds nothing).
fn hermetic(shell: &str, home: &Path) -> Command {
    let mut cmd = Command::new(shell);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("TERM", "xterm")
        .env("LANG", "C.UTF-8")
        .current_dir(home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Run `cmd` for at most 30 s; its stdout, one completion per line.
fn completions_from(mut cmd: Command, what: &str) -> Vec<String> {
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    let end = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: the shell did not finish within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{what}: exit {:?}\nstdout: {stdout}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn check(shell: &str, complete: impl Fn(&str) -> Vec<String>) {
    for (line, wanted) in CASES {
        let offered = complete(line);
        assert!(
            offered.iter().any(|c| c == wanted),
            "{shell}: `{line}<TAB>` offers {offered:?}, not {wanted:?}"
        );
    }
}

/// Sources the script, sets the variables bash sets for a TAB at the end of the
/// line, calls the function `complete -p indus-tool` names, prints COMPREPLY.
const BASH_HARNESS: &str = r#"
source "$1" || exit 3
line=$2
spec=$(complete -p indus-tool) || { echo "the script registered no completion for indus-tool" >&2; exit 4; }
fn=${spec##*-F }
fn=${fn%% *}
read -ra COMP_WORDS <<< "$line"
[[ $line == *' ' ]] && COMP_WORDS+=('')
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE=$line
COMP_POINT=${#line}
COMPREPLY=()
"$fn" indus-tool "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;

#[test]
fn bash_completes_with_the_committed_script() {
    if !have("bash") {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let harness = home.path().join("harness.bash");
    std::fs::write(&harness, BASH_HARNESS).unwrap();
    let script = committed("indus-tool.bash");
    check("bash", |line| {
        let mut cmd = hermetic("bash", home.path());
        cmd.arg("--norc")
            .arg("--noprofile")
            .arg(&harness)
            .arg(&script)
            .arg(line);
        completions_from(cmd, &format!("bash `{line}`"))
    });
}

/// Runs an interactive `zsh -f` on a pseudo-terminal (zsh/zpty), which sources this
/// file with `--setup`: the script's folder goes on `fpath`, `compinit` loads it as
/// a user's setup would, and `compadd` is wrapped to print every match it is given
/// between two markers. Then the line is typed with a TAB after it; the matches
/// are read back until the end marker.
const ZSH_HARNESS: &str = r#"
if [[ $1 == --setup ]]; then
  PS1= PROMPT= RPROMPT=
  setopt no_beep
  fpath=($2 $fpath)
  autoload -Uz compinit && compinit -u -D
  zstyle ':completion:*' menu no
  compadd() {
    # -O, -A and -D only fill arrays for the completion functions' own use.
    if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return; fi
    local -a __matches
    builtin compadd -O __matches "$@"
    local m; for m in $__matches; do print -r -- "MATCH:$m"; done
    builtin compadd "$@"
  }
  _harness_begin() { print -r -- "<<BEGIN>>" }
  _harness_end() { print -r -- "<<END>>"; exit }
  compprefuncs=(_harness_begin) comppostfuncs=(_harness_end)
  return
fi
zmodload zsh/zpty || exit 3
zpty shell zsh -f -i
zpty -w shell "source ${(q)0:A} --setup ${(q)1}"
zpty -n -w shell "$2"$'\t'
out=
while zpty -r shell chunk; do
  out+=$chunk
  [[ $out == *'<<END>>'* ]] && break
done
zpty -d shell
[[ $out == *'<<END>>'* ]] || { print -r -- "completion never finished: $out" >&2; exit 4 }
print -r -- "$out" | tr -d '\r' | sed -n '/<<BEGIN>>/,/<<END>>/p' | sed -n 's/^MATCH://p'
"#;

#[test]
fn zsh_completes_with_the_committed_script() {
    if !have("zsh") {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let harness = home.path().join("harness.zsh");
    std::fs::write(&harness, ZSH_HARNESS).unwrap();
    // An fpath folder holding the one committed script, as installed.
    let functions = home.path().join("functions");
    std::fs::create_dir(&functions).unwrap();
    std::fs::copy(committed("_indus-tool"), functions.join("_indus-tool")).unwrap();
    check("zsh", |line| {
        let mut cmd = hermetic("zsh", home.path());
        cmd.arg("-f").arg(&harness).arg(&functions).arg(line);
        completions_from(cmd, &format!("zsh `{line}`"))
    });
}

#[test]
fn fish_completes_with_the_committed_script() {
    if !have("fish") {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let script = committed("indus-tool.fish");
    check("fish", |line| {
        let mut cmd = hermetic("fish", home.path());
        cmd.arg("--no-config")
            .arg("-c")
            .arg("source $argv[1]; and complete -C $argv[2]")
            .arg(&script)
            .arg(line);
        // fish prints `completion<TAB>description`.
        completions_from(cmd, &format!("fish `{line}`"))
            .into_iter()
            .map(|c| c.split('\t').next().unwrap_or_default().to_string())
            .collect()
    });
}

/// Grafted MCP tools complete at the command's place in every shell, read from
/// the ledger cache: the server (which counts its starts) is started once, by the
/// `list` that warms the cache, and never by a TAB.
#[cfg(feature = "mcp")]
#[test]
fn grafted_mcp_tools_complete_from_the_cache_without_starting_a_server() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("project");
    std::fs::create_dir_all(project.join(".indusvx")).unwrap();
    let bin = assert_cmd::cargo::cargo_bin("indus-tool");
    let starts = project.join("starts");
    let server = format!(
        "echo start >> '{}'; exec '{}' --cwd '{}' mcp --no-gate",
        starts.display(),
        bin.display(),
        project.display()
    );
    std::fs::write(
        project.join(".indusvx/mcp.json"),
        serde_json::json!({"mcpServers": {"peer": {"command": "sh", "args": ["-c", server]}}})
            .to_string(),
    )
    .unwrap();
    // A project's MCP config is used once the user trusted it.
    let trusted = hermetic(&bin.to_string_lossy(), home.path())
        .current_dir(&project)
        .args(["trust", ".indusvx/mcp.json"])
        .output()
        .unwrap();
    assert!(trusted.status.success(), "{trusted:?}");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let warm = hermetic(&bin.to_string_lossy(), home.path())
        .current_dir(&project)
        .arg("list")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&warm.stdout).contains("peer__read"));
    let started = || std::fs::read_to_string(&starts).unwrap().lines().count();
    assert_eq!(started(), 1);
    let wanted = |shell: &str, offered: Vec<String>| {
        assert!(
            offered.iter().any(|c| c == "peer__read"),
            "{shell}: `indus-tool peer__r<TAB>` offers {offered:?}"
        );
        assert!(
            !offered.iter().any(|c| c == "peer__bash"),
            "{shell}: {offered:?}"
        );
    };
    if have("bash") {
        let harness = home.path().join("harness.bash");
        std::fs::write(&harness, BASH_HARNESS).unwrap();
        let bash = |line: &str| {
            let mut cmd = hermetic("bash", home.path());
            cmd.current_dir(&project)
                .env("PATH", &path)
                .arg("--norc")
                .arg("--noprofile")
                .arg(&harness)
                .arg(committed("indus-tool.bash"))
                .arg(line);
            completions_from(cmd, &format!("bash `{line}`"))
        };
        for line in ["indus-tool peer__r", "indus-tool --format json peer__r"] {
            wanted("bash", bash(line));
        }
        // After a command, no grafted name is offered.
        let offered = bash("indus-tool read peer__r");
        assert!(!offered.iter().any(|c| c == "peer__read"), "{offered:?}");
    }
    if have("zsh") {
        let harness = home.path().join("harness.zsh");
        std::fs::write(&harness, ZSH_HARNESS).unwrap();
        let functions = home.path().join("functions");
        std::fs::create_dir_all(&functions).unwrap();
        std::fs::copy(committed("_indus-tool"), functions.join("_indus-tool")).unwrap();
        let mut cmd = hermetic("zsh", home.path());
        cmd.current_dir(&project)
            .env("PATH", &path)
            .arg("-f")
            .arg(&harness)
            .arg(&functions)
            .arg("indus-tool peer__r");
        wanted("zsh", completions_from(cmd, "zsh grafted"));
    }
    if have("fish") {
        let mut cmd = hermetic("fish", home.path());
        cmd.current_dir(&project)
            .env("PATH", &path)
            .arg("--no-config")
            .arg("-c")
            .arg("source $argv[1]; and complete -C $argv[2]")
            .arg(committed("indus-tool.fish"))
            .arg("indus-tool peer__r");
        let offered = completions_from(cmd, "fish grafted")
            .into_iter()
            .map(|c| c.split('\t').next().unwrap_or_default().to_string())
            .collect();
        wanted("fish", offered);
    }
    assert_eq!(started(), 1, "a completion started the MCP server");
}

/// `completions fish --install` writes where fish autoloads completions from:
/// a fresh fish completes the command without sourcing anything.
#[test]
fn fish_finds_the_installed_script_by_itself() {
    if !have("fish") {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let out = common::bin_std()
        .args(["completions", "fish", "--install"])
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join(".config"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let installed = home.path().join(".config/fish/completions/indus-tool.fish");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        installed.display().to_string()
    );
    // As a user has it: the command on PATH (fish loads a command's completions
    // only for a command it can find).
    let bin = assert_cmd::cargo::cargo_bin("indus-tool");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = hermetic("fish", home.path());
    cmd.env("PATH", path)
        .arg("-c")
        .arg("complete -C 'indus-tool gr'");
    let got: Vec<String> = completions_from(cmd, "fish with the installed script")
        .into_iter()
        .map(|c| c.split('\t').next().unwrap_or_default().to_string())
        .collect();
    assert!(got.iter().any(|c| c == "grep"), "{got:?}");
}
