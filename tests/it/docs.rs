//! The committed `completions/` and `man/` must match what the binary generates.
//! Regenerate with `INDUS_REGEN=1 cargo test --test it docs::`. The man pages are also
//! rendered with `man` to see what a reader sees (`tests/it/completions.rs` does the same
//! for the completion scripts, in the shells).

use crate::common;

use std::path::Path;

use indus_tool::cli::{completion_file_name, completion_script, write_man_pages};
use indus_tool::deck::deck_registry;

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

const HOW: &str =
    "regenerate with `INDUS_REGEN=1 cargo test --test it docs::` and commit the result";

#[test]
fn completions_are_current() {
    let descriptors: Vec<_> = deck_registry().tools().map(|t| t.descriptor()).collect();
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
    let descriptors: Vec<_> = deck_registry().tools().map(|t| t.descriptor()).collect();
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

/// Every subcommand's page is `indus-tool-NAME(1)`, but its SYNOPSIS names the
/// command as it is typed, `indus-tool NAME [OPTIONS]…`, in the roff source and as
/// `man` renders it.
#[test]
fn man_synopses_name_the_command_as_typed() {
    let descriptors: Vec<_> = deck_registry().tools().map(|t| t.descriptor()).collect();
    let fresh = tempfile::tempdir().unwrap();
    let pages = write_man_pages(&descriptors, fresh.path()).unwrap();
    let subcommand_pages = pages.len() - 1;
    let man = have_man();
    let mut checked = 0;
    for page in pages {
        let file = page.file_name().unwrap().to_string_lossy().into_owned();
        let Some(sub) = file
            .strip_prefix("indus-tool-")
            .and_then(|f| f.strip_suffix(".1"))
        else {
            continue;
        };
        // The fresh page (the committed one equals it, see above; reading that
        // one would race its rewrite under INDUS_REGEN).
        let roff = std::fs::read_to_string(&page).unwrap();
        let typed = format!(
            ".SH SYNOPSIS\n\\fBindus\\-tool {}\\fR ",
            sub.replace('-', "\\-")
        );
        assert!(
            roff.contains(&typed),
            "{file}: the SYNOPSIS does not start with `indus-tool {sub}`:\n{roff}"
        );
        assert!(
            roff.starts_with(&format!(
                ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n.TH indus-tool-{sub} 1  \"indus-tool {}\"",
                env!("CARGO_PKG_VERSION")
            )),
            "{file}: the title is not indus-tool-{sub}(1) from indus-tool {}",
            env!("CARGO_PKG_VERSION")
        );
        if man {
            let shown = render(&page);
            let synopsis = shown
                .lines()
                .skip_while(|l| l.trim() != "SYNOPSIS")
                .nth(1)
                .unwrap_or_default()
                .trim();
            assert!(
                synopsis.starts_with(&format!("indus-tool {sub} [")),
                "man -l {file} shows the SYNOPSIS as {synopsis:?}:\n{shown}"
            );
            assert!(
                shown.starts_with(&format!("indus-tool-{sub}(1)")),
                "man -l {file}: {shown}"
            );
        }
        checked += 1;
    }
    // Every page but indus-tool.1: one per tool and one per meta-command.
    assert_eq!(checked, subcommand_pages);
    assert!(checked > descriptors.len());
}

/// Whether `man` is installed; when it is not, say so loudly (or fail, in CI, where
/// `.ci/run` installs it).
fn have_man() -> bool {
    let runs = std::process::Command::new("man")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        assert!(
            std::env::var_os("CI").is_none_or(|v| v.is_empty()),
            "man is not installed, but CI must render the man pages: .ci/run installs man-db"
        );
        common::skipped(
            "man is not installed: the pages' roff was checked, their rendering was not (apt-get install man-db)",
        );
    }
    runs
}

/// `man -l PAGE` as plain ASCII text, wide enough that no line wraps.
fn render(page: &Path) -> String {
    let out = std::process::Command::new("man")
        .arg("-l")
        .arg(page)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("LANG", "C")
        .env("MANWIDTH", "1000")
        .env("MAN_DISABLE_SECCOMP", "1")
        .output()
        .expect("run man");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && !text.is_empty(),
        "man -l {} failed ({:?}): {}",
        page.display(),
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// `man --install PREFIX` puts every page where `man` looks: `man indus-tool` and
/// `man indus-tool-grep` find them with PREFIX's man folder on MANPATH (as
/// ~/.local/share/man is by default beside ~/.local/bin on PATH).
#[test]
fn installed_man_pages_are_found_by_man() {
    let prefix = tempfile::tempdir().unwrap();
    let out = common::bin_std()
        .args(["man", "--install"])
        .arg(prefix.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", common::stderr(&out));
    let folder = prefix.path().join("share/man/man1");
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        listed.contains(&folder.join("indus-tool.1").display().to_string()),
        "{listed}"
    );
    assert!(folder.join("indus-tool-grep.1").is_file());
    if !have_man() {
        return;
    }
    for page in ["indus-tool", "indus-tool-grep"] {
        let found = std::process::Command::new("man")
            .args(["-w", page])
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("MANPATH", prefix.path().join("share/man"))
            .env("MAN_DISABLE_SECCOMP", "1")
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&found.stdout).trim(),
            folder.join(format!("{page}.1")).display().to_string(),
            "{}",
            String::from_utf8_lossy(&found.stderr)
        );
    }
}
