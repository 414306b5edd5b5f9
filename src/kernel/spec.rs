//! The authoring shape of a tool: the [`Tool`] trait a tool implements, and the one
//! adapter, [`define_tool`], that supplies everything else uniformly (descriptor,
//! input coercion, the cancel pre-flight, outcome projection, and a panic net).
//!
//! A tool author writes only `run`; a failure is an `is_error` [`ToolResult`], never
//! an `Err` or a panic. Should a tool panic anyway, `invoke` turns it into an
//! `is_error` outcome so one bad input can never take a host (or a batch stream) down.

use std::any::Any;
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use futures_util::FutureExt;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::backends::{Fs, Shell};
use super::contract::{JsonSchema, ToolCall, ToolDescriptor, ToolOutcome};
use super::output::OutputBudget;
use super::root::Root;
use super::write_guard::WriteGuard;

/// Where a host takes a listing tool's rows as they are found, in their final
/// order, instead of in the answer (see [`ToolContext::rows`]): a shell pipe
/// reading every line of a large tree, which would otherwise be held whole.
pub trait RowSink: Send + Sync {
    /// One row, without its line end.
    fn row(&self, row: &str) -> std::io::Result<()>;
    /// Several rows at once, each ending with `\n` (one file's, say): one call
    /// instead of one a row.
    fn rows(&self, rows: &str) -> std::io::Result<()> {
        rows.lines().try_for_each(|row| self.row(row))
    }
    /// Everything written so far reaches the reader (before the summary does).
    fn flush(&self) -> std::io::Result<()>;
}

/// A tool's output schema from its JSON text (the `*.output.json` file beside
/// the tool, `include_str!`ed): kept as text rather than built by `json!`, whose
/// expansion is code for every key and cost the shipping build more than its 12 MB
/// allowed; parsed only when a schema is asked for (`describe`, `schema`, the MCP
/// server's list). tests/it/output_schemas.rs parses and checks every one.
pub fn schema_text(text: &'static str) -> JsonSchema {
    serde_json::from_str(text).expect("a tool's output schema file is valid JSON")
}

/// The declarative behaviour of one tool.
#[async_trait]
pub trait Tool: Send + Sync {
    /// The wire name: the descriptor's, for a tool that declares one.
    fn name(&self) -> &str {
        self.meta().map_or("", |m| m.name)
    }
    /// What a model is told: the descriptor's, for a tool that declares one.
    fn description(&self) -> &str {
        self.meta().map_or("", |m| m.description)
    }
    /// The input's JSON Schema: the descriptor's field table's, for a tool
    /// that declares one (see [`super::fields`]).
    fn parameters(&self) -> JsonSchema {
        self.meta().map_or_else(
            || serde_json::json!({"type": "object", "properties": {}}),
            super::meta::ToolMeta::parameters,
        )
    }
    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult;
    /// Whether an input key `parameters` does not name is refused before `run`
    /// (see [`super::input::unknown_keys`]). False only for a tool whose schema
    /// is someone else's to enforce (a tool grafted from an MCP server).
    fn strict_input(&self) -> bool {
        true
    }
    /// The JSON Schema (draft 2020-12) of what a successful call gives a
    /// program: the projection of its result as [`program_view`] shows it (the
    /// record of a `[text, json]` answer, or a lone JSON block's value). `None`
    /// when the answer is text (a JSON string), or the shape is someone else's
    /// (a tool grafted from an MCP server). Published by `describe`/`schema`
    /// and as MCP's `outputSchema`; docs/json.md describes every record.
    fn output_schema(&self) -> Option<JsonSchema> {
        self.meta().and_then(|m| m.output).map(schema_text)
    }
    /// The tool's descriptor, when it declares one: its field table is then
    /// checked before `run` (see [`super::fields::check`]), so `run` meets only
    /// input of the declared types. `None` for a tool that checks its own (a
    /// grafted MCP tool, a test's stand-in).
    fn meta(&self) -> Option<&'static super::meta::ToolMeta> {
        None
    }
}

/// One unit of a tool's result.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolContentBlock {
    Text(String),
    Json(Value),
}

