//! sgrep's fields checked before any pattern is compiled (shared by the build
//! with grammars, which searches, and the one without, which says it cannot).

// Without the grammars (the `code` feature) the answer is only a refusal, so
// what builds it goes unused there.
#![cfg_attr(not(feature = "code"), allow(unused_imports, dead_code))]

use serde_json::Value;

use crate::kernel::input::{Args, invalid};
use crate::tools::code::grammar;

/// Rows shown when `limit` is absent, as grep.
pub const DEFAULT_LIMIT: u64 = 200;
pub const LIMIT_CEILING: u64 = 5000;

/// What the rows are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Content,
    Files,
    Count,
}

/// The checked fields, before any pattern is compiled.
pub struct Asked {
    pub pattern: String,
    pub lang: Option<&'static str>,
    pub rewrite: Option<String>,
    pub check: bool,
    pub mode: Mode,
    pub limit: usize,
}

pub fn asked(args: &Args<'_>, unbounded: bool) -> Result<Asked, String> {
    let pattern = args.required_str("pattern")?.to_string();
    if pattern.trim().is_empty() {
        return Err(invalid(
            "pattern",
            "code to match, such as \"foo($A)\"",
            &Value::String(pattern),
        ));
    }
    let lang = match args.opt_filled_str("lang")? {
        Some(l) => Some(
            grammar::canonical(l)
                .ok_or_else(|| invalid("lang", grammar::LANG_EXPECTED, &Value::String(l.into())))?,
        ),
        None => None,
    };
    let rewrite = args.opt_str("rewrite")?.map(str::to_string);
    let check = args.opt_bool("check")?.unwrap_or(false);
    if check && rewrite.is_none() {
        return Err("Invalid \"check\": it shows a rewrite's diff; pass rewrite as well.".into());
    }
    let mode = match args.opt_enum("outputMode", &["content", "files", "count"])? {
        Some("files") => Mode::Files,
        Some("count") => Mode::Count,
        _ => Mode::Content,
    };
    if rewrite.is_some() && mode != Mode::Content {
        return Err(
            "Invalid \"outputMode\": a rewrite answers with its diff, so files and count (-l, -c) do not go with rewrite.".into(),
        );
    }
    let limit =
        crate::tools::search::walk::row_limit(args, unbounded, DEFAULT_LIMIT, LIMIT_CEILING)?;
    Ok(Asked {
        pattern,
        lang,
        rewrite,
        check,
        mode,
        limit,
    })
}
