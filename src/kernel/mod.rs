//! The frozen authoring kernel: everything a tool is written against and everything
//! a host dispatches through, with no OS binding of its own (that is `backends`).

pub mod backends;
pub mod clock;
pub mod contract;
pub mod digest;
pub mod fields;
pub mod input;
pub mod meta;
pub mod output;
pub mod registry;
pub mod relay;
pub mod render;
pub mod root;
pub mod shell_words;
pub mod spec;
pub mod text;
pub mod wrap;
pub mod write_guard;

pub use backends::{ChangeWatch, InputWait, OutputTap, Tap, TapStream, TickWatch, TtySize};
pub use backends::{
    DEFAULT_CAPTURE_LIMIT, DirChild, Dropped, ExecTimeout, ExitListener, FileLock, Fs, FsEntryInfo,
    JobIdentity, JobLaunch, JobLiveness, JobSignal, RemoveOptions, Shell, ShellExecOptions,
    ShellExecResult, ShellExit, ShellHandle, ShellLaunchOptions, Unsubscribe, sh_quote,
};
pub use backends::{
    FileRead, ReadLimits, WalkEntry, WalkEntryKind, WalkEvent, WalkFlow, WalkOptions, WalkVisitor,
    WalkVisitorFactory,
};
pub use contract::{JsonSchema, ToolCall, ToolDescriptor, ToolOutcome};
pub use fields::{Field, Kind};
pub use meta::{Checkpoint, Effect, ScanWhen, Seat, SeedList, ToolMeta};
pub use output::{ClipEnd, OutputBudget, clamp, default_notice};
pub use registry::{
    CapabilityError, ContextFactory, Registration, ToolBox, ToolRegistry, ToolRunner,
    no_such_tool_message, normalize_tool_name,
};
pub use render::render_text;
pub use root::{OutsideRoot, Root};
pub use spec::{
    DefinedTool, FacadeOutput, Framework, READ_STATE_HANDLE_KEY, ReadStateHandle, ReadStateRecord,
    RowSink, TodoItem, TodoPriority, TodoStatus, TodoStoreHandle, Tool, ToolContentBlock,
    ToolContext, ToolResult, coerce_input, define_tool, describe_throw, media_kind, program_view,
    schema_text,
};
pub use tokio_util::sync::CancellationToken;
pub use wrap::{Around, wrap_tool, wrap_tools};
pub use write_guard::{Outside, WriteGuard};
