//! The search family (grep, find) through the real binary, on generated trees.

use crate::common;

use common::{TestEnv, code, stderr, stdout};
use serde_json::json;

/// Run and demand an answer: exit 0 when something was found; when nothing was,
/// grep 1 (rg's convention) and find 0 (fd's); the text output without its final
/// newline.
fn ok(env: &TestEnv, args: &[&str]) -> String {
    let out = env.run(args);
    let none = stdout(&out).contains("No matches for ") && args.contains(&"grep");
    assert_eq!(
        code(&out),
        if none { 1 } else { 0 },
        "{args:?} failed: stdout {:?} stderr {:?}",
        stdout(&out),
        stderr(&out)
    );
    let text = stdout(&out);
    text.strip_suffix('\n').unwrap_or(&text).to_string()
}

/// Run and demand a tool error (exit 2 for grep and find, as rg's and fd's
/// trouble); the message without its final newline.
fn fails(env: &TestEnv, args: &[&str]) -> String {
    let out = env.run(args);
    assert_eq!(code(&out), 2, "{args:?} should fail: {:?}", stdout(&out));
    assert_eq!(stdout(&out), "");
    stderr(&out).trim_end_matches('\n').to_string()
}

/// The hit rows of a grep/find output (everything before the blank line).
fn rows(text: &str) -> Vec<&str> {
    match text.rsplit_once("\n\n") {
        Some((body, _)) => body.lines().collect(),
        None => Vec::new(),
    }
}

/// The summary line (the last line).
fn summary(text: &str) -> &str {
    text.rsplit('\n').next().unwrap()
}

/// Names in an order that is neither byte order nor case-insensitive order.
const SCRAMBLED: [&str; 10] = [
    "b.txt",
    "a/z.txt",
    "A.txt",
    "a-b.txt",
    "B/x.txt",
    "a.txt",
    "a/B.txt",
    "a/b/c.txt",
    "_.txt",
    ".hidden.txt",
];

fn scrambled_tree() -> TestEnv {
    let env = TestEnv::new();
    for name in SCRAMBLED {
        env.write(name, "one\nhit here\n");
    }
    env
}

/// Byte-wise, component by component (a directory's contents stay together).
const SORTED: [&str; 10] = [
    ".hidden.txt",
    "A.txt",
    "B/x.txt",
    "_.txt",
    "a/B.txt",
    "a/b/c.txt",
    "a/z.txt",
    "a-b.txt",
    "a.txt",
    "b.txt",
];

#[test]
fn grep_rows_are_in_path_order_with_an_exact_summary() {
    let env = scrambled_tree();
    let text = ok(&env, &["grep", "hit"]);
    let want: Vec<String> = SORTED.iter().map(|p| format!("{p}:2: hit here")).collect();
    assert_eq!(rows(&text), want);
    assert_eq!(
        summary(&text),
        "Found 10 matches in 10 files (searched 10 files)."
    );
    // The same input gives the same bytes, run after run.
    for _ in 0..3 {
        assert_eq!(ok(&env, &["grep", "hit"]), text);
    }
}

#[test]
fn grep_order_is_stable_on_a_wide_tree() {
    let env = TestEnv::new();
    // Enough files and directories that several walker threads share the work.
    for i in (0..400).rev() {
        env.write(&format!("d{}/f{i:03}.txt", i % 7), format!("x\nhit {i}\n"));
    }
    let first = ok(&env, &["grep", "hit", "--limit", "5000"]);
    let listed = rows(&first);
    assert_eq!(listed.len(), 400);
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(listed, sorted, "plain byte order equals path order here");
    for _ in 0..4 {
        assert_eq!(ok(&env, &["grep", "hit", "--limit", "5000"]), first);
    }
}

#[test]
fn limit_keeps_the_first_hits_in_order_and_says_it_cut() {
    let env = TestEnv::new();
    env.write("c.txt", "hit c1\nhit c2\n");
    env.write("a.txt", "hit a1\nmiss\nhit a2\n");
    env.write("b.txt", "hit b1\nhit b2\n");
    let text = ok(&env, &["grep", "hit", "--limit", "3"]);
    assert_eq!(
        rows(&text),
        ["a.txt:1: hit a1", "a.txt:3: hit a2", "b.txt:1: hit b1"]
    );
    assert_eq!(
        summary(&text),
        "Showing the first 3 of 6 matches in 3 files (searched 3 files); raise limit to see more, or page on with offset=3."
    );
    let text = ok(&env, &["grep", "hit", "--limit", "6"]);
    assert_eq!(rows(&text).len(), 6);
    assert_eq!(
        summary(&text),
        "Found 6 matches in 3 files (searched 3 files)."
    );
}

#[test]
fn grep_defaults_to_200_and_refuses_a_limit_over_5000() {
    let env = TestEnv::new();
    let body: String = (1..=5003).map(|i| format!("hit {i}\n")).collect();
    env.write("many.txt", body);
    let text = ok(&env, &["--max-bytes", "10000000", "grep", "hit"]);
    assert_eq!(rows(&text).len(), 200);
    assert!(summary(&text).starts_with("Showing the first 200 of 5003 matches"));
    // An agent's face names the ceiling rather than quietly lowering to it.
    assert_eq!(
        fails(&env, &["grep", "hit", "--limit", "999999"]),
        "Invalid \"limit\": expected a positive integer of at most 5000, got the number 999999."
    );
    let text = ok(
        &env,
        &["--max-bytes", "10000000", "grep", "hit", "--limit", "5000"],
    );
    assert_eq!(rows(&text).len(), 5000);
    assert_eq!(rows(&text)[4999], "many.txt:5000: hit 5000");
    assert_eq!(
        summary(&text),
        "Showing the first 5000 of 5003 matches in 1 file (searched 1 file); narrow the search to see the rest (5000 is the most one call shows), or page on with offset=5000."
    );
}

