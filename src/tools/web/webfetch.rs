//! `webfetch`: GET one absolute http(s) URL and return it as readable text, as
//! Markdown, or as the raw HTML.
//!
//! Two bounds, because markup is not content: `maxBytes` bounds what the caller
//! reads (the rendered text, Markdown or HTML), while the download gets
//! [`DOWNLOAD_FACTOR`] times as much (at most [`MAX_DOWNLOAD`]) — a long article in
//! heavy markup would otherwise be cut before its text began. The body is streamed
//! and the connection closed at the download bound (an endless or huge response
//! costs at most that much), decoded from its declared or sniffed charset, and
//! converted (see `html`). Header lines state the final URL after redirects, the
//! status, the content type and any cut; the whole is then clamped to the output
//! budget. Binary bodies are refused with their type and size rather than dumped,
//! and every failure is an `is_error` result. A URL, or a redirect, that would
//! reach a private network (loopback, link-local, private ranges …) is refused
//! unless the user allowed it (see `client`).

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Seat, SeedList, ToolMeta};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use url::Url;

use super::client::{client, describe_error};
use super::html;
use crate::kernel::input::{Args, invalid};
use crate::kernel::text::plural;
use crate::kernel::{
    ClipEnd, DefinedTool, OutputBudget, Tool, ToolContext, ToolResult, clamp, define_tool,
};
use crate::tools::{clamp_for, text_and_record, tool_notice};

/// Default bound of the returned content: 1 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 1024 * 1024;
/// Ceiling of `maxBytes`: 5 MiB.
pub const MAX_MAX_BYTES: u64 = 5 * 1024 * 1024;
/// The download may be this many times `maxBytes`: room for the markup around
/// `maxBytes` of text on a heavy page.
pub const DOWNLOAD_FACTOR: u64 = 8;
/// Ceiling of the download: 32 MiB, whatever `maxBytes` is.
pub const MAX_DOWNLOAD: u64 = 32 * 1024 * 1024;
/// Default `timeoutMs`: 30 s.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// Ceiling of `timeoutMs`: 2 minutes.
pub const MAX_TIMEOUT_MS: u64 = 120_000;

const FORMATS: &[&str] = &["text", "markdown", "html"];

struct WebFetchTool;

/// The `webfetch` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Builtin(SeedList::ReadOnly),
    open_world: true,
    fields: FIELDS,
    description: "Fetch a web page (http/https) as readable text, Markdown or raw HTML.",
    output: Some(include_str!("webfetch.output.json")),
    ..ToolMeta::new(
        "webfetch",
        "Fetch URL",
        "Fetch a URL and return its content as text, Markdown or HTML.",
    )
};

/// `webfetch`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("url", Kind::Name, "Absolute http(s) URL."),
    Field::new(
        "format",
        Kind::Enum(FORMATS),
        "text (default), markdown or html.",
    ),
    Field::deprecated(
        "maxBytes",
        Kind::Int {
            min: 1,
            max: Some(MAX_MAX_BYTES),
        },
        "Most bytes of content returned (default 1 MiB).",
    ),
    Field::deprecated(
        "timeoutMs",
        Kind::Int {
            min: 1,
            max: Some(MAX_TIMEOUT_MS),
        },
        "Give up after this many milliseconds (default 30000).",
    ),
];

#[async_trait]
impl Tool for WebFetchTool {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match fetch(&input, ctx).await {
            Ok(r) | Err(r) => r,
        }
    }
}

fn fail(message: impl Into<String>) -> ToolResult {
    ToolResult::failure(message)
}

/// `url` must parse as an absolute http or https URL.
fn target(args: &Args<'_>) -> Result<Url, String> {
    let raw = args.required_str("url")?;
    let expected = "an absolute http:// or https:// URL";
    let url = Url::parse(raw.trim()).map_err(|_| invalid("url", expected, &Value::from(raw)))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(invalid("url", expected, &Value::from(raw)));
    }
    Ok(url)
}

/// Kinds that are text even though their type is not `text/*`.
fn texty(mime: &str) -> bool {
    mime.starts_with("text/")
        || mime.ends_with("+xml")
        || mime.ends_with("+json")
        || matches!(
            mime,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/ecmascript"
                | "application/x-javascript"
                | "application/ld+json"
                | "application/x-sh"
                | "application/toml"
                | "application/yaml"
                | "application/x-yaml"
                | "application/sql"
                | "application/graphql"
        )
}

