//! `sgrep`: structural search and rewrite, as the ast-grep CLI's `run -p … -r
//! …`. The pattern is code with metavariables (`$X` one node, `$$$ARGS` any
//! number, `$_` one unnamed), matched by ast-grep's own matcher (see
//! `grammar`) over the files the search family's walk finds (`scan`, with rg's
//! `-g`/`-t` filters). Rows are grep's: `PATH:LINE: TEXT` for every line a
//! match spans. A rewrite fills the template's metavariables per match and
//! writes every changed file at once through `apply_patch` (its
//! all-or-nothing journal; under `--checkpoint` the call is scanned like a
//! command, so a rewind undoes it); `check` shows the diff only. Two matches
//! that overlap (one inside the other) are refused for a rewrite, as `edit`
//! refuses a text found twice: which of them should win is the caller's call.
//!
//! A pattern that does not parse as one node of the language is refused with
//! the tree it parsed to, so the next call can fix it.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

#[cfg(not(feature = "code"))]
use super::grammar;
use crate::kernel::fields::{Field, Kind};
use crate::kernel::input::Args;
use crate::kernel::{
    Checkpoint, DefinedTool, Effect, ScanWhen, Tool, ToolContext, ToolMeta, ToolResult, define_tool,
};

const FIELDS: &[Field] = &[
    Field::required("pattern", Kind::Text, "Code, e.g. \"foo($A, $$$REST)\"."),
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
    Field::new(
        "lang",
        Kind::Text,
        "rust, python, javascript, typescript, tsx, go, c, cpp, java or ruby.",
    ),
    Field::new("rewrite", Kind::Text, "Template replacing each match."),
    Field::new("check", Kind::Bool, "rewrite: show the diff only."),
    Field::deprecated(
        "outputMode",
        Kind::Enum(&["content", "files", "count"]),
        "content (default), files (paths) or count (PATH:N), as grep's.",
    ),
    Field::new(
        "limit",
        Kind::Int { min: 1, max: None },
        "Most matches (default 200).",
    )
    .in_own_words(),
    Field::deprecated(
        "globs",
        Kind::Strings,
        "Globs as in rg -g: \"*.rs\" includes, \"!vendor/**\" excludes.",
    ),
    Field::deprecated(
        "type",
        Kind::Strings,
        "Only files of these rg types, e.g. [\"rust\"].",
    ),
    Field::deprecated(
        "typeNot",
        Kind::Strings,
        "Skip files of these rg types, as rg -T.",
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

/// The `sgrep` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    effect: Effect::Runs,
    checkpoint: Checkpoint::ByScan(ScanWhen::Key {
        key: "rewrite",
        value: None,
        unless: Some("check"),
    }),
    heavy: true,
    fields: FIELDS,
    output: Some(include_str!("sgrep.output.json")),
    description: "Structural search, as ast-grep: code with $X (one node) and $$$XS (many) matched on syntax trees, rows like grep's. rewrite: a template for every match, all files at once.",
    ..ToolMeta::new(
        "sgrep",
        "Structural search and rewrite",
        "Match code by its syntax tree with metavariables, and rewrite the matches.",
    )
};

struct Sgrep;

#[async_trait]
impl Tool for Sgrep {
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

/// The `sgrep` tool.
pub fn sgrep_tool() -> DefinedTool {
    define_tool(Arc::new(Sgrep))
}

async fn run(input: &Value, ctx: &ToolContext) -> Result<ToolResult, String> {
    let args = Args::new(META.name, input)?;
    let asked = ask::asked(&args, ctx.unbounded_rows)?;
    #[cfg(feature = "code")]
    return found::run(&args, asked, ctx).await;
    #[cfg(not(feature = "code"))]
    {
        let _ = asked;
        Err(format!("sgrep: {}.", grammar::NOT_BUILT))
    }
}

mod ask;
#[cfg(feature = "code")]
mod found;
