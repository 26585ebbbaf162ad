"""`homeclaw serve`: the registration API under uvicorn, with its log on stderr."""

from __future__ import annotations

import logging
import sys

from homeclaw_cli.adapters.asgi_server import Announce, run_asgi
from homeclaw_cli.settings import Settings


def run_server(settings: Settings, token: str | None, announce: Announce) -> None:
    """`homeclaw serve`: the registration API with health checks and index sync."""
    from homeclaw_cli.app.registration import index_sync_function
    from homeclaw_cli.surfaces.http.app import create_app

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    serve_log = logging.getLogger("homeclaw.serve")
    serve_log.addHandler(handler)
    serve_log.setLevel(logging.INFO)

    index_sync = index_sync_function() if settings.serve.sync_on_register else None
    app = create_app(settings, token=token, index_sync=index_sync)
    run_asgi(
        app,
        settings.serve.host,
        settings.serve.port,
        announce,
        "serving on {url} (OpenAPI: /docs, Ctrl-C stops)",
    )
