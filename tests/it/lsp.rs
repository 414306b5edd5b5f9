//! `diagnose`, `lsp` and `edit --diagnose` against real language servers on small
//! real projects made here (pyright, typescript-language-server, gopls, clangd,
//! pylsp; rust-analyzer when on PATH), and against a scripted stub server that
//! misbehaves on purpose: late and stale-version publications, a crash in the
//! middle of a request, a server that never answers, a flood of diagnostics.
//!
//! Each test's project is its own temp folder, so each has its own warm broker;
//! a guard stops it (and its servers) however the test ends.

use crate::common::{self, TestEnv, code, stderr, stdout};

use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// Where `.ci/run` installs the npm servers: `INDUS_LSP_PEERS`, else `target/lsp-peers`.
fn peers_bin() -> PathBuf {
    std::env::var_os("INDUS_LSP_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/lsp-peers"))
        .join("node_modules/.bin")
}

/// PATH with the npm servers first.
fn path_var() -> String {
    format!(
        "{}:{}",
        peers_bin().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn on_path(program: &str) -> bool {
    std::env::split_paths(&path_var()).any(|d| d.join(program).is_file())
}

/// A project folder whose broker is stopped when the test ends.
struct Project {
    env: TestEnv,
    config: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        Project {
            env: TestEnv::new(),
            config: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        self.env
            .cmd()
            .env("PATH", path_var())
            .env("XDG_CONFIG_HOME", self.config.path())
            .args(args)
            .output()
            .unwrap()
    }

    fn json(&self, args: &[&str]) -> (Value, std::process::Output) {
        let mut all = vec!["--format", "json"];
        all.extend_from_slice(args);
        let out = self.run(&all);
        (common::parse_outcome(&out), out)
    }

    /// The user's lsp.json (needs no trust).
    fn configure(&self, json: &str) {
        let dir = self.config.path().join("indusvx");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("lsp.json"), json).unwrap();
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = self.run(&["lsp", "stop"]);
    }
}

/// One language's project and what to do to it.
struct Lang {
    server: &'static str,
    program: &'static str,
    /// Files: (path, content). The first is edited; the second holds an old error.
    files: &'static [(&'static str, &'static str)],
    /// An edit of the first file that makes a type error, and its words.
    break_old: &'static str,
    break_new: &'static str,
    /// A piece of the new error's message.
    error_words: &'static str,
    /// The definition is asked at this position of the first file's use…
    use_at: &'static str,
    /// …and found on this line of the defining file (`path:line`).
    defined_at: &'static str,
    /// Rename the definition at this position; both files change.
    rename_at: &'static str,
}

const PYTHON_FILES: &[(&str, &str)] = &[
    (
        "app.py",
        "from lib import total\n\nvalue: int = total(1, 2)\n",
    ),
    (
        "lib.py",
        "def total(a: int, b: int) -> int:\n    return a + b\n\n\nbroken: int = undefined_thing\n",
    ),
];

const PYRIGHT: Lang = Lang {
    server: "pyright",
    program: "pyright-langserver",
    files: PYTHON_FILES,
    break_old: "total(1, 2)",
    break_new: "total(1, \"2\")",
    error_words: "\"Literal['2']\"",
    use_at: "app.py:3:14",
    defined_at: "lib.py:1",
    rename_at: "lib.py:1:5",
};

const PYLSP: Lang = Lang {
    server: "pylsp",
    program: "pylsp",
    files: PYTHON_FILES,
    break_old: "value: int = total(1, 2)",
    break_new: "value: int = total(1, missing_name)",
    error_words: "undefined name 'missing_name'",
    use_at: "app.py:3:14",
    defined_at: "lib.py:1",
    rename_at: "lib.py:1:5",
};

const TYPESCRIPT: Lang = Lang {
    server: "typescript-language-server",
    program: "typescript-language-server",
    files: &[
        (
            "app.ts",
            "import { total } from \"./lib\";\n\nexport const value: number = total(1, 2);\n",
        ),
        (
            "lib.ts",
            "export function total(a: number, b: number): number {\n  return a + b;\n}\n\n\nexport const broken: number = \"no\";\n",
        ),
        (
            "tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true}}\n",
        ),
    ],
    break_old: "total(1, 2)",
    break_new: "total(1, \"2\")",
    error_words: "not assignable to parameter of type 'number'",
    use_at: "app.ts:3:31",
    defined_at: "lib.ts:1",
    rename_at: "lib.ts:1:17",
};

const GO: Lang = Lang {
    server: "gopls",
    program: "gopls",
    files: &[
        (
            "main.go",
            "package main\n\nfunc main() {\n\tvar value int = total(1, 2)\n\t_ = value\n}\n",
        ),
        (
            "lib.go",
            "package main\n\nfunc total(a, b int) int { return a + b }\n\n\nvar broken int = \"no\"\n",
        ),
        ("go.mod", "module example.com/m\n\ngo 1.19\n"),
    ],
    break_old: "total(1, 2)",
    break_new: "total(1, \"2\")",
    error_words: "\"2\"",
    use_at: "main.go:4:18",
    defined_at: "lib.go:3",
    rename_at: "lib.go:3:6",
};

const CLANGD: Lang = Lang {
    server: "clangd",
    program: "clangd",
    files: &[
        (
            "main.c",
            "#include \"lib.h\"\n\nint main(void) {\n  int value = total(1, 2);\n  return value;\n}\n",
        ),
        (
            "lib.h",
            "int total(int a, int b);\n\n\nstatic int broken = undefined_thing;\n",
        ),
        ("compile_flags.txt", "-xc\n-std=c11\n"),
    ],
    break_old: "total(1, 2)",
    break_new: "total(1)",
    error_words: "few arguments",
    use_at: "main.c:4:15",
    defined_at: "lib.h:1",
    rename_at: "lib.h:1:5",
};

/// The whole story on one language: an edit that breaks the code is told its
/// one new error (exit 1) while an old error elsewhere never counts as new; the
/// fix leaves none (exit 0); lines inserted above the old error do not make it
/// new; definition, references, and a two-file rename.
fn story(lang: &Lang) {
    if !on_path(lang.program) {
        common::missing(
            &format!("{} is not installed (.ci/run installs it)", lang.program),
            &format!(
                "{} is not on PATH: its language-server tests did not run",
                lang.program
            ),
        );
        return;
    }
    let p = Project::new();
    if lang.server == "pylsp" {
        // The user's configuration puts pylsp before the table's pyright, so
        // `edit --diagnose` (which takes no server) asks it too.
        p.configure(r#"{"servers": {"pylsp": {"command": ["pylsp"], "extensions": ["py"]}}}"#);
    }
    for (path, content) in lang.files {
        p.env.write(path, content);
    }
    let (first, other) = (lang.files[0].0, lang.files[1].0);
    let server = ["--server", lang.server];

    // The old error of the other file is there, and is the only error.
    let mut args = vec!["diagnose", other];
    args.extend(server);
    let (rec, out) = p.json(&args);
    assert_eq!(code(&out), 1, "{rec}\n{}", stderr(&out));
    assert!(rec["output"]["count"].as_u64().unwrap() >= 1, "{rec}");

    // Break the first file: exactly the new error, exit 1; the edit stands.
    let mut args = vec![
        "edit",
        first,
        "--old-text",
        lang.break_old,
        "--new-text",
        lang.break_new,
        "--diagnose",
    ];
    let (rec, out) = p.json(&args);
    assert_eq!(code(&out), 1, "{rec}\n{}", stderr(&out));
    assert_eq!(rec["is_error"], false, "{rec}");
    let new = rec["output"]["newErrors"].as_array().unwrap();
    assert_eq!(new.len(), 1, "{rec}");
    assert!(
        new[0]["message"]
            .as_str()
            .unwrap()
            .contains(lang.error_words),
        "{rec}"
    );
    assert_eq!(new[0]["path"], first, "{rec}");
    assert!(p.env.read_string(first).contains(lang.break_new));

    // The fix: no new errors, exit 0.
    args[3] = lang.break_new;
    args[5] = lang.break_old;
    let (rec, out) = p.json(&args);
    assert_eq!(code(&out), 0, "{rec}\n{}", stderr(&out));
    assert_eq!(rec["output"]["newErrors"], serde_json::json!([]), "{rec}");

    // Lines inserted above the old error: unchanged against a baseline, exit 0.
    let mut args = vec!["diagnose", other, "--save-baseline", "base.json"];
    args.extend(server);
    assert_eq!(code(&p.run(&args)), 1);
    let text = p.env.read_string(other);
    let cut = text.find("\n\n\n").unwrap() + 1;
    p.env
        .write(other, format!("{}\n\n\n{}", &text[..cut], &text[cut..]));
    let mut args = vec!["diagnose", other, "--baseline", "base.json"];
    args.extend(server);
    let (rec, out) = p.json(&args);
    assert_eq!(code(&out), 0, "{rec}\n{}", stderr(&out));
    assert!(rec["output"]["unchanged"].as_u64().unwrap() >= 1, "{rec}");

    // Definition and references.
    let mut args = vec!["lsp", "definition", lang.use_at];
    args.extend(server);
    let out = p.run(&args);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let (path, line) = lang.defined_at.split_once(':').unwrap();
    assert!(
        stdout(&out).starts_with(&format!("{path}:{line}:")),
        "{}",
        stdout(&out)
    );
    let mut args = vec!["lsp", "references", lang.rename_at];
    args.extend(server);
    let (rec, out) = p.json(&args);
    assert_eq!(code(&out), 0, "{rec}");
    let paths: Vec<&str> = rec["output"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&first) && paths.contains(&other), "{rec}");

    // A two-file rename, written as one patch.
    let mut args = vec!["lsp", "rename", lang.rename_at, "--new-name", "summed"];
    args.extend(server);
    let (rec, out) = p.json(&args);
    assert_eq!(code(&out), 0, "{rec}\n{}", stderr(&out));
    assert_eq!(rec["output"]["written"], true, "{rec}");
    assert!(
        p.env.read_string(first).contains("summed("),
        "{}",
        p.env.read_string(first)
    );
    assert!(
        p.env.read_string(other).contains("summed"),
        "{}",
        p.env.read_string(other)
    );
}

#[test]
fn pyright_settles_edits_navigates_and_renames() {
    story(&PYRIGHT);
}

#[test]
fn pylsp_settles_edits_navigates_and_renames() {
    story(&PYLSP);
}

#[test]
fn typescript_language_server_settles_edits_navigates_and_renames() {
    story(&TYPESCRIPT);
}

#[test]
fn gopls_settles_edits_navigates_and_renames() {
    story(&GO);
}

#[test]
fn clangd_settles_edits_navigates_and_renames() {
    story(&CLANGD);
}

#[test]
fn rust_analyzer_rows_run_when_it_is_installed() {
    // Not installable here: under CI it is simply absent, which is no failure.
    if !on_path("rust-analyzer")
        || std::process::Command::new("rust-analyzer")
            .arg("--version")
            .output()
            .map(|o| !o.status.success())
            .unwrap_or(true)
    {
        common::skipped("rust-analyzer is not installed: its rows did not run");
        return;
    }
    let p = Project::new();
    p.env.write(
        "Cargo.toml",
        "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    p.env
        .write("src/main.rs", "fn main() {\n    let x: i32 = \"no\";\n}\n");
    let (rec, out) = p.json(&["diagnose", "src/main.rs", "--timeout-ms", "120000"]);
    assert_eq!(code(&out), 1, "{rec}\n{}", stderr(&out));
}

// ---------------------------------------------------------------- the stub

/// A language server in a page of Python whose misbehaviour the tests choose
/// (`STUB_MODE`): it speaks the framing, answers initialize (unless silent) and
/// publishes a diagnostic naming the version it was computed for.
const STUB: &str = r#"
import json, os, sys, time
mode = sys.argv[1]
marker = sys.argv[2]
out = sys.stdout.buffer
def send(m):
    b = json.dumps(m).encode()
    out.write(b"Content-Length: %d\r\n\r\n" % len(b) + b); out.flush()
def read():
    n = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line: sys.exit(0)
        line = line.strip()
        if not line: break
        k, v = line.split(b":", 1)
        if k.lower() == b"content-length": n = int(v)
    return json.loads(sys.stdin.buffer.read(n))
texts = {}
def bad_lines(uri, version):
    # An error on every line that holds BAD: what the delta tests move around.
    ds = [{"range": {"start": {"line": i, "character": l.index("BAD")}, "end": {"line": i, "character": l.index("BAD") + 3}},
           "severity": 1, "code": "B1", "message": "bad word"}
          for i, l in enumerate(texts[uri].split("\n")) if "BAD" in l]
    send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {"uri": uri, "version": version, "diagnostics": ds}})
