//! What grep and find share: the prune set and the `skipHidden` rule, the one path
//! order both print in and the one way both spell a path, the per-thread "first N"
//! keeper that bounds memory without losing determinism, and the walk driver (the
//! backend's parallel fast path, else a sequential walk over the plain `Fs` calls).
//!
//! Determinism comes from ordering *after* the parallel walk: each thread keeps only
//! what could still be among the first N results in path order, the kept parts are
//! merged and sorted, and the first N are printed. Threads never coordinate, so the
//! output is the same at any thread count.

use std::cmp::Ordering;
use std::io;
use std::path::Path;
use std::sync::Arc;

use ignore::overrides::{Override, OverrideBuilder};
use serde_json::Value;

use crate::kernel::input::{Args, invalid};
use crate::kernel::{
    FileRead, Fs, ReadLimits, ToolContext, WalkEntry, WalkEntryKind, WalkEvent, WalkFlow,
    WalkOptions, WalkVisitor, WalkVisitorFactory,
};

/// Entry names never visited below a search root, whatever their kind: version
/// control internals and installed dependencies. The toolbox's own state folder
/// is pruned too, by its path, not its name ([`run_walk`] adds it): it lives
/// under `--cwd`, so a search of the working directory would otherwise report
/// the job table and captured output of the very tools running it; a
/// `.indus-process` anywhere else is the project's content and searched.
pub const PRUNED: [&str; 2] = [".git", "node_modules"];

/// Whether a pruned entry is counted in a summary: those that may hold the
/// project's files (`node_modules` can be tracked). A `.git` folder holds git's
/// own internals, never a file of the tree, so saying it was skipped on every
/// search of a repository would be noise.
pub fn counts_as_pruned(path: &str) -> bool {
    path.rsplit('/').next() != Some(".git")
}

/// The summary's words for pruned folders, to follow "Skipped": `2 node_modules
/// folders (name one as the path to search it)`. `None` when there were none.
pub fn pruned_words(pruned: u64) -> Option<String> {
    (pruned > 0).then(|| {
        format!(
            "{} (name one as the path to search it)",
            crate::kernel::text::plural(pruned, "node_modules folder", "node_modules folders")
        )
    })
}

/// The walk options both tools use.
pub fn walk_options(root: String, ignore_files: bool) -> WalkOptions {
    WalkOptions {
        root,
        prune: PRUNED.iter().map(|s| s.to_string()).collect(),
        ignore_files,
        threads: 0,
    }
}

/// Whether `skipHidden` leaves this entry out: a dot-name below the root. The root
/// is exempt, so a dot-folder named outright (`.github`) is still searched. Decided
/// by the visitors rather than the backend, so every `Fs` walk honours it the same.
pub fn is_hidden_below_root(entry: &dyn WalkEntry) -> bool {
    !entry.path().is_empty() && entry.name().starts_with('.')
}

