"""What an editor and a type checker see of the typed methods: tests/it/python_package.rs
runs mypy on this file against the installed package. Each `type: ignore[code]` marks
a mistake the types must catch (mypy's --warn-unused-ignores fails the run if one is
not caught), as the TypeScript example's @ts-expect-error lines do."""

import asyncio

from indus_tool import AsyncToolbox, Toolbox, ToolError
from indus_tool._tools import GrepOutput, ReadOutput


def use(tb: Toolbox) -> int:
    found: GrepOutput = tb.grep(pattern="TODO", path="src", outputMode="files")
    first = found["rows"][0]
    line: int = first.get("line", 0)
    text: ReadOutput = tb.read(path="README.md", offset=1, limit=10)
    sha: str = text["sha256"] or ""  # null over edit's 128 MiB
    later: int | None = text["nextOffset"]
    edited = tb.edit(path="a.txt", edits=[{"oldText": "a", "newText": "b"}])
    count: int = edited["replacements"]
    job = tb.bg_process(action="start", command="make")
    status: str = job["status"]
    tb.grep(pattern="x", outputMode="lines")  # type: ignore[arg-type]
    tb.grep(path="src")  # type: ignore[call-arg]
    tb.read(path="a", flags="i")  # type: ignore[call-arg]
    found["nope"]  # type: ignore[typeddict-item]
    try:
        tb.bash(command="false")
    except ToolError as e:
        print(e.outcome["is_error"], e.output)
    outcome = tb.call("read", {"path": "a.txt"})
    ok: bool = outcome["is_error"]
    return line + count + len(sha) + len(status) + (later or 0) + int(ok)


async def use_async(tb: AsyncToolbox) -> str:
    found = await tb.grep(pattern="x")
    await tb.read(path=3)  # type: ignore[arg-type]
    return found["rows"][0]["path"]


if __name__ == "__main__":
    asyncio.run(use_async(AsyncToolbox()))
