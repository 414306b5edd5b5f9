//! `indus-tool diff` over real history: file revision pairs of this project's own
//! git history, rendered by the binary, must apply with GNU `patch` and with
//! `git apply` and give the new revision byte for byte.
//!
//! A bounded sample (the newest commits, at most `MAX_PAIRS` pairs) runs here;
//! `bench/diff-roundtrip.py` runs every pair, and another repository's when given.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::bin_std;

const COMMITS: usize = 80;
const MAX_PAIRS: usize = 150;

fn git(repo: &Path, args: &[&str]) -> Option<Vec<u8>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// (commit, path) of modified text files, newest first.
fn revision_pairs(repo: &Path) -> Vec<(String, String)> {
    let log = git(
        repo,
        &[
            "log",
            "--no-merges",
            "--format=%H",
            "--diff-filter=M",
            &format!("-{COMMITS}"),
        ],
    )
    .unwrap_or_default();
    let mut pairs = Vec::new();
    for commit in String::from_utf8_lossy(&log).lines() {
        let names = git(
            repo,
            &[
                "diff-tree",
                "--no-commit-id",
                "-r",
                "--diff-filter=M",
                "--name-only",
                &format!("{commit}^"),
                commit,
            ],
        )
        .unwrap_or_default();
        for path in String::from_utf8_lossy(&names).lines() {
            pairs.push((commit.to_string(), path.to_string()));
        }
    }
    pairs.truncate(MAX_PAIRS);
    pairs
}

#[test]
fn real_revision_pairs_apply_with_patch_and_git_apply() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if !have("git") || git(&repo, &["rev-parse", "--git-dir"]).is_none() {
        common::skipped(&format!(
            "{} is not a git checkout (or git is missing): the real-history diff check did not run",
            repo.display()
        ));
        return;
    }
    let has_patch = have("patch");
    if !has_patch {
        common::skipped("GNU patch is not on PATH: only git apply checks the diffs");
    }
    let pairs = revision_pairs(&repo);
    assert!(
        !pairs.is_empty(),
        "the history of {} has no modified files to check",
        repo.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let (mut checked, mut failures) = (0, Vec::new());
    for (commit, path) in &pairs {
        let (Some(old), Some(new)) = (
            git(&repo, &["show", &format!("{commit}^:{path}")]),
            git(&repo, &["show", &format!("{commit}:{path}")]),
        ) else {
            continue;
        };
        if old.contains(&0) || new.contains(&0) || std::str::from_utf8(&old).is_err() {
            continue;
        }
        if std::str::from_utf8(&new).is_err() || old == new {
            continue;
        }
        let (a, b) = (dir.path().join("old"), dir.path().join("new"));
        std::fs::write(&a, &old).unwrap();
        std::fs::write(&b, &new).unwrap();
        let out = bin_std().arg("diff").arg(&a).arg(&b).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "diff of {commit}:{path}");
        // Headers as git writes them, so both tools take the same file.
        let body = String::from_utf8(out.stdout).unwrap();
        let hunks = body.splitn(3, '\n').nth(2).unwrap_or("");
        let patch = format!("--- a/f\n+++ b/f\n{hunks}");
        let patch_file = dir.path().join("change.patch");
        std::fs::write(&patch_file, &patch).unwrap();
        checked += 1;

        let target = dir.path().join("f");
        if has_patch {
            std::fs::write(&target, &old).unwrap();
            let out = Command::new("patch")
                .current_dir(dir.path())
                .args(["-p1", "--quiet", "--no-backup-if-mismatch", "-i"])
                .arg(&patch_file)
                .output()
                .unwrap();
            if !out.status.success() || std::fs::read(&target).unwrap() != new {
                failures.push(format!(
                    "patch: {commit}:{path}: {}",
                    String::from_utf8_lossy(&out.stdout)
                ));
            }
        }
        std::fs::write(&target, &old).unwrap();
        let out = Command::new("git")
            .current_dir(dir.path())
            .args(["apply", "--unsafe-paths", "--whitespace=nowarn"])
            .arg(&patch_file)
            .output()
            .unwrap();
        if !out.status.success() || std::fs::read(&target).unwrap() != new {
            failures.push(format!(
                "git apply: {commit}:{path}: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(checked >= 20, "only {checked} revision pairs were checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} real revision pairs did not apply:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{checked} real revision pairs applied with patch and git apply");
}
