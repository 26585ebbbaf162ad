"""`homeclaw skill update/remove`: lifecycle commands for skills installed by `skill install`."""

from __future__ import annotations

from typing import Annotated

import typer

from homeclaw_cli.surfaces.cli.options import DryRunFlag, JsonFlag, YesFlag
from homeclaw_cli.surfaces.cli.plugin_install import approver, show_updates
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

app = typer.Typer()


@app.command("update")
def update(
    ctx: typer.Context,
    *,
    skill_id: Annotated[str | None, typer.Argument(help="Installed skill id (or --all).")] = None,
    update_all: Annotated[
        bool, typer.Option("--all", help="Update every installed skill.")
    ] = False,
    dry_run: DryRunFlag = False,
    yes: YesFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Re-resolve installed skills' sources; show the diff and upgrade what changed."""
    from homeclaw_cli.app.skill_lifecycle import update_skills
    from homeclaw_cli.errors import UsageError

    if (skill_id is None) == (not update_all):
        raise UsageError("give one skill id, or --all", hint="homeclaw skill update --all")
    out = Output(json_mode=as_json)
    results = update_skills(
        get_state(ctx).settings(),
        [skill_id] if skill_id else [],
        approve=approver(out, yes),
        dry_run=dry_run,
    )
    show_updates(out, results)


@app.command("remove")
def remove(
    ctx: typer.Context,
    skill_id: Annotated[str, typer.Argument(help="Installed skill id.")],
) -> None:
    """Delete an installed skill, its lockfile entry and its approvals."""
    from homeclaw_cli.app.skill_lifecycle import remove_skill

    result = remove_skill(get_state(ctx).settings(), skill_id)
    Output().text(f"removed {result.plugin_id} ({result.folder})")
