"""Run the registration API under uvicorn and announce the bound address once listening."""

from __future__ import annotations

import contextlib
import logging
import socket
import sys
from typing import TYPE_CHECKING, Protocol

from homeclaw_cli.settings import Settings

if TYPE_CHECKING:
    import uvicorn


class _Announcer(Protocol):
    def info(self, message: str) -> None: ...


def run_server(settings: Settings, token: str | None, out: _Announcer) -> None:
    """Serve until interrupted. Prints `serving on http://HOST:PORT` once the socket is bound."""
    import uvicorn

    from homeclaw_cli.api.app import create_app
    from homeclaw_cli.services.registration import index_sync_function

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    serve_log = logging.getLogger("homeclaw.serve")
    serve_log.addHandler(handler)
    serve_log.setLevel(logging.INFO)

    app = create_app(settings, token=token, index_sync=index_sync_function())
    config = uvicorn.Config(
        app,
        host=settings.serve.host,
        port=settings.serve.port,
        log_level="warning",
        access_log=False,
        lifespan="on",
    )
    # uvicorn shuts down gracefully, then re-raises Ctrl-C: the normal way to stop a server.
    with contextlib.suppress(KeyboardInterrupt):
        _announcing_server(config, out).run()
    out.info("stopped")


def _bound_port(server: uvicorn.Server) -> int | None:
    for srv in getattr(server, "servers", []):
        for sock in srv.sockets:
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                return int(sock.getsockname()[1])
    return None


def _announcing_server(config: uvicorn.Config, out: _Announcer) -> uvicorn.Server:
    import uvicorn

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                port = _bound_port(self) or self.config.port
                host = self.config.host
                shown = f"[{host}]" if ":" in host else host
                out.info(f"serving on http://{shown}:{port} (OpenAPI: /docs, Ctrl-C stops)")

    return AnnouncingServer(config)
