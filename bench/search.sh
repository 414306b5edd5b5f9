# Search: grep and find on a large real source tree, against ripgrep and fd.
#
# The tree is cargo's registry source cache (the crates building this project
# downloaded), or $INDUS_BENCH_TREE, or the Rust standard library's sources, or
# /usr/share. First a differential check (any mismatch ends the run with status 1),
# then the timed rows, warm cache.
#
# Differential: for several patterns, the set of PATH:LINE hits of `indus-tool grep`
# equals ripgrep's over the same scope (hidden files, no ignore files, 2 MiB cap,
# .git/node_modules pruned), restricted to text files (no NUL byte anywhere: the two
# tools draw the binary line differently, by design). For several globs, the file set
# of `indus-tool find` equals `fd -HI`'s.

search_tree() {
  local candidates=(
    "${INDUS_BENCH_TREE:-}"
    "${CARGO_HOME:-$HOME/.cargo}/registry/src"
    "$(rustc --print sysroot 2>/dev/null)/lib/rustlib/src"
    /usr/share
  )
  local t
  for t in "${candidates[@]}"; do
    if [ -n "$t" ] && [ -d "$t" ] && [ "$(du -sm "$t" 2>/dev/null | cut -f1)" -ge 50 ]; then
      echo "$t"
      return
    fi
  done
  echo "no source tree of 50 MB or more found for the search benchmarks" >&2
  return 1
}

TREE=$(search_tree)
echo "search tree: $TREE ($(du -sh "$TREE" | cut -f1))" >&2
# Output is compared whole, so the budget must not clamp it.
BIG="--max-bytes 1000000000"
RG_SCOPE=(--no-ignore --hidden --max-filesize 2M -g '!.git' -g '!node_modules')

# grep_diff NAME RG_FLAGS OURS_FLAGS PATTERN
grep_diff() {
  local name=$1 rg_flags=$2 ours_flags=$3 pattern=$4
  # shellcheck disable=SC2086
  rg -n -0 --no-heading --with-filename $rg_flags "${RG_SCOPE[@]}" -e "$pattern" "$TREE" \
    >"$WORK/rg.out" || true
  # shellcheck disable=SC2086
  "$INDUS" $BIG grep $ours_flags --limit 5000 -- "$pattern" "$TREE" >"$WORK/ours.out"
  python3 - "$name" "$WORK/rg.out" "$WORK/ours.out" <<'PY'
import re, sys
name, rg_path, ours_path = sys.argv[1:4]
text_cache = {}
def is_text(path):
    if path not in text_cache:
        with open(path, "rb") as f:
            text_cache[path] = b"\0" not in f.read()
    return text_cache[path]
rg = set()
for raw in open(rg_path, "rb").read().split(b"\n"):
    if not raw:
        continue
    path, rest = raw.split(b"\0", 1)
    rg.add((path.decode("utf-8", "surrogateescape"), int(rest.split(b":", 1)[0])))
body, _, summary = open(ours_path, "rb").read().decode("utf-8", "surrogateescape").rpartition("\n\n")
ours = set()
for line in filter(None, body.split("\n")):
    m = re.match(r"^(.*?):(\d+): ", line)
    if not m:
        print(f"FAIL grep {name}: unparsable row {line[:120]!r}", file=sys.stderr)
        sys.exit(1)
    ours.add((m.group(1), int(m.group(2))))
if summary.startswith("Showing the first"):
    print(f"FAIL grep {name}: the limit cut the output ({summary})", file=sys.stderr)
    sys.exit(1)
rg = {h for h in rg if is_text(h[0])}
ours = {h for h in ours if is_text(h[0])}
if rg == ours and rg:
    print(f"PASS grep {name}: {len(ours)} hits identical to rg", file=sys.stderr)
    sys.exit(0)
print(f"FAIL grep {name}: rg {len(rg)} hits, ours {len(ours)}; only rg: {sorted(rg - ours)[:5]}, only ours: {sorted(ours - rg)[:5]}", file=sys.stderr)
sys.exit(1)
PY
}

