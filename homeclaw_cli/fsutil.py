"""Files that matter are written atomically and guarded by locks.

Cron (`homeclaw sync`) and a running REPL or server can touch the same state at the same time:
writers take an exclusive lock, and every write goes to a temporary file that is renamed over
the target, so a reader sees the old content or the new one, never half of each.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from homeclaw_cli.errors import ConfigError, LockedError, not_writable


def unwritable(path: Path, exc: OSError) -> ConfigError | None:
    """not_writable() for a write that permissions or a read-only mount refused, else None;
    a file where a folder must be created (HOMECLAW_HOME naming a file) is named too, and so is
    a folder where a file must be written.

    Names the folder, or the file itself when only the file is read-only."""
    target = Path(exc.filename) if isinstance(exc.filename, str) else path
    if exc.errno == errno.EISDIR:
        return folder_in_the_way(path)
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        blocker = next((p for p in (target, *target.parents) if p.exists()), None)
        if blocker is None or blocker.is_dir():
            return None
        return ConfigError(
            f"{blocker} is a file where homeclaw needs a folder for its state",
            hint="move that file away, or set HOMECLAW_HOME (or data_dir in the config) "
            "to a folder",
        )
    if not isinstance(exc, PermissionError) and exc.errno != errno.EROFS:
        return None
    folder = target if target.is_dir() else target.parent
    folder_ok = folder.is_dir() and os.access(folder, os.W_OK)
    return not_writable(target if folder_ok and target.exists() else folder)


def folder_in_the_way(path: Path) -> ConfigError:
    """The error for a folder standing where homeclaw keeps the file `path`."""
    return ConfigError(
        f"{path} is a folder where homeclaw keeps a file",
        hint="move that folder away (homeclaw creates the file anew), then run the command again",
    )


@contextlib.contextmanager
def writing(path: Path) -> Iterator[None]:
    """Turn a refused write under `path` into not_writable(); other errors pass unchanged."""
    try:
        yield
    except OSError as exc:
        error = unwritable(path, exc)
        if error is None:
            raise
        raise error from None


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write `data` to `path` through a fsynced temp file renamed into place."""
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            tmp.chmod(mode)
        with writing(path):
            tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


@contextlib.contextmanager
def file_lock(
    path: Path,
    *,
    timeout: float = 30.0,
    what: str = "this file",
    on_wait: Callable[[str], None] | None = None,
    hint: str = "wait for it to finish, then run the command again",
) -> Iterator[None]:
    """Hold an exclusive advisory lock on `path` (created if missing).

    The kernel drops the lock when the holder dies, so a process killed with -9 never leaves
    a stale lock behind. Raises LockedError after `timeout` seconds (0 = try once); `on_wait`
    hears one line when the wait starts, so a waiting command is not silent; `hint` is the
    LockedError's (a command that can wait longer names its option).
    """
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + timeout
    waiting = False
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockedError(
                        f"{_holder(fd)} is writing {what} (lock: {path})", hint=hint
                    ) from None
                if on_wait is not None and not waiting:
                    on_wait(
                        f"waiting for {_holder(fd)} to finish with {what} (lock: {path}; "
                        f"up to {timeout:g} s) ..."
                    )
                waiting = True
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        yield
    finally:
        os.close(fd)


def _holder(fd: int) -> str:
    """'another homeclaw process (pid N)': the holder writes its pid into the lock file."""
    try:
        pid = int(os.pread(fd, 32, 0).decode().strip())
    except (OSError, ValueError):
        return "another homeclaw process"
    return f"another homeclaw process (pid {pid})"
