# MCP client: the cost of reaching a grafted tool.
#  - cold call: `indus-tool peer__read small.txt`, where `peer` is indus-tool's own MCP
#    server over stdio (spawned, initialized and called, then ended), against the same
#    call made by the official Python MCP SDK client starting the same server
#    (pip package `mcp`, installed into a venv under $WORK). Bar: ratio <= 1.0.
#  - list with three configured servers and a warm ledger (nothing is spawned: the
#    ledger is the tool-list cache), against the startup row's command
#    (`indus-tool ls` on a small folder). Bar: ratio <= 2.
#  - warm call: the same `peer__read` while `mcp up` keeps the server open.
#    Bar: p50 <= 5 ms (no peer: the Python SDK has no broker to compare with).
#  - a server nobody here wrote: the reference filesystem server from npm
#    (@modelcontextprotocol/server-filesystem) grafted as `fs`; cold
#    `fs__read_text_file` against the Python SDK client making the same call to the
#    same server (bar 1.0), and warm through `mcp up` (bar: p50 <= 5 ms).
mc="$WORK/mcp-client"
mkdir -p "$mc/one" "$mc/three"
for i in $(seq 1 40); do echo "line $i of a small file for the MCP client"; done >"$mc/one/small.txt"
row() { # row SERVER_DIR: a stdio row serving indus-tool's tools from SERVER_DIR
  python3 -c 'import json,sys; print(json.dumps({"command": sys.argv[1], "args": ["--cwd", sys.argv[2], "mcp", "--no-gate"]}))' "$INDUS" "$1"
}
mkdir -p "$mc/one/.indusvx" "$mc/three/.indusvx"
echo "{\"mcpServers\": {\"peer\": $(row "$mc/one")}}" >"$mc/one/.indusvx/mcp.json"
echo "{\"mcpServers\": {\"a\": $(row "$mc/one"), \"b\": $(row "$mc/one"), \"c\": $(row "$mc/one")}}" >"$mc/three/.indusvx/mcp.json"

python3 -m venv "$mc/venv" >&2
"$mc/venv/bin/pip" install --quiet --disable-pip-version-check mcp >&2
cat >"$mc/client.py" <<'PY'
import asyncio, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    params = StdioServerParameters(command=sys.argv[1],
                                   args=["--cwd", sys.argv[2], "mcp", "--no-gate"],
                                   env={"INDUS_MCP_CHILD": "1", "PATH": "/usr/bin:/bin"})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("read", {"path": "small.txt"})
            assert not getattr(result, "is_error", getattr(result, "isError", False)), result

asyncio.run(main())
PY
# Warm both ledgers (the first invocation after a config change lists the servers).
(cd "$mc/one" && "$INDUS" list >/dev/null)
(cd "$mc/three" && "$INDUS" list >/dev/null)
"$INDUS" --cwd "$mc/one" peer__read small.txt | grep -q "line 40" || { echo "peer__read failed" >&2; exit 1; }

compare "mcp client: cold peer__read (stdio)" \
  "$mc/venv/bin/python $mc/client.py $INDUS $mc/one" \
  "$INDUS --cwd $mc/one peer__read small.txt" 1.0 3 30
compare "mcp client: list, 3 servers, warm ledger" \
  "$INDUS ls $mc/one" \
  "$INDUS --cwd $mc/three list" 2 5 200

# Warm: `mcp up` keeps the peer server open; each call is one invocation plus a
# unix-socket round trip to the broker. Bar: p50 (the median) <= 5 ms.
"$INDUS" --cwd "$mc/one" mcp up >&2
"$INDUS" --cwd "$mc/one" peer__read small.txt | grep -q "line 40" || { echo "warm peer__read failed" >&2; exit 1; }
measure "mcp client: warm peer__read through mcp up (p50)" \
  "$INDUS --cwd $mc/one peer__read small.txt" 5 5 200
"$INDUS" --cwd "$mc/one" mcp down >&2

