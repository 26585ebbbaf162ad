"""The registration API's request and response models, its errors and their status codes."""

from typing import Any

from pydantic import BaseModel

from homeclaw_cli.app.registration import RegistrationError
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.errors import (
    ConflictError,
    HomeclawError,
    LockedError,
    NotFoundError,
    UnavailableError,
    UsageError,
)


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


class IndexStatus(BaseModel):
    """The index sync after registration changes (serve.sync_on_register), GET /api/index."""

    state: str  # off | pending | synced | failed
    request: int | None = None  # this change's sync request; in the index once synced >= it
    requested: int = 0
    synced: int = 0
    error: str | None = None  # why the last sync failed, until one succeeds
    hint: str | None = None


class RegisterResponse(BaseModel):
    plugin_id: str
    registered: bool
    change: str
    health: dict[str, Any] | None = None
    warnings: list[str] = []
    index: IndexStatus | None = None


class UnregisterBody(BaseModel):
    plugin_id: str


class UnregisterResponse(BaseModel):
    plugin_id: str
    unregistered: bool
    index: IndexStatus | None = None


class HealthResponse(BaseModel):
    plugin_id: str
    ok: bool
    detail: str
    status: dict[str, Any]


class ErrorResponse(BaseModel):
    error: str
    hint: str | None = None
    problems: list[dict[str, str]] = []


def status_code(exc: HomeclawError) -> int:
    """The HTTP status an error is answered with."""
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
