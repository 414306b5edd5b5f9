//! `read_file`, `write_file`, `fetch_url` and `web_search`: the seed's file and
//! web tools over the toolbox's engines. Each keeps the engine's guarantees
//! (path rules and `--root`, the atomic write and the gate, the fetch's limits
//! and the search endpoint) and only reshapes input and output to the seed's:
//! 8,000 characters with `...[truncated]`, `Wrote N bytes to /path`, up to 8
//! numbered results.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Effect, Seat, ToolMeta};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::shared::cap_text;
use crate::kernel::input::Args;
use crate::kernel::{DefinedTool, Tool, ToolContentBlock, ToolContext, ToolResult, define_tool};
use crate::tools::files::gate::{get_read_state_handle, record_read_state};

/// The JSON block of an engine's result (its record), if it has one.
fn record_of(result: &ToolResult) -> Option<&Value> {
    result.content.iter().find_map(|b| match b {
        ToolContentBlock::Json(v) => Some(v),
        ToolContentBlock::Text(_) => None,
    })
}

struct ReadFile;

/// The `read_file` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const READ_FILE: ToolMeta = ToolMeta {
    seat: Seat::Operator { in_all: false },
    fields: READ_FILE_FIELDS,
    ..ToolMeta::new(
        "read_file",
        "Read file (text)",
        "Return a file's text as is, up to 8,000 characters.",
    )
};

/// `read_file`'s input fields: its schema and the check before it runs.
const READ_FILE_FIELDS: &[Field] = &[Field::required("path", Kind::Name, "The file to read.")];

#[async_trait]
impl Tool for ReadFile {
    fn description(&self) -> &str {
        "Read a text file and return its content as is, cut to 8,000 characters with ...[truncated] appended when longer.\n\nWhen to use: to look at a configuration file, a log excerpt or a script before acting on it.\n\nWhen NOT to use: for a large file you need a window of (use run_shell with sed -n or tail), or for binary files.\n\nDisambiguation: returns raw text without line numbers; the path is relative to the working directory.\n\nExamples: {\"path\": \"/etc/hostname\"}"
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&READ_FILE)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let args = Args::checked(&input);
        let path = match args.required_str("path") {
            Ok(p) => p,
            Err(e) => return ToolResult::failure(e),
        };
        let abs = match ctx.confine(path) {
            Ok(abs) => abs,
            Err(message) => return ToolResult::failure(message),
        };
        match ctx.fs.stat(&abs).await {
            Ok(info) if info.is_directory => {
                return ToolResult::failure(format!(
                    "{path} is a directory; read_file needs a file path."
                ));
            }
            Err(e) => {
                return ToolResult::failure(format!(
                    "Cannot read {path}: {e}",
                    path = crate::kernel::text::inert(path)
                ));
            }
            _ => {}
        }
        let text = match ctx.fs.read_text(&abs).await {
            Ok(t) => t,
            Err(e) => {
                return ToolResult::failure(format!(
                    "Cannot read {path}: {e}",
                    path = crate::kernel::text::inert(path)
                ));
            }
        };
        let handle = get_read_state_handle(ctx);
        if let Err(e) = record_read_state(ctx, &abs, handle, None).await {
            return ToolResult::failure(format!(
                "Read {path}, but its read-state could not be recorded: {e}"
            ));
        }
        ToolResult::text(cap_text(&text))
    }
}

struct WriteFile;

/// The `write_file` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const WRITE_FILE: ToolMeta = ToolMeta {
    seat: Seat::Operator { in_all: false },
    effect: Effect::Writes { idempotent: false },
    fields: WRITE_FILE_FIELDS,
    ..ToolMeta::new(
        "write_file",
        "Write file (text)",
        "Create or replace a file atomically and say how many bytes were written.",
    )
};

/// `write_file`'s input fields: its schema and the check before it runs.
const WRITE_FILE_FIELDS: &[Field] = &[
    Field::required("path", Kind::Name, "The file to write."),
    Field::required("content", Kind::Name, "The complete new content."),
];

#[async_trait]
impl Tool for WriteFile {
    fn description(&self) -> &str {
        "Write content to a file, creating it (and missing parent folders) or replacing it atomically; answers Wrote N bytes to /path.\n\nWhen to use: to create or wholly replace a configuration file, a script or a note.\n\nWhen NOT to use: to change a few lines of a large file (write the whole new content, or use run_shell), or to append to a log.\n\nDisambiguation: replaces the whole file; an existing file keeps its permissions and a symlink is written through.\n\nExamples: {\"path\": \"/tmp/output.txt\", \"content\": \"hello world\\n\"}"
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&WRITE_FILE)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let args = Args::checked(&input);
        let (path, content) = match (args.required_str("path"), args.required_str("content")) {
            (Ok(p), Ok(c)) => (p, c),
            (Err(e), _) | (_, Err(e)) => return ToolResult::failure(e),
        };
        let abs = match ctx.confine(path) {
            Ok(abs) => abs,
            Err(message) => return ToolResult::failure(message),
        };
        let written = crate::tools::files::write_tool()
            .run_result(json!({"path": path, "content": content}), ctx)
            .await;
        if written.is_error {
            return written;
        }
        ToolResult::text(format!("Wrote {} bytes to {abs}", content.len()))
    }
}

