//! `websearch`: a query posted to DuckDuckGo's HTML endpoint, answered with the
//! organic results as numbered text plus a JSON array of `{title, url, snippet}`.
//!
//! This module owns the exchange with the endpoint (the browser-like form post, the
//! 10 s deadline, cancellation, the body's size and decoding) and what each answer
//! means to a caller: results, no results, a bot check (blocked, which is never
//! reported as "no results"), or a failure. Reading the page is [`super::ddg`]'s
//! job. The endpoint is `https://html.duckduckgo.com/html/` unless the environment
//! variable `INDUS_WEBSEARCH_URL` names another (a mirror, or a test server).
//!
//! The client is the web family's guarded one (see `client`): DuckDuckGo's
//! answers and every redirect stay off private networks unless the user allowed
//! them. An endpoint the user configured is theirs: its host is reached wherever
//! it is (a search service on their own network), what it redirects to is not.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Seat, SeedList, ToolMeta};
use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use url::Url;

use super::client::{client, describe_error};
use super::ddg::{Page, SearchResult, parse_results};
use crate::kernel::input::Args;
use crate::kernel::{DefinedTool, Tool, ToolContentBlock, ToolContext, ToolResult, define_tool};
use crate::tools::{clamp_for, clamp_rows, longest_fitting_prefix};

/// The endpoint searched when `INDUS_WEBSEARCH_URL` is unset or empty.
pub const DEFAULT_ENDPOINT: &str = "https://html.duckduckgo.com/html/";

/// The environment variable that replaces the endpoint (the whole URL).
pub const ENDPOINT_ENV: &str = "INDUS_WEBSEARCH_URL";

/// Results returned when `count` is absent.
pub const DEFAULT_COUNT: u64 = 5;

/// The most results one call returns; a larger `count` is pinned to this.
pub const MAX_COUNT: u64 = 25;

/// The deadline of the whole exchange: connect, headers and body.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The largest answer read. A results page is some tens of KiB; anything far beyond
/// that is not one, and reading it would only fill memory until the deadline.
const MAX_BODY: usize = 4 * 1024 * 1024;

/// What a bot check means, in words a model can act on.
pub const BLOCKED: &str = "DuckDuckGo refused the search (blocked or rate limited: it answered with a bot check); try again later.";

/// A query or URL as messages quote it: JSON string syntax, so quotes and control
/// characters inside stay readable and unambiguous.
fn quoted(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// Where a search is posted.
struct Endpoint {
    url: Url,
    /// The user named it (`INDUS_WEBSEARCH_URL`): its host is reached even on a
    /// private network.
    configured: bool,
}

/// The endpoint to post to: `INDUS_WEBSEARCH_URL` when set and not empty, else
/// DuckDuckGo's. It must be an absolute http or https URL.
fn endpoint() -> Result<Endpoint, String> {
    let configured = std::env::var(ENDPOINT_ENV).ok().filter(|v| !v.is_empty());
    let raw = configured.as_deref().unwrap_or(DEFAULT_ENDPOINT);
    match Url::parse(raw) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(Endpoint {
            url,
            configured: configured.is_some(),
        }),
        _ => Err(format!(
            "{ENDPOINT_ENV} must be an absolute http or https URL, got {}.",
            quoted(raw)
        )),
    }
}

/// The form body a browser would submit from the results page's search box: the
/// query, the (empty) submit button and the region select left at "All regions".
fn form_body(query: &str) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .append_pair("q", query)
        .append_pair("b", "")
        .append_pair("kl", "")
        .finish()
}