/// The output order: paths compared byte by byte, component by component, so a
/// directory's contents stay together (`a/x` before `a-b`) — the order of
/// `rg --sort path`. Mapping `/` to the lowest byte makes a plain byte comparison
/// component-wise (names never contain NUL).
pub fn path_order(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len().min(b.len());
    // Sorted paths share long prefixes; skip them eight bytes at a time.
    let mut i = 0;
    while i + 8 <= n && a[i..i + 8] == b[i..i + 8] {
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    let key = |c: u8| if c == b'/' { 0 } else { c };
    match (a.get(i), b.get(i)) {
        (Some(&x), Some(&y)) => key(x).cmp(&key(y)),
        _ => a.len().cmp(&b.len()),
    }
}

/// How grep's rows and find's rows spell a path: the root as the user spelled it,
/// joined with the entry's path below it; with no spelling (the cwd), the path below
/// it alone (`.` for the cwd itself). One function, so the two tools' paths can be
/// pasted into each other and into the other tools.
pub fn display_path(root: Option<&str>, rel: &str) -> String {
    match root {
        None if rel.is_empty() => ".".to_string(),
        None => rel.to_string(),
        Some(r) if rel.is_empty() => r.to_string(),
        Some(r) if r.ends_with('/') => format!("{r}{rel}"),
        Some(r) => format!("{r}/{rel}"),
    }
}

/// One glob for [`build_overrides`].
pub struct GlobLine {
    /// The input key a message names (`glob`, `globs`, `exclude`).
    pub field: &'static str,
    /// What the matcher gets (fd's excludes get a `!` put in front).
    pub line: String,
    /// The value as given, which a message shows.
    pub given: String,
    /// What the key accepts, for a message.
    pub expected: &'static str,
}

/// Gitignore-style globs over the path below a search root, as ripgrep's `-g` and
/// fd's `-E` build them (`ignore::overrides`): a glob without `/` matches a name
/// at any depth, one with `/` the path from the root; a plain glob includes, `!glob`
/// excludes, later globs win, and with any include present a file matching none is
/// left out. `None` when there are no globs; a bad glob is refused naming its key.
///
/// Matching is on the path below the root, so the matcher's own root is only a
/// placeholder that no relative path starts with (it strips that prefix).
pub fn build_overrides(globs: &[GlobLine]) -> Result<Option<Override>, String> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut builder = OverrideBuilder::new("/");
    for glob in globs {
        // A gitignore line starting with `#` is a comment, which would drop the glob
        // in silence (and with it every include); as a glob it means a literal `#`.
        let line = match glob.line.strip_prefix('#') {
            Some(rest) => format!("\\#{rest}"),
            None => glob.line.clone(),
        };
        if let Err(e) = builder.add(&line) {
            let reason = match e {
                ignore::Error::Glob { err, .. } => err,
                other => other.to_string(),
            };
            return Err(invalid(
                glob.field,
                &format!("{} ({reason})", glob.expected),
                &Value::String(glob.given.clone()),
            ));
        }
    }
    builder
        .build()
        .map(Some)
        .map_err(|e| format!("Could not compile the globs: {e}"))
}

/// The verdict of [`build_overrides`]' matcher on a walked entry below the root.
pub fn override_match(overrides: &Override, entry: &dyn WalkEntry) -> ignore::Match<()> {
    let is_dir = entry.kind() == WalkEntryKind::Dir;
    overrides
        .matched(Path::new(entry.path()), is_dir)
        .map(|_| ())
}

