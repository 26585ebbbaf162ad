"""The one place that prints: Rich on a terminal, plain text or JSON when piped or asked.

Commands build result data and hand it here. Tables become Rich tables on a terminal and
tab-separated lines otherwise (stable for `cut`/`awk`); `--json` always prints one JSON
document on stdout. Messages for people (errors, warnings, progress) go to stderr.
NO_COLOR is honoured by Rich itself.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


class Output:
    def __init__(self, *, json_mode: bool = False) -> None:
        self.json_mode = json_mode
        self.out = Console(file=sys.stdout, soft_wrap=True)
        self.err = Console(file=sys.stderr, soft_wrap=True)

    @property
    def rich(self) -> bool:
        """True when stdout is a terminal a person reads (not piped, not --json)."""
        return self.out.is_terminal and not self.json_mode

    def json(self, data: Any) -> None:
        sys.stdout.write(json.dumps(data, indent=2, default=str, ensure_ascii=False) + "\n")
        sys.stdout.flush()

    def text(self, text: str) -> None:
        """Payload text on stdout, printed verbatim (never parsed as markup)."""
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()

    def markup(self, text: str) -> None:
        """Rich markup on a terminal, plain text otherwise."""
        if self.rich:
            self.out.print(text)
        else:
            self.text(Console(file=None, no_color=True).render_str(text).plain)

    def verdict(self, ok: bool, subject: str) -> None:
        """One validation line: ✓/✗ on a terminal, ok/invalid when piped, then `subject` as is."""
        if self.rich:
            mark = "[green]✓[/green]" if ok else "[red]✗[/red]"
        else:
            mark = "ok" if ok else "invalid"
        self.markup(f"{mark} {escape(subject)}")

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

    def info(self, message: str, *, markup: bool = False) -> None:
        """A message for people on stderr, verbatim unless `markup` (it quotes user data)."""
        self.err.print(message, markup=markup, highlight=False)

    def warning(self, message: str) -> None:
        self.err.print(f"[yellow]warning:[/yellow] {escape(message)}", highlight=False)

    def error(self, message: str, hint: str | None = None) -> None:
        self.err.print(f"[bold red]error:[/bold red] {escape(message)}", highlight=False)
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
