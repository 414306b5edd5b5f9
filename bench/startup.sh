# Startup: a one-shot CLI pays it on every call. `indus-tool ls` on a small
# directory against `ls -la` on the same directory; bar: ratio <= 3.
small="$WORK/small"
mkdir -p "$small/sub"
for i in $(seq 1 20); do echo "file $i" >"$small/f$i.txt"; done
compare "startup: ls small dir" "ls -la $small" "$INDUS ls $small" 3 20 300