#[test]
fn bad_fields_are_refused_by_name() {
    let env = scrambled_tree();
    assert_eq!(
        fails(&env, &["grep", "hit", "--limit", "0"]),
        "Invalid \"limit\": expected a positive integer of at most 5000, got the number 0."
    );
    assert_eq!(
        fails(&env, &["grep", "hit", "--context=-1"]),
        "Invalid \"context\": expected a non-negative integer, got the number -1."
    );
    assert_eq!(
        fails(&env, &["grep", "hit", "--flags", "gix"]),
        "Invalid \"flags\": expected only the letters g, i, m, s, u, y, got the string \"gix\"."
    );
    assert_eq!(
        fails(&env, &["grep", "--json", r#"{"flags": true}"#, "hit"]),
        "Invalid \"flags\": expected a string of the letters g, i, m, s, u, y, got true."
    );
    assert_eq!(
        fails(&env, &["grep", "--json", "{}"]),
        "Missing \"pattern\": expected a non-empty string."
    );
    let msg = fails(&env, &["grep", "hit", "--glob", "[oops"]);
    assert!(
        msg.starts_with("Invalid \"glob\": expected a file-name glob"),
        "{msg}"
    );
    assert_eq!(
        fails(
            &env,
            &["find", "--json", r#"{"pattern":"x","type":"link"}"#]
        ),
        "Invalid \"type\": expected one of \"file\", \"dir\", \"symlink\", \"executable\" (or fd's f, d, l, x), got the string \"link\"."
    );
    // The flag checks its value before the tool does: a usage error naming fd's letters.
    let out = env.run(&["find", "x", "--type", "link"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("[possible values: f, d, l, x]"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        fails(&env, &["find", "x", "--limit", "0"]),
        "Invalid \"limit\": expected a positive integer of at most 10000, got the number 0."
    );
    assert_eq!(
        fails(&env, &["grep", "hit", "--max-file-size", "0"]),
        "Invalid \"maxFileSize\": expected a positive integer, got the number 0."
    );
    assert_eq!(
        fails(&env, &["grep", "hit", "--max-file-size", "1.5"]),
        "Invalid \"maxFileSize\": expected a positive integer, got the number 1.5."
    );
    assert_eq!(
        fails(&env, &["grep", "--json", r#"{"maxFileSize": "2M"}"#, "hit"]),
        "Invalid \"maxFileSize\": expected a positive integer, got the string \"2M\"."
    );
    for tool in ["grep", "find"] {
        assert_eq!(
            fails(&env, &[tool, "--json", r#"{"skipHidden": "yes"}"#, "hit"]),
            "Invalid \"skipHidden\": expected true or false, got the string \"yes\"."
        );
    }
    assert_eq!(
        fails(&env, &["find", "*["]),
        "Invalid \"pattern\": expected a valid glob such as \"*.rs\" or \"src/**/*.rs\" (unclosed character class; missing ']'), got the string \"*[\"."
    );
    assert_eq!(
        fails(&env, &["find", "*.{rs,py"]),
        "Invalid \"pattern\": expected a valid glob such as \"*.rs\" or \"src/**/*.rs\" (unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)), got the string \"*.{rs,py\"."
    );
}

#[test]
fn lookaround_and_backreferences_do_not_compile() {
    let env = scrambled_tree();
    for pattern in ["(?=hit)", "(h)\\1", "hit("] {
        let msg = fails(&env, &["grep", pattern]);
        assert!(
            msg.starts_with("Could not compile the search pattern: "),
            "{pattern}: {msg}"
        );
    }
}

#[test]
fn flags_ignore_case_and_literal() {
    let env = TestEnv::new();
    env.write("f.txt", "Hello World\nhello there\na.b(c\naxb(c\n");
    assert_eq!(
        rows(&ok(&env, &["grep", "hello"])),
        ["f.txt:2: hello there"]
    );
    let both = ["f.txt:1: Hello World", "f.txt:2: hello there"];
    assert_eq!(rows(&ok(&env, &["grep", "hello", "--flags", "i"])), both);
    assert_eq!(rows(&ok(&env, &["grep", "hello", "--ignore-case"])), both);
    assert_eq!(
        rows(&ok(&env, &["grep", "HELLO", "--flags", "gimsuy"])),
        both
    );
    // g, u and y change nothing; m keeps ^ and $ at line boundaries.
    assert_eq!(
        rows(&ok(&env, &["grep", "^hello", "--flags", "guy"])),
        ["f.txt:2: hello there"]
    );
    assert_eq!(
        rows(&ok(&env, &["grep", "World$", "--flags", "m"])),
        ["f.txt:1: Hello World"]
    );
    // A literal "a.b(c" is not a (broken) regex, and its dot is not a wildcard.
    assert_eq!(
        rows(&ok(&env, &["grep", "a.b(c", "--literal"])),
        ["f.txt:3: a.b(c"]
    );
    assert_eq!(
        rows(&ok(&env, &["grep", "A.B(C", "--literal", "--ignore-case"])),
        ["f.txt:3: a.b(c"]
    );
    assert_eq!(
        rows(&ok(&env, &["grep", "a.b", "--literal=false"])).len(),
        2
    );
    assert_eq!(
        summary(&ok(&env, &["grep", "nothing", "--ignore-case"])),
        "No matches for /nothing/i in 1 file."
    );
    assert_eq!(
        summary(&ok(&env, &["grep", "no.thing", "--literal"])),
        "No matches for \"no.thing\" in 1 file."
    );
}

#[test]
fn context_uses_ripgreps_layout() {
    let env = TestEnv::new();
    let lines: String = (1..=12)
        .map(|i| {
            if [3, 5, 10].contains(&i) {
                format!("hit {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    env.write("a.txt", lines);
    env.write("b.txt", "hit b\nafter b\n");
    let text = ok(&env, &["grep", "hit", "--context", "1"]);
    assert_eq!(
        rows(&text),
        [
            "a.txt-2- line 2",
            "a.txt:3: hit 3",
            "a.txt-4- line 4",
            "a.txt:5: hit 5",
            "a.txt-6- line 6",
            "--",
            "a.txt-9- line 9",
            "a.txt:10: hit 10",
            "a.txt-11- line 11",
            "--",
            "b.txt:1: hit b",
            "b.txt-2- after b",
        ]
    );
    assert_eq!(
        summary(&text),
        "Found 4 matches in 2 files (searched 2 files)."
    );
    // With a limit, the last shown match keeps its trailing context and no more.
    let text = ok(&env, &["grep", "hit", "--context", "1", "--limit", "2"]);
    assert_eq!(
        rows(&text),
        [
            "a.txt-2- line 2",
            "a.txt:3: hit 3",
            "a.txt-4- line 4",
            "a.txt:5: hit 5",
            "a.txt-6- line 6",
        ]
    );
    // No context: no separators.
    let text = ok(&env, &["grep", "hit"]);
    assert!(!text.contains("--"), "{text}");
}

#[test]
fn glob_filters_file_names_or_paths() {
    let env = TestEnv::new();
    env.write("src/main.rs", "hit\n");
    env.write("src/deep/lib.rs", "hit\n");
    env.write("src/notes.md", "hit\n");
    env.write("README.md", "hit\n");
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", "--glob", "*.rs"])),
        ["src/deep/lib.rs:1: hit", "src/main.rs:1: hit"]
    );
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", "--glob", "*.{md,txt}"])),
        ["README.md:1: hit", "src/notes.md:1: hit"]
    );
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", "--glob", "src/*.rs"])),
        ["src/main.rs:1: hit"]
    );
    // A file named outright is searched whatever the glob.
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", "README.md", "--glob", "*.rs"])),
        ["README.md:1: hit"]
    );
}

#[test]
fn binary_and_oversized_files_are_skipped_and_counted() {
    let env = TestEnv::new();
    env.write("text.txt", "hit\n");
    let mut early_nul = b"hit\n".to_vec();
    early_nul.extend(vec![b'x'; 100]);
    early_nul.push(0);
    env.write("early_nul.bin", &early_nul);
    let mut late_nul = vec![b'x'; 4096];
    late_nul.extend(b"\0\nhit late\n");
    env.write("late_nul.txt", &late_nul);
    let mut big = b"hit big\n".to_vec();
    big.resize(2 * 1024 * 1024 + 1, b'y');
    env.write("big.txt", &big);
    let mut exact = b"hit exact\n".to_vec();
    exact.resize(2 * 1024 * 1024, b'y');
    env.write("exact.txt", &exact);
    let text = ok(&env, &["grep", "hit"]);
    assert_eq!(
        rows(&text),
        [
            "exact.txt:1: hit exact",
            "late_nul.txt:2: hit late",
            "text.txt:1: hit"
        ]
    );
    assert_eq!(
        summary(&text),
        "Found 3 matches in 3 files (searched 3 files). Skipped 1 binary file and 1 file over 2 MiB."
    );
    // A large binary is recognised from its head alone.
    let mut big_bin = vec![0u8; 100];
    big_bin.resize(1024 * 1024, b'z');
    env.write("big.bin", &big_bin);
    assert_eq!(
        summary(&ok(&env, &["grep", "zzz"])),
        "No matches for /zzz/ in 3 files. Skipped 2 binary files and 1 file over 2 MiB."
    );
}

/// A text file of about 3 MiB: over the default walk limit, with `hit` on its last
/// line (and `filler N` on the others).
fn three_mib_file(env: &TestEnv, rel: &str) -> usize {
    let mut body = String::new();
    let mut lines = 0;
    while body.len() < 3 * 1024 * 1024 {
        lines += 1;
        body.push_str(&format!("filler {lines}\n"));
    }
    body.push_str("hit at the end\n");
    env.write(rel, body);
    lines + 1
}

#[test]
fn a_file_named_outright_is_searched_whatever_its_size() {
    let env = TestEnv::new();
    let last = three_mib_file(&env, "logs/big.log");
    env.write("logs/small.log", "hit small\n");
    // Found by the walk, it is over the limit: skipped and counted.
    let text = ok(&env, &["grep", "hit"]);
    assert_eq!(
        text,
        "logs/small.log:1: hit small\n\nFound 1 match in 1 file (searched 1 file). Skipped 1 file over 2 MiB."
    );
    // Named as the path, it is searched (streamed, context and limit as usual).
    let text = ok(&env, &["grep", "hit", "logs/big.log"]);
    assert_eq!(
        text,
        format!(
            "logs/big.log:{last}: hit at the end\n\nFound 1 match in 1 file (searched 1 file)."
        )
    );
    assert_eq!(
        ok(
            &env,
            &["grep", "^filler 2$", "logs/big.log", "--context", "1"]
        ),
        "logs/big.log-1- filler 1\nlogs/big.log:2: filler 2\nlogs/big.log-3- filler 3\n\nFound 1 match in 1 file (searched 1 file)."
    );
    assert_eq!(
        ok(
            &env,
            &["grep", "filler|hit", "logs/big.log", "--limit", "2"]
        ),
        format!(
            "logs/big.log:1: filler 1\nlogs/big.log:2: filler 2\n\nShowing the first 2 of {last} matches in 1 file (searched 1 file); raise limit to see more, or page on with offset=2."
        )
    );
    // Even with a limit far below its size.
    let text = ok(
        &env,
        &["grep", "end", "logs/big.log", "--max-file-size", "10"],
    );
    assert_eq!(
        rows(&text),
        [format!("logs/big.log:{last}: hit at the end")]
    );
    // A named binary file is still recognised and counted.
    let mut bin = b"hit\0".to_vec();
    bin.resize(3 * 1024 * 1024, b'x');
    env.write("blob.bin", &bin);
    assert_eq!(
        ok(&env, &["grep", "hit", "blob.bin"]),
        "No matches for /hit/ in 0 files. Skipped 1 binary file."
    );
}

#[test]
fn max_file_size_moves_the_walks_limit_and_the_summary_names_it() {
    let env = TestEnv::new();
    let last = three_mib_file(&env, "big.log");
    env.write("small.txt", "hit small\n");
    env.write("mid.txt", format!("hit mid\n{}\n", "m".repeat(1000)));
    // Raised: the 3 MiB file is searched.
    let text = ok(&env, &["grep", "hit", "--max-file-size", "4000000"]);
    assert_eq!(
        text,
        format!(
            "big.log:{last}: hit at the end\nmid.txt:1: hit mid\nsmall.txt:1: hit small\n\nFound 3 matches in 3 files (searched 3 files)."
        )
    );
    // Lowered: the limit is named in bytes; a file of exactly the limit is searched.
    let text = ok(&env, &["grep", "hit", "--max-file-size", "1000"]);
    assert_eq!(
        text,
        "small.txt:1: hit small\n\nFound 1 match in 1 file (searched 1 file). Skipped 2 files over 1000 bytes."
    );
    let text = ok(&env, &["grep", "hit", "--max-file-size", "1009"]);
    assert_eq!(
        summary(&text),
        "Found 2 matches in 2 files (searched 2 files). Skipped 1 file over 1009 bytes."
    );
    assert_eq!(
        summary(&ok(&env, &["grep", "hit", "--max-file-size", "1"])),
        "No matches for /hit/ in 0 files. Skipped 3 files over 1 byte."
    );
    // The default, given explicitly, keeps the default's wording.
    assert_eq!(
        summary(&ok(&env, &["grep", "hit", "--max-file-size", "2097152"])),
        "Found 2 matches in 2 files (searched 2 files). Skipped 1 file over 2 MiB."
    );
    // An agent's larger value is pinned to the ceiling (the summary names the
    // size used); the flag names the maximum instead of doing less than asked.
    assert_eq!(
        summary(&ok(
            &env,
            &["grep", "hit", "--json", r#"{"maxFileSize": 1000000000000}"#]
        )),
        "Found 3 matches in 3 files (searched 3 files)."
    );
    let out = env.run(&["grep", "hit", "--max-file-size", "1000000000000"]);
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "indus-tool: error: --max-file-size: 1000000000000 is more than it takes; at most 134217728\n"
    );
}

#[test]
fn the_state_folder_is_never_searched_but_a_nested_one_is() {
    let env = TestEnv::new();
    env.write("src/a.rs", "hit\n");
    env.write(
        ".indus-process/jobs.json",
        r#"{"jobs": [{"command": "hit"}]}"#,
    );
    env.write(".indus-process/jobs/job-1/stdout", "hit\n");
    // Only the project's own state folder is the toolbox's: one deeper in the
    // tree is the project's content, and searched.
    env.write("sub/.indus-process/jobs.json", "hit\n");
    // A real state file too: the todo list of this session.
    let out = env.run(&[
        "todo_set",
        "--items",
        r#"[{"id": "a", "text": "hit", "status": "pending"}]"#,
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(env.path(".indus-process/todos/default.json").is_file());
    let text = ok(&env, &["grep", "hit"]);
    assert_eq!(
        text,
        "src/a.rs:1: hit\nsub/.indus-process/jobs.json:1: hit\n\nFound 2 matches in 2 files (searched 2 files)."
    );
    assert_eq!(
        rows(&ok(
            &env,
            &["grep", "hit", "--skip-hidden=false", "--gitignore"]
        )),
        ["src/a.rs:1: hit", "sub/.indus-process/jobs.json:1: hit"]
    );
    assert_eq!(
        rows(&ok(&env, &["find", "jobs"])),
        ["sub/.indus-process/jobs.json"]
    );
    assert_eq!(
        rows(&ok(&env, &["find", "*"])),
        [
            ".",
            "src",
            "src/a.rs",
            "sub",
            "sub/.indus-process",
            "sub/.indus-process/jobs.json"
        ]
    );
    assert_eq!(
        rows(&ok(&env, &["find", "**/jobs.json"])),
        ["sub/.indus-process/jobs.json"]
    );
    // Named outright, like .git, it is searched.
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", ".indus-process/jobs"])),
        [".indus-process/jobs/job-1/stdout:1: hit"]
    );
    assert_eq!(
        rows(&ok(&env, &["find", "jobs", ".indus-process"])),
        [".indus-process/jobs", ".indus-process/jobs.json"]
    );
}

#[test]
fn skip_hidden_leaves_out_dot_entries_below_the_root() {
    let env = TestEnv::new();
    env.write(".env", "hit\n");
    env.write(".hidden/secret.txt", "hit\n");
    env.write(".github/workflows/ci.yml", "hit\n");
    env.write("web/.cache/x.txt", "hit\n");
    env.write("web/app.js", "hit\n");
    // Searched by default, as the contract has it.
    assert_eq!(
        rows(&ok(&env, &["grep", "hit"])),
        [
            ".env:1: hit",
            ".github/workflows/ci.yml:1: hit",
            ".hidden/secret.txt:1: hit",
            "web/.cache/x.txt:1: hit",
            "web/app.js:1: hit"
        ]
    );
    assert_eq!(
        ok(&env, &["grep", "hit", "--skip-hidden"]),
        "web/app.js:1: hit\n\nFound 1 match in 1 file (searched 1 file)."
    );
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", "--skip-hidden=false"])).len(),
        5
    );
    assert_eq!(
        ok(&env, &["find", "*", "--skip-hidden"]),
        ".\nweb\nweb/app.js\n\nFound 3 matches among 3 entries."
    );
    assert_eq!(
        summary(&ok(&env, &["find", "*"])),
        "Found 11 matches among 11 entries."
    );
    // A dot-named root given outright is still searched (its own dot-entries not).
    env.write(".github/.secret", "hit\n");
    assert_eq!(
        ok(&env, &["grep", "hit", ".github", "--skip-hidden"]),
        ".github/workflows/ci.yml:1: hit\n\nFound 1 match in 1 file (searched 1 file)."
    );
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", ".env", "--skip-hidden"])),
        [".env:1: hit"]
    );
    assert_eq!(
        rows(&ok(&env, &["find", "*.yml", ".github", "--skip-hidden"])),
        [".github/workflows/ci.yml"]
    );
    // With gitignore too: .gitignore is a dot-file, and still honoured.
    env.write(".gitignore", "web/app.js\n");
    assert_eq!(
        ok(&env, &["grep", "hit", "--skip-hidden", "--gitignore"]),
        "No matches for /hit/ in 0 files."
    );
}

#[test]
fn find_globs_work_like_fds() {
    let env = TestEnv::new();
    for f in [
        "src/main.rs",
        "src/lib.rs",
        "src/deep/mod.rs",
        "src/tests/unit.rs",
        "tests/cli.rs",
        "a.py",
        "b.PY",
        "c.pyc",
        "README.md",
        "thread.rs",
        "[draft].md",
        "d.md",
    ] {
        env.write(f, "");
    }
    let find = |args: &[&str]| {
        let mut all = vec!["find"];
        all.extend(args);
        ok(&env, &all)
    };
    // Brace sets and classes.
    assert_eq!(
        rows(&find(&["*.{rs,py}"])),
        [
            "a.py",
            "b.PY",
            "src/deep/mod.rs",
            "src/lib.rs",
            "src/main.rs",
            "src/tests/unit.rs",
            "tests/cli.rs",
            "thread.rs"
        ]
    );
    assert_eq!(rows(&find(&["[ab].*"])), ["a.py", "b.PY"]);
    assert_eq!(rows(&find(&["[!a-c]*.py*"])), Vec::<&str>::new());
    assert_eq!(rows(&find(&["[draft].md"])), ["d.md"]);
    assert_eq!(rows(&find(&["\\[draft\\].md"])), ["[draft].md"]);
    // A slash: the path below the root, `*` within a component, `**` across.
    assert_eq!(
        find(&["src/*.rs"]),
        "src/lib.rs\nsrc/main.rs\n\nFound 2 matches among 17 entries."
    );
    assert_eq!(rows(&find(&["SRC/*.RS"])), ["src/lib.rs", "src/main.rs"]);
    assert_eq!(
        rows(&find(&["**/tests/*.rs"])),
        ["src/tests/unit.rs", "tests/cli.rs"]
    );
    assert_eq!(
        rows(&find(&["src/**"])),
        [
            "src/deep",
            "src/deep/mod.rs",
            "src/lib.rs",
            "src/main.rs",
            "src/tests",
            "src/tests/unit.rs"
        ]
    );
    assert_eq!(
        rows(&find(&["src/*", "--type", "dir"])),
        ["src/deep", "src/tests"]
    );
    // Relative to the search root, shown under the root as given.
    assert_eq!(
        rows(&find(&["*/*.rs", "src"])),
        ["src/deep/mod.rs", "src/tests/unit.rs"]
    );
    assert_eq!(
        rows(&find(&["src/*.rs", "."])),
        ["./src/lib.rs", "./src/main.rs"]
    );
    assert_eq!(rows(&find(&["src/*.rs", "src"])), Vec::<&str>::new());
    // No glob character: a substring of the name, as before.
    assert_eq!(rows(&find(&["read"])), ["README.md", "thread.rs"]);
    assert_eq!(rows(&find(&["draft"])), ["[draft].md"]);
    assert_eq!(rows(&find(&["src/main"])), Vec::<&str>::new());
}

#[test]
fn git_and_node_modules_are_pruned_and_hidden_files_searched() {
    let env = TestEnv::new();
    env.write(".git/config", "hit\n");
    env.write("node_modules/pkg/index.js", "hit\n");
    env.write("web/node_modules/x.js", "hit\n");
    // A file of that name is left out too, but it is no folder to count.
    env.write("lib/node_modules", "hit\n");
    env.write("sub/.git", "gitdir: hit\n");
    env.write(".hidden/secret.txt", "hit\n");
    env.write(".env", "hit\n");
    env.write("web/app.js", "hit\n");
    let text = ok(&env, &["grep", "hit"]);
    assert_eq!(
        rows(&text),
        [
            ".env:1: hit",
            ".hidden/secret.txt:1: hit",
            "web/app.js:1: hit"
        ]
    );
    // The node_modules folders are counted (they may hold tracked files); the
    // `.git` folder, git's internals, is not.
    assert_eq!(
        summary(&text),
        "Found 3 matches in 3 files (searched 3 files). Skipped 2 node_modules folders (name one as the path to search it)."
    );
    let json = ok(&env, &["--format", "json", "grep", "hit"]);
    assert!(json.contains(r#""pruned":2"#), "{json}");
    let found = ok(&env, &["find", "*.js"]);
    assert!(
        summary(&found)
            .ends_with("Skipped 2 node_modules folders (name one as the path to search it)."),
        "{found}"
    );
    // (Patterns in these tests avoid what the temp root's random name could match.)
    assert_eq!(rows(&found), ["web/app.js"]);
    assert_eq!(rows(&ok(&env, &["find", "config"])), Vec::<&str>::new());
    assert_eq!(rows(&ok(&env, &["find", "secret"])), [".hidden/secret.txt"]);
    // Named outright, a pruned directory is searched.
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", ".git"])),
        [".git/config:1: hit"]
    );
}

#[test]
fn ignore_files_are_honoured_only_when_asked() {
    let env = TestEnv::new();
    env.write(".gitignore", "ignored.txt\nbuild/\n");
    env.write("sub/.ignore", "local.txt\n");
    env.write("ignored.txt", "hit\n");
    env.write("build/out.txt", "hit\n");
    env.write("sub/local.txt", "hit\n");
    env.write("kept.txt", "hit\n");
    assert_eq!(
        rows(&ok(&env, &["grep", "hit"])),
        [
            "build/out.txt:1: hit",
            "ignored.txt:1: hit",
            "kept.txt:1: hit",
            "sub/local.txt:1: hit"
        ]
    );
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", "--gitignore"])),
        ["kept.txt:1: hit"]
    );
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", "--gitignore=false"])).len(),
        4
    );
    assert_eq!(
        rows(&ok(&env, &["find", "*.txt", "--gitignore"])),
        ["kept.txt"]
    );
    assert_eq!(rows(&ok(&env, &["find", "*.txt"])).len(), 4);
}

#[test]
fn ignore_files_above_the_root_and_git_excludes_apply() {
    let env = TestEnv::new();
    env.write(".gitignore", "up.txt\n");
    env.write(".git/info/exclude", "excluded.txt\n");
    env.write("sub/up.txt", "hit\n");
    env.write("sub/excluded.txt", "hit\n");
    env.write("sub/kept.txt", "hit\n");
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", "sub", "--gitignore"])),
        ["sub/kept.txt:1: hit"]
    );
    assert_eq!(rows(&ok(&env, &["grep", "hit", "sub"])).len(), 3);
}

/// Run the binary in `env` as an unprivileged user: mode bits only block reads for
/// a user without CAP_DAC_OVERRIDE, and tests often run as root. `None` when that
/// is not possible here (no `setpriv`, or it cannot switch users).
fn run_unprivileged(env: &TestEnv, args: &[&str]) -> Option<std::process::Output> {
    use std::os::unix::fs::PermissionsExt;
    // The temp root is private to its owner; the other user must be able to enter it.
    std::fs::set_permissions(env.root(), std::fs::Permissions::from_mode(0o755)).ok()?;
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(assert_cmd::cargo::cargo_bin("indus-tool"))
        .arg("--cwd")
        .arg(env.root())
        .args(args)
        .env("INDUS_EXACT", "1")
        .output()
        .ok()?;
    // setpriv itself failing (no permission to switch) is not the tool's verdict.
    let tool_spoke = code(&out) == 0 || stderr(&out).starts_with("Cannot search");
    tool_spoke.then_some(out)
}

/// The outcome of `args` as a user that mode-000 entries really lock out, or `None`
/// (after saying so) when no such run is possible.
fn locked_out_run(
    env: &TestEnv,
    probe: &std::path::Path,
    args: &[&str],
) -> Option<std::process::Output> {
    if std::fs::File::open(probe).is_err() {
        return Some(env.run(args));
    }
    let run = run_unprivileged(env, args);
    if run.is_none() {
        common::skipped(
            "running with privileges that read mode-000 entries and no way to drop them: \
             the unreadable-entry assertions did not run",
        );
    }
    run
}

/// Like `ok` for a locked-out run.
fn locked_out_ok(env: &TestEnv, probe: &std::path::Path, args: &[&str]) -> Option<String> {
    let out = locked_out_run(env, probe, args)?;
    assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
    let text = stdout(&out);
    Some(text.strip_suffix('\n').unwrap_or(&text).to_string())
}

#[test]
fn unreadable_directories_are_skipped_and_counted() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    env.write("open/a.txt", "hit\n");
    env.write("locked/b.txt", "hit\n");
    let locked = env.path("locked");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let probe = locked.join("b.txt");
    let grep = locked_out_ok(&env, &probe, &["grep", "hit"]);
    let find = locked_out_ok(&env, &probe, &["find", "*.txt"]);
    // The root itself unreadable: nothing was searched, so that is an error.
    let root_grep = locked_out_run(&env, &probe, &["grep", "hit", "locked"]);
    let root_find = locked_out_run(&env, &probe, &["find", "b", "locked"]);
    // Never fatal, whoever runs it.
    let as_is = ok(&env, &["grep", "hit"]);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(rows(&as_is).contains(&"open/a.txt:1: hit"));
    if let Some(grep) = grep {
        assert_eq!(rows(&grep), ["open/a.txt:1: hit"]);
        assert_eq!(
            summary(&grep),
            "Found 1 match in 1 file (searched 1 file). Skipped 1 unreadable entry."
        );
    }
    if let Some(find) = find {
        assert_eq!(rows(&find), ["open/a.txt"]);
        assert_eq!(
            summary(&find),
            "Found 1 match among 4 entries. Skipped 1 unreadable entry."
        );
    }
    for out in [root_grep, root_find].into_iter().flatten() {
        assert_eq!(code(&out), 2);
        let msg = stderr(&out);
        assert!(
            msg.starts_with("Cannot search locked: EACCES: permission denied, scandir '"),
            "{msg}"
        );
    }
}

#[test]
fn unreadable_files_are_skipped_and_counted() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    env.write("a.txt", "hit\n");
    let secret = env.write("secret.txt", "hit\n");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).unwrap();
    if let Some(text) = locked_out_ok(&env, &secret, &["grep", "hit"]) {
        assert_eq!(rows(&text), ["a.txt:1: hit"]);
        assert_eq!(
            summary(&text),
            "Found 1 match in 1 file (searched 1 file). Skipped 1 unreadable entry."
        );
    }
}

#[test]
fn symlinks_are_listed_never_followed_so_loops_end() {
    use std::os::unix::fs::symlink;
    let env = TestEnv::new();
    env.write("dir/real.txt", "hit\n");
    symlink(".", env.path("dir/self")).unwrap();
    symlink("loop_b", env.path("loop_a")).unwrap();
    symlink("loop_a", env.path("loop_b")).unwrap();
    symlink("dir/real.txt", env.path("link.txt")).unwrap();
    symlink("dir", env.path("dirlink")).unwrap();
    symlink("missing", env.path("dangling")).unwrap();
    let text = ok(&env, &["grep", "hit"]);
    assert_eq!(rows(&text), ["dir/real.txt:1: hit"]);
    assert_eq!(summary(&text), "Found 1 match in 1 file (searched 1 file).");
    assert_eq!(
        rows(&ok(&env, &["find", "*link*"])),
        ["dirlink", "link.txt"]
    );
    assert_eq!(rows(&ok(&env, &["find", "loop_?"])), ["loop_a", "loop_b"]);
    // For `type`, a link counts as what it points to.
    assert_eq!(
        rows(&ok(&env, &["find", "*", "--type", "dir"])),
        [".", "dir", "dir/self", "dirlink"]
    );
    assert_eq!(
        rows(&ok(&env, &["find", "*", "--type", "file"])),
        ["dangling", "dir/real.txt", "link.txt", "loop_a", "loop_b"]
    );
    // A symlink named as the root is followed.
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", "dirlink"])),
        ["dirlink/real.txt:1: hit"]
    );
}

#[test]
fn paths_keep_the_spelling_of_the_root() {
    let env = TestEnv::new();
    env.write("src/a.rs", "hit\n");
    assert_eq!(rows(&ok(&env, &["grep", "hit"])), ["src/a.rs:1: hit"]);
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", "."])),
        ["./src/a.rs:1: hit"]
    );
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", "src"])),
        ["src/a.rs:1: hit"]
    );
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", "src/"])),
        ["src/a.rs:1: hit"]
    );
    let abs = env.path("src").to_string_lossy().into_owned();
    assert_eq!(
        rows(&ok(&env, &["grep", "hit", &abs])),
        [format!("{abs}/a.rs:1: hit")]
    );
    // A single file: just that file, under the name it was given.
    let text = ok(&env, &["grep", "hit", "src/a.rs"]);
    assert_eq!(rows(&text), ["src/a.rs:1: hit"]);
    assert_eq!(summary(&text), "Found 1 match in 1 file (searched 1 file).");
    // find spells its rows the same way, so one tool's path can go to the other.
    assert_eq!(rows(&ok(&env, &["find", "a.rs"])), ["src/a.rs"]);
    assert_eq!(rows(&ok(&env, &["find", "a.rs", "."])), ["./src/a.rs"]);
    assert_eq!(rows(&ok(&env, &["find", "a.rs", "src"])), ["src/a.rs"]);
    assert_eq!(rows(&ok(&env, &["find", "a.rs", "src/"])), ["src/a.rs"]);
    assert_eq!(
        rows(&ok(&env, &["find", "a.rs", &abs])),
        [format!("{abs}/a.rs")]
    );
    // The root itself is shown as it was given, or as `.` when no path was.
    assert_eq!(rows(&ok(&env, &["find", "src", "src"])), ["src"]);
    assert_eq!(rows(&ok(&env, &["find", "src", "src/"])), ["src/"]);
    assert_eq!(rows(&ok(&env, &["find", "src", &abs])), [abs.as_str()]);
    assert_eq!(
        rows(&ok(&env, &["find", "*", "--type", "dir"])),
        [".", "src"]
    );
    assert_eq!(
        rows(&ok(&env, &["find", "*", ".", "--type", "dir"])),
        [".", "./src"]
    );
    for root in [
        None,
        Some("."),
        Some("src"),
        Some("src/"),
        Some(abs.as_str()),
    ] {
        let mut grep = vec!["grep", "hit"];
        let mut find = vec!["find", "a.rs"];
        grep.extend(root);
        find.extend(root);
        let grep = ok(&env, &grep);
        let grep_path = rows(&grep)[0].strip_suffix(":1: hit").unwrap();
        assert_eq!(rows(&ok(&env, &find)), [grep_path], "root {root:?}");
    }
}

