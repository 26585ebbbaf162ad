"""`homeclaw plugin install/update/remove/enable/disable/new` (registered on the plugin app)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from homeclaw_cli.errors import ExitCode
from homeclaw_cli.surfaces.cli.options import DryRunFlag, JsonFlag, YesFlag
from homeclaw_cli.surfaces.cli.plugin import app
from homeclaw_cli.surfaces.cli.state import get_state
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.plugin_install import Approver, InstallResult


def approver(out: Output, yes: bool) -> Approver:
    """Show the permission diff on stderr and ask (or accept with --yes)."""
    from homeclaw_cli.app.plugin_install import ApprovalRefused, PermissionRequest
    from homeclaw_cli.core.permissions import describe

    def approve(request: PermissionRequest) -> bool:
        what = "new permissions" if request.upgrade else "permissions"
        out.info(f"{request.kind} {request.plugin_id} asks for these {what}:")
        for line in describe(request.diff.added):
            out.info(f"  + {line}")
        for line in describe(request.diff.removed):
            out.info(f"  - {line} (no longer requested)")
        for notice in request.notices:
            out.warning(notice)
        if yes:
            out.info("approved with --yes")
            return True
        try:
            return typer.confirm("Approve?", default=False, err=True)
        except typer.Abort:
            raise ApprovalRefused(
                f"{request.kind} {request.plugin_id!r} needs approval and no answer came",
                hint="review the permissions above and rerun with --yes",
            ) from None

    return approve


def show_result(out: Output, result: InstallResult) -> None:
    """Print one install/update result: version, commit, digest, permission and file diff."""
    from homeclaw_cli.core.permissions import describe

    label = f"{result.plugin_id} {result.version or ''}".strip()
    if result.old_version and result.old_version != result.version:
        label += f" (was {result.old_version})"
    out.markup(escape(f"{result.action} {label} -> {result.folder}"))
    if result.commit:
        old = (
            f" (was {result.old_commit[:12]})"
            if result.old_commit and (result.old_commit != result.commit)
            else ""
        )
        out.text(f"  commit: {result.commit}{old}")
    out.text(f"  digest: {result.digest}")
    diff = result.permission_diff
    if diff is not None:
        for line in describe(diff.added):
            out.text(f"  + permission {line}")
        for line in describe(diff.removed):
            out.text(f"  - permission {line}")
    for name in result.files.added:
        out.text(f"  + {name}")
    for name in result.files.removed:
        out.text(f"  - {name}")
    for name in result.files.updated:
        out.text(f"  ~ {name}")
    if result.deps_dir:
        out.text(f"  dependencies: {result.folder / result.deps_dir}")
    asked = diff is not None and not diff.added.empty and not result.action.startswith("would")
    if result.action != "unchanged" and not asked:
        for notice in result.notices:
            out.warning(notice)
    for warning in result.warnings:
        out.warning(warning)
    if result.synced:
        out.info(result.synced)


def show_updates(out: Output, results: list[InstallResult]) -> None:
    """Print update results (JSON or one line each); exit 1 when any of them failed."""
    if out.json_mode:
        out.json([r.to_json() for r in results])
    else:
        for result in results:
            if result.error:
                out.error(f"{result.plugin_id}: {result.error}")
            elif result.action == "unchanged":
                out.text(f"{result.plugin_id}: up to date ({result.commit or result.digest})")
            else:
                show_result(out, result)
    if any(r.error for r in results):
        raise typer.Exit(int(ExitCode.FAILURE))


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
    dry_run: DryRunFlag = False,
    yes: YesFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Install a plugin into the user plugins dir, atomically, after approval."""
    from homeclaw_cli.app.plugin_install import install_plugin

    out = Output(json_mode=as_json)
    settings = get_state(ctx).settings()
    # No spinner: the approval prompt may need the terminal half-way through.
    result = install_plugin(
        settings,
        source,
        approve=approver(out, yes),
        upgrade=upgrade,
        dry_run=dry_run,
        with_deps=with_deps,
    )
    if as_json:
        out.json(result.to_json())
    else:
        show_result(out, result)


