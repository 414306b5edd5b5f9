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

use crate::kernel::{DefinedTool, ToolRegistry, wrap_tool};
use checkpoint::{CHECKPOINTED_TOOLS, CheckpointHandle, maybe_wrap_checkpoint};

/// Replace the file tools ([`CHECKPOINTED_TOOLS`](checkpoint::CHECKPOINTED_TOOLS)) and the command tools
/// ([`COMMAND_TOOLS`](command_checkpoint::COMMAND_TOOLS)) in `registry` by
/// their wrapped selves (in place, so order and collections are unchanged).
pub fn install_checkpoints(registry: &mut ToolRegistry, handle: CheckpointHandle) {
    use command_checkpoint::{COMMAND_TOOLS, Commands};
    let handle = Arc::new(handle);
    let mut wrapped: Vec<DefinedTool> = CHECKPOINTED_TOOLS
        .iter()
        .filter_map(|name| registry.get(name).cloned())
        .map(|tool| maybe_wrap_checkpoint(tool, Some(&handle)))
        .collect();
    let commands = Arc::new(Commands {
        handle: Arc::clone(&handle),
        serial: Arc::default(),
    });
    wrapped.extend(
        COMMAND_TOOLS
            .iter()
            .filter_map(|name| registry.get(name).cloned())
            .map(|tool| wrap_tool(tool, commands.clone())),
    );
    registry.register_all(wrapped);
}
