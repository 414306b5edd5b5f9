"""An MCP server written with the official Python SDK (pip `mcp`), the peer of
tests/it/mcp_python.rs: structured output from a model, nested models (their
inputSchema has `$defs` and `$ref`), an image between two texts, a 20 MiB text,
and a call that reports progress and logs while it runs."""

import asyncio
import base64
import warnings

warnings.simplefilter("ignore")

from pydantic import BaseModel, Field

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import ToolAnnotations

server = MCPServer("py-peer")

# A 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


class Item(BaseModel):
    sku: str = Field(description="The stock keeping unit")
    qty: int = Field(ge=1)


class Address(BaseModel):
    city: str
    zip: str | None = None


class Order(BaseModel):
    customer: str
    items: list[Item]
    ship_to: Address | None = None


class Total(BaseModel):
    customer: str
    lines: int
    units: int


@server.tool(title="Total an order", annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
def total(order: Order) -> Total:
    """Count the lines and units of an order."""
    return Total(customer=order.customer, lines=len(order.items), units=sum(i.qty for i in order.items))


@server.tool()
def picture() -> list:
    """A caption, a picture, a second caption."""
    return ["before the picture", Image(data=PNG, format="png"), "after the picture"]


@server.tool()
def big(mib: int = 20) -> str:
    """A text of MIB mebibytes, in lines of 64 bytes."""
    line = "0123456789abcdef" * 4
    lines = (mib * 1024 * 1024) // 65
    return "\n".join(f"{n:08d}" + line[8:] for n in range(lines))


@server.tool()
async def slow(steps: int, ctx: Context, delay: float = 0) -> str:
    """Report progress STEPS times, logging each step, DELAY seconds apart."""
    for i in range(1, steps + 1):
        if delay:
            await asyncio.sleep(delay)
        await ctx.info(f"step {i} of {steps}")
        await ctx.report_progress(i, steps, f"step {i}")
    return f"did {steps} steps"


if __name__ == "__main__":
    server.run()
