//! The command line's one error of its own: a usage error (a flag, a value or a
//! word of argv that cannot be made into a call), printed as one line with exit
//! status 2. In a file of its own because every part of the command line returns
//! it and the front door (`mod.rs`) imports them all.

/// A usage error: printed as one line, exit status 2.
#[derive(Debug)]
pub struct UsageError(pub String);

pub(crate) type CliResult<T> = Result<T, UsageError>;