# The reference filesystem server from npm, grafted as `fs`.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "installing: nodejs npm" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >&2
fi
npm install --prefix "$mc/node" --no-audit --no-fund --loglevel=error \
  @modelcontextprotocol/server-filesystem >&2
fsserver="$mc/node/node_modules/.bin/mcp-server-filesystem"
mkdir -p "$mc/fs/.indusvx"
cp "$mc/one/small.txt" "$mc/fs/small.txt"
python3 -c 'import json,sys; print(json.dumps({"mcpServers": {"fs": {"command": sys.argv[1], "args": [sys.argv[2]]}}}))' \
  "$fsserver" "$mc/fs" >"$mc/fs/.indusvx/mcp.json"
cat >"$mc/client_once.py" <<'PY'
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    command, tool, arguments, *args = sys.argv[1:]
    params = StdioServerParameters(command=command, args=args)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool(tool, json.loads(arguments))
            assert not getattr(result, "is_error", getattr(result, "isError", False)), result

asyncio.run(main())
PY
(cd "$mc/fs" && "$INDUS" list >/dev/null)
"$INDUS" --cwd "$mc/fs" fs__read_text_file path="$mc/fs/small.txt" | grep -q "line 40" ||
  { echo "fs__read_text_file failed" >&2; exit 1; }
# The peer's JSON argument, kept out of hyperfine's word splitting in a script.
printf '#!/bin/sh\nexec "%s" "%s" "%s" read_text_file '"'"'{"path": "%s"}'"'"' "%s"\n' \
  "$mc/venv/bin/python" "$mc/client_once.py" "$fsserver" "$mc/fs/small.txt" "$mc/fs" >"$mc/fs_once.sh"
chmod +x "$mc/fs_once.sh"
"$mc/fs_once.sh" || { echo "the Python SDK client failed on the npm server" >&2; exit 1; }
compare "mcp client: cold fs__read_text_file (npm server-filesystem)" \
  "$mc/fs_once.sh" \
  "$INDUS --cwd $mc/fs fs__read_text_file path=$mc/fs/small.txt" 1.0 3 20
"$INDUS" --cwd "$mc/fs" mcp up >&2
measure "mcp client: warm fs__read_text_file through mcp up (p50)" \
  "$INDUS --cwd $mc/fs fs__read_text_file path=$mc/fs/small.txt" 5 5 200
"$INDUS" --cwd "$mc/fs" mcp down >&2

# A configured server that never answers `initialize` (issue 28): `ls` in a folder
# whose config names it, the recorded status removed before every run so that each
# run sees a changed config (the worst case), against `ls` of the same kind of folder
# with no config. Built-in tools must not wait on MCP servers. Bar: ratio <= 1.5.
hang="$WORK/mcp-hang"
mkdir -p "$hang/with/.indusvx" "$hang/without"
for i in $(seq 1 20); do
  echo "file $i" >"$hang/with/f$i.txt"
  echo "file $i" >"$hang/without/f$i.txt"
done
echo '{"mcpServers": {"hang": {"command": "sleep", "args": ["30"], "connectTimeoutMs": 2000}}}' \
  >"$hang/with/.indusvx/mcp.json"
hyperfine -N --warmup 3 --runs 100 --export-json "$WORK/hf-hang.json" \
  --prepare "rm -f $hang/with/.indus-process/mcp/status.json" \
  --command-name peer "$INDUS --cwd $hang/without ls" \
  --command-name ours "$INDUS --cwd $hang/with ls" >/dev/null
python3 - "$WORK/hf-hang.json" >>"$ROWS" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
peer, ours = res[0]["median"], res[1]["median"]
ratio = ours / peer
print(f"mcp client: ls with a server that never answers\tls, no config\t{peer*1000:.2f}\t{ours*1000:.2f}\t{ratio:.2f}\t1.5\t{'ok' if ratio <= 1.5 else 'OVER'}")
PY
# The refresh started last times the server out; let it finish before the folder goes.
sleep 3
