//! `find`: entries beneath a path whose name (or path) matches a glob or whose name
//! holds a substring, listed in path order and spelled as grep spells its paths, with
//! a summary line.
//!
//! The optional keys beside the pattern mirror fd's flags with fd's meaning, so a
//! command line can map fd's flags onto them: `type` (`-t`, fd's letters too),
//! `extension` (`-e`), `exclude` (`-E`), `maxDepth` (`-d`) and several roots
//! (`paths`). Absent, they change nothing.
//!
//! A pattern holding `*`, `?`, `[` or `{` is a glob with the syntax and meaning of
//! fd's `--glob`, because that is what people type (`*.{rs,py}`, `src/**/*.rs`): it
//! is compiled by `globset` (as fd's is) with `*` stopping at `/`, and matched
//! against the entry's name, or, when the pattern holds a `/`, against its path
//! below the search root. Any other pattern is a case-insensitive substring of the
//! name, the seed's rule (`find read` lists `README.md`). Both are compiled once, so
//! every entry costs a single match.

use crate::kernel::fields::{Field, Kind as FieldKind};
use crate::kernel::{Seat, SeedList, ToolMeta};
use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use globset::GlobBuilder;
use regex::{Regex, RegexBuilder};
use serde_json::{Value, json};

use super::walk::{
    FirstN, GlobLine, Ranked, build_overrides, display_path, is_hidden_below_root, merge,
    override_match, parse_roots, run_walk, walk_options,
};
use crate::kernel::input::{Args, invalid};
use crate::kernel::text::plural;
use crate::kernel::{
    CancellationToken, DefinedTool, Tool, ToolContext, ToolResult, WalkEntry, WalkEntryKind,
    WalkEvent, WalkFlow, WalkVisitor, WalkVisitorFactory, define_tool,
};
use crate::tools::{clamp_rows, rows_record, rows_that_fit, text_and_record};

/// Entries shown when `limit` is absent.
pub const DEFAULT_LIMIT: u64 = 500;
/// The largest `limit` an agent's face accepts (see `row_limit`).
pub const LIMIT_CEILING: u64 = 10_000;

struct Find;

/// Whether a pattern is a glob: it holds one of globset's metacharacters. Anything
/// else (a `\` or `/` alone included) stays a plain substring of the name.
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '{'])
}

/// A compiled find pattern (see the module comment).
#[derive(Debug, Clone)]
pub enum Pattern {
    /// A case-insensitive substring of the name.
    Substring(Regex),
    /// A glob over the name, or with `whole_path` over the path below the root.
    Glob {
        matcher: regex::bytes::Regex,
        whole_path: bool,
    },
}

impl Pattern {
    /// Compile `pattern`; a glob globset cannot parse is refused naming the field.
    pub fn new(pattern: &str) -> Result<Self, String> {
        if !is_glob(pattern) {
            // `s`: a name may hold a newline; the substring must still be found.
            return RegexBuilder::new(&regex::escape(pattern))
                .case_insensitive(true)
                .dot_matches_new_line(true)
                .build()
                .map(Pattern::Substring)
                .map_err(|e| format!("Could not compile the find pattern: {e}"));
        }
        let build = |p: &str| {
            GlobBuilder::new(p)
                .literal_separator(true)
                .case_insensitive(true)
                .build()
        };
        let glob = build(pattern).map_err(|e| {
            invalid(
                "pattern",
                &format!(
                    "a valid glob such as \"*.rs\" or \"src/**/*.rs\" ({})",
                    e.kind()
                ),
                &Value::String(pattern.to_string()),
            )
        })?;
        // globset folds ASCII case only (it matches bytes); folding the rest of the
        // letters on both sides keeps find case-insensitive for every alphabet. Should
        // folding break a class range (`[Ö-à]`), the glob as written still applies.
        let glob = match fold_non_ascii(pattern) {
            Cow::Owned(folded) => build(&folded).unwrap_or(glob),
            Cow::Borrowed(_) => glob,
        };
        // The glob's own regex, matched on the name's or path's bytes: globset's
        // matcher would build a path candidate for every entry of the walk.
        let matcher = regex::bytes::Regex::new(glob.regex())
            .map_err(|e| format!("Could not compile the find pattern: {e}"))?;
        Ok(Pattern::Glob {
            matcher,
            whole_path: pattern.contains('/'),
        })
    }

    /// Whether the entry at `path` (below the root, empty for the root) named `name`
    /// matches. The root has no path below itself, so a path glob never matches it.
    pub fn matches(&self, path: &str, name: &str) -> bool {
        match self {
            Pattern::Substring(re) => re.is_match(name),
            Pattern::Glob {
                matcher,
                whole_path: true,
            } => !path.is_empty() && matcher.is_match(fold_non_ascii(path).as_bytes()),
            Pattern::Glob {
                matcher,
                whole_path: false,
            } => matcher.is_match(fold_non_ascii(name).as_bytes()),
        }
    }
}

/// `s` with every non-ASCII character lowercased (ASCII is left to globset's own
/// case folding, so a class range such as `[Z-a]` keeps its meaning).
fn fold_non_ascii(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.extend(c.to_lowercase());
        }
    }
    Cow::Owned(out)
}

