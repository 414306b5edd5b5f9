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
//! The trust of an MCP config or an agents file also covers the project files it
//! launches ([`launched_by`]): a server's or agent's program when written as a
//! path, and each argument naming an existing regular file, inside the project.
//! `indus-tool trust` records each one's SHA-256 beside the config's ([`hash_launched`]),
//! and [`check`] holds the config untrusted when one of them changed, went
//! missing or became a link ([`Distrust::Launch`]); the reader then computes
//! what the parsed config launches now, and [`Grant::covers`] refuses a file the
//! record does not hold (built or added since, or a record written before trust
//! covered launched files). What such a file reads or imports in turn, and
//! programs found on `PATH`, are not covered.
//!
//! Files the user named (`--mcp-config FILE`) and the user's own configuration
//! folder need no trust.

use std::collections::HashSet;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::kernel::digest::Sha256Stream;
use crate::state::user::{self, Launched};

/// The most a configuration file may hold (1 MiB): far above any real one, and a
/// bound on what a planted one (a link to `/dev/zero`) can make the toolbox read.
pub const CONFIG_CAP: u64 = 1024 * 1024;

/// The approval and agent files of a project, under `<cwd>/.indusvx/`.
pub const PROJECT_DECK_FILES: [&str; 3] = ["buddy.json", "policy.json", "agents.json"];

/// The most project files one configuration may launch and still be trusted.
pub const LAUNCH_LIMIT: usize = 64;

/// The most a launched file may hold to be trusted (64 MiB), hashed as it is
/// read; a larger one cannot be trusted.
pub const LAUNCH_CAP: u64 = 64 * 1024 * 1024;

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

/// Whether the user trusted `path` with exactly `content`, and every project
/// file recorded as launched by it still holds what was trusted (see [`check`]).
pub fn is_trusted(path: &Path, content: &[u8]) -> bool {
    check(path, content).is_ok()
}

/// What kind of configuration a file is, by its name: what its trust covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigKind {
    /// MCP servers (`.mcp.json`, `mcp.json`, any other name): launches programs.
    Mcp,
    /// `agents.json`: the sub-agents of `task`, launched from the project folder.
    Agents,
    /// `buddy.json`, `policy.json`: settings, launching nothing.
    Settings,
    /// `lsp.json`: language servers, launched from the working directory.
    LanguageServers,
}

/// The kind of the configuration file at `path`.
pub fn kind_of(path: &Path) -> ConfigKind {
    match path.file_name().and_then(|n| n.to_str()) {
        Some("agents.json") => ConfigKind::Agents,
        Some("buddy.json" | "policy.json") => ConfigKind::Settings,
        Some("lsp.json") => ConfigKind::LanguageServers,
        _ => ConfigKind::Mcp,
    }
}

/// The folder a configuration file belongs to: the parent of its `.indusvx`,
/// `.vscode` or `.cursor` folder when it sits in one, else its own folder.
/// `.indusvx/agents.json`'s agents run there, and a config's relative words
/// are looked up there when trusted.
pub fn workspace_of(config: &Path) -> PathBuf {
    let config = user::place_of(config);
    let parent = config.parent().unwrap_or(Path::new("/"));
    let hidden = parent
        .file_name()
        .is_some_and(|n| n == ".indusvx" || n == ".vscode" || n == ".cursor");
    match parent.parent() {
        Some(up) if hidden => up.to_path_buf(),
        _ => parent.to_path_buf(),
    }
}

/// The project a configuration file belongs to, whose files its trust covers
/// when it launches them: the nearest folder holding `.git` from its
/// [`workspace_of`] up, else that folder itself.
pub fn project_of(config: &Path) -> PathBuf {
    crate::kernel::write_guard::project_of(&workspace_of(config))
}

