# Shell and planning: the per-call cost of the stateful tools, which pay the state
# lock, a JSON load and an atomic replace on top of startup.
#   process start / process poll: median wall <= 10 ms each (absolute bars).
#   todo_read: <= 3x indus-tool's own startup (`ls` of a small directory).
#   bash: `indus-tool bash true` against `sh -c true`, for information.
jobs="$WORK/jobs"
mkdir -p "$jobs"
measure "process start (true)" "$INDUS --cwd $jobs process start --command true" 10 3 60

ticker=$("$INDUS" --cwd "$jobs" process start --command 'while :; do echo tick; sleep 0.005; done')
ticker_id=$(echo "$ticker" | awk '{print $2}')
measure "process poll (live job)" "$INDUS --cwd $jobs process poll --id $ticker_id" 10 3 100
"$INDUS" --cwd "$jobs" process stop --id "$ticker_id" >/dev/null

tiny="$WORK/tiny"
mkdir -p "$tiny"
for i in $(seq 1 20); do echo "file $i" >"$tiny/f$i.txt"; done
"$INDUS" --cwd "$tiny" todo_set --items \
  '[{"id":"a","text":"Write the parser","status":"done"},{"id":"b","text":"Test it","status":"active","priority":"high"},{"id":"c","text":"Ship","status":"pending"}]' >/dev/null
compare "todo_read vs our startup (ls)" "$INDUS ls $tiny" "$INDUS --cwd $tiny todo_read" 3 20 300

compare "bash true vs sh -c true" "sh -c true" "$INDUS bash true" "" 10 200
