//! `edit` through the real binary, one scenario a folder of `tests/fixtures/edit/`,
//! as codex's scenarios drive `apply_patch` in tests/it/apply_patch.rs: every stage of
//! the matching ladder, every refusal, both frames of `newText`, line endings, the
//! BOM, `expectSha256` and `edits`. A folder holds `input/` (the tree before the
//! call), `call.json` (the tool's input object, as a model sends it) and either
//! `expected/` (the whole tree after the call) or `refusal.txt` (a line the refusal
//! must contain; the tree is then `input/` unchanged). `python3
//! tests/fixtures/edit/check.py BINARY` runs the same folders against any build.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::{Tree, bin_std, copy_tree, snapshot};

/// A tree entry for a failure message: a folder, or the file's bytes escaped.
fn show(entry: &Option<Vec<u8>>) -> String {
    match entry {
        None => "a folder".to_string(),
        Some(bytes) => format!("\"{}\"", bytes.escape_ascii()),
    }
}

/// The first path (in order) where `got` and `want` differ, and how.
fn first_difference(got: &Tree, want: &Tree) -> Option<String> {
    let paths: BTreeSet<&String> = got.keys().chain(want.keys()).collect();
    paths
        .into_iter()
        .find_map(|path| match (got.get(path), want.get(path)) {
            (Some(g), Some(w)) if g == w => None,
            (Some(g), Some(w)) => Some(format!("{path}: got {}, want {}", show(g), show(w))),
            (Some(_), None) => Some(format!("{path}: there, and not expected")),
            (None, _) => Some(format!("{path}: missing")),
        })
}

/// Run one scenario folder: `Ok` when the binary did what the folder says.
fn run_scenario(dir: &Path) -> Result<(), String> {
    let call =
        std::fs::read_to_string(dir.join("call.json")).map_err(|e| format!("call.json: {e}"))?;
    let call = call.trim();
    let expected = dir.join("expected");
    let refusal = dir.join("refusal.txt");
    if expected.is_dir() == refusal.is_file() {
        return Err("the folder needs exactly one of expected/ and refusal.txt".to_string());
    }
    let work = tempfile::tempdir().expect("temp dir");
    if dir.join("input").is_dir() {
        copy_tree(&dir.join("input"), work.path());
    }
    // `call` takes a whole ToolCall; call.json is its input.
    let tool_call = format!(r#"{{"id":"scenario","name":"edit","input":{call}}}"#);
    // HOME without configuration, XDG_STATE_HOME and the INDUS_* variables
    // removed: the environment every test of the binary gets (tests/common).
    let out = bin_std()
        .current_dir(work.path())
        .args(["call", &tool_call])
        .output()
        .expect("run indus-tool");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let said = said.trim_end();
    let after = snapshot(work.path());
    if expected.is_dir() {
        if !out.status.success() {
            return Err(format!(
                "exit {:?}, an edit was expected: {said}",
                out.status.code()
            ));
        }
        return match first_difference(&after, &snapshot(&expected)) {
            None => Ok(()),
            Some(diff) => Err(format!("the tree differs from expected/ at {diff}")),
        };
    }
    let refusal = std::fs::read_to_string(refusal).map_err(|e| format!("refusal.txt: {e}"))?;
    let refusal = refusal.trim_end_matches(['\n', '\r']);
    if out.status.success() {
        return Err(format!("exit 0, a refusal was expected: {said}"));
    }
    if !said.contains(refusal) {
        return Err(format!("the output lacks {refusal:?}: {said}"));
    }
    match first_difference(&after, &snapshot(&dir.join("input"))) {
        None => Ok(()),
        Some(diff) => Err(format!("refused, but the tree changed at {diff}")),
    }
}

#[test]
fn every_edit_scenario_leaves_its_expected_tree_or_its_refusal() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/edit");
    // Every folder is a scenario (check.py beside them is a file; a hidden or
    // `__pycache__` folder is no scenario).
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/fixtures/edit")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !name.starts_with('.') && !name.starts_with('_')
        })
        .collect();
    scenarios.sort();
    assert!(
        scenarios.len() >= 30,
        "only {} edit scenarios in {}",
        scenarios.len(),
        root.display()
    );
    let failed: Vec<String> = scenarios
        .iter()
        .filter_map(|s| {
            let name = s.file_name().unwrap().to_string_lossy().into_owned();
            run_scenario(s).err().map(|why| format!("{name}: {why}"))
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} edit scenarios failed:\n{}",
        failed.len(),
        scenarios.len(),
        failed.join("\n\n")
    );
}
