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
    let mut out = in_words(&e.to_string());
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = in_words(&c.to_string());
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}

/// A cause's text without the resolver's debug notation: hickory writes the
/// failed question as `Query { name: Name("host."), query_type: AAAA, … }`,
/// which a person reads as `host (AAAA)`.
fn in_words(text: &str) -> String {
    static QUERY: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let query = QUERY.get_or_init(|| {
        regex::Regex::new(
            r#"Query \{ name: Name\("([^"]*?)\.?"\), query_type: (\w+), query_class: \w+ \}"#,
        )
        .expect("a valid pattern")
    });
    query.replace_all(text, "$1 ($2)").into_owned()
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
        // The resolver's layers each say "dns error"; what matters is its last word.
        match cause.rfind("DNS error: ") {
            Some(at) => format!(
                "Cannot connect to {url}: its host name could not be resolved ({}).",
                &cause[at + "DNS error: ".len()..]
            ),
            None => format!("Cannot connect to {url}: {cause}"),
        }
    } else if e.is_body() || e.is_decode() {
        format!("The response from {url} could not be read: {}", chain(e))
    } else {
        format!("The request to {url} failed: {}", chain(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolver_debug_notation_is_put_in_words() {
        assert_eq!(
            in_words(
                r#"no records found for Query { name: Name("html.duckduckgo.com."), query_type: AAAA, query_class: IN }"#
            ),
            "no records found for html.duckduckgo.com (AAAA)"
        );
        assert_eq!(in_words("connection refused"), "connection refused");
    }
}