#[test]
fn missing_roots_and_no_matches() {
    let env = TestEnv::new();
    env.write("a.txt", "nothing here\n");
    let msg = fails(&env, &["grep", "hit", "nope"]);
    assert!(
        msg.starts_with("Cannot search nope: ENOENT: no such file or directory"),
        "{msg}"
    );
    assert!(msg.contains("nope'"), "{msg}");
    let msg = fails(&env, &["find", "x", "nope"]);
    assert!(msg.starts_with("Cannot search nope: ENOENT"), "{msg}");
    assert_eq!(
        fails(&env, &["find", "x", "a.txt"]),
        "Not a directory: a.txt"
    );
    // No match is a success with a clear message, not an error.
    assert_eq!(
        ok(&env, &["grep", "hit"]),
        "No matches for /hit/ in 1 file."
    );
    assert_eq!(
        ok(&env, &["find", "zzz"]),
        "No matches for \"zzz\" among 2 entries."
    );
}

#[test]
fn long_lines_and_line_endings() {
    let env = TestEnv::new();
    let long = format!("hit {}", "é".repeat(600));
    env.write("long.txt", format!("{long}\n"));
    env.write("crlf.txt", "hit\r\nnext\r\n");
    env.write("latin1.txt", b"hit \xe9t\xe9\n");
    let text = ok(&env, &["grep", "hit"]);
    let r = rows(&text);
    assert_eq!(r[0], "crlf.txt:1: hit");
    assert_eq!(r[1], "latin1.txt:1: hit \u{fffd}t\u{fffd}");
    // 500 characters are kept: "hit " and 496 é; 104 é (2 bytes each) are cut.
    assert_eq!(
        r[2],
        format!(
            "long.txt:1: hit {} … [line truncated, 208 more bytes]",
            "é".repeat(496)
        )
    );
}

