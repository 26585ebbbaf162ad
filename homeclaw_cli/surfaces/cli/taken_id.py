"""`plugin new` / `skill new`: a warning when the new folder's id is one homeclaw loads already."""

from __future__ import annotations

from pathlib import Path

import typer

from homeclaw_cli.errors import HomeclawError
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output


def warn_if_taken(ctx: typer.Context, out: Output, kind: str, item_id: str, folder: Path) -> None:
    """Warn that `item_id` is also the id of a loaded plugin or skill (bundled, installed, from
    a plugins folder): of two folders with one id only one is used."""
    try:
        context = get_state(ctx).context()
        if kind == "plugin":
            entry = context.registry.plugins.get(item_id)
            other = (entry.folder, entry.source) if entry else None
        else:
            skill = context.skill_registry.skills.get(item_id)
            other = (skill.folder, skill.source) if skill else None
    except HomeclawError:  # a broken config is `new`'s business only when it writes there
        return
    if other is None or (other[0] is not None and other[0].resolve() == folder.resolve()):
        return
    where = f"{other[0]} ({other[1]})" if other[0] is not None else f"a {other[1]} {kind}"
    out.warning(
        f"{kind} id {item_id!r} is taken by {where}: of two folders with one "
        "id only one is loaded; rename this one unless you mean to replace that one"
    )
