//! The integration tests: one test crate, one module a file, so the library and the
//! test dependencies are linked into one binary instead of one per file. Each module
//! drives the real `indus-tool` binary or the library; `common` is the shared test
//! environment. The tests run as threads of this one process: nothing here may set
//! process-wide state (environment variables, the working directory, the umask,
//! signal dispositions); give a child process its own instead. A test that
//! measures a child's peak resident set runs alone in a fresh process of this
//! binary (`common::own_process!`): a child starts with its parent's peak.
//!
//! Run one module's tests with `cargo test --test it MODULE::`, e.g.
//! `cargo test --test it docs::`.

mod common;

mod api_schemas;
mod apply_patch;
mod bash;
mod batch;
mod bounds;
mod bounds_match;
mod checkpoint;
mod checkpoint_shell;
mod cli;
#[cfg(feature = "media")]
mod code;
mod completions;
mod concurrency;
mod deck;
mod deck_saas;
mod deck_task;
mod diff_history;
mod docs;
mod edit;
mod edit_scenarios;
mod examples;
mod exec_container;
mod exec_ssh;
mod faces;
mod files;
mod frameworks;
mod fuzz_corpus;
mod hardening;
mod layers;
mod lsp;
mod mcp;
mod mcp_client;
mod mcp_peers;
mod mcp_python;
mod media;
mod npm_package;
mod operator;
mod operator_tmux;
mod output_schemas;
mod planning;
mod process;
mod process_wait;
mod python_package;
mod root;
mod search;
mod shell;
mod skipped;
mod trust;
mod untrusted;
mod web_fetch;
mod web_search;
