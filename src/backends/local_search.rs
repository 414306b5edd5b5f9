//! The local backend's tree-walk fast path ([`Fs::walk_tree`](crate::kernel::Fs::walk_tree)):
//! the `ignore` crate's parallel walker, with file reads that stop early on what the
//! search tools would throw away anyway (oversized files, binary heads).
//!
//! It lives apart from `local.rs` because it is the one part of the backend that
//! spreads over threads; `LocalFs` only delegates to [`walk_tree`] here.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkBuilder, WalkState};

use crate::kernel::text::lossy_utf8;
use crate::kernel::{
    FileRead, ReadLimits, WalkEntry, WalkEntryKind, WalkEvent, WalkFlow, WalkOptions, WalkVisitor,
    WalkVisitorFactory,
};
use crate::sys::fs_error;

/// Files up to this size are read in one go; larger ones have their head sniffed
/// first, so a big binary costs one small read instead of its whole size.
const SNIFF_SEPARATELY_ABOVE: u64 = 64 * 1024;

/// Walk `options.root` in parallel, one visitor per thread.
pub fn walk_tree(options: &WalkOptions, visitors: &dyn WalkVisitorFactory) -> io::Result<()> {
    let root = Path::new(&options.root);
    let mut builder = WalkBuilder::new(root);
    // Ignore files are read here, under their caps (`local_ignore`), never by
    // the walker itself.
    builder
        .standard_filters(false)
        .hidden(false)
        .follow_links(false)
        .threads(options.threads);
    let base = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let ignores = options
        .ignore_files
        .then(|| super::local_ignore::Ignores::new(&base));
    if !options.prune.is_empty() || ignores.is_some() {
        let prune = options.clone();
        let root_len = options.root.len();
        // The walker never filters its root, so `grep x .git` still searches there.
        // A name rule's entry passes the filter (unless an ignore file leaves it
        // out first) so that the visiting thread can report it as pruned; the
        // state folder, pruned by its absolute path, is the toolbox's and silent.
        builder.filter_entry(move |e| {
            let rel = relative(e.path(), root_len);
            let abs = base.join(std::ffi::OsStr::from_bytes(rel));
            let name = e.file_name().to_string_lossy();
            if prune.prunes(&abs.to_string_lossy(), &name) && !prune.prunes_name(&name) {
                return false;
            }
            ignores
                .as_ref()
                .is_none_or(|ig| !ig.ignored(&abs, e.file_type().is_some_and(|t| t.is_dir())))
        });
    }
    let mut threads = Threads {
        visitors,
        root_len: options.root.len(),
        options,
    };
    builder.build_parallel().visit(&mut threads);
    Ok(())
}

struct Threads<'f> {
    visitors: &'f dyn WalkVisitorFactory,
    root_len: usize,
    options: &'f WalkOptions,
}

impl<'s, 'f: 's> ParallelVisitorBuilder<'s> for Threads<'f> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Thread {
            visitor: self.visitors.visitor(),
            root_len: self.root_len,
            options: self.options,
        })
    }
}

struct Thread<'f> {
    visitor: Box<dyn WalkVisitor + 'f>,
    root_len: usize,
    options: &'f WalkOptions,
}

/// The part of `path` below a root spelled with `root_len` bytes.
fn relative(path: &Path, root_len: usize) -> &[u8] {
    let bytes = path.as_os_str().as_bytes();
    let rest = bytes.get(root_len..).unwrap_or_default();
    rest.strip_prefix(b"/").unwrap_or(rest)
}