/// Which kinds of entry to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Anything but a folder; a symlink counts as what it points to.
    File,
    /// A folder, or a symlink to one.
    Dir,
    /// The entry itself is a symlink (fd's `-t l`).
    Symlink,
    /// A file, or a link to one, with any execute bit (fd's `-t x`).
    Executable,
}

/// The `type` values: the long names, and fd's letters for the same four.
const KINDS: [(&str, Kind); 8] = [
    ("file", Kind::File),
    ("dir", Kind::Dir),
    ("symlink", Kind::Symlink),
    ("executable", Kind::Executable),
    ("f", Kind::File),
    ("d", Kind::Dir),
    ("l", Kind::Symlink),
    ("x", Kind::Executable),
];

/// fd's filters beside the pattern and the type: `-e`, `-E` and `-d`.
#[derive(Debug, Clone, Default)]
struct Narrowing {
    /// fd's `-e`: `.EXT$` after at least one character, any case (fd's own regex).
    extensions: Option<regex::RegexSet>,
    /// fd's `-E`: excluded entries are neither listed nor entered.
    exclude: Option<ignore::overrides::Override>,
    /// fd's `-d`: the root is depth 0, its children 1; deeper entries are not
    /// walked, and folders at this depth are listed but not entered.
    max_depth: Option<u64>,
}

impl Narrowing {
    fn has_extension(&self, name: &str) -> bool {
        self.extensions
            .as_ref()
            .is_none_or(|set| set.is_match(name))
    }

    fn excludes(&self, entry: &dyn WalkEntry) -> bool {
        !entry.path().is_empty()
            && self
                .exclude
                .as_ref()
                .is_some_and(|ov| override_match(ov, entry).is_ignore())
    }
}

/// The depth of a walk path below the root (0 for the root itself).
fn depth(path: &str) -> u64 {
    if path.is_empty() {
        0
    } else {
        1 + memchr::memchr_iter(b'/', path.as_bytes()).count() as u64
    }
}

/// A kept entry: its path below the root and its kind as walked.
struct Found(String, &'static str);

impl Ranked for Found {
    fn key(&self) -> &str {
        &self.0
    }
    fn weight(&self) -> usize {
        1
    }
}

struct Gathered {
    kept: FirstN<Found>,
    matches: u64,
    entries: u64,
    unreadable: u64,
    /// Folders left out by a name rule that may hold the project's files.
    pruned: u64,
    /// Why the root itself could not be read, which fails the whole search.
    root_error: Option<String>,
    /// Whether an entry's executability was asked and the backend could not tell.
    exec_unknown: bool,
}

struct Shared {
    pattern: Pattern,
    kind: Option<Kind>,
    narrowing: Narrowing,
    skip_hidden: bool,
    limit: usize,
    cancel: CancellationToken,
    cancelled: AtomicBool,
    gathered: Mutex<Vec<Gathered>>,
}

impl WalkVisitorFactory for Shared {
    fn visitor(&self) -> Box<dyn WalkVisitor + '_> {
        Box::new(Visitor {
            shared: self,
            gathered: Some(Gathered {
                kept: FirstN::new(self.limit),
                matches: 0,
                entries: 0,
                unreadable: 0,
                pruned: 0,
                root_error: None,
                exec_unknown: false,
            }),
        })
    }
}

struct Visitor<'a> {
    shared: &'a Shared,
    gathered: Option<Gathered>,
}

impl WalkVisitor for Visitor<'_> {
    fn visit(&mut self, event: WalkEvent<'_>) -> WalkFlow {
        if self.shared.cancel.is_cancelled() {
            self.shared.cancelled.store(true, Ordering::Relaxed);
            return WalkFlow::Quit;
        }
        let Some(g) = self.gathered.as_mut() else {
            return WalkFlow::Quit;
        };
        let entry = match event {
            WalkEvent::Unreadable { path, message } => {
                g.unreadable += 1;
                if path.is_some_and(|p| p.is_empty()) {
                    g.root_error.get_or_insert(message);
                }
                return WalkFlow::Continue;
            }
            WalkEvent::Pruned { path } => {
                g.pruned += u64::from(super::walk::counts_as_pruned(&path));
                return WalkFlow::Continue;
            }
            WalkEvent::Entry(entry) => entry,
        };
        if self.shared.skip_hidden && is_hidden_below_root(entry) {
            // Left out like a pruned entry: not counted, not entered.
            return WalkFlow::Skip;
        }
        let narrowing = &self.shared.narrowing;
        let depth = narrowing.max_depth.map(|_| depth(entry.path()));
        if narrowing.max_depth.is_some_and(|max| depth > Some(max)) || narrowing.excludes(entry) {
            // Beyond the depth (a walk that cannot skip below a folder) or excluded:
            // left out like a hidden entry.
            return WalkFlow::Skip;
        }
        g.entries += 1;
        // A folder at the depth limit is listed (when it matches), not entered.
        let flow = if narrowing.max_depth.is_some() && narrowing.max_depth == depth {
            WalkFlow::Skip
        } else {
            WalkFlow::Continue
        };
        if !self.shared.pattern.matches(entry.path(), entry.name())
            || !narrowing.has_extension(entry.name())
        {
            return flow;
        }
        if let Some(kind) = self.shared.kind {
            let wanted = match kind {
                Kind::File | Kind::Dir => {
                    // A symlink is never followed, but counts as the kind it points to.
                    let is_dir = match entry.kind() {
                        WalkEntryKind::Dir => true,
                        WalkEntryKind::Symlink => entry.is_dir_link(),
                        WalkEntryKind::File | WalkEntryKind::Other => false,
                    };
                    is_dir == (kind == Kind::Dir)
                }
                Kind::Symlink => entry.kind() == WalkEntryKind::Symlink,
                Kind::Executable => match entry.kind() {
                    WalkEntryKind::File | WalkEntryKind::Symlink => {
                        entry.is_executable().unwrap_or_else(|| {
                            g.exec_unknown = true;
                            false
                        })
                    }
                    WalkEntryKind::Dir | WalkEntryKind::Other => false,
                },
            };
            if !wanted {
                return flow;
            }
        }
        g.matches += 1;
        if g.kept.wants(entry.path()) {
            let kind = match entry.kind() {
                WalkEntryKind::Dir => "dir",
                WalkEntryKind::File => "file",
                WalkEntryKind::Symlink => "link",
                WalkEntryKind::Other => "other",
            };
            g.kept.push(Found(entry.path().to_string(), kind));
        }
        flow
    }
}

