"""Where an in-process plugin's exception happened, in the plugin's own code.

An inline plugin runs under homeclaw's frames (the event loop, a worker thread, the runner):
the author needs the frames of their folder, so the one-line error names the innermost of
them and the traceback kept for `--debug` starts at the first. The dependencies that
`plugin install --with-deps` puts in the folder are not the author's code.
"""

from __future__ import annotations

import traceback
from pathlib import Path
from types import TracebackType

from homeclaw_cli.catalog.plugin_files import DEPS_DIRNAME


def plugin_location(exc: BaseException, folder: Path) -> str | None:
    """`plugin.py:11 in greet`: the innermost frame in `folder`, None when none is."""
    root = folder.resolve()
    found: str | None = None
    for frame in traceback.extract_tb(exc.__traceback__):
        relative = _inside(frame.filename, root)
        if relative is not None:
            found = f"{relative}:{frame.lineno} in {frame.name}"
    return found


def plugin_traceback(exc: BaseException, folder: Path) -> str:
    """The traceback from the first frame in `folder` on (all of it when none is there)."""
    root = folder.resolve()
    start: TracebackType | None = exc.__traceback__
    while start is not None and _inside(start.tb_frame.f_code.co_filename, root) is None:
        start = start.tb_next
    return "".join(traceback.format_exception(type(exc), exc, start or exc.__traceback__))


def syntax_location(exc: SyntaxError, folder: Path) -> str | None:
    """`helpers.py:3:9`: where a module of the plugin does not parse, None when elsewhere."""
    relative = _inside(exc.filename, folder.resolve()) if exc.filename else None
    if relative is None or exc.lineno is None:
        return relative
    return f"{relative}:{exc.lineno}" + (f":{exc.offset}" if exc.offset else "")


def _inside(filename: str, root: Path) -> str | None:
    """`filename` relative to `root` (POSIX form), or None when it lies elsewhere."""
    try:
        relative = Path(filename).resolve().relative_to(root)
    except (ValueError, OSError):
        return None
    return None if relative.parts[:1] == (DEPS_DIRNAME,) else relative.as_posix()
