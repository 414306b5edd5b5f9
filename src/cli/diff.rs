//! `diff`: two files compared with the diff engine `edit` uses.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ArgMatches;

use super::globals::*;
use super::input::*;
use super::output::Printer;
use super::{CliResult, UsageError};
use crate::backends::local::open_confined;

/// `diff BEFORE AFTER`: relative paths resolve against `--cwd`; the headers spell
/// the paths as given.
pub(crate) fn diff(
    globals: &Globals,
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let read = |key: &str| -> CliResult<(String, String)> {
        let given = m.get_one::<PathBuf>(key).expect("required");
        let path = crate::kernel::root::tidy(&Path::new(&globals.cwd).join(given));
        if let Some(root) = &globals.root {
            root.admit(&given.to_string_lossy(), &path)
                .map_err(|m| UsageError(format!("diff: {m}")))?;
        }
        let file = open_confined(&path.to_string_lossy(), globals.root.as_deref(), false)
            .and_then(|file| {
                if !file.metadata()?.is_file() {
                    return Err(std::io::Error::other("not a regular file"));
                }
                Ok(file)
            })
            .map_err(|e| UsageError(format!("diff: cannot read {}: {e}", given.display())))?;
        // Both files are held whole to be aligned; edit's ceiling bounds them.
        let bytes = read_bounded(
            file,
            crate::tools::files::edit::EDIT_MAX_BYTES,
            &format!("diff: {}", given.display()),
        )?;
        let text = String::from_utf8(bytes).map_err(|_| {
            UsageError(format!("diff: {} is not valid UTF-8 text", given.display()))
        })?;
        Ok((given.to_string_lossy().into_owned(), text))
    };
    let (before_name, before) = read("before")?;
    let (after_name, after) = read("after")?;
    let context = *m.get_one::<usize>("context").expect("defaulted");
    let patch = crate::tools::files::diff::render_unified_diff_with_headers(
        &before,
        &after,
        context,
        &before_name,
        &after_name,
    );
    if globals.json {
        // For programs: the diff and its counts, one line, whatever the exit status.
        let d = crate::tools::files::diff::diff_lines(&before, &after);
        let record = serde_json::json!({
            "before": before_name,
            "after": after_name,
            "equal": patch.is_empty(),
            "added": d.added,
            "removed": d.removed,
            "diff": patch,
        });
        printer.stdout_raw(&format!("{record}\n"));
    } else if !patch.is_empty() {
        printer.stdout_raw(&patch);
    }
    Ok(if patch.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
