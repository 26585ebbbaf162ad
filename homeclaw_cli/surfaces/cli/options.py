"""Option types shared by several command groups, so one flag reads the same everywhere."""

from __future__ import annotations

from typing import Annotated

import typer

from homeclaw_cli.surfaces.render import open_envelope


def command_path(ctx: typer.Context) -> str:
    """The command as typed after `homeclaw`: "plugin search", "sync"."""
    return ctx.command_path.removeprefix(ctx.find_root().command_path).strip()


def json_requested(ctx: typer.Context, value: bool) -> bool:
    """The --json callback: the command's output becomes one envelope (render.Envelope)."""
    if value and not ctx.resilient_parsing:
        open_envelope(command_path(ctx))
    return value


JsonFlag = Annotated[
    bool,
    typer.Option(
        "--json", help="Print one JSON envelope; .data holds the result.", callback=json_requested
    ),
]
YesFlag = Annotated[
    bool, typer.Option("--yes", "-y", help="Approve the requested permissions without asking.")
]
DryRunFlag = Annotated[
    bool, typer.Option("--dry-run", help="Show what would change; change nothing.")
]
ModelOpt = Annotated[str | None, typer.Option("--model", "-m", help="Chat model.")]
HostOpt = Annotated[str | None, typer.Option("--host", help="LLM server URL.")]