/// Kinds that are certainly not text, refused before the body is read.
fn binary_type(mime: &str) -> bool {
    ["image/", "audio/", "video/", "font/"]
        .iter()
        .any(|p| mime.starts_with(p))
        || matches!(
            mime,
            "application/pdf"
                | "application/zip"
                | "application/gzip"
                | "application/x-tar"
                | "application/x-7z-compressed"
                | "application/wasm"
                | "application/msword"
                | "application/vnd.ms-excel"
        )
        || mime.starts_with("application/vnd.openxmlformats")
}

async fn fetch(input: &Value, ctx: &ToolContext) -> Result<ToolResult, ToolResult> {
    let args = Args::new(META.name, input).map_err(fail)?;
    let url = target(&args).map_err(fail)?;
    let format = args
        .opt_enum("format", FORMATS)
        .map_err(fail)?
        .unwrap_or("text");
    let max_bytes = args
        .opt_positive_int("maxBytes")
        .map_err(fail)?
        .unwrap_or(DEFAULT_MAX_BYTES)
        .min(MAX_MAX_BYTES);
    let download_limit = (max_bytes * DOWNLOAD_FACTOR).min(MAX_DOWNLOAD) as usize;
    let timeout_ms = args
        .opt_positive_int("timeoutMs")
        .map_err(fail)?
        .unwrap_or(DEFAULT_TIMEOUT_MS)
        .min(MAX_TIMEOUT_MS);

    let web = client(Duration::from_millis(timeout_ms), None).map_err(fail)?;
    // An IP literal is judged here; a host name by the client's resolver, and
    // every redirect by its policy (see `client`).
    web.check(&url).map_err(fail)?;
    let request = web
        .http
        .get(url.clone())
        .header(
            reqwest::header::ACCEPT,
            "text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5",
        )
        .header(reqwest::header::ACCEPT_LANGUAGE, "en-US,en;q=0.9");
    let shown = url.as_str().to_string();
    let download = async {
        let mut response = request
            .send()
            .await
            .map_err(|e| describe_error(&e, &shown, timeout_ms))?;
        let status = response.status();
        let final_url = response.url().clone();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mime = content_type
            .as_deref()
            .and_then(|t| t.split(';').next())
            .map(|m| m.trim().to_ascii_lowercase())
            .unwrap_or_default();
        if !status.is_success() {
            return Err(format!(
                "{final_url} answered HTTP {status}; nothing was fetched."
            ));
        }
        if binary_type(&mime) {
            let size = response
                .content_length()
                .map(|n| plural(n, "byte", "bytes"))
                .unwrap_or_else(|| "size unknown".into());
            return Err(format!(
                "{final_url} is {mime} ({size}), not text; webfetch returns only text, Markdown or HTML."
            ));
        }
        let mut body = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| describe_error(&e, final_url.as_str(), timeout_ms))?
        {
            let room = download_limit - body.len();
            if chunk.len() >= room {
                body.extend_from_slice(&chunk[..room]);
                // Anything beyond the cap is not even read: the connection closes.
                truncated = chunk.len() > room || response.chunk().await.ok().flatten().is_some();
                break;
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Fetched {
            status,
            final_url,
            content_type,
            mime,
            body,
            truncated,
        })
    };
    let fetched = tokio::select! {
        r = download => r.map_err(fail)?,
        _ = ctx.cancel.cancelled() => return Err(fail("webfetch was cancelled.")),
    };
    render(&url, format, max_bytes, download_limit, fetched, ctx)
}

struct Fetched {
    status: reqwest::StatusCode,
    final_url: Url,
    content_type: Option<String>,
    mime: String,
    body: Vec<u8>,
    truncated: bool,
}