impl ToolContentBlock {
    /// The block as its wire object: `{"kind":"text","text":…}` or
    /// `{"kind":"json","value":…}`.
    pub fn to_value(&self) -> Value {
        match self {
            ToolContentBlock::Text(text) => json!({ "kind": "text", "text": text }),
            ToolContentBlock::Json(value) => json!({ "kind": "json", "value": value }),
        }
    }

    /// The block a [`Self::to_value`] object stands for; `None` for anything else.
    pub fn from_value(value: &Value) -> Option<Self> {
        match value.get("kind")?.as_str()? {
            "text" => Some(ToolContentBlock::Text(
                value.get("text")?.as_str()?.to_string(),
            )),
            "json" => Some(ToolContentBlock::Json(value.get("value")?.clone())),
            _ => None,
        }
    }
}

/// What a tool's `run` returns.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    pub content: Vec<ToolContentBlock>,
    pub is_error: bool,
}

impl ToolResult {
    /// A successful single text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ToolContentBlock::Text(text.into())],
            is_error: false,
        }
    }

    /// A failed single text block.
    pub fn failure(message: impl Into<String>) -> Self {
        Self {
            content: vec![ToolContentBlock::Text(message.into())],
            is_error: true,
        }
    }

    /// A successful single JSON block.
    pub fn json(value: Value) -> Self {
        Self {
            content: vec![ToolContentBlock::Json(value)],
            is_error: false,
        }
    }

    /// Fold the blocks into one value: a lone text is a JSON string, a lone JSON
    /// block its value, anything else an array of kind-tagged objects.
    pub fn project(&self) -> Value {
        match self.content.as_slice() {
            [ToolContentBlock::Text(text)] => Value::String(text.clone()),
            [ToolContentBlock::Json(value)] => value.clone(),
            blocks => Value::Array(blocks.iter().map(ToolContentBlock::to_value).collect()),
        }
    }
}

/// A JSON block that is an MCP content block other than text, in its wire form
/// (what a grafted MCP tool's image, audio, embedded resource or resource link
/// arrives as): its kind, or `None` for any other JSON (a record). The shapes are
/// the MCP schema's required fields, so a tool's own record is never taken for one.
pub fn media_kind(value: &Value) -> Option<&'static str> {
    let obj = value.as_object()?;
    let has_str = |k: &str| obj.get(k).is_some_and(Value::is_string);
    match obj.get("type")?.as_str()? {
        "image" if has_str("data") && has_str("mimeType") => Some("image"),
        "audio" if has_str("data") && has_str("mimeType") => Some("audio"),
        "resource"
            if obj
                .get("resource")
                .and_then(|r| r.get("uri"))
                .is_some_and(Value::is_string) =>
        {
            Some("resource")
        }
        "resource_link" if has_str("uri") && has_str("name") => Some("resource_link"),
        _ => None,
    }
}

/// What a program reads of a projected output (the command line's `--format json`,
/// `batch`): a tool that answers with text for people and one JSON block holding
/// the same answer as a record (`[text, json]`) gives the record alone, so a
/// script reads fields instead of parsing prose; any other output is unchanged.
/// An output holding MCP content (see [`media_kind`]) is unchanged too: an image
/// between two texts is content, not the texts' record, and every block is kept.
/// The MCP face keeps both (text content and `structuredContent`).
pub fn program_view(output: &Value) -> Value {
    let Value::Array(items) = output else {
        return output.clone();
    };
    if items.iter().any(|b| {
        b.get("kind") == Some(&json!("json")) && b.get("value").and_then(media_kind).is_some()
    }) {
        return output.clone();
    }
    let kind = |v: &Value| v.get("kind").and_then(Value::as_str).map(str::to_string);
    let blocks: Option<Vec<String>> = items.iter().map(kind).collect();
    let Some(kinds) = blocks else {
        return output.clone();
    };
    let jsons: Vec<&Value> = items
        .iter()
        .zip(&kinds)
        .filter(|(_, k)| k.as_str() == "json")
        .filter_map(|(v, _)| v.get("value"))
        .collect();
    let texts = kinds.iter().filter(|k| k.as_str() == "text").count();
    match (jsons.as_slice(), texts) {
        ([record], t) if t > 0 && t + 1 == kinds.len() => (*record).clone(),
        _ => output.clone(),
    }
}

/// The string key of the read-state handle, kept for wire parity with other editions.
pub const READ_STATE_HANDLE_KEY: &str = "readState";

