//! Wrapping tools: a behaviour put around the calls of named tools of a
//! registry, with each tool's name, description and schema kept, so a host sees
//! the same tools and only their answers change.
//!
//! Approval, repeated-failure suppression, the buddy envelope and checkpoints
//! are all such wrappers. Each says only what it does around one call
//! ([`Around`]); the delegation (the `Tool` whose name, description and
//! parameters are the inner tool's) is written once, here, so the four cannot
//! drift apart in what they pass through.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use super::contract::JsonSchema;
use super::registry::ToolRegistry;
use super::spec::{DefinedTool, Tool, ToolContext, ToolResult, define_tool};

/// What a wrapper does around one call of a tool it wraps: run `inner` (or not)
/// and answer. `inner.name()` is the tool's name as called.
#[async_trait]
pub trait Around: Send + Sync {
    async fn call(&self, inner: &DefinedTool, input: Value, ctx: &ToolContext) -> ToolResult;
    /// The output schema of the wrapped tool, given the inner one's: unchanged
    /// unless the wrapper reshapes a successful answer (the buddy envelope).
    fn output_schema(&self, inner: Option<JsonSchema>) -> Option<JsonSchema> {
        inner
    }
}

struct Wrapped {
    // Owned: `Tool` lends `&str` from `self`.
    name: String,
    description: String,
    inner: DefinedTool,
    around: Arc<dyn Around>,
}

#[async_trait]
impl Tool for Wrapped {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> JsonSchema {
        self.inner.parameters()
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        self.around.call(&self.inner, input, ctx).await
    }

    fn strict_input(&self) -> bool {
        self.inner.strict_input()
    }

    // No `meta`: the inner tool checks its input itself, inside `around`, so
    // that what a wrapper adds to every answer (the harness timestamp, a
    // checkpoint's notice) it adds to a refused input too.

    fn output_schema(&self) -> Option<JsonSchema> {
        self.around.output_schema(self.inner.output_schema())
    }
}

/// `tool` with `around` put around its calls: the same name, description and
/// schema.
pub fn wrap_tool(tool: DefinedTool, around: Arc<dyn Around>) -> DefinedTool {
    define_tool(Arc::new(Wrapped {
        name: tool.name().to_string(),
        description: tool.description().to_string(),
        inner: tool,
        around,
    }))
}

/// Replace each of `names` that `registry` holds by itself wrapped in `around`,
/// in place (the order and the collections stay as they were); names it does
/// not hold are passed over.
pub fn wrap_tools<S: AsRef<str>>(
    registry: &mut ToolRegistry,
    names: impl IntoIterator<Item = S>,
    around: Arc<dyn Around>,
) {
    for name in names {
        if let Some(tool) = registry.get(name.as_ref()).cloned() {
            registry.register(wrap_tool(tool, Arc::clone(&around)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    struct Shout;

    #[async_trait]
    impl Around for Shout {
        async fn call(&self, inner: &DefinedTool, input: Value, ctx: &ToolContext) -> ToolResult {
            let result = inner.run_result(input, ctx).await;
            let said = result.project().as_str().unwrap_or_default().to_uppercase();
            ToolResult::text(format!("{}: {said}", inner.name()))
        }
    }

    struct Echo;

    #[async_trait]
    impl Tool for Echo {
        fn name(&self) -> &str {
            "echo"
        }
        fn description(&self) -> &str {
            "Says it back."
        }
        fn parameters(&self) -> JsonSchema {
            json!({"type": "object", "properties": {"say": {"type": "string"}}})
        }
        async fn run(&self, input: Value, _ctx: &ToolContext) -> ToolResult {
            ToolResult::text(input["say"].as_str().unwrap_or_default())
        }
    }

    #[tokio::test]
    async fn a_wrapped_tool_keeps_its_face_and_changes_its_answer() {
        let mut registry = ToolRegistry::new();
        registry.register(define_tool(Arc::new(Echo)));
        wrap_tools(&mut registry, ["echo", "absent"], Arc::new(Shout));
        let tool = registry.get("echo").unwrap();
        assert_eq!(tool.name(), "echo");
        assert_eq!(tool.description(), "Says it back.");
        assert_eq!(tool.parameters()["properties"]["say"]["type"], "string");
        assert_eq!(registry.names(), ["echo"]);
        let ctx = crate::backends::local::make_local_context(".", None, None, None);
        let result = tool.run_result(json!({"say": "hi"}), &ctx).await;
        assert_eq!(result.project(), "echo: HI");
    }
}
