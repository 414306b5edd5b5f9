//! The wrappers the command line puts around the deck's tools, each one
//! behaviour around a call ([`Around`](crate::kernel::Around)) over the tools it
//! concerns: approval of commands, repeated-failure suppression, the buddy
//! envelope, checkpoints of the file tools and of the command tools. The tools themselves know
//! nothing of them.

pub mod approval;
pub mod checkpoint;
pub mod command_checkpoint;
pub mod envelope;
pub mod suppress;
