//! The bad-input matrix: every tool given wrong types, out-of-range numbers, empty
//! strings, unknown enum values and keys, invalid regexes and globs, and every kind
//! of awkward path (missing, a directory for a file and the reverse, a FIFO,
//! `/dev/zero`, `/dev/urandom`, an unreadable file, a symlink loop, a dangling link,
//! non-UTF-8 names and contents, a 20 MB single-line file, a file growing while it
//! is read). Each case runs the real binary in a fresh temp tree under a time limit
//! and must end with the documented exit status and a message naming the field or
//! path; none may panic, hang, or leave a temp file of an atomic write behind.
//!
//! The type cases are generated from the input schemas the binary publishes
//! (each tool's field table): every field of every tool, given values of the
//! wrong type; the path cases are listed one by one. Unknown keys are refused
//! naming the likely key (see `kernel::input`), and cases check that too.

use crate::common;

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::symlink;
use std::process::Stdio;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::TestEnv;
use serde_json::{Value, json};

/// How long any one case may take before it counts as a hang.
const LIMIT: Duration = Duration::from_secs(30);
/// The size of the single-line file.
const BIG: usize = 20_000_000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Want {
    /// Exit 0, `is_error: false`.
    Ok,
    /// Exit 1, `is_error: true`.
    Error,
    /// Exit 2, a one-line usage error on stderr.
    Usage,
}

/// Extra files a case needs beyond the standard tree.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extra {
    None,
    /// `big.txt`: one 20 MB line ending in `END`.
    Big,
    /// `grow.log`, appended to from another thread while the case runs.
    Growing,
}

struct Case {
    name: String,
    args: Vec<OsString>,
    want: Want,
    /// Each must appear in the message (the outcome's text, or stderr for usage).
    needles: Vec<String>,
    extra: Extra,
}

/// The tree every case starts from:
///
/// ```text
/// f.txt "hello\n"        dir/a.txt "hello\n"     dir/pipe (FIFO)
/// fifo (FIFO)            loop1 -> loop2 -> loop1  dangling -> nowhere
/// zlink -> /dev/zero     plink -> fifo            latin1.txt "caf\xe9\n"
/// bin.dat (NULs)         noperm.txt (mode 000)    bad\xffname.txt
/// dir/loopdir -> ..      (a directory cycle for walks)
/// ```
fn standard_tree(env: &TestEnv) {
    env.write("f.txt", "hello\n");
    env.write("dir/a.txt", "hello\n");
    env.write("latin1.txt", b"caf\xe9\n");
    env.write("bin.dat", b"\x00\x01\x02hello\x00");
    let noperm = env.write("noperm.txt", "hello\n");
    std::fs::set_permissions(&noperm, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let bad = env
        .root()
        .join(OsString::from_vec(b"bad\xffname.txt".to_vec()));
    std::fs::write(bad, "hello\n").unwrap();
    for fifo in ["fifo", "dir/pipe"] {
        nix::unistd::mkfifo(
            &env.path(fifo),
            nix::sys::stat::Mode::from_bits_truncate(0o644),
        )
        .unwrap();
    }
    symlink("loop2", env.path("loop1")).unwrap();
    symlink("loop1", env.path("loop2")).unwrap();
    symlink("nowhere", env.path("dangling")).unwrap();
    symlink("/dev/zero", env.path("zlink")).unwrap();
    symlink("fifo", env.path("plink")).unwrap();
    symlink("..", env.path("dir/loopdir")).unwrap();
}

/// Whether a mode-000 file can be read here anyway (root, or CAP_DAC_OVERRIDE):
/// then "no permission" is a documented success rather than an error.
fn permissions_are_overridden() -> bool {
    let env = TestEnv::new();
    let p = env.write("probe", "x");
    std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    std::fs::read(&p).is_ok()
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

/// A case run through `call` with `--format json`.
fn call(name: &str, tool: &str, input: Value, want: Want, needles: &[&str]) -> Case {
    let call = json!({"name": tool, "input": input}).to_string();
    Case {
        name: name.to_string(),
        args: os(&["--format", "json", "call", &call]),
        want,
        needles: needles.iter().map(|s| s.to_string()).collect(),
        extra: Extra::None,
    }
}

/// A case given as command-line arguments (after `--cwd DIR`).
fn cli(name: &str, args: &[&str], want: Want, needles: &[&str]) -> Case {
    Case {
        name: name.to_string(),
        args: os(args),
        want,
        needles: needles.iter().map(|s| s.to_string()).collect(),
        extra: Extra::None,
    }
}

fn with(mut case: Case, extra: Extra) -> Case {
    case.extra = extra;
    case
}

/// What a field takes, for the generated type cases.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A string that must not be empty.
    Required,
    /// A string; empty is a documented success or its own refusal (listed apart).
    Text,
    PositiveInt,
    NonNegativeInt,
    /// A line number (read's offset): any integer but 0.
    Line,
    Bool,
    /// A number of milliseconds (fractions floored, huge values capped).
    Millis,
    Enum,
    /// An array of objects.
    Array,
    /// An array of strings, where a lone string counts as an array of one.
    Strings,
}

/// A wrong value and how the messages describe it.
fn wrong_values(kind: Kind) -> Vec<(Value, &'static str)> {
    let strings = || {
        vec![
            (json!(42), "got the number 42"),
            (json!(true), "got true"),
            (json!([]), "got an array"),
            (json!({"a": 1}), "got an object"),
        ]
    };
    let numbers = || {
        vec![
            (json!(1.5), "got the number 1.5"),
            (json!(1e308), "got the number 1e+308"),
            (
                serde_json::from_str("18446744073709551616").unwrap(),
                "got the number 1.8446744073709552e+19",
            ),
            (json!("10"), "got the string \"10\""),
            (json!(true), "got true"),
            (json!([1]), "got an array"),
            (json!(-1), "got the number -1"),
        ]
    };
    match kind {
        Kind::Required => {
            let mut v = strings();
            v.push((json!(""), "got an empty string"));
            v
        }
        Kind::Text => strings(),
        Kind::PositiveInt => {
            let mut v = numbers();
            v.push((json!(0), "got the number 0"));
            v
        }
        Kind::NonNegativeInt => numbers(),
        // A line number: negative counts from the end, only 0 is not one.
        Kind::Line => {
            let mut v: Vec<_> = numbers()
                .into_iter()
                .filter(|(v, _)| *v != json!(-1))
                .collect();
            v.push((json!(0), "got the number 0"));
            v
        }
        Kind::Bool => vec![
            (json!("yes"), "got the string \"yes\""),
            (json!(1), "got the number 1"),
            (json!([]), "got an array"),
            (json!({}), "got an object"),
        ],
        Kind::Millis => vec![
            (json!(-1), "got the number -1"),
            (json!("10"), "got the string \"10\""),
            (json!(false), "got false"),
            (json!({}), "got an object"),
        ],
        Kind::Array => vec![
            (json!("x"), "got the string \"x\""),
            (json!(42), "got the number 42"),
            (json!({}), "got an object"),
            (json!(true), "got true"),
        ],
        Kind::Strings => vec![
            (json!(42), "got the number 42"),
            (json!({}), "got an object"),
            (json!(true), "got true"),
        ],
        Kind::Enum => {
            let mut v = strings();
            v.push((json!(""), "got the string \"\""));
            v.push((json!("bogus"), "got the string \"bogus\""));
            v
        }
    }
}

/// What a field of a published schema takes; `None` for a field of several
/// types, which its tool words itself (tests/it/operator.rs covers those).
fn kind_of(field: &Value, required: bool) -> Option<Kind> {
    Some(match field["type"].as_str()? {
        "string" if field.get("enum").is_some() => Kind::Enum,
        "string" if required => Kind::Required,
        "string" => Kind::Text,
        "boolean" => Kind::Bool,
        "integer" if field["minimum"] == 0 => Kind::NonNegativeInt,
        "integer" if field.get("minimum").is_none() => Kind::Line,
        "integer" => Kind::PositiveInt,
        "number" => Kind::Millis,
        "array" if field["items"]["type"] == "string" => Kind::Strings,
        "array" => Kind::Array,
        _ => return None,
    })
}

/// A value of the right type for a required field, so that a base input passes
/// the check and the one wrong field is what is refused.
fn valid_value(field: &Value) -> Value {
    match field["type"].as_str() {
        Some("boolean") => json!(false),
        Some("array") => json!([]),
        _ => match field["enum"].get(0) {
            Some(first) => first.clone(),
            None => json!("f.txt"),
        },
    }
}

/// The tools a profile publishes, with their input schemas.
fn published(profile: &str) -> Vec<(String, Value)> {
    let out = common::bin_std()
        .args(["--profile", profile, "schema"])
        .output()
        .unwrap();
    assert!(out.status.success(), "schema --profile {profile} failed");
    let tools: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    tools
        .into_iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["parameters"].clone(),
            )
        })
        .collect()
}

