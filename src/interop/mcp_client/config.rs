//! MCP config discovery: which MCP servers this invocation may graft, read from the
//! files users already keep for their editors and agents.
//!
//! This module owns reading and merging those files and nothing else (no
//! connection, no state). Precedence, earliest wins on a repeated server name:
//! `--mcp-config FILE` (parsed directly); `<cwd>/.indusvx/mcp.json`; then, in the
//! working folder and each parent up to the repository root (the nearest folder
//! holding `.git`; without one, the working folder alone), nearest first, the
//! project files of other tools: `.mcp.json` (Claude Code), `.cursor/mcp.json`
//! (Cursor), `.vscode/mcp.json` (VS Code); then `$XDG_CONFIG_HOME/indusvx/mcp.json`
//! (default `~/.config`), and the legacy `~/.indusvx/agent/mcp.json` and
//! `~/.indusvx/agent/mcp-servers.json`.
//!
//! Accepted shapes: `{"servers": [{"name": …}]}`, `{"servers": {name: {…}}}`,
//! `{"mcpServers": {name: {…}}}` (Claude Desktop, Claude Code, Cursor) and VS
//! Code's `{"servers": {name: {"type": "stdio"|"http"|"sse", …}}}`. A row with
//! `"enabled": false` is dropped; `command` (+ `args`, `env`, `cwd`) is a stdio
//! server, `url` (+ `headers`) a Streamable HTTP one (SSE when `type`/`transport`
//! says `sse`). Variables expand in command, args, env, cwd, url and headers, in
//! the forms those tools write: `${VAR}`, `${VAR:-default}`, `${env:VAR}`,
//! `${workspaceFolder}` (the project folder the file belongs to),
//! `${workspaceFolderBasename}`, `${userHome}` and `${pathSeparator}`. Errors are
//! data: a malformed or unreadable file, a row matching no transport, or a
//! variable that cannot be expanded (unset with no default, or a form such as
//! VS Code's `${input:…}` prompt) becomes a [`ConfigWarning`] naming the file
//! (and server, and variable) and why, and only that file or row is skipped.
//!
//! Trust: the project files (`<cwd>/.indusvx/mcp.json` and the editors' files
//! found from the working folder up) come with the checkout, which may be a
//! stranger's, and a server row is a program to run or an address to send
//! headers to. Such a file is read only when the user trusted its exact content
//! (`indus-tool trust FILE`, see `state::trust`); an untrusted one is listed in
//! [`McpConfig::untrusted`] and not parsed at all, so no variable of it is
//! expanded and none of its servers is started or dialled. The trust also
//! covers the project files its stdio servers launch (`state::trust::launched_by`:
//! the command when it is a path, each argument naming a file of the project):
//! a file whose recorded launched files changed is not parsed either, and one
//! whose servers, once parsed, launch a project file the trust does not cover
//! is not used ([`McpConfig::distrust`] says which and why). The file named with
//! `--mcp-config` and the user's own files need no trust. Every file is read
//! only when it is a regular file of at most 1 MiB.

use std::path::{Path, PathBuf};

use crate::kernel::digest::sha256_hex;
use crate::state::trust::{Distrust, Grant};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How to reach one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum ServerTransport {
    /// A child process speaking MCP on its stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: IndexMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// Streamable HTTP.
    Http {
        url: String,
        headers: IndexMap<String, String>,
    },
    /// The legacy HTTP+SSE transport (see `sse`).
    Sse {
        url: String,
        headers: IndexMap<String, String>,
    },
}

impl ServerTransport {
    /// `stdio`, `http` or `sse`.
    pub fn kind(&self) -> &'static str {
        match self {
            ServerTransport::Stdio { .. } => "stdio",
            ServerTransport::Http { .. } => "http",
            ServerTransport::Sse { .. } => "sse",
        }
    }
}

/// One configured server, its `${VAR}`s expanded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerConfig {
    pub name: String,
    pub transport: ServerTransport,
    /// Connect (spawn + initialize + tools/list) timeout, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_timeout_ms: Option<u64>,
    /// Per-call timeout, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_timeout_ms: Option<u64>,
    /// The file the row came from (not part of the config hash).
    #[serde(skip, default)]
    pub source: PathBuf,
}

/// A file or row that was skipped, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigWarning {
    pub file: PathBuf,
    pub message: String,
}

impl std::fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "mcp config {}: {}; skipped",
            self.file.display(),
            self.message
        )
    }
}

