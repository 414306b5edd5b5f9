//! `todo_set` replaces the session's checklist with a validated list; `todo_read`
//! shows it and changes nothing. Both answer with the same rendering (a tally line,
//! then one `[ ]`/`[~]`/`[x]` line per item) followed by a JSON block of the items
//! and their counts, so a model reads the text and a script parses the JSON.
//!
//! The list lives behind `ctx.framework.todo` when a host installed a store there.
//! Without one (the library default) it lives in one module-global map keyed by
//! `ToolContext::context_id`, so each conversation that threads its own context gets
//! its own list, as the seed specifies; [`reset_todos`] clears that map.
//!
//! Validation goes item by item, and within an item in a fixed order (object, `id`,
//! `text`, `status`, `priority`, then uniqueness of `id`); the first problem is the
//! answer and nothing is stored.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::text::inert;
use crate::kernel::{Effect, Seat, SeedList, ToolMeta};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::kernel::input::{Args, invalid};
use crate::kernel::text::plural;
use crate::kernel::{DefinedTool, Tool, ToolContentBlock, ToolContext, ToolResult, define_tool};
pub use crate::kernel::{TodoItem, TodoPriority, TodoStatus, TodoStoreHandle};
use crate::tools::{clamp_rows, longest_fitting_prefix};

/// The fallback store: one list per context identity, for the life of the process.
static MEMORY: LazyLock<Mutex<HashMap<u64, Vec<TodoItem>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn memory() -> std::sync::MutexGuard<'static, HashMap<u64, Vec<TodoItem>>> {
    MEMORY.lock().unwrap_or_else(|p| p.into_inner())
}

/// Clear every list of the in-process fallback store (a host-installed store is
/// not touched).
pub fn reset_todos() {
    memory().clear();
}

fn load(ctx: &ToolContext) -> std::io::Result<Vec<TodoItem>> {
    match &ctx.framework.todo {
        Some(store) => store.get(),
        None => Ok(memory().get(&ctx.context_id).cloned().unwrap_or_default()),
    }
}

fn save(ctx: &ToolContext, items: Vec<TodoItem>) -> std::io::Result<()> {
    match &ctx.framework.todo {
        Some(store) => store.replace(items),
        None => {
            let mut lists = memory();
            if items.is_empty() {
                lists.remove(&ctx.context_id);
            } else {
                lists.insert(ctx.context_id, items);
            }
            Ok(())
        }
    }
}

const ITEMS_EXPECTED: &str = "an array of {id, text, status} objects";
const STATUS_NAMES: [&str; 3] = ["pending", "active", "done"];
const PRIORITY_NAMES: [&str; 3] = ["low", "normal", "high"];

/// Validate `todo_set`'s input into the list to store, or the first problem found.
pub fn parse_items(input: &Value) -> Result<Vec<TodoItem>, String> {
    let args = Args::new(TODO_SET.name, input)?;
    let entries = match args.get("items") {
        None => return Err(format!("Missing \"items\": expected {ITEMS_EXPECTED}.")),
        Some(Value::Array(entries)) => entries,
        Some(other) => return Err(invalid("items", ITEMS_EXPECTED, other)),
    };
    let mut items = Vec::with_capacity(entries.len());
    let mut seen: HashMap<&str, usize> = HashMap::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        let path = format!("items[{i}]");
        let Value::Object(map) = entry else {
            return Err(invalid(&path, "an object with id, text and status", entry));
        };
        let item = Args::nested(map, path);
        let id = item.required_str("id")?;
        let text = item.required_str("text")?;
        let status = item.required_enum("status", &STATUS_NAMES)?;
        let priority = item.opt_enum("priority", &PRIORITY_NAMES)?;
        if let Some(first) = seen.insert(id, i) {
            return Err(format!(
                "Invalid \"items[{i}].id\": {} is already used by items[{first}]; ids must be unique.",
                Value::String(id.to_string())
            ));
        }
        items.push(TodoItem {
            id: id.to_string(),
            text: text.to_string(),
            status: TodoStatus::from_name(status).expect("validated against STATUS_NAMES"),
            priority: priority
                .map(|p| TodoPriority::from_name(p).expect("validated against PRIORITY_NAMES")),
        });
    }
    Ok(items)
}