/// Post the query and return the page, or the failure worded for the caller. The
/// status is judged before the body is read: a refusal or an error status says so
/// whatever its body holds.
async fn exchange(endpoint: &Endpoint, query: &str) -> Result<String, String> {
    let web = client(TIMEOUT, endpoint.configured.then_some(&endpoint.url))?;
    web.check(&endpoint.url)?;
    let (http, endpoint) = (web.http, &endpoint.url);
    let origin = endpoint.origin().ascii_serialization();
    let failed = |e: reqwest::Error| {
        if e.is_timeout() {
            format!(
                "DuckDuckGo ({endpoint}) did not answer within {} s; try again later.",
                TIMEOUT.as_secs()
            )
        } else {
            describe_error(&e, endpoint.as_str(), TIMEOUT.as_millis() as u64)
        }
    };
    let mut response = http
        .post(endpoint.clone())
        .header(
            reqwest::header::ACCEPT,
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        )
        .header(reqwest::header::ACCEPT_LANGUAGE, "en-US,en;q=0.9")
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(reqwest::header::ORIGIN, &origin)
        .header(reqwest::header::REFERER, format!("{origin}/"))
        .body(form_body(query))
        .send()
        .await
        .map_err(failed)?;
    let status = response.status().as_u16();
    // DuckDuckGo serves its bot check with 202 (and never results): whatever the
    // body holds, a 202 is a refusal.
    if status == 202 {
        return Err(BLOCKED.to_string());
    }
    if !(200..300).contains(&status) {
        return Err(format!(
            "DuckDuckGo answered HTTP {status} for {}; try again later.",
            quoted(query)
        ));
    }
    let content_type = response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(failed)? {
        if bytes.len() + chunk.len() > MAX_BODY {
            return Err(format!(
                "DuckDuckGo's answer for {} is larger than {} MiB, which no results page is; nothing was parsed.",
                quoted(query),
                MAX_BODY / (1024 * 1024)
            ));
        }
        bytes.extend_from_slice(&chunk);
    }
    decode(&bytes, content_type.as_deref()).ok_or_else(|| {
        format!(
            "DuckDuckGo's answer for {} could not be decoded as text ({}); nothing was parsed.",
            quoted(query),
            content_type.as_deref().unwrap_or("no Content-Type")
        )
    })
}

/// The body as text: a byte-order mark wins, then the Content-Type's charset, then
/// UTF-8. `None` when the bytes are not valid in that encoding (no silent U+FFFD).
fn decode(bytes: &[u8], content_type: Option<&str>) -> Option<String> {
    let (encoding, skip) = match encoding_rs::Encoding::for_bom(bytes) {
        Some((encoding, bom)) => (encoding, bom),
        None => {
            let encoding = content_type
                .and_then(super::html::charset_param)
                .and_then(super::html::label)
                .unwrap_or(encoding_rs::UTF_8);
            (encoding, 0)
        }
    };
    encoding
        .decode_without_bom_handling_and_without_replacement(&bytes[skip..])
        .map(Cow::into_owned)
}

/// The results as numbered blocks separated by a blank line: `N. TITLE`, then the
/// URL and (when there is one) the snippet, each indented to line up with the title
/// (three spaces, four from result 10 on, as a Markdown list item continues).
pub fn render(results: &[SearchResult]) -> String {
    result_blocks(results).join("\n\n")
}

/// One block per result (numbered title, then the URL and the snippet indented
/// under it), for [`render`] and for a clamp that cuts between results.
fn result_blocks(results: &[SearchResult]) -> Vec<String> {
    results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let marker = format!("{}. ", i + 1);
            let indent = " ".repeat(marker.len());
            let mut block = format!("{marker}{}\n{indent}{}", r.title, r.url);
            if !r.snippet.is_empty() {
                block.push('\n');
                block.push_str(&indent);
                block.push_str(&r.snippet);
            }
            block
        })
        .collect()
}

/// Search `endpoint` for `query` and answer with at most `count` results.
async fn search(endpoint: &Endpoint, query: &str, count: usize, ctx: &ToolContext) -> ToolResult {
    let page = tokio::select! {
        page = exchange(endpoint, query) => page,
        _ = ctx.cancel.cancelled() => return ToolResult::failure("websearch was cancelled."),
    };
    let page = match page {
        Ok(page) => page,
        Err(message) => return ToolResult::failure(message),
    };
    let mut results = match parse_results(&page) {
        Page::Blocked => return ToolResult::failure(BLOCKED),
        Page::Results(results) => results,
    };
    results.truncate(count);
    // Results are separated by a blank line; a clamp cuts between them.
    let text = if results.is_empty() {
        clamp_for(
            ctx,
            "websearch",
            &format!("No results for {}.", quoted(query)),
        )
    } else {
        let mut blocks = result_blocks(&results);
        for block in blocks.iter_mut().skip(1) {
            block.insert(0, '\n');
        }
        let first = blocks.remove(0);
        clamp_rows(ctx, "websearch", &first, &blocks, "")
    };
    // The JSON block keeps the results that fit the budget whole (a page can hold
    // snippets of any length); the text block still shows the count of them all.
    let shown = longest_fitting_prefix(results.len(), |k| {
        json!(results[..k]).to_string().len() <= ctx.budget.max_bytes
    });
    ToolResult {
        content: vec![
            ToolContentBlock::Text(text),
            ToolContentBlock::Json(json!(results[..shown])),
        ],
        is_error: false,
    }
}

