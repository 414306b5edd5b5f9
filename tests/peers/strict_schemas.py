"""Every tool indus-tool's MCP server lists, through the official openai-agents
package's MCP loader with strict schemas on (what an Agent with
`mcp_config={"convert_schemas_to_strict": True}` does), and against Anthropic's and
Gemini's function-declaration rules.

Usage: strict_schemas.py INDUS_TOOL CWD PROFILE[:checkpoint]...
Prints one JSON object: {profile: {"tools": N, "not_strict": [names],
"anthropic": [problems], "gemini": [problems]}}.
"""

import asyncio
import json
import sys

from agents import Agent
from agents.mcp import MCPServerStdio, MCPUtil
from agents.run_context import RunContextWrapper

# The JSON Schema keywords Gemini's classic `parameters` (an OpenAPI 3.0 Schema
# object) takes; `additionalProperties` is taken by `parametersJsonSchema` only, and
# only the explicit empty object of a tool without input carries it.
GEMINI_KEYS = {
    "type", "format", "description", "nullable", "enum", "items", "properties",
    "required", "minItems", "maxItems", "minimum", "maximum", "default",
}
GEMINI_TYPES = {"string", "number", "integer", "boolean", "array", "object"}


def gemini_problems(name, schema, path="$"):
    out = []
    if not isinstance(schema, dict):
        return [f"{name} {path}: not an object"]
    for key, value in schema.items():
        if key == "additionalProperties":
            if not (value is False and schema.get("properties") == {}):
                out.append(f"{name} {path}: additionalProperties {value!r}")
        elif key not in GEMINI_KEYS:
            out.append(f"{name} {path}: keyword {key}")
    kind = schema.get("type")
    if not isinstance(kind, str) or kind not in GEMINI_TYPES:
        out.append(f"{name} {path}: type {schema.get('type')!r}")
    for prop, sub in (schema.get("properties") or {}).items():
        out += gemini_problems(name, sub, f"{path}.{prop}")
    if "items" in schema:
        out += gemini_problems(name, schema["items"], f"{path}[]")
    return out


async def profile(binary, cwd, name):
    # PROFILE:checkpoint serves the profile with --checkpoint (its checkpoint tools).
    profile_name, _, extra = name.partition(":")
    flags = ["--checkpoint"] if extra == "checkpoint" else []
    server = MCPServerStdio(
        params={"command": binary, "args": ["--cwd", cwd, "--no-mcp", *flags, "--profile", profile_name, "mcp"]},
        client_session_timeout_seconds=30,
        cache_tools_list=False,
    )
    async with server:
        agent = Agent(name="probe", mcp_servers=[server])
        context = RunContextWrapper(context=None)
        tools = await MCPUtil.get_function_tools(server, True, context, agent)
        listed = await server.list_tools()
    schemas = {t.name: t.input_schema for t in listed}
    anthropic = [
        f"{n}: root type {s.get('type')!r}" for n, s in schemas.items() if s.get("type") != "object"
    ]
    gemini = [p for n, s in schemas.items() for p in gemini_problems(n, s)]
    return {
        "tools": len(tools),
        "not_strict": sorted(t.name for t in tools if not t.strict_json_schema),
        "anthropic": anthropic,
        "gemini": gemini,
    }


async def main():
    binary, cwd, *profiles = sys.argv[1:]
    result = {p: await profile(binary, cwd, p) for p in profiles}
    print(json.dumps(result))


asyncio.run(main())
