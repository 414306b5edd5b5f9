//! The MCP client through the real binary: configs that graft real MCP servers
//! started by the tests (another indus-tool's own `mcp` server over stdio as
//! `peer`, a server that crashes on start, one that never answers, one whose tool
//! hangs), with HOME and XDG_CONFIG_HOME pointed at temp dirs so the host's MCP
//! configs cannot leak in.
#![cfg(feature = "mcp")]

use crate::common;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use common::{TestEnv, alive, code, stderr, stdout, wait_until};
use serde_json::{Value, json};

fn bin_path() -> String {
    assert_cmd::cargo::cargo_bin("indus-tool")
        .to_string_lossy()
        .into_owned()
}

/// A `peer` row: another indus-tool serving its tools over stdio, in `dir`.
fn peer(dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--cwd".to_string(), dir.to_string_lossy().into_owned()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["mcp".to_string(), "--no-gate".to_string()]);
    json!({"command": bin_path(), "args": args})
}

/// Write `.indusvx/mcp.json` in the env's working directory, and trust it (a
/// project's MCP config is used only once the user trusted it).
fn configure(env: &TestEnv, servers: Value) {
    env.write(
        ".indusvx/mcp.json",
        serde_json::to_string_pretty(&json!({ "mcpServers": servers })).unwrap(),
    );
    trust(env, ".indusvx/mcp.json");
}

/// `indus-tool trust FILE` in the env's working directory.
fn trust(env: &TestEnv, file: &str) {
    let out = run(env, &["trust", file]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

fn run(env: &TestEnv, args: &[&str]) -> Output {
    env.cmd().args(args).output().expect("run indus-tool")
}

fn json_lines(out: &Output) -> Value {
    serde_json::from_str(stdout(out).trim()).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {:?} (stderr {:?})",
            stdout(out),
            stderr(out)
        )
    })
}

