//! `outline`: the shape of files without reading them whole — one
//! `PATH:LINE: kind name(signature)` row per definition, nested ones indented
//! (see `defs`), and with `map` the repository map (see `repo_map`): the
//! tree's definitions, most referred-to first, cut to a byte budget with a
//! summary of what was left out. Files are parsed by tree-sitter grammars on
//! the search family's walk (`scan`); a file of no carried language is counted
//! and named in the summary, never passed over in silence.

// Without the grammars (the `code` feature) the answer is only a refusal, so
// what builds it goes unused there.
#![cfg_attr(not(feature = "code"), allow(unused_imports, dead_code))]

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::grammar;
use crate::kernel::fields::{Field, Kind};
use crate::kernel::input::{Args, invalid};
use crate::kernel::text::{inert, plural};
use crate::kernel::{DefinedTool, Tool, ToolContext, ToolMeta, ToolResult, define_tool};
use crate::tools::{clamp_rows, rows_record, rows_that_fit, text_and_record};

/// The map's default budget: about 2,000 tokens, aider's order of size.
pub const DEFAULT_BUDGET: u64 = 8 * 1024;

const FIELDS: &[Field] = &[
    Field::new(
        "path",
        Kind::Text,
        "File or directory (default: the working directory).",
    ),
    Field::deprecated(
        "paths",
        Kind::Strings,
        "Several files or directories instead of path, in the order given.",
    ),
    Field::new("map", Kind::Bool, "Repository map: ranked by references."),
    Field::new(
        "budget",
        Kind::Int {
            min: 256,
            max: None,
        },
        "map: bytes of rows (default 8192).",
    ),
    Field::new("lang", Kind::Text, "Only this language."),
    Field::deprecated(
        "globs",
        Kind::Strings,
        "Globs as in rg -g: \"*.rs\" includes, \"!tests/**\" excludes.",
    ),
    Field::deprecated(
        "type",
        Kind::Strings,
        "Only files of these rg types, e.g. [\"rust\"].",
    ),
    Field::deprecated("gitignore", Kind::Bool, "Skip files .gitignore excludes."),
    Field::deprecated(
        "maxFileSize",
        Kind::Int {
            min: 1,
            max: Some(128 * 1024 * 1024),
        },
        "Skip files larger than this many bytes (default 2 MiB).",
    ),
];

/// The `outline` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    fields: FIELDS,
    heavy: true,
    output: Some(include_str!("outline.output.json")),
    description: "Definitions of files or a tree (Rust, Python, JS/TS, Go, C/C++, Java, Ruby): `PATH:LINE: kind name(signature)`, nested ones indented. map: the most referred-to definitions, cut to budget.",
    ..ToolMeta::new(
        "outline",
        "Outline and repository map",
        "Definitions with signatures per file, or the tree's most referenced ones.",
    )
};

struct Outline;

#[async_trait]
impl Tool for Outline {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match run(&input, ctx).await {
            Ok(r) => r,
            Err(e) => ToolResult::failure(e),
        }
    }
}

/// The `outline` tool.
pub fn outline_tool() -> DefinedTool {
    define_tool(Arc::new(Outline))
}

/// A validated request.
struct Query {
    plan: Plan,
    map: Option<u64>,
}

#[cfg(feature = "code")]
use super::scan::Plan;
#[cfg(not(feature = "code"))]
struct Plan;

fn parse(input: &Value) -> Result<Query, String> {
    let args = Args::new(META.name, input)?;
    let roots = crate::tools::search::walk::parse_roots(&args)?;
    let filters = crate::tools::search::grep::filters_of(&args)?;
    let lang = match args.opt_filled_str("lang")? {
        Some(l) => Some(
            grammar::canonical(l)
                .ok_or_else(|| invalid("lang", grammar::LANG_EXPECTED, &Value::String(l.into())))?,
        ),
        None => None,
    };
    let map = args.opt_bool("map")?.unwrap_or(false);
    let budget = args.opt_positive_int("budget")?;
    if let Some(b) = budget
        && b < 256
    {
        return Err(invalid(
            "budget",
            "a number of bytes of at least 256",
            &Value::from(b),
        ));
    }
    if budget.is_some() && !map {
        return Err("Invalid \"budget\": it sizes the repository map; pass map as well.".into());
    }
    let _ = (&roots, &filters, lang);
    #[cfg(feature = "code")]
    let plan = Plan {
        roots,
        filters,
        lang: lang.and_then(grammar::by_name),
        max_file_size: args
            .opt_positive_int("maxFileSize")?
            .unwrap_or(super::scan::DEFAULT_MAX_FILE_SIZE),
        gitignore: args.opt_bool("gitignore")?.unwrap_or(false),
        needles: Vec::new(),
    };
    #[cfg(not(feature = "code"))]
    let plan = Plan;
    Ok(Query {
        plan,
        map: map.then(|| budget.unwrap_or(DEFAULT_BUDGET)),
    })
}