struct FetchUrl;

/// The `fetch_url` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const FETCH_URL: ToolMeta = ToolMeta {
    seat: Seat::Operator { in_all: false },
    open_world: true,
    fields: FETCH_URL_FIELDS,
    ..ToolMeta::new(
        "fetch_url",
        "Fetch URL body",
        "HTTP GET a URL and return its body, up to 8,000 characters.",
    )
};

/// `fetch_url`'s input fields: its schema and the check before it runs.
const FETCH_URL_FIELDS: &[Field] = &[Field::required(
    "url",
    Kind::Name,
    "An absolute http or https URL.",
)];

#[async_trait]
impl Tool for FetchUrl {
    fn description(&self) -> &str {
        "HTTP GET a URL and return the response body as text, cut to 8,000 characters with ...[truncated] appended when longer.\n\nWhen to use: to read an API's JSON, a raw configuration file or a documentation page by URL.\n\nWhen NOT to use: to find pages about a topic (use web_search), for binary downloads, or for requests needing authentication or a method other than GET.\n\nDisambiguation: the body comes as served (HTML stays HTML); redirects are followed.\n\nExamples: {\"url\": \"https://example.com/api/data\"}"
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&FETCH_URL)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let args = Args::checked(&input);
        let url = match args.required_str("url") {
            Ok(u) => u,
            Err(e) => return ToolResult::failure(e),
        };
        let fetched = crate::tools::web::webfetch_tool()
            .run_result(json!({"url": url, "format": "html"}), ctx)
            .await;
        if fetched.is_error {
            return fetched;
        }
        match record_of(&fetched).and_then(|r| r["content"].as_str()) {
            Some(body) => ToolResult::text(cap_text(body)),
            None => ToolResult::failure(format!("fetch_url: {url} gave no body")),
        }
    }
}

struct WebSearch;

/// The seed's rendering of results: `N. title`, the URL and the snippet indented.
fn render_results(results: &[Value]) -> String {
    if results.is_empty() {
        return "No results.".to_string();
    }
    results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let field = |k: &str| r[k].as_str().unwrap_or("").trim().to_string();
            let mut entry = format!("{}. {}\n   {}", i + 1, field("title"), field("url"));
            let snippet = field("snippet");
            if !snippet.is_empty() {
                entry.push_str(&format!("\n   {snippet}"));
            }
            entry
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The `web_search` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const WEB_SEARCH: ToolMeta = ToolMeta {
    seat: Seat::Operator { in_all: false },
    open_world: true,
    fields: WEB_SEARCH_FIELDS,
    ..ToolMeta::new(
        "web_search",
        "Web search (top 8)",
        "Search the web and return up to eight numbered results.",
    )
};

/// `web_search`'s input fields: its schema and the check before it runs.
const WEB_SEARCH_FIELDS: &[Field] = &[Field::required("query", Kind::Name, "What to search for.")];

#[async_trait]
impl Tool for WebSearch {
    fn description(&self) -> &str {
        "Search the web (DuckDuckGo's HTML endpoint, no API key) and return up to 8 results, each with title, URL and snippet.\n\nWhen to use: to find documentation, an error message's explanation or a download page.\n\nWhen NOT to use: when you already know the URL (use fetch_url).\n\nDisambiguation: returns links and snippets only; fetch a result to read it.\n\nExamples: {\"query\": \"rust tokio tutorial\"}"
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&WEB_SEARCH)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let args = Args::checked(&input);
        let query = match args.required_str("query") {
            Ok(q) => q,
            Err(e) => return ToolResult::failure(e),
        };
        let found = crate::tools::web::websearch_tool()
            .run_result(json!({"query": query, "count": 8}), ctx)
            .await;
        if found.is_error {
            return found;
        }
        let results = record_of(&found)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        ToolResult::text(render_results(&results[..results.len().min(8)]))
    }
}

/// The `read_file` front end.
pub fn read_file_tool() -> DefinedTool {
    define_tool(Arc::new(ReadFile))
}

/// The `write_file` front end.
pub fn write_file_tool() -> DefinedTool {
    define_tool(Arc::new(WriteFile))
}

/// The `fetch_url` front end.
pub fn fetch_url_tool() -> DefinedTool {
    define_tool(Arc::new(FetchUrl))
}

/// The `web_search` front end.
pub fn web_search_tool() -> DefinedTool {
    define_tool(Arc::new(WebSearch))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_render_as_the_seed_shows() {
        let r = vec![
            json!({"title": "Tokio", "url": "https://tokio.rs", "snippet": "A runtime."}),
            json!({"title": "Tutorial", "url": "https://tokio.rs/t", "snippet": ""}),
        ];
        assert_eq!(
            render_results(&r),
            "1. Tokio\n   https://tokio.rs\n   A runtime.\n\n2. Tutorial\n   https://tokio.rs/t"
        );
        assert_eq!(render_results(&[]), "No results.");
    }
}
