"""The one place that prints: Rich on a terminal, plain text when piped, JSON when asked.

Commands build result data and hand it here with `Output.result(payload, show)`: under
`--json` the payload becomes the `data` of the command's one JSON envelope (objects with
`to_json()` are serialised by it), which the CLI's error boundary writes to stdout when the
command ends, with `ok` from its exit status and the warnings it printed; otherwise `show()`
prints it for people. Tables become Rich tables on a terminal and tab-separated lines otherwise
(stable for `cut`/`awk`). Messages for people (errors, warnings, progress) go to stderr.
NO_COLOR is honoured by Rich itself. Nothing else imports Rich, apart from its helper
surfaces/trimmed.py and the REPL, which hands its prompt-toolkit-patched console in.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from homeclaw_cli import errors
from homeclaw_cli.core.ports import TextSink
from homeclaw_cli.surfaces.terminal_safe import SafeStream, terminal_safe

if TYPE_CHECKING:
    from rich.console import RenderableType
    from rich.live import Live

# A piece of a line: plain text, or (text, Rich style) such as ("ok", "green").
Segment = str | tuple[str, str]

# The version of the `--json` envelope; it changes only when the envelope's own keys do.
ENVELOPE_VERSION = 1


class Envelope:
    """The one JSON document a `--json` command prints: its data, or its error, and warnings."""

    def __init__(self, command: str) -> None:
        self.command = command
        self.data: object = None
        self.error: errors.HomeclawError | None = None  # what ended a command, next to its data
        self.warnings: list[str] = []

    def succeeded(self, ok: bool) -> dict[str, object]:
        """The envelope of a command that ran to its end (`ok`: it exited 0)."""
        document = {**self._head(ok), "data": self.data}
        if self.error is not None:
            document["error"] = _described(self.error)
        return {**document, "warnings": self.warnings}

    def failed(self, error: errors.HomeclawError) -> dict[str, object]:
        """The envelope of a command stopped by `error`."""
        return {**self._head(False), "error": _described(error), "warnings": self.warnings}

    def _head(self, ok: bool) -> dict[str, object]:
        return {"homeclaw": ENVELOPE_VERSION, "command": self.command, "ok": ok}


# The envelope of the running command, opened by its --json flag (None without one).
_envelope: ContextVar[Envelope | None] = ContextVar("homeclaw_envelope", default=None)


def open_envelope(command: str) -> None:
    """Make `command`'s output one envelope: called when it is given `--json`."""
    _envelope.set(Envelope(command))


@contextmanager
def envelope_scope() -> Iterator[None]:
    """One CLI invocation: it starts without an envelope and leaves none behind."""
    token = _envelope.set(None)
    try:
        yield
    finally:
        _envelope.reset(token)


def write_envelope(exit_code: int, error: errors.HomeclawError | None = None) -> None:
    """Print the open envelope, if the command was given `--json`: its data, or `error`."""
    envelope = _envelope.get()
    if envelope is None:
        return
    _envelope.set(None)
    document = envelope.failed(error) if error else envelope.succeeded(exit_code == 0)
    sys.stdout.write(_dumps(document))
    sys.stdout.flush()


def _described(error: errors.HomeclawError) -> dict[str, object]:
    return {
        "message": error.message,
        "hint": error.hint,
        "exit_code": int(error.exit_code),
        "kind": error_kind(error),
    }


def error_kind(error: errors.HomeclawError) -> str:
    """The error's family in errors.py in snake case: `not_found`, `usage`, `error` (the base)."""
    family = next(c for c in type(error).__mro__ if c.__module__ == errors.__name__)
    if family is errors.HomeclawError:
        return "error"
    return re.sub(r"(?<!^)(?=[A-Z])", "_", family.__name__.removesuffix("Error")).lower()


