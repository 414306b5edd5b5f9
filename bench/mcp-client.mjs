// The MCP round-trip bench's client (bench/mcp.sh): one client, the official MCP
// TypeScript SDK, driving two stdio servers started once each. After a warmup it
// alternates `tools/call`s between them (peer, ours, peer, ours, ...) so drift on
// the machine hits both alike, checks every answer, and prints the two medians in
// milliseconds: "PEER_MS OURS_MS".
//
// Usage: node mcp-client.mjs N WARMUP EXPECT PEER_SPEC OURS_SPEC
//   *_SPEC: JSON {"command": "...", "args": [...], "tool": "...", "arguments": {...}}
//   EXPECT: a string every answer's text must contain.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [n, warmup, expect, peerSpec, oursSpec] = process.argv.slice(2);
const runs = Number(n);

async function start(spec) {
  const client = new Client({ name: "indus-bench", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: spec.command, args: spec.args, stderr: "inherit" }),
  );
  return { client, spec };
}

async function once({ client, spec }) {
  const t0 = process.hrtime.bigint();
  const result = await client.callTool({ name: spec.tool, arguments: spec.arguments });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const text = (result.content ?? []).map((c) => c.text ?? "").join("\n");
  if (result.isError || !text.includes(expect)) {
    throw new Error(`${spec.command} ${spec.tool}: unexpected answer: ${JSON.stringify(result)}`);
  }
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const peer = await start(JSON.parse(peerSpec));
const ours = await start(JSON.parse(oursSpec));
for (let i = 0; i < Number(warmup); i++) {
  await once(peer);
  await once(ours);
}
const times = { peer: [], ours: [] };
for (let i = 0; i < runs; i++) {
  times.peer.push(await once(peer));
  times.ours.push(await once(ours));
}
await peer.client.close();
await ours.client.close();
console.log(`${median(times.peer).toFixed(3)} ${median(times.ours).toFixed(3)}`);
