//! The files family: read, write, edit, apply_patch and ls, with what they
//! share: the read-before-edit gate, the match engine (`matching/`:
//! where `edit`'s oldText and a patch's hunks go) and the diff
//! engine (also behind `indus-tool diff`).

pub mod apply_patch;
pub mod diff;
pub mod edit;
pub mod gate;
pub mod ls;
pub mod matching;
pub mod patch_parse;
pub mod read;
pub mod write;

pub use apply_patch::apply_patch_tool;
pub use edit::edit_tool;
pub use ls::ls_tool;
pub use read::read_tool;
pub use write::write_tool;
