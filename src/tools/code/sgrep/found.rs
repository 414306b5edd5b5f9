//! sgrep's work with the grammars built in: the pattern compiled per language,
//! the matches of every parsed file, their rows and record, and a rewrite's
//! patch (see the parent module).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use ast_grep_core::tree_sitter::StrDoc;
use ast_grep_core::{Language, Node, Pattern};
use serde_json::{Value, json};

use crate::kernel::input::Args;
use crate::kernel::text::{inert, plural};
use crate::kernel::{ToolContext, ToolResult};
use crate::tools::code::grammar::{self, Lang, Tree};
use crate::tools::code::scan::{self, Plan, Skipped};
use crate::tools::code::sgrep::ask::{Asked, LIMIT_CEILING, Mode};
use crate::tools::files::diff::render_unified_diff_with_headers;
use crate::tools::{clamp_rows, rows_record, rows_that_fit, text_and_record};

/// The longest match text a record carries.
const RECORD_TEXT_CHARS: usize = 2000;

/// One match.
struct Hit {
    line: u64,
    end_line: u64,
    column: u64,
    start: usize,
    end: usize,
    text: String,
    vars: BTreeMap<String, String>,
    /// The replacement, when rewriting.
    replacement: Option<String>,
}

/// One file's matches, with its text when a rewrite needs it. A search keeps
/// only where each match is (see `matches`'s `lean`): the files shown are
/// parsed again for their lines, texts and metavariables (`shown_hits`), so a
/// pattern matching every function of a 20,000-file tree holds positions, not
/// the tree's text.
struct FileHits {
    hits: Vec<Hit>,
    text: Option<String>,
}

/// The pattern compiled for every language it may meet: `Err` for one it does
/// not parse in, with why.
type Compiled = HashMap<&'static str, Result<Pattern, String>>;

pub async fn run(args: &Args<'_>, a: Asked, ctx: &ToolContext) -> Result<ToolResult, String> {
    let roots = crate::tools::search::walk::parse_roots(args)?;
    let filters = crate::tools::search::grep::filters_of(args)?;
    let plan = Plan {
        roots,
        filters,
        lang: a.lang.and_then(grammar::by_name),
        max_file_size: args
            .opt_positive_int("maxFileSize")?
            .unwrap_or(scan::DEFAULT_MAX_FILE_SIZE),
        gitignore: args.opt_bool("gitignore")?.unwrap_or(false),
        needles: Vec::new(),
    };
    let compiled = compile_all(&a)?;
    let mut plan = plan;
    plan.needles = needles(&compiled);
    if a.rewrite.is_some() && !a.check && ctx.remote.is_none() {
        // An apply an earlier invocation left half done (killed mid-write) is
        // finished or undone before this one reads the tree it would change.
        // Not for `check`: a call that writes nothing is not scanned by a
        // checkpoint, so it must not settle files either.
        let state = crate::state::StateDir::of(ctx);
        crate::state::patches::recover(&state, ctx.root.as_deref()).map_err(|e| {
            format!("sgrep: an interrupted earlier rewrite could not be undone: {e}. Nothing was changed.")
        })?;
    }
    let searchable: Vec<&'static str> = compiled
        .iter()
        .filter(|(_, p)| p.is_ok())
        .map(|(n, _)| *n)
        .collect();
    let flawed_lang = a
        .lang
        .and_then(|l| compiled.get(l))
        .and_then(|p| p.as_ref().ok())
        .filter(|p| p.has_error())
        .and(a.lang.and_then(grammar::by_name));
    let compiled = Arc::new(compiled);
    let (rewrite, keep_text) = (a.rewrite.clone(), a.rewrite.is_some());
    let patterns = Arc::clone(&compiled);
    let work: Arc<scan::Work<Option<FileHits>>> = Arc::new(move |_path, lang, tree, text| {
        let Some(Ok(pattern)) = patterns.get(grammar::name_of(lang)) else {
            return None;
        };
        let hits = matches(tree, text, pattern, rewrite.as_deref(), !keep_text);
        if hits.is_empty() {
            return None;
        }
        Some(FileHits {
            hits,
            text: keep_text.then(|| text.to_string()),
        })
    });
    let scanned = scan::scan(ctx, &plan, "sgrep", work).await?;
    let files: Vec<(String, FileHits)> = scanned
        .files
        .into_iter()
        .filter_map(|(p, h)| h.map(|h| (p, h)))
        .collect();
    let flawed = flawed_lang.map(|lang| flawed_note(&a.pattern, lang));
    let totals = Totals {
        flawed,
        matches: files.iter().map(|(_, f)| f.hits.len() as u64).sum(),
        files: files.len() as u64,
        parsed: scanned.parsed + scanned.unparsed,
        skipped: scanned.skipped,
        searchable,
    };
    if totals.matches == 0
        && let Some(note) = &totals.flawed
    {
        // Nothing matched what probably is not the pattern meant: an error
        // with the tree, so a pipe's reader sees it too, never a quiet "none".
        return Err(format!(
            "No matches, and{}",
            note.trim_start()
                .trim_start_matches("The pattern")
                .replacen("", " the pattern", 1)
        ));
    }
    match a.rewrite {
        Some(_) => rewrite_answer(ctx, &a, &files, &totals, plan.max_file_size).await,
        None => Ok(search_answer(ctx, &a, &files, &totals, plan.max_file_size, &compiled).await),
    }
}