/// Fields advertised as one type that take another too (`arguments`: a JSON
/// string, or the object itself), which their tool checks in its own words.
const LENIENT: &[(&str, &str)] = &[("saas-action", "arguments")];

/// Every published tool's fields, from the schemas the binary publishes (so a
/// new tool or field is covered without a line here): (profile, tool, a valid
/// input, field, kind).
fn field_table() -> Vec<(&'static str, String, Value, String, Kind)> {
    let mut rows = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for profile in ["all", "buddy"] {
        for (tool, schema) in published(profile) {
            if !seen.insert(tool.clone()) {
                continue;
            }
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let properties = schema["properties"].as_object().unwrap();
            let mut base = json!({});
            for key in &required {
                base[*key] = valid_value(&properties[*key]);
            }
            for (key, field) in properties {
                if LENIENT.contains(&(tool.as_str(), key.as_str())) {
                    continue;
                }
                if let Some(kind) = kind_of(field, required.contains(&key.as_str())) {
                    rows.push((profile, tool.clone(), base.clone(), key.clone(), kind));
                }
            }
        }
    }
    rows
}

fn type_cases() -> Vec<Case> {
    let table = field_table();
    // The table is the schemas': it must reach every built-in's fields.
    for (tool, field) in [
        ("read", "offset"),
        ("grep", "maxFileSize"),
        ("find", "type"),
    ] {
        assert!(
            table.iter().any(|r| r.1 == tool && r.3 == field),
            "the derived table lost {tool}.{field}"
        );
    }
    let mut cases = Vec::new();
    for (profile, tool, base, field, kind) in table {
        for (value, described) in wrong_values(kind) {
            let mut input = base.clone();
            input[&field] = value.clone();
            let quoted = format!("\"{field}\"");
            let mut case = call(
                &format!("{tool}.{field} = {value}"),
                &tool,
                input,
                Want::Error,
                &[&quoted, described],
            );
            case.args.splice(0..0, os(&["--profile", profile]));
            cases.push(case);
        }
    }
    cases
}

