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
