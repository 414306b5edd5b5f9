//! Remote execution (`--exec ssh:[USER@]HOST[:PORT]` or `--exec container:NAME`):
//! the whole invocation runs on the other side, by the toolbox itself.
//!
//! Why the toolbox and not the `Fs`/`Shell` seams over shell commands: every tool
//! then keeps exactly its local output and guarantees there — atomic writes with
//! the mode kept, the read-before-edit gate and checkpoints (in the state folder of
//! the remote working directory, so keyed by machine and path), `--root` enforced
//! after symlinks on the side where the files are, grep and find walking the tree
//! where it lives instead of pulling it across file by file — and the tools do not
//! know where they run. The binary is copied once into a versioned cache folder on
//! the other side (`~/.cache/indus-tool/<version>-<id>/`, or `INDUS_REMOTE_CACHE`),
//! its SHA-256 checked after the copy and its `--version` run before it is moved
//! into place; later calls find it there. When it cannot run there (another
//! architecture or C library), the call fails with an error saying so.
//!
//! The channels are the real programs: OpenSSH with a ControlMaster socket that
//! persists across invocations (`ControlPersist`, a short hashed path under
//! `.indus-process/ssh/`, `BatchMode=yes` so nothing ever prompts, the user's ssh
//! configuration honoured or `--ssh-config FILE`), and `docker`/`podman exec`.
//! Standard input, output and error pass through untouched and the remote exit
//! status is the local one; only the channel's own failures (host unreachable,
//! authentication refused, engine missing, container not running) are reworded
//! into errors that name them.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use super::on_path;
use crate::kernel::sh_quote;
use crate::state::{StateDir, prepare_socket_dir};

/// Exit status of the remote launcher when the cached binary is not there yet.
const MISSING_BINARY: i32 = 199;
/// Exit status of the remote launcher when the working directory is not there.
const MISSING_CWD: i32 = 198;
/// The longest control socket path handed to ssh (it appends a random suffix of
/// its own while it binds).
const MAX_CONTROL_PATH: usize = 80;
/// The start of a provisioning error that means: use the fallback.
const CANNOT_RUN: &str = "cannot-run: ";
/// How long an idle master connection is kept for the next invocation.
const CONTROL_PERSIST_SECS: u64 = 600;

/// The container engines, in the order they are looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Podman,
    Docker,
}

impl Engine {
    pub fn program(self) -> &'static str {
        match self {
            Engine::Podman => "podman",
            Engine::Docker => "docker",
        }
    }
}

/// Where an invocation runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Local,
    Ssh {
        user: Option<String>,
        host: String,
        port: Option<u16>,
    },
    Container {
        name: String,
    },
}

impl Target {
    /// `local`, `container:NAME`, `ssh:[USER@]HOST[:PORT]` (`ssh:[v6addr]:PORT`
    /// for an IPv6 address with a port).
    pub fn parse(spec: &str) -> Result<Target, String> {
        let spec = spec.trim();
        if spec.is_empty() || spec == "local" {
            return Ok(Target::Local);
        }
        if let Some(name) = spec.strip_prefix("container:") {
            if name.is_empty() || name.starts_with('-') {
                return Err(format!("--exec {spec}: container: needs a container name"));
            }
            return Ok(Target::Container {
                name: name.to_string(),
            });
        }
        let Some(rest) = spec.strip_prefix("ssh:") else {
            return Err(format!(
                "--exec {spec}: expected local, container:NAME or ssh:[USER@]HOST[:PORT]"
            ));
        };
        let (user, hostport) = match rest.rsplit_once('@') {
            Some((u, h)) if !u.is_empty() => (Some(u.to_string()), h),
            Some(_) => return Err(format!("--exec {spec}: the user before @ is empty")),
            None => (None, rest),
        };
        let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
            match v6.split_once(']') {
                Some((h, "")) => (h, None),
                Some((h, p)) if p.starts_with(':') => (h, Some(&p[1..])),
                _ => return Err(format!("--exec {spec}: an IPv6 address goes in [ ]")),
            }
        } else {
            match hostport.rsplit_once(':') {
                Some((h, p)) if !h.contains(':') => (h, Some(p)),
                _ => (hostport, None),
            }
        };
        if host.is_empty() || host.starts_with('-') {
            return Err(format!("--exec {spec}: the host is missing"));
        }
        let port =
            match port {
                None => None,
                Some(p) => Some(p.parse::<u16>().ok().filter(|p| *p > 0).ok_or_else(|| {
                    format!("--exec {spec}: the port {p:?} is not a port number")
                })?),
            };
        Ok(Target::Ssh {
            user,
            host: host.to_string(),
            port,
        })
    }

    /// How messages name the target.
    pub fn describe(&self) -> String {
        match self {
            Target::Local => "local".to_string(),
            Target::Ssh { user, host, port } => format!(
                "ssh:{}{host}{}",
                user.as_deref().map(|u| format!("{u}@")).unwrap_or_default(),
                port.map(|p| format!(":{p}")).unwrap_or_default()
            ),
            Target::Container { name } => format!("container:{name}"),
        }
    }
}

