//! The buddy profile's configuration: `.indusvx/buddy.json` in the working
//! directory, then `$XDG_CONFIG_HOME/indusvx/buddy.json` (default `~/.config`),
//! the earlier file winning key by key; and the approval policy,
//! `.indusvx/policy.json` and `$XDG_CONFIG_HOME/indusvx/policy.json`, whose rules
//! add up. Unknown keys are ignored; a file that is not JSON is skipped with a
//! warning naming it, never silently.
//!
//! The project's files come with the checkout, which may be a stranger's, so
//! until the user trusted one (`indus-tool trust FILE`, see `state::trust`) it
//! can only tighten what the user set, never loosen it: `shell_confirm: true`
//! counts and `false` does not; `suppress_after`, `tmux.max_sessions` and
//! `tmux.max_panes` count only when no larger than the user's (or the
//! default); `tmux.socket` and `tmux.owner`, which would point the tmux tools
//! at another server or another owner's sessions, do not count; of the policy,
//! the deny rules count and the allow rules do not. What is left out is named
//! once on stderr with the command that trusts the file. A trusted project file
//! counts in full, ahead of the user's.
//!
//! One key is the user's alone: `web.allow_private_network` (what the web tools
//! may reach on a private network) is read from the user's `buddy.json` only,
//! never from a project's, trusted or not ([`WebSettings::load`]).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

/// How many identical failures of one call a session allows before suppressing it.
pub const DEFAULT_SUPPRESS_AFTER: u32 = 3;

/// Managed sessions allowed when `buddy.json` does not say (the shared one counts).
pub const DEFAULT_MAX_SESSIONS: usize = 8;
/// Managed panes per session allowed when `buddy.json` does not say.
pub const DEFAULT_MAX_PANES: usize = 8;

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

/// The `web` object of the user's own `buddy.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct WebSettings {
    /// What `webfetch` and `websearch` may reach on a private network
    /// (loopback, link-local, private ranges …), which they otherwise refuse.
    pub allow_private_network: Option<PrivateNetwork>,
}

/// `"allow_private_network"`: `true` (everything), `false` (nothing), or a list
/// of addresses (`127.0.0.1`, `::1`), ranges (`10.0.0.0/8`, `fd00::/8`) and host
/// names (`intranet.example`) that may be reached.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum PrivateNetwork {
    All(bool),
    Only(Vec<String>),
}

#[derive(Deserialize, Default)]
struct UserWebFile {
    #[serde(default)]
    web: WebSettings,
}

impl WebSettings {
    /// The `web` object of `$XDG_CONFIG_HOME/indusvx/buddy.json` (default
    /// `~/.config`), and why it was not read when it exists and could not be.
    /// A project's `.indusvx/buddy.json` is never read for it, trusted or not:
    /// a checkout must not open the private network to the web tools.
    pub fn load() -> (WebSettings, Option<String>) {
        let Some(file) = user_file("buddy.json") else {
            return (WebSettings::default(), None);
        };
        let bytes = match crate::state::trust::read_config(&file) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return (WebSettings::default(), None),
            Err(e) => {
                let why = format!("{} cannot be read ({e})", file.display());
                return (WebSettings::default(), Some(why));
            }
        };
        match serde_json::from_slice::<Value>(&bytes)
            .and_then(serde_json::from_value::<UserWebFile>)
        {
            Ok(read) => (read.web, None),
            Err(e) => (
                WebSettings::default(),
                Some(format!("{}: {e}", file.display())),
            ),
        }
    }
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

#[derive(Deserialize, Default, Debug, Clone, PartialEq, Eq)]
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
    files.extend(user_file(name));
    files
}

/// The user's `$XDG_CONFIG_HOME/indusvx/NAME` (default `~/.config`).
fn user_file(name: &str) -> Option<PathBuf> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
    config.map(|dir| dir.join("indusvx").join(name))
}

/// One file read: its path, its value, and whether it counts in full (the
/// user's own, or a project file the user trusted).
struct Found<T> {
    file: PathBuf,
    value: T,
    trusted: bool,
}

