//! The spill store: what `bash` and `run_shell` leave out of an answer is kept
//! whole in `.indus-process/outputs/<id>/{stdout,stderr}`, so the middle of a
//! 20-minute test run can be read back instead of run again.
//!
//! A command's streams are written here as they arrive ([`Spill`] is the
//! `exec`'s [`OutputTap`]), hashed on the way (SHA-256 of the whole stream),
//! with memory bounded by one chunk. When the answer elides nothing the spill
//! is deleted; when it elides something, the spill is kept and recorded in the
//! index with the byte ranges the answer showed and the stream's digest, so a
//! reader can prove what was left out.
//!
//! The store has a cap (1 GiB, `INDUS_OUTPUTS_MAX_BYTES` to change it, 0 to
//! turn the store off): a
//! kept spill that takes the store past it evicts the oldest ones, and the
//! answer names them. A single stream past the cap is kept up to it and
//! marked cut (its digest still covers the whole stream).
//!
//! A spill is written in a folder of its own with a temporary name
//! (`outputs/.open-PID-NONCE`) and moved to `outputs/<id>` only when kept, so
//! a command whose answer elides nothing never touches the index.
//!
//! The folder may come with a checkout. The index is a sealed document: one
//! not sealed by this user is read as empty, so no planted entry is ever
//! evicted, listed or read as ours, and a folder sitting where a new spill
//! goes is removed first (never followed: no link is taken on the way).

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::StateDir;
use crate::kernel::clock::now_ms;
use crate::kernel::digest::Sha256Stream;
use crate::kernel::{OutputTap, TapStream};

/// The index, relative to the state folder.
const INDEX: &str = "outputs/index.json";
/// The index's seal domain.
const DOMAIN: &str = "indus-tool outputs 1";
/// The store's cap unless `INDUS_OUTPUTS_MAX_BYTES` says otherwise.
pub const DEFAULT_CAP: u64 = 1 << 30;

/// The store's cap in bytes; 0 turns the store off.
pub fn cap() -> u64 {
    std::env::var("INDUS_OUTPUTS_MAX_BYTES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_CAP)
}

/// Every kept spill, oldest first.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Index {
    #[serde(default)]
    last_id: u64,
    #[serde(default)]
    kept: Vec<Entry>,
}

/// One kept spill.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub id: String,
    pub tool: String,
    pub command: String,
    /// Epoch milliseconds.
    pub created_at: u64,
    pub stdout: Option<StreamFacts>,
    pub stderr: Option<StreamFacts>,
}

impl Entry {
    fn bytes(&self) -> u64 {
        [&self.stdout, &self.stderr]
            .into_iter()
            .flatten()
            .map(|s| s.kept_bytes)
            .sum()
    }
}

/// What is known of one kept stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamFacts {
    pub path: String,
    /// The whole stream's length and digest.
    pub bytes: u64,
    pub sha256: String,
    /// Newlines in the whole stream.
    pub lines: u64,
    /// Bytes of it in the file: all of them unless the cap cut it.
    pub kept_bytes: u64,
    /// The byte ranges the answer showed, `[start, end)`.
    pub shown: Vec<[u64; 2]>,
}

/// One stream being spilled.
#[derive(Default)]
struct Sink {
    file: Option<File>,
    hash: Sha256Stream,
    bytes: u64,
    lines: u64,
    written: u64,
    error: Option<String>,
}

/// A command's output on its way to the store (see the module comment).
pub struct Spill {
    /// Its folder while it is open (`outputs/.open-PID-NONCE`).
    dir: PathBuf,
    cap: u64,
    sinks: Mutex<[Sink; 2]>,
}

/// A stream's totals when the command is done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Totals {
    pub path: String,
    pub bytes: u64,
    pub lines: u64,
    pub sha256: String,
    pub kept_bytes: u64,
    /// A write failed (a full disk): the file holds less than `kept_bytes` says.
    pub error: Option<String>,
}

impl OutputTap for Spill {
    fn chunk(&self, stream: TapStream, bytes: &[u8]) {
        let mut sinks = self.sinks.lock().unwrap_or_else(|p| p.into_inner());
        let room = self.cap.saturating_sub(sinks[0].written + sinks[1].written);
        let sink = &mut sinks[stream as usize];
        sink.hash.update(bytes);
        sink.bytes += bytes.len() as u64;
        sink.lines += memchr::memchr_iter(b'\n', bytes).count() as u64;
        let take = (bytes.len() as u64).min(room) as usize;
        if take == 0 || sink.error.is_some() {
            return;
        }
        let Some(file) = sink.file.as_mut() else {
            return;
        };
        match file.write_all(&bytes[..take]) {
            Ok(()) => sink.written += take as u64,
            Err(e) => sink.error = Some(e.to_string()),
        }
    }
}

impl Spill {
    /// The length of the spill's folder path (notices name its files).
    pub fn dir_len(&self) -> usize {
        self.dir.as_os_str().len()
    }