/// What the read-before-edit gate remembers about one file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReadStateRecord {
    /// Modification time in whole epoch milliseconds (floored).
    pub mtime_ms: u64,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_hash: Option<String>,
    /// When the read happened, epoch milliseconds.
    pub read_at: u64,
}

/// The store behind the read-before-edit gate. A host that installs one on
/// `Framework::read_state` turns the gate on; errors name the backing file.
pub trait ReadStateHandle: Send + Sync {
    fn get(&self, path: &str) -> std::io::Result<Option<ReadStateRecord>>;
    fn set(&self, path: &str, record: ReadStateRecord) -> std::io::Result<()>;
    fn has(&self, path: &str) -> std::io::Result<bool> {
        Ok(self.get(path)?.is_some())
    }
}

// The todo checklist's item type and store handle live here, beside the gate's,
// rather than in `tools::planning`: `Framework` is part of the kernel, and the kernel
// must not depend on a concrete tool module (tools are written against the kernel,
// never the other way round). The state folder's store (`state::todos`) implements
// the handle against these types too, so it needs no tool module either. The
// planning module re-exports them, so `tools::planning::todo::TodoItem` is the same
// type.

/// Where a checklist item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TodoStatus {
    Pending,
    Active,
    Done,
}

impl TodoStatus {
    /// Every status, in the order the input schema and messages list them.
    pub const ALL: [TodoStatus; 3] = [Self::Pending, Self::Active, Self::Done];

    /// The wire name: `pending`, `active` or `done`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Active => "active",
            Self::Done => "done",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// How much a checklist item matters (absent reads as normal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TodoPriority {
    Low,
    Normal,
    High,
}

impl TodoPriority {
    /// Every priority, in the order the input schema and messages list them.
    pub const ALL: [TodoPriority; 3] = [Self::Low, Self::Normal, Self::High];

    /// The wire name: `low`, `normal` or `high`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Normal => "normal",
            Self::High => "high",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

/// One entry of a session's checklist, as `todo_set` stores it and `todo_read`
/// shows it. `priority` is left out of the JSON when absent.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TodoItem {
    pub id: String,
    pub text: String,
    pub status: TodoStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<TodoPriority>,
}

/// The store behind `todo_set`/`todo_read`. A host that installs one on
/// `Framework::todo` decides where checklists live (the command line keeps one per
/// session under the state folder); without one, the tools keep a list per
/// `ToolContext::context_id` in process memory. Errors name the backing file.
pub trait TodoStoreHandle: Send + Sync {
    /// The stored list, in order (empty when nothing was ever stored).
    fn get(&self) -> std::io::Result<Vec<TodoItem>>;
    /// Replace the whole list.
    fn replace(&self, items: Vec<TodoItem>) -> std::io::Result<()>;
}

/// Optional handles a host injects into every context. An absent handle turns the
/// corresponding discipline off (the gate) or falls back to an in-process default
/// (the todo store, the deck cards' stores).
#[derive(Clone, Default)]
pub struct Framework {
    pub read_state: Option<Arc<dyn ReadStateHandle>>,
    pub todo: Option<Arc<dyn TodoStoreHandle>>,
    /// The session whose state the deck's cards keep under `.indus-process/`
    /// (`--session`); `None` is the session `default`.
    pub session: Option<String>,
}

impl fmt::Debug for Framework {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Framework")
            .field("read_state", &self.read_state.as_ref().map(|_| "<handle>"))
            .field("todo", &self.todo.as_ref().map(|_| "<handle>"))
            .field("session", &self.session)
            .finish()
    }
}

