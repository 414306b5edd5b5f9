//! The work budget of one call's fuzzy matching (issue 53, "bounded under
//! hostile input"). The exact stage is one `memmem` scan and pays nothing; the
//! whole-line stages compare `oldText` (or a hunk) line by line at every place
//! its anchor line stands, which is quadratic on a file that repeats itself
//! (a 2,500-line near match against 100,000 lines ran for minutes). Every one of
//! those stages, for `edit` and for every hunk of an `apply_patch`, counts its
//! work against one [`Budget`] for the whole call, so the call ends in bounded
//! time with a refusal that says what to do ([`Stop`]).
//!
//! What counts as a cell: one line of the snippet compared with one line of the
//! file, one anchor hit looked at, and one line of the file a stage's search
//! reads past (a stage searches only the lines its scope allows, so a patch's
//! hunks in order read the file once each at most). The allowance
//! ([`DEFAULT_CELLS`]) is a few hundred times what the replay benches'
//! largest fuzzy edit spends, and about a second of work in a release build.
//! The deadline and the call's cancellation token are looked at every
//! [`CHECK_EVERY`] cells, so a cancelled call (MCP `notifications/cancelled`,
//! Ctrl-C) stops burning the CPU within milliseconds.

use crate::kernel::CancellationToken;
use std::cell::Cell;
use std::time::{Duration, Instant};

/// The cells one call may spend on fuzzy matching (see the module notes).
pub const DEFAULT_CELLS: u64 = 24_000_000;

/// The wall-clock limit of one call's fuzzy matching: a backstop for a slow or
/// busy machine (and a debug build), several times what the cell allowance
/// takes in a release build.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(3);

/// How many cells pass between two looks at the deadline and the token.
pub const CHECK_EVERY: u64 = 1 << 14;

/// Why the fuzzy matching stopped before it was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The cell allowance ran out.
    Spent,
    /// The deadline passed.
    Late,
    /// The call was cancelled.
    Cancelled,
}

/// One call's allowance for fuzzy matching, shared by every stage and every
/// hunk of the call. Interior counters, so a `&Budget` goes everywhere.
#[derive(Debug)]
pub struct Budget {
    allowance: u64,
    spent: Cell<u64>,
    next_look: Cell<u64>,
    deadline: Option<Instant>,
    cancel: Option<CancellationToken>,
    stopped: Cell<Option<Stop>>,
}

impl Default for Budget {
    /// The default allowance and deadline, with no cancellation.
    fn default() -> Self {
        Budget::new(DEFAULT_CELLS, Some(DEFAULT_DEADLINE), None)
    }
}

impl Budget {
    /// An allowance of `cells`, a deadline `within` from now, and the call's
    /// cancellation token.
    pub fn new(cells: u64, within: Option<Duration>, cancel: Option<CancellationToken>) -> Self {
        Budget {
            allowance: cells,
            spent: Cell::new(0),
            next_look: Cell::new(CHECK_EVERY),
            deadline: within.map(|d| Instant::now() + d),
            cancel,
            stopped: Cell::new(None),
        }
    }

    /// The default allowance and deadline for a call cancelled by `cancel`.
    pub fn for_call(cancel: CancellationToken) -> Self {
        Budget::new(DEFAULT_CELLS, Some(DEFAULT_DEADLINE), Some(cancel))
    }

    /// No limit at all (the counting is still done).
    pub fn unlimited() -> Self {
        Budget::new(u64::MAX, None, None)
    }

    /// Spend `cells`; `false` once the budget has stopped (and from then on).
    #[inline]
    pub fn charge(&self, cells: u64) -> bool {
        if self.stopped.get().is_some() {
            return false;
        }
        let spent = self.spent.get().saturating_add(cells);
        self.spent.set(spent);
        if spent > self.allowance {
            self.stopped.set(Some(Stop::Spent));
            return false;
        }
        if spent >= self.next_look.get() {
            self.next_look.set(spent.saturating_add(CHECK_EVERY));
            return self.look();
        }
        true
    }

    /// Spend the cells of a scan over `lines` lines of the file.
    #[inline]
    pub fn charge_scan(&self, lines: usize) -> bool {
        self.charge(lines as u64)
    }

    /// Look at the token and the deadline now; `false` when either says stop.
    pub fn look(&self) -> bool {
        if self.stopped.get().is_some() {
            return false;
        }
        if self.cancel.as_ref().is_some_and(|c| c.is_cancelled()) {
            self.stopped.set(Some(Stop::Cancelled));
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.stopped.set(Some(Stop::Late));
        }
        self.stopped.get().is_none()
    }

    /// Why the budget stopped, if it did.
    pub fn stopped(&self) -> Option<Stop> {
        self.stopped.get()
    }

    /// The cells spent so far.
    pub fn spent(&self) -> u64 {
        self.spent.get()
    }
}
