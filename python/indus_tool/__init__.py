"""indus-tool for Python: the `indus-tool` binary (installed on the environment's
PATH by the wheel) and a client that keeps one toolbox process for many calls.

    from indus_tool import Toolbox

    with Toolbox(cwd="project") as tb:
        found = tb.grep(pattern="TODO", path="src")   # a GrepOutput record
        outcome = tb.call("read", {"path": "README.md"})  # {"id", "output", "is_error"}

`AsyncToolbox` has the same methods for asyncio. docs/agents.md has more.
"""

from ._binary import find_binary
from ._client import AsyncToolbox, Toolbox, ToolboxError, ToolError, ToolOutcome
from ._tools import TOOL_NAMES

__all__ = [
    "AsyncToolbox",
    "TOOL_NAMES",
    "Toolbox",
    "ToolboxError",
    "ToolError",
    "ToolOutcome",
    "find_binary",
]
