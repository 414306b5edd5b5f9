//! `indus-tool mcp`: the selected tools served over the Model Context Protocol on
//! stdio, on the official Rust SDK (`rmcp`).
//!
//! This module owns the translation between MCP and the tool layer, and nothing
//! else: `tools/list` is the box's descriptors (schemas cut down to the plain subset
//! model APIs accept, plus behaviour annotations), and `tools/call` is one
//! `ToolRunner::run` per request, its outcome turned into an MCP tool result. Every
//! tool behaves exactly as it does on the command line and in `batch`, because it is
//! reached through the same `ToolBox` (and so the same context factory, gate and
//! session state) — the server holds no tool logic.
//!
//! Concurrency: rmcp runs each request on its own task, so calls overlap (on any
//! runtime; the command line uses a current-thread one, see `cli::mcp`). The
//! tools whose work is CPU-bound and unbounded in the input (`heavy` in their descriptors:
//! `edit` and `apply_patch`, whose fuzzy matching may spend seconds, and `write`,
//! whose diff of a big file may) run on a thread of their own with its own
//! current-thread runtime, so the protocol's thread keeps reading: `ping`,
//! `tools/list` and other calls are answered during them, and a cancellation or
//! the end of input is seen at once (issue 53). The others run on the
//! protocol's task, where they only wait. That is safe because a `ToolBox` is built to be shared: the runner is an
//! `Arc<dyn ToolRunner>` (`Send + Sync`), every call gets a fresh context from the
//! factory, and the state a call touches (the gate's cached records, the todo list,
//! the job table) sits behind a lock or the state folder's `flock`.
//!
//! Cancellation: rmcp gives each request a `RequestContext::ct` that it cancels when
//! the client sends `notifications/cancelled` for that request (and when the server
//! shuts down). That token is the one handed to `runner.run`, so it becomes the
//! tool's `ToolContext::cancel`: a `bash` in flight kills its process group, a web
//! fetch drops its connection, an `edit`'s fuzzy matching stops at its next
//! look at its work budget (every few thousand comparisons). A cancelled request gets no response (the protocol
//! says a receiver should not answer a request it was told to cancel; rmcp drops it).
//!
//! Transport: the lines on stdin and stdout are read and written by
//! [`LineTransport`], which answers what rmcp would drop or choke on (a line
//! that is not JSON, a request before `initialize`) and hands rmcp the rest.

mod search;
mod transport;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    ServerResult, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer, ServerInitializeError};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

use crate::kernel::{
    CancellationToken, ToolBox, ToolCall, ToolContentBlock, ToolDescriptor, ToolOutcome, ToolRunner,
};
pub use transport::{
    INVALID_PARAMS, INVALID_REQUEST, LineTransport, MAX_LINE, NOT_INITIALIZED, PARSE_ERROR,
};

/// The name the server gives in `initialize`.
pub const SERVER_NAME: &str = "indus-tool";

/// The JSON Schema keywords a tool's input schema keeps on the wire: the plain
/// subset every model API accepts. Anything else (`minimum`, `additionalProperties`,
/// `$schema`, …) is dropped.
pub const SCHEMA_KEYWORDS: [&str; 7] = [
    "type",
    "properties",
    "required",
    "description",
    "enum",
    "items",
    "default",
];

/// What a grafted tool's own server said of it beyond the descriptor (see
/// `mcp_client::ledger::BridgeCapability`), keyed by the qualified name: the
/// aggregator re-exports it as given.
#[derive(Debug, Clone, Default)]
pub struct Upstream {
    pub title: Option<String>,
    pub annotations: Option<Value>,
    pub output_schema: Option<Value>,
}

/// Grafted tools' upstream metadata by qualified name.
pub type UpstreamTools = std::collections::HashMap<String, Upstream>;

/// A grafted tool's name: `<server>__<tool>`; no built-in has a double `_`.
fn is_grafted(name: &str) -> bool {
    name.contains("__")
}

/// Whether a deferred list (`--tool-search`) shows the tool from the start: one
/// of those nearly every coding turn uses (its descriptor's `core`). Everything
/// else is found with `find_tool` and added with `load_tool`.
pub fn is_core(name: &str) -> bool {
    crate::deck::find_row(name).is_some_and(|r| r.id == name && r.meta.core)
}

/// Whether a built-in runs off the protocol's thread (see the module notes): its
/// work is CPU-bound, and as long as the input makes it (its descriptor's `heavy`).
fn off_thread(name: &str) -> bool {
    crate::deck::find_row(name).is_some_and(|r| r.id == name && r.meta.heavy)
}

/// Run `call` on a thread of its own, with a current-thread runtime of its
/// own (the local backend's single filesystem calls stay inline, as on the
/// command line), and await its outcome without holding the caller's thread.
/// The thread ends with the call: a cancelled call stops at its next look at
/// `cancel`, and nothing of it outlives the call.
async fn run_off_thread(
    runner: Arc<dyn ToolRunner>,
    call: ToolCall,
    cancel: CancellationToken,
) -> ToolOutcome {
    let id = call.id.clone();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name(format!("mcp-{}", call.name))
        .spawn(move || {
            let outcome = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(runtime) => {
                    let outcome = runtime.block_on(runner.run(call, cancel));
                    // A blocking read still running must not hold the answer.
                    runtime.shutdown_background();
                    outcome
                }
                Err(e) => failed(
                    &call.id,
                    &format!("could not start the call's runtime: {e}"),
                ),
            };
            let _ = tx.send(outcome);
        });
    if let Err(e) = spawned {
        return failed(&id, &format!("could not start a thread for the call: {e}"));
    }
    rx.await
        .unwrap_or_else(|_| failed(&id, "the call's thread ended without an answer"))
}

