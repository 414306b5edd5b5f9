//! Project configuration needs the user's trust, through the real binary: a
//! project's MCP config, agents file, policy and buddy settings come with the
//! checkout, and until `indus-tool trust FILE` recorded their exact content
//! none of them runs anything, sends anything or loosens the user's approval.
//! Every run has a scrubbed environment (`HOME` a temp folder, no
//! `XDG_STATE_HOME` nor `XDG_CONFIG_HOME`, so the user's state is the temp
//! folder's) and no controlling terminal (`setsid`), so approval that asks is
//! a refusal.

use crate::common;

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{TestEnv, code, stderr, stdout};
use serde_json::{Value, json};

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("indus-tool")
}

/// A project (a folder with `.git`) and a home of its own.
struct Checkout {
    env: TestEnv,
    home: tempfile::TempDir,
}

impl Checkout {
    fn new() -> Self {
        let env = TestEnv::new();
        env.mkdir(".git");
        Checkout {
            env,
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// The binary in its own session (no terminal), in `dir`, with a scrubbed
    /// environment plus `vars`.
    fn run_in(&self, dir: &Path, vars: &[(&str, &str)], args: &[&str]) -> Output {
        let mut c = std::process::Command::new("setsid");
        c.arg("-w")
            .arg(bin())
            .args(args)
            .current_dir(dir)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("LANG", "C.UTF-8")
            .env("INDUS_EXACT", "1")
            .stdin(std::process::Stdio::null());
        for (k, v) in vars {
            c.env(k, v);
        }
        c.output().expect("run indus-tool")
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_in(self.env.root(), &[], args)
    }

    fn root(&self) -> &Path {
        self.env.root()
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.env.path(rel)
    }

    /// A file of the user's configuration folder (`~/.config/indusvx/NAME`).
    fn user_config(&self, name: &str, text: &str) {
        let p = self.home.path().join(".config/indusvx").join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// An executable sh script; its absolute path.
    fn script(&self, rel: &str, body: &str) -> String {
        let p = self.env.write(rel, format!("#!/bin/sh\n{body}\n"));
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p.to_string_lossy().into_owned()
    }
}

/// What names an untrusted project file on stderr.
fn untrusted(what: &str, file: &Path) -> String {
    format!(
        "indus-tool: not using {what} of {0}: this project file is not trusted (indus-tool trust {0})",
        file.display()
    )
}

/// A `peer` server row: another indus-tool serving its tools over stdio, which
/// first leaves `marker` behind.
fn marking_peer(root: &Path, marker: &Path) -> Value {
    let line = format!(
        "touch '{}'; exec '{}' --cwd '{}' mcp --no-gate",
        marker.display(),
        bin().display(),
        root.display()
    );
    json!({"command": "sh", "args": ["-c", line]})
}

#[test]
fn an_untrusted_mcp_config_starts_nothing_until_trusted_and_an_edit_revokes() {
    let c = Checkout::new();
    c.env.write("notes.txt", "TODO: hello\n");
    c.env.mkdir("sub");
    let marker = c.path("started");
    let config = json!({"mcpServers": {"peer": marking_peer(c.root(), &marker)}}).to_string();
    let file = c.env.write(".mcp.json", &config);
    let line = untrusted("the MCP servers", &file);

    // Built-in tools, from the project and from a subfolder, with --root too.
    for (dir, args) in [
        (c.root().to_path_buf(), &["grep", "TODO"][..]),
        (c.root().to_path_buf(), &["ls"][..]),
        (
            c.root().to_path_buf(),
            &["--root", ".", "read", "notes.txt"][..],
        ),
        (c.path("sub"), &["grep", "TODO", ".."][..]),
    ] {
        let out = c.run_in(&dir, &[], args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("mcp"), "{args:?}: {}", stderr(&out));
    }
    // What uses the grafted tools names the file once, and grafts nothing.
    let out = c.run(&["list"]);
    assert_eq!(code(&out), 0);
    assert!(!stdout(&out).contains("peer__"));
    assert_eq!(stderr(&out).matches(&line).count(), 1, "{}", stderr(&out));
    let out = c.run(&["peer__read", "notes.txt"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert_eq!(stderr(&out).matches(&line).count(), 1, "{}", stderr(&out));
    let out = c.run(&["mcp", "servers"]);
    assert!(stderr(&out).contains(&line), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the project's config files are not trusted"),
        "{}",
        stderr(&out)
    );
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !marker.exists(),
        "an untrusted project's server was started"
    );

    // Trusted: it grafts as before.
    let out = c.run(&["trust", ".mcp.json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = stdout(&out);
    assert!(
        said.starts_with(&format!("trusted {} (sha256 ", file.display())),
        "{said}"
    );
    let out = c.run(&["peer__read", "notes.txt"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("TODO: hello"), "{}", stdout(&out));
    assert!(marker.exists());
    // A built-in's call still starts nothing.
    std::fs::remove_file(&marker).unwrap();
    assert_eq!(code(&c.run(&["grep", "TODO"])), 0);
    std::thread::sleep(Duration::from_millis(500));
    assert!(!marker.exists(), "a built-in's call started the server");

    // --list shows it; an edit revokes it.
    let (v, _) = json_of(&c.run(&["--format", "json", "trust", "--list"]));
    assert_eq!(v[0]["path"], file.to_string_lossy().as_ref());
    assert_eq!(v[0]["state"], "matches");
    std::fs::write(&file, config.replace("peer", "peer2")).unwrap();
    let out = c.run(&["peer2__read", "notes.txt"]);
    assert_eq!(code(&out), 2);
    assert_eq!(stderr(&out).matches(&line).count(), 1, "{}", stderr(&out));
    assert!(!marker.exists());
    let out = c.run(&["trust", "--list"]);
    assert!(
        stdout(&out).contains("changed since (not used until trusted again)"),
        "{}",
        stdout(&out)
    );
    // --revoke forgets it.
    let out = c.run(&["trust", "--revoke", ".mcp.json"]);
    assert_eq!(stdout(&out), format!("revoked {}\n", file.display()));
    let out = c.run(&["trust", "--list"]);
    assert_eq!(stdout(&out), "No configuration file is trusted.\n");
}

fn json_of(out: &Output) -> (Value, String) {
    let text = stdout(out);
    (
        serde_json::from_str(text.trim())
            .unwrap_or_else(|e| panic!("not JSON ({e}): {text:?} {:?}", stderr(out))),
        text,
    )
}

/// With no FILE, `trust` trusts the project's configuration files found from
/// the working folder; a file that does not exist is refused.
#[test]
fn trust_without_a_file_trusts_the_project_files_found() {
    let c = Checkout::new();
    let out = c.run(&["trust"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("no project configuration file here"),
        "{}",
        stderr(&out)
    );
    c.env.write(".vscode/mcp.json", r#"{"servers": {}}"#);
    c.env
        .write(".indusvx/policy.json", r#"{"allow": ["make"]}"#);
    c.env.mkdir("sub");
    let out = c.run_in(&c.path("sub"), &[], &["--format", "json", "trust"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let (v, _) = json_of(&out);
    // From sub: the editors' files up to the repository root; `.indusvx/` of
    // the working folder only.
    assert_eq!(v.as_array().unwrap().len(), 1, "{v}");
    assert_eq!(
        v[0]["path"],
        c.path(".vscode/mcp.json").to_string_lossy().as_ref()
    );
    assert_eq!(v[0]["sha256"].as_str().unwrap().len(), 64);
    let out = c.run(&["trust"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
    let out = c.run(&["trust", "nope.json"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("nope.json: there is no such file"),
        "{}",
        stderr(&out)
    );
}

/// An HTTP listener on 127.0.0.1 that records what each connection sent.
fn listener() -> (String, Arc<Mutex<Vec<String>>>) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in l.incoming() {
            let Ok(mut s) = stream else { continue };
            let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
            let mut buf = vec![0u8; 8192];
            let n = s.read(&mut buf).unwrap_or(0);
            log.lock()
                .unwrap()
                .push(String::from_utf8_lossy(&buf[..n]).into_owned());
        }
    });
    (format!("http://{addr}/mcp"), seen)
}

#[test]
fn a_secret_in_an_untrusted_http_config_is_never_read_nor_sent() {
    let c = Checkout::new();
    c.env.write("a.txt", "a\n");
    let (url, seen) = listener();
    let file = c.env.write(
        ".vscode/mcp.json",
        json!({"servers": {"gh": {"type": "http", "url": url,
            "headers": {"Authorization": "Bearer ${env:SECRET}"}}}})
        .to_string(),
    );
    let secret = [("SECRET", "s3cr3t-token")];
    for args in [
        &["ls"][..],
        &["grep", "a"][..],
        &["list"][..],
        &["mcp", "servers"][..],
        &["mcp", "refresh"][..],
        &["gh__search", "x"][..],
    ] {
        let out = c.run_in(c.root(), &secret, args);
        assert!(
            !stderr(&out).contains("s3cr3t") && !stdout(&out).contains("s3cr3t"),
            "{args:?}"
        );
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        seen.lock().unwrap().is_empty(),
        "an untrusted config dialled its server: {:?}",
        seen.lock().unwrap()
    );
    // Trusted, the same config sends the header: the listener would have seen it.
    assert_eq!(code(&c.run(&["trust", &file.to_string_lossy()])), 0);
    let _ = c.run_in(c.root(), &secret, &["mcp", "refresh"]);
    assert!(
        common::wait_until(Duration::from_secs(5), || seen
            .lock()
            .unwrap()
            .iter()
            .any(|r| r.contains("Bearer s3cr3t-token"))),
        "{:?}",
        seen.lock().unwrap()
    );
}

#[test]
fn indus_no_mcp_turns_grafting_off_like_the_flag() {
    let c = Checkout::new();
    let marker = c.path("started");
    c.env.write(
        ".mcp.json",
        json!({"mcpServers": {"peer": marking_peer(c.root(), &marker)}}).to_string(),
    );
    assert_eq!(code(&c.run(&["trust", ".mcp.json"])), 0);
    let off = [("INDUS_NO_MCP", "1")];
    let out = c.run_in(c.root(), &off, &["list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!stdout(&out).contains("peer__"));
    let out = c.run_in(c.root(), &off, &["mcp", "servers"]);
    assert!(
        stderr(&out).contains("grafting is off (--no-mcp or INDUS_NO_MCP)"),
        "{}",
        stderr(&out)
    );
    std::thread::sleep(Duration::from_millis(300));
    assert!(!marker.exists());
    // `0` is not off.
    let out = c.run_in(c.root(), &[("INDUS_NO_MCP", "0")], &["list"]);
    assert!(stdout(&out).contains("peer__read"), "{}", stderr(&out));
    assert!(marker.exists());
}

#[test]
fn a_project_buddy_json_cannot_turn_the_users_confirmation_off() {
    let c = Checkout::new();
    c.user_config("buddy.json", r#"{"shell_confirm": true}"#);
    let file = c
        .env
        .write(".indusvx/buddy.json", r#"{"shell_confirm": false}"#);
    let out = c.run(&["bash", "touch ran"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("Command execution denied by user."),
        "{}",
        stderr(&out)
    );
    assert!(!c.path("ran").exists());
    let named = untrusted("the shell_confirm setting", &file);
    assert_eq!(stderr(&out).matches(&named).count(), 1, "{}", stderr(&out));
    // Nor can it turn `--confirm` off: the command line wins over every file.
    c.user_config("buddy.json", "{}");
    let out = c.run(&["--confirm", "bash", "touch ran"]);
    assert_eq!(code(&out), 1);
    assert!(!c.path("ran").exists());
    // A project that asks for confirmation gets it without trust (it tightens).
    c.env
        .write(".indusvx/buddy.json", r#"{"shell_confirm": true}"#);
    let out = c.run(&["bash", "touch ran"]);
    assert_eq!(code(&out), 1);
    assert!(!c.path("ran").exists());
}

#[test]
fn a_project_policy_allows_nothing_until_trusted_and_always_denies() {
    let c = Checkout::new();
    let file = c.env.write(
        ".indusvx/policy.json",
        r#"{"allow": ["touch"], "deny": ["rm"]}"#,
    );
    let out = c.run(&["--confirm", "bash", "touch made"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        !c.path("made").exists(),
        "an untrusted allow rule approved it"
    );
    let named = untrusted("the allow rules", &file);
    assert_eq!(stderr(&out).matches(&named).count(), 1, "{}", stderr(&out));
    // Its deny rules count, trusted or not.
    c.env.write("keep", "x");
    let out = c.run(&["bash", "rm keep"]);
    assert_eq!(code(&out), 1);
    assert!(c.path("keep").exists());
    // Trusted: its allow rule runs the command unasked.
    assert_eq!(code(&c.run(&["trust", ".indusvx/policy.json"])), 0);
    let out = c.run(&["--confirm", "bash", "touch made"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(c.path("made").exists());
    assert!(!stderr(&out).contains("not trusted"), "{}", stderr(&out));
}

#[test]
fn an_untrusted_agents_file_is_ignored_and_cannot_replace_the_users_agent() {
    let c = Checkout::new();
    let mine = c.script("mine.sh", "echo user");
    let theirs = c.script("theirs.sh", "touch theirs-ran; echo project");
    c.user_config(
        "agents.json",
        &json!({"agents": {"same": {"command": [mine]}}}).to_string(),
    );
    let file = c.env.write(
        ".indusvx/agents.json",
        json!({"agents": {"same": {"command": [theirs]}, "extra": {"command": [theirs]}}})
            .to_string(),
    );
    let out = c.run(&["task", "x", "--agent", "same"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "user\n");
    let named = untrusted("the agents", &file);
    assert_eq!(stderr(&out).matches(&named).count(), 1, "{}", stderr(&out));
    let out = c.run(&["task", "x", "--agent", "extra"]);
    assert_eq!(code(&out), 1);
    assert!(!c.path("theirs-ran").exists());
    // Trusted, the project's agent wins as before.
    assert_eq!(code(&c.run(&["trust", ".indusvx/agents.json"])), 0);
    let out = c.run(&["task", "x", "--agent", "same"]);
    assert_eq!(stdout(&out), "project\n", "{}", stderr(&out));
}

/// `--confirm task` asks as `--confirm bash` does (no terminal: refused), and
/// the policy's rules match the agent's command.
#[test]
fn task_runs_under_approval_like_bash() {
    let c = Checkout::new();
    let agent = c.script("agent.sh", "touch agent-ran; echo done");
    c.user_config(
        "agents.json",
        &json!({"agents": {"a": {"command": [agent]}}}).to_string(),
    );
    let bash = c.run(&["--confirm", "bash", "touch bash-ran"]);
    let task = c.run(&["--confirm", "task", "x"]);
    assert_eq!(code(&task), code(&bash));
    assert_eq!(code(&task), 1);
    assert_eq!(stderr(&task), stderr(&bash));
    assert_eq!(stderr(&task), "Command execution denied by user.\n");
    assert!(!c.path("agent-ran").exists());
    let (v, _) = json_of(&c.run(&["--confirm", "--format", "json", "task", "x"]));
    assert_eq!(v["is_error"], true);
    assert_eq!(v["output"], "Command execution denied by user.");
    // The user's policy: a deny rule refuses it, an allow rule runs it unasked.
    c.user_config("policy.json", &json!({"deny": [agent]}).to_string());
    let out = c.run(&["task", "x"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).starts_with("Command denied by policy: "),
        "{}",
        stderr(&out)
    );
    c.user_config("policy.json", &json!({"allow": [agent]}).to_string());
    let out = c.run(&["--confirm", "task", "x"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "done\n");
    assert!(c.path("agent-ran").exists());
}

/// What names a project file whose trust no longer holds because of a file it
/// launches (`rel`, relative to the project), and why.
fn launch_line(what: &str, file: &Path, rel: &str, why: &str) -> String {
    format!(
        "indus-tool: not using {what} of {0}: {rel}, which it launches, {why} (indus-tool trust {0})",
        file.display()
    )
}

/// A marker outside the project, in a folder of its own: what a launched
/// script leaves behind when it runs.
fn outside_marker() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    (dir, marker)
}

/// The trust of a `.mcp.json` covers the script its server runs (`sh
/// tools/mcp-server.sh`): a fork that changes only the script, keeps its bytes
/// behind a link, or deletes it, starts nothing; `--list` says so; trusting
/// again makes it run.
#[test]
fn a_changed_script_of_a_trusted_mcp_server_revokes_the_trust() {
    let c = Checkout::new();
    let (_keep, marker) = outside_marker();
    let body = format!(
        "touch '{}'\nexec '{}' --cwd '{}' mcp --no-gate\n",
        marker.display(),
        bin().display(),
        c.root().display()
    );
    let script = c.env.write("tools/mcp-server.sh", &body);
    let file = c.env.write(
        ".mcp.json",
        json!({"mcpServers": {"peer": {"command": "sh", "args": ["tools/mcp-server.sh"]}}})
            .to_string(),
    );
    let out = c.run(&["trust", ".mcp.json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let said = stdout(&out);
    assert!(
        said.starts_with(&format!("trusted {} (sha256 ", file.display())),
        "{said}"
    );
    assert!(
        said.contains(&format!("\n  launches {} (sha256 ", script.display())),
        "{said}"
    );
    let (v, _) = json_of(&c.run(&["--format", "json", "trust", "--list"]));
    assert_eq!(v[0]["state"], "matches", "{v}");
    assert_eq!(
        v[0]["launches"][0]["path"],
        script.to_string_lossy().as_ref()
    );
    assert_eq!(v[0]["launches"][0]["state"], "matches");
    assert_eq!(v[0]["launches"][0]["sha256"].as_str().unwrap().len(), 64);

    // Unchanged: the server starts.
    let out = c.run(&["list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("peer__read"), "{}", stderr(&out));
    assert!(marker.exists(), "the trusted server did not start");
    std::fs::remove_file(&marker).unwrap();

    // The fork changes the script only: nothing starts, and the line names it.
    let changed = launch_line(
        "the MCP servers",
        &file,
        "tools/mcp-server.sh",
        "changed since it was trusted",
    );
    std::fs::write(&script, format!("{body}# a fork's edit\n")).unwrap();
    for args in [
        &["list"][..],
        &["peer__read", "x"][..],
        &["mcp", "refresh"][..],
    ] {
        let out = c.run(args);
        assert!(!stdout(&out).contains("peer__read"), "{args:?}");
        assert_eq!(
            stderr(&out).matches(&changed).count(),
            1,
            "{args:?}: {}",
            stderr(&out)
        );
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(!marker.exists(), "a changed script was run");
    let out = c.run(&["trust", "--list"]);
    assert!(
        stdout(&out).contains(&format!("  launches {}  sha256 ", script.display()))
            && stdout(&out).contains("changed since (not used until trusted again)"),
        "{}",
        stdout(&out)
    );
    let (v, _) = json_of(&c.run(&["--format", "json", "trust", "--list"]));
    assert_eq!(v[0]["state"], "matches", "the config itself did not change");
    assert_eq!(v[0]["launches"][0]["state"], "changed");

    // The trusted bytes behind a link swapped in: changed too.
    let elsewhere = c.home.path().join("same.sh");
    std::fs::write(&elsewhere, &body).unwrap();
    std::fs::remove_file(&script).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &script).unwrap();
    let out = c.run(&["list"]);
    assert_eq!(
        stderr(&out).matches(&changed).count(),
        1,
        "{}",
        stderr(&out)
    );
    // Deleted: missing.
    std::fs::remove_file(&script).unwrap();
    let out = c.run(&["list"]);
    let missing = launch_line(
        "the MCP servers",
        &file,
        "tools/mcp-server.sh",
        "is missing since it was trusted",
    );
    assert_eq!(
        stderr(&out).matches(&missing).count(),
        1,
        "{}",
        stderr(&out)
    );
    let (v, _) = json_of(&c.run(&["--format", "json", "trust", "--list"]));
    assert_eq!(v[0]["launches"][0]["state"], "missing");
    assert!(!marker.exists());

    // Trusted again, as it is now: it runs again.
    std::fs::write(&script, format!("{body}# reviewed\n")).unwrap();
    assert_eq!(code(&c.run(&["trust", ".mcp.json"])), 0);
    let out = c.run(&["list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("peer__read"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("not using"), "{}", stderr(&out));
    assert!(marker.exists(), "the re-trusted server did not start");
}

/// The trust of `.indusvx/agents.json` covers the script its agent runs; a
/// program the agent names that was not there when trusted (built or added
/// since) is not covered either.
#[test]
fn a_changed_or_added_script_of_a_trusted_agent_revokes_the_trust() {
    let c = Checkout::new();
    let (_keep, marker) = outside_marker();
    let mine = c.script("mine.sh", "echo user");
    c.user_config(
        "agents.json",
        &json!({"agents": {"mine": {"command": [mine]}}}).to_string(),
    );
    let body = format!("touch '{}'\necho project\n", marker.display());
    let script = c.env.write("tools/agent.sh", &body);
    let file = c.env.write(
        ".indusvx/agents.json",
        json!({"agents": {"a": {"command": ["sh", "tools/agent.sh"]}}}).to_string(),
    );
    let out = c.run(&["trust", ".indusvx/agents.json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&format!("\n  launches {} (sha256 ", script.display())),
        "{}",
        stdout(&out)
    );
    let out = c.run(&["task", "x", "--agent", "a"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "project\n");
    assert!(marker.exists(), "the trusted agent did not run");
    std::fs::remove_file(&marker).unwrap();

    // The fork changes the script only.
    std::fs::write(&script, format!("{body}# a fork's edit\n")).unwrap();
    let out = c.run(&["task", "x", "--agent", "a"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let changed = launch_line(
        "the agents",
        &file,
        "tools/agent.sh",
        "changed since it was trusted",
    );
    assert_eq!(
        stderr(&out).matches(&changed).count(),
        1,
        "{}",
        stderr(&out)
    );
    assert!(!marker.exists(), "a changed agent script was run");
    // The user's own agent still runs.
    let out = c.run(&["task", "x", "--agent", "mine"]);
    assert_eq!(stdout(&out), "user\n", "{}", stderr(&out));
    let out = c.run(&["trust", "--list"]);
    assert!(
        stdout(&out).contains("changed since (not used until trusted again)"),
        "{}",
        stdout(&out)
    );

    // Trusted again: it runs again.
    assert_eq!(code(&c.run(&["trust", ".indusvx/agents.json"])), 0);
    let out = c.run(&["task", "x", "--agent", "a"]);
    assert_eq!(stdout(&out), "project\n", "{}", stderr(&out));
    assert!(marker.exists());
    std::fs::remove_file(&marker).unwrap();

    // A program the agent names that was not there when trusted.
    std::fs::write(
        &file,
        json!({"agents": {"a": {"command": ["./bin/agent"]}}}).to_string(),
    )
    .unwrap();
    assert_eq!(code(&c.run(&["trust", ".indusvx/agents.json"])), 0);
    c.script("bin/agent", &body);
    let out = c.run(&["task", "x", "--agent", "a"]);
    assert_eq!(code(&out), 1);
    let uncovered = launch_line(
        "the agents",
        &file,
        "bin/agent",
        "is not covered by its trust (it was not there, or not launched, when trusted)",
    );
    assert_eq!(
        stderr(&out).matches(&uncovered).count(),
        1,
        "{}",
        stderr(&out)
    );
    assert!(!marker.exists(), "an uncovered agent program was run");
    let (v, _) = json_of(&c.run(&["--format", "json", "trust", "--list"]));
    let rec = v
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"] == file.to_string_lossy().as_ref() && r["state"] == "matches")
        .unwrap();
    assert_eq!(rec["launches"][0]["state"], "uncovered", "{v}");
    assert_eq!(code(&c.run(&["trust", ".indusvx/agents.json"])), 0);
    let out = c.run(&["task", "x", "--agent", "a"]);
    assert_eq!(stdout(&out), "project\n", "{}", stderr(&out));
    assert!(marker.exists());
}

fn hex_sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Record the user's trust in `file` as the version before launched files
/// were covered wrote it: path and SHA-256 only.
fn old_trust_record(home: &Path, file: &Path) {
    let sha = hex_sha256(&std::fs::read(file).unwrap());
    let mut id = file.as_os_str().as_encoded_bytes().to_vec();
    id.push(0);
    id.extend_from_slice(sha.as_bytes());
    let dir = home.join(".local/state/indus-tool/trust");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(
        home.join(".local/state/indus-tool"),
        std::fs::Permissions::from_mode(0o700),
    )
    .unwrap();
    std::fs::write(
        dir.join(hex_sha256(&id)),
        json!({"path": file, "sha256": sha}).to_string(),
    )
    .unwrap();
}

/// A trust recorded before trust covered launched files still loads: it keeps
/// trusting a file that launches no project file, and a file that launches one
/// must be trusted again (the line says so).
#[test]
fn a_trust_recorded_before_launched_files_were_covered_asks_to_trust_again() {
    let c = Checkout::new();
    let (_keep, marker) = outside_marker();
    c.env.write(
        "tools/mcp-server.sh",
        format!(
            "touch '{}'\nexec '{}' --cwd '{}' mcp --no-gate\n",
            marker.display(),
            bin().display(),
            c.root().display()
        ),
    );
    let file = c.env.write(
        ".mcp.json",
        json!({"mcpServers": {"peer": {"command": "sh", "args": ["tools/mcp-server.sh"]}}})
            .to_string(),
    );
    let policy = c
        .env
        .write(".indusvx/policy.json", r#"{"allow": ["touch"]}"#);
    old_trust_record(c.home.path(), &file);
    old_trust_record(c.home.path(), &policy);
    let out = c.run(&["list"]);
    let line = format!(
        "indus-tool: not using the MCP servers of {0}: it was trusted before trust covered the files a config launches, and it launches tools/mcp-server.sh: trust it again (indus-tool trust {0})",
        file.display()
    );
    assert_eq!(stderr(&out).matches(&line).count(), 1, "{}", stderr(&out));
    assert!(!stdout(&out).contains("peer__read"));
    std::thread::sleep(Duration::from_millis(300));
    assert!(!marker.exists());
    // The old record of a file that launches nothing still holds.
    let out = c.run(&["--confirm", "bash", "touch made"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(c.path("made").exists());
    // --list: the old records load; the uncovered file is named.
    let out = c.run(&["trust", "--list"]);
    assert!(
        stdout(&out).contains(&format!(
            "  launches {}  not covered (not used until trusted again)",
            c.path("tools/mcp-server.sh").display()
        )),
        "{}",
        stdout(&out)
    );
    assert_eq!(code(&c.run(&["trust", ".mcp.json"])), 0);
    let out = c.run(&["list"]);
    assert!(stdout(&out).contains("peer__read"), "{}", stderr(&out));
    assert!(marker.exists());
}
