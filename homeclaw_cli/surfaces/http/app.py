"""The registration API of `homeclaw serve` (seed 001 §3) as a FastAPI app.

FastAPI because its OpenAPI document and its response models come from the same pydantic v2
models homeclaw already validates manifests with, and it runs on starlette + uvicorn, which
the mcp SDK already brings in. This module is imported only by `homeclaw serve` and tests:
importing fastapi costs ~0.4 s the rest of the CLI must not pay.

The routes live in routes.py and reach what they share through `app.state.serve` (a
ServeState). No `from __future__ import annotations` in these modules: FastAPI reads the
real annotation objects of the route functions.
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse

from homeclaw_cli import __version__
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.health_monitor import run_monitor
from homeclaw_cli.app.registration import IndexSync, RegistrationError
from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.settings import Settings
from homeclaw_cli.surfaces.http.models import (
    AuthError,
    ErrorResponse,
    UnregisterBody,
    registration_schema,
    status_code,
)
from homeclaw_cli.surfaces.http.refresher import IndexRefresher
from homeclaw_cli.surfaces.http.routes import router
from homeclaw_cli.surfaces.http.serve_state import ServeState, log_health_change


def create_app(
    settings: Settings,
    *,
    token: str | None,
    index_sync: IndexSync | None = None,
    monitor: bool = True,
) -> FastAPI:
    """The API app; `token` None means register/unregister need no token (turned off)."""
    serve = ServeState(AppContext(settings), token, IndexRefresher(settings, index_sync))
    app = FastAPI(
        title="homeclaw registration API",
        version=__version__,
        description="Register external plugins: POST a plugin descriptor with `plugin_id`. "
        "POST endpoints need "
        "`Authorization: Bearer <token>` unless serve.require_token is false.",
        lifespan=_lifespan(serve, monitor),
        docs_url=None,  # served by _add_docs from the bundled Swagger UI, not from a CDN
        redoc_url=None,
    )
    app.state.serve = serve
    app.add_exception_handler(HomeclawError, _homeclaw_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _validation_error)  # type: ignore[arg-type]
    app.include_router(router)
    app.openapi = _openapi(app, bearer=token is not None)  # type: ignore[method-assign]
    _add_docs(app)
    return app


DOCS_STATIC = "/docs/static"


def _add_docs(app: FastAPI) -> None:
    """/docs with the Swagger UI files of the swagger-ui-bundle-v2 package: the page works
    offline (FastAPI's default loads them from a CDN, so /docs was blank without internet)."""
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import HTMLResponse
    from fastapi.staticfiles import StaticFiles

    assets: dict[str, Any] = {}
    try:
        from swagger_ui_bundle import swagger_ui_path
    except ImportError:  # an install older than the dependency: FastAPI's CDN page
        pass
    else:
        app.mount(DOCS_STATIC, StaticFiles(directory=str(swagger_ui_path)), name="swagger-ui")
        assets = {
            "swagger_js_url": f"{DOCS_STATIC}/swagger-ui-bundle.js",
            "swagger_css_url": f"{DOCS_STATIC}/swagger-ui.css",
            "swagger_favicon_url": f"{DOCS_STATIC}/favicon-32x32.png",
        }

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} - docs",
            **assets,
        )


def _lifespan(
    serve: ServeState, monitor: bool
) -> Callable[[FastAPI], contextlib.AbstractAsyncContextManager[None]]:
    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(serve.refresher.run())]
        if monitor:
            watch = run_monitor(serve.context, on_change=log_health_change)
            tasks.append(asyncio.create_task(watch))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await serve.aclose()
            await serve.context.aclose()

    return lifespan


async def _homeclaw_error(_: Request, exc: HomeclawError) -> JSONResponse:
    problems = exc.problems if isinstance(exc, RegistrationError) else []
    headers = {"WWW-Authenticate": "Bearer"} if isinstance(exc, AuthError) else None
    body = ErrorResponse(error=exc.message, hint=exc.hint, problems=problems)
    return JSONResponse(body.model_dump(), status_code=status_code(exc), headers=headers)


async def _validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
    # Query/path parameters FastAPI validates itself: same error shape as everything else.
    problems = [
        {"field": ".".join(str(p) for p in err["loc"][1:]), "message": str(err["msg"])}
        for err in exc.errors()
    ]
    text = "; ".join(f"{p['field']}: {p['message']}" for p in problems)
    body = ErrorResponse(error=f"invalid request: {text}", problems=problems)
    return JSONResponse(body.model_dump(), status_code=422)


def _openapi(app: FastAPI, *, bearer: bool) -> Callable[[], dict[str, Any]]:
    """The generated document plus the registration body, which the routes read raw, and
    with `bearer` the token the POST routes check by hand (so /docs can send it)."""
    body_schema, body_defs = registration_schema()

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes
            )
            schemas = document.setdefault("components", {}).setdefault("schemas", {})
            schemas.update(body_defs)
            schemas["ExternalPluginRegistration"] = body_schema
            schemas["UnregisterBody"] = UnregisterBody.model_json_schema()
            if bearer:
                document["components"]["securitySchemes"] = {
                    "bearer": {"type": "http", "scheme": "bearer"}
                }
                for path in ("/api/plugins/register", "/api/plugins/unregister"):
                    document["paths"][path]["post"]["security"] = [{"bearer": []}]
            app.openapi_schema = document
        return app.openapi_schema

    return openapi
