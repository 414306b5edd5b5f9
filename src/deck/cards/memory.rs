//! `memory`: a working-memory note per session, for facts and decisions that must
//! survive a context that scrolls away. The note is one UTF-8 text file in the
//! session's folder (`memory.md`), changed under the state folder's lock and
//! replaced atomically, so concurrent appends lose nothing. A cap keeps it a note:
//! a change that would take it past [`MEMORY_CAP`] bytes is refused whole.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Effect, Seat, ToolMeta};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::kernel::input::Args;
use crate::kernel::text::plural;
use crate::kernel::{DefinedTool, Tool, ToolContext, ToolResult, define_tool};
use crate::state::StateDir;
use crate::tools::{clamp_for, text_and_record};

use super::session::session_rel;

/// The largest note, in bytes.
pub const MEMORY_CAP: usize = 32 * 1024;
const ACTIONS: [&str; 3] = ["read", "replace", "append"];

struct MemoryCard;

fn note_record(note: &str, path: &str) -> Value {
    json!({"content": note, "bytes": note.len(), "cap": MEMORY_CAP, "path": path})
}

/// The note, read without following a link (a checkout may carry the state
/// folder, and a link there would read, and then append to, any file).
fn read_note(file: &std::path::Path) -> Result<String, String> {
    match crate::state::read_file(file, 4 * MEMORY_CAP as u64) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| {
            format!(
                "memory: {} is not UTF-8 text; fix or delete it",
                file.display()
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(format!("memory could not read {}: {e}", file.display())),
    }
}

/// The `memory` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Card,
    effect: Effect::Records { idempotent: false },
    fields: FIELDS,
    description: "A note for this session that survives across turns: read, replace or append (content). At most 32 KiB.",
    output: Some(include_str!("memory.output.json")),
    ..ToolMeta::new(
        "memory",
        "Working memory",
        "Read, replace or append to the session's working-memory note.",
    )
};

/// `memory`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("action", Kind::Enum(&ACTIONS), "read, replace or append."),
    Field::new(
        "content",
        Kind::Text,
        "The new note, or the line to append.",
    ),
];

#[async_trait]
impl Tool for MemoryCard {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let args = Args::checked(&input);
        let action = match args.required_enum("action", &ACTIONS) {
            Ok(a) => a,
            Err(e) => return ToolResult::failure(e),
        };
        let content = match args.get("content") {
            None => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(other) => {
                return ToolResult::failure(crate::kernel::input::invalid(
                    "content", "a string", other,
                ));
            }
        };
        let state = StateDir::of(ctx);
        let rel = session_rel(ctx, "memory.md");
        let file = match state.checked(&rel) {
            Ok(file) => file,
            Err(e) => return ToolResult::failure(format!("memory: {e}")),
        };
        let shown = file.to_string_lossy().into_owned();
        if action == "read" {
            let note = if state.root().is_dir() {
                match state.locked(|| Ok(read_note(&file))) {
                    Ok(Ok(note)) => note,
                    Ok(Err(e)) => return ToolResult::failure(e),
                    Err(e) => return ToolResult::failure(format!("memory: {e}")),
                }
            } else {
                String::new()
            };
            let text = if note.is_empty() {
                "The memory note is empty.".to_string()
            } else {
                clamp_for(ctx, "memory", &note)
            };
            return text_and_record(text, note_record(&note, &shown), false);
        }
        let Some(content) = content else {
            return ToolResult::failure(format!(
                "Missing \"content\": {action} needs the text to {}.",
                if action == "replace" { "store" } else { "add" }
            ));
        };
        let outcome = state.locked(|| {
            let old = match read_note(&file) {
                Ok(old) => old,
                Err(e) => return Ok(Err(e)),
            };
            let new = if action == "replace" || old.is_empty() {
                content.to_string()
            } else if old.ends_with('\n') {
                format!("{old}{content}")
            } else {
                format!("{old}\n{content}")
            };
            if new.len() > MEMORY_CAP {
                return Ok(Err(format!(
                    "memory: the note would be {} bytes, past its cap of {MEMORY_CAP}; nothing was changed. Replace it with a shorter note, or keep long text in a file.",
                    new.len()
                )));
            }
            state.replace(&rel, new.as_bytes(), true)?;
            Ok(Ok(new))
        });
        match outcome {
            Ok(Ok(note)) => text_and_record(
                format!(
                    "{} the memory note ({} of {MEMORY_CAP}).",
                    if action == "replace" {
                        "Replaced"
                    } else {
                        "Appended to"
                    },
                    plural(note.len() as u64, "byte", "bytes")
                ),
                note_record(&note, &shown),
                false,
            ),
            Ok(Err(e)) => ToolResult::failure(e),
            Err(e) => ToolResult::failure(format!("memory could not write {shown}: {e}")),
        }
    }
}

/// The `memory` card.
pub fn memory_card() -> DefinedTool {
    define_tool(Arc::new(MemoryCard))
}
