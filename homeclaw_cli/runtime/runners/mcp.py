"""MCP plugins (seed 001 §5.5, §7) through the official SDK (homeclaw_cli/adapters/mcp_client).

Which tool a capability calls:
  1. `config.tools[capability_id]` when the manifest maps it explicitly;
  2. the server tool named like the capability (`get_current_time`, or with '-' for '_');
  3. otherwise the designated tool `config.tool` (default `handle_request`), given the
     PluginRequest: wrapped as {"request": ...} when the tool takes one object parameter,
     else the request fields the tool's schema names (user_input, parameters, ...).
A stdio server is spawned on first use and kept for the caller's session; a server that
exited is started again on the next call. When its session closes, whatever it started that
detached into a session of its own ends too (runtime/leftovers.py, a token per plugin).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from homeclaw_cli.catalog.plugin_checks import method_name
from homeclaw_cli.catalog.plugin_files import resolve_command
from homeclaw_cli.core.manifest import DEFAULT_CAPABILITY_ID as DEFAULT_RUN
from homeclaw_cli.core.manifest import McpConfig, PluginManifest
from homeclaw_cli.runtime.leftovers import CALL_ENV, end_leftovers, new_call_token
from homeclaw_cli.runtime.managed_server import ManagedServerError, ManagedServers
from homeclaw_cli.runtime.process_env import process_env_and_args
from homeclaw_cli.runtime.runners.base import (
    MAX_BODY_BYTES,
    PluginRequest,
    RunResult,
    RunTarget,
    fail,
    ok,
    value_to_text,
)

if TYPE_CHECKING:
    from homeclaw_cli.adapters.mcp_client import McpLaunch, McpSession, McpTool


MIN_CONNECT_TIMEOUT_SEC = 15.0


class McpRunner:
    def __init__(self, servers: ManagedServers | None = None) -> None:
        self._sessions: dict[str, McpSession] = {}
        self.servers = servers  # starts `config.start` servers (the caller's, or our own)
        self._own_servers = servers is None
        self.errors: dict[str, str] = {}  # plugin id -> its last failure (a success clears it)
        self._tokens: dict[str, str] = {}  # plugin id -> the token its stdio servers carry

    def connection(self, plugin_id: str) -> McpSession | None:
        """The plugin's live session; None when it is not connected (yet, or any more)."""
        session = self._sessions.get(plugin_id)
        return session if session is not None and session.alive else None

    async def reconnect(self, target: RunTarget) -> McpSession:
        """Drop the plugin's session and connect anew (its tools are listed again)."""
        from homeclaw_cli.adapters.mcp_client import McpUnavailable

        current = self._sessions.pop(target.plugin_id, None)
        if current is not None:
            await self._close(target.plugin_id, current)
        try:
            session = await self.session(target)
        except McpUnavailable as exc:
            self.errors[target.plugin_id] = str(exc)
            raise
        self.errors.pop(target.plugin_id, None)
        return session

    async def session(self, target: RunTarget) -> McpSession:
        """The live session for this plugin, started (or restarted) when needed; a managed
        server (`config.start`) is started first."""
        from homeclaw_cli.adapters.mcp_client import McpSession, McpUnavailable

        config = target.manifest.config
        assert isinstance(config, McpConfig)
        if config.start is not None:
            if self.servers is None:
                self.servers = ManagedServers(target.data_dir, target.data_dir / "state")
            try:
                await self.servers.ensure(target, config.start)
            except ManagedServerError as exc:
                raise McpUnavailable(exc.message) from None
        launch = self.launch(target)
        current = self._sessions.get(target.plugin_id)
        if current is not None and current.alive and current.launch == launch:
            return current
        if current is not None:
            await self._close(target.plugin_id, current)
            del self._sessions[target.plugin_id]
        if launch is None:
            raise McpUnavailable(self._missing_command(target))
        session = McpSession(launch, f"plugin {target.plugin_id}")
        # Starting a server (an interpreter, npm packages) can take seconds on its own.
        await session.start(timeout=max(config.timeout_sec, MIN_CONNECT_TIMEOUT_SEC))
        self._sessions[target.plugin_id] = session
        return session

    def launch(self, target: RunTarget) -> McpLaunch | None:
        from homeclaw_cli.adapters.mcp_client import McpLaunch

        config = target.manifest.config
        assert isinstance(config, McpConfig)
        if config.transport != "stdio":
            return McpLaunch.from_config(config, command=None, args=[], env={}, cwd=None)
        assert config.command is not None
        command = resolve_command(config.command, target.folder)
        if command is None:
            return None
        env, args = process_env_and_args(target, config.env, config.args)
        # One token per plugin, not per launch: the launch is compared to reuse a session.
        env[CALL_ENV] = self._tokens.setdefault(target.plugin_id, new_call_token())
        return McpLaunch.from_config(config, command=command, args=args, env=env, cwd=target.folder)

    def _missing_command(self, target: RunTarget) -> str:
        config = target.manifest.config
        assert isinstance(config, McpConfig)
        hint = ""
        if target.folder is not None and (target.folder / "package.json").is_file():
            hint = f" (run `npm install` in {target.folder})"
        return f"plugin {target.plugin_id}: command {config.command!r} was not found{hint}"

    async def run(self, target: RunTarget, request: PluginRequest) -> RunResult:
        """Call the tool for the capability; the outcome is kept for `/status`."""
        run = await self._run(target, request)
        if run.result.success:
            self.errors.pop(target.plugin_id, None)
        else:
            self.errors[target.plugin_id] = run.result.error or "failed"
        return run

    async def _run(self, target: RunTarget, request: PluginRequest) -> RunResult:
        from homeclaw_cli.adapters.mcp_client import McpToolError, McpUnavailable

        config = target.manifest.config
        assert isinstance(config, McpConfig)
        who = f"plugin {target.plugin_id}"
        started = time.monotonic()
        try:
            session = await self.session(target)
            tool, arguments = route(target, request, session.tools)
            if tool is None:
                names = ", ".join(t.name for t in session.tools) or "none"
                return fail(
                    request,
                    "unavailable",
                    f"{who}: the MCP server has no tool for capability "
                    f"{target.capability.id!r} and no `{config.tool}` tool (its tools: {names})",
                    {"no_tool": True},  # it answered: the manifest needs fixing, not the server
                )
            output = await session.call_tool(tool, arguments, config.timeout_sec)
        except McpUnavailable as exc:
            return fail(request, "unavailable", str(exc))
        except TimeoutError:
            return fail(
                request,
                "timeout",
                f"{who}: the MCP tool did not answer within {config.timeout_sec:g} s",
            )
        except McpToolError as exc:
            return fail(request, "plugin_error", f"{who}: {exc}")
        text = output.text or value_to_text(output.structured)
        if len(text) > MAX_BODY_BYTES:
            return fail(
                request, "bad_output", f"{who}: the MCP tool answered more than 1 MiB of text"
            )
        metadata: dict[str, Any] = {"tool": tool, "seconds": round(time.monotonic() - started, 4)}
        if output.structured is not None:
            metadata["structured"] = output.structured
        if output.is_error:
            return fail(
                request, "plugin_error", f"{who}: {text or 'the tool reported an error'}", metadata
            )
        return ok(request, text, metadata)

    async def _close(self, plugin_id: str, session: McpSession) -> None:
        await session.aclose()
        if (token := self._tokens.get(plugin_id)) is not None:
            end_leftovers(token)

    async def aclose(self) -> None:
        sessions, self._sessions = dict(self._sessions), {}
        for plugin_id, session in sessions.items():
            await self._close(plugin_id, session)
        if self.servers is not None and self._own_servers:
            self.servers.stop_all()


