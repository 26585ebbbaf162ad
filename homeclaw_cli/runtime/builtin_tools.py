"""The built-in tools a chat offers: current_time, fetch_url, and read_file / list_dir.

They take the same road as plugin capabilities: registered in a ToolRegistry (the one tool
model, core/tool_registry.py), their arguments validated by it, their effects weighed by the
approval policy. File tools exist only when the user named folders (tools.allowed_dirs or
`chat --allow-dir`) and stay inside them (symlinks and `..` resolved first); fetch_url is a
network effect, has size and time limits and refuses private addresses unless allowed.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import httpx

from homeclaw_cli.core.approval import READ_ONLY, Effect
from homeclaw_cli.core.tool_registry import Handler, Tool, ToolOutcome, ToolRegistry, object_schema
from homeclaw_cli.errors import HomeclawError

MAX_READ_BYTES = 64 * 1024
FILE_TOOLS = frozenset({"read_file", "list_dir"})
NETWORK: frozenset[Effect] = frozenset({"network"})
MAX_LIST_ENTRIES = 200
# Chat offers a built-in only to a request that could want it (core/turn_tools.py): every
# offered tool costs prompt tokens, and small models call whatever they are shown.
# The clock is for a request that asks for the time or the day: "today", "tonight" or "now"
# alone qualify something else ("news today", "sushi for tonight"), and the system prompt
# holds today's date. Nor do small talk and idioms ask: "how's your day", "joke of the day",
# "cook on a date"; "times" is mostly arithmetic. An alarm, a timer or a reminder names a time
# to act at, which the clock cannot do ("alarm time for twelve pm" was answered with the time).
_NOT_THE_DAY = r"(?<!your )(?<!good )(?<!nice )(?<!great )(?<!lovely )(?<!of the )"
_NOT_AN_ALARM = r"^(?![\s\S]*\b(alarms?|timers?|remind|reminders?|wake me)\b)[\s\S]*?"
OFFER_IF = {
    "current_time": rf"{_NOT_AN_ALARM}\b(time|(?<!on a )dates?|{_NOT_THE_DAY}days?|weekday|"
    r"clock|hours?|o'?clock)\b",
    "fetch_url": r"https?://|\bwww\.|\b(url|urls|web|page|pages|website|site|fetch|download|"
    r"link)\b",
    "read_file": r"\b(files?|folders?|director(y|ies)|read|open|contents?|documents?)\b|[~/\\]\w",
    "list_dir": r"\b(files?|folders?|director(y|ies)|list|ls|contents?|documents?)\b|[~/\\]\w",
}


@dataclass
class BuiltinConfig:
    allowed_dirs: list[Path]
    fetch_max_bytes: int = 512 * 1024
    fetch_timeout_sec: float = 15.0
    fetch_allow_private: bool = False
    plugin_allowed: tuple[str, ...] = ("current_time", "fetch_url")


def add_builtins(registry: ToolRegistry, config: BuiltinConfig) -> None:
    """Register current_time and fetch_url into `registry`, and read_file and list_dir when
    the user named folders they may read (never a silent default such as the current one)."""
    tools = _Builtins(config)
    specs: list[tuple[str, str, dict[str, Any], Handler]] = [
        (
            "current_time",
            "The current date and time, optionally in an IANA time zone.",
            object_schema({"timezone": {"type": "string", "description": "IANA timezone"}}),
            tools.current_time,
        ),
        (
            "read_file",
            "Read a UTF-8 text file inside the allowed folders.",
            object_schema({"path": {"type": "string", "description": "file path"}}, ["path"]),
            tools.read_file,
        ),
        (
            "list_dir",
            "List the entries of a folder inside the allowed folders.",
            object_schema({"path": {"type": "string", "description": "folder path"}}),
            tools.list_dir,
        ),
        (
            "fetch_url",
            "Fetch a web page or API over http(s); returns the status and the body (truncated).",
            object_schema({"url": {"type": "string", "description": "http(s) URL"}}, ["url"]),
            tools.fetch_url,
        ),
    ]
    for name, description, schema, handler in specs:
        if name in FILE_TOOLS and not config.allowed_dirs:
            continue
        allowed = name in config.plugin_allowed
        effects = NETWORK if name == "fetch_url" else READ_ONLY
        registry.add(
            Tool(
                name,
                description,
                schema,
                handler,
                plugin_allowed=allowed,
                effects=effects,
                offer_if=OFFER_IF.get(name),
            )
        )


class _Builtins:
    """The handlers, bound to one configuration."""

    def __init__(self, config: BuiltinConfig) -> None:
        self.config = config
        self.roots = [p.expanduser().resolve() for p in config.allowed_dirs]

    async def current_time(self, args: dict[str, Any]) -> ToolOutcome:
        tz_name = args.get("timezone") or None
        try:
            tz = ZoneInfo(tz_name) if tz_name else None
        except (ZoneInfoNotFoundError, ValueError):
            return ToolOutcome(False, f"unknown timezone {tz_name!r}; use an IANA name")
        now = datetime.now(tz) if tz else datetime.now(UTC).astimezone()
        return ToolOutcome(True, now.strftime("%A %Y-%m-%d %H:%M:%S %Z (UTC%z)"))

    async def read_file(self, args: dict[str, Any]) -> ToolOutcome:
        path = self._resolve(str(args["path"]))
        if not path.is_file():
            return ToolOutcome(False, f"{path} is not a file")
        with path.open("rb") as handle:
            data = handle.read(MAX_READ_BYTES + 1)
        text = data[:MAX_READ_BYTES].decode("utf-8", errors="replace")
        if len(data) > MAX_READ_BYTES:
            text += f"\n[truncated at {MAX_READ_BYTES} bytes]"
        return ToolOutcome(True, text)

    async def list_dir(self, args: dict[str, Any]) -> ToolOutcome:
        path = self._resolve(str(args.get("path") or "."))
        if not path.is_dir():
            return ToolOutcome(False, f"{path} is not a folder")
        entries = sorted(os.scandir(path), key=lambda e: e.name)
        lines = [e.name + ("/" if e.is_dir() else "") for e in entries[:MAX_LIST_ENTRIES]]
        if len(entries) > MAX_LIST_ENTRIES:
            lines.append(f"[{len(entries) - MAX_LIST_ENTRIES} more]")
        return ToolOutcome(True, "\n".join(lines) or "(empty folder)")

    async def fetch_url(self, args: dict[str, Any]) -> ToolOutcome:
        return await fetch(str(args["url"]), self.config)

    def _resolve(self, raw: str) -> Path:
        """`raw` made absolute (relative to the first allowed folder) and checked."""
        path = Path(raw).expanduser()
        if not path.is_absolute():
            path = self.roots[0] / path if self.roots else path
        path = path.resolve()
        if not any(path == root or path.is_relative_to(root) for root in self.roots):
            shown = ", ".join(str(r) for r in self.roots) or "none"
            raise HomeclawError(
                f"{path} is outside the allowed folders ({shown})",
                hint="add it to tools.allowed_dirs in the config",
            )
        return path


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
