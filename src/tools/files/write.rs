//! `write`: create or overwrite a file with exactly the given content.
//!
//! The write is atomic (the backend writes a temp file beside the target, fsyncs and
//! renames it over), keeps the file's mode and writes through a symlink, so an
//! interrupted write leaves the old file whole. Missing parent directories are
//! created. Overwriting counts as a mutation for the read-before-edit gate; a new
//! file is exempt.
//!
//! The answer is `Saved N bytes to PATH.` for people and, where a program reads
//! it, the record `{path, bytes, sha256}`: the hash is what `edit`'s `expectSha256`
//! takes, so a writer can guard its next edit without reading the file back.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Checkpoint, Effect, Seat, SeedList, ToolMeta};
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::kernel::input::{Args, invalid};
use crate::kernel::{DefinedTool, JsonSchema, Tool, ToolContext, ToolResult, define_tool};
use crate::tools::files::gate::{
    GateOutcome, enforce_read_gate, get_read_state_handle, record_read_state,
};

struct WriteTool;

/// The `write` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Builtin(SeedList::Mutating),
    effect: Effect::Writes { idempotent: true },
    checkpoint: Checkpoint::ByPath,
    core: true,
    heavy: true,
    fields: FIELDS,
    description: "Create or overwrite a file with exactly this content (atomic; makes parent folders). For part of a file, use edit.",
    ..ToolMeta::new(
        "write",
        "Write file",
        "Create or replace a file atomically, making parent folders.",
    )
};

/// `write`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("path", Kind::Name, "File path."),
    Field::new("content", Kind::Text, "The whole new content."),
    Field::new(
        "encoding",
        Kind::Text,
        "Encoding to write; auto keeps the file's.",
    ),
    crate::tools::code::diagnose::DIAGNOSE_FIELD,
];

#[async_trait]
impl Tool for WriteTool {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    fn output_schema(&self) -> Option<JsonSchema> {
        Some(crate::kernel::schema_text(include_str!(
            "write.output.json"
        )))
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let path = input["path"].as_str().map(str::to_string);
        let change = self.run_plain(&input, ctx);
        crate::tools::code::diagnose::around_change(ctx, &input, path.into_iter().collect(), change)
            .await
    }
}

impl WriteTool {
    async fn run_plain(&self, input: &Value, ctx: &ToolContext) -> ToolResult {
        let args = Args::checked(input);
        let path = match args.required_str("path") {
            Ok(p) => p,
            Err(e) => return ToolResult::failure(e),
        };
        let content = match args.get("content") {
            None => "",
            Some(Value::String(s)) => s.as_str(),
            Some(other) => return ToolResult::failure(invalid("content", "a string", other)),
        };
        let choice = match crate::tools::files::encoding::parse_choice(
            args.opt_str("encoding").ok().flatten(),
        ) {
            Ok(c) => c,
            Err(e) => return ToolResult::failure(e),
        };
        let abs = match ctx.confine_write(path) {
            Ok(abs) => abs,
            Err(message) => return ToolResult::failure(message),
        };
        // A dangling link is fine (the write creates its target); a FIFO or a
        // device is not: renaming a file over it would destroy it.
        match ctx.fs.stat(&abs).await {
            Ok(info) if info.is_directory => {
                return ToolResult::failure(format!(
                    "{path} is a directory; write needs a file path."
                ));
            }
            Ok(info) if !info.is_file && !info.is_symlink => {
                return ToolResult::failure(format!(
                    "{}; write replaces regular files only.",
                    crate::tools::not_regular(path, &info)
                ));
            }
            _ => {}
        }
        let handle = get_read_state_handle(ctx);
        if let GateOutcome::Refused(message) = enforce_read_gate(ctx, &abs, handle).await {
            return ToolResult::failure(message);
        }
        if let Some(parent) = Path::new(&abs).parent().and_then(Path::to_str)
            && !parent.is_empty()
            && let Err(e) = ctx.fs.mkdir(parent, true).await
        {
            return ToolResult::failure(format!(
                "Cannot create the folder for {path}: {e}",
                path = crate::kernel::text::inert(path)
            ));
        }
        if ctx.cancel.is_cancelled() {
            return ToolResult::failure("write was cancelled before anything was written.");
        }
        // An edit of this file in another process finishes before we replace it,
        // so its late rename cannot bring back the old content over ours.
        let _lock = match ctx
            .fs
            .lock_file(&abs, crate::kernel::backends::FILE_LOCK_WAIT)
            .await
        {
            Ok(lock) => lock,
            Err(e) => {
                return ToolResult::failure(format!(
                    "Cannot write {path}: {e}",
                    path = crate::kernel::text::inert(path)
                ));
            }
        };
        let encoded = match choice {
            None => None,
            Some(choice) => match encode_for_write(ctx, &abs, path, content, choice).await {
                Ok(bytes) => Some(bytes),
                Err(e) => return ToolResult::failure(e),
            },
        };
        let written = match &encoded {
            Some(bytes) => ctx.fs.write_bytes(&abs, bytes).await,
            None => ctx.fs.write_file(&abs, content).await,
        };
        if let Err(e) = written {
            return ToolResult::failure(format!(
                "Cannot write {path}: {e}",
                path = crate::kernel::text::inert(path)
            ));
        }
        if let Err(e) = record_read_state(ctx, &abs, handle, None).await {
            return ToolResult::failure(format!(
                "Wrote {path}, but its read-state could not be recorded: {e}"
            ));
        }
        let on_disk = encoded.as_deref().unwrap_or(content.as_bytes());
        let n = on_disk.len();
        let unit = if n == 1 { "byte" } else { "bytes" };
        let text = format!("Saved {n} {unit} to {path}.");
        // The text face reads no record; a program gets the hash of what is now
        // on disk (written verbatim), which a later edit's expectSha256 takes.
        if !ctx.record_rows {
            return ToolResult::text(text);
        }
        let record = json!({
            "path": path,
            "bytes": n,
            "sha256": crate::kernel::digest::sha256_hex(on_disk),
        });
        crate::tools::text_and_record(text, record, false)
    }
}

/// `content` in the asked encoding: a named one (with the BOM the file had),
/// or with `auto` the existing file's own, detected. A character the
/// encoding lacks is refused before anything is written.
async fn encode_for_write(
    ctx: &ToolContext,
    abs: &str,
    path: &str,
    content: &str,
    choice: crate::tools::files::encoding::Choice,
) -> Result<Vec<u8>, String> {
    use crate::tools::files::encoding;
    let existing = ctx
        .fs
        .read_range(abs, 0, 64 * 1024)
        .await
        .ok()
        .map(|(b, _)| b);
    let (enc, bom) = match (choice, &existing) {
        (encoding::Choice::Named(e), Some(old)) => (e, encoding::decode(old, e, "named").bom),
        (encoding::Choice::Named(e), None) => (e, false),
        (encoding::Choice::Auto, Some(old)) => {
            let (e, how) = encoding::resolve(choice, old)?;
            (e, encoding::decode(old, e, how).bom)
        }
        (encoding::Choice::Auto, None) => {
            return Err(format!(
                "encoding auto keeps an existing file's encoding, and {path} does not exist yet; name the encoding."
            ));
        }
    };
    encoding::encode(content, enc, bom).map_err(|e| format!("Cannot write {path}: {e}"))
}

/// The `write` tool.
pub fn write_tool() -> DefinedTool {
    define_tool(Arc::new(WriteTool))
}