#[test]
fn a_peer_indus_tool_is_grafted_and_callable_every_way() {
    let env = TestEnv::new();
    env.write("f.txt", "hello\n");
    // The peer is indus-tool itself reading the same config: it must not graft
    // itself (its children run with INDUS_MCP_CHILD set).
    configure(&env, json!({ "peer": peer(env.root(), &[]) }));

    let out = run(&env, &["peer__read", "f.txt"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("     1\thello"), "{}", stdout(&out));

    let out = run(&env, &["--format", "json", "peer__read", "path=f.txt"]);
    let v = json_lines(&out);
    assert_eq!(v["is_error"], false);
    // read's record comes back as the record (the peer's structuredContent).
    assert_eq!(v["output"]["lines"], json!(["hello"]), "{v}");

    let out = run(
        &env,
        &["peer__read", "--json", r#"{"path":"f.txt","limit":1}"#],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    // JSON records come back as records (structuredContent), not twice.
    let out = run(&env, &["--format", "json", "peer__ls"]);
    let v = json_lines(&out);
    assert_eq!(v["output"]["entries"][0]["name"], "f.txt", "{v}");

    let out = run(
        &env,
        &[
            "call",
            r#"{"id":7,"name":"peer__read","input":{"path":"f.txt"}}"#,
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("hello"));

    let out = env
        .cmd()
        .arg("batch")
        .write_stdin("{\"id\":1,\"name\":\"peer__read\",\"input\":{\"path\":\"f.txt\"}}\n")
        .output()
        .unwrap();
    let v = json_lines(&out);
    assert_eq!(v["id"], 1);
    assert_eq!(v["is_error"], false);

    // Listed beside the built-ins, in no profile; no recursive grafting.
    let out = run(&env, &["--format", "json", "list"]);
    let rows = json_lines(&out);
    let names: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"read") && names.contains(&"peer__read"));
    assert!(
        !names.iter().any(|n| n.starts_with("peer__peer__")),
        "{names:?}"
    );
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "peer__read")
        .unwrap();
    assert_eq!(row["profiles"], json!([]));

    let out = run(&env, &["describe", "peer__read"]);
    assert_eq!(code(&out), 0);
    assert_eq!(json_lines(&out)["parameters"]["required"], json!(["path"]));

    // --tools can name them; --no-mcp leaves them out.
    let out = run(&env, &["--tools", "peer__read", "--format", "json", "list"]);
    assert_eq!(json_lines(&out).as_array().unwrap().len(), 1);
    let out = run(&env, &["--no-mcp", "list"]);
    assert!(!stdout(&out).contains("peer__"));
    let out = run(&env, &["--no-mcp", "peer__read", "f.txt"]);
    assert_eq!(code(&out), 2);

    // The server's isError is exit 1 with its message.
    let out = run(&env, &["peer__read", "missing.txt"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("missing.txt"), "{}", stderr(&out));

    // mcp serve re-exports the grafted tools.
    let out = run(&env, &["--format", "json", "schema"]);
    assert!(stdout(&out).contains("\"peer__read\""));
}

#[test]
fn list_describe_and_schema_read_the_cache_and_spawn_nothing() {
    let env = TestEnv::new();
    env.write("f.txt", "hello\n");
    let script = env.write(
        "peer.sh",
        format!(
            "#!/bin/sh\necho started >> {}\nexec {} \"$@\"\n",
            env.path("starts.log").display(),
            bin_path()
        ),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut row = peer(env.root(), &[]);
    row["command"] = json!(script.to_string_lossy());
    configure(&env, json!({ "peer": row }));
    let starts = || {
        std::fs::read_to_string(env.path("starts.log"))
            .unwrap_or_default()
            .lines()
            .count()
    };
    // The first invocation sees a config it has not refreshed for: one start.
    assert_eq!(code(&run(&env, &["list"])), 0);
    assert_eq!(starts(), 1);
    for args in [
        &["list"][..],
        &["describe", "peer__read"],
        &["schema"],
        &["mcp", "tools"],
        &["mcp", "servers"],
        &["mcp", "ledger"],
        &["read", "f.txt"],
    ] {
        let out = run(&env, args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    }
    assert_eq!(starts(), 1, "a cached view spawned the server");
    assert_eq!(code(&run(&env, &["peer__read", "f.txt"])), 0);
    assert_eq!(starts(), 2);
}

#[test]
fn failing_servers_are_reported_withdrawn_and_break_nothing_else() {
    let env = TestEnv::new();
    env.write("f.txt", "hello\n");
    let hang_pid = env.path("hang.pid");
    configure(
        &env,
        json!({
            "peer": peer(env.root(), &[]),
            "crash": {"command": "sh", "args": ["-c", "echo boom-on-stderr >&2; exit 3"]},
            "hang": {
                "command": "sh",
                "args": ["-c", format!("echo $$ > {}; exec sleep 60", hang_pid.display())],
                "connectTimeoutMs": 800
            },
            "absent": {"command": "/nonexistent/mcp-server"}
        }),
    );
    let out = run(&env, &["mcp", "refresh"]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(
        err.contains("mcp server \"crash\"") && err.contains("boom-on-stderr"),
        "{err}"
    );
    assert!(
        err.contains("mcp server \"hang\"") && err.contains("connect timeout"),
        "{err}"
    );
    assert!(
        err.contains("mcp server \"absent\"") && err.contains("cannot start"),
        "{err}"
    );
    // The hanging server's process group was killed.
    let pid: u32 = std::fs::read_to_string(&hang_pid)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || !alive(pid)),
        "hang still alive"
    );

    let out = run(&env, &["--format", "json", "mcp", "servers"]);
    let servers = json_lines(&out);
    let status: Vec<(String, String, u64)> = servers
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["status"].as_str().unwrap().to_string(),
                s["tools"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(status[0].0, "peer");
    assert_eq!(status[0].1, "ready");
    assert!(status[0].2 > 5);
    for (name, state, tools) in &status[1..] {
        assert_eq!((state.as_str(), *tools), ("failed", 0), "{name}");
    }
    assert!(
        servers[1]["lastError"]
            .as_str()
            .unwrap()
            .contains("boom-on-stderr")
    );

    // The others (and the built-ins) still work.
    let out = run(&env, &["peer__read", "f.txt"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(code(&run(&env, &["read", "f.txt"])), 0);
    let out = run(&env, &["mcp", "refresh", "nope"]);
    assert_eq!(code(&out), 2);
}

#[test]
fn a_call_that_outlives_its_timeout_is_an_error_and_its_processes_are_killed() {
    let env = TestEnv::new();
    let mut row = peer(env.root(), &[]);
    row["callTimeoutMs"] = json!(1500);
    configure(&env, json!({ "peer": row }));
    let started = std::time::Instant::now();
    let out = run(
        &env,
        &["peer__bash", "command=echo $$ > sleeper.pid; exec sleep 60"],
    );
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(stderr(&out).contains("call timeout"), "{}", stderr(&out));
    assert!(started.elapsed() < Duration::from_secs(20));
    let pid: u32 = env.read_string("sleeper.pid").trim().parse().unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || !alive(pid)),
        "the peer's command outlived the call"
    );
}

#[test]
fn a_config_change_refreshes_the_ledger_with_enrolls_and_retires() {
    let env = TestEnv::new();
    configure(
        &env,
        json!({ "peer": peer(env.root(), &["--tools", "read"]) }),
    );
    let tools = |env: &TestEnv| -> Vec<String> {
        let out = run(env, &["--format", "json", "mcp", "tools"]);
        json_lines(&out)
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(tools(&env), ["peer__read"]);
    configure(
        &env,
        json!({ "peer": peer(env.root(), &["--tools", "ls,read"]) }),
    );
    assert_eq!(tools(&env), ["peer__read", "peer__ls"]);
    configure(
        &env,
        json!({ "peer": peer(env.root(), &["--tools", "ls"]) }),
    );
    assert_eq!(tools(&env), ["peer__ls"]);

    let out = run(&env, &["--format", "json", "mcp", "ledger"]);
    let events: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ops: Vec<(&str, u64)> = events
        .iter()
        .map(|e| (e["op"].as_str().unwrap(), e["seq"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        ops,
        [("enroll", 1), ("enroll", 2), ("retire", 3)],
        "{events:?}"
    );
    assert_eq!(events[2]["key"], events[0]["key"]);
    assert!(events[0]["key"].as_str().unwrap().starts_with("bk_"));
    assert!(events[0]["at"].as_str().unwrap().ends_with('Z'));

    // A server taken out of the config is withdrawn; its events stay.
    configure(&env, json!({}));
    env.write(
        ".indusvx/mcp.json",
        r#"{"mcpServers": {"other": {"command": "sh", "args": ["-c", "exit 0"]}}}"#,
    );
    trust(&env, ".indusvx/mcp.json");
    let out = run(&env, &["list"]);
    assert!(!stdout(&out).contains("peer__"));
    let out = run(&env, &["--format", "json", "mcp", "ledger"]);
    let last: Value = serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
    assert_eq!(last["op"], "retire");
    assert_eq!(last["server"], "peer");
}

#[test]
fn malformed_configs_are_skipped_with_a_warning_naming_them() {
    let env = TestEnv::new();
    env.write("f.txt", "hello\n");
    env.write(".indusvx/mcp.json", "{ not json");
    trust(&env, ".indusvx/mcp.json");
    let given = env.write(
        "given.json",
        serde_json::to_string(&json!({"servers": [
            {"name": "peer", "command": bin_path(),
             "args": ["--cwd", env.root().to_string_lossy(), "mcp"]},
            {"name": "nothing"}
        ]}))
        .unwrap(),
    );
    let out = run(
        &env,
        &[
            "--mcp-config",
            &given.to_string_lossy(),
            "peer__read",
            "f.txt",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(".indusvx/mcp.json") && err.contains("malformed JSON"),
        "{err}"
    );
    assert!(err.contains("server \"nothing\""), "{err}");
    assert!(stdout(&out).contains("hello"));
}

mod http_server {
    //! A Streamable HTTP MCP server on 127.0.0.1, built with rmcp: `echo` (text
    //! plus structuredContent), `fail` (isError), and `grow`, which adds the tool
    //! `extra` and announces `notifications/tools/list_changed`.

    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
        PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    };
    use rmcp::service::{RequestContext, RoleServer};
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    use rmcp::{ErrorData, ServerHandler};
    use serde_json::json;

    #[derive(Clone)]
    struct Handler {
        grown: Arc<AtomicBool>,
    }

    fn tool(name: &str, description: &str) -> Tool {
        let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
        let serde_json::Value::Object(schema) = schema else {
            unreachable!()
        };
        Tool::new(name.to_string(), description.to_string(), Arc::new(schema))
    }

    impl ServerHandler for Handler {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(
                ServerCapabilities::builder()
                    .enable_tools()
                    .enable_tool_list_changed()
                    .build(),
            )
        }

        async fn list_tools(
            &self,
            _request: Option<PaginatedRequestParams>,
            _context: RequestContext<RoleServer>,
        ) -> Result<ListToolsResult, ErrorData> {
            let mut tools = vec![
                tool("echo", "Echo the text."),
                tool("fail", "Always fails."),
                tool("grow", "Add a tool."),
            ];
            if self.grown.load(Ordering::SeqCst) {
                tools.push(tool("extra", "Appears after grow."));
            }
            Ok(ListToolsResult::with_all_items(tools))
        }

        async fn call_tool(
            &self,
            request: CallToolRequestParams,
            context: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            let text = request
                .arguments
                .as_ref()
                .and_then(|a| a.get("text"))
                .and_then(|t| t.as_str())
                .unwrap_or("")
                .to_string();
            let result = match request.name.as_ref() {
                "echo" => {
                    let mut r =
                        CallToolResult::success(vec![ContentBlock::text(format!("echo: {text}"))]);
                    r.structured_content = Some(json!({"echoed": text}));
                    r
                }
                "fail" => {
                    CallToolResult::error(vec![ContentBlock::text(format!("refused: {text}"))])
                }
                "grow" => {
                    self.grown.store(true, Ordering::SeqCst);
                    let _ = context.peer.notify_tool_list_changed().await;
                    CallToolResult::success(vec![ContentBlock::text("grown")])
                }
                other => {
                    CallToolResult::error(vec![ContentBlock::text(format!("no tool {other}"))])
                }
            };
            Ok(result.into())
        }
    }

    /// The legacy HTTP+SSE transport (MCP 2024-11-05), served by hand over raw
    /// HTTP/1.1 (rmcp 3.9 has no SSE server): `GET /sse` opens a session whose
    /// first event names `/messages?sessionId=N`; each `POST` there is fed to an
    /// rmcp server of the same handler over an in-memory pipe, and everything the
    /// server writes goes back as `message` events. The URL of the stream.
    pub fn start_sse() -> String {
        use std::collections::HashMap;
        use std::sync::atomic::AtomicU64;
        use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

        type Sessions =
            Arc<tokio::sync::Mutex<HashMap<u64, tokio::io::WriteHalf<tokio::io::DuplexStream>>>>;

        async fn handle(
            stream: tokio::net::TcpStream,
            sessions: Sessions,
            grown: Arc<AtomicBool>,
            next: Arc<AtomicU64>,
        ) {
            use rmcp::ServiceExt;
            let (read, mut write) = stream.into_split();
            let mut read = BufReader::new(read);
            loop {
                let mut request = String::new();
                if read.read_line(&mut request).await.unwrap_or(0) == 0 {
                    return;
                }
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if read.read_line(&mut line).await.unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0u8; length];
                if read.read_exact(&mut body).await.is_err() {
                    return;
                }
                let mut words = request.split_whitespace();
                let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
                if method == "GET" && path == "/sse" {
                    let id = next.fetch_add(1, Ordering::SeqCst);
                    let (server_io, glue_io) = tokio::io::duplex(1 << 20);
                    let handler = Handler {
                        grown: Arc::clone(&grown),
                    };
                    tokio::spawn(async move {
                        if let Ok(running) = handler.serve(tokio::io::split(server_io)).await {
                            let _ = running.waiting().await;
                        }
                    });
                    let (from_server, to_server) = tokio::io::split(glue_io);
                    sessions.lock().await.insert(id, to_server);
                    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n";
                    let first = format!("event: endpoint\ndata: /messages?sessionId={id}\n\n");
                    if write.write_all(head.as_bytes()).await.is_err()
                        || write.write_all(first.as_bytes()).await.is_err()
                    {
                        return;
                    }
                    let mut lines = BufReader::new(from_server).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        let event = format!("event: message\ndata: {line}\n\n");
                        if write.write_all(event.as_bytes()).await.is_err() {
                            break;
                        }
                    }
                    sessions.lock().await.remove(&id);
                    return;
                }
                let session = path
                    .strip_prefix("/messages?sessionId=")
                    .and_then(|id| id.parse::<u64>().ok());
                let mut sessions = sessions.lock().await;
                let reply = match (method, session.and_then(|id| sessions.get_mut(&id))) {
                    ("POST", Some(to_server)) => {
                        body.push(b'\n');
                        let _ = to_server.write_all(&body).await;
                        "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"
                    }
                    _ => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
                };
                drop(sessions);
                if write.write_all(reply.as_bytes()).await.is_err() {
                    return;
                }
            }
        }

        let addr = serve_in_background(|listener| async move {
            let sessions: Sessions = Default::default();
            let grown = Arc::new(AtomicBool::new(false));
            let next = Arc::new(AtomicU64::new(1));
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                tokio::spawn(handle(
                    stream,
                    Arc::clone(&sessions),
                    Arc::clone(&grown),
                    Arc::clone(&next),
                ));
            }
        });
        format!("http://{addr}/sse")
    }

    /// Run `serve` with a listener on a free port of 127.0.0.1, on a runtime of
    /// its own in a background thread (the test's lifetime); the address.
    fn serve_in_background<F, Fut>(serve: F) -> std::net::SocketAddr
    where
        F: FnOnce(tokio::net::TcpListener) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()>,
    {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                serve(tokio::net::TcpListener::from_std(listener).unwrap()).await;
            });
        });
        addr
    }

    /// Serve on 127.0.0.1 in a background thread; the URL of its endpoint.
    pub fn start() -> String {
        let addr = serve_in_background(|listener| async move {
            let grown = Arc::new(AtomicBool::new(false));
            let service = StreamableHttpService::new(
                move || {
                    Ok(Handler {
                        grown: Arc::clone(&grown),
                    })
                },
                LocalSessionManager::default().into(),
                StreamableHttpServerConfig::default(),
            );
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let service = service.clone();
                tokio::spawn(async move {
                    let io = hyper_util::rt::TokioIo::new(stream);
                    let svc = hyper_util::service::TowerToHyperService::new(service);
                    let _ = hyper_util::server::conn::auto::Builder::new(
                        hyper_util::rt::TokioExecutor::new(),
                    )
                    .serve_connection(io, svc)
                    .await;
                });
            }
        });
        format!("http://{addr}/mcp")
    }
}

