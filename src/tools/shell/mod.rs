//! The shell family: `bash` (one command, run to completion) and `process`
//! (background jobs that outlive the invocation that started them: `poll` and
//! its waits, a job's `terminal`), plus the small
//! pieces both render the same way: a working directory argument, a signal's name,
//! a duration; and the warm helper (`warm`) the MCP and language-server brokers
//! run as, a job of the same engine.

pub mod bash;
pub mod job;
pub mod poll;
pub mod process;
pub mod shared;
pub mod spill;
pub mod terminal;
pub mod wait;
pub mod warm;

pub use bash::bash_tool;
pub use process::process_tool;
