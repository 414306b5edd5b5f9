//! The parsed walk `outline` and `sgrep` share: every file beneath the roots
//! that a carried grammar parses, parsed on the walk's threads (the search
//! family's walk, `search::walk::run_walk`, with grep's `-g`/`-t` filters), and
//! handed to the tool's per-file work; what was not parsed is counted by why,
//! so a summary can say what it did not look at.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::grammar::{self, Lang, Tree};
use crate::kernel::{
    FileRead, ReadLimits, ToolContext, WalkEntryKind, WalkEvent, WalkFlow, WalkVisitor,
    WalkVisitorFactory,
};
use crate::tools::search::grep::Filters;
use crate::tools::search::walk::{display_path, path_order, run_walk, walk_options};

/// Source files larger than this are counted, not parsed, unless `maxFileSize`
/// says otherwise: 2 MiB, grep's default, holds any hand-written file and passes
/// over the generated bundles a parse would spend seconds on.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 2 * 1024 * 1024;
/// A NUL among a file's first bytes makes it binary, as in grep.
const NUL_SNIFF: usize = 4096;

/// What was counted but not parsed, or parsed with a fault.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Skipped {
    /// Files of no language this build parses.
    pub no_grammar: u64,
    /// Files of a language this build parses, but not the one asked for.
    pub other_lang: u64,
    /// `node_modules` folders the walk did not enter (as grep counts them).
    pub pruned: u64,
    pub binary: u64,
    pub too_large: u64,
    pub unreadable: u64,
    /// Not valid UTF-8: a grammar reads text.
    pub not_utf8: u64,
    /// Parsed, with a syntax error somewhere (still searched, as ast-grep does).
    pub parse_errors: u64,
}

impl Skipped {
    fn add(&mut self, o: &Skipped) {
        self.no_grammar += o.no_grammar;
        self.other_lang += o.other_lang;
        self.pruned += o.pruned;
        self.binary += o.binary;
        self.too_large += o.too_large;
        self.unreadable += o.unreadable;
        self.not_utf8 += o.not_utf8;
        self.parse_errors += o.parse_errors;
    }

    /// The summary's words for what was not parsed, and the faults.
    pub fn words(&self, max_file_size: u64) -> Vec<String> {
        use crate::kernel::text::plural;
        let mut out = Vec::new();
        if self.no_grammar > 0 {
            out.push(format!(
                "{} with no grammar here",
                plural(self.no_grammar, "file", "files")
            ));
        }
        if self.other_lang > 0 {
            out.push(format!(
                "{} in other languages",
                plural(self.other_lang, "file", "files")
            ));
        }
        if self.binary > 0 {
            out.push(plural(self.binary, "binary file", "binary files"));
        }
        if self.too_large > 0 {
            out.push(format!(
                "{} over {} bytes",
                plural(self.too_large, "file", "files"),
                max_file_size
            ));
        }
        if self.not_utf8 > 0 {
            out.push(format!(
                "{} not UTF-8",
                plural(self.not_utf8, "file", "files")
            ));
        }
        if self.unreadable > 0 {
            out.push(plural(
                self.unreadable,
                "unreadable entry",
                "unreadable entries",
            ));
        }
        out.extend(crate::tools::search::walk::pruned_words(self.pruned));
        out
    }

    /// The record's `skipped` object.
    pub fn record(&self) -> serde_json::Value {
        serde_json::json!({
            "noGrammar": self.no_grammar,
            "otherLanguage": self.other_lang,
            "binary": self.binary,
            "tooLarge": self.too_large,
            "notUtf8": self.not_utf8,
            "unreadable": self.unreadable,
            "parseErrors": self.parse_errors,
        })
    }
}

/// The head every parsed-walk record shares: `count`, `files`, `parsed`,
/// `skipped` (outline's, the map's and sgrep's).
pub fn record_head(
    count: u64,
    files: u64,
    parsed: u64,
    skipped: &Skipped,
) -> serde_json::Map<String, serde_json::Value> {
    let mut record = serde_json::Map::new();
    record.insert("count".into(), count.into());
    record.insert("files".into(), files.into());
    record.insert("parsed".into(), parsed.into());
    record.insert("skipped".into(), skipped.record());
    record
}

