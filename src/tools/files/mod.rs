//! The files family: read, write, edit, apply_patch and ls, with what they
//! share: the read-before-edit gate, the match engine (`matching/`:
//! where `edit`'s oldText and a patch's hunks go) and the diff
//! engine (also behind `indus-tool diff`); and what `read` and `edit` do with
//! files that are not UTF-8 text: images, PDFs, notebooks, legacy encodings.

pub mod apply_patch;
pub mod diff;
pub mod edit;
pub mod encoding;
pub mod gate;
pub mod image;
pub mod ls;
pub mod matching;
pub mod notebook;
pub mod patch_parse;
pub mod pdf;
pub mod read;
mod read_kinds;
pub mod read_window;
pub mod sniff;
pub mod write;

pub use apply_patch::apply_patch_tool;
pub use edit::edit_tool;
pub use ls::ls_tool;
pub use read::read_tool;
pub use write::write_tool;
