//! `todo`: the deck's own checklist, distinct from `todo_set`/`todo_read` (its own
//! store and item shape). Items are `{task, state, weight}` with four states
//! (pending, active, done, dropped) shown as `[ ]` `[~]` `[x]` `[-]`; `set`
//! replaces the whole list. The list lives in the session's folder (`todo.json`)
//! and changes under the state lock.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Effect, Seat, ToolMeta};
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::kernel::input::{Args, invalid};
use crate::kernel::text::plural;
use crate::kernel::{DefinedTool, Tool, ToolContext, ToolResult, define_tool};
use crate::state::StateDir;
use crate::tools::{clamp_rows, record_with_rows, text_and_record};

use super::session::session_rel;

/// How a wrong `items` is refused.
const ITEMS_EXPECTED: &str = "an array of {task, state, weight} objects";
const ACTIONS: [&str; 2] = ["read", "set"];
const STATES: [&str; 4] = ["pending", "active", "done", "dropped"];
const WEIGHTS: [&str; 3] = ["low", "normal", "high"];

/// One checklist item as stored and returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeckTodo {
    pub task: String,
    pub state: String,
    pub weight: String,
}

fn glyph(state: &str) -> &'static str {
    match state {
        "active" => "[~]",
        "done" => "[x]",
        "dropped" => "[-]",
        _ => "[ ]",
    }
}

/// Validate `set`'s items: the first problem, naming its path, or the list.
fn parse_items(args: &Args<'_>) -> Result<Vec<DeckTodo>, String> {
    let entries = match args.get("items") {
        None => {
            return Err(format!(
                "Missing \"items\": set needs {ITEMS_EXPECTED} (the whole list; [] clears it)."
            ));
        }
        Some(Value::Array(entries)) => entries,
        Some(other) => return Err(invalid("items", ITEMS_EXPECTED, other)),
    };
    let mut items = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let path = format!("items[{i}]");
        let Value::Object(map) = entry else {
            return Err(invalid(&path, "an object {task, state, weight}", entry));
        };
        let item = Args::nested(map, path);
        let task = item.required_str("task")?;
        let state = item.required_enum("state", &STATES)?;
        let weight = item.opt_enum("weight", &WEIGHTS)?.unwrap_or("normal");
        items.push(DeckTodo {
            task: task.to_string(),
            state: state.to_string(),
            weight: weight.to_string(),
        });
    }
    Ok(items)
}

fn counts(items: &[DeckTodo]) -> Value {
    let n = |s: &str| items.iter().filter(|i| i.state == s).count();
    json!({"pending": n("pending"), "active": n("active"), "done": n("done"), "dropped": n("dropped")})
}

fn answer(ctx: &ToolContext, lead: &str, items: Vec<DeckTodo>) -> ToolResult {
    let c = counts(&items);
    let head = if items.is_empty() {
        format!("{lead}The checklist is empty.")
    } else {
        format!(
            "{lead}{}: {} done, {} active, {} pending, {} dropped.",
            plural(items.len() as u64, "item", "items"),
            c["done"],
            c["active"],
            c["pending"],
            c["dropped"]
        )
    };
    let rows: Vec<String> = items
        .iter()
        .map(|i| {
            let weight = match i.weight.as_str() {
                "high" => " (high)",
                "low" => " (low)",
                _ => "",
            };
            format!(
                "{} {}{weight}",
                glyph(&i.state),
                crate::kernel::text::inert(&i.task)
            )
        })
        .collect();
    let text = clamp_rows(ctx, "todo", &head, &rows, "");
    let mut record = serde_json::Map::new();
    record.insert("counts".into(), c);
    let rows: Vec<Value> = items
        .into_iter()
        .map(|i| serde_json::to_value(i).expect("items serialize"))
        .collect();
    let record = record_with_rows(record, "items", rows, ctx.budget.max_bytes);
    text_and_record(text, record, false)
}

struct TodoCard;

/// The `todo` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Card,
    effect: Effect::Records { idempotent: true },
    fields: FIELDS,
    description: "A checklist of {task, state, weight} items (with dropped and weights), apart from todo_set's: action read, or set (replace whole). Use one of the two.",
    output: Some(include_str!("todo.output.json")),
    ..ToolMeta::new(
        "todo",
        "Checklist",
        "Read or wholesale replace a checklist of weighted items with four states.",
    )
};

/// `todo`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("action", Kind::Enum(&ACTIONS), "read or set."),
    Field::new(
        "items",
        Kind::Objects {
            fields: &[
                Field::required("task", Kind::Name, ""),
                Field::required("state", Kind::Enum(&STATES), ""),
                Field::new("weight", Kind::Enum(&WEIGHTS), ""),
            ],
            expected: ITEMS_EXPECTED,
        },
        "set: the whole list, in order.",
    ),
];

#[async_trait]
impl Tool for TodoCard {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let args = Args::checked(&input);
        let action = match args.required_enum("action", &ACTIONS) {
            Ok(a) => a,
            Err(e) => return ToolResult::failure(e),
        };
        let state = StateDir::of(ctx);
        let rel = session_rel(ctx, "todo.json");
        if action == "read" {
            return match state.load::<Vec<DeckTodo>>(&rel) {
                Ok(items) => answer(ctx, "", items),
                Err(e) => ToolResult::failure(format!("todo could not read the checklist: {e}")),
            };
        }
        let items = match parse_items(&args) {
            Ok(items) => items,
            Err(e) => return ToolResult::failure(e),
        };
        if ctx.cancel.is_cancelled() {
            return ToolResult::failure("todo was cancelled before it changed anything.");
        }
        let stored = items.clone();
        match state.update(&rel, move |list: &mut Vec<DeckTodo>| *list = stored) {
            Ok(()) => answer(ctx, "Checklist set. ", items),
            Err(e) => ToolResult::failure(format!("todo could not save the checklist: {e}")),
        }
    }
}

/// The `todo` card.
pub fn todo_card() -> DefinedTool {
    define_tool(Arc::new(TodoCard))
}