/// What to walk and how.
pub struct Plan {
    /// The roots as spelled (`None`: the working directory).
    pub roots: Vec<Option<String>>,
    pub filters: Filters,
    /// Only this language (`lang`); else every carried grammar by extension.
    pub lang: Option<Lang>,
    pub max_file_size: u64,
    pub gitignore: bool,
    /// A text the file must hold to be worth parsing, by language (sgrep's
    /// pattern's longest fixed token, as the ast-grep CLI skips files): a file
    /// without it is read, counted as searched and not parsed.
    pub needles: Vec<(Lang, String)>,
}

/// The per-file work: the path as shown, its language, its tree and text.
pub type Work<R> = dyn Fn(&str, Lang, &Tree, &str) -> R + Send + Sync;

/// The parsed files' results in path order (roots in the order given), what
/// was parsed, and what was skipped.
pub struct Scanned<R> {
    pub files: Vec<(String, R)>,
    pub parsed: u64,
    /// Read, and passed over by the needle without a parse.
    pub unparsed: u64,
    pub skipped: Skipped,
}

struct Shared<R: Send> {
    filters: Filters,
    lang: Option<Lang>,
    limits: ReadLimits,
    root: Option<String>,
    work: Arc<Work<R>>,
    needles: Vec<(Lang, String)>,
    cancel: crate::kernel::CancellationToken,
    cancelled: AtomicBool,
    out: Mutex<Gathered<R>>,
}

/// What the walking threads hand back as each finishes.
struct Gathered<R> {
    files: Vec<(String, R)>,
    parsed: u64,
    unparsed: u64,
    skipped: Skipped,
    /// Why the root itself could not be read, which fails the call.
    root_error: Option<String>,
}

impl<R> Default for Gathered<R> {
    fn default() -> Self {
        Self {
            files: Vec::new(),
            parsed: 0,
            unparsed: 0,
            skipped: Skipped::default(),
            root_error: None,
        }
    }
}

struct Visitor<'a, R: Send> {
    shared: &'a Shared<R>,
    buf: Vec<u8>,
    files: Vec<(String, R)>,
    parsed: u64,
    /// Read and searched by the needle alone (see [`Plan::needles`]).
    unparsed: u64,
    skipped: Skipped,
    root_error: Option<String>,
}

impl<R: Send> WalkVisitorFactory for Shared<R> {
    fn visitor(&self) -> Box<dyn WalkVisitor + '_> {
        Box::new(Visitor {
            shared: self,
            buf: Vec::new(),
            files: Vec::new(),
            parsed: 0,
            unparsed: 0,
            skipped: Skipped::default(),
            root_error: None,
        })
    }
}

impl<R: Send> Visitor<'_, R> {
    fn file(&mut self, entry: &dyn crate::kernel::WalkEntry) {
        // A named `lang` reads only its own extensions, as ast-grep's
        // --lang typescript reads .ts and not .tsx.
        let lang = match grammar::of_path(entry.name()) {
            Some(l) if self.shared.lang.is_none_or(|want| want == l) => l,
            Some(_) => {
                self.skipped.other_lang += 1;
                return;
            }
            None => {
                self.skipped.no_grammar += 1;
                return;
            }
        };
        match entry.read(&mut self.buf, self.shared.limits) {
            Err(_) => self.skipped.unreadable += 1,
            Ok(FileRead::TooLarge { .. }) => self.skipped.too_large += 1,
            Ok(FileRead::Binary) => self.skipped.binary += 1,
            Ok(FileRead::Read) => {
                let Ok(text) = std::str::from_utf8(&self.buf) else {
                    self.skipped.not_utf8 += 1;
                    return;
                };
                if let Some((_, needle)) = self.shared.needles.iter().find(|(l, _)| *l == lang)
                    && memchr::memmem::find(text.as_bytes(), needle.as_bytes()).is_none()
                {
                    // Cannot match: searched, and left unparsed.
                    self.unparsed += 1;
                    return;
                }
                let tree = grammar::parse(lang, text);
                self.parsed += 1;
                if grammar::has_error(&tree) {
                    self.skipped.parse_errors += 1;
                }
                let shown = display_path(self.shared.root.as_deref(), entry.path());
                let result = (self.shared.work)(&shown, lang, &tree, text);
                self.files.push((shown, result));
            }
        }
    }
}