impl Drop for Visitor<'_> {
    fn drop(&mut self) {
        if let Some(mut g) = self.gathered.take() {
            g.kept.finish();
            self.shared
                .gathered
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(g);
        }
    }
}

/// The closing line; `more`: what to do to see what the limit cut.
fn summary(
    matches: u64,
    shown: usize,
    entries: u64,
    skipped: (u64, u64),
    pattern: &str,
    more: &str,
) -> String {
    let (unreadable, pruned) = skipped;
    let among = plural(entries, "entry", "entries");
    let mut line = if matches == 0 {
        format!(
            "No matches for {} among {among}.",
            Value::String(pattern.to_string())
        )
    } else if (shown as u64) < matches {
        format!(
            "Showing the first {shown} of {} among {among}; {more}.",
            plural(matches, "match", "matches")
        )
    } else {
        format!(
            "Found {} among {among}.",
            plural(matches, "match", "matches")
        )
    };
    let mut skipped = Vec::new();
    if unreadable > 0 {
        skipped.push(format!(
            "{} unreadable {}",
            unreadable,
            if unreadable == 1 { "entry" } else { "entries" }
        ));
    }
    skipped.extend(super::walk::pruned_words(pruned));
    if !skipped.is_empty() {
        line.push_str(&format!(" Skipped {}.", skipped.join(" and ")));
    }
    line
}

/// A validated request.
struct Query {
    /// As given, for the no-match message.
    pattern: String,
    compiled: Pattern,
    /// The roots in the order given, each as the caller spelled it; `None` for the
    /// working directory.
    roots: Vec<Option<String>>,
    kind: Option<Kind>,
    narrowing: Narrowing,
    limit: usize,
    gitignore: bool,
    skip_hidden: bool,
}

/// What `exclude` accepts, in its messages.
const EXCLUDE_EXPECTED: &str = "a glob such as \"*.log\" or \"target\"";
const EXTENSION_EXPECTED: &str = "file extensions such as \"rs\" or \"tar.gz\"";

/// `unbounded`: the caller reads every row (`ToolContext::unbounded_rows`).
fn parse(input: &Value, unbounded: bool) -> Result<Query, String> {
    let args = Args::new(META.name, input)?;
    let pattern = args.required_str("pattern")?.to_string();
    let roots = parse_roots(&args)?;
    let kind = match args.get("type") {
        None => None,
        Some(value) => match value.as_str().and_then(|v| KINDS.iter().find(|k| k.0 == v)) {
            Some((_, kind)) => Some(*kind),
            // The wording predates the other kinds; the schema's enum lists them all.
            None => {
                return Err(invalid("type", TYPE_EXPECTED, value));
            }
        },
    };
    let limit = super::walk::row_limit(&args, unbounded, DEFAULT_LIMIT, LIMIT_CEILING)?;
    let gitignore = args.opt_bool("gitignore")?.unwrap_or(false);
    let skip_hidden = args.opt_bool("skipHidden")?.unwrap_or(false);
    let extensions = match args.opt_str_array("extension")? {
        Some(exts) if !exts.is_empty() => Some(extension_set(&exts)?),
        _ => None,
    };
    let excludes: Vec<GlobLine> = args
        .opt_str_array("exclude")?
        .unwrap_or_default()
        .into_iter()
        .filter(|g| !g.is_empty())
        .map(|g| GlobLine {
            field: "exclude",
            line: format!("!{g}"),
            given: g.to_string(),
            expected: EXCLUDE_EXPECTED,
        })
        .collect();
    let narrowing = Narrowing {
        extensions,
        exclude: build_overrides(&excludes)?,
        max_depth: args.opt_non_negative_int("maxDepth")?,
    };
    let compiled = Pattern::new(&pattern)?;
    Ok(Query {
        pattern,
        compiled,
        roots,
        kind,
        narrowing,
        limit,
        gitignore,
        skip_hidden,
    })
}

