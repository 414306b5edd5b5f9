//! What `bash` and `process` (and the cards that run commands) render the same
//! way: the `cwd` argument, a signal's name, a duration, a command on one line,
//! an argument vector as one shell line. Apart from the family's `mod.rs` so the
//! tools import it and the family's front door only lists them.

use crate::kernel::ToolContext;
use crate::kernel::input::Args;

/// The optional `cwd` argument, resolved against the context's cwd, admitted by
/// the context's root and checked to be a directory; absent or empty, it is the
/// context's cwd (a strict-mode caller must fill every key, and fills this one
/// with ""). Only the directory is confined: what the command does is not.
pub(crate) async fn working_dir(ctx: &ToolContext, args: &Args<'_>) -> Result<String, String> {
    let Some(dir) = args.opt_filled_str("cwd")? else {
        return Ok(ctx.cwd.clone());
    };
    let abs = ctx
        .confine(dir)
        .map_err(|m| format!("Invalid \"cwd\": {m}"))?;
    match ctx.fs.stat(&abs).await {
        Ok(info) if info.is_directory => Ok(abs),
        Ok(_) => Err(format!("Invalid \"cwd\": {dir} is not a directory.")),
        Err(e) => Err(format!("Invalid \"cwd\": {e}")),
    }
}

/// `SIGTERM` for 15; `signal 77` for a number the platform does not name.
pub fn signal_name(signal: i32) -> String {
    match nix::sys::signal::Signal::try_from(signal) {
        Ok(s) => s.as_str().to_string(),
        Err(_) => format!("signal {signal}"),
    }
}

/// A compact duration: `850ms`, `4.2s`, `3m07s`, `2h05m`, `3d04h`.
pub fn human_duration(ms: u64) -> String {
    let s = ms / 1000;
    match ms {
        0..1_000 => format!("{ms}ms"),
        1_000..60_000 => format!("{}.{}s", s, (ms % 1000) / 100),
        60_000..3_600_000 => format!("{}m{:02}s", s / 60, s % 60),
        3_600_000..86_400_000 => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
        _ => format!("{}d{:02}h", s / 86_400, (s % 86_400) / 3600),
    }
}

/// A command on one line: its first line, with ` …` when more follow.
pub fn one_line(command: &str) -> String {
    use crate::kernel::text::inert;
    let trimmed = command.trim();
    match trimmed.split_once('\n') {
        Some((first, _)) => format!("{} …", inert(first.trim_end())),
        None => inert(trimmed).into_owned(),
    }
}

pub(crate) use crate::kernel::sh_quote;

/// The `sh -c` line that replaces the shell with `argv` (so a job's group leader
/// is the program itself, not a shell waiting on it).
pub(crate) fn exec_line(argv: &[String]) -> String {
    let words: Vec<String> = argv.iter().map(|a| sh_quote(a)).collect();
    format!("exec {}", words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(human_duration(0), "0ms");
        assert_eq!(human_duration(999), "999ms");
        assert_eq!(human_duration(4_250), "4.2s");
        assert_eq!(human_duration(59_999), "59.9s");
        assert_eq!(human_duration(187_000), "3m07s");
        assert_eq!(human_duration(7_500_000), "2h05m");
        assert_eq!(human_duration(273_600_000), "3d04h");
    }

    #[test]
    fn signals_have_names() {
        assert_eq!(signal_name(15), "SIGTERM");
        assert_eq!(signal_name(9), "SIGKILL");
        assert_eq!(signal_name(250), "signal 250");
    }

    #[test]
    fn commands_fold_to_one_line() {
        assert_eq!(one_line("  npm run dev \n"), "npm run dev");
        assert_eq!(one_line("a\nb"), "a …");
    }
}