#[test]
fn json_output_is_one_outcome_line() {
    let env = scrambled_tree();
    let (outcome, out) = env.run_json(&["grep", "hit", "--limit", "1"]);
    assert_eq!(code(&out), 0);
    // Programs get the totals and the rows as records, keys in this order.
    assert_eq!(
        outcome,
        json!({
            "id": "cli",
            "output": {
                "count": 10, "files": 10, "searched": 10, "shown": 1,
                "skipped": {"binary": 0, "tooLarge": 0, "unreadable": 0, "pruned": 0},
                "rows": [{"path": ".hidden.txt", "line": 2, "text": "hit here", "kind": "match"}],
                "omitted": 9, "offset": 0, "nextOffset": 1
            },
            "is_error": false
        })
    );
    assert!(stdout(&out).starts_with(
        r#"{"id":"cli","output":{"count":10,"files":10,"searched":10,"shown":1,"skipped":{"#
    ));
    let (outcome, out) = env.run_json(&["find", "*.TXT", "a"]);
    assert_eq!(code(&out), 0);
    let size = |p: &str| std::fs::metadata(env.path(p)).unwrap().len();
    assert_eq!(
        outcome["output"],
        json!({
            "count": 3, "shown": 3, "walked": 5, "unreadable": 0, "pruned": 0,
            "entries": [
                {"path": "a/B.txt", "kind": "file", "size": size("a/B.txt")},
                {"path": "a/b/c.txt", "kind": "file", "size": size("a/b/c.txt")},
                {"path": "a/z.txt", "kind": "file", "size": size("a/z.txt")}
            ],
            "omitted": 0
        })
    );
    // Text mode keeps the rows and the summary for people.
    let out = env.run(&["find", "*.TXT", "a"]);
    assert_eq!(
        stdout(&out),
        "a/B.txt\na/b/c.txt\na/z.txt\n\nFound 3 matches among 5 entries.\n"
    );
    let (outcome, out) = env.run_json(&["grep", "("]);
    assert_eq!(code(&out), 2);
    assert_eq!(outcome["is_error"], json!(true));
    assert!(
        outcome["output"]
            .as_str()
            .unwrap()
            .starts_with("Could not compile the search pattern: ")
    );
}

