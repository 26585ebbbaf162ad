"""The registration API of `homeclaw serve` (seed 001 §3) as a FastAPI app.

FastAPI because its OpenAPI document and its response models come from the same pydantic v2
models homeclaw already validates manifests with, and it runs on starlette + uvicorn, which
the mcp SDK already brings in. This module is imported only by `homeclaw serve` and tests:
importing fastapi costs ~0.4 s the rest of the CLI must not pay.

Note: no `from __future__ import annotations` here: FastAPI reads the real annotation objects
of the route functions, which are closures inside create_app.
"""

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from homeclaw_cli import __version__
from homeclaw_cli.app.health_monitor import run_monitor
from homeclaw_cli.app.plugin_listing import plugin_rows
from homeclaw_cli.app.registration import (
    IndexSync,
    RegistrationError,
    check_url,
    commit_registration,
    prepare_registration,
    unreachable,
    unregister_plugin,
)
from homeclaw_cli.catalog.registry import describe_entry, scan
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.core.tools import plugin_tools
from homeclaw_cli.errors import (
    ConflictError,
    HomeclawError,
    LockedError,
    NotFoundError,
    UnavailableError,
    UsageError,
)
from homeclaw_cli.runtime.health import probe_url
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.health import HealthStatus, HealthStore
from homeclaw_cli.state.serve_token import token_matches

log = logging.getLogger("homeclaw.serve")


class AuthError(HomeclawError):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(
            message,
            hint="send `Authorization: Bearer <token>`; the token is in "
            "<state_dir>/serve_token (`homeclaw serve --show-token`)",
        )
        self.status = status


class BodyTooLarge(HomeclawError):
    pass


class RegisterResponse(BaseModel):
    plugin_id: str
    registered: bool
    change: str
    health: dict[str, Any] | None = None
    warnings: list[str] = []


class UnregisterBody(BaseModel):
    plugin_id: str


class UnregisterResponse(BaseModel):
    plugin_id: str
    unregistered: bool


class HealthResponse(BaseModel):
    plugin_id: str
    ok: bool
    detail: str
    status: dict[str, Any]


class ErrorResponse(BaseModel):
    error: str
    hint: str | None = None
    problems: list[dict[str, str]] = []


def _status_code(exc: HomeclawError) -> int:
    if isinstance(exc, AuthError):
        return exc.status
    if isinstance(exc, BodyTooLarge):
        return 413
    if isinstance(exc, ConflictError):
        return 409
    if isinstance(exc, NotFoundError):
        return 404
    if isinstance(exc, RegistrationError | UsageError):
        return 422
    if isinstance(exc, UnavailableError):
        return 502  # the plugin (upstream) did not answer its health check
    if isinstance(exc, LockedError):
        return 503
    return 500


def registration_schema() -> tuple[dict[str, Any], dict[str, Any]]:
    """(body schema, referenced definitions): PluginManifest with `plugin_id` for `id`."""
    schema = PluginManifest.model_json_schema(ref_template="#/components/schemas/{model}")
    defs = schema.pop("$defs", {})
    props = schema["properties"]
    props = {("plugin_id" if k == "id" else k): v for k, v in props.items()}
    schema["properties"] = props
    schema["required"] = ["plugin_id" if r == "id" else r for r in schema.get("required", [])]
    schema["title"] = "ExternalPluginRegistration"
    return schema, defs


class IndexRefresher:
    """Re-syncs the plugin index after registrations, coalescing bursts into one sync.

    The sync runs in a daemon thread: stopping the server never waits for an embedding
    model to load, and an interrupted sync is repaired by the next one (the index
    writes whole rows under its own lock).
    """

    def __init__(self, settings: Settings, sync: IndexSync | None) -> None:
        self.settings = settings
        self.sync = sync
        self.pending = asyncio.Event()

    def request(self) -> None:
        if self.sync is not None:
            self.pending.set()

    async def run(self) -> None:
        if self.sync is None:
            return
        loop = asyncio.get_running_loop()
        while True:
            await self.pending.wait()
            self.pending.clear()
            done: asyncio.Future[object] = loop.create_future()
            threading.Thread(
                target=self._sync_into, args=(loop, done), name="index-sync", daemon=True
            ).start()
            try:
                report = await done
            except Exception as exc:  # the API stays up; the next registration retries
                log.warning("index sync after registration failed: %s", exc)
            else:
                log.info("index synced%s", _summary(report))

    def _sync_into(self, loop: asyncio.AbstractEventLoop, done: asyncio.Future[object]) -> None:
        assert self.sync is not None
        try:
            result = self.sync(self.settings)
        except Exception as exc:
            loop.call_soon_threadsafe(_settle, done, None, exc)
        else:
            loop.call_soon_threadsafe(_settle, done, result, None)


