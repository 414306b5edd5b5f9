//! The command line's contract (CONTRACT §2–3): input assembly, output shapes, exit
//! statuses, name normalization, selection, and the meta-commands.

use crate::common;

use common::{TestEnv, bin, code, parse_outcome, stderr, stdout};
use indus_tool::ToolOutcome;
use serde_json::{Value, json};

fn env_with_tree() -> TestEnv {
    let env = TestEnv::new();
    env.write("b.txt", "bb");
    env.write("A.txt", "a");
    env.write(".hidden", "h");
    env.mkdir("sub");
    env
}

#[test]
fn json_format_prints_exactly_one_parsable_outcome_line() {
    let env = env_with_tree();
    let (v, out) = env.run_json(&["ls"]);
    assert_eq!(code(&out), 0);
    let outcome: ToolOutcome = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(outcome.id, "cli");
    assert!(!outcome.is_error);
    // ls answers programs with its record.
    assert_eq!(
        outcome.output,
        json!({
            "path": ".", "count": 3, "shown": 3, "hidden": 1,
            "entries": [
                {"name": "sub", "path": "sub", "kind": "dir", "size": 0},
                {"name": "A.txt", "path": "A.txt", "kind": "file", "size": 1},
                {"name": "b.txt", "path": "b.txt", "kind": "file", "size": 2}
            ]
        })
    );
    // Errors are one line on stdout too, with status 1.
    let (v, out) = env.run_json(&["ls", "missing"]);
    assert_eq!(code(&out), 1);
    assert_eq!(v["is_error"], json!(true));
    assert!(stderr(&out).is_empty());
}

#[test]
fn the_id_flag_and_env_format() {
    let env = env_with_tree();
    let out = env
        .cmd()
        .env("INDUS_FORMAT", "json")
        .args(["--id", "call-7", "ls"])
        .output()
        .unwrap();
    assert_eq!(parse_outcome(&out)["id"], json!("call-7"));
}

#[test]
fn text_format_sends_errors_to_stderr() {
    let env = env_with_tree();
    let out = env.run(&["ls", "nope"]);
    assert_eq!(code(&out), 1);
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).starts_with("Cannot list nope: ENOENT: no such file or directory"),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["ls", "sub"]);
    assert_eq!(code(&out), 0);
    assert_eq!(stdout(&out), "sub: 0 entries\n");
}

