"""Run an ASGI app under uvicorn: bind first (clear error), announce the address, stop on Ctrl-C.

Used by `homeclaw serve` (registration API) and `homeclaw mcp serve -t http`.
"""

from __future__ import annotations

import contextlib
import errno
import socket
from collections.abc import Callable
from typing import Any

from homeclaw_cli.errors import UnavailableError

Announce = Callable[[str], None]


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening-ready socket on host:port, or UnavailableError saying why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise UnavailableError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}", hint=_bind_hint(exc)
        ) from None
    return sock


def _bind_hint(exc: OSError) -> str:
    if isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL:
        return "--host must be an address of this machine (127.0.0.1, or 0.0.0.0 for all)"
    if exc.errno == errno.EACCES:
        return "ports below 1024 need privileges: pick another --port (0 = any free port)"
    return "is another homeclaw serve running? pick another --port (0 = any free port)"


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def run_asgi(app: Any, host: str, port: int, announce: Announce, banner: str) -> None:
    """Serve `app` until Ctrl-C; `banner` gets `{url}` once the socket is listening."""
    sock = bind_socket(host, port)
    with contextlib.closing(sock):
        server = _announcing_server(app, host, lambda: announce(banner.format(url=url_of(sock))))
        # uvicorn shuts down gracefully, then re-raises Ctrl-C: the normal way to stop it.
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=[sock])
    announce("stopped")


async def serve_asgi(app: Any, host: str, port: int, announce: Announce, banner: str) -> None:
    """run_asgi inside a running event loop."""
    sock = bind_socket(host, port)
    with contextlib.closing(sock):
        server = _announcing_server(app, host, lambda: announce(banner.format(url=url_of(sock))))
        await server.serve(sockets=[sock])


def _announcing_server(app: Any, host: str, on_started: Callable[[], None]) -> Any:
    import uvicorn

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                on_started()

    config = uvicorn.Config(app, host=host, log_level="warning", access_log=False, lifespan="on")
    return AnnouncingServer(config)