struct Totals {
    /// With a language named, a pattern that parsed with an error node: the
    /// note the summary carries.
    flawed: Option<String>,
    matches: u64,
    files: u64,
    parsed: u64,
    skipped: Skipped,
    /// The languages the pattern parses in.
    searchable: Vec<&'static str>,
}

/// The pattern in the asked language, or in every carried one. With a
/// language named, a pattern that does not parse as one node of it is refused
/// with the tree it parsed to; without, such languages are left out and said
/// so, and a pattern that parses in none is refused.
fn compile_all(a: &Asked) -> Result<Compiled, String> {
    let names: Vec<&'static str> = match a.lang {
        Some(l) => vec![l],
        None => grammar::LANGUAGES.iter().map(|(n, _)| *n).collect(),
    };
    let mut out = Compiled::new();
    for name in names {
        let Some(lang) = grammar::by_name(name) else {
            continue;
        };
        out.insert(name, compile(&a.pattern, lang));
    }
    if let Some(l) = a.lang
        && let Some(Err(why)) = out.get(l)
    {
        return Err(why.clone());
    }
    if out.values().all(Result::is_err) {
        let why = out
            .get("python")
            .and_then(|r| r.as_ref().err().cloned())
            .unwrap_or_default();
        return Err(format!(
            "The pattern parses as code in none of the languages here; name one with lang to see its tree. In Python, for one: {why}"
        ));
    }
    Ok(out)
}

fn compile(source: &str, lang: Lang) -> Result<Pattern, String> {
    let name = grammar::name_of(lang);
    // A pattern whose tree holds an error node still matches as it parsed,
    // as in the ast-grep CLI; the answer says so (see `flawed_note`).
    match Pattern::try_new(source, lang) {
        Ok(p) => Ok(p),
        Err(e) => Err(format!(
            "The pattern does not parse as one {name} node ({}). It parsed to:\n{}",
            pattern_error_words(&e).replace(lang.expando_char(), "$"),
            tree_of(source, lang)
        )),
    }
}

/// Per language, the longest fixed token of the pattern there (its identifiers
/// and keywords, metavariables left out), as the ast-grep CLI skips a file
/// that cannot hold a match before parsing it. None when the pattern has no
/// fixed token of at least two characters.
fn needles(compiled: &Compiled) -> Vec<(Lang, String)> {
    compiled
        .iter()
        .filter_map(|(name, p)| {
            let p = p.as_ref().ok()?;
            let fixed = p.fixed_string().into_owned();
            let lang = grammar::by_name(name)?;
            (fixed.len() >= 2).then_some((lang, fixed))
        })
        .collect()
}

/// What a summary says of a pattern that parsed with an error node.
fn flawed_note(source: &str, lang: Lang) -> String {
    format!(
        " The pattern does not parse cleanly as {}: its tree holds an error node, and it matched as it parsed. If that is not what was meant, its tree is:\n{}",
        grammar::name_of(lang),
        tree_of(source, lang)
    )
}

