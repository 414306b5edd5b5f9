# Remote execution: the cost of `--exec` against the same channel used by hand.
#  - warm SSH `read` of a 1 MB file (the master already open, the binary already
#    copied) against `ssh -S SOCKET host cat FILE` over the same master. Bar 1.5.
#  - grep of a source tree (this repository's src/ and tests/) over SSH against
#    `ssh host rg` on the same tree over the same master. Bar 1.5.
#  - container `read` of the same 1 MB file against `podman exec NAME cat FILE`.
#    Bar 1.5.
# The sshd is a real one on 127.0.0.1 with its own keys and config under $WORK; the
# container is built from busybox-static plus the binary's C library, with podman's
# configuration and storage under $WORK. openssh-server, podman, runc and
# busybox-static are installed when missing.
need_remote=()
[ -x /usr/sbin/sshd ] || need_remote+=(openssh-server)
command -v podman >/dev/null || need_remote+=(podman)
command -v runc >/dev/null || need_remote+=(runc)
[ -x /bin/busybox ] || need_remote+=(busybox-static)
if [ ${#need_remote[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_remote[@]}" >&2
fi

rx="$WORK/remote"
mkdir -p "$rx/work" "$rx/local" /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$rx/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$rx/client_key"
cp "$rx/client_key.pub" "$rx/authorized_keys"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$rx/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $rx/host_key
AuthorizedKeysFile $rx/authorized_keys
PasswordAuthentication no
UsePAM no
StrictModes no
PermitRootLogin yes
PidFile $rx/sshd.pid
LogLevel ERROR
EOF
cat >"$rx/ssh_config" <<EOF
Host benchhost
  HostName 127.0.0.1
  Port $port
  User $(id -un)
  IdentityFile $rx/client_key
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile $rx/known_hosts
  LogLevel ERROR
EOF
/usr/sbin/sshd -f "$rx/sshd_config"
for _ in $(seq 1 100); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$port))" 2>/dev/null && break; sleep 0.05; done
export INDUS_REMOTE_CACHE="$rx/cache"
python3 -c 'import sys; [print(f"line {i:07d} " + "x" * 64) for i in range(1, 13800)]' >"$rx/work/big.txt"
mkdir -p "$rx/work/tree"
cp -r "$top/src" "$top/tests" "$rx/work/tree/"

ours_ssh="$INDUS --exec ssh:benchhost --ssh-config $rx/ssh_config --exec-cwd $rx/work"
# The first call opens the master and copies the binary.
(cd "$rx/local" && $ours_ssh read big.txt >/dev/null)
sock=$(ls "$rx/local/.indus-process/ssh/"*.sock)
peer_ssh="ssh -F $rx/ssh_config -S $sock -o ControlMaster=no benchhost"
cd "$rx/local"
compare "remote: warm ssh read 1 MB" \
  "$peer_ssh cat $rx/work/big.txt" \
  "$ours_ssh read big.txt" 1.5
compare "remote: ssh grep of a source tree" \
  "$peer_ssh rg -n -e unwrap $rx/work/tree" \
  "$INDUS --exec ssh:benchhost --ssh-config $rx/ssh_config --exec-cwd $rx/work/tree grep unwrap" 1.5
cd "$top"
$peer_ssh true
ssh -F "$rx/ssh_config" -S "$sock" -O exit benchhost 2>/dev/null || true
kill "$(cat "$rx/sshd.pid")" 2>/dev/null || true

# The container.
cat >"$rx/containers.conf" <<'EOF'
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
EOF
cat >"$rx/storage.conf" <<EOF
[storage]
driver = "vfs"
graphroot = "$rx/graph"
runroot = "$rx/run"
EOF
export CONTAINERS_CONF="$rx/containers.conf" CONTAINERS_STORAGE_CONF="$rx/storage.conf"
root="$rx/rootfs"
mkdir -p "$root/bin" "$root/work" "$root/tmp"
cp /bin/busybox "$root/bin/"
for a in sh cat ls mkdir mv chmod rm sleep sha256sum env; do ln -s busybox "$root/bin/$a"; done
for lib in $(ldd "$INDUS" | grep -o '/[^ ]*'); do mkdir -p "$root$(dirname "$lib")"; cp -L "$lib" "$root$lib"; done
tar -C "$root" -cf "$rx/rootfs.tar" .
podman import "$rx/rootfs.tar" indus-bench-img >/dev/null
name="indus-bench-$$"
podman run -d --name "$name" -v "$rx/work:/work" indus-bench-img /bin/sleep 3600 >/dev/null
ours_ct="$INDUS --exec container:$name --exec-cwd /work"
(cd "$rx/local" && $ours_ct read big.txt >/dev/null)
cd "$rx/local"
compare "remote: container read 1 MB" \
  "podman exec $name cat /work/big.txt" \
  "$ours_ct read big.txt" 1.5
cd "$top"
podman rm -f -t 0 "$name" >/dev/null
podman rmi -f indus-bench-img >/dev/null
unset CONTAINERS_CONF CONTAINERS_STORAGE_CONF INDUS_REMOTE_CACHE