fn render(
    requested: &Url,
    format: &str,
    max_bytes: u64,
    download_limit: usize,
    f: Fetched,
    ctx: &ToolContext,
) -> Result<ToolResult, ToolResult> {
    if f.body.is_empty() {
        return Err(fail(format!(
            "{} answered HTTP {} with an empty body; there is nothing to read.",
            f.final_url, f.status
        )));
    }
    let declared_html = matches!(f.mime.as_str(), "text/html" | "application/xhtml+xml");
    // Sniff: a body that starts like HTML is HTML whatever it was labelled; one whose
    // bytes say image or archive is refused whatever it was labelled.
    let sniffed_html = html::looks_like_html(&f.body);
    if !sniffed_html && let Some(kind) = html::binary_kind(&f.body) {
        let label = if f.mime.is_empty() {
            "no type"
        } else {
            f.mime.as_str()
        };
        return Err(fail(format!(
            "{} is {kind} (served as {label}, {}), not text; webfetch returns only text, Markdown or HTML.",
            f.final_url,
            plural(f.body.len() as u64, "byte", "bytes")
        )));
    }
    let is_html = declared_html || sniffed_html;
    if !is_html && !f.mime.is_empty() && !texty(&f.mime) && f.mime != "application/octet-stream" {
        return Err(fail(format!(
            "{} is {} ({}), not text; webfetch returns only text, Markdown or HTML.",
            f.final_url,
            f.mime,
            plural(f.body.len() as u64, "byte", "bytes")
        )));
    }
    let enc = html::charset(f.content_type.as_deref(), &f.body, is_html);
    let decoded = html::decode(&f.body, enc, f.truncated);

    let mut head = format!("URL: {}\n", f.final_url);
    if f.final_url != *requested {
        head.push_str(&format!("Redirected from: {requested}\n"));
    }
    head.push_str(&format!("Status: {}\n", f.status));
    head.push_str(&format!(
        "Content-Type: {}\n",
        f.content_type.as_deref().unwrap_or("(none)")
    ));
    if is_html && !declared_html {
        head.push_str("Note: the body is HTML although it was not served as HTML; read as HTML.\n");
    }
    if f.truncated {
        head.push_str(&format!(
            "Note: the body was cut at {download_limit} bytes (the download limit: {DOWNLOAD_FACTOR} × maxBytes, at most {} MiB); the rest was not downloaded.\n",
            MAX_DOWNLOAD >> 20
        ));
    }
    let page = match (is_html, format) {
        (true, "markdown") => html::render(&decoded, &f.final_url, html::Style::Markdown),
        (true, "text") => html::render(&decoded, &f.final_url, html::Style::Text),
        _ => html::Page::plain(decoded.trim_end().to_string()),
    };
    let (content, cut) = page.fit(max_bytes as usize);
    if cut {
        head.push_str(&format!(
            "Note: the content was cut to fit {max_bytes} bytes (maxBytes); the rest was not shown.\n"
        ));
    }
    let text = format!("{head}\n{content}");
    // For programs: the fetch's facts as fields and the content, held to the budget
    // with the same notice people see.
    let room = ctx.budget.max_bytes.saturating_sub(
        512 + requested.as_str().len() + f.final_url.as_str().len() + page.title.len(),
    );
    let record = json!({
        "url": requested.as_str(),
        "finalUrl": f.final_url.as_str(),
        "status": f.status.as_u16(),
        "contentType": f.content_type,
        "title": (!page.title.is_empty()).then_some(&page.title),
        "format": format,
        "content": clamp(&content, &OutputBudget::with_notice(ClipEnd::Middle, room.max(64), |n| tool_notice("webfetch", n))),
        "contentCut": cut,
        "downloadCut": f.truncated,
    });
    Ok(text_and_record(
        clamp_for(ctx, "webfetch", &text),
        record,
        false,
    ))
}

/// The `webfetch` tool.
pub fn webfetch_tool() -> DefinedTool {
    define_tool(Arc::new(WebFetchTool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_absolute_http_urls_pass() {
        let ok = json!({"url": "https://example.com/a?b=1"});
        assert_eq!(
            target(&Args::new(META.name, &ok).unwrap())
                .unwrap()
                .as_str(),
            "https://example.com/a?b=1"
        );
        for bad in [
            "example.com",
            "/relative",
            "ftp://example.com/",
            "file:///etc/passwd",
            "http://",
        ] {
            let v = json!({ "url": bad });
            let err = target(&Args::new(META.name, &v).unwrap()).unwrap_err();
            assert_eq!(
                err,
                format!(
                    "Invalid \"url\": expected an absolute http:// or https:// URL, got the string \"{bad}\"."
                )
            );
        }
    }

    #[test]
    fn types_are_sorted_into_text_and_binary() {
        assert!(texty("text/plain") && texty("application/json") && texty("application/rss+xml"));
        assert!(!texty("application/octet-stream"));
        assert!(binary_type("image/png") && binary_type("application/pdf"));
        assert!(!binary_type("text/html"));
    }
}