fn pattern_error_words(e: &ast_grep_core::PatternError) -> String {
    use ast_grep_core::PatternError as E;
    match e {
        E::NoContent(_) => "it holds no code".into(),
        E::MultipleNode(_) => {
            "it is several nodes side by side; match one, or wrap them in the node that holds them"
                .into()
        }
        // `v` is spelt in the grammar's own metavariable character (Python's
        // and C's `µ`); the caller turns it back into `$`.
        E::RootMultiMetaVar(v) => {
            format!("{v} alone matches nothing: use $ONE, or put $$$MANY inside a larger pattern")
        }
        other => other.to_string(),
    }
}

/// The tree a pattern parses to, one named node a line, indented by depth,
/// leaves with their text; an error node marked. At most 40 lines.
fn tree_of(source: &str, lang: Lang) -> String {
    let processed = lang.pre_process_pattern(source).into_owned();
    let expando = lang.expando_char();
    let tree = grammar::parse(lang, &processed);
    let mut out = Vec::new();
    dump(&tree.root(), 0, expando, &mut out);
    if out.len() > 40 {
        let more = out.len() - 40;
        out.truncate(40);
        out.push(format!("  … {more} more nodes"));
    }
    out.join("\n")
}

fn dump(node: &Node<'_, StrDoc<Lang>>, depth: usize, expando: char, out: &mut Vec<String>) {
    // Inside an error node its tokens are shown too: they are what did not fit.
    let in_error = node.is_error();
    for child in node.children() {
        if !child.is_named() && !child.is_error() {
            if in_error {
                out.push(format!(
                    "{}token {:?}",
                    "  ".repeat(depth + 1),
                    child.text()
                ));
            }
            continue;
        }
        let kind = child.kind();
        let mut line = format!("{}{}", "  ".repeat(depth + 1), kind);
        if child.is_error() {
            line.push_str("  <- not valid here");
        }
        if child.is_missing() {
            line.push_str(" (missing)");
        }
        if child.children().len() == 0 {
            let text = child.text().replace(expando, "$");
            line.push_str(&format!(" {:?}", text));
        }
        out.push(line);
        if out.len() > 41 {
            return;
        }
        dump(&child, depth + 1, expando, out);
    }
}

/// Every match of `pattern`; `lean`: where each is, without its text and
/// metavariables (a search's first pass, see [`FileHits`]).
fn matches(
    tree: &Tree,
    src: &str,
    pattern: &Pattern,
    rewrite: Option<&str>,
    lean: bool,
) -> Vec<Hit> {
    let root = tree.root();
    let vars: Vec<String> = pattern
        .defined_vars()
        .into_iter()
        .map(str::to_string)
        .collect();
    root.find_all(pattern)
        .map(|m| {
            let range = m.range();
            let start = m.start_pos();
            let mut found = BTreeMap::new();
            let env = m.get_env();
            for v in vars.iter().filter(|_| !lean) {
                if let Some(n) = env.get_match(v) {
                    found.insert(v.clone(), n.text().to_string());
                } else {
                    let many = env.get_multiple_matches(v);
                    if let (Some(first), Some(last)) = (many.first(), many.last()) {
                        let span = first.range().start..last.range().end;
                        found.insert(v.clone(), src[span].to_string());
                    }
                }
            }
            let replacement = rewrite.map(|t| {
                let edit = m.make_edit(pattern, &t);
                String::from_utf8_lossy(&edit.inserted_text).into_owned()
            });
            Hit {
                line: start.line() as u64 + 1,
                end_line: m.end_pos().line() as u64 + 1,
                column: start.column(&m) as u64 + 1,
                start: range.start,
                end: range.end,
                text: if lean {
                    String::new()
                } else {
                    cut(&m.text(), RECORD_TEXT_CHARS)
                },
                vars: found,
                replacement,
            }
        })
        .collect()
}

fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

fn skipped_words(t: &Totals, max: u64) -> String {
    let words = t.skipped.words(max);
    let mut out = String::new();
    if !words.is_empty() {
        out = format!(" Skipped {}.", crate::tools::search::walk::join_and(&words));
    }
    if t.skipped.parse_errors > 0 {
        out.push_str(&format!(
            " {} with syntax errors {} searched as far as the grammar reads {}.",
            plural(t.skipped.parse_errors, "file", "files"),
            if t.skipped.parse_errors == 1 {
                "was"
            } else {
                "were"
            },
            if t.skipped.parse_errors == 1 {
                "it"
            } else {
                "them"
            }
        ));
    }
    out
}

