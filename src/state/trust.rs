//! Project configuration that needs the user's trust: reading such a file, the
//! trust check, and the line that names an untrusted one. Here, beside the
//! user's state, because the floors above that read project files (the deck's
//! approval and agents, the MCP client's configs, the `trust` command) all use it.
//!
//! A checkout may be a stranger's (a fork's pull request in CI, a repository an
//! agent just cloned), and some of the files it carries would make the toolbox
//! run a program or loosen the user's approval: the MCP servers of `.mcp.json`,
//! `.cursor/mcp.json`, `.vscode/mcp.json` and `.indusvx/mcp.json`, the sub-agents
//! of `.indusvx/agents.json`, and what `.indusvx/buddy.json` and
//! `.indusvx/policy.json` would relax. Such a file is used only when the user
//! trusted its exact content (`indus-tool trust FILE`, recorded in user state by
//! [`user::trust`]: path as found (links not followed) and SHA-256, so any edit revokes it). An
//! untrusted one is named once per invocation on stderr with the command that
//! trusts it, and otherwise ignored; nothing ever prompts.
//!
//! Files the user named (`--mcp-config FILE`) and the user's own configuration
//! folder need no trust.

use std::collections::HashSet;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::state::user;

/// The most a configuration file may hold (1 MiB): far above any real one, and a
/// bound on what a planted one (a link to `/dev/zero`) can make the toolbox read.
pub const CONFIG_CAP: u64 = 1024 * 1024;

/// The approval and agent files of a project, under `<cwd>/.indusvx/`.
pub const PROJECT_DECK_FILES: [&str; 3] = ["buddy.json", "policy.json", "agents.json"];

/// Read a configuration file: `Ok(None)` when there is none (absent, or a path
/// through something that is not a folder). Only a regular file is read, and at
/// most [`CONFIG_CAP`] bytes: opening never blocks (a FIFO planted in its place
/// cannot hang the call) and a device is refused.
pub fn read_config(path: &Path) -> io::Result<Option<Vec<u8>>> {
    let file = match std::fs::File::options()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
    {
        Ok(f) => f,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other("it is not a regular file"));
    }
    if meta.len() > CONFIG_CAP {
        return Err(io::Error::other(format!(
            "it is larger than {} KiB",
            CONFIG_CAP / 1024
        )));
    }
    let mut out = Vec::with_capacity(meta.len() as usize);
    file.take(CONFIG_CAP + 1).read_to_end(&mut out)?;
    if out.len() as u64 > CONFIG_CAP {
        return Err(io::Error::other(format!(
            "it is larger than {} KiB",
            CONFIG_CAP / 1024
        )));
    }
    Ok(Some(out))
}

/// Whether the user trusted `path` with exactly `content`.
pub fn is_trusted(path: &Path, content: &[u8]) -> bool {
    user::is_trusted(path, content)
}

/// Whether two paths name the same file (after resolving links).
pub fn same_file(a: &Path, b: &Path) -> bool {
    super::files::same_place(a, b)
}

/// `path` as a shell word: as is when it holds only characters a shell leaves
/// alone, else single-quoted.
pub fn shell_word(path: &Path) -> String {
    let s = path.to_string_lossy();
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%=".contains(c));
    if plain {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// What names an untrusted project file: `not using WHAT of FILE: this project
/// file is not trusted (indus-tool trust FILE)`.
pub fn untrusted_text(what: &str, path: &Path) -> String {
    format!(
        "not using {what} of {}: this project file is not trusted (indus-tool trust {})",
        path.display(),
        shell_word(path)
    )
}

/// [`untrusted_text`] as a line of its own on stderr, prefixed `indus-tool: `.
pub fn untrusted_line(what: &str, path: &Path) -> String {
    format!("indus-tool: {}", untrusted_text(what, path))
}

/// True the first time `path` is named in this process, false after: an
/// untrusted file is named once per invocation, however often it is read (a
/// batch runs many calls).
pub fn first_naming(path: &Path) -> bool {
    static NAMED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    let mut named = NAMED.lock().unwrap_or_else(|e| e.into_inner());
    named
        .get_or_insert_with(HashSet::new)
        .insert(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_shell_words() {
        assert_eq!(shell_word(Path::new("/a/.mcp.json")), "/a/.mcp.json");
        assert_eq!(shell_word(Path::new("/a b/x")), "'/a b/x'");
        assert_eq!(shell_word(Path::new("/it's")), r"'/it'\''s'");
        assert_eq!(
            untrusted_line("the MCP servers", Path::new("/p/.mcp.json")),
            "indus-tool: not using the MCP servers of /p/.mcp.json: this project file is not trusted (indus-tool trust /p/.mcp.json)"
        );
    }

    #[test]
    fn a_file_is_named_once() {
        let p = Path::new("/nowhere/once/.mcp.json");
        assert!(first_naming(p));
        assert!(!first_naming(p));
    }

    #[test]
    fn only_small_regular_files_are_read() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(read_config(&tmp.path().join("none")).unwrap(), None);
        assert_eq!(read_config(&tmp.path().join("none/x")).unwrap(), None);
        let f = tmp.path().join("f.json");
        std::fs::write(&f, "{}").unwrap();
        assert_eq!(read_config(&f).unwrap().as_deref(), Some(&b"{}"[..]));
        assert!(read_config(tmp.path()).is_err());
        assert!(read_config(Path::new("/dev/zero")).is_err());
        let fifo = tmp.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert!(
            read_config(&fifo).is_err(),
            "a FIFO is refused, not waited on"
        );
        let big = tmp.path().join("big");
        std::fs::write(&big, vec![b' '; CONFIG_CAP as usize + 1]).unwrap();
        assert!(read_config(&big).is_err());
    }
}
