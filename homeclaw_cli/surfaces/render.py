"""The one place that prints: Rich on a terminal, plain text when piped, JSON when asked.

Commands build result data and hand it here with `Output.result(payload, show)`: `--json`
prints the payload as one JSON document on stdout (objects with `to_json()` are serialised by
it), otherwise `show()` prints it for people. Tables become Rich tables on a terminal and
tab-separated lines otherwise (stable for `cut`/`awk`). Messages for people (errors, warnings,
progress) go to stderr. NO_COLOR is honoured by Rich itself. Nothing else imports Rich, apart
from the REPL, which hands its prompt-toolkit-patched console in.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

# A piece of a line: plain text, or (text, Rich style) such as ("ok", "green").
Segment = str | tuple[str, str]


class Output:
    """Where a command's results and messages go.

    `console` serves both streams (the REPL prints everything into its terminal);
    `for_people` says the reader is a person even when the console is not a terminal
    (the REPL again), so tables keep their headers instead of turning into TSV for scripts.
    """

    def __init__(
        self,
        *,
        json_mode: bool = False,
        console: Console | None = None,
        for_people: bool | None = None,
    ) -> None:
        self.json_mode = json_mode
        self.out = console or Console(file=sys.stdout, soft_wrap=True)
        self.err = console or Console(file=sys.stderr, soft_wrap=True)
        self._for_people = self.out.is_terminal if for_people is None else for_people

    @property
    def rich(self) -> bool:
        """True when a person reads stdout (a terminal, not piped, not --json)."""
        return self._for_people and not self.json_mode

    # --- results on stdout -------------------------------------------------------------------

    def result(self, payload: object, show: Callable[[], None]) -> None:
        """--json: `payload` as the JSON document; otherwise `show()` prints it for people."""
        if self.json_mode:
            self.json(payload)
        else:
            show()

    def json(self, payload: object) -> None:
        """One JSON document on stdout: the payload itself (an object, or a list for listings)."""
        self._write(json.dumps(payload, indent=2, default=_encode, ensure_ascii=False) + "\n")

    def text(self, text: str) -> None:
        """Payload text on stdout, printed verbatim (never parsed as markup)."""
        self._write(text if text.endswith("\n") else text + "\n")

    def line(self, *segments: Segment) -> None:
        """One line of styled segments on a terminal; the same text unstyled otherwise."""
        if self.rich:
            self.out.print(Text.assemble(*segments), highlight=False)
        else:
            self.text("".join(s if isinstance(s, str) else s[0] for s in segments))

    def verdict(self, ok: bool, subject: str) -> None:
        """One validation line: ✓/✗ on a terminal, ok/invalid when piped, then `subject` as is."""
        if self.rich:
            self.line(("✓", "green") if ok else ("✗", "red"), f" {subject}")
        else:
            self.text(f"{'ok' if ok else 'invalid'} {subject}")

    def tally(self, verdicts: Sequence[bool]) -> None:
        """The closing count of a validation run, on stderr."""
        bad = sum(not ok for ok in verdicts)
        self.info(f"{len(verdicts) - bad} valid, {bad} invalid")

    def table(
        self,
        columns: Sequence[str],
        rows: Sequence[Sequence[Any]],
        *,
        title: str | None = None,
        styles: dict[str, str] | None = None,
    ) -> None:
        """A Rich table on a terminal, one tab-separated line per row otherwise."""
        if not self.rich:
            for row in rows:
                self.text("\t".join("" if v is None else str(v) for v in row))
            return
        table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
        for column in columns:
            table.add_column(column, style=(styles or {}).get(column), overflow="fold")
        for row in rows:
            table.add_row(*("" if v is None else escape(str(v)) for v in row))
        self.out.print(table)

    @contextmanager
    def stream(self, *, markdown: bool = False) -> Iterator[Callable[[str], None]]:
        """Yield a callback for streamed answer text; ends the output with a newline.

        With `markdown` on a terminal the text is re-rendered live as Markdown.
        """
        pieces: list[str] = []
        if markdown and self.rich and self.out.is_terminal:
            from rich.live import Live
            from rich.markdown import Markdown

            with Live(Markdown(""), console=self.out, refresh_per_second=12) as live:

                def show_live(piece: str) -> None:
                    pieces.append(piece)
                    live.update(Markdown("".join(pieces)))

                yield show_live
            return

        def show_raw(piece: str) -> None:
            pieces.append(piece)
            self._write(piece)

        yield show_raw
        if pieces and not "".join(pieces).endswith("\n"):
            self._write("\n")

    # --- messages for people on stderr ---------------------------------------------------------

    def info(self, message: str, *, style: str | None = None) -> None:
        """A message for people on stderr, printed verbatim (it quotes user data)."""
        self.err.print(Text(message, style=style or ""), highlight=False)

    def warning(self, message: str) -> None:
        """`warning: message` on stderr."""
        self.err.print(f"[yellow]warning:[/yellow] {escape(message)}", highlight=False)

    def error(self, message: str, hint: str | None = None, *, label: str = "error") -> None:
        """`error: message` (and `hint: ...`) on stderr."""
        self.err.print(f"[bold red]{label}:[/bold red] {escape(message)}", highlight=False)
        if hint:
            self.err.print(f"[dim]hint:[/dim] {escape(hint)}", highlight=False)

    @contextmanager
    def status(self, message: str) -> Iterator[None]:
        """A spinner on a terminal's stderr; nothing when piped."""
        if self.err.is_terminal and not self.json_mode:
            with self.err.status(message):
                yield
        else:
            yield

    @contextmanager
    def progress(self, *, enabled: bool) -> Iterator[ProgressBars | None]:
        """Progress bars on a terminal's stderr while `enabled`; None otherwise."""
        if not (enabled and self.err.is_terminal):
            yield None
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=self.err,
            transient=True,
        ) as progress:
            yield ProgressBars(progress)

    def _write(self, text: str) -> None:
        self.out.file.write(text)
        self.out.file.flush()


class ProgressBars:
    """One bar per started task (the SyncProgress protocol of app/sync.py)."""

    def __init__(self, progress: Any) -> None:
        self._progress = progress
        self._task: Any = None

    def start(self, kind: str, total: int) -> None:
        """Begin a bar for embedding `total` items of `kind`."""
        self._task = self._progress.add_task(f"embedding {kind}", total=total)

    def advance(self, count: int) -> None:
        """Move the current bar on by `count` items."""
        if self._task is not None:
            self._progress.advance(self._task, count)


def _encode(value: object) -> Any:
    """JSON for what json.dumps does not know: result objects by `to_json()`, the rest as text."""
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else str(value)
