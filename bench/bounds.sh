# Bounded under hostile input (issue 53): what the match engine's work budget
# costs and what it buys, and the MCP server's answer to a `ping` during a long
# call. Rows:
#   - the attack `edit`: a 2,500-line near match (only its last line differs)
#     against 100,000 lines of a ten-line pattern, refused within the budget
#     (before the budget: 216 s in a debug build). Bar: <= 3,500 ms.
#   - the attack `apply_patch`: 20,000 whitespace-fuzzy envelope hunks on
#     100,000 lines, refused within the budget. Bar: <= 3,500 ms.
#   - the budget's cost on ordinary input: bench/edit-replay.py's replay (the
#     fuzzy stages run there too) is the row to compare before and after; this
#     row is one whitespace-fuzzy edit of a 100,000-line file, which counts its
#     cells all the way. Bar: <= 200 ms.
#   - `ping` answered by `indus-tool mcp` while an `edit` spends its whole budget
#     on another request (p50 of 20 pings). Bar: <= 200 ms.
bw="$WORK/bounds"
mkdir -p "$bw" && git -C "$bw" init -q 2>/dev/null || true
python3 - "$bw" <<'PY'
import json, sys, os
d = sys.argv[1]
n = 100_000
lines = [f"    call({i % 10});" for i in range(n)]
open(os.path.join(d, "rep.rs"), "w").write("\n".join(lines) + "\n")
old = lines[n // 2 : n // 2 + 2500]
old[-1] = "    nomatch();"
json.dump({"path": "rep.rs", "oldText": "\n".join(old) + "\n", "newText": "x\n"},
          open(os.path.join(d, "attack.json"), "w"))
rows = [f"row {i} value" for i in range(n)]
open(os.path.join(d, "rows.txt"), "w").write("\n".join(rows) + "\n")
p = ["*** Begin Patch", "*** Update File: rows.txt"]
for i in range(0, n - 1, 5):
    p += ["@@", f" row {i} value   ", f"-row {i+1} value", f"+row {i+1} changed"]
p.append("*** End Patch")
open(os.path.join(d, "attack.patch"), "w").write("\n".join(p) + "\n")
json.dump({"path": "rows.txt", "oldText": "row 70000 value  \nrow 70001 value\n",
           "newText": "row 70000 value\nrow 70001 changed\n"},
          open(os.path.join(d, "fuzzy.json"), "w"))
PY
measure "edit: 2,500-line near match x 100k lines (refused)" \
  "sh -c 'cd $bw && $INDUS edit --json \"\$(cat attack.json)\" >/dev/null 2>&1; true'" 3500 1 5
measure "apply_patch: 20k fuzzy hunks x 100k lines (refused)" \
  "sh -c 'cd $bw && $INDUS apply_patch attack.patch >/dev/null 2>&1; true'" 3500 1 5
measure "edit: one whitespace-fuzzy edit of 100k lines" \
  "sh -c 'cd $bw && cp rows.txt f.txt && $INDUS edit --json \"\$(sed s/rows.txt/f.txt/ fuzzy.json)\" >/dev/null'" 200 2 10
ping_ms=$(python3 - "$INDUS" "$bw" <<'PY'
import json, subprocess, sys, time, statistics
indus, d = sys.argv[1], sys.argv[2]
attack = json.load(open(f"{d}/attack.json"))
p = subprocess.Popen([indus, "--cwd", d, "mcp", "--no-gate"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, text=True, bufsize=1)
def send(m): p.stdin.write(json.dumps(m) + "\n"); p.stdin.flush()
def recv(): return json.loads(p.stdout.readline())
send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}})
recv(); send({"jsonrpc": "2.0", "method": "notifications/initialized"})
lat = []
for k in range(20):
    send({"jsonrpc": "2.0", "id": 1000 + k, "method": "tools/call", "params": {"name": "edit", "arguments": attack}})
    time.sleep(0.05)
    t = time.monotonic(); send({"jsonrpc": "2.0", "id": k, "method": "ping"})
    seen = set()
    while k not in seen or 1000 + k not in seen:
        m = recv()
        seen.add(m.get("id"))
        if m.get("id") == k:
            lat.append((time.monotonic() - t) * 1000)
p.stdin.close(); p.wait()
print(f"{statistics.median(lat):.2f}")
PY
)
echo -e "mcp: ping during a budget-long edit (p50 of 20)\t-\t-\t${ping_ms}\t-\t<= 200 ms\t$(python3 -c "print('ok' if $ping_ms <= 200 else 'OVER')")" >>"$ROWS"
