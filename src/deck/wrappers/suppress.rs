//! Repeated-failure suppression (the buddy seed's "To reduce retry loops"): the
//! same call — a tool and its arguments, as canonical JSON — failing with the
//! same message more than a threshold of times in a session is not run again;
//! its answer is a fixed remediation error instead. A success of the same call,
//! or a different failure, resets its count; a success of a call that can change
//! the world (its descriptor says so: a write, an edit, a command) resets every
//! count of the session, since it may have fixed the cause (a `bash 'make'`
//! between two failed `read`s of its output makes them different calls); and a
//! run of failures is forgotten 10 minutes after the last one.
//!
//! One wrapper over every tool; the counts live in the session's folder of the
//! state store (`.indus-process/sessions/<session>/failures.json`, keyed by a
//! hash of the call), so they hold across invocations. On by default in the
//! `buddy` profile, in `batch` and in `mcp serve`; opt-in for one-shot calls.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::kernel::{
    Around, DefinedTool, ToolContentBlock, ToolContext, ToolRegistry, ToolResult, wrap_tools,
};
use crate::state::StateDir;

/// The state file, inside the session's folder.
pub const FAILURES_FILE: &str = "failures.json";

/// One call's run of identical failures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failures {
    pub tool: String,
    pub count: u32,
    /// The repeated error message.
    pub message: String,
    /// When it last failed (epoch milliseconds).
    #[serde(default)]
    pub at: u64,
    /// This user's seal of the entry and its key: an entry that came with a
    /// checkout refuses nothing, and its message is never shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seal: Option<String>,
}

/// The seal's domain for failure entries.
const SEAL_DOMAIN: &str = "indus-tool failures 1";

impl Failures {
    fn sealed_part<'a>(&'a self, key: &'a str) -> impl Serialize + 'a {
        (key, &self.tool, self.count, &self.message, self.at)
    }

    fn seal(&mut self, key: &str) {
        let seal = crate::state::user::seal_json(SEAL_DOMAIN, &self.sealed_part(key));
        self.seal = seal;
    }

    /// Whether this user's toolbox wrote the entry under `key`.
    fn sealed(&self, key: &str) -> bool {
        crate::state::user::verify_json(SEAL_DOMAIN, &self.sealed_part(key), self.seal.as_deref())
    }

    /// Whether the entry still counts at `now`: sealed and within the window. A
    /// stamp in the future (a clock set back) counts as now: it cannot lengthen
    /// the window past 10 minutes from now, and the seal rules out a forged one.
    fn current(&self, key: &str, now: u64) -> bool {
        now - self.at.min(now) < WINDOW_MS && self.sealed(key)
    }
}

/// How long a run of failures is remembered: a retry after this long (the cause
/// may be fixed by then) runs again.
pub const WINDOW_MS: u64 = 10 * 60 * 1000;

type Table = BTreeMap<String, Failures>;

fn key_of(tool: &str, input: &Value) -> String {
    let canonical = crate::kernel::digest::canonical_json(input);
    crate::kernel::digest::sha256_hex(format!("{tool}\n{canonical}").as_bytes())[..32].to_string()
}

