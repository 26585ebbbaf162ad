"""`homeclaw plugin health`: check plugins the way their type allows, store the results.

http / external   GET health_check_url (2xx = ok); without one, any answer from base_url
subprocess        the command resolves to an executable
mcp               start/connect, initialize and list tools; every declared capability
                  must map to a server tool or the designated `tool`
inline            the plugin's code loads as a call would load it (import, class, initialize)
"""

from __future__ import annotations

import asyncio
import importlib
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from homeclaw_cli.catalog.plugin_checks import format_loc, inline_module_path
from homeclaw_cli.catalog.plugin_files import resolve_command
from homeclaw_cli.catalog.plugin_loader import LoadResult
from homeclaw_cli.catalog.registry import PluginEntry
from homeclaw_cli.core.diagnostics import Diagnostic, has_errors
from homeclaw_cli.core.manifest import HttpConfig, InlineConfig, McpConfig, SubprocessConfig
from homeclaw_cli.core.server_start import ServerStart
from homeclaw_cli.document import DocumentError, read_document
from homeclaw_cli.runtime.caller import PluginCaller
from homeclaw_cli.runtime.connect_failure import describe_connect_error
from homeclaw_cli.runtime.managed_server import ManagedServerError, ManagedServers, server_state
from homeclaw_cli.runtime.runners.base import RunTarget
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.health import HealthStatus

if TYPE_CHECKING:
    from homeclaw_cli.runtime.runners.mcp import McpRunner

HTTP_TIMEOUT_SEC = 5.0


@dataclass
class HealthReport:
    plugin_id: str
    type: str
    status: HealthStatus
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.plugin_id,
            "type": self.type,
            "ok": self.status.ok,
            "detail": self.status.detail,
            "failures": self.status.failures,
            "checked_at": self.status.checked_at,
            "seconds": round(self.seconds, 4),
        }


async def check_plugins(caller: PluginCaller, plugin_id: str | None = None) -> list[HealthReport]:
    """Check one plugin of the caller's registry (NotFoundError if unknown) or all,
    concurrently; store each result in the caller's health store."""
    entries = (
        [caller.registry.get(plugin_id)]
        if plugin_id
        else sorted(caller.registry.plugins.values(), key=lambda e: e.id)
    )
    store = caller.health
    if any(e.manifest.type == "mcp" for e in entries):
        # Import the SDK off the loop first, or it stalls (and mis-times) every other check.
        await asyncio.to_thread(importlib.import_module, "mcp")
    async with httpx.AsyncClient(trust_env=False) as http:
        results = await asyncio.gather(*(_timed(caller, http, e) for e in entries))
    return [
        HealthReport(entry.id, entry.manifest.type, store.set(entry.id, ok, detail), seconds)
        for entry, (ok, detail, seconds) in zip(entries, results, strict=True)
    ]


async def _timed(
    caller: PluginCaller, http: httpx.AsyncClient, entry: PluginEntry
) -> tuple[bool, str, float]:
    started = time.perf_counter()
    try:
        ok, detail = await check_entry(caller, http, entry)
    except Exception as exc:  # one broken check never hides the others
        ok, detail = False, f"check failed: {type(exc).__name__}: {exc}"
    return ok, detail, time.perf_counter() - started


async def check_entry(
    caller: PluginCaller, http: httpx.AsyncClient, entry: PluginEntry
) -> tuple[bool, str]:
    manifest = entry.manifest
    config = manifest.config
    start = manifest.managed_start()
    if start is not None:
        return await managed_health(caller.settings, http, entry.id, start)
    if manifest.health_check_url:
        return await probe_url(
            http, manifest.health_check_url, timeout=HTTP_TIMEOUT_SEC, field="health_check_url"
        )
    if isinstance(config, HttpConfig):
        return await probe_url(
            http, config.base_url, timeout=HTTP_TIMEOUT_SEC, any_answer=True, field="base_url"
        )
    if isinstance(config, SubprocessConfig):
        path = resolve_command(config.command, entry.folder)
        if path is None:
            return False, f"command {config.command!r} not found"
        return True, f"command {config.command} -> {path}"
    if isinstance(config, InlineConfig):
        return await _inline(caller, entry, config)
    assert isinstance(config, McpConfig)
    return await _mcp(caller, entry)