/// How many items stand at each status: (pending, active, done).
fn counts(items: &[TodoItem]) -> (u64, u64, u64) {
    items
        .iter()
        .fold((0, 0, 0), |(p, a, d), item| match item.status {
            TodoStatus::Pending => (p + 1, a, d),
            TodoStatus::Active => (p, a + 1, d),
            TodoStatus::Done => (p, a, d + 1),
        })
}

/// The checklist as both tools show it: `The checklist is empty.`, or a tally line
/// (`3 items: 1 done, 1 active, 1 pending.`) and one line per item in stored order
/// (`[x] id: text`, with ` (high)`/` (low)` for those priorities). No final newline.
pub fn render_checklist(items: &[TodoItem]) -> String {
    let (head, rows) = checklist_lines(items);
    std::iter::once(head)
        .chain(rows)
        .collect::<Vec<_>>()
        .join("\n")
}

/// [`render_checklist`] as its head (the tally, or the empty sentence) and its item
/// lines, so a clamp can cut between items.
fn checklist_lines(items: &[TodoItem]) -> (String, Vec<String>) {
    if items.is_empty() {
        return ("The checklist is empty.".to_string(), Vec::new());
    }
    let (pending, active, done) = counts(items);
    let head = format!(
        "{}: {done} done, {active} active, {pending} pending.",
        plural(items.len() as u64, "item", "items")
    );
    let rows = items
        .iter()
        .map(|item| {
            let mark = match item.status {
                TodoStatus::Pending => "[ ]",
                TodoStatus::Active => "[~]",
                TodoStatus::Done => "[x]",
            };
            let weight = match item.priority {
                Some(TodoPriority::High) => " (high)",
                Some(TodoPriority::Low) => " (low)",
                Some(TodoPriority::Normal) | None => "",
            };
            // Control characters escaped: an item cannot forge a line or drive
            // a terminal (see kernel::text::inert).
            format!("{mark} {}: {}{weight}", inert(&item.id), inert(&item.text))
        })
        .collect();
    (head, rows)
}

/// The JSON block both tools return: `{"items": [...], "counts": {...}}`.
pub fn checklist_json(items: &[TodoItem]) -> Value {
    let (pending, active, done) = counts(items);
    json!({
        "items": items,
        "counts": {"pending": pending, "active": active, "done": done},
    })
}

/// [`checklist_json`] within `max_bytes` of compact JSON: when the whole list does
/// not fit, the longest prefix of items that does, and `"omitted": K` after
/// `counts` (which still count every item). Nothing else bounds a list a caller
/// made long, and the JSON block must fit the output budget as the text does.
pub fn bounded_checklist_json(items: &[TodoItem], max_bytes: usize) -> Value {
    let whole = checklist_json(items);
    if whole.to_string().len() <= max_bytes {
        return whole;
    }
    let with_prefix = |k: usize| {
        let mut v = checklist_json(&items[..k]);
        v["counts"] = whole["counts"].clone();
        v["omitted"] = json!(items.len() - k);
        v
    };
    let k = longest_fitting_prefix(items.len(), |k| {
        with_prefix(k).to_string().len() <= max_bytes
    });
    with_prefix(k)
}

/// The answer both tools give: the checklist for people, cut between items when
/// the budget is short (`lead` goes before it; an empty list shows `lead` alone when
/// there is one), and the bounded JSON block.
fn checklist_result(
    ctx: &ToolContext,
    tool: &'static str,
    lead: &str,
    items: &[TodoItem],
) -> ToolResult {
    let (head, rows) = checklist_lines(items);
    let head = if items.is_empty() && !lead.is_empty() {
        lead.to_string()
    } else {
        format!("{lead}{head}")
    };
    ToolResult {
        content: vec![
            ToolContentBlock::Text(clamp_rows(ctx, tool, &head, &rows, "")),
            ToolContentBlock::Json(bounded_checklist_json(items, ctx.budget.max_bytes)),
        ],
        is_error: false,
    }
}

struct TodoSetTool;