fn message_of(result: &ToolResult) -> String {
    result
        .content
        .iter()
        .map(|b| match b {
            ToolContentBlock::Text(t) => t.clone(),
            ToolContentBlock::Json(v) => v.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The answer to a suppressed call.
pub fn remediation(tool: &str, count: u32, message: &str) -> String {
    let first = message.lines().next().unwrap_or("");
    format!(
        "Not run: {tool} with these exact arguments has already failed {count} times in this session with the same error (\"{first}\"). Running it again unchanged will fail again: change the arguments, or fix the cause first (the same call runs again 10 minutes after its last failure, or in another session)."
    )
}

struct Suppressing {
    threshold: u32,
}

#[async_trait]
impl Around for Suppressing {
    async fn call(&self, inner: &DefinedTool, input: Value, ctx: &ToolContext) -> ToolResult {
        let name = inner.name();
        let state = StateDir::of(ctx);
        let rel = crate::deck::cards::session::session_rel(ctx, FAILURES_FILE);
        let key = key_of(name, &input);
        // A session with no failures has no file: one `stat`, no lock.
        let now = crate::kernel::clock::now_ms();
        let have_file = std::fs::symlink_metadata(state.path(&rel)).is_ok();
        let record = if have_file {
            state
                .load::<Table>(&rel)
                .ok()
                .and_then(|mut t| t.remove(&key))
                .filter(|f| f.current(&key, now))
        } else {
            None
        };
        if let Some(f) = &record
            && f.count >= self.threshold
        {
            return ToolResult::failure(remediation(name, f.count, &f.message));
        }
        let known = record.is_some();
        let result = inner.run_result(input, ctx).await;
        let fixing = !result.is_error && crate::deck::changes_the_world(name);
        // A success of a call with no record changes nothing: nothing is written
        // (unless it may have fixed every other call's cause, and there are some).
        let others = fixing && have_file;
        if !(result.is_error || known || others) {
            return result;
        }
        let message = message_of(&result);
        let is_error = result.is_error;
        let (tool, threshold) = (name.to_string(), self.threshold);
        // Best effort, and not waiting for the disk (a lost count costs a retry):
        // a state folder that cannot be written must not fail the call.
        let _ = (|| -> std::io::Result<()> {
            let lock = state.lock()?;
            let mut table: Table = state.read(&lock, &rel)?;
            let now = crate::kernel::clock::now_ms();
            // Entries this user's toolbox did not write are dropped as it goes.
            table.retain(|k, f| f.sealed(k));
            if fixing {
                table.clear();
            } else if !is_error {
                table.remove(&key);
            } else {
                let entry = table.entry(key.clone()).or_insert(Failures {
                    tool,
                    count: 0,
                    message: message.clone(),
                    at: now,
                    seal: None,
                });
                let fresh = entry.current(&key, now);
                entry.at = now;
                if entry.message == message && fresh {
                    entry.count = (entry.count + 1).min(threshold);
                } else {
                    entry.count = 1;
                    entry.message = message;
                }
                entry.seal(&key);
            }
            state.write_unsynced(&lock, &rel, &table)
        })();
        result
    }
}

/// Wrap every tool of `registry` in suppression after `threshold` identical
/// failures.
pub fn install_suppression(registry: &mut ToolRegistry, threshold: u32) {
    let names = registry.names();
    let threshold = threshold.max(1);
    wrap_tools(registry, names, Arc::new(Suppressing { threshold }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stamp_in_the_future_counts_as_now() {
        let key = key_of("read", &json!({"path": "x"}));
        let mut f = Failures {
            tool: "read".into(),
            count: 3,
            message: "m".into(),
            at: 0,
            seal: None,
        };
        let now = 1_000_000_000;
        for (at, current) in [
            (now, true),
            (now - WINDOW_MS + 1, true),
            (now - WINDOW_MS, false),
            // A clock set back: the run still counts, for 10 minutes from now.
            (now + 5 * WINDOW_MS, true),
        ] {
            f.at = at;
            f.seal(&key);
            assert_eq!(f.current(&key, now), current, "at {at}");
        }
        // Unsealed (not this user's): never counts.
        f.seal = None;
        assert!(!f.current(&key, now));
    }

    #[test]
    fn calls_are_keyed_by_tool_and_canonical_arguments() {
        assert_eq!(
            key_of("read", &json!({"a": 1, "b": [1, 2]})),
            key_of("read", &json!({"b": [1, 2], "a": 1}))
        );
        assert_ne!(
            key_of("read", &json!({"a": 1})),
            key_of("ls", &json!({"a": 1}))
        );
        assert_ne!(
            key_of("read", &json!({"b": [1, 2]})),
            key_of("read", &json!({"b": [2, 1]}))
        );
    }
}
