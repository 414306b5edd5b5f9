//! `indus-tool mcp` as it is, loaded by five agent frameworks through their own
//! MCP clients, with no model: each lists the tools and, through the framework's
//! own tool object (what its runner calls when a model asks), calls `edit` before
//! any read (the read-before-edit gate refuses), `read`, `grep` and `edit` (the
//! file on disk changes exactly). `tests/peers/py_frameworks.py` drives the
//! Python ones (openai-agents, langchain-mcp-adapters, pydantic-ai),
//! `tests/peers/js_frameworks.mjs` the JavaScript ones (@openai/agents,
//! @ai-sdk/mcp). Each program of docs/agents.md (a fenced block marked
//! `agents-snippet=NAME`) runs as it stands, `indus-tool` on the PATH, in a
//! project holding a known README.md.
//!
//! `.ci/run` installs the frameworks beside the MCP peers (`INDUS_MCP_PEERS`,
//! default `target/mcp-peers`): openai-agents and pydantic-ai in `venv` (with
//! mcp 2.3.0, as tests/it/mcp_python.rs needs), langchain-mcp-adapters in
//! `venv-langchain` (it requires mcp<2), and the npm packages in `node_modules`.
//! Without them the tests say SKIPPED, and fail under `CI=true`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::TestEnv;
use serde_json::{Value, json};

/// The tools `indus-tool --no-mcp mcp` lists (profile all), in its order.
const TOOLS: [&str; 25] = [
    "read",
    "ls",
    "grep",
    "find",
    "websearch",
    "webfetch",
    "todo_read",
    "write",
    "edit",
    "bash",
    "process",
    "todo_set",
    "diagnose",
    "lsp",
    "outline",
    "sgrep",
    "apply_patch",
    "todo",
    "bg-process",
    "task",
    "saas-action",
    "memory",
    "enter_plan_mode",
    "exit_plan_mode",
    "time",
];

/// The names a framework gives them: @openai/agents turns `-` into `_`.
fn tools_as(framework: &str) -> Vec<String> {
    TOOLS
        .iter()
        .map(|t| match framework {
            "openai-agents-js" => t.replace('-', "_"),
            _ => (*t).to_string(),
        })
        .collect()
}

/// The framework's virtualenv and the module it must import: langchain-mcp-adapters
/// needs mcp<2, the others mcp 2.3.0 (kept for tests/it/mcp_python.rs).
fn venv_of(framework: &str) -> (&'static str, &'static str) {
    match framework {
        "openai-agents" => ("venv", "agents.mcp"),
        "pydantic-ai" => ("venv", "pydantic_ai.mcp, fastmcp"),
        "langchain" => ("venv-langchain", "langchain_mcp_adapters.client"),
        other => panic!("no Python framework {other}"),
    }
}

/// The python that imports `framework`, if installed.
fn python(framework: &str) -> Option<PathBuf> {
    let (venv, module) = venv_of(framework);
    let python = common::mcp_peers_dir().join(venv).join("bin/python");
    let ok = Command::new(&python)
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        common::missing(
            &format!(
                "{framework} is not installed in {} (.ci/run installs it)",
                python.display()
            ),
            &format!(
                "{framework}: `import {module}` fails in {} (see .ci/run; INDUS_MCP_PEERS=DIR)",
                python.display()
            ),
        );
        return None;
    }
    Some(python)
}

/// The npm package a JavaScript framework is.
fn package_of(framework: &str) -> &'static str {
    match framework {
        "openai-agents-js" => "@openai/agents",
        "ai-sdk" => "@ai-sdk/mcp",
        other => panic!("no JavaScript framework {other}"),
    }
}

/// The peers' node_modules when node runs and holds `framework`'s package.
fn node_modules(framework: &str) -> Option<PathBuf> {
    let modules = common::mcp_peers_dir().join("node_modules");
    let package = package_of(framework);
    let ok = modules.join(package).join("package.json").exists()
        && Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
    if !ok {
        common::missing(
            &format!(
                "node or {package} is missing ({} from .ci/run)",
                modules.display()
            ),
            &format!(
                "{framework}: no node, or no {package} in {} (npm install --prefix DIR {package}; INDUS_MCP_PEERS=DIR)",
                modules.display()
            ),
        );
        return None;
    }
    Some(modules)
}