impl ParallelVisitor for Thread<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        let flow = match entry {
            Ok(dent)
                if dent.depth() > 0
                    && self
                        .options
                        .prunes_name(&dent.file_name().to_string_lossy()) =>
            {
                // Only a folder is told: a file or link of that name is left
                // out as it always was, and is no folder to count.
                if !dent.file_type().is_some_and(|t| t.is_dir()) {
                    return WalkState::Skip;
                }
                let path = lossy_utf8(relative(dent.path(), self.root_len)).into_owned();
                match self.visitor.visit(WalkEvent::Pruned { path }) {
                    WalkFlow::Quit => WalkFlow::Quit,
                    _ => WalkFlow::Skip,
                }
            }
            Ok(dent) => {
                let local = LocalEntry {
                    path: lossy_utf8(relative(dent.path(), self.root_len)),
                    name: lossy_utf8(dent.file_name().as_bytes()),
                    dent: &dent,
                };
                self.visitor.visit(WalkEvent::Entry(&local))
            }
            Err(err) => {
                let full = error_path(&err);
                let path =
                    full.map(|p| String::from_utf8_lossy(relative(p, self.root_len)).into_owned());
                // Reworded like every other fs error of the local backend.
                let message = match (err.io_error().and_then(io::Error::raw_os_error), full) {
                    (Some(code), Some(p)) => fs_error(
                        io::Error::from_raw_os_error(code),
                        "scandir",
                        &p.to_string_lossy(),
                    )
                    .to_string(),
                    _ => err.to_string(),
                };
                self.visitor.visit(WalkEvent::Unreadable { path, message })
            }
        };
        match flow {
            WalkFlow::Continue => WalkState::Continue,
            WalkFlow::Skip => WalkState::Skip,
            WalkFlow::Quit => WalkState::Quit,
        }
    }
}

/// The path an `ignore` error is about, when it names one.
fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child),
        _ => None,
    }
}

struct LocalEntry<'a> {
    path: Cow<'a, str>,
    name: Cow<'a, str>,
    dent: &'a DirEntry,
}

impl WalkEntry for LocalEntry<'_> {
    fn path(&self) -> &str {
        &self.path
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn kind(&self) -> WalkEntryKind {
        match self.dent.file_type() {
            Some(t) if t.is_symlink() => WalkEntryKind::Symlink,
            Some(t) if t.is_dir() => WalkEntryKind::Dir,
            Some(t) if t.is_file() => WalkEntryKind::File,
            _ => WalkEntryKind::Other,
        }
    }

    fn is_dir_link(&self) -> bool {
        std::fs::metadata(self.dent.path()).is_ok_and(|m| m.is_dir())
    }

    fn is_executable(&self) -> Option<bool> {
        use std::os::unix::fs::PermissionsExt;
        // The walker's entries carry only the file type, so the mode costs one
        // `stat`; following the link answers "a link to an executable file" too.
        // A dangling link or a vanished file is simply not executable.
        Some(
            std::fs::metadata(self.dent.path())
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0),
        )
    }

    fn read(&self, buf: &mut Vec<u8>, limits: ReadLimits) -> io::Result<FileRead> {
        // Below the root a walk never follows links; an entry that was a file when
        // listed and is a link now was swapped, and is not followed either.
        let follow = self.path.is_empty();
        read_limited_opts(self.dent.path(), buf, limits, follow)
    }
}

/// Read a file into `buf` unless it is over `max_size` or starts binary.
pub fn read_limited(path: &Path, buf: &mut Vec<u8>, limits: ReadLimits) -> io::Result<FileRead> {
    read_limited_opts(path, buf, limits, true)
}

