//! The ignore files a local search walk honours (`gitignore: true`), read
//! through the state floor's caps ([`crate::state::ignore_files`]) instead of
//! by the `ignore` crate's walker, which reads and compiles every one whole: a
//! checkout's 60,000-line `.gitignore` cost a `find` over a gigabyte. An ignore
//! file over a cap is skipped (its patterns do not apply) and said on stderr.
//!
//! The rules are ripgrep's (the `ignore` crate's, with `require_git` off), so
//! grep and find keep their parity with rg and fd: for each kind of file
//! (`.ignore`, `.gitignore`, `.git/info/exclude`) the innermost folder with a
//! say decides, `.ignore` before `.gitignore` before the excludes, then the
//! user's global excludes; `.gitignore` and the excludes of folders above the
//! first one holding `.git` do not apply; folders above the walk's root count
//! too. Each folder's files are read once, when the first entry in it is seen.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::Match;
use ignore::gitignore::Gitignore;

use crate::state::ignore_files;

/// The ignore rules of a walk, by folder.
pub struct Ignores {
    levels: Mutex<HashMap<PathBuf, Arc<Level>>>,
    global: Gitignore,
}

/// One folder's ignore files, and its parent's.
struct Level {
    parent: Option<Arc<Level>>,
    ignore: Gitignore,
    git: Gitignore,
    exclude: Gitignore,
    has_git: bool,
}

impl Level {
    fn read(dir: &Path, parent: Option<Arc<Level>>) -> Level {
        let has_git = dir.join(".git").exists();
        let load = |p: PathBuf| {
            if p.is_file() {
                ignore_files::load(&p, dir)
            } else {
                Gitignore::empty()
            }
        };
        Level {
            parent,
            ignore: load(dir.join(".ignore")),
            git: load(dir.join(".gitignore")),
            exclude: if has_git {
                load(dir.join(".git/info/exclude"))
            } else {
                Gitignore::empty()
            },
            has_git,
        }
    }
}

impl Ignores {
    /// The rules of a walk of `root` (absolute): the global excludes now, each
    /// folder's files as they are first needed.
    pub fn new(root: &Path) -> Ignores {
        let global = ignore::gitignore::gitconfig_excludes_path()
            .filter(|p| p.is_file())
            .map_or_else(Gitignore::empty, |p| ignore_files::load(&p, root));
        Ignores {
            levels: Mutex::new(HashMap::new()),
            global,
        }
    }

    fn level(&self, dir: &Path) -> Arc<Level> {
        if let Some(l) = self
            .levels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(dir)
        {
            return Arc::clone(l);
        }
        let parent = dir.parent().map(|p| self.level(p));
        let level = Arc::new(Level::read(dir, parent));
        let mut levels = self.levels.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(levels.entry(dir.to_path_buf()).or_insert(level))
    }

    /// Whether the rules leave out `path` (absolute, below the root).
    pub fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        let Some(dir) = path.parent() else {
            return false;
        };
        let level = self.level(dir);
        let (mut by_ignore, mut by_git, mut by_exclude) = (Match::None, Match::None, Match::None);
        let mut saw_git = false;
        let mut at = Some(&*level);
        while let Some(l) = at {
            if by_ignore.is_none() {
                by_ignore = l.ignore.matched(path, is_dir);
            }
            if !saw_git && by_git.is_none() {
                by_git = l.git.matched(path, is_dir);
            }
            if !saw_git && by_exclude.is_none() {
                by_exclude = l.exclude.matched(path, is_dir);
            }
            saw_git |= l.has_git;
            at = l.parent.as_deref();
        }
        [by_ignore, by_git, by_exclude]
            .into_iter()
            .find(|m| !m.is_none())
            .unwrap_or_else(|| self.global.matched(path, is_dir))
            .is_ignore()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_follow_ripgrep_and_skip_an_ignore_file_over_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\nbuild/\n").unwrap();
        std::fs::write(root.join("a/.gitignore"), "!keep.log\n").unwrap();
        std::fs::write(root.join("a/.ignore"), "secret.txt\n").unwrap();
        let big: String = (0..60_000)
            .map(|i| format!("dir{i}/**/*.tmp{i}\n"))
            .collect();
        std::fs::write(root.join("a/b/.gitignore"), big).unwrap();
        let ig = Ignores::new(&root);
        assert!(ig.ignored(&root.join("x.log"), false));
        assert!(ig.ignored(&root.join("build"), true));
        assert!(!ig.ignored(&root.join("build"), false));
        assert!(!ig.ignored(&root.join("a/keep.log"), false));
        assert!(ig.ignored(&root.join("a/other.log"), false));
        assert!(ig.ignored(&root.join("a/b/secret.txt"), false));
        // The big file's patterns do not apply; its parents' still do.
        assert!(!ig.ignored(&root.join("a/b/dir1/x/y.tmp1"), false));
        assert!(ig.ignored(&root.join("a/b/z.log"), false));
    }
}
