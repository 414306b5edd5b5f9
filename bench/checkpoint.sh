# Checkpoints: what `--checkpoint` adds to an `edit` of a small file (record the
# content before, read back what was written, under the state folder's lock),
# against the same edit without it, in the same run. Bar: ratio <= 1.2.
#  - one turn (`--turn bench`), many edits: the content before is recorded once
#    per file and turn, then each edit only appends the hash of what it wrote;
#  - a node per invocation (no `--turn`): every edit also creates its node's file
#    (written atomically, without waiting for the disk).
# The three variants are run interleaved (plain, turn, node, plain, ...), each on
# its own copy of the file, so load from elsewhere on the machine falls on all of
# them alike; medians of 300 calls after 20 warmup rounds. Each call flips a word
# back and forth so every edit makes a real change.
python3 - "$INDUS" "$WORK/ckpt" >>"$ROWS" <<'PY'
import os, subprocess, sys, time
indus, work = sys.argv[1], sys.argv[2]
variants = {"plain": [], "turn": ["--checkpoint", "--turn", "bench"], "node": ["--checkpoint"]}
for name in variants:
    os.makedirs(f"{work}/{name}", exist_ok=True)
    with open(f"{work}/{name}/small.txt", "w") as f:
        for i in range(60):
            f.write(f"line {i:03d}: the quick brown fox jumps over the lazy dog\n")
times = {name: [] for name in variants}
for i in range(320):
    old, new = ("the quick", "THE quick") if i % 2 == 0 else ("THE quick", "the quick")
    for name, extra in variants.items():
        cmd = [indus, "--cwd", f"{work}/{name}", *extra, "edit", "small.txt",
               "--old-text", f"line 030: {old}", "--new-text", f"line 030: {new}"]
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        if i >= 20:
            times[name].append(time.perf_counter() - t)
med = {k: sorted(v)[len(v) // 2] * 1000 for k, v in times.items()}
for name, label in [("turn", "edit small file: --checkpoint --turn (same turn)"),
                    ("node", "edit small file: --checkpoint (node per call)")]:
    ratio = med[name] / med["plain"]
    print(f"{label}\tedit (plain)\t{med['plain']:.2f}\t{med[name]:.2f}\t{ratio:.2f}\t1.2\t{'ok' if ratio <= 1.2 else 'OVER'}")
PY

# 2,000 files (issue 26): a batch of 2,000 checkpointed edits (one turn) against
# the same batch without checkpoints, bar 2x; and the rewind of that turn against
# `git stash -u` of the same change in the same repository, bar 3x. One run each
# (a git repository of 2,000 small files, every file edited once).
python3 - "$INDUS" "$WORK/ckpt2k" >>"$ROWS" <<'PY'
import json, os, shutil, subprocess, sys, time
indus, work = sys.argv[1], sys.argv[2]
n = 2000
def fresh():
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for i in range(n):
        with open(f"{work}/f{i}.txt", "w") as f:
            f.write(f"before {i}\n")
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "init"],
                   cwd=work, check=True)
batch = "".join(
    json.dumps({"name": "read", "input": {"path": f"f{i}.txt"}}) + "\n"
    + json.dumps({"name": "edit", "input": {"path": f"f{i}.txt", "oldText": "before", "newText": "after"}}) + "\n"
    for i in range(n))
