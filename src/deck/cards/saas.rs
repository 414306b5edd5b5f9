//! `saas-action`: discover and run third-party SaaS actions (GitHub, Slack, Gmail,
//! …) through Composio's REST API (v3). This module owns the whole exchange:
//! reading the gateway's configuration from the environment, the two requests, and
//! turning every answer — and every way the exchange can fail — into a result.
//!
//! - `discover` → `GET {base}/api/v3/tools?toolkit_slug=…&search=…&limit=…`,
//!   listed as `{slug, name, description, toolkit}` rows.
//! - `execute` → `POST {base}/api/v3/tools/execute/{slug}` with
//!   `{"arguments": {…}, "user_id": "…"}`; the answer's `data` is the result,
//!   `successful: false` is an `is_error` result carrying its `error`.
//!
//! Configuration is the environment, read at each call: `COMPOSIO_API_KEY` (sent
//! as the `x-api-key` header and nowhere else), `COMPOSIO_BASE_URL` (default
//! [`DEFAULT_BASE_URL`]), `COMPOSIO_USER_ID` (default `default`) and
//! `COMPOSIO_TIMEOUT_MS`. Without a key the card is the seed's typed stub: an
//! `is_error` result saying no SaaS gateway is configured and how to set one up.
//! The key never appears in output: the header is marked sensitive, redirects are
//! not followed (a redirect could carry it to another host), and every string the
//! card returns is scrubbed of it, whatever the server echoed back.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Effect, Seat, ToolMeta};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Map, Value, json};

use crate::kernel::input::{Args, invalid};
use crate::kernel::text::plural;
use crate::kernel::{DefinedTool, Tool, ToolContext, ToolResult, define_tool};
use crate::tools::web::client::chain;
use crate::tools::{clamp_for, clamp_rows, record_with_rows, text_and_record};

/// The Composio API key.
pub const KEY_ENV: &str = "COMPOSIO_API_KEY";
/// The API's base URL.
pub const BASE_URL_ENV: &str = "COMPOSIO_BASE_URL";
/// The Composio user whose connected accounts run actions.
pub const USER_ENV: &str = "COMPOSIO_USER_ID";
/// The default deadline of a request, in milliseconds.
pub const TIMEOUT_ENV: &str = "COMPOSIO_TIMEOUT_MS";
pub const DEFAULT_BASE_URL: &str = "https://backend.composio.dev";
pub const DEFAULT_USER_ID: &str = "default";
/// The default deadline: 30 s.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// The deadline's ceiling: 5 minutes.
pub const MAX_TIMEOUT_MS: u64 = 300_000;
/// Tools a discover lists unless `limit` says otherwise.
pub const DEFAULT_LIMIT: u64 = 20;
/// The API's own ceiling for `limit`.
pub const MAX_LIMIT: u64 = 1000;

const ACTIONS: [&str; 2] = ["discover", "execute"];
/// Characters of a description shown on a row for people (the record keeps it whole).
const ROW_DESCRIPTION_CHARS: usize = 160;
/// Characters of an error body quoted in a message.
const BODY_EXCERPT_CHARS: usize = 300;

/// The gateway's settings, from the environment.
struct Gateway {
    key: String,
    base: reqwest::Url,
    base_shown: String,
    user_id: String,
    timeout_ms: u64,
}

