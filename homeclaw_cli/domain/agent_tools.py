"""The chat's tool registry: named tools with a JSON schema and an async handler.

Every tool call the model makes goes through `ToolRegistry.execute`, which validates the
arguments against the schema first. Anything wrong (unknown tool, missing or mistyped
argument, a handler refusing) comes back as a `ToolOutcome` with `ok=False` and a sentence the
model can act on: a bad tool call never raises out of the loop.

Plugins may call the tools named in `tools.plugin_allowed` (seed 002 §5) through
`ToolRegistry.execute(..., caller="plugin:<id>")`.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import httpx

from homeclaw_cli.domain.manifest import value_matches_type
from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.suggest import did_you_mean

MAX_READ_BYTES = 64 * 1024
MAX_LIST_ENTRIES = 200


@dataclass
class ToolOutcome:
    """What a tool returns to the loop. `final` texts go to the user as the answer."""

    ok: bool
    text: str
    final: bool = False
    post_process_prompt: str | None = None
    post_process: bool = False
    failed_for_good: bool = False  # a plugin ran and failed (not a fixable bad call)
    data: dict[str, Any] = field(default_factory=dict)


Handler = Callable[[dict[str, Any]], Awaitable[ToolOutcome]]


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    handler: Handler
    kind: str = "builtin"  # builtin | plugin | skill | search
    plugin_allowed: bool = False

    def schema(self) -> dict[str, Any]:
        """The Ollama / OpenAI function-calling tool definition."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def object_schema(
    properties: dict[str, dict[str, Any]], required: list[str] | None = None
) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or []}


def check_arguments(schema: dict[str, Any], arguments: Any) -> str | None:
    """None when `arguments` fit `schema`, else a sentence naming the bad parameter."""
    if not isinstance(arguments, dict):
        return f"arguments must be a JSON object, got {type(arguments).__name__}"
    properties: dict[str, Any] = schema.get("properties") or {}
    for name, value in arguments.items():
        spec = properties.get(name)
        if spec is None:
            if properties:
                return (
                    f"unknown parameter `{name}`{did_you_mean(name, list(properties))}; "
                    f"valid: {', '.join(properties)}"
                )
            return f"unknown parameter `{name}`; this tool takes no parameters"
        wanted = spec.get("type")
        if value is not None and wanted and not value_matches_type(value, wanted):
            return f"parameter `{name}` must be a {wanted}, got {json_type(value)}"
    for name in schema.get("required") or []:
        if arguments.get(name) is None:
            return f"missing required parameter `{name}`"
    return None


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