async def managed_health(
    settings: Settings, http: httpx.AsyncClient, plugin_id: str, start: ServerStart
) -> tuple[bool, str]:
    """A managed server is reported, not started: one that is simply not running yet is
    healthy (homeclaw starts it on first use); one whose last start failed is not."""
    state = server_state(settings, plugin_id)
    if state.state == "failed":
        return False, state.describe()
    answers, detail = await probe_url(
        http, start.ready, timeout=HTTP_TIMEOUT_SEC, any_answer=True, field="config.start.ready"
    )
    if state.state == "running":
        return answers, f"{state.describe()}; {detail}"
    if answers:
        return True, f"managed: running (not started by homeclaw); {detail}"
    return True, state.describe()


async def probe_url(
    http: httpx.AsyncClient,
    url: str,
    *,
    timeout: float,
    any_answer: bool = False,
    field: str = "the URL",
) -> tuple[bool, str]:
    """GET `url` once: (ok, detail) in the one wording of every health check (`plugin
    health`, the serve monitor, registration). ok means 2xx, or any answer below 500 with
    `any_answer` (a base_url that has no health endpoint). `field`: the setting that holds
    `url`, named when its host does not resolve."""
    try:
        response = await http.get(url, timeout=timeout, follow_redirects=False)
    except httpx.ConnectError as exc:
        return False, describe_connect_error(exc, url, field=field).message
    except httpx.TimeoutException:
        return False, f"{url} did not answer within {timeout:g} s"
    except httpx.HTTPError as exc:
        return False, f"{url}: {str(exc) or type(exc).__name__}"
    code = response.status_code
    if any_answer:
        return code < 500, f"GET {url} -> {code} (server answering)"
    return 200 <= code < 300, f"GET {url} -> {code}"


def probe_url_now(url: str, *, timeout: float) -> tuple[bool, str]:
    """probe_url for code without an event loop (the CLI's `plugin register`)."""

    async def run() -> tuple[bool, str]:
        async with httpx.AsyncClient(trust_env=False) as http:
            return await probe_url(http, url, timeout=timeout)

    return asyncio.run(run())


def _target(caller: PluginCaller, entry: PluginEntry) -> RunTarget:
    """The plugin as its runner sees it, by its first capability."""
    manifest = entry.manifest
    return RunTarget(
        manifest,
        manifest.callable_capabilities()[0],
        entry.folder,
        caller.settings.data_dir,
        permissions=caller.granted(manifest),
    )


async def _inline(
    caller: PluginCaller, entry: PluginEntry, config: InlineConfig
) -> tuple[bool, str]:
    from homeclaw_cli.runtime.runners.inline import InlineRunner

    if entry.folder is None:
        return False, "inline plugin without a folder"
    module = inline_module_path(entry.folder, config)
    if not module.is_file():
        return False, f"{module} missing"
    runner = caller.runner("inline")
    assert isinstance(runner, InlineRunner)
    problem = await runner.load_problem(_target(caller, entry))
    return (False, problem) if problem else (True, f"{module.name} loads")


async def _mcp(caller: PluginCaller, entry: PluginEntry) -> tuple[bool, str]:
    from homeclaw_cli.adapters.mcp_client import McpUnavailable
    from homeclaw_cli.runtime.runners.mcp import McpRunner, unmapped_capabilities

    runner = caller.runner("mcp")
    assert isinstance(runner, McpRunner)
    manifest = entry.manifest
    target = _target(caller, entry)
    try:
        session = await runner.session(target)
    except McpUnavailable as exc:
        return False, str(exc)
    missing = unmapped_capabilities(manifest, session.tools)
    names = ", ".join(t.name for t in session.tools)
    if missing:
        return False, (
            f"capabilities without a server tool: {', '.join(missing)} (tools: {names}); run "
            f"`homeclaw plugin mcp-import {entry.folder}`, or map them in config.tools"
        )
    return True, f"{len(session.tools)} tools: {names}"