#[cfg(not(feature = "code"))]
async fn run(input: &Value, _ctx: &ToolContext) -> Result<ToolResult, String> {
    parse(input)?;
    Err(format!("outline: {}.", grammar::NOT_BUILT))
}

#[cfg(feature = "code")]
async fn run(input: &Value, ctx: &ToolContext) -> Result<ToolResult, String> {
    use super::defs::{definitions, references};
    use super::repo_map::FileFacts;
    let query = parse(input)?;
    let want_uses = query.map.is_some();
    let work: Arc<super::scan::Work<FileFacts>> = Arc::new(move |path, _lang, tree, _text| {
        let mut uses: HashMap<String, u32> = HashMap::new();
        if want_uses {
            references(tree, |name| {
                if let Some(n) = uses.get_mut(name) {
                    *n += 1;
                } else {
                    uses.insert(name.to_string(), 1);
                }
            });
        }
        FileFacts {
            path: path.to_string(),
            defs: definitions(tree),
            uses,
        }
    });
    let scanned = super::scan::scan(ctx, &query.plan, "outline", work).await?;
    let facts: Vec<FileFacts> = scanned.files.into_iter().map(|(_, f)| f).collect();
    let skipped = scanned.skipped;
    let max = query.plan.max_file_size;
    match query.map {
        Some(budget) => Ok(map_answer(
            ctx,
            &facts,
            scanned.parsed,
            &skipped,
            max,
            budget,
        )),
        None => Ok(outline_answer(ctx, &facts, scanned.parsed, &skipped, max)),
    }
}

/// One definition's row, as outline and the map print it.
#[cfg(feature = "code")]
fn row(path: &str, d: &super::defs::Def) -> String {
    format!(
        "{}:{}: {}{} {}{}{}",
        inert(path),
        d.line,
        "  ".repeat(d.depth),
        d.kind,
        d.scope.as_deref().unwrap_or(""),
        d.name,
        d.signature
    )
}

#[cfg(feature = "code")]
fn record_row(path: &str, d: &super::defs::Def) -> Value {
    let scope = d
        .scope
        .as_deref()
        .map(|s| s.trim_end_matches("::").trim_end_matches('.'));
    json!({
        "path": path,
        "line": d.line,
        "endLine": d.end_line,
        "depth": d.depth,
        "kind": d.kind,
        "name": d.name,
        "scope": scope,
        "signature": d.signature,
    })
}

#[cfg(feature = "code")]
fn skipped_tail(parsed: u64, skipped: &super::scan::Skipped, max: u64) -> String {
    let mut line = format!("parsed {}", plural(parsed, "file", "files"));
    if skipped.parse_errors > 0 {
        line.push_str(&format!(
            ", {} with syntax errors (outlined as far as they parse)",
            skipped.parse_errors
        ));
    }
    let words = skipped.words(max);
    if words.is_empty() {
        format!("{line}.")
    } else {
        format!(
            "{line}. Skipped {}.",
            crate::tools::search::walk::join_and(&words)
        )
    }
}

