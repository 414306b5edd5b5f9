//! The tmux engine: managed sessions and panes on a real tmux server, and shell
//! commands typed into a pane so a person can attach and watch them run. It drives
//! the `tmux` program (no re-implementation of its protocol) and owns three
//! things the operator's tools (`run_shell`, `capture-pane`, `send-keys`, the
//! `tmux-*` tools) share:
//!
//! - **Names.** A managed session is `indus-<owner>-<name>`; each has a *shared*
//!   pane (its first window), and further panes are windows of their own named
//!   after the pane, tagged with the pane option `@indus_pane`. Only sessions and
//!   panes carrying that tag are managed; the default session `shared` and every
//!   session's shared pane are protected from the kill tools.
//! - **The record.** tmux itself is the truth of what exists; a small record under
//!   `.indus-process/tmux/` remembers what indus-tool created and which command
//!   each pane runs, so a session or pane killed by hand is told apart from one
//!   that never existed, and a pane still busy with an earlier command is not
//!   typed into.
//! - **Runs.** A managed pane runs `bash` with an rc file of ours: its prompt hook
//!   writes the status of the line just run and signals a `tmux wait-for`
//!   channel. A command is written to a file and the pane is sent one line,
//!   ` . '<run>/run.sh'` (the leading space keeps it out of the history), which
//!   sources the command in the pane's own shell (so `cd` and `export` persist)
//!   with stdout and stderr teed to files. Completion, exit status and output come
//!   from that marker and those files, never from sleeping or from parsing the
//!   scrollback, so output that looks like a marker, or more lines than the
//!   history holds, changes nothing; an interrupted command (`C-c`) still reaches
//!   the prompt and reports its status.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::kernel::sh_quote;
use crate::state::buddy_config::{BuddyConfig, DEFAULT_MAX_PANES, DEFAULT_MAX_SESSIONS};
use crate::state::{StateDir, file_key};

/// The selector of the default session and of every session's first pane.
pub const SHARED: &str = "shared";
/// How long a new pane's ready signal (a `tmux wait-for -S` its shell runs) may
/// take to exit once it has been received.
const SIGNAL_EXIT: Duration = Duration::from_secs(2);
/// How long an ordinary tmux command may take.
const TMUX_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a new pane's shell may take to show its first prompt.
const READY_TIMEOUT: Duration = Duration::from_secs(15);
/// How much of each output file a run reads (the result keeps 4,000 characters).
const OUTPUT_READ: u64 = 64 * 1024;

const NOT_INSTALLED: &str = "tmux is not installed (no `tmux` on PATH): the tmux tools drive a real tmux server; install tmux (Debian: apt install tmux)";

/// The rc file of a managed pane's shell. `__indus_prompt` runs before every
/// prompt, first in `PROMPT_COMMAND` so `$?` is still the line's status.
const RC_FILE: &str = r#"# Written by indus-tool: the shell of a managed tmux pane.
HISTCONTROL=ignorespace
PS1='\u@\h:\w\$ '
__indus_prompt() {
  local s=$?
  if [ -n "${__indus_run-}" ]; then
    printf '%s\n' "$s" > "$__indus_run/status"
    tmux wait-for -S "indus-done-${__indus_run##*/}"
    __indus_run=
  fi
  if [ -z "${__indus_ready-}" ]; then
    __indus_ready=1
    tmux wait-for -S "indus-ready-$TMUX_PANE"
  fi
  return $s
}
PROMPT_COMMAND=__indus_prompt
"#;

/// One pane of the managed set, as the tools name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaneRef {
    /// The tmux session name (`indus-<owner>-<name>`).
    pub session: String,
    /// The pane's managed name (`shared` or the name it was created with).
    pub name: String,
    /// tmux's pane id (`%7`), stable for the pane's life.
    pub id: String,
}

impl PaneRef {
    /// `tmux pane %7 (session indus-default-shared, pane shared)`.
    pub fn describe(&self) -> String {
        format!(
            "tmux pane {} (session {}, pane {})",
            self.id, self.session, self.name
        )
    }
}

/// A pane as `list-panes` shows it.
#[derive(Debug, Clone)]
struct LivePane {
    /// The server's identity (its pid and start time): a pane id such as `%0`
    /// names another pane once the server it was on is gone.
    server: String,
    id: String,
    name: String,
    command: String,
    session: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Record {
    #[serde(default)]
    sessions: BTreeMap<String, SessionRecord>,
    /// The last command dispatched to each pane, by pane id.
    #[serde(default)]
    runs: BTreeMap<String, RunRecord>,
}

/// The seal's domain for the managed-tmux record: it names panes to type into
/// and run folders to remove, so one that came with a checkout reads as empty.
const SEAL_DOMAIN: &str = "indus-tool tmux record 1";

/// Whether a run's token is one [`fresh_token`] makes (hex): only such a name is
/// ever joined to the runs folder.
fn is_token(token: &str) -> bool {
    !token.is_empty() && token.len() <= 64 && token.bytes().all(|b| b.is_ascii_hexdigit())
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct SessionRecord {
    created: String,
    #[serde(default)]
    panes: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct RunRecord {
    token: String,
    command: String,
    at: String,
    /// The server the pane was on ([`LivePane::server`]); a record of another
    /// server is void.
    #[serde(default)]
    server: String,
}

/// A command typed into a pane, to be awaited.
#[derive(Debug, Clone)]
pub struct Run {
    pub pane: PaneRef,
    token: String,
    dir: PathBuf,
    /// The pane's lock, held from typing to completion by the call that waits
    /// (dropped with the last clone of the run).
    _lock: Option<std::sync::Arc<File>>,
}

/// How a command typed into a pane was ended when it had to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// C-c ended it.
    Interrupted,
    /// It went on after C-c; its process group (the pane's foreground job) was
    /// killed.
    Killed,
    /// It is still running: it ignored C-c and its process group could not be
    /// told from the pane's shell (a loop of the shell itself).
    Running,
    /// C-c came before the pane's shell had begun the line, which it dropped:
    /// the command never ran, and the pane is free.
    NeverRan,
}

impl Stopped {
    /// The phrase results use: what happened, in words.
    pub fn phrase(self, pane: &PaneRef) -> String {
        match self {
            Stopped::Interrupted => "C-c was typed and ended it".to_string(),
            Stopped::Killed => {
                "C-c was typed, it went on, and its process group was killed".to_string()
            }
            Stopped::Running => format!(
                "C-c was typed but it is still running in {}; the pane stays busy until it ends",
                pane.describe()
            ),
            Stopped::NeverRan => "C-c was typed before it began, and it never ran".to_string(),
        }
    }
}

/// A finished command: its status and the heads of its two streams.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Why a run was not awaited to its end.
#[derive(Debug)]
pub enum RunWait {
    /// The limit passed; the command keeps running in the pane.
    StillRunning(Duration),
    /// The caller was cancelled; the command keeps running in the pane.
    Cancelled,
    /// The pane or the server went away, or the marker could not be read.
    Failed(String),
}

/// What a managed-target lookup found missing.
#[derive(Debug)]
pub struct Missing(pub String);

/// The capture options of `capture-pane`, as tmux flags.
#[derive(Debug, Clone, Default)]
pub struct CaptureOptions {
    pub start: Option<String>,
    pub end: Option<String>,
    pub join_wrapped_lines: bool,
    pub preserve_trailing_spaces: bool,
    pub include_escape_sequences: bool,
    pub escape_non_printable: bool,
    pub include_alternate_screen: bool,
}

/// One tmux server and the managed set of one owner on it.
#[derive(Debug, Clone)]
pub struct Tmux {
    socket: Option<String>,
    owner: String,
    max_sessions: usize,
    max_panes: usize,
    state: StateDir,
    cwd: PathBuf,
}

/// A word for a command line shown to a person: quoted only when it must be.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        text.to_string()
    } else {
        sh_quote(text)
    }
}

