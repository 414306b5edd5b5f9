//! The buddy profile's configuration: `.indusvx/buddy.json` in the working
//! directory, then `$XDG_CONFIG_HOME/indusvx/buddy.json` (default `~/.config`),
//! the earlier file winning key by key; and the approval policy,
//! `.indusvx/policy.json` and `$XDG_CONFIG_HOME/indusvx/policy.json`, whose rules
//! add up. Unknown keys are ignored; a file that is not JSON is skipped with a
//! warning naming it, never silently.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

/// How many identical failures of one call a session allows before suppressing it.
pub const DEFAULT_SUPPRESS_AFTER: u32 = 3;

/// The settings read from `buddy.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuddyConfig {
    /// `"shell_confirm": true` asks before every command (as `--confirm`).
    pub shell_confirm: Option<bool>,
    /// `"suppress_after": N`: identical failures allowed before suppression.
    pub suppress_after: Option<u32>,
    /// `"tmux": {…}`: where and how many managed tmux sessions and panes.
    pub tmux: TmuxSettings,
}

/// The `tmux` object of `buddy.json`; each key merged on its own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct TmuxSettings {
    /// The tmux server: a socket name (`tmux -L`) or, with a `/`, a socket path
    /// (`tmux -S`). `INDUS_TMUX_SOCKET` beats it.
    pub socket: Option<String>,
    /// The owner part of managed names (`indus-<owner>-<name>`).
    pub owner: Option<String>,
    /// At most this many managed sessions (the shared one included).
    pub max_sessions: Option<usize>,
    /// At most this many managed panes per session (its shared pane included).
    pub max_panes: Option<usize>,
}

/// Allow and deny rules on command prefixes, and where each came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    pub allow: Vec<Rule>,
    pub deny: Vec<Rule>,
}

/// One rule: the words a command must start with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub text: String,
    pub words: Vec<String>,
    pub file: PathBuf,
}

#[derive(Deserialize, Default)]
struct BuddyFile {
    shell_confirm: Option<bool>,
    suppress_after: Option<u32>,
    #[serde(default)]
    tmux: TmuxSettings,
}

#[derive(Deserialize, Default)]
struct PolicyFile {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

/// `<cwd>/.indusvx/NAME`, then the user's `indusvx/NAME`.
fn candidates(cwd: &Path, name: &str) -> Vec<PathBuf> {
    let mut files = vec![cwd.join(".indusvx").join(name)];
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
    if let Some(dir) = config {
        files.push(dir.join("indusvx").join(name));
    }
    files
}

/// Every existing file of `name` parsed as `T`; warnings for those that are not.
fn read_all<T: serde::de::DeserializeOwned>(
    cwd: &Path,
    name: &str,
    warnings: &mut Vec<String>,
) -> Vec<(PathBuf, T)> {
    let mut out = Vec::new();
    for file in candidates(cwd, name) {
        let text = match std::fs::read_to_string(&file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                warnings.push(format!("{}: cannot be read ({e}); skipped", file.display()));
                continue;
            }
        };
        match serde_json::from_str::<Value>(&text).and_then(serde_json::from_value::<T>) {
            Ok(v) => out.push((file, v)),
            Err(e) => warnings.push(format!("{}: {e}; skipped", file.display())),
        }
    }
    out
}

impl BuddyConfig {
    /// The merged settings of `cwd`, and a warning per file skipped.
    pub fn load(cwd: &Path) -> (BuddyConfig, Vec<String>) {
        let mut warnings = Vec::new();
        let mut config = BuddyConfig::default();
        for (_, file) in read_all::<BuddyFile>(cwd, "buddy.json", &mut warnings) {
            config.shell_confirm = config.shell_confirm.or(file.shell_confirm);
            config.suppress_after = config.suppress_after.or(file.suppress_after);
            let (into, from) = (&mut config.tmux, file.tmux);
            into.socket = into.socket.take().or(from.socket);
            into.owner = into.owner.take().or(from.owner);
            into.max_sessions = into.max_sessions.or(from.max_sessions);
            into.max_panes = into.max_panes.or(from.max_panes);
        }
        (config, warnings)
    }
}

impl Policy {
    /// Every rule of `cwd`'s policy files, and a warning per file skipped.
    pub fn load(cwd: &Path) -> (Policy, Vec<String>) {
        let mut warnings = Vec::new();
        let mut policy = Policy::default();
        for (file, rules) in read_all::<PolicyFile>(cwd, "policy.json", &mut warnings) {
            for (texts, into) in [
                (rules.allow, &mut policy.allow),
                (rules.deny, &mut policy.deny),
            ] {
                for text in texts {
                    let words = super::approval::words_of(&text);
                    if words.is_empty() {
                        continue;
                    }
                    into.push(Rule {
                        text,
                        words,
                        file: file.clone(),
                    });
                }
            }
        }
        (policy, warnings)
    }

    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }
}
