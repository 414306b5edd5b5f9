//! Stores behind `todo_set`/`todo_read`: [`PersistentTodoStore`] keeps a session's
//! checklist in `.indus-process/todos/<session>.json`, so a `todo_set` in one
//! invocation is what the next `todo_read` shows; [`MemoryTodoStore`] keeps one list
//! for the life of a process (library hosts that want a list shared by every
//! context they mint, and tests); [`CachedTodoStore`] serves a long-running
//! face (`batch`, `mcp`) the persistent list from memory while the file is
//! unchanged.

use std::io;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{StateDir, file_key};
use crate::kernel::{TodoItem, TodoStoreHandle};

/// The on-disk shape of one session's checklist.
#[derive(Debug, Default, Serialize, Deserialize)]
struct TodoFile {
    #[serde(default)]
    items: Vec<TodoItem>,
}

/// A session's checklist persisted under the state folder. Reading creates and
/// changes nothing; a replace goes through [`StateDir::update`] (lock, atomic
/// rename), and a file that does not parse is an error naming it, left as it is.
#[derive(Debug, Clone)]
pub struct PersistentTodoStore {
    dir: StateDir,
    file: String,
}

impl PersistentTodoStore {
    pub fn new(dir: StateDir, session: &str) -> Self {
        Self {
            dir,
            file: format!("todos/{}.json", file_key(session)),
        }
    }

    /// The path of the session's file inside the state folder.
    pub fn file(&self) -> std::path::PathBuf {
        self.dir.path(&self.file)
    }
}

impl TodoStoreHandle for PersistentTodoStore {
    fn get(&self) -> io::Result<Vec<TodoItem>> {
        let file: TodoFile = self.dir.load(&self.file)?;
        Ok(file.items)
    }

    fn replace(&self, items: Vec<TodoItem>) -> io::Result<()> {
        self.dir
            .update(&self.file, |f: &mut TodoFile| f.items = items)
    }
}

/// A [`PersistentTodoStore`] read through a cache checked by one `stat` a call:
/// the file is read again only when its identity, size or times differ from
/// the version held. Every writer replaces the file by a rename (a new inode),
/// so another process's `todo_set` is seen by the next read; a long batch of
/// `todo_read` calls no longer opens, locks and parses the file each time.
#[derive(Debug)]
pub struct CachedTodoStore {
    persistent: PersistentTodoStore,
    cache: Mutex<Option<(Stamp, Vec<TodoItem>)>>,
}

/// What identifies one version of the file (`None`: no file).
type Stamp = Option<(u64, u64, u64, i64, i64, i64, i64)>;