/// A shown file's matches in full, with its lines.
type Shown = Option<(Vec<Hit>, Vec<String>)>;

/// How many shown files are read and parsed again at once.
const SHOWN_BATCH: usize = 64;

/// The matches in full of those of `files` that `room` more matches let
/// through (the first pass kept positions only): each file read again
/// (moments after the walk read it, so from the page cache) and parsed again,
/// on every core, as the walk parsed them; parsed one after another they made
/// sgrep slower than the ast-grep CLI on a pattern every file holds. A file
/// that changed since is shown as it is now.
async fn shown_hits(
    ctx: &ToolContext,
    a: &Asked,
    files: &[(String, FileHits)],
    room: usize,
    compiled: &Compiled,
) -> Vec<Shown> {
    let mut wanted = 0usize;
    let mut texts = Vec::new();
    for (path, f) in files {
        if wanted >= room {
            break;
        }
        wanted += f.hits.len();
        let lang = match a.lang {
            Some(l) => grammar::by_name(l),
            None => grammar::of_path(path),
        };
        let pattern = lang.and_then(|l| compiled.get(grammar::name_of(l))?.as_ref().ok());
        let text = match (lang, pattern) {
            (Some(_), Some(_)) => match ctx.fs.read_bytes(&ctx.resolve_path(path)).await {
                Ok(bytes) => String::from_utf8(bytes).ok(),
                Err(_) => None,
            },
            _ => None,
        };
        texts.push(lang.zip(pattern).zip(text));
    }
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, texts.len().max(1));
    let mut shown: Vec<Shown> = Vec::new();
    shown.resize_with(texts.len(), || None);
    std::thread::scope(|scope| {
        let jobs: Vec<_> = (0..workers)
            .map(|w| {
                let texts = &texts;
                scope.spawn(move || {
                    let mut out = Vec::new();
                    for i in (w..texts.len()).step_by(workers) {
                        let Some(((lang, pattern), text)) = &texts[i] else {
                            continue;
                        };
                        let tree = grammar::parse(*lang, text);
                        let hits = matches(&tree, text, pattern, None, false);
                        let lines = text
                            .split('\n')
                            .map(|l| cut(l.trim_end_matches('\r'), 500))
                            .collect();
                        out.push((i, (hits, lines)));
                    }
                    out
                })
            })
            .collect();
        for job in jobs {
            // A parse that panicked is the tool's failure, as it was when
            // the files were parsed on the calling thread.
            let done = job.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            for (i, one) in done {
                shown[i] = Some(one);
            }
        }
    });
    shown
}

