"""`homeclaw skill new/update/enable/disable/remove`: a skill's life after `skill validate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from homeclaw_cli.surfaces.cli import complete
from homeclaw_cli.surfaces.cli.confirm import DeleteYesFlag, confirm_removal
from homeclaw_cli.surfaces.cli.install_view import Updater, show_removed, toggle
from homeclaw_cli.surfaces.cli.options import JsonFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.cli.taken_id import warn_if_taken
from homeclaw_cli.surfaces.cli.update_command import add_update_command
from homeclaw_cli.surfaces.render import Output

app = typer.Typer()
SkillId = Annotated[str, complete.skill_argument("Skill id.")]


@app.command("new")
def new(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Skill name; its id is derived from it.")],
    directory: Annotated[
        Path, typer.Option("--dir", help="Where to create the skill folder.")
    ] = Path(),
    as_json: JsonFlag = False,
) -> None:
    """Create a skill folder (SKILL.md, a script, tests.yaml) that validates and runs at once."""
    from homeclaw_cli.app.skill_scaffold import scaffold_skill

    result = scaffold_skill(name, directory)
    out = Output(json_mode=as_json)
    warn_if_taken(ctx, out, "skill", result.skill_id, result.folder)
    data = {"id": result.skill_id, "folder": str(result.folder), "files": result.files}

    def show() -> None:
        out.text(f"created {result.folder}")
        for file in result.files:
            out.text(f"  {file}")
        out.info(f"next: homeclaw skill validate {result.folder}")
        out.info(f"      homeclaw skill install {result.folder}")
        out.info(f"      homeclaw skill test {result.skill_id}")

    out.result(data, show)


def _skill_updater() -> Updater:
    from homeclaw_cli.app.install.skill import update_skills

    return update_skills


add_update_command(app, "skill", _skill_updater)


@app.command("remove")
def remove(
    ctx: typer.Context,
    skill_id: Annotated[str, complete.installed_argument("skill")],
    yes: DeleteYesFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Delete an installed skill, its lockfile entry and its approvals (asks first)."""
    from homeclaw_cli.app.install.skill import remove_skill

    context = get_state(ctx).context()
    out = Output(json_mode=as_json)
    confirm_removal(out, "skill", skill_id, context.settings.user_skills_dir, yes=yes)
    show_removed(out, remove_skill(context, skill_id))


@app.command("enable")
def enable(ctx: typer.Context, skill_id: SkillId, as_json: JsonFlag = False) -> None:
    """Turn a disabled skill back on."""
    toggle(ctx, "skill", skill_id, enabled=True, as_json=as_json)


@app.command("disable")
def disable(ctx: typer.Context, skill_id: SkillId, as_json: JsonFlag = False) -> None:
    """Turn a skill off without removing it (chat, search and run_skill skip it)."""
    toggle(ctx, "skill", skill_id, enabled=False, as_json=as_json)