    fn path(&self, stream: TapStream) -> PathBuf {
        self.dir.join(match stream {
            TapStream::Stdout => "stdout",
            TapStream::Stderr => "stderr",
        })
    }

    /// The totals of both streams so far (the command has ended).
    pub fn totals(&self) -> [Totals; 2] {
        let sinks = self.sinks.lock().unwrap_or_else(|p| p.into_inner());
        [TapStream::Stdout, TapStream::Stderr].map(|s| {
            let sink = &sinks[s as usize];
            Totals {
                path: self.path(s).to_string_lossy().into_owned(),
                bytes: sink.bytes,
                lines: sink.lines,
                sha256: sink.hash.clone().finish_hex(),
                kept_bytes: sink.written,
                error: sink.error.clone(),
            }
        })
    }
}

/// What keeping a spill did.
#[derive(Debug, Default)]
pub struct Kept {
    /// Spills evicted to stay under the cap, oldest first.
    pub evicted: Vec<String>,
    pub cap: u64,
}

/// The store of a state folder.
pub struct OutputStore {
    state: StateDir,
}

impl OutputStore {
    pub fn new(state: StateDir) -> Self {
        Self { state }
    }

    /// Open a spill for one command: a folder of its own with a temporary
    /// name, so a command whose answer elides nothing never touches the index
    /// (its id is claimed only when it is kept).
    pub fn begin(&self) -> io::Result<Arc<Spill>> {
        if cap() == 0 {
            return Err(io::Error::other(
                "the spill store is off (INDUS_OUTPUTS_MAX_BYTES=0)",
            ));
        }
        let mut nonce = [0u8; 6];
        getrandom::fill(&mut nonce).map_err(|e| io::Error::other(e.to_string()))?;
        let hex: String = nonce.iter().map(|b| format!("{b:02x}")).collect();
        let dir = self.fresh_dir(&format!(".open-{}-{hex}", std::process::id()))?;
        let open = |name: &str| {
            use std::os::unix::fs::OpenOptionsExt;
            File::options()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(nix::libc::O_NOFOLLOW)
                .open(dir.join(name))
        };
        let sinks = [
            Sink {
                file: Some(open("stdout")?),
                ..Sink::default()
            },
            Sink {
                file: Some(open("stderr")?),
                ..Sink::default()
            },
        ];
        Ok(Arc::new(Spill {
            dir,
            cap: cap(),
            sinks: Mutex::new(sinks),
        }))
    }

    /// The folder `name` under `outputs/`, empty: whatever sits there is not
    /// ours (no sealed entry names it yet), so it goes, a link without being
    /// followed.
    fn fresh_dir(&self, name: &str) -> io::Result<PathBuf> {
        // Checks every folder on the way; the last part is handled here.
        self.state.checked("outputs/x")?;
        let dir = self.state.path(&format!("outputs/{name}"));
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(&dir)?,
            Ok(_) => std::fs::remove_file(&dir)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        std::fs::create_dir_all(self.state.path("outputs"))?;
        std::fs::create_dir(&dir)?;
        Ok(dir)
    }