/// An `isError` outcome for call `id` saying `why` (retrying may help).
fn failed(id: &str, why: &str) -> ToolOutcome {
    ToolOutcome {
        id: id.to_string(),
        output: Value::String(format!(
            "The server {why}; nothing was run. Retry the call."
        )),
        is_error: true,
    }
}

/// The MCP face of one `ToolBox`.
#[derive(Clone)]
pub struct McpServer {
    runner: Arc<dyn ToolRunner>,
    tools: Arc<Vec<Tool>>,
    info: Arc<ServerConfig>,
    /// Set in the deferred mode: the names `tools/list` shows (the core, then
    /// what `load_tool` added, in the order they came).
    listed: Option<Arc<std::sync::Mutex<Vec<String>>>>,
}

impl McpServer {
    pub fn new(tool_box: ToolBox) -> Self {
        Self::with_upstream(tool_box, &UpstreamTools::new())
    }

    /// [`McpServer::new`], the grafted tools listed with what their servers
    /// said of them (title, annotations, output schema).
    pub fn with_upstream(tool_box: ToolBox, upstream: &UpstreamTools) -> Self {
        let mut tools = list_tools_result(&tool_box.descriptors()).tools;
        // The built-ins' records, described for the clients that validate or
        // type `structuredContent` (the SDKs do both).
        for (tool, (name, schema)) in tools.iter_mut().zip(tool_box.output_schemas()) {
            debug_assert_eq!(tool.name, name);
            if let Some(schema) = schema.as_ref().and_then(mcp_output_schema) {
                tool.output_schema = Some(Arc::new(schema));
            }
        }
        for tool in &mut tools {
            let Some(up) = upstream.get(tool.name.as_ref()) else {
                continue;
            };
            if let Some(title) = &up.title {
                tool.title = Some(title.clone());
            }
            if let Some(a) = up
                .annotations
                .as_ref()
                .and_then(|a| serde_json::from_value(a.clone()).ok())
            {
                tool.annotations = Some(a);
            }
            if let Some(Value::Object(o)) = &up.output_schema {
                tool.output_schema = Some(Arc::new(o.clone()));
            }
        }
        // An aggregator passes its servers' log notices on, so it says it logs
        // (and takes `logging/setLevel`); the built-ins alone never log.
        let grafts = tools.iter().any(|t| is_grafted(&t.name));
        let capabilities = if grafts {
            #[allow(deprecated)]
            ServerCapabilities::builder()
                .enable_tools()
                .enable_logging()
                .build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        let info = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "The tool layer of a coding agent. Relative paths resolve against the \
                 server's working directory. Unless the server was started with --no-gate, \
                 write and edit refuse an existing file that was not read (or changed since \
                 it was read) in this session: read it first.",
            );
        Self {
            runner: tool_box.runner,
            tools: Arc::new(tools),
            info: Arc::new(info),
            listed: None,
        }
    }

    /// Every tool the server serves (in the deferred mode, `tools/list` shows
    /// only some of them: see [`McpServer::listed`]).
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The deferred mode, for clients that have no tool search of their own:
    /// `tools/list` shows the core tools ([`is_core`]) this server serves plus
    /// `find_tool` (search the rest by words) and `load_tool` (add some to the
    /// list, which the server then announces with `notifications/tools/
    /// list_changed`). A call of a served tool works whether or not it is listed.
    pub fn with_tool_search(mut self) -> Self {
        let core: Vec<String> = self
            .tools
            .iter()
            .map(|t| t.name.to_string())
            .filter(|n| is_core(n))
            .collect();
        let mut info = (*self.info).clone();
        let mut tools_cap = info.capabilities.tools.clone().unwrap_or_default();
        tools_cap.list_changed = Some(true);
        info.capabilities.tools = Some(tools_cap);
        self.info = Arc::new(info);
        self.listed = Some(Arc::new(std::sync::Mutex::new(core)));
        self
    }

    /// The built-in tools listed without their `outputSchema`. The schemas
    /// are for clients that validate or type `structuredContent` (the SDKs);
    /// model hosts send a model a tool's name, description and input schema
    /// only, so the schemas cost a model nothing there, but they are half of
    /// the list's bytes, which a host that passes the whole list on would pay.
    /// `structuredContent` is sent either way. A grafted tool keeps its
    /// server's schema.
    pub fn without_output_schemas(mut self) -> Self {
        let tools = self
            .tools
            .iter()
            .cloned()
            .map(|mut t| {
                if !is_grafted(&t.name) {
                    t.output_schema = None;
                }
                t
            })
            .collect();
        self.tools = Arc::new(tools);
        self
    }

