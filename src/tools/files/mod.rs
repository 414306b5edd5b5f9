//! The files family: read, write, edit and ls.

pub mod diff;
pub mod edit_match;
pub mod ls;

pub use ls::ls_tool;
