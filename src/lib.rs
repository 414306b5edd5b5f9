//! indus-tool: the tool layer a coding agent needs (files, search, shell, planning,
//! web) as a library, with exact, byte-stable output.
//!
//! The crate is built in floors, each using only the ones below it (checked by
//! `tests/it/layers.rs`; described in `docs/development.md`): `kernel` (the authoring
//! shape and dispatch contract), `sys` (OS primitives that are not seams), `state`
//! (what persists), `backends` (the kernel's seams bound to the OS, SSH,
//! containers and tmux), `tools` (the concrete tools), `builtins` (the built-ins
//! and their collections), `deck` (the catalog of every tool with its profiles,
//! app cards and wrappers), `interop` (batch, MCP, the API shapes) and `cli` (the
//! command-line face). The most used names are re-exported at the root.

pub mod backends;
pub mod builtins;
pub mod cli;
pub mod deck;
pub mod interop;
pub mod kernel;
pub mod state;
pub mod sys;
pub mod tools;

pub use backends::{make_local_context, standard_budget};
pub use builtins::{
    MUTATING_NAMES, READ_ONLY_NAMES, ToolCollection, builtin_registry, tool_box, try_tool_box,
};
pub use kernel::*;
pub use tools::files::diff::{
    DEFAULT_CONTEXT, DiffOp, DiffOpKind, LineDiff, apply_unified_diff, diff_lines,
    render_unified_diff,
};
pub use tools::files::{edit_tool, ls_tool, read_tool, write_tool};
pub use tools::planning::{reset_todos, todo_read_tool, todo_set_tool};
pub use tools::search::{find_tool, grep_tool};