/// Every existing file of `name` parsed as `T`, project first; warnings for
/// those that are not.
fn read_all<T: serde::de::DeserializeOwned>(
    cwd: &Path,
    name: &str,
    warnings: &mut Vec<String>,
) -> Vec<Found<T>> {
    use crate::state::trust::{is_trusted, read_config, same_file};
    let files = candidates(cwd, name);
    let mut out = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let bytes = match read_config(file) {
            Ok(Some(b)) => b,
            Ok(None) => continue,
            Err(e) => {
                warnings.push(format!("{}: cannot be read ({e}); skipped", file.display()));
                continue;
            }
        };
        // The project's file (the first) counts in full only when trusted, or
        // when it is the user's own file reached through the project.
        let trusted =
            i > 0 || is_trusted(file, &bytes) || files[1..].iter().any(|u| same_file(u, file));
        match serde_json::from_slice::<Value>(&bytes).and_then(serde_json::from_value::<T>) {
            Ok(value) => out.push(Found {
                file: file.clone(),
                value,
                trusted,
            }),
            Err(e) => warnings.push(format!("{}: {e}; skipped", file.display())),
        }
    }
    out
}

/// `later`'s keys where `into` has none: the earlier file wins key by key.
fn merge(into: &mut BuddyFile, later: BuddyFile) {
    into.shell_confirm = into.shell_confirm.or(later.shell_confirm);
    into.suppress_after = into.suppress_after.or(later.suppress_after);
    let (into, from) = (&mut into.tmux, later.tmux);
    into.socket = into.socket.take().or(from.socket);
    into.owner = into.owner.take().or(from.owner);
    into.max_sessions = into.max_sessions.or(from.max_sessions);
    into.max_panes = into.max_panes.or(from.max_panes);
}

/// A limit of the project's in place of the user's when it is the tighter
/// (lower) one, against the user's or else the default; a looser one is left
/// out and its `key` noted.
fn lower<T: Copy + Ord>(
    key: &'static str,
    mine: Option<T>,
    theirs: Option<T>,
    default: T,
    ignored: &mut Vec<&'static str>,
) -> Option<T> {
    match theirs {
        Some(t) if t <= mine.unwrap_or(default) => Some(t),
        Some(_) => {
            ignored.push(key);
            mine
        }
        None => mine,
    }
}

/// What an untrusted project file may add to the user's settings: only what
/// tightens them. The project's settings that loosen or redirect something
/// are left out and named in the second value.
fn tighten(user: BuddyFile, project: BuddyFile) -> (BuddyFile, Vec<&'static str>) {
    let mut ignored = Vec::new();
    let mut out = user;
    match project.shell_confirm {
        Some(true) => out.shell_confirm = Some(true),
        // `false` would only matter against the user's `true`.
        Some(false) if out.shell_confirm == Some(true) => ignored.push("shell_confirm"),
        _ => {}
    }
    out.suppress_after = lower(
        "suppress_after",
        out.suppress_after,
        project.suppress_after,
        DEFAULT_SUPPRESS_AFTER,
        &mut ignored,
    );
    out.tmux.max_sessions = lower(
        "tmux.max_sessions",
        out.tmux.max_sessions,
        project.tmux.max_sessions,
        DEFAULT_MAX_SESSIONS,
        &mut ignored,
    );
    out.tmux.max_panes = lower(
        "tmux.max_panes",
        out.tmux.max_panes,
        project.tmux.max_panes,
        DEFAULT_MAX_PANES,
        &mut ignored,
    );
    if project.tmux.socket.is_some() {
        ignored.push("tmux.socket");
    }
    if project.tmux.owner.is_some() {
        ignored.push("tmux.owner");
    }
    (out, ignored)
}

impl BuddyConfig {
    /// The merged settings of `cwd`, and a warning per file skipped (or per
    /// untrusted project file whose settings were left out).
    pub fn load(cwd: &Path) -> (BuddyConfig, Vec<String>) {
        let mut warnings = Vec::new();
        let mut merged = BuddyFile::default();
        let mut untrusted = None;
        for found in read_all::<BuddyFile>(cwd, "buddy.json", &mut warnings) {
            if found.trusted {
                merge(&mut merged, found.value);
            } else {
                untrusted = Some((found.file, found.value));
            }
        }
        if let Some((file, project)) = untrusted {
            let (tight, ignored) = tighten(merged, project);
            merged = tight;
            if !ignored.is_empty() {
                let plural = if ignored.len() > 1 { "s" } else { "" };
                let what = format!("the {} setting{plural}", ignored.join(", "));
                warnings.push(crate::state::trust::untrusted_text(&what, &file));
            }
        }
        let config = BuddyConfig {
            shell_confirm: merged.shell_confirm,
            suppress_after: merged.suppress_after,
            tmux: merged.tmux,
        };
        (config, warnings)
    }
}

