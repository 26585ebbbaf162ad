"""`homeclaw mcp ...`: homeclaw as an MCP server for other agents."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from typing import Annotated

import typer

from homeclaw_cli.errors import UsageError
from homeclaw_cli.surfaces.cli import complete
from homeclaw_cli.surfaces.cli.serve import is_loopback
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

app = typer.Typer()


@app.command("serve")
def serve(
    ctx: typer.Context,
    transport: Annotated[
        str,
        typer.Option(
            "--transport",
            "-t",
            help="stdio (default) or http (streamable HTTP).",
            autocompletion=complete.choices("stdio", "http"),
        ),
    ] = "stdio",
    host: Annotated[str, typer.Option("--host", help="Bind address for http.")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port for http (0 = a free one).")
    ] = 9751,
    no_token: Annotated[
        bool,
        typer.Option("--no-token", help="http: let anyone who can reach the port call tools."),
    ] = False,
) -> None:
    """Expose plugin capabilities, skills and a search tool as MCP tools."""
    if transport not in ("stdio", "http"):
        raise UsageError(f"unknown transport {transport!r}", hint="use --transport stdio or http")
    from homeclaw_cli.app.mcp_toolbox import Toolbox
    from homeclaw_cli.surfaces.mcp.server import build_server, serve_http, serve_stdio

    context = get_state(ctx).context()
    settings = context.settings
    server = build_server(Toolbox(context))
    out = Output()
    if transport == "stdio":
        _until_stopped(out, serve_stdio, server)
        return
    from homeclaw_cli.state.serve_token import load_or_create_token, token_path

    token: str | None = None
    if no_token:
        out.warning("the bearer token is turned off: anyone who can reach the port can call tools")
    else:
        token, _ = load_or_create_token(settings.state_dir)
        out.info(f"clients send `Authorization: Bearer <{token_path(settings.state_dir)}>`")
    if not is_loopback(host):
        out.warning(f"binding to {host}, not loopback: other machines can reach your plugins")
    _until_stopped(out, serve_http, server, host, port, out.info, token)


def _until_stopped(out: Output, serve: Callable[..., Awaitable[None]], *args: object) -> None:
    """Serve until the client hangs up or Ctrl-C, as `homeclaw serve` does: a deliberate
    stop is exit 0 with "stopped", not an interruption (130)."""
    import anyio

    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(serve, *args)
    out.info("stopped")