fn env_nonempty(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// The seed's typed stub: no gateway, and how to configure one.
fn not_configured() -> String {
    format!(
        "saas-action: no SaaS gateway is configured, so nothing was discovered or run.\n\
         Set {KEY_ENV} to a Composio API key (created in the Composio dashboard under your project's settings), for example:\n\
         \x20 export {KEY_ENV}=<your key>\n\
         Optional: {USER_ENV} (the Composio user whose connected accounts run actions; default \"{DEFAULT_USER_ID}\"), \
         {BASE_URL_ENV} (default {DEFAULT_BASE_URL}), {TIMEOUT_ENV} (default {DEFAULT_TIMEOUT_MS})."
    )
}

/// Read the gateway's settings; `Ok(None)` when no key is set.
fn gateway(timeout_input: Option<u64>) -> Result<Option<Gateway>, String> {
    let Some(key) = env_nonempty(KEY_ENV) else {
        return Ok(None);
    };
    let base_shown = env_nonempty(BASE_URL_ENV)
        .unwrap_or_else(|| DEFAULT_BASE_URL.to_string())
        .trim_end_matches('/')
        .to_string();
    let base = reqwest::Url::parse(&base_shown)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
        .ok_or_else(|| {
            format!("saas-action: {BASE_URL_ENV} ({base_shown:?}) is not an http(s) URL.")
        })?;
    let timeout_ms = match timeout_input {
        Some(ms) => ms,
        None => match env_nonempty(TIMEOUT_ENV) {
            None => DEFAULT_TIMEOUT_MS,
            Some(raw) => raw.parse::<u64>().ok().filter(|ms| *ms > 0).ok_or_else(|| {
                format!("saas-action: {TIMEOUT_ENV} ({raw:?}) is not a positive number of milliseconds.")
            })?,
        },
    }
    .min(MAX_TIMEOUT_MS);
    Ok(Some(Gateway {
        key,
        base,
        base_shown,
        user_id: env_nonempty(USER_ENV).unwrap_or_else(|| DEFAULT_USER_ID.to_string()),
        timeout_ms,
    }))
}

impl Gateway {
    /// `{base}/api/v3/…` with `segments` appended (each escaped as one segment).
    fn url(&self, segments: &[&str]) -> reqwest::Url {
        let mut url = self.base.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(["api", "v3"]).extend(segments);
        }
        url
    }

    fn client(&self) -> Result<reqwest::Client, String> {
        let timeout = Duration::from_millis(self.timeout_ms);
        crate::backends::net::client_builder()
            .user_agent(concat!("indus-tool/", env!("CARGO_PKG_VERSION")))
            // A redirect could carry the key's header to another host.
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .build()
            .map_err(|e| {
                format!(
                    "saas-action could not set up its HTTP client: {}",
                    chain(&e)
                )
            })
    }

    fn key_header(&self) -> Result<reqwest::header::HeaderValue, String> {
        let mut value = reqwest::header::HeaderValue::from_str(&self.key).map_err(|_| {
            format!("saas-action: {KEY_ENV} holds characters an HTTP header cannot carry.")
        })?;
        value.set_sensitive(true);
        Ok(value)
    }

    /// Send `request`, and read the answer as JSON, or say what went wrong.
    async fn exchange(
        &self,
        request: reqwest::RequestBuilder,
        what: &str,
    ) -> Result<Value, String> {
        let response = request
            .header("x-api-key", self.key_header()?)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| self.describe(&e, what))?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|e| self.describe(&e, what))?;
        let parsed: Option<Value> = serde_json::from_slice(&body).ok();
        if !status.is_success() {
            let said = parsed
                .as_ref()
                .and_then(server_message)
                .unwrap_or_else(|| excerpt(&String::from_utf8_lossy(&body)));
            let said = if said.is_empty() {
                String::new()
            } else {
                format!(" The server said: {said}")
            };
            return Err(match status.as_u16() {
                401 | 403 => format!(
                    "saas-action: Composio refused the API key for {what} (HTTP {}); check {KEY_ENV} (and that the key belongs to the project you mean).{said}",
                    status.as_u16()
                ),
                code => format!("saas-action: Composio answered HTTP {code} to {what}.{said}"),
            });
        }
        parsed.ok_or_else(|| {
            format!(
                "saas-action: Composio's answer to {what} is not JSON: {}",
                excerpt(&String::from_utf8_lossy(&body))
            )
        })
    }

    /// A failed exchange in words a model can act on (never holding the key).
    fn describe(&self, e: &reqwest::Error, what: &str) -> String {
        let base = &self.base_shown;
        if e.is_timeout() {
            format!(
                "saas-action: Composio at {base} did not answer {what} within {} ms; try again, or raise timeoutMs (or {TIMEOUT_ENV}).",
                self.timeout_ms
            )
        } else if e.is_connect() {
            let cause = std::error::Error::source(e)
                .map(chain)
                .unwrap_or_else(|| e.to_string());
            format!(
                "saas-action: cannot connect to Composio at {base} ({cause}); check {BASE_URL_ENV} and the network."
            )
        } else {
            format!("saas-action: {what} failed: {}", chain(e))
        }
    }
}

