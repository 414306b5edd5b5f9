//! Which language server reads a file: the built-in table by language, and the
//! configuration that adds servers or overrides them.
//!
//! The table names servers by the command a user installs (`pyright-langserver`,
//! `typescript-language-server`, `gopls`, `clangd`, `rust-analyzer`, `pylsp`), tried
//! in order and found on `PATH`; a language with none installed is a message that
//! names what to install. Configuration is `lsp.json`: the user's
//! (`$XDG_CONFIG_HOME/indusvx/lsp.json`, default `~/.config/indusvx/lsp.json`), and
//! the project's `.indusvx/lsp.json`. A server's command runs a program, so the
//! project's file is read only when the user trusted its exact content
//! (`indus-tool trust .indusvx/lsp.json`, as `.mcp.json` is); an untrusted one is
//! named on stderr and ignored. Entries the project's file has win over the
//! user's, and both over the table.
//!
//! ```json
//! {"servers": {"ty": {"command": ["ty", "server"], "extensions": ["py", "pyi"],
//!                     "initializationOptions": {}}}}
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::state::trust;

/// The language server spec a broker starts and keys its servers by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerSpec {
    /// The table's or the configuration's name (`pyright`, `clangd`).
    pub name: String,
    /// The command and its arguments, the program resolved on `PATH`.
    pub command: Vec<String>,
    /// The project folder the server is started in and given as its root.
    pub root: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initialization_options: Option<Value>,
}

/// One built-in server: its name, its command, the extensions it reads, how
/// to install it.
struct Builtin {
    name: &'static str,
    command: &'static [&'static str],
    extensions: &'static [&'static str],
    install: &'static str,
}

const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "basedpyright",
        command: &["basedpyright-langserver", "--stdio"],
        extensions: &["py", "pyi"],
        install: "pip install basedpyright",
    },
    Builtin {
        name: "pyright",
        command: &["pyright-langserver", "--stdio"],
        extensions: &["py", "pyi"],
        install: "npm install -g pyright",
    },
    Builtin {
        name: "pylsp",
        command: &["pylsp"],
        extensions: &["py", "pyi"],
        install: "pip install python-lsp-server, or apt install python3-pylsp",
    },
    Builtin {
        name: "typescript-language-server",
        command: &["typescript-language-server", "--stdio"],
        extensions: &["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"],
        install: "npm install -g typescript-language-server typescript",
    },
    Builtin {
        name: "gopls",
        command: &["gopls"],
        extensions: &["go"],
        install: "go install golang.org/x/tools/gopls@latest, or apt install gopls",
    },
    Builtin {
        name: "clangd",
        command: &["clangd"],
        extensions: &[
            "c", "h", "cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++",
        ],
        install: "apt install clangd",
    },
    Builtin {
        name: "rust-analyzer",
        command: &["rust-analyzer"],
        extensions: &["rs"],
        install: "rustup component add rust-analyzer",
    },
];

/// The LSP language id of a file, by its extension.
pub fn language_id(path: &Path) -> &'static str {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    match ext.as_str() {
        "py" | "pyi" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "go" => "go",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" => "cpp",
        "rs" => "rust",
        _ => "plaintext",
    }
}

/// A configured server (`lsp.json`'s `servers` entries).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Configured {
    command: Vec<String>,
    #[serde(default)]
    extensions: Vec<String>,
    #[serde(default)]
    initialization_options: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    servers: BTreeMap<String, Configured>,
}

/// The servers a call may use: configured ones first, then the table.
#[derive(Debug, Default)]
pub struct Servers {
    configured: Vec<(String, Configured)>,
    /// What a reader should know: an untrusted project file, an unreadable one.
    pub notes: Vec<String>,
}

/// The user's `lsp.json`.
fn user_config(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let base = env("XDG_CONFIG_HOME")
        .filter(|x| x.starts_with('/'))
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".config")))?;
    Some(base.join("indusvx/lsp.json"))
}

/// The project's `lsp.json` of `cwd`.
pub fn project_config(cwd: &Path) -> PathBuf {
    cwd.join(".indusvx/lsp.json")
}

impl Servers {
    /// Read the user's and the project's configuration (the project's only if
    /// trusted).
    pub fn load(cwd: &Path) -> Servers {
        let mut servers = Servers::default();
        let env = |k: &str| std::env::var(k).ok();
        if let Some(user) = user_config(&env) {
            servers.read(&user, false, cwd);
        }
        servers.read(&project_config(cwd), true, cwd);
        servers
    }

