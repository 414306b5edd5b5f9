//! The HTTP client every part of the toolbox builds from (the web tools, the
//! SaaS card, the MCP client's HTTP transports), so TLS is set up in one place.
//!
//! rustls needs a process-wide cryptography provider. reqwest's default one,
//! aws-lc, detects the CPU in a static constructor that runs on every start of
//! this one-shot binary, network or not, and is several MB of it; ring's
//! primitives detect lazily. The provider is installed here, once, before the
//! first client is built; a library user who installed another keeps theirs.

use std::sync::Once;

/// Install ring as rustls's process default, unless a provider is already set.
pub fn install_tls_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Err: another provider was installed first, which then serves.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A client builder with TLS ready (see the module comment).
pub fn client_builder() -> reqwest::ClientBuilder {
    install_tls_provider();
    reqwest::Client::builder()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_builds_with_the_provider_installed() {
        assert!(client_builder().build().is_ok());
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
    }
}
