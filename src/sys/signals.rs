//! The signal that ended this invocation's work (SIGINT, SIGTERM, SIGHUP), as
//! one process-wide record shared by the CLI's cancel path and `--exec`'s
//! channel relay. The exit status must say the signal (128+N) even when
//! another event wins the race to the code that decides it: on Ctrl-C the
//! terminal signals the whole foreground group, so a child (ssh under
//! `--exec`) can die of the same signal and its end be seen before the async
//! runtime polls its signal stream. The record is therefore written in the
//! handler itself; a pending SIGINT/SIGTERM is delivered before this process
//! can observe the child's end, so reading it after the child is reaped is
//! never too early.

use std::sync::atomic::{AtomicI32, Ordering};

static CAUGHT: AtomicI32 = AtomicI32::new(0);

/// The signals recorded: interrupt, terminate, hang-up.
pub const RECORDED: [i32; 3] = [2, 15, 1];

/// Install the recording handlers (once per signal is enough, but repeated
/// calls only add another idempotent action). The default action is replaced,
/// so a caller must turn the record into an ending of its own.
pub fn record() {
    for number in RECORDED {
        // SAFETY: the action is one lock-free atomic operation, which is
        // async-signal-safe; it neither allocates nor locks.
        let _ = unsafe { signal_hook_registry::register(number, move || note(number)) };
    }
}

/// Remember `number` as the ending signal unless one was already recorded.
pub fn note(number: i32) {
    let _ = CAUGHT.compare_exchange(0, number, Ordering::SeqCst, Ordering::SeqCst);
}

/// The first recorded signal, if any.
pub fn caught() -> Option<i32> {
    match CAUGHT.load(Ordering::SeqCst) {
        0 => None,
        n => Some(n),
    }
}