def clip(text: str, width: int) -> str:
    """`text` on one line, at most `width` characters, cut at a word boundary with `…`."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    cut = flat[: width - 1]
    space = cut.rfind(" ")
    if space > width // 2:  # a word boundary not too far back; else cut the long word
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


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
        self._envelope = _envelope.get() if json_mode else None
        self.out = console or Console(file=sys.stdout, soft_wrap=True)
        self.err = console or Console(file=sys.stderr, soft_wrap=True)
        self._for_people = self.out.is_terminal if for_people is None else for_people

    @property
    def rich(self) -> bool:
        """True when a person reads stdout (a terminal, not piped, not --json)."""
        return self._for_people and not self.json_mode

    # --- results on stdout -------------------------------------------------------------------

    def result(self, payload: object, show: Callable[[], None]) -> None:
        """--json: `payload` as the envelope's data; otherwise `show()` prints it for people."""
        if self.json_mode:
            self.json(payload)
        else:
            show()

    def json(self, payload: object) -> None:
        """The `data` of the command's envelope (an object, or a list for listings)."""
        if self._envelope is None:
            raise RuntimeError("JSON output without an envelope: declare --json with JsonFlag")
        self._envelope.data = payload

    def json_error(self, error: errors.HomeclawError) -> None:
        """--json: the envelope's `error`, for a command that ends with it and still reports
        its data (printing `error` on stderr is left to the caller)."""
        if self._envelope is not None:
            self._envelope.error = error

    def text(self, text: str) -> None:
        """Payload text on stdout, never parsed as markup, without terminal control sequences."""
        self._write(terminal_safe(text if text.endswith("\n") else text + "\n"))

    def line(self, *segments: Segment) -> None:
        """One line of styled segments on a terminal; the same text unstyled otherwise."""
        pairs = [(s, "") if isinstance(s, str) else s for s in segments]
        safe = [(terminal_safe(text), style) for text, style in pairs]
        if self.rich:
            self.out.print(Text.assemble(*safe), highlight=False)
        else:
            self.text("".join(text for text, _ in safe))

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
        whole: Sequence[str] = (),
    ) -> None:
        """A Rich table on a terminal, one tab-separated line per row otherwise. The `whole`
        columns (ids a user copies) never wrap: the other columns wrap to make room."""
        if not self.rich:
            for row in rows:  # a tab or newline inside a cell would split its row or column
                self.text("\t".join("" if v is None else " ".join(str(v).split()) for v in row))
            return
        table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
        for index, column in enumerate(columns):
            style = (styles or {}).get(column)
            if column in whole:
                width = max([len(column), *(len(str(row[index] or "")) for row in rows)])
                table.add_column(column, style=style, no_wrap=True, min_width=width)
            else:
                table.add_column(column, style=style, overflow="fold")
        for row in rows:
            table.add_row(*("" if v is None else escape(terminal_safe(str(v))) for v in row))
        self.out.print(table)

    @contextmanager
    def stream(self, *, markdown: bool = False) -> Iterator[Callable[[str], None]]:
        """Yield a callback for streamed answer text; ends the output with a newline.

        With `markdown` on a terminal the text is re-rendered live as Markdown (its lines
        without Rich's padding to the full width). Control sequences never reach the terminal.
        """
        pieces: list[str] = []
        if markdown and self.rich and self.out.is_terminal:
            from rich.live import Live
            from rich.markdown import Markdown

            from homeclaw_cli.surfaces.trimmed import Trimmed

            with Live(Trimmed(Markdown("")), console=self.out, refresh_per_second=12) as live:

                def show_live(piece: str) -> None:
                    pieces.append(piece)
                    live.update(Trimmed(Markdown(terminal_safe("".join(pieces)))))

                yield show_live
            return

        safe = SafeStream()

        def show_raw(piece: str) -> None:
            pieces.append(piece)
            self._write(safe.feed(piece))

        yield show_raw
        self._write(safe.end())
        if pieces and not "".join(pieces).endswith("\n"):
            self._write("\n")

    # --- messages for people on stderr ---------------------------------------------------------

    def info(self, message: str, *, style: str | None = None) -> None:
        """A message for people on stderr, printed verbatim (it quotes user data)."""
        self.err.print(Text(terminal_safe(message), style=style or ""), highlight=False)

    def passthrough(self, text: str) -> None:
        """What another program printed, on stderr (no markup, no wrapping, no control codes)."""
        self.err.file.write(terminal_safe(text if text.endswith("\n") else text + "\n"))
        self.err.file.flush()

    def warning(self, message: str) -> None:
        """`warning: message` on stderr, and in the `--json` envelope's warnings."""
        if self._envelope is not None:
            self._envelope.warnings.append(message)
        self.err.print(
            f"[yellow]warning:[/yellow] {escape(terminal_safe(message))}", highlight=False
        )

    def error(self, message: str, hint: str | None = None, *, label: str = "error") -> None:
        """`error: message` (and `hint: ...`) on stderr."""
        self.err.print(
            f"[bold red]{label}:[/bold red] {escape(terminal_safe(message))}", highlight=False
        )
        if hint:
            self.err.print(f"[dim]hint:[/dim] {escape(terminal_safe(hint))}", highlight=False)

    @contextmanager
    def status(self, message: str) -> Iterator[None]:
        """A spinner on a terminal's stderr; nothing when piped."""
        if self.err.is_terminal and not self.json_mode:
            with self.err.status(message):
                yield
        else:
            yield

    def activity(self) -> Activity | None:
        """A spinner for a chat turn's waits on a terminal's stdout; None when not one."""
        return Activity(self.out) if self.out.is_terminal and not self.json_mode else None

    @contextmanager
    def progress(self, *, enabled: bool) -> Iterator[ProgressBars | None]:
        """Progress bars on a terminal's stderr while `enabled`; None otherwise."""
        if not (enabled and self.err.is_terminal):
            yield None
            return
        with _bars(self.err) as progress:
            yield ProgressBars(progress)

    @contextmanager
    def item_progress(self, what: str, *, enabled: bool) -> Iterator[ItemProgress | None]:
        """Per-item progress on stderr while `enabled`: a Rich bar on a terminal, one plain
        line per finished item when piped (a long run in cron still shows it is moving)."""
        if not enabled or self.json_mode:
            yield None
            return
        if not self.err.is_terminal:
            yield ItemProgress(what, self.err, None)
            return
        with _bars(self.err) as progress:
            yield ItemProgress(what, self.err, progress)

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


