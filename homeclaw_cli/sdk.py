"""The inline plugin SDK: subclass BasePlugin, name methods after capability ids.

    from homeclaw_cli.sdk import BasePlugin

    class Weather(BasePlugin):
        def initialize(self) -> None:          # optional, called once before the first call
            self.api_key = self.config.get("api_key")

        def fetch_weather(self, city: str, district: str | None = None) -> str | dict:
            ...                                 # sync or async; return text or a dict

A method receives the capability's parameters as keyword arguments (validated, defaults
filled). Return a string, or a dict with `text` (and any other fields, kept as metadata).
Raise PluginError (or any exception) to report a failure: the caller gets an error result,
never a crash. Plugins return results; they never print or call the LLM themselves.

Legacy plugins (seed 001 §5.2) implement `run()` and read `self.user_input`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

# Set by the chat session (services/chat.py): runs an allowlisted built-in tool for a plugin.
ToolExecutor = Callable[[str, str, dict[str, Any]], Awaitable[str]]
_executor: dict[str, ToolExecutor] = {}


def set_tool_executor(executor: ToolExecutor | None) -> None:
    """Install (or remove) what BasePlugin.use_tool calls; one per process."""
    _executor.clear()
    if executor is not None:
        _executor["tools"] = executor


class PluginError(Exception):
    """Raise with a sentence the user can act on; it becomes the result's `error`."""


class BasePlugin:
    """Base class of inline (in-process Python) plugins."""

    def __init__(
        self,
        *,
        plugin_id: str,
        folder: Path,
        config: dict[str, Any] | None = None,
        data_dir: Path | None = None,
    ) -> None:
        self.plugin_id = plugin_id
        self.folder = folder
        self.config: dict[str, Any] = dict(config or {})
        self._data_dir = data_dir
        self.user_input: str = ""
        self.request: dict[str, Any] = {}

    @property
    def data_dir(self) -> Path:
        """A folder this plugin may keep files in (created on first use)."""
        base = self._data_dir or self.folder / ".data"
        path = base / "plugin-data" / self.plugin_id if self._data_dir else base
        path.mkdir(parents=True, exist_ok=True)
        return path

    def initialize(self) -> None:
        """Called once, before the first capability call. Override to set up clients."""

    async def run(self) -> Any:
        """Legacy entry point for plugins without capabilities."""
        raise PluginError(f"plugin {self.plugin_id} does not implement run()")

    async def use_tool(self, name: str, **arguments: Any) -> str:
        """Call a built-in tool allowlisted for plugins (`tools.plugin_allowed`, seed 002 §5),
        e.g. `await self.use_tool("fetch_url", url=...)`. Raises PluginError when refused."""
        executor = _executor.get("tools")
        if executor is None:
            raise PluginError("built-in tools are only available inside `homeclaw chat`")
        return await executor(self.plugin_id, name, arguments)
