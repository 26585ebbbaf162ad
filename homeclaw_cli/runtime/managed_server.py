"""Managed plugin servers (`config.start` of http and url-transport MCP plugins).

On first use a plugin's server is started in its own process group, with the environment and
argument rules of a subprocess plugin (runtime/process_env.py), its output appended to
`<data_dir>/logs/<plugin id>.log`; homeclaw waits until the `ready` URL answers (or fails
with the log's tail), reuses the process while it lives and stops it (SIGTERM to the group,
SIGKILL after a grace period) when the caller closes, at interpreter exit, or on SIGTERM/SIGHUP.

A server that already answers `ready` is used as it is (someone started it by hand, or another
homeclaw process owns it). One left behind by a homeclaw that was killed (-9) is adopted and
stopped like our own. `<state_dir>/servers/<id>.json` records who runs what, so `plugin health`
and `doctor` in another process can say "managed: running (pid N)".
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import httpx

from homeclaw_cli.catalog.plugin_files import resolve_command
from homeclaw_cli.core.server_start import ServerStart
from homeclaw_cli.errors import LockedError, UnavailableError
from homeclaw_cli.fsutil import atomic_write_text, file_lock
from homeclaw_cli.runtime.process_env import expand_args, process_env_and_args
from homeclaw_cli.runtime.runners.base import RunTarget
from homeclaw_cli.settings import Settings

LOG_TAIL_LINES = 12
START_MARK = " homeclaw starts: "
STOP_GRACE_SEC = 3.0
POLL_SEC = 0.1
PR_SET_PDEATHSIG = 1


class ManagedServerError(UnavailableError):
    """A managed server could not be started (the message carries its log's tail)."""


@dataclass
class ServerState:
    """What `plugin health` and `doctor` report for a managed plugin."""

    state: Literal["not started", "running", "failed"]
    pid: int | None = None
    detail: str = ""

    def describe(self) -> str:
        if self.state == "running":
            return f"managed: running (pid {self.pid})"
        if self.state == "failed":
            return f"managed: failed: {self.detail}"
        return "managed: not started (homeclaw starts it on first use)"


def log_path(data_dir: Path, plugin_id: str) -> Path:
    """Where a managed server's stdout and stderr go."""
    return data_dir / "logs" / f"{plugin_id}.log"


def _record_path(state_dir: Path, plugin_id: str) -> Path:
    return state_dir / "servers" / f"{plugin_id}.json"


def _read_record(state_dir: Path, plugin_id: str) -> dict[str, Any]:
    try:
        data = json.loads(_record_path(state_dir, plugin_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def server_state(settings: Settings, plugin_id: str) -> ServerState:
    """The managed server of `plugin_id` as the last homeclaw process left it."""
    record = _read_record(settings.state_dir, plugin_id)
    if record.get("error"):
        return ServerState("failed", detail=str(record["error"]).splitlines()[0])
    pid = record.get("pid")
    if isinstance(pid, int) and _alive(pid):
        return ServerState("running", pid=pid)
    return ServerState("not started")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True)
class _Spec:
    """The process a manifest asks for; a different one (after an edit) means a restart."""

    command: str
    args: tuple[str, ...]
    cwd: str
    env: tuple[tuple[str, str], ...]
    ready: str

    def argv(self) -> list[str]:
        return [self.command, *self.args]


@dataclass
class _Server:
    pid: int
    spec: _Spec
    child: subprocess.Popen[bytes] | None = None  # None: adopted from a killed homeclaw

    def alive(self) -> bool:
        if self.child is not None:
            return self.child.poll() is None
        return _alive(self.pid)


class ManagedServers:
    """The servers one PluginCaller started: start on first use, reuse, stop on close."""

    @classmethod
    def for_settings(cls, settings: Settings) -> ManagedServers:
        return cls(settings.data_dir, settings.state_dir)

    def __init__(self, data_dir: Path, state_dir: Path) -> None:
        self.data_dir = data_dir
        self.state_dir = state_dir
        self._servers: dict[str, _Server] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    def _lock(self, plugin_id: str) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:  # a new event loop (asyncio.run per command): new locks
            self._loop, self._locks = loop, {}
        return self._locks.setdefault(plugin_id, asyncio.Lock())

    async def ensure(self, target: RunTarget, start: ServerStart) -> None:
        """Make sure the plugin's server runs and answers `ready`; ManagedServerError if not."""
        plugin_id = target.plugin_id
        async with self._lock(plugin_id):
            spec = self._spec(target, start)
            current = self._servers.get(plugin_id)
            if current is not None and current.alive() and current.spec == spec:
                return
            if current is not None:
                self._stop(plugin_id)  # it died, or the manifest now asks for another process
            async with _start_lock(self.state_dir, plugin_id, start.timeout_s):
                if await _answers(start.ready):
                    self._adopt_orphan(plugin_id, spec)
                    return
                await self._start(plugin_id, spec, start)

    def _spec(self, target: RunTarget, start: ServerStart) -> _Spec:
        command = resolve_command(start.command, target.folder)
        if command is None:
            raise ManagedServerError(
                f"plugin {target.plugin_id}: the start command {start.command!r} was not found",
                hint="install it, or fix config.start.command in its plugin.yaml",
            )
        env, args = process_env_and_args(target, start.env, start.args)
        base = target.folder or target.data_dir
        cwd = base
        if start.cwd:
            (expanded,) = expand_args([start.cwd], target.folder, target.data_dir, target.plugin_id)
            cwd = base / expanded  # an absolute cwd stays absolute
        return _Spec(command, tuple(args), str(cwd), tuple(sorted(env.items())), start.ready)

    async def _start(self, plugin_id: str, spec: _Spec, start: ServerStart) -> None:
        log = log_path(self.data_dir, plugin_id)
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("ab") as handle:
            stamp = datetime.now(UTC).isoformat(timespec="seconds")
            handle.write(f"--- {stamp}{START_MARK}{' '.join(spec.argv())}\n".encode())
            handle.flush()
            try:
                child = subprocess.Popen(  # the command of a trusted manifest
                    spec.argv(),
                    cwd=spec.cwd,
                    env=dict(spec.env),
                    stdin=subprocess.DEVNULL,
                    stdout=handle,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # its own process group: stopped as a whole
                    preexec_fn=_die_with_parent(),  # noqa: PLW1509 - one prctl call
                )
            except OSError as exc:
                raise self._failed(plugin_id, f"could not be started: {exc}") from None
        server = self._servers[plugin_id] = _Server(child.pid, spec, child)
        _EXIT_HOOKS.watch(self)
        self._write_record(plugin_id, server)
        problem = await _wait_ready(child, start)
        if problem is not None:
            _terminate(self._servers.pop(plugin_id))
            raise self._failed(plugin_id, problem)

    def _failed(self, plugin_id: str, problem: str) -> ManagedServerError:
        log = log_path(self.data_dir, plugin_id)
        message = f"plugin {plugin_id}: its server {problem}"
        atomic_write_text(
            _record_path(self.state_dir, plugin_id),
            json.dumps({"error": message, "log": str(log)}),
        )
        tail = _tail(log)
        return ManagedServerError(
            message + (f"\nlast lines of {log}:\n{tail}" if tail else ""),
            hint=f"see {log}; `homeclaw plugin show {plugin_id}` shows the start command",
        )

    def _adopt_orphan(self, plugin_id: str, spec: _Spec) -> None:
        """Own a server that a killed homeclaw left running (so it stops with us)."""
        record = _read_record(self.state_dir, plugin_id)
        pid, owner = record.get("pid"), record.get("owner")
        if not isinstance(pid, int) or not isinstance(owner, int) or _alive(owner):
            return  # started by hand, or another homeclaw process runs it: use, never stop
        with contextlib.suppress(OSError):
            if os.getpgid(pid) == pid:  # still the group leader homeclaw started
                server = _Server(pid, spec)
                self._servers[plugin_id] = server
                self._write_record(plugin_id, server)
                _EXIT_HOOKS.watch(self)

    def _write_record(self, plugin_id: str, server: _Server) -> None:
        record = {
            "pid": server.pid,
            "owner": os.getpid(),
            "command": server.spec.argv(),
            "ready": server.spec.ready,
            "log": str(log_path(self.data_dir, plugin_id)),
        }
        atomic_write_text(_record_path(self.state_dir, plugin_id), json.dumps(record))

    def _stop(self, plugin_id: str) -> None:
        server = self._servers.pop(plugin_id)
        _terminate(server)
        record = _read_record(self.state_dir, plugin_id)
        if record.get("pid") == server.pid:
            _record_path(self.state_dir, plugin_id).unlink(missing_ok=True)

    def running(self) -> dict[str, int]:
        """plugin id -> pid of the servers this object started and that still run."""
        return {plugin_id: s.pid for plugin_id, s in self._servers.items() if s.alive()}

    def stop(self, plugin_ids: Iterable[str]) -> None:
        """Stop the servers of these plugins that this object started (a removed plugin)."""
        for plugin_id in plugin_ids:
            if plugin_id in self._servers:
                self._stop(plugin_id)

    def stop_all(self) -> None:
        """Stop every server this object started (safe to call twice, and at exit)."""
        for plugin_id in list(self._servers):
            self._stop(plugin_id)
        _EXIT_HOOKS.forget(self)


def _is_up(response: httpx.Response) -> bool:
    """Any answer below 500: the server listens and handles requests (an MCP endpoint answers
    a plain GET with 400 or 405, a health path with 200)."""
    return response.status_code < 500


async def _answers(url: str) -> bool:
    async with httpx.AsyncClient(trust_env=False) as http:
        try:
            response = await http.get(url, timeout=1.0, follow_redirects=False)
        except httpx.HTTPError:
            return False
    return _is_up(response)


async def _wait_ready(child: subprocess.Popen[bytes], start: ServerStart) -> str | None:
    """None once `ready` answers; otherwise what went wrong."""
    deadline = time.monotonic() + start.timeout_s
    async with httpx.AsyncClient(trust_env=False) as http:
        while True:
            code = child.poll()
            if code is not None:
                return f"exited with code {code} before {start.ready} answered"
            with contextlib.suppress(httpx.HTTPError):
                response = await http.get(start.ready, timeout=1.0, follow_redirects=False)
                if _is_up(response):
                    return None
            if time.monotonic() > deadline:
                return f"did not answer {start.ready} within {start.timeout_s:g} s"
            await asyncio.sleep(POLL_SEC)


@contextlib.asynccontextmanager
async def _start_lock(state_dir: Path, plugin_id: str, timeout: float) -> AsyncIterator[None]:
    """One starter per plugin across homeclaw processes (the other one then finds it ready)."""
    path = state_dir / "servers" / f"{plugin_id}.lock"
    deadline = time.monotonic() + timeout + STOP_GRACE_SEC
    with contextlib.ExitStack() as stack:
        while True:
            try:
                stack.enter_context(file_lock(path, timeout=0, what=f"{plugin_id}'s server"))
                break
            except LockedError:
                if time.monotonic() > deadline:
                    raise ManagedServerError(
                        f"plugin {plugin_id}: another homeclaw process is still starting its server"
                    ) from None
                await asyncio.sleep(POLL_SEC)
        yield


def _terminate(server: _Server) -> None:
    """SIGTERM to the server's process group, SIGKILL after STOP_GRACE_SEC."""
    try:
        os.killpg(server.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + STOP_GRACE_SEC
    while time.monotonic() < deadline:
        if not server.alive():
            return
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(server.pid, signal.SIGKILL)
    if server.child is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.child.wait(1)


def _tail(path: Path) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    # this start's lines only: earlier runs' output would read as this failure's cause
    starts = [i for i, line in enumerate(lines) if line.startswith("--- ") and START_MARK in line]
    if starts:
        lines = lines[starts[-1] :]
    return "\n".join(f"  {line}" for line in lines[-LOG_TAIL_LINES:])


def _die_with_parent() -> Callable[[], None] | None:
    """Linux: the server gets SIGTERM if homeclaw dies without cleaning up (kill -9).

    The kernel sends it when the *thread* that started the child ends, so only from the main
    thread; elsewhere adoption at the next start covers a killed homeclaw."""
    if sys.platform != "linux" or threading.current_thread() is not threading.main_thread():
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def set_signal() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)

    return set_signal


class _ExitHooks:
    """Stops every live ManagedServers at interpreter exit and on SIGTERM / SIGHUP."""

    def __init__(self) -> None:
        self.live: list[ManagedServers] = []
        self.installed = False

    def watch(self, servers: ManagedServers) -> None:
        if servers not in self.live:
            self.live.append(servers)
        if self.installed:
            return
        self.installed = True
        atexit.register(self.stop_everything)
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGTERM, signal.SIGHUP):
                if signal.getsignal(signum) == signal.SIG_DFL:
                    signal.signal(signum, self._on_signal)

    def forget(self, servers: ManagedServers) -> None:
        if servers in self.live:
            self.live.remove(servers)

    def stop_everything(self) -> None:
        for servers in list(self.live):
            servers.stop_all()

    def _on_signal(self, signum: int, frame: object) -> None:
        self.stop_everything()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)  # die of the signal, as without the hook


_EXIT_HOOKS = _ExitHooks()