/// The roots from `path` or `paths` (not both): one `None` for the working
/// directory when neither names one; an empty spelling is the working directory.
/// Shared so grep and find take several roots (rg's and fd's trailing paths) alike.
pub fn parse_roots(args: &Args<'_>) -> Result<Vec<Option<String>>, String> {
    let spelled = |p: &str| (!p.is_empty()).then(|| p.to_string());
    let path = args.opt_str("path")?;
    match args.opt_str_array("paths")? {
        Some(_) if path.is_some() => Err(
            "Invalid \"paths\": give \"path\" (one root) or \"paths\" (several), not both."
                .to_string(),
        ),
        Some(paths) if !paths.is_empty() => Ok(paths.into_iter().map(spelled).collect()),
        _ => Ok(vec![path.and_then(spelled)]),
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn join_and(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A result that has a place in path order and counts toward a limit.
pub trait Ranked {
    fn key(&self) -> &str;
    /// How many of the limit it uses (at least 1).
    fn weight(&self) -> usize;
}

/// One thread's share of the first `limit` results in path order. Whatever this
/// thread alone already places after `limit` results cannot be among the global
/// first `limit` either, so it is dropped. Results are gathered unsorted and
/// compacted (sorted, cut) whenever they weigh twice the limit, so a thread holds
/// at most about twice the limit and sorts rarely.
pub struct FirstN<T: Ranked> {
    items: Vec<T>,
    weight: usize,
    limit: usize,
    /// After a compaction, the last key kept: anything after it cannot make the cut.
    bound: Option<String>,
    sorted: bool,
}

impl<T: Ranked> FirstN<T> {
    pub fn new(limit: usize) -> Self {
        Self {
            items: Vec::new(),
            weight: 0,
            limit,
            bound: None,
            sorted: true,
        }
    }

    /// Whether a result at `key` could still make the cut (if not, the caller need
    /// not even build it).
    pub fn wants(&self, key: &str) -> bool {
        self.bound
            .as_deref()
            .is_none_or(|bound| path_order(key, bound) == Ordering::Less)
    }

    pub fn push(&mut self, item: T) {
        self.weight += item.weight();
        self.items.push(item);
        self.sorted = false;
        if self.weight >= self.limit.saturating_mul(2) {
            self.compact();
        }
    }

    /// Sort, and keep the shortest prefix that reaches the limit.
    fn compact(&mut self) {
        if !self.sorted {
            // Keys are distinct paths, so an unstable sort gives the one order.
            self.items
                .sort_unstable_by(|a, b| path_order(a.key(), b.key()));
            self.sorted = true;
        }
        let mut weight = 0;
        let mut keep = self.items.len();
        for (i, item) in self.items.iter().enumerate() {
            weight += item.weight();
            if weight >= self.limit {
                keep = i + 1;
                break;
            }
        }
        if keep < self.items.len() || weight >= self.limit {
            self.items.truncate(keep);
            self.weight = weight;
            self.bound = self.items.last().map(|i| i.key().to_string());
        }
    }

    /// Sort and cut now: done on the walking thread as it finishes, so the merge on
    /// the calling thread only interleaves sorted runs.
    pub fn finish(&mut self) {
        self.compact();
    }

    /// The kept results, in path order.
    pub fn into_sorted(mut self) -> Vec<T> {
        self.compact();
        self.items
    }
}

/// Merge the threads' kept results into one list in path order.
pub fn merge<T: Ranked>(parts: impl IntoIterator<Item = FirstN<T>>) -> Vec<T> {
    let mut runs: Vec<std::vec::IntoIter<T>> = parts
        .into_iter()
        .map(|p| p.into_sorted().into_iter())
        .collect();
    let mut out = Vec::with_capacity(runs.iter().map(|r| r.len()).sum());
    let mut heads: Vec<Option<T>> = runs.iter_mut().map(Iterator::next).collect();
    loop {
        // A linear scan: there is one run per walking thread, a handful.
        let mut best: Option<usize> = None;
        for (i, head) in heads.iter().enumerate() {
            let Some(head) = head else { continue };
            let better = match best.and_then(|b| heads[b].as_ref()) {
                Some(current) => path_order(head.key(), current.key()) == Ordering::Less,
                None => true,
            };
            if better {
                best = Some(i);
            }
        }
        let Some(b) = best else { break };
        out.extend(heads[b].take());
        heads[b] = runs[b].next();
    }
    out
}

/// Walk `options.root` with one visitor per thread from `factory`: the backend's
/// fast path when it has one, else a sequential walk over `stat`/`read_dir`/
/// `read_bytes` (which preloads files within `read_limits` when given, and cannot
/// honour ignore files). An `Err` is the message for the tool's failure.
pub async fn run_walk<F>(
    ctx: &ToolContext,
    options: WalkOptions,
    factory: Arc<F>,
    read_limits: Option<ReadLimits>,
) -> Result<(), String>
where
    F: WalkVisitorFactory + Send + 'static,
{
    let mut options = options;
    if ctx.remote.is_none() {
        let state = crate::state::StateDir::of(ctx).root().to_path_buf();
        let state = std::fs::canonicalize(&state).unwrap_or(state);
        options.prune.push(state.to_string_lossy().into_owned());
    }
    let fs = Arc::clone(&ctx.fs);
    let fast_options = options.clone();
    let fast_factory = Arc::clone(&factory);
    let fast = tokio::task::spawn_blocking(move || fs.walk_tree(&fast_options, &*fast_factory));
    match fast.await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) if e.kind() == io::ErrorKind::Unsupported => {
            if options.ignore_files {
                return Err("Invalid \"gitignore\": this backend offers no tree walk that honours ignore files; leave gitignore off.".to_string());
            }
            let mut visitor = factory.visitor();
            walk_via_fs(ctx.fs.as_ref(), &options, visitor.as_mut(), read_limits).await;
            Ok(())
        }
        Ok(Err(e)) => Err(format!("The walk could not run: {e}")),
        Err(join) => Err(format!("The walk failed unexpectedly: {join}")),
    }
}

/// An entry of the fallback walk, its content (when wanted) loaded up front because
/// `WalkEntry::read` is synchronous and `Fs` is not.
struct FsEntry {
    path: String,
    name: String,
    kind: WalkEntryKind,
    dir_link: bool,
    size: u64,
    content: Option<io::Result<Vec<u8>>>,
}

impl FsEntry {
    async fn load(
        fs: &dyn Fs,
        abs: &str,
        path: String,
        name: String,
        info: &crate::kernel::FsEntryInfo,
        read_limits: Option<ReadLimits>,
    ) -> Self {
        let kind = if info.is_symlink {
            WalkEntryKind::Symlink
        } else if info.is_directory {
            WalkEntryKind::Dir
        } else if info.is_file {
            WalkEntryKind::File
        } else {
            WalkEntryKind::Other
        };
        let content = match read_limits {
            Some(l) if kind == WalkEntryKind::File && info.size <= l.max_size => {
                Some(fs.read_bytes(abs).await)
            }
            _ => None,
        };
        Self {
            path,
            name,
            kind,
            dir_link: info.is_symlink && info.is_directory,
            size: info.size,
            content,
        }
    }
}

impl WalkEntry for FsEntry {
    fn path(&self) -> &str {
        &self.path
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn kind(&self) -> WalkEntryKind {
        self.kind
    }
    fn is_dir_link(&self) -> bool {
        self.dir_link
    }
    fn read(&self, buf: &mut Vec<u8>, limits: ReadLimits) -> io::Result<FileRead> {
        buf.clear();
        if self.size > limits.max_size {
            return Ok(FileRead::TooLarge { size: self.size });
        }
        match &self.content {
            Some(Ok(bytes)) if bytes.len() as u64 > limits.max_size => Ok(FileRead::TooLarge {
                size: bytes.len() as u64,
            }),
            Some(Ok(bytes)) => {
                if memchr::memchr(0, &bytes[..bytes.len().min(limits.nul_sniff)]).is_some() {
                    return Ok(FileRead::Binary);
                }
                buf.extend_from_slice(bytes);
                Ok(FileRead::Read)
            }
            Some(Err(e)) => Err(io::Error::new(e.kind(), e.to_string())),
            None => Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "the content of this entry was not loaded",
            )),
        }
    }
}

