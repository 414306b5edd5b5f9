# Checkpoints: what `--checkpoint` adds to an `edit` of a small file (record the
# content before, read back what was written, under the state folder's lock),
# measured against the same edit without it, in the same run. Bar: ratio <= 1.2.
#  - one turn (`--turn bench`), many edits: the pre-image is recorded once per
#    file and turn, then each edit only notes the hash of what it wrote;
#  - a node per invocation (no `--turn`): every edit records a new node (one new
#    node file a run; a call reads only its own node, so the 320 nodes a run
#    leaves do not slow the later runs).
# Each run flips a word back and forth so every edit makes a real change.
ckpt_edit_script() { # DIR EXTRA_GLOBALS -> a script editing DIR/small.txt
  local dir=$1 extra=$2
  mkdir -p "$dir"
  python3 - "$dir/small.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(60):
        f.write(f"line {i:03d}: the quick brown fox jumps over the lazy dog\n")
PY
  cat >"$dir/edit.sh" <<EOF2
#!/bin/sh
if grep -q 'line 030: the quick' "$dir/small.txt"; then
  "$INDUS" --cwd "$dir" $extra edit small.txt --old-text 'line 030: the quick' --new-text 'line 030: THE quick' >/dev/null
else
  "$INDUS" --cwd "$dir" $extra edit small.txt --old-text 'line 030: THE quick' --new-text 'line 030: the quick' >/dev/null
fi
EOF2
  chmod +x "$dir/edit.sh"
}
ckpt_edit_script "$WORK/ckpt-plain" ""
ckpt_edit_script "$WORK/ckpt-turn" "--checkpoint --turn bench"
ckpt_edit_script "$WORK/ckpt-node" "--checkpoint"
compare "edit small file: --checkpoint --turn vs plain" "$WORK/ckpt-plain/edit.sh" "$WORK/ckpt-turn/edit.sh" 1.2 20 300
compare "edit small file: --checkpoint (node per call) vs plain" "$WORK/ckpt-plain/edit.sh" "$WORK/ckpt-node/edit.sh" 1.2 20 300
