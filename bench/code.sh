# Code search (issue 58): sgrep against the ast-grep CLI of the same version on
# cargo's registry source cache (about 22,000 files: the largest real tree on
# every machine that builds this project), and outline --map of Go's standard
# library (about 5,500 files), its time and peak memory. The ast-grep CLI comes
# from .ci/run's virtualenv (target/mcp-peers/venv), or is installed there.
sgbin="$top/target/mcp-peers/venv/bin/ast-grep"
if [ ! -x "$sgbin" ]; then
  [ -x "$top/target/mcp-peers/venv/bin/pip" ] || python3 -m venv "$top/target/mcp-peers/venv"
  "$top/target/mcp-peers/venv/bin/pip" install --quiet 'ast-grep-cli==0.51.1' >&2
fi
tree="${CARGO_HOME:-$HOME/.cargo}/registry/src"
echo "sgrep corpus: $tree, $(find "$tree" -type f | wc -l) files" >&2
# Both print every match as JSON, so both do the same work: find, read, parse,
# match and print each match.
compare "sgrep \$X.unwrap() on the registry (rust)" \
  "$sgbin run -p \$X.unwrap() -l rust --json=compact $tree" \
  "$INDUS sgrep \$X.unwrap() $tree --lang rust --format json --limit 5000 --max-bytes 100000000" "1.0" 1 3
compare "sgrep fn \$F(\$\$\$) on the registry (rust)" \
  "$sgbin run -p fn\ \$F(\$\$\$A)\ \{\ \$\$\$B\ \} -l rust --json=compact $tree" \
  "$INDUS sgrep fn\ \$F(\$\$\$A)\ \{\ \$\$\$B\ \} $tree --lang rust --format json --limit 5000 --max-bytes 100000000" "1.0" 1 3
gotree=$(ls -d /usr/share/go-*/src 2>/dev/null | head -1)
if [ -n "$gotree" ]; then
  echo "map corpus: $gotree, $(find "$gotree" -name '*.go' | wc -l) Go files" >&2
  measure "outline --map of Go's standard library" "$INDUS outline --map $gotree" 20000 1 3
  /usr/bin/time -f "outline --map of Go's standard library: %e s, peak RSS %M KB" \
    "$INDUS" outline --map "$gotree" >/dev/null 2>"$WORK/map.err" || true
  tail -1 "$WORK/map.err" >&2
fi