fn join_abs(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// The sequential fallback walk: same entries, same prune set, no ignore files;
/// symlinks below the root are reported, not followed.
async fn walk_via_fs(
    fs: &dyn Fs,
    options: &WalkOptions,
    visitor: &mut (dyn WalkVisitor + '_),
    read_limits: Option<ReadLimits>,
) {
    let root = options.root.as_str();
    let info = match fs.stat(root).await {
        Ok(info) => info,
        Err(e) => {
            visitor.visit(WalkEvent::Unreadable {
                path: Some(String::new()),
                message: e.to_string(),
            });
            return;
        }
    };
    let root_name = Path::new(root)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| root.to_string());
    // The root itself is followed when it is a symlink.
    let root_info = crate::kernel::FsEntryInfo {
        is_symlink: false,
        ..info
    };
    let entry = FsEntry::load(fs, root, String::new(), root_name, &root_info, read_limits).await;
    let flow = visitor.visit(WalkEvent::Entry(&entry));
    if flow != WalkFlow::Continue || entry.kind != WalkEntryKind::Dir {
        return;
    }
    let mut stack = vec![(root.to_string(), String::new())];
    while let Some((abs, rel)) = stack.pop() {
        let children = match fs.read_dir(&abs).await {
            Ok(c) => c,
            Err(e) => {
                let flow = visitor.visit(WalkEvent::Unreadable {
                    path: Some(rel),
                    message: e.to_string(),
                });
                if flow == WalkFlow::Quit {
                    return;
                }
                continue;
            }
        };
        for child in children {
            let child_abs = join_abs(&abs, &child.name);
            let child_rel = if rel.is_empty() {
                child.name.clone()
            } else {
                format!("{rel}/{}", child.name)
            };
            if options.prunes(&child_abs, &child.name) {
                if options.prunes_name(&child.name)
                    && child.is_directory
                    && visitor.visit(WalkEvent::Pruned { path: child_rel }) == WalkFlow::Quit
                {
                    return;
                }
                continue;
            }
            let flow = match fs.stat(&child_abs).await {
                Ok(info) => {
                    let entry =
                        FsEntry::load(fs, &child_abs, child_rel, child.name, &info, read_limits)
                            .await;
                    let flow = visitor.visit(WalkEvent::Entry(&entry));
                    if flow == WalkFlow::Continue && entry.kind == WalkEntryKind::Dir {
                        stack.push((child_abs, entry.path));
                    }
                    flow
                }
                Err(e) => visitor.visit(WalkEvent::Unreadable {
                    path: Some(child_rel),
                    message: e.to_string(),
                }),
            };
            if flow == WalkFlow::Quit {
                return;
            }
        }
    }
}

/// How many rows a search shows. For an agent (`unbounded` false) `limit`
/// defaults to `default` and may not exceed `ceiling`, which keeps a context
/// window's worth of rows; a larger one is refused naming the maximum rather
/// than quietly lowered. For a reader that wants every row (a pipe, see
/// `ToolContext::unbounded_rows`) there is no default cut and no ceiling, as
/// with rg and fd: an asked limit is honoured exactly.
pub(crate) fn row_limit(
    args: &Args<'_>,
    unbounded: bool,
    default: u64,
    ceiling: u64,
) -> Result<usize, String> {
    let limit = if unbounded {
        args.opt_positive_int("limit")?.unwrap_or(u64::MAX)
    } else {
        args.opt_positive_int_at_most("limit", ceiling)?
            .unwrap_or(default)
    };
    Ok(usize::try_from(limit).unwrap_or(usize::MAX))
}

/// What a summary cut by `limit` tells the caller to do: raise the limit, or,
/// at an agent face's ceiling (which raising cannot pass), narrow the search.
/// `unbounded` (a pipe) has no ceiling, and raising the limit helps.
pub(crate) fn more_hint(limit: usize, ceiling: u64, unbounded: bool) -> String {
    if unbounded || limit as u64 != ceiling {
        "raise limit to see more".to_string()
    } else {
        format!("narrow the search to see the rest ({ceiling} is the most one call shows)")
    }
}

/// The absolute path of `below` (a walk path, empty for the root) under `root`.
pub(crate) fn below_root(root: &str, below: &str) -> String {
    if below.is_empty() {
        root.to_string()
    } else {
        format!("{}/{below}", root.trim_end_matches('/'))
    }
}

/// `rows` written to the host's sink (see `ToolContext::rows`) and flushed; the
/// tool's failure when the reader could not take them.
pub(crate) fn write_rows(
    sink: &dyn crate::kernel::RowSink,
    tool: &str,
    rows: &[String],
) -> Result<(), String> {
    rows.iter()
        .try_for_each(|row| sink.row(row))
        .and_then(|()| sink.flush())
        .map_err(|e| format!("{tool} could not write its rows: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_order_is_bytewise_and_component_wise() {
        let mut paths = vec!["b", "a-b", "a/x", "B", "a.txt", "a/B/c", "a/a", "", "Z/z"];
        paths.sort_by(|a, b| path_order(a, b));
        assert_eq!(
            paths,
            ["", "B", "Z/z", "a/B/c", "a/a", "a/x", "a-b", "a.txt", "b"]
        );
    }

    #[test]
    fn path_order_matches_its_definition() {
        let reference = |a: &str, b: &str| {
            let key = |c: u8| if c == b'/' { 0 } else { c };
            a.bytes().map(key).cmp(b.bytes().map(key))
        };
        let parts = [
            "",
            "a",
            "a/",
            "/",
            "ab",
            "a-b",
            "a.b",
            "a/b",
            "abcdefgh",
            "abcdefgh/",
        ];
        let mut samples = Vec::new();
        for x in parts {
            for y in parts {
                for z in ["", "/x", "12345678", "/12345678/z"] {
                    samples.push(format!("{x}{y}{z}"));
                }
            }
        }
        for a in &samples {
            for b in &samples {
                assert_eq!(path_order(a, b), reference(a, b), "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn the_hint_at_the_ceiling_is_true_on_each_face() {
        let cut = |more: String| format!("Showing the first 5000 of 6000 matches; {more}.");
        let raise = "Showing the first 5000 of 6000 matches; raise limit to see more.";
        // An agent at the ceiling cannot raise it.
        assert_eq!(
            cut(more_hint(5000, 5000, false)),
            "Showing the first 5000 of 6000 matches; narrow the search to see the rest (5000 is the most one call shows)."
        );
        // Below it, or in a pipe (no ceiling), raising helps.
        assert_eq!(cut(more_hint(4999, 5000, false)), raise);
        assert_eq!(cut(more_hint(5000, 5000, true)), raise);
    }

    #[test]
    fn display_paths_keep_the_root_spelling() {
        assert_eq!(display_path(None, "src/a.rs"), "src/a.rs");
        assert_eq!(display_path(None, ""), ".");
        assert_eq!(display_path(Some("."), "a.rs"), "./a.rs");
        assert_eq!(display_path(Some("src/"), "a.rs"), "src/a.rs");
        assert_eq!(display_path(Some("src"), "a.rs"), "src/a.rs");
        assert_eq!(display_path(Some("/"), "etc"), "/etc");
        assert_eq!(display_path(Some("main.rs"), ""), "main.rs");
    }

    #[test]
    fn wording_helpers() {
        use crate::kernel::text::plural;
        assert_eq!(plural(1, "file", "files"), "1 file");
        assert_eq!(plural(0, "file", "files"), "0 files");
        assert_eq!(join_and(&["a".into()]), "a");
        assert_eq!(join_and(&["a".into(), "b".into()]), "a and b");
        assert_eq!(
            join_and(&["a".into(), "b".into(), "c".into()]),
            "a, b and c"
        );
    }

    struct Item(&'static str, usize);
    impl Ranked for Item {
        fn key(&self) -> &str {
            self.0
        }
        fn weight(&self) -> usize {
            self.1
        }
    }

    #[test]
    fn first_n_keeps_only_what_can_make_the_cut() {
        let mut kept = FirstN::new(2);
        kept.push(Item("d", 1));
        kept.push(Item("c", 2));
        assert!(
            kept.wants("z"),
            "no compaction yet: everything is still wanted"
        );
        kept.push(Item("b", 1));
        // Weight 4 reached twice the limit: sorted and cut to b, c (b + c >= 2).
        assert_eq!(kept.items.len(), 2);
        assert!(!kept.wants("d"));
        assert!(kept.wants("a"));
        assert!(kept.wants("bb"));
        let keys: Vec<_> = merge([kept]).iter().map(|i| i.0).collect();
        assert_eq!(keys, ["b", "c"]);
    }

    #[test]
    fn first_n_split_over_threads_merges_to_the_same_prefix() {
        let items = [
            "k", "a", "q", "c", "m", "b", "z", "d", "e", "y", "f", "x", "g", "h",
        ];
        let whole = {
            let mut one = FirstN::new(4);
            for k in items {
                one.push(Item(k, 1));
            }
            assert!(one.items.len() < 8, "compactions bound what a thread holds");
            merge([one])
        };
        let mut parts: Vec<FirstN<Item>> = (0..3).map(|_| FirstN::new(4)).collect();
        for (i, k) in items.into_iter().enumerate() {
            parts[i % 3].push(Item(k, 1));
        }
        parts[1].finish();
        let split = merge(parts);
        let first = |v: &[Item]| v.iter().take(4).map(|i| i.0).collect::<Vec<_>>();
        assert_eq!(first(&whole), ["a", "b", "c", "d"]);
        assert_eq!(first(&split), first(&whole));
        let keys: Vec<_> = split.iter().map(|i| i.0).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted, "the merge keeps path order");
    }

    #[test]
    fn a_single_heavy_item_is_never_dropped() {
        let mut kept = FirstN::new(2);
        kept.push(Item("c", 1));
        kept.push(Item("b", 5));
        let keys: Vec<_> = merge([kept]).iter().map(|i| i.0).collect();
        assert_eq!(keys, ["b"]);
    }
}
