"""`homeclaw plugin eval PLUGIN_ID`: the plugin's own chat tasks (eval.yaml) on the real model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from homeclaw_cli.errors import NotFoundError
from homeclaw_cli.surfaces.cli.eval_chat_view import (
    FailUnderOpt,
    MaxLeakedOpt,
    MissesOpt,
    RepeatOpt,
    run_eval,
)
from homeclaw_cli.surfaces.cli.options import HostOpt, JsonFlag, ModelOpt
from homeclaw_cli.surfaces.cli.state import get_state

app = typer.Typer()


@app.command("eval")
def eval_plugin(  # noqa: PLR0917 - typer options
    ctx: typer.Context,
    plugin_id: Annotated[str, typer.Argument(help="Plugin id.")],
    tasks_file: Annotated[
        Path | None,
        typer.Option("--tasks", metavar="FILE", help="Tasks (default: its eval.yaml)."),
    ] = None,
    model: ModelOpt = None,
    host: HostOpt = None,
    repeat: RepeatOpt = 1,
    fail_under: FailUnderOpt = None,
    max_leaked: MaxLeakedOpt = None,
    misses: MissesOpt = 20,
    as_json: JsonFlag = False,
) -> None:
    """Run the plugin's chat tasks (eval.yaml in its folder, next to tests) on your model.

    Same task format and report as `homeclaw eval chat` (see its --help); run `homeclaw sync`
    first so the plugin is retrieved as it would be in chat.
    """
    from homeclaw_cli.app.eval_chat_tasks import EVAL_FILE, read_tasks

    entry = get_state(ctx).context().registry.get(plugin_id)
    path = tasks_file or (entry.folder / EVAL_FILE if entry.folder else None)
    if path is None or not path.is_file():
        raise NotFoundError(
            f"plugin {plugin_id!r} has no {EVAL_FILE}"
            + (f" in {entry.folder}" if entry.folder else ""),
            hint=f"write chat tasks into {EVAL_FILE} in the plugin folder "
            "(see `homeclaw eval chat --help`), or pass --tasks FILE",
        )
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
