//! `--exec container:` against a real podman container built by the test: a root
//! filesystem of busybox (from `busybox-static`) plus the C library this test
//! binary links against, `podman import`ed (no registry), with the engine's
//! configuration and storage in the test's temp dir (`CONTAINERS_CONF`,
//! `CONTAINERS_STORAGE_CONF`: runc, cgroupfs, vfs). A host folder is mounted at
//! `/work`, so every answer from inside is compared with the same call made here.
//! When the machine cannot run a container these tests say so loudly and stop;
//! under CI they fail instead, since `.ci/run` installs podman.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{bin_std, code, stderr, stdout};

struct Container {
    dir: tempfile::TempDir,
    name: String,
}

impl Drop for Container {
    fn drop(&mut self) {
        let _ = self.podman(&["rm", "-f", "-t", "0", &self.name]);
        let _ = self.podman(&["rmi", "-f", &format!("{}-img", self.name)]);
        let _ = self.podman(&["rmi", "-f", &format!("{}-bare", self.name)]);
    }
}

fn env_of(dir: &Path) -> [(String, PathBuf); 2] {
    [
        ("CONTAINERS_CONF".into(), dir.join("containers.conf")),
        ("CONTAINERS_STORAGE_CONF".into(), dir.join("storage.conf")),
    ]
}

