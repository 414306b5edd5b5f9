//! `read`: a text file as `cat -n` would number it, windowed by `offset`/`limit`,
//! under a header that states exactly which lines are shown.
//!
//! The file is streamed, never loaded whole: lines before the window are only
//! counted (memchr over large buffers), lines in the window are kept until the
//! output budget is full, and the rest are counted for the total. So a window near
//! the end of a 1 GiB file costs one sequential scan and a few MiB of memory.
//!
//! The answer is `[text, json]`: the text for people and models (the seed's
//! byte-stable header and `cat -n` rows), and a record for programs — the shown
//! lines without their numbers, the window (`startLine`, `endLine`, `totalLines`,
//! `nextOffset`), and the SHA-256 of the whole file, hashed during the same pass,
//! which is the value `edit`'s `expectSha256` accepts (null over `edit`'s 128 MiB,
//! where no edit could use it and the hash would cost more than the read). The
//! command line's plain text face reads no record, so there the record and the
//! hash are skipped.
//!
//! On an agent's face ([`ToolContext::agent_face`]) a read without `limit` shows
//! at most [`AGENT_WINDOW`] lines and cuts each line at [`AGENT_LINE_WIDTH`]
//! characters, saying so; see those constants for why these numbers.
//!
//! This file is the tool: its descriptor and the choice of what kind of file
//! it has (text, an image, a PDF, a notebook, a legacy encoding, a tail); the
//! window engine is `read_window.rs`, the other kinds `read_kinds.rs`.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Seat, SeedList, ToolMeta};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::backends::local_fs::blocking;
use crate::kernel::text::plural;
use crate::kernel::{DefinedTool, JsonSchema, Tool, ToolContext, ToolResult, define_tool};
use crate::tools::files::edit::EDIT_MAX_BYTES;
use crate::tools::files::read_kinds;
use crate::tools::files::read_window::{Ask, Doc, answer_window, open_regular, scan, scan_error};
use crate::tools::files::sniff::{FileKind, SNIFF_BYTES, sniff};
use encoding_rs::Encoding;

pub use crate::tools::files::read_window::{AGENT_LINE_WIDTH, AGENT_WINDOW, BINARY_SNIFF_BYTES};

struct ReadTool;

/// The `read` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Builtin(SeedList::ReadOnly),
    core: true,
    fields: FIELDS,
    description: "Read a file with line numbers (as cat -n), a window at a time; the header gives the offset to continue from. Images, PDFs and notebooks too.",
    ..ToolMeta::new(
        "read",
        "Read file",
        "Show a file's lines numbered like cat -n, a window at a time.",
    )
};

/// `read`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("path", Kind::Name, "File path."),
    Field::new(
        "offset",
        Kind::Line,
        "First line (1-based; -20: the last 20).",
    ),
    Field::new(
        "limit",
        Kind::Int { min: 1, max: None },
        "How many lines (for agents 500 by default, lines cut at 500 characters).",
    ),
    Field::new("tail", Kind::Int { min: 1, max: None }, "The last N lines."),
    Field::new(
        "encoding",
        Kind::Text,
        "Text encoding (latin1, shift_jis, utf-16le…) or auto.",
    ),
    Field::new("pages", Kind::Text, "PDF pages (3-5)."),
    Field::new(
        "maxImageSide",
        Kind::Int { min: 1, max: None },
        "Image long-side cap (1568).",
    ),
    Field::new(
        "maxImageBytes",
        Kind::Int { min: 1, max: None },
        "Image byte cap (3932160).",
    ),
];

#[async_trait]
impl Tool for ReadTool {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let ask = match Ask::parse(&input, ctx) {
            Ok(ask) => ask,
            Err(message) => return ToolResult::failure(message),
        };
        let (size, reader) = match open_regular(ctx, ask.path, &ask.abs).await {
            Ok(opened) => opened,
            Err(refused) => return ToolResult::failure(refused),
        };
        let head = match size {
            0 => Vec::new(),
            _ => ctx
                .fs
                .read_range(&ask.abs, 0, SNIFF_BYTES)
                .await
                .map(|(b, _)| b)
                .unwrap_or_default(),
        };
        let kind = sniff(ask.path, &head);
        if ask.pages.is_some() && kind != FileKind::Pdf {
            return ToolResult::failure(format!(
                "pages applies to PDF files, and {} is not one.",
                ask.path
            ));
        }
        match kind {
            FileKind::Image(mime) => return read_kinds::image(ctx, &ask, size, mime).await,
            FileKind::Pdf => return read_kinds::pdf(ctx, &ask, size).await,
            FileKind::Notebook if ask.encoding.is_none() => {
                return read_kinds::notebook(ctx, &ask, size).await;
            }
            FileKind::Binary(name) => {
                return ToolResult::failure(format!(
                    "{} is {name} ({}); read shows text, images (PNG, JPEG, GIF, WebP), PDF text and notebooks, and does not decode other binary files.",
                    crate::kernel::text::inert(ask.path),
                    plural(size, "byte", "bytes")
                ));
            }
            _ => {}
        }
        if let Some(choice) = ask.encoding {
            return read_kinds::encoded(ctx, &ask, size, choice).await;
        }
        if let Some(n) = ask.tail {
            return read_kinds::tail(ctx, &ask, size, n).await;
        }
        let window = ask.window(ctx, size <= EDIT_MAX_BYTES as u64);
        let cancel = ctx.cancel.clone();
        let scan = match blocking(move || scan(reader, window, &cancel)).await {
            Ok(s) => s,
            Err(e) => return ToolResult::failure(scan_error(ask.path, &e)),
        };
        if scan.binary {
            let hint = if Encoding::for_bom(&head).is_some() {
                crate::tools::files::encoding::hint(&head)
            } else {
                String::new()
            };
            return ToolResult::failure(format!(
                "{path} looks binary (NUL bytes in its first 8 KiB; {} in all); read shows text files only.{hint}",
                plural(scan.total_bytes, "byte", "bytes"),
                path = ask.path,
            ));
        }
        let mut doc = Doc::default();
        if scan.invalid_utf8 {
            doc.notice = crate::tools::files::encoding::hint(&head);
        }
        answer_window(ctx, &ask, scan, doc).await
    }

    fn output_schema(&self) -> Option<JsonSchema> {
        Some(crate::kernel::schema_text(include_str!("read.output.json")))
    }
}

/// The `read` tool.
pub fn read_tool() -> DefinedTool {
    define_tool(Arc::new(ReadTool))
}
