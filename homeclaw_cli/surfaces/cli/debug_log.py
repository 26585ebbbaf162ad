"""`--debug`: what the lower layers log (a subprocess plugin's stderr at debug level, the mcp
SDK's client warnings such as a server's non-JSON stdout lines with their tracebacks), on
stderr; without it those records are dropped."""

from __future__ import annotations

import logging
import sys

from homeclaw_cli.surfaces.terminal_safe import terminal_safe

# Logger name -> the lowest level --debug shows (the SDK logs every message at debug level).
DEBUG_LOGGERS = {"homeclaw.plugins": logging.DEBUG, "mcp.client": logging.WARNING}


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
    for name, level in DEBUG_LOGGERS.items():
        logger = logging.getLogger(name)
        ours = (_StderrHandler, logging.NullHandler)
        for handler in [h for h in logger.handlers if isinstance(h, ours)]:
            logger.removeHandler(handler)
        logger.setLevel(level if enabled else logging.NOTSET)
        # Not passed up: with no handler above, Python's last-resort one prints them.
        logger.propagate = False
        logger.addHandler(_StderrHandler() if enabled else logging.NullHandler())