/// fd's `-e` matcher: for each extension (leading dots dropped), a name ending in
/// `.EXT` after at least one character, in any case; `tar.gz` spans two dots.
fn extension_set(exts: &[&str]) -> Result<regex::RegexSet, String> {
    let mut patterns = Vec::with_capacity(exts.len());
    for ext in exts {
        let bare = ext.trim_start_matches('.');
        if bare.is_empty() {
            return Err(invalid(
                "extension",
                EXTENSION_EXPECTED,
                &Value::String(ext.to_string()),
            ));
        }
        // `s`: a name may hold a newline before its extension.
        patterns.push(format!(r"(?s).\.{}$", regex::escape(bare)));
    }
    regex::RegexSetBuilder::new(patterns)
        .case_insensitive(true)
        .build()
        .map_err(|e| format!("Could not compile the extensions: {e}"))
}

/// A kept entry with the index of the root it was found under.
struct Listed {
    root: usize,
    found: Found,
}

/// What the walks of every root counted.
#[derive(Default)]
struct Totals {
    matches: u64,
    entries: u64,
    unreadable: u64,
    pruned: u64,
}

/// Every root confined and stat'ed before any walk: a bad one fails the call
/// before anything was searched.
async fn check_roots(query: &Query, ctx: &ToolContext) -> Result<Vec<String>, ToolResult> {
    let mut roots = Vec::with_capacity(query.roots.len());
    for spelled in &query.roots {
        let shown_root = spelled.as_deref().unwrap_or(".");
        let abs = ctx.confine(shown_root).map_err(ToolResult::failure)?;
        match ctx.fs.stat(&abs).await {
            Ok(info) if info.is_directory => {}
            Ok(_) => {
                return Err(ToolResult::failure(format!(
                    "Not a directory: {shown_root}",
                    shown_root = crate::kernel::text::inert(shown_root)
                )));
            }
            Err(e) => {
                return Err(ToolResult::failure(format!(
                    "Cannot search {shown_root}: {e}",
                    shown_root = crate::kernel::text::inert(shown_root)
                )));
            }
        }
        roots.push(abs);
    }
    Ok(roots)
}

/// The roots walked in the order given, their counts summed and their rows
/// kept up to the limit over all of them.
async fn walk_roots(
    query: &Query,
    ctx: &ToolContext,
    roots: &[String],
) -> Result<(Totals, Vec<Listed>), ToolResult> {
    let mut totals = Totals::default();
    let mut listed: Vec<Listed> = Vec::new();
    for (index, abs) in roots.iter().enumerate() {
        let shown_root = query.roots[index].as_deref().unwrap_or(".");
        let shared = Arc::new(Shared {
            pattern: query.compiled.clone(),
            kind: query.kind,
            narrowing: query.narrowing.clone(),
            skip_hidden: query.skip_hidden,
            limit: query.limit,
            cancel: ctx.cancel.clone(),
            cancelled: AtomicBool::new(false),
            gathered: Mutex::new(Vec::new()),
        });
        let options = walk_options(abs.clone(), query.gitignore);
        run_walk(ctx, options, Arc::clone(&shared), None)
            .await
            .map_err(ToolResult::failure)?;
        if shared.cancelled.load(Ordering::Relaxed) || ctx.cancel.is_cancelled() {
            return Err(ToolResult::failure("find was cancelled."));
        }
        let parts = std::mem::take(&mut *shared.gathered.lock().unwrap_or_else(|p| p.into_inner()));
        if let Some(message) = parts.iter().find_map(|g| g.root_error.as_ref()) {
            return Err(ToolResult::failure(format!(
                "Cannot search {shown_root}: {message}",
                shown_root = crate::kernel::text::inert(shown_root)
            )));
        }
        if parts.iter().any(|g| g.exec_unknown) {
            return Err(ToolResult::failure(
                "Invalid \"type\": this backend cannot tell which files are executable; ask for \"file\" instead.",
            ));
        }
        let mut kept = Vec::with_capacity(parts.len());
        for g in parts {
            totals.matches += g.matches;
            totals.entries += g.entries;
            totals.unreadable += g.unreadable;
            totals.pruned += g.pruned;
            kept.push(g.kept);
        }
        // Only the first `limit` over all roots can show.
        let room = query.limit.saturating_sub(listed.len());
        listed.extend(
            merge(kept)
                .into_iter()
                .take(room)
                .map(|found| Listed { root: index, found }),
        );
    }
    Ok((totals, listed))
}

