"""Call a plugin capability: resolve it, validate parameters, run it, report the outcome.

One PluginCaller per session (a `plugin call`, a chat, the MCP server): it keeps runners,
and so MCP sessions, HTTP connections and loaded inline plugins, until aclose(). Use it
from one event loop at a time: runners notice a new loop (asyncio.run per turn) and reopen
what belonged to the old one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from homeclaw_cli import sdk
from homeclaw_cli.catalog.plugin_checks import method_name
from homeclaw_cli.catalog.registry import PluginEntry, Registry
from homeclaw_cli.core.manifest import Capability, Permissions, PluginManifest
from homeclaw_cli.core.params import ParameterError, example_call, validate_parameters
from homeclaw_cli.core.permissions import requested_permissions
from homeclaw_cli.errors import NotFoundError, UnavailableError, UsageError
from homeclaw_cli.runtime.managed_server import ManagedServers
from homeclaw_cli.runtime.runners.base import (
    FailureKind,
    PluginRequest,
    PluginResult,
    Runner,
    RunResult,
    RunTarget,
)
from homeclaw_cli.sdk import ToolExecutor
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.approvals import ApprovalStore
from homeclaw_cli.state.health import HealthStore
from homeclaw_cli.suggest import did_you_mean

if TYPE_CHECKING:
    from homeclaw_cli.runtime.runners.mcp import McpRunner

__all__ = ["CallOutcome", "ParameterError", "PluginCaller", "PluginRequest", "PluginResult"]


@dataclass
class CallOutcome:
    """A finished call: the plugin's result and what the chat loop should do with it."""

    result: PluginResult
    post_process: bool
    post_process_prompt: str | None
    seconds: float
    failure: FailureKind | None = None  # why result.success is False (see runners/base.py)
    capability_id: str = ""
    warnings: list[str] = field(default_factory=list)  # RunResult.warnings

    def to_json(self) -> dict[str, Any]:
        return {
            "result": self.result.model_dump(mode="json"),
            "capability_id": self.capability_id,
            "post_process": self.post_process,
            "post_process_prompt": self.post_process_prompt,
            "seconds": round(self.seconds, 4),
            "failure": self.failure,
            "warnings": self.warnings,
        }


