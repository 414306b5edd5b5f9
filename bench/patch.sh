# apply_patch: a 300-file patch from real history applied by `git apply` and by
# `indus-tool apply_patch`, the same unified diff on the same tree, in one run.
# Bar: ratio <= 1.5.
#
# The patch is ripgrep's own history: the diff from release 11.0.0 to its newest
# commit, renames shown as deletions and additions, text files only, the first
# 300 files of it (no single commit of ripgrep touches that many). The mirror is
# $RIPGREP_REPO (default: where the workplace's `fetch` puts it); without it the
# row is skipped, loudly. Each timed call gets a fresh copy of the 11.0.0 tree
# (hyperfine --prepare), so both tools do the whole apply every time, and the
# result is checked against git's own result first. The copy is synced before the
# call, as a working tree is that was not written a moment ago: apply_patch syncs
# its undo journal, and on ext4 (data=ordered) that sync first writes out every
# dirty page the copy left, which git apply (no sync at all) never waits for; the
# ratio then swung from 1.05 to 2.41 between runs with the disk's backlog.
RIPGREP_REPO=${RIPGREP_REPO:-/work/.mirror/BurntSushi+ripgrep/repo}
if [ ! -d "$RIPGREP_REPO" ]; then
  echo "SKIPPED apply_patch speed row: no ripgrep mirror at $RIPGREP_REPO (set RIPGREP_REPO)" >&2
else
  pw="$WORK/patch"
  mkdir -p "$pw"
  git -C "$RIPGREP_REPO" diff --no-renames --numstat 11.0.0 HEAD |
    awk '$1 != "-" {print $3}' | head -300 >"$pw/files"
  mapfile -t files <"$pw/files"
  git -C "$RIPGREP_REPO" diff --no-renames --no-color 11.0.0 HEAD -- "${files[@]}" >"$pw/p.diff"
  mkdir -p "$pw/base"
  git -C "$RIPGREP_REPO" archive 11.0.0 | tar -x -C "$pw/base"
  rm -rf "$pw/git" "$pw/ours"
  cp -r "$pw/base" "$pw/git" && (cd "$pw/git" && git apply "$pw/p.diff")
  cp -r "$pw/base" "$pw/ours" && (cd "$pw/ours" && "$INDUS" apply_patch "$pw/p.diff" >/dev/null)
  rm -rf "$pw/ours/.indus-process"
  if ! diff -r "$pw/git" "$pw/ours" >/dev/null; then
    echo "apply_patch: the result differs from git apply's" >&2
    exit 1
  fi
  json="$WORK/hf-patch.json"
  hyperfine -N --warmup 2 --runs 15 --export-json "$json" \
    --prepare "sh -c 'rm -rf $pw/t && cp -r $pw/base $pw/t && sync'" \
    --command-name peer "git -C $pw/t apply $pw/p.diff" \
    --command-name ours "$INDUS --cwd $pw/t apply_patch $pw/p.diff" >/dev/null
  python3 - "$json" >>"$ROWS" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
peer, ours = res[0]["median"], res[1]["median"]
ratio = ours / peer
print(f"apply_patch: 300 files of ripgrep's history\tgit apply\t{peer*1000:.2f}\t{ours*1000:.2f}\t{ratio:.2f}\t1.5\t{'ok' if ratio <= 1.5 else 'OVER'}")
PY
fi
