"""`homeclaw skill update/remove`: lifecycle commands for skills installed by `skill install`."""

from __future__ import annotations

from typing import Annotated

import typer

from homeclaw_cli.surfaces.cli.confirm import DeleteYesFlag, confirm_removal
from homeclaw_cli.surfaces.cli.install_view import run_update, show_removed
from homeclaw_cli.surfaces.cli.options import DryRunFlag, JsonFlag, YesFlag
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
    from homeclaw_cli.app.install.skill import update_skills

    run_update(
        ctx,
        "skill",
        update_skills,
        skill_id,
        update_all=update_all,
        dry_run=dry_run,
        yes=yes,
        as_json=as_json,
    )


@app.command("remove")
def remove(
    ctx: typer.Context,
    skill_id: Annotated[str, typer.Argument(help="Installed skill id.")],
    yes: DeleteYesFlag = False,
) -> None:
    """Delete an installed skill, its lockfile entry and its approvals (asks first)."""
    from homeclaw_cli.app.install.skill import remove_skill

    context = get_state(ctx).context()
    out = Output()
    confirm_removal(out, "skill", skill_id, context.settings.user_skills_dir, yes=yes)
    show_removed(out, remove_skill(context, skill_id))
