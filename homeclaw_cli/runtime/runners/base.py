"""The run contract (seed 001 §5.1): PluginRequest in, PluginResult out, one Runner per type.

Runners never raise for a plugin's failure: a timeout, crash, unreadable output or an
unreachable server becomes a PluginResult with `success=False`, an `error` sentence that
names the plugin, and a `kind` (RunFailure) the caller can map to an exit code or a health
mark. Exceptions are kept for homeclaw's own bugs and for bad input (ParameterError).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from homeclaw_cli.core.manifest import Capability, Permissions, PluginManifest
from homeclaw_cli.core.params import ParameterError

#: Why a call failed: "unavailable" (server down, command missing), "timeout", "crash"
#: (non-zero exit, server error), "bad_output" (not a PluginResult), "plugin_error" (the
#: plugin ran and reported a failure).
FailureKind = Literal["unavailable", "timeout", "crash", "bad_output", "plugin_error"]
QUOTE_LIMIT = 300
MAX_BODY_BYTES = 1024 * 1024  # the most a plugin may answer (stdout, HTTP body, MCP text)


class PluginRequest(BaseModel):
    """What a plugin receives (seed 001 §5.1 plus the capability and its parameters)."""

    request_id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    plugin_id: str
    capability_id: str
    parameters: dict[str, Any] = Field(default_factory=dict)
    user_input: str = ""
    user_id: str = ""
    user_name: str = ""
    channel_name: str = "cli"
    channel_type: str = "cli"
    app_id: str = "homeclaw"
    chat_context: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)


class PluginResult(BaseModel):
    """What a plugin returns (seed 001 §5.1)."""

    request_id: str
    plugin_id: str
    success: bool
    text: str = ""
    error: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


@dataclass
class RunResult:
    """A runner's answer: the result plus, on failure, what kind of failure it was."""

    result: PluginResult
    failure: FailureKind | None = None
    warnings: list[str] = field(default_factory=list)  # for the user: an answer read leniently


@dataclass
class RunTarget:
    """Everything a runner needs to know about the plugin it runs."""

    manifest: PluginManifest
    capability: Capability
    folder: Path | None
    data_dir: Path
    declared: bool = True  # False for the implicit `run` capability of a plugin without any
    # What the user granted (core/permissions.permissions_for); None: what it requests.
    permissions: Permissions | None = None

    @property
    def plugin_id(self) -> str:
        return self.manifest.id

    @property
    def granted(self) -> Permissions:
        """The permissions this run may use (env vars, SDK paths and hosts)."""
        if self.permissions is not None:
            return self.permissions
        from homeclaw_cli.core.permissions import requested_permissions

        return requested_permissions(self.manifest)


class Runner(Protocol):
    """Runs one plugin type. One instance per PluginCaller; may keep connections open."""

    async def run(self, target: RunTarget, request: PluginRequest) -> RunResult: ...

    async def aclose(self) -> None: ...


def ok(request: PluginRequest, text: str, metadata: dict[str, Any] | None = None) -> RunResult:
    return RunResult(
        PluginResult(
            request_id=request.request_id,
            plugin_id=request.plugin_id,
            success=True,
            text=text,
            metadata=metadata or {},
        )
    )


def fail(
    request: PluginRequest,
    kind: FailureKind,
    error: str,
    metadata: dict[str, Any] | None = None,
) -> RunResult:
    return RunResult(
        PluginResult(
            request_id=request.request_id,
            plugin_id=request.plugin_id,
            success=False,
            error=error,
            metadata=metadata or {},
        ),
        failure=kind,
    )


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A short, single-line quotation of what a plugin printed, for error messages."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")


def value_to_text(value: Any) -> str:
    """How a structured answer is shown when the plugin gave no `text`."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def result_from_payload(request: PluginRequest, payload: Any, who: str) -> RunResult:
    """Turn a decoded PluginResult-shaped JSON value into a RunResult.

    Accepts the full seed shape or a lenient subset: `success` defaults to true unless an
    `error` is given, ids default to the request's. Anything else is bad output.
    """
    if not isinstance(payload, dict) or not ({"success", "text", "error"} & payload.keys()):
        return fail(
            request,
            "bad_output",
            f"{who} answered {quote(value_to_text(payload))}, which is not a PluginResult "
            '(expected a JSON object like {"success": true, "text": "..."})',
        )
    success = payload.get("success")
    if success is None:
        success = not payload.get("error")
    if not isinstance(success, bool):
        return fail(
            request, "bad_output", f"{who} answered success={success!r}; expected true/false"
        )
    metadata = payload.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    if not success:
        error = payload.get("error") or payload.get("text") or "the plugin reported a failure"
        return fail(request, "plugin_error", f"{who}: {value_to_text(error)}", metadata)
    if "text" in payload:
        return ok(request, value_to_text(payload["text"]), metadata)
    return _without_text(request, payload, who, metadata)


def _without_text(
    request: PluginRequest, payload: dict[str, Any], who: str, metadata: dict[str, Any]
) -> RunResult:
    """A successful answer with no `text`: keys a PluginResult does not know (`content`,
    `result`) would be dropped and the user shown nothing, so the whole answer is shown as
    JSON, with a warning either way."""
    unknown = sorted(payload.keys() - PluginResult.model_fields.keys())
    if not unknown:
        run = ok(request, "", metadata)
        run.warnings.append(f"{who} answered success without `text`: there is nothing to show")
        return run
    run = ok(request, value_to_text(payload), metadata)
    run.warnings.append(
        f"{who} answered without `text`, with keys a PluginResult does not have "
        f"({', '.join(unknown)}), so the whole answer is shown as JSON; "
        'put the answer in `text`: {"success": true, "text": "..."}'
    )
    return run


@dataclass
class OutputCap:
    """A byte budget for what a plugin may print (a plugin printing 1 GB must not take memory)."""

    limit: int
    chunks: list[bytes] = field(default_factory=list)
    size: int = 0
    exceeded: bool = False

    def add(self, chunk: bytes) -> bool:
        """Keep `chunk`; False once the limit is exceeded (the caller stops the plugin)."""
        if self.size + len(chunk) > self.limit:
            self.exceeded = True
            return False
        self.chunks.append(chunk)
        self.size += len(chunk)
        return True

    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", errors="replace")


__all__ = [
    "FailureKind",
    "OutputCap",
    "ParameterError",
    "PluginRequest",
    "PluginResult",
    "RunResult",
    "RunTarget",
    "Runner",
]
