//! The web family: `websearch` (DuckDuckGo's HTML endpoint) and `webfetch` (one URL,
//! as text, Markdown or HTML).
//!
//! Both tools share one rule: no network failure escapes. A refused connection, a
//! timeout, a non-2xx status, a body that cannot be decoded, a redirect loop — each
//! becomes an `is_error` result saying what happened and what to try. The HTTP
//! client (reqwest over rustls: no system OpenSSL) is built inside the tool's `run`,
//! so no other tool pays for its TLS setup or connection pool.

pub mod client;
pub mod ddg;
pub mod html;
pub mod webfetch;
pub mod websearch;

pub use webfetch::webfetch_tool;
pub use websearch::websearch_tool;
