# The Python client's per-call latency (bench/client.py): one `read` through
# `indus_tool.Toolbox`, against the same call over a raw `indus-tool batch` pipe and
# against one `indus-tool` process per call, 2,000 interleaved rounds.
# Bars: the client within 1.5x the raw pipe; at most a quarter of a process per call.
dir="$WORK/client"
mkdir -p "$dir"
python3 "$here/client.py" "$INDUS" "$dir" 2000 >>"$ROWS"
