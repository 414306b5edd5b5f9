# Start-up: a one-shot CLI pays it on every call. Each row runs the same small job
# with the peer tool and with indus-tool, in one run (issue 29's bars):
#   --version against rg --version            <= 1.2
#   ls of a small folder against ls -la       <= 1.5
#   read of a small file against cat          <= 1.5
# $INDUS is the build bench/run made: the release build, or with INDUS_DIST=1 the
# shipping build (`cargo build --locked --profile dist`).
bin=$INDUS
# Measured as installed: a copy, as `cargo install` and any package make. The
# linker writes its output piecemeal, and the page cache keeps that file in small
# pieces; a file written in one sequential copy is cached in large folios, so each
# start takes fewer page faults (128 against 150 here) and starts faster (read:
# 1.05-1.10x cat for the copy against 1.47-1.61x for the linker's file, in one run).
cp "$bin" "$WORK/indus-tool-installed"
bin="$WORK/indus-tool-installed"
small="$WORK/small"
mkdir -p "$small/sub"
for i in $(seq 1 20); do echo "file $i" >"$small/f$i.txt"; done
compare "startup: --version" "rg --version" "$bin --version" 1.2 20 300
compare "startup: ls small dir" "ls -la $small" "$bin ls $small" 1.5 20 300
compare "startup: read small file" "cat $small/f1.txt" "$bin read $small/f1.txt" 1.5 20 300
