# Long and interactive commands (issue 56), in one run:
#   - the wake-up latency of `process poll --until` after the job writes its line,
#     median of 100 (bar: <= 50 ms), against a `sleep 0.1` polling loop on the same
#     capture file (the wait the docs used before: `until grep -q …; sleep 0.1`);
#   - the cost of the spill store on 200 MB through `bash`: the same command with the
#     store on and off (INDUS_OUTPUTS_MAX_BYTES=0), and `sh -c` alone for scale.
python3 "$here/jobs-latency.py" "$INDUS" "$WORK/latency" 100 >>"$ROWS"
big="yes 0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghij | head -c 200000000"
mkdir -p "$WORK/spill"
compare "bash 200 MB: spill on vs off" \
  "env INDUS_OUTPUTS_MAX_BYTES=0 $INDUS --cwd $WORK/spill bash \"$big\"" \
  "$INDUS --cwd $WORK/spill bash \"$big\"" "" 1 5
compare "bash 200 MB (spill on) vs sh -c" \
  "sh -c \"$big > /dev/null\"" \
  "$INDUS --cwd $WORK/spill bash \"$big\"" "" 1 5