fn stamp(path: &std::path::Path) -> io::Result<Stamp> {
    use std::os::unix::fs::MetadataExt;
    match std::fs::symlink_metadata(path) {
        Ok(m) => Ok(Some((
            m.dev(),
            m.ino(),
            m.size(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

impl CachedTodoStore {
    pub fn new(persistent: PersistentTodoStore) -> Self {
        Self {
            persistent,
            cache: Mutex::new(None),
        }
    }
}

impl TodoStoreHandle for CachedTodoStore {
    fn get(&self) -> io::Result<Vec<TodoItem>> {
        // Stamped before reading: a file replaced meanwhile differs from the
        // stamp at the next call, and is read again then.
        let now = stamp(&self.persistent.file())?;
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((held, items)) = cache.as_ref()
            && *held == now
        {
            return Ok(items.clone());
        }
        let items = match now {
            None => Vec::new(),
            Some(_) => self.persistent.get()?,
        };
        *cache = Some((now, items.clone()));
        Ok(items)
    }

    fn replace(&self, items: Vec<TodoItem>) -> io::Result<()> {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        *cache = None;
        self.persistent.replace(items)
    }
}

/// One checklist kept in memory for the life of a process.
#[derive(Debug, Default)]
pub struct MemoryTodoStore {
    items: Mutex<Vec<TodoItem>>,
}

impl TodoStoreHandle for MemoryTodoStore {
    fn get(&self) -> io::Result<Vec<TodoItem>> {
        Ok(self.items.lock().unwrap_or_else(|p| p.into_inner()).clone())
    }

    fn replace(&self, items: Vec<TodoItem>) -> io::Result<()> {
        *self.items.lock().unwrap_or_else(|p| p.into_inner()) = items;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{TodoPriority, TodoStatus};

    fn item(id: &str, status: TodoStatus, priority: Option<TodoPriority>) -> TodoItem {
        TodoItem {
            id: id.into(),
            text: format!("do {id}"),
            status,
            priority,
        }
    }

    #[test]
    fn sessions_are_separate_and_persist_in_the_documented_shape() {
        let dir = tempfile::tempdir().unwrap();
        let a = PersistentTodoStore::new(StateDir::new(dir.path()), "a");
        let b = PersistentTodoStore::new(StateDir::new(dir.path()), "b/x");
        assert_eq!(a.get().unwrap(), vec![]);
        let items = vec![
            item("1", TodoStatus::Done, None),
            item("2", TodoStatus::Active, Some(TodoPriority::High)),
        ];
        a.replace(items.clone()).unwrap();
        assert_eq!(b.get().unwrap(), vec![]);
        let again = PersistentTodoStore::new(StateDir::new(dir.path()), "a");
        assert_eq!(again.get().unwrap(), items);
        let on_disk: serde_json::Value =
            serde_json::from_slice(&std::fs::read(a.file()).unwrap()).unwrap();
        assert_eq!(
            on_disk,
            serde_json::json!({"items": [
                {"id": "1", "text": "do 1", "status": "done"},
                {"id": "2", "text": "do 2", "status": "active", "priority": "high"},
            ]})
        );
        assert_eq!(b.file(), dir.path().join(".indus-process/todos/b%2Fx.json"));
        b.replace(vec![]).unwrap();
        assert_eq!(b.get().unwrap(), vec![]);
        assert_eq!(again.get().unwrap(), items);
    }

    #[test]
    fn reading_a_fresh_folder_creates_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let a = PersistentTodoStore::new(StateDir::new(dir.path()), "default");
        assert_eq!(a.get().unwrap(), vec![]);
        assert!(!dir.path().join(".indus-process").exists());
    }

    #[test]
    fn a_corrupt_file_is_an_error_naming_it_and_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let a = PersistentTodoStore::new(StateDir::new(dir.path()), "default");
        a.replace(vec![]).unwrap();
        // Well-formed JSON with a status the type does not know is corrupt too.
        let bad = r#"{"items":[{"id":"1","text":"x","status":"doing"}]}"#;
        std::fs::write(a.file(), bad).unwrap();
        let name = a.file().display().to_string();
        let err = a.get().unwrap_err().to_string();
        assert!(err.contains(&name) && err.contains("corrupt"), "{err}");
        let err = a.replace(vec![]).unwrap_err().to_string();
        assert!(err.contains(&name) && err.contains("corrupt"), "{err}");
        assert_eq!(std::fs::read_to_string(a.file()).unwrap(), bad);
    }

    #[test]
    fn the_cached_store_sees_every_write_and_reads_only_on_change() {
        let dir = tempfile::tempdir().unwrap();
        let store = || PersistentTodoStore::new(StateDir::new(dir.path()), "s");
        let cached = CachedTodoStore::new(store());
        assert!(cached.get().unwrap().is_empty());
        // Another process's todo_set (a separate store) is seen at once.
        store()
            .replace(vec![item("a", TodoStatus::Pending, None)])
            .unwrap();
        assert_eq!(cached.get().unwrap().len(), 1);
        cached
            .replace(vec![
                item("a", TodoStatus::Done, None),
                item("b", TodoStatus::Active, None),
            ])
            .unwrap();
        assert_eq!(cached.get().unwrap().len(), 2);
        assert_eq!(store().get().unwrap().len(), 2);
        // Replaced in place (same inode, other size): read again.
        let file = store().file();
        std::fs::write(&file, r#"{"items":[]}"#).unwrap();
        assert!(cached.get().unwrap().is_empty());
        // Removed: an empty list again.
        std::fs::remove_file(&file).unwrap();
        assert!(cached.get().unwrap().is_empty());
    }

    #[test]
    fn memory_store() {
        let m = MemoryTodoStore::default();
        assert_eq!(m.get().unwrap(), vec![]);
        m.replace(vec![item("x", TodoStatus::Pending, None)])
            .unwrap();
        assert_eq!(m.get().unwrap().len(), 1);
    }
}
