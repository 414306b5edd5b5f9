//! Stores behind the read-before-edit gate: [`PersistentReadState`] keeps a session's
//! records in `.indus-process/read-state/<session>.json` so a `read` in one
//! invocation permits an `edit` in the next; [`MemoryReadState`] keeps them for the
//! life of one process (library hosts, tests).
//!
//! A record lets an `edit` through the gate, so each carries this user's seal
//! over its path and fields; one a checkout carried counts as no read.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{StateDir, file_key, user};
use crate::kernel::{ReadStateHandle, ReadStateRecord};

/// The on-disk shape of one session's read-state.
#[derive(Debug, Default, Serialize, Deserialize)]
struct ReadStateFile {
    #[serde(default)]
    files: BTreeMap<String, SealedRecord>,
}

/// One record as stored: the record and this user's seal of it and its path.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SealedRecord {
    #[serde(flatten)]
    record: ReadStateRecord,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seal: Option<String>,
}

/// The seal's domain for read-state records.
const SEAL_DOMAIN: &str = "indus-tool read-state 1";

impl SealedRecord {
    fn new(path: &str, record: ReadStateRecord) -> Self {
        let seal = user::seal_json(SEAL_DOMAIN, &(path, &record));
        Self { record, seal }
    }

    /// The record, when this user's toolbox wrote it for `path`.
    fn verified(self, path: &str) -> Option<ReadStateRecord> {
        user::verify_json(SEAL_DOMAIN, &(path, &self.record), self.seal.as_deref())
            .then_some(self.record)
    }
}

/// A session's read-state persisted under the state folder.
#[derive(Debug, Clone)]
pub struct PersistentReadState {
    dir: StateDir,
    file: String,
}

impl PersistentReadState {
    pub fn new(dir: StateDir, session: &str) -> Self {
        Self {
            dir,
            file: format!("read-state/{}.json", file_key(session)),
        }
    }
}

impl ReadStateHandle for PersistentReadState {
    fn get(&self, path: &str) -> io::Result<Option<ReadStateRecord>> {
        let mut state: ReadStateFile = self.dir.load(&self.file)?;
        Ok(state.files.remove(path).and_then(|r| r.verified(path)))
    }

    fn set(&self, path: &str, record: ReadStateRecord) -> io::Result<()> {
        self.dir.update(&self.file, |s: &mut ReadStateFile| {
            s.files
                .insert(path.to_string(), SealedRecord::new(path, record));
        })
    }
}

impl PersistentReadState {
    /// Every record of the session.
    fn load_all(&self) -> io::Result<BTreeMap<String, ReadStateRecord>> {
        let state: ReadStateFile = self.dir.load(&self.file)?;
        Ok(state
            .files
            .into_iter()
            .filter_map(|(path, r)| Some((path.clone(), r.verified(&path)?)))
            .collect())
    }
}

/// A session's read-state for a long-running process (`batch`, `mcp`): the records
/// are loaded once and served from memory, and every new record is also written
/// through to the session file, so a later one-shot `edit` sees what the run read.
#[derive(Debug)]
pub struct CachedReadState {
    persistent: PersistentReadState,
    cache: Mutex<Option<BTreeMap<String, ReadStateRecord>>>,
}

impl CachedReadState {
    pub fn new(persistent: PersistentReadState) -> Self {
        Self {
            persistent,
            cache: Mutex::new(None),
        }
    }
}

impl ReadStateHandle for CachedReadState {
    fn get(&self, path: &str) -> io::Result<Option<ReadStateRecord>> {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if cache.is_none() {
            *cache = Some(self.persistent.load_all()?);
        }
        Ok(cache.as_ref().and_then(|m| m.get(path).cloned()))
    }

    /// A record that tells the gate nothing new (the same mtime, size and hash as
    /// the one this run already holds: a re-read of an unchanged file) is not
    /// written through again; only its `read_at` would differ, which no decision
    /// uses, so the session file keeps the first read of that version of the file.
    /// That spares a long run's repeated reads the state lock, the rewrite and the
    /// fsync.
    fn set(&self, path: &str, record: ReadStateRecord) -> io::Result<()> {
        {
            let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if cache.is_none() {
                // A session file that cannot be read is reported by the write below.
                *cache = self.persistent.load_all().ok();
            }
            let known = cache.as_ref().and_then(|m| m.get(path));
            if known.is_some_and(|old| {
                old.mtime_ms == record.mtime_ms
                    && old.size == record.size
                    && old.content_hash == record.content_hash
            }) {
                return Ok(());
            }
        }
        self.persistent.set(path, record.clone())?;
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = cache.as_mut() {
            m.insert(path.to_string(), record);
        }
        Ok(())
    }
}

/// Read-state kept in memory for one process.
#[derive(Debug, Default)]
pub struct MemoryReadState {
    files: Mutex<HashMap<String, ReadStateRecord>>,
}

