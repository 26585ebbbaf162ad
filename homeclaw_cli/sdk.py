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

from pathlib import Path
from typing import Any


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