#[test]
fn find_matches_names_by_glob_or_substring() {
    let env = scrambled_tree();
    env.write("docs/Guide.MD", "");
    env.write("docs/notes.md", "");
    assert_eq!(
        rows(&ok(&env, &["find", "*.md"])),
        ["docs/Guide.MD", "docs/notes.md"]
    );
    // Anchored: the glob must cover the whole name.
    assert_eq!(rows(&ok(&env, &["find", "*.m"])), Vec::<&str>::new());
    assert_eq!(
        rows(&ok(&env, &["find", "?.txt"])),
        [
            "A.txt",
            "B/x.txt",
            "_.txt",
            "a/B.txt",
            "a/b/c.txt",
            "a/z.txt",
            "a.txt",
            "b.txt"
        ]
    );
    // A substring, case-insensitive, where a dot is just a dot.
    assert_eq!(rows(&ok(&env, &["find", "GUIDE"])), ["docs/Guide.MD"]);
    assert_eq!(rows(&ok(&env, &["find", "a-b."])), ["a-b.txt"]);
    assert_eq!(
        rows(&ok(&env, &["find", "?", "--type", "dir"])),
        ["B", "a", "a/b"]
    );
    assert_eq!(
        rows(&ok(&env, &["find", "*", "--type", "dir"])),
        [".", "B", "a", "a/b", "docs"]
    );
    let files = ok(&env, &["find", "*", "--type", "file"]);
    assert_eq!(rows(&files).len(), 12);
    assert_eq!(summary(&files), "Found 12 matches among 17 entries.");
}

