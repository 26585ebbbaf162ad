"""`homeclaw serve`: the registration API for external plugins."""

from __future__ import annotations

import ipaddress
from typing import Annotated, Any

import typer

from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

app = typer.Typer()


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (v4 and v6, bracketed or not)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@app.command("serve")
def serve(
    ctx: typer.Context,
    host: Annotated[
        str | None, typer.Option("--host", help="Address to bind (default 127.0.0.1).")
    ] = None,
    port: Annotated[
        int | None,
        typer.Option("--port", min=0, max=65535, help="Port (default 9750; 0 picks a free one)."),
    ] = None,
    no_token: Annotated[
        bool,
        typer.Option("--no-token", help="Let anyone who can reach the port register plugins."),
    ] = False,
    show_token: Annotated[
        bool, typer.Option("--show-token", help="Print the bearer token and exit.")
    ] = False,
) -> None:
    """Serve the plugin registration API (POST /api/plugins/register, OpenAPI at /docs)."""
    from homeclaw_cli.state.serve_token import load_or_create_token, token_path

    flags: dict[str, Any] = {"serve.host": host, "serve.port": port}
    if no_token:
        flags["serve.require_token"] = False
    settings = get_state(ctx).settings(**flags)
    out = Output()
    token, created = load_or_create_token(settings.state_dir)
    if show_token:
        out.text(token)
        return
    if created:
        out.info(f"created the API token in {token_path(settings.state_dir)} (mode 0600)")
    if not settings.serve.require_token:
        out.warning(
            "the bearer token is turned off: anyone who can reach the port can register plugins"
        )
    if not is_loopback(settings.serve.host):
        out.warning(
            f"binding to {settings.serve.host}, not loopback: other machines can reach this API"
            + ("" if settings.serve.require_token else " and register plugins without a token")
        )
    from homeclaw_cli.surfaces.http.serve_runner import run_server

    run_server(settings, token if settings.serve.require_token else None, out.info)
