//! The files family: read, write, edit and ls, with the read-before-edit gate
//! they share.

pub mod diff;
pub mod gate;
pub mod ls;
pub mod read;
pub mod write;

pub use ls::ls_tool;
pub use read::read_tool;
pub use write::write_tool;