/// The project files a command line launches, as its trust covers them: the
/// program (`argv[0]`) when it holds a `/` (else it is searched on `PATH`, the
/// user's: only the dirs of a `PATH` the config itself sets, `search_path`,
/// are looked in), and each argument, or the value of an `--option=value` one,
/// that names an existing regular file (links followed). Relative words are
/// taken from `base`, the folder the program starts in. Only files inside
/// `project` count (lexically, or once links are resolved): others are the
/// user's. Each is absolute, `.` dropped and `..` kept as the kernel walks it;
/// in order, without repeats.
pub fn launched_by(
    project: &Path,
    base: &Path,
    argv: &[String],
    search_path: Option<&str>,
) -> Vec<PathBuf> {
    let Some((program, args)) = argv.split_first() else {
        return Vec::new();
    };
    let mut candidates: Vec<PathBuf> = Vec::new();
    if program.contains('/') {
        candidates.push(base.join(program));
    } else if let Some(dirs) = search_path
        && !program.is_empty()
    {
        candidates.extend(
            dirs.split(':')
                .map(|d| base.join(if d.is_empty() { "." } else { d }).join(program)),
        );
    }
    for arg in args {
        candidates.push(base.join(arg));
        if arg.starts_with('-')
            && let Some((_, value)) = arg.split_once('=')
            && !value.is_empty()
        {
            candidates.push(base.join(value));
        }
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for candidate in candidates {
        if candidate.as_os_str().as_encoded_bytes().contains(&0) {
            continue;
        }
        let path: PathBuf = candidate.components().collect();
        if !out.contains(&path)
            && std::fs::metadata(&path).is_ok_and(|m| m.is_file())
            && inside(project, &path)
        {
            out.push(path);
        }
    }
    out
}

/// Whether `path` is inside `project`: as written, or once links are resolved.
fn inside(project: &Path, path: &Path) -> bool {
    crate::kernel::root::tidy(path).starts_with(project)
        || matches!(
            (std::fs::canonicalize(path), std::fs::canonicalize(project)),
            (Ok(real), Ok(root)) if real.starts_with(&root)
        )
}

/// `path` as a message names it: relative to `project` when inside it.
fn shown(project: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(project)
        .ok()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| path.to_path_buf(), Path::to_path_buf)
}

/// Hash a launched file for its trust: `Ok(None)` when there is none. Read as
/// configs are: without blocking, only a regular file, at most [`LAUNCH_CAP`]
/// bytes (hashed in chunks). A link is followed and its target recorded beside
/// the hash; a file that was not a link is opened without following one, so a
/// link swapped in for it reads as a change.
pub fn hash_launched(path: &Path) -> io::Result<Option<Launched>> {
    let absent = |e: &io::Error| {
        matches!(
            e.kind(),
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
        )
    };
    let link = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Some(std::fs::read_link(path)?),
        Ok(_) => None,
        Err(e) if absent(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut flags = nix::fcntl::OFlag::O_NONBLOCK;
    if link.is_none() {
        flags |= nix::fcntl::OFlag::O_NOFOLLOW;
    }
    let file = match std::fs::File::options()
        .read(true)
        .custom_flags(flags.bits())
        .open(path)
    {
        Ok(f) => f,
        Err(e) if absent(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    let too_large = || io::Error::other(format!("it is larger than {} MiB", LAUNCH_CAP >> 20));
    if !meta.is_file() {
        return Err(io::Error::other("it is not a regular file"));
    }
    if meta.len() > LAUNCH_CAP {
        return Err(too_large());
    }
    let mut hash = Sha256Stream::default();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    let mut reader = file;
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        if total > LAUNCH_CAP {
            return Err(too_large());
        }
        hash.update(&chunk[..n]);
    }
    Ok(Some(Launched {
        path: path.to_path_buf(),
        sha256: hash.finish_hex(),
        link,
    }))
}

/// Whether a launched file still holds what was trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaunchState {
    Matches,
    /// Other content, a link swapped in (or out, or pointed elsewhere), or no
    /// longer a readable regular file within the cap.
    Changed,
    Missing,
}

impl LaunchState {
    /// `matches`, `changed` or `missing`.
    pub fn name(self) -> &'static str {
        match self {
            LaunchState::Matches => "matches",
            LaunchState::Changed => "changed",
            LaunchState::Missing => "missing",
        }
    }
}

/// The state of the launched file `trusted` records.
pub fn launch_state(trusted: &Launched) -> LaunchState {
    match hash_launched(&trusted.path) {
        Ok(Some(now)) if now.sha256 == trusted.sha256 && now.link == trusted.link => {
            LaunchState::Matches
        }
        Ok(Some(_)) | Err(_) => LaunchState::Changed,
        Ok(None) => LaunchState::Missing,
    }
}

