//! `time`: the harness's wall-clock time, so a model can timestamp actions or
//! measure durations without running `date` (which, on a remote target, would
//! give the remote's clock). Formats come from chrono.

use crate::kernel::{Seat, ToolMeta};
use std::sync::Arc;

use async_trait::async_trait;
use chrono::{DateTime, Local, Utc};
use serde_json::{Value, json};

use crate::kernel::input::Args;
use crate::kernel::{DefinedTool, Tool, ToolContext, ToolResult, define_tool};
use crate::tools::text_and_record;

struct TimeTool;

/// The record of one instant: epoch milliseconds, ISO-8601 and RFC 2822 in UTC,
/// and ISO-8601 with the machine's local offset.
pub fn time_record(now: DateTime<Utc>) -> Value {
    let local = now.with_timezone(&Local);
    json!({
        "unix_millis": now.timestamp_millis(),
        "iso_8601_utc": now.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        "rfc_2822_utc": now.to_rfc2822(),
        "iso_8601_local": local.format("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string(),
        "local_offset": local.format("%:z").to_string(),
    })
}

/// The `time` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Operator { in_all: true },
    output: Some(include_str!("time.output.json")),
    ..ToolMeta::new(
        "time",
        "Current time",
        "Return the harness's wall-clock time in epoch, ISO-8601 and RFC 2822 forms.",
    )
};

#[async_trait]
impl Tool for TimeTool {
    fn description(&self) -> &str {
        "The harness's current wall-clock time (unix_millis, ISO 8601 UTC and local, RFC 2822).\n\nWhen to use: to timestamp an action or compute a deadline.\n\nWhen NOT to use: for a remote machine's clock (run `date` there).\n\nDisambiguation: the toolbox's clock, not the shell target's.\n\nExamples: {} → {\"iso_8601_utc\": \"2026-02-28T13:01:48.794Z\", …}"
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, _ctx: &ToolContext) -> ToolResult {
        if let Err(e) = Args::new(META.name, &input) {
            return ToolResult::failure(e);
        }
        let record = time_record(Utc::now());
        let text = [
            "unix_millis",
            "iso_8601_utc",
            "rfc_2822_utc",
            "iso_8601_local",
            "local_offset",
        ]
        .iter()
        .map(|k| match &record[*k] {
            Value::String(s) => format!("{k}: {s}"),
            other => format!("{k}: {other}"),
        })
        .collect::<Vec<_>>()
        .join("\n");
        text_and_record(text, record, false)
    }
}

/// The `time` tool.
pub fn time_tool() -> DefinedTool {
    define_tool(Arc::new(TimeTool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn an_instant_in_every_format() {
        let t = Utc.timestamp_millis_opt(1_772_283_708_794).unwrap();
        let r = time_record(t);
        assert_eq!(r["unix_millis"], 1_772_283_708_794_i64);
        assert_eq!(r["iso_8601_utc"], "2026-02-28T13:01:48.794Z");
        assert_eq!(r["rfc_2822_utc"], "Sat, 28 Feb 2026 13:01:48 +0000");
        let offset = r["local_offset"].as_str().unwrap();
        assert!(offset.len() == 6 && (offset.starts_with('+') || offset.starts_with('-')));
        assert!(r["iso_8601_local"].as_str().unwrap().ends_with(offset));
    }
}