/// Names are used inside tmux targets and file names: letters, digits, `-`, `_`.
fn valid_name(field: &str, name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("{field}: must not be empty"));
    }
    if name.len() > 64 {
        return Err(format!("{field}: {name:?} is longer than 64 characters"));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "{field}: {name:?} may hold only letters, digits, '-' and '_'"
        ));
    }
    Ok(())
}

fn now_iso() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// A fresh token for a run: unique across processes and calls.
fn fresh_token() -> String {
    use sha2::{Digest, Sha256};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let seed = format!(
        "{}-{}-{nanos}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let digest = Sha256::digest(seed.as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether tmux's error says no server is running on the socket.
fn no_server(message: &str) -> bool {
    message.contains("no server running")
        || message.contains("error connecting to")
        || message.contains("No such file or directory")
}

/// The head of a file, at most [`OUTPUT_READ`] bytes, as text.
fn read_head(path: &Path) -> String {
    use std::io::Read;
    let mut bytes = Vec::new();
    if let Ok(f) = File::open(path) {
        let _ = f.take(OUTPUT_READ).read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Tmux {
    /// The engine for a working directory: `buddy.json`'s `tmux` settings, the
    /// socket from `INDUS_TMUX_SOCKET` first, and `session` as the owner unless
    /// the settings name one.
    pub fn new(cwd: &Path, session: Option<&str>) -> Result<Tmux, String> {
        let (config, _) = BuddyConfig::load(cwd);
        let settings = config.tmux;
        let socket = std::env::var("INDUS_TMUX_SOCKET")
            .ok()
            .filter(|s| !s.is_empty())
            .or(settings.socket);
        let owner = settings
            .owner
            .or_else(|| session.map(str::to_string))
            .unwrap_or_else(|| "default".to_string());
        // A session name may hold anything; an owner is part of tmux names.
        let owner: String = owner
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '-'
                }
            })
            .take(32)
            .collect();
        Ok(Tmux {
            socket,
            owner,
            max_sessions: settings.max_sessions.unwrap_or(DEFAULT_MAX_SESSIONS).max(1),
            max_panes: settings.max_panes.unwrap_or(DEFAULT_MAX_PANES).max(1),
            state: StateDir::new(cwd),
            cwd: cwd.to_path_buf(),
        })
    }

    /// The socket options of every tmux command line.
    fn socket_args(&self) -> Vec<String> {
        match &self.socket {
            Some(s) if s.contains('/') => vec!["-S".into(), s.clone()],
            Some(s) => vec!["-L".into(), s.clone()],
            None => Vec::new(),
        }
    }

    /// How a person attaches to a session of this server.
    pub fn attach_hint(&self, session: &str) -> String {
        let mut words = vec!["tmux".to_string()];
        words.extend(self.socket_args().iter().map(|w| shell_word(w)));
        words.extend(["attach".to_string(), "-t".to_string(), session.to_string()]);
        words.join(" ")
    }

    fn command(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(self.socket_args())
            .stdin(Stdio::null())
            .kill_on_drop(true);
        c
    }

    /// Run one tmux command line (`;`-chained commands allowed); its stdout.
    async fn run(&self, args: &[&str]) -> Result<String, String> {
        let child = self
            .command()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => NOT_INSTALLED.to_string(),
                _ => format!("tmux could not be started: {e}"),
            })?;
        let out = match tokio::time::timeout(TMUX_TIMEOUT, child.wait_with_output()).await {
            Ok(r) => r.map_err(|e| format!("tmux failed: {e}"))?,
            Err(_) => {
                return Err(format!(
                    "tmux {} did not answer within {} s",
                    args.first().unwrap_or(&""),
                    TMUX_TIMEOUT.as_secs()
                ));
            }
        };
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
            Err(if err.is_empty() {
                format!(
                    "tmux {} failed ({})",
                    args.first().unwrap_or(&""),
                    out.status
                )
            } else {
                format!("tmux: {err}")
            })
        }
    }

    /// Every pane of the server; none when no server runs.
    async fn live(&self) -> Result<Vec<LivePane>, String> {
        let listed = match self
            .run(&[
                "list-panes",
                "-a",
                "-F",
                // Not tabs: without a UTF-8 locale (an ssh session's) tmux prints
                // control characters as `_`. Session names cannot hold `:`, and
                // the command, which could, comes last.
                "#{pid}.#{start_time}::#{pane_id}::#{@indus_pane}::#{session_name}::#{pane_current_command}",
            ])
            .await
        {
            Ok(text) => text,
            Err(e) if no_server(&e) => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        Ok(listed
            .lines()
            .filter_map(|line| {
                let mut f = line.splitn(5, "::");
                Some(LivePane {
                    server: f.next()?.to_string(),
                    id: f.next()?.to_string(),
                    name: f.next()?.to_string(),
                    session: f.next()?.to_string(),
                    command: f.next()?.to_string(),
                })
            })
            .collect())
    }

    fn prefix(&self) -> String {
        format!("indus-{}-", self.owner)
    }

    /// The tmux name of a session selector: `shared` (or none) is the default
    /// session; a name already carrying the owner prefix is taken as is.
    pub fn session_name(&self, selector: Option<&str>) -> Result<String, String> {
        let prefix = self.prefix();
        let name = selector.unwrap_or(SHARED);
        let name = name.strip_prefix(&prefix).unwrap_or(name);
        valid_name("session", name)?;
        Ok(format!("{prefix}{name}"))
    }

    /// A pane selector checked; none is the shared pane.
    pub fn pane_name(selector: Option<&str>) -> Result<String, String> {
        let name = selector.unwrap_or(SHARED);
        valid_name("pane", name)?;
        Ok(name.to_string())
    }

    fn is_default_session(&self, session: &str) -> bool {
        session == format!("{}{SHARED}", self.prefix())
    }

    fn record_rel(&self) -> String {
        format!(
            "tmux/{}.json",
            file_key(self.socket.as_deref().unwrap_or("default"))
        )
    }

    fn load_record(&self) -> Record {
        self.state
            .load_sealed(&self.record_rel(), SEAL_DOMAIN)
            .unwrap_or_default()
    }

    fn update_record<R>(&self, f: impl FnOnce(&mut Record) -> R) -> Result<R, String> {
        self.state
            .update_sealed(&self.record_rel(), SEAL_DOMAIN, f)
            .map_err(|e| e.to_string())
    }

    /// The lock of one pane on one server, taken without waiting: `Err` says
    /// the pane is busy with another call's command.
    fn pane_lock(&self, server: &str, pane: &PaneRef) -> Result<File, String> {
        let dir = self
            .state
            .make_dirs("tmux/panes")
            .map_err(|e| format!("cannot create the panes' lock folder: {e}"))?;
        let key = format!(
            "{}-{server}-{}",
            self.socket.as_deref().unwrap_or("default"),
            pane.id
        );
        let path = dir.join(format!("{}.lock", file_key(&key)));
        match crate::state::try_lock_at(&path) {
            Ok(Some(file)) => Ok(file),
            Ok(None) => Err(format!(
                "{} is busy: another call is running a command there and waits for it. Use another pane, or try again when it is done.",
                pane.describe()
            )),
            Err(e) => Err(format!("cannot lock {}: {e}", path.display())),
        }
    }

    /// An exclusive lock for creating and killing, so two invocations never
    /// create the same session twice or overshoot the caps.
    fn lock(&self) -> Result<File, String> {
        // The folder checked and the lock opened without following a link or
        // blocking on a FIFO: a checkout's state folder may hold either there.
        let dir = self
            .state
            .make_dirs("tmux")
            .map_err(|e| format!("cannot create the tmux state folder: {e}"))?;
        let path = dir.join(format!(
            "{}.lock",
            file_key(self.socket.as_deref().unwrap_or("default"))
        ));
        let file = crate::state::open_to_write(&path, false)
            .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        file.lock()
            .map_err(|e| format!("cannot lock {}: {e}", path.display()))?;
        Ok(file)
    }

    /// The managed sessions of this owner, in tmux's order.
    fn managed_sessions(&self, live: &[LivePane]) -> Vec<String> {
        let prefix = self.prefix();
        let mut out: Vec<String> = Vec::new();
        for p in live {
            if p.session.starts_with(&prefix) && !p.name.is_empty() && !out.contains(&p.session) {
                out.push(p.session.clone());
            }
        }
        out
    }

    /// The managed pane `name` of `session`, as tmux has it now.
    fn find_in(live: &[LivePane], session: &str, name: &str) -> Option<PaneRef> {
        live.iter()
            .find(|p| p.session == session && p.name == name)
            .map(|p| PaneRef {
                session: session.to_string(),
                name: name.to_string(),
                id: p.id.clone(),
            })
    }

    /// The managed pane a session/pane selector names, or why there is none (a
    /// session or pane the record knows but tmux does not was killed outside
    /// indus-tool; the record forgets it then).
    pub async fn resolve(
        &self,
        session: Option<&str>,
        pane: Option<&str>,
    ) -> Result<Result<PaneRef, Missing>, String> {
        let session = self.session_name(session)?;
        let pane = Self::pane_name(pane)?;
        let live = self.live().await?;
        if let Some(found) = Self::find_in(&live, &session, &pane) {
            return Ok(Ok(found));
        }
        let session_live = self.managed_sessions(&live).contains(&session);
        let record = self.load_record();
        let known = record.sessions.get(&session);
        let message = match (session_live, known) {
            (false, Some(s)) => {
                let created = s.created.clone();
                self.update_record(|r| {
                    r.sessions.remove(&session);
                })?;
                format!(
                    "tmux session {session} was killed outside indus-tool (it was created at {created}); create it again with tmux-create-session"
                )
            }
            (false, None) if self.is_default_session(&session) => format!(
                "no managed tmux session is running yet: run_shell on a tmux target (wait: false, or a session or pane) or tmux-create-session starts {session}"
            ),
            (false, None) => {
                format!("no managed tmux session {session}: create it with tmux-create-session")
            }
            (true, known) => match known.and_then(|s| s.panes.get(&pane)) {
                Some(id) => {
                    let id = id.clone();
                    self.update_record(|r| {
                        if let Some(s) = r.sessions.get_mut(&session) {
                            s.panes.remove(&pane);
                        }
                    })?;
                    format!(
                        "pane {pane} ({id}) of tmux session {session} was closed outside indus-tool (its shell exited or it was killed by hand); create it again with tmux-create-pane"
                    )
                }
                None => format!(
                    "no managed pane {pane} in tmux session {session}: create it with tmux-create-pane"
                ),
            },
        };
        Ok(Err(Missing(message)))
    }

    /// Check a raw tmux target (`-t` syntax) and give its pane id.
    pub async fn raw_target(&self, target: &str) -> Result<String, String> {
        self.run(&["display-message", "-p", "-t", target, "#{pane_id}"])
            .await
            .map(|id| id.trim().to_string())
            .map_err(|e| format!("target: {e}"))
    }

    /// Write the managed shell's rc file; its path.
    fn rc_file(&self) -> Result<PathBuf, String> {
        let path = self.state.path("tmux/bashrc");
        // Read and replaced without following a link: whatever a checkout put
        // there, the panes' shells source exactly this text.
        let current = crate::state::read_file(&path, 1 << 20).unwrap_or_default();
        if current != RC_FILE.as_bytes() {
            self.state
                .replace("tmux/bashrc", RC_FILE.as_bytes(), true)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        Ok(path)
    }

    /// The program line of a managed pane.
    fn shell_argv(&self) -> Result<Vec<String>, String> {
        let rc = self.rc_file()?;
        if !super::on_path("bash") {
            return Err("bash is not on PATH: managed tmux panes run bash".to_string());
        }
        Ok(vec![
            "bash".to_string(),
            "--noprofile".to_string(),
            "--rcfile".to_string(),
            rc.to_string_lossy().into_owned(),
            "-i".to_string(),
        ])
    }

    /// Wait for a new pane's shell to show its first prompt.
    async fn wait_ready(&self, pane_id: &str) -> Result<(), String> {
        let channel = format!("indus-ready-{pane_id}");
        let waiter = self
            .command()
            .args(["wait-for", &channel])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("tmux wait-for could not be started: {e}"))?;
        match tokio::time::timeout(READY_TIMEOUT, waiter.wait_with_output()).await {
            Ok(_) => {
                // The shell signals with a `tmux wait-for -S` of its own, which
                // may still be its foreground command when the waiter returns:
                // the pane is ready once that client has gone (a call made at
                // once would otherwise find the pane "busy" with `tmux`).
                let started = Instant::now();
                while started.elapsed() < SIGNAL_EXIT {
                    let foreground = self
                        .run(&[
                            "display-message",
                            "-p",
                            "-t",
                            pane_id,
                            "#{pane_current_command}",
                        ])
                        .await
                        .unwrap_or_default();
                    if foreground.trim() != "tmux" {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                Ok(())
            }
            Err(_) => {
                let screen = self
                    .run(&["capture-pane", "-p", "-t", pane_id])
                    .await
                    .unwrap_or_default();
                Err(format!(
                    "the shell of tmux pane {pane_id} showed no prompt within {} s; its screen:\n{}",
                    READY_TIMEOUT.as_secs(),
                    screen.trim_end()
                ))
            }
        }
    }

    /// Create the session if it is not running; its shared pane, and whether it
    /// was created now.
    pub async fn ensure_session(&self, session: &str) -> Result<(PaneRef, bool), String> {
        let _lock = self.lock()?;
        let live = self.live().await?;
        if let Some(found) = Self::find_in(&live, session, SHARED) {
            self.update_record(|r| {
                let s = r.sessions.entry(session.to_string()).or_default();
                if s.created.is_empty() {
                    s.created = now_iso();
                }
                s.panes.insert(SHARED.to_string(), found.id.clone());
            })?;
            return Ok((found, false));
        }
        let managed = self.managed_sessions(&live);
        if managed.iter().any(|s| s == session) {
            // The shared pane was closed (its shell exited): open it again.
            let pane = self.start_pane(session, SHARED, false).await?;
            return Ok((pane, true));
        }
        if live.iter().any(|p| p.session == session) {
            return Err(format!(
                "a tmux session named {session} exists but indus-tool did not create it; kill or rename it, or pick another session name"
            ));
        }
        if managed.len() >= self.max_sessions {
            return Err(format!(
                "at most {} managed tmux sessions may run (tmux.max_sessions in buddy.json); kill one with tmux-kill-session first: {}",
                self.max_sessions,
                managed.join(", ")
            ));
        }
        let pane = self.start_pane(session, SHARED, true).await?;
        Ok((pane, true))
    }

    /// Start the managed pane `name` running our shell, as the first window of a
    /// new session `session` or as a new window of it, tag it, wait for its
    /// prompt and record it.
    async fn start_pane(
        &self,
        session: &str,
        name: &str,
        new_session: bool,
    ) -> Result<PaneRef, String> {
        let argv = self.shell_argv()?;
        let cwd = self.cwd.to_string_lossy().into_owned();
        let target = format!("={session}:");
        let mut args: Vec<&str> = if new_session {
            vec!["new-session", "-d", "-s", session, "-x", "200", "-y", "50"]
        } else {
            vec!["new-window", "-d", "-t", &target]
        };
        args.extend(["-n", name, "-c", &cwd, "-P", "-F", "#{pane_id}", "--"]);
        args.extend(argv.iter().map(String::as_str));
        let id = self.run(&args).await?.trim().to_string();
        self.run(&["set-option", "-p", "-t", &id, "@indus_pane", name])
            .await?;
        self.wait_ready(&id).await?;
        self.update_record(|r| {
            let s = r.sessions.entry(session.to_string()).or_default();
            if new_session {
                // A session of this name killed by hand is a new one now.
                *s = SessionRecord::default();
            }
            if s.created.is_empty() {
                s.created = now_iso();
            }
            s.panes.insert(name.to_string(), id.clone());
        })?;
        Ok(PaneRef {
            session: session.to_string(),
            name: name.to_string(),
            id,
        })
    }

    /// Create the managed pane `name` in `session` (the session must be managed
    /// and running) unless it exists; the pane, and whether it was created now.
    pub async fn ensure_pane(&self, session: &str, name: &str) -> Result<(PaneRef, bool), String> {
        if name == SHARED || self.is_default_session(session) {
            let made = self.ensure_session(session).await?;
            if name == SHARED {
                return Ok(made);
            }
        } else if !self
            .managed_sessions(&self.live().await?)
            .iter()
            .any(|s| s == session)
        {
            // A named session must have been created first.
            if let Err(Missing(m)) = self.resolve(Some(session), None).await? {
                return Err(m);
            }
        }
        let _lock = self.lock()?;
        let live = self.live().await?;
        if let Some(found) = Self::find_in(&live, session, name) {
            return Ok((found, false));
        }
        let panes: Vec<&str> = live
            .iter()
            .filter(|p| p.session == session && !p.name.is_empty())
            .map(|p| p.name.as_str())
            .collect();
        if panes.len() >= self.max_panes {
            return Err(format!(
                "at most {} managed panes may run in tmux session {session} (tmux.max_panes in buddy.json); kill one with tmux-kill-pane first: {}",
                self.max_panes,
                panes.join(", ")
            ));
        }
        self.start_pane(session, name, false)
            .await
            .map(|p| (p, true))
    }

    /// Kill a managed session other than the default one.
    pub async fn kill_session(&self, session: &str) -> Result<(), String> {
        if self.is_default_session(session) {
            return Err(format!(
                "session: {session} is the shared default session and cannot be killed"
            ));
        }
        let _lock = self.lock()?;
        let live = self.live().await?;
        if !self.managed_sessions(&live).iter().any(|s| s == session) {
            let in_record = self.load_record().sessions.contains_key(session);
            self.update_record(|r| {
                r.sessions.remove(session);
            })?;
            return Err(if in_record {
                format!("tmux session {session} is already gone: it was killed outside indus-tool")
            } else if live.iter().any(|p| p.session == session) {
                format!(
                    "session: {session} is not managed by indus-tool; only sessions made with tmux-create-session can be killed"
                )
            } else {
                format!("session: no managed tmux session {session}")
            });
        }
        let target = format!("={session}");
        self.run(&["kill-session", "-t", &target]).await?;
        let gone: Vec<String> = live
            .iter()
            .filter(|p| p.session == session)
            .map(|p| p.id.clone())
            .collect();
        self.update_record(|r| {
            r.sessions.remove(session);
            for id in &gone {
                r.runs.remove(id);
            }
        })?;
        Ok(())
    }

    /// Kill a managed pane other than a session's shared pane; its id.
    pub async fn kill_pane(&self, session: &str, name: &str) -> Result<String, String> {
        if name == SHARED {
            return Err(format!(
                "pane: {SHARED} is the shared pane of {session} and cannot be killed"
            ));
        }
        let _lock = self.lock()?;
        let pane = match self.resolve(Some(session), Some(name)).await? {
            Ok(p) => p,
            Err(Missing(m)) => return Err(m),
        };
        self.run(&["kill-pane", "-t", &pane.id]).await?;
        self.update_record(|r| {
            if let Some(s) = r.sessions.get_mut(session) {
                s.panes.remove(name);
            }
            r.runs.remove(&pane.id);
        })?;
        Ok(pane.id)
    }

    /// Type `command` into `pane`'s shell (`who` names the caller in refusals).
    /// Refused when it would end or poison that shell, and while the pane still
    /// runs an earlier command (one of ours, or anything but its shell in the
    /// foreground).
    pub async fn dispatch(&self, pane: &PaneRef, command: &str, who: &str) -> Result<Run, String> {
        // The seed's guardrails: typed into the pane's persistent shell, these
        // would end or poison it.
        if let Some(directive) = crate::kernel::shell_words::shell_killer(command) {
            return Err(format!(
                "{who} refused `{directive}` on {}: it would end or poison the pane's shared shell (set -e / set -o errexit / setopt errexit close it at the next failing command; exit and logout end it; exec replaces it). Use subshell/heredoc forms (for example bash -lc 'set -e; ...') when strict mode is needed without poisoning the parent shared shell.",
                pane.describe()
            ));
        }
        let runs_dir = self
            .state
            .make_dirs("tmux/runs")
            .map_err(|e| format!("cannot create the runs folder: {e}"))?;
        let live = self.live().await?;
        let here = live.iter().find(|p| p.id == pane.id);
        let foreground = here.map(|p| p.command.clone()).unwrap_or_default();
        let server = here.map(|p| p.server.clone()).unwrap_or_default();
        // One command at a time on a pane: the lock is taken before the pane's
        // record is read and held until the command is over (by the call that
        // waits for it), so a second call is refused at once, never typed into
        // the first one's command.
        let lock = self.pane_lock(&server, pane)?;
        let record = self.load_record();
        if let Some(prev) = record.runs.get(&pane.id).filter(|r| is_token(&r.token)) {
            let dir = runs_dir.join(&prev.token);
            // Typed on a server that is gone: the pane of that id is another one.
            let void = !prev.server.is_empty() && prev.server != server;
            if !void && dir.is_dir() && !dir.join("status").exists() {
                return Err(format!(
                    "{} is still running an earlier command (dispatched at {}): {}\nWatch it with capture-pane, interrupt it with send-keys C-c, or use another pane.",
                    pane.describe(),
                    prev.at,
                    prev.command
                ));
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
        if !foreground.is_empty() && foreground != "bash" {
            return Err(format!(
                "{} is busy: `{foreground}` runs in its foreground. Watch it with capture-pane, interrupt it with send-keys C-c, or use another pane.",
                pane.describe()
            ));
        }
        let token = fresh_token();
        let dir = runs_dir.join(&token);
        std::fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let q = |name: &str| sh_quote(&dir.join(name).to_string_lossy());
        let mut shown = String::new();
        for line in command.lines() {
            shown.push_str(&format!(
                "printf '%s\\n' {}\n",
                sh_quote(&format!("$ {line}"))
            ));
        }
        let script = format!(
            "__indus_run={dir}\n: > {started}\n{shown}{{ . {cmd}; }} > >(tee -- {out}; : > {out_eof}) 2> >(exec 1>&2; tee -- {err}; : > {err_eof})\n",
            dir = sh_quote(&dir.to_string_lossy()),
            started = q("started"),
            cmd = q("cmd.sh"),
            out = q("out"),
            out_eof = q("out.eof"),
            err = q("err"),
            err_eof = q("err.eof"),
        );
        std::fs::write(dir.join("cmd.sh"), format!("{command}\n"))
            .and_then(|()| std::fs::write(dir.join("run.sh"), script))
            .map_err(|e| format!("cannot write the run files in {}: {e}", dir.display()))?;
        self.update_record(|r| {
            r.runs.insert(
                pane.id.clone(),
                RunRecord {
                    token: token.clone(),
                    command: command.to_string(),
                    at: now_iso(),
                    server: server.clone(),
                },
            );
        })?;
        let line = format!(" . {}", q("run.sh"));
        let run = Run {
            pane: pane.clone(),
            token,
            dir,
            _lock: Some(std::sync::Arc::new(lock)),
        };
        // Cancelled while the line is being typed (indus-tool got SIGINT): the
        // run is ended as any other, so its record never outlives it (a command
        // cut off before it began would leave the pane "busy" for good).
        let mut guard = StopOnDrop {
            tmux: self,
            run: Some(&run),
        };
        // Leave any mode (copy mode after scrolling), clear a half-typed line,
        // then type the line and Enter: one tmux call.
        let sent = self
            .run(&[
                "copy-mode",
                "-q",
                "-t",
                &pane.id,
                ";",
                "send-keys",
                "-t",
                &pane.id,
                "C-e",
                "C-u",
                ";",
                "send-keys",
                "-t",
                &pane.id,
                "-l",
                "--",
                &line,
                ";",
                "send-keys",
                "-t",
                &pane.id,
                "Enter",
            ])
            .await;
        guard.run = None;
        drop(guard);
        if let Err(e) = sent {
            let _ = std::fs::remove_dir_all(&run.dir);
            self.update_record(|r| {
                r.runs.remove(&pane.id);
            })?;
            return Err(e);
        }
        Ok(run)
    }

    /// Wait for a dispatched command to reach the prompt again, up to `limit`.
    pub async fn await_run(
        &self,
        run: &Run,
        limit: Option<Duration>,
        cancel: &CancellationToken,
    ) -> Result<RunOutcome, RunWait> {
        let started = Instant::now();
        let channel = format!("indus-done-{}", run.token);
        let mut waiter = self
            .command()
            .args(["wait-for", &channel])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| RunWait::Failed(format!("tmux wait-for could not be started: {e}")))?;
        let status_file = run.dir.join("status");
        let deadline = async {
            match limit {
                Some(l) => tokio::time::sleep(l).await,
                None => std::future::pending().await,
            }
        };
        // A watch on the pane's life (and on the status file, should the signal
        // ever be lost): never what tells completion, only what ends a wait that
        // could not otherwise end.
        let watch = async {
            loop {
                tokio::time::sleep(Duration::from_millis(500)).await;
                if status_file.exists() {
                    return None;
                }
                match self
                    .run(&["display-message", "-p", "-t", &run.pane.id, "#{pane_id}"])
                    .await
                {
                    Ok(_) => {}
                    Err(e) => return Some(e),
                }
            }
        };
        tokio::select! {
            _ = waiter.wait() => {}
            gone = watch => {
                if let Some(e) = gone && !status_file.exists() {
                    return Err(RunWait::Failed(format!(
                        "{} went away before the command finished ({e})",
                        run.pane.describe()
                    )));
                }
            }
            _ = deadline => return Err(RunWait::StillRunning(started.elapsed())),
            _ = cancel.cancelled() => return Err(RunWait::Cancelled),
        }
        let status = std::fs::read_to_string(&status_file).map_err(|_| {
            RunWait::Failed(format!(
                "{}: the tmux server ended before the command finished",
                run.pane.describe()
            ))
        })?;
        // The tees end when the command's last writer closes; give them a moment.
        let tees = Instant::now();
        while !(run.dir.join("out.eof").exists() && run.dir.join("err.eof").exists())
            && tees.elapsed() < Duration::from_secs(2)
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let outcome = RunOutcome {
            exit_code: status.trim().parse().unwrap_or(-1),
            stdout: read_head(&run.dir.join("out")),
            stderr: read_head(&run.dir.join("err")),
        };
        self.close_run(run);
        Ok(outcome)
    }

    /// `capture-pane -p` of a target with the chosen flags; with
    /// `include_alternate_screen` and no alternate screen active, the main screen
    /// and `true` (the caller adds the seed's notice).
    pub async fn capture(
        &self,
        target: &str,
        options: &CaptureOptions,
    ) -> Result<(String, bool), String> {
        let build = |alternate: bool| {
            let mut args: Vec<String> = vec!["capture-pane".into(), "-p".into()];
            args.extend(["-t".into(), target.to_string()]);
            if let Some(s) = &options.start {
                args.extend(["-S".into(), s.clone()]);
            }
            if let Some(e) = &options.end {
                args.extend(["-E".into(), e.clone()]);
            }
            for (on, flag) in [
                (options.join_wrapped_lines, "-J"),
                (options.preserve_trailing_spaces, "-N"),
                (options.include_escape_sequences, "-e"),
                (options.escape_non_printable, "-C"),
                (alternate, "-a"),
            ] {
                if on {
                    args.push(flag.into());
                }
            }
            args
        };
        let run = |args: Vec<String>| async move {
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            self.run(&refs).await
        };
        if options.include_alternate_screen {
            match run(build(true)).await {
                Ok(text) => return Ok((text, false)),
                Err(e) if e.contains("no alternate screen") => {
                    return run(build(false)).await.map(|t| (t, true));
                }
                Err(e) => return Err(e),
            }
        }
        run(build(false)).await.map(|t| (t, false))
    }

    /// A run is over: its files go, and its pane's record of it (unless a newer
    /// run replaced it), so the pane is free for the next command.
    fn close_run(&self, run: &Run) {
        let _ = std::fs::remove_dir_all(&run.dir);
        let _ = self.update_record(|r| {
            if r.runs
                .get(&run.pane.id)
                .is_some_and(|x| x.token == run.token)
            {
                r.runs.remove(&run.pane.id);
            }
        });
    }

    /// End the command `run` typed, blocking (a drop guard calls it): C-c, and
    /// when it is still running after `grace`, SIGKILL to the pane's foreground
    /// process group, which is the command's own unless the pane's shell runs
    /// it itself. Says what happened.
    pub fn stop_run_blocking(&self, run: &Run, grace: Duration) -> Stopped {
        let stopped = self.stop_run_inner(run, grace);
        if !matches!(stopped, Stopped::Running) {
            self.await_prompt_blocking(run, Duration::from_secs(2));
        }
        stopped
    }

    /// After a command ended: wait (up to `within`) until the pane's foreground
    /// is its shell again, as `run_in_pane` requires of the next command. The
    /// status file is written before the shell has taken the terminal back, so a
    /// call that returned at once could see its next command refused as busy.
    /// One tmux command, blocking (for drop guards, which cannot await): its
    /// trimmed stdout, or `None` when it failed.
    fn run_blocking(&self, args: &[&str]) -> Option<String> {
        std::process::Command::new("tmux")
            .args(self.socket_args())
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    }

    fn await_prompt_blocking(&self, run: &Run, within: Duration) {
        let start = Instant::now();
        while start.elapsed() < within {
            let foreground = self.run_blocking(&[
                "display-message",
                "-p",
                "-t",
                &run.pane.id,
                "#{pane_current_command}",
            ]);
            match foreground.as_deref() {
                Some("bash") | None => return,
                Some(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }

    fn stop_run_inner(&self, run: &Run, grace: Duration) -> Stopped {
        let status = run.dir.join("status");
        let ended = |within: Duration| {
            let start = Instant::now();
            loop {
                if status.exists() {
                    return true;
                }
                if start.elapsed() >= within {
                    return false;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        };
        let tmux = |args: &[&str]| self.run_blocking(args);
        let _ = tmux(&["send-keys", "-t", &run.pane.id, "C-c"]);
        if ended(grace) {
            return Stopped::Interrupted;
        }
        let shell: Option<i32> =
            tmux(&["display-message", "-p", "-t", &run.pane.id, "#{pane_pid}"])
                .and_then(|p| p.parse().ok());
        // /proc/PID/stat after the command's `)`: state, ppid, pgrp, session,
        // tty_nr, tpgid (the terminal's foreground process group), …; read from
        // ppid on.
        let fields = |pid: i32| -> Option<Vec<i32>> {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let rest = stat.rsplit_once(')')?.1;
            Some(
                rest.split_whitespace()
                    .skip(1)
                    .map(|f| f.parse().unwrap_or(0))
                    .collect(),
            )
        };
        let foreground = shell.and_then(|pid| {
            let f = fields(pid)?;
            let (own, tty_group) = (*f.get(1)?, *f.get(4)?);
            (tty_group > 0 && tty_group != own).then_some(tty_group)
        });
        let Some(group) = foreground else {
            // The shell has the terminal and the line never began (it writes
            // `started` first): C-c dropped it while the shell was reading it.
            // No prompt hook will ever write its status, so the run is closed
            // here, or the pane would count as busy with it forever.
            // Under load the shell may have read the line and not yet begun it:
            // it is dropped only if it shows no sign of starting for a while.
            let began = {
                let start = Instant::now();
                loop {
                    if run.dir.join("started").exists() || status.exists() {
                        break true;
                    }
                    if start.elapsed() >= Duration::from_secs(3) {
                        break false;
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            };
            if status.exists() {
                return Stopped::Interrupted;
            }
            if began {
                // It began after the first C-c had gone: interrupt it again.
                let _ = tmux(&["send-keys", "-t", &run.pane.id, "C-c"]);
                return if ended(Duration::from_secs(2)) {
                    Stopped::Interrupted
                } else {
                    Stopped::Running
                };
            }
            self.close_run(run);
            return Stopped::NeverRan;
        };
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(group),
            nix::sys::signal::Signal::SIGKILL,
        );
        if ended(Duration::from_secs(2)) {
            Stopped::Killed
        } else {
            Stopped::Running
        }
    }

    /// Send literal text, then key names, then Enter to a pane, in one tmux call.
    pub async fn send_keys(
        &self,
        pane_id: &str,
        literal: Option<&str>,
        keys: &[String],
        enter: bool,
    ) -> Result<(), String> {
        let mut parts: Vec<Vec<&str>> = Vec::new();
        if let Some(text) = literal.filter(|t| !t.is_empty()) {
            parts.push(vec!["send-keys", "-t", pane_id, "-l", "--", text]);
        }
        if !keys.is_empty() {
            let mut part = vec!["send-keys", "-t", pane_id, "--"];
            part.extend(keys.iter().map(String::as_str));
            parts.push(part);
        }
        if enter {
            parts.push(vec!["send-keys", "-t", pane_id, "Enter"]);
        }
        let args: Vec<&str> = parts.join(&";");
        self.run(&args).await.map(|_| ())
    }
}

/// Ends a pane's command when dropped while still armed (see
/// [`Tmux::stop_run_blocking`]).
struct StopOnDrop<'a> {
    tmux: &'a Tmux,
    run: Option<&'a Run>,
}

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(run) = self.run.take() {
            self.tmux.stop_run_blocking(run, Duration::from_secs(1));
        }
    }
}

/// The `Shell` of `--tmux`: `exec` types each command into a managed pane (the
/// shared pane of the session given) through the engine, so a person can attach
/// and watch, with the same completion marker; everything else (spawned
/// handles, background jobs) is the wrapped shell's. At the deadline, or when the
/// call is dropped (cancelled, interrupted), the command is ended as `bash`
/// promises: C-c, then its process group killed if it goes on; the timeout says
/// which, or that it is still running.
pub struct TmuxShell {
    tmux: Tmux,
    session: Option<String>,
    inner: std::sync::Arc<dyn crate::kernel::Shell>,
}

impl TmuxShell {
    pub fn new(
        tmux: Tmux,
        session: Option<String>,
        inner: std::sync::Arc<dyn crate::kernel::Shell>,
    ) -> Self {
        Self {
            tmux,
            session,
            inner,
        }
    }

    async fn pane(&self) -> Result<PaneRef, String> {
        let session = self.tmux.session_name(self.session.as_deref())?;
        self.tmux.ensure_session(&session).await.map(|(p, _)| p)
    }
}

#[async_trait::async_trait]
impl crate::kernel::Shell for TmuxShell {
    async fn exec(
        &self,
        command: &str,
        options: crate::kernel::ShellExecOptions,
    ) -> std::io::Result<crate::kernel::ShellExecResult> {
        use std::io;
        let fail = |m: String| io::Error::other(m);
        if options.input.is_some() {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "--tmux: a command typed into a pane takes no input",
            ));
        }
        let pane = self.pane().await.map_err(fail)?;
        let mut line = String::new();
        if let Some(dir) = &options.launch.cwd {
            line.push_str(&format!("cd {} && ", sh_quote(dir)));
        }
        for (k, v) in &options.launch.env {
            line.push_str(&format!("export {k}={} && ", sh_quote(v)));
        }
        line.push_str(&format!("{{ {command}\n}}"));
        let run = self
            .tmux
            .dispatch(&pane, &line, "--tmux")
            .await
            .map_err(fail)?;
        let limit = options.timeout_ms.map(Duration::from_millis);
        let cancel = CancellationToken::new();
        // Dropped before the command ends (the caller was cancelled, indus-tool
        // got SIGINT): the command is ended too, as `bash` promises.
        let mut guard = StopOnDrop {
            tmux: &self.tmux,
            run: Some(&run),
        };
        let keep = |text: String| {
            let max = options
                .capture_limit
                .unwrap_or(crate::kernel::DEFAULT_CAPTURE_LIMIT);
            if text.len() <= max {
                text
            } else {
                let mut cut = max;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text[..cut].to_string()
            }
        };
        let waited = self.tmux.await_run(&run, limit, &cancel).await;
        guard.run = None;
        match waited {
            Ok(done) => {
                if let Some(tap) = &options.tap {
                    tap.0
                        .chunk(crate::kernel::TapStream::Stdout, done.stdout.as_bytes());
                    tap.0
                        .chunk(crate::kernel::TapStream::Stderr, done.stderr.as_bytes());
                }
                Ok(crate::kernel::ShellExecResult {
                    input_wait: None,
                    stdout: keep(done.stdout),
                    stderr: keep(done.stderr),
                    code: Some(done.exit_code),
                    signal: None,
                    stdout_dropped: Default::default(),
                    stderr_dropped: Default::default(),
                })
            }
            Err(RunWait::StillRunning(_)) => {
                let (tmux, stopping) = (self.tmux.clone(), run.clone());
                let stopped = tokio::task::spawn_blocking(move || {
                    tmux.stop_run_blocking(&stopping, Duration::from_secs(1))
                })
                .await
                .unwrap_or(Stopped::Running);
                let ms = options.timeout_ms.unwrap_or(0);
                Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    crate::kernel::ExecTimeout {
                        ended: Some(stopped.phrase(&pane)),
                        timeout_ms: ms,
                        stdout: keep(read_head(&run.dir.join("out"))),
                        stderr: keep(read_head(&run.dir.join("err"))),
                        stdout_dropped: Default::default(),
                        stderr_dropped: Default::default(),
                    },
                ))
            }
            Err(RunWait::Cancelled) => Err(fail("cancelled".to_string())),
            Err(RunWait::Failed(m)) => Err(fail(m)),
        }
    }

    fn spawn(
        &self,
        command: &str,
        options: crate::kernel::ShellLaunchOptions,
    ) -> std::io::Result<Box<dyn crate::kernel::ShellHandle>> {
        self.inner.spawn(command, options)
    }

    async fn start_job(
        &self,
        launch: &crate::kernel::JobLaunch,
    ) -> std::io::Result<crate::kernel::JobIdentity> {
        self.inner.start_job(launch).await
    }

    fn probe_job(
        &self,
        job: &crate::kernel::JobIdentity,
    ) -> std::io::Result<crate::kernel::JobLiveness> {
        self.inner.probe_job(job)
    }

    fn signal_job(
        &self,
        job: &crate::kernel::JobIdentity,
        signal: i32,
    ) -> std::io::Result<crate::kernel::JobSignal> {
        self.inner.signal_job(job, signal)
    }

    fn job_input_wait(
        &self,
        job: &crate::kernel::JobIdentity,
    ) -> std::io::Result<Option<crate::kernel::InputWait>> {
        self.inner.job_input_wait(job)
    }

    async fn write_job_input(
        &self,
        fifo: &str,
        data: &[u8],
        timeout_ms: u64,
    ) -> std::io::Result<usize> {
        self.inner.write_job_input(fifo, data, timeout_ms).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(owner: &str) -> Tmux {
        Tmux {
            socket: Some("t".into()),
            owner: owner.into(),
            max_sessions: 2,
            max_panes: 2,
            state: StateDir::new("/nonexistent"),
            cwd: PathBuf::from("/nonexistent"),
        }
    }

    #[test]
    fn selectors_become_prefixed_tmux_names() {
        let t = engine("default");
        assert_eq!(t.session_name(None).unwrap(), "indus-default-shared");
        assert_eq!(t.session_name(Some("ops")).unwrap(), "indus-default-ops");
        assert_eq!(
            t.session_name(Some("indus-default-ops")).unwrap(),
            "indus-default-ops"
        );
        assert!(t.session_name(Some("a:b")).unwrap_err().contains("session"));
        assert!(t.session_name(Some("")).is_err());
        assert!(
            Tmux::pane_name(Some("a.b"))
                .unwrap_err()
                .starts_with("pane:")
        );
        assert_eq!(Tmux::pane_name(None).unwrap(), SHARED);
    }

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(sh_quote("it's"), r"'it'\''s'");
        let t = engine("x");
        assert_eq!(
            t.attach_hint("indus-x-shared"),
            "tmux -L t attach -t indus-x-shared"
        );
        assert_eq!(shell_word("/tmp/a b"), "'/tmp/a b'");
    }

    #[test]
    fn tokens_are_fresh() {
        let a = fresh_token();
        let b = fresh_token();
        assert_ne!(a, b);
        assert_eq!(a.len(), 16);
    }

    #[test]
    fn a_missing_server_is_told_apart() {
        assert!(no_server("no server running on /tmp/tmux-0/x"));
        assert!(no_server(
            "error connecting to /tmp/tmux-0/x (No such file or directory)"
        ));
        assert!(!no_server("can't find pane: %9"));
    }
}
