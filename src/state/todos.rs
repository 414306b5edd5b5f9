//! Stores behind `todo_set`/`todo_read`: [`PersistentTodoStore`] keeps a session's
//! checklist in `.indus-process/todos/<session>.json`, so a `todo_set` in one
//! invocation is what the next `todo_read` shows; [`MemoryTodoStore`] keeps one list
//! for the life of a process (library hosts that want a list shared by every
//! context they mint, and tests).

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
    fn memory_store() {
        let m = MemoryTodoStore::default();
        assert_eq!(m.get().unwrap(), vec![]);
        m.replace(vec![item("x", TodoStatus::Pending, None)])
            .unwrap();
        assert_eq!(m.get().unwrap().len(), 1);
    }
}