def _settle(done: asyncio.Future[object], result: object, exc: BaseException | None) -> None:
    if done.cancelled():
        return
    if exc is not None:
        done.set_exception(exc)
    else:
        done.set_result(result)


def _summary(report: object) -> str:
    parts = [
        f"{name} {len(items)}"
        for name in ("added", "updated", "removed")
        if isinstance(items := getattr(report, name, None), list) and items
    ]
    return f" ({', '.join(parts)})" if parts else ""


def create_app(  # noqa: PLR0915 - the routes are closures over settings and token
    settings: Settings,
    *,
    token: str | None,
    index_sync: IndexSync | None = None,
    monitor: bool = True,
) -> FastAPI:
    """The API app; `token` None means register/unregister need no token (turned off)."""
    write_lock = threading.Lock()  # one writer thread at a time; the file lock covers processes
    refresher = IndexRefresher(settings, index_sync)
    health_store = HealthStore(settings.state_dir)
    # Health GETs run on the event loop (a slow plugin never ties up a worker thread), all
    # through one pooled client made on first use.
    clients: list[httpx.AsyncClient] = []

    async def probe(url: str) -> tuple[bool, str]:
        if not clients:
            clients.append(
                httpx.AsyncClient(timeout=settings.serve.health_timeout_sec, trust_env=False)
            )
        return await probe_url(clients[0], url, timeout=settings.serve.health_timeout_sec)

    body_schema, body_defs = registration_schema()

    def on_health_change(pid: str, status: HealthStatus, previous: HealthStatus | None) -> None:
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

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(refresher.run())]
        if monitor:
            tasks.append(asyncio.create_task(run_monitor(settings, on_change=on_health_change)))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            for client in clients:
                await client.aclose()

    app = FastAPI(
        title="homeclaw registration API",
        version=__version__,
        description="Register external plugins: POST a plugin descriptor with `plugin_id`. "
        "POST endpoints need "
        "`Authorization: Bearer <token>` unless serve.require_token is false.",
        lifespan=lifespan,
    )

    @app.exception_handler(HomeclawError)
    async def _homeclaw_error(_: Request, exc: HomeclawError) -> JSONResponse:
        problems = exc.problems if isinstance(exc, RegistrationError) else []
        headers = {"WWW-Authenticate": "Bearer"} if isinstance(exc, AuthError) else None
        body = ErrorResponse(error=exc.message, hint=exc.hint, problems=problems)
        return JSONResponse(body.model_dump(), status_code=_status_code(exc), headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        # Query/path parameters FastAPI validates itself: same error shape as everything else.
        problems = [
            {"field": ".".join(str(p) for p in err["loc"][1:]), "message": str(err["msg"])}
            for err in exc.errors()
        ]
        text = "; ".join(f"{p['field']}: {p['message']}" for p in problems)
        body = ErrorResponse(error=f"invalid request: {text}", problems=problems)
        return JSONResponse(body.model_dump(), status_code=422)

    def require_token(request: Request) -> None:
        if token is None:
            return
        header = request.headers.get("authorization")
        if not header:
            raise AuthError("missing bearer token", 401)
        if not token_matches(token, header):
            raise AuthError("wrong bearer token", 403)

    async def read_json(request: Request) -> Any:
        limit = settings.serve.max_body_bytes
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
        try:
            return json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            where = (
                f" at line {exc.lineno} column {exc.colno}"
                if isinstance(exc, json.JSONDecodeError)
                else ""
            )
            raise RegistrationError(
                [{"field": "", "message": f"the body is not valid JSON{where}"}],
                where="request body",
            ) from None

    @app.post(
        "/api/plugins/register",
        response_model=RegisterResponse,
        responses={
            401: {"model": ErrorResponse},
            403: {"model": ErrorResponse},
            409: {"model": ErrorResponse},
            413: {"model": ErrorResponse},
            422: {"model": ErrorResponse},
            502: {"model": ErrorResponse},
        },
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {"$ref": "#/components/schemas/ExternalPluginRegistration"}
                    }
                },
            }
        },
    )
    async def register(request: Request, replace: bool = False) -> RegisterResponse:
        """Register an external plugin; re-sending the same descriptor is a no-op."""
        require_token(request)
        payload = await read_json(request)

        manifest = await asyncio.to_thread(
            prepare_registration, settings, payload, where="registration", remote=True
        )
        url = check_url(settings, manifest, None)
        checked: str | None = None
        if url:
            ok, checked = await probe(url)
            if not ok:
                raise unreachable(manifest, checked)
        before = health_store.get(manifest.id)
        result = await asyncio.to_thread(
            commit_registration,
            settings,
            manifest,
            replace=replace,
            checked=checked,
            serialize=write_lock,
        )
        if result.health is not None and before is not None and before.ok != result.health.ok:
            on_health_change(result.plugin_id, result.health, before)
        response = RegisterResponse(**result.to_json())
        if response.change != "unchanged":
            log.info("registered %s (%s)", response.plugin_id, response.change)
            refresher.request()
        for warning in response.warnings:
            log.warning("%s", warning)
        return response

    @app.post(
        "/api/plugins/unregister",
        response_model=UnregisterResponse,
        responses={401: {"model": ErrorResponse}, 404: {"model": ErrorResponse}},
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/UnregisterBody"}}
                },
            }
        },
    )
    async def unregister(request: Request) -> UnregisterResponse:
        """Remove an external registration."""
        require_token(request)
        payload = await read_json(request)
        if not isinstance(payload, dict) or not isinstance(payload.get("plugin_id"), str):
            raise RegistrationError(
                [{"field": "plugin_id", "message": "missing required field `plugin_id`"}],
                where="unregister request",
            )
        plugin_id = payload["plugin_id"]

        def write() -> None:
            unregister_plugin(settings, plugin_id, serialize=write_lock)

        await asyncio.to_thread(write)
        log.info("unregistered %s", plugin_id)
        refresher.request()
        return UnregisterResponse(plugin_id=plugin_id, unregistered=True)

    @app.get("/api/plugins", summary="List plugins with their source and health")
    async def list_plugins() -> list[dict[str, Any]]:
        return await asyncio.to_thread(plugin_rows, settings)

    @app.get(
        "/api/plugins/health/{plugin_id}",
        response_model=HealthResponse,
        responses={404: {"model": ErrorResponse}, 422: {"model": ErrorResponse}},
    )
    async def plugin_health(plugin_id: str) -> HealthResponse:
        """Call the plugin's health_check_url now and return the result (seed 001 §3.3)."""
        entry = (await asyncio.to_thread(scan, settings)).get(plugin_id)
        url = entry.manifest.health_check_url
        if not url:
            raise UsageError(
                f"plugin {plugin_id!r} declares no health_check_url",
                hint="only plugins with a health_check_url can be checked",
            )
        ok, detail = await probe(url)
        before = health_store.get(plugin_id)
        status = await asyncio.to_thread(
            health_store.record,
            plugin_id,
            ok,
            detail,
            unhealthy_after=settings.serve.unhealthy_after,
        )
        if before is None or before.ok != status.ok:
            on_health_change(plugin_id, status, before)
        return HealthResponse(plugin_id=plugin_id, ok=ok, detail=detail, status=status.to_json())

    @app.get("/api/plugins/{plugin_id}", responses={404: {"model": ErrorResponse}})
    async def show_plugin(plugin_id: str) -> dict[str, Any]:
        entry = (await asyncio.to_thread(scan, settings)).get(plugin_id)
        data = describe_entry(entry)
        data["tools"] = plugin_tools(entry.manifest)
        status = health_store.get(plugin_id)
        data["health"] = status.to_json() if status else None
        return data

    @app.get("/api/health", summary="homeclaw serve itself is up")
    async def server_health() -> dict[str, Any]:
        return {"ok": True, "version": __version__}

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            )
            schemas = document.setdefault("components", {}).setdefault("schemas", {})
            schemas.update(body_defs)
            schemas["ExternalPluginRegistration"] = body_schema
            schemas["UnregisterBody"] = UnregisterBody.model_json_schema()
            app.openapi_schema = document
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app