# find_diff GLOB
find_diff() {
  local glob=$1
  "$FD" -HI -i -E .git -E node_modules -g "$glob" "$TREE" >"$WORK/fd.out" || true
  "$INDUS" $BIG find --limit 10000 -- "$glob" "$TREE" >"$WORK/ours.out"
  python3 - "$glob" "$TREE" "$WORK/fd.out" "$WORK/ours.out" <<'PY'
import sys
glob, tree, fd_path, ours_path = sys.argv[1:5]
prefix = tree.rstrip("/") + "/"
fd = {l.removeprefix(prefix).rstrip("/") for l in open(fd_path, encoding="utf-8", errors="surrogateescape").read().splitlines() if l}
body, _, summary = open(ours_path, encoding="utf-8", errors="surrogateescape").read().rpartition("\n\n")
ours = set(filter(None, body.splitlines()))
if summary.startswith("Showing the first"):
    print(f"FAIL find {glob}: the limit cut the output ({summary})", file=sys.stderr)
    sys.exit(1)
if fd == ours and fd:
    print(f"PASS find {glob}: {len(ours)} entries identical to fd", file=sys.stderr)
    sys.exit(0)
print(f"FAIL find {glob}: fd {len(fd)}, ours {len(ours)}; only fd: {sorted(fd - ours)[:5]}, only ours: {sorted(ours - fd)[:5]}", file=sys.stderr)
sys.exit(1)
PY
}

search_failed=0
grep_diff "regex with classes" "" "" 'fn\s+\w+_with_\w+\(' || search_failed=1
grep_diff "anchored" "" "" '^\s*//!.*\bthread' || search_failed=1
grep_diff "plain words" "" "" 'unsafe impl' || search_failed=1
grep_diff "unicode class" "" "" '[αβγδλ]' || search_failed=1
grep_diff "literal" "-F" "--literal" '#[inline(always)]' || search_failed=1
grep_diff "ignore case" "-i" "--ignore-case" 'ordering::seqcst' || search_failed=1
grep_diff "flags i" "-i" "--flags gi" 'impl<.*> drop for' || search_failed=1
for glob in '*.rs' '*.toml' 'read*' '*test*' '?.rs' 'license*'; do
  find_diff "$glob" || search_failed=1
done
if [ "$search_failed" != 0 ]; then
  echo "search: the differential check failed" >&2
  exit 1
fi

# Timed rows, warm cache (hyperfine's warmup runs read the tree first). Both sides
# print every hit: ours with the ceiling as limit and an unclamped budget.
NEVER=ZQXJWVK_never_matches_9f2
RG_SCOPE_WORDS="--no-ignore --hidden --max-filesize 2M -g !.git -g !node_modules"
REGEX="'fn\s+\w+_with_\w+\('"

# rg exits 1 when nothing matches, which hyperfine counts as a failed run: for this
# row only, hyperfine runs with --ignore-failure.
hyperfine() { command hyperfine --ignore-failure "$@"; }
compare "grep: literal, no match" \
  "rg $RG_SCOPE_WORDS $NEVER $TREE" \
  "$INDUS grep $NEVER $TREE" 1.0 3 20
unset -f hyperfine

compare "grep: regex with classes" \
  "rg -n $RG_SCOPE_WORDS $REGEX $TREE" \
  "$INDUS $BIG grep --limit 5000 $REGEX $TREE" 1.0 3 20
compare "grep: regex, sorted peer" \
  "rg -n --sort path $RG_SCOPE_WORDS $REGEX $TREE" \
  "$INDUS $BIG grep --limit 5000 $REGEX $TREE" 0.7 3 20
compare "find: *.rs" \
  "$FD -HI -g '*.rs' $TREE" \
  "$INDUS $BIG find --limit 10000 '*.rs' $TREE" 1.0 3 20