def diag(uri, version, msg):
    d = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "severity": 1, "message": msg}
    p = {"uri": uri, "diagnostics": [d]}
    if version is not None: p["version"] = version
    send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": p})
while True:
    m = read()
    meth, mid = m.get("method"), m.get("id")
    if meth == "initialize":
        if mode == "silent": continue
        if mode == "slow": time.sleep(2)
        caps = {"textDocumentSync": 1, "definitionProvider": True}
        if mode == "pull": caps["diagnosticProvider"] = {"interFileDependencies": False, "workspaceDiagnostics": False}
        send({"jsonrpc": "2.0", "id": mid, "result": {"capabilities": caps}})
    elif meth in ("textDocument/didOpen", "textDocument/didChange"):
        doc = m["params"]["textDocument"]
        uri, v = doc["uri"], doc["version"]
        texts[uri] = doc["text"] if "text" in doc else m["params"]["contentChanges"][0]["text"]
        if mode == "stale":
            # A late answer for the version before, then the right one later.
            diag(uri, v - 1, "stale for version %d" % (v - 1))
            time.sleep(0.3)
            diag(uri, v, "fresh for version %d" % v)
        elif mode == "flood":
            for i in range(30000):
                diag("file:///flood/%d.py" % i, 1, "x" * 50)
            big = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "severity": 2, "message": "y" * 40}
            send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {"uri": uri, "version": v, "diagnostics": [big] * 50000}})
            diag(uri, v, "after the flood")
        elif mode == "bad":
            bad_lines(uri, v)
        elif mode == "pull":
            pass
        else:
            diag(uri, v, "fresh for version %d" % v)
    elif meth == "textDocument/definition":
        if mode == "crash" and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(3)
        send({"jsonrpc": "2.0", "id": mid, "result": {"uri": m["params"]["textDocument"]["uri"], "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}})
    elif meth == "textDocument/rename":
        uri = m["params"]["textDocument"]["uri"]
        new = m["params"]["newName"]
        edits = [{"range": {"start": {"line": i, "character": l.index("BAD")}, "end": {"line": i, "character": l.index("BAD") + 3}}, "newText": new}
                 for i, l in enumerate(texts[uri].split("\n")) if "BAD" in l]
        send({"jsonrpc": "2.0", "id": mid, "result": {"changes": {uri: edits}}})
    elif meth == "textDocument/diagnostic":
        uri = m["params"]["textDocument"]["uri"]
        if not os.path.exists(marker):
            # Once: "not now, ask again" (ServerCancelled with retriggerRequest).
            open(marker, "w").close()
            send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32802, "message": "busy", "data": {"retriggerRequest": True}}})
            continue
        items = [{"range": {"start": {"line": i, "character": 0}, "end": {"line": i, "character": 3}}, "severity": 1, "code": "P1", "message": "pulled"}
                 for i, l in enumerate(texts[uri].split("\n")) if "BAD" in l]
        send({"jsonrpc": "2.0", "id": mid, "result": {"kind": "full", "items": items}})
    elif meth == "shutdown":
        send({"jsonrpc": "2.0", "id": mid, "result": None})
    elif meth == "exit":
        sys.exit(0)
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": None})
"#;