struct WebSearchTool;

/// The `websearch` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Builtin(SeedList::ReadOnly),
    open_world: true,
    fields: FIELDS,
    description: "Search the web (DuckDuckGo): numbered results with title, URL and snippet. Read a page with webfetch.",
    output: Some(include_str!("websearch.output.json")),
    ..ToolMeta::new(
        "websearch",
        "Web search",
        "Search the web and return ranked titles, URLs and snippets.",
    )
};

/// `websearch`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("query", Kind::Name, "What to search for."),
    Field::new(
        "count",
        Kind::Int {
            min: 1,
            max: Some(MAX_COUNT),
        },
        "How many results (default 5, at most 25).",
    ),
];

#[async_trait]
impl Tool for WebSearchTool {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let args = Args::checked(&input);
        let query = match args.required_str("query") {
            Ok(query) => query,
            Err(e) => return ToolResult::failure(e),
        };
        let count = match args.opt_positive_int("count") {
            Ok(count) => count.unwrap_or(DEFAULT_COUNT).min(MAX_COUNT) as usize,
            Err(e) => return ToolResult::failure(e),
        };
        let endpoint = match endpoint() {
            Ok(endpoint) => endpoint,
            Err(e) => return ToolResult::failure(e),
        };
        search(&endpoint, query, count, ctx).await
    }
}

/// The `websearch` tool.
pub fn websearch_tool() -> DefinedTool {
    define_tool(Arc::new(WebSearchTool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::local::make_local_context;
    use crate::kernel::CancellationToken;

    fn result(title: &str, url: &str, snippet: &str) -> SearchResult {
        SearchResult {
            title: title.into(),
            url: url.into(),
            snippet: snippet.into(),
        }
    }

    #[test]
    fn rendering() {
        assert_eq!(
            render(&[
                result("One", "https://a.example/", "First snippet."),
                result("Two", "https://b.example/", ""),
                result("Three", "https://c.example/", "Third."),
            ]),
            "1. One\n   https://a.example/\n   First snippet.\n\n2. Two\n   https://b.example/\n\n3. Three\n   https://c.example/\n   Third."
        );
        assert_eq!(render(&[]), "");
        let many: Vec<_> = (1..=10)
            .map(|i| result(&format!("T{i}"), &format!("https://{i}.example/"), "S"))
            .collect();
        assert!(render(&many).ends_with(
            "9. T9\n   https://9.example/\n   S\n\n10. T10\n    https://10.example/\n    S"
        ));
    }

    #[test]
    fn the_form_is_a_browsers() {
        assert_eq!(
            form_body("rust & \"tokio\" 日本"),
            "q=rust+%26+%22tokio%22+%E6%97%A5%E6%9C%AC&b=&kl="
        );
    }

    #[test]
    fn decoding_follows_bom_then_charset_then_utf8() {
        assert_eq!(decode("é".as_bytes(), None).as_deref(), Some("é"));
        assert_eq!(decode(b"\xef\xbb\xbfhi", None).as_deref(), Some("hi"));
        assert_eq!(
            decode(b"caf\xe9", Some("text/html; charset=\"ISO-8859-1\"")).as_deref(),
            Some("café")
        );
        assert_eq!(decode(b"caf\xe9", Some("text/html")), None);
        assert_eq!(
            decode(b"caf\xe9", Some("text/html; charset=nonsense")),
            None
        );
    }

    #[tokio::test]
    async fn cancelling_ends_a_search_that_hangs() {
        // A server that accepts and never answers.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let held: Vec<_> = listener.incoming().take(1).collect();
            std::thread::sleep(Duration::from_secs(30));
            drop(held);
        });
        let endpoint = Endpoint {
            url: Url::parse(&format!("http://127.0.0.1:{port}/html/")).unwrap(),
            configured: true,
        };
        let cancel = CancellationToken::new();
        let ctx = make_local_context(".", None, None, None).with_cancel(cancel.clone());
        let trigger = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            trigger.cancel();
        });
        let began = std::time::Instant::now();
        let out = search(&endpoint, "foo", 5, &ctx).await;
        assert!(began.elapsed() < Duration::from_secs(5));
        assert!(out.is_error);
        assert_eq!(
            out.content,
            vec![ToolContentBlock::Text("websearch was cancelled.".into())]
        );
    }
}