impl<R: Send> WalkVisitor for Visitor<'_, R> {
    fn visit(&mut self, event: WalkEvent<'_>) -> WalkFlow {
        if self.shared.cancel.is_cancelled() {
            self.shared.cancelled.store(true, Ordering::Relaxed);
            return WalkFlow::Quit;
        }
        match event {
            WalkEvent::Unreadable { path, message } => {
                self.skipped.unreadable += 1;
                if path.is_some_and(|p| p.is_empty()) {
                    self.root_error.get_or_insert(message);
                }
            }
            WalkEvent::Pruned { path } => {
                self.skipped.pruned +=
                    u64::from(crate::tools::search::walk::counts_as_pruned(&path));
            }
            WalkEvent::Entry(entry)
                if !entry.path().is_empty() && !self.shared.filters.keeps(entry) =>
            {
                return WalkFlow::Skip;
            }
            WalkEvent::Entry(entry) => {
                if entry.kind() == WalkEntryKind::File {
                    self.file(entry);
                }
            }
        }
        WalkFlow::Continue
    }
}

impl<R: Send> Drop for Visitor<'_, R> {
    fn drop(&mut self) {
        let mut out = self.shared.out.lock().unwrap_or_else(|p| p.into_inner());
        out.files.append(&mut self.files);
        out.parsed += self.parsed;
        out.unparsed += self.unparsed;
        out.skipped.add(&self.skipped);
        if out.root_error.is_none() {
            out.root_error = self.root_error.take();
        }
    }
}

/// Walk every root of `plan` in turn and run `work` on each parsed file.
pub async fn scan<R: Send + 'static>(
    ctx: &ToolContext,
    plan: &Plan,
    tool: &str,
    work: Arc<Work<R>>,
) -> Result<Scanned<R>, String> {
    let mut all = Scanned {
        files: Vec::new(),
        parsed: 0,
        unparsed: 0,
        skipped: Skipped::default(),
    };
    for spelled in &plan.roots {
        let shown_root = spelled.as_deref().unwrap_or(".");
        let abs = ctx.confine(shown_root)?;
        match ctx.fs.stat(&abs).await {
            Err(e) => return Err(format!("Cannot read {}: {e}", inert(shown_root))),
            Ok(info) if !info.is_file && !info.is_directory => {
                return Err(crate::tools::not_regular(shown_root, &info));
            }
            Ok(_) => {}
        }
        let limits = ReadLimits {
            max_size: plan.max_file_size,
            nul_sniff: NUL_SNIFF,
        };
        let shared = Arc::new(Shared {
            filters: plan.filters.clone(),
            lang: plan.lang,
            limits,
            root: spelled.clone(),
            work: Arc::clone(&work),
            needles: plan.needles.clone(),
            cancel: ctx.cancel.clone(),
            cancelled: AtomicBool::new(false),
            out: Mutex::new(Gathered::default()),
        });
        run_walk(
            ctx,
            walk_options(abs, plan.gitignore),
            Arc::clone(&shared),
            Some(limits),
        )
        .await?;
        if shared.cancelled.load(Ordering::Relaxed) || ctx.cancel.is_cancelled() {
            return Err(format!("{tool} was cancelled."));
        }
        let Gathered {
            mut files,
            parsed,
            unparsed,
            skipped,
            root_error,
        } = std::mem::take(&mut *shared.out.lock().unwrap_or_else(|p| p.into_inner()));
        if let Some(message) = root_error {
            return Err(format!("Cannot read {}: {message}", inert(shown_root)));
        }
        files.sort_by(|a, b| path_order(&a.0, &b.0));
        all.files.extend(files);
        all.parsed += parsed;
        all.unparsed += unparsed;
        all.skipped.add(&skipped);
    }
    Ok(all)
}

fn inert(s: &str) -> std::borrow::Cow<'_, str> {
    crate::kernel::text::inert(s)
}
