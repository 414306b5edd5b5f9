//! `outline`, `sgrep` and grep's `-U`/`--offset` (issue 58) against programs
//! nobody here wrote, in one run each:
//!
//! - `tests/peers/code_peers.py` compares outline with universal-ctags and
//!   sgrep (searches and rewrites) with the ast-grep CLI 0.51.1 on real code
//!   already on the machine in nine languages (all of it held out: the
//!   outline's tables were written against made-up snippets), and kills
//!   rewrites with SIGKILL at random moments;
//! - grep `-U` is compared with `rg -U` row for row, and `--offset` pages are
//!   concatenated and compared with the unpaged answer;
//! - the repository map, a bad pattern's answer and the overlap refusal.
//!
//! `.ci/run` installs ctags, Ruby and the ast-grep CLI; without them the peer
//! test says SKIPPED, and fails under `CI=true`.

use crate::common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

fn have(program: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let out = common::bin_std()
        .args(args)
        .current_dir(dir)
        .env_remove("INDUS_EXACT")
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

fn json(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--format", "json", "--max-bytes", "100000000"];
    all.extend_from_slice(args);
    let (out, _, _) = run(dir, &all);
    serde_json::from_str(out.trim().lines().last().unwrap_or("{}")).unwrap()
}

#[test]
fn outline_and_sgrep_agree_with_ctags_and_ast_grep_on_real_code() {
    let sg = common::mcp_peers_dir().join("venv/bin/ast-grep");
    if !sg.exists() || !have("ctags") {
        common::missing(
            "ctags and the ast-grep CLI (target/mcp-peers/venv) are needed",
            "outline/sgrep peers: ctags or ast-grep is not installed (.ci/run installs them)",
        );
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let out = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/code_peers.py"))
        .arg(assert_cmd::cargo::cargo_bin("indus-tool"))
        .arg(&sg)
        .arg(work.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "code_peers.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    eprintln!("{report:#}");
    // outline: the share of ctags's definitions outline also lists (tags
    // ctags makes up for anonymous structs and functions, and the object
    // literals it calls JavaScript classes, are not definitions and are left
    // out). Every language is held to the issue's 95 %; C++ also on LLVM's
    // headers, a corpus nobody read the misses of (libstdc++'s own bits/,
    // whose macros no grammar expands, is reported without a bar; see
    // docs/code-search.md).
    let bars = [
        ("rust", 0.95),
        ("python", 0.95),
        ("go", 0.95),
        ("java", 0.95),
        ("ruby", 0.95),
        ("c", 0.95),
        ("typescript", 0.95),
        ("javascript", 0.95),
        ("cpp", 0.95),
    ];
    for (lang, bar) in bars {
        let o = &report["outline"][lang];
        assert!(
            o["ctags"].as_u64().unwrap_or(0) > 50,
            "{lang}: too few ctags rows: {o}"
        );
        let share = o["share"].as_f64().unwrap();
        assert!(
            share >= bar,
            "{lang}: outline lists {share} of ctags's definitions (bar {bar})"
        );
        // sgrep: every pattern but ones ast-grep itself refuses gives the same set.
        let s = &report["sgrep"][lang];
        let same = s["same"].as_u64().unwrap();
        let refused_by_both = s["differ"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["ours"].is_null() && d["theirs"].is_null())
            .count() as u64;
        assert!(same >= 20, "{lang}: only {same} patterns agree: {s}");
        assert_eq!(
            same + refused_by_both,
            s["patterns"].as_u64().unwrap(),
            "{lang}: patterns disagree with ast-grep: {s}"
        );
    }
    let held = &report["outline"]["cpp-llvm"];
    if held.is_null() {
        common::missing(
            "LLVM's headers are not installed (.ci/run installs llvm-dev)",
            "outline on LLVM's headers: no /usr/include/llvm-*",
        );
    } else {
        let share = held["share"].as_f64().unwrap();
        assert!(held["ctags"].as_u64().unwrap_or(0) > 1000, "{held}");
        assert!(
            share >= 0.95,
            "C++ held out (LLVM): {share} of ctags's definitions"
        );
    }
    for r in report["rewrites"].as_array().unwrap() {
        // A rewrite with nested matches is refused (by design, unlike ast-grep).
        if r["error"].as_str().is_some_and(|e| e.contains("overlap")) {
            continue;
        }
        assert_eq!(r["same"], true, "rewrite differs from ast-grep's: {r}");
    }
    // grep -U against rg -U on the same real corpora, row for row and count
    // for count.
    let m = &report["multiline"];
    assert!(m["patterns"].as_u64().unwrap() >= 9, "{m}");
    assert_eq!(m["same"], m["patterns"], "grep -U differs from rg -U: {m}");
    let kill = &report["kill"];
    assert_eq!(
        kill["mixed"], 0,
        "a killed rewrite left a mixed tree: {kill}"
    );
}

/// A tree where rg -U and grep -U have something to disagree about.
fn multiline_tree(dir: &Path) {
    std::fs::create_dir_all(dir.join("src/sub")).unwrap();
    std::fs::write(
        dir.join("src/a.rs"),
        "fn a(\n    x: u32,\n    y: u32,\n) -> u32 {\n    x + y\n}\nfn b() {}\nfn c(z: u8) {\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/sub/b.py"),
        "def f(a,\n      b):\n    return (a +\n            b)\n\ndef g(): pass\n",
    )
    .unwrap();
    std::fs::write(dir.join("notes.txt"), "one (\ntwo\n) three ( four )\n").unwrap();
}

#[test]
fn grep_multiline_matches_rg_row_for_row() {
    if !have("rg") {
        common::missing("rg is needed", "grep -U: rg is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    multiline_tree(dir.path());
    for pattern in [
        r"\([^)]*\)",
        r"fn \w+\([^)]*\)",
        r"\+\s*\n\s*\w",
        r"a,\n",
        r"\(\n",
    ] {
        let rg = Command::new("rg")
            .args([
                "-U",
                "-n",
                "--no-heading",
                "--sort",
                "path",
                "--with-filename",
                pattern,
                ".",
            ])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let theirs: Vec<String> = String::from_utf8_lossy(&rg.stdout)
            .lines()
            .map(|l| l.trim_start_matches("./").to_string())
            .collect();
        let (ours, _, _) = run(dir.path(), &["grep", "-U", pattern, "."]);
        let ours: Vec<String> = ours
            .lines()
            .map(|l| {
                // `PATH:N: TEXT` → rg's `PATH:N:TEXT`.
                let l = l.trim_start_matches("./");
                let mut parts = l.splitn(3, ':');
                let (p, n, t) = (
                    parts.next().unwrap(),
                    parts.next().unwrap(),
                    parts.next().unwrap(),
                );
                format!("{p}:{n}:{}", t.strip_prefix(' ').unwrap_or(t))
            })
            .collect();
        assert_eq!(ours, theirs, "pattern {pattern}");
        // -c counts a multiline match once, as rg -U -c.
        let rgc = Command::new("rg")
            .args([
                "-U",
                "-c",
                "--sort",
                "path",
                "--with-filename",
                pattern,
                ".",
            ])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let (oc, _, _) = run(dir.path(), &["grep", "-U", "-c", pattern, "."]);
        let norm = |s: &str| {
            s.lines()
                .map(|l| l.trim_start_matches("./").to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            norm(&oc),
            norm(&String::from_utf8_lossy(&rgc.stdout)),
            "-c {pattern}"
        );
    }
}

#[test]
fn offset_pages_concatenate_to_the_unpaged_answer() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..7 {
        let body: String = (0..(i * 3 + 2))
            .map(|j| format!("hit {i} {j}\nplain\n"))
            .collect();
        std::fs::write(dir.path().join(format!("f{i}.txt")), body).unwrap();
    }
    for (mode, extra) in [
        ("content", vec![]),
        ("content", vec!["-C", "1"]),
        ("files", vec!["-l"]),
        ("count", vec!["-c"]),
    ] {
        let mut whole_args = vec!["grep", "hit", ".", "--limit", "5000"];
        whole_args.extend(&extra);
        let whole = json(dir.path(), &whole_args);
        let total: Vec<Value> = whole["output"]["rows"].as_array().unwrap().clone();
        let mut paged: Vec<Value> = Vec::new();
        let mut offset = 0u64;
        let mut pages = 0;
        loop {
            let o = offset.to_string();
            let mut args = vec!["grep", "hit", ".", "--limit", "4", "--offset", &o];
            args.extend(&extra);
            let page = json(dir.path(), &args);
            let rec = &page["output"];
            paged.extend(rec["rows"].as_array().unwrap().iter().cloned());
            pages += 1;
            match rec["nextOffset"].as_u64() {
                Some(next) => {
                    assert!(next > offset, "{mode}: the offset must move on");
                    offset = next;
                }
                None => break,
            }
            assert!(pages < 100);
        }
        if extra.contains(&"-C") {
            // Context rows of adjacent pages may repeat; the matches may not.
            let m = |rows: &[Value]| {
                rows.iter()
                    .filter(|r| r["kind"] == "match")
                    .cloned()
                    .collect::<Vec<_>>()
            };
            assert_eq!(m(&paged), m(&total), "{mode} with context");
        } else {
            assert_eq!(paged, total, "{mode}");
        }
    }
    // Past the end: said so, not "no match".
    let (out, err, code) = run(
        dir.path(),
        &["grep", "hit", ".", "--offset", "100000", "--stats"],
    );
    assert_eq!(out, "");
    assert!(err.contains("No matches past --offset 100000"), "{err}");
    assert!(err.contains("there are 77"), "{err}");
    // There are matches, only none on this page: nothing was selected, so
    // exit 1, as `rg -m 0` and `grep -m 0` do; a `while` loop paging on the
    // status ends here.
    assert_eq!(code, 1);
    let (_, _, code) = run(dir.path(), &["grep", "hit", ".", "--offset", "76"]);
    assert_eq!(code, 0, "the last match's own page");
}

#[test]
fn the_map_ranks_what_the_tree_refers_to_and_says_what_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(
        p.join("core.py"),
        "def load_settings(path):\n    return {}\n\ndef never_called_helper():\n    pass\n",
    )
    .unwrap();
    for i in 0..12 {
        std::fs::write(
            p.join(format!("user{i}.py")),
            format!(
                "from core import load_settings\n\ndef run_{i}():\n    return load_settings('x')\n"
            ),
        )
        .unwrap();
    }
    std::fs::write(p.join("README.md"), "# not code\n").unwrap();
    let rec = json(p, &["outline", "--map", "--budget", "256", "."]);
    let out = &rec["output"];
    assert_eq!(out["rows"][0]["name"], "load_settings", "{out}");
    assert_eq!(out["rows"][0]["rank"], 1);
    assert!(out["omitted"].as_u64().unwrap() > 0);
    assert_eq!(out["skipped"]["noGrammar"], 1);
    let (text, err, code) = run(p, &["outline", "--map", "--budget", "256", "."]);
    assert_eq!(code, 0);
    assert!(
        text.starts_with("./core.py:1: function load_settings(path)"),
        "{text}"
    );
    assert!(
        err.contains("left out") && err.contains("raise --budget"),
        "{err}"
    );
    assert!(err.contains("1 file with no grammar here"), "{err}");
}

#[test]
fn a_bad_pattern_answers_with_its_tree_and_overlaps_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("a.py"), "f(f(1))\nx = 2\n").unwrap();
    let (_, err, code) = run(p, &["sgrep", "def (", ".", "--lang", "python"]);
    assert_eq!(code, 2);
    assert!(err.contains("does not parse cleanly as python"), "{err}");
    assert!(err.contains("token \"def\""), "{err}");
    assert!(
        err.contains("ERROR") && err.contains("not valid here"),
        "{err}"
    );
    // A pattern that parses cleanly as another node than meant matches
    // nothing; with the language named, the answer shows what it parsed as.
    std::fs::write(
        p.join("m.go"),
        "package m\n\nfunc f() { fmt.Println(1, 2) }\n",
    )
    .unwrap();
    let (out, err, code) = run(p, &["sgrep", "fmt.Println($$$)", "m.go", "--lang", "go"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        format!("{out}{err}").contains("type_conversion_expression"),
        "{out}{err}"
    );
    // A lone $$$ is named as typed, not in the grammar's own metavariable
    // character (Python's is `µ`).
    let (_, err, code) = run(p, &["sgrep", "$$$", ".", "--lang", "python"]);
    assert_eq!(code, 2);
    assert!(err.contains("($$$ alone matches nothing"), "{err}");
    assert!(!err.contains('µ'), "{err}");
    // Nested matches: a rewrite would have to pick one; refused, nothing written.
    let (_, err, code) = run(
        p,
        &[
            "sgrep",
            "f($A)",
            ".",
            "--lang",
            "python",
            "--rewrite",
            "g($A)",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("overlap"), "{err}");
    assert_eq!(
        std::fs::read_to_string(p.join("a.py")).unwrap(),
        "f(f(1))\nx = 2\n"
    );
    // A rewrite's check shows the diff and writes nothing; then it writes.
    let (out, _, code) = run(
        p,
        &[
            "sgrep",
            "x = $V",
            ".",
            "--lang",
            "python",
            "--rewrite",
            "y = $V",
            "--check",
        ],
    );
    assert_eq!(code, 0);
    assert!(out.contains("-x = 2\n+y = 2"), "{out}");
    assert_eq!(
        std::fs::read_to_string(p.join("a.py")).unwrap(),
        "f(f(1))\nx = 2\n"
    );
    run(
        p,
        &[
            "sgrep",
            "x = $V",
            ".",
            "--lang",
            "python",
            "--rewrite",
            "y = $V",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(p.join("a.py")).unwrap(),
        "f(f(1))\ny = 2\n"
    );
    // Unknown language: refused naming the field.
    let (_, err, code) = run(p, &["sgrep", "x", ".", "--lang", "cobol"]);
    assert_eq!(code, 2);
    assert!(err.contains("lang"), "{err}");
}

/// Golden outlines, one real-shaped file per language (nesting, signatures
/// laid out over several lines, generics, receivers, qualifiers, decorators):
/// `tests/fixtures/outline/NAME` against `NAME.outline`. `INDUS_REGEN=1`
/// rewrites the expected files, to be read in review.
#[test]
fn outlines_match_their_golden_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/outline");
    let regen = std::env::var_os("INDUS_REGEN").is_some();
    let mut seen = 0;
    let mut sources: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| !n.ends_with(".outline"))
        .collect();
    sources.sort();
    for name in sources {
        let (out, err, code) = run(&dir, &["outline", &name]);
        assert_eq!(code, 0, "{name}: {err}");
        let golden = dir.join(format!("{name}.outline"));
        if regen {
            std::fs::write(&golden, &out).unwrap();
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_default();
        assert_eq!(
            out,
            want,
            "{name}: the outline differs from {}",
            golden.display()
        );
        seen += 1;
    }
    // One per language family, and router.js for CommonJS's definitions
    // by assignment.
    assert_eq!(seen, 9, "one fixture per language family, and router.js");
}