/// A root filesystem: busybox and its applets, plus `libs` copied at their paths.
fn rootfs(at: &Path, libs: &[PathBuf]) {
    std::fs::create_dir_all(at.join("bin")).unwrap();
    std::fs::create_dir_all(at.join("work")).unwrap();
    std::fs::create_dir_all(at.join("tmp")).unwrap();
    std::fs::copy("/bin/busybox", at.join("bin/busybox")).unwrap();
    for applet in [
        "sh",
        "cat",
        "ls",
        "mkdir",
        "mv",
        "chmod",
        "rm",
        "sleep",
        "sha256sum",
        "env",
        "echo",
    ] {
        std::os::unix::fs::symlink("busybox", at.join("bin").join(applet)).unwrap();
    }
    for lib in libs {
        let to = at.join(lib.strip_prefix("/").unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(lib, to).unwrap();
    }
}

/// The shared libraries the binary needs, as `ldd` lists them.
fn libs_of(binary: &Path) -> Vec<PathBuf> {
    let out = Command::new("ldd").arg(binary).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter(|w| w.starts_with('/'))
        .map(PathBuf::from)
        .collect()
}

/// A running container with `/work` mounted from the temp dir, or `None` (said
/// loudly) when podman cannot run one here.
fn container(name: &str) -> Option<Container> {
    // A static busybox: the "bare" image must hold no C library at all.
    let have = Command::new("podman").arg("--version").output().is_ok()
        && Path::new("/bin/busybox").exists()
        && libs_of(Path::new("/bin/busybox")).is_empty();
    if !have {
        assert!(
            std::env::var_os("CI").is_none(),
            "podman or busybox-static is missing under CI: .ci/run must install them"
        );
        common::skipped(&format!(
            "{name}: no podman or /bin/busybox (busybox-static) on this machine"
        ));
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("containers.conf"),
        "[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = \"cgroupfs\"\nruntime = \"runc\"\n",
    )
    .unwrap();
    std::fs::write(
        d.join("storage.conf"),
        format!(
            "[storage]\ndriver = \"vfs\"\ngraphroot = \"{d}/graph\"\nrunroot = \"{d}/run\"\n",
            d = d.display()
        ),
    )
    .unwrap();
    std::fs::create_dir(d.join("host")).unwrap();
    let c = Container {
        name: format!("indus-test-{}-{name}", std::process::id()),
        dir,
    };
    let binary = assert_cmd::cargo::cargo_bin("indus-tool");
    for (image, libs) in [("img", libs_of(&binary)), ("bare", Vec::new())] {
        let root = c.dir.path().join(format!("root-{image}"));
        rootfs(&root, &libs);
        let tar = c.dir.path().join(format!("{image}.tar"));
        let ok = Command::new("tar")
            .arg("-C")
            .arg(&root)
            .arg("-cf")
            .arg(&tar)
            .arg(".")
            .status()
            .unwrap()
            .success();
        assert!(ok, "tar failed");
        let out = c.podman(&[
            "import",
            &tar.to_string_lossy(),
            &format!("{}-{image}", c.name),
        ]);
        assert!(out.status.success(), "podman import: {}", stderr(&out));
    }
    let mount = format!("{}:/work", c.dir.path().join("host").display());
    let out = c.podman(&[
        "run",
        "-d",
        "--name",
        &c.name,
        "-v",
        &mount,
        &format!("{}-img", c.name),
        "/bin/sleep",
        "600",
    ]);
    if !out.status.success() {
        assert!(
            std::env::var_os("CI").is_none(),
            "podman cannot run a container under CI: {}",
            stderr(&out)
        );
        common::skipped(&format!(
            "{name}: podman cannot run a container here: {}",
            stderr(&out)
        ));
        return None;
    }
    Some(c)
}

impl Container {
    fn podman(&self, args: &[&str]) -> Output {
        let mut c = Command::new("podman");
        for (k, v) in env_of(self.dir.path()) {
            c.env(k, v);
        }
        c.args(args).stdin(Stdio::null()).output().unwrap()
    }

    fn host(&self) -> PathBuf {
        self.dir.path().join("host")
    }

    /// The binary with the engine's configuration of the test.
    fn bin(&self) -> Command {
        let mut c = bin_std();
        for (k, v) in env_of(self.dir.path()) {
            c.env(k, v);
        }
        c.current_dir(self.dir.path()).stdin(Stdio::null());
        c
    }

    fn inside(&self, target: &str, args: &[&str]) -> Output {
        self.bin()
            .args(["--exec", target, "--exec-cwd", "/work"])
            .args(args)
            .output()
            .unwrap()
    }

    /// A second container, of the image with busybox alone (no C library),
    /// `/work` mounted from the same folder; its name.
    fn start_bare(&self, suffix: &str) -> String {
        let bare = format!("{}-{suffix}", self.name);
        let mount = format!("{}:/work", self.host().display());
        let out = self.podman(&[
            "run",
            "-d",
            "--name",
            &bare,
            "-v",
            &mount,
            &format!("{}-bare", self.name),
            "/bin/sleep",
            "600",
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        bare
    }

    /// As `inside`, this build taken for another architecture than the
    /// container's (`INDUS_REMOTE_ARCH`): the fallback over shell commands.
    fn foreign(&self, target: &str, args: &[&str]) -> Output {
        self.bin()
            .env("INDUS_REMOTE_ARCH", "riscv64")
            .args(["--exec", target, "--exec-cwd", "/work"])
            .args(args)
            .output()
            .unwrap()
    }

    fn here(&self, args: &[&str]) -> Output {
        bin_std()
            .current_dir(self.host())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }
}

#[test]
fn the_tools_answer_from_inside_as_they_do_here() {
    let Some(c) = container("tools") else { return };
    let target = format!("container:{}", c.name);
    std::fs::write(c.host().join("notes.txt"), "alpha\nbeta\n").unwrap();
    std::fs::create_dir(c.host().join("src")).unwrap();
    std::fs::write(c.host().join("src/lib.rs"), "fn beta() {}\n").unwrap();
    for args in [
        vec!["read", "notes.txt"],
        vec!["ls"],
        vec!["grep", "beta"],
        vec!["find", "*.rs"],
        vec!["bash", "echo out; echo err >&2; exit 4"],
        vec!["read", "missing.txt"],
    ] {
        let inside = c.inside(&target, &args);
        let here = c.here(&args);
        // The same folder is /work inside: only its name may differ.
        let host = c.host().to_string_lossy().into_owned();
        let mounted = |text: String| text.replace(&host, "/work");
        assert_eq!(
            stdout(&inside),
            mounted(stdout(&here)),
            "{args:?}: {}",
            stderr(&inside)
        );
        assert_eq!(stderr(&inside), mounted(stderr(&here)), "{args:?}");
        assert_eq!(code(&inside), code(&here), "{args:?}");
    }
    let out = c.inside(&target, &["write", "made.txt", "--content", "inside\n"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(c.host().join("made.txt")).unwrap(),
        "inside\n"
    );
}

#[test]
fn containers_that_cannot_serve_fail_clearly() {
    let Some(c) = container("errors") else { return };
    // No such container.
    let out = c.inside("container:no-such-container-here", &["ls"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).starts_with("--exec container:no-such-container-here: no such container"),
        "{}",
        stderr(&out)
    );
    // A stopped container.
    let out = c.podman(&["stop", "-t", "0", &c.name]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = c.inside(&format!("container:{}", c.name), &["ls"]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("is not running"), "{}", stderr(&out));
    // No engine at all.
    let empty = tempfile::tempdir().unwrap();
    let out = c
        .bin()
        .env("PATH", empty.path())
        .args(["--exec", "container:x", "ls"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).starts_with("--exec container:x: no container engine"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_container_that_cannot_run_the_toolbox_is_served_over_shell_commands() {
    let Some(c) = container("fallback") else {
        return;
    };
    // A toolbox built for another machine than the container's: the tools run
    // here and reach the files and commands there one shell command at a time.
    let bare = c.start_bare("b");
    let target = format!("container:{bare}");
    std::fs::write(c.host().join("notes.txt"), "alpha\nbeta\n").unwrap();
    std::fs::create_dir(c.host().join("src")).unwrap();
    std::fs::write(c.host().join("src/lib.rs"), "fn beta() {}\n").unwrap();
    let big: String = (1..=20_000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(c.host().join("big.txt"), big).unwrap();
    let host = c.host().to_string_lossy().into_owned();
    for args in [
        vec!["read", "notes.txt"],
        vec!["read", "notes.txt", "--offset", "2"],
        vec!["read", "big.txt", "--offset", "15000", "--limit", "3"],
        vec!["--format", "json", "read", "big.txt"],
        vec!["ls"],
        vec!["grep", "beta"],
        vec!["find", "*.rs"],
        vec!["bash", "echo out; echo err >&2; exit 4"],
        vec!["read", "missing.txt"],
        vec!["ls", "notes.txt/x"],
    ] {
        let inside = c.foreign(&target, &args);
        let here = c.here(&args);
        let mounted = |text: String| text.replace(&host, "/work");
        assert_eq!(
            stdout(&inside),
            mounted(stdout(&here)),
            "{args:?}: {}",
            stderr(&inside)
        );
        assert_eq!(stderr(&inside), mounted(stderr(&here)), "{args:?}");
        assert_eq!(code(&inside), code(&here), "{args:?}");
    }
    // Writes: atomic over there (temp file and rename), the mode kept.
    std::fs::write(c.host().join("run.sh"), "old\n").unwrap();
    std::fs::set_permissions(
        c.host().join("run.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o750),
    )
    .unwrap();
    let out = c.foreign(&target, &["write", "run.sh", "--content", "new\n"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let meta = std::fs::metadata(c.host().join("run.sh")).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o777,
        0o750
    );
    assert_eq!(
        std::fs::read_to_string(c.host().join("run.sh")).unwrap(),
        "new\n"
    );
    let out = c.foreign(
        &target,
        &[
            "edit",
            "run.sh",
            "--old-text",
            "new",
            "--new-text",
            "edited",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(c.host().join("run.sh")).unwrap(),
        "edited\n"
    );
    let leftovers: Vec<_> = std::fs::read_dir(c.host())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains("indus-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // The state is kept here, keyed by the target; nothing is left over there.
    assert!(!c.host().join(".indus-process").exists());
    // What needs the toolbox there says so.
    let out = c.foreign(&target, &["process", "start", "sleep 5"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("cannot run it there"),
        "{}",
        stderr(&out)
    );
    let _ = c.podman(&["rm", "-f", "-t", "0", &bare]);
}

/// The static build (x86_64 Linux, see .cargo/config.toml) needs no C library:
/// in a container of busybox alone it is the real toolbox that answers, not the
/// fallback over shell commands (a background job runs there, which the
/// fallback refuses), and `ldd` finds nothing for it to load.
#[test]
fn a_container_without_a_c_library_runs_the_static_toolbox() {
    let binary = assert_cmd::cargo::cargo_bin("indus-tool");
    if !libs_of(&binary).is_empty() {
        #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
        panic!(
            "this x86_64 Linux build is dynamically linked: .cargo/config.toml must make it static"
        );
        #[cfg(not(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu")))]
        {
            common::skipped("static toolbox: this platform's build is not static");
            return;
        }
    }
    let ldd = Command::new("ldd").arg(&binary).output().unwrap();
    let said = String::from_utf8_lossy(&ldd.stdout).to_string() + &stderr(&ldd);
    assert!(
        said.contains("statically linked") || said.contains("not a dynamic executable"),
        "{said}"
    );
    let Some(c) = container("static") else {
        return;
    };
    let bare = c.start_bare("s");
    let target = format!("container:{bare}");
    for i in 0..200 {
        std::fs::write(
            c.host().join(format!("f{i}.txt")),
            format!("line {i}\nneedle {i}\n"),
        )
        .unwrap();
    }
    let here = c.here(&["grep", "-c", "needle"]);
    let inside = c.inside(&target, &["grep", "-c", "needle"]);
    assert_eq!(code(&inside), 0, "{}", stderr(&inside));
    let host = c.host().to_string_lossy().into_owned();
    assert_eq!(stdout(&inside), stdout(&here).replace(&host, "/work"));
    let out = c.inside(&target, &["process", "start", "sleep 5"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let _ = c.podman(&["rm", "-f", "-t", "0", &bare]);
}