#[test]
fn a_streamable_http_server_is_grafted_with_errors_and_list_changes() {
    let env = TestEnv::new();
    let url = http_server::start();
    env.write(
        ".vscode-style.json",
        serde_json::to_string(&json!({"servers": {"web": {"type": "http", "url": url}}})).unwrap(),
    );
    let cfg = env.path(".vscode-style.json");
    let cfg = cfg.to_string_lossy();
    let with = |args: &[&str]| {
        let mut all = vec!["--mcp-config", &cfg];
        all.extend_from_slice(args);
        run(&env, &all)
    };
    let out = with(&["web__echo", "hi there"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "echo: hi there\n");
    let out = with(&["--format", "json", "web__echo", "text=x"]);
    let v = json_lines(&out);
    assert_eq!(v["output"], json!({"echoed": "x"}), "{v}");

    let out = with(&["web__fail", "nope"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("refused: nope"), "{}", stderr(&out));

    let names = |out: &Output| -> Vec<String> {
        json_lines(out)
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names(&with(&["--format", "json", "mcp", "tools"])),
        ["web__echo", "web__fail", "web__grow"]
    );
    let out = with(&["web__grow", "go"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        wait_until(Duration::from_secs(5), || {
            names(&with(&["--format", "json", "mcp", "tools"])).contains(&"web__extra".to_string())
        }),
        "the tool list change was not picked up"
    );
    let out = with(&["--format", "json", "mcp", "servers"]);
    assert_eq!(json_lines(&out)[0]["transport"], "http");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_serve_re_exports_the_grafted_tools() {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    let env = TestEnv::new();
    env.write("f.txt", "hello\n");
    configure(&env, json!({ "peer": peer(env.root(), &[]) }));
    let mut cmd = tokio::process::Command::new(bin_path());
    cmd.current_dir(env.root())
        .env("HOME", common::no_home())
        .env("XDG_CONFIG_HOME", common::no_home().join(".config"))
        .env_remove("INDUS_MCP_CHILD")
        .args([
            "--cwd",
            &env.root().to_string_lossy(),
            "mcp",
            "serve",
            "--no-gate",
        ]);
    let transport = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    let client = ().serve(transport).await.expect("handshake");
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(
        names.contains(&"read") && names.contains(&"peer__read"),
        "{names:?}"
    );
    let args = json!({"path": "f.txt"});
    let result = client
        .call_tool(
            CallToolRequestParams::new("peer__read")
                .with_arguments(args.as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true));
    let text = result.content[0].as_text().unwrap().text.clone();
    assert!(text.contains("hello"), "{text}");
    client.cancel().await.unwrap();
}

#[test]
fn a_grafted_name_that_normalises_like_a_built_in_is_not_grafted() {
    let env = TestEnv::new();
    // Server "todo" serving `read`: `todo__read` is `todo_read` once _ is ignored.
    configure(
        &env,
        json!({ "todo": peer(env.root(), &["--profile", "authoring", "--tools", "read"]) }),
    );
    let out = run(&env, &["--format", "json", "list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let names: Vec<String> = json_lines(&out)
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(!names.contains(&"todo__read".to_string()), "{names:?}");
    assert!(names.contains(&"todo_read".to_string()));
    assert!(
        stderr(&out).contains(
            "MCP tool todo__read is not grafted: its name matches the built-in todo_read"
        ),
        "{}",
        stderr(&out)
    );
    // The built-in is still the one any spelling reaches.
    let out = run(&env, &["todoread"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "The checklist is empty.\n");
}

/// The pid the peer's `bash` reports as its parent: the peer server's own.
fn server_pid(env: &TestEnv) -> u32 {
    let out = run(env, &["peer__bash", "command=echo PPID=$PPID"]);
    assert_eq!(code(&out), 0, "{} {}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    let at = text.find("PPID=").expect("the peer answered") + 5;
    text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

/// Runs `mcp down` when dropped, so a failing test leaves no broker behind.
struct BrokerGuard<'a>(&'a TestEnv);

impl Drop for BrokerGuard<'_> {
    fn drop(&mut self) {
        let _ = run(self.0, &["mcp", "down"]);
    }
}

/// The broker's pid, from `mcp up`'s first line.
fn broker_pid(out: &Output) -> u32 {
    let text = stdout(out);
    let at = text.find("pid ").expect("mcp up names the pid") + 4;
    text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

#[test]
fn a_server_that_dies_mid_call_is_reported_and_the_next_call_works() {
    let env = TestEnv::new();
    configure(&env, json!({ "peer": peer(env.root(), &[]) }));
    let started = std::time::Instant::now();
    let out = run(&env, &["peer__bash", "command=kill -9 $PPID; sleep 30"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains(
            "mcp server \"peer\": the server closed the connection during the call of bash"
        ),
        "{}",
        stderr(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_ne!(server_pid(&env), 0);
}

#[test]
fn the_warm_broker_keeps_servers_open_across_invocations() {
    let env = TestEnv::new();
    env.write("f.txt", "hello\n");
    configure(&env, json!({ "peer": peer(env.root(), &[]) }));
    let _guard = BrokerGuard(&env);
    // Cold: every call starts the server anew.
    assert_ne!(server_pid(&env), server_pid(&env));

    let up = run(&env, &["mcp", "up"]);
    assert_eq!(code(&up), 0, "{} {}", stdout(&up), stderr(&up));
    assert!(
        stdout(&up).starts_with("mcp broker started: pid "),
        "{}",
        stdout(&up)
    );
    assert!(
        stdout(&up).contains("  peer: connected\n"),
        "{}",
        stdout(&up)
    );
    let broker = broker_pid(&up);
    assert!(alive(broker));
    let socket = env.path(".indus-process/mcp/broker.sock");
    assert!(socket.exists());
    // Warm: one server for every call, whatever the face.
    let warm = server_pid(&env);
    assert_eq!(server_pid(&env), warm);
    let out = run(&env, &["--format", "json", "peer__read", "path=f.txt"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("hello"), "{}", stdout(&out));
    // A second `up` finds it running.
    let again = run(&env, &["mcp", "up"]);
    assert!(
        stdout(&again).starts_with("mcp broker already running: pid "),
        "{}",
        stdout(&again)
    );
    assert_eq!(broker_pid(&again), broker);

    // The server dies mid-call: reported, and the broker reconnects next time.
    let out = run(&env, &["peer__bash", "command=kill -9 $PPID; sleep 30"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("the server closed the connection during the call of bash"),
        "{}",
        stderr(&out)
    );
    assert!(!alive(warm));
    let second = server_pid(&env);
    assert_ne!(second, warm);
    assert_eq!(server_pid(&env), second);
    assert!(alive(broker), "one server's death took the broker down");

    // The server dies while idle: the next call is not blamed for it (no
    // "during the call"); it simply gets a fresh server.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(second as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    assert!(wait_until(Duration::from_secs(5), || !alive(second)));
    std::thread::sleep(Duration::from_millis(200));
    let third = server_pid(&env);
    assert_ne!(third, second);
    let second = third;

    // A call interrupted (Ctrl-C) while the broker runs it: the server is the
    // broker's, and is said to keep running, as it does.
    let child = common::bin_std()
        .current_dir(env.root())
        .arg("--cwd")
        .arg(env.root())
        .args(["peer__bash", "command=sleep 30"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("cancelled; the MCP server \"peer\" keeps running in the warm broker"),
        "{said}"
    );
    assert!(alive(second), "the broker's server was stopped");

    let down = run(&env, &["mcp", "down"]);
    assert_eq!(code(&down), 0, "{}", stderr(&down));
    assert_eq!(stdout(&down), format!("mcp broker stopped: pid {broker}\n"));
    assert!(
        wait_until(Duration::from_secs(5), || !alive(broker)),
        "the broker outlived mcp down"
    );
    assert!(
        wait_until(Duration::from_secs(5), || !alive(second)),
        "the broker's server outlived it"
    );
    assert!(!socket.exists());
    // Its log stays until the next `up`.
    let log =
        std::fs::read_to_string(env.path(".indus-process/mcp/broker/broker-1/stderr")).unwrap();
    assert!(log.contains("mcp broker: exiting (asked to stop)"), "{log}");
    assert_eq!(
        stdout(&run(&env, &["mcp", "down"])),
        "mcp broker is not running\n"
    );
    // Cold again.
    assert_ne!(server_pid(&env), server_pid(&env));
}

#[test]
fn an_idle_or_killed_broker_leaves_callers_connecting_cold() {
    let env = TestEnv::new();
    configure(&env, json!({ "peer": peer(env.root(), &[]) }));
    let _guard = BrokerGuard(&env);
    let up = run(&env, &["mcp", "up", "--idle", "1"]);
    assert_eq!(code(&up), 0, "{}", stderr(&up));
    assert!(
        stdout(&up).contains("exits after 1 s idle"),
        "{}",
        stdout(&up)
    );
    let broker = broker_pid(&up);
    let warm = server_pid(&env);
    assert!(
        wait_until(Duration::from_secs(10), || !alive(broker)),
        "the idle broker did not exit"
    );
    assert!(
        wait_until(Duration::from_secs(5), || !alive(warm)),
        "its server outlived it"
    );
    assert!(!env.path(".indus-process/mcp/broker.sock").exists());
    assert_ne!(server_pid(&env), server_pid(&env));

    // A broker killed outright leaves its socket behind: callers still connect
    // cold, and the next `up` replaces it.
    let up = run(&env, &["mcp", "up"]);
    let broker = broker_pid(&up);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(broker as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    assert!(wait_until(Duration::from_secs(5), || !alive(broker)));
    assert!(env.path(".indus-process/mcp/broker.sock").exists());
    assert_ne!(server_pid(&env), server_pid(&env));
    let up = run(&env, &["mcp", "up"]);
    assert!(
        stdout(&up).starts_with("mcp broker started: "),
        "{} {}",
        stdout(&up),
        stderr(&up)
    );
    let warm = server_pid(&env);
    assert_eq!(server_pid(&env), warm);
    assert_eq!(code(&run(&env, &["mcp", "down"])), 0);
}

#[test]
fn a_directory_too_deep_for_a_socket_path_gets_a_private_socket() {
    let env = TestEnv::new();
    let deep = format!("{}/{}", "d".repeat(60), "e".repeat(60));
    env.mkdir(&deep);
    let dir = env.path(&deep);
    let run_in = |args: &[&str]| {
        common::bin()
            .current_dir(&dir)
            .args(args)
            .output()
            .expect("run indus-tool")
    };
    env.write(
        &format!("{deep}/.indusvx/mcp.json"),
        serde_json::to_string(&json!({"mcpServers": {"peer": peer(&dir, &[])}})).unwrap(),
    );
    assert_eq!(code(&run_in(&["trust", ".indusvx/mcp.json"])), 0);
    let up = run_in(&["mcp", "up"]);
    assert_eq!(code(&up), 0, "{}", stderr(&up));
    let text = stdout(&up);
    assert!(!text.contains(".indus-process"), "{text}");
    assert!(text.contains("/indus-tool-"), "{text}");
    let pid = |out: Output| -> String {
        let text = stdout(&out);
        text[text.find("PPID=").expect("answered")..]
            .lines()
            .next()
            .unwrap()
            .to_string()
    };
    let first = pid(run_in(&["peer__bash", "command=echo PPID=$PPID"]));
    assert_eq!(
        pid(run_in(&["peer__bash", "command=echo PPID=$PPID"])),
        first
    );
    assert_eq!(
        stdout(&run_in(&["mcp", "down"])),
        format!("mcp broker stopped: pid {}\n", broker_pid(&up))
    );
}

#[test]
fn a_legacy_sse_server_is_grafted_when_asked_for_and_as_the_fallback() {
    let env = TestEnv::new();
    let url = http_server::start_sse();
    configure(
        &env,
        json!({
            "legacy": {"type": "sse", "url": url},
            // A plain URL row: Streamable HTTP is tried first (the server answers
            // 404), then the legacy transport at the same URL.
            "plain": {"url": url},
        }),
    );
    let out = run(&env, &["legacy__echo", "over sse"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "echo: over sse\n");
    let out = run(&env, &["--format", "json", "plain__echo", "text=fallback"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(json_lines(&out)["output"], json!({"echoed": "fallback"}));
    let out = run(&env, &["legacy__fail", "no"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("refused: no"), "{}", stderr(&out));
    let servers = json_lines(&run(&env, &["--format", "json", "mcp", "servers"]));
    let transports: Vec<(&str, &str, &str)> = servers
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap(),
                s["transport"].as_str().unwrap(),
                s["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        transports,
        [("legacy", "sse", "ready"), ("plain", "http", "ready")]
    );
}

/// A local HTTP endpoint that answers every request with `reply` and closes.
fn http_answering(reply: &'static [u8]) -> std::net::SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(reply);
        }
    });
    addr
}

/// Whether python3 runs here (the fake servers are Python); says SKIPPED (or
/// fails under CI) when not.
fn python3(what: &str) -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "pass"])
        .output()
        .is_ok();
    if !ok {
        common::missing(
            "python3 is missing",
            &format!("{what}: python3 is not installed"),
        );
    }
    ok
}

#[test]
fn a_url_that_speaks_neither_http_transport_names_both_failures() {
    let env = TestEnv::new();
    // Everything answers 404.
    let addr =
        http_answering(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    configure(
        &env,
        json!({"nowhere": {"url": format!("http://{addr}/mcp")}}),
    );
    let out = run(&env, &["mcp", "refresh"]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(
        err.contains("mcp server \"nowhere\": the MCP handshake failed"),
        "{err}"
    );
    assert!(err.contains("the legacy SSE transport at the same URL failed too: the MCP handshake failed: GET http://"), "{err}");
    assert!(err.contains("404"), "{err}");
    assert!(
        !err.contains("rmcp::") && !err.contains("reqwest::"),
        "{err}"
    );
}

/// A dead port and a server wanting authorization are said as such, with what
/// to do, not as the SDK's transport types.
#[test]
fn dead_ports_and_401s_are_said_in_words_a_person_can_act_on() {
    let env = TestEnv::new();
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let auth = http_answering(
        b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    );
    configure(
        &env,
        json!({
            "dead": {"url": format!("http://{dead}/mcp")},
            "auth": {"url": format!("http://{auth}/mcp")}
        }),
    );
    let out = run(&env, &["mcp", "refresh"]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "mcp server \"dead\": connection refused at http://{dead}/mcp (nothing listens on {dead})"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "mcp server \"auth\": HTTP 401 at http://{auth}/mcp: the server wants authorization — set headers.Authorization"
        )),
        "{err}"
    );
    assert!(
        !err.contains("rmcp::") && !err.contains("Transport ["),
        "{err}"
    );
}

/// A built-in tool never waits on an MCP server, nor starts one: with a changed
/// config naming a server that never answers `initialize`, `ls` answers at once,
/// says nothing about MCP and starts nothing, not even after it answered; the
/// next command that uses the grafted tools (`mcp servers`) refreshes, times the
/// server out and records it, with the hanging server's process gone.
#[test]
fn built_in_tools_never_wait_on_a_server_nor_start_one() {
    let env = TestEnv::new();
    env.write("f.txt", "hello\n");
    let hang_pid = env.path("hang.pid");
    configure(
        &env,
        json!({
            "hang": {
                "command": "sh",
                "args": ["-c", format!("echo $$ > {}; exec sleep 60", hang_pid.display())],
                "connectTimeoutMs": 1500
            }
        }),
    );
    let started = std::time::Instant::now();
    let out = run(&env, &["ls"]);
    let took = started.elapsed();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("f.txt"));
    assert!(
        took < Duration::from_millis(1200),
        "ls took {took:?}: it waited on the server"
    );
    assert!(!stderr(&out).contains("mcp"), "{}", stderr(&out));
    assert_eq!(code(&run(&env, &["grep", "hello"])), 0);
    std::thread::sleep(Duration::from_millis(800));
    assert!(!hang_pid.exists(), "a built-in's call started the server");
    // The first command that uses the grafted tools refreshes.
    let out = run(&env, &["--format", "json", "mcp", "servers"]);
    let servers = json_lines(&out);
    assert_eq!(servers[0]["status"], "failed", "{servers}");
    let pid: u32 = std::fs::read_to_string(&hang_pid)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || !alive(pid)),
        "the hanging server was left running"
    );
    // Recorded for this config: the next call starts no refresh at all.
    std::fs::remove_file(&hang_pid).unwrap();
    assert_eq!(code(&run(&env, &["list"])), 0);
    std::thread::sleep(Duration::from_millis(500));
    assert!(!hang_pid.exists(), "a second refresh was started");
}

/// A grafted tool takes bare words as a built-in does: its required keys, then
/// its optional string keys, in the schema's order (`peer__grep PATTERN PATH`).
#[test]
fn grafted_tools_take_positionals_like_the_built_ins() {
    let env = TestEnv::new();
    env.write("src/main.rs", "fn main() {}\n");
    env.write("other/main.rs", "fn main() {}\n");
    configure(&env, json!({"peer": peer(env.root(), &[])}));
    assert_eq!(code(&run(&env, &["mcp", "refresh"])), 0);
    let out = run(&env, &["peer__grep", "fn main", "src"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("src/main.rs"), "{}", stdout(&out));
    assert!(!stdout(&out).contains("other/main.rs"), "{}", stdout(&out));
    // KEY=VALUE still names any key, and a word too many says what it takes.
    let out = run(&env, &["peer__grep", "pattern=fn main", "path=other"]);
    assert!(stdout(&out).contains("other/main.rs"), "{}", stdout(&out));
    let out = run(
        &env,
        &[
            "peer__read",
            "src/main.rs",
            "1",
            "2",
            "extra",
            "more",
            "words",
        ],
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("takes KEY=VALUE words, and bare values for its required keys, then its string keys, in order (path"),
        "{}",
        stderr(&out)
    );
}

/// A server answering `initialize` with a protocol version this client does not
/// know is refused with both versions named, and its process ended.
#[test]
fn an_unknown_protocol_version_is_refused_naming_both() {
    if !python3("mcp protocol version") {
        return;
    }
    let env = TestEnv::new();
    env.write(
        "old_server.py",
        r#"import json, os, sys
open("pid", "w").write(str(os.getpid()))
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": "1999-01-01", "capabilities": {"tools": {}},
            "serverInfo": {"name": "old", "version": "1"}}}), flush=True)
"#,
    );
    configure(
        &env,
        json!({"old": {"command": "python3", "args": ["old_server.py"], "cwd": env.root()}}),
    );
    let out = run(&env, &["mcp", "refresh"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("mcp server \"old\": it answered initialize with MCP protocol version 1999-01-01, which indus-tool does not speak (it speaks 2024-11-05, "),
        "{}",
        stderr(&out)
    );
    let pid: u32 = env.read_string("pid").trim().parse().unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || !alive(pid)),
        "the refused server was left running"
    );
}

/// Results of any size: a 20 MiB text answer (over rmcp's 16 MiB default line
/// limit, which dropped it silently and let the call wait out its timeout)
/// arrives whole; one over the frame limit (`INDUS_MCP_MAX_FRAME`, lowered here)
/// fails at once, saying the size.
#[test]
fn large_answers_arrive_whole_and_oversized_ones_fail_at_once() {
    if !python3("mcp large answers") {
        return;
    }
    let env = TestEnv::new();
    env.write(
        "big_server.py",
        r#"import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    m, i = msg.get("method"), msg.get("id")
    if m == "initialize":
        r = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "big", "version": "1"}}
    elif m == "tools/list":
        r = {"tools": [{"name": "big", "inputSchema": {"type": "object"}}]}
    elif m == "tools/call":
        r = {"content": [{"type": "text", "text": "x" * (20 * 1024 * 1024) + "END"}]}
    else:
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": i, "result": r}) + "\n")
    sys.stdout.flush()
"#,
    );
    configure(
        &env,
        json!({"big": {"command": "python3", "args": ["big_server.py"], "cwd": env.root(), "callTimeoutMs": 60000}}),
    );
    assert_eq!(code(&run(&env, &["mcp", "refresh"])), 0);
    let started = std::time::Instant::now();
    let out = run(
        &env,
        &["--format", "json", "--max-bytes", "30000000", "big__big"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = json_lines(&out);
    let text = v["output"].as_str().unwrap();
    assert_eq!(text.len(), 20 * 1024 * 1024 + 3);
    assert!(text.ends_with("END"));
    assert!(started.elapsed() < Duration::from_secs(30));

    let started = std::time::Instant::now();
    let out = env
        .cmd()
        .env("INDUS_MCP_MAX_FRAME", (4 * 1024 * 1024).to_string())
        .arg("big__big")
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("mcp server \"big\": its answer to big is over 4 MiB"),
        "{}",
        stderr(&out)
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the oversized answer was waited for: {:?}",
        started.elapsed()
    );
}

/// A "server" that writes something other than MCP on stdout is not reported as
/// a bare timeout: what it wrote is quoted.
#[test]
fn a_server_writing_garbage_is_quoted() {
    let env = TestEnv::new();
    configure(
        &env,
        json!({"junk": {
            "command": "sh",
            "args": ["-c", "echo Starting server on port 3000...; exec sleep 30"],
            "connectTimeoutMs": 800
        }}),
    );
    let out = run(&env, &["mcp", "refresh"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains(
            "mcp server \"junk\": no answer to initialize within 800 ms (connect timeout); on stdout it wrote \"Starting server on port 3000...\", which is not an MCP message"
        ),
        "{}",
        stderr(&out)
    );
}

/// `--mcp-log LEVEL` asks a server that logs for that level
/// (`logging/setLevel`) and prints its log notices at that level and above on
/// stderr, naming the server; without it nothing is asked and nothing printed.
#[test]
fn mcp_log_asks_for_the_level_and_prints_what_reaches_it() {
    if !python3("mcp log level") {
        return;
    }
    let env = TestEnv::new();
    env.write(
        "log_server.py",
        r#"import json, sys
level = "none"
def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    m, i = msg.get("method"), msg.get("id")
    if m == "initialize":
        r = {"protocolVersion": msg["params"]["protocolVersion"],
             "capabilities": {"tools": {}, "logging": {}},
             "serverInfo": {"name": "log", "version": "1"}}
    elif m == "logging/setLevel":
        level = msg["params"]["level"]
        r = {}
    elif m == "tools/list":
        r = {"tools": [{"name": "work", "inputSchema": {"type": "object"}}]}
    elif m == "tools/call":
        for lv in ["debug", "info", "warning", "error"]:
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": lv, "logger": "w", "data": lv + " line"}})
        r = {"content": [{"type": "text", "text": "asked " + level}]}
    else:
        continue
    send({"jsonrpc": "2.0", "id": i, "result": r})
"#,
    );
    configure(
        &env,
        json!({"log": {"command": "python3", "args": ["log_server.py"], "cwd": env.root()}}),
    );
    assert_eq!(code(&run(&env, &["mcp", "refresh"])), 0);

    let out = run(&env, &["--mcp-log", "warning", "log__work"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "asked warning");
    let err = stderr(&out);
    assert!(
        err.contains("mcp server \"log\" [warning w]: warning line")
            && err.contains("mcp server \"log\" [error w]: error line"),
        "{err}"
    );
    assert!(
        !err.contains("info line") && !err.contains("debug line"),
        "{err}"
    );

    let out = run(&env, &["log__work"]);
    assert_eq!(stdout(&out).trim(), "asked none");
    assert!(!stderr(&out).contains("line"), "{}", stderr(&out));
}

/// A config naming a server through a variable that is not set: a built-in
/// tool's call says nothing of it (never in the way); `mcp servers` names the
/// file, the server, the field and the variable; `mcp refresh` fails (exit 1).
#[test]
fn an_unset_variable_is_reported_by_mcp_views_not_by_builtins() {
    let env = TestEnv::new();
    env.write(
        ".mcp.json",
        r#"{"mcpServers": {"gh": {"command": "${env:INDUS_TEST_UNSET_VAR}/bin/gh-mcp"}}}"#,
    );
    trust(&env, ".mcp.json");
    env.write("a.txt", "a\n");
    let out = run(&env, &["ls"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stderr(&out), "", "a built-in's call reported on MCP");
    let want = format!(
        "mcp config {}: server \"gh\": \"command\": ${{env:INDUS_TEST_UNSET_VAR}} is not set (set INDUS_TEST_UNSET_VAR, or write ${{env:INDUS_TEST_UNSET_VAR:-default}}); skipped",
        env.path(".mcp.json").display()
    );
    let out = run(&env, &["mcp", "servers"]);
    assert!(stderr(&out).contains(&want), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no usable MCP server"),
        "{}",
        stderr(&out)
    );
    let out = run(&env, &["mcp", "refresh"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains(&want), "{}", stderr(&out));
}
