//! The MCP server's line transport: newline-delimited JSON-RPC, read and written here
//! rather than by rmcp's `AsyncRwTransport`, so that every line a client sends is
//! either served or answered as JSON-RPC 2.0 says.
//!
//! Why this exists: rmcp (3.9) drops a line that is not JSON without a word (its
//! guard against two peers answering each other's garbage forever), leaves the `id`
//! out of the errors it does send where JSON-RPC wants `"id": null`, answers a request
//! sent before `initialize` with a complaint about missing `_meta` fields (the
//! stateless lifecycle of MCP 2026-07-28), and ends the whole server when the first
//! message is a notification. A client that slips once then waits forever or loses
//! the server. Here:
//!
//! - a line that is not JSON (or is over [`MAX_LINE`]) gets a `-32700` parse error
//!   with `"id": null`, and the next line is read as usual;
//! - JSON that is not a JSON-RPC message gets `-32600` (with the message's id when it
//!   had a usable one), a request whose params do not fit its method `-32602`;
//! - before the handshake, a request other than `initialize`, `ping` and
//!   `server/discover` that does not carry the inline protocol metadata gets
//!   [`NOT_INITIALIZED`], and notifications and responses are dropped;
//! - a notification or response that cannot be used is dropped: JSON-RPC never
//!   answers either, which is also why the storm rmcp guards against cannot start
//!   here (every answer is a response).
//!
//! Everything else is handed to rmcp as it came, and rmcp's messages are written one
//! JSON line each, exactly as its own codec writes them.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::ClientJsonRpcMessage;
use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest line read as one message, newline excluded: 16 MiB, rmcp's own bound.
/// A longer line is skipped as it streams in, never held, and answered as a parse
/// error.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// JSON-RPC's "Parse error": the line is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's "Invalid Request": JSON, but not a request, notification or response.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's "Invalid params": the params do not fit the method.
pub const INVALID_PARAMS: i64 = -32602;
/// A request before `initialize`. JSON-RPC leaves -32000 to -32099 to the server;
/// this is the code the Language Server Protocol gives the same case
/// (`ServerNotInitialized`), which clients already know.
pub const NOT_INITIALIZED: i64 = -32002;

/// The `_meta` key that marks a request of MCP's stateless lifecycle (2026-07-28),
/// which needs no `initialize`; rmcp checks the rest of that lifecycle itself.
const INLINE_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

type Sending = Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>>;

/// Newline-delimited JSON-RPC over a reader and a writer (standard input and output
/// for `indus-tool mcp`), as an rmcp server transport.
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line read so far. `receive` runs inside rmcp's `select!` and may be
    /// dropped at any await, so a partial line lives here, not in a local.
    line: Vec<u8>,
    /// Skipping the rest of a line already known to be over [`MAX_LINE`].
    skipping: bool,
    /// An answer to a bad line, being written. Kept across a dropped `receive` so
    /// it is finished, not lost, before the next line is read.
    answering: Option<Sending>,
    /// Whether the lifecycle has begun: an `initialize` (or a request carrying the
    /// inline protocol metadata) has been handed to rmcp.
    begun: bool,
    out: Arc<Mutex<Option<Output<W>>>>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            skipping: false,
            answering: None,
            begun: false,
            out: Arc::new(Mutex::new(Some(Output {
                write,
                pending: Vec::new(),
            }))),
        }
    }

    /// Read up to the end of the next line into `self.line`. Cancel-safe: bytes
    /// are moved from the buffer to `self.line` (or skipped) with no await in
    /// between, so a dropped call leaves them for the next one.
    async fn read_line(&mut self) -> Read {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(bytes) => bytes,
                Err(e) => return Read::Failed(e),
            };
            // End of input. A last line without its newline is an unfinished
            // message, as for rmcp: there is nothing to hand on or answer.
            if available.is_empty() {
                return Read::End;
            }
            let newline = memchr::memchr(b'\n', available);
            let take = newline.map_or(available.len(), |i| i + 1);
            let content = take - usize::from(newline.is_some());
            let done = if self.skipping {
                newline.map(|_| Read::TooLong)
            } else if self.line.len() + content > MAX_LINE {
                self.line.clear();
                self.skipping = newline.is_none();
                newline.map(|_| Read::TooLong)
            } else {
                self.line.extend_from_slice(&available[..take]);
                newline.map(|_| Read::Line)
            };
            self.read.consume(take);
            if let Some(read) = done {
                self.skipping = false;
                return read;
            }
        }
    }

    /// Start writing `answer` (a whole JSON-RPC response) as one line.
    fn answer(&mut self, answer: &Value) {
        let mut line = answer.to_string().into_bytes();
        line.push(b'\n');
        self.answering = Some(Box::pin(write_line(Arc::clone(&self.out), line)));
    }
}

