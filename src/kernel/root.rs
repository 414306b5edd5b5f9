//! `--root` confinement: the folder every tool-supplied path must stay inside.
//!
//! A path is admitted in two steps. The lexical step compares the tidied absolute
//! path with the root component by component (so `/srv/app2` is not inside
//! `/srv/app`). The real step resolves symlinks the way the kernel would, except
//! that a missing component ends the resolution instead of failing it (like
//! `realpath -m`): a new file is judged by its nearest existing ancestor, and a
//! dangling link by where it points. Both results must lie under the root's own
//! real path.
//!
//! The check alone leaves a window between checking a path and using it, in which
//! a component could be swapped for a link that leads out. The local backend closes
//! it where it matters (see `backends::local`): it opens what it reads or writes
//! into, then asks the kernel for the real path of the open descriptor
//! ([`Root::admits_fd`]) before touching any byte, and writes by descriptor.
//!
//! Hand-written rather than taken from a crate: `std::fs::canonicalize` fails on
//! missing paths, and path-jail crates either need the target to exist or resolve
//! absolute links relative to the root (chroot semantics), which would silently
//! change what a link inside the tree means.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

/// How many symlinks one resolution may follow, as Linux's `MAXSYMLINKS`.
const MAX_LINKS: usize = 40;

/// The error payload of a refusal by a [`Root`], so that callers can tell it from
/// an `EACCES` (both are `PermissionDenied`).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct OutsideRoot(pub String);

impl OutsideRoot {
    /// The refusal as an I/O error.
    pub fn io(message: String) -> io::Error {
        io::Error::new(io::ErrorKind::PermissionDenied, OutsideRoot(message))
    }

    /// Whether `error` is a root's refusal.
    pub fn is(error: &io::Error) -> bool {
        error.get_ref().is_some_and(|e| e.is::<OutsideRoot>())
    }
}

/// The folder tools are confined to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// As configured, made absolute and tidied: what messages show.
    lexical: PathBuf,
    /// With every symlink resolved.
    real: PathBuf,
}

impl Root {
    /// A root at `dir`, which must be an existing directory. A relative `dir` is
    /// taken against `base`.
    pub fn new(dir: &Path, base: &Path) -> io::Result<Root> {
        let lexical = tidy(&base.join(dir));
        let real = std::fs::canonicalize(&lexical)?;
        if !real.is_dir() {
            return Err(io::Error::from_raw_os_error(nix::libc::ENOTDIR));
        }
        Ok(Root { lexical, real })
    }

    /// The root as configured (absolute).
    pub fn path(&self) -> &Path {
        &self.lexical
    }

    /// The root with its symlinks resolved.
    pub fn real(&self) -> &Path {
        &self.real
    }

    fn shown(&self) -> String {
        self.lexical.display().to_string()
    }

    /// Whether the absolute, tidied path `abs` may be used; `given` is the path as
    /// the caller spelled it, for the message.
    pub fn admit(&self, given: &str, abs: &Path) -> Result<(), String> {
        // Names escaped (see `text::inert`): the message holds no other control.
        self.judge(given, abs)
            .map_err(|m| super::text::inert(&m).into_owned())
    }

    fn judge(&self, given: &str, abs: &Path) -> Result<(), String> {
        if !abs.starts_with(&self.lexical) && !abs.starts_with(&self.real) {
            return Err(format!("{given} is outside the root {}.", self.shown()));
        }
        let real = resolve_lenient(abs);
        if real.starts_with(&self.real) {
            Ok(())
        } else {
            Err(format!(
                "{given} resolves to {}, outside the root {}.",
                real.display(),
                self.shown()
            ))
        }
    }

    /// Whether an open descriptor's real path lies under the root: the check that
    /// cannot be raced, since the descriptor no longer depends on any name.
    pub fn admits_fd(&self, fd: std::os::fd::BorrowedFd<'_>, shown: &str) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let link = format!("/proc/self/fd/{}", fd.as_raw_fd());
        let real = std::fs::read_link(&link)?;
        if real.starts_with(&self.real) {
            Ok(())
        } else {
            Err(OutsideRoot::io(format!(
                "{shown} resolves to {}, outside the root {}.",
                real.display(),
                self.shown()
            )))
        }
    }
}

