"""Inline plugins (seed 001 §5.2): Python classes loaded from the plugin folder, in-process.

Plugin code is imported only when the plugin is first called, as a module of a synthetic
package unique to the plugin folder, so two plugins' plugin.py (or helpers.py) never collide
and relative imports inside a plugin work. The instance is created with config.yml values,
initialize() runs once, and capability methods (sync in a worker thread, or async) receive
the validated parameters as keyword arguments. Legacy plugins get `run()` with user_input.
Whatever the plugin prints is captured into the result's metadata (`printed`), never the
terminal; `plugin call` shows it on stderr. A crash keeps the plugin's traceback there too.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import importlib.util
import inspect
import sys
import threading
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from homeclaw_cli.catalog.plugin_checks import inline_module_path, method_name
from homeclaw_cli.catalog.plugin_files import PluginConfigError, deps_dir, read_plugin_config
from homeclaw_cli.core.manifest import InlineConfig
from homeclaw_cli.runtime.runners.base import (
    PluginRequest,
    PluginResult,
    RunResult,
    RunTarget,
    fail,
    ok,
    result_from_payload,
    value_to_text,
)
from homeclaw_cli.runtime.runners.capture import captured_output
from homeclaw_cli.runtime.runners.tracebacks import (
    plugin_location,
    plugin_traceback,
    syntax_location,
)
from homeclaw_cli.sdk import BasePlugin, PluginError

PACKAGE_PREFIX = "_homeclaw_plugin_"
DEFAULT_TIMEOUT_SEC = 60.0
_RESULT_KEYS = frozenset({"success", "text", "error", "metadata", "request_id", "plugin_id"})

# One import at a time per plugin folder: _load_class empties and refills the folder's
# sys.modules entries, and two runners (two callers) doing that at once break each other's
# import (a KeyError, or a stall until the call times out). The import runs in a worker
# thread, so these are thread locks.
_IMPORT_LOCKS: dict[str, threading.Lock] = {}
_IMPORT_LOCKS_GUARD = threading.Lock()


class InlineLoadError(Exception):
    """The plugin's code could not be loaded (import error, no class, bad config.yml)."""

    def __init__(self, message: str, traceback: str = "") -> None:
        super().__init__(message)
        self.traceback = traceback  # the plugin's frames, for `--debug`


@dataclass
class _Loaded:
    key: tuple[str, int]
    instance: BasePlugin
    initialized: bool = False


