//! The operator's family (the buddy seed, `001_…`): the tools of an agent that
//! operates machines, under the seed's names and shapes. `time` is its own; the
//! file and web tools are thin front ends over the toolbox's engines (`write`,
//! `webfetch`, `websearch`, the `Fs` seam and the context's path rules), reshaped
//! to the seed's inputs, limits and outputs, never second implementations.
//!
//! Every description follows the seed's guidance with the sections *When to use*,
//! *When NOT to use*, *Disambiguation* and *Examples* (pinned by a test over the
//! buddy profile).

mod frontends;
mod panes;
mod run_shell;
pub mod shared;
mod time;

pub use frontends::{fetch_url_tool, read_file_tool, web_search_tool, write_file_tool};
pub use panes::{
    capture_pane_tool, send_keys_tool, tmux_create_pane_tool, tmux_create_session_tool,
    tmux_kill_pane_tool, tmux_kill_session_tool,
};
pub use run_shell::run_shell_tool;
pub use time::{time_record, time_tool};

use crate::kernel::Registration;

/// The operator's tools in the buddy seed's order: each one's descriptor and
/// how to build it (the catalog's rows are made from this list).
pub static OPERATOR_TOOLS: [Registration; 12] = [
    Registration::new(&run_shell::META, run_shell_tool),
    Registration::new(&frontends::READ_FILE, read_file_tool),
    Registration::new(&frontends::WRITE_FILE, write_file_tool),
    Registration::new(&frontends::FETCH_URL, fetch_url_tool),
    Registration::new(&frontends::WEB_SEARCH, web_search_tool),
    Registration::new(&panes::CAPTURE_PANE, capture_pane_tool),
    Registration::new(&panes::SEND_KEYS, send_keys_tool),
    Registration::new(&panes::CREATE_SESSION, tmux_create_session_tool),
    Registration::new(&panes::KILL_SESSION, tmux_kill_session_tool),
    Registration::new(&panes::CREATE_PANE, tmux_create_pane_tool),
    Registration::new(&panes::KILL_PANE, tmux_kill_pane_tool),
    Registration::new(&time::META, time_tool),
];