#[test]
fn find_limit_keeps_the_first_entries_and_refuses_one_over_10000() {
    let env = scrambled_tree();
    let text = ok(&env, &["find", "*.txt", "--limit", "3"]);
    assert_eq!(rows(&text), &SORTED[..3]);
    assert_eq!(
        summary(&text),
        "Showing the first 3 of 10 matches among 14 entries; raise limit to see more."
    );
    let many = TestEnv::new();
    many.mkdir("d");
    for i in 0..10_003 {
        std::fs::write(many.path(&format!("d/f{i:05}")), "").unwrap();
    }
    let text = ok(&many, &["--max-bytes", "10000000", "find", "f", "d"]);
    assert_eq!(rows(&text).len(), 500);
    assert_eq!(
        fails(&many, &["find", "f", "d", "--limit", "50000"]),
        "Invalid \"limit\": expected a positive integer of at most 10000, got the number 50000."
    );
    let text = ok(
        &many,
        &[
            "--max-bytes",
            "10000000",
            "find",
            "f",
            "d",
            "--limit",
            "10000",
        ],
    );
    assert_eq!(rows(&text).len(), 10_000);
    assert_eq!(rows(&text)[9_999], "d/f09999");
    assert_eq!(
        summary(&text),
        "Showing the first 10000 of 10003 matches among 10004 entries; narrow the search to see the rest (10000 is the most one call shows)."
    );
}