impl ReadStateHandle for MemoryReadState {
    fn get(&self, path: &str) -> io::Result<Option<ReadStateRecord>> {
        Ok(self
            .files
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(path)
            .cloned())
    }

    fn set(&self, path: &str, record: ReadStateRecord) -> io::Result<()> {
        self.files
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(path.to_string(), record);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(size: u64) -> ReadStateRecord {
        ReadStateRecord {
            mtime_ms: 5,
            size,
            content_hash: None,
            read_at: 9,
        }
    }

    #[test]
    fn sessions_are_separate_and_persist() {
        let dir = tempfile::tempdir().unwrap();
        let a = PersistentReadState::new(StateDir::new(dir.path()), "a");
        let b = PersistentReadState::new(StateDir::new(dir.path()), "b/../x");
        a.set("/p", rec(1)).unwrap();
        assert_eq!(a.get("/p").unwrap(), Some(rec(1)));
        assert!(a.has("/p").unwrap());
        assert_eq!(b.get("/p").unwrap(), None);
        b.set("/q", rec(3)).unwrap();
        assert_eq!(a.get("/q").unwrap(), None);
        let again = PersistentReadState::new(StateDir::new(dir.path()), "a");
        assert_eq!(again.get("/p").unwrap(), Some(rec(1)));
        assert!(
            dir.path()
                .join(".indus-process/read-state/a.json")
                .is_file()
        );
        assert!(
            dir.path()
                .join(".indus-process/read-state/b%2F..%2Fx.json")
                .is_file()
        );
    }

    #[test]
    fn the_cache_serves_from_memory_and_writes_through() {
        let dir = tempfile::tempdir().unwrap();
        let file = || PersistentReadState::new(StateDir::new(dir.path()), "s");
        file().set("/old", rec(1)).unwrap();
        let cached = CachedReadState::new(file());
        assert_eq!(cached.get("/old").unwrap(), Some(rec(1)));
        cached.set("/new", rec(2)).unwrap();
        assert_eq!(cached.get("/new").unwrap(), Some(rec(2)));
        // Written through: a fresh store sees both.
        assert_eq!(file().get("/new").unwrap(), Some(rec(2)));
        assert_eq!(file().get("/old").unwrap(), Some(rec(1)));
    }

    #[test]
    fn a_reread_of_an_unchanged_file_is_not_written_again() {
        let dir = tempfile::tempdir().unwrap();
        let file = || PersistentReadState::new(StateDir::new(dir.path()), "s");
        let cached = CachedReadState::new(file());
        cached.set("/f", rec(1)).unwrap();
        let later = ReadStateRecord {
            read_at: 99,
            ..rec(1)
        };
        cached.set("/f", later.clone()).unwrap();
        // Nothing the gate decides on changed: the first read stays on record.
        assert_eq!(file().get("/f").unwrap(), Some(rec(1)));
        // A changed file is recorded again, in memory and on disk.
        let changed = ReadStateRecord {
            read_at: 100,
            ..rec(2)
        };
        cached.set("/f", changed.clone()).unwrap();
        assert_eq!(cached.get("/f").unwrap(), Some(changed.clone()));
        assert_eq!(file().get("/f").unwrap(), Some(changed));
        // So is a new hash at the same size and mtime.
        let hashed = ReadStateRecord {
            content_hash: Some("h".into()),
            ..rec(2)
        };
        cached.set("/f", hashed.clone()).unwrap();
        assert_eq!(file().get("/f").unwrap(), Some(hashed));
    }

    #[test]
    fn memory_store() {
        let m = MemoryReadState::default();
        assert!(!m.has("/x").unwrap());
        m.set("/x", rec(2)).unwrap();
        assert_eq!(m.get("/x").unwrap(), Some(rec(2)));
    }

    #[test]
    fn a_record_without_this_users_seal_counts_as_no_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = PersistentReadState::new(StateDir::new(dir.path()), "s");
        store.set("/p/a", rec(1)).unwrap();
        assert_eq!(store.get("/p/a").unwrap(), Some(rec(1)));
        // As a checkout could carry it: the same record unsealed, and the
        // sealed one moved to another path.
        let file = dir.path().join(".indus-process/read-state/s.json");
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let sealed = v["files"]["/p/a"].clone();
        v["files"]["/p/b"] = sealed;
        v["files"]["/p/c"] = serde_json::to_value(rec(1)).unwrap();
        std::fs::write(&file, v.to_string()).unwrap();
        assert_eq!(store.get("/p/a").unwrap(), Some(rec(1)));
        assert_eq!(store.get("/p/b").unwrap(), None);
        assert_eq!(store.get("/p/c").unwrap(), None);
        let cached = CachedReadState::new(store);
        assert_eq!(cached.get("/p/c").unwrap(), None);
    }
}
