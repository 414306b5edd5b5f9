//! The ordered tool catalog and its dispatch machinery.
//!
//! A [`ToolRegistry`] holds tools in registration order plus named collections of
//! them; [`ToolRegistry::to_tool_box`] turns a selection into a runnable [`ToolBox`]:
//! the descriptors a model is shown and a [`ToolRunner`] that dispatches calls,
//! minting a fresh context per call from a [`ContextFactory`]. Order is load-bearing
//! (the `all` collection and every listing follow it), hence `IndexMap`.

use std::sync::Arc;

use async_trait::async_trait;
use indexmap::IndexMap;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::contract::{JsonSchema, ToolCall, ToolDescriptor, ToolOutcome};
use super::spec::{DefinedTool, ToolContext};

/// Supplies a fresh context for each dispatched call.
pub type ContextFactory = Arc<dyn Fn() -> ToolContext + Send + Sync>;

/// A lookup failure in the registry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CapabilityError {
    #[error("No tool named \"{0}\" is registered.")]
    UnknownTool(String),
    #[error("No collection named \"{0}\" is registered.")]
    UnknownCollection(String),
}

/// The canonical spelling of a tool name for matching: lower case with `_` and `-`
/// removed, so `todo-set`, `TodoSet` and `todoset` all name `todo_set`.
pub fn normalize_tool_name(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// An ordered catalog of tools plus named collections over them.
#[derive(Clone, Default, Debug)]
pub struct ToolRegistry {
    tools: IndexMap<String, DefinedTool>,
    collections: IndexMap<String, Vec<String>>,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a tool; a later tool of the same name replaces the earlier one in place.
    pub fn register(&mut self, tool: DefinedTool) -> &mut Self {
        self.tools.insert(tool.name().to_string(), tool);
        self
    }

    pub fn register_all(&mut self, tools: impl IntoIterator<Item = DefinedTool>) -> &mut Self {
        for tool in tools {
            self.register(tool);
        }
        self
    }

    pub fn has(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// Exact-name lookup.
    pub fn get(&self, name: &str) -> Option<&DefinedTool> {
        self.tools.get(name)
    }

    /// Lookup by normalized name (see [`normalize_tool_name`]).
    pub fn resolve(&self, name: &str) -> Option<&DefinedTool> {
        if let Some(tool) = self.tools.get(name) {
            return Some(tool);
        }
        let wanted = normalize_tool_name(name);
        self.tools
            .values()
            .find(|t| normalize_tool_name(t.name()) == wanted)
    }

    /// Tool names in registration order.
    pub fn names(&self) -> Vec<String> {
        self.tools.keys().cloned().collect()
    }

    pub fn tools(&self) -> impl Iterator<Item = &DefinedTool> {
        self.tools.values()
    }

    /// Define (or redefine) a collection; every member must be registered.
    pub fn collection(
        &mut self,
        name: &str,
        members: &[&str],
    ) -> Result<&mut Self, CapabilityError> {
        if let Some(missing) = members.iter().find(|m| !self.has(m)) {
            return Err(CapabilityError::UnknownTool((*missing).to_string()));
        }
        self.collections.insert(
            name.to_string(),
            members.iter().map(|m| (*m).to_string()).collect(),
        );
        Ok(self)
    }

    pub fn members_of(&self, collection: &str) -> Result<Vec<String>, CapabilityError> {
        self.collections
            .get(collection)
            .cloned()
            .ok_or_else(|| CapabilityError::UnknownCollection(collection.to_string()))
    }

    pub fn collection_names(&self) -> Vec<String> {
        self.collections.keys().cloned().collect()
    }

    /// The collections a tool belongs to, in definition order.
    pub fn collections_of(&self, tool: &str) -> Vec<String> {
        self.collections
            .iter()
            .filter(|(_, members)| members.iter().any(|m| m == tool))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// A runnable box over a collection (`None`: every registered tool).
    pub fn to_tool_box(
        &self,
        factory: ContextFactory,
        collection: Option<&str>,
    ) -> Result<ToolBox, CapabilityError> {
        let names = match collection {
            Some(c) => self.members_of(c)?,
            None => self.names(),
        };
        self.box_of(&names, factory)
    }

    /// A runnable box over an explicit list of registered names, in that order.
    pub fn box_of(
        &self,
        names: &[String],
        factory: ContextFactory,
    ) -> Result<ToolBox, CapabilityError> {
        let mut tools = IndexMap::new();
        for name in names {
            let tool = self
                .get(name)
                .ok_or_else(|| CapabilityError::UnknownTool(name.clone()))?;
            tools.insert(name.clone(), tool.clone());
        }
        let catalog = Arc::new(Catalog {
            tools: tools.values().cloned().collect(),
            descriptors: std::sync::OnceLock::new(),
        });
        Ok(ToolBox {
            catalog,
            runner: Arc::new(RegistryRunner { tools, factory }),
        })
    }
}

/// The injectable executor of tool calls.
#[async_trait]
pub trait ToolRunner: Send + Sync {
    async fn run(&self, call: ToolCall, cancel: CancellationToken) -> ToolOutcome;
}

/// The descriptor catalog a model sees, bundled with the runner that fulfils it.
#[derive(Clone)]
pub struct ToolBox {
    catalog: Arc<Catalog>,
    pub runner: Arc<dyn ToolRunner>,
}

/// The box's descriptors, built the first time they are asked for: a one-shot
/// call of one tool never needs the other tools' schemas, and building them all
/// was a good part of its start-up.
struct Catalog {
    tools: Vec<DefinedTool>,
    descriptors: std::sync::OnceLock<Vec<ToolDescriptor>>,
}

impl ToolBox {
    pub fn descriptors(&self) -> Vec<ToolDescriptor> {
        self.catalog
            .descriptors
            .get_or_init(|| {
                self.catalog
                    .tools
                    .iter()
                    .map(DefinedTool::descriptor)
                    .collect()
            })
            .clone()
    }

    /// Each tool's output schema by name, in the box's order: the schema of
    /// the record a successful call gives a program (see
    /// [`DefinedTool::output_schema`]); `None` for a text answer or a grafted
    /// MCP tool, whose answer's shape is its server's. Built on each call, so a
    /// host that only runs tools never pays for it.
    pub fn output_schemas(&self) -> Vec<(String, Option<JsonSchema>)> {
        self.catalog
            .tools
            .iter()
            .map(|t| (t.name().to_string(), t.output_schema()))
            .collect()
    }
}

impl ToolRegistry {
    /// The output schema of the tool called `name` (exact name), or `None` when
    /// no such tool is registered or its answer is text.
    pub fn output_schema(&self, name: &str) -> Option<JsonSchema> {
        self.get(name).and_then(DefinedTool::output_schema)
    }
}

/// The message for a call naming a tool this box does not hold.
pub fn no_such_tool_message(name: &str) -> String {
    format!("This session exposes no tool called \"{name}\".")
}

struct RegistryRunner {
    tools: IndexMap<String, DefinedTool>,
    factory: ContextFactory,
}

#[async_trait]
impl ToolRunner for RegistryRunner {
    async fn run(&self, call: ToolCall, cancel: CancellationToken) -> ToolOutcome {
        let wanted = normalize_tool_name(&call.name);
        let tool = self.tools.get(&call.name).or_else(|| {
            self.tools
                .values()
                .find(|t| normalize_tool_name(t.name()) == wanted)
        });
        let Some(tool) = tool else {
            return ToolOutcome {
                id: call.id,
                output: Value::String(no_such_tool_message(&call.name)),
                is_error: true,
            };
        };
        let mut ctx = (self.factory)().with_cancel(cancel);
        ctx.turn = call.turn.clone();
        tool.invoke(call, &ctx).await
    }
}

/// A tool as a family registers it: its descriptor and how to build it.
#[derive(Clone, Copy)]
pub struct Registration {
    pub meta: &'static super::meta::ToolMeta,
    pub build: fn() -> DefinedTool,
}

impl Registration {
    pub const fn new(meta: &'static super::meta::ToolMeta, build: fn() -> DefinedTool) -> Self {
        Registration { meta, build }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::local::make_local_context;
    use crate::kernel::{JsonSchema, Tool, ToolResult, define_tool};
    use serde_json::json;

    struct Named(&'static str, &'static str);
    #[async_trait]
    impl Tool for Named {
        fn name(&self) -> &str {
            self.0
        }
        fn description(&self) -> &str {
            self.1
        }
        fn parameters(&self) -> JsonSchema {
            json!({"type": "object", "properties": {}})
        }
        async fn run(&self, _input: Value, ctx: &ToolContext) -> ToolResult {
            ToolResult::text(format!("{} in {}", self.1, ctx.cwd))
        }
    }

    fn reg() -> ToolRegistry {
        let mut r = ToolRegistry::new();
        r.register(define_tool(Arc::new(Named("alpha", "A"))))
            .register(define_tool(Arc::new(Named("todo_set", "T"))))
            .register(define_tool(Arc::new(Named("beta", "B"))));
        r
    }

    fn factory() -> ContextFactory {
        Arc::new(|| make_local_context("/somewhere", None, None, None))
    }

    #[test]
    fn error_strings_are_byte_exact() {
        assert_eq!(
            CapabilityError::UnknownTool("x".into()).to_string(),
            "No tool named \"x\" is registered."
        );
        assert_eq!(
            CapabilityError::UnknownCollection("y".into()).to_string(),
            "No collection named \"y\" is registered."
        );
    }

    #[test]
    fn registration_keeps_order_and_replaces_in_place() {
        let mut r = reg();
        assert_eq!(r.names(), ["alpha", "todo_set", "beta"]);
        r.register(define_tool(Arc::new(Named("alpha", "A2"))));
        assert_eq!(r.names(), ["alpha", "todo_set", "beta"]);
        assert_eq!(r.get("alpha").unwrap().description(), "A2");
    }

    #[test]
    fn collections_validate_members() {
        let mut r = reg();
        assert_eq!(
            r.collection("c", &["alpha", "nope"]).err(),
            Some(CapabilityError::UnknownTool("nope".into()))
        );
        r.collection("c", &["beta", "alpha"]).unwrap();
        assert_eq!(r.members_of("c").unwrap(), ["beta", "alpha"]);
        assert_eq!(r.collection_names(), ["c"]);
        assert_eq!(r.collections_of("alpha"), ["c"]);
        assert!(r.collections_of("todo_set").is_empty());
        assert_eq!(
            r.members_of("zzz").err(),
            Some(CapabilityError::UnknownCollection("zzz".into()))
        );
    }

    #[test]
    fn names_normalize() {
        let r = reg();
        for spelling in ["todo_set", "todo-set", "TodoSet", "todoset", "TODO_SET"] {
            assert_eq!(
                r.resolve(spelling).unwrap().name(),
                "todo_set",
                "{spelling}"
            );
        }
        assert!(r.resolve("todo").is_none());
        assert_eq!(normalize_tool_name("Web-Fetch_"), "webfetch");
    }

    #[tokio::test]
    async fn the_runner_dispatches_and_refuses() {
        let mut r = reg();
        r.collection("c", &["alpha"]).unwrap();
        let b = r.to_tool_box(factory(), Some("c")).unwrap();
        assert_eq!(b.descriptors().len(), 1);
        let call = |name: &str| ToolCall::new("i", name, Value::Null);
        let ok = b.runner.run(call("ALPHA"), CancellationToken::new()).await;
        assert_eq!(ok.output, json!("A in /somewhere"));
        assert!(!ok.is_error);
        let refused = b.runner.run(call("beta"), CancellationToken::new()).await;
        assert!(refused.is_error);
        assert_eq!(
            refused.output,
            json!("This session exposes no tool called \"beta\".")
        );
        // The dispatch token reaches the tool: a cancelled token stops it pre-flight.
        let t = CancellationToken::new();
        t.cancel();
        let cancelled = b.runner.run(call("alpha"), t).await;
        assert_eq!(
            cancelled.output,
            json!("Cancelled before alpha could begin.")
        );
        assert!(r.to_tool_box(factory(), Some("nope")).is_err());
        assert_eq!(
            r.to_tool_box(factory(), None).unwrap().descriptors().len(),
            3
        );
    }
}
