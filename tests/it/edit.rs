//! `edit` through the real binary: matching, refusals with their exact wording,
//! encodings and line endings, the stale-write guard, the gate, and the diff block.

use crate::common;

use std::os::unix::fs::PermissionsExt;

use common::{TestEnv, code, stderr, stdout};
use serde_json::{Value, json};

fn edit(
    env: &TestEnv,
    path: &str,
    old: &str,
    new: &str,
    extra: &[&str],
) -> (Value, std::process::Output) {
    let mut args = vec!["edit", path, "--old-text", old, "--new-text", new];
    args.extend_from_slice(extra);
    env.run_json(&args)
}

#[test]
fn a_unique_exact_edit_returns_summary_and_diff_block() {
    let env = TestEnv::new();
    env.write("f.txt", "one\ntwo\nthree\n");
    let (v, out) = edit(&env, "f.txt", "two", "TWO", &[]);
    assert_eq!(code(&out), 0, "{v}");
    // Programs get the record.
    assert_eq!(
        v["output"],
        json!({
            "path": "f.txt",
            "replacements": 1,
            "match": "exact",
            "diff": "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
        })
    );
    // People get the summary and the diff as a diff.
    env.write("f.txt", "one\ntwo\nthree\n");
    let out = env.run(&["edit", "f.txt", "--old-text", "two", "--new-text", "TWO"]);
    assert_eq!(
        stdout(&out),
        "Edited f.txt: 1 replacement.\n\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
    );
    assert_eq!(env.read_string("f.txt"), "one\nTWO\nthree\n");
}

#[test]
fn the_diff_block_applies_with_git_apply() {
    let env = TestEnv::new();
    let before = "fn main() {\n    println!(\"hi\");\n}\n";
    env.write("src/main.rs", before);
    let (v, _) = edit(
        &env,
        "src/main.rs",
        "println!(\"hi\")",
        "println!(\"hello\")",
        &[],
    );
    let diff = v["output"]["diff"].as_str().unwrap().to_string();
    env.write("src/main.rs", before);
    env.write("change.diff", &diff);
    let git = std::process::Command::new("git")
        .current_dir(env.root())
        .args(["apply", "change.diff"])
        .output();
    if let Ok(out) = git {
        assert!(
            out.status.success(),
            "git apply: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            env.read_string("src/main.rs"),
            "fn main() {\n    println!(\"hello\");\n}\n"
        );
    }
}

#[test]
fn replace_all_and_the_found_many_refusal() {
    let env = TestEnv::new();
    env.write("f.txt", "x = 1\ny = 2\nx = 1\n\nx = 1\n");
    let (v, out) = edit(&env, "f.txt", "x = 1", "x = 9", &[]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        v["output"],
        json!(
            "oldText was found 3 times in f.txt (lines 1, 3, 5); add surrounding context to make it unique, or set replaceAll to replace every occurrence."
        )
    );
    let out = env.run(&[
        "edit",
        "f.txt",
        "--old-text",
        "x = 1",
        "--new-text",
        "x = 9",
        "--replace-all",
    ]);
    assert!(stdout(&out).starts_with("Edited f.txt: 3 replacements.\n\n--- a/f.txt"));
    assert_eq!(env.read_string("f.txt"), "x = 9\ny = 2\nx = 9\n\nx = 9\n");
}

#[test]
fn refusals_say_why() {
    let env = TestEnv::new();
    env.write("f.txt", "alpha\nbeta gamma\ndelta\n");
    let cases: Vec<(&str, &str, String)> = vec![
        ("", "x", "oldText must not be empty.".into()),
        ("beta", "beta", "oldText and newText are identical; there is nothing to change.".into()),
        (
            "epsilon",
            "beta gamma",
            "The edit appears to be already applied: newText is present in f.txt and oldText is not.".into(),
        ),
        (
            "beta gamma!",
            "z",
            "oldText was not found in f.txt. The closest match is at line 2:\nbeta gamma".into(),
        ),
    ];
    for (old, new, want) in cases {
        let (v, out) = edit(&env, "f.txt", old, new, &[]);
        assert_eq!(code(&out), 1, "{old:?}");
        assert_eq!(v["output"], json!(want), "{old:?}");
    }
    assert_eq!(
        env.read_string("f.txt"),
        "alpha\nbeta gamma\ndelta\n",
        "nothing was written"
    );
    let (v, _) = env.run_json(&["edit", "missing.txt", "--old-text", "a", "--new-text", "b"]);
    assert!(
        v["output"]
            .as_str()
            .unwrap()
            .starts_with("Cannot edit missing.txt: ENOENT")
    );
    let (v, _) = env.run_json(&["edit", "f.txt", "--new-text", "b"]);
    assert_eq!(
        v["output"],
        json!("Missing \"oldText\": expected the text to replace.")
    );
    env.mkdir("d");
    let (v, _) = edit(&env, "d", "a", "b", &[]);
    assert_eq!(v["output"], json!("d is a directory; edit needs a file."));
}

