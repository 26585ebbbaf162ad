"""The steps of an install, update or register, shown on stderr as they happen.

On a terminal the running step spins with its detail and each finished one stays as a line
(`✓ fetch   folder ./weather   0.02 s`); piped, each finished step is one plain line
(`fetch: folder ./weather (0.02 s)`); under --json nothing is shown. The use cases report
their steps through AppContext.steps, which `show_steps` points at a StepLog.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.text import Text

from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.context import AppContext

_WIDTH = 9  # the longest step name ("validate") and a space


class StepLog:
    """A StepReporter that prints each step when it ends, with how long it took."""

    def __init__(self, out: Output) -> None:
        self._out = out
        self._shown = not out.json_mode
        self._live = self._shown and out.err.is_terminal
        self._current: tuple[str, str, float] | None = None
        self._spinner: Any = None
        self.timings: list[tuple[str, float]] = []

    def __call__(self, step: str, detail: str) -> None:
        """A new step starts (and so the previous one ended well); "" starts none."""
        self._end(ok=True)
        if not step:
            return
        self._current = (step, detail, time.perf_counter())
        if self._live:
            message = f"{step} {detail}"
            if self._spinner is None:
                self._spinner = self._out.err.status(message)
                self._spinner.start()
            else:
                self._spinner.update(message)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Stop the spinner while the terminal is needed (the approval prompt)."""
        spinner, self._spinner = self._spinner, None
        if spinner is not None:
            spinner.stop()
        yield

    def close(self, *, ok: bool) -> None:
        """The operation ended: print the last step (✗ when it failed) and stop the spinner."""
        self._end(ok=ok)
        if self._spinner is not None:
            self._spinner.stop()
            self._spinner = None

    def _end(self, *, ok: bool) -> None:
        if self._current is None:
            return
        step, detail, started = self._current
        self._current = None
        seconds = time.perf_counter() - started
        self.timings.append((step, seconds))
        if not self._shown:
            return
        if self._live:
            mark = ("✓ ", "green") if ok else ("✗ ", "red")
            line = Text.assemble(
                "  ", mark, (step.ljust(_WIDTH), "bold"), detail, (f"  {seconds:.2f} s", "dim")
            )
            if self._spinner is not None:
                self._spinner.console.print(line, highlight=False)
            else:
                self._out.err.print(line, highlight=False)
        else:
            failed = "" if ok else " failed"
            self._out.info(f"{step}: {detail}{failed} ({seconds:.2f} s)")


@contextmanager
def show_steps(out: Output, context: AppContext) -> Iterator[StepLog]:
    """Report `context`'s steps on `out` until the block ends."""
    log = StepLog(out)
    previous, context.steps = context.steps, log
    try:
        yield log
    except BaseException:
        log.close(ok=False)
        raise
    finally:
        context.steps = previous
    log.close(ok=True)
