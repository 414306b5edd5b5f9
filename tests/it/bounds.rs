//! Bounded under hostile input (issue 53): a checkout its attacker wrote must
//! not cost a call gigabytes or minutes, nor stall every other session, nor
//! hide content from the tools. The real binary on temp trees:
//!
//! - a 60,000-line `.gitignore` (1.4 MB): skipped and named, a checkpointed
//!   `bash true` and `find --gitignore` each peak under 200 MB;
//! - a sparse 20 GB file dated 2099: a checkpointed `bash --timeout-ms 1000`
//!   returns within its deadline and a margin, twice, and the file is named as
//!   not covered;
//! - the state lock held by another process: `todo_set` answers after the
//!   lock's wait, naming the holder;
//! - a nested `.indus-process/` is searched, and a file named like the
//!   toolbox's temp files is covered by the checkpoint scan.

use crate::common;

use std::time::Duration;

use common::{TestEnv, code, stderr, stdout};

/// The peak resident set a call may reach here.
const RSS_LIMIT_MB: i64 = 200;

#[test]
fn a_60k_line_gitignore_is_skipped_and_costs_little() {
    common::own_process!();
    let env = TestEnv::new();
    let lines: String = (0..60_000)
        .map(|i| format!("dir{i}/**/*.tmp{i}\n"))
        .collect();
    env.write(".gitignore", &lines);
    env.write("a/b/x.txt", "x\n");
    let root = env.root().canonicalize().unwrap();
    let said = format!(
        "skipped the ignore file {}: 1.4 MB, over the 1 MiB cap (its patterns do not apply)",
        root.join(".gitignore").display()
    );
    for args in [
        &["--checkpoint", "bash", "true"][..],
        &["find", "x", "--gitignore"][..],
    ] {
        let run = common::measured(&root, args, Duration::from_secs(120));
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(
            run.rss_mb < RSS_LIMIT_MB,
            "{args:?} peaked at {} MB (limit {RSS_LIMIT_MB} MB), took {:?}",
            run.rss_mb,
            run.took
        );
        assert!(run.stderr.contains(&said), "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.matches("skipped the ignore file").count(), 1);
    }
    let run = common::measured(
        &root,
        &["find", "x", "--gitignore"],
        Duration::from_secs(60),
    );
    assert!(
        run.stdout.lines().any(|l| l == "a/b/x.txt"),
        "{}",
        run.stdout
    );
}

/// Allowed on top of a call's own deadline (a debug build on a busy machine).
const MARGIN: Duration = Duration::from_secs(5);

#[test]
fn a_sparse_20_gb_future_file_keeps_a_checkpointed_call_within_its_deadline() {
    let env = TestEnv::new();
    let big = std::fs::File::create(env.path("big")).unwrap();
    if big.set_len(20 << 30).is_err() {
        common::missing(
            "a sparse 20 GB file could not be made here",
            "sparse file test (no sparse files on this filesystem)",
        );
        return;
    }
    // 2099-01-01T00:00:00Z
    let future = std::time::UNIX_EPOCH + Duration::from_secs(4_070_908_800);
    big.set_modified(future).unwrap();
    drop(big);
    let root = env.root().canonicalize().unwrap();
    let deadline = Duration::from_millis(1000);
    for round in 0..2 {
        let run = common::measured(
            &root,
            &["--checkpoint", "bash", "--timeout-ms", "1000", "true"],
            Duration::from_secs(120),
        );
        assert_eq!(run.code, 0, "round {round}: {}", run.stderr);
        assert!(
            run.took < deadline + MARGIN,
            "round {round} took {:?} (deadline {deadline:?} + {MARGIN:?})",
            run.took
        );
    }
    let run = common::measured(
        &root,
        &["--checkpoint", "--turn", "t1", "bash", "echo x > f"],
        Duration::from_secs(60),
    );
    assert!(run.took < deadline + MARGIN, "took {:?}", run.took);
    let out = env.run(&["checkpoint", "diff", "t1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out)
            .contains("Not kept by checkpoints of commands (over the 16777216-byte cap): big"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_held_state_lock_is_waited_for_then_its_holder_named() {
    let env = TestEnv::new();
    let root = env.root().canonicalize().unwrap();
    env.mkdir(".indus-process");
    let lock_path = root.join(".indus-process/.lock");
    let held = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .unwrap();
    held.lock().unwrap();
    let input = r#"{"items":[{"id":"a","text":"t","status":"pending"}]}"#;
    let run = common::measured(
        &root,
        &["todo_set", "--json", input],
        Duration::from_secs(60),
    );
    let wait = Duration::from_secs(10);
    assert!(
        run.took < wait + MARGIN,
        "took {:?} (wait {wait:?} + {MARGIN:?})",
        run.took
    );
    assert_ne!(run.code, 0, "{}", run.stdout);
    let want = format!(
        "the state folder {} is locked by pid {} (",
        root.join(".indus-process").display(),
        std::process::id()
    );
    assert!(run.stderr.contains(&want), "{}", run.stderr);
    assert!(
        run.stderr.contains("for 10 s; try again when it is done"),
        "{}",
        run.stderr
    );
    drop(held);
    let out = env.run(&["todo_set", "--json", input]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn nested_state_folders_and_temp_shaped_names_are_project_content() {
    let env = TestEnv::new();
    env.write("sub/.indus-process/notes.txt", "needle\n");
    env.write(".x.indus-tmp.123", "old\n");
    let out = env.run(&["grep", "needle"]);
    assert!(
        stdout(&out).starts_with("sub/.indus-process/notes.txt:1: needle\n\n"),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["find", "notes"]);
    assert!(
        stdout(&out).starts_with("sub/.indus-process/notes.txt\n\n"),
        "{}",
        stderr(&out)
    );
    // The project's own state folder stays out of both.
    let out = env.run(&[
        "--checkpoint",
        "--turn",
        "t1",
        "bash",
        "echo new > .x.indus-tmp.123; echo changed > sub/.indus-process/notes.txt",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(env.path(".indus-process").is_dir());
    let out = env.run(&["find", "lock"]);
    assert!(stdout(&out).starts_with("No matches"), "{}", stdout(&out));
    // The write guard still asks before a rewind writes into any folder
    // named `.indus-process`; that the scan recorded it is what counts here.
    let nested = env
        .root()
        .canonicalize()
        .unwrap()
        .join("sub/.indus-process/notes.txt");
    let nested = nested.to_string_lossy();
    let out = env.run(&["--allow-protected", &nested, "checkpoint", "rewind", "t1"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(env.read_string(".x.indus-tmp.123"), "old\n");
    assert_eq!(env.read_string("sub/.indus-process/notes.txt"), "needle\n");
}