#[test]
fn output_is_clamped_with_the_tool_notice() {
    let env = TestEnv::new();
    let body: String = (1..=400).map(|i| format!("hit number {i}\n")).collect();
    env.write("a.txt", body);
    let text = ok(
        &env,
        &["--max-bytes", "2000", "grep", "hit", "--limit", "400"],
    );
    assert!(text.contains("[grep: "), "{text}");
    assert!(text.starts_with("a.txt:1: hit number 1\n"));
    assert!(text.ends_with("Found 400 matches in 1 file (searched 1 file)."));
}

#[test]
fn a_clamped_grep_cuts_between_rows_and_counts_what_it_left_out() {
    let env = TestEnv::new();
    for i in 0..60 {
        env.write(
            &format!("dir{i:02}/file.txt"),
            format!("{}\n", "needle and a long tail of words ".repeat(3)),
        );
    }
    for budget in ["300", "517", "1000", "2049"] {
        let out = env.run(&["--max-bytes", budget, "grep", "needle"]);
        assert_eq!(code(&out), 0);
        let text = stdout(&out);
        assert!(
            text.len() <= budget.parse::<usize>().unwrap() + 1,
            "{}",
            text.len()
        );
        let lines: Vec<&str> = text.lines().collect();
        let notice = lines.iter().find(|l| l.starts_with("[grep: ")).unwrap();
        let kept: Vec<&&str> = lines.iter().take_while(|l| !l.starts_with('[')).collect();
        // Every row is whole: a real file, line 1, the whole line.
        for row in &kept {
            let (path, rest) = row.split_once(":1: ").expect("a whole row");
            assert!(env.path(path).is_file(), "a row naming no file: {row:?}");
            assert_eq!(rest, "needle and a long tail of words ".repeat(3));
        }
        assert_eq!(
            *notice,
            format!(
                "[grep: {} rows left out to stay within the output ceiling]",
                60 - kept.len()
            )
        );
        assert_eq!(
            *lines.last().unwrap(),
            "Found 60 matches in 60 files (searched 60 files)."
        );
    }
    // Programs test for "no match" by the count (and the exit status, 1).
    let (v, out) = env.run_json(&["grep", "nowhere"]);
    assert_eq!(code(&out), 1);
    assert_eq!(v["output"]["count"], json!(0));
    assert_eq!(v["output"]["rows"], json!([]));
    let (v, _) = env.run_json(&["--max-bytes", "400", "grep", "needle"]);
    let rows = v["output"]["rows"].as_array().unwrap();
    assert_eq!(v["output"]["omitted"], json!(60 - rows.len()));
    assert!(v["output"].to_string().len() <= 400);
}

/// Run a search with its whole input as `--json` (the keys rg's and fd's flags
/// will map onto).
fn ok_json(env: &TestEnv, tool: &str, input: serde_json::Value) -> String {
    ok(env, &[tool, "--json", &input.to_string()])
}

fn fails_json(env: &TestEnv, tool: &str, input: serde_json::Value) -> String {
    fails(env, &[tool, "--json", &input.to_string()])
}

fn rg_flags_tree() -> TestEnv {
    let env = TestEnv::new();
    env.write("src/main.rs", "fn main() {\n    hit();\n}\n");
    env.write("src/lib.rs", "// Hit\nhit here\nhitter\nhit again\n");
    env.write("src/gen/out.rs", "hit generated\n");
    env.write("docs/guide.md", "a hit\nno\n");
    env.write("app.min.js", "hit minified\n");
    env.write("app.js", "hit script\n");
    env.write("notes.txt", "one\nhit\ntwo\nthree\nhit\nfour\n");
    env
}

#[test]
fn grep_takes_several_roots_in_the_order_given() {
    let env = rg_flags_tree();
    let text = ok_json(
        &env,
        "grep",
        json!({"pattern": "hit", "paths": ["notes.txt", "./docs", "src/gen"]}),
    );
    assert_eq!(
        text,
        "notes.txt:2: hit\nnotes.txt:5: hit\n./docs/guide.md:1: a hit\nsrc/gen/out.rs:1: hit generated\n\nFound 4 matches in 3 files (searched 3 files)."
    );
    let text = ok_json(
        &env,
        "grep",
        json!({"pattern": "hit", "paths": ["notes.txt", "docs"], "limit": 2}),
    );
    assert_eq!(rows(&text), ["notes.txt:2: hit", "notes.txt:5: hit"]);
    assert_eq!(
        summary(&text),
        "Showing the first 2 of 3 matches in 2 files (searched 2 files); raise limit to see more, or page on with offset=2."
    );
    assert!(
        fails_json(
            &env,
            "grep",
            json!({"pattern": "hit", "paths": ["docs", "gone"]})
        )
        .starts_with("Cannot search gone: ")
    );
    assert_eq!(
        fails_json(
            &env,
            "grep",
            json!({"pattern": "hit", "path": "docs", "paths": ["src"]})
        ),
        "Invalid \"paths\": give \"path\" (one root) or \"paths\" (several), not both."
    );
}