    /// Remove the open spills of processes that are gone (a caller killed
    /// mid-command never settled its spill), so they do not pile up outside
    /// the index and its cap.
    fn prune_abandoned(&self) {
        let Ok(entries) = std::fs::read_dir(self.state.path("outputs")) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.strip_prefix(".open-"))
                .and_then(|n| n.split('-').next())
                .and_then(|p| p.parse::<u32>().ok())
            else {
                continue;
            };
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && !std::path::Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }

    /// Forget a spill the answer did not need.
    pub fn discard(&self, spill: &Spill) {
        let _ = std::fs::remove_dir_all(&spill.dir);
    }

    /// Record a spill as kept, with what the answer showed of each stream
    /// (`None`: the stream was shown whole, and its file goes): claim its id
    /// under the lock, move its folder to `outputs/<id>`, and evict the oldest
    /// spills past the cap.
    pub fn keep(
        &self,
        spill: &Spill,
        tool: &str,
        command: &str,
        shown: [Option<Vec<[u64; 2]>>; 2],
    ) -> io::Result<(Entry, Kept)> {
        let totals = spill.totals();
        for (i, t) in totals.iter().enumerate() {
            if shown[i].is_none() {
                let _ = std::fs::remove_file(&t.path);
            }
        }
        let cap = cap();
        let lock = self.state.lock()?;
        let mut index: Index = self.state.load_sealed(INDEX, DOMAIN)?;
        index.last_id += 1;
        let id = format!("out-{}", index.last_id);
        let dir = self.fresh_dir(&id)?;
        std::fs::remove_dir(&dir)?;
        std::fs::rename(&spill.dir, &dir)?;
        let facts = |i: usize, name: &str| -> Option<StreamFacts> {
            let t = &totals[i];
            Some(StreamFacts {
                path: dir.join(name).to_string_lossy().into_owned(),
                bytes: t.bytes,
                sha256: t.sha256.clone(),
                lines: t.lines,
                kept_bytes: t.kept_bytes,
                shown: shown[i].clone()?,
            })
        };
        let entry = Entry {
            id,
            tool: tool.to_string(),
            command: command.to_string(),
            created_at: now_ms(),
            stdout: facts(0, "stdout"),
            stderr: facts(1, "stderr"),
        };
        index.kept.push(entry.clone());
        let mut total: u64 = index.kept.iter().map(Entry::bytes).sum();
        let mut evicted = Vec::new();
        while total > cap && index.kept.len() > 1 {
            let old = index.kept.remove(0);
            total -= old.bytes();
            evicted.push(old.id);
        }
        self.state
            .write_sealed(&lock, INDEX, DOMAIN, &index, true)?;
        self.prune_abandoned();
        drop(lock);
        for id in &evicted {
            if let Ok(dir) = self.state.checked(format!("outputs/{id}")) {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
        Ok((entry, Kept { evicted, cap }))
    }
}

/// The length of the prefix of `raw` whose lossy UTF-8 decoding is the first
/// `text_len` bytes of the decoding of `raw` (each invalid sequence decodes as
/// one U+FFFD, three bytes): where a cut made in the text falls in the bytes.
pub fn raw_prefix_len(raw: &[u8], text_len: usize) -> usize {
    let (mut text, mut at) = (0usize, 0usize);
    for chunk in raw.utf8_chunks() {
        let valid = chunk.valid().len();
        if text + valid >= text_len {
            return at + (text_len - text);
        }
        text += valid;
        at += valid;
        let invalid = chunk.invalid().len();
        if invalid > 0 {
            text += 3;
            at += invalid;
            if text >= text_len {
                return at;
            }
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_in_text_map_to_bytes_through_invalid_sequences() {
        assert_eq!(raw_prefix_len(b"hello", 3), 3);
        // "a" + U+FFFD (for 0xFF) + "b": text "a\u{FFFD}b" is 5 bytes.
        let raw = b"a\xffb";
        assert_eq!(String::from_utf8_lossy(raw).len(), 5);
        assert_eq!(raw_prefix_len(raw, 1), 1);
        assert_eq!(raw_prefix_len(raw, 4), 2);
        assert_eq!(raw_prefix_len(raw, 5), 3);
        assert_eq!(raw_prefix_len("é".as_bytes(), 2), 2);
    }

    #[test]
    fn a_spill_hashes_everything_and_the_store_evicts_past_its_cap() {
        let dir = tempfile::tempdir().unwrap();
        let store = OutputStore::new(StateDir::at(dir.path().join(".indus-process")));
        let a = store.begin().unwrap();
        a.chunk(TapStream::Stdout, b"one\ntwo\n");
        a.chunk(TapStream::Stderr, b"err\n");
        let t = a.totals();
        assert_eq!(t[0].bytes, 8);
        assert_eq!(t[0].lines, 2);
        assert_eq!(
            t[0].sha256,
            crate::kernel::digest::sha256_hex(b"one\ntwo\n")
        );
        assert_eq!(std::fs::read(&t[0].path).unwrap(), b"one\ntwo\n");
        let (entry, kept) = store
            .keep(&a, "bash", "x", [Some(vec![[0, 4]]), None])
            .unwrap();
        assert_eq!(entry.id, "out-1");
        assert!(entry.stderr.is_none() && kept.evicted.is_empty());
        let out = entry.stdout.unwrap();
        assert!(out.path.ends_with("/outputs/out-1/stdout"), "{}", out.path);
        assert_eq!(std::fs::read(&out.path).unwrap(), b"one\ntwo\n");
        assert!(
            !dir.path()
                .join(".indus-process/outputs/out-1/stderr")
                .exists()
        );
        // A planted folder where the next spill goes is replaced, not used.
        let planted = dir.path().join(".indus-process/outputs/out-2");
        std::fs::create_dir_all(&planted).unwrap();
        std::fs::write(planted.join("stdout"), "planted").unwrap();
        let b = store.begin().unwrap();
        b.chunk(TapStream::Stdout, b"mine\n");
        let (entry, _) = store.keep(&b, "bash", "y", [Some(vec![]), None]).unwrap();
        assert_eq!(entry.id, "out-2");
        assert_eq!(std::fs::read(planted.join("stdout")).unwrap(), b"mine\n");
        // One that is not kept leaves nothing, and never touched the index.
        let before = std::fs::read(dir.path().join(".indus-process/outputs/index.json")).unwrap();
        let c = store.begin().unwrap();
        store.discard(&c);
        let left: Vec<_> = std::fs::read_dir(dir.path().join(".indus-process/outputs"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left.len(), 3, "{left:?}");
        assert_eq!(
            std::fs::read(dir.path().join(".indus-process/outputs/index.json")).unwrap(),
            before
        );
    }
}
