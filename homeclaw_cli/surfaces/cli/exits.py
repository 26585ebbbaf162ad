"""How a command that reported its result still fails: its error in the --json envelope,
next to the data, and its exit code."""

from __future__ import annotations

from typing import NoReturn

import typer

from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.surfaces.render import Output


def exit_failed(out: Output, error: HomeclawError) -> NoReturn:
    """End the command with `error`'s exit code; under --json, `.error` describes it (the
    human-readable report, printed already, says the same on a terminal)."""
    out.json_error(error)
    raise typer.Exit(int(error.exit_code))
