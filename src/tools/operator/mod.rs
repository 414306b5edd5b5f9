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