#[cfg(feature = "code")]
fn outline_answer(
    ctx: &ToolContext,
    facts: &[super::repo_map::FileFacts],
    parsed: u64,
    skipped: &super::scan::Skipped,
    max: u64,
) -> ToolResult {
    let mut rows = Vec::new();
    let mut records = Vec::new();
    for f in facts {
        for d in &f.defs {
            rows.push(row(&f.path, d));
            if ctx.record_rows {
                records.push(record_row(&f.path, d));
            }
        }
    }
    let with_defs = facts.iter().filter(|f| !f.defs.is_empty()).count();
    let count = rows.len();
    let summary = if parsed == 0 && skipped.no_grammar > 0 {
        format!(
            "None of these files is in a language outline parses ({}): {}",
            grammar::LANG_EXPECTED.trim_start_matches("one of "),
            skipped_tail(parsed, skipped, max)
        )
    } else {
        format!(
            "{} in {}; {}",
            plural(count as u64, "definition", "definitions"),
            plural(with_defs as u64, "file", "files"),
            skipped_tail(parsed, skipped, max)
        )
    };
    let tail = if rows.is_empty() {
        summary
    } else {
        format!("\n\n{summary}")
    };
    let text = clamp_rows(ctx, "outline", "", &rows, &tail);
    let record = super::scan::record_head(count as u64, with_defs as u64, parsed, skipped);
    let k = rows_that_fit(&record, "rows", &records, ctx.budget.max_bytes, 0);
    let kept = if ctx.record_rows { k } else { count };
    let mut record = rows_record(record, "rows", records, k);
    record["omitted"] = json!(count - kept.min(count));
    record["budget"] = Value::Null;
    text_and_record(text, record, false)
}

#[cfg(feature = "code")]
fn map_answer(
    ctx: &ToolContext,
    facts: &[super::repo_map::FileFacts],
    parsed: u64,
    skipped: &super::scan::Skipped,
    max: u64,
    budget: u64,
) -> ToolResult {
    let ranked = super::repo_map::rank(facts);
    let total = ranked.len();
    let mut used = 0u64;
    let mut chosen: Vec<(usize, &super::repo_map::Ranked<'_>, String)> = Vec::new();
    for (order, r) in ranked.iter().enumerate() {
        let line = row(&r.file.path, r.def);
        let cost = line.len() as u64 + 1;
        if used + cost > budget {
            // A shorter row further down may still fit: keep looking, as a
            // knapsack filled in rank order.
            continue;
        }
        used += cost;
        chosen.push((order, r, line));
    }
    // Files in the order of their best definition; each file's in line order.
    let mut first_seen: HashMap<&str, usize> = HashMap::new();
    for (order, r, _) in &chosen {
        first_seen.entry(r.file.path.as_str()).or_insert(*order);
    }
    chosen.sort_by(|a, b| {
        first_seen[a.1.file.path.as_str()]
            .cmp(&first_seen[b.1.file.path.as_str()])
            .then(a.1.def.line.cmp(&b.1.def.line))
            .then(a.0.cmp(&b.0))
    });
    let files_shown = first_seen.len();
    let files_with = facts.iter().filter(|f| !f.defs.is_empty()).count();
    let rows: Vec<String> = chosen.iter().map(|c| c.2.clone()).collect();
    let records: Vec<Value> = chosen
        .iter()
        .map(|(order, r, _)| {
            let mut v = record_row(&r.file.path, r.def);
            v["rank"] = json!(order + 1);
            v
        })
        .collect();
    let left = total - chosen.len();
    let mut summary = format!(
        "Repository map: {} of {} from {} of {}, chosen most referred-to first and shown by file, in {used} of {budget} bytes",
        chosen.len(),
        plural(total as u64, "definition", "definitions"),
        files_shown,
        plural(files_with as u64, "file", "files"),
    );
    if left > 0 {
        summary.push_str(&format!(
            "; left out {}, {} not shown at all; raise budget to see more",
            plural(left as u64, "definition", "definitions"),
            plural((files_with - files_shown) as u64, "file", "files"),
        ));
    }
    summary.push_str(&format!("; {}", skipped_tail(parsed, skipped, max)));
    let tail = if rows.is_empty() {
        summary
    } else {
        format!("\n\n{summary}")
    };
    let text = clamp_rows(ctx, "outline", "", &rows, &tail);
    let record = super::scan::record_head(total as u64, files_with as u64, parsed, skipped);
    let k = rows_that_fit(&record, "rows", &records, ctx.budget.max_bytes, 0);
    let mut record = rows_record(record, "rows", records, k);
    record["omitted"] = json!(total - k.min(chosen.len()));
    record["budget"] = json!({"bytes": budget, "used": used});
    text_and_record(text, record, false)
}
