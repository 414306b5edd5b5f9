//! `find`: entries beneath a path whose name (or path) matches a glob or whose name
//! holds a substring, listed in path order and spelled as grep spells its paths, with
//! a summary line.
//!
//! A pattern holding `*`, `?`, `[` or `{` is a glob with the syntax and meaning of
//! fd's `--glob`, because that is what people type (`*.{rs,py}`, `src/**/*.rs`): it
//! is compiled by `globset` (as fd's is) with `*` stopping at `/`, and matched
//! against the entry's name, or, when the pattern holds a `/`, against its path
//! below the search root. Any other pattern is a case-insensitive substring of the
//! name, the seed's rule (`find read` lists `README.md`). Both are compiled once, so
//! every entry costs a single match.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use globset::GlobBuilder;
use regex::{Regex, RegexBuilder};
use serde_json::{Value, json};

use super::walk::{
    FirstN, Ranked, display_path, is_hidden_below_root, merge, plural, run_walk, walk_options,
};
use crate::kernel::input::{Args, invalid};
use crate::kernel::{
    CancellationToken, DefinedTool, JsonSchema, Tool, ToolContext, ToolResult, WalkEntryKind,
    WalkEvent, WalkFlow, WalkVisitor, WalkVisitorFactory, define_tool,
};
use crate::tools::{clamp_rows, rows_record, rows_that_fit, text_and_record};

/// Entries shown when `limit` is absent.
pub const DEFAULT_LIMIT: u64 = 500;
/// `limit` is pinned to this.
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
    File,
    Dir,
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
    /// Why the root itself could not be read, which fails the whole search.
    root_error: Option<String>,
}