static NEXT_CONTEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Everything a tool's `run` receives besides its input.
#[derive(Clone)]
pub struct ToolContext {
    /// Stable identity of this context (kept by `with_cancel`).
    pub context_id: u64,
    pub cwd: String,
    pub fs: Arc<dyn Fs>,
    pub shell: Arc<dyn Shell>,
    pub cancel: CancellationToken,
    pub budget: OutputBudget,
    pub framework: Framework,
    /// The folder every tool-supplied path must stay inside (`--root`); `None`
    /// confines nothing. The `fs` of a confined context enforces the same root.
    pub root: Option<Arc<Root>>,
    /// The state folder's own path, when it is not `<cwd>/.indus-process`: a
    /// context whose `fs` and `shell` reach another machine keeps its state here,
    /// keyed by that machine.
    pub state_root: Option<std::path::PathBuf>,
    /// The target `fs` and `shell` reach, when it is not this machine
    /// (`ssh:web1`, `container:api`).
    pub remote: Option<String>,
    /// Whether the caller reads the rows of a tool's record (JSON output, batch,
    /// MCP, `-0`). The command line's text face prints the text and reads only
    /// a record's counts (for its exit status), so a tool may leave the rows out
    /// and skip what they cost (`find` stats every listed file for its size).
    /// True unless a host says otherwise.
    pub record_rows: bool,
    /// Whether the host hands every row to a reader that wants them all, as rg's
    /// and fd's do (the command line's text face on a pipe, or `-0`): a tool that
    /// lists rows then has no default row limit and no ceiling on an asked one,
    /// and the host's budget (unbounded unless asked) is the only cut. False for
    /// the agents' faces, whose context windows the seeds' limits protect.
    pub unbounded_rows: bool,
    /// Whether the answer goes to an agent (JSON output, batch, MCP, `--exact`, a
    /// library host): a tool whose default window is sized for a reader with a
    /// context window to fill (`read`'s default line window and line width) uses
    /// the smaller one. False only for the command line's plain text face, to a
    /// terminal or a pipe, which keeps the seeds' window. True unless a host
    /// says otherwise.
    pub agent_face: bool,
    /// With `unbounded_rows`, where a tool that lists rows may write them as it
    /// finds them (in their final order) instead of holding them for its text,
    /// which then carries only its summary. `None`: rows go in the answer.
    pub rows: Option<Arc<dyn RowSink>>,
    /// The turn of the call this context serves (`ToolCall::turn`), set by the
    /// runner: the checkpoint wrapper records the call's changes under it.
    pub turn: Option<String>,
    /// Where the file tools may write (protected paths, the project's edge);
    /// `None` protects the names (`.git`, `.indus-process`, `.indusvx`) only.
    pub writes: Option<Arc<WriteGuard>>,
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("context_id", &self.context_id)
            .field("cwd", &self.cwd)
            .field("budget", &self.budget)
            .field("framework", &self.framework)
            .field("root", &self.root)
            .field("state_root", &self.state_root)
            .field("remote", &self.remote)
            .field("record_rows", &self.record_rows)
            .field("unbounded_rows", &self.unbounded_rows)
            .field("agent_face", &self.agent_face)
            .field("rows", &self.rows.is_some())
            .field("turn", &self.turn)
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    /// A context with a fresh identity.
    pub fn new(
        cwd: impl Into<String>,
        fs: Arc<dyn Fs>,
        shell: Arc<dyn Shell>,
        cancel: CancellationToken,
        budget: OutputBudget,
        framework: Framework,
    ) -> Self {
        Self {
            context_id: NEXT_CONTEXT_ID.fetch_add(1, Ordering::Relaxed),
            cwd: cwd.into(),
            fs,
            shell,
            cancel,
            budget,
            framework,
            root: None,
            state_root: None,
            remote: None,
            record_rows: true,
            unbounded_rows: false,
            agent_face: true,
            rows: None,
            turn: None,
            writes: None,
        }
    }

    /// The same context (same identity) with another cancel token.
    pub fn with_cancel(&self, cancel: CancellationToken) -> Self {
        Self {
            cancel,
            ..self.clone()
        }
    }

    /// [`resolve_path`](Self::resolve_path), then, under a root, the root's
    /// admission check: the message of a refusal names the path as given and the
    /// root.
    pub fn confine(&self, path: &str) -> Result<String, String> {
        let abs = self.resolve_path(path);
        if let Some(root) = &self.root {
            root.admit(path, Path::new(&abs))?;
        }
        Ok(abs)
    }

    /// [`confine`](Self::confine) for a path a tool will write (create, replace,
    /// delete): also admitted by the [`WriteGuard`], which refuses protected
    /// paths and, by face, what lies outside the project.
    pub fn confine_write(&self, path: &str) -> Result<String, String> {
        let abs = self.confine(path)?;
        match &self.writes {
            Some(guard) => guard.admit(path, Path::new(&abs))?,
            None => WriteGuard::new(std::path::PathBuf::from(&self.cwd), Vec::new())
                .admit(path, Path::new(&abs))?,
        }
        Ok(abs)
    }

