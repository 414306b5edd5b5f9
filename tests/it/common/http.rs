//! A tiny HTTP/1.1 server on 127.0.0.1 for the web tools' tests: each test starts
//! one with a routing closure and points the tool at it, so no test touches the
//! internet. Hand-written on `std::net` because the tests need to misbehave on
//! purpose (never answer, stream forever, send a wrong length), which ready-made
//! mock servers do not allow at the socket level.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// Path and query, as sent.
    pub target: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }
}

/// What to answer.
pub enum Reply {
    /// A normal response; `Content-Length` is added.
    Full {
        status: u16,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
    },
    /// Accept the request and never answer.
    Hang,
    /// Headers, then body bytes until the client goes away.
    Endless { content_type: String },
    /// Exactly these bytes, then close.
    Raw(Vec<u8>),
}

impl Reply {
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self::Full {
            status: 200,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
        }
    }

    pub fn status(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self::Full {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
        }
    }

    pub fn redirect(status: u16, location: &str) -> Self {
        Self::Full {
            status,
            headers: vec![("Location".into(), location.into())],
            body: Vec::new(),
        }
    }

    /// Add a header to a `Full` reply.
    pub fn with_header(mut self, name: &str, value: &str) -> Self {
        if let Self::Full { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }
}

type Router = dyn Fn(&Request) -> Reply + Send + Sync;

/// A running server; it lives as long as the test process (its threads are
/// detached), which is what a test needs.
pub struct TestServer {
    pub port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl TestServer {
    pub fn start(router: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let router: Arc<Router> = Arc::new(router);
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let router = Arc::clone(&router);
                let seen = Arc::clone(&seen);
                std::thread::spawn(move || {
                    let _ = handle(stream, &*router, &seen);
                });
            }
        });
        Self { port, requests }
    }

    /// `http://127.0.0.1:PORT` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        301 => "Moved Permanently",
        302 => "Found",
        404 => "Not Found",
        500 => "Internal Server Error",
        _ => "Status",
    }
}

fn handle(stream: TcpStream, router: &Router, seen: &Mutex<Vec<Request>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h == "\r\n" || h == "\n" {
            break;
        }
        if let Some((n, v)) = h.split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let request = Request {
        method,
        target,
        headers,
        body,
    };
    seen.lock().unwrap().push(request.clone());
    let mut out = stream;
    match router(&request) {
        Reply::Full {
            status,
            headers,
            body,
        } => {
            let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
            for (n, v) in &headers {
                head.push_str(&format!("{n}: {v}\r\n"));
            }
            head.push_str(&format!(
                "Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            ));
            out.write_all(head.as_bytes())?;
            out.write_all(&body)?;
        }
        Reply::Hang => std::thread::sleep(Duration::from_secs(120)),
        Reply::Endless { content_type } => {
            out.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nConnection: close\r\n\r\n"
                )
                .as_bytes(),
            )?;
            let chunk = "endless body line\n".repeat(4096);
            loop {
                out.write_all(chunk.as_bytes())?;
            }
        }
        Reply::Raw(bytes) => out.write_all(&bytes)?,
    }
    out.flush()
}
