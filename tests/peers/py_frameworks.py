"""indus-tool's MCP server through the Python agent frameworks' own tool objects,
as an agent would use them, with no model: each framework starts
`INDUS_TOOL --cwd CWD --no-mcp mcp` itself, lists the tools, and its tool objects
make the calls a model would ask for.

Usage: py_frameworks.py INDUS_TOOL CWD FRAMEWORK
FRAMEWORK: openai-agents | langchain | pydantic-ai (langchain-mcp-adapters needs
mcp<2, so it has a virtualenv of its own: run this with that venv's python).
CWD holds notes.txt ("alpha\nbeta\ngamma\n"), other.txt, which is never read,
and (openai-agents) strict.txt ("x\n").

Prints one JSON object: {"framework", "version", "tools": [names as the
framework names them], "not_strict": [names] (openai-agents), "answers": {"gate":
edit other.txt before any read, "read": notes.txt, "grep": "bet", "edit": beta ->
BETA after the read, "strict_edit": (openai-agents) x -> y in strict.txt, read
first, with every key of edit's strict schema filled, as a strict-mode model must}, "seconds"}. An answer is what
the tool object returned, made JSON (texts as {"type": "text", "text"}); a raised
error is {"raised": "Type: message"}.
"""

import asyncio
import importlib.metadata
import json
import sys
import time

READ = {"path": "notes.txt"}
GREP = {"pattern": "bet"}
EDIT = {"path": "notes.txt", "oldText": "beta", "newText": "BETA"}
GATE = {"path": "other.txt", "oldText": "one", "newText": "two"}


def plain(value):
    """A tool object's answer as JSON: pydantic models dumped, texts kept."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


async def answer(call):
    try:
        return plain(await call)
    except Exception as e:  # the framework's own refusal, kept for the report
        return {"raised": f"{type(e).__name__}: {e}"}


async def openai_agents(binary, cwd):
    from agents import Agent
    from agents.mcp import MCPServerStdio
    from agents.run_context import RunContextWrapper
    from agents.tool_context import ToolContext

    server = MCPServerStdio(
        params={"command": binary, "args": ["--cwd", cwd, "--no-mcp", "mcp"]},
        client_session_timeout_seconds=30,
    )
    async with server:
        # What an Agent with strict schemas hands the model (tests/peers/strict_schemas.py).
        agent = Agent(
            name="probe", mcp_servers=[server], mcp_config={"convert_schemas_to_strict": True}
        )
        tools = await agent.get_mcp_tools(RunContextWrapper(context=None))
        by_name = {t.name: t for t in tools}

        def call(name, args, n=[0]):
            # What the runner does with a model's function call: the arguments as JSON text.
            n[0] += 1
            text = json.dumps(args)
            ctx = ToolContext(
                context=None, tool_name=name, tool_call_id=f"call_{n[0]}", tool_arguments=text
            )
            return by_name[name].on_invoke_tool(ctx, text)

        answers = {"gate": await answer(call("edit", GATE))}
        answers["read"] = await answer(call("read", READ))
        answers["grep"] = await answer(call("grep", GREP))
        # A strict-mode model must give every key its strict schema lists (all are
        # required there, none nullable), so it fills the ones it does not mean.
        answers["edit"] = await answer(call("edit", EDIT))
        strict = {"path": "strict.txt", "oldText": "x", "newText": "y",
                  "replaceAll": False, "edits": [], "expectSha256": "", "diagnose": False,
                  "encoding": "", "cell": "", "cellAction": "replace", "cellType": "code"}
        assert set(strict) == set(by_name["edit"].params_json_schema["required"])
        await answer(call("read", {"path": "strict.txt", "offset": 1, "limit": 500}))
        answers["strict_edit"] = await answer(call("edit", strict))
    return {
        "version": importlib.metadata.version("openai-agents"),
        "tools": [t.name for t in tools],
        "not_strict": sorted(t.name for t in tools if not t.strict_json_schema),
        "answers": answers,
    }


async def langchain(binary, cwd):
    from langchain_mcp_adapters.client import MultiServerMCPClient

    client = MultiServerMCPClient(
        {"indus": {"transport": "stdio", "command": binary, "args": ["--cwd", cwd, "--no-mcp", "mcp"]}}
    )
    # The client's default: each call opens a session (a server process) of its own;
    # the read-before-edit gate's state is kept per project and session name.
    tools = await client.get_tools()
    by_name = {t.name: t for t in tools}
    answers = {"gate": await answer(by_name["edit"].ainvoke(GATE))}
    answers["read"] = await answer(by_name["read"].ainvoke(READ))
    answers["grep"] = await answer(by_name["grep"].ainvoke(GREP))
    answers["edit"] = await answer(by_name["edit"].ainvoke(EDIT))
    # The ToolMessage an agent's tool node makes of a model's call, read through one session.
    from langchain_mcp_adapters.tools import load_mcp_tools

    async with client.session("indus") as session:
        one = {t.name: t for t in await load_mcp_tools(session)}
        message = await one["read"].ainvoke(
            {"type": "tool_call", "id": "call_1", "name": "read", "args": READ}
        )
        answers["tool_message"] = {"type": message.type, "content": plain(message.content),
                                   "status": message.status}
    return {
        "version": importlib.metadata.version("langchain-mcp-adapters"),
        "tools": [t.name for t in tools],
        "answers": answers,
    }


async def pydantic_ai(binary, cwd):
    from fastmcp.client.transports import StdioTransport
    from pydantic_ai import RunContext
    from pydantic_ai.mcp import MCPToolset
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RunUsage

    toolset = MCPToolset(StdioTransport(binary, ["--cwd", cwd, "--no-mcp", "mcp"]))
    async with toolset:
        # What an agent run gives a toolset; TestModel stands in for the model, never asked.
        ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())
        tools = await toolset.get_tools(ctx)

        def call(name, args):
            return toolset.call_tool(name, args, ctx, tools[name])

        answers = {"gate": await answer(call("edit", GATE))}
        answers["read"] = await answer(call("read", READ))
        answers["grep"] = await answer(call("grep", GREP))
        answers["edit"] = await answer(call("edit", EDIT))
    return {
        "version": importlib.metadata.version("pydantic-ai-slim"),
        "tools": list(tools),
        "answers": answers,
    }


FRAMEWORKS = {"openai-agents": openai_agents, "langchain": langchain, "pydantic-ai": pydantic_ai}


async def main():
    binary, cwd, framework = sys.argv[1:]
    start = time.monotonic()
    result = await FRAMEWORKS[framework](binary, cwd)
    result["framework"] = framework
    result["seconds"] = round(time.monotonic() - start, 2)
    print(json.dumps(result))


asyncio.run(main())