/// `path` made free of `.`, `..` and repeated separators without touching the
/// disk (`..` at the top stays at the top).
pub fn tidy(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() && !out.has_root() {
                    out.push(Component::ParentDir);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// The real path of the absolute `path`: symlinks are followed component by
/// component with the kernel's meaning of `..` (the parent of where a link led),
/// and the first component that does not exist (or cannot be looked at) ends the
/// resolution, the rest being appended as spelled. A link loop stops after
/// [`MAX_LINKS`] links, leaving the path where it got to.
pub fn resolve_lenient(path: &Path) -> PathBuf {
    let mut pending: VecDeque<OsString> = VecDeque::new();
    push_front(&mut pending, path);
    let mut out = PathBuf::from("/");
    let mut links = 0usize;
    let mut resolving = true;
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            out.pop();
            continue;
        }
        out.push(&part);
        if !resolving {
            continue;
        }
        match std::fs::symlink_metadata(&out) {
            Ok(meta) if meta.file_type().is_symlink() => {
                links += 1;
                let Ok(target) = std::fs::read_link(&out) else {
                    resolving = false;
                    continue;
                };
                if links > MAX_LINKS {
                    resolving = false;
                    continue;
                }
                out.pop();
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                push_front(&mut pending, &target);
            }
            Ok(_) => {}
            Err(_) => resolving = false,
        }
    }
    out
}

/// Queue `path`'s components ahead of what is pending (`.` dropped, `..` kept).
fn push_front(pending: &mut VecDeque<OsString>, path: &Path) {
    for c in path.components().rev() {
        match c {
            Component::Normal(s) => pending.push_front(s.to_os_string()),
            Component::ParentDir => pending.push_front(OsString::from("..")),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(base.join("app/sub")).unwrap();
        std::fs::create_dir_all(base.join("app2")).unwrap();
        std::fs::write(base.join("app/sub/f"), "x").unwrap();
        (dir, base)
    }

    #[test]
    fn tidy_removes_dots() {
        assert_eq!(tidy(Path::new("/a/./b/../c//d")), PathBuf::from("/a/c/d"));
        assert_eq!(tidy(Path::new("/../a")), PathBuf::from("/a"));
    }

    #[test]
    fn a_sibling_sharing_the_prefix_is_outside() {
        let (_d, base) = tree();
        let root = Root::new(&base.join("app"), &base).unwrap();
        let err = root.admit("../app2/x", &base.join("app2/x")).unwrap_err();
        assert!(err.starts_with("../app2/x is outside the root "), "{err}");
        assert!(root.admit("sub/f", &base.join("app/sub/f")).is_ok());
        assert!(
            root.admit("new/deep/file", &base.join("app/new/deep/file"))
                .is_ok()
        );
    }

    #[test]
    fn links_are_judged_by_where_they_lead() {
        let (_d, base) = tree();
        symlink(base.join("app2"), base.join("app/out")).unwrap();
        symlink("sub", base.join("app/in")).unwrap();
        symlink(base.join("app2/missing"), base.join("app/dangling")).unwrap();
        let root = Root::new(&base.join("app"), &base).unwrap();
        let err = root
            .admit("out/new", &base.join("app/out/new"))
            .unwrap_err();
        assert!(err.contains("resolves to "), "{err}");
        assert!(err.contains("app2/new, outside the root"), "{err}");
        assert!(root.admit("in/f", &base.join("app/in/f")).is_ok());
        assert!(root.admit("dangling", &base.join("app/dangling")).is_err());
    }

    #[test]
    fn dot_dot_after_a_link_means_the_links_parent() {
        let (_d, base) = tree();
        std::fs::create_dir_all(base.join("app2/deep")).unwrap();
        symlink(base.join("app2/deep"), base.join("app/sub/hop")).unwrap();
        // Lexically `app/sub/hop/../x` is `app/sub/x`; the kernel means `app2/x`.
        assert_eq!(
            resolve_lenient(&base.join("app/sub/hop/../x")),
            base.join("app2/x")
        );
    }

    #[test]
    fn a_loop_ends_the_resolution() {
        let (_d, base) = tree();
        symlink(base.join("app/b"), base.join("app/a")).unwrap();
        symlink(base.join("app/a"), base.join("app/b")).unwrap();
        let root = Root::new(&base.join("app"), &base).unwrap();
        assert!(root.admit("a", &base.join("app/a")).is_ok());
    }

    #[test]
    fn a_root_reached_through_a_link_admits_both_spellings() {
        let (_d, base) = tree();
        symlink(base.join("app"), base.join("alias")).unwrap();
        let root = Root::new(Path::new("alias"), &base).unwrap();
        assert!(root.admit("f", &base.join("alias/sub/f")).is_ok());
        assert!(root.admit("f", &base.join("app/sub/f")).is_ok());
        assert!(root.admit("f", &base.join("app2")).is_err());
    }
}
