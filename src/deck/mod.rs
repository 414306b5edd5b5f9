//! The capability deck of the seeds (`002_…`, `004_…`): one catalog of every tool the
//! toolbox can expose (the twelve built-ins, then the app cards), each row with its
//! wire id, title, summary, read-only flag and profile membership; the profiles
//! that select from it; and the cards themselves.
//!
//! The deck adds no second registry: [`catalog::deck_registry`] registers the
//! catalog's tools in one [`ToolRegistry`](crate::kernel::ToolRegistry) (with the
//! standard collections of `registry.rs` over the built-ins), and every index,
//! listing and lookup is derived from the one static catalog slice. A card is a
//! kernel [`Tool`](crate::kernel::Tool) like any built-in, so the CLI, batch mode and
//! the MCP server run cards exactly as they run built-ins.

pub mod approval;
pub mod buddy_config;
pub mod cards;
pub mod catalog;
pub mod checkpoint;
pub mod envelope;
pub mod suppress;

pub use catalog::{
    Builder, CatalogRow, DeckContext, Profile, catalog, deck_registry, deck_registry_for, find_row,
    rebuild_in_context, rows_for_profile,
};