    /// What `tools/list` answers with now.
    pub fn listed(&self) -> Vec<Tool> {
        let Some(listed) = &self.listed else {
            return (*self.tools).clone();
        };
        let names = listed.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut out: Vec<Tool> = self
            .tools
            .iter()
            .filter(|t| names.iter().any(|n| n == t.name.as_ref()))
            .cloned()
            .collect();
        out.extend(search::tools());
        out
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        (*self.info).clone()
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // Built once, by `list_tools_result`, as `schema --for mcp` builds them.
        Ok(ListToolsResult::with_all_items(self.listed()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A name this box does not hold is not a protocol error: the runner answers
        // it as an `is_error` outcome (`This session exposes no tool called "X".`),
        // which reaches the model as an `isError` result it can read.
        if let Some(listed) = &self.listed
            && let Some(result) = search::answer(
                &self.tools,
                listed,
                &request.name,
                request.arguments.as_ref(),
                &context.peer,
            )
            .await
        {
            return Ok(result.into());
        }
        // rmcp moves the request's `_meta` into the context: `_meta.turn` names the
        // checkpoint turn of the call's changes, as a ToolCall's `turn` does.
        let turn = match context.meta.get("turn") {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => Some(t.clone()).filter(|t| !t.is_empty()),
            Some(other) => {
                let message = format!(
                    "\"_meta.turn\" must be a string naming the checkpoint turn, got {}.",
                    crate::kernel::input::describe_value(other)
                );
                let outcome = ToolOutcome {
                    id: context.id.to_string(),
                    output: Value::String(message),
                    is_error: true,
                };
                return Ok(call_result(outcome).into());
            }
        };
        let call = ToolCall {
            id: context.id.to_string(),
            name: request.name.into_owned(),
            input: request.arguments.map_or(Value::Null, Value::Object),
            turn,
        };
        // Only a grafted tool has notices to pass on; a built-in's call pays
        // nothing for the relay.
        if !is_grafted(&call.name) {
            let outcome = if off_thread(&call.name) {
                run_off_thread(self.runner.clone(), call, context.ct.clone()).await
            } else {
                self.runner.run(call, context.ct.clone()).await
            };
            return Ok(call_result(outcome).into());
        }
        // rmcp moves the request's `_meta` (the progress token) into the context.
        let token = context.meta.get_progress_token();
        let (outcome, upstream) = relay_notices(
            self.runner.run(call, context.ct.clone()),
            token,
            context.peer.clone(),
        )
        .await;
        // A grafted tool's answer goes on as its server gave it.
        if let Some(result) =
            upstream.and_then(|v| serde_json::from_value::<CallToolResult>(v).ok())
        {
            return Ok(result.into());
        }
        Ok(call_result(outcome).into())
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // Asked of the grafted tools' servers at their next call, and their
        // notices at that level and above come back here.
        crate::interop::mcp_client::client::ask_log_level(request.level);
        Ok(())
    }
}

/// Run `call` with a relay that passes its notices (a grafted tool's progress
/// and its server's log lines) on to this server's client: progress under the
/// client's own token (none given: none sent, as the protocol says), log lines
/// at or above the level the client set. Every notice is sent before the
/// call's answer. Also returns the answer a grafted tool's server gave, whole
/// ([`Notice::Result`](crate::kernel::relay::Notice::Result)).
async fn relay_notices(
    call: impl std::future::Future<Output = ToolOutcome>,
    token: Option<rmcp::model::ProgressToken>,
    peer: rmcp::Peer<RoleServer>,
) -> (ToolOutcome, Option<Value>) {
    use crate::kernel::relay::{Notice, Relay, relayed};
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Notice>();
    let relay = Relay::new(move |n| {
        let _ = tx.send(n);
    });
    let mut upstream = None;
    let call = relayed(relay, call);
    tokio::pin!(call);
    let outcome = loop {
        tokio::select! {
            outcome = &mut call => break outcome,
            Some(n) = rx.recv() => forward(&peer, &token, n, &mut upstream).await,
        }
    };
    while let Ok(n) = rx.try_recv() {
        forward(&peer, &token, n, &mut upstream).await;
    }
    (outcome, upstream)
}

/// One notice of a call to this server's client (see [`relay_notices`]).
#[allow(deprecated)]
async fn forward(
    peer: &rmcp::Peer<RoleServer>,
    token: &Option<rmcp::model::ProgressToken>,
    notice: crate::kernel::relay::Notice,
    upstream: &mut Option<Value>,
) {
    use crate::interop::mcp_client::client::{asked_log_level, level_of, severity};
    use crate::kernel::relay::Notice;
    use rmcp::model::{LoggingMessageNotificationParam, ProgressNotificationParam};
    match notice {
        Notice::Progress {
            progress,
            total,
            message,
        } => {
            let Some(token) = token.clone() else { return };
            let mut p = ProgressNotificationParam::new(token, progress);
            p.total = total;
            p.message = message;
            let _ = peer.notify_progress(p).await;
        }
        Notice::Log {
            level,
            logger,
            data,
        } => {
            let Some(level) = level_of(&level) else {
                return;
            };
            if asked_log_level().is_some_and(|least| severity(level) < severity(least)) {
                return;
            }
            let mut m = LoggingMessageNotificationParam::new(level, data);
            m.logger = logger;
            let _ = peer.notify_logging_message(m).await;
        }
        Notice::Result { result } => *upstream = Some(result),
    }
}

/// How `indus-tool mcp` serves its tools beyond which ones (the tool box).
#[derive(Debug, Clone, Copy, Default)]
pub struct ServeOptions {
    /// The deferred list (see [`McpServer::with_tool_search`]).
    pub tool_search: bool,
    /// `tools/list` without the built-ins' `outputSchema` (see
    /// [`McpServer::without_output_schemas`]).
    pub no_output_schemas: bool,
}

/// Serve `tool_box` on stdin/stdout until the client closes stdin or `stop` is
/// cancelled (a signal). Either way in-flight calls are cancelled once the server
/// stops reading, after rmcp's short drain of calls about to answer. Lines that are
/// not messages, and requests before `initialize`, are answered with JSON-RPC errors
/// (see [`LineTransport`]). Returns an error only when the transport itself fails.
pub async fn serve_stdio(tool_box: ToolBox, stop: CancellationToken) -> std::io::Result<()> {
    serve_stdio_with(
        tool_box,
        &UpstreamTools::new(),
        ServeOptions::default(),
        stop,
    )
    .await
}

/// [`serve_stdio`] for an aggregator: grafted tools listed with their
/// servers' own metadata (see [`Upstream`]), served as `options` say.
pub async fn serve_stdio_with(
    tool_box: ToolBox,
    upstream: &UpstreamTools,
    options: ServeOptions,
    stop: CancellationToken,
) -> std::io::Result<()> {
    // Non-blocking pipes when stdin/stdout are FIFOs (as MCP clients launch
    // servers), the blocking stdio handles otherwise.
    let (read, write) = rmcp::transport::io::stdio_pipes();
    let mut server = McpServer::with_upstream(tool_box, upstream);
    if options.no_output_schemas {
        server = server.without_output_schemas();
    }
    if options.tool_search {
        server = server.with_tool_search();
    }
    serve(server, LineTransport::new(read, write), stop).await
}

/// Serve `server` (an [`McpServer`] of a tool box) over any rmcp transport (see
/// [`serve_stdio`]).
pub async fn serve<T, E, A>(
    server: McpServer,
    transport: T,
    stop: CancellationToken,
) -> std::io::Result<()>
where
    T: rmcp::transport::IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let running = match server.serve_with_ct(transport, stop).await {
        Ok(running) => running,
        // End of input or a signal before the handshake finished: nothing to serve.
        Err(ServerInitializeError::ConnectionClosed(_) | ServerInitializeError::Cancelled) => {
            return Ok(());
        }
        Err(e) => return Err(std::io::Error::other(e.to_string())),
    };
    match running.waiting().await {
        Ok(rmcp::service::QuitReason::JoinError(e)) | Err(e) => Err(std::io::Error::other(
            format!("the MCP service failed: {e}"),
        )),
        Ok(_) => Ok(()),
    }
}

/// The result of `tools/list` for these descriptors, as the server answers it.
pub fn list_tools_result(descriptors: &[ToolDescriptor]) -> ListToolsResult {
    ListToolsResult::with_all_items(descriptors.iter().map(mcp_tool).collect())
}

/// [`list_tools_result`] as the JSON a client that began with `initialize` gets
/// (`indus-tool schema --for mcp` prints it): `{"tools":[…]}`. rmcp adds
/// `resultType` and the caching hints only for the stateless lifecycle of protocol
/// 2026-07-28, and strips `resultType` for every earlier version, as here.
pub fn list_tools_json(descriptors: &[ToolDescriptor]) -> Result<Value, serde_json::Error> {
    let mut result = ServerResult::ListToolsResult(list_tools_result(descriptors));
    result.strip_result_type_for_legacy_peer();
    serde_json::to_value(result)
}

/// [`call_result`] of `outcome` as the JSON the server sends in its `tools/call`
/// response to a client that began with `initialize` (`indus-tool --exact=mcp`
/// prints it): `resultType` stripped as for [`list_tools_json`].
pub fn call_result_json(outcome: ToolOutcome) -> Result<Value, serde_json::Error> {
    let mut result = ServerResult::CallToolResult(call_result(outcome));
    result.strip_result_type_for_legacy_peer();
    serde_json::to_value(result)
}

/// The `tools/list` result `indus-tool mcp` answers for `tool_box`, as JSON
/// (`schema --for mcp` prints it): [`list_tools_json`] of its descriptors with
/// each built-in's `outputSchema` (see [`mcp_output_schema`]).
pub fn served_tools_json(tool_box: ToolBox) -> Result<Value, serde_json::Error> {
    let server = McpServer::new(tool_box);
    let mut result =
        ServerResult::ListToolsResult(ListToolsResult::with_all_items(server.tools().to_vec()));
    result.strip_result_type_for_legacy_peer();
    serde_json::to_value(result)
}

/// One descriptor as an MCP tool: name, description, the plain input schema, a
/// title and the behaviour hints.
pub fn mcp_tool(descriptor: &ToolDescriptor) -> Tool {
    // A grafted tool's schema is its server's, passed on verbatim (`$ref`,
    // `$defs`, `anyOf`, formats): the plain subset is for the built-ins.
    let schema = if is_grafted(&descriptor.name) {
        descriptor.parameters.clone()
    } else {
        plain_schema(&descriptor.for_model().parameters)
    };
    let schema = match schema {
        Value::Object(mut map) => {
            map.entry("type").or_insert_with(|| json!("object"));
            map
        }
        _ => JsonObject::from_iter([("type".to_string(), json!("object"))]),
    };
    let mut tool = Tool::new(
        descriptor.name.clone(),
        descriptor.description.clone(),
        Arc::new(schema),
    );
    if let Some(mut annotations) = annotations(&descriptor.name) {
        // The title once, at the top, where clients since 2025-06-18 read it;
        // the hints carry none (every byte of the list is read on every turn).
        if let Some(title) = annotations.title.take() {
            tool = tool.with_title(title);
        }
        tool = tool.with_annotations(annotations);
    }
    tool
}

/// A tool's output schema as `tools/list` sends it: the schema of the
/// `structuredContent` [`call_result`] builds from the record. A record that is
/// not an object is sent as `{"value": …}`, so its schema is wrapped the same
/// way. Descriptions are left out (they are for people, in `describe TOOL` and
/// docs/json.md; a client validates or types with the rest), which halves the
/// bytes every `tools/list` carries.
pub fn mcp_output_schema(schema: &Value) -> Option<JsonObject> {
    let object = schema.get("type") == Some(&json!("object"));
    let schema = without_descriptions(schema);
    let schema = if object {
        schema
    } else {
        json!({"type": "object", "properties": {"value": schema}, "required": ["value"]})
    };
    match schema {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// `schema` without its `description` keywords, wherever a schema stands (see
/// [`retain_keywords`]; a `description` key of a `default` or `enum` value is
/// data, not a keyword, and stays).
fn without_descriptions(schema: &Value) -> Value {
    retain_keywords(schema, &|key, _, _| key != "description")
}

/// `schema` with only [`SCHEMA_KEYWORDS`] kept, at every level (`properties` maps
/// property names to schemas, `items` holds a schema or a list of them), and
/// `"additionalProperties": false` on an object that declares no keys.
pub fn plain_schema(schema: &Value) -> Value {
    retain_keywords(schema, &|key, value, map| match key {
        "properties" => value.is_object(),
        k if SCHEMA_KEYWORDS.contains(&k) => true,
        // An object that declares no keys says it takes none (see
        // `ToolDescriptor::for_model`); anywhere else it is the open default.
        "additionalProperties" => {
            *value == Value::Bool(false)
                && map
                    .get("properties")
                    .is_none_or(|p| p.as_object().is_some_and(|p| p.is_empty()))
        }
        _ => false,
    })
}

/// Whether [`retain_keywords`] keeps a keyword: its name, its value, and the
/// object holding it.
type KeepKeyword = dyn Fn(&str, &Value, &Map<String, Value>) -> bool;

/// `schema` with the keywords `keep` (keyword, its value, the object holding
/// it) says yes to, at this level and in every schema below: the values of the
/// maps of named schemas (`properties`, `$defs`, `definitions`) and of the
/// keywords that hold a schema or a list of them (`items`, `anyOf`, …). Other
/// values (`enum`, `default`, `required`) are data and are kept whole.
fn retain_keywords(schema: &Value, keep: &KeepKeyword) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        if !keep(key, value, map) {
            continue;
        }
        let kept = match (key.as_str(), value) {
            ("properties" | "$defs" | "definitions", Value::Object(named)) => Value::Object(
                named
                    .iter()
                    .map(|(name, s)| (name.clone(), retain_keywords(s, keep)))
                    .collect(),
            ),
            (
                "items"
                | "prefixItems"
                | "anyOf"
                | "oneOf"
                | "allOf"
                | "not"
                | "contains"
                | "additionalProperties",
                Value::Array(list),
            ) => Value::Array(list.iter().map(|s| retain_keywords(s, keep)).collect()),
            (
                "items" | "anyOf" | "oneOf" | "allOf" | "not" | "contains" | "additionalProperties",
                one,
            ) => retain_keywords(one, keep),
            _ => value.clone(),
        };
        out.insert(key.clone(), kept);
    }
    Value::Object(out)
}

/// The behaviour hints of a catalog tool (`None` for any other name: a host's own
/// tool gets no hints, which clients read as the cautious defaults).
///
/// Every hint is read from the tool's descriptor ([`ToolMeta`](crate::kernel::ToolMeta)):
/// the title; `readOnlyHint` when it only observes; `destructiveHint` when it
/// overwrites or deletes files or runs programs; `idempotentHint` when repeating
/// it changes nothing more; `openWorldHint` when it reaches the web. Hints the
/// spec defines only for tools that are not read-only (destructive, idempotent)
/// are set only on those.
///
/// A hint is sent only where it differs from the protocol's default (read-only
/// false, destructive true, idempotent false, open-world true): a client reads
/// an absent hint as its default, so the list says the same in fewer bytes.
/// [`effective`] reads a hint back as a client does.
pub fn annotations(name: &str) -> Option<ToolAnnotations> {
    // The checkpoint tools are no catalog rows (see `deck::checkpoint_tools`):
    // list and diff only read the store, rewind puts files back.
    let checkpoint = match name {
        "checkpoint_list" => Some(("Checkpoints", true)),
        "checkpoint_diff" => Some(("Checkpoint diff", true)),
        "checkpoint_rewind" => Some(("Checkpoint rewind", false)),
        _ => None,
    };
    if let Some((title, read_only)) = checkpoint {
        let mut hints = ToolAnnotations::with_title(title);
        if read_only {
            hints.read_only_hint = Some(true);
        }
        hints.open_world_hint = Some(false);
        return Some(hints);
    }
    let meta = crate::deck::find_row(name).filter(|r| r.id == name)?.meta;
    let mut hints = ToolAnnotations::with_title(meta.title);
    if meta.effect.observes_only() {
        hints.read_only_hint = Some(true);
    } else {
        if !meta.effect.changes_the_world() {
            hints.destructive_hint = Some(false);
        }
        if meta.effect.idempotent() {
            hints.idempotent_hint = Some(true);
        }
    }
    if !meta.open_world {
        hints.open_world_hint = Some(false);
    }
    Some(hints)
}

/// The behaviour hints as a client reads them: `[read-only, destructive,
/// idempotent, open-world]`, an absent one at the protocol's default.
pub fn effective(hints: &ToolAnnotations) -> [bool; 4] {
    [
        hints.read_only_hint.unwrap_or(false),
        hints.destructive_hint.unwrap_or(true),
        hints.idempotent_hint.unwrap_or(false),
        hints.open_world_hint.unwrap_or(true),
    ]
}

/// The content blocks a projected output came from.
///
/// The MCP face goes through `ToolRunner::run` like every other face, so it sees
/// the outcome's projection rather than the tool's blocks: this keeps it on the one
/// seam a host can inject (any `ToolRunner` can be served, not only the registry's)
/// and keeps dispatch — name normalization, the unknown-tool refusal, the per-call
/// context — in one place. The projection is undone exactly: a string was one text
/// block, an array of `{"kind":"text","text"}`/`{"kind":"json","value"}` objects was
/// those blocks, and any other value was one JSON block. The one blind spot is a
/// tool whose only block is JSON holding a string (it comes back as text) or holding
/// an array of exactly that shape; no built-in tool returns a lone JSON block.
pub fn unproject(output: Value) -> Vec<ToolContentBlock> {
    match output {
        Value::String(text) => vec![ToolContentBlock::Text(text)],
        Value::Array(items) => match items.iter().map(kind_block).collect() {
            Some(blocks) => blocks,
            None => vec![ToolContentBlock::Json(Value::Array(items))],
        },
        other => vec![ToolContentBlock::Json(other)],
    }
}

fn kind_block(value: &Value) -> Option<ToolContentBlock> {
    let obj = value.as_object().filter(|o| o.len() == 2)?;
    match obj.get("kind")?.as_str()? {
        "text" => Some(ToolContentBlock::Text(
            obj.get("text")?.as_str()?.to_string(),
        )),
        "json" => Some(ToolContentBlock::Json(obj.get("value")?.clone())),
        _ => None,
    }
}

/// An outcome as an MCP tool result: its text blocks once, as text content; its
/// JSON record as `structuredContent`; `isError` from the outcome.
///
/// A model reads every text block, so the record is not repeated as text beside
/// the tool's own text: a tool's text and its record say the same thing (the text
/// for the model, the record for the client, described by the tool's
/// `outputSchema`). Only an outcome with no text at all (a lone record, such as
/// `todo_read`'s or `time`'s) sends its record as text too, compact, because a
/// client that ignores `structuredContent` would otherwise show nothing, as the
/// protocol asks of structured results.
///
/// `structuredContent` must be a JSON object on the wire (clients reject anything
/// else), so: one JSON block holding an object is that object; one holding any other
/// value (websearch's result list) is `{"value": …}`; several are
/// `{"values": [ … ]}`; no JSON block, no `structuredContent`.
pub fn call_result(outcome: ToolOutcome) -> CallToolResult {
    let mut content = Vec::new();
    let mut json = Vec::new();
    let mut texts = 0;
    for block in unproject(outcome.output) {
        match block {
            ToolContentBlock::Text(text) => {
                texts += 1;
                content.push(ContentBlock::text(text));
            }
            // MCP content a grafted tool returned (an image, audio, a resource)
            // goes on as its own content type, not as a text holding its JSON.
            ToolContentBlock::Json(value)
                if crate::kernel::media_kind(&value).is_some()
                    && let Ok(native) = serde_json::from_value::<ContentBlock>(value.clone()) =>
            {
                content.push(native);
            }
            ToolContentBlock::Json(value) => json.push(value),
        }
    }
    // The record as the text of an outcome that has no text (see above), compact
    // and as the tool gave it (a list stays a list).
    let record_text = match json.as_slice() {
        _ if texts > 0 => None,
        [] => None,
        [one] => Some(one.to_string()),
        many => Some(Value::from(many.to_vec()).to_string()),
    };
    let structured = match json.len() {
        0 => None,
        1 => match json.pop() {
            Some(Value::Object(map)) => Some(Value::Object(map)),
            other => Some(json!({ "value": other })),
        },
        _ => Some(json!({ "values": json })),
    };
    if let Some(text) = record_text {
        content.push(ContentBlock::text(text));
    }
    let mut result = if outcome.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = structured;
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::{ToolCollection, tool_box};
    use crate::kernel::ToolResult;

    fn outcome(result: ToolResult) -> ToolOutcome {
        ToolOutcome {
            id: "1".into(),
            output: result.project(),
            is_error: result.is_error,
        }
    }

    fn texts(result: &CallToolResult) -> Vec<String> {
        result
            .content
            .iter()
            .map(|c| c.as_text().expect("text content").text.clone())
            .collect()
    }

    #[test]
    fn unprojection_inverts_the_projection() {
        let cases = [
            vec![ToolContentBlock::Text("hi".into())],
            vec![ToolContentBlock::Json(json!({"a": 1}))],
            vec![ToolContentBlock::Json(json!([1, 2]))],
            vec![ToolContentBlock::Json(json!(7))],
            vec![
                ToolContentBlock::Text("t".into()),
                ToolContentBlock::Json(json!({"k": [1]})),
                ToolContentBlock::Text("u".into()),
            ],
            vec![],
        ];
        for blocks in cases {
            let projected = ToolResult {
                content: blocks.clone(),
                is_error: false,
            }
            .project();
            assert_eq!(unproject(projected), blocks);
        }
        // An array that merely resembles blocks is one JSON value.
        let odd = json!([{"kind": "text", "text": "x", "extra": 1}]);
        assert_eq!(unproject(odd.clone()), vec![ToolContentBlock::Json(odd)]);
    }

    #[test]
    fn results_map_text_json_and_errors() {
        let r = call_result(outcome(ToolResult::text("plain")));
        assert_eq!(texts(&r), ["plain"]);
        assert_eq!(r.structured_content, None);
        assert_eq!(r.is_error, Some(false));

        let r = call_result(outcome(ToolResult::failure("nope")));
        assert_eq!(texts(&r), ["nope"]);
        assert_eq!(r.is_error, Some(true));

        let r = call_result(outcome(ToolResult {
            content: vec![
                ToolContentBlock::Text("Edited.".into()),
                ToolContentBlock::Json(json!({"path": "a", "replacements": 1})),
            ],
            is_error: false,
        }));
        // The record is not repeated as text beside the tool's own text.
        assert_eq!(texts(&r), ["Edited."]);
        assert_eq!(
            r.structured_content,
            Some(json!({"path": "a", "replacements": 1}))
        );

        let r = call_result(outcome(ToolResult {
            content: vec![
                ToolContentBlock::Text("2 results".into()),
                ToolContentBlock::Json(json!([{"title": "t"}])),
            ],
            is_error: false,
        }));
        assert_eq!(
            r.structured_content,
            Some(json!({"value": [{"title": "t"}]}))
        );

        let r = call_result(outcome(ToolResult {
            content: vec![
                ToolContentBlock::Json(json!(1)),
                ToolContentBlock::Json(json!({"b": 2})),
            ],
            is_error: false,
        }));
        assert_eq!(r.structured_content, Some(json!({"values": [1, {"b": 2}]})));
        // With no text at all, the record is the text too, compact, as given.
        assert_eq!(texts(&r), [r#"[1,{"b":2}]"#]);
        let r = call_result(outcome(ToolResult::json(json!({"items": []}))));
        assert_eq!(texts(&r), [r#"{"items":[]}"#]);
        assert_eq!(r.structured_content, Some(json!({"items": []})));
    }

    #[test]
    fn schemas_keep_the_plain_subset() {
        let schema = json!({
            "$schema": "x",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "pattern": {"type": "string", "description": "d", "pattern": "^a", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "default": 5},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string", "format": "uuid"}}, "required": ["id"]}}
            },
            "required": ["pattern"]
        });
        assert_eq!(
            plain_schema(&schema),
            json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "d"},
                    "limit": {"type": "integer", "default": 5},
                    "mode": {"type": "string", "enum": ["a", "b"]},
                    "items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}
                },
                "required": ["pattern"]
            })
        );
    }