/// What became of a forwarded invocation.
#[derive(Debug)]
pub enum Forwarded {
    /// It ran there (or failed to reach there): its exit status.
    Done(ExitCode),
    /// This build cannot run there: run here over shell commands in `cwd` there.
    Fallback { cwd: String },
}

/// Everything one forwarded invocation needs.
#[derive(Debug, Clone)]
pub struct Remote {
    pub target: Target,
    /// The working directory on the other side (`--exec-cwd`).
    pub cwd: Option<String>,
    /// `--engine`, or the first of podman and docker found.
    pub engine: Option<Engine>,
    /// `--ssh-config FILE` (ssh's `-F`).
    pub ssh_config: Option<PathBuf>,
    /// The local state folder (for the control socket).
    pub state: StateDir,
}

impl Remote {
    fn engine(&self) -> Result<Engine, String> {
        if let Some(e) = self.engine {
            if !on_path(e.program()) {
                return Err(format!(
                    "--engine {}: {} is not installed (not on PATH)",
                    e.program(),
                    e.program()
                ));
            }
            return Ok(e);
        }
        [Engine::Podman, Engine::Docker]
            .into_iter()
            .find(|e| on_path(e.program()))
            .ok_or_else(|| {
                format!(
                    "--exec {}: no container engine: neither podman nor docker is on PATH (install one, or pick one with --engine)",
                    self.target.describe()
                )
            })
    }

    /// The target's short name in file names: a hash of how it is written.
    fn target_key(&self) -> String {
        crate::kernel::digest::sha256_hex(self.target.describe().as_bytes())[..16].to_string()
    }

    /// The message of a channel that could not be started.
    fn unstartable(&self, e: std::io::Error) -> String {
        format!(
            "cannot start the channel to {}: {e}",
            self.target.describe()
        )
    }

    /// The control socket of an SSH target: one per destination.
    pub fn control_path(&self) -> PathBuf {
        self.state
            .socket_path(&format!("ssh/{}.sock", self.target_key()), MAX_CONTROL_PATH)
    }

    /// The `ssh` arguments every call shares, up to and including the host (its
    /// own options go in front of them).
    fn ssh_args(&self, control: &Path) -> Vec<std::ffi::OsString> {
        let Target::Ssh { user, host, port } = &self.target else {
            unreachable!("ssh_args() is only called for ssh targets")
        };
        let mut args: Vec<std::ffi::OsString> = Vec::new();
        if let Some(f) = &self.ssh_config {
            args.extend(["-F".into(), f.into()]);
        }
        args.extend(["-S".into(), control.into()]);
        for option in [
            "BatchMode=yes",
            "ConnectTimeout=10",
            "ServerAliveInterval=15",
        ] {
            args.extend(["-o".into(), option.into()]);
        }
        if let Some(p) = port {
            args.extend(["-p".into(), p.to_string().into()]);
        }
        if let Some(u) = user {
            args.extend(["-l".into(), u.into()]);
        }
        args.extend(["--".into(), host.into()]);
        args
    }