/// The `todo_set` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const TODO_SET: ToolMeta = ToolMeta {
    seat: Seat::Builtin(SeedList::Mutating),
    effect: Effect::Records { idempotent: true },
    fields: TODO_SET_FIELDS,
    description: "Replace the session's checklist: items {id, text, status, priority?}; [] clears it.",
    output: Some(include_str!("checklist.output.json")),
    ..ToolMeta::new(
        "todo_set",
        "Update checklist",
        "Replace the session's checklist.",
    )
};

/// `todo_set`'s input fields: its schema and the check before it runs.
const TODO_SET_FIELDS: &[Field] = &[Field::required(
    "items",
    Kind::Objects {
        fields: &[
            Field::required("id", Kind::Name, ""),
            Field::required("text", Kind::Name, ""),
            Field::required("status", Kind::Enum(&["pending", "active", "done"]), ""),
            Field::new("priority", Kind::Enum(&["low", "normal", "high"]), ""),
        ],
        expected: ITEMS_EXPECTED,
    },
    "The whole list, in order.",
)];

#[async_trait]
impl Tool for TodoSetTool {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&TODO_SET)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let items = match parse_items(&input) {
            Ok(items) => items,
            Err(e) => return ToolResult::failure(e),
        };
        if ctx.cancel.is_cancelled() {
            return ToolResult::failure("todo_set was cancelled before anything was saved.");
        }
        if let Err(e) = save(ctx, items.clone()) {
            return ToolResult::failure(format!("Cannot save the checklist: {e}"));
        }
        let lead = if items.is_empty() {
            "Checklist cleared."
        } else {
            "Checklist updated.\n"
        };
        checklist_result(ctx, "todo_set", lead, &items)
    }
}

struct TodoReadTool;

/// The `todo_read` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const TODO_READ: ToolMeta = ToolMeta {
    seat: Seat::Builtin(SeedList::Mutating),
    description: "Show the session's checklist (todo_set writes it).",
    output: Some(include_str!("checklist.output.json")),
    ..ToolMeta::new(
        "todo_read",
        "Read checklist",
        "Show the session's checklist.",
    )
};

#[async_trait]
impl Tool for TodoReadTool {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&TODO_READ)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        if let Err(e) = Args::new(TODO_READ.name, &input) {
            return ToolResult::failure(e);
        }
        match load(ctx) {
            Ok(items) => checklist_result(ctx, "todo_read", "", &items),
            Err(e) => ToolResult::failure(format!("Cannot read the checklist: {e}")),
        }
    }
}

/// The `todo_set` tool.
pub fn todo_set_tool() -> DefinedTool {
    define_tool(Arc::new(TodoSetTool))
}