class ToolRegistry:
    """Name -> Tool. Turn-scoped tools (retrieved plugins) are added and removed per turn."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def add(self, tool: Tool) -> None:
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        return [t.schema() for t in self._tools.values()]

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    async def execute(self, name: str, arguments: Any, *, caller: str = "model") -> ToolOutcome:
        """Validate and run one call; every failure becomes an error outcome."""
        tool = self._tools.get(name)
        if tool is None:
            return ToolOutcome(
                False,
                f"unknown tool `{name}`{did_you_mean(name, self.names())}; "
                f"available tools: {', '.join(self.names())}",
            )
        if caller.startswith("plugin:") and not tool.plugin_allowed:
            return ToolOutcome(False, f"tool `{name}` is not allowlisted for plugins")
        problem = check_arguments(tool.parameters, arguments)
        if problem:
            return ToolOutcome(False, f"bad call to `{name}`: {problem}")
        try:
            return await tool.handler(dict(arguments))
        except HomeclawError as exc:
            text = exc.message + (f" ({exc.hint})" if exc.hint else "")
            return ToolOutcome(False, text)
        except Exception as exc:  # a crashing tool is reported to the model, never fatal
            return ToolOutcome(False, f"tool `{name}` crashed: {exc!r}", failed_for_good=True)


# --- built-in tools ------------------------------------------------------------------------


@dataclass
class BuiltinConfig:
    allowed_dirs: list[Path]
    fetch_max_bytes: int = 512 * 1024
    fetch_timeout_sec: float = 15.0
    fetch_allow_private: bool = False
    plugin_allowed: tuple[str, ...] = ("current_time", "fetch_url")


def add_builtins(registry: ToolRegistry, config: BuiltinConfig) -> None:
    """current_time, read_file, list_dir, fetch_url."""
    roots = [p.expanduser().resolve() for p in config.allowed_dirs]

    def allowed(name: str) -> bool:
        return name in config.plugin_allowed

    async def current_time(args: dict[str, Any]) -> ToolOutcome:
        tz_name = args.get("timezone") or None
        try:
            tz = ZoneInfo(tz_name) if tz_name else None
        except (ZoneInfoNotFoundError, ValueError):
            return ToolOutcome(False, f"unknown timezone {tz_name!r}; use an IANA name")
        now = datetime.now(tz) if tz else datetime.now(UTC).astimezone()
        return ToolOutcome(True, now.strftime("%A %Y-%m-%d %H:%M:%S %Z (UTC%z)"))

    def resolve(raw: str) -> Path:
        path = Path(raw).expanduser()
        if not path.is_absolute():
            path = roots[0] / path if roots else path
        path = path.resolve()
        if not any(path == root or path.is_relative_to(root) for root in roots):
            shown = ", ".join(str(r) for r in roots) or "none"
            raise HomeclawError(
                f"{path} is outside the allowed folders ({shown})",
                hint="add it to tools.allowed_dirs in the config",
            )
        return path

    async def read_file(args: dict[str, Any]) -> ToolOutcome:
        path = resolve(str(args["path"]))
        if not path.is_file():
            return ToolOutcome(False, f"{path} is not a file")
        with path.open("rb") as handle:
            data = handle.read(MAX_READ_BYTES + 1)
        text = data[:MAX_READ_BYTES].decode("utf-8", errors="replace")
        if len(data) > MAX_READ_BYTES:
            text += f"\n[truncated at {MAX_READ_BYTES} bytes]"
        return ToolOutcome(True, text)

    async def list_dir(args: dict[str, Any]) -> ToolOutcome:
        path = resolve(str(args.get("path") or "."))
        if not path.is_dir():
            return ToolOutcome(False, f"{path} is not a folder")
        entries = sorted(os.scandir(path), key=lambda e: e.name)
        lines = [e.name + ("/" if e.is_dir() else "") for e in entries[:MAX_LIST_ENTRIES]]
        if len(entries) > MAX_LIST_ENTRIES:
            lines.append(f"[{len(entries) - MAX_LIST_ENTRIES} more]")
        return ToolOutcome(True, "\n".join(lines) or "(empty folder)")

    async def fetch_url(args: dict[str, Any]) -> ToolOutcome:
        return await fetch(str(args["url"]), config)

    specs: list[tuple[str, str, dict[str, Any], Handler]] = [
        (
            "current_time",
            "The current date and time (optionally in an IANA timezone like Europe/Paris).",
            object_schema({"timezone": {"type": "string", "description": "IANA timezone"}}),
            current_time,
        ),
        (
            "read_file",
            "Read a UTF-8 text file inside the allowed folders.",
            object_schema({"path": {"type": "string", "description": "file path"}}, ["path"]),
            read_file,
        ),
        (
            "list_dir",
            "List the entries of a folder inside the allowed folders.",
            object_schema({"path": {"type": "string", "description": "folder path"}}),
            list_dir,
        ),
        (
            "fetch_url",
            "Fetch a web page or API over http(s); returns the status and the body (truncated).",
            object_schema({"url": {"type": "string", "description": "http(s) URL"}}, ["url"]),
            fetch_url,
        ),
    ]
    for name, description, schema, handler in specs:
        registry.add(Tool(name, description, schema, handler, plugin_allowed=allowed(name)))


async def fetch(url: str, config: BuiltinConfig) -> ToolOutcome:
    """GET `url` with the configured size and time limits; private hosts need opting in."""
    problem = _url_problem(url, allow_private=config.fetch_allow_private)
    if problem:
        return ToolOutcome(False, problem)
    limit = config.fetch_max_bytes
    try:
        async with (
            httpx.AsyncClient(timeout=config.fetch_timeout_sec) as client,
            client.stream("GET", url, follow_redirects=False) as response,
        ):
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body.extend(chunk)
                if len(body) > limit:
                    break
            status = response.status_code
            encoding = response.encoding or "utf-8"
    except httpx.TimeoutException:
        return ToolOutcome(False, f"{url} did not answer within {config.fetch_timeout_sec}s")
    except httpx.HTTPError as exc:
        return ToolOutcome(False, f"cannot fetch {url}: {exc}")
    text = bytes(body[:limit]).decode(encoding, errors="replace")
    if len(body) > limit:
        text += f"\n[truncated at {limit} bytes]"
    return ToolOutcome(status < 400, f"HTTP {status}\n{text}")


def _url_problem(url: str, *, allow_private: bool) -> str | None:
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        return f"{url!r} is not an http(s) URL"
    if allow_private:
        return None
    try:
        infos = socket.getaddrinfo(parsed.hostname, parsed.port or 443, type=socket.SOCK_STREAM)
    except OSError as exc:
        return f"cannot resolve {parsed.hostname}: {exc}"
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if address.is_private or address.is_loopback or address.is_link_local:
            return (
                f"{parsed.hostname} resolves to the private address {address}; "
                "set tools.fetch_allow_private: true to allow it"
            )
    return None