async fn search_answer(
    ctx: &ToolContext,
    a: &Asked,
    files: &[(String, FileHits)],
    t: &Totals,
    max: u64,
    compiled: &Compiled,
) -> ToolResult {
    let mut rows = Vec::new();
    let mut records = Vec::new();
    let mut shown = 0usize;
    // The shown files' full matches, a batch at a time (so that the texts
    // held at once stay few whatever the limit).
    let mut full = std::collections::VecDeque::new();
    'files: for (i, (path, f)) in files.iter().enumerate() {
        match a.mode {
            Mode::Files | Mode::Count => {
                if shown == a.limit {
                    break;
                }
                shown += 1;
                if a.mode == Mode::Files {
                    rows.push(inert(path).into_owned());
                    records.push(json!({"path": path}));
                } else {
                    rows.push(format!("{}:{}", inert(path), f.hits.len()));
                    records.push(json!({"path": path, "count": f.hits.len()}));
                }
            }
            Mode::Content => {
                if shown == a.limit {
                    break 'files;
                }
                if full.is_empty() {
                    let batch = &files[i..(i + SHOWN_BATCH).min(files.len())];
                    full.extend(shown_hits(ctx, a, batch, a.limit - shown, compiled).await);
                }
                let (hits, lines) = full
                    .pop_front()
                    .flatten()
                    .unwrap_or_else(|| (Vec::new(), Vec::new()));
                for h in &hits {
                    if shown == a.limit {
                        break 'files;
                    }
                    shown += 1;
                    for n in h.line..=h.end_line {
                        let line = lines.get(n as usize - 1).map_or("", String::as_str);
                        rows.push(format!("{}:{n}: {line}", inert(path)));
                    }
                    if ctx.record_rows {
                        records.push(json!({
                            "path": path,
                            "line": h.line,
                            "column": h.column,
                            "endLine": h.end_line,
                            "text": h.text,
                            "vars": h.vars,
                        }));
                    }
                }
            }
        }
    }
    let found = if a.mode == Mode::Content {
        t.matches
    } else {
        t.files
    };
    let searched = plural(t.parsed, "file", "files");
    let label = format!("`{}`", a.pattern.trim());
    let mut summary = if t.matches == 0 {
        // A pattern can parse cleanly as another node than meant (Go reads
        // `fmt.Println($$$)` as a type conversion, which no call matches):
        // with one language named, its tree goes with the answer.
        let parsed_as = a
            .lang
            .and_then(grammar::by_name)
            .map_or(String::new(), |lang| {
                format!(
                    " In {} the pattern parsed as:\n{}",
                    grammar::name_of(lang),
                    tree_of(&a.pattern, lang)
                )
            });
        format!("No matches for {label} in {searched} searched.{parsed_as}")
    } else if (shown as u64) < found {
        format!(
            "Showing the first {shown} of {} in {} ({searched} searched); {}.",
            plural(t.matches, "match", "matches"),
            plural(t.files, "file", "files"),
            crate::tools::search::walk::more_hint(a.limit, LIMIT_CEILING, ctx.unbounded_rows)
        )
    } else {
        format!(
            "Found {} in {} ({searched} searched).",
            plural(t.matches, "match", "matches"),
            plural(t.files, "file", "files")
        )
    };
    summary.push_str(&skipped_words(t, max));
    if let Some(note) = &t.flawed {
        summary.push_str(note);
    }
    if a.lang.is_none() && t.searchable.len() < grammar::LANGUAGES.len() {
        let mut not: Vec<&str> = grammar::LANGUAGES
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| !t.searchable.contains(n))
            .collect();
        not.sort_unstable();
        let not: Vec<String> = not.iter().map(|n| n.to_string()).collect();
        summary.push_str(&format!(
            " The pattern is not valid code in {}, whose files were not searched (lang names one and shows why).",
            crate::tools::search::walk::join_and(&not)
        ));
    }
    let tail = if rows.is_empty() {
        summary
    } else {
        format!("\n\n{summary}")
    };
    let text = clamp_rows(ctx, "sgrep", "", &rows, &tail);
    let mut record = base_record(t);
    record.insert("shown".into(), json!(shown));
    let k = rows_that_fit(&record, "rows", &records, ctx.budget.max_bytes, 0);
    let kept = if ctx.record_rows { k } else { shown };
    let mut record = rows_record(record, "rows", records, k);
    record["omitted"] = json!(found.saturating_sub(kept as u64));
    record["diff"] = Value::Null;
    record["written"] = json!(false);
    text_and_record(text, record, false)
}

fn base_record(t: &Totals) -> serde_json::Map<String, Value> {
    scan::record_head(t.matches, t.files, t.parsed, &t.skipped)
}

/// Two matches of one file that overlap, if any: (outer, inner) lines.
fn overlap(hits: &[Hit]) -> Option<(&Hit, &Hit)> {
    let mut sorted: Vec<&Hit> = hits.iter().collect();
    sorted.sort_by_key(|h| (h.start, std::cmp::Reverse(h.end)));
    sorted
        .windows(2)
        .find(|w| w[1].start < w[0].end)
        .map(|w| (w[0], w[1]))
}

