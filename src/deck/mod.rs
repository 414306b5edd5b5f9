//! The capability deck of the seeds (`002_…`, `004_…`): one catalog of every tool the
//! toolbox can expose (the twelve built-ins, then the app cards), each row with its
//! wire id, title, summary, read-only flag and profile membership; the profiles
//! that select from it; and the cards themselves.
//!
//! Its rooms: `row.rs` (the shapes a catalog row is made of, which the cards and
//! the catalog both import), `catalog.rs` (the slice, the profiles and the
//! registries built from it), `cards/` (the app cards, one file each), and
//! `wrappers/` (what the command line
//! puts around the deck's tools: approval, suppression, the envelope,
//! checkpoints), and `checkpoint_tools.rs` (the checkpoint views and the
//! `checkpoint_*` tools on them, outside the catalog: exposed only when
//! checkpointing is on). The buddy profile's configuration (`buddy.json`, the policy) is
//! read on the state floor (`state::buddy_config`), because the tmux backend
//! reads its limits too.
//!
//! The deck adds no second registry: [`catalog::deck_registry`] registers the
//! catalog's tools in one [`ToolRegistry`](crate::kernel::ToolRegistry) (with the
//! standard collections of `builtins.rs` over the built-ins), and every index,
//! listing and lookup is derived from the one static catalog slice. A card is a
//! kernel [`Tool`](crate::kernel::Tool) like any built-in, so the CLI, batch mode and
//! the MCP server run cards exactly as they run built-ins.

pub mod cards;
pub mod catalog;
pub mod checkpoint_tools;
pub mod row;
pub mod wrappers;

pub use catalog::{
    Builder, CatalogRow, DeckContext, Profile, catalog, changes_the_world, checkpoint_of,
    deck_registry, deck_registry_for, find_row, rebuild_in_context, rows_for_profile,
};
