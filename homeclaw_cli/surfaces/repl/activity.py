"""The REPL's spinner: what a turn waits for and for how long ("thinking 12s").

Shown only on a terminal, and only while nothing else is on screen: the turn reports None
before streamed text, an approval question or the end, and the spinner goes away (a transient
rich Live; under the answer's own Live it is drawn beneath the text so far).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from homeclaw_cli.core.ports import TextSink

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live


class Activity:
    """A StatusSink that draws a spinner with the elapsed seconds while a label is set."""

    def __init__(self, console: Console) -> None:
        from rich.spinner import Spinner

        self.console = console
        self.label: str | None = None
        self.since = 0.0
        self._spinner = Spinner("dots", style="cyan")
        self._live: Live | None = None

    def __call__(self, label: str | None) -> None:
        if label is None:
            self.stop()
            return
        if label != self.label:
            self.since = time.monotonic()
        self.label = label
        if self._live is None:
            from rich.live import Live

            self._live = Live(self, console=self.console, transient=True, refresh_per_second=8)
            self._live.start()
            self._live.refresh()  # now: a nested Live (under the answer's) skips it in start

    def stop(self) -> None:
        """Take the spinner off the screen (before text, a question, or the prompt)."""
        self.label = None
        live, self._live = self._live, None
        if live is not None:
            live.stop()

    def __rich__(self) -> RenderableType:
        from rich.text import Text

        seconds = time.monotonic() - self.since
        self._spinner.update(text=Text(f" {self.label or ''} {seconds:.0f}s", style="dim"))
        return self._spinner

    def text_sink(self, show: TextSink) -> TextSink:
        """`show` (the streamed answer) that first takes the spinner away."""

        def sink(piece: str) -> None:
            if self._live is not None:
                self.stop()
            show(piece)

        return sink
