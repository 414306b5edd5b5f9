//! `--exec ssh:` against a real sshd started by the test on 127.0.0.1: its own host
//! key, `authorized_keys`, configuration and a free port, all in a temp dir (plus
//! `/run/sshd`, which sshd itself requires). The target is this machine, so every
//! tool's answer over SSH is compared with the same call made locally on the same
//! folder: the same bytes. Without sshd these tests say so loudly and stop; under
//! CI they fail instead, since `.ci/run` installs openssh-server.

use crate::common;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{TestEnv, bin_std, code, stderr, stdout, wait_until};

const SSHD: &str = "/usr/sbin/sshd";

struct Sshd {
    /// Keys, configs, the remote cache and the remote working folder.
    dir: tempfile::TempDir,
    child: Child,
    port: u16,
}

impl Drop for Sshd {
    fn drop(&mut self) {
        // The master connections persist on purpose (ControlPersist); end every
        // one this test's configs opened, wherever its socket is, then sshd.
        let dir = self.dir.path().to_string_lossy().into_owned();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
                continue;
            };
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline);
            if cmdline.starts_with("ssh\0") && cmdline.contains(&dir) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGTERM,
                );
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn keygen(path: &Path) {
    let ok = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "ssh-keygen failed");
}

/// A running sshd, or `None` (said loudly) when the machine has none.
fn sshd(name: &str) -> Option<Sshd> {
    if !Path::new(SSHD).exists() || Command::new("ssh").arg("-V").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "sshd or ssh is missing under CI: .ci/run must install openssh-server"
        );
        common::skipped(&format!(
            "{name}: no {SSHD} (openssh-server) or ssh on this machine"
        ));
        return None;
    }
    let _ = std::fs::create_dir_all("/run/sshd");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    keygen(&d.join("host_key"));
    keygen(&d.join("client_key"));
    keygen(&d.join("stranger_key"));
    std::fs::copy(d.join("client_key.pub"), d.join("authorized_keys")).unwrap();
    std::fs::create_dir(d.join("work")).unwrap();
    let port = free_port();
    std::fs::write(
        d.join("sshd_config"),
        format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPermitRootLogin yes\nPidFile {d}/sshd.pid\nLogLevel ERROR\n",
            d = d.display()
        ),
    )
    .unwrap();
    let user = String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout)
        .unwrap()
        .trim()
        .to_string();
    for (file, key) in [
        ("ssh_config", "client_key"),
        ("stranger_config", "stranger_key"),
    ] {
        std::fs::write(
            d.join(file),
            format!(
                "Host testhost\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n  IdentityFile {d}/{key}\n  IdentitiesOnly yes\n  IdentityAgent none\n  StrictHostKeyChecking no\n  UserKnownHostsFile {d}/known_hosts\n  LogLevel ERROR\n",
                d = d.display()
            ),
        )
        .unwrap();
    }
    let child = Command::new(SSHD)
        .args(["-D", "-e", "-f"])
        .arg(d.join("sshd_config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(10), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        }),
        "sshd did not start listening"
    );
    Some(Sshd { dir, child, port })
}

impl Sshd {
    fn config(&self) -> PathBuf {
        self.dir.path().join("ssh_config")
    }

