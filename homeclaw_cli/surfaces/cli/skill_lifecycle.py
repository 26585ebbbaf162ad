"""`homeclaw skill update/remove`: lifecycle commands for skills installed by `skill install`."""

from __future__ import annotations

from typing import Annotated

import typer

from homeclaw_cli.surfaces.cli.confirm import DeleteYesFlag, confirm_removal
from homeclaw_cli.surfaces.cli.install_view import Updater, show_removed
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.cli.update_command import add_update_command
from homeclaw_cli.surfaces.render import Output

app = typer.Typer()


def _skill_updater() -> Updater:
    from homeclaw_cli.app.install.skill import update_skills

    return update_skills


add_update_command(app, "skill", _skill_updater)


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