    /// Anchor a tool-supplied path at the context's cwd (absolute paths pass
    /// through) and tidy it lexically: `.` components and repeated slashes go, `..`
    /// removes the component before it. Pure string work: nothing is touched on disk,
    /// so `a/./b` and `a/b` key the same gate record.
    pub fn resolve_path(&self, path: &str) -> String {
        let out = super::root::tidy(&Path::new(&self.cwd).join(path));
        if out.as_os_str().is_empty() {
            ".".to_string()
        } else {
            out.to_string_lossy().into_owned()
        }
    }
}

/// Loosely coerce a model-supplied argument bag toward an object: a string that
/// trims to `{…}` or `[…]` and parses is replaced by its value, `null` becomes `{}`,
/// anything else passes through for the tool to validate.
pub fn coerce_input(input: Value) -> Value {
    match input {
        Value::Null => Value::Object(Map::new()),
        Value::String(s) => {
            let t = s.trim();
            let looks_json = (t.starts_with('{') && t.ends_with('}'))
                || (t.starts_with('[') && t.ends_with(']'));
            if looks_json && let Ok(v) = serde_json::from_str::<Value>(t) {
                return v;
            }
            Value::String(s)
        }
        other => other,
    }
}

/// The message of an unexpected failure inside a tool, as a model should see it.
pub fn describe_throw(tool: &str, error: &dyn fmt::Display) -> String {
    format!("{tool} failed unexpectedly: {error}")
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with no message".to_string()
    }
}

/// The facade-shaped output of [`DefinedTool::execute`].
#[derive(Debug, Clone, PartialEq)]
pub struct FacadeOutput {
    /// Every block as a string (JSON blocks compactly serialized).
    pub content: Vec<String>,
    /// The projected output, for hosts that want the structure back.
    pub details: Value,
    pub is_error: bool,
}

/// A tool wrapped for the runtime: cheap to clone (an `Arc` inside).
#[derive(Clone)]
pub struct DefinedTool {
    tool: Arc<dyn Tool>,
}

impl fmt::Debug for DefinedTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DefinedTool")
            .field("name", &self.tool.name())
            .finish()
    }
}

/// Wrap a tool into the shape the runtime invokes.
pub fn define_tool(tool: Arc<dyn Tool>) -> DefinedTool {
    DefinedTool { tool }
}

impl DefinedTool {
    pub fn name(&self) -> &str {
        self.tool.name()
    }

    pub fn description(&self) -> &str {
        self.tool.description()
    }

    pub fn parameters(&self) -> JsonSchema {
        self.tool.parameters()
    }

    /// See [`Tool::strict_input`].
    pub fn strict_input(&self) -> bool {
        self.tool.strict_input()
    }

    /// See [`Tool::output_schema`]: the schema of the record a successful call
    /// gives a program, or `None` for a text answer.
    pub fn output_schema(&self) -> Option<JsonSchema> {
        self.tool.output_schema()
    }

    /// The model-facing advertisement.
    pub fn descriptor(&self) -> ToolDescriptor {
        ToolDescriptor {
            name: self.tool.name().to_string(),
            description: self.tool.description().to_string(),
            parameters: self.tool.parameters(),
        }
    }

    /// Run the tool for a result: cancel pre-flight, input coercion, panic net.
    pub async fn run_result(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let name = self.tool.name();
        if ctx.cancel.is_cancelled() {
            return ToolResult::failure(format!("Cancelled before {name} could begin."));
        }
        let input = coerce_input(input);
        if self.tool.strict_input()
            && let Some(message) = super::input::unknown_keys(name, &self.tool.parameters(), &input)
        {
            return ToolResult::failure(message);
        }
        if let Some(meta) = self.tool.meta().filter(|m| !m.fields.is_empty())
            && let Err(message) = super::fields::check(name, meta.fields, &input)
        {
            return ToolResult::failure(message);
        }
        match AssertUnwindSafe(self.tool.run(input, ctx))
            .catch_unwind()
            .await
        {
            Ok(result) => result,
            Err(payload) => ToolResult::failure(describe_throw(name, &panic_message(&*payload))),
        }
    }