    fn read(&mut self, path: &Path, needs_trust: bool, cwd: &Path) {
        let bytes = match trust::read_config(path) {
            Ok(Some(b)) => b,
            Ok(None) => return,
            Err(e) => {
                self.notes
                    .push(format!("not using {}: {e}", path.display()));
                return;
            }
        };
        let grant = if needs_trust {
            match trust::check(path, &bytes) {
                Ok(grant) => Some(grant),
                Err(why) => {
                    self.notes
                        .push(trust::distrust_text("the language servers", path, &why));
                    return;
                }
            }
        } else {
            None
        };
        match serde_json::from_slice::<ConfigFile>(&bytes) {
            Ok(file) => {
                for (name, entry) in file.servers {
                    // A trusted file's trust covers the project files it
                    // launches as they were when trusted, and no others.
                    if let Some(grant) = &grant {
                        let project = trust::project_of(path);
                        let launched = trust::launched_by(&project, cwd, &entry.command, None);
                        if let Err(why) = grant.covers(&launched) {
                            self.notes.push(trust::distrust_text(
                                &format!("the language server \"{name}\""),
                                path,
                                &why,
                            ));
                            continue;
                        }
                    }
                    if entry.command.is_empty() {
                        self.notes.push(format!(
                            "not using server \"{name}\" of {}: its \"command\" is empty",
                            path.display()
                        ));
                        continue;
                    }
                    // A later file (the project's) replaces an earlier entry.
                    self.configured.retain(|(n, _)| n != &name);
                    self.configured.insert(0, (name, entry));
                }
            }
            Err(e) => self
                .notes
                .push(format!("not using {}: {e}", path.display())),
        }
    }

    /// The server for `path`: the one named `wanted` when given, else the first
    /// configured or built-in one for its extension whose program is found. The
    /// error names what to install.
    pub fn for_file(
        &self,
        path: &Path,
        wanted: Option<&str>,
        root: &Path,
    ) -> Result<ServerSpec, String> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let spec = |name: &str, command: Vec<String>, init: Option<Value>| ServerSpec {
            name: name.to_string(),
            command,
            root: root.to_path_buf(),
            initialization_options: init,
        };
        if let Some(name) = wanted {
            return self.named(name, root).ok_or_else(|| self.unknown(name));
        }
        for (name, c) in &self.configured {
            if c.extensions.iter().any(|e| e.eq_ignore_ascii_case(&ext)) {
                let command = resolve(&c.command, root).ok_or_else(|| {
                    format!(
                        "the configured language server \"{name}\" cannot run: {} is not on PATH",
                        c.command[0]
                    )
                })?;
                return Ok(spec(name, command, c.initialization_options.clone()));
            }
        }
        let builtins: Vec<&Builtin> = BUILTINS
            .iter()
            .filter(|b| b.extensions.contains(&ext.as_str()))
            .collect();
        if builtins.is_empty() {
            return Err(format!(
                "no language server reads .{ext} files (name one for \"{ext}\" in .indusvx/lsp.json or ~/.config/indusvx/lsp.json)",
            ));
        }
        for b in &builtins {
            let command: Vec<String> = b.command.iter().map(|s| s.to_string()).collect();
            if let Some(command) = resolve(&command, root) {
                let init = builtin_options(b.name, &command[0], root);
                return Ok(spec(b.name, command, init));
            }
        }
        let options = builtins
            .iter()
            .map(|b| format!("{} ({})", b.name, b.install))
            .collect::<Vec<_>>()
            .join("; ");
        Err(format!(
            "no language server for {} files is installed: install one of {options}",
            language_id(path)
        ))
    }

    /// Whether some server, configured or built in, reads files like `path`
    /// (installed or not).
    pub fn reads(&self, path: &Path) -> bool {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
            .to_ascii_lowercase();
        self.configured
            .iter()
            .any(|(_, c)| c.extensions.iter().any(|e| e.eq_ignore_ascii_case(&ext)))
            || BUILTINS
                .iter()
                .any(|b| b.extensions.contains(&ext.as_str()))
    }

    /// The server called `name`, configured or built in, when its program is found.
    fn named(&self, name: &str, root: &Path) -> Option<ServerSpec> {
        let (command, init) = match self.configured.iter().find(|(n, _)| n == name) {
            Some((_, c)) => (c.command.clone(), c.initialization_options.clone()),
            None => {
                let b = BUILTINS.iter().find(|b| b.name == name)?;
                (b.command.iter().map(|s| s.to_string()).collect(), None)
            }
        };
        Some(ServerSpec {
            name: name.to_string(),
            command: resolve(&command, root)?,
            root: root.to_path_buf(),
            initialization_options: init,
        })
    }

    fn unknown(&self, name: &str) -> String {
        let known: Vec<&str> = self
            .configured
            .iter()
            .map(|(n, _)| n.as_str())
            .chain(BUILTINS.iter().map(|b| b.name))
            .collect();
        match BUILTINS.iter().find(|b| b.name == name) {
            Some(b) => format!(
                "the language server {name} is not installed ({} is not on PATH): {}",
                b.command[0], b.install
            ),
            None if self.configured.iter().any(|(n, _)| n == name) => {
                format!("the configured language server \"{name}\" is not on PATH")
            }
            None => format!(
                "unknown language server \"{name}\": expected one of {}",
                known.join(", ")
            ),
        }
    }
}

