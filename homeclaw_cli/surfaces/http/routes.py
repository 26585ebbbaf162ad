"""The routes of the registration API (seed 001 §3); each reads the app's ServeState."""

import asyncio
import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request

from homeclaw_cli import __version__
from homeclaw_cli.app.plugin_listing import plugin_rows
from homeclaw_cli.app.registration import (
    RegistrationError,
    check_url,
    commit_registration,
    prepare_registration,
    unreachable,
    unregister_plugin,
)
from homeclaw_cli.catalog.registry import describe_entry
from homeclaw_cli.core.capability_tools import plugin_tools
from homeclaw_cli.errors import UsageError
from homeclaw_cli.surfaces.http.models import (
    ErrorResponse,
    HealthResponse,
    IndexStatus,
    RegisterResponse,
    UnregisterResponse,
)
from homeclaw_cli.surfaces.http.serve_state import ServeState, log_health_change

log = logging.getLogger("homeclaw.serve")
router = APIRouter()


def _serve_state(request: Request) -> ServeState:
    state: ServeState = request.app.state.serve
    return state


Serve = Annotated[ServeState, Depends(_serve_state)]


def _json_body(schema: str) -> dict[str, Any]:
    ref = {"$ref": f"#/components/schemas/{schema}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": ref}}}}


@router.post(
    "/api/plugins/register",
    response_model=RegisterResponse,
    responses={code: {"model": ErrorResponse} for code in (401, 403, 409, 413, 422, 502)},
    openapi_extra=_json_body("ExternalPluginRegistration"),
)
async def register(request: Request, serve: Serve, replace: bool = False) -> RegisterResponse:
    """Register an external plugin; re-sending the same descriptor is a no-op."""
    serve.require_token(request)
    payload = await serve.read_json(request)
    context = serve.context
    manifest = await asyncio.to_thread(
        prepare_registration,
        context.settings,
        payload,
        where="registration",
        remote=True,
        replace=replace,
    )
    url = check_url(context.settings, manifest, None)
    checked: str | None = None
    if url:
        ok, checked = await serve.probe(url)
        if not ok:
            raise unreachable(manifest, checked)
    before = context.health.get(manifest.id)
    result = await asyncio.to_thread(
        commit_registration,
        context,
        manifest,
        replace=replace,
        checked=checked,
        serialize=serve.write_lock,
    )
    if result.health is not None and before is not None and before.ok != result.health.ok:
        log_health_change(result.plugin_id, result.health, before)
    response = RegisterResponse(**result.to_json())
    number = None
    if response.change != "unchanged":
        log.info("registered %s (%s)", response.plugin_id, response.change)
        number = serve.refresher.request()
    response.index = serve.index_status(number)
    for warning in response.warnings:
        log.warning("%s", warning)
    return response


@router.post(
    "/api/plugins/unregister",
    response_model=UnregisterResponse,
    responses={401: {"model": ErrorResponse}, 404: {"model": ErrorResponse}},
    openapi_extra=_json_body("UnregisterBody"),
)
async def unregister(request: Request, serve: Serve) -> UnregisterResponse:
    """Remove an external registration."""
    serve.require_token(request)
    hint = 'the body is {"plugin_id": "<id>"}'
    payload = await serve.read_json(request, hint)
    plugin_id = payload.get("plugin_id") if isinstance(payload, dict) else None
    if not isinstance(plugin_id, str):
        message = (
            "missing required field `plugin_id`"
            if plugin_id is None
            else f"`plugin_id` must be a string, got {type(plugin_id).__name__}"
        )
        raise RegistrationError(
            [{"field": "plugin_id", "message": message}], where="unregister request", hint=hint
        )
    await asyncio.to_thread(unregister_plugin, serve.context, plugin_id, serialize=serve.write_lock)
    log.info("unregistered %s", plugin_id)
    index = serve.index_status(serve.refresher.request())
    return UnregisterResponse(plugin_id=plugin_id, unregistered=True, index=index)


@router.get("/api/index", response_model=IndexStatus)
async def index_status(serve: Serve) -> IndexStatus:
    """The index sync after registration changes (serve.sync_on_register): `synced` is the
    last request number in the index; `error` says why the last sync failed."""
    return serve.index_status()


@router.get("/api/plugins", summary="List plugins with their source and health")
async def list_plugins(serve: Serve) -> list[dict[str, Any]]:
    await serve.registry()
    return await asyncio.to_thread(plugin_rows, serve.context)


@router.get(
    "/api/plugins/health/{plugin_id}",
    response_model=HealthResponse,
    responses={404: {"model": ErrorResponse}, 422: {"model": ErrorResponse}},
)
async def plugin_health(plugin_id: str, serve: Serve) -> HealthResponse:
    """Call the plugin's health_check_url now and return the result."""
    entry = (await serve.registry()).get(plugin_id)
    url = entry.manifest.health_check_url
    if not url:
        raise UsageError(
            f"plugin {plugin_id!r} declares no health_check_url",
            hint="only plugins with a health_check_url can be checked",
        )
    ok, detail = await serve.probe(url)
    store = serve.context.health
    before = store.get(plugin_id)
    status = await asyncio.to_thread(
        store.record,
        plugin_id,
        ok,
        detail,
        unhealthy_after=serve.context.settings.serve.unhealthy_after,
    )
    if before is None or before.ok != status.ok:
        log_health_change(plugin_id, status, before)
    return HealthResponse(plugin_id=plugin_id, ok=ok, detail=detail, status=status.to_json())


@router.get("/api/plugins/{plugin_id}", responses={404: {"model": ErrorResponse}})
async def show_plugin(plugin_id: str, serve: Serve) -> dict[str, Any]:
    entry = (await serve.registry()).get(plugin_id)
    data = describe_entry(entry)
    data["tools"] = plugin_tools(entry.manifest)
    status = serve.context.health.get(plugin_id)
    data["health"] = status.to_json() if status else None
    return data


@router.get("/api/health", summary="homeclaw serve itself is up")
async def server_health() -> dict[str, Any]:
    return {"ok": True, "version": __version__}