/// What one line comes to.
#[derive(Debug)]
enum Verdict {
    /// A message for rmcp.
    Serve(Box<ClientJsonRpcMessage>),
    /// An error response to write back.
    Answer(Value),
    /// Nothing to serve or answer (a blank line, a notification or response that
    /// cannot be used).
    Drop,
}

/// How a read ended.
enum Read {
    Line,
    TooLong,
    End,
    Failed(std::io::Error),
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        let out = Arc::clone(&self.out);
        async move { write_line(out, line.map_err(std::io::Error::other)?).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(answering) = self.answering.as_mut() {
                let written = answering.await;
                self.answering = None;
                // Standard output is gone: nothing more can be answered.
                written.ok()?;
            }
            let verdict = match self.read_line().await {
                Read::Line => {
                    let verdict = judge(&self.line, &mut self.begun);
                    self.line.clear();
                    verdict
                }
                Read::TooLong => Verdict::Answer(error_response(
                    None,
                    PARSE_ERROR,
                    format!(
                        "Parse error: the line is over {MAX_LINE} bytes (16 MiB), the most the server reads as one message."
                    ),
                )),
                Read::End => return None,
                Read::Failed(e) => {
                    eprintln!("mcp: cannot read standard input: {e}");
                    return None;
                }
            };
            match verdict {
                Verdict::Serve(message) => return Some(*message),
                Verdict::Answer(answer) => self.answer(&answer),
                Verdict::Drop => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let output = self.out.lock().await.take();
        match output {
            Some(mut output) => output.drain().await,
            None => Ok(()),
        }
    }
}

/// The writing end, shared by rmcp's sends and this transport's answers.
struct Output<W> {
    write: W,
    /// Bytes accepted but not yet written: a send dropped halfway leaves the rest
    /// of its line here, and the next write finishes it first, so lines never
    /// interleave.
    pending: Vec<u8>,
}

impl<W: AsyncWrite + Unpin> Output<W> {
    async fn drain(&mut self) -> std::io::Result<()> {
        while !self.pending.is_empty() {
            let n = self.write.write(&self.pending).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            self.pending.drain(..n);
        }
        self.write.flush().await
    }
}

async fn write_line<W: AsyncWrite + Unpin>(
    out: Arc<Mutex<Option<Output<W>>>>,
    line: Vec<u8>,
) -> std::io::Result<()> {
    let mut out = out.lock().await;
    let Some(output) = out.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotConnected,
            "the transport is closed",
        ));
    };
    output.pending.extend_from_slice(&line);
    output.drain().await
}

/// A JSON-RPC error response. `id` is the request's, or null when it could not be
/// read (JSON-RPC 2.0, section 5: "If there was an error in detecting the id in the
/// Request object (e.g. Parse error/Invalid Request), it MUST be Null").
fn error_response(id: Option<&Value>, code: i64, message: String) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id.cloned().unwrap_or(Value::Null),
        "error": {"code": code, "message": message},
    })
}

