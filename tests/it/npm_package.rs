//! The npm package `indus-tool` (npm/): the packed tarball installed as a user
//! installs it, its `indus-tool` command (npm/bin/indus-tool.js, the launcher), and
//! the TypeScript client run by Node's own test runner
//! (`tests/peers/ts_client.test.mjs`) against this build's binary, its declarations
//! type-checked with a typed example (`tests/peers/ts_client_example.ts`).
//!
//! `.ci/run` packs the package once (`npm pack ./npm`, whose prepack step copies the
//! shipping build into it and compiles the client) and names the tarball in
//! `INDUS_NPM_TARBALL`; the TypeScript compiler is npm/'s devDependency
//! (`npm/node_modules/.bin/tsc`, or `INDUS_NPM_TSC`). Without them the tests say
//! SKIPPED, and fail under `CI=true`. That `npm/src/tools.ts` is what this build's
//! schema gives needs only node.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::{code, stderr, stdout};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// This build's binary (the client's tests talk to it, not to the packed one).
fn built_binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_indus-tool"))
}

fn answers(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// node is here, or the test says why it does not run.
fn node() -> bool {
    if !answers("node") {
        common::missing(
            "node is not installed (.ci/run installs it)",
            "npm package: no node on PATH",
        );
        return false;
    }
    true
}

/// The packed tarball, when node, npm and `INDUS_NPM_TARBALL` are here.
fn tarball() -> Option<PathBuf> {
    if !node() {
        return None;
    }
    if !answers("npm") {
        common::missing(
            "npm is not installed (.ci/run installs it)",
            "npm package: no npm on PATH",
        );
        return None;
    }
    match std::env::var_os("INDUS_NPM_TARBALL").map(PathBuf::from) {
        Some(path) if path.is_file() => Some(path),
        named => {
            common::missing(
                &format!(
                    "INDUS_NPM_TARBALL names no packed npm package ({named:?}); .ci/run packs it"
                ),
                "npm package: INDUS_NPM_TARBALL unset (npm ci --prefix npm && INDUS_TOOL_BINARY=BIN npm pack ./npm --pack-destination target/npm; INDUS_NPM_TARBALL=target/npm/indus-tool-0.1.0.tgz)",
            );
            None
        }
    }
}

/// A fresh folder with the tarball installed in it, as a user's project gets it.
fn install(tarball: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    // A package.json of its own, so npm installs here and not into a project above.
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"name": "npm-package-test", "private": true}"#,
    )
    .unwrap();
    let out = Command::new("npm")
        .current_dir(dir.path())
        .args([
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ])
        .arg(tarball)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "npm install of {} failed: {}",
        tarball.display(),
        stderr(&out)
    );
    dir
}

/// `program` with the environment the tests give the binary (common::bin_std: no
/// INDUS_* of the host, a home without configuration), so the binary the package
/// runs sees what every other test's does.
fn scrubbed(program: &str) -> Command {
    let mut c = Command::new(program);
    for (key, value) in common::bin_std().get_envs() {
        match value {
            Some(value) => c.env(key, value),
            None => c.env_remove(key),
        };
    }
    c.env_remove("INDUS_TOOL_BIN");
    c
}

/// The launcher as npm installed it, run by npx in `dir` (the install folder).
fn npx(dir: &Path, args: &[&str]) -> Output {
    let mut c = scrubbed("npx");
    // npx keeps its cache and logs under HOME: the user's, not the binary's empty one.
    if let Some(home) = std::env::var_os("HOME") {
        c.env("HOME", home);
    }
    c.current_dir(dir)
        .args(["--no-install", "indus-tool"])
        .args(args)
        .output()
        .unwrap()
}

/// Run `cmd` to its end, at most `limit`; its output, or a failure naming what it printed.
fn run_with_limit(mut cmd: Command, limit: Duration, what: &str) -> Output {
    let logs = tempfile::tempdir().unwrap();
    let (out_path, err_path) = (logs.path().join("stdout"), logs.path().join("stderr"));
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let ended = common::wait_until(limit, || child.try_wait().unwrap().is_some());
    if !ended {
        let _ = child.kill();
    }
    let status = child.wait().unwrap();
    let (out, err) = (
        std::fs::read(&out_path).unwrap(),
        std::fs::read(&err_path).unwrap(),
    );
    assert!(
        ended,
        "{what} did not end within {limit:?}; it printed:\n{}\n{}",
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&err)
    );
    Output {
        status,
        stdout: out,
        stderr: err,
    }
}