/// The file's text with every match replaced.
fn rewritten(text: &str, hits: &[Hit]) -> String {
    let mut sorted: Vec<&Hit> = hits.iter().collect();
    sorted.sort_by_key(|h| h.start);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for h in sorted {
        out.push_str(&text[at..h.start]);
        out.push_str(h.replacement.as_deref().unwrap_or(&h.text));
        at = h.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Why a rewrite's apply was refused. The patch was made from this call's own
/// reading, so a hunk that does not apply means a file changed since: name
/// those files, so the caller knows to run sgrep again, rather than show
/// hunks it never wrote.
async fn not_written(
    ctx: &ToolContext,
    files: &[(String, FileHits)],
    changed: &[String],
    applied: &ToolResult,
) -> String {
    let mut moved = Vec::new();
    for (path, f) in files.iter().filter(|(p, _)| changed.contains(p)) {
        let now = ctx.fs.read_bytes(&ctx.resolve_path(path)).await.ok();
        if now.as_deref() != f.text.as_deref().map(str::as_bytes) {
            moved.push(inert(path).into_owned());
        }
    }
    if moved.is_empty() {
        let why = crate::tools::shell::warm::text_of(applied);
        return format!("sgrep: the rewrite was not written: {why}");
    }
    let (list, verb) = match moved.len() {
        1 => (moved[0].clone(), "was"),
        n => (format!("{n} files ({})", moved.join(", ")), "were"),
    };
    format!(
        "sgrep: the rewrite was not written, and nothing was changed: {list} {verb} changed by someone else after sgrep read {}. Run sgrep again to rewrite the files as they are now.",
        if moved.len() == 1 { "it" } else { "them" }
    )
}

async fn rewrite_answer(
    ctx: &ToolContext,
    a: &Asked,
    files: &[(String, FileHits)],
    t: &Totals,
    max: u64,
) -> Result<ToolResult, String> {
    let mut patch = String::new();
    let mut changed = Vec::new();
    for (path, f) in files {
        if let Some((outer, inner)) = overlap(&f.hits) {
            let outer_lines = if outer.line == outer.end_line {
                format!("the match on line {}", outer.line)
            } else {
                format!("the match on lines {}-{}", outer.line, outer.end_line)
            };
            return Err(format!(
                "sgrep: two matches overlap in {}: {outer_lines} holds another, on line {} column {}, so which one to rewrite is ambiguous; nothing was written. Narrow the pattern, or rewrite in two runs.",
                inert(path),
                inner.line,
                inner.column
            ));
        }
        ctx.confine_write(path)
            .map_err(|m| format!("sgrep: the rewrite would change {}: {m}", inert(path)))?;
        let text = f.text.as_deref().unwrap_or_default();
        let after = rewritten(text, &f.hits);
        if after != text {
            patch.push_str(&render_unified_diff_with_headers(
                text,
                &after,
                3,
                &format!("a/{path}"),
                &format!("b/{path}"),
            ));
            changed.push(path.clone());
        }
    }
    let verb = if a.check { "would change" } else { "changed" };
    let mut summary = if t.matches == 0 {
        format!(
            "No matches for `{}` in {} searched: nothing to rewrite.",
            a.pattern.trim(),
            plural(t.parsed, "file", "files")
        )
    } else {
        format!(
            "{} in {}: {} {verb} ({} searched).",
            plural(t.matches, "match", "matches"),
            plural(t.files, "file", "files"),
            plural(changed.len() as u64, "file", "files"),
            plural(t.parsed, "file", "files"),
        )
    };
    summary.push_str(&skipped_words(t, max));
    let written = !a.check && !patch.is_empty();
    if written {
        // The gate of apply_patch is about files the caller has not read; these
        // changes come from this call's own reading of them, checked again by
        // the patch's context as it applies.
        let mut quiet = ctx.clone();
        quiet.framework.read_state = None;
        let applied = crate::tools::files::apply_patch::apply_patch_tool()
            .run_result(json!({"patch": patch}), &quiet)
            .await;
        if applied.is_error {
            return Err(not_written(ctx, files, &changed, &applied).await);
        }
    }
    // Rows (the diff), a blank line, the summary: the command line's layout.
    let sep = if patch.is_empty() { "" } else { "\n" };
    let text = crate::tools::clamp_owned_for(ctx, "sgrep", format!("{patch}{sep}{summary}"));
    let mut record = base_record(t);
    record.insert("shown".into(), json!(0));
    record.insert("rows".into(), json!([]));
    record.insert("omitted".into(), json!(0));
    record.insert("diff".into(), json!(patch));
    record.insert("written".into(), json!(written));
    record.insert("changed".into(), json!(changed));
    Ok(text_and_record(text, Value::Object(record), false))
}
