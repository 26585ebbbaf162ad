"""The records an install keeps besides the files: approvals, the lockfile, the audit log.

restore_records() puts approvals and the lockfile back as they were before a failed swap;
recover_interrupted() does the same for swaps a killed process left behind (their journal
carries the previous records in its meta).
"""

from __future__ import annotations

from typing import Any

from homeclaw_cli.adapters.install_source import SwapJournal, recover
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.install.results import InstallResult
from homeclaw_cli.core.permissions import Kind
from homeclaw_cli.settings import Settings
from homeclaw_cli.state import audit
from homeclaw_cli.state.lockfile import LockEntry, lockfile_path, read_lockfile, write_lockfile


def journal_meta(
    kind: Kind, item_id: str, previous: LockEntry | None, approval: dict[str, Any] | None
) -> dict[str, Any]:
    """What a swap journal must carry for recover_interrupted() to restore the records."""
    return {
        "kind": kind,
        "id": item_id,
        "prev_lock": previous.model_dump(mode="json") if previous else None,
        "prev_approval": approval,
    }


def restore_records(
    context: AppContext,
    kind: Kind,
    item_id: str,
    previous: LockEntry | None,
    approval: dict[str, Any] | None,
) -> None:
    """Put back the approval record and the lockfile entry read before a swap."""
    context.approvals.restore(item_id, approval, kind)
    path = lockfile_path(context.settings)
    lock = read_lockfile(path)
    section = lock.section(kind)
    if section.get(item_id) == previous:
        return  # the failure came before the lockfile was written
    if previous is None:
        section.pop(item_id, None)
    else:
        section[item_id] = previous
    write_lockfile(path, lock)


def backfill_scripts(settings: Settings, kind: Kind, item_id: str, scripts: list[str]) -> None:
    """Record the scripts of an entry written before installs recorded them (update found
    its source unchanged, so these are the ones that were approved)."""
    path = lockfile_path(settings)
    lock = read_lockfile(path)
    entry = lock.section(kind).get(item_id)
    if entry is not None and entry.scripts is None:
        entry.scripts = scripts
        write_lockfile(path, lock)


def recover_interrupted(context: AppContext) -> list[str]:
    """Roll back installs a killed process left half-done (call under the install lock).

    Covers both the user plugins dir and the user skills dir.
    """
    settings = context.settings

    def restore_from_journal(journal: SwapJournal) -> None:
        meta = journal.meta
        kind = meta.get("kind")
        if kind not in ("plugin", "skill") or "id" not in meta:
            return
        prev = meta.get("prev_lock")
        previous = LockEntry.model_validate(prev) if prev else None
        restore_records(context, kind, meta["id"], previous, meta.get("prev_approval"))

    rolled = [
        *recover(settings.user_plugins_dir, on_rollback=restore_from_journal),
        *recover(settings.user_skills_dir, on_rollback=restore_from_journal),
    ]
    for journal in rolled:
        audit.record(settings.data_dir, "rollback", journal.dest.name, reason="interrupted")
    return [j.dest.name for j in rolled]


def _kind_detail(kind: Kind) -> dict[str, Any]:
    # Plugin events predate skills and carry no kind; keep the log's shape.
    return {"kind": kind} if kind != "plugin" else {}


def audit_install(settings: Settings, result: InstallResult) -> None:
    """Log the install or upgrade, and the permissions it was granted beyond the old ones."""
    details: dict[str, Any] = {
        "source": result.source,
        "version": result.version,
        "commit": result.commit,
        "digest": result.digest,
    }
    if result.action == "upgraded":
        details["old_version"] = result.old_version
    action = "upgrade" if result.action == "upgraded" else "install"
    audit.record(settings.data_dir, action, result.item_id, **details, **_kind_detail(result.kind))
    diff = result.permission_diff
    if diff is not None and not diff.added.empty:
        granted = diff.added.model_dump(mode="json")
        audit.record(
            settings.data_dir,
            "approve",
            result.item_id,
            granted=granted,
            **_kind_detail(result.kind),
        )


def audit_removal(settings: Settings, kind: Kind, item_id: str, folder: str) -> None:
    """Log a removal."""
    audit.record(settings.data_dir, "remove", item_id, folder=folder, **_kind_detail(kind))
