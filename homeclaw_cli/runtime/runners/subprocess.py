"""Subprocess plugins (seed 001 §5.3): one PluginRequest JSON on stdin, one PluginResult out.

The process runs in its own session so the runner can kill its whole process group
(grandchildren included). Stdout is read incrementally under a byte cap and the plugin is
killed when it exceeds it; only the tail of stderr is kept, for the error message and for
`--debug`, which shows it (logger `homeclaw.plugins`) also when the call succeeded.

The answer is complete when the process exits, not when its pipes close: a background child
it started inherits the pipes and can hold them open long after. Once the process has
exited its pipes get at most _PIPE_GRACE_SEC more, then the call goes on with what it
printed. Whatever ends the call (answer, timeout, Ctrl-C), the process group is killed, and
so is every process carrying the call's token in its environment (runtime/leftovers.py, for
children that detached into a session of their own): nothing a plugin starts outlives the call.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import time
from collections import deque

from homeclaw_cli.catalog.plugin_files import resolve_command
from homeclaw_cli.core.manifest import SubprocessConfig
from homeclaw_cli.runtime.leftovers import CALL_ENV, end_leftovers, new_call_token
from homeclaw_cli.runtime.process_env import process_env_and_args
from homeclaw_cli.runtime.runners.base import (
    MAX_BODY_BYTES,
    OutputCap,
    PluginRequest,
    RunResult,
    RunTarget,
    fail,
    quote,
    result_from_payload,
)

MAX_STDOUT_BYTES = MAX_BODY_BYTES
STDERR_TAIL_BYTES = 4096
_CHUNK = 65536
_PIPE_GRACE_SEC = 0.5  # for the pipes once the process has exited
_POLL_SEC = 0.05  # how often to look whether it has, while its pipes are open
log = logging.getLogger("homeclaw.plugins")


class SubprocessRunner:
    def __init__(self, *, max_stdout_bytes: int = MAX_STDOUT_BYTES) -> None:
        self.max_stdout_bytes = max_stdout_bytes

    async def run(self, target: RunTarget, request: PluginRequest) -> RunResult:
        config = target.manifest.config
        assert isinstance(config, SubprocessConfig)
        who = f"plugin {target.plugin_id}"
        executable = resolve_command(config.command, target.folder)
        if executable is None:
            return fail(
                request,
                "unavailable",
                f"{who}: command {config.command!r} was not found (not on PATH, not in the "
                "plugin folder)",
            )
        env, args = process_env_and_args(target, config.env, config.args)
        token = new_call_token()
        env[CALL_ENV] = token
        try:
            process = await asyncio.create_subprocess_exec(
                executable,
                *args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=target.folder,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            return fail(request, "unavailable", f"{who}: cannot start {executable}: {exc.strerror}")
        return await self._talk(process, request, config.timeout_sec, who, token)

    async def _talk(
        self,
        process: asyncio.subprocess.Process,
        request: PluginRequest,
        timeout: float,
        who: str,
        token: str,
    ) -> RunResult:
        streams = _Streams(process, self.max_stdout_bytes)
        started = time.monotonic()
        try:
            # asyncio.timeout, not wait_for: when the turn is cancelled (Ctrl-C), wait_for
            # leaves the cancelled gather's error unretrieved and asyncio reports it later.
            async with asyncio.timeout(timeout):
                await streams.exchange(request.model_dump_json().encode() + b"\n")
        except TimeoutError:
            return fail(
                request,
                "timeout",
                f"{who} did not answer within {timeout:g} s and was stopped"
                + streams.stderr_note(),
            )
        finally:
            # Always, Ctrl-C included: nothing the plugin started outlives the call, neither
            # the process nor a background child it left (which may still hold its pipes),
            # nor one that detached into a session of its own.
            _kill_group(process)
            end_leftovers(token)
            await streams.drain()
            await process.wait()
            streams.log_stderr(who)
        seconds = time.monotonic() - started
        return self._interpret(request, process.returncode, streams, who, seconds)

    def _interpret(
        self, request: PluginRequest, code: int | None, streams: _Streams, who: str, seconds: float
    ) -> RunResult:
        """The PluginResult the process printed, or a failure that says what went wrong."""
        stdout = streams.stdout
        if stdout.exceeded:
            return fail(
                request,
                "bad_output",
                f"{who} printed more than {self.max_stdout_bytes // 1024} KiB and was stopped "
                f"(started with {quote(stdout.text(), 80)})",
            )
        out = stdout.text().strip()
        if code != 0:
            reason = f"was killed by signal {-code}" if code and code < 0 else f"exited with {code}"
            detail = streams.stderr_note() or (f"; it printed {quote(out)}" if out else "")
            return fail(request, "crash", f"{who} {reason}{detail}")
        if not out:
            return fail(
                request,
                "bad_output",
                f"{who} printed nothing; a subprocess plugin must print one PluginResult JSON "
                "line" + streams.stderr_note(),
            )
        payload = _decode(out)
        if payload is None:
            return fail(
                request,
                "bad_output",
                f"{who} printed {quote(out)}, which is not JSON; a subprocess plugin must print "
                "one PluginResult JSON line",
            )
        run = result_from_payload(request, payload, who)
        run.result.metadata.setdefault("seconds", round(seconds, 4))
        return run

    async def aclose(self) -> None:
        return None


def _decode(out: str) -> object | None:
    """The whole stdout as JSON, or else its last line (a plugin may log before answering)."""
    for candidate in (out, out.splitlines()[-1]):
        try:
            return json.loads(candidate)  # type: ignore[no-any-return]
        except json.JSONDecodeError:
            continue
    return None


class _Streams:
    """The plugin process's pipes: the request in, stdout under a byte cap, a tail of stderr."""

    def __init__(self, process: asyncio.subprocess.Process, max_stdout: int) -> None:
        self.process = process
        self.stdout = OutputCap(max_stdout)
        self.stderr: deque[bytes] = deque()
        self.stderr_bytes = 0

    async def exchange(self, request: bytes) -> None:
        """Send the request and read both pipes until the process has exited and closed them,
        or has exited and _PIPE_GRACE_SEC more have passed (a background child holds them)."""
        pipes = asyncio.gather(self.feed(request), self.read_stdout(), self.read_stderr())
        try:
            # Not process.wait(): on Python 3.11 it also waits for the pipes to close.
            while self.process.returncode is None and not pipes.done():
                await asyncio.wait([pipes], timeout=_POLL_SEC)
            if not pipes.done():
                await asyncio.wait([pipes], timeout=_PIPE_GRACE_SEC)
            if pipes.done():
                pipes.result()  # a reader's error, if any
                await self.process.wait()
        finally:
            pipes.cancel()  # the reads of pipes a leftover child still holds, or on a timeout
            await asyncio.wait([pipes])
            with contextlib.suppress(asyncio.CancelledError):
                pipes.exception()  # retrieved, so asyncio does not report it later

    async def drain(self) -> None:
        """Once the group is killed: read the pipes to their end, discarding what a leftover
        child printed late, so they close with the call (process.wait() does not wait for them
        once the process has exited). A child that left the group gets _PIPE_GRACE_SEC."""
        for pipe in (self.process.stdout, self.process.stderr):
            assert pipe is not None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_PIPE_GRACE_SEC):
                    while await pipe.read(_CHUNK):
                        pass

    async def feed(self, data: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            stdin.write(data)
            await stdin.drain()
            stdin.close()

    async def read_stdout(self) -> None:
        assert self.process.stdout is not None
        while chunk := await self.process.stdout.read(_CHUNK):
            if not self.stdout.add(chunk):
                _kill_group(self.process)
                return

    async def read_stderr(self) -> None:
        assert self.process.stderr is not None
        kept = 0
        while chunk := await self.process.stderr.read(_CHUNK):
            self.stderr.append(chunk)
            self.stderr_bytes += len(chunk)
            kept += len(chunk)
            while kept - len(self.stderr[0]) >= STDERR_TAIL_BYTES:
                kept -= len(self.stderr.popleft())

    def log_stderr(self, who: str) -> None:
        """Its last STDERR_TAIL_BYTES of stderr, at debug level (shown with --debug)."""
        if not log.isEnabledFor(logging.DEBUG):
            return
        tail = b"".join(self.stderr)[-STDERR_TAIL_BYTES:]
        text = tail.decode("utf-8", errors="replace").strip()
        if not text:
            return
        cut = self.stderr_bytes - len(tail)
        note = f" (its last {len(tail)} bytes; {cut} before them cut)" if cut > 0 else ""
        log.debug("%s wrote to stderr%s:\n%s", who, note, text)

    def stderr_note(self) -> str:
        text = b"".join(self.stderr).decode("utf-8", errors="replace").strip()
        if not text:
            return ""
        lines = text.splitlines()[-5:]
        return "; stderr: " + quote("\n".join(lines))


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
