//! The web family's HTTP client and its errors: one browser-like User-Agent, the
//! redirect limit, timeouts, and network failures worded for a person (every
//! cause in the chain, what to try). Apart from the family's `mod.rs` so both
//! tools import it and the family's front door only lists them.

use std::error::Error as _;
use std::time::Duration;

/// A current desktop browser's User-Agent: the endpoints serve their plain HTML to
/// browsers, and some refuse unknown clients outright.
pub const USER_AGENT: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// Redirects followed before giving up.
pub const MAX_REDIRECTS: usize = 5;

/// The longest a connection attempt may take, whatever the overall timeout.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A client for one tool call: browser User-Agent, gzip, at most
/// [`MAX_REDIRECTS`] redirects, and `timeout` over the whole exchange (connect,
/// headers and body).
pub fn client(timeout: Duration) -> Result<reqwest::Client, String> {
    crate::backends::net::client_builder()
        .user_agent(USER_AGENT)
        .redirect(reqwest::redirect::Policy::limited(MAX_REDIRECTS))
        .timeout(timeout)
        .connect_timeout(timeout.min(CONNECT_TIMEOUT))
        .gzip(true)
        .build()
        .map_err(|e| format!("The HTTP client could not be set up: {}", chain(&e)))
}

/// An error and its causes, innermost last: reqwest's own message alone ("error
/// sending request") rarely says what went wrong.
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}

/// What a failed request means, in words a model can act on.
pub fn describe_error(e: &reqwest::Error, url: &str, timeout_ms: u64) -> String {
    if e.is_timeout() {
        format!("{url} did not respond within {timeout_ms} ms; try again later or raise timeoutMs.")
    } else if e.is_redirect() {
        format!(
            "{url} redirected more than {MAX_REDIRECTS} times (a redirect loop?); nothing was fetched."
        )
    } else if e.is_connect() {
        let cause = e.source().map(chain).unwrap_or_else(|| e.to_string());
        format!("Cannot connect to {url}: {cause}")
    } else if e.is_body() || e.is_decode() {
        format!("The response from {url} could not be read: {}", chain(e))
    } else {
        format!("The request to {url} failed: {}", chain(e))
    }
}
