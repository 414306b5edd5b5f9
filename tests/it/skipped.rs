//! A check that could not run says so where a person running a plain `cargo test`
//! sees it: libtest captures `eprintln!` in passing tests, so `common::skipped`
//! writes past the capture. Checked by running this test binary on its own probe
//! (`skipped::probe`, the one test of that exact name), with libtest capturing as it
//! does by default.

use crate::common;

use std::process::Command;

/// The probe: a passing test that skips something when asked to.
#[test]
fn probe() {
    if std::env::var_os("INDUS_SKIP_PROBE").is_some() {
        common::skipped("the probe's facility is missing");
        eprintln!("a captured line");
    }
}

#[test]
fn a_skipped_check_is_visible_in_a_plain_cargo_test() {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["skipped::probe", "--exact", "--test-threads", "1"])
        .env("INDUS_SKIP_PROBE", "1")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stderr.contains("SKIPPED: the probe's facility is missing"),
        "{stdout}{stderr}"
    );
    // The premise: what eprintln! says in a passing test is not shown.
    assert!(!format!("{stdout}{stderr}").contains("a captured line"));
}