struct Shared {
    pattern: Pattern,
    kind: Option<Kind>,
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
                root_error: None,
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
            WalkEvent::Entry(entry) => entry,
        };
        if self.shared.skip_hidden && is_hidden_below_root(entry) {
            // Left out like a pruned entry: not counted, not entered.
            return WalkFlow::Skip;
        }
        g.entries += 1;
        if !self.shared.pattern.matches(entry.path(), entry.name()) {
            return WalkFlow::Continue;
        }
        if let Some(kind) = self.shared.kind {
            // A symlink is never followed, but counts as the kind it points to.
            let is_dir = match entry.kind() {
                WalkEntryKind::Dir => true,
                WalkEntryKind::Symlink => entry.is_dir_link(),
                WalkEntryKind::File | WalkEntryKind::Other => false,
            };
            if is_dir != (kind == Kind::Dir) {
                return WalkFlow::Continue;
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
        WalkFlow::Continue
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

/// The closing line.
fn summary(matches: u64, shown: usize, entries: u64, unreadable: u64, pattern: &str) -> String {
    let among = plural(entries, "entry", "entries");
    let mut line = if matches == 0 {
        format!(
            "No matches for {} among {among}.",
            Value::String(pattern.to_string())
        )
    } else if (shown as u64) < matches {
        format!(
            "Showing the first {shown} of {} among {among}; raise limit to see more.",
            plural(matches, "match", "matches")
        )
    } else {
        format!(
            "Found {} among {among}.",
            plural(matches, "match", "matches")
        )
    };
    if unreadable > 0 {
        line.push_str(&format!(
            " Skipped {} unreadable {}.",
            unreadable,
            if unreadable == 1 { "entry" } else { "entries" }
        ));
    }
    line
}

/// A validated request.
struct Query {
    /// As given, for the no-match message.
    pattern: String,
    compiled: Pattern,
    /// The root as the caller spelled it; `None` for the working directory.
    path: Option<String>,
    kind: Option<Kind>,
    limit: usize,
    gitignore: bool,
    skip_hidden: bool,
}

fn parse(input: &Value) -> Result<Query, String> {
    let args = Args::new("find", input)?;
    let pattern = args.required_str("pattern")?.to_string();
    let path = args
        .opt_str("path")?
        .filter(|p| !p.is_empty())
        .map(str::to_string);
    let kind = match args.opt_enum("type", &["file", "dir"])? {
        Some("dir") => Some(Kind::Dir),
        Some(_) => Some(Kind::File),
        None => None,
    };
    let limit = args
        .opt_positive_int("limit")?
        .unwrap_or(DEFAULT_LIMIT)
        .min(LIMIT_CEILING) as usize;
    let gitignore = args.opt_bool("gitignore")?.unwrap_or(false);
    let skip_hidden = args.opt_bool("skipHidden")?.unwrap_or(false);
    let compiled = Pattern::new(&pattern)?;
    Ok(Query {
        pattern,
        compiled,
        path,
        kind,
        limit,
        gitignore,
        skip_hidden,
    })
}

/// Run a validated query.
async fn execute(query: Query, ctx: &ToolContext) -> ToolResult {
    let shown_root = query.path.as_deref().unwrap_or(".");
    let abs = match ctx.confine(shown_root) {
        Ok(abs) => abs,
        Err(message) => return ToolResult::failure(message),
    };
    match ctx.fs.stat(&abs).await {
        Ok(info) if info.is_directory => {}
        Ok(_) => return ToolResult::failure(format!("Not a directory: {shown_root}")),
        Err(e) => return ToolResult::failure(format!("Cannot search {shown_root}: {e}")),
    }
    let shared = Arc::new(Shared {
        pattern: query.compiled,
        kind: query.kind,
        skip_hidden: query.skip_hidden,
        limit: query.limit,
        cancel: ctx.cancel.clone(),
        cancelled: AtomicBool::new(false),
        gathered: Mutex::new(Vec::new()),
    });
    let abs_root = abs.clone();
    let options = walk_options(abs, query.gitignore);
    if let Err(message) = run_walk(ctx, options, Arc::clone(&shared), None).await {
        return ToolResult::failure(message);
    }
    if shared.cancelled.load(Ordering::Relaxed) || ctx.cancel.is_cancelled() {
        return ToolResult::failure("find was cancelled.");
    }
    let parts = std::mem::take(&mut *shared.gathered.lock().unwrap_or_else(|p| p.into_inner()));
    let (mut matches, mut entries, mut unreadable) = (0, 0, 0);
    let mut kept = Vec::with_capacity(parts.len());
    if let Some(message) = parts.iter().find_map(|g| g.root_error.as_ref()) {
        return ToolResult::failure(format!("Cannot search {shown_root}: {message}"));
    }
    for g in parts {
        matches += g.matches;
        entries += g.entries;
        unreadable += g.unreadable;
        kept.push(g.kept);
    }
    let found = merge(kept);
    let shown = found.len().min(query.limit);
    let rows: Vec<String> = found[..shown]
        .iter()
        .map(|f| display_path(query.path.as_deref(), &f.0))
        .collect();
    let closing = summary(matches, shown, entries, unreadable, &query.pattern);
    let tail = if rows.is_empty() {
        closing
    } else {
        format!("\n\n{closing}")
    };
    let text = clamp_rows(ctx, "find", "", &rows, &tail);
    // For programs: the count (0 is "no match") and the entries shown, with their
    // kind as walked (a link is not followed) and size (0 for a folder).
    let mut records: Vec<Value> = found[..shown]
        .iter()
        .zip(&rows)
        .map(|(f, shown_path)| json!({"path": shown_path, "kind": f.1, "size": 0}))
        .collect();
    let mut record = serde_json::Map::new();
    record.insert("count".into(), json!(matches));
    record.insert("shown".into(), json!(shown));
    record.insert("walked".into(), json!(entries));
    record.insert("unreadable".into(), json!(unreadable));
    // Sizes cost a stat each, so only the rows the budget keeps are measured (with
    // room for the longest number held back while cutting).
    let k = rows_that_fit(&record, "entries", &records, ctx.budget.max_bytes, 19);
    for (f, row) in found[..k].iter().zip(records.iter_mut()) {
        if f.1 == "file" {
            let abs = below_root(&abs_root, &f.0);
            row["size"] = json!(ctx.fs.stat(&abs).await.map(|i| i.size).unwrap_or(0));
        }
    }
    text_and_record(text, rows_record(record, "entries", records, k), false)
}

/// The absolute path of `below` (a walk path, empty for the root) under `root`.
fn below_root(root: &str, below: &str) -> String {
    if below.is_empty() {
        root.to_string()
    } else {
        format!("{}/{below}", root.trim_end_matches('/'))
    }
}

#[async_trait]
impl Tool for Find {
    fn name(&self) -> &str {
        "find"
    }

    fn description(&self) -> &str {
        "Find files and directories beneath a path by name or path glob. A pattern holding *, ?, [ or { is a case-insensitive glob as in fd --glob (\"*.{rs,py}\", \"[ab]*\"; one holding / matches the path below the search root, \"src/*.rs\", \"**/tests/*.rs\"), anything else a case-insensitive substring of the name. Rows are paths spelled as grep spells them: the root as given joined with the path below it (no path: relative to the working directory; the root itself is shown as given, or .), in byte-wise path order, followed by a summary line. Unlike fd, hidden entries and entries that .gitignore excludes are listed by default, because an agent must see every file it may edit (dotfiles and ignored build output included) and the same tree must give the same answer whatever ignore files say; skipHidden (--skip-hidden) skips dot-entries and gitignore (--gitignore) honours ignore files. .git, node_modules and .indus-process are never entered."
    }

    fn parameters(&self) -> JsonSchema {
        json!({
            "type": "object",
            "properties": {
                "pattern": { "type": "string", "description": "A glob when it holds *, ?, [ or { (case-insensitive, fd --glob syntax: \"*.rs\", \"*.{rs,py}\", \"[ab]*\"; * stays within one path component, ** crosses them; a glob holding / matches the path below the search root, e.g. \"src/*.rs\", any other glob the name); otherwise a case-insensitive substring of the name." },
                "path": { "type": "string", "description": "Directory to search, relative to the working directory (default: the working directory); rows are shown under it as it was spelled." },
                "type": { "type": "string", "enum": ["file", "dir"], "description": "List only files or only directories (a symlink counts as what it points to)." },
                "limit": { "type": "integer", "minimum": 1, "description": "Show at most this many entries (default 500, at most 10000)." },
                "gitignore": { "type": "boolean", "description": "Skip what .gitignore, .ignore and git's exclude files exclude (default false: unlike fd, ignored entries such as build output are listed, so the same tree gives the same answer whatever ignore files say)." },
                "skipHidden": { "type": "boolean", "description": "Skip files and directories whose name starts with a dot below the search root (default false: unlike fd, hidden entries are listed, since an agent must see every file it may edit; a dot-named path given outright is still searched)." }
            },
            "required": ["pattern"]
        })
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match parse(&input) {
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
            summary(0, 0, 7, 0, "*.rs"),
            "No matches for \"*.rs\" among 7 entries."
        );
        assert_eq!(summary(1, 1, 1, 0, "x"), "Found 1 match among 1 entry.");
        assert_eq!(
            summary(30, 10, 99, 2, "x"),
            "Showing the first 10 of 30 matches among 99 entries; raise limit to see more. Skipped 2 unreadable entries."
        );
    }
}