    /// Every face that says something about a catalog tool says what its
    /// descriptor says: the catalog's flag and profiles, the MCP hints, the
    /// seed's collections, the checkpoint wrapper, "changes the world", and the
    /// name the built tool answers to. A tool whose faces disagree fails here.
    #[test]
    fn every_face_agrees_with_the_descriptors() {
        use crate::kernel::{Checkpoint, Effect, Seat, SeedList};
        let registry = crate::deck::deck_registry();
        for row in crate::deck::catalog() {
            let meta = row.meta;
            let name = meta.name;
            assert_eq!(row.id, name);
            assert_eq!(
                registry.get(name).map(|t| t.name().to_string()),
                Some(name.into())
            );
            assert_eq!(row.read_only, meta.effect.observes_only(), "{name}");
            assert_eq!(
                row.profiles,
                crate::deck::catalog::profiles_of(meta),
                "{name}"
            );
            let hints = annotations(name).expect("a catalog tool has hints");
            let [read_only, destructive, idempotent, open_world] = effective(&hints);
            assert_eq!(hints.title.as_deref(), Some(meta.title), "{name}");
            assert_eq!(read_only, meta.effect.observes_only(), "{name}");
            assert_eq!(open_world, meta.open_world, "{name}");
            if !read_only {
                assert_eq!(destructive, meta.effect.changes_the_world(), "{name}");
                assert_eq!(idempotent, meta.effect.idempotent(), "{name}");
            }
            assert_eq!(
                crate::deck::changes_the_world(name),
                meta.effect.changes_the_world(),
                "{name}"
            );
            assert_eq!(crate::deck::checkpoint_of(name), meta.checkpoint, "{name}");
            // A checkpoint that reads files covers a tool that writes them; one
            // that scans the tree, a tool that runs commands.
            match meta.checkpoint {
                Checkpoint::ByPath | Checkpoint::ByPatch => {
                    assert!(matches!(meta.effect, Effect::Writes { .. }), "{name}")
                }
                Checkpoint::ByScan(_) => assert_eq!(meta.effect, Effect::Runs, "{name}"),
                Checkpoint::No => {}
            }
            assert_eq!(is_core(name), meta.core, "{name}");
            // The seed's lists name exactly the built-ins seated in them.
            let seat = meta.seat;
            assert_eq!(
                crate::builtins::READ_ONLY_NAMES.contains(&name),
                seat == Seat::Builtin(SeedList::ReadOnly),
                "{name}"
            );
            assert_eq!(
                crate::builtins::MUTATING_NAMES.contains(&name),
                seat == Seat::Builtin(SeedList::Mutating),
                "{name}"
            );
            if seat == Seat::Builtin(SeedList::ReadOnly) {
                assert!(meta.effect.observes_only(), "{name}");
            }
            assert_eq!(
                crate::builtins::builtin_meta(name).is_some(),
                matches!(seat, Seat::Builtin(_)),
                "{name}"
            );
        }
        // Spot checks of what the descriptors declare (each a decision once
        // argued over): todo_read only observes; write is idempotent and
        // checkpointed by path; the operator's web tools reach the web; bash is
        // covered by the scan; todo_set only records.
        let meta = |n: &str| crate::deck::find_row(n).unwrap().meta;
        assert_eq!(meta("todo_read").effect, Effect::Observes);
        assert_eq!(meta("write").effect, Effect::Writes { idempotent: true });
        assert_eq!(meta("write").checkpoint, Checkpoint::ByPath);
        assert_eq!(meta("apply_patch").checkpoint, Checkpoint::ByPatch);
        assert!(meta("fetch_url").open_world && meta("web_search").open_world);
        assert_eq!(
            meta("bash").checkpoint,
            Checkpoint::ByScan(crate::kernel::ScanWhen::Always)
        );
        assert_eq!(
            meta("todo_set").effect,
            Effect::Records { idempotent: true }
        );
        assert!(meta("edit").heavy && meta("read").core && !meta("ls").core);
    }

