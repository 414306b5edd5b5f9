//! The buddy seed's JSON envelope: every result becomes
//! `{"harness_timestamp": {"source": "harness", "unix_millis": …}, "result": …}`,
//! where `result` is what a program reads of the tool's output (its record, or
//! its text as a string). On in the `buddy` profile, and in any other with
//! `--envelope` (`INDUS_ENVELOPE`).
//!
//! One wrapper over the registry's tools, so the command line, `call`, `batch` and
//! `mcp serve` all answer alike; names, descriptions and schemas are the inner
//! tool's, and a failure stays a failure (exit status and `isError` unchanged).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::kernel::{
    Around, DefinedTool, JsonSchema, ToolContext, ToolRegistry, ToolResult, program_view,
    wrap_tools,
};

/// `result` wrapped with the harness's clock reading `unix_millis`.
pub fn envelope(result: &ToolResult, unix_millis: u64) -> ToolResult {
    ToolResult {
        content: vec![crate::kernel::ToolContentBlock::Json(json!({
            "harness_timestamp": {"source": "harness", "unix_millis": unix_millis},
            "result": program_view(&result.project()),
        }))],
        is_error: result.is_error,
    }
}

struct Envelope;

#[async_trait]
impl Around for Envelope {
    async fn call(&self, inner: &DefinedTool, input: Value, ctx: &ToolContext) -> ToolResult {
        let result = inner.run_result(input, ctx).await;
        envelope(&result, crate::kernel::clock::now_ms())
    }

    /// Every answer becomes the envelope, so every wrapped tool has a record:
    /// `result` is the inner tool's record, or its text as a string.
    fn output_schema(&self, inner: Option<JsonSchema>) -> Option<JsonSchema> {
        Some(envelope_schema(inner.unwrap_or_else(
            || json!({ "type": "string", "description": "The tool's text." }),
        )))
    }
}

/// The schema of [`envelope`] around a result described by `result`. The seed
/// fixes these snake_case names.
pub fn envelope_schema(result: JsonSchema) -> JsonSchema {
    json!({
        "type": "object",
        "description": "The buddy envelope: the harness's clock reading and the tool's result.",
        "properties": {
            "harness_timestamp": {
                "type": "object",
                "properties": {
                    "source": { "type": "string", "enum": ["harness"] },
                    "unix_millis": { "type": "integer", "description": "Epoch milliseconds." }
                },
                "required": ["source", "unix_millis"],
                "additionalProperties": false
            },
            "result": result
        },
        "required": ["harness_timestamp", "result"],
        "additionalProperties": false
    })
}

/// Wrap every tool of `registry` in the envelope (same names, same order).
pub fn install_envelope(registry: &mut ToolRegistry) {
    let names = registry.names();
    wrap_tools(registry, names, Arc::new(Envelope));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_wrapped_with_the_harness_clock() {
        let e = envelope(&ToolResult::text("Wrote 3 bytes to /a"), 1_772_283_708_794);
        assert_eq!(
            e.content,
            vec![crate::kernel::ToolContentBlock::Json(json!({
                "harness_timestamp": {"source": "harness", "unix_millis": 1_772_283_708_794_u64},
                "result": "Wrote 3 bytes to /a"
            }))]
        );
        let failed = envelope(&ToolResult::failure("Command execution denied by user."), 1);
        assert!(failed.is_error);
        assert_eq!(
            failed.project()["result"],
            "Command execution denied by user."
        );
        let record = ToolResult {
            content: vec![
                crate::kernel::ToolContentBlock::Text("x".into()),
                crate::kernel::ToolContentBlock::Json(json!({"exit_code": 0})),
            ],
            is_error: false,
        };
        assert_eq!(
            envelope(&record, 1).project()["result"],
            json!({"exit_code": 0})
        );
    }
}