/// The merged configuration of one invocation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpConfig {
    /// Servers by name, in precedence order (first file first, rows in file order).
    pub servers: Vec<ServerConfig>,
    pub warnings: Vec<ConfigWarning>,
    /// The files that existed and were read (parsed or not), in precedence order.
    pub files: Vec<PathBuf>,
    /// The project files that exist but are not used: not trusted (then not
    /// even parsed), or launching a project file their trust does not cover.
    pub untrusted: Vec<PathBuf>,
    /// Why each of [`Self::untrusted`] is not used, in its order.
    pub distrust: Vec<Distrust>,
}

impl McpConfig {
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    pub fn server(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// One line per untrusted project file, naming it, why (when a file it
    /// launches changed), and the command that trusts it.
    pub fn untrusted_notes(&self) -> Vec<String> {
        self.untrusted
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let why = self.distrust.get(i).unwrap_or(&Distrust::NotTrusted);
                crate::state::trust::distrust_line("the MCP servers", f, why)
            })
            .collect()
    }

    /// `sha256:<64 hex>` over the canonical JSON of the merged servers (after
    /// expansion, so a changed variable changes the hash; the source files do not
    /// count). The ledger is refreshed when this changes.
    pub fn hash(&self) -> String {
        let mut servers: Vec<&ServerConfig> = self.servers.iter().collect();
        servers.sort_by(|a, b| a.name.cmp(&b.name));
        let value = serde_json::to_value(&servers).expect("configs serialize");
        let bytes = crate::kernel::digest::canonical_json(&value);
        format!("sha256:{}", sha256_hex(bytes.as_bytes()))
    }
}

/// Where to look, how to read the environment and whom to trust (injectable
/// for tests).
pub struct Discovery<'a> {
    /// `--mcp-config FILE`.
    pub explicit: Option<PathBuf>,
    pub cwd: PathBuf,
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// Whether the user trusted a project file with exactly these bytes (and
    /// the files it launched then are unchanged): what the trust covers, or
    /// why the file is not used.
    pub trusted: &'a TrustCheck<'a>,
}

/// How [`Discovery`] asks whether a project file with these bytes is trusted
/// (`state::trust::check`, or a stand-in in tests).
pub type TrustCheck<'f> = dyn Fn(&Path, &[u8]) -> Result<Grant, Distrust> + 'f;

/// Where a candidate file comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `--mcp-config FILE`: it must exist.
    Named,
    /// The checkout: used only when trusted.
    Project,
    /// The user's own configuration folders.
    User,
}

/// The project's MCP config files for `cwd`, whether they exist or not:
/// `<cwd>/.indusvx/mcp.json`, then `.mcp.json`, `.cursor/mcp.json` and
/// `.vscode/mcp.json` in `cwd` and each parent up to the repository root.
pub fn project_candidates(cwd: &Path) -> Vec<PathBuf> {
    let mut out = vec![cwd.join(".indusvx").join("mcp.json")];
    for dir in project_folders(cwd) {
        out.push(dir.join(".mcp.json"));
        out.push(dir.join(".cursor").join("mcp.json"));
        out.push(dir.join(".vscode").join("mcp.json"));
    }
    out
}