/// Values at the edges that are documented successes or refusals of their own.
fn edge_cases() -> Vec<Case> {
    use Want::*;
    vec![
        call(
            "write empty content",
            "write",
            json!({"path": "e.txt", "content": ""}),
            Ok,
            &[r#""path":"e.txt","bytes":0"#],
        ),
        call(
            "write absent content",
            "write",
            json!({"path": "e.txt"}),
            Ok,
            &[r#""bytes":0"#],
        ),
        call(
            "edit empty oldText",
            "edit",
            json!({"path": "f.txt", "oldText": "", "newText": "x"}),
            Error,
            &["oldText must not be empty."],
        ),
        call(
            "edit empty newText",
            "edit",
            json!({"path": "f.txt", "oldText": "hello\n", "newText": ""}),
            Ok,
            &["\"replacements\":1", "\"path\":\"f.txt\""],
        ),
        call(
            "edit identical texts",
            "edit",
            json!({"path": "f.txt", "oldText": "hello", "newText": "hello"}),
            Error,
            &["oldText and newText are identical"],
        ),
        call(
            "edit short sha",
            "edit",
            json!({"path": "f.txt", "oldText": "hello", "newText": "b", "expectSha256": "zz"}),
            Error,
            &["\"expectSha256\"", "64 hexadecimal characters"],
        ),
        // A strict-mode model must fill every key: "" is "no expectation".
        call(
            "edit empty sha",
            "edit",
            json!({"path": "f.txt", "oldText": "hello", "newText": "b", "expectSha256": ""}),
            Ok,
            &[r#""replacements":1"#],
        ),
        call(
            "edit stale sha",
            "edit",
            json!({"path": "f.txt", "oldText": "hello", "newText": "b", "expectSha256": "0".repeat(64)}),
            Error,
            &["f.txt has changed"],
        ),
        call(
            "ls empty path is the cwd",
            "ls",
            json!({"path": ""}),
            Ok,
            &["f.txt"],
        ),
        call(
            "grep empty path is the cwd",
            "grep",
            json!({"pattern": "hello", "path": ""}),
            Ok,
            &[r#""path":"f.txt","line":1,"text":"hello""#],
        ),
        call(
            "grep empty flags",
            "grep",
            json!({"pattern": "hello", "flags": ""}),
            Ok,
            &[r#""path":"f.txt","line":1,"text":"hello""#],
        ),
        call(
            "grep unknown flag letter",
            "grep",
            json!({"pattern": "x", "flags": "q"}),
            Error,
            &["\"flags\"", "got the string \"q\""],
        ),
        call(
            "grep context 0",
            "grep",
            json!({"pattern": "hello", "context": 0}),
            Ok,
            &[r#""path":"f.txt","line":1,"text":"hello""#],
        ),
        call(
            "grep huge context",
            "grep",
            json!({"pattern": "hello", "context": 1_000_000_000u64}),
            Ok,
            &[r#""path":"f.txt","line":1,"text":"hello""#],
        ),
        call(
            "grep limit over the ceiling",
            "grep",
            json!({"pattern": "hello", "limit": 1_000_000_000u64}),
            Error,
            &["\"limit\"", "at most 5000", "got the number 1000000000"],
        ),
        call(
            "grep limit at the ceiling",
            "grep",
            json!({"pattern": "hello", "limit": 5000}),
            Ok,
            &[r#""path":"f.txt","line":1,"text":"hello""#],
        ),
        call(
            "grep empty glob",
            "grep",
            json!({"pattern": "hello", "glob": ""}),
            Ok,
            &[r#""path":"f.txt","line":1,"text":"hello""#],
        ),
        call(
            "find limit over the ceiling",
            "find",
            json!({"pattern": "f", "limit": 1_000_000_000u64}),
            Error,
            &["\"limit\"", "at most 10000"],
        ),
        call(
            "bash fractional timeout",
            "bash",
            json!({"command": "echo hi", "timeoutMs": 1500.7}),
            Ok,
            &["hi"],
        ),
        call(
            "bash huge timeout is capped",
            "bash",
            json!({"command": "echo hi", "timeoutMs": 1e308}),
            Ok,
            &["hi"],
        ),
        call(
            "bash zero timeout",
            "bash",
            json!({"command": "echo hi", "timeoutMs": 0}),
            Error,
            &["\"timeoutMs\""],
        ),
        // A strict-mode model's filler: "" is the working directory.
        call(
            "bash empty cwd",
            "bash",
            json!({"command": "pwd", "cwd": ""}),
            Ok,
            &[r#""exitCode":0"#],
        ),
        call(
            "process empty cwd",
            "process",
            json!({"action": "start", "command": "true", "cwd": ""}),
            Ok,
            &[r#""status":"running""#],
        ),
        call(
            "process start without command",
            "process",
            json!({"action": "start"}),
            Error,
            &["Missing \"command\""],
        ),
        call(
            "process poll without id",
            "process",
            json!({"action": "poll"}),
            Error,
            &["Missing \"id\""],
        ),
        call(
            "process write without input",
            "process",
            json!({"action": "write", "id": "job-1"}),
            Error,
            &["Missing \"input\""],
        ),
        call(
            "process without action",
            "process",
            json!({}),
            Error,
            &["Missing \"action\""],
        ),
        call(
            "todo_set item not an object",
            "todo_set",
            json!({"items": [1]}),
            Error,
            &["\"items[0]\""],
        ),
        call(
            "todo_set item without id",
            "todo_set",
            json!({"items": [{"text": "t", "status": "done"}]}),
            Error,
            &["Missing \"items[0].id\""],
        ),
        call(
            "todo_set item id a number",
            "todo_set",
            json!({"items": [{"id": 7, "text": "t", "status": "done"}]}),
            Error,
            &["\"items[0].id\"", "got the number 7"],
        ),
        call(
            "todo_set item empty text",
            "todo_set",
            json!({"items": [{"id": "a", "text": "", "status": "done"}]}),
            Error,
            &["\"items[0].text\""],
        ),
        call(
            "todo_set item bad status",
            "todo_set",
            json!({"items": [{"id": "a", "text": "t", "status": "bogus"}]}),
            Error,
            &["\"items[0].status\"", "\"bogus\""],
        ),
        call(
            "todo_set item bad priority",
            "todo_set",
            json!({"items": [{"id": "a", "text": "t", "status": "done", "priority": "urgent"}]}),
            Error,
            &["\"items[0].priority\""],
        ),
        call(
            "todo_set duplicate ids",
            "todo_set",
            json!({"items": [{"id": "a", "text": "t", "status": "done"}, {"id": "a", "text": "u", "status": "done"}]}),
            Error,
            &["\"items[1].id\"", "unique"],
        ),
        call(
            "todo_set empty list",
            "todo_set",
            json!({"items": []}),
            Ok,
            &[],
        ),
        call(
            "todo_set missing items",
            "todo_set",
            json!({}),
            Error,
            &["Missing \"items\""],
        ),
        call(
            "websearch count over the ceiling",
            "websearch",
            json!({"query": "q", "count": 1000}),
            Error,
            &["127.0.0.1:9"],
        ),
        call(
            "webfetch relative url",
            "webfetch",
            json!({"url": "example.com"}),
            Error,
            &["\"url\"", "absolute http:// or https:// URL"],
        ),
        call(
            "webfetch ftp url",
            "webfetch",
            json!({"url": "ftp://example.com/x"}),
            Error,
            &["\"url\""],
        ),
        call(
            "webfetch url with spaces",
            "webfetch",
            json!({"url": "http://exa mple.com/"}),
            Error,
            &["\"url\""],
        ),
        call(
            "webfetch maxBytes over the ceiling",
            "webfetch",
            json!({"url": "http://127.0.0.1:9/", "maxBytes": 1u64 << 40}),
            Error,
            // Pinned, not refused: the call gets as far as judging the address.
            &["Refused to fetch http://127.0.0.1:9/"],
        ),
        // The envelope: input that is not an object, unknown tools and keys.
        call(
            "input a number",
            "read",
            json!(42),
            Error,
            &["Invalid input for read", "got the number 42"],
        ),
        call(
            "input an array",
            "read",
            json!([1]),
            Error,
            &["Invalid input for read", "got an array"],
        ),
        call(
            "input a plain string",
            "read",
            json!("f.txt"),
            Error,
            &["Invalid input for read", "got the string \"f.txt\""],
        ),
        call(
            "input a JSON string is coerced",
            "read",
            json!("{\"path\":\"f.txt\"}"),
            Ok,
            &[r#""lines":["hello"]"#],
        ),
        call(
            "input null is no fields",
            "read",
            Value::Null,
            Error,
            &["Missing \"path\""],
        ),
        call(
            "unknown keys are refused with what the tool takes",
            "read",
            json!({"path": "f.txt", "bogusKey": [1, 2]}),
            Error,
            &[
                "unknown key \"bogusKey\"",
                "read takes: path, offset, limit",
            ],
        ),
        call(
            "a near-miss key is refused with the key meant",
            "bash",
            json!({"command": "true", "timeout": 1}),
            Error,
            &["unknown key \"timeout\"; did you mean \"timeoutMs\"?"],
        ),
        call(
            "unknown tool",
            "nope",
            json!({}),
            Error,
            &["This session exposes no tool called \"nope\"."],
        ),
        cli(
            "call without a name",
            &["call", "{\"input\":{}}"],
            Usage,
            &["\"name\""],
        ),
        cli("call not an object", &["call", "[1]"], Usage, &["ToolCall"]),
        cli("call malformed JSON", &["call", "{"], Usage, &["call"]),
        cli(
            "--json malformed",
            &["read", "--json", "{bad"],
            Usage,
            &["--json", "malformed JSON"],
        ),
        cli(
            "--json from a missing file",
            &["read", "--json", "@missing.json"],
            Usage,
            &["missing.json"],
        ),
        cli(
            "unknown flag",
            &["read", "--bogus", "f.txt"],
            Usage,
            &["--bogus"],
        ),
        cli("unknown subcommand", &["bogus"], Usage, &["bogus"]),
        cli(
            "negative limit flag",
            &["read", "--limit=-3", "f.txt"],
            Error,
            &["\"limit\"", "got the number -3"],
        ),
        cli(
            "non-numeric limit flag",
            &["read", "--limit", "abc", "f.txt"],
            Error,
            &["\"limit\"", "got the string \"abc\""],
        ),
        cli(
            "max-bytes not a number",
            &["--max-bytes", "lots", "ls"],
            Usage,
            &["--max-bytes"],
        ),
        cli(
            "unknown collection",
            &["--collection", "bogus", "ls"],
            Usage,
            &["bogus"],
        ),
    ]
}

/// Awkward paths, one tool at a time.
fn path_cases() -> Vec<Case> {
    use Want::*;
    let root_reads = permissions_are_overridden();
    let noperm = if root_reads { Ok } else { Error };
    let long = "x".repeat(5000);
    let long_name = "y".repeat(300);
    vec![
        // read
        cli(
            "read missing",
            &["read", "missing.txt"],
            Error,
            &["Cannot read missing.txt", "ENOENT"],
        ),
        cli(
            "read a directory",
            &["read", "dir"],
            Error,
            &["dir is a directory; use ls to list it."],
        ),
        cli(
            "read a FIFO",
            &["read", "fifo"],
            Error,
            &[
                "fifo is not a regular file (a FIFO, socket or device); read shows regular files only.",
            ],
        ),
        cli(
            "read a link to a FIFO",
            &["read", "plink"],
            Error,
            &["plink is a symbolic link"],
        ),
        cli(
            "read /dev/zero",
            &["read", "/dev/zero"],
            Error,
            &["/dev/zero is not a regular file"],
        ),
        cli(
            "read /dev/urandom",
            &["read", "/dev/urandom"],
            Error,
            &["/dev/urandom is not a regular file"],
        ),
        cli(
            "read a link to /dev/zero",
            &["read", "zlink"],
            Error,
            &["zlink is a symbolic link"],
        ),
        cli(
            "read a symlink loop",
            &["read", "loop1"],
            Error,
            &["loop1 is a symbolic link that does not lead to a regular file"],
        ),
        cli(
            "read a dangling link",
            &["read", "dangling"],
            Error,
            &["dangling is a symbolic link"],
        ),
        cli(
            "read non-UTF-8 contents",
            &["read", "latin1.txt"],
            Ok,
            &["not valid UTF-8", "caf\u{FFFD}"],
        ),
        cli(
            "read a binary file",
            &["read", "bin.dat"],
            Error,
            &["bin.dat looks binary"],
        ),
        cli(
            "read without permission",
            &["read", "noperm.txt"],
            noperm,
            &["noperm.txt"],
        ),
        cli(
            "read a NUL in the path",
            &[
                "--format",
                "json",
                "call",
                r#"{"name":"read","input":{"path":"a\u0000b"}}"#,
            ],
            Error,
            &["Cannot read a\\x00b"],
        ),
        cli(
            "read a 5000-byte path",
            &["read", &long],
            Error,
            &["Cannot read xxx", "ENAMETOOLONG"],
        ),
        cli(
            "read offset past the end",
            &["read", "f.txt", "--offset", "99"],
            Error,
            &["offset 99 is past the end of f.txt, which has 1 line."],
        ),
        with(
            cli(
                "read a 20 MB single line",
                &["read", "big.txt"],
                Ok,
                // The tests see the agents' face, which cuts at 500 characters.
                &["Line 1 is cut at 500 characters (19999503 characters not shown)."],
            ),
            Extra::Big,
        ),
        with(
            cli(
                "read the end of a 20 MB line",
                &["--max-bytes", "200", "read", "big.txt"],
                Ok,
                &["big.txt"],
            ),
            Extra::Big,
        ),
        with(
            cli(
                "read a growing file",
                &["read", "grow.log"],
                Ok,
                &["grow.log", "1\tline"],
            ),
            Extra::Growing,
        ),
        // write
        cli(
            "write a directory",
            &["write", "dir", "--content", "x"],
            Error,
            &["dir is a directory; write needs a file path."],
        ),
        cli(
            "write a FIFO",
            &["write", "fifo", "--content", "x"],
            Error,
            &[
                "fifo is not a regular file (a FIFO, socket or device); write replaces regular files only.",
            ],
        ),
        cli(
            "write through a link to a FIFO",
            &["write", "plink", "--content", "x"],
            Error,
            &["Cannot write plink", "not a regular file"],
        ),
        cli(
            "write a symlink loop",
            &["write", "loop1", "--content", "x"],
            Error,
            &["Cannot write loop1", "ELOOP"],
        ),
        cli(
            "write under a file",
            &["write", "f.txt/child", "--content", "x"],
            Error,
            &["f.txt/child"],
        ),
        cli(
            "write a 300-byte name",
            &["write", &long_name, "--content", "x"],
            Error,
            &["Cannot write yyy", "ENAMETOOLONG"],
        ),
        cli(
            "write a dangling link creates its target",
            &["write", "dangling", "--content", "x"],
            Ok,
            &["Saved 1 byte to dangling."],
        ),
        cli(
            "write new folders",
            &["write", "a/b/c/new.txt", "--content", "x"],
            Ok,
            &["Saved 1 byte to a/b/c/new.txt."],
        ),
        cli(
            "a flag past the tool's ceiling names the maximum",
            &["bash", "true", "--timeout-ms", "9999999"],
            Usage,
            &["--timeout-ms: 9999999 is more than it takes; at most 600000"],
        ),
        cli(
            "an unknown key in --json",
            &[
                "edit",
                "f.txt",
                "--json",
                r#"{"oldText":"hello","newText":"bye","replace_all":true}"#,
            ],
            Error,
            &["Invalid input for edit: unknown key \"replace_all\"; did you mean \"replaceAll\"?"],
        ),
        cli(
            "a ToolCall key that is not id, name or input",
            &["call", r#"{"name":"read","arguments":{"path":"f.txt"}}"#],
            Usage,
            &["unknown key \"arguments\" (did you mean \"input\"?) in the ToolCall"],
        ),
        cli(
            "write with no content and stdin closed",
            &["write", "x.txt"],
            Usage,
            &["no content given", "--content"],
        ),
        // edit
        cli(
            "edit missing",
            &["edit", "missing.txt", "--old-text", "a", "--new-text", "b"],
            Error,
            &["Cannot edit missing.txt", "ENOENT"],
        ),
        cli(
            "edit a directory",
            &["edit", "dir", "--old-text", "a", "--new-text", "b"],
            Error,
            &["dir is a directory; edit needs a file."],
        ),
        cli(
            "edit a FIFO",
            &["edit", "fifo", "--old-text", "a", "--new-text", "b"],
            Error,
            &[
                "fifo is not a regular file (a FIFO, socket or device); edit changes regular files only.",
            ],
        ),
        cli(
            "edit /dev/zero",
            &["edit", "/dev/zero", "--old-text", "a", "--new-text", "b"],
            Error,
            &["/dev/zero is not a regular file"],
        ),
        cli(
            "edit /dev/urandom",
            &["edit", "/dev/urandom", "--old-text", "a", "--new-text", "b"],
            Error,
            &["/dev/urandom is not a regular file"],
        ),
        cli(
            "edit a link to /dev/zero",
            &["edit", "zlink", "--old-text", "a", "--new-text", "b"],
            Error,
            &["zlink is a symbolic link"],
        ),
        cli(
            "edit a symlink loop",
            &["edit", "loop1", "--old-text", "a", "--new-text", "b"],
            Error,
            &["loop1 is a symbolic link"],
        ),
        cli(
            "edit a dangling link",
            &["edit", "dangling", "--old-text", "a", "--new-text", "b"],
            Error,
            &["dangling is a symbolic link"],
        ),
        cli(
            "edit non-UTF-8 contents",
            &["edit", "latin1.txt", "--old-text", "caf", "--new-text", "b"],
            Error,
            &[
                "latin1.txt is not valid UTF-8 (first bad byte at offset 3); edit refuses to rewrite it.",
            ],
        ),
        cli(
            "edit a binary file",
            &["edit", "bin.dat", "--old-text", "hello", "--new-text", "b"],
            Ok,
            &["Edited bin.dat"],
        ),
        cli(
            "edit without permission",
            &[
                "edit",
                "noperm.txt",
                "--old-text",
                "hello",
                "--new-text",
                "b",
            ],
            noperm,
            &["noperm.txt"],
        ),
        cli(
            "edit not found",
            &["edit", "f.txt", "--old-text", "absent", "--new-text", "b"],
            Error,
            &["oldText was not found in f.txt"],
        ),
        with(
            cli(
                "edit the end of a 20 MB line",
                &["edit", "big.txt", "--old-text", "END", "--new-text", "FIN"],
                Ok,
                &["Edited big.txt: 1 replacement."],
            ),
            Extra::Big,
        ),
        with(
            cli(
                "edit a 20 MB line found many times",
                &["edit", "big.txt", "--old-text", "aaaa", "--new-text", "b"],
                Error,
                &["oldText was found 5000000 times in big.txt (line 1)"],
            ),
            Extra::Big,
        ),
        // ls
        cli(
            "ls missing",
            &["ls", "missing"],
            Error,
            &["Cannot list missing", "ENOENT"],
        ),
        cli(
            "ls a file",
            &["ls", "f.txt"],
            Ok,
            &["f.txt: 1 entry\nfile "],
        ),
        cli(
            "ls a FIFO",
            &["ls", "fifo"],
            Ok,
            &["fifo: 1 entry\nother 0 fifo"],
        ),
        cli(
            "ls a symlink loop",
            &["ls", "loop1"],
            Ok,
            &["loop1: 1 entry\nlink "],
        ),
        cli(
            "ls /dev/zero",
            &["ls", "/dev/zero"],
            Ok,
            &["/dev/zero: 1 entry\nother 0 /dev/zero"],
        ),
        cli(
            "ls a tree of oddities",
            &["ls"],
            Ok,
            &["bad\u{FFFD}name.txt", "fifo", "loop1", "dir/"],
        ),
        cli(
            "ls a directory cycle",
            &["ls", "dir/loopdir/dir/loopdir"],
            Ok,
            &["f.txt", "dir/"],
        ),
        // grep
        cli(
            "grep an unclosed group",
            &["grep", "("],
            Error,
            &["Could not compile the search pattern", "unclosed group"],
        ),
        cli(
            "grep a huge repetition",
            &["grep", "a{99999999}"],
            Error,
            &["Could not compile the search pattern"],
        ),
        cli(
            "grep a bad escape",
            &["grep", "\\p{Bogus}"],
            Error,
            &["Could not compile the search pattern"],
        ),
        cli(
            "grep an invalid glob",
            &["grep", "hello", "--glob", "["],
            Error,
            &["\"glob\"", "got the string \"[\""],
        ),
        cli(
            "grep missing",
            &["grep", "hello", "missing"],
            Error,
            &["Cannot search missing", "ENOENT"],
        ),
        cli(
            "grep a FIFO",
            &["grep", "hello", "fifo"],
            Error,
            &[
                "fifo is not a regular file (a FIFO, socket or device); grep searches regular files and folders.",
            ],
        ),
        cli(
            "grep /dev/zero",
            &["grep", "hello", "/dev/zero"],
            Error,
            &["/dev/zero is not a regular file"],
        ),
        cli(
            "grep /dev/urandom",
            &["grep", "hello", "/dev/urandom"],
            Error,
            &["/dev/urandom is not a regular file"],
        ),
        cli(
            "grep a link to /dev/zero",
            &["grep", "hello", "zlink"],
            Error,
            &["zlink is a symbolic link"],
        ),
        cli(
            "grep a symlink loop",
            &["grep", "hello", "loop1"],
            Error,
            &["loop1 is a symbolic link"],
        ),
        cli(
            "grep a tree with FIFOs, loops and odd names",
            &["grep", "hello"],
            Ok,
            &[
                "f.txt:1: hello",
                "dir/a.txt:1: hello",
                "bad\u{FFFD}name.txt:1: hello",
            ],
        ),
        cli(
            "grep non-UTF-8 contents",
            &["grep", "caf", "latin1.txt"],
            Ok,
            &["latin1.txt:1: caf"],
        ),
        cli(
            "grep a directory cycle",
            &["grep", "hello", "dir/loopdir"],
            Ok,
            &["Found"],
        ),
        with(
            cli(
                "grep a 20 MB single line named outright",
                &["grep", "END", "big.txt"],
                Ok,
                &[
                    "big.txt:1: aaaa",
                    "a … [line truncated, 19999503 more bytes]",
                    "Found 1 match in 1 file (searched 1 file).",
                ],
            ),
            Extra::Big,
        ),
        with(
            cli(
                "grep a tree holding a 20 MB line",
                &["grep", "END"],
                Ok,
                &["1 file over 2 MiB"],
            ),
            Extra::Big,
        ),
        with(
            cli(
                "edit a growing file",
                &[
                    "edit",
                    "grow.log",
                    "--old-text",
                    "line 0\n",
                    "--new-text",
                    "first\n",
                ],
                Ok,
                &["Edited grow.log: 1 replacement."],
            ),
            Extra::Growing,
        ),
        with(
            cli(
                "grep a growing file",
                &["grep", "line", "grow.log"],
                Ok,
                &["grow.log:1: line"],
            ),
            Extra::Growing,
        ),
        // find
        cli(
            "find missing",
            &["find", "x", "--path", "missing"],
            Error,
            &["missing"],
        ),
        cli(
            "find in a file",
            &["find", "x", "--path", "f.txt"],
            Error,
            &["Not a directory: f.txt"],
        ),
        cli(
            "find in a FIFO",
            &["find", "x", "--path", "fifo"],
            Error,
            &["Not a directory: fifo"],
        ),
        cli(
            "find in a symlink loop",
            &["find", "x", "--path", "loop1"],
            Error,
            &["Not a directory: loop1"],
        ),
        cli(
            "find a tree with loops",
            &["find", "*"],
            Ok,
            &["loop1", "fifo", "dir/pipe", "dir/loopdir"],
        ),
        cli(
            "find an invalid glob",
            &["find", "*[", "--type", "file"],
            Error,
            &["Invalid \"pattern\"", "unclosed character class", "\"*[\""],
        ),
        cli(
            "find non-UTF-8 names",
            &["find", "name"],
            Ok,
            &["bad\u{FFFD}name.txt"],
        ),
        // bash and process working directories
        cli(
            "bash cwd missing",
            &["bash", "pwd", "--cwd", "missing"],
            Error,
            &["\"cwd\"", "ENOENT"],
        ),
        cli(
            "bash cwd a file",
            &["bash", "pwd", "--cwd", "f.txt"],
            Error,
            &["Invalid \"cwd\": f.txt is not a directory."],
        ),
        cli(
            "bash cwd a FIFO",
            &["bash", "pwd", "--cwd", "fifo"],
            Error,
            &["Invalid \"cwd\": fifo is not a directory."],
        ),
        cli(
            "bash cwd a loop",
            &["bash", "pwd", "--cwd", "loop1"],
            Error,
            &["\"cwd\"", "loop1"],
        ),
        cli(
            "bash timeout",
            &["bash", "sleep 10", "--timeout-ms", "200"],
            Error,
            &["timed out after 200 ms"],
        ),
        cli(
            "bash 30 MB of output",
            &["bash", "head -c 30000000 /dev/zero | tr '\\0' a"],
            Ok,
            &["bytes (0 lines) of stdout elided to stay within the output ceiling"],
        ),
        cli(
            "bash binary output",
            &["bash", "head -c 100000 /dev/urandom"],
            Ok,
            &["stdout"],
        ),
        cli(
            "process cwd missing",
            &["process", "start", "--command", "true", "--cwd", "missing"],
            Error,
            &["\"cwd\"", "ENOENT"],
        ),
        cli(
            "process cwd a file",
            &["process", "start", "--command", "true", "--cwd", "f.txt"],
            Error,
            &["\"cwd\"", "f.txt"],
        ),
        cli(
            "process poll unknown",
            &["process", "poll", "--id", "nope"],
            Error,
            &["No job \"nope\""],
        ),
        cli(
            "process stop unknown",
            &["process", "stop", "--id", "nope"],
            Error,
            &["No job \"nope\""],
        ),
        cli(
            "process write unknown",
            &["process", "write", "--id", "nope", "--input", "x"],
            Error,
            &["No job \"nope\""],
        ),
        cli(
            "process remove unknown",
            &["process", "remove", "--id", "nope"],
            Error,
            &["No job \"nope\""],
        ),
        // diff
        cli(
            "diff missing",
            &["diff", "missing", "f.txt"],
            Usage,
            &["diff: cannot read missing"],
        ),
        cli(
            "diff a directory",
            &["diff", "dir", "f.txt"],
            Usage,
            &["diff: cannot read dir"],
        ),
        cli(
            "diff a FIFO",
            &["diff", "fifo", "f.txt"],
            Usage,
            &["diff: cannot read fifo"],
        ),
        cli(
            "diff /dev/zero",
            &["diff", "/dev/zero", "f.txt"],
            Usage,
            &["diff: cannot read /dev/zero"],
        ),
        cli(
            "diff non-UTF-8",
            &["diff", "latin1.txt", "f.txt"],
            Usage,
            &["latin1.txt is not valid UTF-8"],
        ),
        cli(
            "diff a symlink loop",
            &["diff", "loop1", "f.txt"],
            Usage,
            &["diff: cannot read loop1"],
        ),
    ]
}

/// A case whose argument is not UTF-8 at all (a file name from a Latin-1 world).
fn non_utf8_argument() -> Case {
    let mut case = cli("read a non-UTF-8 argument", &["read"], Want::Usage, &[]);
    case.args
        .push(OsString::from_vec(b"bad\xffname.txt".to_vec()));
    case.needles = vec![
        "argument".into(),
        "bad\u{FFFD}name.txt".into(),
        "not valid UTF-8".into(),
    ];
    case
}

fn all_cases() -> Vec<Case> {
    let mut cases = type_cases();
    cases.extend(edge_cases());
    cases.extend(path_cases());
    cases.push(non_utf8_argument());
    cases
}

/// Run one case; `Err` says how it failed.
fn run(case: &Case) -> Result<(), String> {
    let env = TestEnv::new();
    standard_tree(&env);
    if case.extra == Extra::Big {
        let mut line = vec![b'a'; BIG];
        line.extend_from_slice(b"END\n");
        env.write("big.txt", &line);
    }
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        if case.extra == Extra::Growing {
            let mut f = std::fs::File::create(env.path("grow.log")).unwrap();
            f.write_all(b"line 0\n").unwrap();
            let stop = &stop;
            scope.spawn(move || {
                let mut n = 1u64;
                while !stop.load(Ordering::Relaxed) && n < 200_000 {
                    let _ = writeln!(f, "line {n} {}", "x".repeat(100));
                    n += 1;
                }
            });
        }
        let result = run_binary(&env, case);
        stop.store(true, Ordering::Relaxed);
        result
    })?;
    let left = common::temp_leftovers(env.root());
    if !left.is_empty() {
        return Err(format!("left temp files behind: {left:?}"));
    }
    Ok(())
}

fn run_binary(env: &TestEnv, case: &Case) -> Result<(), String> {
    let mut child = common::bin_std()
        .env("INDUS_WEBSEARCH_URL", "http://127.0.0.1:9/")
        .current_dir(env.root())
        .arg("--cwd")
        .arg(env.root())
        .args(&case.args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    // Drain both pipes on threads so a chatty child never blocks on a full pipe.
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut out_pipe, &mut v);
        v
    });
    let err_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = std::io::Read::read_to_end(&mut err_pipe, &mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("hung: still running after {LIMIT:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let stdout = String::from_utf8_lossy(&out_t.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&err_t.join().unwrap()).into_owned();
    if stderr.contains("panicked") || stdout.contains("panicked") {
        return Err(format!("panicked: {stderr}"));
    }
    let code = status.code().ok_or("killed by a signal")?;
    // grep and find answer as rg and fd do, as subcommands and through `call`:
    // 2 for trouble; grep 1 for nothing found, find 0 (as fd without -q). diagnose
    // is a gate, as a compiler: 2 for trouble too. sgrep answers as grep.
    let names = |tool: &str| {
        let called = format!("\"name\":\"{tool}\"");
        case.args
            .iter()
            .any(|a| a == tool || a.to_string_lossy().contains(&called))
    };
    let (grep, search) = (
        names("grep") || names("sgrep"),
        names("grep") || names("sgrep") || names("find") || names("diagnose"),
    );
    let expected_code = match case.want {
        Want::Ok if grep && stdout.contains("No matches for ") => 1,
        Want::Ok => 0,
        Want::Error if search => 2,
        Want::Error => 1,
        Want::Usage => 2,
    };
    if code != expected_code {
        return Err(format!(
            "exit {code}, wanted {expected_code}; stdout {:?}, stderr {:?}",
            clip(&stdout),
            clip(&stderr)
        ));
    }
    let json = case.args.iter().any(|a| a == "json");
    let message = match case.want {
        // The CLI's own usage errors are one line; clap's keep its whole report
        // (the problem, allowed values or usage line, and the hint).
        Want::Usage => {
            let ours = stderr.lines().count() == 1 && stderr.starts_with("indus-tool: error:");
            let clap = stderr.starts_with("error: ")
                && stderr.ends_with("For more information, try '--help'.\n");
            if !ours && !clap {
                return Err(format!("not a usage error report: {stderr:?}"));
            }
            stderr
        }
        _ if json => {
            let outcome: Value = serde_json::from_str(stdout.trim_end())
                .map_err(|e| format!("stdout is not one JSON outcome ({e}): {stdout:?}"))?;
            if outcome["is_error"] != json!(case.want == Want::Error) {
                return Err(format!("is_error is wrong: {outcome}"));
            }
            // An operator tool's answer is wrapped in its harness envelope.
            let output = &outcome["output"];
            match output.get("result").unwrap_or(output) {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }
        }
        Want::Error => stderr,
        Want::Ok => stdout,
    };
    for needle in &case.needles {
        if !message.contains(needle.as_str()) {
            return Err(format!("message lacks {needle:?}: {:?}", clip(&message)));
        }
    }
    Ok(())
}

fn clip(s: &str) -> String {
    if s.len() <= 600 {
        return s.to_string();
    }
    let end = (0..=600).rev().find(|&i| s.is_char_boundary(i)).unwrap();
    format!("{}…", &s[..end])
}

#[test]
fn the_bad_input_matrix() {
    let cases = all_cases();
    assert!(cases.len() >= 150, "only {} cases", cases.len());
    let mut names = std::collections::HashSet::new();
    for c in &cases {
        assert!(names.insert(c.name.clone()), "two cases named {:?}", c.name);
    }
    let failures = Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    if let Err(why) = run(case) {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("{}: {why}", case.name));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Every tool's answer stays within the output budget (`--max-bytes`), whatever
/// the size of what it looked at: each block at most the budget plus its notice.
#[test]
fn every_answer_is_bounded_by_the_budget() {
    const MAX: usize = 1000;
    let env = TestEnv::new();
    let lines: String = (0..20_000)
        .map(|i| format!("line {i} with text\n"))
        .collect();
    env.write("big.txt", &lines);
    for i in 0..2000 {
        env.write(&format!("many/file-{i:04}.txt"), "x");
    }
    let items: Vec<Value> = (0..3000)
        .map(|i| json!({"id": format!("i{i}"), "text": "y".repeat(60), "status": "pending"}))
        .collect();
    env.write("items.json", json!({ "items": items }).to_string());
    let job = env.run(&["process", "start", "--command", "seq 1 200000"]);
    assert_eq!(common::code(&job), 0);
    assert!(common::wait_until(Duration::from_secs(10), || {
        std::fs::read_to_string(env.path(".indus-process/jobs/job-1/exit")).is_ok()
    }));
    let calls: Vec<Vec<&str>> = vec![
        vec!["read", "big.txt"],
        vec!["ls", "many"],
        vec!["find", "file"],
        vec!["grep", "line", "--limit", "5000"],
        vec!["bash", "seq 1 100000"],
        vec!["process", "poll", "--id", "job-1"],
        vec!["todo_set", "--json", "@items.json"],
        vec!["todo_read"],
        vec![
            "edit",
            "big.txt",
            "--old-text",
            "with",
            "--new-text",
            "WITH",
            "--replace-all",
        ],
    ];
    for args in calls {
        for format in ["text", "json"] {
            let mut all = vec!["--max-bytes", "1000", "--format", format];
            all.extend(args.iter().copied());
            // The edit runs twice; the second (JSON) one undoes the first.
            if args[0] == "edit" && format == "json" {
                all.swap(7, 9);
            }
            let out = env.run(&all);
            assert_eq!(common::code(&out), 0, "{args:?}: {}", common::stderr(&out));
            // Two blocks at most (text and JSON), each within the budget plus a
            // notice of under 100 bytes, plus the JSON envelope and its escapes.
            let len = out.stdout.len();
            assert!(
                len <= 2 * (MAX + 100) + 400,
                "{args:?} as {format}: {len} bytes"
            );
        }
    }
}
