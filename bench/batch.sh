# Batch: 10,000 `todo_read` calls through one `indus-tool batch`, against the same
# 10,000 calls as one-shot invocations (their median times 10,000: running them all
# would take a minute and measure the same thing). Bar: >= 50,000 calls/s.
dir="$WORK/batch"
mkdir -p "$dir"
"$INDUS" --cwd "$dir" todo_set --items \
  '[{"id":"a","text":"Write the parser","status":"done"},{"id":"b","text":"Test it","status":"active"}]' >/dev/null
calls="$WORK/calls.jsonl"
python3 -c '
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(10000):
        f.write(json.dumps({"id": str(i), "name": "todo_read"}) + "\n")
' "$calls"
json="$WORK/hf-batch.json"
one="$WORK/hf-one.json"
# The batch needs a shell for the redirections; the one-shot runs without one.
hyperfine --warmup 2 --runs 15 --export-json "$json" \
  "$INDUS --cwd $dir batch < $calls > /dev/null" >/dev/null
hyperfine -N --warmup 10 --runs 200 --export-json "$one" "$INDUS --cwd $dir todo_read" >/dev/null
python3 - "$json" "$one" >>"$ROWS" <<'PY'
import json, sys
batch = json.load(open(sys.argv[1]))["results"][0]["median"]
one = json.load(open(sys.argv[2]))["results"][0]["median"]
rate = 10000 / batch
oneshot = one * 10000
print(f"batch: 10,000 todo_read ({rate:,.0f} calls/s)\tone-shot x10,000\t{oneshot*1000:.0f}\t{batch*1000:.2f}\t{batch/oneshot:.3f}\t>= 50,000/s\t{'ok' if rate >= 50000 else 'OVER'}")
PY
