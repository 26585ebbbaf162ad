"""What the routes of one API app share: the context, the token, the writer lock, the
index refresher and the pooled client of the health probes."""

import asyncio
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from fastapi import Request

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.registration import RegistrationError
from homeclaw_cli.catalog.registry import Registry
from homeclaw_cli.document import DocumentError, parse_json_text
from homeclaw_cli.runtime.health import probe_url
from homeclaw_cli.state.health import HealthStatus
from homeclaw_cli.state.serve_token import token_matches
from homeclaw_cli.surfaces.http.models import AuthError, BodyTooLarge, IndexStatus
from homeclaw_cli.surfaces.http.refresher import IndexRefresher

log = logging.getLogger("homeclaw.serve")


@dataclass
class ServeState:
    context: AppContext
    token: str | None  # None: register/unregister need no token (turned off)
    refresher: IndexRefresher
    # One writer thread at a time; the file lock covers other processes.
    write_lock: threading.Lock = field(default_factory=threading.Lock)
    # Health GETs run on the event loop (a slow plugin never ties up a worker thread), all
    # through one pooled client made on first use.
    client: httpx.AsyncClient | None = None

    async def probe(self, url: str) -> tuple[bool, str]:
        """GET a plugin's health URL (runtime/health.py probe_url)."""
        timeout = self.context.settings.serve.health_timeout_sec
        if self.client is None:
            self.client = httpx.AsyncClient(timeout=timeout, trust_env=False)
        return await probe_url(self.client, url, timeout=timeout)

    async def registry(self) -> Registry:
        """The plugins as they are now (registrations come and go while the server runs)."""
        return await asyncio.to_thread(self.context.rescan)

    def require_token(self, request: Request) -> None:
        """AuthError unless the request carries the bearer token (when one is required)."""
        if self.token is None:
            return
        header = request.headers.get("authorization")
        if not header:
            raise AuthError("missing bearer token", 401)
        if not token_matches(self.token, header):
            raise AuthError("wrong bearer token", 403)

    async def read_json(self, request: Request, hint: str | None = None) -> Any:
        """The JSON body, refused past serve.max_body_bytes without reading it all; `hint`
        replaces the registration one in the error of a body that is no JSON."""
        limit = self.context.settings.serve.max_body_bytes
        declared = request.headers.get("content-length")
        too_large = BodyTooLarge(
            f"request body is larger than {limit} bytes",
            hint="a descriptor is a few KiB; raise serve.max_body_bytes if yours is really "
            "that big",
        )
        if declared and declared.isdigit() and int(declared) > limit:
            raise too_large
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise too_large
        return await asyncio.to_thread(parse_body, bytes(body), hint)

    def index_status(self, request: int | None = None) -> IndexStatus:
        """Where the index sync after registration changes stands (GET /api/index)."""
        status = self.refresher.status
        return IndexStatus(
            state=status.state(self.refresher.sync is not None),
            request=request,
            requested=status.requested,
            synced=status.synced,
            error=status.error,
            hint=status.hint,
        )

    async def aclose(self) -> None:
        """Close the probe client."""
        if self.client is not None:
            await self.client.aclose()
            self.client = None


def parse_body(body: bytes, hint: str | None = None) -> Any:
    """A JSON body read with a descriptor file's guards (nesting depth, a key given twice),
    or RegistrationError; `hint` replaces the registration one."""
    try:
        return parse_json_text(Path("request body"), body.decode("utf-8-sig")).data
    except UnicodeDecodeError as exc:
        message = f"the body is not UTF-8 text (invalid byte at offset {exc.start})"
    except DocumentError as exc:
        message = exc.message.replace("invalid JSON", "the body is not valid JSON", 1)
        if exc.line is not None:
            message = f"line {exc.line} column {exc.column}: {message}"
    raise RegistrationError(
        [{"field": "", "message": message}],
        where="request body",
        **({"hint": hint} if hint else {}),
    )


def log_health_change(pid: str, status: HealthStatus, previous: HealthStatus | None) -> None:
    """Log a plugin turning unhealthy or healthy again."""
    if not status.ok:
        log.warning(
            "plugin %s is unhealthy after %d failed checks (%s); it is left out "
            "of retrieval until it answers again",
            pid,
            status.failures,
            status.detail,
        )
    elif previous is not None:
        log.info("plugin %s is healthy again", pid)
