//! `apply_patch` through the real binary: codex's own conformance scenarios, git
//! diffs with their extended headers, `--check` and `-R`, refusals that change
//! nothing, the gate, and atomicity when the process is killed mid-apply.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{TestEnv, bin_std, code, copy_tree, snapshot, stderr, stdout};

fn fixtures() -> Option<PathBuf> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        std::env::var_os("INDUS_CODEX_FIXTURES").map(PathBuf::from),
        Some(manifest.join("../shared/fixtures/codex-apply-patch")),
        Some(PathBuf::from("/work/shared/fixtures/codex-apply-patch")),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.join("SOURCE.md").is_file())
}

#[test]
fn codex_conformance_scenarios_leave_the_expected_tree() {
    let Some(dir) = fixtures() else {
        if std::env::var_os("CI").is_some_and(|v| v == "true") {
            panic!(
                "codex's apply-patch scenarios (../shared/fixtures/codex-apply-patch) are missing under CI"
            );
        }
        common::skipped(
            "codex conformance scenarios: ../shared/fixtures/codex-apply-patch is absent",
        );
        return;
    };
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("patch.txt").is_file())
        .collect();
    scenarios.sort();
    assert_eq!(scenarios.len(), 23, "the scenario count changed");
    let mut failed = Vec::new();
    for s in &scenarios {
        let name = s.file_name().unwrap().to_string_lossy().into_owned();
        let env = TestEnv::new();
        let work = env.path("tree");
        std::fs::create_dir_all(&work).unwrap();
        if s.join("input").is_dir() {
            copy_tree(&s.join("input"), &work);
        }
        let before = snapshot(&work);
        let patch = std::fs::read_to_string(s.join("patch.txt")).unwrap();
        let out = bin_std()
            .current_dir(&work)
            .args(["apply_patch", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().unwrap().write_all(patch.as_bytes())?;
                c.wait_with_output()
            })
            .unwrap();
        let after = snapshot(&work);
        // 015: codex leaves its earlier changes; all or nothing leaves the input.
        let expected = if name.starts_with("015_") {
            before.clone()
        } else {
            snapshot(&s.join("expected"))
        };
        if after != expected {
            failed.push(format!(
                "{name}: exit {}\n{}{}\n got {:?}\n want {:?}",
                code(&out),
                stdout(&out),
                stderr(&out),
                after.keys().collect::<Vec<_>>(),
                expected.keys().collect::<Vec<_>>()
            ));
        }
        // A refused patch says so in its exit status.
        let refused = after == before && expected == before;
        assert_eq!(code(&out) != 0, refused, "{name}: {}", stdout(&out));
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

fn apply(env: &TestEnv, patch: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["apply_patch"];
    args.extend_from_slice(extra);
    env.cmd()
        .args(&args)
        .write_stdin(patch.to_string())
        .output()
        .unwrap()
}

#[test]
fn a_git_diff_with_new_deleted_renamed_and_mode_changed_files_applies_and_reverses() {
    let env = TestEnv::new();
    env.write(
        "src/lib.rs",
        "fn a() {\n    one();\n}\n\nfn b() {\n    two();\n}\n",
    );
    env.write("old.txt", "gone\n");
    env.write("docs/readme.md", "# Title\n\ntext\n");
    env.write("run.sh", "echo hi\n");
    let before = snapshot(env.root());
    let patch = "\
diff --git a/src/lib.rs b/src/lib.rs
index 1..2 100644
--- a/src/lib.rs
+++ b/src/lib.rs
@@ -5,3 +5,4 @@ fn a() {
 fn b() {
     two();
+    three();
 }
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
diff --git a/new.txt b/new.txt
new file mode 100755
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+fresh
+file
diff --git a/docs/readme.md b/docs/guide.md
similarity index 80%
rename from docs/readme.md
rename to docs/guide.md
--- a/docs/readme.md
+++ b/docs/guide.md
@@ -1,3 +1,3 @@
-# Title
+# Guide
 
 text
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
";
    // --check writes nothing.
    let out = apply(&env, patch, &["--check"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("Nothing was written"),
        "{}",
        stdout(&out)
    );
    assert_eq!(snapshot(env.root()), before);

    let out = apply(&env, patch, &[]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("Applied the patch (unified diff): 5 files"),
        "{text}"
    );
    assert!(
        text.contains("renamed   docs/readme.md -> docs/guide.md  +1 -1"),
        "{text}"
    );
    assert_eq!(
        env.read_string("src/lib.rs"),
        "fn a() {\n    one();\n}\n\nfn b() {\n    two();\n    three();\n}\n"
    );
    assert!(!env.path("old.txt").exists());
    assert!(!env.path("docs/readme.md").exists());
    assert_eq!(env.read_string("docs/guide.md"), "# Guide\n\ntext\n");
    assert_eq!(env.read_string("new.txt"), "fresh\nfile\n");
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &str| std::fs::metadata(env.path(p)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("new.txt"), 0o755);
    assert_eq!(mode("run.sh"), 0o755);

    // -R takes every file back (the mode change aside: git keeps the old mode
    // in a header the reverse does not restore).
    let out = apply(&env, patch, &["-R"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let mut now = snapshot(env.root());
    let mut was = before.clone();
    now.remove("run.sh");
    was.remove("run.sh");
    assert_eq!(now, was);
    assert!(common::temp_leftovers(env.root()).is_empty());
}

#[test]
fn a_patch_whose_last_hunk_cannot_match_changes_nothing_and_lists_every_failure() {
    let env = TestEnv::new();
    for i in 0..5 {
        env.write(&format!("f{i}.txt"), format!("a{i}\nb{i}\nc{i}\n"));
    }
    let before = snapshot(env.root());
    let mut patch = String::from("*** Begin Patch\n");
    for i in 0..5 {
        patch.push_str(&format!(
            "*** Update File: f{i}.txt\n@@\n a{i}\n-b{i}\n+B{i}\n"
        ));
    }
    patch.push_str("*** Add File: new.txt\n+new\n");
    patch.push_str("*** Update File: f4.txt\n@@\n-not there\n+x\n@@\n-nor this\n+y\n");
    patch.push_str("*** End Patch\n");
    let out = apply(&env, &patch, &[]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out) + &stderr(&out);
    assert!(text.contains("nothing was changed"), "{text}");
    assert!(text.contains("f4.txt: hunk 1:"), "{text}");
    assert!(text.contains("f4.txt: hunk 2:"), "{text}");
    assert_eq!(snapshot(env.root()), before);
}

#[test]
fn offsets_whitespace_slips_and_two_places() {
    let env = TestEnv::new();
    let body = "fn one() {\n    let x = 1;\n    x\n}\n\nfn two() {\n    let x = 1;\n    x\n}\n";
    env.write("a.rs", format!("// header\n// more\n{body}"));
    // The same lines in two places and no line stated: refused with both.
    let out = apply(
        &env,
        "*** Begin Patch\n*** Update File: a.rs\n@@\n     let x = 1;\n-    x\n+    x + 0\n*** End Patch\n",
        &[],
    );
    assert_eq!(code(&out), 1);
    let text = stdout(&out) + &stderr(&out);
    assert!(
        text.contains("lines 4, 9") || text.contains("lines 4 and 9"),
        "{text}"
    );
    // The stated line is 2 off: applied at an offset, which the answer says.
    let patch = "--- a/a.rs\n+++ b/a.rs\n@@ -4,3 +4,3 @@\n fn two() {\n-    let x = 1;\n+    let x = 2;\n     x\n";
    let out = apply(&env, patch, &[]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("(offset +4 lines)"),
        "{}",
        stdout(&out)
    );
    assert!(
        env.read_string("a.rs")
            .contains("fn two() {\n    let x = 2;")
    );
    // An anchor tells them apart; the context written without indentation is
    // found by the whitespace stages and kept as the file has it.
    let out = apply(
        &env,
        "*** Begin Patch\n*** Update File: a.rs\n@@ fn one() {\n let x = 1;\n-x\n+    x + 0\n*** End Patch\n",
        &[],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        env.read_string("a.rs")
            .contains("fn one() {\n    let x = 1;\n    x + 0\n}"),
        "{}",
        env.read_string("a.rs")
    );
}

/// An envelope cannot say "no newline at end of file": a hunk that reaches the
/// end of a file without one leaves it without one, whether its last line is
/// context or replaced (codex's apply_patch adds one; `git apply` of the same
/// change does not). A file that has one keeps it.
#[test]
fn an_envelope_keeps_the_final_newline_state_it_does_not_mention() {
    let env = TestEnv::new();
    for (name, body) in [
        ("ctx.txt", "a\nb\nc"),
        ("last.txt", "a\nb\nc"),
        ("nl.txt", "a\nb\nc\n"),
    ] {
        env.write(name, body);
    }
    let patch = "*** Begin Patch\n\
        *** Update File: ctx.txt\n@@\n a\n-b\n+B\n c\n*** End of File\n\
        *** Update File: last.txt\n@@\n a\n b\n-c\n+C\n*** End of File\n\
        *** Update File: nl.txt\n@@\n a\n b\n-c\n+C\n*** End of File\n\
        *** End Patch\n";
    let out = apply(&env, patch, &[]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(env.read("ctx.txt"), b"a\nB\nc");
    assert_eq!(env.read("last.txt"), b"a\nb\nC");
    assert_eq!(env.read("nl.txt"), b"a\nb\nC\n");
}

#[test]
fn crlf_and_bom_are_kept_per_file() {
    let env = TestEnv::new();
    env.write("w.txt", "\u{feff}one\r\ntwo\r\nthree\r\n");
    let out = apply(
        &env,
        "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,3 @@\n one\r\n-two\r\n+TWO\r\n three\r\n",
        &[],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(
        env.read("w.txt"),
        "\u{feff}one\r\nTWO\r\nthree\r\n".as_bytes()
    );
}

#[test]
fn the_gate_accepts_context_as_reading_and_refuses_a_blind_change() {
    let env = TestEnv::new();
    env.write("seen.txt", "a\nb\n");
    env.write("blind.txt", "x\n");
    // Context lines vouch for the file.
    let out = env
        .cmd()
        .args(["--gate", "apply_patch"])
        .write_stdin("*** Begin Patch\n*** Update File: seen.txt\n@@\n a\n-b\n+B\n*** End Patch\n")
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    // A delete with no content, never read: refused, nothing changed.
    let out = env
        .cmd()
        .args(["--gate", "apply_patch"])
        .write_stdin("*** Begin Patch\n*** Delete File: blind.txt\n*** End Patch\n")
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert!(
        (stdout(&out) + &stderr(&out)).contains("has not been read yet"),
        "{}",
        stdout(&out)
    );
    assert!(env.path("blind.txt").exists());
}

#[test]
fn a_patch_file_argument_and_json_rows() {
    let env = TestEnv::new();
    env.write("f.txt", "1\n2\n");
    env.write(
        "c.patch",
        "*** Begin Patch\n*** Update File: f.txt\n@@\n 1\n-2\n+two\n*** End Patch\n",
    );
    let (v, out) = env.run_json(&["apply_patch", "c.patch"]);
    assert_eq!(code(&out), 0, "{v}");
    assert_eq!(v["output"]["files"][0]["path"], "f.txt");
    assert_eq!(v["output"]["files"][0]["status"], "modified");
    assert_eq!(v["output"]["files"][0]["added"], 1);
    assert_eq!(v["output"]["files"][0]["removed"], 1);
    assert_eq!(env.read_string("f.txt"), "1\ntwo\n");
    let out = env.run(&["apply_patch", "missing.patch"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("missing.patch"), "{}", stderr(&out));
}

/// SIGKILL at random moments of a 300-file apply, then one more invocation (an
/// apply_patch, or a tool that is not one): the tree is the one before or the
/// one after, every time.
#[test]
fn killed_mid_apply_the_next_invocation_leaves_the_before_or_after_tree() {
    let env = TestEnv::new();
    let files = 300;
    let mut patch = String::from("*** Begin Patch\n");
    for i in 0..files {
        let body: String = (0..40).map(|l| format!("line {l} of file {i}\n")).collect();
        env.write(&format!("d{}/f{i}.txt", i % 10), &body);
        patch.push_str(&format!(
            "*** Update File: d{}/f{i}.txt\n@@\n line 19 of file {i}\n-line 20 of file {i}\n+LINE TWENTY of file {i}\n",
            i % 10
        ));
    }
    patch.push_str("*** Add File: added.txt\n+new\n*** Delete File: d0/f0.txt\n*** End Patch\n");
    env.write("../p.patch", &patch);
    let patch_file = env.root().parent().unwrap().join("p.patch");
    let before = snapshot(env.root());
    // The after tree, from a copy; how long that apply took spreads the kills.
    let t = Instant::now();
    let after = {
        let copy = TestEnv::new();
        copy_tree(env.root(), copy.root());
        let out = bin_std()
            .current_dir(copy.root())
            .arg("apply_patch")
            .arg(&patch_file)
            .output()
            .unwrap();
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        snapshot(copy.root())
    };
    assert_ne!(before, after);
    let span = t.elapsed().as_micros().max(1000) as u64;
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let (mut saw_before, mut saw_after) = (0, 0);
    for round in 0..50 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_micros(seed % (span + span / 2));
        let mut child = bin_std()
            .current_dir(env.root())
            .arg("apply_patch")
            .arg(&patch_file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
        // One more invocation in the folder finishes or undoes what was begun:
        // another apply_patch, or any other tool (`ls`) in half the rounds.
        let check = round % 2 == 0;
        let out = if check {
            bin_std()
                .current_dir(env.root())
                .args(["apply_patch", "--check"])
                .arg(&patch_file)
                .output()
                .unwrap()
        } else {
            bin_std()
                .current_dir(env.root())
                .arg("ls")
                .output()
                .unwrap()
        };
        assert!(
            !stderr(&out).contains("could not be settled"),
            "round {round}: {}",
            stderr(&out)
        );
        let now = snapshot(env.root());
        if now == before {
            saw_before += 1;
            assert_eq!(code(&out), 0, "round {round}: {}", stdout(&out));
        } else if now == after {
            saw_after += 1;
            // Put the before tree back for the next round.
            restore(env.root(), &before);
        } else {
            let diff: Vec<&String> = now
                .keys()
                .chain(before.keys())
                .filter(|k| now.get(*k) != before.get(*k) && now.get(*k) != after.get(*k))
                .take(5)
                .collect();
            panic!("round {round} (kill after {delay:?}): a mixed tree, e.g. {diff:?}");
        }
        // A done apply's folder stays until the kernel's writeback window
        // has passed; an interrupted one never outlives the next invocation.
        let pending: Vec<Vec<String>> = std::fs::read_dir(env.path(".indus-process/patches"))
            .map(|d| {
                d.flatten()
                    .filter(|e| !e.path().join("done").exists())
                    .map(|e| {
                        let mut names: Vec<String> = std::fs::read_dir(e.path())
                            .map(|d| {
                                d.flatten()
                                    .map(|f| {
                                        let len = f.metadata().map_or(0, |m| m.len());
                                        format!("{} ({len} bytes)", f.file_name().to_string_lossy())
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        names.sort();
                        names.truncate(6);
                        names
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert!(
            pending.is_empty(),
            "round {round}: an unfinished journal was left: {pending:?}; the next invocation said: {}",
            stderr(&out)
        );
    }
    eprintln!("SIGKILL rounds: {saw_before} left the before tree, {saw_after} the after tree");
}

/// Write `tree` back over `dir` (files only; extra files removed).
fn restore(dir: &Path, tree: &BTreeMap<String, Option<Vec<u8>>>) {
    let now = snapshot(dir);
    for (k, v) in &now {
        if v.is_some() && !tree.contains_key(k) {
            std::fs::remove_file(dir.join(k)).unwrap();
        }
    }
    for (k, v) in tree {
        if let Some(bytes) = v {
            let p = dir.join(k);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, bytes).unwrap();
        }
    }
}

#[test]
fn a_checkpointed_apply_is_one_node_that_a_rewind_takes_back() {
    let env = TestEnv::new();
    env.write("keep.txt", "a\nb\n");
    env.write("gone.txt", "bye\n");
    env.write("unnamed.txt", "same\n");
    let before = snapshot(env.root());
    let patch = "*** Begin Patch\n*** Update File: keep.txt\n@@\n a\n-b\n+B\n*** Delete File: gone.txt\n*** Add File: new/dir/added.txt\n+hello\n*** End Patch\n";
    let out = env
        .cmd()
        .args(["--checkpoint", "--turn", "t1", "apply_patch"])
        .write_stdin(patch)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(env.path("new/dir/added.txt").exists());
    let out = env.run(&["checkpoint", "rewind", "t1"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(snapshot(env.root()), before, "{}", stdout(&out));
}
