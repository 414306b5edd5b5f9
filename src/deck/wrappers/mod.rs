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

use std::sync::Arc;

use crate::kernel::{Checkpoint, DefinedTool, ScanWhen, ToolRegistry, wrap_tool};
use checkpoint::{CheckpointHandle, maybe_wrap_checkpoint};

/// Replace the tools a checkpoint covers (their descriptors say how: the file
/// tools by reading what they will write, the command tools by scanning the
/// tree) in `registry` by their wrapped selves (in place, so order and
/// collections are unchanged).
pub fn install_checkpoints(registry: &mut ToolRegistry, handle: CheckpointHandle) {
    use command_checkpoint::Commands;
    let handle = Arc::new(handle);
    let commands = Commands {
        handle: Arc::clone(&handle),
        serial: Arc::default(),
        when: ScanWhen::Always,
    };
    let wrapped: Vec<DefinedTool> = crate::deck::catalog()
        .iter()
        .filter_map(|row| Some((row.meta.checkpoint, registry.get(row.id)?.clone())))
        .filter_map(|(how, tool)| match how {
            Checkpoint::ByPath | Checkpoint::ByPatch => {
                Some(maybe_wrap_checkpoint(tool, Some(&handle)))
            }
            Checkpoint::ByScan(when) => Some(wrap_tool(
                tool,
                Arc::new(Commands {
                    when,
                    ..commands.clone()
                }),
            )),
            Checkpoint::No => None,
        })
        .collect();
    registry.register_all(wrapped);
}