def timed(cmd, stdin=None):
    t = time.perf_counter()
    subprocess.run(cmd, cwd=work, input=stdin, text=True, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t
fresh()
plain = timed([indus, "batch"], batch)
fresh()
ckpt = timed([indus, "--checkpoint", "--turn", "big", "batch"], batch)
rewind = timed([indus, "checkpoint", "rewind", "big"])
assert open(f"{work}/f7.txt").read() == "before 7\n", "the rewind did not restore f7.txt"
subprocess.run([indus, "batch"], cwd=work, input=batch, text=True, stdout=subprocess.DEVNULL, check=True)
stash = timed(["git", "stash", "-u", "-q"])
for label, peer_name, peer, ours, bar in [
        ("2,000 edits in a batch: --checkpoint --turn", "batch (plain)", plain, ckpt, 2.0),
        ("rewind of 2,000 edited files", "git stash -u", stash, rewind, 3.0)]:
    ratio = ours / peer
    print(f"{label}\t{peer_name}\t{peer*1000:.2f}\t{ours*1000:.2f}\t{ratio:.2f}\t{bar}\t{'ok' if ratio <= bar else 'OVER'}")
PY

# Checkpointed shell commands in a 33,000-file git repository (330
# folders of 100 files of 200 bytes, committed, a .gitignore with ignored files
# beside): `--checkpoint bash` scans the tree before and after the command (a
# stat cache; files whose stat changed are read and kept by hash). One warm-up
# call first builds the baseline (every covered file copied), then:
#  - `bash true` checkpointed on the unchanged tree against `git status
#    --porcelain` in the same tree (bar 2x), and against the shadow-git snapshot
#    opencode and Gemini CLI take per step (`git --git-dir=SHADOW --work-tree=TREE
#    add -A && commit --allow-empty`), no bar; 15 rounds, the three interleaved;
#  - a command that changes 2,000 of the files (`sed -i` over 20 folders, a new
#    text each round) with `--checkpoint --turn big` against the same command
#    without checkpoints (bar 3x), the rewind of that turn against `git stash -u
#    -q` of the same change (bar 2x) and against the shadow-git restore
#    (`checkout <commit> -- .` then `clean -fdq`), no bar. One warm-up round, then
#    5 rounds, interleaved. The checkpointed tree sees only checkpointed commands
#    and rewinds; the plain command, the stash and the shadow restore run in a
#    second, identical repository, so neither side pays for the other's writes.
#    Every restore is checked (a changed file's content is back).
python3 - "$INDUS" "$WORK/ckpt33k" >>"$ROWS" <<'PY'
import os, shutil, subprocess, sys, time
indus, work = sys.argv[1], sys.argv[2]
ours_tree, peer_tree = f"{work}/ours", f"{work}/peer"
shadow_ours, shadow_peer = f"{work}/shadow-ours.git", f"{work}/shadow-peer.git"
# No automatic `git gc`: past 6,700 loose objects it packs in the background
# (over a minute for these 33k similar files), racing the copy and loading the
# machine under the measurements. The repositories stay unpacked, for both sides.
env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com",
           GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="gc.auto", GIT_CONFIG_VALUE_0="0")
def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=True)
def timed(cmd, cwd):
    t = time.perf_counter()
    run(cmd, cwd)
    return time.perf_counter() - t
def timed_all(cmds, cwd):
    t = time.perf_counter()
    for cmd in cmds:
        run(cmd, cwd)
    return time.perf_counter() - t
def shadow(git_dir, tree, *args):
    return ["git", f"--git-dir={git_dir}", f"--work-tree={tree}", *args]
