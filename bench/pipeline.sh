# Pipelines: the shell lines people write with rg, fd and diff, written with
# indus-tool instead, on a real source tree (cargo's registry sources, or
# $INDUS_BENCH_TREE). Each row first checks that both lines print the same thing
# (a mismatch ends the run with status 1), then times them; ratios, no bars (the
# search family holds the speed bars of grep and find themselves).
#
#   grep -l | wc -l        rg -l                      (files with a match)
#   grep -c                rg -c                      (counts per file)
#   grep | wc -l           rg | wc -l                 (every matching line, >64 KiB)
#   grep --limit 10000     rg --sort path | head      (an asked limit, exact)
#
# No --limit anywhere it is not the point: a pipe gets every row, as from rg and fd.
#   find -e toml -0 | xargs -0 cat
#                          fd -e toml -0 | xargs -0 cat
#   diff -ru A B           GNU diff -ru               (two copies, 40 files changed)
ptree="${INDUS_BENCH_TREE:-${CARGO_HOME:-$HOME/.cargo}/registry/src}"
if [ ! -d "$ptree" ]; then
  echo "pipeline: no tree at $ptree (set INDUS_BENCH_TREE)" >&2
  return 0
fi
# The shell's view, not the agent's exact text (bench/run asks for that).
S="INDUS_EXACT= $INDUS"
RGS="rg --hidden --no-ignore --max-filesize 2M -g !.git -g !node_modules -g !.indus-process"
same() {
  local name=$1 peer=$2 ours=$3
  local a b
  a=$(bash -c "$peer" | LC_ALL=C sort | md5sum)
  b=$(bash -c "$ours" | LC_ALL=C sort | md5sum)
  if [ "$a" != "$b" ]; then
    echo "FAIL pipeline $name: the outputs differ" >&2
    diff <(bash -c "$peer" | LC_ALL=C sort) <(bash -c "$ours" | LC_ALL=C sort) | head -10 >&2
    exit 1
  fi
  echo "PASS pipeline $name: same output" >&2
}

P='unsafe impl'
same "grep -l" "$RGS -l '$P' $ptree" "$S grep -l '$P' $ptree"
compare "pipeline: grep -l | wc -l" "bash -c \"$RGS -l '$P' $ptree | wc -l\"" \
  "bash -c \"$S grep -l '$P' $ptree | wc -l\"" "" 2 10

same "grep -c" "$RGS -c '$P' $ptree" "$S grep -c '$P' $ptree"
compare "pipeline: grep -c" "bash -c \"$RGS -c '$P' $ptree >/dev/null\"" \
  "bash -c \"$S grep -c '$P' $ptree >/dev/null\"" "" 2 10

# Every matching line. Two spellings differ by design: rg has no space after the
# line number's colon, and keeps a CRLF line's \r (grep shows the line's text).
L='fn new'
same "grep | every line" "$RGS -n '$L' $ptree | tr -d '\\r'" \
  "$S grep '$L' $ptree | sed 's/^\\([^:]*:[0-9]*:\\) /\\1/'"
compare "pipeline: grep | wc -l (every line)" "bash -c \"$RGS -n '$L' $ptree | wc -l\"" \
  "bash -c \"$S grep '$L' $ptree | wc -l\"" "" 2 10
# Every line of the tree: rows go out as they are found, none held. Compared on
# the Rust files (elsewhere a line's bytes that are not UTF-8 are shown as
# U+FFFD, by design), every \r dropped on both sides (grep drops a CRLF line's
# last one, rg keeps it); timed on the whole tree.
same "grep -t rust -e . | every line" "$RGS -t rust -n -e . $ptree | tr -d '\\r'" \
  "$S grep -t rust -e . $ptree | sed 's/^\\([^:]*:[0-9]*:\\) /\\1/' | tr -d '\\r'"
compare "pipeline: grep -e . | wc -l (the whole tree)" "bash -c \"$RGS -n -e . $ptree | wc -l\"" \
  "bash -c \"$S grep -e . $ptree | wc -l\"" "" 1 5
# An asked limit is exactly rg's first rows in path order (compared in order).
ours_first=$(bash -c "$S grep --limit 3000 '$L' $ptree" | sed 's/^\([^:]*:[0-9]*:\) /\1/' | md5sum)
peer_first=$(bash -c "$RGS --sort path -n '$L' $ptree" | head -n 3000 | tr -d '\r' | md5sum)
if [ "$ours_first" != "$peer_first" ]; then
  echo "FAIL pipeline grep --limit 3000: not rg --sort path | head -n 3000" >&2
  exit 1
fi
echo "PASS pipeline grep --limit 3000: rg --sort path | head -n 3000, in order" >&2

same "find -e toml" "$FD -HI -E .git -e toml . $ptree" "$S find -e toml . $ptree"
compare "pipeline: find -e toml -0 | xargs -0 cat" \
  "bash -c \"$FD -HI -E .git -e toml -0 . $ptree | xargs -0 cat >/dev/null\"" \
  "bash -c \"$S find -e toml -0 . $ptree | xargs -0 cat >/dev/null\"" "" 2 10

# Two copies of one crate's sources, 40 files changed in the second.
crate=$(find "$ptree" -mindepth 2 -maxdepth 2 -type d -name 'regex-syntax-*' | head -1)
if [ -n "$crate" ]; then
  cp -r "$crate" "$WORK/diff-a"
  cp -r "$crate" "$WORK/diff-b"
  find "$WORK/diff-b" -name '*.rs' | LC_ALL=C sort | head -40 |
    while read -r f; do sed -i '1s/^/\/\/ changed\n/; $s/$/\n\/\/ end/' "$f"; done
  # Headers differ by design (GNU diff writes timestamps): compare what patch does.
  cp -r "$WORK/diff-a" "$WORK/diff-c"
  (cd "$WORK" && INDUS_EXACT= "$INDUS" diff -ru diff-a diff-b >ours.patch || true)
  (cd "$WORK/diff-c" && patch -s -p1 <../ours.patch)
  if ! diff -r "$WORK/diff-c" "$WORK/diff-b" >/dev/null; then
    echo "FAIL pipeline diff -ru: the patch did not turn a copy into b" >&2
    exit 1
  fi
  echo "PASS pipeline diff -ru: patch -p1 turns a copy of a into b" >&2
  HF_IGNORE=1 compare "pipeline: diff -ru (40 of $(find "$WORK/diff-a" -type f | wc -l) files changed)" \
    "diff -ru $WORK/diff-a $WORK/diff-b" \
    "$INDUS diff -ru $WORK/diff-a $WORK/diff-b" "" 2 10
fi