impl Discovery<'_> {
    /// The candidate files in precedence order (whether they exist or not), and
    /// where each comes from.
    pub fn candidates(&self) -> Vec<(PathBuf, Origin)> {
        let mut out = Vec::new();
        if let Some(file) = &self.explicit {
            out.push((self.cwd.join(file), Origin::Named));
        }
        out.extend(
            project_candidates(&self.cwd)
                .into_iter()
                .map(|p| (p, Origin::Project)),
        );
        for file in self.user_files() {
            out.push((file, Origin::User));
        }
        out
    }

    /// The user's files: `$XDG_CONFIG_HOME/indusvx/mcp.json` (default
    /// `~/.config`), `~/.indusvx/agent/mcp.json` and `mcp-servers.json`.
    fn user_files(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let home = self.home();
        let xdg = (self.env)("XDG_CONFIG_HOME")
            .filter(|x| !x.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".config")));
        if let Some(xdg) = xdg {
            out.push(xdg.join("indusvx").join("mcp.json"));
        }
        if let Some(home) = home {
            let agent = home.join(".indusvx").join("agent");
            out.push(agent.join("mcp.json"));
            out.push(agent.join("mcp-servers.json"));
        }
        out
    }

    /// Whether a project file is also one the user named or keeps (a `--cwd` in
    /// the user's configuration folder, `--mcp-config .mcp.json`): then it is the
    /// user's, read where the user's files are.
    fn also_the_users(&self, file: &Path) -> bool {
        let trust = crate::state::trust::same_file;
        self.explicit
            .as_ref()
            .is_some_and(|e| trust(&self.cwd.join(e), file))
            || self.user_files().iter().any(|u| trust(u, file))
    }

    fn home(&self) -> Option<PathBuf> {
        (self.env)("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
    }

    /// The folder `${workspaceFolder}` means in `file`: the project folder a
    /// project file sits in (the parent of `.vscode`, `.cursor`, `.indusvx`, or
    /// of `.mcp.json` itself), the working folder for the others.
    fn workspace_of(&self, file: &Path) -> PathBuf {
        let parent = file.parent().unwrap_or(&self.cwd);
        let named = |n: &str| parent.file_name().is_some_and(|f| f == n);
        if file.file_name().is_some_and(|f| f == ".mcp.json") {
            parent.to_path_buf()
        } else if named(".vscode") || named(".cursor") || named(".indusvx") {
            parent.parent().unwrap_or(parent).to_path_buf()
        } else {
            self.cwd.clone()
        }
    }

    /// Read and merge every candidate. Absent optional files cost one failed
    /// `open` each and produce nothing.
    pub fn load(&self) -> McpConfig {
        let mut config = McpConfig::default();
        let mut merged: IndexMap<String, ServerConfig> = IndexMap::new();
        for (file, origin) in self.candidates() {
            let bytes = match crate::state::trust::read_config(&file) {
                Ok(Some(b)) => b,
                // Absent: no file, or a path through something that is not a folder.
                Ok(None) if origin != Origin::Named => continue,
                Ok(None) => {
                    config.files.push(file.clone());
                    config.warnings.push(ConfigWarning {
                        file,
                        message: "cannot read it: there is no such file".to_string(),
                    });
                    continue;
                }
                Err(e) => {
                    config.files.push(file.clone());
                    config.warnings.push(ConfigWarning {
                        file,
                        message: format!("cannot read it: {e}"),
                    });
                    continue;
                }
            };
            // An untrusted project file is not even parsed: no variable of it is
            // expanded, none of its servers started or dialled.
            let grant = match origin {
                Origin::Project => match (self.trusted)(&file, &bytes) {
                    Ok(grant) => Some(grant),
                    Err(why) => {
                        if !self.also_the_users(&file) {
                            config.untrusted.push(file);
                            config.distrust.push(why);
                        }
                        continue;
                    }
                },
                _ => None,
            };
            let text = match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(_) => {
                    config.files.push(file.clone());
                    config.warnings.push(ConfigWarning {
                        file,
                        message: "cannot read it: it is not UTF-8 text".to_string(),
                    });
                    continue;
                }
            };
            let (servers, warnings) = self.parse_file(&file, &text);
            // Trusted, but launching a project file its trust does not cover
            // (added or built since, or a record from before launched files
            // were covered): not used either.
            if let Some(grant) = &grant
                && let Some(project) = grant.project()
                && let Err(why) = grant.covers(&self.launches(project, &servers))
            {
                if !self.also_the_users(&file) {
                    config.untrusted.push(file);
                    config.distrust.push(why);
                }
                continue;
            }
            config.files.push(file.clone());
            config.warnings.extend(warnings);
            for server in servers {
                merged.entry(server.name.clone()).or_insert(server);
            }
        }
        config.servers = merged.into_values().collect();
        config
    }
}

impl Discovery<'_> {
    /// Parse one file's text, its variables expanded as this discovery reads
    /// them (`${workspaceFolder}` the file's project folder).
    fn parse_file(&self, file: &Path, text: &str) -> (Vec<ServerConfig>, Vec<ConfigWarning>) {
        let workspace = self.workspace_of(file);
        let home = self.home();
        let lookup = |name: &str| -> Option<String> {
            match name {
                "workspaceFolder" => Some(workspace.to_string_lossy().into_owned()),
                "workspaceFolderBasename" => workspace
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned()),
                "userHome" => home.as_ref().map(|h| h.to_string_lossy().into_owned()),
                "pathSeparator" => Some("/".to_string()),
                _ => (self.env)(name),
            }
        };
        parse_config_text(text, file, &lookup)
    }

    /// The files of `project` the stdio `servers` launch when started from
    /// this discovery's working folder (their `cwd` joined to it), as
    /// `state::trust::launched_by` finds them; a `PATH` in a server's `env` is
    /// searched for a bare command.
    fn launches(&self, project: &Path, servers: &[ServerConfig]) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        for server in servers {
            let ServerTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } = &server.transport
            else {
                continue;
            };
            let base = cwd.as_ref().map_or(self.cwd.clone(), |d| self.cwd.join(d));
            let argv: Vec<String> = std::iter::once(command.clone())
                .chain(args.iter().cloned())
                .collect();
            for file in crate::state::trust::launched_by(
                project,
                &base,
                &argv,
                env.get("PATH").map(String::as_str),
            ) {
                if !out.contains(&file) {
                    out.push(file);
                }
            }
        }
        out
    }
}

