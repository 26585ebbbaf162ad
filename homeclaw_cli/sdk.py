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

Legacy plugins (a config.yml and a .py file, no plugin.yaml) implement `run()` and read
`self.user_input`.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Awaitable, Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from homeclaw_cli.core import permissions as _perm
from homeclaw_cli.core.manifest import Permissions

if TYPE_CHECKING:
    import httpx

ToolExecutor = Callable[[str, str, dict[str, Any]], Awaitable[str]]
# What BasePlugin.use_tool calls: set by the PluginCaller around each call, so two sessions in
# one process (each with its own allowlist) never see each other's executor.
_tool_executor: ContextVar[ToolExecutor | None] = ContextVar("tool_executor", default=None)


@contextlib.contextmanager
def tool_executor(executor: ToolExecutor | None) -> Iterator[None]:
    """Within this block (this task and the tasks it starts), use_tool calls `executor`."""
    token = _tool_executor.set(executor)
    try:
        yield
    finally:
        _tool_executor.reset(token)


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
        permissions: Permissions | None = None,
    ) -> None:
        self.plugin_id = plugin_id
        # What the user granted; the helpers below enforce it (nothing else can, in-process).
        self.permissions = permissions or Permissions()
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

    # --- helpers that enforce the plugin's granted permissions --------------------------

    @property
    def _what(self) -> str:
        return f"plugin {self.plugin_id}"

    def _path(self, path: str | Path, *, write: bool) -> Path:
        target = Path(path).expanduser()
        if not target.is_absolute():
            target = self.data_dir / target
        roots = [self.data_dir] if write else [self.data_dir, self.folder]
        return _perm.check_path(self.permissions, target, also=roots, what=self._what)

    def read_text(self, path: str | Path, encoding: str = "utf-8") -> str:
        """Read a file in a granted folder, the plugin's folder or its data dir."""
        return self._path(path, write=False).read_text(encoding=encoding)

    def write_text(self, path: str | Path, text: str, encoding: str = "utf-8") -> Path:
        """Write a file in a granted folder or the data dir (relative paths: the data dir)."""
        target = self._path(path, write=True)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding=encoding)
        return target

    def getenv(self, name: str, default: str | None = None) -> str | None:
        """An environment variable the user granted (permissions.env_vars)."""
        value = _perm.allowed_getenv(self.permissions, name)
        return default if value is None else value

    def _check_request(self, request: httpx.Request) -> None:
        _perm.check_url(self.permissions, str(request.url), what=self._what)

    async def _acheck_request(self, request: httpx.Request) -> None:
        self._check_request(request)

    def fetch(
        self, url: str, *, method: str = "GET", timeout: float = 30.0, **kwargs: Any
    ) -> httpx.Response:
        """An HTTP request to a granted host; every redirect hop is checked too."""
        import httpx

        _perm.check_url(self.permissions, url, what=self._what)
        hooks = {"request": [self._check_request]}
        with httpx.Client(timeout=timeout, follow_redirects=True, event_hooks=hooks) as client:
            return client.request(method, url, **kwargs)

    async def afetch(
        self, url: str, *, method: str = "GET", timeout: float = 30.0, **kwargs: Any
    ) -> httpx.Response:
        """fetch() for async capability methods."""
        import httpx

        _perm.check_url(self.permissions, url, what=self._what)
        hooks = {"request": [self._acheck_request]}
        async with httpx.AsyncClient(
            timeout=timeout, follow_redirects=True, event_hooks=hooks
        ) as client:
            return await client.request(method, url, **kwargs)

    def run_command(
        self, args: list[str], *, timeout: float = 60.0
    ) -> subprocess.CompletedProcess[str]:
        """Run a command (needs `shell: true`) with only the granted environment variables."""
        _perm.check_shell(self.permissions, what=self._what)
        return subprocess.run(
            args,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=_perm.allowed_env(self.permissions),
            cwd=self.data_dir,
            check=False,
        )

    async def use_tool(self, name: str, **arguments: Any) -> str:
        """Call a built-in tool allowlisted for plugins (`tools.plugin_allowed` in the config),
        e.g. `await self.use_tool("fetch_url", url=...)`. Raises PluginError when refused."""
        executor = _tool_executor.get()
        if executor is None:
            raise PluginError("built-in tools are only available inside `homeclaw chat`")
        if name == "fetch_url" and "url" in arguments:  # the plugin's granted hosts apply
            _perm.check_url(self.permissions, str(arguments["url"]), what=self._what)
        return await executor(self.plugin_id, name, arguments)