/// What a built-in server needs told at start. typescript-language-server
/// needs a TypeScript: the project's own (`node_modules/typescript`) when it has
/// one, which the server finds itself, else the one installed beside the server.
fn builtin_options(name: &str, program: &str, root: &Path) -> Option<Value> {
    if name != "typescript-language-server" || root.join("node_modules/typescript").is_dir() {
        return None;
    }
    // .../node_modules/.bin/typescript-language-server → .../node_modules/
    // typescript-language-server/lib/cli.mjs: three levels up is node_modules.
    let real = std::fs::canonicalize(program).ok()?;
    let modules = real.parent()?.parent()?.parent()?;
    let tsserver = modules.join("typescript/lib/tsserver.js");
    tsserver
        .is_file()
        .then(|| serde_json::json!({"tsserver": {"path": tsserver}}))
}

/// The project files the servers of the `lsp.json` at `file` (its `text`)
/// launch when started from `base`: what `indus-tool trust` records beside the
/// file's hash.
pub fn launched_files(file: &Path, text: &str, base: &Path) -> Vec<PathBuf> {
    let Ok(config) = serde_json::from_str::<ConfigFile>(text) else {
        return Vec::new();
    };
    let project = trust::project_of(file);
    let mut out: Vec<PathBuf> = Vec::new();
    for entry in config.servers.values() {
        for p in trust::launched_by(&project, base, &entry.command, None) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// `command` with its program found on `PATH` (a path with a `/` is taken from
/// `base`, the folder the server starts in, when it exists); `None` when not
/// found.
fn resolve(command: &[String], base: &Path) -> Option<Vec<String>> {
    let program = command.first()?;
    let found = if program.contains('/') {
        let path = base.join(program);
        is_executable(&path).then_some(path)
    } else {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .map(|d| d.join(program))
                .find(|p| is_executable(p))
        })
    }?;
    let mut out = vec![found.to_string_lossy().into_owned()];
    out.extend(command[1..].iter().cloned());
    Some(out)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_by_extension() {
        assert_eq!(language_id(Path::new("a/b.py")), "python");
        assert_eq!(language_id(Path::new("x.TSX")), "typescriptreact");
        assert_eq!(language_id(Path::new("m.hpp")), "cpp");
        assert_eq!(language_id(Path::new("README")), "plaintext");
    }

    #[test]
    fn an_unknown_extension_names_where_to_configure_one() {
        let e = Servers::default()
            .for_file(Path::new("x.zig"), None, Path::new("/tmp"))
            .unwrap_err();
        assert!(e.contains("no language server reads .zig files"), "{e}");
    }

    #[test]
    fn an_unknown_name_lists_the_known_ones() {
        let e = Servers::default()
            .for_file(Path::new("x.py"), Some("nope"), Path::new("/tmp"))
            .unwrap_err();
        assert!(e.contains("unknown language server \"nope\""), "{e}");
        assert!(e.contains("pyright") && e.contains("clangd"), "{e}");
    }

    #[test]
    fn a_config_refuses_unknown_keys() {
        let bad = r#"{"servers": {"x": {"command": ["x"], "extension": ["py"]}}}"#;
        assert!(serde_json::from_str::<ConfigFile>(bad).is_err());
        let good = r#"{"servers": {"x": {"command": ["x"], "extensions": ["py"]}}}"#;
        assert!(serde_json::from_str::<ConfigFile>(good).is_ok());
    }
}
