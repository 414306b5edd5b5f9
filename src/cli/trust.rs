//! `indus-tool trust [FILE…] | --list | --revoke FILE…`: the user's trust in
//! project configuration files (see `state::trust`), kept in user state by
//! `state::user`.
//!
//! Exit status: 0 done, 1 a file could not be trusted (absent, not a regular
//! file, too large, or the user's state folder unusable) or, with no FILE, no
//! project configuration file was found; 2 a usage error (clap's).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ArgMatches;
use serde_json::{Value, json};

use super::error::CliResult;
use super::globals::Globals;
use super::output::Printer;
use crate::state::trust::{PROJECT_DECK_FILES, read_config};
use crate::state::user;

/// The first hex digits of a SHA-256, as text lines show it.
fn short(sha256: &str) -> String {
    format!("{}…", &sha256[..sha256.len().min(12)])
}

/// Print the records (one JSON array) or the text lines, and the status.
fn finish(
    globals: &Globals,
    printer: &mut Printer,
    records: Vec<Value>,
    lines: Vec<String>,
    failed: bool,
) -> ExitCode {
    if globals.json {
        printer.stdout_line(&Value::Array(records).to_string());
    } else {
        for line in lines {
            printer.stdout_line(&line);
        }
    }
    ExitCode::from(u8::from(failed))
}

/// `trust [FILE…] | --list | --revoke FILE…`.
pub fn command(globals: &Globals, m: &ArgMatches, printer: &mut Printer) -> CliResult<ExitCode> {
    let cwd = Path::new(&globals.cwd);
    let named: Vec<PathBuf> = m
        .get_many::<PathBuf>("file")
        .map(|files| files.map(|f| cwd.join(f)).collect())
        .unwrap_or_default();
    if m.get_flag("list") {
        return Ok(list(globals, printer));
    }
    if m.get_flag("revoke") {
        return Ok(revoke(globals, printer, &named));
    }
    let files = if named.is_empty() {
        let found = project_files(cwd);
        if found.is_empty() {
            printer.error_text(
                "trust: no project configuration file here (looked for .indusvx/mcp.json, and .mcp.json, .cursor/mcp.json and .vscode/mcp.json up to the repository root; .indusvx/buddy.json, policy.json and agents.json); name a file to trust it",
            );
            return Ok(finish(globals, printer, Vec::new(), Vec::new(), true));
        }
        found
    } else {
        named
    };
    let (mut records, mut lines, mut failed) = (Vec::new(), Vec::new(), false);
    for file in files {
        let bytes = match read_config(&file) {
            Ok(Some(b)) => b,
            Ok(None) => {
                printer.error_text(&format!("trust: {}: there is no such file", file.display()));
                failed = true;
                continue;
            }
            Err(e) => {
                printer.error_text(&format!("trust: {}: {e}", file.display()));
                failed = true;
                continue;
            }
        };
        match user::trust(&file, &bytes) {
            Ok(entry) => {
                lines.push(format!(
                    "trusted {} (sha256 {})",
                    entry.path.display(),
                    short(&entry.sha256)
                ));
                records.push(json!({"path": entry.path, "sha256": entry.sha256, "trusted": true}));
            }
            Err(e) => {
                printer.error_text(&format!(
                    "trust: cannot record the trust of {}: {e}",
                    file.display()
                ));
                failed = true;
            }
        }
    }
    Ok(finish(globals, printer, records, lines, failed))
}

/// Whether the file at `path` still holds the content trusted: `matches`,
/// `changed` or `missing`.
fn state_of(entry: &user::TrustEntry) -> &'static str {
    match read_config(&entry.path) {
        Ok(Some(bytes)) if crate::kernel::digest::sha256_hex(&bytes) == entry.sha256 => "matches",
        Ok(Some(_)) => "changed",
        Ok(None) => "missing",
        Err(_) => "changed",
    }
}

fn list(globals: &Globals, printer: &mut Printer) -> ExitCode {
    let entries = match user::trusted() {
        Ok(e) => e,
        Err(e) => {
            printer.error_text(&format!("trust --list: cannot read the trusted files: {e}"));
            return finish(globals, printer, Vec::new(), Vec::new(), true);
        }
    };
    let (mut records, mut lines) = (Vec::new(), Vec::new());
    if entries.is_empty() {
        lines.push("No configuration file is trusted.".to_string());
    }
    for entry in &entries {
        let state = state_of(entry);
        let said = match state {
            "matches" => "matches",
            "changed" => "changed since (not used until trusted again)",
            _ => "missing",
        };
        lines.push(format!(
            "{}  sha256 {}  {said}",
            entry.path.display(),
            short(&entry.sha256)
        ));
        records.push(json!({"path": entry.path, "sha256": entry.sha256, "state": state}));
    }
    finish(globals, printer, records, lines, false)
}

fn revoke(globals: &Globals, printer: &mut Printer, files: &[PathBuf]) -> ExitCode {
    let (mut records, mut lines, mut failed) = (Vec::new(), Vec::new(), false);
    for file in files {
        match user::revoke(file) {
            Ok(n) => {
                let shown = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
                lines.push(if n == 0 {
                    format!("not trusted: {}", shown.display())
                } else {
                    format!("revoked {}", shown.display())
                });
                records.push(json!({"path": shown, "revoked": n}));
            }
            Err(e) => {
                printer.error_text(&format!(
                    "trust --revoke: cannot forget {}: {e}",
                    file.display()
                ));
                failed = true;
            }
        }
    }
    finish(globals, printer, records, lines, failed)
}

/// The project configuration files that exist for `cwd`, in the order the
/// toolbox reads them: the MCP configs (`.indusvx/mcp.json`, then `.mcp.json`,
/// `.cursor/mcp.json` and `.vscode/mcp.json` from `cwd` up to the repository
/// root), then `.indusvx/buddy.json`, `policy.json` and `agents.json`. What
/// `indus-tool trust` with no file trusts.
fn project_files(cwd: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = crate::interop::mcp_client::config::project_candidates(cwd);
    out.extend(
        PROJECT_DECK_FILES
            .iter()
            .map(|name| cwd.join(".indusvx").join(name)),
    );
    out.retain(|p| p.is_file());
    out
}
