"""Option types shared by several command groups, so one flag reads the same everywhere."""

from __future__ import annotations

from typing import Annotated

import typer

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON (for scripts).")]
YesFlag = Annotated[
    bool, typer.Option("--yes", "-y", help="Approve the requested permissions without asking.")
]
DryRunFlag = Annotated[
    bool, typer.Option("--dry-run", help="Show what would change; change nothing.")
]
ModelOpt = Annotated[str | None, typer.Option("--model", "-m", help="Chat model.")]
HostOpt = Annotated[str | None, typer.Option("--host", help="LLM server URL.")]
