"""Ask before deleting: a yes/no question on a terminal (default no), `--yes` everywhere else.

Off a terminal nobody can answer, and a script that deletes must say so: without `--yes`
the command stops with a usage error before anything is deleted.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from homeclaw_cli.errors import ExitCode, UsageError
from homeclaw_cli.surfaces.render import Output

DeleteYesFlag = Annotated[bool, typer.Option("--yes", "-y", help="Delete without asking.")]


def on_terminal() -> bool:
    """Whether a person can answer a question (stdin is a terminal)."""
    return sys.stdin.isatty()


def confirm_deletion(out: Output, question: str, *, yes: bool) -> None:
    """Return when the deletion may go ahead; otherwise stop with nothing deleted.

    `question` is the sentence asked, e.g. "delete 1 of 23 logged turns?".
    """
    if yes:
        return
    if not on_terminal():
        raise UsageError(
            f"{question.rstrip('?')}: not asked, stdin is not a terminal; nothing was deleted",
            hint="rerun with --yes to delete without asking",
        )
    try:
        agreed = typer.confirm(question[:1].upper() + question[1:], default=False, err=True)
    except typer.Abort:  # Ctrl-C or Ctrl-D at the question
        agreed = False
    if not agreed:
        out.info("nothing deleted")
        raise typer.Exit(int(ExitCode.FAILURE))


def confirm_removal(out: Output, what: str, item_id: str, root: Path, *, yes: bool) -> None:
    """Ask before `plugin/skill remove` deletes `root/item_id`; an id that is not installed
    is not asked about (the remove itself explains what is installed)."""
    folder = root / item_id
    if folder.is_dir() and not item_id.startswith("."):
        confirm_deletion(out, f"remove {what} {item_id} ({folder})?", yes=yes)
