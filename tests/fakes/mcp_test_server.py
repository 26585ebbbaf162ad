"""A small MCP server over stdio for runner tests: echo, pid, detach, die mid-call, hang.

python tests/fakes/mcp_test_server.py
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.types import Image
from mcp.types import EmbeddedResource, TextResourceContents, ToolAnnotations

server = MCPServer("homeclaw-test")


@server.tool()
def handle_request(request: dict[str, Any]) -> str:
    """homeclaw's designated tool: receives the whole PluginRequest."""
    cap, text, params = request["capability_id"], request["user_input"], request["parameters"]
    return f"handled {cap} for {text!r} with {params}"


@server.tool()
def pid() -> int:
    """The server's process id (to check that a session is reused)."""
    return os.getpid()


@server.tool()
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


@server.tool()
def detach() -> int:
    """Start a daemon (double fork, a session of its own) and return its pid."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.write(write, str(os.getpid()).encode())
            os.close(write)
            time.sleep(60)
        os._exit(0)
    os.close(write)
    os.wait()
    with os.fdopen(read) as pipe:
        return int(pipe.read())


@server.tool()
def die() -> str:
    """Exit in the middle of the call."""
    sys.stderr.write("fatal: out of cheese\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool()
async def hang() -> str:
    """Never answer."""
    await asyncio.Event().wait()
    return "unreachable"


@server.tool()
def snapshot() -> list[Any]:
    """No text part: an image and an embedded text resource."""
    body = TextResourceContents(uri="file:///notes.txt", text="resource body")
    image = Image(data=b"\x89PNG0000", format="png").to_image_content()
    return [image, EmbeddedResource(type="resource", resource=body)]


@server.tool(name="getTime")
def get_time() -> str:
    """A camelCase tool name, for mcp-import."""
    return "noon"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def lookup(
    city: str,
    unit: Literal["celsius", "fahrenheit"] = "celsius",
    days: int = 1,
    note: str | None = None,
) -> str:
    """Read-only, with an enum, an integer and an optional parameter (mcp-import)."""
    return f"{city} {unit} {days} {note}"


@server.tool(annotations=ToolAnnotations(destructive_hint=True))
def purge(ids: list[int], filters: dict[str, str]) -> str:
    """Destructive, with array and object parameters (mcp-import)."""
    return f"purged {len(ids)} matching {filters}"


if __name__ == "__main__":
    if len(sys.argv) == 3:
        transport, port = sys.argv[1], int(sys.argv[2])
        server.run(transport, host="127.0.0.1", port=port)  # type: ignore[call-overload]
    else:
        server.run()