/// The `todo_read` tool.
pub fn todo_read_tool() -> DefinedTool {
    define_tool(Arc::new(TodoReadTool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::local::make_local_context;
    use crate::kernel::{CancellationToken, Framework};
    use crate::state::todos::MemoryTodoStore;

    fn err(input: Value) -> String {
        parse_items(&input).unwrap_err()
    }

    fn item(id: &str, text: &str, status: TodoStatus, priority: Option<TodoPriority>) -> TodoItem {
        TodoItem {
            id: id.into(),
            text: text.into(),
            status,
            priority,
        }
    }

    #[test]
    fn the_items_array_itself() {
        assert_eq!(
            err(json!("x")),
            "Invalid input for todo_set: expected a JSON object of named fields, got the string \"x\"."
        );
        assert_eq!(
            err(json!({})),
            "Missing \"items\": expected an array of {id, text, status} objects."
        );
        assert_eq!(
            err(json!({"items": null})),
            "Missing \"items\": expected an array of {id, text, status} objects."
        );
        assert_eq!(
            err(json!({"items": "[]"})),
            "Invalid \"items\": expected an array of {id, text, status} objects, got the string \"[]\"."
        );
        assert_eq!(
            err(json!({"items": {"id": "a"}})),
            "Invalid \"items\": expected an array of {id, text, status} objects, got an object."
        );
        assert_eq!(parse_items(&json!({"items": []})).unwrap(), vec![]);
    }

    #[test]
    fn each_field_is_named_by_its_path() {
        let ok = |id: &str| json!({"id": id, "text": "t", "status": "done"});
        let cases = [
            (
                json!([ok("a"), ok("b"), 3]),
                "Invalid \"items[2]\": expected an object with id, text and status, got the number 3.",
            ),
            (
                json!([["a"]]),
                "Invalid \"items[0]\": expected an object with id, text and status, got an array.",
            ),
            (
                json!([{"text": "t", "status": "done"}]),
                "Missing \"items[0].id\": expected a non-empty string.",
            ),
            (
                json!([{"id": "", "text": "t", "status": "done"}]),
                "Invalid \"items[0].id\": expected a non-empty string, got an empty string.",
            ),
            (
                json!([{"id": 7, "text": "t", "status": "done"}]),
                "Invalid \"items[0].id\": expected a non-empty string, got the number 7.",
            ),
            (
                json!([{"id": "a", "status": "done"}]),
                "Missing \"items[0].text\": expected a non-empty string.",
            ),
            (
                json!([{"id": "a", "text": "", "status": "done"}]),
                "Invalid \"items[0].text\": expected a non-empty string, got an empty string.",
            ),
            (
                json!([{"id": "a", "text": "t", "status": "done"}, {"id": "b", "text": "t"}]),
                "Missing \"items[1].status\": expected one of \"pending\", \"active\", \"done\".",
            ),
            (
                json!([{"id": "a", "text": "t", "status": "done"}, {"id": "b", "text": "t", "status": null}]),
                "Missing \"items[1].status\": expected one of \"pending\", \"active\", \"done\".",
            ),
            (
                json!([{"id": "a", "text": "t", "status": "done"}, {"id": "b", "text": "t", "status": "doing"}]),
                "Invalid \"items[1].status\": expected one of \"pending\", \"active\", \"done\", got the string \"doing\".",
            ),
            (
                json!([{"id": "a", "text": "t", "status": "Done"}]),
                "Invalid \"items[0].status\": expected one of \"pending\", \"active\", \"done\", got the string \"Done\".",
            ),
            (
                json!([{"id": "a", "text": "t", "status": "done", "priority": "urgent"}]),
                "Invalid \"items[0].priority\": expected one of \"low\", \"normal\", \"high\", got the string \"urgent\".",
            ),
            (
                json!([{"id": "a", "text": "t", "status": "done", "priority": 1}]),
                "Invalid \"items[0].priority\": expected one of \"low\", \"normal\", \"high\", got the number 1.",
            ),
        ];
        for (items, want) in cases {
            assert_eq!(err(json!({ "items": items })), want, "{items}");
        }
    }

    #[test]
    fn duplicate_ids_name_the_first_use() {
        let it = |id: &str| json!({"id": id, "text": "t", "status": "pending"});
        assert_eq!(
            err(json!({"items": [it("z"), it("a"), it("b"), it("a"), it("a")]})),
            "Invalid \"items[3].id\": \"a\" is already used by items[1]; ids must be unique."
        );
    }

    #[test]
    fn validation_order_first_problem_wins() {
        // Within an item: id, then text, then status, then priority, then uniqueness.
        assert_eq!(
            err(json!({"items": [{"status": "bad", "priority": "bad"}]})),
            "Missing \"items[0].id\": expected a non-empty string."
        );
        assert_eq!(
            err(json!({"items": [{"id": "a", "status": "bad"}]})),
            "Missing \"items[0].text\": expected a non-empty string."
        );
        assert_eq!(
            err(json!({"items": [{"id": "a", "text": "t", "status": "bad", "priority": "bad"}]})),
            "Invalid \"items[0].status\": expected one of \"pending\", \"active\", \"done\", got the string \"bad\"."
        );
        assert_eq!(
            err(json!({"items": [
                {"id": "a", "text": "t", "status": "done"},
                {"id": "a", "text": "t", "status": "done", "priority": "bad"}
            ]})),
            "Invalid \"items[1].priority\": expected one of \"low\", \"normal\", \"high\", got the string \"bad\"."
        );
        // An earlier item's problem comes before a later item's.
        assert_eq!(
            err(json!({"items": [
                {"id": "a", "text": "t", "status": "done", "priority": "bad"},
                "not an object"
            ]})),
            "Invalid \"items[0].priority\": expected one of \"low\", \"normal\", \"high\", got the string \"bad\"."
        );
    }

    #[test]
    fn valid_items_keep_their_order_and_drop_unknown_keys() {
        let items = parse_items(&json!({"items": [
            {"id": "b", "text": "second", "status": "active", "priority": "high", "note": "x"},
            {"id": "a", "text": "first", "status": "pending", "priority": null},
            {"id": "c", "text": "third", "status": "done", "priority": "normal"},
        ], "extra": true}))
        .unwrap();
        assert_eq!(
            items,
            vec![
                item("b", "second", TodoStatus::Active, Some(TodoPriority::High)),
                item("a", "first", TodoStatus::Pending, None),
                item("c", "third", TodoStatus::Done, Some(TodoPriority::Normal)),
            ]
        );
    }

    #[test]
    fn the_json_block_keeps_the_longest_prefix_that_fits() {
        let items: Vec<TodoItem> = (0..100)
            .map(|i| TodoItem {
                id: format!("i{i}"),
                text: "x".repeat(40),
                status: TodoStatus::Pending,
                priority: None,
            })
            .collect();
        let whole = checklist_json(&items);
        assert_eq!(bounded_checklist_json(&items, usize::MAX), whole);
        for max in [0, 50, 200, 1000, 4000] {
            let v = bounded_checklist_json(&items, max);
            let shown = v["items"].as_array().unwrap().len();
            assert_eq!(v["omitted"], json!(100 - shown));
            assert_eq!(v["counts"]["pending"], json!(100));
            assert_eq!(
                v["items"].as_array().unwrap()[..],
                whole["items"].as_array().unwrap()[..shown]
            );
            if shown > 0 {
                assert!(v.to_string().len() <= max, "{max}: {}", v.to_string().len());
            }
            // One more item would not have fitted.
            let mut more = checklist_json(&items[..shown + 1]);
            more["counts"] = whole["counts"].clone();
            more["omitted"] = json!(100 - shown - 1);
            assert!(more.to_string().len() > max);
        }
    }

    #[test]
    fn rendering() {
        assert_eq!(render_checklist(&[]), "The checklist is empty.");
        let items = vec![
            item("a", "Write the parser", TodoStatus::Done, None),
            item("b", "Test it", TodoStatus::Active, Some(TodoPriority::High)),
            item("c", "Ship", TodoStatus::Pending, Some(TodoPriority::Normal)),
            item("d", "Tidy up", TodoStatus::Pending, Some(TodoPriority::Low)),
        ];
        assert_eq!(
            render_checklist(&items),
            "4 items: 1 done, 1 active, 2 pending.\n[x] a: Write the parser\n[~] b: Test it (high)\n[ ] c: Ship\n[ ] d: Tidy up (low)"
        );
        assert_eq!(
            render_checklist(&items[2..3]),
            "1 item: 0 done, 0 active, 1 pending.\n[ ] c: Ship"
        );
        // One line per item: a newline or an escape in a text is shown escaped,
        // so an item cannot forge a line of the answer or drive a terminal (the
        // JSON record keeps the text as it was set).
        assert_eq!(
            render_checklist(&[item("m", "two\nlines\x1b[2J", TodoStatus::Pending, None)]),
            "1 item: 0 done, 0 active, 1 pending.\n[ ] m: two\\nlines\\x1b[2J"
        );
        assert_eq!(
            checklist_json(&items[..2]).to_string(),
            r#"{"items":[{"id":"a","text":"Write the parser","status":"done"},{"id":"b","text":"Test it","status":"active","priority":"high"}],"counts":{"pending":0,"active":1,"done":1}}"#
        );
    }

    fn text_of(result: &ToolResult) -> &str {
        match &result.content[0] {
            ToolContentBlock::Text(t) => t,
            other => panic!("expected text, got {other:?}"),
        }
    }

    // The fallback store is one process-wide map, so everything that touches it
    // (including reset_todos, which clears it) runs in this one test.
    #[tokio::test]
    async fn the_fallback_store_keeps_one_list_per_context() {
        let set = todo_set_tool();
        let read = todo_read_tool();
        let one = make_local_context("/tmp", None, None, None);
        let two = make_local_context("/tmp", None, None, None);
        let items = json!({"items": [{"id": "a", "text": "x", "status": "active"}]});
        let r = set.run_result(items, &one).await;
        assert!(!r.is_error, "{r:?}");
        assert_eq!(
            text_of(&r),
            "Checklist updated.\n1 item: 0 done, 1 active, 0 pending.\n[~] a: x"
        );
        let r = read.run_result(json!({}), &one).await;
        assert_eq!(
            text_of(&r),
            "1 item: 0 done, 1 active, 0 pending.\n[~] a: x"
        );
        assert_eq!(r.content.len(), 2);
        // Same identity under another cancel token: same list.
        let same = one.with_cancel(CancellationToken::new());
        let r = read.run_result(json!({}), &same).await;
        assert!(text_of(&r).starts_with("1 item:"));
        // Another context: its own (empty) list.
        let r = read.run_result(json!({}), &two).await;
        assert_eq!(text_of(&r), "The checklist is empty.");
        assert_eq!(
            r.content[1],
            ToolContentBlock::Json(
                json!({"items": [], "counts": {"pending": 0, "active": 0, "done": 0}})
            )
        );
        // A refused set stores nothing.
        let r = set
            .run_result(json!({"items": [{"id": "b", "text": "y"}]}), &one)
            .await;
        assert!(r.is_error);
        let r = read.run_result(json!({}), &one).await;
        assert!(text_of(&r).ends_with("[~] a: x"));
        // [] clears.
        let r = set.run_result(json!({"items": []}), &two).await;
        assert_eq!(text_of(&r), "Checklist cleared.");
        // reset_todos clears every list.
        reset_todos();
        let r = read.run_result(json!({}), &one).await;
        assert_eq!(text_of(&r), "The checklist is empty.");
    }

    #[tokio::test]
    async fn an_installed_store_is_shared_by_the_contexts_that_carry_it() {
        let store: Arc<dyn TodoStoreHandle> = Arc::new(MemoryTodoStore::default());
        let framework = Framework {
            todo: Some(store.clone()),
            ..Default::default()
        };
        let one = make_local_context("/tmp", None, None, Some(framework.clone()));
        let two = make_local_context("/tmp", None, None, Some(framework));
        let input = json!({"items": [{"id": "a", "text": "x", "status": "done"}]});
        assert!(!todo_set_tool().run_result(input, &one).await.is_error);
        let r = todo_read_tool().run_result(json!({}), &two).await;
        assert_eq!(
            text_of(&r),
            "1 item: 1 done, 0 active, 0 pending.\n[x] a: x"
        );
        assert_eq!(store.get().unwrap().len(), 1);
    }

    struct Broken;
    impl TodoStoreHandle for Broken {
        fn get(&self) -> std::io::Result<Vec<TodoItem>> {
            Err(std::io::Error::other(
                "state file /x/todos/s.json is corrupt",
            ))
        }
        fn replace(&self, _: Vec<TodoItem>) -> std::io::Result<()> {
            Err(std::io::Error::other(
                "state file /x/todos/s.json is corrupt",
            ))
        }
    }

    #[tokio::test]
    async fn a_failing_store_is_an_error_result() {
        let framework = Framework {
            todo: Some(Arc::new(Broken)),
            ..Default::default()
        };
        let ctx = make_local_context("/tmp", None, None, Some(framework));
        let r = todo_read_tool().run_result(json!({}), &ctx).await;
        assert!(r.is_error);
        assert_eq!(
            text_of(&r),
            "Cannot read the checklist: state file /x/todos/s.json is corrupt"
        );
        let r = todo_set_tool().run_result(json!({"items": []}), &ctx).await;
        assert!(r.is_error);
        assert_eq!(
            text_of(&r),
            "Cannot save the checklist: state file /x/todos/s.json is corrupt"
        );
    }

    #[tokio::test]
    async fn todo_read_refuses_a_non_object_input() {
        let ctx = make_local_context("/tmp", None, None, None);
        let r = todo_read_tool().run_result(json!(5), &ctx).await;
        assert!(r.is_error);
        assert_eq!(
            text_of(&r),
            "Invalid input for todo_read: expected a JSON object of named fields, got the number 5."
        );
    }
}