class ItemProgress:
    """Progress of a run over items (the ExpandProgress protocol of app/expand.py)."""

    def __init__(self, what: str, console: Console, progress: Any) -> None:
        self._what = what
        self._console = console
        self._progress = progress
        self._task: Any = None
        self._total = 0
        self._done = 0

    def start(self, total: int) -> None:
        """`total` items are about to be worked on."""
        self._total = total
        if self._progress is not None:
            self._task = self._progress.add_task(self._what, total=total)

    def item(self, label: str, examples: int, seconds: float, error: str | None) -> None:
        """One item finished: `examples` written in `seconds`, or `error`."""
        self._done += 1
        outcome = f"failed: {error}" if error else f"{examples} examples"
        if self._progress is not None:
            self._progress.advance(self._task, 1)
            if error:
                self._progress.console.print(Text(f"{label}: {outcome}", style="yellow"))
            return
        line = f"{self._what} {self._done}/{self._total} {label}: {outcome} ({seconds:.1f}s)"
        self._console.print(Text(line), highlight=False, soft_wrap=True)


def _dumps(document: object) -> str:
    return json.dumps(document, indent=2, default=_encode, ensure_ascii=False) + "\n"


def _encode(value: object) -> Any:
    """JSON for what json.dumps does not know: result objects by `to_json()`, the rest as text."""
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else str(value)


class Activity:
    """A StatusSink that draws a spinner with the elapsed seconds while a label is set: what a
    chat turn waits for ("thinking 12s"). The turn reports None before streamed text, an
    approval question or the end, and the spinner goes away (a transient Live; under the
    answer's own Live it is drawn beneath the text so far)."""

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


def _bars(console: Console) -> Any:
    """The Rich progress display of bars on `console` (gone when it ends)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
