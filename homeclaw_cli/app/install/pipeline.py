"""The install pipeline for any kind of item (plugins and skills alike).

install: parse the source -> stage it next to the target and validate it -> compare with
what is installed (refuse an overwrite without the upgrade flag) -> ask for the new
permissions -> install Python deps into the staged folder -> swap into place with the
approvals and the lockfile -> audit -> sync the index. update re-runs it from the lockfile;
remove swaps the folder out the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from homeclaw_cli.adapters.archive import DEFAULT_LIMITS, Limits
from homeclaw_cli.adapters.install_source import (
    Fetched,
    SourceSpec,
    fetch_source,
    file_hashes,
    file_sha256,
    parse_source,
    staging_area,
)
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.install.approval import Approver, permission_diff, require_approval
from homeclaw_cli.app.install.deps import install_requirements
from homeclaw_cli.app.install.kinds import ItemKind, StagedItem
from homeclaw_cli.app.install.records import (
    audit_install,
    audit_removal,
    backfill_scripts,
    recover_interrupted,
)
from homeclaw_cli.app.install.results import InstallResult, RemoveResult
from homeclaw_cli.app.install.swap import commit_install, commit_removal, install_lock
from homeclaw_cli.catalog.plugin_files import DEPS_DIRNAME, REQUIREMENTS_FILE
from homeclaw_cli.core.changes import ChangeSet
from homeclaw_cli.core.manifest_diff import FieldChange, manifest_diff
from homeclaw_cli.core.permissions import Kind, PermissionDiff, describe
from homeclaw_cli.errors import HomeclawError, ManifestError, NotFoundError, UsageError
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.installed_scripts import added_scripts, scripts_in
from homeclaw_cli.state.lockfile import LockEntry, lockfile_path, read_lockfile


@dataclass(frozen=True)
class InstallOptions:
    """How to run one install (the command-line flags, and update's expectations)."""

    approve: Approver
    upgrade: bool = False
    dry_run: bool = False
    with_deps: bool = False
    limits: Limits = DEFAULT_LIMITS
    expect_id: str | None = None  # update: the source must still hold this item
    # install --with-deps re-runs pip over the same files; update leaves them up to date
    redo_deps: bool = True


def install_item(
    context: AppContext,
    kind: ItemKind,
    source: str,
    *,
    approve: Approver,
    upgrade: bool = False,
    dry_run: bool = False,
    with_deps: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> InstallResult:
    """Install (or with `upgrade`, replace) one item from a folder, archive or git URL."""
    settings = context.settings
    spec = parse_source(source, cwd=settings.cwd)
    options = InstallOptions(approve, upgrade, dry_run, with_deps, limits)
    with install_lock(settings):
        recover_interrupted(context)
        result = _install(context, kind, spec, options)
    if result.action in ("installed", "upgraded"):
        result.synced = sync_index(context, kind.name)
    return result


def _install(
    context: AppContext, kind: ItemKind, spec: SourceSpec, options: InstallOptions
) -> InstallResult:
    settings = context.settings
    with staging_area(kind.target_dir(settings)) as work:
        fetched, item = _stage(context, kind, spec, work, options)
        diff = permission_diff(context.approvals, kind.name, item)
        result = _compare_with_installed(
            settings, kind, fetched, item, diff=diff, upgrade=options.upgrade
        )
        upgrade = result.action == "upgraded"
        if _stops_before_changes(result, options):
            if result.action == "unchanged":
                backfill_scripts(settings, kind.name, item.id, scripts_in(fetched.root))
            return result
        added = len(describe(diff.added))
        plural = "s" if added != 1 else ""
        context.steps("approve", f"{added} new permission{plural}" if added else "nothing new")
        require_approval(settings, kind.name, item, diff, upgrade=upgrade, approve=options.approve)
        if options.with_deps and (fetched.root / REQUIREMENTS_FILE).is_file():
            context.steps("deps", f"pip install -r {REQUIREMENTS_FILE}")
            install_requirements(fetched.root, item.id)
            result.deps_dir = DEPS_DIRNAME
        entry = _lock_entry(kind, fetched, result)
        context.steps("swap", f"into {result.folder}")
        commit_install(context, fetched.root, result.folder, entry, item.permissions)
    audit_install(settings, result)
    return result


def _stage(
    context: AppContext, kind: ItemKind, spec: SourceSpec, work: Path, options: InstallOptions
) -> tuple[Fetched, StagedItem]:
    """Fetch the source into `work` and validate the item in it."""
    context.steps("fetch", f"{spec.kind} {spec.raw}")
    fetched = fetch_source(
        spec, work, is_root=kind.is_root, limits=options.limits, locate=kind.locate
    )
    context.steps("validate", kind.name)
    item = kind.validate(context, fetched, options.with_deps)
    expected = options.expect_id
    if expected is not None and item.id != expected:
        what = kind.name
        raise ManifestError(
            f"{spec.raw} now holds {what} {item.id!r}, not {expected!r}",
            hint=f"install it as a new {what}, or `homeclaw {what} remove {expected}`",
        )
    context.steps("", "")  # validated: refusing an overwrite next is no failed validation
    return fetched, item


def _compare_with_installed(
    settings: Settings,
    kind: ItemKind,
    fetched: Fetched,
    item: StagedItem,
    *,
    diff: PermissionDiff,
    upgrade: bool,
) -> InstallResult:
    """What installing `item` would change; refuses an overwrite without `upgrade`."""
    what, spec = kind.name, fetched.spec
    dest = kind.target_dir(settings) / item.id
    installed = dest.exists()
    if installed and not upgrade:
        picked = f" --subdir {kind.subdir}" if kind.subdir else ""
        raise UsageError(
            f"{what} {item.id!r} is already installed in {dest}",
            hint=f"`homeclaw {what} install {spec.raw}{picked} {kind.upgrade_flag}` replaces it",
        )
    previous = read_lockfile(lockfile_path(settings)).section(what).get(item.id)
    return InstallResult(
        item_id=item.id,
        kind=what,
        action="upgraded" if installed else "installed",
        folder=dest,
        source=spec.raw,
        source_kind=spec.kind,
        version=item.version,
        old_version=kind.installed_version(dest) if installed else None,
        commit=fetched.commit,
        old_commit=previous.commit if previous else None,
        digest=fetched.digest,
        old_digest=previous.digest if previous else None,
        redo=_must_redo(previous, fetched, dest) if installed else False,
        permissions=item.permissions,
        permission_diff=diff,
        files=file_changes(dest, fetched.root) if installed else ChangeSet(),
        manifest_changes=_descriptor_changes(kind, dest, fetched.root) if installed else [],
        notices=item.notices,
        warnings=item.warnings,
        added_scripts=added_scripts(dest, fetched.root) if installed else [],
    )


def _must_redo(previous: LockEntry | None, fetched: Fetched, dest: Path) -> bool:
    """Whether the same files must still be installed again: they come from another source
    than the lockfile records, or one of them was edited or deleted in the installed copy."""
    if previous is None:
        return False
    spec = fetched.spec
    if (previous.source_kind, previous.location, previous.ref) != (
        spec.kind,
        spec.location,
        spec.ref,
    ):
        return True
    if previous.digest != fetched.digest:
        return False  # an upgrade anyway
    # Only the source's own files count: what was added next to them (`npm install`'s
    # node_modules, say) is no edit, and re-swapping would delete it.
    return any(
        _file_hash(dest / rel) != digest for rel, digest in file_hashes(fetched.root).items()
    )


def _file_hash(path: Path) -> str | None:
    """As file_hashes() has it; None for a file that is not there."""
    if path.is_symlink():
        return f"link:{path.readlink()}"
    return file_sha256(path) if path.is_file() else None


def _descriptor_changes(kind: ItemKind, old: Path, new: Path) -> list[FieldChange]:
    if kind.describe is None:
        return []
    return manifest_diff(kind.describe(old), kind.describe(new))


def _stops_before_changes(result: InstallResult, options: InstallOptions) -> bool:
    """Mark the result unchanged (same source, nothing to redo) or a dry run's plan.

    The same files from another source are not unchanged (the lockfile must record the new
    source, or `update` would keep reading the old one), nor over an installed copy edited
    since (update puts the source's files back)."""
    installed = result.action == "upgraded"
    same = (
        result.old_digest is not None
        and not result.redo
        and (result.old_digest, result.old_commit) == (result.digest, result.commit)
    )
    if installed and same and not (options.with_deps and options.redo_deps):
        result.action = "unchanged"
        return True
    if options.dry_run:
        result.action = "would upgrade" if installed else "would install"
        return True
    return False


def _lock_entry(kind: ItemKind, fetched: Fetched, result: InstallResult) -> LockEntry:
    spec = fetched.spec
    return LockEntry(
        id=result.item_id,
        kind=kind.name,
        source=spec.raw,
        source_kind=spec.kind,
        location=spec.location,
        ref=spec.ref,
        commit=fetched.commit,
        digest=fetched.digest,
        version=result.version,
        permissions=result.permissions.model_dump(mode="json"),
        deps_dir=result.deps_dir,
        installed_at=datetime.now(UTC).isoformat(timespec="seconds"),
        folder=str(result.folder),
        subdir=kind.subdir,
        scripts=scripts_in(fetched.root),
    )


def file_changes(old: Path, new: Path) -> ChangeSet:
    """Files added, removed and changed between two item folders (installed deps ignored)."""
    exclude = frozenset({DEPS_DIRNAME})
    before, after = file_hashes(old, exclude=exclude), file_hashes(new, exclude=exclude)
    return ChangeSet.between(before, after)


# --- update ---------------------------------------------------------------------------------


def update_items(
    context: AppContext,
    kind: ItemKind,
    item_ids: list[str],
    *,
    approve: Approver,
    dry_run: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> list[InstallResult]:
    """Re-resolve installed items' sources and upgrade what changed ([] ids = all)."""
    what, settings = kind.name, context.settings
    with install_lock(settings):
        recover_interrupted(context)
        section = read_lockfile(lockfile_path(settings)).section(what)
        targets = item_ids or sorted(section)
        for item_id in targets:
            if item_id not in section:
                raise NotFoundError(
                    f"{what} {item_id!r} was not installed with `homeclaw {what} install`",
                    hint=f"only installed {what}s can be updated; see `homeclaw {what} list`",
                )
        results = []
        for item_id in targets:
            options = InstallOptions(
                approve,
                upgrade=True,
                dry_run=dry_run,
                with_deps=section[item_id].deps_dir is not None,
                limits=limits,
                expect_id=item_id,
                redo_deps=False,
            )
            results.append(_update_one(context, kind, section[item_id], options, len(targets)))
    if any(r.action == "upgraded" for r in results):
        synced = sync_index(context, what)
        for r in results:
            r.synced = synced
    return results


def _update_one(
    context: AppContext, kind: ItemKind, entry: LockEntry, options: InstallOptions, count: int
) -> InstallResult:
    spec = SourceSpec(entry.source, entry.source_kind, entry.location, entry.ref)
    try:
        return _install(context, kind.for_entry(entry) if kind.for_entry else kind, spec, options)
    except HomeclawError as exc:
        if count == 1:
            raise
        # One unreachable source must not stop the others from updating.
        return InstallResult(
            item_id=entry.id,
            kind=kind.name,
            action="failed",
            folder=Path(entry.folder),
            source=entry.source,
            source_kind=entry.source_kind,
            version=entry.version,
            commit=entry.commit,
            digest=entry.digest,
            error=str(exc),
        )


# --- remove and the index -------------------------------------------------------------------


def remove_item(context: AppContext, kind: ItemKind, item_id: str) -> RemoveResult:
    """Delete an installed item with its lockfile entry and approvals (atomically)."""
    what, settings = kind.name, context.settings
    with install_lock(settings):
        recover_interrupted(context)
        dest = kind.target_dir(settings) / item_id
        # A folder deleted by hand leaves its lockfile entry and approvals: remove clears them,
        # or `update` would bring the item back.
        recorded = item_id in read_lockfile(lockfile_path(settings)).section(what)
        gone = not dest.is_dir() or item_id.startswith(".")
        if gone and not recorded:
            if kind.explain_missing is not None:
                kind.explain_missing(context, item_id)
            raise NotFoundError(
                f"no installed {what} {item_id!r} in {kind.target_dir(settings)}",
                hint=f"`homeclaw {what} list` shows the {what}s and their sources",
            )
        commit_removal(context, what, item_id, dest)
        if kind.after_remove is not None:
            kind.after_remove(context, item_id)
        audit_removal(settings, what, item_id, str(dest))
    return RemoveResult(item_id, dest, sync_index(context, what), folder_was_gone=gone)


def sync_index(context: AppContext, kind: Kind = "plugin") -> str | None:
    """Bring the index up to date after a change, if there is an index (a wait for another
    process's index lock is told to context.notice).

    Without an index there is nothing stale: the next `homeclaw sync` or chat builds it.
    """
    settings = context.settings
    if not Path(settings.index_uri).exists():
        return None
    from homeclaw_cli.app.sync import sync

    context.steps("sync", f"{kind} index")

    try:
        report = sync(settings, kinds=(f"{kind}s",), on_lock_wait=context.notice)
    except HomeclawError as exc:
        return f"index not updated: {exc.message} (run `homeclaw sync`)"
    counts = {"added": report.added, "updated": report.updated, "removed": report.removed}
    return "index updated: " + ", ".join(f"{len(ids)} {name}" for name, ids in counts.items())