/// Why a project configuration file is not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Distrust {
    /// No trust is recorded for this content.
    NotTrusted,
    /// A file it launches (named relative to the project) changed or went
    /// missing since it was trusted.
    Launch { file: PathBuf, state: LaunchState },
    /// It launches a file its trust does not cover: not there, or not launched,
    /// when it was trusted.
    Uncovered { file: PathBuf },
    /// It was trusted before trust covered launched files, and launches one.
    Before { file: PathBuf },
}

/// What launched files a trust covers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Covered {
    /// Anything: the user's own file (used by tests).
    Everything,
    /// Nothing: a record written before trust covered launched files.
    Before,
    /// These (each checked unchanged by [`check`]).
    Files(Vec<PathBuf>),
}

/// A trust that held for a configuration's content and recorded launched
/// files; what it launches now is checked with [`Grant::covers`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    covered: Covered,
    project: Option<PathBuf>,
}

impl Grant {
    /// A grant covering whatever the file launches (a file of the user's own).
    pub fn everything() -> Grant {
        Grant {
            covered: Covered::Everything,
            project: None,
        }
    }

    /// The project whose files the trust covers; `None` for [`Grant::everything`],
    /// for which there is nothing to check.
    pub fn project(&self) -> Option<&Path> {
        self.project.as_deref()
    }

    /// Whether every file in `launched` (from [`launched_by`]) is covered.
    pub fn covers(&self, launched: &[PathBuf]) -> Result<(), Distrust> {
        let project = self.project.as_deref().unwrap_or(Path::new("/"));
        let first = |f: &PathBuf| shown(project, f);
        match &self.covered {
            Covered::Everything => Ok(()),
            Covered::Before => match launched.first() {
                Some(f) => Err(Distrust::Before { file: first(f) }),
                None => Ok(()),
            },
            Covered::Files(files) => match launched.iter().find(|f| !files.contains(f)) {
                Some(f) => Err(Distrust::Uncovered { file: first(f) }),
                None => Ok(()),
            },
        }
    }
}