/// Run a validated query: every root is checked first (a bad one fails the call
/// before any walk), then walked in the order given.
async fn execute(query: Query, ctx: &ToolContext) -> ToolResult {
    let roots = match check_roots(&query, ctx).await {
        Ok(roots) => roots,
        Err(refused) => return refused,
    };
    let (totals, listed) = match walk_roots(&query, ctx, &roots).await {
        Ok(walked) => walked,
        Err(failed) => return failed,
    };
    let Totals {
        matches,
        entries,
        unreadable,
        pruned,
    } = totals;
    let shown = listed.len().min(query.limit);
    let rows: Vec<String> = listed[..shown]
        .iter()
        .map(|l| display_path(query.roots[l.root].as_deref(), &l.found.0))
        .collect();
    // The rows as text: a name's control characters escaped, so it can neither
    // forge a row (a newline) nor drive a terminal; the record and `-0` keep it.
    let text_rows: Vec<String> = rows
        .iter()
        .map(|r| crate::kernel::text::inert(r).into_owned())
        .collect();
    let more = super::walk::more_hint(query.limit, LIMIT_CEILING, ctx.unbounded_rows);
    let closing = summary(
        matches,
        shown,
        entries,
        (unreadable, pruned),
        &query.pattern,
        &more,
    );
    let tail = if rows.is_empty() {
        closing
    } else {
        format!("\n\n{closing}")
    };
    // A reader that takes every row as it comes (a pipe) gets them written out
    // rather than held again in the text, which is then the summary alone.
    let text = match ctx
        .rows
        .as_ref()
        .filter(|_| ctx.unbounded_rows && !ctx.record_rows)
    {
        Some(sink) => {
            if let Err(message) = super::walk::write_rows(&**sink, "find", &text_rows) {
                return ToolResult::failure(message);
            }
            tail.trim_start_matches('\n').to_string()
        }
        None => clamp_rows(ctx, "find", "", &text_rows, &tail),
    };
    // For programs: the count (0 is "no match") and the entries shown, with their
    // kind as walked (a link is not followed) and size (0 for a folder).
    let with_rows = if ctx.record_rows { shown } else { 0 };
    let mut records: Vec<Value> = listed[..with_rows]
        .iter()
        .zip(&rows)
        .map(|(l, shown_path)| json!({"path": shown_path, "kind": l.found.1, "size": 0}))
        .collect();
    let mut record = serde_json::Map::new();
    record.insert("count".into(), json!(matches));
    record.insert("shown".into(), json!(shown));
    record.insert("walked".into(), json!(entries));
    record.insert("unreadable".into(), json!(unreadable));
    record.insert("pruned".into(), json!(pruned));
    // Sizes cost a stat each, so only the rows the budget keeps are measured (with
    // room for the longest number held back while cutting).
    let k = rows_that_fit(&record, "entries", &records, ctx.budget.max_bytes, 19);
    for (l, row) in listed[..k].iter().zip(records.iter_mut()) {
        if l.found.1 == "file" {
            let abs = super::walk::below_root(&roots[l.root], &l.found.0);
            row["size"] = json!(ctx.fs.stat(&abs).await.map(|i| i.size).unwrap_or(0));
        }
    }
    // Entries found that this record leaves out, by the limit or the budget.
    let kept = if ctx.record_rows { k } else { shown };
    let mut record = rows_record(record, "entries", records, k);
    record["omitted"] = json!(matches.saturating_sub(kept as u64));
    text_and_record(text, record, false)
}

/// The `find` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Builtin(SeedList::ReadOnly),
    core: true,
    fields: FIELDS,
    output: Some(include_str!("find.output.json")),
    ..ToolMeta::new(
        "find",
        "Find files by name",
        "Find files and directories by glob or substring beneath a root.",
    )
};

/// How a wrong `type` is refused: the fd letters named apart.
const TYPE_EXPECTED: &str =
    "one of \"file\", \"dir\", \"symlink\", \"executable\" (or fd's f, d, l, x)";

/// `find`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("pattern", FieldKind::Name, "Glob or part of a name."),
    Field::new(
        "path",
        FieldKind::Text,
        "Directory (default: the working directory).",
    ),
    Field::new(
        "type",
        FieldKind::EnumSaid {
            values: &["file", "dir", "symlink", "executable", "f", "d", "l", "x"],
            expected: TYPE_EXPECTED,
        },
        "Kind of entry (f, d, l, x as in fd).",
    ),
    Field::new(
        "limit",
        FieldKind::Int { min: 1, max: None },
        "Most rows (default 500, at most 10000).",
    )
    .in_own_words(),
    Field::new(
        "gitignore",
        FieldKind::Bool,
        "Skip entries .gitignore excludes.",
    ),
    Field::deprecated(
        "skipHidden",
        FieldKind::Bool,
        "Skip files and directories whose name starts with a dot below the search root (default false: unlike fd, hidden entries are listed, since an agent must see every file it may edit; a dot-named path given outright is still searched).",
    ),
    Field::new(
        "extension",
        FieldKind::Strings,
        "Only these extensions, e.g. [\"rs\"].",
    ),
    Field::deprecated(
        "exclude",
        FieldKind::Strings,
        "Leave out entries matching these globs.",
    ),
    Field::new(
        "maxDepth",
        FieldKind::Int { min: 0, max: None },
        "How deep (1: the directory's own entries).",
    ),
    Field::deprecated(
        "paths",
        FieldKind::Strings,
        "Several directories to search instead of path, in the order given, each one's rows spelled under it as given (not together with path).",
    ),
];

