//! Concrete bindings of the kernel's `Fs`/`Shell` seams. Only `local` exists: the
//! one sanctioned OS binding.

pub mod local;

pub use local::{
    LocalFs, LocalShell, LocalShellHandle, budget_of, local_fs, local_shell, make_local_context,
    standard_budget, standard_notice,
};
