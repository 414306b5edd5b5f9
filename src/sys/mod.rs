//! The floor of OS primitives that are not seams, right above the kernel: atomic file
//! replacement, advisory file locks, signal bookkeeping and the libuv-style
//! wording of OS errors. Every floor above may use them; they use only the
//! kernel's types (a confinement root, a lock holder). A backend may be swapped
//! (SSH, a container); these may not, which is why they live apart from it.

mod atomic;
mod fs_error;
mod lock;
pub mod signals;

pub use atomic::{
    atomic_replace, atomic_symlink, atomic_write, atomic_write_unsynced, atomic_write_within,
    atomic_write_within_unsynced, sync_tree, temp_owner, write_target,
};
pub use fs_error::fs_error;
pub use lock::try_lock_file;

#[cfg(test)]
pub(crate) use atomic::tests;