/// Decide what one line (its newline included) comes to, and note in `begun`
/// when it starts the lifecycle.
fn judge(line: &[u8], begun: &mut bool) -> Verdict {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    // A UTF-8 byte order mark, as some Windows writers put first.
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.trim_ascii().is_empty() {
        return Verdict::Drop;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => {
            return Verdict::Answer(error_response(
                None,
                PARSE_ERROR,
                format!("Parse error: {e}."),
            ));
        }
    };
    let invalid = |id: Option<&Value>, why: &str| {
        Verdict::Answer(error_response(
            id,
            INVALID_REQUEST,
            format!("Invalid Request: {why}"),
        ))
    };
    let obj = match &value {
        Value::Object(obj) => obj,
        Value::Array(_) => {
            return invalid(
                None,
                "a batch (a JSON array) is not accepted; send one message per line.",
            );
        }
        other => {
            return invalid(
                None,
                &format!(
                    "expected a JSON-RPC message object, got {}.",
                    crate::kernel::input::describe_value(other)
                ),
            );
        }
    };
    let given_id = obj.get("id");
    // An id the answer can carry: a string or an integer, as MCP allows.
    let id = given_id.filter(|id| id.is_string() || id.is_i64() || id.is_u64());
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return if is_response(obj) || given_id.is_none() {
            Verdict::Drop
        } else {
            invalid(id, "\"jsonrpc\" must be \"2.0\".")
        };
    }
    let method = match obj.get("method") {
        None if is_response(obj) => {
            // Responses go to rmcp only once the lifecycle has begun; before, the
            // server has asked nothing.
            return match parse_message(&value) {
                Some(message) if *begun => Verdict::Serve(Box::new(message)),
                _ => Verdict::Drop,
            };
        }
        None => {
            return invalid(
                id,
                "a message needs a \"method\" (a request or a notification) or a \"result\" or \"error\" (a response).",
            );
        }
        Some(Value::String(method)) => method.clone(),
        Some(_) => return invalid(id, "\"method\" must be a string."),
    };
    if given_id.is_none() {
        // A notification: never answered, so one that is not understood, or
        // that comes before the lifecycle began, is dropped.
        return match parse_message(&value) {
            Some(message) if *begun => Verdict::Serve(Box::new(message)),
            _ => Verdict::Drop,
        };
    }
    let Some(id) = id else {
        return invalid(None, "\"id\" must be a string or an integer.");
    };
    let inline = obj
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(INLINE_PROTOCOL_VERSION))
        .is_some();
    if !*begun && !inline && !matches!(method.as_str(), "initialize" | "ping" | "server/discover") {
        return Verdict::Answer(error_response(
            Some(id),
            NOT_INITIALIZED,
            format!(
                "Server not initialized: the first request must be \"initialize\", not \"{method}\"."
            ),
        ));
    }
    match parse_message(&value) {
        // rmcp takes any request it cannot read as its method's shape as a
        // custom one, and answers that "method not found"; a method MCP defines
        // whose params are wrong is JSON-RPC's "invalid params".
        Some(rmcp::model::JsonRpcMessage::Request(r))
            if matches!(r.request, rmcp::model::ClientRequest::CustomRequest(_))
                && STANDARD_METHODS.contains(&method.as_str()) =>
        {
            Verdict::Answer(error_response(
                Some(id),
                INVALID_PARAMS,
                format!("Invalid params: {}", params_problem(&method, &value)),
            ))
        }
        Some(message) => {
            if method == "initialize" || inline {
                *begun = true;
            }
            Verdict::Serve(Box::new(message))
        }
        None => Verdict::Answer(error_response(
            Some(id),
            INVALID_PARAMS,
            format!("Invalid params: the params of \"{method}\" are not the shape it takes."),
        )),
    }
}

/// The request methods MCP defines (client to server).
const STANDARD_METHODS: [&str; 15] = [
    "ping",
    "initialize",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/cancel",
];

