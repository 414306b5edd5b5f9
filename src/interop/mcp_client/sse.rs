//! The legacy HTTP+SSE transport (MCP 2024-11-05), for servers that predate
//! Streamable HTTP: the client opens a `GET` event stream, whose first event
//! (`endpoint`) names the URL to `POST` each JSON-RPC message to; the server's
//! messages (answers and notifications alike) arrive as `message` events on the
//! stream.
//!
//! Written here because rmcp 3.9 dropped its SSE client; it is only the glue
//! between reqwest, the `sse-stream` parser (the one rmcp itself uses for
//! Streamable HTTP) and rmcp's sink/stream transport adapter. Two tasks carry
//! the traffic, and both end when rmcp drops the transport: the writer when its
//! channel closes (it then aborts the reader, which would otherwise wait on the
//! open stream), the reader when the stream ends or its channel closes. A failed
//! `POST` ends the stream too, so a pending request sees the transport close
//! instead of waiting out its timeout.

use futures_channel::mpsc;
use futures_util::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use sse_stream::SseStream;

/// The transport's two halves, as rmcp's sink/stream adapter takes them.
pub type Halves = (
    mpsc::Sender<TxJsonRpcMessage<RoleClient>>,
    mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
);

/// Open the event stream at `url` and wait for its `endpoint` event.
pub async fn open(url: &str, headers: HeaderMap) -> Result<Halves, String> {
    let base = url::Url::parse(url).map_err(|e| format!("the URL {url} is not valid: {e}"))?;
    let client = crate::backends::net::client_builder()
        .default_headers(headers)
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
    let response = client
        .get(base.clone())
        .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
        .send()
        .await
        .map_err(|e| format!("GET {url} failed: {e}"))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("GET {url} (the SSE stream) answered {status}"));
    }
    let is_sse = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !is_sse {
        return Err(format!("GET {url} did not answer with an event stream"));
    }
    let mut events = SseStream::from_bytes_stream(response.bytes_stream());
    let endpoint = loop {
        match events.next().await {
            Some(Ok(event)) if event.event.as_deref() == Some("endpoint") => {
                let target = event.data.unwrap_or_default();
                break base.join(target.trim()).map_err(|e| {
                    format!("the SSE stream named an invalid endpoint {target:?}: {e}")
                })?;
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(format!("the SSE stream of {url} broke: {e}")),
            None => {
                return Err(format!(
                    "the SSE stream of {url} ended before naming its endpoint"
                ));
            }
        }
    };

    let (incoming_tx, incoming_rx) = mpsc::channel::<RxJsonRpcMessage<RoleClient>>(64);
    let (outgoing_tx, mut outgoing_rx) = mpsc::channel::<TxJsonRpcMessage<RoleClient>>(64);
    let reader = tokio::spawn(async move {
        let mut incoming_tx = incoming_tx;
        while let Some(Ok(event)) = events.next().await {
            if !matches!(event.event.as_deref(), None | Some("message")) {
                continue;
            }
            let Some(data) = event.data else { continue };
            // A message that is not JSON-RPC is skipped, as a line of noise on a
            // stdio server's output would be.
            let Ok(message) = serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&data) else {
                continue;
            };
            if futures_util::SinkExt::send(&mut incoming_tx, message)
                .await
                .is_err()
            {
                break;
            }
        }
    });
    tokio::spawn(async move {
        while let Some(message) = outgoing_rx.next().await {
            let posted = client
                .post(endpoint.clone())
                .json(&message)
                .send()
                .await
                .map_err(|e| e.to_string())
                .and_then(|r| {
                    if r.status().is_success() {
                        Ok(())
                    } else {
                        Err(r.status().to_string())
                    }
                });
            if posted.is_err() {
                break;
            }
        }
        reader.abort();
    });
    Ok((outgoing_tx, incoming_rx))
}
