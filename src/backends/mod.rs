//! Concrete bindings of the kernel's `Fs`/`Shell` seams and the places tools run.
//! `local` is the OS binding (its parallel tree walk lives in `local_search`, the
//! ignore files that walk honours in `local_ignore`, its
//! detached background jobs in `local_job`); `remote` runs a whole invocation on
//! an SSH host or in a container by the toolbox itself, and `remote_fs` is its
//! fallback, the seams over shell commands where the toolbox cannot run there;
//! `tmux` drives a tmux server for the operator's panes (and `--tmux`'s shell);
//! `signals` records the signal that ended the work, for the exit status;
//! `net` builds the HTTP clients, with TLS set up once.

pub mod local;
pub mod local_fs;
pub mod local_ignore;
pub mod local_job;
pub mod local_search;
pub mod local_shell;
pub mod net;
pub mod remote;
pub mod remote_fs;
pub mod tmux;

pub use local::{
    budget_of, confine_local, local_fs, local_shell, make_local_context, standard_budget,
    standard_notice,
};
pub use local_fs::LocalFs;
pub use local_shell::{LocalShell, LocalShellHandle};

/// Whether a program is on `PATH` (to say "not installed" before spawning it).
pub(crate) fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}
