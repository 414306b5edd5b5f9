//! Where the file tools may write: protected paths, and the project's edge.
//!
//! An agent whose calls carry an attacker's arguments (a prompt injection), or a
//! checkout written by one, must not turn a file write into code execution or a
//! change of the user's settings. Three kinds of place are **protected** — the
//! file tools (`write`, `edit`, `apply_patch`, a checkpoint rewind) refuse them
//! with or without `--root`, unless the user lifts one by name
//! (`--allow-protected PATH`):
//!
//! - a `.git` folder or file anywhere: git reads its configuration there
//!   (`core.fsmonitor`, `core.hooksPath`, aliases) and runs its hooks, at the
//!   next `git status`, and `git status` never shows a change there;
//! - `.indus-process` and `.indusvx` anywhere: the toolbox's state and the
//!   project's toolbox configuration;
//! - the user's own toolbox folders (`~/.config/indusvx`, the state folder with
//!   its key and trust list), given by whoever builds the guard.
//!
//! A path is judged as spelled and as resolved (links followed as the kernel
//! would, a missing tail kept as spelled), so a link in the tree does not lead
//! past the check.
//!
//! **The project's edge.** Outside the project (the git root, or the working
//! folder outside git) what happens depends on the face: a plain command-line
//! call writes where its user names, as `cp` does; under `--confirm` a write
//! outside is asked about like a command; an agent's face (`batch`, `mcp`) is
//! confined to the project unless `--root` or `--allow-outside PATH` widens it.
//!
//! Kernel-level and pure path work, as [`Root`](super::Root) is, so that every
//! tool that writes asks the same question through
//! [`ToolContext::confine_write`](super::ToolContext::confine_write).

use std::path::{Path, PathBuf};

use super::root::{resolve_lenient, tidy};

/// The names protected wherever they stand in a path, and why.
const PROTECTED_NAMES: &[(&str, &str)] = &[
    (
        ".git",
        "git reads its configuration and runs its hooks from there",
    ),
    (".indus-process", "it is indus-tool's state folder"),
    (".indusvx", "it holds indus-tool's configuration"),
];

/// What a write outside the project meets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outside {
    /// Written where named (a plain command-line call, a library host).
    Anywhere,
    /// Asked about on the terminal (`--confirm`); no terminal is a no.
    Ask,
    /// Refused (an agent's face: `batch`, `mcp`).
    Refuse,
}

/// The rules one invocation's file tools write under.
#[derive(Debug, Clone)]
pub struct WriteGuard {
    /// The user's own folders the file tools never write into (absolute).
    protected_dirs: Vec<(PathBuf, String)>,
    /// Protected paths the user lifted (`--allow-protected`), absolute.
    lifted: Vec<PathBuf>,
    /// The project: the git root, or the working folder outside git; found
    /// from `project_from` when first needed (a plain call that writes where it
    /// is told never looks, and a batch of thousands of calls pays nothing).
    project: std::sync::OnceLock<PathBuf>,
    project_from: PathBuf,
    outside: Outside,
    /// Folders outside the project the user allowed (`--allow-outside`).
    allowed_outside: Vec<PathBuf>,
    /// How a question is asked (`Outside::Ask`): true for yes.
    ask: Option<fn(&str) -> bool>,
    /// Whether paths are on this machine, so that links can be followed.
    local: bool,
}

impl WriteGuard {
    /// A guard protecting the names and `protected_dirs` (each with what it is,
    /// for the refusal), writing anywhere; `project` is where the edge will be.
    pub fn new(project: PathBuf, protected_dirs: Vec<(PathBuf, String)>) -> Self {
        WriteGuard {
            protected_dirs: protected_dirs
                .into_iter()
                .map(|(d, what)| (tidy(&d), what))
                .collect(),
            lifted: Vec::new(),
            project: std::sync::OnceLock::from(tidy(&project)),
            project_from: PathBuf::new(),
            outside: Outside::Anywhere,
            allowed_outside: Vec::new(),
            ask: None,
            local: true,
        }
    }

    /// Protected paths lifted by the user.
    pub fn lifting(mut self, paths: Vec<PathBuf>) -> Self {
        self.lifted = paths.iter().map(|p| tidy(p)).collect();
        self
    }

    /// What a write outside the project meets, the folders allowed outside it,
    /// and how a question is asked.
    pub fn outside(
        mut self,
        outside: Outside,
        allowed: Vec<PathBuf>,
        ask: Option<fn(&str) -> bool>,
    ) -> Self {
        self.outside = outside;
        self.allowed_outside = allowed.iter().map(|p| tidy(p)).collect();
        self.ask = ask;
        self
    }

