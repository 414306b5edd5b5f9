//! `find`: entries beneath a path whose name matches a glob or a substring, listed
//! relative to the search root in path order, with a summary line.
//!
//! Matching follows the seed: a pattern holding `*` or `?` is an anchored,
//! case-insensitive glob over the entry's name in which only `*` and `?` are
//! special; any other pattern is a case-insensitive substring of the name. Both are
//! compiled to one regex so every entry costs a single match.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use regex::{Regex, RegexBuilder};
use serde_json::{Value, json};

use super::walk::{FirstN, Ranked, merge, plural, run_walk, walk_options};
use crate::kernel::input::Args;
use crate::kernel::{
    CancellationToken, DefinedTool, JsonSchema, Tool, ToolContext, ToolResult, WalkEntryKind,
    WalkEvent, WalkFlow, WalkVisitor, WalkVisitorFactory, define_tool,
};
use crate::tools::clamp_for;

/// Entries shown when `limit` is absent.
pub const DEFAULT_LIMIT: u64 = 500;
/// `limit` is pinned to this.
pub const LIMIT_CEILING: u64 = 10_000;

struct Find;

/// The name matcher of a find pattern (see the module comment). A glob becomes the
/// seed's regex: `*` → `.*`, `?` → `.` (one character, not one byte), everything
/// else escaped, anchored at both ends.
pub fn name_matcher(pattern: &str) -> Result<Regex, String> {
    let source = if pattern.contains(['*', '?']) {
        let mut re = String::from("^");
        let mut literal = String::new();
        for c in pattern.chars() {
            if c == '*' || c == '?' {
                re.push_str(&regex::escape(&literal));
                literal.clear();
                re.push_str(if c == '*' { ".*" } else { "." });
            } else {
                literal.push(c);
            }
        }
        re.push_str(&regex::escape(&literal));
        re.push('$');
        re
    } else {
        regex::escape(pattern)
    };
    // `s`: a name may hold a newline, and `*` must cover it too.
    RegexBuilder::new(&source)
        .case_insensitive(true)
        .dot_matches_new_line(true)
        .build()
        .map_err(|e| format!("Could not compile the find pattern: {e}"))
}

/// Which kinds of entry to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Dir,
}

