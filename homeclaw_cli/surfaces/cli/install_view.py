"""What `plugin` and `skill` install/update/remove share on the terminal: the approval prompt,
the result of an install or update, and the update command's body."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Protocol

import typer

from homeclaw_cli.errors import HomeclawError, UsageError
from homeclaw_cli.surfaces.cli import confirm
from homeclaw_cli.surfaces.cli.exits import exit_failed
from homeclaw_cli.surfaces.cli.steps import show_steps
from homeclaw_cli.surfaces.render import Output

if TYPE_CHECKING:
    from homeclaw_cli.app.context import AppContext
    from homeclaw_cli.app.install.approval import Approver, PermissionRequest
    from homeclaw_cli.app.install.results import InstallResult, RemoveResult
    from homeclaw_cli.app.install.skill import SkillInstallResult
    from homeclaw_cli.core.permissions import Kind


class Updater(Protocol):
    """update_plugins or update_skills."""

    def __call__(
        self, context: AppContext, item_ids: list[str], /, *, approve: Approver, dry_run: bool
    ) -> list[InstallResult]: ...


def approver(
    out: Output, yes: bool, pause: Callable[[], AbstractContextManager[None]] = nullcontext
) -> Approver:
    """Show the permission diff on stderr and ask (or accept with --yes).

    `pause` frees the terminal for the question (StepLog.paused stops its spinner).
    """

    def approve(request: PermissionRequest) -> bool:
        with pause():
            return _ask(out, request, yes)

    return approve


def _ask(out: Output, request: PermissionRequest, yes: bool) -> bool:
    from homeclaw_cli.app.install.approval import ApprovalRefused
    from homeclaw_cli.core.permissions import describe

    if not request.asks:  # nothing to approve: what the user should know, before the swap
        if not out.json_mode:  # the envelope's data carries the notices
            for notice in request.notices:
                out.warning(notice)
        return True
    what = "new permissions" if request.upgrade else "permissions"
    out.info(f"{request.kind} {request.item_id} asks for these {what}:")
    for line in describe(request.diff.added):
        out.info(f"  + {line}")
    for line in describe(request.diff.removed):
        out.info(f"  - {line} (no longer requested)")
    for notice in request.notices:
        out.warning(notice)
    if yes:
        out.info("approved with --yes")
        return True
    if not confirm.on_terminal():
        raise UsageError(
            f"{request.kind} {request.item_id} needs these permissions approved: not asked, "
            "stdin is not a terminal; nothing was installed",
            hint="review them above and rerun with --yes",
        )
    try:
        return typer.confirm("Approve?", default=False, err=True)
    except typer.Abort:
        raise ApprovalRefused(
            f"{request.kind} {request.item_id!r} needs approval and no answer came",
            hint="review the permissions above and rerun with --yes",
        ) from None


def show_result(out: Output, result: InstallResult) -> None:
    """Print one install/update result: version, commit, digest, permission and file diff."""
    if result.old_version and result.old_version != result.version:
        versions = f"{result.old_version} -> {result.version or '?'}"
        out.text(f"{result.action} {result.item_id} {versions} ({result.folder})")
    else:
        label = f"{result.item_id} {result.version or ''}".strip()
        if result.old_version:  # the same version again: "-> path" would read as a version
            out.text(f"{result.action} {label}, the same version ({result.folder})")
        else:
            out.text(f"{result.action} {label} -> {result.folder}")
    if result.commit:
        old = (
            f" (was {result.old_commit[:12]})"
            if result.old_commit and (result.old_commit != result.commit)
            else ""
        )
        out.text(f"  commit: {result.commit}{old}")
    out.text(f"  digest: {result.digest}")
    _show_changes(out, result)
    if result.action.startswith("would"):  # an install shows them at its approve step
        for notice in result.notices:
            out.warning(notice)
    for warning in result.warnings:
        out.warning(warning)
    if result.action == "unchanged":  # an upgrade's swap leaves them out
        show_added_scripts(out, result)
    if result.synced:
        out.info(result.synced)


def show_added_scripts(out: Output, result: InstallResult) -> None:
    """Name the scripts added to an installed copy since it was approved."""
    if not result.added_scripts:
        return
    added = ", ".join(result.added_scripts)
    out.warning(
        f"{result.item_id}: {added} in {result.folder} came from no install and were never "
        f"approved: run_skill refuses them. Delete them, or add them to the source "
        f"({result.source}) and run `homeclaw {result.kind} update {result.item_id}`"
    )


def _show_changes(out: Output, result: InstallResult) -> None:
    from homeclaw_cli.core.manifest_diff import describe_change
    from homeclaw_cli.core.permissions import describe

    for change in result.manifest_changes:
        if change.field != "version":  # the first line says old -> new
            out.text(f"  {describe_change(change)}")
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


def run_update(
    ctx: typer.Context,
    kind: Kind,
    update: Updater,
    item_id: str | None,
    *,
    update_all: bool,
    dry_run: bool,
    yes: bool,
    as_json: bool,
) -> None:
    """The body of `plugin update` and `skill update`: one id or --all, then the results."""
    from homeclaw_cli.surfaces.cli.state import get_state

    if (item_id is None) == (not update_all):
        raise UsageError(f"give one {kind} id, or --all", hint=f"homeclaw {kind} update --all")
    out = Output(json_mode=as_json)
    context = get_state(ctx).context()
    with show_steps(out, context) as steps:
        results = update(
            context,
            [item_id] if item_id else [],
            approve=approver(out, yes, steps.paused),
            dry_run=dry_run,
        )
    if not results and not as_json:
        out.info(f"no installed {kind}s (install one with `homeclaw {kind} install`)")
    _show_updates(out, results)


def _show_updates(out: Output, results: list[InstallResult]) -> None:
    """Print update results (JSON or one line each); exit 1 when any of them failed."""
    if out.json_mode:
        out.json([r.to_json() for r in results])
    else:
        for result in results:
            if result.error:
                out.error(f"{result.item_id}: {result.error}")
            elif result.action == "unchanged":
                out.text(f"{result.item_id}: up to date ({result.commit or result.digest})")
                show_added_scripts(out, result)
            else:
                show_result(out, result)
    if failed := [f"{r.item_id}: {r.error}" for r in results if r.error]:
        exit_failed(out, HomeclawError("; ".join(failed)))


def show_removed(out: Output, result: RemoveResult) -> None:
    """Print what `remove` deleted (JSON or one line)."""
    if out.json_mode:
        out.json(
            {
                "id": result.item_id,
                "removed": str(result.folder),
                "folder_was_gone": result.folder_was_gone,
                "synced": result.synced,
            }
        )
    elif result.folder_was_gone:
        out.text(
            f"removed {result.item_id}'s lockfile entry and approvals "
            f"(its folder {result.folder} was already gone)"
        )
    else:
        out.text(f"removed {result.item_id} ({result.folder})")


def show_skill_installed(out: Output, result: SkillInstallResult) -> None:
    """Print an installed skill, and why the registry might not use it."""
    if out.json_mode:
        out.json(result.to_json())
        return
    verb = "replaced" if result.replaced else "installed"
    out.text(f"{verb} {result.skill.display_name} -> {result.destination}")
    if not result.skill.eligible:
        out.warning(f"not eligible here: {result.skill.ineligible_reason}")
    if result.shadowed_by is not None:
        winner = result.shadowed_by
        out.warning(f"shadowed by the {winner.source} copy at {winner.folder}")
    for warning in result.skill.warnings:
        out.warning(warning)


def toggle(ctx: typer.Context, kind: Kind, item_id: str, *, enabled: bool, as_json: bool) -> None:
    """The body of `plugin|skill enable|disable`."""
    from homeclaw_cli.app.install.toggle import set_enabled
    from homeclaw_cli.surfaces.cli.state import get_state

    changed = set_enabled(get_state(ctx).context(), kind, item_id, enabled)
    out = Output(json_mode=as_json)
    state = "enabled" if enabled else "disabled"
    out.result(
        {"id": item_id, "status": state, "changed": changed},
        lambda: out.text(f"{item_id} {state}" + ("" if changed else " (already)")),
    )
