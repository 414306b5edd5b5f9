# MCP: the round trip of one `tools/call` for `read` of a small file, median, against
# the reference MCP filesystem server (npm @modelcontextprotocol/server-filesystem,
# its `read_text_file`). Both servers are started once and driven by the same client
# (bench/mcp-client.mjs, on the official TypeScript SDK) in the same run, calls
# alternating between them after a warmup. Bar: ours <= 0.5x theirs.
#
# Needs node and npm (installed from Debian's packages when missing, as bench/run does
# for its tools); the two npm packages go into a scratch folder under $WORK for the
# run. MCP_BENCH_RUNS (default 300) sets the number of timed calls.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "installing: nodejs npm" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >&2
fi
mcp_node="$WORK/mcp-node"
mkdir -p "$mcp_node"
npm install --prefix "$mcp_node" --no-audit --no-fund --loglevel=error \
  @modelcontextprotocol/server-filesystem @modelcontextprotocol/sdk >&2
cp "$here/mcp-client.mjs" "$mcp_node/"

mcp_dir="$WORK/mcp-files"
mkdir -p "$mcp_dir"
for i in $(seq 1 40); do echo "line $i of a small file for the MCP round trip"; done >"$mcp_dir/small.txt"

peer_spec=$(python3 -c 'import json,sys; print(json.dumps({"command": sys.argv[1], "args": [sys.argv[2]], "tool": "read_text_file", "arguments": {"path": sys.argv[2] + "/small.txt"}}))' \
  "$mcp_node/node_modules/.bin/mcp-server-filesystem" "$mcp_dir")
ours_spec=$(python3 -c 'import json,sys; print(json.dumps({"command": sys.argv[1], "args": ["--cwd", sys.argv[2], "mcp"], "tool": "read", "arguments": {"path": "small.txt"}}))' \
  "$INDUS" "$mcp_dir")

medians=$(node "$mcp_node/mcp-client.mjs" "${MCP_BENCH_RUNS:-300}" 30 "line 40 of a small file" \
  "$peer_spec" "$ours_spec")
python3 - "$medians" >>"$ROWS" <<'PY'
import sys
peer, ours = (float(x) for x in sys.argv[1].split())
ratio = ours / peer if peer else float("inf")
limit = 0.5
verdict = "ok" if ratio <= limit else "OVER"
print(f"mcp: tools/call read, small file\tmcp-server-filesystem\t{peer:.2f}\t{ours:.2f}\t{ratio:.2f}\t{limit}\t{verdict}")
PY
