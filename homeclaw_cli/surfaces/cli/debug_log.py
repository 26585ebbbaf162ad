"""`--debug`: what the lower layers log at debug level (a subprocess plugin's stderr), on
stderr; without it those records are dropped."""

from __future__ import annotations

import logging
import sys

from homeclaw_cli.surfaces.terminal_safe import terminal_safe

DEBUG_LOGGERS = ("homeclaw.plugins",)


class _StderrHandler(logging.Handler):
    """Writes to the current sys.stderr (looked up at each record: the in-process test runner
    swaps it per command), without the escape sequences a plugin may have printed."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = terminal_safe(self.format(record))
            sys.stderr.write(f"debug: {text}\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


def show_debug_log(enabled: bool) -> None:
    """Show the debug records of DEBUG_LOGGERS on stderr, or (not `enabled`) none of them.

    Called once per command: a second command in the same process starts from its own flag."""
    for name in DEBUG_LOGGERS:
        logger = logging.getLogger(name)
        for handler in [h for h in logger.handlers if isinstance(h, _StderrHandler)]:
            logger.removeHandler(handler)
        logger.setLevel(logging.DEBUG if enabled else logging.NOTSET)
        if enabled:
            logger.addHandler(_StderrHandler())