/// A project whose `.stub` files are read by the stub in `mode`.
fn stub_project(mode: &str) -> Project {
    let p = Project::new();
    let script = p.config.path().join("stub.py");
    std::fs::write(&script, STUB).unwrap();
    let marker = p.config.path().join("crashed-once");
    p.configure(&format!(
        r#"{{"servers": {{"stub": {{"command": ["python3", "{}", "{mode}", "{}"], "extensions": ["stub"]}}}}}}"#,
        script.display(),
        marker.display()
    ));
    p.env.write("a.stub", "one\n");
    p
}

#[test]
fn a_stale_version_published_late_is_never_taken_for_the_answer() {
    let p = stub_project("stale");
    let (rec, out) = p.json(&["diagnose", "a.stub"]);
    assert_eq!(code(&out), 1, "{rec}\n{}", stderr(&out));
    let rows = rec["output"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rec}");
    assert_eq!(rows[0]["message"], "fresh for version 1", "{rec}");
    p.env.write("a.stub", "two\n");
    let (rec, _) = p.json(&["diagnose", "a.stub"]);
    assert_eq!(
        rec["output"]["rows"][0]["message"], "fresh for version 2",
        "{rec}"
    );
    assert_eq!(
        rec["output"]["servers"][0]["settledBy"],
        "publication for the version sent"
    );
}