    /// The project's edge at `project` (a `--root`) rather than the git root.
    pub fn with_project(mut self, project: PathBuf) -> Self {
        self.project = std::sync::OnceLock::from(tidy(&project));
        self
    }

    /// The project's edge at the git root of `cwd` ([`project_of`]), found
    /// when a write outside is first judged.
    pub fn in_project_of(mut self, cwd: &Path) -> Self {
        self.project = std::sync::OnceLock::new();
        self.project_from = tidy(cwd);
        self
    }

    /// Paths on another machine (`--exec`): judged as spelled only.
    pub fn remote(mut self) -> Self {
        self.local = false;
        self
    }

    /// The project folder.
    pub fn project(&self) -> &Path {
        self.project.get_or_init(|| project_of(&self.project_from))
    }

    /// Why the absolute `abs` is protected, if it is and was not lifted: the
    /// path judged as spelled and as resolved.
    pub fn protected(&self, abs: &Path) -> Option<String> {
        self.protected_as_resolved(abs, &self.resolved(abs))
    }

    /// `abs` with its links followed, on this machine; as spelled elsewhere.
    fn resolved(&self, abs: &Path) -> PathBuf {
        if self.local {
            resolve_lenient(abs)
        } else {
            abs.to_path_buf()
        }
    }

    /// [`protected`](Self::protected) of `abs`, whose resolution is `real`.
    fn protected_as_resolved(&self, abs: &Path, real: &Path) -> Option<String> {
        if self
            .lifted
            .iter()
            .any(|l| abs.starts_with(l) || real.starts_with(l))
        {
            return None;
        }
        [abs, real].into_iter().find_map(|p| self.protected_as(p))
    }

    fn protected_as(&self, path: &Path) -> Option<String> {
        for (dir, what) in &self.protected_dirs {
            if path.starts_with(dir) {
                return Some(format!("inside {}, {what}", dir.display()));
            }
        }
        let mut so_far = PathBuf::new();
        for c in path.components() {
            so_far.push(c);
            if let Some((name, why)) = PROTECTED_NAMES
                .iter()
                .find(|(name, _)| c.as_os_str() == *name)
            {
                return Some(if so_far.as_path() == path {
                    format!("a {name} path: {why}")
                } else {
                    format!("inside {}: {why}", so_far.display())
                });
            }
        }
        None
    }

    /// Whether a write to the absolute, tidied `abs` may go ahead; `given` is
    /// the path as the caller spelled it. The refusal names the path and the
    /// flag that lifts it.
    pub fn admit(&self, given: &str, abs: &Path) -> Result<(), String> {
        // Names escaped (see `text::inert`): the message holds no other control.
        self.judge(given, abs)
            .map_err(|m| super::text::inert(&m).into_owned())
    }

    fn judge(&self, given: &str, abs: &Path) -> Result<(), String> {
        // Resolved once: the protected check and the edge both judge it.
        let real = self.resolved(abs);
        if let Some(why) = self.protected_as_resolved(abs, &real) {
            return Err(format!(
                "{given} is a protected path ({why}): the file tools do not write there. To write it anyway, pass --allow-protected {}.",
                abs.display()
            ));
        }
        if self.outside == Outside::Anywhere {
            return Ok(());
        }
        let project = self.project();
        let project_real = self.resolved(project);
        let inside = |base: &Path, base_real: &Path| {
            (abs.starts_with(base) || abs.starts_with(base_real)) && real.starts_with(base_real)
        };
        if inside(project, &project_real)
            || self
                .allowed_outside
                .iter()
                .any(|a| inside(a, &self.resolved(a)))
        {
            return Ok(());
        }
        let folder = abs.parent().unwrap_or(abs).display().to_string();
        let project = project.display();
        let shown = if real.as_path() == abs {
            String::new()
        } else {
            format!(" (it resolves to {})", real.display())
        };
        match self.outside {
            Outside::Refuse => Err(format!(
                "{given}{shown} is outside the project {project}: an agent's calls write only inside it. To widen it, pass --allow-outside {folder} (or --root DIR)."
            )),
            Outside::Ask => {
                let question = format!(
                    "Write outside the project {project}: {}{shown}?",
                    abs.display()
                );
                if self.ask.is_some_and(|ask| ask(&question)) {
                    Ok(())
                } else {
                    Err(format!(
                        "{given}{shown} is outside the project {project}, and writing there was not approved (--confirm asks; with no terminal the answer is no). To allow it, pass --allow-outside {folder}."
                    ))
                }
            }
            Outside::Anywhere => Ok(()),
        }
    }
}