/// Runs one edit and returns the JSON block's `match`, the text summary and the
/// file afterwards.
/// The edit runs twice from the same file: once in JSON mode for the record, once
/// in text mode for the summary (its first line); both must write the same file.
fn staged(env: &TestEnv, path: &str, old: &str, new: &str) -> (String, String, String) {
    let before = env.read(path);
    let (v, out) = edit(env, path, old, new, &[]);
    assert_eq!(code(&out), 0, "{v}");
    let after = env.read_string(path);
    env.write(path, &before);
    let out = env.run(&["edit", path, "--old-text", old, "--new-text", new]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        env.read_string(path),
        after,
        "text and JSON mode wrote different files"
    );
    let text = stdout(&out);
    (
        v["output"]["match"].as_str().unwrap().to_string(),
        text.lines().next().unwrap_or("").to_string(),
        after,
    )
}

#[test]
fn an_exact_match_is_named_exact() {
    let env = TestEnv::new();
    env.write("f.txt", "a\nb\n");
    let (stage, text, after) = staged(&env, "f.txt", "b", "B");
    assert_eq!(
        (stage.as_str(), text.as_str()),
        ("exact", "Edited f.txt: 1 replacement.")
    );
    assert_eq!(after, "a\nB\n");
}

#[test]
fn stage_line_trimmed() {
    let env = TestEnv::new();
    env.write("f.md", "# Title  \nline one\t\nline two\n");
    let (stage, text, after) = staged(&env, "f.md", "# Title\nline one\n", "# Title\nline 1\n");
    assert_eq!(stage, "line-trimmed");
    assert_eq!(
        text,
        "Edited f.md: 1 replacement. oldText matched whole lines with trailing whitespace ignored (match: line-trimmed)."
    );
    // The copied heading keeps its trailing spaces (a Markdown line break).
    assert_eq!(after, "# Title  \nline 1\nline two\n");
}

#[test]
fn stage_indent_shifted_tabs_for_spaces() {
    let env = TestEnv::new();
    env.write("m.go", "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n");
    let (stage, text, after) = staged(
        &env,
        "m.go",
        "    if x {\n        return 1\n    }\n",
        "    if x {\n        log()\n        return 2\n    }\n",
    );
    assert_eq!(stage, "indent-shifted");
    assert!(
        text.ends_with("newText was re-indented to the file's."),
        "{text}"
    );
    assert_eq!(
        after,
        "func f() {\n\tif x {\n\t\tlog()\n\t\treturn 2\n\t}\n}\n"
    );
}

#[test]
fn stage_first_line_indent() {
    let env = TestEnv::new();
    env.write("r.rs", "fn main() {\n\tlet v = vec![\n\t\t1,\n\t];\n}\n");
    // Selected from the first line's text on, and pasted with spaces for tabs.
    let (stage, _, after) = staged(
        &env,
        "r.rs",
        "let v = vec![\n        1,\n    ];\n",
        "let v = vec![\n        1,\n        2,\n    ];\n",
    );
    assert_eq!(stage, "first-line-indent");
    assert_eq!(
        after,
        "fn main() {\n\tlet v = vec![\n\t\t1,\n\t\t2,\n\t];\n}\n"
    );
    // Copied exactly from the first line's text on, it is an exact match.
    env.write("s.rs", "fn main() {\n    let v = 1;\n    go(v);\n}\n");
    let (stage, _, after) = staged(
        &env,
        "s.rs",
        "let v = 1;\n    go(v);\n",
        "let v = 2;\n    go(v);\n",
    );
    assert_eq!(stage, "exact");
    assert_eq!(after, "fn main() {\n    let v = 2;\n    go(v);\n}\n");
}

