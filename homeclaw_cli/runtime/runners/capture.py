"""Keep what in-process plugins print off the terminal (seed 000 §5.6: plugins return results).

sys.stdout/sys.stderr are swapped, while at least one inline call runs, for a stream that
sends writes made inside a capture (tracked with a ContextVar, which follows asyncio tasks
and asyncio.to_thread) to that capture's buffer and every other write to the real stream.
So a spinner printed by homeclaw during the call still reaches the terminal.
"""

from __future__ import annotations

import contextlib
import io
import sys
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any, TextIO

MAX_CAPTURE_CHARS = 64 * 1024
_current: ContextVar[io.StringIO | None] = ContextVar("homeclaw_plugin_capture", default=None)


class _Installed:
    """How many captures are open, and the real streams to restore when none is."""

    lock = threading.Lock()
    active = 0
    saved: tuple[TextIO, TextIO] | None = None


class _Router(io.TextIOBase):
    def __init__(self, real: TextIO) -> None:
        self.real = real

    def write(self, text: str) -> int:
        buffer = _current.get()
        if buffer is None:
            return self.real.write(text)
        if buffer.tell() < MAX_CAPTURE_CHARS:
            buffer.write(text[: MAX_CAPTURE_CHARS - buffer.tell()])
        return len(text)

    def flush(self) -> None:
        if _current.get() is None:
            self.real.flush()

    def isatty(self) -> bool:
        return _current.get() is None and self.real.isatty()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@contextlib.contextmanager
def captured_output() -> Iterator[io.StringIO]:
    """Collect everything printed in this context (and threads/tasks started from it)."""
    buffer = io.StringIO()
    with _Installed.lock:
        if _Installed.active == 0:
            _Installed.saved = (sys.stdout, sys.stderr)
            sys.stdout = _Router(sys.stdout)
            sys.stderr = _Router(sys.stderr)
        _Installed.active += 1
    token = _current.set(buffer)
    try:
        yield buffer
    finally:
        _current.reset(token)
        with _Installed.lock:
            _Installed.active -= 1
            if _Installed.active == 0 and _Installed.saved is not None:
                sys.stdout, sys.stderr = _Installed.saved
                _Installed.saved = None
