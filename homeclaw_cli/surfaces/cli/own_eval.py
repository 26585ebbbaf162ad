"""`homeclaw plugin eval ID` and `homeclaw skill eval NAME`: the chat tasks a plugin or skill
ships in its folder (eval.yaml, next to its tests), run through `eval chat` on your model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from homeclaw_cli.errors import NotFoundError
from homeclaw_cli.surfaces.cli import complete
from homeclaw_cli.surfaces.cli.eval_chat_view import (
    FailUnderOpt,
    MaxLeakedOpt,
    MissesOpt,
    RepeatOpt,
    run_eval,
)
from homeclaw_cli.surfaces.cli.options import HostOpt, JsonFlag, ModelOpt
from homeclaw_cli.surfaces.cli.state import get_state

plugin_app = typer.Typer()
skill_app = typer.Typer()

TasksOpt = Annotated[
    Path | None,
    typer.Option("--tasks", metavar="FILE", help="Tasks (default: its eval.yaml)."),
]


@plugin_app.command("eval")
def eval_plugin(  # noqa: PLR0917 - typer options
    ctx: typer.Context,
    plugin_id: Annotated[str, complete.plugin_argument("Plugin id.")],
    tasks_file: TasksOpt = None,
    model: ModelOpt = None,
    host: HostOpt = None,
    repeat: RepeatOpt = 1,
    fail_under: FailUnderOpt = None,
    max_leaked: MaxLeakedOpt = None,
    misses: MissesOpt = 20,
    as_json: JsonFlag = False,
) -> None:
    """Run the plugin's chat tasks (eval.yaml in its folder) on your model.

    Same task format and report as `homeclaw eval chat` (see its --help); run `homeclaw sync`
    first so the plugin is retrieved as it would be in chat.
    """
    entry = get_state(ctx).context().registry.get(plugin_id)
    path = _tasks_path(f"plugin {plugin_id!r}", entry.folder, tasks_file)
    _run(ctx, path, repeat, fail_under, max_leaked, misses, as_json, model, host)


@skill_app.command("eval")
def eval_skill(  # noqa: PLR0917 - typer options
    ctx: typer.Context,
    skill_id: Annotated[str, complete.skill_argument("Skill id.")],
    tasks_file: TasksOpt = None,
    model: ModelOpt = None,
    host: HostOpt = None,
    repeat: RepeatOpt = 1,
    fail_under: FailUnderOpt = None,
    max_leaked: MaxLeakedOpt = None,
    misses: MissesOpt = 20,
    as_json: JsonFlag = False,
) -> None:
    """Run the skill's chat tasks (eval.yaml next to its SKILL.md) on your model.

    Tasks expect `skill: NAME` (the model reads or runs that skill) and/or answer fragments;
    format and report as `homeclaw eval chat` (see its --help).
    """
    skill = get_state(ctx).context().skill_registry.get(skill_id)
    path = _tasks_path(f"skill {skill.id!r}", skill.folder, tasks_file)
    _run(ctx, path, repeat, fail_under, max_leaked, misses, as_json, model, host)


def _tasks_path(what: str, folder: Path | None, given: Path | None) -> Path:
    from homeclaw_cli.app.eval_chat_tasks import EVAL_FILE

    path = given or (folder / EVAL_FILE if folder else None)
    if path is None or not path.is_file():
        raise NotFoundError(
            f"{what} has no {EVAL_FILE}" + (f" in {folder}" if folder and not given else ""),
            hint=f"write chat tasks into {EVAL_FILE} in its folder "
            "(see `homeclaw eval chat --help`), or pass --tasks FILE",
        )
    return path


def _run(  # noqa: PLR0917 - the commands' options, passed through
    ctx: typer.Context,
    path: Path,
    repeat: int,
    fail_under: list[str] | None,
    max_leaked: int | None,
    misses: int,
    as_json: bool,
    model: str | None,
    host: str | None,
) -> None:
    from homeclaw_cli.app.eval_chat_tasks import read_tasks

    run_eval(
        ctx,
        read_tasks(path),
        str(path),
        repeat=repeat,
        fail_under=fail_under or [],
        max_leaked=max_leaked,
        misses=misses,
        as_json=as_json,
        model=model,
        host=host,
    )
