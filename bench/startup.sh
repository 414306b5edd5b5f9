# Start-up: a one-shot CLI pays it on every call. Each row runs the same small job
# with the peer tool and with indus-tool, in one run (issue 29's bars):
#   --version against rg --version            <= 1.2
#   ls of a small folder against ls -la       <= 1.5
#   read of a small file against cat          <= 1.5
# $INDUS is the release build bench/run made; INDUS_DIST=1 measures the shipping
# build (`cargo build --locked --profile dist`) instead, built here if missing.
bin=$INDUS
if [ -n "${INDUS_DIST:-}" ]; then
  (cd "$top" && cargo build --locked --profile dist --quiet)
  bin="${CARGO_TARGET_DIR:-$top/target}/$host/dist/indus-tool"
fi
small="$WORK/small"
mkdir -p "$small/sub"
for i in $(seq 1 20); do echo "file $i" >"$small/f$i.txt"; done
compare "startup: --version" "rg --version" "$bin --version" 1.2 20 300
compare "startup: ls small dir" "ls -la $small" "$bin ls $small" 1.5 20 300
compare "startup: read small file" "cat $small/f1.txt" "$bin read $small/f1.txt" 1.5 20 300