    /// The runner-side entry point: run the call and fold the result into an outcome.
    pub async fn invoke(&self, call: ToolCall, ctx: &ToolContext) -> ToolOutcome {
        let result = self.run_result(call.input, ctx).await;
        ToolOutcome {
            id: call.id,
            output: result.project(),
            is_error: result.is_error,
        }
    }

    /// The facade surface: blocks as strings plus the projected details.
    pub async fn execute(&self, input: Value, ctx: &ToolContext) -> FacadeOutput {
        let result = self.run_result(input, ctx).await;
        FacadeOutput {
            content: result
                .content
                .iter()
                .map(|b| match b {
                    ToolContentBlock::Text(t) => t.clone(),
                    ToolContentBlock::Json(v) => v.to_string(),
                })
                .collect(),
            details: result.project(),
            is_error: result.is_error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::local::make_local_context;

    struct Echo;
    #[async_trait]
    impl Tool for Echo {
        fn name(&self) -> &str {
            "echo"
        }
        fn description(&self) -> &str {
            "Echo the input back."
        }
        fn parameters(&self) -> JsonSchema {
            json!({"type": "object", "properties": {
                "k": {"type": "integer"}, "panic": {}, "mix": {},
                "items": {"type": "array", "items": {"type": "object", "properties": {"id": {}}}},
                "open": {"type": "object", "additionalProperties": true, "properties": {}}
            }})
        }
        async fn run(&self, input: Value, _ctx: &ToolContext) -> ToolResult {
            if input.get("panic").is_some() {
                panic!("boom");
            }
            if input.get("mix").is_some() {
                return ToolResult {
                    content: vec![
                        ToolContentBlock::Text("t".into()),
                        ToolContentBlock::Json(json!({"a": 1})),
                    ],
                    is_error: false,
                };
            }
            ToolResult::json(input)
        }
    }

    fn call(input: Value) -> ToolCall {
        ToolCall::new("c1", "echo", input)
    }

    #[test]
    fn coerce_input_rules() {
        assert_eq!(coerce_input(Value::Null), json!({}));
        assert_eq!(coerce_input(json!(" {\"a\":1} ")), json!({"a": 1}));
        assert_eq!(coerce_input(json!("[1,2]")), json!([1, 2]));
        // Not JSON-shaped, or shaped but unparsable: passes through untouched.
        assert_eq!(coerce_input(json!("hello")), json!("hello"));
        assert_eq!(coerce_input(json!("{nope}")), json!("{nope}"));
        assert_eq!(coerce_input(json!(5)), json!(5));
        assert_eq!(coerce_input(json!({"x": "{}"})), json!({"x": "{}"}));
    }

    #[test]
    fn programs_read_the_record() {
        let both = json!([{"kind": "text", "text": "2 rows"}, {"kind": "json", "value": {"rows": [1, 2]}}]);
        assert_eq!(program_view(&both), json!({"rows": [1, 2]}));
        for unchanged in [
            json!("text"),
            json!({"a": 1}),
            json!([{"kind": "json", "value": 1}, {"kind": "json", "value": 2}]),
            json!([{"kind": "json", "value": 1}]),
            json!([1, 2]),
        ] {
            assert_eq!(program_view(&unchanged), unchanged);
        }
    }

    #[test]
    fn projection_rules() {
        assert_eq!(ToolResult::text("hi").project(), json!("hi"));
        assert_eq!(ToolResult::json(json!({"a": 1})).project(), json!({"a": 1}));
        let mixed = ToolResult {
            content: vec![
                ToolContentBlock::Text("x".into()),
                ToolContentBlock::Json(json!(2)),
            ],
            is_error: false,
        };
        assert_eq!(
            mixed.project(),
            json!([{"kind": "text", "text": "x"}, {"kind": "json", "value": 2}])
        );
        let empty = ToolResult {
            content: vec![],
            is_error: false,
        };
        assert_eq!(empty.project(), json!([]));
    }

    #[tokio::test]
    async fn invoke_coerces_and_projects() {
        let tool = define_tool(Arc::new(Echo));
        let ctx = make_local_context(".", None, None, None);
        let out = tool.invoke(call(json!("{\"k\": 2}")), &ctx).await;
        assert_eq!(out.id, "c1");
        assert_eq!(out.output, json!({"k": 2}));
        assert!(!out.is_error);
        let out = tool.invoke(call(Value::Null), &ctx).await;
        assert_eq!(out.output, json!({}));
    }

    #[tokio::test]
    async fn a_key_the_schema_does_not_name_is_refused_before_the_tool_runs() {
        let tool = define_tool(Arc::new(Echo));
        let ctx = make_local_context(".", None, None, None);
        // `panic` would panic: the refusal comes first, naming the close key.
        let out = tool
            .invoke(call(json!({"K": 1, "panic": true})), &ctx)
            .await;
        assert!(out.is_error);
        assert_eq!(
            out.output,
            json!("Invalid input for echo: unknown key \"K\"; did you mean \"k\"?")
        );
        // Nested objects the schema describes are checked; open ones are not; a
        // JSON string for the object is coerced first.
        let out = tool
            .invoke(call(json!("{\"items\": [{\"id\": 1}, {\"di\": 2}]}")), &ctx)
            .await;
        assert_eq!(
            out.output,
            json!("Invalid input for echo: unknown key \"items[1].di\"; did you mean \"id\"?")
        );
        let out = tool.invoke(call(json!({"open": {"any": 1}})), &ctx).await;
        assert!(!out.is_error, "{out:?}");
        // With nothing close, the keys the tool takes are listed.
        let out = tool.invoke(call(json!({"zzzzzz": 1, "kk": 2})), &ctx).await;
        assert_eq!(
            out.output,
            json!(
                "Invalid input for echo: unknown keys \"zzzzzz\", \"kk\" (did you mean \"k\"?). echo takes: k, panic, mix, items, open."
            )
        );
    }

    #[tokio::test]
    async fn invoke_refuses_when_already_cancelled() {
        let tool = define_tool(Arc::new(Echo));
        let ctx = make_local_context(".", None, None, None);
        let token = CancellationToken::new();
        token.cancel();
        let out = tool.invoke(call(json!({})), &ctx.with_cancel(token)).await;
        assert!(out.is_error);
        assert_eq!(out.output, json!("Cancelled before echo could begin."));
    }

    #[tokio::test]
    async fn a_panicking_tool_becomes_an_error_outcome() {
        let tool = define_tool(Arc::new(Echo));
        let ctx = make_local_context(".", None, None, None);
        let out = tool.invoke(call(json!({"panic": true})), &ctx).await;
        assert!(out.is_error);
        assert_eq!(out.output, json!("echo failed unexpectedly: boom"));
    }

    #[tokio::test]
    async fn execute_gives_the_facade_shape() {
        let tool = define_tool(Arc::new(Echo));
        let ctx = make_local_context(".", None, None, None);
        let out = tool.execute(json!({"mix": 1}), &ctx).await;
        assert_eq!(out.content, vec!["t".to_string(), "{\"a\":1}".to_string()]);
        assert!(!out.is_error);
        assert_eq!(out.details.as_array().unwrap().len(), 2);
    }

    #[test]
    fn with_cancel_keeps_identity() {
        let ctx = make_local_context("/tmp", None, None, None);
        let other = make_local_context("/tmp", None, None, None);
        assert_ne!(ctx.context_id, other.context_id);
        let swapped = ctx.with_cancel(CancellationToken::new());
        assert_eq!(swapped.context_id, ctx.context_id);
        assert_eq!(swapped.cwd, ctx.cwd);
    }

    #[test]
    fn resolve_path_anchors_relative_paths() {
        let ctx = make_local_context("/srv/app", None, None, None);
        assert_eq!(ctx.resolve_path("src/a.rs"), "/srv/app/src/a.rs");
        assert_eq!(ctx.resolve_path("/etc/hosts"), "/etc/hosts");
        assert_eq!(ctx.resolve_path("."), "/srv/app");
        assert_eq!(ctx.resolve_path(""), "/srv/app");
        assert_eq!(ctx.resolve_path("./a//b/./c"), "/srv/app/a/b/c");
        assert_eq!(ctx.resolve_path("a/../../x"), "/srv/x");
        assert_eq!(ctx.resolve_path("/../../etc"), "/etc");
    }
}
