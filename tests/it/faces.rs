//! The text face everywhere, through the real binary: `batch --format text` and
//! `call --format text` answer `{"id","text","is_error"}` whose text is exactly
//! what the command line prints for the same call, and `--exact=cli|batch|mcp`
//! shows what each face would send.

use crate::common;

use common::{TestEnv, bin, code, parse_outcome, stderr, stdout};
use serde_json::{Value, json};

const A: &str = "alpha\nbeta\ngamma\n";

fn env_with_files() -> TestEnv {
    let env = TestEnv::new();
    env.write("a.txt", A);
    env.write("src/lib.rs", "fn beta() {}\nfn delta() {}\n");
    env
}

fn lines(out: &std::process::Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// What the command line prints for a text: the text, and a newline after it
/// when it has none (nothing for an empty text).
fn printed(text: &str) -> String {
    if text.is_empty() || text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

#[test]
fn batch_text_lines_are_the_command_lines_text() {
    let env = env_with_files();
    // Each call as a one-shot subcommand (the tests' INDUS_EXACT=1 prints the
    // whole text, as an agent gets it), the tree put back after each.
    let one_shots: [(&[&str], Value); 4] = [
        (
            &["read", "a.txt"],
            json!({"id": "r", "name": "read", "input": {"path": "a.txt"}}),
        ),
        (
            &["grep", "beta", "src"],
            json!({"id": 2, "name": "grep", "input": {"pattern": "beta", "path": "src"}}),
        ),
        (
            &["edit", "a.txt", "--old-text", "beta", "--new-text", "BETA"],
            json!({"id": "e", "name": "edit", "input": {"path": "a.txt", "oldText": "beta", "newText": "BETA"}}),
        ),
        (
            &["read", "missing.txt"],
            json!({"id": "m", "name": "read", "input": {"path": "missing.txt"}}),
        ),
    ];
    let mut expected = Vec::new();
    for (args, _) in &one_shots {
        let out = env.run(args);
        // A failure is printed on stderr, and only there.
        let said = if code(&out) == 1 {
            assert_eq!(stdout(&out), "", "{args:?}");
            stderr(&out)
        } else {
            assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
            stdout(&out)
        };
        expected.push((said, code(&out) == 1));
        env.write("a.txt", A);
    }
    let input: String = one_shots.iter().map(|(_, c)| format!("{c}\n")).collect();
    let out = env
        .cmd()
        .args(["--format", "text", "batch", "--no-gate"])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let got = lines(&out);
    assert_eq!(got.len(), 4, "{}", stdout(&out));
    for (((_, call), line), (said, failed)) in one_shots.iter().zip(&got).zip(&expected) {
        let keys: Vec<&str> = line
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["id", "text", "is_error"], "{line}");
        assert_eq!(line["id"], call["id"], "the id is echoed as sent");
        assert_eq!(line["is_error"], json!(failed), "{line}");
        let text = line["text"].as_str().unwrap();
        assert_eq!(&printed(text), said, "{call}");
    }
    assert!(
        expected[2].0.starts_with("Edited a.txt"),
        "{}",
        expected[2].0
    );
    assert!(expected[3].1, "the missing file is a failure");

    // The default stays the JSON outcome, and `--format json` is the same.
    env.write("a.txt", A);
    for args in [
        &["batch", "--no-gate"][..],
        &["--format", "json", "batch", "--no-gate"],
    ] {
        let out = env
            .cmd()
            .args(args)
            .write_stdin(input.clone())
            .output()
            .unwrap();
        let got = lines(&out);
        // read's record: the lines the text shows.
        assert_eq!(
            got[0]["output"]["lines"],
            json!(["alpha", "beta", "gamma"]),
            "{args:?}"
        );
        assert!(got[2]["output"].is_object(), "edit's record: {}", got[2]);
        assert!(got.iter().all(|l| l.get("text").is_none()), "{args:?}");
        env.write("a.txt", A);
    }
    // INDUS_FORMAT=text asks as the flag does.
    let out = env
        .cmd()
        .env("INDUS_FORMAT", "text")
        .args(["batch"])
        .write_stdin(format!("{}\n", one_shots[0].1))
        .output()
        .unwrap();
    assert_eq!(lines(&out)[0]["text"], json!(expected[0].0.trim_end()));
    // A line that is not a call is answered in the text face too.
    let out = env
        .cmd()
        .args(["--format", "text", "batch"])
        .write_stdin("{nope\n")
        .output()
        .unwrap();
    let got = lines(&out);
    assert_eq!(got[0]["id"], Value::Null);
    assert_eq!(got[0]["is_error"], true);
    assert!(
        got[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Line 1 is not a JSON ToolCall: "),
        "{}",
        got[0]
    );
}

#[test]
fn call_with_format_text_answers_one_text_line() {
    let env = env_with_files();
    let plain = env.run(&[
        "call",
        r#"{"id":"c","name":"read","input":{"path":"a.txt"}}"#,
    ]);
    assert_eq!(code(&plain), 0);
    let out = env.run(&[
        "--format",
        "text",
        "call",
        r#"{"id":"c","name":"read","input":{"path":"a.txt"}}"#,
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let line = parse_outcome(&out);
    assert_eq!(
        line,
        json!({"id": "c", "text": stdout(&plain).trim_end(), "is_error": false})
    );
    // A numeric id stays a number; a failure is the same line, exit status 1.
    let out = env.run(&[
        "--format",
        "text",
        "call",
        r#"{"id":9,"name":"read","input":{"path":"nope.txt"}}"#,
    ]);
    assert_eq!(code(&out), 1);
    let line = parse_outcome(&out);
    assert_eq!(line["id"], json!(9));
    assert_eq!(line["is_error"], true);
    assert!(
        line["text"]
            .as_str()
            .unwrap()
            .starts_with("Cannot read nope.txt"),
        "{line}"
    );
    // Unasked, call prints the text as before.
    assert_eq!(
        stdout(&plain).lines().next(),
        Some("Showing lines 1–3 of 3 in a.txt.")
    );
    // The global options may follow `call` and `batch`, as they may a tool.
    let after = env.run(&[
        "call",
        "--format",
        "text",
        r#"{"id":"c","name":"read","input":{"path":"a.txt"}}"#,
    ]);
    assert_eq!(code(&after), 0, "{}", stderr(&after));
    assert_eq!(stdout(&after), stdout(&out_line(&env)));
    let batch = env
        .cmd()
        .args(["batch", "--format", "text"])
        .write_stdin(r#"{"id":"c","name":"read","input":{"path":"a.txt"}}"#)
        .output()
        .unwrap();
    assert_eq!(code(&batch), 0, "{}", stderr(&batch));
    assert_eq!(stdout(&batch), stdout(&out_line(&env)));
}

/// `--format text call` of the read of a.txt.
fn out_line(env: &TestEnv) -> std::process::Output {
    env.run(&[
        "--format",
        "text",
        "call",
        r#"{"id":"c","name":"read","input":{"path":"a.txt"}}"#,
    ])
}

#[test]
fn exact_shows_each_faces_answer() {
    let env = env_with_files();
    let cli = env.run(&["--exact=cli", "read", "a.txt"]);
    assert_eq!(code(&cli), 0, "{}", stderr(&cli));
    let text = stdout(&cli).trim_end().to_string();
    assert!(
        text.starts_with("Showing lines 1–3 of 3 in a.txt."),
        "{text}"
    );
    // Bare --exact and INDUS_EXACT=1 (the tests' default) are --exact=cli.
    assert_eq!(
        stdout(&env.run(&["--exact", "read", "a.txt"])),
        stdout(&cli)
    );
    assert_eq!(stdout(&env.run(&["read", "a.txt"])), stdout(&cli));
    // INDUS_EXACT=0 is off: on a pipe, read's summary goes to stderr.
    let off = env
        .cmd()
        .env("INDUS_EXACT", "0")
        .args(["read", "a.txt"])
        .output()
        .unwrap();
    assert_eq!(stdout(&off), "     1\talpha\n     2\tbeta\n     3\tgamma\n");
    let empty = env
        .cmd()
        .env("INDUS_EXACT", "")
        .args(["read", "a.txt"])
        .output()
        .unwrap();
    assert_eq!(stdout(&empty), stdout(&off), "an empty INDUS_EXACT is off");

    // batch: the line batch answers, JSON unless text was asked for; written
    // after the tool name too.
    let out = env.run(&["read", "a.txt", "--exact=batch"]);
    let line = parse_outcome(&out);
    assert_eq!(line["id"], "cli");
    assert_eq!(line["is_error"], false);
    assert_eq!(line["output"]["lines"], json!(["alpha", "beta", "gamma"]));
    let out = env.run(&[
        "--format",
        "text",
        "--id",
        "r1",
        "--exact=batch",
        "read",
        "a.txt",
    ]);
    assert_eq!(
        parse_outcome(&out),
        json!({"id": "r1", "text": text, "is_error": false})
    );

    // mcp: the tools/call result the server sends.
    let out = env.run(&["--exact=mcp", "read", "a.txt"]);
    let result = parse_outcome(&out);
    assert_eq!(result["content"], json!([{"type": "text", "text": text}]));
    assert_eq!(result["isError"], false);
    assert!(result.get("resultType").is_none(), "{result}");
    // An edit's record goes as structuredContent; a failure is isError, on stdout.
    let out = env.run(&["--exact=mcp", "--no-tools", "read", "a.txt"]);
    assert_eq!(code(&out), 1);
    let result = parse_outcome(&out);
    assert_eq!(result["isError"], true);
    assert_eq!(
        result["content"][0]["text"],
        "This session exposes no tool called \"read\"."
    );
    let out = env.run(&[
        "--exact=mcp",
        "edit",
        "a.txt",
        "--old-text",
        "beta",
        "--new-text",
        "BETA",
    ]);
    let result = parse_outcome(&out);
    assert_eq!(result["structuredContent"]["replacements"], 1, "{result}");
    // The environment variable names a face too, and call shows it as well.
    let out = env
        .cmd()
        .env("INDUS_EXACT", "mcp")
        .args([
            "call",
            r#"{"id":"c","name":"read","input":{"path":"a.txt"}}"#,
        ])
        .output()
        .unwrap();
    assert!(
        parse_outcome(&out)["content"].is_array(),
        "{}",
        stdout(&out)
    );
    let out = env.run(&[
        "--exact=batch",
        "call",
        r#"{"id":4,"name":"read","input":{"path":"a.txt"}}"#,
    ]);
    assert_eq!(parse_outcome(&out)["id"], json!(4));

    // Anything else is a usage error that says what --exact takes.
    let out = env.run(&["--exact=everything", "read", "a.txt"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("[possible values: cli, batch, mcp]"),
        "{}",
        stderr(&out)
    );
    let out = bin()
        .env("INDUS_EXACT", "sideways")
        .current_dir(env.root())
        .args(["read", "a.txt"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}

#[test]
fn a_toolcall_takes_a_turn_and_still_refuses_other_keys() {
    let env = env_with_files();
    let input = [
        json!({"id": "ok", "name": "ls", "input": {"path": "."}, "turn": "t1"}),
        json!({"id": "near", "name": "ls", "turns": "t1"}),
        json!({"id": "typed", "name": "ls", "turn": 5}),
    ]
    .iter()
    .map(|c| format!("{c}\n"))
    .collect::<String>();
    let out = env.cmd().arg("batch").write_stdin(input).output().unwrap();
    let got = lines(&out);
    assert_eq!(got[0]["is_error"], false, "{}", got[0]);
    assert_eq!(
        got[1]["output"],
        "Line 2: unknown key \"turns\" (did you mean \"turn\"?) in the ToolCall; it takes \"id\", \"name\", \"input\" and \"turn\"."
    );
    assert_eq!(
        got[2]["output"],
        "Line 3: \"turn\" must be a string naming the checkpoint turn, got the number 5."
    );
    let out = env.run(&["call", r#"{"id":"c","name":"ls","turn":"t1"}"#]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = env.run(&["call", r#"{"id":"c","name":"ls","arguments":{}}"#]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("unknown key \"arguments\" (did you mean \"input\"?)"),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["call", r#"{"id":"c","name":"ls","turn":["x"]}"#]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("\"turn\" must be a string naming the checkpoint turn, got an array"),
        "{}",
        stderr(&out)
    );
}
