//! Replays every committed fuzz input (`fuzz/seeds/TARGET/*`) through the same
//! property checks the libFuzzer targets run, on stable, in `cargo test`. A fuzz
//! finding is kept by committing the input that triggered it to the target's seed
//! folder; from then on this test fails if the bug comes back.

#[path = "../../fuzz/src/lib.rs"]
mod checks;

use std::path::Path;

type Check = fn(&[u8]);

const TARGETS: &[(&str, Check)] = &[
    ("clamp", checks::clamp),
    ("coerce_input", checks::coerce_input),
    ("diff_apply", checks::diff_apply),
    ("edit_match", checks::edit_match),
    ("html_convert", checks::html_convert),
    ("media", checks::media),
    ("search_results", checks::search_results),
];

fn replay(target: &str, check: Check) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for file in &files {
        let data = std::fs::read(file).unwrap();
        let outcome = std::panic::catch_unwind(|| check(&data));
        assert!(outcome.is_ok(), "{target}: {} fails", file.display());
    }
    files.len()
}

#[test]
fn every_target_has_seeds_and_every_seed_passes() {
    for (target, check) in TARGETS {
        let n = replay(target, *check);
        assert!(n >= 3, "{target} has only {n} seeds");
    }
}

#[test]
fn the_fuzz_targets_and_this_list_agree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.trim_end_matches(".rs").to_string()
        })
        .collect();
    on_disk.sort();
    let listed: Vec<&str> = TARGETS.iter().map(|(t, _)| *t).collect();
    assert_eq!(on_disk, listed);
}