/// The message in an error body: `error.message`, `error` as text, or `message`.
fn server_message(body: &Value) -> Option<String> {
    let m = match body.get("error") {
        Some(Value::Object(e)) => e.get("message").and_then(Value::as_str).map(str::to_string),
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    m.or_else(|| {
        body.get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
    })
    .map(|s| excerpt(&s))
}

/// The first characters of `text` on one line.
fn excerpt(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= BODY_EXCERPT_CHARS {
        return flat;
    }
    let cut: String = flat.chars().take(BODY_EXCERPT_CHARS).collect();
    format!("{cut}…")
}

/// `text` with every occurrence of `key` replaced.
fn scrub(text: &str, key: &str) -> String {
    if key.is_empty() || !text.contains(key) {
        return text.to_string();
    }
    text.replace(key, "[redacted]")
}

/// `value` with every string scrubbed of `key`.
fn scrub_value(value: Value, key: &str) -> Value {
    match value {
        Value::String(s) => Value::String(scrub(&s, key)),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| scrub_value(v, key)).collect())
        }
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (scrub(&k, key), scrub_value(v, key)))
                .collect(),
        ),
        other => other,
    }
}

/// A result with every text and JSON block scrubbed of `key`.
fn scrub_result(result: ToolResult, key: &str) -> ToolResult {
    use crate::kernel::ToolContentBlock as B;
    ToolResult {
        content: result
            .content
            .into_iter()
            .map(|b| match b {
                B::Text(t) => B::Text(scrub(&t, key)),
                B::Json(v) => B::Json(scrub_value(v, key)),
            })
            .collect(),
        is_error: result.is_error,
    }
}

/// `toolkits`: an array of toolkit slugs, or one string of comma-separated slugs.
fn toolkits_of(args: &Args<'_>) -> Result<Vec<String>, String> {
    const EXPECTED: &str = "an array of toolkit slugs (or one comma-separated string)";
    let split = |s: &str| -> Vec<String> {
        s.split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect()
    };
    match args.get("toolkits") {
        None => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(split(s)),
        Some(Value::Array(items)) => {
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) if !s.trim().is_empty() => out.extend(split(s)),
                    other => {
                        return Err(invalid(
                            &format!("toolkits[{i}]"),
                            "a non-empty string",
                            other,
                        ));
                    }
                }
            }
            Ok(out)
        }
        Some(other) => Err(invalid("toolkits", EXPECTED, other)),
    }
}

/// One listed tool as a row: `{slug, name, description, toolkit}`.
fn tool_row(item: &Value) -> Value {
    let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_string();
    let toolkit = match item.get("toolkit") {
        Some(Value::Object(t)) => s(t.get("slug")),
        Some(Value::String(t)) => t.clone(),
        _ => String::new(),
    };
    json!({
        "slug": s(item.get("slug")),
        "name": s(item.get("name")),
        "description": s(item.get("description")),
        "toolkit": toolkit,
    })
}

/// A row for people: `SLUG [toolkit] name — description` on one line.
fn row_text(row: &Value) -> String {
    let f = |k: &str| row[k].as_str().unwrap_or("");
    let mut line = f("slug").to_string();
    if !f("toolkit").is_empty() {
        line.push_str(&format!(" [{}]", f("toolkit")));
    }
    if !f("name").is_empty() {
        line.push_str(&format!(" {}", f("name")));
    }
    let description: String = f("description")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if !description.is_empty() {
        let shown: String = description.chars().take(ROW_DESCRIPTION_CHARS).collect();
        let more = if shown.len() < description.len() {
            "…"
        } else {
            ""
        };
        line.push_str(&format!(" — {shown}{more}"));
    }
    line
}