struct Found(String);

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
    matcher: Regex,
    kind: Option<Kind>,
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
        g.entries += 1;
        if !self.shared.matcher.is_match(entry.name()) {
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
            g.kept.push(Found(entry.path().to_string()));
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

#[async_trait]
impl Tool for Find {
    fn name(&self) -> &str {
        "find"
    }

    fn description(&self) -> &str {
        "Find files and directories beneath a path by name: a pattern with * or ? is a case-insensitive glob over the whole name, anything else a case-insensitive substring. Paths are relative to the search root (. for the root itself), in byte-wise path order, followed by a summary line; .git and node_modules are skipped."
    }

    fn parameters(&self) -> JsonSchema {
        json!({
            "type": "object",
            "properties": {
                "pattern": { "type": "string", "description": "Name glob (with * or ?, e.g. \"*.rs\") or a substring of the name; case-insensitive." },
                "path": { "type": "string", "description": "Directory to search, relative to the working directory (default: the working directory)." },
                "type": { "type": "string", "enum": ["file", "dir"], "description": "List only files or only directories (a symlink counts as what it points to)." },
                "limit": { "type": "integer", "minimum": 1, "description": "Show at most this many entries (default 500, at most 10000)." },
                "gitignore": { "type": "boolean", "description": "Skip what .gitignore, .ignore and git's exclude files exclude (default false)." }
            },
            "required": ["pattern"]
        })
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let parsed = (|| {
            let args = Args::new("find", &input)?;
            let pattern = args.required_str("pattern")?.to_string();
            let path = args
                .opt_str("path")?
                .filter(|p| !p.is_empty())
                .unwrap_or(".")
                .to_string();
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
            let matcher = name_matcher(&pattern)?;
            Ok::<_, String>((pattern, path, kind, limit, gitignore, matcher))
        })();
        let (pattern, path, kind, limit, gitignore, matcher) = match parsed {
            Ok(p) => p,
            Err(message) => return ToolResult::failure(message),
        };
        let abs = match ctx.confine(&path) {
            Ok(abs) => abs,
            Err(message) => return ToolResult::failure(message),
        };
        match ctx.fs.stat(&abs).await {
            Ok(info) if info.is_directory => {}
            Ok(_) => return ToolResult::failure(format!("Not a directory: {path}")),
            Err(e) => return ToolResult::failure(format!("Cannot search {path}: {e}")),
        }
        let shared = Arc::new(Shared {
            matcher,
            kind,
            limit,
            cancel: ctx.cancel.clone(),
            cancelled: AtomicBool::new(false),
            gathered: Mutex::new(Vec::new()),
        });
        if let Err(message) =
            run_walk(ctx, walk_options(abs, gitignore), Arc::clone(&shared), None).await
        {
            return ToolResult::failure(message);
        }
        if shared.cancelled.load(Ordering::Relaxed) || ctx.cancel.is_cancelled() {
            return ToolResult::failure("find was cancelled.");
        }
        let parts = std::mem::take(&mut *shared.gathered.lock().unwrap_or_else(|p| p.into_inner()));
        let (mut matches, mut entries, mut unreadable) = (0, 0, 0);
        let mut kept = Vec::with_capacity(parts.len());
        if let Some(message) = parts.iter().find_map(|g| g.root_error.as_ref()) {
            return ToolResult::failure(format!("Cannot search {path}: {message}"));
        }
        for g in parts {
            matches += g.matches;
            entries += g.entries;
            unreadable += g.unreadable;
            kept.push(g.kept);
        }
        let found = merge(kept);
        let shown = found.len().min(limit);
        let mut out = String::new();
        for f in &found[..shown] {
            out.push_str(if f.0.is_empty() { "." } else { &f.0 });
            out.push('\n');
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&summary(matches, shown, entries, unreadable, &pattern));
        ToolResult::text(clamp_for(ctx, "find", &out))
    }
}

/// The `find` tool.
pub fn find_tool() -> DefinedTool {
    define_tool(Arc::new(Find))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_are_anchored_and_case_insensitive() {
        let m = name_matcher("*.rs").unwrap();
        assert!(m.is_match("main.rs"));
        assert!(m.is_match("MAIN.RS"));
        assert!(m.is_match(".hidden.rs"));
        assert!(!m.is_match("main.rsx"));
        assert!(!m.is_match("main_rs"));
        let m = name_matcher("?.txt").unwrap();
        assert!(m.is_match("a.txt"));
        assert!(!m.is_match("ab.txt"));
        assert!(m.is_match("é.txt"), "? is one character, not one byte");
        assert!(name_matcher("ÉCOLE*").unwrap().is_match("école.md"));
    }

    #[test]
    fn only_star_and_question_mark_are_special() {
        let m = name_matcher("[a]*").unwrap();
        assert!(m.is_match("[a]x"));
        assert!(!m.is_match("ax"));
        let m = name_matcher("{a,b}*").unwrap();
        assert!(m.is_match("{a,b}.c"));
        assert!(!m.is_match("a.c"));
        let m = name_matcher("a\\b*").unwrap();
        assert!(m.is_match("a\\bc"));
        assert!(!m.is_match("abc"));
        let m = name_matcher("a.*").unwrap();
        assert!(m.is_match("a.b"));
        assert!(!m.is_match("ab"), "a dot in a glob is literal");
        assert!(name_matcher("*").unwrap().is_match("two\nlines"));
    }

    #[test]
    fn plain_patterns_are_substrings() {
        let m = name_matcher("read").unwrap();
        assert!(m.is_match("README.md"));
        assert!(m.is_match("thread.rs"));
        assert!(!m.is_match("rea.d"));
        let m = name_matcher("a.b").unwrap();
        assert!(m.is_match("xa.bx"));
        assert!(!m.is_match("axb"), "a dot is literal");
    }

    #[test]
    fn a_cancel_stops_the_walk() {
        let cancel = CancellationToken::new();
        let shared = Shared {
            matcher: name_matcher("x").unwrap(),
            kind: None,
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
