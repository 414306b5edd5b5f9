//! The Python package as a user gets it: `pip install .` into a fresh virtualenv
//! puts `indus-tool` on that environment's PATH and installs `indus_tool`, whose
//! clients then drive the toolbox on temp trees (python/tests/test_client.py:
//! read, grep, a 3-place edit, a patch, a background job polled, cancelled calls,
//! concurrent tasks and threads, a restart after the process died).
//!
//! `.ci/run` builds the wheel once into a fresh `target/py-wheel-venv`
//! (`INDUS_PY_WHEEL_VENV` names another); without it the tests say SKIPPED, and
//! fail under `CI=true`. The typed methods are generated from the binary's own
//! schema, and the committed file must be what this build's schema gives.

use crate::common;

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The virtualenv the wheel is installed in, when it is there.
fn wheel_venv() -> Option<PathBuf> {
    let venv = std::env::var_os("INDUS_PY_WHEEL_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/py-wheel-venv"));
    if venv.join("bin/indus-tool").is_file() && venv.join("bin/python").is_file() {
        return Some(venv);
    }
    common::missing(
        &format!(
            "no wheel installed in {} (.ci/run: python3 -m venv DIR && DIR/bin/pip install .)",
            venv.display()
        ),
        &format!(
            "Python package: no {} (python3 -m venv target/py-wheel-venv && target/py-wheel-venv/bin/pip install .)",
            venv.display()
        ),
    );
    None
}

/// The installed package is this checkout's: a stale install would test old code.
fn assert_installed_package_is_current(venv: &Path) {
    let out = std::process::Command::new(venv.join("bin/python"))
        .args([
            "-c",
            "import indus_tool, os; print(os.path.dirname(indus_tool.__file__))",
        ])
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let installed = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    assert!(
        installed.starts_with(venv),
        "indus_tool is imported from {}, not the venv",
        installed.display()
    );
    for entry in std::fs::read_dir(repo().join("python/indus_tool")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "py" || e == "typed") {
            let name = path.file_name().unwrap();
            assert!(
                std::fs::read(installed.join(name)).ok() == Some(std::fs::read(&path).unwrap()),
                "the installed {} differs from python/indus_tool's: reinstall (pip install .)",
                name.to_string_lossy()
            );
        }
    }
}

#[test]
fn pip_install_puts_the_toolbox_on_path_and_the_client_drives_it() {
    let Some(venv) = wheel_venv() else { return };
    assert_installed_package_is_current(&venv);
    let version = std::process::Command::new(venv.join("bin/indus-tool"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&version.stdout),
        format!("indus-tool {}\n", env!("CARGO_PKG_VERSION"))
    );
    // Run as a file, so that `indus_tool` is the installed package and not the
    // source folder beside it; HOME in a temp folder keeps the toolbox's per-user
    // state out of the host's.
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(venv.join("bin/python"))
        .arg(repo().join("python/tests/test_client.py"))
        .arg("-v")
        .env("HOME", home.path())
        .env_remove("XDG_STATE_HOME")
        .env_remove("INDUS_TOOL_BIN")
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", venv.join("bin").display()),
        )
        .current_dir(home.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "python/tests/test_client.py failed:\n{said}"
    );
    assert!(said.contains("\nOK"), "{said}");
    assert!(!said.contains("skipped"), "{said}");
}

#[test]
fn the_typed_methods_are_what_the_schema_gives() {
    let out = std::process::Command::new("python3")
        .arg(repo().join("python/gen_tools.py"))
        .arg(env!("CARGO_BIN_EXE_indus-tool"))
        .arg("--check")
        .output();
    match out {
        Err(e) => common::missing(&format!("python3: {e}"), "python3 is not here"),
        Ok(out) => assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// The Python snippets of docs/agents.md run as they stand, with the installed
/// package, in a project holding a known README.md.
#[test]
fn the_agents_pages_python_snippets_run() {
    let Some(venv) = wheel_venv() else { return };
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("README.md"),
        "# demo\nindus-tool is here\nnot this line\nindus again\n",
    )
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let run = |marker: &str| {
        let (lang, body) = common::doc_snippet("agents.md", marker);
        assert_eq!(lang, "python");
        let out = std::process::Command::new(venv.join("bin/python"))
            .args(["-c", &body])
            .env("HOME", home.path())
            .env_remove("XDG_STATE_HOME")
            .env_remove("INDUS_TOOL_BIN")
            .current_dir(project.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{marker}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(
        run("client-snippet=python"),
        "README.md:2: indus-tool is here\nREADME.md:4: indus again\n2 places replaced\n2 lines say INDUS\n"
    );
    let t0 = std::time::Instant::now();
    assert_eq!(
        run("client-snippet=python-async"),
        "4 lines, 1 entries\ngave up; the toolbox killed the sleep\n"
    );
    assert!(t0.elapsed() < std::time::Duration::from_secs(20));
}

/// The typed methods as a type checker sees them: mypy (--strict, in the peers'
/// venv) on python/tests/typed_example.py against the installed package. Its
/// `type: ignore[code]` lines are mistakes the types must catch;
/// --warn-unused-ignores fails the run when one is not caught.
#[test]
fn the_typed_example_passes_mypy_against_the_installed_package() {
    let Some(venv) = wheel_venv() else { return };
    let mypy = common::mcp_peers_dir().join("venv/bin/mypy");
    if !mypy.is_file() {
        common::missing(
            &format!("no mypy at {} (.ci/run installs it)", mypy.display()),
            "Python types: no mypy in the MCP peers' venv (DIR/venv/bin/pip install mypy)",
        );
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(mypy)
        .arg("--python-executable")
        .arg(venv.join("bin/python"))
        .args(["--strict", "--warn-unused-ignores", "--cache-dir"])
        .arg(cache.path())
        .arg(repo().join("python/tests/typed_example.py"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mypy: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