/// Every file of the installed package, relative to it.
fn files_below(dir: &Path, base: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_below(&path, base, out);
        } else {
            out.push(
                path.strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
    }
}

/// The package holds what `files` ships and nothing else, and the binary runs.
#[test]
fn the_package_ships_the_launcher_the_client_and_the_binary() {
    let Some(tarball) = tarball() else { return };
    let dir = install(&tarball);
    let package = dir.path().join("node_modules/indus-tool");
    let mut files = Vec::new();
    files_below(&package, &package, &mut files);
    files.sort();
    assert_eq!(
        files,
        [
            "README.md",
            "bin/indus-tool.js",
            "dist/index.d.ts",
            "dist/index.js",
            "dist/platform.d.ts",
            "dist/platform.js",
            "dist/tools.d.ts",
            "dist/tools.js",
            "package.json",
            "vendor/x86_64-unknown-linux-gnu/indus-tool",
        ]
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(package.join("package.json")).unwrap()).unwrap();
    assert_eq!(manifest["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(manifest["license"], env!("CARGO_PKG_LICENSE"));
    assert!(
        manifest.get("dependencies").is_none(),
        "no runtime dependencies"
    );
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(package.join("vendor/x86_64-unknown-linux-gnu/indus-tool"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
}

/// `npx indus-tool` runs the shipped binary with the arguments given and ends with
/// its exit status: 0, grep's 1 for no match, 2 for a usage error.
#[test]
fn the_launcher_passes_arguments_and_exit_statuses_through() {
    let Some(tarball) = tarball() else { return };
    let dir = install(&tarball);
    let out = npx(dir.path(), &["--version"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!("indus-tool {}\n", env!("CARGO_PKG_VERSION"))
    );

    std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
    let out = npx(dir.path(), &["grep", "-F", "two", "a.txt"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("a.txt:2: two\n"),
        "{}",
        stdout(&out)
    );

    let out = npx(dir.path(), &["grep", "nothing-matches-this", "a.txt"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));

    let out = npx(dir.path(), &["grep", "--no-such-flag", "x"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
}

/// Process ids whose command line holds `marker`.
fn pids_with(marker: &str) -> Vec<i32> {
    let out = Command::new("pgrep").args(["-f", marker]).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

fn kill(pid: i32, signal: nix::sys::signal::Signal) {
    let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal);
}

/// A SIGTERM to the launcher alone reaches the binary (which cancels its command and
/// exits 143), and a binary killed by a signal takes the launcher down with it.
#[test]
fn the_launcher_forwards_signals_and_dies_of_the_binarys() {
    use nix::sys::signal::Signal;
    use std::os::unix::process::ExitStatusExt as _;
    let Some(tarball) = tarball() else { return };
    if !answers("pgrep") {
        common::missing("pgrep is not installed (procps)", "npm launcher: no pgrep");
        return;
    }
    let dir = install(&tarball);
    let launcher = dir.path().join("node_modules/indus-tool/bin/indus-tool.js");
    let spawn = |marker: &str| {
        scrubbed("node")
            .current_dir(dir.path())
            .arg(&launcher)
            .args(["bash", &format!("sleep {marker}; echo done")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let marker = format!("30.{}1", std::process::id());
    let mut child = spawn(&marker);
    assert!(
        common::wait_until(Duration::from_secs(10), || {
            !pids_with(&format!("^sleep {marker}")).is_empty()
        }),
        "the command never started"
    );
    kill(child.id() as i32, Signal::SIGTERM);
    let ended = common::wait_until(Duration::from_secs(5), || {
        child.try_wait().unwrap().is_some()
    });
    let left = pids_with(&marker);
    for pid in &left {
        kill(*pid, Signal::SIGKILL);
    }
    if !ended {
        let _ = child.kill();
    }
    let status = child.wait().unwrap();
    assert!(ended, "the launcher did not end after SIGTERM");
    assert_eq!(status.code(), Some(143), "{status:?}");
    assert!(
        common::wait_until(Duration::from_secs(2), || pids_with(&marker).is_empty()),
        "the command outlived its cancelled call: {left:?}"
    );

    let marker = format!("30.{}2", std::process::id());
    let mut child = spawn(&marker);
    let binary = format!("indus-tool bash sleep {marker}");
    assert!(
        common::wait_until(Duration::from_secs(10), || !pids_with(&binary).is_empty()),
        "the binary never started"
    );
    for pid in pids_with(&binary) {
        kill(pid, Signal::SIGKILL);
    }
    let ended = common::wait_until(Duration::from_secs(5), || {
        child.try_wait().unwrap().is_some()
    });
    // The binary's SIGKILL left its shell and sleep behind: they are this test's.
    for pid in pids_with(&marker) {
        kill(pid, Signal::SIGKILL);
    }
    if !ended {
        let _ = child.kill();
    }
    let status = child.wait().unwrap();
    assert!(ended, "the launcher did not end with its binary");
    assert_eq!(status.signal(), Some(9), "{status:?}");
}

/// On a platform the package has no binary for, the launcher says so in one paragraph
/// (the platform, what is supported, how to build from source) and exits 1. The
/// platform is made another with a preloaded module redefining process.platform and
/// process.arch, the launcher itself unchanged.
#[test]
fn the_launcher_names_an_unsupported_platform() {
    let Some(tarball) = tarball() else { return };
    let dir = install(&tarball);
    let preload = dir.path().join("other-platform.cjs");
    std::fs::write(
        &preload,
        "Object.defineProperty(process, 'platform', { value: 'darwin' });\n\
         Object.defineProperty(process, 'arch', { value: 'arm64' });\n",
    )
    .unwrap();
    let out = scrubbed("node")
        .current_dir(dir.path())
        .arg("--require")
        .arg(&preload)
        .arg(dir.path().join("node_modules/indus-tool/bin/indus-tool.js"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    let said = stderr(&out);
    assert_eq!(said.lines().count(), 1, "one paragraph: {said}");
    for part in [
        "no binary for darwin on arm64",
        "linux-x64 (x86_64-unknown-linux-gnu)",
        "cargo install --locked --path .",
        "README",
        "INDUS_TOOL_BIN",
    ] {
        assert!(said.contains(part), "{part:?} not in {said}");
    }
}

/// The client's behaviour, under Node's test runner: read, grep, a three-place
/// edit, apply_patch, a background job polled to its end, an aborted `bash sleep`
/// (rejected at once, its process gone), ten calls at once, a killed process
/// restarted at the next call, close().
#[test]
fn the_typescript_client_under_nodes_test_runner() {
    let Some(tarball) = tarball() else { return };
    if !answers("pgrep") {
        common::missing("pgrep is not installed (procps)", "npm client: no pgrep");
        return;
    }
    let dir = install(&tarball);
    // Bare imports resolve from the importing file's folder: the test file goes
    // beside the installed node_modules.
    let test_file = dir.path().join("ts_client.test.mjs");
    std::fs::copy(repo().join("tests/peers/ts_client.test.mjs"), &test_file).unwrap();
    let mut node = scrubbed("node");
    node.current_dir(dir.path())
        .env("INDUS_TOOL_BIN", built_binary())
        .arg("--test")
        .arg(&test_file);
    let out = run_with_limit(node, Duration::from_secs(180), "node --test");
    assert_eq!(
        code(&out),
        0,
        "the client's tests failed:\n{}\n{}",
        stdout(&out),
        stderr(&out)
    );
    // "# fail 0" (tap) or "ℹ fail 0" (spec), as the Node version reports.
    assert!(stdout(&out).contains("fail 0"), "{}", stdout(&out));
}

/// The compiler that type-checks the example: `INDUS_NPM_TSC`, else npm/'s own.
fn tsc() -> Option<PathBuf> {
    let tsc = std::env::var_os("INDUS_NPM_TSC")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("npm/node_modules/.bin/tsc"));
    if !tsc.is_file() {
        common::missing(
            &format!(
                "no TypeScript compiler at {} (.ci/run installs npm/'s devDependencies)",
                tsc.display()
            ),
            &format!(
                "npm client types: no {} (npm ci --prefix npm, or INDUS_NPM_TSC)",
                tsc.display()
            ),
        );
        return None;
    }
    Some(tsc)
}

/// A program using the typed methods compiles against the installed declarations
/// (strict), and the mistakes it marks `@ts-expect-error` are errors.
#[test]
fn the_typed_example_compiles_against_the_installed_declarations() {
    let Some(tarball) = tarball() else { return };
    let Some(tsc) = tsc() else { return };
    let dir = install(&tarball);
    std::fs::copy(
        repo().join("tests/peers/ts_client_example.ts"),
        dir.path().join("example.ts"),
    )
    .unwrap();
    // Node's types (AbortSignal, Symbol.asyncDispose) from the compiler's node_modules.
    let type_roots = tsc.parent().and_then(Path::parent).unwrap().join("@types");
    let config = serde_json::json!({
        "compilerOptions": {
            "target": "ES2022",
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": true,
            "noEmit": true,
            "typeRoots": [type_roots],
            "types": ["node"],
        },
        "files": ["example.ts"],
    });
    std::fs::write(dir.path().join("tsconfig.json"), config.to_string()).unwrap();
    let mut check = Command::new(&tsc);
    check.current_dir(dir.path()).args(["-p", "tsconfig.json"]);
    let out = run_with_limit(check, Duration::from_secs(120), "tsc");
    assert_eq!(
        code(&out),
        0,
        "tsc found errors:\n{}{}",
        stdout(&out),
        stderr(&out)
    );
}

/// The committed npm/src/tools.ts is what this build's `--checkpoint schema` gives.
#[test]
fn the_generated_types_match_the_schema() {
    if !node() {
        return;
    }
    let out = Command::new("node")
        .arg(repo().join("npm/scripts/gen-types.mjs"))
        .arg(built_binary())
        .arg("--check")
        .output()
        .unwrap();
    assert_eq!(
        code(&out),
        0,
        "npm/src/tools.ts is stale: {}{}",
        stdout(&out),
        stderr(&out)
    );
}

/// gen-types.mjs's JSON Schema conversion on keywords the tools' schemas do not all
/// use yet (oneOf, anyOf, nullable, maps), under Node's test runner.
#[test]
fn the_schema_converter_handles_its_keywords() {
    if !node() {
        return;
    }
    let mut run = Command::new("node");
    run.arg("--test")
        .arg(repo().join("npm/scripts/gen-types.test.mjs"));
    let out = run_with_limit(run, Duration::from_secs(60), "node --test");
    assert_eq!(
        code(&out),
        0,
        "gen-types.test.mjs failed:\n{}{}",
        stdout(&out),
        stderr(&out)
    );
}

/// The TypeScript snippet of docs/agents.md (plain JavaScript as it is written)
/// runs as it stands against the installed package, in a project holding a known
/// README.md.
#[test]
fn the_agents_pages_typescript_snippet_runs() {
    let Some(tarball) = tarball() else { return };
    let dir = install(&tarball);
    std::fs::write(
        dir.path().join("README.md"),
        "# demo\nindus-tool is here\nnot this line\nindus again\n",
    )
    .unwrap();
    let (lang, body) = common::doc_snippet("agents.md", "client-snippet=typescript");
    assert_eq!(lang, "js");
    // Bare imports resolve from the file's folder: beside node_modules.
    std::fs::write(dir.path().join("snippet.mjs"), body).unwrap();
    let mut node = scrubbed("node");
    node.current_dir(dir.path())
        .env("INDUS_TOOL_BIN", built_binary())
        .arg("snippet.mjs");
    let out = run_with_limit(node, Duration::from_secs(60), "the snippet");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "README.md:2: indus-tool is here\nREADME.md:4: indus again\ngave up: AbortError\n4 lines\n"
    );
}
