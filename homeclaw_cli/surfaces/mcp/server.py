"""`homeclaw mcp serve`: the Toolbox (app/mcp_toolbox.py) as an MCP server.

Built on the SDK's low-level Server rather than MCPServer: MCPServer derives each tool's schema
from a Python function signature, while homeclaw's tools are data (the same ToolRegistry the
chat uses), so list/call handlers over the Toolbox fit better: tools/list shows the registry's
tools, tools/call is `ToolRegistry.execute`. The Toolbox rescans when the plugin or skill
folders change, so registrations and new plugins show up without a restart.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from homeclaw_cli import __version__
from homeclaw_cli.app.mcp_toolbox import Toolbox
from homeclaw_cli.core.approval import READ_ONLY, Effect

if TYPE_CHECKING:
    from mcp.server import Server

INSTRUCTIONS = (
    "homeclaw's plugins and skills. Call homeclaw_search with the user's request to find the "
    "relevant tools, then call them. Plugin tools are named <plugin>__<capability>; skill "
    "tools skill__<id> return the skill's instructions, or run one of its scripts."
)


def tool_hints(effects: frozenset[Effect]) -> Any:
    """A tool's effects as MCP hints, so the client can ask its user before a change."""
    from mcp import types

    return types.ToolAnnotations(
        read_only_hint=effects <= READ_ONLY,
        destructive_hint="destructive" in effects,
        open_world_hint="network" in effects,
    )


def build_server(toolbox: Toolbox) -> Server[Any]:
    """A low-level MCP server whose tools are the Toolbox's."""
    import anyio
    from mcp import types
    from mcp.server import Server, ServerRequestContext

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = await anyio.to_thread.run_sync(toolbox.list_tools)
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=t.name,
                    description=t.description,
                    input_schema=t.parameters,
                    annotations=tool_hints(t.effects),
                )
                for t in tools
            ]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        outcome = await toolbox.call(params.name, params.arguments or {})
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=outcome.text)],
            structured_content=outcome.data or None,
            is_error=not outcome.ok,
        )

    @contextlib.asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {}
        finally:
            await toolbox.aclose()

    return Server(
        "homeclaw",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        lifespan=lifespan,
    )


async def serve_stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(
    server: Server[Any], host: str, port: int, announce: Any, token: str | None = None
) -> None:
    """Streamable HTTP at http://HOST:PORT/mcp (DNS-rebinding protection on loopback);
    with `token`, every HTTP request needs `Authorization: Bearer <token>`."""
    from homeclaw_cli.adapters.asgi_server import serve_asgi

    app: Any = server.streamable_http_app(streamable_http_path="/mcp", host=host)
    if token is not None:
        app = BearerAuth(app, token)
    await serve_asgi(app, host, port, announce, "MCP server on {url}/mcp (streamable HTTP)")


class BearerAuth:
    """ASGI middleware: HTTP requests without the bearer token get a 401; lifespan passes."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        from homeclaw_cli.state.serve_token import token_matches

        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            header = headers.get(b"authorization", b"").decode("latin-1")
            if not token_matches(self.token, header or None):
                body = b'{"error": "missing or wrong bearer token"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