/// The project files the stdio servers of the MCP config `file` (its `text`)
/// launch when started from `cwd`, variables expanded with `env`: what
/// `indus-tool trust` records beside the file's hash.
pub fn launched_files(
    file: &Path,
    text: &str,
    cwd: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<PathBuf> {
    let discovery = Discovery {
        explicit: None,
        cwd: cwd.to_path_buf(),
        env,
        trusted: &|_, _| Ok(Grant::everything()),
    };
    let (servers, _) = discovery.parse_file(file, text);
    discovery.launches(&crate::state::trust::project_of(file), &servers)
}

/// Parse one file's text into its enabled servers and the warnings about what was
/// skipped.
pub fn parse_config_text(
    text: &str,
    file: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> (Vec<ServerConfig>, Vec<ConfigWarning>) {
    let mut warnings = Vec::new();
    let warn = |warnings: &mut Vec<ConfigWarning>, message: String| {
        warnings.push(ConfigWarning {
            file: file.to_path_buf(),
            message,
        })
    };
    let root: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            warn(&mut warnings, format!("malformed JSON ({e})"));
            return (Vec::new(), warnings);
        }
    };
    let Value::Object(root) = root else {
        warn(
            &mut warnings,
            "expected a JSON object with \"servers\" or \"mcpServers\"".to_string(),
        );
        return (Vec::new(), warnings);
    };
    let mut rows: Vec<(String, Value)> = Vec::new();
    let mut saw_key = false;
    for key in ["servers", "mcpServers"] {
        match root.get(key) {
            None => {}
            Some(Value::Object(map)) => {
                saw_key = true;
                rows.extend(map.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            Some(Value::Array(items)) => {
                saw_key = true;
                for (i, item) in items.iter().enumerate() {
                    match item.get("name").and_then(Value::as_str) {
                        Some(name) if !name.is_empty() => {
                            rows.push((name.to_string(), item.clone()))
                        }
                        _ => warn(
                            &mut warnings,
                            format!("\"{key}\"[{i}] has no \"name\" string"),
                        ),
                    }
                }
            }
            Some(_) => {
                saw_key = true;
                warn(
                    &mut warnings,
                    format!("\"{key}\" must be an object or an array"),
                );
            }
        }
    }
    if !saw_key {
        warn(
            &mut warnings,
            "no \"servers\" or \"mcpServers\" key".to_string(),
        );
    }
    let mut servers: Vec<ServerConfig> = Vec::new();
    for (name, row) in rows {
        if servers.iter().any(|s| s.name == name) {
            continue;
        }
        match parse_row(&name, &row, file, env) {
            Ok(Some(server)) => servers.push(server),
            Ok(None) => {}
            Err(message) => warn(&mut warnings, format!("server \"{name}\": {message}")),
        }
    }
    (servers, warnings)
}

/// One row: `Ok(None)` when disabled, `Err` when it matches no transport or a
/// field has the wrong type.
fn parse_row(
    name: &str,
    row: &Value,
    file: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<ServerConfig>, String> {
    let Value::Object(row) = row else {
        return Err("expected an object".to_string());
    };
    if row.get("enabled").and_then(Value::as_bool) == Some(false)
        || row.get("disabled").and_then(Value::as_bool) == Some(true)
    {
        return Ok(None);
    }
    let expand = |s: &str| expand_vars(s, env);
    let string = |key: &str| -> Result<Option<String>, String> {
        match row.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(expand(s).map_err(|e| format!("\"{key}\": {e}"))?)),
            Some(_) => Err(format!("\"{key}\" must be a string")),
        }
    };
    let map = |key: &str| -> Result<IndexMap<String, String>, String> {
        match row.get(key) {
            None | Some(Value::Null) => Ok(IndexMap::new()),
            Some(Value::Object(m)) => m
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((
                        k.clone(),
                        expand(s).map_err(|e| format!("\"{key}.{k}\": {e}"))?,
                    )),
                    Value::Number(n) => Ok((k.clone(), n.to_string())),
                    Value::Bool(b) => Ok((k.clone(), b.to_string())),
                    _ => Err(format!("\"{key}.{k}\" must be a string")),
                })
                .collect(),
            Some(_) => Err(format!("\"{key}\" must be an object of strings")),
        }
    };
    let kind = string("type")?
        .or(string("transport")?)
        .map(|k| k.to_ascii_lowercase());
    let command = string("command")?;
    let url = string("url")?.or(string("serverUrl")?);
    let transport = match (kind.as_deref(), command, url) {
        (Some("sse"), _, Some(url)) => ServerTransport::Sse {
            url,
            headers: map("headers")?,
        },
        (Some("http" | "streamable-http" | "streamablehttp" | "streamable_http"), _, Some(url))
        | (None | Some("stdio"), None, Some(url)) => ServerTransport::Http {
            url,
            headers: map("headers")?,
        },
        (None | Some("stdio"), Some(command), _) => {
            let args = match row.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|a| match a {
                        Value::String(s) => expand(s).map_err(|e| format!("\"args\": {e}")),
                        Value::Number(n) => Ok(n.to_string()),
                        _ => Err("\"args\" must be an array of strings".to_string()),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err("\"args\" must be an array of strings".to_string()),
            };
            ServerTransport::Stdio {
                command,
                args,
                env: map("env")?,
                cwd: string("cwd")?,
            }
        }
        (Some(other), _, _)
            if !matches!(
                other,
                "stdio" | "http" | "sse" | "streamable-http" | "streamablehttp" | "streamable_http"
            ) =>
        {
            return Err(format!("unknown transport type \"{other}\""));
        }
        (Some(kind), _, _) => {
            return Err(format!(
                "type \"{kind}\" needs {}",
                if kind == "stdio" {
                    "\"command\""
                } else {
                    "\"url\""
                }
            ));
        }
        (None, None, None) => {
            return Err("no \"command\" (stdio) or \"url\" (HTTP); matches no transport".into());
        }
    };
    let millis = |key: &str| -> Result<Option<u64>, String> {
        match row.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .filter(|n| *n > 0)
                .map(Some)
                .ok_or_else(|| format!("\"{key}\" must be a positive number of milliseconds")),
        }
    };
    Ok(Some(ServerConfig {
        name: name.to_string(),
        transport,
        connect_timeout_ms: millis("connectTimeoutMs")?,
        call_timeout_ms: millis("callTimeoutMs")?.or(millis("timeout")?),
        source: file.to_path_buf(),
    }))
}

