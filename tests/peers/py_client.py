"""The official Python SDK's client (pip `mcp`), the reference of
tests/it/mcp_python.rs: start a stdio server (argv[1:] is its command), list its
tools, make the calls given as JSON on stdin (`[[name, arguments], ...]`) with a
progress callback each, and print one JSON document: what the SDK received —
the tools, every result, the progress and log notices — as the SDK's models
dumped to JSON (by alias, nothing unset)."""

import asyncio
import json
import sys
import warnings

warnings.simplefilter("ignore")

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main():
    calls = json.load(sys.stdin)
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    logs = []

    async def on_log(params):
        logs.append(dump(params))

    out = {"tools": [], "results": [], "progress": [], "logs": logs}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, logging_callback=on_log) as session:
            await session.initialize()
            out["tools"] = [dump(t) for t in (await session.list_tools()).tools]
            for name, arguments in calls:
                seen = []

                async def on_progress(progress, total, message, seen=seen):
                    seen.append({"progress": progress, "total": total, "message": message})

                result = await session.call_tool(name, arguments, progress_callback=on_progress)
                out["results"].append(dump(result))
                out["progress"].append(seen)
    json.dump(out, sys.stdout)


asyncio.run(main())
