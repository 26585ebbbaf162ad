"""Start `homeclaw serve` and the external plugin as real processes and wait for their events.

Both print a line when something happens (serve logs on stderr, the plugin prints `ready`);
a reader thread turns each stream into a queue so tests wait for a line, never sleep.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
EXTERNAL_PLUGIN = Path(__file__).with_name("external_plugin.py")


class LineProcess:
    """A subprocess whose stdout or stderr lines can be awaited."""

    def __init__(
        self,
        args: list[str],
        *,
        env: dict[str, str],
        watch: str = "stderr",
        cwd: Path | None = None,
    ) -> None:
        self.proc = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=cwd,  # default: the caller's cwd (tests run in a tmp folder, see hc_home)
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        stream = self.proc.stderr if watch == "stderr" else self.proc.stdout
        other = self.proc.stdout if watch == "stderr" else self.proc.stderr
        assert stream is not None and other is not None
        self._threads = [
            threading.Thread(target=self._pump, args=(stream, self.lines), daemon=True),
            threading.Thread(target=self._drain, args=(other,), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _pump(stream: IO[str], lines: queue.Queue[str]) -> None:
        with stream:  # closed at EOF, i.e. when the process has exited
            for line in stream:
                lines.put(line.rstrip("\n"))

    def _drain(self, stream: IO[str]) -> None:
        with stream:
            for line in stream:
                self.seen.append(line.rstrip("\n"))

    def _reap(self) -> None:
        for thread in self._threads:
            thread.join(timeout=10)

    def wait_for(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        """The first new line matching `pattern`; fails with everything seen so far."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"no line matching {pattern!r}; saw: {self.seen}")
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            self.seen.append(line)
            match = regex.search(line)
            if match:
                return match
            if self.proc.poll() is not None and self.lines.empty():
                raise AssertionError(f"process exited {self.proc.returncode}; saw: {self.seen}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reap()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._reap()


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT), **(extra or {})}


def start_serve(env: dict[str, str], *args: str) -> tuple[LineProcess, str]:
    """`homeclaw serve --port 0`; returns the process and its base URL once listening."""
    proc = LineProcess(
        [sys.executable, "-m", "homeclaw_cli", "serve", "--port", "0", *args], env=env
    )
    match = proc.wait_for(r"serving on (http://\S+)")
    return proc, match.group(1)


def start_plugin(
    env: dict[str, str],
    *,
    homeclaw: str | None,
    token_file: Path | None,
    plugin_id: str = "echo",
    port: int = 0,
) -> tuple[LineProcess, int, str]:
    """The external plugin; returns (process, its port, its registration HTTP status)."""
    args = [sys.executable, str(EXTERNAL_PLUGIN), "--port", str(port), "--id", plugin_id]
    if homeclaw:
        args += ["--homeclaw", homeclaw]
    if token_file:
        args += ["--token-file", str(token_file)]
    proc = LineProcess(args, env=env, watch="stdout")
    match = proc.wait_for(r"^ready (\d+) (\S+)")
    return proc, int(match.group(1)), match.group(2)


def gone_soon(pid: int, timeout: float = 5.0) -> bool:
    """Whether `pid` is gone (or a zombie: its parent reaps it) within `timeout`; a SIGKILL
    takes effect when the process is next scheduled, not when kill() returns."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                return True
        except (FileNotFoundError, ProcessLookupError):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