@app.command("update")
def update(
    ctx: typer.Context,
    *,
    plugin_id: Annotated[
        str | None, typer.Argument(help="Installed plugin id (omit with --all).")
    ] = None,
    update_all: Annotated[
        bool, typer.Option("--all", help="Update every installed plugin.")
    ] = False,
    dry_run: DryRunFlag = False,
    yes: YesFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Re-resolve installed plugins' sources; show the diff and upgrade what changed."""
    from homeclaw_cli.app.plugin_install import update_plugins
    from homeclaw_cli.errors import UsageError

    if (plugin_id is None) == (not update_all):
        raise UsageError("give one plugin id, or --all", hint="homeclaw plugin update --all")
    out = Output(json_mode=as_json)
    results = update_plugins(
        get_state(ctx).settings(),
        [plugin_id] if plugin_id else [],
        approve=approver(out, yes),
        dry_run=dry_run,
    )
    if not results and not as_json:
        out.info("no installed plugins (install one with `homeclaw plugin install`)")
    show_updates(out, results)


@app.command("remove")
def remove(
    ctx: typer.Context,
    plugin_id: Annotated[str, typer.Argument(help="Installed plugin id.")],
    as_json: JsonFlag = False,
) -> None:
    """Delete an installed plugin, its lockfile entry and its approvals."""
    from homeclaw_cli.app.plugin_install import remove_plugin

    result = remove_plugin(get_state(ctx).settings(), plugin_id)
    out = Output(json_mode=as_json)
    if as_json:
        out.json({"id": result.plugin_id, "removed": str(result.folder), "synced": result.synced})
    else:
        out.text(f"removed {result.plugin_id} ({result.folder})")


def _toggle(ctx: typer.Context, plugin_id: str, enabled: bool, as_json: bool) -> None:
    from homeclaw_cli.app.plugin_install import set_plugin_enabled

    changed = set_plugin_enabled(get_state(ctx).settings(), plugin_id, enabled)
    out = Output(json_mode=as_json)
    state = "enabled" if enabled else "disabled"
    if as_json:
        out.json({"id": plugin_id, "status": state, "changed": changed})
    else:
        out.text(f"{plugin_id} {state}" + ("" if changed else " (already)"))


@app.command("enable")
def enable(
    ctx: typer.Context,
    plugin_id: Annotated[str, typer.Argument(help="Plugin id.")],
    as_json: JsonFlag = False,
) -> None:
    """Turn a disabled plugin back on."""
    _toggle(ctx, plugin_id, True, as_json)


@app.command("disable")
def disable(
    ctx: typer.Context,
    plugin_id: Annotated[str, typer.Argument(help="Plugin id.")],
    as_json: JsonFlag = False,
) -> None:
    """Turn a plugin off without removing it (retrieval and calls skip it)."""
    _toggle(ctx, plugin_id, False, as_json)


@app.command("new")
def new(
    name: Annotated[str, typer.Argument(help="Plugin name; its id is derived from it.")],
    plugin_type: Annotated[
        str, typer.Option("--type", "-t", help="inline | subprocess | http | mcp")
    ] = "inline",
    lang: Annotated[str, typer.Option("--lang", help="python | node (not for inline)")] = "python",
    directory: Annotated[
        Path, typer.Option("--dir", help="Where to create the plugin folder.")
    ] = Path(),
    as_json: JsonFlag = False,
) -> None:
    """Create a plugin folder that validates and runs at once, with its own test."""
    from homeclaw_cli.app.scaffold import scaffold_plugin

    result = scaffold_plugin(name, plugin_type, lang, directory)
    out = Output(json_mode=as_json)
    if as_json:
        out.json({"id": result.plugin_id, "folder": str(result.folder), "files": result.files})
        return
    out.text(f"created {result.folder}")
    for name_ in result.files:
        out.text(f"  {name_}")
    out.info(f"next: homeclaw plugin validate {result.folder}")
    out.info(f"      {result.test_command}")