impl Policy {
    /// Every rule of `cwd`'s policy files, and a warning per file skipped.
    pub fn load(cwd: &Path) -> (Policy, Vec<String>) {
        let mut warnings = Vec::new();
        let mut policy = Policy::default();
        for found in read_all::<PolicyFile>(cwd, "policy.json", &mut warnings) {
            let (file, mut rules) = (found.file, found.value);
            // An untrusted project's allow rules would let its own commands run
            // unasked: only its deny rules count.
            if !found.trusted && !rules.allow.is_empty() {
                rules.allow.clear();
                warnings.push(crate::state::trust::untrusted_text(
                    "the allow rules",
                    &file,
                ));
            }
            for (texts, into) in [
                (rules.allow, &mut policy.allow),
                (rules.deny, &mut policy.deny),
            ] {
                for text in texts {
                    let words = crate::kernel::shell_words::words_of(&text);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn file(json: &str) -> BuddyFile {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn an_untrusted_project_can_only_tighten() {
        // The user asks before commands; the project cannot turn that off.
        let (out, ignored) = tighten(
            file(r#"{"shell_confirm": true}"#),
            file(r#"{"shell_confirm": false}"#),
        );
        assert_eq!(out.shell_confirm, Some(true));
        assert_eq!(ignored, ["shell_confirm"]);
        // It can turn asking on.
        let (out, ignored) = tighten(file("{}"), file(r#"{"shell_confirm": true}"#));
        assert_eq!(out.shell_confirm, Some(true));
        assert!(ignored.is_empty());
        // A `false` that changes nothing is not worth a line.
        let (out, ignored) = tighten(file("{}"), file(r#"{"shell_confirm": false}"#));
        assert_eq!(out.shell_confirm, None);
        assert!(ignored.is_empty());
        // Limits: lower counts, higher does not (against the user's, else the default).
        let (out, ignored) = tighten(
            file(r#"{"suppress_after": 5, "tmux": {"max_panes": 2}}"#),
            file(r#"{"suppress_after": 2, "tmux": {"max_sessions": 50, "max_panes": 4}}"#),
        );
        assert_eq!(out.suppress_after, Some(2));
        assert_eq!(out.tmux.max_sessions, None);
        assert_eq!(out.tmux.max_panes, Some(2));
        assert_eq!(ignored, ["tmux.max_sessions", "tmux.max_panes"]);
        let (out, ignored) = tighten(file("{}"), file(r#"{"suppress_after": 9}"#));
        assert_eq!(out.suppress_after, None);
        assert_eq!(ignored, ["suppress_after"]);
        // Another tmux server or owner is never the project's to choose.
        let (out, ignored) = tighten(
            file(r#"{"tmux": {"socket": "/tmp/x"}}"#),
            file(r#"{"tmux": {"socket": "/tmp/theirs", "owner": "victim"}}"#),
        );
        assert_eq!(out.tmux.socket.as_deref(), Some("/tmp/x"));
        assert_eq!(out.tmux.owner, None);
        assert_eq!(ignored, ["tmux.socket", "tmux.owner"]);
    }

    #[test]
    fn the_web_settings_take_a_switch_or_a_list() {
        let read = |json: &str| serde_json::from_str::<UserWebFile>(json).map(|f| f.web);
        assert_eq!(read("{}").unwrap(), WebSettings::default());
        assert_eq!(
            read(r#"{"web": {"allow_private_network": true}}"#)
                .unwrap()
                .allow_private_network,
            Some(PrivateNetwork::All(true))
        );
        assert_eq!(
            read(r#"{"web": {"allow_private_network": ["10.0.0.0/8", "intranet"]}}"#)
                .unwrap()
                .allow_private_network,
            Some(PrivateNetwork::Only(vec![
                "10.0.0.0/8".into(),
                "intranet".into()
            ]))
        );
        assert!(read(r#"{"web": {"allow_private_network": "yes"}}"#).is_err());
        // The other keys of the file are no business of this one.
        assert!(read(r#"{"shell_confirm": true, "tmux": {"owner": "me"}}"#).is_ok());
    }

    #[test]
    fn a_trusted_file_merges_key_by_key_earlier_first() {
        let mut into = file(r#"{"shell_confirm": false, "tmux": {"owner": "me"}}"#);
        merge(
            &mut into,
            file(
                r#"{"shell_confirm": true, "suppress_after": 4, "tmux": {"owner": "x", "max_panes": 3}}"#,
            ),
        );
        assert_eq!(into.shell_confirm, Some(false));
        assert_eq!(into.suppress_after, Some(4));
        assert_eq!(into.tmux.owner.as_deref(), Some("me"));
        assert_eq!(into.tmux.max_panes, Some(3));
    }
}
