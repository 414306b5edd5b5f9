//! The planning family: `todo_set` and `todo_read`, the session's checklist.
//!
//! It owns the checklist's validation, its rendering and the in-process fallback
//! store; where a list persists is the host's choice, through the
//! `TodoStoreHandle` on `Framework::todo` (the command line keeps one file per
//! session under `.indus-process/todos/`). Kept apart from the files family because
//! a checklist is the agent's own state, not the workspace's.

pub mod todo;

pub use todo::{
    TodoItem, TodoPriority, TodoStatus, TodoStoreHandle, reset_todos, todo_read_tool, todo_set_tool,
};