fn peer_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/peers")
        .join(name)
}

/// A folder to run a program from: `bin/indus-tool` (the binary under test, for
/// programs that call it by name) and, for node, `node_modules` linked to the
/// peers' (ES modules resolve packages from the program's own folder up).
fn runner(modules: Option<&Path>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_indus-tool"), bin.join("indus-tool")).unwrap();
    if let Some(modules) = modules {
        std::os::unix::fs::symlink(modules, dir.path().join("node_modules")).unwrap();
    }
    dir
}

/// `program` run in `cwd` with `runner`'s bin first on the PATH, and the home
/// folder without MCP configs every test uses (see common::bin_std; the
/// frameworks pass HOME and PATH on to the server they start).
fn run(program: &mut Command, runner: &Path, cwd: &Path) -> std::process::Output {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path = std::env::join_paths(
        std::iter::once(runner.join("bin")).chain(std::env::split_paths(&path)),
    )
    .unwrap();
    program
        .current_dir(cwd)
        .env("PATH", path)
        .env("HOME", common::no_home())
        .env("XDG_CONFIG_HOME", common::no_home().join(".config"))
        .env_remove("INDUS_MCP_PEERS")
        .output()
        .unwrap()
}

/// The project every framework works in: notes.txt to read, grep and edit,
/// other.txt never read (the gate's refusal), strict.txt for the strict probe.
fn project() -> TestEnv {
    let env = TestEnv::new();
    env.write("notes.txt", "alpha\nbeta\ngamma\n");
    env.write("other.txt", "one\n");
    env.write("strict.txt", "x\n");
    env
}