async def add_live_diagnostics(results: list[LoadResult], settings: Settings) -> None:
    """`plugin validate --live`: contact each valid plugin and add what fails as errors.

    MCP servers are started and asked for their tools (each capability must map to one, or
    the server must offer the designated tool); http plugins must answer their health check.
    Managed servers (`config.start`) are started for the check and stopped after it.
    """
    from homeclaw_cli.runtime.runners.mcp import McpRunner

    servers = ManagedServers.for_settings(settings)
    runner = McpRunner(servers=servers)
    try:
        async with httpx.AsyncClient(trust_env=False) as http:
            for result in results:
                if result.manifest is None or has_errors(result.diagnostics):
                    continue
                problems = await _start_managed(result, servers, settings)
                if not problems:
                    problems = await _live_problems(result, runner, http, settings)
                for message, loc in problems:
                    result.diagnostics.append(_live_diagnostic(result, message, loc))
    finally:
        await runner.aclose()
        servers.stop_all()


Loc = tuple[str | int, ...]


async def _start_managed(
    result: LoadResult, servers: ManagedServers, settings: Settings
) -> list[tuple[str, Loc]]:
    manifest = result.manifest
    assert manifest is not None
    start = manifest.managed_start()
    if start is None:
        return []
    cap = manifest.callable_capabilities()[0]
    try:
        await servers.ensure(RunTarget(manifest, cap, result.folder, settings.data_dir), start)
    except ManagedServerError as exc:
        return [(exc.message, ("config", "start"))]
    return []


async def _live_problems(
    result: LoadResult, runner: McpRunner, http: httpx.AsyncClient, settings: Settings
) -> list[tuple[str, Loc]]:
    from homeclaw_cli.adapters.mcp_client import McpUnavailable
    from homeclaw_cli.runtime.runners.mcp import unmapped_capabilities

    manifest = result.manifest
    assert manifest is not None
    config = manifest.config
    if isinstance(config, McpConfig):
        cap = manifest.callable_capabilities()[0]
        try:
            session = await runner.session(
                RunTarget(manifest, cap, result.folder, settings.data_dir)
            )
        except McpUnavailable as exc:
            return [(str(exc), ("config",))]
        names = ", ".join(t.name for t in session.tools)
        ids = [c.id for c in manifest.capabilities]
        return [
            (
                f"capability {cap_id!r} matches no tool of the MCP server, which has no "
                f"`{config.tool}` tool either (its tools: {names})",
                ("capabilities", ids.index(cap_id), "id") if cap_id in ids else ("type",),
            )
            for cap_id in unmapped_capabilities(manifest, session.tools)
        ]
    if manifest.health_check_url:
        ok, detail = await probe_url(
            http, manifest.health_check_url, timeout=HTTP_TIMEOUT_SEC, field="health_check_url"
        )
        return [] if ok else [(detail, ("health_check_url",))]
    if isinstance(config, HttpConfig):
        ok, detail = await probe_url(
            http, config.base_url, timeout=HTTP_TIMEOUT_SEC, any_answer=True, field="base_url"
        )
        return [] if ok else [(detail, ("config", "base_url"))]
    return []


def _live_diagnostic(result: LoadResult, message: str, loc: Loc) -> Diagnostic:
    path = result.manifest_path or result.folder
    line = None
    if result.manifest_path is not None:
        try:
            found = read_document(result.manifest_path).position(loc)
            line = found[0] if found else None
        except DocumentError:
            pass
    return Diagnostic("error", "live", path, message, field=format_loc(loc), line=line)
