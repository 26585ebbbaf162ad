"""`homeclaw plugin install/update/remove/enable/disable/new`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from homeclaw_cli.surfaces.cli import complete
from homeclaw_cli.surfaces.cli.confirm import DeleteYesFlag, confirm_removal
from homeclaw_cli.surfaces.cli.install_view import (
    Updater,
    approver,
    show_removed,
    show_result,
    toggle,
)
from homeclaw_cli.surfaces.cli.options import DryRunFlag, JsonFlag, YesFlag
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.cli.steps import show_steps
from homeclaw_cli.surfaces.cli.taken_id import warn_if_taken
from homeclaw_cli.surfaces.cli.update_command import add_update_command
from homeclaw_cli.surfaces.render import Output

app = typer.Typer()


@app.command("install")
def install(
    ctx: typer.Context,
    *,
    source: Annotated[
        str,
        typer.Argument(
            help="Plugin folder, .zip/.tar.gz archive, or git URL (+ optional @tag/branch/commit)."
        ),
    ],
    upgrade: Annotated[
        bool, typer.Option("--upgrade", "-U", help="Replace an installed plugin of the same id.")
    ] = False,
    with_deps: Annotated[
        bool,
        typer.Option(
            "--with-deps", help="pip install its requirements.txt into the plugin's own folder."
        ),
    ] = False,
    subdir: Annotated[
        str | None,
        typer.Option(
            "--subdir",
            metavar="PATH",
            help="The plugin's folder in a source that holds several (e.g. a repository).",
        ),
    ] = None,
    dry_run: DryRunFlag = False,
    yes: YesFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Install a plugin into the user plugins dir, atomically, after approval."""
    from homeclaw_cli.app.install.plugin import install_plugin

    out = Output(json_mode=as_json)
    context = get_state(ctx).context()
    with show_steps(out, context) as steps:
        result = install_plugin(
            context,
            source,
            approve=approver(out, yes, steps.paused),
            upgrade=upgrade,
            dry_run=dry_run,
            with_deps=with_deps,
            subdir=subdir,
        )
    if as_json:
        out.json(result.to_json())
    else:
        show_result(out, result)


def _plugin_updater() -> Updater:
    from homeclaw_cli.app.install.plugin import update_plugins

    return update_plugins


add_update_command(app, "plugin", _plugin_updater)


@app.command("remove")
def remove(
    ctx: typer.Context,
    plugin_id: Annotated[str, complete.installed_argument("plugin")],
    yes: DeleteYesFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Delete an installed plugin, its lockfile entry and its approvals (asks first)."""
    from homeclaw_cli.app.install.plugin import remove_plugin

    context = get_state(ctx).context()
    out = Output(json_mode=as_json)
    confirm_removal(out, "plugin", plugin_id, context.settings.user_plugins_dir, yes=yes)
    show_removed(out, remove_plugin(context, plugin_id))


@app.command("enable")
def enable(
    ctx: typer.Context,
    plugin_id: Annotated[str, complete.plugin_argument("Plugin id.")],
    as_json: JsonFlag = False,
) -> None:
    """Turn a disabled plugin back on."""
    toggle(ctx, "plugin", plugin_id, enabled=True, as_json=as_json)


@app.command("disable")
def disable(
    ctx: typer.Context,
    plugin_id: Annotated[str, complete.plugin_argument("Plugin id.")],
    as_json: JsonFlag = False,
) -> None:
    """Turn a plugin off without removing it (retrieval and calls skip it)."""
    toggle(ctx, "plugin", plugin_id, enabled=False, as_json=as_json)


@app.command("new")
def new(  # noqa: PLR0917 - typer options
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Plugin name; its id is derived from it.")],
    plugin_type: Annotated[
        str,
        typer.Option(
            "--type",
            "-t",
            help="inline | subprocess | http | mcp",
            autocompletion=complete.choices("inline", "subprocess", "http", "mcp"),
        ),
    ] = "inline",
    lang: Annotated[
        str,
        typer.Option(
            "--lang",
            help="python | node (not for inline)",
            autocompletion=complete.choices("python", "node"),
        ),
    ] = "python",
    directory: Annotated[
        Path, typer.Option("--dir", help="Where to create the plugin folder.")
    ] = Path(),
    as_json: JsonFlag = False,
) -> None:
    """Create a plugin folder that validates and runs at once, with its own test."""
    import shlex

    from homeclaw_cli.app.scaffold import scaffold_plugin

    result = scaffold_plugin(name, plugin_type, lang, directory)
    out = Output(json_mode=as_json)
    warn_if_taken(ctx, out, "plugin", result.plugin_id, result.folder)
    if as_json:
        out.json({"id": result.plugin_id, "folder": str(result.folder), "files": result.files})
        return
    out.text(f"created {result.folder}")
    for name_ in result.files:
        out.text(f"  {name_}")
    out.info(f"next: homeclaw plugin validate {result.folder}")
    out.info(f"      {result.test_command}")
    # The folder is outside the plugin folders homeclaw loads from until it is installed.
    parent = shlex.quote(str(result.folder.parent))
    call = f"homeclaw --plugins-dir {parent} plugin call {result.plugin_id} greet -p name=Ada"
    server = "server.py" if lang == "python" else "server.js"
    out.info(f"      {call}" + (f"  (with {server} running)" if plugin_type == "http" else ""))