#[test]
fn json_input_flags_and_positionals_combine_with_flags_winning() {
    let env = env_with_tree();
    let from_json = env.run(&["ls", "--json", r#"{"showHidden": true}"#]);
    assert!(stdout(&from_json).contains(".hidden"));
    let overridden = env.run(&[
        "ls",
        "--json",
        r#"{"showHidden": true}"#,
        "--show-hidden=false",
    ]);
    assert!(!stdout(&overridden).contains(".hidden"));
    let path_from_positional = env.run(&["ls", "--json", r#"{"path": "."}"#, "sub"]);
    assert_eq!(stdout(&path_from_positional), "sub: 0 entries\n");
    let path_from_flag = env.run(&["ls", "--path", "sub"]);
    assert_eq!(stdout(&path_from_flag), "sub: 0 entries\n");
    // A number flag that is not a number reaches the tool, which names the field.
    let out = env.run(&["ls", "--limit", "many"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "Invalid \"limit\": expected a positive integer, got the string \"many\".\n"
    );
}

#[test]
fn json_input_from_stdin_and_file() {
    let env = env_with_tree();
    let out = env
        .cmd()
        .args(["ls", "--json", "-"])
        .write_stdin(r#"{"path":"sub"}"#)
        .output()
        .unwrap();
    assert_eq!(stdout(&out), "sub: 0 entries\n");
    env.write("input.json", r#"{"limit": 1}"#);
    let out = env.run(&["ls", "--json", "@input.json"]);
    assert!(stdout(&out).contains("showing the first 1"));
}

#[test]
fn usage_errors_exit_2_and_say_everything() {
    let env = env_with_tree();
    // Our own usage errors: one line naming the problem.
    for args in [
        vec!["ls", "--json", "{not json"],
        vec!["ls", "--json", "[1]"],
        vec!["ls", "--json", "@missing.json"],
        vec!["--tools", "nosuch", "ls"],
        vec!["call", "{"],
        vec!["call", r#"{"id":"x"}"#],
    ] {
        let out = env.run(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("indus-tool: error: "), "{args:?}: {err}");
        assert!(stdout(&out).is_empty());
    }
    // clap's: the whole report, with what was wrong, the allowed values or the
    // usage line, and the hint.
    for (args, wants) in [
        (
            vec!["ls", "--bogus"],
            vec![
                "error: unexpected argument '--bogus' found",
                "Usage: indus-tool ls [OPTIONS] [PATH]",
            ],
        ),
        (
            vec!["ls", "a", "extra"],
            vec![
                "error: unexpected argument 'extra' found",
                "Usage: indus-tool ls [OPTIONS] [PATH]",
            ],
        ),
        (
            vec!["nosuchtool"],
            vec![
                "error: unrecognized subcommand 'nosuchtool'",
                "Usage: indus-tool",
            ],
        ),
        (
            vec!["--collection", "nope", "ls"],
            vec![
                "invalid value 'nope' for '--collection <NAME>'",
                "[possible values: read-only, coding, all]",
            ],
        ),
        (
            vec!["--max-bytes", "0", "ls"],
            vec!["invalid value '0' for '--max-bytes <N>'"],
        ),
        (
            vec!["grep", "x", "--ignore-case=maybe"],
            vec![
                "[possible values: true, false]",
                "For more information, try '--help'.",
            ],
        ),
    ] {
        let out = env.run(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        for want in wants {
            assert!(err.contains(want), "{args:?}: {err}");
        }
        assert!(err.lines().count() > 1, "{args:?}: {err}");
        assert!(stdout(&out).is_empty());
    }
    let out = env.run(&["ls", "--show-hiden"]);
    assert!(
        stderr(&out).contains("--show-hidden"),
        "suggests the near flag"
    );
    let out = bin()
        .args(["--cwd", "/definitely/not/a/dir", "ls"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "indus-tool: error: --cwd /definitely/not/a/dir: the directory does not exist\n"
    );
    let out = bin()
        .current_dir(env.root())
        .args(["--cwd", "b.txt", "ls"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert_eq!(
        stderr(&out),
        "indus-tool: error: --cwd b.txt: not a directory\n"
    );
}

#[test]
fn help_and_version_exit_0() {
    let out = bin().arg("--help").output().unwrap();
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("Usage: indus-tool"));
    let out = bin().arg("--version").output().unwrap();
    assert_eq!(
        stdout(&out),
        format!("indus-tool {}\n", env!("CARGO_PKG_VERSION"))
    );
    let out = bin().args(["ls", "--help"]).output().unwrap();
    assert!(stdout(&out).contains("--show-hidden"));
}

#[test]
fn tool_names_normalize_everywhere() {
    let env = env_with_tree();
    for spelling in ["ls", "LS", "l-s", "L_s"] {
        let out = env.run(&[spelling, "sub"]);
        assert_eq!(code(&out), 0, "{spelling}: {}", stderr(&out));
        let out = env.run(&["--tools", spelling, "ls", "sub"]);
        assert_eq!(code(&out), 0, "--tools {spelling}");
        let out = env.run(&["describe", spelling]);
        assert_eq!(code(&out), 0, "describe {spelling}");
        let call = format!(r#"{{"id":"1","name":"{spelling}","input":{{"path":"sub"}}}}"#);
        let out = env.run(&["call", &call]);
        assert_eq!(stdout(&out), "sub: 0 entries\n", "call {spelling}");
    }
}

#[test]
fn tools_outside_the_selection_are_refused() {
    let env = env_with_tree();
    let (v, out) = env.run_json(&["--no-tools", "ls"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        v["output"],
        json!("This session exposes no tool called \"ls\".")
    );
    let out = env.run(&["--no-tools", "call", r#"{"id":"c","name":"LS"}"#]);
    assert_eq!(
        stderr(&out),
        "This session exposes no tool called \"LS\".\n"
    );
    let out = env.run(&["call", r#"{"id":"c","name":"frobnicate","input":{}}"#]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "This session exposes no tool called \"frobnicate\".\n"
    );
    let out = env.run(&["--no-tools", "describe", "ls"]);
    assert_eq!(code(&out), 1);
    let out = env.run(&["describe", "frobnicate"]);
    assert_eq!(
        stderr(&out),
        "No tool named \"frobnicate\" is registered.\n"
    );
}

#[test]
fn call_takes_a_toolcall_inline_stdin_or_file() {
    let env = env_with_tree();
    let (v, _) = env.run_json(&["call", r#"{"id":"abc","name":"ls","input":{"path":"sub"}}"#]);
    let empty = json!({"path": "sub", "count": 0, "shown": 0, "hidden": 0, "entries": []});
    assert_eq!(v, json!({"id":"abc","output":empty,"is_error":false}));
    // The input may itself be a JSON string (coerce_input), and the id defaults to --id.
    let (v, _) = env.run_json(&[
        "--id",
        "z",
        "call",
        r#"{"name":"ls","input":"{\"path\":\"sub\"}"}"#,
    ]);
    assert_eq!(v, json!({"id":"z","output":empty,"is_error":false}));
    let out = env
        .cmd()
        .args(["--format", "json", "call", "-"])
        .write_stdin(r#"{"id":"s","name":"ls","input":null}"#)
        .output()
        .unwrap();
    assert_eq!(parse_outcome(&out)["id"], json!("s"));
    env.write("c.json", r#"{"id":"f","name":"ls"}"#);
    let (v, _) = env.run_json(&["call", "@c.json"]);
    assert_eq!(v["id"], json!("f"));
}

#[test]
fn describe_and_schema_hold_every_registered_tool() {
    // The default selection is the whole deck, in catalog order.
    let names = indus_tool::deck::deck_registry().names();
    let ids: Vec<&str> = indus_tool::deck::catalog().iter().map(|r| r.id).collect();
    assert_eq!(names, ids);
    let names: Vec<String> = indus_tool::deck::rows_for_profile(indus_tool::deck::Profile::All)
        .map(|r| r.id.to_string())
        .collect();
    let out = bin().arg("schema").output().unwrap();
    let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed: Vec<&str> = schema
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, names);
    for d in schema.as_array().unwrap() {
        assert!(d["description"].as_str().is_some_and(|s| !s.is_empty()));
        assert_eq!(d["parameters"]["type"], json!("object"));
    }
    for name in &names {
        let out = bin()
            .args(["--format", "json", "describe", name])
            .output()
            .unwrap();
        let mut d = parse_outcome(&out);
        assert_eq!(&d["name"], name);
        // describe adds the catalog's fields to the descriptor schema gives.
        let row = indus_tool::deck::find_row(name).unwrap();
        assert_eq!(d["title"], json!(row.title));
        assert_eq!(d["summary"], json!(row.summary));
        assert_eq!(d["readOnly"], json!(row.read_only));
        assert_eq!(d["profiles"], json!(row.profile_names()));
        for key in ["title", "summary", "readOnly", "profiles", "collections"] {
            d.as_object_mut().unwrap().remove(key);
        }
        assert_eq!(
            d,
            schema
                .as_array()
                .unwrap()
                .iter()
                .find(|x| &x["name"] == name)
                .unwrap()
                .clone()
        );
    }
    let out = bin().args(["--format", "json", "list"]).output().unwrap();
    let list = parse_outcome(&out);
    assert_eq!(list.as_array().unwrap().len(), names.len());
    assert!(
        list[0]["collections"]
            .as_array()
            .unwrap()
            .contains(&json!("all"))
    );
    let text = stdout(&bin().arg("list").output().unwrap());
    assert_eq!(text.lines().count(), names.len());
}

#[test]
fn max_bytes_clamps_between_rows() {
    let env = TestEnv::new();
    for i in 0..200 {
        env.write(&format!("file-{i:03}.txt"), "x");
    }
    // Text: whole rows, then how many were left out; no row is ever cut.
    let out = env.run(&["--max-bytes", "200", "ls"]);
    let text = stdout(&out);
    assert!(
        text.starts_with(".: 200 entries\nfile 1 file-000.txt\n"),
        "{text}"
    );
    let notice = text.lines().last().unwrap();
    assert!(
        notice.starts_with("[ls: ")
            && notice.ends_with(" rows left out to stay within the output ceiling]"),
        "{text}"
    );
    for row in text.lines().skip(1).filter(|l| !l.starts_with('[')) {
        assert!(
            row.starts_with("file 1 file-") && row.ends_with(".txt"),
            "a cut row: {row:?}"
        );
    }
    let shown = text.lines().count() - 2;
    assert_eq!(
        notice,
        format!(
            "[ls: {} rows left out to stay within the output ceiling]",
            200 - shown
        )
    );
    assert!(text.len() <= 201, "{}", text.len());
    // JSON: the first entries that fit, and how many were left out.
    let (v, _) = env.run_json(&["--max-bytes", "300", "ls"]);
    let entries = v["output"]["entries"].as_array().unwrap();
    assert!(!entries.is_empty() && entries.len() < 200);
    assert_eq!(v["output"]["omitted"], json!(200 - entries.len()));
    assert!(v["output"].to_string().len() <= 300);
}

#[test]
fn a_closed_stdout_ends_quietly_with_0() {
    let env = TestEnv::new();
    for i in 0..5000 {
        env.write(&format!("f{i:05}-{}", "n".repeat(40)), "");
    }
    // Read one line and close the pipe while the program is still writing.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("indus-tool"))
        // The toolbox's per-user state (its key) in the tests' home, not the host's.
        .env("HOME", common::no_home())
        .env_remove("XDG_STATE_HOME")
        .args(["--max-bytes", "100000000", "--cwd"])
        .arg(env.root())
        .arg("ls")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn completions_and_man_commands_work() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = bin().args(["completions", shell]).output().unwrap();
        assert_eq!(code(&out), 0, "{shell}");
        assert!(stdout(&out).contains("indus-tool"), "{shell}");
    }
    let out = bin().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(code(&out), 2);
    let dir = tempfile::tempdir().unwrap();
    let out = bin().arg("man").arg(dir.path()).output().unwrap();
    assert_eq!(code(&out), 0);
    assert!(dir.path().join("indus-tool.1").exists());
    assert!(dir.path().join("indus-tool-ls.1").exists());
}

#[test]
fn color_never_reaches_json_or_pipes() {
    let env = TestEnv::new();
    let out = env.run(&["--color", "always", "--format", "json", "ls", "missing"]);
    assert!(!stdout(&out).contains('\u{1b}'));
    let out = env.run(&["--color", "always", "ls", "missing"]);
    assert!(stderr(&out).contains('\u{1b}'), "always colours the error");
    let out = env.run(&["ls", "missing"]);
    assert!(
        !stderr(&out).contains('\u{1b}'),
        "auto does not colour a pipe"
    );
}

#[test]
fn global_options_after_the_tool_name() {
    let env = env_with_tree();
    env.write("sub/n.txt", "needle\n");
    let out = env.run(&["grep", "needle", "--format", "json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = parse_outcome(&out);
    assert_eq!(v["output"]["count"], json!(1));
    assert_eq!(
        v["output"]["rows"],
        json!([{"path": "sub/n.txt", "line": 1, "text": "needle", "kind": "match"}])
    );
    let out = env.run(&["ls", "sub", "--format=json", "--id", "x7"]);
    assert_eq!(parse_outcome(&out)["id"], json!("x7"));
    // A tool's own flag of the same name stays the tool's: bash's --cwd.
    let out = env.run(&["bash", "pwd", "--cwd", "sub", "--format", "json"]);
    let v = parse_outcome(&out);
    assert!(
        v["output"]["stdout"].as_str().unwrap().ends_with("/sub\n"),
        "{v}"
    );
    // A value that looks like a global option is still the flag's value.
    let out = env.run(&["grep", "--pattern", "--format", "--format", "json"]);
    assert_eq!(parse_outcome(&out)["output"]["count"], json!(0));
    let out = env.run(&["grep", "--pattern", "--format"]);
    assert_eq!(stdout(&out), "No matches for /--format/ in 4 files.\n");
}

#[test]
fn values_may_start_with_a_dash() {
    let env = TestEnv::new();
    env.write("f.md", "- item\n-x here\n");
    let out = env.run(&["grep", "--pattern", "-x"]);
    assert_eq!(
        stdout(&out),
        "f.md:2: -x here\n\nFound 1 match in 1 file (searched 1 file).\n"
    );
    let out = env.run(&["grep", "--pattern=-x"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).starts_with("f.md:2: -x here"));
    let out = env.run(&[
        "edit",
        "f.md",
        "--old-text",
        "- item",
        "--new-text",
        "- thing",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(env.read_string("f.md"), "- thing\n-x here\n");
}

#[test]
fn short_flags_people_expect() {
    let env = TestEnv::new();
    env.write("a.txt", "one\nTWO\nthree\nfour\n");
    env.write("d/b.txt", "two\n");
    // -i, -C, -e on grep; -n is rg's (line numbers, always shown), so the row
    // limit keeps its long name.
    let out = env.run(&["grep", "-i", "-n", "--limit", "1", "-C", "1", "-e", "two"]);
    assert_eq!(
        stdout(&out),
        "a.txt-1- one\na.txt:2: TWO\na.txt-3- three\n\nShowing the first 1 of 2 matches in 2 files (searched 2 files); raise limit to see more, or page on with offset=1.\n"
    );
    // -e with a path as the one word.
    let out = env.run(&["grep", "-e", "two", "d"]);
    assert_eq!(
        stdout(&out),
        "d/b.txt:1: two\n\nFound 1 match in 1 file (searched 1 file).\n"
    );
    // -t and -n on find, -n on ls.
    let out = env.run(&["find", "*", "-t", "dir"]);
    let rows: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert!(rows.contains(&"d".to_string()), "{rows:?}");
    assert!(!rows.iter().any(|r| r.ends_with(".txt")), "{rows:?}");
    let out = env.run(&["ls", "-n", "1"]);
    assert!(
        stdout(&out).contains("showing the first 1"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn process_takes_the_job_id_or_the_command_as_a_word() {
    let env = TestEnv::new();
    let out = env.run(&["process", "start", "echo hi"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("Started job-1 "),
        "{}",
        stdout(&out)
    );
    let mut polled = String::new();
    for _ in 0..100 {
        polled = stdout(&env.run(&["process", "poll", "job-1"]));
        if polled.contains("exited") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(polled.contains("job-1 exited with code 0"), "{polled}");
    assert!(polled.contains("hi"), "{polled}");
}

#[test]
fn call_echoes_a_numeric_id_as_a_number() {
    let env = env_with_tree();
    let out = env.run(&[
        "--format",
        "json",
        "call",
        r#"{"id":7,"name":"ls","input":{"path":"sub"}}"#,
    ]);
    let v = parse_outcome(&out);
    assert_eq!(v["id"], json!(7));
    let out = env.run(&["--format", "json", "call", r#"{"id":"7","name":"ls"}"#]);
    assert_eq!(parse_outcome(&out)["id"], json!("7"));
}

#[test]
fn a_colour_reset_never_follows_a_newline() {
    let env = TestEnv::new();
    let out = env.run(&["--color", "always", "bash", "printf 'a\\nb\\n' >&2; exit 2"]);
    let err = stderr(&out);
    assert!(err.contains('\u{1b}'), "{err:?}");
    assert!(
        !err.contains("\n\u{1b}[39m"),
        "a reset after a newline: {err:?}"
    );
    for line in err.lines() {
        assert!(!line.starts_with("\u{1b}[39m"), "{err:?}");
    }
}

#[test]
fn diff_gives_programs_its_counts() {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\nthree\n");
    env.write("b.txt", "one\n2\nthree\nfour\n");
    let out = env.run(&["--format", "json", "diff", "a.txt", "b.txt"]);
    assert_eq!(code(&out), 1);
    let v: Value = serde_json::from_str(stdout(&out).trim_end()).unwrap();
    assert_eq!(
        v,
        json!({
            "before": "a.txt", "after": "b.txt", "equal": false, "added": 2, "removed": 1,
            "diff": "--- a.txt\n+++ b.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n"
        })
    );
    let out = env.run(&["--format", "json", "diff", "a.txt", "a.txt"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains(r#""equal":true"#));
}