/// What the peer program reports of `framework` in `env`'s project.
fn drive(framework: &str, env: &TestEnv) -> Option<Value> {
    let binary = env!("CARGO_BIN_EXE_indus-tool");
    let out = if matches!(framework, "openai-agents-js" | "ai-sdk") {
        let modules = node_modules(framework)?;
        let dir = runner(Some(&modules));
        let script = dir.path().join("js_frameworks.mjs");
        std::fs::copy(peer_file("js_frameworks.mjs"), &script).unwrap();
        let mut node = Command::new("node");
        node.arg(&script).arg(binary).arg(env.root()).arg(framework);
        run(&mut node, dir.path(), env.root())
    } else {
        let python = python(framework)?;
        let dir = runner(None);
        let mut py = Command::new(&python);
        py.arg(peer_file("py_frameworks.py"))
            .arg(binary)
            .arg(env.root())
            .arg(framework);
        run(&mut py, dir.path(), env.root())
    };
    assert!(
        out.status.success(),
        "{framework}: the peer program failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{framework}: not one JSON object ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    assert_eq!(report["framework"], framework);
    Some(report)
}

/// The text of an answer whose face is text: one text block (openai-agents,
/// Python and JS), a list of blocks (langchain), or a CallToolResult (ai-sdk).
fn text(answer: &Value) -> String {
    let blocks = match answer {
        Value::Array(blocks) => blocks.clone(),
        Value::Object(o) if o.contains_key("content") => {
            answer["content"].as_array().unwrap().clone()
        }
        Value::Object(_) => vec![answer.clone()],
        other => panic!("not a text answer: {other}"),
    };
    blocks
        .iter()
        .map(|b| {
            assert_eq!(b["type"], "text", "{answer}");
            b["text"].as_str().unwrap()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

const GATE: &str = "File has not been read yet. Read it first before writing to it.";
const DIFF: &str =
    "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma";

/// The checks every framework passes: its tools are the 21, the gate refused
/// other.txt, read, grep and edit answered, and the files are as they must be.
fn check_common(framework: &str, env: &TestEnv, report: &Value) {
    assert_eq!(report["tools"], json!(tools_as(framework)), "{framework}");
    assert_eq!(
        env.read_string("notes.txt"),
        "alpha\nBETA\ngamma\n",
        "{framework}"
    );
    assert_eq!(env.read_string("other.txt"), "one\n", "{framework}");
    let answers = &report["answers"];
    if framework == "pydantic-ai" {
        // Pydantic AI gives the model the record (structuredContent), and an
        // error result is its ModelRetry (the model is told and may try again).
        assert_eq!(
            answers["gate"],
            json!({"raised": format!("ModelRetry: {GATE}")})
        );
        assert_eq!(answers["read"]["path"], "notes.txt");
        assert_eq!(answers["read"]["lines"], json!(["alpha", "beta", "gamma"]));
        assert_eq!(
            answers["grep"]["rows"],
            json!([{"path": "notes.txt", "line": 2, "text": "beta", "kind": "match"}])
        );
        assert_eq!(answers["edit"]["replacements"], 1);
        assert_eq!(answers["edit"]["diff"], format!("{DIFF}\n"));
        return;
    }
    assert_eq!(text(&answers["gate"]), GATE, "{framework}");
    assert_eq!(
        text(&answers["read"]),
        "Showing lines 1–3 of 3 in notes.txt.\n     1\talpha\n     2\tbeta\n     3\tgamma",
        "{framework}"
    );
    let grep = text(&answers["grep"]);
    assert!(
        grep.starts_with("notes.txt:2: beta\n\nFound 1 match in 1 file"),
        "{framework}: {grep}"
    );
    assert_eq!(
        text(&answers["edit"]),
        format!("Edited notes.txt: 1 replacement.\n\n{DIFF}"),
        "{framework}"
    );
}

#[test]
fn openai_agents_python_loads_strict_tools_and_calls_them() {
    let env = project();
    let Some(report) = drive("openai-agents", &env) else {
        return;
    };
    check_common("openai-agents", &env, &report);
    assert_eq!(report["not_strict"], json!([]), "{report}");
}

/// A strict-mode model must give every key of a tool's strict schema, and
/// openai-agents' (Python) conversion makes every key required without letting
/// it be null: for `edit` a model that means `oldText`/`newText` sends
/// `edits: []`, `replaceAll: false` and some `expectSha256`, here `""`. The edit
/// must be made.
#[test]
fn openai_agents_python_strict_edit_is_made() {
    let env = project();
    let Some(report) = drive("openai-agents", &env) else {
        return;
    };
    let answer = text(&report["answers"]["strict_edit"]);
    assert!(
        answer.starts_with("Edited strict.txt: 1 replacement."),
        "a strict-mode model's edit (every key given, the unmeant ones empty) was refused: {answer}"
    );
    assert_eq!(env.read_string("strict.txt"), "y\n");
}

#[test]
fn openai_agents_js_loads_strict_tools_and_calls_them() {
    let env = project();
    let Some(report) = drive("openai-agents-js", &env) else {
        return;
    };
    check_common("openai-agents-js", &env, &report);
    assert_eq!(report["not_strict"], json!([]), "{report}");
    // Every key of each strict schema could be given, null where unmeant (the
    // calls above were made so), as a strict-mode model gives them.
    assert_eq!(report["unfillable"], json!([]), "{report}");
    // A call under the SDK's name for bg-process reaches it.
    assert_eq!(text(&report["answers"]["renamed"]), "No background jobs.");
}

#[test]
fn langchain_loads_the_tools_and_calls_them() {
    let env = project();
    let Some(report) = drive("langchain", &env) else {
        return;
    };
    check_common("langchain", &env, &report);
    // The ToolMessage an agent's tool node makes of a model's call: the file as
    // edited (the client opened a new session, a new server, for each call).
    let message = &report["answers"]["tool_message"];
    assert_eq!(message["type"], "tool");
    assert_eq!(message["status"], "success");
    assert_eq!(
        text(&message["content"]),
        "Showing lines 1–3 of 3 in notes.txt.\n     1\talpha\n     2\tBETA\n     3\tgamma"
    );
}

#[test]
fn pydantic_ai_loads_the_tools_and_calls_them() {
    let env = project();
    let Some(report) = drive("pydantic-ai", &env) else {
        return;
    };
    check_common("pydantic-ai", &env, &report);
}

#[test]
fn ai_sdk_loads_the_tools_and_calls_them() {
    let env = project();
    let Some(report) = drive("ai-sdk", &env) else {
        return;
    };
    check_common("ai-sdk", &env, &report);
    let answers = &report["answers"];
    assert_eq!(answers["gate"]["isError"], true);
    for call in ["read", "grep", "edit"] {
        assert_eq!(answers[call]["isError"], false, "{call}");
    }
    // The SDK hands a model the whole result, the record included.
    assert_eq!(
        answers["read"]["structuredContent"]["lines"],
        json!(["alpha", "beta", "gamma"])
    );
    assert_eq!(answers["edit"]["structuredContent"]["replacements"], 1);
}

/// docs/agents.md's program for `name`: its language and text.
fn snippet(name: &str) -> (String, String) {
    common::doc_snippet("agents.md", &format!("agents-snippet={name}"))
}

/// The snippets docs/agents.md has: every one is run below, and short.
const SNIPPETS: [&str; 5] = [
    "openai-agents",
    "openai-agents-js",
    "langchain",
    "pydantic-ai",
    "ai-sdk",
];

#[test]
fn every_snippet_of_the_agents_page_is_run_and_short() {
    let page =
        std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/agents.md"))
            .unwrap();
    let marked: Vec<String> = page
        .lines()
        .filter_map(|l| {
            let (_, _, info) = common::fence_open(l)?;
            Some(info.split_once(" agents-snippet=")?.1.to_string())
        })
        .collect();
    assert_eq!(marked, SNIPPETS, "the marked programs of docs/agents.md");
    for name in SNIPPETS {
        let (lang, body) = snippet(name);
        assert!(["python", "js"].contains(&lang.as_str()), "{name}: {lang}");
        assert!(body.lines().count() <= 25, "{name} is over 25 lines");
        assert!(
            body.contains("\"indus-tool\"") || body.contains("'indus-tool'"),
            "{name} does not start indus-tool by name"
        );
    }
}

/// Run docs/agents.md's program `name` in a project holding README.md; it prints
/// the tools and README.md as `read` showed it.
fn run_snippet(name: &str) {
    let (lang, body) = snippet(name);
    let (program, file, modules) = if lang == "js" {
        let Some(modules) = node_modules(name) else {
            return;
        };
        (PathBuf::from("node"), "agent.mjs", Some(modules))
    } else {
        let Some(python) = python(name) else { return };
        (python, "agent.py", None)
    };
    let dir = runner(modules.as_deref());
    let script = dir.path().join(file);
    std::fs::write(&script, &body).unwrap();
    let env = TestEnv::new();
    env.write("README.md", "# demo\nHello from indus-tool.\n");
    let out = run(Command::new(&program).arg(&script), dir.path(), env.root());
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{name}: the program failed: {}\n{shown}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tools = format!("{} tools: {}", TOOLS.len(), tools_as(name).join(", "));
    let readme = if name == "pydantic-ai" {
        // The record's lines.
        "# demo\nHello from indus-tool.\n".to_string()
    } else {
        "Showing lines 1–2 of 2 in README.md.\n     1\t# demo\n     2\tHello from indus-tool.\n"
            .to_string()
    };
    assert_eq!(shown, format!("{tools}\n{readme}"), "{name}'s output");
}

#[test]
fn the_openai_agents_python_snippet_runs() {
    run_snippet("openai-agents");
}

#[test]
fn the_openai_agents_js_snippet_runs() {
    run_snippet("openai-agents-js");
}

#[test]
fn the_langchain_snippet_runs() {
    run_snippet("langchain");
}

#[test]
fn the_pydantic_ai_snippet_runs() {
    run_snippet("pydantic-ai");
}

#[test]
fn the_ai_sdk_snippet_runs() {
    run_snippet("ai-sdk");
}