def route(
    target: RunTarget, request: PluginRequest, tools: list[McpTool]
) -> tuple[str | None, dict[str, Any]]:
    """(tool name, arguments) for a call; tool None when the server has no suitable tool."""
    config = target.manifest.config
    assert isinstance(config, McpConfig)
    by_name = {t.name: t for t in tools}
    cap_id = target.capability.id
    if target.declared:
        for name in (config.tools.get(cap_id), cap_id, method_name(cap_id)):
            if name and name in by_name:
                return name, dict(request.parameters)
    main = by_name.get(config.tool)
    if main is None:
        return None, {}
    return main.name, request_arguments(main.input_schema, request)


def request_arguments(schema: dict[str, Any], request: PluginRequest) -> dict[str, Any]:
    """The PluginRequest shaped for a designated tool's input schema (seed 001 §7)."""
    payload = request.model_dump(mode="json")
    props = schema.get("properties") or {}
    if not isinstance(props, dict) or not props:
        return payload
    if len(props) == 1:
        ((name, prop),) = props.items()
        if isinstance(prop, dict) and prop.get("type") == "object":
            return {name: payload}
    args = {k: v for k, v in payload.items() if k in props}
    if "input" in props and "input" not in args:
        args["input"] = request.parameters.get("input", request.user_input)
    for key, value in request.parameters.items():
        if key in props and key not in args:
            args[key] = value
    return args


def unmapped_capabilities(manifest: PluginManifest, tools: list[McpTool]) -> list[str]:
    """Declared capabilities that map to no server tool while the server lacks `config.tool`."""
    config = manifest.config
    assert isinstance(config, McpConfig)
    names = {t.name for t in tools}
    if config.tool in names:
        return []
    return [
        cap.id
        for cap in manifest.capabilities
        if not {config.tools.get(cap.id), cap.id, method_name(cap.id)} & names
    ] or ([] if manifest.capabilities else [DEFAULT_RUN])
