//! The code family: what a language server knows about the code. `diagnose` (the
//! settled diagnostics of files, and the delta since a change) and `lsp`
//! (definition, references, hover, symbols, rename), both through the warm
//! language-server broker of `lsp`; `delta` keys and compares diagnostics.

pub mod delta;
pub mod diagnose;
pub mod lsp;
pub mod navigate;

pub use diagnose::diagnose_tool;
pub use navigate::lsp_tool;
#[cfg(feature = "code")]
pub mod defs;
pub mod grammar;
pub mod outline;
#[cfg(feature = "code")]
pub mod repo_map;
#[cfg(feature = "code")]
pub mod scan;
pub mod sgrep;

pub use outline::outline_tool;
pub use sgrep::sgrep_tool;