async fn discover(gw: &Gateway, args: &Args<'_>, ctx: &ToolContext) -> Result<ToolResult, String> {
    let toolkits = toolkits_of(args)?;
    let query = args
        .opt_str("query")?
        .map(str::trim)
        .filter(|q| !q.is_empty());
    let limit = args
        .opt_positive_int("limit")?
        .unwrap_or(DEFAULT_LIMIT)
        .min(MAX_LIMIT);
    let mut url = gw.url(&["tools"]);
    {
        let mut pairs = url.query_pairs_mut();
        if !toolkits.is_empty() {
            pairs.append_pair("toolkit_slug", &toolkits.join(","));
        }
        if let Some(q) = query {
            pairs.append_pair("search", q);
        }
        pairs.append_pair("limit", &limit.to_string());
    }
    let client = gw.client()?;
    let body = gw.exchange(client.get(url), "discover").await?;
    let items = match body.get("items").or_else(|| body.get("tools")) {
        Some(Value::Array(items)) => items.as_slice(),
        _ if body.is_array() => body.as_array().map(Vec::as_slice).unwrap_or(&[]),
        _ => {
            return Err(format!(
                "saas-action: Composio's answer to discover has no \"items\" list: {}",
                excerpt(&body.to_string())
            ));
        }
    };
    let rows: Vec<Value> = items.iter().take(limit as usize).map(tool_row).collect();
    let more = body
        .get("next_cursor")
        .is_some_and(|c| c.as_str().is_some_and(|s| !s.is_empty()));
    let mut filter = Vec::new();
    if !toolkits.is_empty() {
        filter.push(format!("toolkits {}", toolkits.join(", ")));
    }
    if let Some(q) = query {
        filter.push(format!("query {q:?}"));
    }
    let filter = if filter.is_empty() {
        String::new()
    } else {
        format!(" ({})", filter.join("; "))
    };
    let head = if rows.is_empty() {
        format!("No tools found{filter}.")
    } else {
        format!("{}{filter}:", plural(rows.len() as u64, "tool", "tools"))
    };
    let tail = if more {
        "\nMore tools match: narrow the query or toolkits, or raise limit."
    } else {
        ""
    };
    let lines: Vec<String> = rows.iter().map(row_text).collect();
    let text = clamp_rows(ctx, "saas-action", &head, &lines, tail);
    let mut record = Map::new();
    record.insert("action".into(), json!("discover"));
    record.insert("count".into(), json!(rows.len()));
    record.insert("more".into(), json!(more));
    let record = record_with_rows(record, "tools", rows, ctx.budget.max_bytes);
    Ok(text_and_record(text, record, false))
}

async fn execute(gw: &Gateway, args: &Args<'_>, ctx: &ToolContext) -> Result<ToolResult, String> {
    let slug = args.required_str("slug")?;
    let arguments = match args.get("arguments") {
        None => Value::Object(Map::new()),
        Some(v @ Value::Object(_)) => v.clone(),
        // The schema a model is shown says a JSON text (an open object cannot
        // be written in strict mode); an object is still taken as it is.
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Object(_)) => v,
            _ => {
                return Err(format!(
                    "Invalid \"arguments\": expected a JSON object (as an object or as its JSON text), got the text {}.",
                    Value::from(text.chars().take(80).collect::<String>())
                ));
            }
        },
        Some(other) => {
            return Err(invalid(
                "arguments",
                "an object of the action's arguments",
                other,
            ));
        }
    };
    let url = gw.url(&["tools", "execute", slug]);
    let body = json!({"arguments": arguments, "user_id": gw.user_id});
    let client = gw.client()?;
    let what = format!("execute {slug}");
    let request = client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body.to_string());
    let answer = gw.exchange(request, &what).await?;
    let data = answer.get("data").cloned().unwrap_or(Value::Null);
    let successful = answer
        .get("successful")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    if !successful {
        let error = match answer.get("error") {
            None | Some(Value::Null) => "no error message was given".to_string(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        };
        let text = clamp_for(
            ctx,
            "saas-action",
            &format!("saas-action: {slug} did not succeed: {error}"),
        );
        let record = json!({"action": "execute", "slug": slug, "successful": false, "error": error, "data": data});
        let record = bounded(record, &text, ctx);
        return Ok(text_and_record(text, record, true));
    }
    let pretty = serde_json::to_string_pretty(&data).unwrap_or_default();
    let text = clamp_for(ctx, "saas-action", &pretty);
    let record = json!({"action": "execute", "slug": slug, "successful": true, "data": data});
    let record = bounded(record, &text, ctx);
    Ok(text_and_record(text, record, false))
}

/// `record` when it fits the budget; else the same with `data` replaced by the
/// clamped text people see, and `"truncated": true`.
fn bounded(mut record: Value, shown: &str, ctx: &ToolContext) -> Value {
    if record.to_string().len() <= ctx.budget.max_bytes {
        return record;
    }
    record["data"] = Value::String(shown.to_string());
    record["truncated"] = Value::Bool(true);
    record
}

struct SaasCard;