#[test]
fn a_server_that_dies_mid_request_is_restarted_and_the_call_answers() {
    let p = stub_project("crash");
    let (rec, out) = p.json(&["lsp", "definition", "a.stub:1:1"]);
    assert_eq!(code(&out), 0, "{rec}\n{}", stderr(&out));
    assert_eq!(rec["output"]["rows"][0]["path"], "a.stub", "{rec}");
    assert!(p.config.path().join("crashed-once").exists());
}

#[test]
fn a_server_that_never_answers_times_out_as_trouble_and_leaves_no_process() {
    let p = stub_project("silent");
    let started = std::time::Instant::now();
    let out = p.run(&["diagnose", "a.stub", "--timeout-ms", "1500"]);
    assert_eq!(code(&out), 2, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("timed out after 1500 ms waiting for stub"),
        "{}",
        stderr(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    let script = p.config.path().join("stub.py");
    let running = || {
        std::process::Command::new("pgrep")
            .args(["-f", &script.display().to_string()])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    assert!(running(), "the stub is kept starting for the next call");
    assert_eq!(code(&p.run(&["lsp", "stop"])), 0);
    assert!(
        common::wait_until(Duration::from_secs(5), || !running()),
        "the stub outlived lsp stop"
    );
}

#[test]
fn a_flood_of_diagnostics_is_bounded() {
    let p = stub_project("flood");
    let (rec, out) = p.json(&["diagnose", "a.stub", "--timeout-ms", "60000"]);
    assert_eq!(code(&out), 1, "{rec}\n{}", stderr(&out));
    assert_eq!(
        rec["output"]["rows"][0]["message"], "after the flood",
        "{rec}"
    );
    let (status, _) = p.json(&["lsp", "status"]);
    let pid = status["output"]["pid"].as_u64().unwrap();
    let proc_status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let hwm_kb: u64 = proc_status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(hwm_kb < 400 * 1024, "the broker peaked at {hwm_kb} kB");
}

#[test]
fn a_project_file_naming_a_server_runs_nothing_until_trusted() {
    // A stranger's repository, cloned with git: its lsp.json claims .stub files
    // and Python's too, with a command that leaves a marker outside the project.
    let p = Project::new();
    let marker = p.config.path().join("ran");
    let origin = tempfile::tempdir().unwrap();
    let evil = format!(
        r#"{{"servers": {{"evil": {{"command": ["sh", "-c", "touch {}"], "extensions": ["stub", "py"]}}}}}}"#,
        marker.display()
    );
    std::fs::create_dir_all(origin.path().join(".indusvx")).unwrap();
    std::fs::write(origin.path().join(".indusvx/lsp.json"), evil).unwrap();
    std::fs::write(origin.path().join("a.stub"), "x\n").unwrap();
    std::fs::write(origin.path().join("a.py"), "x = 1\n").unwrap();
    let git = |dir: &std::path::Path, args: &[&str]| {
        let out = std::process::Command::new("git")
            .current_dir(dir)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    };
    git(origin.path(), &["init", "-q"]);
    git(origin.path(), &["add", "-A"]);
    git(origin.path(), &["commit", "-qm", "a gift"]);
    let origin_path = origin.path().display().to_string();
    git(p.env.root(), &["clone", "-q", &origin_path, "clone"]);
    let run = |args: &[&str]| {
        common::bin_std()
            .current_dir(p.env.path("clone"))
            .arg("--cwd")
            .arg(p.env.path("clone"))
            .env("PATH", path_var())
            .env("XDG_CONFIG_HOME", p.config.path())
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["diagnose", "a.stub"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("not trusted"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no language server reads .stub files"),
        "{}",
        stderr(&out)
    );
    // Python falls back to the table's server (the user's own program).
    let _ = run(&["diagnose", "a.py"]);
    let _ = run(&["lsp", "hover", "a.py:1:1"]);
    let _ = run(&["lsp", "stop"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!marker.exists(), "an untrusted project file ran its server");
}

#[test]
fn a_missing_server_names_what_to_install() {
    let p = Project::new();
    p.env.write("a.py", "x = 1\n");
    let out = p
        .env
        .cmd()
        .env("PATH", "/nonexistent")
        .env("XDG_CONFIG_HOME", p.config.path())
        .args(["diagnose", "a.py"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("no language server for python files is installed"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("npm install -g pyright"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn two_calls_at_once_share_one_broker() {
    let p = stub_project("plain");
    p.env.write("b.stub", "two\n");
    let spawn = |f: &str| {
        common::bin_std()
            .current_dir(p.env.root())
            .arg("--cwd")
            .arg(p.env.root())
            .env("PATH", path_var())
            .env("XDG_CONFIG_HOME", p.config.path())
            .args(["diagnose", f])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn("a.stub"), spawn("b.stub"));
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert_eq!(code(&out), 1, "{}", stderr(&out));
    }
    let jobs = std::fs::read_to_string(p.env.path(".indus-process/lsp/broker-jobs.json")).unwrap();
    let table: Value = serde_json::from_str(&jobs).unwrap();
    let running: Vec<u64> = table["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|j| j["pid"].as_u64())
        .filter(|pid| common::alive(*pid as u32))
        .collect();
    assert_eq!(running.len(), 1, "{jobs}");
}

#[test]
fn lines_inserted_above_an_old_error_leave_it_unchanged_and_new_ones_are_counted() {
    let p = stub_project("bad");
    p.env.write("a.stub", "one\nBAD two\nthree\n");
    let out = p.run(&["diagnose", "a.stub", "--save-baseline", "base.json"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    p.env.write("a.stub", "zero\nzero\none\nBAD two\nthree\n");
    let (rec, out) = p.json(&["diagnose", "a.stub", "--baseline", "base.json"]);
    assert_eq!(code(&out), 0, "{rec}");
    assert_eq!(rec["output"]["unchanged"], 1, "{rec}");
    // A second copy of the old error on another line is new; the old one stays.
    p.env
        .write("a.stub", "zero\nBAD zero\none\nBAD two\nthree\n");
    let (rec, out) = p.json(&["diagnose", "a.stub", "--baseline", "base.json"]);
    assert_eq!(code(&out), 1, "{rec}");
    let rows = rec["output"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rec}");
    assert_eq!(
        (rows[0]["line"].as_u64(), rows[0]["column"].as_u64()),
        (Some(2), Some(1))
    );
    // Text: the row as a compiler prints it, the summary after a blank line.
    let out = p.run(&["--exact", "diagnose", "a.stub", "--baseline", "base.json"]);
    assert_eq!(
        stdout(&out),
        "a.stub:2:1: error[B1] bad word\n\nnew: 1 error; fixed: 0 errors; unchanged: 1 error in 1 file (stub, warm)\n"
    );
}

#[test]
fn new_compares_with_the_files_before_the_last_checkpointed_change() {
    let p = stub_project("bad");
    p.env.write("a.stub", "BAD old\nkeep\n");
    p.env.write("b.stub", "BAD elsewhere\n");
    // No checkpoint yet: "new" has nothing to compare with, and says so.
    let out = p.run(&["diagnose", "--new", "a.stub"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("checkpoint"), "{}", stderr(&out));
    // One turn: an edit of a.stub, and a file no server reads.
    let out = p.run(&[
        "--checkpoint",
        "--turn",
        "t1",
        "edit",
        "a.stub",
        "--old-text",
        "keep",
        "--new-text",
        "BAD new",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = p.run(&[
        "--checkpoint",
        "--turn",
        "t1",
        "write",
        "notes.txt",
        "--content",
        "y\n",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // No paths: the files of the last change; the old error is not new; the
    // file no server reads is named as left out.
    let (rec, out) = p.json(&["diagnose", "--new"]);
    assert_eq!(code(&out), 1, "{rec}\n{}", stderr(&out));
    assert_eq!(
        rec["output"]["leftOut"],
        serde_json::json!(["notes.txt"]),
        "{rec}"
    );
    let rows = rec["output"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{rec}");
    assert_eq!(rows[0]["lineText"], "BAD new", "{rec}");
    assert_eq!(rec["output"]["unchanged"], 1, "{rec}");
    // --since names the node the same way.
    let (rec, out) = p.json(&["diagnose", "--new", "--since", "t1"]);
    assert_eq!(code(&out), 1, "{rec}\n{}", stderr(&out));
    assert_eq!(rec["output"]["unchanged"], 1, "{rec}");
    // A file the change did not touch is its own before: nothing new there.
    let (rec, out) = p.json(&["diagnose", "--new", "b.stub"]);
    assert_eq!(code(&out), 0, "{rec}");
    // edit --diagnose with the stub: the new error, exit 1, the edit made.
    let (rec, out) = p.json(&[
        "edit",
        "b.stub",
        "--old-text",
        "BAD elsewhere",
        "--new-text",
        "BAD elsewhere\nBAD y",
        "--diagnose",
    ]);
    assert_eq!(code(&out), 1, "{rec}");
    assert_eq!(rec["output"]["newErrors"][0]["line"], 2, "{rec}");
    assert_eq!(
        rec["output"]["newErrors"].as_array().unwrap().len(),
        1,
        "{rec}"
    );
    assert_eq!(p.env.read_string("b.stub"), "BAD elsewhere\nBAD y\n");
}

#[test]
fn the_broker_is_a_job_that_process_stop_ends() {
    let p = stub_project("bad");
    p.env.write("a.stub", "fine\n");
    assert_eq!(code(&p.run(&["diagnose", "a.stub"])), 0);
    let (status, _) = p.json(&["lsp", "status"]);
    assert_eq!(status["output"]["running"], true, "{status}");
    let pid = status["output"]["pid"].as_u64().unwrap() as u32;
    let out = p.run(&["process", "stop", "lsp-1"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(common::wait_until(Duration::from_secs(5), || {
        !common::alive(pid)
    }));
    let (status, _) = p.json(&["lsp", "status"]);
    assert_eq!(status["output"]["running"], false, "{status}");
    // The next call starts it again.
    assert_eq!(code(&p.run(&["diagnose", "a.stub"])), 0);
}

#[test]
fn a_caller_killed_while_the_server_starts_leaves_one_server_for_the_next_call() {
    let p = stub_project("slow");
    let mut child = common::bin_std()
        .current_dir(p.env.root())
        .arg("--cwd")
        .arg(p.env.root())
        .env("PATH", path_var())
        .env("XDG_CONFIG_HOME", p.config.path())
        .args(["diagnose", "a.stub"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    child.kill().unwrap();
    child.wait().unwrap();
    let (rec, out) = p.json(&["diagnose", "a.stub"]);
    assert_eq!(code(&out), 1, "{rec}\n{}", stderr(&out));
    let script = p.config.path().join("stub.py");
    let stubs = std::process::Command::new("pgrep")
        .args(["-c", "-f", &script.display().to_string()])
        .output()
        .unwrap();
    assert_eq!(stdout(&stubs).trim(), "1", "one server for the project");
}

#[test]
fn a_trusted_project_server_runs_and_a_changed_launched_file_is_refused() {
    let p = Project::new();
    p.env.write("tools/stub.py", STUB);
    p.env.write(
        ".indusvx/lsp.json",
        r#"{"servers": {"proj": {"command": ["python3", "tools/stub.py", "bad", "/nonexistent"], "extensions": ["stub"]}}}"#,
    );
    p.env.write("a.stub", "BAD\n");
    // HOME is the tests' shared one: the trust is recorded there, by content.
    let out = p.run(&["trust", ".indusvx/lsp.json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let (rec, out) = p.json(&["diagnose", "a.stub"]);
    assert_eq!(code(&out), 1, "{rec}\n{}", stderr(&out));
    assert_eq!(rec["output"]["servers"][0]["name"], "proj", "{rec}");
    assert_eq!(code(&p.run(&["lsp", "stop"])), 0);
    // The script the trusted file launches changed: the server is not used.
    p.env.write("tools/stub.py", format!("{STUB}\n# changed\n"));
    let out = p.run(&["diagnose", "a.stub"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("tools/stub.py"), "{}", stderr(&out));
}

#[test]
fn a_project_server_file_made_after_the_trust_is_not_covered_by_it() {
    let p = Project::new();
    p.env.write(
        ".indusvx/lsp.json",
        r#"{"servers": {"later": {"command": ["python3", "tools/later.py", "bad", "/nonexistent"], "extensions": ["stub"]}}}"#,
    );
    p.env.write("a.stub", "BAD\n");
    assert_eq!(code(&p.run(&["trust", ".indusvx/lsp.json"])), 0);
    // Built (or planted) after the file was trusted: its trust does not cover it.
    p.env.write("tools/later.py", STUB);
    let out = p.run(&["diagnose", "a.stub"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("tools/later.py"), "{}", stderr(&out));
}

/// The same tools on the other faces: `batch` (JSONL) and MCP through the official
/// Rust SDK's client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diagnose_and_lsp_answer_on_the_batch_and_mcp_faces() {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    use std::io::Write;
    let p = stub_project("bad");
    p.env.write("a.stub", "ok\nBAD\n");
    let mut batch = common::bin_std()
        .current_dir(p.env.root())
        .arg("--cwd")
        .arg(p.env.root())
        .arg("batch")
        .env("PATH", path_var())
        .env("XDG_CONFIG_HOME", p.config.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let calls = "{\"id\":\"1\",\"name\":\"diagnose\",\"input\":{\"paths\":[\"a.stub\"]}}\n\
                 {\"id\":\"2\",\"name\":\"lsp\",\"input\":{\"action\":\"status\"}}\n";
    batch
        .stdin
        .take()
        .unwrap()
        .write_all(calls.as_bytes())
        .unwrap();
    let out = batch.wait_with_output().unwrap();
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["output"]["count"], 1, "{lines:?}");
    assert_eq!(lines[0]["output"]["rows"][0]["line"], 2, "{lines:?}");
    assert_eq!(lines[1]["output"]["running"], true, "{lines:?}");

    let mut cmd = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("indus-tool"));
    cmd.current_dir(p.env.root())
        .arg("--cwd")
        .arg(p.env.root())
        .arg("mcp")
        .env("HOME", common::no_home())
        .env("PATH", path_var())
        .env("XDG_CONFIG_HOME", p.config.path());
    let transport = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    let client = ().serve(transport).await.unwrap();
    let args = serde_json::json!({"paths": ["a.stub"]});
    let Value::Object(args) = args else {
        unreachable!()
    };
    let result = client
        .call_tool(CallToolRequestParams::new("diagnose").with_arguments(args))
        .await
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let record = result.structured_content.clone().unwrap();
    assert_eq!(record["count"], 1, "{record}");
    let text = result.content[0].as_text().unwrap().text.clone();
    assert!(text.starts_with("a.stub:2:1: error[B1] bad word"), "{text}");
    client.cancel().await.unwrap();
}

#[test]
fn a_server_that_offers_pull_diagnostics_is_asked_and_asked_again_when_busy() {
    let p = stub_project("pull");
    p.env.write("a.stub", "ok\nBAD\n");
    let (rec, out) = p.json(&["diagnose", "a.stub"]);
    assert_eq!(code(&out), 1, "{rec}\n{}", stderr(&out));
    assert_eq!(rec["output"]["rows"][0]["message"], "pulled", "{rec}");
    assert_eq!(rec["output"]["rows"][0]["line"], 2, "{rec}");
    assert_eq!(rec["output"]["servers"][0]["settledBy"], "pull", "{rec}");
    // It answers for the text as it is now.
    p.env.write("a.stub", "ok\nfine\n");
    let (rec, out) = p.json(&["diagnose", "a.stub"]);
    assert_eq!(code(&out), 0, "{rec}");
    assert!(p.config.path().join("crashed-once").exists());
}

#[test]
fn a_checkpointed_rename_is_one_patch_a_rewind_undoes() {
    let p = stub_project("bad");
    p.env.write("a.stub", "BAD one\ntwo BAD\n");
    let out = p.run(&[
        "--checkpoint",
        "--turn",
        "r1",
        "lsp",
        "rename",
        "a.stub:1:1",
        "--new-name",
        "GOOD",
    ]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("+GOOD one"), "{}", stdout(&out));
    assert_eq!(p.env.read_string("a.stub"), "GOOD one\ntwo GOOD\n");
    let out = p.run(&["checkpoint", "rewind", "r1"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(p.env.read_string("a.stub"), "BAD one\ntwo BAD\n");
    // check: the diff only.
    let out = p.run(&[
        "lsp",
        "rename",
        "a.stub:1:1",
        "--new-name",
        "GOOD",
        "--check",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("1 file would change"),
        "{}",
        stdout(&out)
    );
    assert_eq!(p.env.read_string("a.stub"), "BAD one\ntwo BAD\n");
}
