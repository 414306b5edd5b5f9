//! Stores behind the read-before-edit gate: [`PersistentReadState`] keeps a session's
//! records in `.indus-process/read-state/<session>.json` so a `read` in one
//! invocation permits an `edit` in the next; [`MemoryReadState`] keeps them for the
//! life of one process (library hosts, tests).

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{StateDir, file_key};
use crate::kernel::{ReadStateHandle, ReadStateRecord};

/// The on-disk shape of one session's read-state.
#[derive(Debug, Default, Serialize, Deserialize)]
struct ReadStateFile {
    #[serde(default)]
    files: BTreeMap<String, ReadStateRecord>,
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
        let state: ReadStateFile = self.dir.load(&self.file)?;
        Ok(state.files.get(path).cloned())
    }

    fn set(&self, path: &str, record: ReadStateRecord) -> io::Result<()> {
        self.dir.update(&self.file, |s: &mut ReadStateFile| {
            s.files.insert(path.to_string(), record);
        })
    }
}

impl PersistentReadState {
    /// Every record of the session.
    fn load_all(&self) -> io::Result<BTreeMap<String, ReadStateRecord>> {
        let state: ReadStateFile = self.dir.load(&self.file)?;
        Ok(state.files)
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

    fn set(&self, path: &str, record: ReadStateRecord) -> io::Result<()> {
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
    fn memory_store() {
        let m = MemoryReadState::default();
        assert!(!m.has("/x").unwrap());
        m.set("/x", rec(2)).unwrap();
        assert_eq!(m.get("/x").unwrap(), Some(rec(2)));
    }
}