#[test]
fn stage_gutter_stripped_from_a_real_read() {
    let env = TestEnv::new();
    env.write("g.txt", "alpha\nbeta\ngamma\n");
    // Copy the lines as `read` shows them, gutter and all.
    let out = env
        .cmd()
        .args(["read", "g.txt", "--offset", "2", "--limit", "2"])
        .output()
        .unwrap();
    let shown = String::from_utf8(out.stdout).unwrap();
    let copied: String = shown
        .lines()
        .filter(|l| l.contains('\t'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(copied, "     2\tbeta\n     3\tgamma\n");
    let (stage, _, after) = staged(&env, "g.txt", &copied, &copied.replace("beta", "BETA"));
    assert_eq!(stage, "gutter-stripped");
    assert_eq!(after, "alpha\nBETA\ngamma\n");
}

#[test]
fn stage_typography() {
    let env = TestEnv::new();
    env.write(
        "t.txt",
        "He said \u{201C}stop\u{201D} \u{2014} twice.\nEnd.\n",
    );
    let (stage, _, after) = staged(
        &env,
        "t.txt",
        "He said \"stop\" - twice.\nEnd.\n",
        "He said \"stop\" - twice.\nThe end.\n",
    );
    assert_eq!(stage, "typography");
    // The copied line keeps the file's own quotes and dash.
    assert_eq!(
        after,
        "He said \u{201C}stop\u{201D} \u{2014} twice.\nThe end.\n"
    );
}

#[test]
fn an_ambiguous_fuzzy_match_is_refused_with_line_numbers() {
    let env = TestEnv::new();
    let before = "fn a() {\n    if ok {\n    }\n}\nfn b() {\n        if ok {\n        }\n}\n";
    env.write("a.rs", before);
    let (v, out) = edit(
        &env,
        "a.rs",
        "if ok {\n}\n",
        "if ok {\n    run();\n}\n",
        &[],
    );
    assert_eq!(code(&out), 1);
    assert_eq!(
        v["output"],
        json!(
            "oldText matched 2 places in a.rs as whole lines at another indentation (match: indent-shifted; lines 2, 6); add surrounding context to make it unique, or set replaceAll to replace every occurrence."
        )
    );
    assert_eq!(env.read_string("a.rs"), before);
    // Overlapping places are refused even with replaceAll.
    env.write("b.rs", "}\n}\n}\n");
    let (v, out) = edit(&env, "b.rs", "  }\n  }\n", "}\n", &["--replace-all"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        v["output"],
        json!(
            "oldText matched 2 overlapping places in b.rs as whole lines at another indentation (match: indent-shifted; lines 1, 2); add surrounding context to make it unique."
        )
    );
    assert_eq!(env.read_string("b.rs"), "}\n}\n}\n");
    // With replaceAll, separate places are each re-indented to their own depth.
    let (v, out) = edit(
        &env,
        "a.rs",
        "if ok {\n}\n",
        "if ok {\n    run();\n}\n",
        &["--replace-all"],
    );
    assert_eq!(code(&out), 0, "{v}");
    assert_eq!(
        env.read_string("a.rs"),
        "fn a() {\n    if ok {\n        run();\n    }\n}\nfn b() {\n        if ok {\n            run();\n        }\n}\n"
    );
}

#[test]
fn a_python_method_keeps_its_indentation_under_a_dedented_snippet() {
    let env = TestEnv::new();
    let before = "class Greeter:\n    def __init__(self, name):\n        self.name = name\n\n    def greet(self):\n        if self.name:\n            return f\"hi {self.name}\"\n        return \"hi\"\n\n\ndef main():\n    print(Greeter(\"x\").greet())\n";
    env.write("g.py", before);
    // The method as a model quotes it: dedented by one level, edited inside.
    let old = "def greet(self):\n    if self.name:\n        return f\"hi {self.name}\"\n    return \"hi\"\n";
    let new = "def greet(self, loud=False):\n    if self.name:\n        text = f\"hi {self.name}\"\n        return text.upper() if loud else text\n    return \"hi\"\n";
    let (stage, _, after) = staged(&env, "g.py", old, new);
    assert_eq!(stage, "indent-shifted");
    let want = "class Greeter:\n    def __init__(self, name):\n        self.name = name\n\n    def greet(self, loud=False):\n        if self.name:\n            text = f\"hi {self.name}\"\n            return text.upper() if loud else text\n        return \"hi\"\n\n\ndef main():\n    print(Greeter(\"x\").greet())\n";
    assert_eq!(after, want);
    // And Python agrees it still parses, when there is a Python to ask.
    match std::process::Command::new("python3")
        .args(["-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())"])
        .arg(env.path("g.py"))
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(_) => common::skipped("python3 is not on PATH: the parse check of g.py did not run"),
    }
}

#[test]
fn an_unplaceable_line_is_refused_and_the_file_untouched() {
    let env = TestEnv::new();
    env.write("u.txt", "a\nb\n");
    let (v, out) = edit(&env, "u.txt", "    a\n    b\n", "  x\n    b\n", &[]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        v["output"],
        json!(
            "oldText matched in u.txt as whole lines at another indentation (match: indent-shifted), but line 1 of newText is indented less than that match lets it be placed; give oldText and newText at the file's indentation."
        )
    );
    assert_eq!(env.read_string("u.txt"), "a\nb\n");
}

#[test]
fn fuzzy_stages_keep_crlf_and_bom() {
    let env = TestEnv::new();
    env.write("w.txt", b"\xEF\xBB\xBF{\r\n\tkey = 1\r\n}\r\n");
    let (stage, _, _) = staged(&env, "w.txt", "    key = 1\n}\n", "    key = 2\n}\n");
    assert_eq!(stage, "indent-shifted");
    assert_eq!(env.read("w.txt"), b"\xEF\xBB\xBF{\r\n\tkey = 2\r\n}\r\n");
}

#[test]
fn crlf_and_bom_survive() {
    let env = TestEnv::new();
    env.write("win.txt", b"\xEF\xBB\xBFfirst\r\nsecond\r\nthird\r\n");
    let (v, out) = edit(&env, "win.txt", "second\nthird", "2nd\n3rd", &[]);
    assert_eq!(code(&out), 0, "{v}");
    assert_eq!(env.read("win.txt"), b"\xEF\xBB\xBFfirst\r\n2nd\r\n3rd\r\n");
}

#[test]
fn invalid_utf8_is_refused_and_left_untouched() {
    let env = TestEnv::new();
    let bytes = b"caf\xe9 au lait\n".to_vec();
    env.write("latin1.txt", &bytes);
    let (v, out) = edit(&env, "latin1.txt", "au", "with", &[]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        v["output"],
        json!(
            "latin1.txt is not valid UTF-8 (first bad byte at offset 3); edit refuses to rewrite it. It looks like windows-1252; give --encoding windows-1252 (JSON \"encoding\": \"windows-1252\"), or --encoding auto."
        )
    );
    assert_eq!(env.read("latin1.txt"), bytes);
}

#[test]
fn expect_sha256_guards_against_stale_writes() {
    let env = TestEnv::new();
    env.write("f.txt", "abc");
    let right = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    let wrong = "0".repeat(64);
    let (v, out) = edit(&env, "f.txt", "b", "B", &["--expect-sha256", &wrong]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        v["output"],
        json!(format!(
            "f.txt has changed: its SHA-256 is {right}, not the expected {wrong}. Read it again before editing."
        ))
    );
    assert_eq!(env.read_string("f.txt"), "abc");
    let (_, out) = edit(
        &env,
        "f.txt",
        "b",
        "B",
        &["--expect-sha256", &right.to_uppercase()],
    );
    assert_eq!(code(&out), 0);
    assert_eq!(env.read_string("f.txt"), "aBc");
    let (v, _) = edit(&env, "f.txt", "a", "b", &["--expect-sha256", "xyz"]);
    assert_eq!(
        v["output"],
        json!(
            "Invalid \"expectSha256\": expected 64 hexadecimal characters, got the string \"xyz\"."
        )
    );
}

#[test]
fn edit_keeps_the_mode_and_writes_through_a_symlink() {
    let env = TestEnv::new();
    let real = env.write("real.sh", "echo a\n");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::symlink("real.sh", env.path("link.sh")).unwrap();
    let (_, out) = edit(&env, "link.sh", "echo a", "echo b", &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        std::fs::symlink_metadata(env.path("link.sh"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(env.read_string("real.sh"), "echo b\n");
    assert_eq!(
        std::fs::metadata(&real).unwrap().permissions().mode() & 0o7777,
        0o700
    );
}

#[test]
fn the_gate_guards_edit_across_invocations() {
    let env = TestEnv::new();
    env.write("f.txt", "v1\n");
    let (v, out) = env.run_json(&[
        "--gate",
        "edit",
        "f.txt",
        "--old-text",
        "v1",
        "--new-text",
        "v2",
    ]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        v["output"],
        json!("File has not been read yet. Read it first before writing to it.")
    );
    assert_eq!(code(&env.run(&["--gate", "read", "f.txt"])), 0);
    let (_, out) = env.run_json(&[
        "--gate",
        "edit",
        "f.txt",
        "--old-text",
        "v1",
        "--new-text",
        "v2",
    ]);
    assert_eq!(code(&out), 0);
    // The edit refreshed the read-state: a follow-up edit needs no new read.
    let (_, out) = env.run_json(&[
        "--gate",
        "edit",
        "f.txt",
        "--old-text",
        "v2",
        "--new-text",
        "v3",
    ]);
    assert_eq!(code(&out), 0);
    std::fs::write(env.path("f.txt"), "someone else\n").unwrap();
    let (v, _) = env.run_json(&[
        "--gate",
        "edit",
        "f.txt",
        "--old-text",
        "someone",
        "--new-text",
        "me",
    ]);
    assert_eq!(
        v["output"],
        json!(
            "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it."
        )
    );
}

#[test]
fn a_big_diff_is_clamped_to_16_kb() {
    let env = TestEnv::new();
    let text: String = (0..5000).map(|i| format!("line {i}\n")).collect();
    env.write("f.txt", &text);
    let (v, out) = edit(&env, "f.txt", "line", "LINE", &["--replace-all"]);
    assert_eq!(code(&out), 0);
    let diff = v["output"]["diff"].as_str().unwrap();
    assert!(diff.len() <= 16 * 1024 + 100, "{}", diff.len());
    assert!(
        diff.contains("\n[edit: "),
        "the clamp notice names the tool"
    );
    assert!(diff.starts_with("--- a/f.txt\n+++ b/f.txt\n"));
}

/// A file over the 128 MiB limit is refused without being read whole, and kept.
#[test]
fn a_file_over_the_size_limit_is_refused_untouched() {
    let env = TestEnv::new();
    let path = env.write("huge.txt", "needle\n");
    let file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.set_len(128 * 1024 * 1024 + 7).unwrap(); // sparse: no disk, all zeros
    let out = env.run(&[
        "edit",
        "huge.txt",
        "--old-text",
        "needle",
        "--new-text",
        "pin",
    ]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "huge.txt is 134217735 bytes; edit changes files of up to 134217728 bytes (128 MiB). Use bash (sed, a script) for larger files.\n"
    );
    assert_eq!(&std::fs::read(&path).unwrap()[..7], b"needle\n");
}

#[test]
fn several_edits_in_one_call_are_all_made_or_none() {
    let env = TestEnv::new();
    let before = "fn a() {\n    one();\n}\n\nfn b() {\n    two();\n}\n";
    env.write("f.rs", before);
    // Both matched against the original, one diff.
    let edits = json!([
        {"oldText": "one();", "newText": "uno();"},
        {"oldText": "fn b() {\n    two();", "newText": "fn b() {\n    dos();"}
    ]);
    let (v, out) = env.run_json(&["edit", "f.rs", "--edits", &edits.to_string()]);
    assert_eq!(code(&out), 0, "{v}");
    assert_eq!(
        env.read_string("f.rs"),
        "fn a() {\n    uno();\n}\n\nfn b() {\n    dos();\n}\n"
    );
    assert_eq!(v["output"]["replacements"], json!(2));
    assert_eq!(v["output"]["matches"], json!(["exact", "exact"]));
    assert!(
        v["output"]["diff"]
            .as_str()
            .unwrap()
            .contains("+    dos();")
    );
    // One edit that misses: nothing changes, and the answer names it.
    let now = env.read_string("f.rs");
    let edits = json!([
        {"oldText": "uno();", "newText": "one();"},
        {"oldText": "tres();", "newText": "three();"}
    ]);
    let (v, out) = env.run_json(&["edit", "f.rs", "--edits", &edits.to_string()]);
    assert_eq!(code(&out), 1);
    assert!(
        v["output"]
            .as_str()
            .unwrap()
            .starts_with("edits[1]: oldText was not found in f.rs."),
        "{v}"
    );
    assert_eq!(env.read_string("f.rs"), now);
    // Two edits of the same text: refused, nothing changes.
    let edits = json!([
        {"oldText": "uno();\n}", "newText": "x"},
        {"oldText": "}\n\nfn b", "newText": "y"}
    ]);
    let (v, out) = env.run_json(&["edit", "f.rs", "--edits", &edits.to_string()]);
    assert_eq!(code(&out), 1);
    assert!(
        v["output"]
            .as_str()
            .unwrap()
            .starts_with("edits[0] and edits[1] change the same text of f.rs (line 3)"),
        "{v}"
    );
    assert_eq!(env.read_string("f.rs"), now);
    // edits and oldText together, or an empty list: named.
    let (v, _) = env.run_json(&["edit", "f.rs", "--edits", "[]"]);
    assert!(v["output"].as_str().unwrap().contains("\"edits\""), "{v}");
    let (v, _) = env.run_json(&[
        "edit",
        "f.rs",
        "--old-text",
        "a",
        "--new-text",
        "b",
        "--edits",
        r#"[{"oldText":"a","newText":"b"}]"#,
    ]);
    assert_eq!(
        v["output"],
        json!("Give \"edits\" or \"oldText\"/\"newText\", not both.")
    );
}

#[test]
fn a_typo_in_old_text_gets_the_closest_region_not_already_applied() {
    let env = TestEnv::new();
    env.write(
        "f.rs",
        "fn main() {\n    let total = 1;\n    print(x);\n}\n",
    );
    // newText ("x") stands elsewhere in the file; oldText has a typo.
    let (v, out) = edit(&env, "f.rs", "let totl = 1;", "x", &[]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        v["output"],
        json!("oldText was not found in f.rs. The closest match is at line 2:\n    let total = 1;")
    );
    // newText where oldText would be: that edit was made already.
    let (v, _) = edit(&env, "f.rs", "let total = 2;", "let total = 1;", &[]);
    assert_eq!(
        v["output"],
        json!(
            "The edit appears to be already applied: newText is present in f.rs and oldText is not."
        )
    );
}

#[test]
fn newtext_at_the_files_indentation_is_never_indented_twice() {
    let env = TestEnv::new();
    let before = "mod t {\n    #[test]\n    fn min_depth() {\n        run();\n    }\n}\n";
    env.write("f.rs", before);
    // The first line's indentation cut from oldText; newText as the file has it.
    let (v, out) = edit(
        &env,
        "f.rs",
        "#[test]\n    fn min_depth() {",
        "    #[test]\n    fn max_depth() {",
        &[],
    );
    assert_eq!(code(&out), 0, "{v}");
    assert_eq!(
        env.read_string("f.rs"),
        "mod t {\n    #[test]\n    fn max_depth() {\n        run();\n    }\n}\n"
    );
    // oldText dedented whole; newText at the file's indentation.
    let (v, out) = edit(
        &env,
        "f.rs",
        "fn max_depth() {\n    run();\n}",
        "    fn max_depth() {\n        walk();\n    }",
        &[],
    );
    assert_eq!(code(&out), 0, "{v}");
    assert_eq!(v["output"]["match"], json!("indent-shifted"));
    assert_eq!(
        env.read_string("f.rs"),
        "mod t {\n    #[test]\n    fn max_depth() {\n        walk();\n    }\n}\n"
    );
}

/// A one-line file of 30 MB holding newText a million times, and an oldText
/// not in it: the refusal comes without scanning the line once per occurrence
/// (that took minutes). A hang check with a generous deadline, not a timing bar.
#[test]
fn a_huge_line_full_of_newtext_is_refused_without_hanging() {
    let env = TestEnv::new();
    env.write("one-line.txt", "y ".repeat(15 * 1024 * 1024));
    let mut child = common::bin_std()
        .current_dir(env.root())
        .args([
            "edit",
            "one-line.txt",
            "--old-text",
            "not there",
            "--new-text",
            "y",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let done = common::wait_until(std::time::Duration::from_secs(30), || {
        child.try_wait().unwrap().is_some()
    });
    if !done {
        let _ = child.kill();
    }
    assert!(done, "edit of a 30 MB line did not end within 30 s");
    assert_eq!(child.wait().unwrap().code(), Some(1));
}
