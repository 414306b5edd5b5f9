//! OS errors re-shaped as libuv-style text (`ENOENT: no such file or directory,
//! open '/p'`), so a model sees the same words whatever the host. Here, below the
//! backends and the state store, because both name the syscall and path they failed.

use std::io;

use crate::kernel::OutsideRoot;

/// Re-shape an OS error as libuv-style text naming the syscall and path, keeping
/// its kind (so callers can still match `NotFound`).
pub fn fs_error(err: io::Error, syscall: &str, path: &str) -> io::Error {
    if OutsideRoot::is(&err) {
        return err; // Already names the path and the root.
    }
    // The path may be a name from the tree: its control characters escaped, it
    // can neither forge a line nor drive a terminal wherever the message lands.
    let path = crate::kernel::text::inert(path);
    match err.raw_os_error() {
        Some(code) => {
            let errno = nix::errno::Errno::from_raw(code);
            let desc = errno.desc().to_lowercase();
            io::Error::new(err.kind(), format!("{errno:?}: {desc}, {syscall} '{path}'"))
        }
        None => io::Error::new(err.kind(), format!("{err}, {syscall} '{path}'")),
    }
}