    /// Whether a master answers on the control socket; a socket nobody answers on
    /// (its master was killed) is removed so a new master can take its place.
    fn master_alive(control: &Path) -> bool {
        if std::fs::symlink_metadata(control).is_err() {
            return false;
        }
        // Not a socket of this user's (a link a checkout carried, say): never
        // connected to, and cleared so a master of ours can take the place.
        if !crate::state::trusted_socket(control) {
            let _ = std::fs::remove_file(control);
            return false;
        }
        if std::os::unix::net::UnixStream::connect(control).is_ok() {
            return true;
        }
        let _ = std::fs::remove_file(control);
        false
    }

    /// Open the master connection when none answers: `ssh -M -f -N` with
    /// `ControlPersist`, its failure reworded.
    fn ensure_master(&self) -> Result<PathBuf, String> {
        if !on_path("ssh") {
            return Err(
                "ssh is not installed (no `ssh` on PATH): --exec ssh: drives OpenSSH".to_string(),
            );
        }
        let control = self.control_path();
        if Self::master_alive(&control) {
            return Ok(control);
        }
        self.state
            .ensure()
            .and_then(|()| prepare_socket_dir(&control))
            .map_err(|e| format!("cannot create the folder of {}: {e}", control.display()))?;
        // The master goes to the background (`-f`) holding whatever stderr it was
        // given, so it logs to a file (`-E`) that is read when it fails.
        let log = control.with_extension("log");
        let _ = std::fs::remove_file(&log);
        let status = Command::new("ssh")
            .args(["-M", "-f", "-N"])
            .args(["-o", &format!("ControlPersist={CONTROL_PERSIST_SECS}")])
            .arg("-E")
            .arg(&log)
            .args(self.ssh_args(&control))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("ssh could not be started: {e}"))?;
        let said = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        if !status.success() {
            return Err(self.ssh_failure(&said));
        }
        Ok(control)
    }

    /// ssh's own failure, said plainly.
    fn ssh_failure(&self, stderr: &str) -> String {
        let target = self.target.describe();
        let said = stderr
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("Warning: Permanently added"))
            .collect::<Vec<_>>()
            .join("; ");
        let why = if said.contains("Permission denied") {
            "authentication refused (indus-tool never prompts: set up a key or an agent for this host)"
        } else if said.contains("Host key verification failed") {
            "the host key is unknown or changed (check it with ssh once, or fix known_hosts)"
        } else if said.contains("Could not resolve hostname") {
            "host unreachable: its name does not resolve"
        } else if said.contains("Connection refused")
            || said.contains("timed out")
            || said.contains("No route to host")
            || said.contains("Network is unreachable")
            || said.contains("Connection closed")
        {
            "host unreachable"
        } else {
            "the connection failed"
        };
        format!("--exec {target}: {why}: {said}")
    }

    /// A command that runs the POSIX shell `script` on the other side, reading
    /// its stdin from ours when `stdin` is set.
    pub fn remote_sh(&self, script: &str, stdin: bool) -> Result<Command, String> {
        match &self.target {
            Target::Local => unreachable!("a local target is not forwarded"),
            Target::Ssh { .. } => {
                let control = self.ensure_master()?;
                let mut c = Command::new("ssh");
                // A client of the master, never a master itself (whatever the
                // user's configuration says for the host).
                c.args(["-o", "ControlMaster=no"])
                    .args(self.ssh_args(&control));
                if !stdin {
                    c.stdin(Stdio::null());
                }
                c.arg(format!("sh -c {}", sh_quote(script)));
                Ok(c)
            }
            Target::Container { name } => {
                let engine = self.engine()?;
                let mut c = Command::new(engine.program());
                c.arg("exec");
                if stdin {
                    c.arg("-i");
                } else {
                    c.stdin(Stdio::null());
                }
                c.arg(name).args(["sh", "-c", script]);
                Ok(c)
            }
        }
    }

    /// The cache folder of this very binary on the other side (a shell word).
    fn cache_dir(identity: &str) -> String {
        let base = std::env::var("INDUS_REMOTE_CACHE")
            .ok()
            .filter(|s| !s.is_empty())
            .map(|s| sh_quote(&s))
            .unwrap_or_else(|| "\"${XDG_CACHE_HOME:-$HOME/.cache}/indus-tool\"".to_string());
        format!("{base}/{}-{identity}", env!("CARGO_PKG_VERSION"))
    }

    /// Copy `binary` into the cache folder, check its hash (before anything of it
    /// runs), check it runs there, then move it into place, so a half-copied,
    /// damaged or foreign binary is never used.
    fn provision(&self, binary: &Path, dir: &str) -> Result<(), String> {
        let bytes = std::fs::read(binary)
            .map_err(|e| format!("cannot read {} to copy it: {e}", binary.display()))?;
        // Before copying megabytes: the architecture and the program loader this
        // build needs (none for a static one) must be there.
        let mut check = format!(
            "a=$(uname -m); [ \"$a\" = {} ] || {{ echo \"the machine is $a\"; exit 0; }}; ",
            sh_quote(&build_arch())
        );
        if let Some(loader) = elf_interpreter(&bytes) {
            check.push_str(&format!(
                "[ -e {l} ] || {{ echo \"it has no {l} (another C library)\"; exit 0; }}; ",
                l = sh_quote(&loader)
            ));
        }
        check.push_str("echo fits");
        let out = self
            .remote_sh(&check, false)?
            .stderr(Stdio::null())
            .output()
            .map_err(|e| self.unstartable(e))?;
        let said = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if out.status.success() && said != "fits" && !said.is_empty() {
            return Err(format!(
                "{CANNOT_RUN}this indus-tool ({} for {}) cannot run on {}: {said}",
                env!("CARGO_PKG_VERSION"),
                build_arch(),
                self.target.describe()
            ));
        }
        let sum = crate::kernel::digest::sha256_hex(&bytes);
        let script = format!(
            "set -e; d={dir}; mkdir -p \"$d\"; t=\"$d/.upload.$$\"; trap 'rm -f \"$t\"' EXIT; cat > \"$t\"; chmod 755 \"$t\"; \
             if command -v sha256sum >/dev/null 2>&1; then s=$(sha256sum \"$t\"); s=${{s%% *}}; echo \"sum $s\"; [ \"$s\" = {sum} ] || exit 0; fi; \
             if ! out=$(\"$t\" --version 2>&1); then echo \"cannot-run $out\"; exit 0; fi; \
             mv -f \"$t\" \"$d/indus-tool\"; echo placed"
        );
        let mut child = self
            .remote_sh(&script, true)?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start the copy to {}: {e}", self.target.describe()))?;
        let mut stdin = child.stdin.take().expect("piped");
        let writer = std::thread::spawn(move || stdin.write_all(&bytes));
        let out = child
            .wait_with_output()
            .map_err(|e| format!("the copy to {} failed: {e}", self.target.describe()))?;
        let _ = writer.join();
        let said = String::from_utf8_lossy(&out.stdout).to_string();
        let target = self.target.describe();
        if !out.status.success() {
            return Err(format!(
                "--exec {target}: copying indus-tool into {dir} failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        if let Some(line) = said.lines().find(|l| l.starts_with("sum "))
            && line[4..].trim() != sum
        {
            return Err(format!(
                "--exec {target}: the copy of indus-tool arrived damaged (SHA-256 {} instead of {sum}); nothing was run",
                line[4..].trim()
            ));
        }
        if let Some(line) = said.lines().find(|l| l.starts_with("cannot-run")) {
            return Err(format!(
                "{CANNOT_RUN}this indus-tool ({} for {}) cannot run on {target}: {}",
                env!("CARGO_PKG_VERSION"),
                build_arch(),
                line["cannot-run".len()..].trim()
            ));
        }
        if !said.lines().any(|l| l == "placed") {
            return Err(format!(
                "--exec {target}: copying indus-tool into {dir} did not finish: {}",
                said.trim()
            ));
        }
        Ok(())
    }

    /// Run `args` (the invocation without its `--exec` options) on the other side
    /// with `env` set there: the remote exit status, or, where this build cannot
    /// run, the remote working directory for the fallback over shell commands.
    pub fn forward(&self, args: &[String], env: &[(String, String)]) -> Forwarded {
        match self.try_forward(args, env) {
            Ok(done) => done,
            Err(message) => {
                eprintln!("{message}");
                Forwarded::Done(ExitCode::from(1))
            }
        }
    }

    /// The note that this build cannot run on the target.
    fn foreign_note(&self, identity: &str) -> PathBuf {
        self.state
            .path(&format!("remote/{}-{identity}.foreign", self.target_key()))
    }

    /// The folder here that keeps the state of the fallback on this target.
    /// Made and checked as every state folder is (no link on the way: a
    /// checkout's `.indus-process/remote` may be one).
    pub fn fallback_state(&self) -> Result<PathBuf, String> {
        self.state
            .make_dirs(format!("remote/{}", self.target_key()))
            .map_err(|e| {
                format!(
                    "--exec {}: the state folder of its calls: {e}",
                    self.target.describe()
                )
            })
    }

    /// The working directory there, absolute: `--exec-cwd` checked, or the login
    /// (or container's) directory.
    fn remote_cwd(&self) -> Result<String, String> {
        let script = match &self.cwd {
            Some(d) => format!("cd {} 2>/dev/null || exit {MISSING_CWD}; pwd", sh_quote(d)),
            None => "pwd".to_string(),
        };
        let out = self
            .remote_sh(&script, false)?
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| self.unstartable(e))?;
        match out.status.code() {
            Some(0) => Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string()),
            Some(MISSING_CWD) => Err(format!(
                "--exec-cwd {}: no such directory on {}",
                self.cwd.as_deref().unwrap_or(""),
                self.target.describe()
            )),
            other => Err(self.channel_failure(other).unwrap_or_else(|| {
                format!(
                    "--exec {}: the channel failed: {}",
                    self.target.describe(),
                    String::from_utf8_lossy(&out.stderr).trim()
                )
            })),
        }
    }

    /// Leave a note under `remote/` (once): a cache of what a target is like, so
    /// losing it only costs a look.
    fn note(&self, path: &Path, text: &str) {
        // Through the state store (checked, replaced): never through a link.
        if std::fs::symlink_metadata(path).is_err()
            && let Ok(rel) = path.strip_prefix(self.state.root())
            && let Some(rel) = rel.to_str()
        {
            let _ = self.state.replace(rel, text.as_bytes(), false);
        }
    }

    fn fallback(&self, identity: &str, reason: &str) -> Result<Forwarded, String> {
        self.note(&self.foreign_note(identity), reason);
        Ok(Forwarded::Fallback {
            cwd: self.remote_cwd()?,
        })
    }

    fn try_forward(&self, args: &[String], env: &[(String, String)]) -> Result<Forwarded, String> {
        let binary = std::env::current_exe()
            .map_err(|e| format!("cannot find this program's own file: {e}"))?;
        let meta = std::fs::metadata(&binary)
            .map_err(|e| format!("cannot read {}: {e}", binary.display()))?;
        // The cache key: cheap to compute on every call (no hashing of the whole
        // file); the content hash is checked when the binary is copied.
        let identity = {
            use std::os::unix::fs::MetadataExt;
            let key = format!(
                "{}-{}-{}-{}",
                meta.len(),
                meta.mtime(),
                meta.mtime_nsec(),
                build_arch()
            );
            crate::kernel::digest::sha256_hex(key.as_bytes())[..16].to_string()
        };
        if self.foreign_note(&identity).exists() {
            return self.fallback(&identity, "");
        }
        let dir = Self::cache_dir(&identity);
        let mut line = format!("exec env {HANGUP_WATCH}=1");
        for (k, v) in env {
            line.push_str(&format!(" {}", sh_quote(&format!("{k}={v}"))));
        }
        line.push_str(" \"$b\" --exec local");
        for a in args {
            line.push(' ');
            line.push_str(&sh_quote(a));
        }
        let cd = match &self.cwd {
            Some(d) => format!("cd {} 2>/dev/null || exit {MISSING_CWD}; ", sh_quote(d)),
            None => String::new(),
        };
        let script =
            format!("b={dir}/indus-tool; [ -x \"$b\" ] || exit {MISSING_BINARY}; {cd}{line}");
        let stdin_is_tty = {
            use std::io::IsTerminal;
            std::io::stdin().is_terminal()
        };
        // Standard input can be sent only once: unless this binary is known to
        // be in place there, look before the call that carries it.
        let known = self
            .state
            .path(&format!("remote/{}-{identity}", self.target_key()));
        if !stdin_is_tty && !known.exists() {
            let probe = format!("[ -x {dir}/indus-tool ] || exit {MISSING_BINARY}");
            let status = self
                .remote_sh(&probe, false)?
                .stderr(Stdio::null())
                .status()
                .map_err(|e| self.unstartable(e))?;
            match status.code() {
                Some(0) => {}
                Some(MISSING_BINARY) => match self.provision(&binary, &dir) {
                    Err(e) if e.starts_with(CANNOT_RUN) => {
                        return self.fallback(&identity, &e[CANNOT_RUN.len()..]);
                    }
                    other => other?,
                },
                other => {
                    return Err(self.channel_failure(other).unwrap_or_else(|| {
                        format!(
                            "--exec {}: the channel failed ({status})",
                            self.target.describe()
                        )
                    }));
                }
            }
        }
        for attempt in 0..2 {
            let c = self.remote_sh(&script, !stdin_is_tty)?;
            let status = match run_channel(c).map_err(|e| self.unstartable(e))? {
                Ok(status) => status,
                // Interrupted: the channel was handed the signal and has closed;
                // the toolbox there saw it go and ended its command.
                Err(signal) => {
                    return Ok(Forwarded::Done(ExitCode::from(128 + signal as u8)));
                }
            };
            match status.code() {
                Some(MISSING_BINARY) if attempt == 0 => {
                    let _ = std::fs::remove_file(&known);
                    match self.provision(&binary, &dir) {
                        Err(e) if e.starts_with(CANNOT_RUN) => {
                            let fallback = self.fallback(&identity, &e[CANNOT_RUN.len()..])?;
                            if stdin_is_tty {
                                return Ok(fallback);
                            }
                            return Err(format!(
                                "--exec {}: {}; the call did not run because its standard input was already spent: run it again (it will run over shell commands)",
                                self.target.describe(),
                                &e[CANNOT_RUN.len()..]
                            ));
                        }
                        other => other?,
                    }
                    if !stdin_is_tty {
                        // Our standard input went into the channel of the call
                        // that found no binary: it cannot be sent twice.
                        return Err(format!(
                            "--exec {}: indus-tool was missing there (a new host or container behind the same name?) and has been copied again; the call did not run because its standard input was already spent: run it again",
                            self.target.describe()
                        ));
                    }
                }
                Some(MISSING_BINARY) => {
                    return Err(format!(
                        "--exec {}: indus-tool was copied to {dir} but is not there to run",
                        self.target.describe()
                    ));
                }
                Some(MISSING_CWD) => {
                    return Err(format!(
                        "--exec-cwd {}: no such directory on {}",
                        self.cwd.as_deref().unwrap_or(""),
                        self.target.describe()
                    ));
                }
                other if self.channel_failure(other).is_some() => {
                    return Err(self.channel_failure(other).unwrap_or_default());
                }
                Some(code) => {
                    self.note(&known, "");
                    return Ok(Forwarded::Done(ExitCode::from(code.clamp(0, 255) as u8)));
                }
                None => {
                    return Err(format!(
                        "--exec {}: the channel was killed by a signal",
                        self.target.describe()
                    ));
                }
            }
        }
        unreachable!("the loop returns on its second attempt")
    }

    /// The channel's own failure behind an exit status, if it is one: ssh's 255,
    /// any status above 2 from the engine (indus-tool itself exits 0, 1 or 2).
    fn channel_failure(&self, code: Option<i32>) -> Option<String> {
        match (&self.target, code) {
            (Target::Ssh { .. }, Some(255)) => Some(format!(
                "--exec {}: the connection failed during the call (ssh exit 255)",
                self.target.describe()
            )),
            // The engine's own statuses (125 to 127, 255 for a stopped one).
            (Target::Container { .. }, Some(code)) if code > 2 => {
                Some(self.container_failure(code))
            }
            _ => None,
        }
    }

    /// Why `ENGINE exec` failed, asked of the engine.
    fn container_failure(&self, code: i32) -> String {
        let Target::Container { name } = &self.target else {
            return String::new();
        };
        let engine = self.engine().map(Engine::program).unwrap_or("podman");
        let state = Command::new(engine)
            .args(["inspect", "--format", "{{.State.Status}}", name])
            .stdin(Stdio::null())
            .output();
        let why = match state {
            Ok(o) if o.status.success() => {
                let s = String::from_utf8_lossy(&o.stdout).trim().to_string();
                if s == "running" {
                    format!(
                        "{engine} exec failed with status {code} (a program the call needs may be missing in the container)"
                    )
                } else {
                    format!(
                        "the container is not running (it is {s}); start it with {engine} start {name}"
                    )
                }
            }
            Ok(o) => format!(
                "no such container, or {engine} cannot reach it: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ),
            Err(e) => format!("{engine} could not be started: {e}"),
        };
        format!("--exec container:{name}: {why}")
    }
}

/// The machine this build is for, as `uname -m` names it: the build's own
/// architecture, unless `INDUS_REMOTE_ARCH` says otherwise — how the tests reach
/// the fallback over shell commands on a machine of one architecture, now that
/// the static build runs on every x86_64 host.
fn build_arch() -> String {
    std::env::var("INDUS_REMOTE_ARCH")
        .ok()
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// The program loader (`PT_INTERP`) a 64-bit little-endian ELF file names, if
/// any: a static build names none.
pub fn elf_interpreter(elf: &[u8]) -> Option<String> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(elf.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(elf.get(at..at + 4)?.try_into().ok()?));
    let u64_at = |at: usize| Some(u64::from_le_bytes(elf.get(at..at + 8)?.try_into().ok()?));
    if elf.get(..4)? != b"\x7fELF" || elf.get(4)? != &2 || elf.get(5)? != &1 {
        return None;
    }
    let (phoff, phentsize, phnum) = (
        u64_at(0x20)? as usize,
        u16_at(0x36)? as usize,
        u16_at(0x38)?,
    );
    for i in 0..phnum as usize {
        let at = phoff + i * phentsize;
        if u32_at(at)? == 3 {
            let (offset, size) = (u64_at(at + 8)? as usize, u64_at(at + 0x20)? as usize);
            let raw = elf.get(offset..offset + size)?;
            let text = raw.split(|b| *b == 0).next()?;
            return Some(String::from_utf8_lossy(text).into_owned());
        }
    }
    None
}

/// The `INDUS_*` variables of this invocation that the other side must see too
/// (not the `--exec` ones, which would make it forward again).
/// Set by `--exec` for the toolbox it starts on the other side: there a lost
/// connection closes no terminal (ssh without `-t` sends no SIGHUP), so the
/// toolbox watches its standard output instead, and the reader going away (the
/// local ssh interrupted) counts as SIGHUP.
pub const HANGUP_WATCH: &str = "INDUS_HANGUP_WATCH";

/// Run the channel (ssh, podman exec) to its end, handing SIGINT, SIGTERM and
/// SIGHUP on to it instead of dying first: ssh then closes the session, and the
/// toolbox on the other side, watching its output, ends its command. `Err(N)`:
/// signal N came and the channel has ended.
fn run_channel(c: Command) -> std::io::Result<Result<std::process::ExitStatus, i32>> {
    use tokio::signal::unix::{SignalKind, signal};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        // Recorded in the handler as well as by the streams below: on Ctrl-C the
        // channel (same process group) dies of the same signal, and its end can
        // be seen before the streams are polled; the status must still say it.
        crate::sys::signals::record();
        let mut int = signal(SignalKind::interrupt())?;
        let mut term = signal(SignalKind::terminate())?;
        let mut hup = signal(SignalKind::hangup())?;
        let mut child = tokio::process::Command::from(c).spawn()?;
        let caught = tokio::select! {
            biased;
            _ = int.recv() => SignalKind::interrupt().as_raw_value(),
            _ = term.recv() => SignalKind::terminate().as_raw_value(),
            _ = hup.recv() => SignalKind::hangup().as_raw_value(),
            status = child.wait() => {
                let status = status?;
                return Ok(match crate::sys::signals::caught() {
                    Some(n) => Err(n),
                    None => Ok(status),
                });
            }
        };
        crate::sys::signals::note(caught);
        if let (Some(pid), Ok(signal)) = (child.id(), nix::sys::signal::Signal::try_from(caught)) {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), signal);
        }
        let ended = tokio::time::timeout(std::time::Duration::from_secs(5), child.wait()).await;
        if ended.is_err() {
            let _ = child.kill().await;
        }
        Ok(Err(crate::sys::signals::caught().unwrap_or(caught)))
    })
}

