"""HTTP plugins (seed 001 §5.4, seed 000 §3.2): a server the plugin author runs.

A capability without `method`/`path` gets the PluginRequest POSTed to base_url + config.path
and answers with a PluginResult. A REST capability (`method` + `path`) gets its parameters
as the query string (GET, DELETE) or as a JSON body (POST, PUT, PATCH), except those named
in the path (`/todos/{id}`), which are filled in URL-encoded; its response body is the
answer (a PluginResult-shaped object is unwrapped, other JSON is shown as JSON).
"""

from __future__ import annotations

import contextlib
import json
import re
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote as quote_url

import httpx

from homeclaw_cli.core.manifest import Capability, HttpConfig
from homeclaw_cli.runtime.connect_failure import describe_connect_error
from homeclaw_cli.runtime.managed_server import ManagedServerError, ManagedServers
from homeclaw_cli.runtime.runners.base import (
    MAX_BODY_BYTES,
    FailureKind,
    PluginRequest,
    RunResult,
    RunTarget,
    fail,
    ok,
    quote,
    result_from_payload,
    value_to_text,
)

_QUERY_METHODS = frozenset({"GET", "DELETE"})
_PATH_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_-]*)\}")


class HttpRunner:
    """One short-lived client per call (a client is bound to its event loop, and the chat
    loop may change loops); the costly part, the TLS context, is made once and shared."""

    def __init__(
        self, client: httpx.AsyncClient | None = None, servers: ManagedServers | None = None
    ) -> None:
        self._client = client
        self._tls: ssl.SSLContext | None = None
        self.servers = servers  # starts `config.start` servers (the caller's, or our own)
        self._own_servers = servers is None

    @contextlib.asynccontextmanager
    async def _http(self, url: str) -> AsyncIterator[httpx.AsyncClient]:
        if self._client is not None:
            yield self._client
            return
        verify: ssl.SSLContext | bool = False  # plain http: no TLS, so no certificates to load
        if url.startswith("https:"):
            if self._tls is None:
                self._tls = ssl.create_default_context()
            verify = self._tls
        async with httpx.AsyncClient(verify=verify, trust_env=False) as client:
            yield client

    async def run(self, target: RunTarget, request: PluginRequest) -> RunResult:
        config = target.manifest.config
        assert isinstance(config, HttpConfig)
        call = _HttpCall.build(target.plugin_id, config, target.capability, request)
        for attempt in (1, 2):
            if config.start is not None:
                try:
                    await self._managed(target).ensure(target, config.start)
                except ManagedServerError as exc:
                    return fail(request, "unavailable", exc.message)
            try:
                response, body, truncated = await self._send(call, request, config)
            except httpx.ConnectError as exc:
                # A managed server that went away (its owner stopped it) is started again once.
                if config.start is not None and attempt == 1:
                    continue
                return call.transport_failure(request, exc, config)
            except httpx.HTTPError as exc:
                return call.transport_failure(request, exc, config)
            break
        if truncated:
            return fail(
                request,
                "bad_output",
                f"{call.who} sent more than {MAX_BODY_BYTES // 1024} KiB from {call.where}",
            )
        return call.result(request, response, body.decode("utf-8", errors="replace"))

    def _managed(self, target: RunTarget) -> ManagedServers:
        if self.servers is None:
            self.servers = ManagedServers(target.data_dir, target.data_dir / "state")
        return self.servers

    async def _send(
        self, call: _HttpCall, request: PluginRequest, config: HttpConfig
    ) -> tuple[httpx.Response, bytes, bool]:
        headers = {"X-Homeclaw-Request-Id": request.request_id, "Accept": "application/json"}
        async with (
            self._http(call.url) as http,
            http.stream(
                call.method, call.url, headers=headers, timeout=config.timeout_sec, **call.body
            ) as response,
        ):
            body, truncated = await _read_capped(response)
        return response, body, truncated

    async def aclose(self) -> None:
        if self.servers is not None and self._own_servers:
            self.servers.stop_all()


async def _read_capped(response: httpx.Response) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return b"", True
        chunks.append(chunk)
    return b"".join(chunks), False


def fill_path(path: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Put `{name}` parameters into the path; return it and the parameters left over."""
    rest = dict(params)

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in rest:
            return match.group(0)
        return quote_url(_query_value(rest.pop(name)), safe="")

    return _PATH_PARAM.sub(fill, path), rest


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def _error_text(payload: Any) -> str | None:
    if isinstance(payload, dict):
        for key in ("error", "detail", "message"):
            if payload.get(key):
                return value_to_text(payload[key])
    return None


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value)
    return str(value)


@dataclass
class _HttpCall:
    """One capability call as an HTTP request, and how its answer becomes a RunResult.

    A capability with its own `method`/`path` is a REST call (parameters fill the path, then go
    in the query or the JSON body); otherwise the whole PluginRequest is POSTed to `config.path`
    and a PluginResult is expected back.
    """

    who: str
    method: str
    url: str
    rest: bool
    body: dict[str, Any]

    @classmethod
    def build(
        cls, plugin_id: str, config: HttpConfig, cap: Capability, request: PluginRequest
    ) -> _HttpCall:
        rest = cap.method is not None or cap.path is not None
        method = cap.method or "POST"
        path, params = fill_path(cap.path or config.path, request.parameters if rest else {})
        body: dict[str, Any]
        if not rest:
            body = {"json": request.model_dump(mode="json")}
        elif method in _QUERY_METHODS:
            body = {"params": {k: _query_value(v) for k, v in params.items()}}
        else:
            body = {"json": params}
        url = config.base_url.rstrip("/") + path
        return cls(f"plugin {plugin_id}", method, url, rest, body)

    @property
    def where(self) -> str:
        return f"{self.method} {self.url}"

    def transport_failure(
        self, request: PluginRequest, exc: httpx.HTTPError, config: HttpConfig
    ) -> RunResult:
        """A request that got no answer; a failed connect says why in its metadata
        (`connect_failure`: refused, dns, tls or other) for the caller's hint."""
        if isinstance(exc, httpx.ConnectError):
            failure = describe_connect_error(exc, config.base_url, who=self.who, field="base_url")
            return fail(request, "unavailable", failure.message, {"connect_failure": failure.kind})
        if isinstance(exc, httpx.TimeoutException):
            return fail(
                request,
                "timeout",
                f"{self.who} did not answer within {config.timeout_sec:g} s ({self.where})",
            )
        return fail(request, "unavailable", f"{self.who}: {self.where} failed: {exc}")

    def result(self, request: PluginRequest, response: httpx.Response, text: str) -> RunResult:
        payload = _json_or_none(text)
        if response.status_code >= 400:
            reason = _error_text(payload) or (
                quote(text) if text.strip() else response.reason_phrase
            )
            kind: FailureKind = "crash" if response.status_code >= 500 else "plugin_error"
            return fail(
                request, kind, f"{self.who}: {self.where} -> {response.status_code}: {reason}"
            )
        if not self.rest:
            if payload is None:
                return fail(
                    request,
                    "bad_output",
                    f"{self.who} answered {quote(text)} from {self.url}, which is not JSON "
                    "(expected a PluginResult)",
                )
            return result_from_payload(request, payload, self.who)
        if isinstance(payload, dict) and {"success", "text"} & payload.keys():
            return result_from_payload(request, payload, self.who)
        return ok(request, value_to_text(payload) if payload is not None else text)