#[test]
fn grep_globs_and_types_filter_like_rg() {
    let env = rg_flags_tree();
    let files = |input: serde_json::Value| {
        let text = ok_json(&env, "grep", input);
        rows(&text)
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        files(json!({"pattern": "hit", "globs": ["*.js", "!*.min.js"], "outputMode": "files"})),
        ["app.js"]
    );
    assert_eq!(
        files(
            json!({"pattern": "hit", "globs": ["!src/gen"], "type": ["rust"], "outputMode": "files"})
        ),
        ["src/lib.rs", "src/main.rs"]
    );
    assert_eq!(
        files(json!({"pattern": "hit", "typeNot": ["rust", "js"], "outputMode": "files"})),
        ["docs/guide.md", "notes.txt"]
    );
    // The single glob negates too now, as rg's -g does.
    let text = ok(
        &env,
        &[
            "grep",
            "hit",
            "--glob",
            "!*.rs",
            "--json",
            r#"{"outputMode":"files"}"#,
        ],
    );
    assert_eq!(
        rows(&text),
        ["app.js", "app.min.js", "docs/guide.md", "notes.txt"]
    );
    assert_eq!(
        fails_json(&env, "grep", json!({"pattern": "hit", "type": ["rustt"]})),
        "Invalid \"type\": expected names of rg file types such as \"rust\", \"py\", \"js\", \"toml\" or \"md\" (rg --type-list lists them), got the string \"rustt\"."
    );
    assert!(
        fails_json(&env, "grep", json!({"pattern": "hit", "globs": ["{a"]}))
            .starts_with("Invalid \"globs\": expected a glob such as \"*.rs\" or \"!*.min.js\" (unclosed alternate group")
    );
}

#[test]
fn grep_match_switches_follow_rg() {
    let env = rg_flags_tree();
    assert_eq!(
        ok_json(
            &env,
            "grep",
            json!({"pattern": "hit|o", "path": "notes.txt", "invertMatch": true})
        ),
        "notes.txt:4: three\n\nFound 1 match in 1 file (searched 1 file)."
    );
    assert_eq!(
        rows(&ok_json(
            &env,
            "grep",
            json!({"pattern": "hit", "path": "src/lib.rs", "wordRegexp": true})
        )),
        ["src/lib.rs:2: hit here", "src/lib.rs:4: hit again"]
    );
    assert_eq!(
        rows(&ok_json(
            &env,
            "grep",
            json!({"pattern": "Hit", "path": "src/lib.rs", "smartCase": true})
        )),
        ["src/lib.rs:1: // Hit"]
    );
    assert_eq!(
        rows(&ok_json(
            &env,
            "grep",
            json!({"pattern": "hit", "path": "src/lib.rs", "smartCase": true, "maxCount": 2})
        )),
        ["src/lib.rs:1: // Hit", "src/lib.rs:2: hit here"]
    );
}

#[test]
fn grep_asymmetric_context_keeps_rgs_layout() {
    let env = rg_flags_tree();
    let text = ok_json(
        &env,
        "grep",
        json!({"pattern": "hit", "path": "notes.txt", "beforeContext": 1, "afterContext": 0}),
    );
    assert_eq!(
        rows(&text),
        [
            "notes.txt-1- one",
            "notes.txt:2: hit",
            "--",
            "notes.txt-4- three",
            "notes.txt:5: hit"
        ]
    );
    let text = ok_json(
        &env,
        "grep",
        json!({"pattern": "hit", "path": "notes.txt", "context": 1, "afterContext": 2, "limit": 1}),
    );
    assert_eq!(
        rows(&text),
        [
            "notes.txt-1- one",
            "notes.txt:2: hit",
            "notes.txt-3- two",
            "notes.txt-4- three"
        ]
    );
}

#[test]
fn grep_files_and_count_modes() {
    let env = rg_flags_tree();
    let (outcome, out) = env.run_json(&[
        "grep",
        "--json",
        r#"{"pattern":"hit","path":"src","outputMode":"count"}"#,
    ]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        outcome["output"]["rows"],
        json!([
            {"path": "src/gen/out.rs", "count": 1},
            {"path": "src/lib.rs", "count": 3},
            {"path": "src/main.rs", "count": 1}
        ])
    );
    assert_eq!(outcome["output"]["count"], json!(5));
    let text = ok_json(
        &env,
        "grep",
        json!({"pattern": "hit", "path": "src", "outputMode": "files", "limit": 1}),
    );
    assert_eq!(
        text,
        "src/gen/out.rs\n\nShowing the first 1 of 3 files with matches (5 matches, searched 3 files); raise limit to see more, or page on with offset=1."
    );
    let (outcome, _) = env.run_json(&[
        "grep",
        "--json",
        r#"{"pattern":"hit","path":"src","outputMode":"files"}"#,
    ]);
    assert_eq!(
        outcome["output"]["rows"],
        json!([{"path": "src/gen/out.rs"}, {"path": "src/lib.rs"}, {"path": "src/main.rs"}])
    );
}

fn fd_flags_tree() -> TestEnv {
    let env = TestEnv::new();
    for p in [
        "src/main.rs",
        "src/deep/mod.rs",
        "target/debug/build.rs",
        "a.tar.gz",
        "run.sh",
    ] {
        env.write(p, "x");
    }
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(env.path("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("src", env.path("src-link")).unwrap();
    env
}

#[test]
fn find_types_extensions_excludes_and_depth_follow_fd() {
    let env = fd_flags_tree();
    let list = |input: serde_json::Value| {
        let text = ok_json(&env, "find", input);
        rows(&text)
            .iter()
            .map(|r| r.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(list(json!({"pattern": "*", "type": "l"})), ["src-link"]);
    assert_eq!(
        list(json!({"pattern": "*", "type": "executable"})),
        ["run.sh"]
    );
    assert_eq!(
        list(json!({"pattern": "*", "extension": ["RS", ".gz"]})),
        [
            "a.tar.gz",
            "src/deep/mod.rs",
            "src/main.rs",
            "target/debug/build.rs"
        ]
    );
    assert_eq!(
        list(json!({"pattern": "*", "extension": ["rs"], "exclude": ["target", "deep"]})),
        ["src/main.rs"]
    );
    assert_eq!(
        list(json!({"pattern": "*", "maxDepth": 1, "type": "d"})),
        // The root itself is listed when it matches, as find always has.
        [".", "src", "src-link", "target"]
    );
    assert_eq!(
        list(json!({"pattern": "*.rs", "paths": ["target", "src"]})),
        ["target/debug/build.rs", "src/deep/mod.rs", "src/main.rs"]
    );
    assert_eq!(
        fails_json(&env, "find", json!({"pattern": "*", "maxDepth": "1"})),
        "Invalid \"maxDepth\": expected a non-negative integer, got the string \"1\"."
    );
}