pub fn forwarded_env() -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| {
            (k.starts_with("INDUS_")
                && !k.starts_with("INDUS_EXEC")
                && k != "INDUS_ENGINE"
                && k != "INDUS_SSH_CONFIG"
                && k != "INDUS_REMOTE_CACHE")
                || k == "NO_COLOR"
        })
        .collect();
    env.sort();
    // A local terminal is not the remote's: stdin is not passed, and the other
    // side must not wait on it.
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() {
        env.push(("INDUS_STDIN_TERMINAL".to_string(), "1".to_string()));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_in_every_spelling() {
        assert_eq!(Target::parse("local").unwrap(), Target::Local);
        assert_eq!(Target::parse("").unwrap(), Target::Local);
        assert_eq!(
            Target::parse("container:web").unwrap(),
            Target::Container { name: "web".into() }
        );
        assert_eq!(
            Target::parse("ssh:deploy@box.example:2222").unwrap(),
            Target::Ssh {
                user: Some("deploy".into()),
                host: "box.example".into(),
                port: Some(2222)
            }
        );
        assert_eq!(
            Target::parse("ssh:box").unwrap(),
            Target::Ssh {
                user: None,
                host: "box".into(),
                port: None
            }
        );
        assert_eq!(
            Target::parse("ssh:[::1]:22").unwrap(),
            Target::Ssh {
                user: None,
                host: "::1".into(),
                port: Some(22)
            }
        );
        for bad in [
            "ssh:",
            "ssh:@h",
            "ssh:h:0",
            "ssh:h:x",
            "container:",
            "tcp:h",
            "ssh:-oProxy",
        ] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Target::parse("ssh:u@h:2").unwrap().describe(), "ssh:u@h:2");
    }

    #[test]
    fn the_loader_of_this_build_is_read_from_its_elf_header() {
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let loader = elf_interpreter(&me);
        // A test binary of a glibc toolchain names its loader; a static one none.
        if let Some(l) = &loader {
            assert!(l.starts_with('/') && l.contains("ld"), "{l}");
            assert!(std::path::Path::new(l).exists(), "{l}");
        }
        assert_eq!(elf_interpreter(b"#!/bin/sh\n"), None);
        assert_eq!(elf_interpreter(&me[..16]), None);
    }

    #[test]
    fn ssh_failures_are_said_plainly() {
        let r = Remote {
            target: Target::parse("ssh:h:1").unwrap(),
            cwd: None,
            engine: None,
            ssh_config: None,
            state: StateDir::new("/nonexistent"),
        };
        assert!(
            r.ssh_failure("ssh: connect to host h port 1: Connection refused\n")
                .starts_with("--exec ssh:h:1: host unreachable: ")
        );
        assert!(
            r.ssh_failure("u@h: Permission denied (publickey).\n")
                .contains("authentication refused")
        );
        assert!(r.control_path().to_string_lossy().len() <= MAX_CONTROL_PATH + 40);
    }
}
