"""What a plugin process or skill script leaves running, found and ended with the call (Linux).

Killing the call's process group misses a child that left it (`setsid`, a double fork,
`nohup ... &` in a new session). Every call's process gets a fresh token in its environment
(CALL_ENV), which its descendants inherit whatever session or parent they end up with; once
the call is over, the processes of this user whose initial environment carries the token are
killed. Orphans reparent to init, which reaps them, so homeclaw never waits for processes it
did not start (its managed servers, started without a token, are never touched).

Why not a child subreaper: orphans would become homeclaw's children, and telling which call
(or which managed server) one came from still needs a mark like this token; reaping them
would race the exit statuses asyncio and subprocess wait for. A process that replaces its
whole environment (`env -i`) loses the token and escapes; other OSes keep the group kill.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import uuid
from pathlib import Path

CALL_ENV = "HOMECLAW_CALL_ID"
_ROUNDS = 5  # a leftover may fork while it is being killed: look again, a few times


def new_call_token() -> str:
    return uuid.uuid4().hex


def end_leftovers(token: str) -> int:
    """SIGKILL every process of this user that carries `token`; how many were killed."""
    if not sys.platform.startswith("linux"):
        return 0
    mark = f"{CALL_ENV}={token}".encode()
    killed = 0
    for _ in range(_ROUNDS):
        found = _marked(mark)
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
    return killed


def _marked(mark: bytes) -> list[int]:
    """The live processes of this user whose initial environment holds `mark` (a killed one
    is a zombie by the next round, and a zombie's environment reads empty)."""
    me, uid = os.getpid(), os.getuid()
    found = []
    with os.scandir("/proc") as entries:
        for entry in entries:
            if not entry.name.isdigit() or int(entry.name) == me:
                continue
            try:
                if entry.stat().st_uid != uid:
                    continue
                environ = Path("/proc", entry.name, "environ").read_bytes()
            except OSError:
                continue
            if mark in environ.split(b"\0"):
                found.append(int(entry.name))
    return found
