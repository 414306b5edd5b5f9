// indus-tool's MCP server through the JavaScript agent frameworks' own tool
// objects, as an agent would use them, with no model: each framework starts
// `INDUS_TOOL --cwd CWD --no-mcp mcp` itself, lists the tools, and its tool
// objects make the calls a model would ask for.
//
// Usage: node js_frameworks.mjs INDUS_TOOL CWD FRAMEWORK
// FRAMEWORK: openai-agents-js (@openai/agents) | ai-sdk (@ai-sdk/mcp). The
// packages resolve from a node_modules beside this file (the test copies it into
// a folder whose node_modules links to the peers' one).
// CWD holds notes.txt ("alpha\nbeta\ngamma\n") and other.txt, which is never read.
//
// Prints one JSON object: {"framework", "version", "tools": [names as the
// framework names them], "not_strict": [names] (openai-agents-js), "answers":
// {"gate": edit other.txt before any read, "read": notes.txt, "grep": "bet",
// "edit": beta -> BETA after the read, "renamed": (openai-agents-js) bg-process's
// list through the name the SDK gives it}, "seconds"}. An answer is what the tool
// object returned; a thrown error is {"raised": "Name: message"}.

import { readFileSync } from 'node:fs';

const [binary, cwd, framework] = process.argv.slice(2);
const args = ['--cwd', cwd, '--no-mcp', 'mcp'];
const version = (name) =>
  JSON.parse(readFileSync(new URL(`node_modules/${name}/package.json`, import.meta.url))).version;

const READ = { path: 'notes.txt' };
const GREP = { pattern: 'bet' };
const EDIT = { path: 'notes.txt', oldText: 'beta', newText: 'BETA' };
const GATE = { path: 'other.txt', oldText: 'one', newText: 'two' };

async function answer(call) {
  try {
    return await call;
  } catch (e) {
    return { raised: `${e?.name}: ${e?.message}` };
  }
}

async function openaiAgents() {
  const { Agent, MCPServerStdio, RunContext, getAllMcpTools } = await import('@openai/agents');
  const server = new MCPServerStdio({ command: binary, args, clientSessionTimeoutSeconds: 30 });
  await server.connect();
  try {
    const agent = new Agent({ name: 'probe', mcpServers: [server] });
    const context = new RunContext();
    // What a run with strict schemas hands the model.
    const tools = await getAllMcpTools({ mcpServers: [server], convertSchemasToStrict: true, runContext: context, agent });
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    // A strict-mode model gives every key of the strict schema: the ones it does
    // not mean as null, which the strict schema allows for each optional key.
    const unfillable = [];
    const call = (name, given) => {
      const tool = byName[name];
      const input = { ...given };
      for (const key of tool.parameters.required ?? []) {
        if (key in input) continue;
        const p = tool.parameters.properties[key];
        if ((p.anyOf ?? []).some((s) => s.type === 'null') || [].concat(p.type).includes('null')) {
          input[key] = null;
        } else {
          unfillable.push(`${name}.${key}`);
        }
      }
      return answer(tool.invoke(context, JSON.stringify(input)));
    };
    const answers = { gate: await call('edit', GATE) };
    answers.read = await call('read', READ);
    answers.grep = await call('grep', GREP);
    answers.edit = await call('edit', EDIT);
    // The SDK renames bg-process and saas-action (bg_process, saas_action); a call
    // under the new name reaches the tool under its own.
    answers.renamed = await call('bg_process', { action: 'list' });
    return {
      version: version('@openai/agents'),
      tools: tools.map((t) => t.name),
      not_strict: tools.filter((t) => !t.strict).map((t) => t.name).sort(),
      unfillable,
      answers,
    };
  } finally {
    await server.close();
  }
}

async function aiSdk() {
  const { createMCPClient } = await import('@ai-sdk/mcp');
  const { Experimental_StdioMCPTransport } = await import('@ai-sdk/mcp/mcp-stdio');
  const client = await createMCPClient({
    transport: new Experimental_StdioMCPTransport({ command: binary, args }),
  });
  try {
    const tools = await client.tools();
    let n = 0;
    // What generateText does with a model's tool call: execute(input, options).
    const call = (name, input) =>
      answer(tools[name].execute(input, { toolCallId: `call_${++n}`, messages: [] }));
    const answers = { gate: await call('edit', GATE) };
    answers.read = await call('read', READ);
    answers.grep = await call('grep', GREP);
    answers.edit = await call('edit', EDIT);
    return { version: version('@ai-sdk/mcp'), tools: Object.keys(tools), answers };
  } finally {
    await client.close();
  }
}

const FRAMEWORKS = { 'openai-agents-js': openaiAgents, 'ai-sdk': aiSdk };
const start = performance.now();
const result = await FRAMEWORKS[framework]();
result.framework = framework;
result.seconds = Math.round(performance.now() - start) / 1000;
console.log(JSON.stringify(result));