    fn work(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    /// The binary over SSH, run from `local` (whose state folder holds the
    /// control socket), with the remote cache in the temp dir.
    fn remote(&self, local: &TestEnv, config: &Path, args: &[&str]) -> Output {
        bin_std()
            .current_dir(local.root())
            .env("INDUS_REMOTE_CACHE", self.dir.path().join("cache"))
            .args(["--exec", "ssh:testhost", "--ssh-config"])
            .arg(config)
            .arg("--exec-cwd")
            .arg(self.work())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    fn over_ssh(&self, local: &TestEnv, args: &[&str]) -> Output {
        self.remote(local, &self.config(), args)
    }

    /// The same call made here, on the same folder.
    fn here(&self, args: &[&str]) -> Output {
        bin_std()
            .current_dir(self.work())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// The master's pid, as `ssh -O check` reports it.
    fn master_pid(&self, local: &TestEnv) -> Option<u32> {
        let socket = std::fs::read_dir(local.path(".indus-process/ssh"))
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "sock"))?;
        let out = Command::new("ssh")
            .arg("-F")
            .arg(self.config())
            .arg("-S")
            .arg(&socket)
            .args(["-O", "check", "testhost"])
            .output()
            .ok()?;
        let said = String::from_utf8_lossy(&out.stderr).to_string();
        said.split("pid=")
            .nth(1)?
            .trim_end_matches(|c: char| !c.is_ascii_digit())
            .parse()
            .ok()
    }
}

#[test]
fn every_file_and_shell_tool_answers_over_ssh_as_it_does_here() {
    let Some(s) = sshd("tools") else { return };
    let local = TestEnv::new();
    std::fs::write(s.work().join("notes.txt"), "alpha\nbeta\ngamma\n").unwrap();
    std::fs::create_dir(s.work().join("src")).unwrap();
    std::fs::write(s.work().join("src/lib.rs"), "fn beta() {}\n").unwrap();
    // Reads and searches: the same bytes and status as here.
    for args in [
        vec!["read", "notes.txt"],
        vec!["--format", "json", "read", "notes.txt", "--offset", "2"],
        vec!["ls"],
        vec!["grep", "beta"],
        vec!["--format", "json", "grep", "beta"],
        vec!["find", "*.rs"],
        vec!["bash", "pwd; echo to-stderr >&2; exit 3"],
        vec!["read", "missing.txt"],
    ] {
        let there = s.over_ssh(&local, &args);
        let here = s.here(&args);
        assert_eq!(
            stdout(&there),
            stdout(&here),
            "{args:?}: {}",
            stderr(&there)
        );
        assert_eq!(stderr(&there), stderr(&here), "{args:?}");
        assert_eq!(code(&there), code(&here), "{args:?}");
    }
    // Writes land there, atomically and through the gate: edit after read.
    let out = s.over_ssh(&local, &["write", "new.txt", "--content", "one\ntwo\n"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(s.work().join("new.txt")).unwrap(),
        "one\ntwo\n"
    );
    let out = s.over_ssh(&local, &["read", "new.txt"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = s.over_ssh(
        &local,
        &["edit", "new.txt", "--old-text", "two", "--new-text", "deux"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(s.work().join("new.txt")).unwrap(),
        "one\ndeux\n"
    );
    // Background jobs live there, in the remote folder's state, not the caller's.
    let out = s.over_ssh(
        &local,
        &["--format", "json", "process", "start", "sleep 30"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(s.work().join(".indus-process/jobs.json").is_file());
    assert!(!local.path(".indus-process/jobs.json").exists());
    let out = s.over_ssh(&local, &["process", "list"]);
    assert!(stdout(&out).contains("sleep 30"), "{}", stdout(&out));
    let out = s.over_ssh(&local, &["process", "stop", "job-1"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

#[test]
fn standard_input_passes_through() {
    let Some(s) = sshd("stdin") else { return };
    let local = TestEnv::new();
    let mut child = bin_std()
        .current_dir(local.root())
        .env("INDUS_REMOTE_CACHE", s.dir.path().join("cache"))
        .args(["--exec", "ssh:testhost", "--ssh-config"])
        .arg(s.config())
        .arg("--exec-cwd")
        .arg(s.work())
        .args(["write", "piped.txt"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"from stdin\n")
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 0);
    assert_eq!(
        std::fs::read_to_string(s.work().join("piped.txt")).unwrap(),
        "from stdin\n"
    );
}

#[test]
fn the_master_is_opened_once_reused_and_replaced_when_killed() {
    let Some(s) = sshd("master") else { return };
    let local = TestEnv::new();
    let started = Instant::now();
    assert_eq!(code(&s.over_ssh(&local, &["ls"])), 0);
    let first = started.elapsed();
    let pid = s
        .master_pid(&local)
        .expect("a master runs after the first call");
    let started = Instant::now();
    assert_eq!(code(&s.over_ssh(&local, &["ls"])), 0);
    let second = started.elapsed();
    assert_eq!(s.master_pid(&local), Some(pid), "the second call reused it");
    eprintln!("first call (master + copy) {first:?}, second (reused) {second:?}");
    assert!(second < first, "{second:?} vs {first:?}");
    // A killed master is noticed and replaced.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    assert!(wait_until(Duration::from_secs(5), || s.master_pid(&local) != Some(pid)));
    let out = s.over_ssh(&local, &["ls"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let replaced = s.master_pid(&local).expect("a new master");
    assert_ne!(replaced, pid);
}

#[test]
fn unreachable_hosts_refused_keys_and_missing_folders_fail_fast_and_clearly() {
    let Some(s) = sshd("errors") else { return };
    let local = TestEnv::new();
    // Nothing listens on that port.
    let closed = free_port();
    let started = Instant::now();
    let out = bin_std()
        .current_dir(local.root())
        .args(["--exec", &format!("ssh:127.0.0.1:{closed}"), "ls"])
        .args(["--ssh-config", "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).starts_with(&format!("--exec ssh:127.0.0.1:{closed}: host unreachable")),
        "{}",
        stderr(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // A key the server does not know: refused, never a password prompt.
    let started = Instant::now();
    let out = s.remote(&local, &s.dir.path().join("stranger_config"), &["ls"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("authentication refused"),
        "{}",
        stderr(&out)
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // A remote working folder that is not there.
    let out = bin_std()
        .current_dir(local.root())
        .env("INDUS_REMOTE_CACHE", s.dir.path().join("cache"))
        .args(["--exec", "ssh:testhost", "--ssh-config"])
        .arg(s.config())
        .args(["--exec-cwd", "/no/such/folder", "ls"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "--exec-cwd /no/such/folder: no such directory on ssh:testhost\n"
    );
    // `--cwd` is a local folder: with --exec it is refused, not misapplied.
    let out = s.over_ssh(&local, &["--cwd", "/tmp", "ls"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--exec-cwd"), "{}", stderr(&out));
    let _ = s.port;
}

#[test]
fn tmux_over_ssh_types_into_a_remote_pane_a_person_can_attach_to() {
    let Some(s) = sshd("tmux") else { return };
    if Command::new("tmux").arg("-V").output().is_err() {
        assert!(std::env::var_os("CI").is_none(), "tmux is missing under CI");
        common::skipped("tmux over ssh: no tmux on this machine");
        return;
    }
    let local = TestEnv::new();
    // The remote is this machine: its tmux server gets a socket in the temp dir
    // (INDUS_* variables are set on the other side too).
    let socket = s.dir.path().join("tmux.sock");
    struct Kill(PathBuf);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = Command::new("tmux")
                .arg("-S")
                .arg(&self.0)
                .arg("kill-server")
                .output();
        }
    }
    let _kill = Kill(socket.clone());
    let run = |command: &str| {
        bin_std()
            .current_dir(local.root())
            .env("INDUS_REMOTE_CACHE", s.dir.path().join("cache"))
            .env("INDUS_TMUX_SOCKET", &socket)
            .args(["--exec", "ssh:testhost", "--ssh-config"])
            .arg(s.config())
            .arg("--exec-cwd")
            .arg(s.work())
            .args(["--tmux", "bash", command])
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run("echo in-the-remote-pane");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("in-the-remote-pane"),
        "{}",
        stdout(&out)
    );
    let screen = Command::new("tmux")
        .arg("-S")
        .arg(&socket)
        .args(["capture-pane", "-p", "-t", "=indus-default-shared:"])
        .output()
        .unwrap();
    let screen = String::from_utf8_lossy(&screen.stdout).to_string();
    assert!(screen.contains("echo in-the-remote-pane"), "{screen}");
    let out = run("pwd");
    assert!(
        stdout(&out).contains(&s.work().to_string_lossy().to_string()),
        "{} / {}",
        stdout(&out),
        stderr(&out)
    );
}

/// Ctrl-C at the terminal (SIGINT to the whole foreground group: indus-tool and
/// its ssh) or SIGTERM to indus-tool alone, during an `--exec ssh:` call running
/// a command there: the command and the toolbox on the other side end too, and
/// the local call exits 128+N.
#[test]
fn an_interrupted_call_over_ssh_leaves_nothing_running_there() {
    use nix::sys::signal::{Signal, kill, killpg};
    use nix::unistd::Pid;
    use std::os::unix::process::CommandExt;
    let Some(s) = sshd("interrupt") else { return };
    let local = TestEnv::new();
    // Provision the binary first, so the interrupted call is the command itself.
    assert_eq!(code(&s.over_ssh(&local, &["bash", "true"])), 0);
    // The command on the other side, by its own command line: the local
    // indus-tool's holds the marker too, from the moment it is spawned, before
    // its signal handlers are in place.
    let running = |marker: &str| {
        Command::new("pgrep")
            .args(["-f", &format!("^{marker}")])
            .output()
            .is_ok_and(|o| !o.stdout.is_empty())
    };
    for (signal, whole_group, marker) in [
        (Signal::SIGINT, true, "sleep 1051"),
        (Signal::SIGTERM, false, "sleep 1052"),
    ] {
        let mut child = bin_std()
            .current_dir(local.root())
            .env("INDUS_REMOTE_CACHE", s.dir.path().join("cache"))
            .args(["--exec", "ssh:testhost", "--ssh-config"])
            .arg(s.config())
            .arg("--exec-cwd")
            .arg(s.work())
            .args(["bash", marker])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        assert!(
            wait_until(Duration::from_secs(10), || running(marker)),
            "{marker} never started"
        );
        let pid = Pid::from_raw(child.id() as i32);
        if whole_group {
            killpg(pid, signal).unwrap();
        } else {
            kill(pid, signal).unwrap();
        }
        assert!(
            wait_until(Duration::from_secs(10), || child
                .try_wait()
                .unwrap()
                .is_some()),
            "{signal}: indus-tool did not end"
        );
        assert_eq!(
            child.wait().unwrap().code(),
            Some(128 + signal as i32),
            "{signal}"
        );
        assert!(
            wait_until(Duration::from_secs(10), || !running(marker)),
            "{signal}: `{marker}` kept running on the other side"
        );
    }
}