def median(xs):
    return sorted(xs)[len(xs) // 2] * 1000
def row(label, peer_name, peer, ours, bar):
    ratio = ours / peer
    verdict = "" if bar is None else ("ok" if ratio <= bar else "OVER")
    print(f"{label}\t{peer_name}\t{peer:.2f}\t{ours:.2f}\t{ratio:.2f}\t{bar or '-'}\t{verdict}")
def content(path):
    with open(path) as f:
        return f.read()
try:
    shutil.rmtree(work, ignore_errors=True)
    for tree in (ours_tree, peer_tree):
        os.makedirs(tree)
        for d in range(330):
            os.makedirs(f"{tree}/d{d:03d}")
            for i in range(100):
                with open(f"{tree}/d{d:03d}/f{i:03d}.txt", "w") as f:
                    f.write((f"file {d} {i} x " * 20)[:199] + "\n")
        with open(f"{tree}/.gitignore", "w") as f:
            f.write("*.log\nbuild/\n.indus-process/\n")
        os.makedirs(f"{tree}/build")
        for i in range(20):
            with open(f"{tree}/build/out{i}.o", "w") as f:
                f.write("object\n" * 30)
        with open(f"{tree}/run.log", "w") as f:
            f.write("log\n")
        run(["git", "init", "-q"], tree)
        run(["git", "add", "-A"], tree)
        run(["git", "commit", "-qm", "init"], tree)

    # The unchanged tree: warm-ups (our baseline, the shadow repository's first
    # snapshot), then 15 interleaved rounds.
    bash_true = [indus, "--checkpoint", "bash", "true"]
    snapshot = [shadow(shadow_ours, ours_tree, "add", "-A"),
                shadow(shadow_ours, ours_tree, "commit", "-q", "--allow-empty", "-m", "step")]
    run(shadow(shadow_ours, ours_tree, "init", "-q"), work)
    for _ in range(2):
        run(bash_true, ours_tree)
        run(["git", "status", "--porcelain"], ours_tree)
        timed_all(snapshot, ours_tree)
    times = {"ours": [], "status": [], "shadow": []}
    for _ in range(15):
        times["ours"].append(timed(bash_true, ours_tree))
        times["status"].append(timed(["git", "status", "--porcelain"], ours_tree))
        times["shadow"].append(timed_all(snapshot, ours_tree))
    med = {k: median(v) for k, v in times.items()}
    row("checkpointed `bash true`, unchanged 33k-file tree", "git status --porcelain",
        med["status"], med["ours"], 2.0)
    row("shadow git: snapshot per step (add -A && commit), unchanged 33k tree",
        "shadow git add+commit", med["shadow"], med["ours"], None)

    # 2,000 files changed: the shadow repository of the copy takes its snapshot
    # once, before the rounds (every round's change is restored to it).
    run(shadow(shadow_peer, peer_tree, "init", "-q"), work)
    run(shadow(shadow_peer, peer_tree, "add", "-A"), work)
    run(shadow(shadow_peer, peer_tree, "commit", "-q", "--allow-empty", "-m", "step"), work)
    base = subprocess.run(shadow(shadow_peer, peer_tree, "rev-parse", "HEAD"), env=env,
                          capture_output=True, text=True, check=True).stdout.strip()
    probe, original = "d007/f042.txt", content(f"{ours_tree}/d007/f042.txt")
    times = {"ckpt": [], "plain": [], "rewind": [], "stash": [], "shadow": []}
    for k in range(6):
        change = f"sed -i s/x/r{k}/ d00*/f*.txt d01*/f*.txt"
        changed = original.replace("x", f"r{k}", 1)
        t = {}
        t["ckpt"] = timed([indus, "--checkpoint", "--turn", "big", "bash", change], ours_tree)
        assert content(f"{ours_tree}/{probe}") == changed, "the checkpointed command did not run"
        t["rewind"] = timed([indus, "checkpoint", "rewind", "big"], ours_tree)
        assert content(f"{ours_tree}/{probe}") == original, "the rewind did not restore the file"
        t["plain"] = timed([indus, "bash", change], peer_tree)
        assert content(f"{peer_tree}/{probe}") == changed, "the plain command did not run"
        t["stash"] = timed(["git", "stash", "-u", "-q"], peer_tree)
        assert content(f"{peer_tree}/{probe}") == original, "git stash -u did not restore the file"
        run(["git", "stash", "drop", "-q"], peer_tree)
        run(["sh", "-c", change], peer_tree)
        assert content(f"{peer_tree}/{probe}") == changed
        t["shadow"] = timed_all([shadow(shadow_peer, peer_tree, "checkout", base, "--", "."),
                                 shadow(shadow_peer, peer_tree, "clean", "-fdq")], peer_tree)
        assert content(f"{peer_tree}/{probe}") == original, "the shadow git restore did not restore the file"
        if k > 0:
            for name, v in t.items():
                times[name].append(v)
    med = {k: median(v) for k, v in times.items()}
    row("rewind of a command that changed 2,000 files", "git stash -u", med["stash"], med["rewind"], 2.0)
    row("`bash` changing 2,000 files: --checkpoint --turn", "bash (plain)", med["plain"], med["ckpt"], 3.0)
    row("shadow git restore (checkout <commit> -- . plus clean), 2,000 files", "shadow git checkout+clean",
        med["shadow"], med["rewind"], None)
    store = subprocess.run([indus, "checkpoint", "list"], cwd=ours_tree, capture_output=True,
                           text=True, check=True).stdout.strip().splitlines()[-1]
    print(f"checkpoint store after the 33k-file rows: {store}", file=sys.stderr)
finally:
    shutil.rmtree(work, ignore_errors=True)
PY

# What each restores: the same scenarios through a checkpointed command and its
# rewind, and through a shadow git repository (a snapshot before the step, then
# `checkout <commit> -- .` and `clean -fdq`), each on a fresh copy of a small
# tree (a git repository with a .gitignore, an ignored file, an executable, a
# symlink, nested folders). The tree (contents, modes, links, folders, ignored
# files included) is compared with what it was before the step; the result is
# what happened, not what should. The table goes to the file $CKPT_TABLE when set,
# else to stderr. No row: a difference is reported, not failed.
python3 - "$INDUS" "$WORK/ckpt-restores" <<'PY'
import os, shutil, stat, subprocess, sys
indus, work = sys.argv[1], sys.argv[2]
env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
           GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")
def sh(cmd, cwd, check=True):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=check)
def put(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
def build(tree, git=True):
    put(f"{tree}/a.txt", "alpha\n")
    put(f"{tree}/b.txt", "bravo\n")
    put(f"{tree}/dir/c.txt", "charlie\n")
    put(f"{tree}/dir/sub/d.txt", "delta\n")
    put(f"{tree}/run.sh", "#!/bin/sh\necho hi\n", 0o755)
    put(f"{tree}/.gitignore", "*.log\n.indus-process/\n")
    put(f"{tree}/app.log", "log 1\n")
    os.symlink("a.txt", f"{tree}/link")
    if git:
        sh(["git", "init", "-q"], tree)
        sh(["git", "add", "-A"], tree)
        sh(["git", "commit", "-qm", "init"], tree)
def capture(tree):
    state = {}
    for top, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d not in (".git", ".indus-process")]
        for name in dirs + files:
            p = os.path.join(top, name)
            rel = os.path.relpath(p, tree)
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                state[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                state[rel] = ("dir", stat.S_IMODE(st.st_mode))
            else:
                with open(p, "rb") as f:
                    state[rel] = ("file", stat.S_IMODE(st.st_mode), f.read())
    return state
def differ(a, b):
    return sorted(p for p in set(a) | set(b) if a.get(p) != b.get(p))
scenarios = [
    ("edit a file", "printf 'changed\\n' > a.txt", {}),
    ("delete a file", "rm b.txt", {}),
    ("create a file", "printf 'new\\n' > new.txt", {}),
    ("create nested empty folders", "mkdir -p n1/n2/n3", {}),
    ("remove a folder with files", "rm -r dir", {}),
    ("chmod 755 -> 644", "chmod 644 run.sh", {}),
    ("rename a file", "mv b.txt b2.txt", {}),
    ("retarget a symlink", "ln -sfn b.txt link", {}),
    ("an ignored file changed (app.log)", "printf 'log 2\\n' > app.log", {"ignored": "app.log"}),
    ("outside any git repository (edit, delete, create)",
     "printf 'changed\\n' > a.txt; rm b.txt; printf 'new\\n' > new.txt", {"git": False}),
    ("a file changed by hand after the step", "printf 'changed\\n' > a.txt",
     {"hand": "printf 'by hand\\n' >> a.txt"}),
]
def verdict(rc, err, before, pre_restore, after, opts, had_git, has_git):
    if rc != 0 and "no checkpoint named" in err and opts.get("ignored") and differ(before, after) == [opts["ignored"]]:
        return f"not restored: not covered (the step recorded no change; {opts['ignored']} left as changed)"
    if rc != 0:
        what = "refused" if "refused" in err else f"failed ({err.strip().splitlines()[-1] if err.strip() else rc})"
        return f"{what}, tree left as it was" if after == pre_restore else f"{what}, but the tree changed"
    diff = differ(before, after)
    if not diff:
        out = "restored exactly"
        if opts.get("hand"):
            out += " (the hand edit silently lost)"
    elif opts.get("ignored") and diff == [opts["ignored"]]:
        out = f"not restored: not covered ({opts['ignored']} left as changed)"
    else:
        out = "not restored: " + ", ".join(diff) + " differ"
    if had_git and not has_git:
        out += "; the tree's own .git is gone"
    return out
def ours(tree, cmd, opts):
    before = capture(tree)
    p = sh([indus, "--checkpoint", "--turn", "step", "bash", cmd], tree, check=False)
    if p.returncode != 0:
        return f"the checkpointed command failed: {p.stderr.strip()}"
    if opts.get("hand"):
        sh(["sh", "-c", opts["hand"]], tree)
    pre = capture(tree)
    p = sh([indus, "checkpoint", "rewind", "step"], tree, check=False)
    return verdict(p.returncode, p.stderr, before, pre, capture(tree), opts, False, False)
def shadow(tree, cmd, opts):
    git = ["git", f"--git-dir={tree}.shadow.git", f"--work-tree={tree}"]
    had_git = os.path.isdir(f"{tree}/.git")
    before = capture(tree)
    sh(git + ["init", "-q"], tree)
    sh(git + ["add", "-A"], tree)
    sh(git + ["commit", "-q", "--allow-empty", "-m", "step"], tree)
    base = sh(git + ["rev-parse", "HEAD"], tree).stdout.strip()
    sh(["sh", "-c", cmd], tree)
    if opts.get("hand"):
        sh(["sh", "-c", opts["hand"]], tree)
    pre = capture(tree)
    p = sh(git + ["checkout", base, "--", "."], tree, check=False)
    if p.returncode == 0:
        p = sh(git + ["clean", "-fdq"], tree, check=False)
    return verdict(p.returncode, p.stderr, before, pre, capture(tree), opts, had_git,
                   os.path.isdir(f"{tree}/.git"))
lines = ["| scenario | indus-tool (--checkpoint bash, checkpoint rewind) | shadow git (add -A && commit; checkout -- . && clean -fd) |",
         "|---|---|---|"]
try:
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for n, (name, cmd, opts) in enumerate(scenarios):
        res = []
        for side, fn in (("ours", ours), ("shadow", shadow)):
            tree = f"{work}/s{n}-{side}"
            os.makedirs(tree)
            build(tree, opts.get("git", True))
            if not opts.get("git", True) and sh(["git", "rev-parse", "--git-dir"], tree, check=False).returncode == 0:
                res.append("not run: the temporary folder is inside a git repository")
            else:
                res.append(fn(tree, cmd, opts))
        lines.append(f"| {name} (`{cmd}`{'; then `' + opts['hand'] + '`' if opts.get('hand') else ''}) | {res[0]} | {res[1]} |")
finally:
    shutil.rmtree(work, ignore_errors=True)
table = "\n".join(lines) + "\n"
if os.environ.get("CKPT_TABLE"):
    with open(os.environ["CKPT_TABLE"], "w") as f:
        f.write(table)
else:
    sys.stderr.write(table)
PY
