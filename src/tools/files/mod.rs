//! The files family: read, write, edit and ls, with what they share: the
//! read-before-edit gate and the diff engine (also behind `indus-tool diff`).

pub mod diff;
pub mod edit;
pub mod edit_match;
pub mod gate;
pub mod ls;
pub mod read;
pub mod write;

pub use edit::edit_tool;
pub use ls::ls_tool;
pub use read::read_tool;
pub use write::write_tool;

use std::time::Duration;

use crate::kernel::FsEntryInfo;

/// How long `edit` and `write` wait for another process's edit of the same file
/// (see `Fs::lock_file`) before giving up with an error rather than hanging.
pub const FILE_LOCK_WAIT: Duration = Duration::from_secs(10);

/// What a path that is neither a regular file nor a directory is, for the refusals
/// of the tools that only handle those. The seam reports a link that resolves to
/// nothing (dangling, or a loop) as the link itself, so a link is named as a link.
pub fn not_regular(path: &str, info: &FsEntryInfo) -> String {
    if info.is_symlink {
        format!(
            "{path} is a symbolic link that does not lead to a regular file (it dangles, loops, or leads to a FIFO, socket or device)"
        )
    } else {
        format!("{path} is not a regular file (a FIFO, socket or device)")
    }
}
