//! What `bash` and `run_shell` cut out of an answer, kept and named: the
//! command's streams go to the spill store (`state::outputs`) as they arrive,
//! and each stream the answer elides gets a notice naming its file, its
//! digest and the exact `read` call (line offset and limit) that shows the
//! elided middle; the record carries the byte ranges shown and the digest
//! of the whole stream. A stream shown whole keeps no file.
//!
//! The answer's cuts are made in decoded text; the ranges are bytes of the
//! stream, found by decoding the kept file's ends again (`raw_prefix_len`), so
//! they are exact even where the output was not UTF-8.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::kernel::text::plural;
use crate::kernel::{Dropped, Tap, ToolContext};
use crate::state::StateDir;
use crate::state::outputs::{OutputStore, Spill, Totals, raw_prefix_len};

/// Where an answer cut a stream's text: `[head_end, tail_start)` left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cut {
    pub head_end: usize,
    pub tail_start: usize,
}

/// A stream as the answer holds it: its text, what the capture dropped from
/// its middle, and where the answer cuts it (`None`: shown whole).
pub(crate) type Shown<'a> = (&'a str, Dropped, Option<Cut>);

/// A command's spill, open while it runs.
pub(crate) struct Spilling {
    store: OutputStore,
    spill: Result<Arc<Spill>, String>,
}

/// What the answer says of the spill.
#[derive(Debug, Default)]
pub(crate) struct Settled {
    /// Appended to each stream's elision notice.
    pub notes: [Option<String>; 2],
    /// A line for the answer (spills evicted, or why nothing was kept).
    pub line: Option<String>,
    /// The record's `spill`.
    pub record: Value,
}

impl Settled {
    /// The answer's line when what was elided could not be kept.
    fn not_kept(why: &str) -> Self {
        Self {
            line: Some(format!("note: the elided output is not kept: {why}")),
            ..Self::default()
        }
    }
}

impl Spilling {
    pub fn open(ctx: &ToolContext) -> Self {
        let store = OutputStore::new(StateDir::of(ctx));
        let spill = store.begin().map_err(|e| e.to_string());
        Self { store, spill }
    }

    /// Room an elision notice needs for naming the spill: its path twice,
    /// a digest's start and the `read` call.
    pub fn note_room(&self) -> usize {
        match &self.spill {
            Ok(spill) => 2 * spill.dir_len() + 140,
            Err(_) => 0,
        }
    }

    /// The tap the `exec` feeds.
    pub fn tap(&self) -> Option<Tap> {
        self.spill.as_ref().ok().map(|s| Tap(s.clone()))
    }