class InlineRunner:
    def __init__(self, *, timeout_sec: float = DEFAULT_TIMEOUT_SEC) -> None:
        self.timeout_sec = timeout_sec
        self._plugins: dict[str, _Loaded] = {}
        self._init_locks: dict[str, asyncio.Lock] = {}
        self._locks_loop: asyncio.AbstractEventLoop | None = None

    async def run(self, target: RunTarget, request: PluginRequest) -> RunResult:
        who = f"plugin {target.plugin_id}"
        if target.folder is None:
            return fail(request, "unavailable", f"{who}: an inline plugin needs a plugin folder")
        with captured_output() as printed:
            try:
                run = await asyncio.wait_for(self._call(target, request), self.timeout_sec)
            except TimeoutError:
                run = fail(
                    request, "timeout", f"{who} did not finish within {self.timeout_sec:g} s"
                )
            except InlineLoadError as exc:
                run = fail(request, "unavailable", f"{who} could not be loaded: {exc}")
                if exc.traceback:
                    run.result.metadata["traceback"] = exc.traceback
            except PluginError as exc:
                run = fail(request, "plugin_error", f"{who}: {exc}")
            except _PluginExit as exc:
                run = fail(request, "crash", f"{who} called sys.exit({exc.code!r})")
            except Exception as exc:
                run = _crashed(request, who, exc, target.folder)
        if printed.getvalue():
            run.result.metadata.setdefault("printed", printed.getvalue())
        return run

    async def load_problem(self, target: RunTarget) -> str | None:
        """Why the plugin's code does not load (its import, its class, `initialize`) as a call
        would load it, or None; what `plugin health` reports."""
        with captured_output():
            try:
                await asyncio.wait_for(self._instance(target), self.timeout_sec)
            except TimeoutError:
                return f"loading did not finish within {self.timeout_sec:g} s"
            except InlineLoadError as exc:
                return str(exc)
            except _PluginExit as exc:
                return f"called sys.exit({exc.code!r}) while loading"
            except Exception as exc:
                return f"starting it (__init__, initialize) raised {type(exc).__name__}: {exc}"
        return None

    async def _call(self, target: RunTarget, request: PluginRequest) -> RunResult:
        loaded = await self._instance(target)
        plugin = loaded.instance
        plugin.user_input = request.user_input
        plugin.request = request.model_dump(mode="json")
        wanted = method_name(target.capability.id)
        method = getattr(plugin, wanted, None)
        params = dict(request.parameters)
        if not target.declared:
            # A plugin without capabilities: legacy run(), user_input from `input` if given.
            method = plugin.run
            text = params.pop("input", None)
            if text:
                plugin.user_input = str(text)
            params = {}
        if method is None or not callable(method):
            return fail(
                request,
                "unavailable",
                f"plugin {target.plugin_id} has no method `{wanted}` for capability "
                f"{target.capability.id!r}",
            )
        value = await _invoke(method, _accepted(method, params))
        return _to_result(request, value, f"plugin {target.plugin_id}")

    async def _instance(self, target: RunTarget) -> _Loaded:
        assert target.folder is not None
        config = target.manifest.config
        assert isinstance(config, InlineConfig)
        module_path = inline_module_path(target.folder, config)
        try:
            key = (str(module_path), module_path.stat().st_mtime_ns)
        except OSError:
            raise InlineLoadError(f"{module_path} does not exist") from None
        loop = asyncio.get_running_loop()
        if self._locks_loop is not loop:  # asyncio locks belong to one event loop
            self._init_locks, self._locks_loop = {}, loop
        lock = self._init_locks.setdefault(target.plugin_id, asyncio.Lock())
        async with lock:
            loaded = self._plugins.get(target.plugin_id)
            if loaded is None or loaded.key != key:
                try:
                    loaded = await self._load(target, module_path, key)
                except Exception:
                    if loaded is None:
                        raise
                    # A broken edit while chatting: the code loaded before keeps answering
                    # (hot reload says it kept the last good version); a fixed edit loads.
                else:
                    self._plugins[target.plugin_id] = loaded
            if not loaded.initialized:
                await _invoke(loaded.instance.initialize, {})
                loaded.initialized = True
        return loaded

    async def _load(self, target: RunTarget, module_path: Path, key: tuple[str, int]) -> _Loaded:
        assert target.folder is not None
        config = target.manifest.config
        assert isinstance(config, InlineConfig)
        deps = deps_dir(target.folder)  # `plugin install --with-deps`
        if deps is not None and str(deps) not in sys.path:
            sys.path.insert(0, str(deps))
        # Importing may be slow (a plugin's own dependencies): keep the loop free.
        wanted = {method_name(c.id) for c in target.manifest.capabilities} or {"run"}
        cls = await asyncio.to_thread(_load_class, target.folder, module_path, wanted)
        settings = _read_config(target.folder / config.config_file)
        try:
            instance = cls(
                plugin_id=target.plugin_id,
                folder=target.folder,
                config=settings,
                data_dir=target.data_dir,
                permissions=target.granted,
            )
        except SystemExit as exc:
            raise _PluginExit(exc.code) from None
        return _Loaded(key, instance)

    async def aclose(self) -> None:
        for loaded in self._plugins.values():
            close = getattr(loaded.instance, "aclose", None) or getattr(
                loaded.instance, "close", None
            )
            if callable(close):
                try:
                    with captured_output():
                        await _invoke(close, {})
                except Exception:
                    pass
        self._plugins.clear()


class _PluginExit(Exception):
    """A plugin called sys.exit(); asyncio would let SystemExit stop the whole event loop."""

    def __init__(self, code: object) -> None:
        super().__init__(code)
        self.code = code


async def _invoke(method: Any, kwargs: dict[str, Any]) -> Any:
    try:
        if inspect.iscoroutinefunction(method):
            return await method(**kwargs)
        value = await asyncio.to_thread(method, **kwargs)
        if inspect.isawaitable(value):
            return await value
        return value
    except SystemExit as exc:
        raise _PluginExit(exc.code) from None


def _crashed(request: PluginRequest, who: str, exc: Exception, folder: Path) -> RunResult:
    """The one-line error names the plugin's own frame; the traceback goes to metadata,
    which `plugin call --debug` prints and the model never reads."""
    where = plugin_location(exc, folder)
    at = f" at {where}" if where else ""
    run = fail(request, "crash", f"{who} raised {type(exc).__name__}{at}: {exc}")
    run.result.metadata["traceback"] = plugin_traceback(exc, folder)
    return run