/// Expand the variables of a config string (see the module comment): `${NAME}`
/// and `${env:NAME}` from `lookup` (which also answers the editor names such as
/// `workspaceFolder`), `${NAME:-default}` with the default when NAME is unset or
/// empty. A variable that cannot be expanded is an error naming it as written;
/// `$` not followed by `{`, and an unclosed `${`, are kept as written.
pub fn expand_vars(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[i..]);
            return Ok(out);
        };
        let inner = &after[..end];
        let (var, default) = match inner.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (inner, None),
        };
        let name = var.strip_prefix("env:").unwrap_or(var);
        let known = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !known {
            return Err(format!(
                "${{{inner}}} is not a variable indus-tool can expand (the forms are ${{VAR}}, ${{VAR:-default}}, ${{env:VAR}}, ${{workspaceFolder}}, ${{userHome}})"
            ));
        }
        match (lookup(name).filter(|v| !v.is_empty()), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(d)) => out.push_str(d),
            (None, None) => {
                return Err(format!(
                    "${{{inner}}} is not set (set {name}, or write ${{{var}:-default}})"
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The working folder and its parents up to the repository root (the nearest
/// folder holding `.git`), nearest first; the working folder alone outside a
/// repository, so a file in some unrelated parent is never picked up.
fn project_folders(cwd: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in cwd.ancestors() {
        out.push(dir.to_path_buf());
        if dir.join(".git").exists() {
            return out;
        }
    }
    vec![cwd.to_path_buf()]
}

/// The process environment as a lookup.
pub fn process_env(key: &str) -> Option<String> {
    std::env::var(key).ok()
}

/// Convenience: discover with the process environment and the user's trust.
pub fn discover(explicit: Option<PathBuf>, cwd: &Path) -> McpConfig {
    Discovery {
        explicit,
        cwd: cwd.to_path_buf(),
        env: &process_env,
        trusted: &crate::state::trust::check,
    }
    .load()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    fn parse(text: &str) -> (Vec<ServerConfig>, Vec<ConfigWarning>) {
        parse_config_text(text, Path::new("/cfg.json"), &env_of(&[("TOKEN", "t0k")]))
    }

    #[test]
    fn the_seed_array_and_object_shapes() {
        let (a, w) = parse(r#"{"servers":[{"name":"fs","command":"mcp-fs","args":["/tmp"]}]}"#);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].name, "fs");
        assert_eq!(
            a[0].transport,
            ServerTransport::Stdio {
                command: "mcp-fs".into(),
                args: vec!["/tmp".into()],
                env: IndexMap::new(),
                cwd: None
            }
        );
        let (o, w) = parse(r#"{"servers":{"fs":{"command":"mcp-fs","args":["/tmp"]}}}"#);
        assert!(w.is_empty());
        assert_eq!(o[0].transport, a[0].transport);
    }

    #[test]
    fn the_claude_cursor_shape_and_vscode_types() {
        let (s, w) = parse(
            r#"{"mcpServers":{
                "git":{"command":"uvx","args":["mcp-server-git"],"env":{"K":"${TOKEN}"}},
                "remote":{"url":"https://example.com/mcp","headers":{"Authorization":"Bearer ${TOKEN}"}}
            }}"#,
        );
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s[0].transport.kind(), "stdio");
        let ServerTransport::Stdio { env, .. } = &s[0].transport else {
            panic!()
        };
        assert_eq!(env["K"], "t0k");
        let ServerTransport::Http { url, headers } = &s[1].transport else {
            panic!()
        };
        assert_eq!(url, "https://example.com/mcp");
        assert_eq!(headers["Authorization"], "Bearer t0k");

        let (v, w) = parse(
            r#"{"servers":{
                "a":{"type":"stdio","command":"x"},
                "b":{"type":"http","url":"http://h/mcp"},
                "c":{"type":"sse","url":"http://h/sse"},
                "d":{"type":"carrier-pigeon","url":"x"}
            }}"#,
        );
        let kinds: Vec<&str> = v.iter().map(|s| s.transport.kind()).collect();
        assert_eq!(kinds, ["stdio", "http", "sse"]);
        assert_eq!(w.len(), 1);
        assert!(w[0].message.contains("\"d\""), "{}", w[0].message);
        assert!(w[0].message.contains("carrier-pigeon"));
    }

    #[test]
    fn disabled_rows_are_dropped_and_rows_without_transport_skipped_alone() {
        let (s, w) = parse(
            r#"{"servers":[
                {"name":"off","command":"x","enabled":false},
                {"name":"none"},
                {"command":"nameless"},
                {"name":"ok","command":"y"}
            ]}"#,
        );
        assert_eq!(
            s.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            ["ok"]
        );
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].message.contains("\"servers\"[2]"));
        assert!(w[1].message.contains("server \"none\""));
        assert!(w[1].message.contains("no transport"));
        assert!(w[1].to_string().starts_with("mcp config /cfg.json: "));
    }

    #[test]
    fn malformed_files_are_one_warning_naming_the_file() {
        for text in ["{ nope", "[1,2]", r#"{"other":1}"#, r#"{"servers":3}"#] {
            let (s, w) = parse(text);
            assert!(s.is_empty());
            assert_eq!(w.len(), 1, "{text}");
            assert_eq!(w[0].file, Path::new("/cfg.json"));
        }
        let (_, w) = parse("{ nope");
        assert!(w[0].message.contains("malformed JSON"));
    }

    #[test]
    fn variables_expand_with_defaults() {
        let env = env_of(&[("A", "1"), ("EMPTY", "")]);
        let ok = |t: &str| expand_vars(t, &env).unwrap();
        assert_eq!(ok("x${A}y"), "x1y");
        assert_eq!(ok("${env:A}"), "1");
        assert_eq!(ok("${B:-dflt}"), "dflt");
        assert_eq!(ok("${env:B:-dflt}"), "dflt");
        assert_eq!(ok("${EMPTY:-d}"), "d");
        assert_eq!(ok("${A:-d}"), "1");
        assert_eq!(ok("$A ${unclosed"), "$A ${unclosed");
        assert_eq!(
            expand_vars("${B}", &env).unwrap_err(),
            "${B} is not set (set B, or write ${B:-default})"
        );
        assert_eq!(
            expand_vars("x ${env:TOKEN}", &env).unwrap_err(),
            "${env:TOKEN} is not set (set TOKEN, or write ${env:TOKEN:-default})"
        );
        assert!(
            expand_vars("${input:apiKey}", &env)
                .unwrap_err()
                .starts_with("${input:apiKey} is not a variable indus-tool can expand")
        );
        let (s, _) = parse_config_text(
            r#"{"servers":{"s":{"command":"${A}/bin","args":["--p=${B:-9}"],"cwd":"${A}"}}}"#,
            Path::new("/c"),
            &env,
        );
        assert_eq!(
            s[0].transport,
            ServerTransport::Stdio {
                command: "1/bin".into(),
                args: vec!["--p=9".into()],
                env: IndexMap::new(),
                cwd: Some("1".into())
            }
        );
        // An unset variable skips its row, naming the file, server, field and variable.
        let (s, w) = parse_config_text(
            r#"{"servers":{"bad":{"url":"http://h","headers":{"Authorization":"Bearer ${env:TOKEN}"}},"good":{"command":"g"}}}"#,
            Path::new("/p/.vscode/mcp.json"),
            &env,
        );
        assert_eq!(s.len(), 1);
        assert_eq!(
            w[0].to_string(),
            "mcp config /p/.vscode/mcp.json: server \"bad\": \"headers.Authorization\": ${env:TOKEN} is not set (set TOKEN, or write ${env:TOKEN:-default}); skipped"
        );
    }

    /// The project files of Claude Code, Cursor and VS Code are found in the
    /// working folder and its parents up to the repository root, nearest first,
    /// and `${workspaceFolder}` is the project folder each belongs to.
    #[test]
    fn editor_project_files_are_discovered_up_to_the_repository_root() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tmp.path();
        let repo = outside.join("repo");
        let cwd = repo.join("sub/deeper");
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let w = |p: PathBuf, t: &str| {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        w(
            cwd.join(".mcp.json"),
            r#"{"mcpServers":{"a":{"command":"${workspaceFolder}/near"}}}"#,
        );
        w(
            repo.join("sub/.cursor/mcp.json"),
            r#"{"mcpServers":{"a":{"command":"far"},"b":{"command":"${workspaceFolderBasename}","args":["${userHome}"]}}}"#,
        );
        w(
            repo.join(".vscode/mcp.json"),
            r#"{"servers":{"c":{"type":"http","url":"http://h/${env:PORT:-8080}${pathSeparator}mcp"}}}"#,
        );
        // Above the repository root: not read.
        w(
            outside.join(".mcp.json"),
            r#"{"mcpServers":{"z":{"command":"no"}}}"#,
        );
        let env = env_of(&[("HOME", "/home/u")]);
        let c = Discovery {
            explicit: None,
            cwd: cwd.clone(),
            env: &env,
            trusted: &|_, _| Ok(Grant::everything()),
        }
        .load();
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        let names: Vec<&str> = c.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
        let command = |i: usize| match &c.servers[i].transport {
            ServerTransport::Stdio { command, args, .. } => (command.clone(), args.clone()),
            other => panic!("{other:?}"),
        };
        assert_eq!(command(0).0, format!("{}/near", cwd.display()));
        assert_eq!(command(1), ("sub".to_string(), vec!["/home/u".to_string()]));
        assert_eq!(
            c.servers[2].transport,
            ServerTransport::Http {
                url: "http://h/8080/mcp".into(),
                headers: IndexMap::new()
            }
        );
        // Outside any repository: the working folder alone.
        let lone = outside.join("lone/x");
        std::fs::create_dir_all(&lone).unwrap();
        w(
            lone.join(".mcp.json"),
            r#"{"mcpServers":{"l":{"command":"l"}}}"#,
        );
        w(
            outside.join("lone/.mcp.json"),
            r#"{"mcpServers":{"m":{"command":"m"}}}"#,
        );
        let c = Discovery {
            explicit: None,
            cwd: lone,
            env: &env,
            trusted: &|_, _| Ok(Grant::everything()),
        }
        .load();
        let names: Vec<&str> = c.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["l"]);
    }

    /// An untrusted project file is listed and not parsed: none of its servers,
    /// none of its variables looked up; the named file and the user's need no
    /// trust, and a trusted project file is used as written.
    #[test]
    fn untrusted_project_files_are_listed_and_never_expanded() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        let w = |p: PathBuf, t: &str| {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        w(
            repo.join(".vscode/mcp.json"),
            r#"{"servers":{"gh":{"type":"http","url":"http://127.0.0.1:9/mcp","headers":{"Authorization":"Bearer ${env:SECRET}"}}}}"#,
        );
        w(
            repo.join(".mcp.json"),
            r#"{"mcpServers":{"p":{"command":"${env:SECRET}"}}}"#,
        );
        w(
            repo.join("given.json"),
            r#"{"mcpServers":{"g":{"command":"given"}}}"#,
        );
        w(
            home.join(".config/indusvx/mcp.json"),
            r#"{"mcpServers":{"u":{"command":"user"}}}"#,
        );
        let looked_up = std::cell::RefCell::new(Vec::<String>::new());
        let home_s = home.to_string_lossy().into_owned();
        let env = |k: &str| {
            looked_up.borrow_mut().push(k.to_string());
            (k == "HOME").then(|| home_s.clone())
        };
        let trusted_mcp = repo.join(".mcp.json");
        let only_mcp_json = |p: &Path, _: &[u8]| {
            if p == trusted_mcp {
                Ok(Grant::everything())
            } else {
                Err(Distrust::NotTrusted)
            }
        };
        let c = Discovery {
            explicit: Some(PathBuf::from("given.json")),
            cwd: repo.clone(),
            env: &env,
            trusted: &|_, _| Err(Distrust::NotTrusted),
        }
        .load();
        let names: Vec<&str> = c.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["g", "u"]);
        assert_eq!(
            c.untrusted,
            [repo.join(".mcp.json"), repo.join(".vscode/mcp.json")]
        );
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        assert!(!looked_up.borrow().iter().any(|k| k == "SECRET"));
        assert_eq!(
            c.untrusted_notes()[0],
            format!(
                "indus-tool: not using the MCP servers of {0}: this project file is not trusted (indus-tool trust {0})",
                repo.join(".mcp.json").display()
            )
        );
        // Trusting one file uses that one alone; the other stays unread.
        let c = Discovery {
            explicit: None,
            cwd: repo.clone(),
            env: &env,
            trusted: &only_mcp_json,
        }
        .load();
        assert_eq!(c.untrusted, [repo.join(".vscode/mcp.json")]);
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert!(c.warnings[0].message.contains("${env:SECRET} is not set"));
        // A project file the user also named is the user's.
        let c = Discovery {
            explicit: Some(PathBuf::from(".vscode/mcp.json")),
            cwd: repo.clone(),
            env: &|k| (k == "SECRET").then(|| "s3".to_string()),
            trusted: &|_, _| Err(Distrust::NotTrusted),
        }
        .load();
        assert_eq!(c.untrusted, [repo.join(".mcp.json")]);
        assert_eq!(c.servers[0].name, "gh");
    }

    #[test]
    fn precedence_merges_by_name_earlier_wins() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let cwd = tmp.path().join("proj");
        let w = |p: PathBuf, t: &str| {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        w(
            tmp.path().join("given.json"),
            r#"{"mcpServers":{"a":{"command":"given"}}}"#,
        );
        w(
            cwd.join(".indusvx/mcp.json"),
            r#"{"servers":{"a":{"command":"project"},"b":{"command":"project"}}}"#,
        );
        w(
            home.join(".config/indusvx/mcp.json"),
            r#"{"servers":{"b":{"command":"xdg"},"c":{"command":"xdg"}}}"#,
        );
        w(
            home.join(".indusvx/agent/mcp.json"),
            r#"{"servers":{"c":{"command":"legacy"},"d":{"command":"legacy"}}}"#,
        );
        w(home.join(".indusvx/agent/mcp-servers.json"), "{ broken");
        let home_s = home.to_string_lossy().into_owned();
        let env = env_of(&[("HOME", &home_s)]);
        let d = Discovery {
            explicit: Some(tmp.path().join("given.json")),
            cwd: cwd.clone(),
            env: &env,
            trusted: &|_, _| Ok(Grant::everything()),
        };
        let c = d.load();
        let got: Vec<(String, String)> = c
            .servers
            .iter()
            .map(|s| match &s.transport {
                ServerTransport::Stdio { command, .. } => (s.name.clone(), command.clone()),
                _ => panic!(),
            })
            .collect();
        let want: Vec<(String, String)> = [
            ("a", "given"),
            ("b", "project"),
            ("c", "xdg"),
            ("d", "legacy"),
        ]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
        assert_eq!(got, want);
        assert_eq!(c.files.len(), 5);
        assert_eq!(c.warnings.len(), 1);
        assert!(c.warnings[0].file.ends_with("mcp-servers.json"));

        // XDG_CONFIG_HOME replaces ~/.config.
        let xdg = tmp.path().join("xdg");
        w(
            xdg.join("indusvx/mcp.json"),
            r#"{"servers":{"z":{"url":"http://z"}}}"#,
        );
        let xdg_s = xdg.to_string_lossy().into_owned();
        let env = env_of(&[("HOME", &home_s), ("XDG_CONFIG_HOME", &xdg_s)]);
        let c = Discovery {
            explicit: None,
            cwd,
            env: &env,
            trusted: &|_, _| Ok(Grant::everything()),
        }
        .load();
        let names: Vec<&str> = c.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "z", "c", "d"]);
    }

    #[test]
    fn a_missing_explicit_file_is_a_warning_and_the_hash_tracks_content() {
        let tmp = tempfile::tempdir().unwrap();
        let env = env_of(&[]);
        let c = Discovery {
            explicit: Some(tmp.path().join("nope.json")),
            cwd: tmp.path().to_path_buf(),
            env: &env,
            trusted: &|_, _| Ok(Grant::everything()),
        }
        .load();
        assert!(c.servers.is_empty());
        assert_eq!(c.warnings.len(), 1);
        assert!(c.warnings[0].message.contains("cannot read"));

        let (a, _) = parse(r#"{"servers":{"x":{"command":"a"},"y":{"url":"http://u"}}}"#);
        let (b, _) = parse(r#"{"servers":{"y":{"url":"http://u"},"x":{"command":"a"}}}"#);
        let (c2, _) = parse(r#"{"servers":{"x":{"command":"b"},"y":{"url":"http://u"}}}"#);
        let cfg = |s| McpConfig {
            servers: s,
            ..Default::default()
        };
        assert_eq!(cfg(a.clone()).hash(), cfg(b).hash());
        assert_ne!(cfg(a).hash(), cfg(c2).hash());
    }
}