#[async_trait]
impl Tool for Find {
    fn description(&self) -> &str {
        "Find files and directories by name (case-insensitive): a glob if the pattern holds * ? [ or { (with a /, matched against the path: \"src/**/*.rs\"), else a part of the name. Paths in path order, then a summary; hidden and gitignored entries too."
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match parse(&input, ctx.unbounded_rows) {
            Ok(query) => execute(query, ctx).await,
            Err(message) => ToolResult::failure(message),
        }
    }
}

/// The `find` tool.
pub fn find_tool() -> DefinedTool {
    define_tool(Arc::new(Find))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::local::make_local_context;

    #[tokio::test]
    async fn a_text_face_gets_the_counts_without_the_rows() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a.rs", "b.rs", "c.txt"] {
            std::fs::write(dir.path().join(name), "x\n").unwrap();
        }
        let mut ctx = make_local_context(dir.path().to_str().unwrap(), None, None, None);
        let query = || parse(&json!({"pattern": "*.rs"}), false).unwrap();
        let full = execute(query(), &ctx).await.project();
        ctx.record_rows = false;
        let bare = execute(query(), &ctx).await.project();
        // The same text either way; the rows only where a program reads them.
        assert_eq!(full[0], bare[0]);
        let (full, bare) = (&full[1]["value"], &bare[1]["value"]);
        assert_eq!(full["entries"].as_array().unwrap().len(), 2);
        assert_eq!(full["entries"][0]["size"], json!(2));
        assert_eq!(bare["entries"], json!([]));
        for key in ["count", "shown", "walked"] {
            assert_eq!(full[key], bare[key], "{key}");
        }
        assert_eq!(bare["count"], json!(2));
    }

    /// Does `pattern` match the entry `path` (below the root)?
    fn hit(pattern: &str, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        Pattern::new(pattern).unwrap().matches(path, name)
    }

    #[test]
    fn globs_are_anchored_and_case_insensitive() {
        assert!(hit("*.rs", "main.rs"));
        assert!(hit("*.rs", "src/deep/MAIN.RS"));
        assert!(hit("*.rs", ".hidden.rs"));
        assert!(!hit("*.rs", "main.rsx"));
        assert!(!hit("*.rs", "main_rs"));
        assert!(hit("?.txt", "a.txt"));
        assert!(!hit("?.txt", "ab.txt"));
        assert!(!hit("a.*", "ab"), "a dot in a glob is literal");
        assert!(hit("*", "two\nlines"));
        // Case folding reaches beyond ASCII, in the pattern and in the name.
        assert!(hit("ÉCOLE*", "école.md"));
        assert!(hit("école*", "ÉCOLE.md"));
        // globset matches bytes: `?` is one byte, so one ASCII character (as in fd).
        assert!(hit("?cole.md", "ecole.md"));
        assert!(!hit("?cole.md", "école.md"));
    }

    #[test]
    fn globs_have_globsets_syntax() {
        assert!(hit("*.{rs,py}", "a.py"));
        assert!(hit("*.{rs,py}", "a.RS"));
        assert!(!hit("*.{rs,py}", "a.pyc"));
        assert!(hit("[ab]*", "bee"));
        assert!(!hit("[ab]*", "cab"));
        assert!(hit("[!ab]*", "cab"));
        assert!(hit("[a-c]?", "Cz"));
        assert!(hit("a\\*b", "a*b"), "a backslash escapes");
        assert!(!hit("a\\*b", "axb"));
        // A brace or bracket alone makes a glob, anchored like any other.
        assert!(hit("{read}me.md", "README.md"));
        assert!(!hit("{read}", "README.md"));
    }

    #[test]
    fn a_glob_with_a_slash_matches_the_path_below_the_root() {
        assert!(hit("src/*.rs", "src/main.rs"));
        assert!(hit("SRC/*.RS", "src/main.rs"));
        assert!(!hit("src/*.rs", "src/deep/main.rs"), "* stops at /");
        assert!(!hit("src/*.rs", "x/src/main.rs"), "anchored at the root");
        assert!(hit("src/**/*.rs", "src/main.rs"));
        assert!(hit("src/**/*.rs", "src/a/b/main.rs"));
        assert!(hit("**/tests/*.rs", "tests/cli.rs"));
        assert!(hit("**/tests/*.rs", "a/b/tests/cli.rs"));
        assert!(!hit("**/tests/*.rs", "a/tests/x/cli.rs"));
        assert!(hit("*/main.rs", "src/main.rs"));
        assert!(!hit("*/main.rs", "main.rs"));
        // The root has no path below itself.
        let p = Pattern::new("**/").unwrap();
        assert!(!p.matches("", "root"));
        // Without a slash, a glob sees the name only: * may not match a path.
        assert!(!hit("src*", "src/main.rs"));
    }

    #[test]
    fn an_invalid_glob_is_refused_naming_the_field() {
        for (bad, reason) in [
            ("*[", "unclosed character class; missing ']'"),
            (
                "{a,b",
                "unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)",
            ),
            (
                "a}*",
                "unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)",
            ),
            ("[z-a]*", "invalid range; 'z' > 'a'"),
        ] {
            let err = Pattern::new(bad).unwrap_err();
            assert_eq!(
                err,
                format!(
                    "Invalid \"pattern\": expected a valid glob such as \"*.rs\" or \"src/**/*.rs\" ({reason}), got the string {}.",
                    Value::String(bad.into())
                )
            );
        }
    }

    #[test]
    fn plain_patterns_are_substrings() {
        assert!(!is_glob("read") && !is_glob("a\\b") && !is_glob("src/main"));
        assert!(hit("read", "README.md"));
        assert!(hit("read", "thread.rs"));
        assert!(!hit("read", "rea.d"));
        assert!(hit("a.b", "xa.bx"));
        assert!(!hit("a.b", "axb"), "a dot is literal");
        assert!(hit("a\\b", "xa\\bx"), "a backslash is literal");
        assert!(hit("ÉCOLE", "l'école"));
        // A slash without a glob character is part of the substring, which a
        // name never holds.
        assert!(!hit("src/main", "src/main.rs"));
    }

    #[test]
    fn a_cancel_stops_the_walk() {
        let cancel = CancellationToken::new();
        let shared = Shared {
            pattern: Pattern::new("x").unwrap(),
            kind: None,
            narrowing: Narrowing::default(),
            skip_hidden: false,
            limit: 5,
            cancel: cancel.clone(),
            cancelled: AtomicBool::new(false),
            gathered: Mutex::new(Vec::new()),
        };
        let mut visitor = shared.visitor();
        let unreadable = || WalkEvent::Unreadable {
            path: None,
            message: String::new(),
        };
        assert_eq!(visitor.visit(unreadable()), WalkFlow::Continue);
        cancel.cancel();
        assert_eq!(visitor.visit(unreadable()), WalkFlow::Quit);
        assert!(shared.cancelled.load(Ordering::Relaxed));
    }

    #[test]
    fn summary_wording() {
        assert_eq!(
            summary(0, 0, 7, (0, 0), "*.rs", "raise limit to see more"),
            "No matches for \"*.rs\" among 7 entries."
        );
        assert_eq!(
            summary(1, 1, 1, (0, 0), "x", "raise limit to see more"),
            "Found 1 match among 1 entry."
        );
        assert_eq!(
            summary(30, 10, 99, (2, 0), "x", "raise limit to see more"),
            "Showing the first 10 of 30 matches among 99 entries; raise limit to see more. Skipped 2 unreadable entries."
        );
        assert_eq!(
            summary(1, 1, 4, (1, 1), "x", "raise limit to see more"),
            "Found 1 match among 4 entries. Skipped 1 unreadable entry and 1 node_modules folder (name one as the path to search it)."
        );
    }

    fn fd_tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for path in [
            "src/main.rs",
            "src/lib.RS",
            "src/deep/mod.rs",
            "target/debug/build.rs",
            "archive.tar.gz",
            "notes.gz",
            ".rs",
            "run.sh",
            "docs/guide.md",
        ] {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            dir.path().join("run.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        std::os::unix::fs::symlink("run.sh", dir.path().join("run-link")).unwrap();
        std::os::unix::fs::symlink("src", dir.path().join("src-link")).unwrap();
        dir
    }

    async fn call(dir: &std::path::Path, input: Value) -> (String, Value, bool) {
        super::super::run_in(find_tool(), dir, input).await
    }

    async fn listed(dir: &std::path::Path, input: Value) -> Vec<String> {
        let (text, _, is_error) = call(dir, input.clone()).await;
        assert!(!is_error, "{input}: {text}");
        match text.rsplit_once("\n\n") {
            Some((rows, _)) => rows.lines().map(str::to_string).collect(),
            None => Vec::new(),
        }
    }

    async fn refused(dir: &std::path::Path, input: Value) -> String {
        let (text, _, is_error) = call(dir, input.clone()).await;
        assert!(is_error, "{input}: {text}");
        text
    }

    #[tokio::test]
    async fn new_keys_at_their_defaults_change_nothing() {
        let dir = fd_tree();
        let d = dir.path();
        for (plain, spelled_out) in [
            (
                json!({"pattern": "*"}),
                json!({"pattern": "*", "extension": [], "exclude": [], "paths": []}),
            ),
            (
                json!({"pattern": "*", "path": "src"}),
                json!({"pattern": "*", "paths": ["src"]}),
            ),
            (
                json!({"pattern": "s", "type": "file"}),
                json!({"pattern": "s", "type": "f"}),
            ),
            (
                json!({"pattern": "s", "type": "dir"}),
                json!({"pattern": "s", "type": "d"}),
            ),
        ] {
            assert_eq!(
                call(d, plain.clone()).await,
                call(d, spelled_out).await,
                "{plain}"
            );
        }
    }

    #[tokio::test]
    async fn types_symlink_and_executable() {
        let dir = fd_tree();
        let d = dir.path();
        for t in ["symlink", "l"] {
            assert_eq!(
                listed(d, json!({"pattern": "*", "type": t})).await,
                ["run-link", "src-link"]
            );
        }
        for t in ["executable", "x"] {
            assert_eq!(
                listed(d, json!({"pattern": "*", "type": t})).await,
                ["run-link", "run.sh"]
            );
        }
        // file and dir keep their rule: a link counts as what it points to.
        assert_eq!(
            listed(d, json!({"pattern": "link", "type": "dir"})).await,
            ["src-link"]
        );
        // The old wording, still naming the field and the value.
        assert_eq!(
            refused(d, json!({"pattern": "*", "type": "link"})).await,
            "Invalid \"type\": expected one of \"file\", \"dir\", \"symlink\", \"executable\" (or fd's f, d, l, x), got the string \"link\"."
        );
    }

    #[tokio::test]
    async fn extensions_work_like_fds() {
        let dir = fd_tree();
        let d = dir.path();
        assert_eq!(
            listed(d, json!({"pattern": "*", "extension": ["rs"]})).await,
            [
                "src/deep/mod.rs",
                "src/lib.RS",
                "src/main.rs",
                "target/debug/build.rs"
            ]
        );
        // A leading dot is optional; several are any of; multi-part is allowed.
        assert_eq!(
            listed(d, json!({"pattern": "*", "extension": [".tar.gz", "md"]})).await,
            ["archive.tar.gz", "docs/guide.md"]
        );
        assert_eq!(
            listed(d, json!({"pattern": "*", "extension": "gz"})).await,
            ["archive.tar.gz", "notes.gz"]
        );
        // The pattern still applies.
        assert_eq!(
            listed(d, json!({"pattern": "main", "extension": ["rs"]})).await,
            ["src/main.rs"]
        );
        assert_eq!(
            refused(d, json!({"pattern": "*", "extension": ["."]})).await,
            "Invalid \"extension\": expected file extensions such as \"rs\" or \"tar.gz\", got the string \".\"."
        );
    }

    #[tokio::test]
    async fn excludes_leave_out_and_prune() {
        let dir = fd_tree();
        let d = dir.path();
        let (text, record, _) = call(
            d,
            json!({"pattern": "*.rs", "exclude": ["target", "src/deep"]}),
        )
        .await;
        assert!(
            text.starts_with(".rs\nsrc/lib.RS\nsrc/main.rs\n\n"),
            "{text}"
        );
        assert_eq!(record["count"], json!(3));
        // Excluded folders are not walked, so their entries are not counted either.
        let (_, all, _) = call(d, json!({"pattern": "*"})).await;
        assert_eq!(
            record["walked"].as_u64().unwrap() + 5,
            all["walked"].as_u64().unwrap()
        );
        assert_eq!(
            listed(
                d,
                json!({"pattern": "*", "exclude": ["*.rs", "*.gz", "*.md", "*link*", "*.sh"]})
            )
            .await,
            // Case-sensitive, as fd's excludes are.
            [
                ".",
                "docs",
                "src",
                "src/deep",
                "src/lib.RS",
                "target",
                "target/debug"
            ]
        );
        assert_eq!(
            refused(d, json!({"pattern": "*", "exclude": ["[x"]})).await,
            "Invalid \"exclude\": expected a glob such as \"*.log\" or \"target\" (unclosed character class; missing ']'), got the string \"[x\"."
        );
    }

    #[tokio::test]
    async fn max_depth_lists_and_stops_at_the_limit() {
        let dir = fd_tree();
        let d = dir.path();
        assert_eq!(
            listed(d, json!({"pattern": "*", "maxDepth": 0})).await,
            ["."]
        );
        assert_eq!(
            listed(d, json!({"pattern": "*", "path": "src", "maxDepth": 1})).await,
            ["src", "src/deep", "src/lib.RS", "src/main.rs"]
        );
        let (text, record, _) = call(d, json!({"pattern": "*.rs", "maxDepth": 2})).await;
        assert!(
            text.starts_with(".rs\nsrc/lib.RS\nsrc/main.rs\n\n"),
            "{text}"
        );
        assert_eq!(record["count"], json!(3));
        assert_eq!(
            refused(d, json!({"pattern": "*", "maxDepth": -1})).await,
            "Invalid \"maxDepth\": expected a non-negative integer, got the number -1."
        );
    }

    #[tokio::test]
    async fn paths_walk_each_root_in_order_with_one_limit() {
        let dir = fd_tree();
        let d = dir.path();
        assert_eq!(
            listed(d, json!({"pattern": "*.rs", "paths": ["target", "src/"]})).await,
            [
                "target/debug/build.rs",
                "src/deep/mod.rs",
                "src/lib.RS",
                "src/main.rs"
            ]
        );
        let (text, record, _) = call(
            d,
            json!({"pattern": "*.rs", "paths": ["target", "src/"], "limit": 2}),
        )
        .await;
        assert_eq!(
            text,
            "target/debug/build.rs\nsrc/deep/mod.rs\n\nShowing the first 2 of 4 matches among 8 entries; raise limit to see more."
        );
        assert_eq!(
            record["entries"][1],
            json!({"path": "src/deep/mod.rs", "kind": "file", "size": 1})
        );
        assert_eq!(
            refused(d, json!({"pattern": "*", "paths": ["src", "run.sh"]})).await,
            "Not a directory: run.sh"
        );
        assert_eq!(
            refused(d, json!({"pattern": "*", "path": "src", "paths": ["docs"]})).await,
            "Invalid \"paths\": give \"path\" (one root) or \"paths\" (several), not both."
        );
    }
}
