# Search: grep and find on a large real source tree, against ripgrep and fd.
#
# The tree is cargo's registry source cache (the crates building this project
# downloaded), or $INDUS_BENCH_TREE, or the Rust standard library's sources, or
# /usr/share. First a differential check (any mismatch ends the run with status 1),
# then the timed rows, warm cache.
#
# Differential: for several patterns, the set of PATH:LINE hits of `indus-tool grep`
# equals ripgrep's over the same scope (hidden files, no ignore files, 2 MiB cap,
# .git/node_modules/.indus-process pruned), restricted to text files (no NUL byte
# anywhere: the two tools draw the binary line differently, by design). For several
# globs, the entry set of `indus-tool find` equals `fd -HI -i --glob`'s: name globs
# (with braces and classes too) as they are, and globs holding a `/`, which find
# matches against the path below its root, as fd's `--full-path` globs anchored at
# the (escaped) root.

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
RG_SCOPE=(--no-ignore --hidden --max-filesize 2M -g '!.git' -g '!node_modules' -g '!.indus-process')

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
rg = {h for h in rg if is_text(h[0])}
ours = {h for h in ours if is_text(h[0])}
if summary.startswith("Showing the first"):
    # Past grep's ceiling of 5000 rows: every row shown is one of rg's hits, and
    # the total in the summary is rg's (binary files aside, which the two tools
    # count differently, so the total is compared over all files searched).
    m = re.match(r"Showing the first \d+ of (\d+) matches", summary)
    total = int(m.group(1)) if m else -1
    rg_all = sum(1 for raw in open(rg_path, "rb").read().split(b"\n") if raw)
    if ours <= rg and ours and total >= len(rg) and total <= rg_all:
        print(f"PASS grep {name}: the first {len(ours)} of {total} hits are rg's (rg: {len(rg)} in text files)", file=sys.stderr)
        sys.exit(0)
    print(f"FAIL grep {name}: past the ceiling, rows not rg's {sorted(ours - rg)[:5]}, total {total} vs rg {len(rg)}..{rg_all}", file=sys.stderr)
    sys.exit(1)
if rg == ours and rg:
    print(f"PASS grep {name}: {len(ours)} hits identical to rg", file=sys.stderr)
    sys.exit(0)
print(f"FAIL grep {name}: rg {len(rg)} hits, ours {len(ours)}; only rg: {sorted(rg - ours)[:5]}, only ours: {sorted(ours - rg)[:5]}", file=sys.stderr)
sys.exit(1)
PY
}

# find_diff GLOB
# A glob without `/` goes to fd as it is. One with `/` is matched by find against
# the path below the root, and by fd (`--full-path`) against the absolute path, so
# fd gets it behind the absolute root with the root's glob characters escaped.
# Past find's ceiling of 10000 rows, the rows shown are checked against fd's first
# 10000 in path order and the count in the summary against fd's count.
find_diff() {
  local glob=$1 fd_glob=$1 fd_flags=() abs_root=$TREE
  if [[ $glob == */* ]]; then
    [[ $abs_root == /* ]] || abs_root=$PWD/$abs_root
    fd_glob="$(printf '%s' "${abs_root%/}" | sed 's/[][{}*?\\]/\\&/g')/$glob"
    fd_flags=(--full-path)
  fi
  "$FD" -HI -i -E .git -E node_modules -E .indus-process "${fd_flags[@]}" -g "$fd_glob" "$TREE" \
    >"$WORK/fd.out" || true
  "$INDUS" $BIG find --limit 10000 -- "$glob" "$TREE" >"$WORK/ours.out"
  python3 - "$glob" "$TREE" "$WORK/fd.out" "$WORK/ours.out" <<'PY'
import re, sys
glob, tree, fd_path, ours_path = sys.argv[1:5]
# Both print the root as given joined with the path below it: compare what is below.
prefix = tree.rstrip("/") + "/"
def below(lines):
    return {l.removeprefix(prefix).rstrip("/") for l in lines if l.startswith(prefix)}
fd_lines = open(fd_path, encoding="utf-8", errors="surrogateescape").read().splitlines()
fd = below(fd_lines)
body, _, summary = open(ours_path, encoding="utf-8", errors="surrogateescape").read().rpartition("\n\n")
ours_lines = body.splitlines()
# fd never lists its root; find does when the root's own name matches a name glob.
ours = below(l for l in ours_lines if l != tree)
stray = [l for l in fd_lines + ours_lines if l and l != tree and not l.startswith(prefix)]
if stray:
    print(f"FAIL find {glob}: rows outside the root: {stray[:5]}", file=sys.stderr)
    sys.exit(1)
cut = re.match(r"Showing the first (\d+) of (\d+) matches", summary)
if cut:
    # Past the ceiling, find shows the first N in path order (bytes, `/` lowest)
    # and counts them all: check both against fd's.
    shown, total = int(cut.group(1)), int(cut.group(2)) - (tree in ours_lines)
    order = lambda p: p.encode("utf-8", "surrogateescape").replace(b"/", b"\0")
    if total != len(fd):
        print(f"FAIL find {glob}: fd {len(fd)} entries, find counted {total}", file=sys.stderr)
        sys.exit(1)
    fd = set(sorted(fd, key=order)[: shown - (tree in ours_lines)])
    what = f"the first {len(ours)} of {total} entries"
else:
    what = f"{len(ours)} entries"
if fd == ours and fd:
    print(f"PASS find {glob}: {what} identical to fd", file=sys.stderr)
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
for glob in '*.rs' '*.toml' 'read*' '*test*' '?.rs' 'license*' \
  '*.{rs,toml}' '{build,lib,main}.rs' '[lm]*.rs' '*[0-9].rs' '[!a-z]*' \
  '*/*/src/*.rs' '**/tests/*.rs' '**/src/**/mod.rs' '*/*/Cargo.{toml,lock}' \
  '**/benches/**' '**/[Rr][Ee][Aa][Dd]*'; do
  find_diff "$glob" || search_failed=1
done
if [ "$search_failed" != 0 ]; then
  echo "search: the differential check failed" >&2
  exit 1
fi

# Timed rows, warm cache (hyperfine's warmup runs read the tree first). Both sides
# print every hit: ours with the ceiling as limit and an unclamped budget.
NEVER=ZQXJWVK_never_matches_9f2
RG_SCOPE_WORDS="--no-ignore --hidden --max-filesize 2M -g !.git -g !node_modules -g !.indus-process"
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
