//! The committed `completions/` and `man/` must match what the binary generates.
//! Regenerate with `INDUS_REGEN=1 cargo test --test docs`.

use std::path::Path;

use indus_tool::builtin_registry;
use indus_tool::cli::{completion_file_name, completion_script, write_man_pages};

const SHELLS: [clap_complete::Shell; 5] = [
    clap_complete::Shell::Bash,
    clap_complete::Shell::Zsh,
    clap_complete::Shell::Fish,
    clap_complete::Shell::PowerShell,
    clap_complete::Shell::Elvish,
];

fn regen() -> bool {
    std::env::var_os("INDUS_REGEN").is_some_and(|v| v == "1")
}

const HOW: &str = "regenerate with `INDUS_REGEN=1 cargo test --test docs` and commit the result";

#[test]
fn completions_are_current() {
    let descriptors: Vec<_> = builtin_registry().tools().map(|t| t.descriptor()).collect();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    for shell in SHELLS {
        let want = completion_script(&descriptors, shell);
        let path = dir.join(completion_file_name(shell));
        if regen() {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &want).unwrap();
            continue;
        }
        let have = std::fs::read(&path).unwrap_or_default();
        assert!(have == want, "{} is stale: {HOW}", path.display());
    }
}

#[test]
fn man_pages_are_current() {
    let descriptors: Vec<_> = builtin_registry().tools().map(|t| t.descriptor()).collect();
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let fresh = tempfile::tempdir().unwrap();
    let written = write_man_pages(&descriptors, fresh.path()).unwrap();
    let mut want: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    want.sort();
    if regen() {
        let _ = std::fs::remove_dir_all(&committed);
        write_man_pages(&descriptors, &committed).unwrap();
        return;
    }
    let mut have: Vec<String> = std::fs::read_dir(&committed)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    have.sort();
    assert_eq!(
        have, want,
        "man/ holds other pages than the binary generates: {HOW}"
    );
    for name in &want {
        let a = std::fs::read(committed.join(name)).unwrap();
        let b = std::fs::read(fresh.path().join(name)).unwrap();
        assert!(a == b, "man/{name} is stale: {HOW}");
    }
}
