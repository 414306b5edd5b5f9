// The official TypeScript MCP SDK's client (@modelcontextprotocol/sdk) calling
// indus-tool's `read` over stdio, as a TypeScript agent does: run by
// tests/it/media.rs with node, the SDK resolved from the MCP peers'
// node_modules (NODE_PATH is not used by ESM, so the test copies this file
// beside them).
//
// Usage: node ts_mcp_read.mjs INDUS_TOOL CWD PATH
// Prints the CallToolResult the SDK returned, as JSON. The SDK checks the
// structured content against the tool's output schema as it lists the tools.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [binary, cwd, path] = process.argv.slice(2);
const client = new Client({ name: "indus-media-test", version: "1.0.0" });
await client.connect(
  new StdioClientTransport({ command: binary, args: ["--cwd", cwd, "--no-mcp", "mcp"], stderr: "inherit" }),
);
await client.listTools();
const result = await client.callTool({ name: "read", arguments: { path } });
process.stdout.write(JSON.stringify(result));
await client.close();
