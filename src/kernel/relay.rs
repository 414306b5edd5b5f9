//! Notices a running call sends back to whoever made it: progress and log lines.
//!
//! A tool answers once, at the end; some calls (an MCP server's long operation)
//! also report along the way. Whoever serves the call decides where those reports
//! go — `indus-tool mcp` forwards them to its own client under the client's
//! progress token, the warm broker writes them down its socket to the caller —
//! so the serving side installs a [`Relay`] for the call's future, and the code
//! that receives reports deep inside the call (the MCP client) asks for
//! [`current`]. With no relay installed the reports stay where they arrived
//! (the MCP client shows them on a terminal). A grafted tool also sends its
//! server's answer as it came ([`Notice::Result`]), so that `indus-tool mcp`
//! passes it on unchanged.
//!
//! A task-local rather than a field of `ToolContext`: the context is built by the
//! host's factory for every face, and only the serving faces have anywhere to
//! send a notice; the runner runs a call inline, on the task that made it, so the
//! scope reaches the tool.

use std::future::Future;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One report from inside a call, in MCP's terms (the shapes of
/// `notifications/progress` and `notifications/message`, without their routing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Notice {
    Progress {
        progress: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    Log {
        /// MCP's level name (`debug` … `emergency`).
        level: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        logger: Option<String>,
        data: Value,
    },
    /// The call's answer as the server it was passed to gave it (a grafted
    /// tool's MCP result, whole): a face that itself speaks MCP answers with it
    /// verbatim, where the tool's own projection would reshape it.
    Result { result: Value },
}

/// Where a call's notices go. Sending never blocks and never fails the call:
/// a relay whose receiver is gone drops the notice.
#[derive(Clone)]
pub struct Relay(Arc<dyn Fn(Notice) + Send + Sync>);

impl Relay {
    pub fn new(send: impl Fn(Notice) + Send + Sync + 'static) -> Self {
        Self(Arc::new(send))
    }

    pub fn send(&self, notice: Notice) {
        (self.0)(notice)
    }
}

impl std::fmt::Debug for Relay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Relay")
    }
}

tokio::task_local! {
    static RELAY: Relay;
}

/// Run `call` with `relay` receiving its notices.
pub async fn relayed<F: Future>(relay: Relay, call: F) -> F::Output {
    RELAY.scope(relay, call).await
}

/// The relay of the call running on this task, if its server installed one.
pub fn current() -> Option<Relay> {
    RELAY.try_with(Relay::clone).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[tokio::test]
    async fn a_relay_reaches_the_call_and_only_it() {
        assert!(current().is_none());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let relay = Relay::new(move |n| sink.lock().unwrap().push(n));
        relayed(relay, async {
            tokio::task::yield_now().await;
            current().expect("installed").send(Notice::Progress {
                progress: 1.0,
                total: Some(2.0),
                message: None,
            });
        })
        .await;
        assert!(current().is_none());
        assert_eq!(seen.lock().unwrap().len(), 1);
    }

    #[test]
    fn notices_cross_a_wire_unchanged() {
        let notices = [
            Notice::Progress {
                progress: 0.5,
                total: None,
                message: Some("half".into()),
            },
            Notice::Log {
                level: "info".into(),
                logger: Some("srv".into()),
                data: serde_json::json!({"k": [1]}),
            },
        ];
        for n in notices {
            let wire = serde_json::to_string(&n).unwrap();
            assert_eq!(serde_json::from_str::<Notice>(&wire).unwrap(), n);
        }
    }
}