/// The project of `cwd`: the nearest folder upwards holding `.git` (a folder or
/// a worktree's file), else `cwd` itself.
pub fn project_of(cwd: &Path) -> PathBuf {
    let cwd = tidy(cwd);
    cwd.ancestors()
        .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
        .map_or_else(|| cwd.clone(), Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(project: &Path) -> WriteGuard {
        WriteGuard::new(
            project.to_path_buf(),
            vec![(
                project.join("home/.config/indusvx"),
                "your indus-tool configuration".into(),
            )],
        )
    }

    #[test]
    fn protected_names_anywhere_and_the_users_folders_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = std::fs::canonicalize(dir.path()).unwrap();
        let g = guard(&p);
        for rel in [
            ".git/config",
            ".git/hooks/pre-commit",
            ".git",
            "sub/.git/info/exclude",
            ".indus-process/jobs.json",
            ".indusvx/policy.json",
            "home/.config/indusvx/policy.json",
        ] {
            let err = g.admit(rel, &p.join(rel)).unwrap_err();
            assert!(err.contains("--allow-protected"), "{rel}: {err}");
        }
        for rel in [
            ".github/workflows/x.yml",
            "src/git.rs",
            ".gitignore",
            "a.indusvx",
        ] {
            assert_eq!(g.admit(rel, &p.join(rel)), Ok(()), "{rel}");
        }
        // Lifted by name: that path and what is under it, nothing else.
        let g = guard(&p).lifting(vec![p.join(".git/info")]);
        assert_eq!(g.admit("x", &p.join(".git/info/exclude")), Ok(()));
        assert!(g.admit("x", &p.join(".git/config")).is_err());
    }

    #[test]
    fn a_link_does_not_lead_past_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let p = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(p.join(".git/hooks")).unwrap();
        std::os::unix::fs::symlink(".git/hooks", p.join("h")).unwrap();
        std::os::unix::fs::symlink(".git/config", p.join("c")).unwrap();
        let g = guard(&p);
        assert!(g.admit("h/pre-commit", &p.join("h/pre-commit")).is_err());
        assert!(g.admit("c", &p.join("c")).is_err());
        // Spelled only, on another machine.
        let g = guard(&p).remote();
        assert_eq!(g.admit("c", &p.join("c")), Ok(()));
    }

    #[test]
    fn the_edge_of_the_project_by_face() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let p = base.join("proj");
        std::fs::create_dir_all(p.join("src")).unwrap();
        std::os::unix::fs::symlink(&base, p.join("up")).unwrap();
        let out = base.join("elsewhere/x.txt");
        assert_eq!(guard(&p).admit("x", &out), Ok(()));
        let refuse = guard(&p).outside(Outside::Refuse, Vec::new(), None);
        assert_eq!(refuse.admit("src/a", &p.join("src/a")), Ok(()));
        let err = refuse.admit("../elsewhere/x.txt", &out).unwrap_err();
        assert!(err.contains("--allow-outside"), "{err}");
        // Through a link inside the project.
        let err = refuse
            .admit("up/elsewhere/x.txt", &p.join("up/elsewhere/x.txt"))
            .unwrap_err();
        assert!(err.contains("resolves to"), "{err}");
        let widened = guard(&p).outside(Outside::Refuse, vec![base.join("elsewhere")], None);
        assert_eq!(widened.admit("x", &out), Ok(()));
        let asked = |yes: bool| {
            guard(&p).outside(
                Outside::Ask,
                Vec::new(),
                Some(if yes { |_: &str| true } else { |_: &str| false }),
            )
        };
        assert_eq!(asked(true).admit("x", &out), Ok(()));
        assert!(
            asked(false)
                .admit("x", &out)
                .unwrap_err()
                .contains("not approved")
        );
    }

    #[test]
    fn the_project_is_the_git_root() {
        let dir = tempfile::tempdir().unwrap();
        let p = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(p.join("r/.git")).unwrap();
        std::fs::create_dir_all(p.join("r/a/b")).unwrap();
        assert_eq!(project_of(&p.join("r/a/b")), p.join("r"));
        assert_eq!(project_of(&p), p);
    }
}