/// What is wrong with a standard request's params, in the words of its type
/// where there is one (`missing field \`name\``), else in general.
fn params_problem(method: &str, value: &Value) -> String {
    use rmcp::model::{CallToolRequest, GetPromptRequest, InitializeRequest, ReadResourceRequest};
    let why = match method {
        "tools/call" => CallToolRequest::deserialize(value).err(),
        "initialize" => InitializeRequest::deserialize(value).err(),
        "resources/read" => ReadResourceRequest::deserialize(value).err(),
        "prompts/get" => GetPromptRequest::deserialize(value).err(),
        _ => None,
    };
    match why {
        Some(e) => format!("the params of \"{method}\" are not the shape it takes ({e})."),
        None => format!("the params of \"{method}\" are not the shape it takes."),
    }
}

/// `value` as the message rmcp takes, if it is one.
fn parse_message(value: &Value) -> Option<ClientJsonRpcMessage> {
    ClientJsonRpcMessage::deserialize(value).ok()
}

fn is_response(obj: &Map<String, Value>) -> bool {
    !obj.contains_key("method") && (obj.contains_key("result") || obj.contains_key("error"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str, begun: bool) -> Value {
        let mut begun = begun;
        match judge(format!("{line}\n").as_bytes(), &mut begun) {
            Verdict::Answer(v) => v,
            other => panic!("{line}: expected an answer, got {other:?}"),
        }
    }

    fn served(line: &str, begun: &mut bool) -> bool {
        matches!(judge(line.as_bytes(), begun), Verdict::Serve(_))
    }

    #[test]
    fn lines_that_are_not_messages_are_answered() {
        let parse = answer("not json", true);
        assert_eq!(parse["id"], Value::Null);
        assert_eq!(parse["error"]["code"], PARSE_ERROR);
        assert_eq!(
            parse["error"]["message"],
            "Parse error: expected ident at line 1 column 2."
        );
        assert_eq!(answer("[1]", true)["error"]["code"], INVALID_REQUEST);
        assert_eq!(answer("7", true)["error"]["code"], INVALID_REQUEST);
        let no_method = answer(r#"{"jsonrpc":"2.0","id":"a"}"#, true);
        assert_eq!(no_method["id"], "a");
        assert_eq!(no_method["error"]["code"], INVALID_REQUEST);
        let version = answer(r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#, true);
        assert_eq!(version["id"], 3);
        assert_eq!(
            version["error"]["message"],
            "Invalid Request: \"jsonrpc\" must be \"2.0\"."
        );
        let bad_id = answer(r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, true);
        assert_eq!(bad_id["id"], Value::Null);
        let params = answer(
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":7}"#,
            true,
        );
        assert_eq!(params["id"], 4);
        assert_eq!(params["error"]["code"], INVALID_PARAMS);
        // Without the tool's name: invalid params, not an unknown method.
        for line in [
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call"}"#,
        ] {
            let nameless = answer(line, true);
            assert_eq!(nameless["error"]["code"], INVALID_PARAMS, "{line}");
            let message = nameless["error"]["message"].as_str().unwrap();
            assert!(
                message.starts_with("Invalid params: the params of \"tools/call\""),
                "{message}"
            );
        }
        // An unknown method still reaches rmcp, which says so.
        let mut begun = true;
        assert!(served(
            r#"{"jsonrpc":"2.0","id":6,"method":"x/y","params":{}}"#,
            &mut begun
        ));
    }

    #[test]
    fn the_lifecycle_starts_with_initialize() {
        let mut begun = false;
        let early = answer(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, false);
        assert_eq!(early["id"], 1);
        assert_eq!(early["error"]["code"], NOT_INITIALIZED);
        assert_eq!(
            early["error"]["message"],
            "Server not initialized: the first request must be \"initialize\", not \"tools/list\"."
        );
        // Notifications and responses before the handshake are dropped.
        for line in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            "   ",
        ] {
            assert!(matches!(judge(line.as_bytes(), &mut begun), Verdict::Drop));
        }
        assert!(served(
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            &mut begun
        ));
        assert!(!begun);
        assert!(served(
            r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"0"}}}"#,
            &mut begun
        ));
        assert!(begun);
        assert!(served(
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            &mut begun
        ));
        assert!(served(
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\r\n",
            &mut begun
        ));
    }
}
