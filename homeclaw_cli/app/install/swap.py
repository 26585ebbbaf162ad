"""The commit step: files, approvals and lockfile change together or not at all.

The swap keeps the previous folder until the records are written; an exception restores
the folder (adapters/install_source.swap_into_place) and the records (restore_records), and
a kill is rolled back from the swap's journal by the next install command.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

from homeclaw_cli.adapters.install_source import swap_into_place
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.install.records import journal_meta, restore_records
from homeclaw_cli.core.manifest import Permissions
from homeclaw_cli.core.permissions import Kind
from homeclaw_cli.fsutil import file_lock
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.approvals import ApprovalStore
from homeclaw_cli.state.lockfile import (
    LockEntry,
    Lockfile,
    lockfile_path,
    read_lockfile,
    write_lockfile,
)

LOCK_TIMEOUT_SEC = 60.0

RecordChange = Callable[[ApprovalStore, Lockfile], None]


@contextlib.contextmanager
def install_lock(settings: Settings) -> Iterator[None]:
    """One install, update or removal at a time (LockedError after LOCK_TIMEOUT_SEC)."""
    path = settings.state_dir / "install.lock"
    with file_lock(path, timeout=LOCK_TIMEOUT_SEC, what="installed plugins"):
        yield


def commit_install(
    context: AppContext, staged: Path, dest: Path, entry: LockEntry, permissions: Permissions
) -> None:
    """Swap `staged` into `dest`, approve `permissions` and record `entry` in the lockfile."""

    def record(store: ApprovalStore, lock: Lockfile) -> None:
        store.grant(entry.id, permissions, entry.kind)
        lock.section(entry.kind)[entry.id] = entry

    _swap_with_records(context, entry.kind, entry.id, staged=staged, dest=dest, change=record)


def commit_removal(context: AppContext, kind: Kind, item_id: str, dest: Path) -> None:
    """Delete `dest` with its approvals and lockfile entry."""

    def record(store: ApprovalStore, lock: Lockfile) -> None:
        store.revoke(item_id, kind)
        lock.section(kind).pop(item_id, None)

    _swap_with_records(context, kind, item_id, staged=None, dest=dest, change=record)


def _swap_with_records(
    context: AppContext,
    kind: Kind,
    item_id: str,
    *,
    staged: Path | None,
    dest: Path,
    change: RecordChange,
) -> None:
    store = context.approvals
    path = lockfile_path(context.settings)
    previous = read_lockfile(path).section(kind).get(item_id)
    prev_approval = store.raw(item_id, kind)
    meta = journal_meta(kind, item_id, previous, prev_approval)
    try:
        with swap_into_place(staged, dest, meta=meta):
            lock = read_lockfile(path)
            change(store, lock)
            write_lockfile(path, lock)
    except BaseException:
        restore_records(context, kind, item_id, previous, prev_approval)
        raise