def _accepted(method: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters the method declares (all of them if it takes **kwargs)."""
    try:
        signature = inspect.signature(method)
    except (TypeError, ValueError):
        return params
    names = signature.parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in names.values()):
        return params
    return {k: v for k, v in params.items() if k in names}


def _to_result(request: PluginRequest, value: Any, who: str) -> RunResult:
    if isinstance(value, PluginResult):
        return (
            RunResult(value) if value.success else fail(request, "plugin_error", value.error or "")
        )
    if isinstance(value, dict) and {"success", "text", "error"} & value.keys():
        # SDK contract: fields besides text/success/error are kept as metadata.
        extra = {k: v for k, v in value.items() if k not in _RESULT_KEYS}
        nested = value.get("metadata")
        payload = {**value, "metadata": {**(nested if isinstance(nested, dict) else {}), **extra}}
        return result_from_payload(request, payload, who)
    if isinstance(value, dict):
        return ok(request, value_to_text(value), {"data": value})
    return ok(request, value_to_text(value))


def _package_name(folder: Path) -> str:
    digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:12]
    safe = "".join(c if c.isalnum() else "_" for c in folder.name)
    return f"{PACKAGE_PREFIX}{safe}_{digest}"


def _import_lock(package: str) -> threading.Lock:
    with _IMPORT_LOCKS_GUARD:
        return _IMPORT_LOCKS.setdefault(package, threading.Lock())


def _load_class(folder: Path, module_path: Path, wanted: set[str]) -> type[BasePlugin]:
    package = _package_name(folder)
    with _import_lock(package):
        return _import_class(package, folder, module_path, wanted)


def _import_class(
    package: str, folder: Path, module_path: Path, wanted: set[str]
) -> type[BasePlugin]:
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]  # the code changed since the last load: import it afresh
    pkg = types.ModuleType(package)
    pkg.__path__ = [str(folder)]
    sys.modules[package] = pkg
    relative = module_path.relative_to(folder)
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    module_name = ".".join([package, *parts])
    importlib.invalidate_caches()
    try:
        module = importlib.import_module(module_name)
    except SyntaxError as exc:  # also one in a module plugin.py imports
        place = syntax_location(exc, folder) or module_path.name
        raise InlineLoadError(f"{place}: syntax error: {exc.msg}") from None
    except SystemExit as exc:  # it would end the whole event loop, chat and server alike
        called = f"called sys.exit({exc.code!r})"
        raise InlineLoadError(f"importing {module_path.name} {called}") from None
    except Exception as exc:
        where = plugin_location(exc, folder)
        at = f" at {where}" if where else ""
        raise InlineLoadError(
            f"importing {module_path.name} raised {type(exc).__name__}{at}: {exc}",
            plugin_traceback(exc, folder),
        ) from None
    return _plugin_class(module, module_path, wanted)


def _plugin_class(
    module: types.ModuleType, module_path: Path, wanted: set[str]
) -> type[BasePlugin]:
    """The module's BasePlugin subclass, or a plain class with the capability methods wrapped
    so it runs the same way (capabilities are plain methods; subclassing is recommended)."""
    own = [
        obj
        for obj in vars(module).values()
        if isinstance(obj, type) and obj.__module__ == module.__name__
    ]
    candidates = [c for c in own if issubclass(c, BasePlugin) and c is not BasePlugin]
    if candidates:
        # The most derived class wins when a module defines a base and a concrete plugin.
        candidates.sort(key=lambda c: len(c.__mro__), reverse=True)
        return candidates[0]
    plain = [c for c in own if not c.__name__.startswith("_") and wanted & set(dir(c))]
    if not plain:
        raise InlineLoadError(f"{module_path.name} defines no BasePlugin subclass")
    return _wrap_plain_class(max(plain, key=lambda c: len(wanted & set(dir(c)))))


def _wrap_plain_class(plain: type) -> type[BasePlugin]:
    """A BasePlugin whose capability methods (and initialize) are those of a `plain()` object."""

    class PlainPlugin(BasePlugin):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            try:
                self._inner = plain()
            except TypeError as exc:
                raise InlineLoadError(
                    f"class {plain.__name__} cannot be created without arguments ({exc}); "
                    "subclass BasePlugin to receive the plugin's config"
                ) from None

        def __getattr__(self, name: str) -> Any:
            if name == "_inner":  # not set yet: __init__ failed before assigning it
                raise AttributeError(name)
            return getattr(self._inner, name)

        def initialize(self) -> Any:
            setup = getattr(self._inner, "initialize", None)
            return setup() if callable(setup) else None

        def run(self) -> Any:  # sync or async, as the plain class wrote it
            legacy = getattr(self._inner, "run", None)
            return legacy() if callable(legacy) else super().run()

    PlainPlugin.__name__ = PlainPlugin.__qualname__ = plain.__name__
    return PlainPlugin


def _read_config(path: Path) -> dict[str, Any]:
    try:
        return read_plugin_config(path)
    except PluginConfigError as exc:
        raise InlineLoadError(str(exc)) from None
