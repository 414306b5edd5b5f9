//! Concrete bindings of the kernel's `Fs`/`Shell` seams. Only `local` exists: the
//! one sanctioned OS binding (its parallel tree walk lives in `local_search`, its
//! detached background jobs in `local_job`); `tmux` drives a tmux server for the
//! operator's panes.

pub mod local;
pub mod local_job;
pub mod local_search;
pub mod remote;
pub mod remote_fs;
pub mod tmux;

pub use local::{
    LocalFs, LocalShell, LocalShellHandle, budget_of, confine_local, local_fs, local_shell,
    make_local_context, standard_budget, standard_notice,
};