class PluginCaller:
    """Runs capabilities of `registry`'s plugins with their approved permissions, noting
    unreachable plugins in `health` (app/context.py AppContext.caller builds one)."""

    def __init__(
        self,
        settings: Settings,
        registry: Registry,
        *,
        health: HealthStore,
        approvals: ApprovalStore,
        tool_executor: ToolExecutor | None = None,
    ) -> None:
        self.settings = settings
        self._registry = registry
        self._runners: dict[str, Runner] = {}
        # The plugin servers this caller starts (config.start); stopped by aclose().
        self.servers = ManagedServers.for_settings(settings)
        self.health = health
        self.approvals = approvals
        # What an inline plugin's use_tool runs during this caller's calls (None: refused).
        self.tool_executor = tool_executor

    @property
    def registry(self) -> Registry:
        """The plugins this caller resolves ids against."""
        return self._registry

    def set_registry(self, registry: Registry) -> None:
        """Swap in a reloaded registry (hot reload); live sessions are kept."""
        self._registry = registry

    def resolve(
        self, plugin_id: str, capability_id: str | None
    ) -> tuple[PluginEntry, Capability, bool]:
        """(entry, capability, declared) or NotFoundError/UsageError naming the valid choices."""
        entry = self.registry.get(plugin_id)
        manifest = entry.manifest
        caps = manifest.callable_capabilities()
        valid = [c.id for c in caps]
        if capability_id is None:
            if len(caps) == 1:
                return entry, caps[0], bool(manifest.capabilities)
            raise UsageError(
                f"plugin {plugin_id} has {len(caps)} capabilities; name one: {', '.join(valid)}",
                hint=f"e.g. {example_call(plugin_id, caps[0])}",
            )
        wanted = method_name(capability_id)
        # An exact id first: `a_b` may be a capability of its own next to `a-b`.
        for cap in sorted(caps, key=lambda c: c.id != capability_id):
            if method_name(cap.id) == wanted:
                return entry, cap, bool(manifest.capabilities)
        raise NotFoundError(
            f"plugin {plugin_id} has no capability {capability_id!r}"
            f"{did_you_mean(capability_id, valid)}; its capabilities: {', '.join(valid)}",
            hint=f"`homeclaw plugin show {plugin_id}` describes them",
        )

    async def call(
        self,
        plugin_id: str,
        capability_id: str | None,
        parameters: dict[str, Any],
        *,
        user_input: str = "",
        chat_context: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> CallOutcome:
        """Run one capability. Plugin failures come back as an unsuccessful result;
        an unknown plugin/capability raises NotFoundError, bad parameters ParameterError."""
        started = time.perf_counter()
        entry, capability, declared = self.resolve(plugin_id, capability_id)
        values = dict(parameters)
        if not declared and user_input and "input" not in values:
            values["input"] = user_input
        checked = validate_parameters(entry.id, capability, values)
        request = PluginRequest(
            plugin_id=entry.id,
            capability_id=capability.id,
            parameters=checked,
            user_input=user_input or str(checked.get("input", "")),
            chat_context=chat_context,
            metadata=dict(metadata or {}),
        )
        target = self._target(entry, capability, declared)
        try:
            with sdk.tool_executor(self.tool_executor):
                run = await self._runner(entry.manifest.type).run(target, request)
        except Exception as exc:  # a runner bug must not take the session down
            run = RunResult(
                PluginResult(
                    request_id=request.request_id,
                    plugin_id=entry.id,
                    success=False,
                    error=f"homeclaw failed while running plugin {entry.id}: "
                    f"{type(exc).__name__}: {exc}",
                ),
                failure="crash",
            )
        self._note_health(entry.id, run.failure, run.result.error)
        if run.result.success and not run.result.text.strip() and not run.warnings:
            # not shown as a blank answer (an answer without `text` was warned about already)
            run.warnings.append(
                f"plugin {entry.id} returned an empty answer: its `text` is empty, "
                "there is nothing to show"
            )
        return CallOutcome(
            result=run.result,
            post_process=capability.post_process and run.result.success,
            post_process_prompt=capability.post_process_prompt,
            seconds=time.perf_counter() - started,
            failure=run.failure,
            capability_id=capability.id,
            warnings=run.warnings,
        )

    def _target(self, entry: PluginEntry, capability: Capability, declared: bool) -> RunTarget:
        return RunTarget(
            manifest=entry.manifest,
            capability=capability,
            folder=entry.folder,
            data_dir=self.settings.data_dir,
            declared=declared,
            permissions=self.granted(entry.manifest),
        )

    def mcp_runner(self) -> McpRunner | None:
        """The MCP runner when an MCP plugin was called (or reconnected) in this session."""
        from homeclaw_cli.runtime.runners.mcp import McpRunner

        runner = self._runners.get("mcp")
        return runner if isinstance(runner, McpRunner) else None

    async def reconnect(self, plugin_id: str) -> int:
        """Restart an MCP plugin's session; returns how many tools its server lists."""
        from homeclaw_cli.adapters.mcp_client import McpUnavailable
        from homeclaw_cli.runtime.runners.mcp import McpRunner

        entry = self.registry.get(plugin_id)
        if entry.manifest.type != "mcp":
            raise UsageError(
                f"plugin {plugin_id} is not an MCP plugin (type: {entry.manifest.type})",
                hint="only MCP plugins keep a session to reconnect",
            )
        caps = entry.manifest.callable_capabilities()
        target = self._target(entry, caps[0], bool(entry.manifest.capabilities))
        runner = self._runner("mcp")
        assert isinstance(runner, McpRunner)
        try:
            session = await runner.reconnect(target)
        except McpUnavailable as exc:
            raise UnavailableError(str(exc)) from None
        return len(session.tools)

    def granted(self, manifest: PluginManifest) -> Permissions:
        """What a plugin runs with: what it requests, limited by its approval (if installed)."""
        return self.approvals.effective(manifest.id, requested_permissions(manifest))

    def runner(self, plugin_type: str) -> Runner:
        """The runner for a plugin type (created once per caller)."""
        return self._runner(plugin_type)

    def _runner(self, plugin_type: str) -> Runner:
        runner = self._runners.get(plugin_type)
        if runner is None:
            runner = _make_runner(plugin_type, self.settings, self.servers)
            self._runners[plugin_type] = runner
        return runner

    def _note_health(self, plugin_id: str, failure: FailureKind | None, error: str | None) -> None:
        if failure == "unavailable":
            self.health.set(plugin_id, False, error or "unavailable")
        elif failure is None:
            previous = self.health.get(plugin_id)
            if previous is not None and not previous.ok:
                self.health.set(plugin_id, True, "a call succeeded")

    async def aclose(self) -> None:
        runners, self._runners = list(self._runners.values()), {}
        try:
            for runner in runners:
                await runner.aclose()
        finally:
            self.servers.stop_all()

    async def __aenter__(self) -> PluginCaller:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _make_runner(plugin_type: str, settings: Settings, servers: ManagedServers) -> Runner:
    if plugin_type == "inline":
        from homeclaw_cli.runtime.runners.inline import InlineRunner

        return InlineRunner(timeout_sec=settings.plugins.inline_timeout_sec)
    if plugin_type == "subprocess":
        from homeclaw_cli.runtime.runners.subprocess import SubprocessRunner

        return SubprocessRunner()
    if plugin_type == "http":
        from homeclaw_cli.runtime.runners.http import HttpRunner

        return HttpRunner(servers=servers)
    if plugin_type == "mcp":
        from homeclaw_cli.runtime.runners.mcp import McpRunner

        return McpRunner(servers=servers)
    raise UsageError(f"unknown plugin type {plugin_type!r}")
