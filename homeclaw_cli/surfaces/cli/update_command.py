"""`homeclaw plugin update` and `homeclaw skill update`: one command, built for each kind."""

# No `from __future__ import annotations` here: Typer reads the parameters' annotations when
# the command is registered, and these are built from the kind, inside the function.

from collections.abc import Callable
from typing import Annotated, Literal

import typer

from homeclaw_cli.surfaces.cli import complete
from homeclaw_cli.surfaces.cli.install_view import Updater, run_update
from homeclaw_cli.surfaces.cli.options import DryRunFlag, JsonFlag, YesFlag


def add_update_command(
    app: typer.Typer, kind: Literal["plugin", "skill"], load: Callable[[], Updater]
) -> None:
    """Register `update` on a kind's app; `load` imports the updater only when it runs."""
    item = Annotated[
        str | None, complete.installed_argument(kind, f"Installed {kind} id (or --all).")
    ]
    every = Annotated[bool, typer.Option("--all", help=f"Update every installed {kind}.")]

    def update(
        ctx: typer.Context,
        *,
        item_id: item = None,
        update_all: every = False,
        dry_run: DryRunFlag = False,
        yes: YesFlag = False,
        as_json: JsonFlag = False,
    ) -> None:
        run_update(
            ctx,
            kind,
            load(),
            item_id,
            update_all=update_all,
            dry_run=dry_run,
            yes=yes,
            as_json=as_json,
        )

    update.__doc__ = (
        f"Re-resolve installed {kind}s' sources; show the diff and upgrade what changed."
    )
    app.command("update")(update)