    /// Keep or drop the spill once the command is done (see the module comment).
    pub fn settle(self, tool: &str, command: &str, streams: [Shown<'_>; 2]) -> Settled {
        let elided = streams.iter().any(|s| s.2.is_some());
        let spill = match self.spill {
            Ok(spill) => spill,
            Err(e) if elided => return Settled::not_kept(&e),
            Err(_) => return Settled::default(),
        };
        if !elided {
            self.store.discard(&spill);
            return Settled::default();
        }
        let totals = spill.totals();
        let ranges = [0, 1].map(|i| {
            let (text, dropped, cut) = streams[i];
            cut.map(|c| shown_ranges(&totals[i], text, dropped, c))
        });
        // The read calls, from the files where they are now.
        let calls = [0, 1].map(|i| match (&ranges[i], streams[i].2) {
            (Some(shown), Some(cut)) => Some(read_call(&totals[i], streams[i].0, cut, shown)),
            _ => None,
        });
        let (entry, kept) = match self.store.keep(&spill, tool, command, ranges) {
            Ok(done) => done,
            Err(e) => {
                self.store.discard(&spill);
                return Settled::not_kept(&format!("the spill store failed ({e})"));
            }
        };
        let mut settled = Settled::default();
        let mut record =
            json!({"id": entry.id, "stdout": null, "stderr": null, "evicted": kept.evicted});
        for (i, (name, facts)) in [("stdout", &entry.stdout), ("stderr", &entry.stderr)]
            .into_iter()
            .enumerate()
        {
            let (Some(f), Some(call)) = (facts, calls[i]) else {
                continue;
            };
            let cut_short = (f.kept_bytes < f.bytes).then(|| {
                format!(
                    " (only its first {} are kept: the store's cap)",
                    plural(f.kept_bytes, "byte", "bytes")
                )
            });
            settled.notes[i] = Some(format!(
                "; all of {name} is kept in {} (sha256 {}){}: read {} --offset {} --limit {}",
                f.path,
                &f.sha256[..12],
                cut_short.unwrap_or_default(),
                f.path,
                call.0,
                call.1
            ));
            record[name] = json!({
                "path": f.path,
                "bytes": f.bytes,
                "sha256": f.sha256,
                "keptBytes": f.kept_bytes,
                "shown": f.shown,
                "read": {"path": f.path, "offset": call.0, "limit": call.1},
                "writeError": totals[i].error,
            });
        }
        if !kept.evicted.is_empty() {
            settled.line = Some(format!(
                "note: the spill store keeps at most {}; the oldest spills were evicted to make room: {}",
                plural(kept.cap, "byte", "bytes"),
                kept.evicted.join(", ")
            ));
        }
        settled.record = record;
        settled
    }
}

/// The byte ranges of the stream the answer showed (see the module comment).
fn shown_ranges(t: &Totals, text: &str, dropped: Dropped, cut: Cut) -> Vec<[u64; 2]> {
    let head = |len: usize| -> u64 {
        read_at(&t.path, 0, len).map_or(len as u64, |raw| raw_prefix_len(&raw, len) as u64)
    };
    let head_end = head(cut.head_end);
    let tail_start = if cut.tail_start >= text.len() {
        t.bytes
    } else if dropped.bytes > 0 && cut.tail_start >= dropped.at {
        // The capture's tail began where its head and the dropped bytes end.
        let base = head(dropped.at) + dropped.bytes;
        let into = cut.tail_start - dropped.at;
        base + read_at(&t.path, base, into)
            .map_or(into as u64, |raw| raw_prefix_len(&raw, into) as u64)
    } else {
        head(cut.tail_start)
    };
    let mut ranges = Vec::new();
    if head_end > 0 {
        ranges.push([0, head_end]);
    }
    if tail_start < t.bytes {
        ranges.push([tail_start, t.bytes]);
    }
    ranges
}

/// Up to `len` bytes of `path` from `at`, when the file holds them all.
fn read_at(path: &str, at: u64, len: usize) -> Option<Vec<u8>> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).ok()?;
    file.seek(SeekFrom::Start(at)).ok()?;
    let mut buf = Vec::with_capacity(len);
    file.take(len as u64).read_to_end(&mut buf).ok()?;
    (buf.len() == len).then_some(buf)
}

/// The `read` call (line offset, line limit) that shows the elided middle:
/// from the line the cut begins in to the line it ends in. Newlines survive
/// lossy decoding, so counting them in the shown text is exact.
fn read_call(t: &Totals, text: &str, cut: Cut, shown: &[[u64; 2]]) -> (u64, u64) {
    let count = |s: &str| memchr::memchr_iter(b'\n', s.as_bytes()).count() as u64;
    let before = count(&text[..cut.head_end]);
    let after = count(&text[cut.tail_start.min(text.len())..]);
    let middle = t.lines.saturating_sub(before + after);
    // The elided bytes end where the shown tail begins (or the stream ends);
    // ending with a newline, they end a line, and the tail's first is not theirs.
    let end = shown
        .iter()
        .map(|r| r[0])
        .find(|&s| s > 0)
        .unwrap_or(t.bytes);
    let ends_line = end > 0 && read_at(&t.path, end - 1, 1).as_deref() == Some(b"\n");
    (
        before + 1,
        if ends_line { middle.max(1) } else { middle + 1 },
    )
}
