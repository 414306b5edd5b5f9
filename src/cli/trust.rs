//! `indus-tool trust [FILE…] | --list | --revoke FILE…`: the user's trust in
//! project configuration files (see `state::trust`), kept in user state by
//! `state::user`. Trusting an MCP config or an agents file also records the
//! SHA-256 of each project file it launches (`state::trust::launched_by`), shown
//! under it (`launches PATH (sha256 …)`; `--list` adds each one's state, and the
//! JSON records a `launches` array); a file that launches none prints as before.
//!
//! Exit status: 0 done, 1 a file could not be trusted (absent, not a regular
//! file, too large, launching more than 64 project files or one that cannot be
//! read within 64 MiB, or the user's state folder unusable) or, with no FILE, no
//! project configuration file was found; 2 a usage error (clap's).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ArgMatches;
use serde_json::{Value, json};

use super::error::CliResult;
use super::globals::Globals;
use super::output::Printer;
use crate::state::trust::{
    ConfigKind, LAUNCH_LIMIT, LaunchState, PROJECT_DECK_FILES, hash_launched, kind_of,
    launch_state, read_config,
};
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
        let launches = match launches_of(&file, &bytes, cwd) {
            Ok(l) => l,
            Err(e) => {
                printer.error_text(&format!("trust: {}: {e}; not trusted", file.display()));
                failed = true;
                continue;
            }
        };
        match user::trust(&file, &bytes, launches) {
            Ok(entry) => {
                lines.push(format!(
                    "trusted {} (sha256 {})",
                    entry.path.display(),
                    short(&entry.sha256)
                ));
                let mut record =
                    json!({"path": entry.path, "sha256": entry.sha256, "trusted": true});
                let launches = entry.launches.unwrap_or_default();
                for l in &launches {
                    lines.push(format!(
                        "  launches {} (sha256 {})",
                        l.path.display(),
                        short(&l.sha256)
                    ));
                }
                if !launches.is_empty() {
                    record["launches"] = launches
                        .iter()
                        .map(|l| json!({"path": l.path, "sha256": l.sha256}))
                        .collect();
                }
                records.push(record);
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

/// The project files the configuration `file` (its `bytes`) launches, as they
/// are now: for an agents file, from the folder holding `.indusvx/`; for an MCP
/// config, from that folder and from `cwd` (where `indus-tool` will likely
/// run), each server's `cwd` joined. At most [`LAUNCH_LIMIT`], each a regular
/// file within the cap; else why it cannot be trusted.
fn launches_of(file: &Path, bytes: &[u8], cwd: &Path) -> Result<Vec<user::Launched>, String> {
    let paths = launched_paths(file, bytes, cwd);
    if paths.len() > LAUNCH_LIMIT {
        return Err(format!(
            "it launches {} project files, more than the {LAUNCH_LIMIT} a trust covers",
            paths.len()
        ));
    }
    let mut out = Vec::with_capacity(paths.len());
    for path in paths {
        match hash_launched(&path) {
            Ok(Some(l)) => out.push(l),
            // Gone between the look and the read: nothing to cover.
            Ok(None) => {}
            Err(e) => {
                return Err(format!(
                    "it launches {}, which cannot be trusted: {e}",
                    path.display()
                ));
            }
        }
    }
    Ok(out)
}

/// The paths [`launches_of`] hashes (see there), in order, without repeats.
fn launched_paths(file: &Path, bytes: &[u8], cwd: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Vec::new();
    };
    let workspace = crate::state::trust::workspace_of(file);
    let mut out: Vec<PathBuf> = Vec::new();
    let mut add = |found: Vec<PathBuf>| {
        for p in found {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    };
    match kind_of(file) {
        ConfigKind::Settings => {}
        ConfigKind::Agents => add(crate::deck::cards::task::launched_files(file, text)),
        ConfigKind::LanguageServers => {
            for base in [workspace.as_path(), cwd] {
                add(crate::tools::code::lsp::servers::launched_files(
                    file, text, base,
                ));
            }
        }
        ConfigKind::Mcp => {
            let env = crate::interop::mcp_client::config::process_env;
            for base in [workspace.as_path(), cwd] {
                add(crate::interop::mcp_client::config::launched_files(
                    file, text, base, &env,
                ));
            }
        }
    }
    out
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
        let mut record = json!({"path": entry.path, "sha256": entry.sha256, "state": state});
        let mut launches = Vec::new();
        for l in entry.launches.iter().flatten() {
            let state = launch_state(l);
            let said = match state {
                LaunchState::Matches => "matches",
                LaunchState::Changed => "changed since (not used until trusted again)",
                LaunchState::Missing => "missing (not used until trusted again)",
            };
            lines.push(format!(
                "  launches {}  sha256 {}  {said}",
                l.path.display(),
                short(&l.sha256)
            ));
            launches.push(json!({"path": l.path, "sha256": l.sha256, "state": state.name()}));
        }
        // What it launches now that its trust does not cover: a record from
        // before trust covered launched files, or a file added since.
        if state == "matches"
            && let Ok(Some(bytes)) = read_config(&entry.path)
        {
            let cwd = Path::new(&globals.cwd);
            let covered: Vec<&PathBuf> = entry.launches.iter().flatten().map(|l| &l.path).collect();
            for path in launched_paths(&entry.path, &bytes, cwd) {
                if covered.contains(&&path) {
                    continue;
                }
                lines.push(format!(
                    "  launches {}  not covered (not used until trusted again)",
                    path.display()
                ));
                launches.push(json!({"path": path, "sha256": null, "state": "uncovered"}));
            }
        }
        if !launches.is_empty() {
            record["launches"] = Value::Array(launches);
        }
        records.push(record);
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