/// [`read_limited`], refusing (`ELOOP`) a final symlink unless `follow`.
fn read_limited_opts(
    path: &Path,
    buf: &mut Vec<u8>,
    limits: ReadLimits,
    follow: bool,
) -> io::Result<FileRead> {
    buf.clear();
    let shown = || path.to_string_lossy();
    // Non-blocking, so an entry swapped for a FIFO mid-walk cannot hang the open.
    let mut flags = nix::libc::O_NONBLOCK;
    if !follow {
        flags |= nix::libc::O_NOFOLLOW;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| fs_error(e, "open", &shown()))?;
    let size = file
        .metadata()
        .map_err(|e| fs_error(e, "fstat", &shown()))?
        .len();
    if size > limits.max_size {
        return Ok(FileRead::TooLarge { size });
    }
    let file: &File = &file;
    let read_err = |e| fs_error(e, "read", &shown());
    buf.reserve(size as usize + 1);
    if size > SNIFF_SEPARATELY_ABOVE {
        file.take(limits.nul_sniff as u64)
            .read_to_end(buf)
            .map_err(read_err)?;
        if memchr::memchr(0, buf).is_some() {
            return Ok(FileRead::Binary);
        }
    }
    // One byte past the cap tells a file that grew since the fstat.
    let room = (limits.max_size + 1).saturating_sub(buf.len() as u64);
    file.take(room).read_to_end(buf).map_err(read_err)?;
    if buf.len() as u64 > limits.max_size {
        buf.clear();
        return Ok(FileRead::TooLarge {
            size: limits.max_size + 1,
        });
    }
    let head = &buf[..buf.len().min(limits.nul_sniff)];
    if memchr::memchr(0, head).is_some() {
        return Ok(FileRead::Binary);
    }
    Ok(FileRead::Read)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    const LIMITS: ReadLimits = ReadLimits {
        max_size: 100_000,
        nul_sniff: 4096,
    };

    #[test]
    fn read_limited_reports_size_binary_and_content() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("t.txt");
        std::fs::write(&text, "hello\n").unwrap();
        let mut buf = Vec::new();
        assert_eq!(
            read_limited(&text, &mut buf, LIMITS).unwrap(),
            FileRead::Read
        );
        assert_eq!(buf, b"hello\n");

        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'a'; 100_001]).unwrap();
        assert_eq!(
            read_limited(&big, &mut buf, LIMITS).unwrap(),
            FileRead::TooLarge { size: 100_001 }
        );

        // A NUL inside the sniffed head, in a small and in a large file.
        let bin = dir.path().join("bin");
        std::fs::write(&bin, b"ab\0cd").unwrap();
        assert_eq!(
            read_limited(&bin, &mut buf, LIMITS).unwrap(),
            FileRead::Binary
        );
        let mut large_bin = vec![b'x'; 90_000];
        large_bin[4095] = 0;
        std::fs::write(&bin, &large_bin).unwrap();
        assert_eq!(
            read_limited(&bin, &mut buf, LIMITS).unwrap(),
            FileRead::Binary
        );
        // A NUL past the head is just a byte.
        large_bin[4095] = b'x';
        large_bin[4096] = 0;
        std::fs::write(&bin, &large_bin).unwrap();
        assert_eq!(
            read_limited(&bin, &mut buf, LIMITS).unwrap(),
            FileRead::Read
        );
        assert_eq!(buf.len(), 90_000);

        let err = read_limited(&dir.path().join("nope"), &mut buf, LIMITS).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(err.to_string().starts_with("ENOENT: "), "{err}");
    }

    struct Paths(Mutex<Vec<(String, WalkEntryKind)>>);
    struct Collect<'a>(&'a Paths);
    impl WalkVisitor for Collect<'_> {
        fn visit(&mut self, event: WalkEvent<'_>) -> WalkFlow {
            let mut got = self.0.0.lock().unwrap();
            match event {
                WalkEvent::Entry(e) => got.push((e.path().to_string(), e.kind())),
                // A pruned entry shows as `!PATH`, so the one list says both.
                WalkEvent::Pruned { path } => got.push((format!("!{path}"), WalkEntryKind::Other)),
                WalkEvent::Unreadable { .. } => {}
            }
            WalkFlow::Continue
        }
    }
    impl WalkVisitorFactory for Paths {
        fn visitor(&self) -> Box<dyn WalkVisitor + '_> {
            Box::new(Collect(self))
        }
    }

    #[test]
    fn walk_reports_relative_paths_and_prunes() {
        let dir = tempfile::tempdir().unwrap();
        for p in ["a/b.txt", ".hidden/c", ".git/config", "x/node_modules/m.js"] {
            let p = dir.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        std::os::unix::fs::symlink("a", dir.path().join("link")).unwrap();
        let paths = Paths(Mutex::new(Vec::new()));
        for root in [
            dir.path().to_string_lossy().into_owned(),
            format!("{}/", dir.path().display()),
        ] {
            let options = WalkOptions {
                root,
                prune: vec![".git".into(), "node_modules".into()],
                ignore_files: false,
                threads: 2,
            };
            walk_tree(&options, &paths).unwrap();
            let mut got = std::mem::take(&mut *paths.0.lock().unwrap());
            got.sort_by(|a, b| a.0.cmp(&b.0));
            use WalkEntryKind::*;
            let want: Vec<(String, WalkEntryKind)> = [
                ("", Dir),
                ("!.git", Other),
                ("!x/node_modules", Other),
                (".hidden", Dir),
                (".hidden/c", File),
                ("a", Dir),
                ("a/b.txt", File),
                ("link", Symlink),
                ("x", Dir),
            ]
            .into_iter()
            .map(|(p, k)| (p.to_string(), k))
            .collect();
            assert_eq!(got, want);
        }
    }
}
