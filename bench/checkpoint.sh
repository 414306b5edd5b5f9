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