    #[test]
    fn every_builtin_tool_is_listed_with_hints() {
        let server = McpServer::new(tool_box(ToolCollection::All, Some(".".into())));
        let names: Vec<&str> = server.tools().iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, crate::builtin_registry().names());
        for tool in server.tools() {
            let hints = tool.annotations.as_ref().expect("built-ins have hints");
            assert!(tool.title.is_some());
            assert_eq!(hints.title, None, "the title is sent once, at the top");
            assert_eq!(tool.input_schema.get("type"), Some(&json!("object")));
            let name = tool.name.as_ref();
            let [read_only, destructive, _, open_world] = effective(hints);
            // What the descriptor says (`every_face_agrees_with_the_descriptors`
            // checks each hint against it); `todo_read` only observes, though
            // the seed names it among the mutating tools.
            let meta = crate::builtins::builtin_meta(name).expect("a built-in");
            assert_eq!(read_only, meta.effect.observes_only(), "{name}");
            if crate::builtins::READ_ONLY_NAMES.contains(&name) || name == "todo_read" {
                assert!(read_only, "{name}");
            }
            assert_eq!(open_world, meta.open_world, "{name}");
            // Destructive is read only of a tool that is not read-only.
            assert_eq!(
                !read_only && destructive,
                meta.effect.changes_the_world(),
                "{name}"
            );
            // Only hints that differ from the defaults are sent.
            assert_ne!(hints.read_only_hint, Some(false), "{name}");
            assert_ne!(hints.destructive_hint, Some(true), "{name}");
            assert_ne!(hints.open_world_hint, Some(true), "{name}");
            // Nothing outside the plain subset survives, at any depth.
            fn check(schema: &Value) {
                if let Value::Object(map) = schema {
                    for (k, v) in map {
                        if k == "additionalProperties" {
                            assert_eq!(map.get("properties"), Some(&json!({})));
                            continue;
                        }
                        assert!(SCHEMA_KEYWORDS.contains(&k.as_str()), "{k}");
                        match k.as_str() {
                            "properties" => v.as_object().unwrap().values().for_each(check),
                            "items" => check(v),
                            _ => {}
                        }
                    }
                }
            }
            check(&Value::Object((*tool.input_schema).clone()));
        }
        assert!(annotations("custom").is_none());
        let info = server.get_info();
        assert_eq!(info.server_info.name, "indus-tool");
        assert_eq!(info.server_info.version, env!("CARGO_PKG_VERSION"));
        assert!(info.capabilities.tools.is_some());
    }
}