/// The `saas-action` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Card,
    effect: Effect::Runs,
    open_world: true,
    fields: FIELDS,
    description: "SaaS actions (GitHub, Slack, Gmail…) through Composio: discover (toolkits, query) lists them; execute runs one by slug with arguments. Needs COMPOSIO_API_KEY.",
    output: Some(include_str!("saas_action.output.json")),
    ..ToolMeta::new(
        "saas-action",
        "SaaS action",
        "Discover and run third-party SaaS actions through the Composio REST API.",
    )
};

/// `saas-action`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("action", Kind::Enum(&ACTIONS), "discover or execute."),
    Field::new(
        "slug",
        Kind::Text,
        "execute: the action, as discover lists it (e.g. GITHUB_CREATE_AN_ISSUE).",
    ),
    Field::new(
        "arguments",
        Kind::Lenient("string"),
        "execute: the action's arguments as a JSON object, e.g. {\"owner\": \"x\"} (an object is taken too).",
    ),
    Field::new(
        "toolkits",
        Kind::Strings,
        "discover: only these toolkits, e.g. [\"github\"].",
    ),
    Field::new("query", Kind::Text, "discover: words to search actions by."),
    Field::deprecated(
        "limit",
        Kind::Int {
            min: 1,
            max: Some(MAX_LIMIT),
        },
        "discover: the most actions listed (default 20, at most 1000).",
    ),
    Field::deprecated(
        "timeoutMs",
        Kind::Int {
            min: 1,
            max: Some(MAX_TIMEOUT_MS),
        },
        "Give up after this many milliseconds (default 30000 or COMPOSIO_TIMEOUT_MS, at most 300000).",
    ),
];

#[async_trait]
impl Tool for SaasCard {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let args = Args::checked(&input);
        let checked = args
            .required_enum("action", &ACTIONS)
            .and_then(|a| Ok((a, args.opt_positive_int("timeoutMs")?)));
        let (action, timeout) = match checked {
            Ok(v) => v,
            Err(e) => return ToolResult::failure(e),
        };
        let gw = match gateway(timeout) {
            Ok(Some(gw)) => gw,
            Ok(None) => return ToolResult::failure(not_configured()),
            Err(e) => return ToolResult::failure(e),
        };
        let run = async {
            match action {
                "discover" => discover(&gw, &args, ctx).await,
                _ => execute(&gw, &args, ctx).await,
            }
        };
        let outcome = tokio::select! {
            r = run => r,
            _ = ctx.cancel.cancelled() => Err("saas-action was cancelled; the request was abandoned.".to_string()),
        };
        let result = match outcome {
            Ok(result) => result,
            Err(e) => ToolResult::failure(e),
        };
        scrub_result(result, &gw.key)
    }
}

/// The `saas-action` card.
pub fn saas_card() -> DefinedTool {
    define_tool(Arc::new(SaasCard))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_descriptions_name_the_constants() {
        let said = |key: &str| FIELDS.iter().find(|f| f.key == key).unwrap().description;
        assert!(said("limit").contains(&format!("default {DEFAULT_LIMIT}, at most {MAX_LIMIT})")));
        assert!(said("timeoutMs").contains(&format!(
            "default {DEFAULT_TIMEOUT_MS} or {TIMEOUT_ENV}, at most {MAX_TIMEOUT_MS})"
        )));
    }

    #[test]
    fn the_key_is_scrubbed_everywhere() {
        let v = json!({"a": ["sk-1 here"], "sk-1": 2});
        assert_eq!(
            scrub_value(v, "sk-1"),
            json!({"a": ["[redacted] here"], "[redacted]": 2})
        );
        assert_eq!(scrub("nothing", ""), "nothing");
    }

    #[test]
    fn rows_take_the_toolkits_slug() {
        let row = tool_row(
            &json!({"slug": "GITHUB_X", "name": "X", "description": "d\nmore", "toolkit": {"slug": "github", "name": "GitHub"}}),
        );
        assert_eq!(
            row,
            json!({"slug": "GITHUB_X", "name": "X", "description": "d\nmore", "toolkit": "github"})
        );
        assert_eq!(row_text(&row), "GITHUB_X [github] X — d more");
    }

    #[test]
    fn server_messages_are_found() {
        assert_eq!(
            server_message(&json!({"error": {"message": "bad key"}})).as_deref(),
            Some("bad key")
        );
        assert_eq!(
            server_message(&json!({"message": "m"})).as_deref(),
            Some("m")
        );
        assert_eq!(server_message(&json!({})), None);
    }
}