/// Whether the user trusted `path` with exactly `content` and each project
/// file the trust recorded as launched still matches: the grant to check what
/// it launches now against, or why it is not used.
pub fn check(path: &Path, content: &[u8]) -> Result<Grant, Distrust> {
    let entry = user::trusted_entry(path, content).ok_or(Distrust::NotTrusted)?;
    let project = project_of(&entry.path);
    let covered = match &entry.launches {
        None => Covered::Before,
        Some(launches) => {
            for launched in launches {
                let state = launch_state(launched);
                if state != LaunchState::Matches {
                    return Err(Distrust::Launch {
                        file: shown(&project, &launched.path),
                        state,
                    });
                }
            }
            Covered::Files(launches.iter().map(|l| l.path.clone()).collect())
        }
    };
    Ok(Grant {
        covered,
        project: Some(project),
    })
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

/// What names a project file not used, and why: [`untrusted_text`] for one not
/// trusted, else `not using WHAT of FILE: tools/x.sh, which it launches,
/// changed since it was trusted (indus-tool trust FILE)` and the like.
pub fn distrust_text(what: &str, path: &Path, why: &Distrust) -> String {
    let reason = match why {
        Distrust::NotTrusted => return untrusted_text(what, path),
        Distrust::Launch {
            file,
            state: LaunchState::Missing,
        } => format!(
            "{}, which it launches, is missing since it was trusted",
            file.display()
        ),
        Distrust::Launch { file, .. } => format!(
            "{}, which it launches, changed since it was trusted",
            file.display()
        ),
        Distrust::Uncovered { file } => format!(
            "{}, which it launches, is not covered by its trust (it was not there, or not launched, when trusted)",
            file.display()
        ),
        Distrust::Before { file } => format!(
            "it was trusted before trust covered the files a config launches, and it launches {}: trust it again",
            file.display()
        ),
    };
    format!(
        "not using {what} of {}: {reason} (indus-tool trust {})",
        path.display(),
        shell_word(path)
    )
}

/// [`distrust_text`] as a line of its own on stderr, prefixed `indus-tool: `.
pub fn distrust_line(what: &str, path: &Path, why: &Distrust) -> String {
    format!("indus-tool: {}", distrust_text(what, path, why))
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
    fn the_reasons_read_as_one_line() {
        let p = Path::new("/p/.mcp.json");
        assert_eq!(
            distrust_line("the MCP servers", p, &Distrust::NotTrusted),
            untrusted_line("the MCP servers", p)
        );
        let changed = Distrust::Launch {
            file: PathBuf::from("tools/mcp-server.sh"),
            state: LaunchState::Changed,
        };
        assert_eq!(
            distrust_line("the MCP servers", p, &changed),
            "indus-tool: not using the MCP servers of /p/.mcp.json: tools/mcp-server.sh, which it launches, changed since it was trusted (indus-tool trust /p/.mcp.json)"
        );
        let missing = Distrust::Launch {
            file: PathBuf::from("x.sh"),
            state: LaunchState::Missing,
        };
        assert!(
            distrust_text("the agents", p, &missing)
                .contains("x.sh, which it launches, is missing")
        );
        let before = Distrust::Before {
            file: PathBuf::from("x.sh"),
        };
        assert!(
            distrust_text("the agents", p, &before)
                .ends_with("launches x.sh: trust it again (indus-tool trust /p/.mcp.json)")
        );
    }

    #[test]
    fn kinds_workspaces_and_projects() {
        assert_eq!(
            kind_of(Path::new("/p/.indusvx/agents.json")),
            ConfigKind::Agents
        );
        assert_eq!(
            kind_of(Path::new("/p/.indusvx/policy.json")),
            ConfigKind::Settings
        );
        assert_eq!(
            kind_of(Path::new("/p/.indusvx/buddy.json")),
            ConfigKind::Settings
        );
        assert_eq!(kind_of(Path::new("/p/.mcp.json")), ConfigKind::Mcp);
        assert_eq!(workspace_of(Path::new("/p/.mcp.json")), Path::new("/p"));
        assert_eq!(
            workspace_of(Path::new("/p/.vscode/mcp.json")),
            Path::new("/p")
        );
        assert_eq!(
            workspace_of(Path::new("/p/.indusvx/agents.json")),
            Path::new("/p")
        );
        assert_eq!(
            workspace_of(Path::new("/p/etc/x.json")),
            Path::new("/p/etc")
        );
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("sub/.cursor")).unwrap();
        assert_eq!(project_of(&repo.join("sub/.cursor/mcp.json")), repo);
        assert_eq!(project_of(&repo.join(".mcp.json")), repo);
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn launched_files_are_the_project_files_a_command_line_names() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("p");
        let outside = tmp.path().join("elsewhere.sh");
        write(&p.join("tools/mcp-server.sh"), "echo hi");
        write(&p.join("server.js"), "1");
        write(&p.join("bin/server"), "bin");
        write(&p.join("cfg.json"), "{}");
        write(&p.join("pkg/__init__.py"), "");
        write(&outside, "echo out");
        std::os::unix::fs::symlink(&outside, p.join("linked.sh")).unwrap();
        let got = |argv: &[&str], path: Option<&str>| launched_by(&p, &p, &words(argv), path);
        assert_eq!(
            got(&["sh", "tools/mcp-server.sh"], None),
            [p.join("tools/mcp-server.sh")]
        );
        assert_eq!(
            got(&["node", "./server.js", "--port", "80"], None),
            [p.join("server.js")]
        );
        assert_eq!(got(&["./bin/server"], None), [p.join("bin/server")]);
        assert_eq!(
            got(&[&p.join("bin/server").to_string_lossy()], None),
            [p.join("bin/server")]
        );
        // A module, a folder, a bare program found on PATH, a missing file,
        // a file outside the project: none.
        assert!(got(&["python", "-m", "pkg"], None).is_empty());
        assert!(got(&["server", "nope.sh"], None).is_empty());
        assert!(got(&["sh", &outside.to_string_lossy(), "../elsewhere.sh"], None).is_empty());
        // A bare program on the config's own PATH; an --option=value; a link
        // of the project leading out; `..` kept as written; no repeats.
        assert_eq!(
            got(&["server"], Some("/usr/bin:bin")),
            [p.join("bin/server")]
        );
        assert_eq!(got(&["x", "--config=cfg.json"], None), [p.join("cfg.json")]);
        assert_eq!(got(&["sh", "linked.sh"], None), [p.join("linked.sh")]);
        assert_eq!(
            got(
                &["sh", "tools/../server.js", "server.js", "./server.js"],
                None
            ),
            [p.join("tools/../server.js"), p.join("server.js")]
        );
        // From another folder (a server's `cwd`), relative words start there.
        assert_eq!(
            launched_by(&p, &p.join("tools"), &words(&["sh", "mcp-server.sh"]), None),
            [p.join("tools/mcp-server.sh")]
        );
    }

    #[test]
    fn a_launched_file_changes_by_content_link_or_absence() {
        let tmp = tempfile::tempdir().unwrap();
        let f = tmp.path().join("s.sh");
        write(&f, "echo one");
        let trusted = hash_launched(&f).unwrap().unwrap();
        assert_eq!(trusted.link, None);
        assert_eq!(launch_state(&trusted), LaunchState::Matches);
        write(&f, "echo two");
        assert_eq!(launch_state(&trusted), LaunchState::Changed);
        // The same bytes through a link swapped in: changed.
        let real = tmp.path().join("real.sh");
        write(&real, "echo one");
        std::fs::remove_file(&f).unwrap();
        std::os::unix::fs::symlink(&real, &f).unwrap();
        assert_eq!(launch_state(&trusted), LaunchState::Changed);
        let linked = hash_launched(&f).unwrap().unwrap();
        assert_eq!(linked.sha256, trusted.sha256);
        assert_eq!(linked.link.as_deref(), Some(real.as_path()));
        assert_eq!(launch_state(&linked), LaunchState::Matches);
        std::fs::remove_file(&f).unwrap();
        assert_eq!(launch_state(&trusted), LaunchState::Missing);
        assert_eq!(hash_launched(&f).unwrap(), None);
        // Over the cap, or not a regular file: not trustable, never waited on.
        let big = tmp.path().join("big");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(LAUNCH_CAP + 1)
            .unwrap();
        assert!(
            hash_launched(&big)
                .unwrap_err()
                .to_string()
                .contains("64 MiB")
        );
        let fifo = tmp.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert!(hash_launched(&fifo).is_err());
        assert!(hash_launched(tmp.path()).is_err());
    }

    #[test]
    fn a_grant_covers_what_was_recorded() {
        let p = PathBuf::from("/p");
        let a = p.join("a.sh");
        let b = p.join("b.sh");
        let files = Grant {
            covered: Covered::Files(vec![a.clone()]),
            project: Some(p.clone()),
        };
        assert_eq!(files.covers(&[]), Ok(()));
        assert_eq!(files.covers(std::slice::from_ref(&a)), Ok(()));
        assert_eq!(
            files.covers(&[a.clone(), b.clone()]),
            Err(Distrust::Uncovered {
                file: PathBuf::from("b.sh")
            })
        );
        let before = Grant {
            covered: Covered::Before,
            project: Some(p),
        };
        assert_eq!(before.covers(&[]), Ok(()));
        assert_eq!(
            before.covers(std::slice::from_ref(&a)),
            Err(Distrust::Before {
                file: PathBuf::from("a.sh")
            })
        );
        assert_eq!(Grant::everything().covers(&[a, b]), Ok(()));
    }

    #[test]
    fn the_trust_check_follows_the_launched_files() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("p");
        std::fs::create_dir_all(p.join(".git")).unwrap();
        let config = p.join(".mcp.json");
        let script = p.join("tools/mcp-server.sh");
        write(&script, "echo one");
        let bytes = b"{}";
        assert_eq!(check(&config, bytes), Err(Distrust::NotTrusted));
        let launched = hash_launched(&script).unwrap().unwrap();
        user::trust(&config, bytes, vec![launched]).unwrap();
        let grant = check(&config, bytes).unwrap();
        assert_eq!(grant.project(), Some(p.as_path()));
        assert_eq!(grant.covers(std::slice::from_ref(&script)), Ok(()));
        assert!(is_trusted(&config, bytes));
        write(&script, "echo two");
        assert_eq!(
            check(&config, bytes),
            Err(Distrust::Launch {
                file: PathBuf::from("tools/mcp-server.sh"),
                state: LaunchState::Changed
            })
        );
        assert!(!is_trusted(&config, bytes));
        std::fs::remove_file(&script).unwrap();
        assert!(matches!(
            check(&config, bytes),
            Err(Distrust::Launch {
                state: LaunchState::Missing,
                ..
            })
        ));
        user::revoke(&config).unwrap();
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
