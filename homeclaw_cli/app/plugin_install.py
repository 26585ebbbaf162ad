"""Install, upgrade, update and remove plugins in the user plugins dir (use cases).

The engine is kind-agnostic (ItemKind): app/skill_lifecycle.py runs skills through it.

Order of an install: parse the source -> fetch it into a staging folder inside the user
plugins dir -> validate with the same loader the registry uses -> refuse an overwrite
without --upgrade -> ask for the new permissions -> install Python deps into the staged
folder (--with-deps) -> swap into place -> record approvals and the lockfile -> commit ->
audit -> sync the index. Anything failing before the commit leaves the previous version,
lockfile and approvals as they were; a kill is rolled back by the next install command.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from homeclaw_cli.adapters.archive import DEFAULT_LIMITS, Limits
from homeclaw_cli.adapters.install_source import (
    Fetched,
    SourceSpec,
    SwapJournal,
    fetch_source,
    file_hashes,
    parse_source,
    recover,
    staging_area,
    swap_into_place,
)
from homeclaw_cli.catalog.plugin_files import DEPS_DIRNAME, REQUIREMENTS_FILE
from homeclaw_cli.catalog.plugin_loader import is_plugin_folder, load_plugin
from homeclaw_cli.core.changes import ChangeSet
from homeclaw_cli.core.manifest import Permissions, PluginManifest, SubprocessConfig
from homeclaw_cli.core.permissions import (
    IN_PROCESS_NOTICE,
    SUBPROCESS_NOTICE,
    Kind,
    PermissionDiff,
    diff_permissions,
    requested_permissions,
)
from homeclaw_cli.errors import HomeclawError, ManifestError, NotFoundError, UsageError
from homeclaw_cli.fsutil import file_lock
from homeclaw_cli.settings import Settings
from homeclaw_cli.state import audit
from homeclaw_cli.state.approvals import ApprovalStore
from homeclaw_cli.state.disabled_plugins import read_disabled, set_disabled
from homeclaw_cli.state.lockfile import LockEntry, lockfile_path, read_lockfile, write_lockfile

PIP_TIMEOUT_SEC = 900
LOCK_TIMEOUT_SEC = 60.0


@dataclass
class Candidate:
    """A validated plugin or skill in the staging area."""

    id: str
    version: str | None
    permissions: Permissions
    notices: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ItemKind:
    """What differs between installing a plugin and a skill."""

    name: Kind
    is_root: Callable[[Path], bool]
    inspect: Callable[[Settings, Fetched, bool], Candidate]  # (settings, fetched, with_deps)
    target_dir: Callable[[Settings], Path]
    installed_version: Callable[[Path], str | None]
    locate: Callable[[Path], Path] | None = None  # custom root search in the fetched source
    upgrade_flag: str = "--upgrade"
    subdir: str | None = None  # recorded in the lockfile so `update` finds the same folder
    rebind: Callable[[LockEntry], ItemKind] | None = None  # the kind to update an entry with


class ApprovalRefused(HomeclawError):
    """The user (or a script without --yes) did not approve the requested permissions."""


@dataclass
class PermissionRequest:
    """What the approver is asked: only `diff.added` needs a yes."""

    plugin_id: str  # the plugin or skill id
    requested: Permissions
    diff: PermissionDiff
    upgrade: bool
    notices: list[str]
    kind: Kind = "plugin"


Approver = Callable[[PermissionRequest], bool]


@dataclass
class InstallResult:
    plugin_id: str  # the plugin or skill id
    action: str  # installed | upgraded | unchanged | would install | would upgrade | ...
    folder: Path
    source: str
    source_kind: str
    version: str | None
    old_version: str | None = None
    commit: str | None = None
    old_commit: str | None = None
    digest: str = ""
    old_digest: str | None = None
    permissions: Permissions = field(default_factory=Permissions)
    permission_diff: PermissionDiff | None = None
    files: ChangeSet = field(default_factory=ChangeSet)
    deps_dir: str | None = None
    notices: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    synced: str | None = None
    kind: Kind = "plugin"
    error: str | None = None  # update --all: why this one failed

    def to_json(self) -> dict[str, Any]:
        diff = self.permission_diff
        return {
            "id": self.plugin_id,
            "kind": self.kind,
            "action": self.action,
            "folder": str(self.folder),
            "source": self.source,
            "source_kind": self.source_kind,
            "version": self.version,
            "old_version": self.old_version,
            "commit": self.commit,
            "old_commit": self.old_commit,
            "digest": self.digest,
            "old_digest": self.old_digest,
            "permissions": self.permissions.model_dump(mode="json"),
            "new_permissions": diff.added.model_dump(mode="json") if diff else None,
            "dropped_permissions": diff.removed.model_dump(mode="json") if diff else None,
            "files": {
                "added": self.files.added,
                "removed": self.files.removed,
                "changed": self.files.updated,
            },
            "deps_dir": self.deps_dir,
            "notices": self.notices,
            "warnings": self.warnings,
            "synced": self.synced,
            "error": self.error,
        }


@dataclass
class RemoveResult:
    plugin_id: str
    folder: Path
    synced: str | None = None


def _install_lock(settings: Settings) -> Any:
    return file_lock(
        settings.state_dir / "install.lock", timeout=LOCK_TIMEOUT_SEC, what="installed plugins"
    )


def recover_interrupted(settings: Settings) -> list[str]:
    """Roll back installs a killed process left half-done (call under the install lock).

    Covers both the user plugins dir and the user skills dir.
    """
    store = ApprovalStore.for_state_dir(settings.state_dir)
    path = lockfile_path(settings)

    def restore_records(journal: SwapJournal) -> None:
        meta = journal.meta
        kind = meta.get("kind")
        if kind not in ("plugin", "skill") or "id" not in meta:
            return
        store.restore(meta["id"], meta.get("prev_approval"), kind)
        lock = read_lockfile(path)
        prev = meta.get("prev_lock")
        if prev:
            lock.section(kind)[meta["id"]] = LockEntry.model_validate(prev)
        else:
            lock.section(kind).pop(meta["id"], None)
        write_lockfile(path, lock)

    rolled = [
        *recover(settings.user_plugins_dir, on_rollback=restore_records),
        *recover(settings.user_skills_dir, on_rollback=restore_records),
    ]
    for journal in rolled:
        audit.record(settings.data_dir, "rollback", journal.dest.name, reason="interrupted")
    return [j.dest.name for j in rolled]


def install_plugin(
    settings: Settings,
    source: str,
    *,
    approve: Approver,
    upgrade: bool = False,
    dry_run: bool = False,
    with_deps: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> InstallResult:
    """Install (or with `upgrade`, replace) one plugin from a folder, archive or git URL."""
    return install_item(
        settings,
        PLUGIN,
        source,
        approve=approve,
        upgrade=upgrade,
        dry_run=dry_run,
        with_deps=with_deps,
        limits=limits,
    )


def install_item(
    settings: Settings,
    kind: ItemKind,
    source: str,
    *,
    approve: Approver,
    upgrade: bool = False,
    dry_run: bool = False,
    with_deps: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> InstallResult:
    """The install use case for any kind of item (plugins, skills)."""
    spec = parse_source(source, cwd=settings.cwd)
    with _install_lock(settings):
        recover_interrupted(settings)
        result = _install(
            settings,
            kind,
            spec,
            approve,
            upgrade=upgrade,
            dry_run=dry_run,
            with_deps=with_deps,
            limits=limits,
        )
    if result.action in ("installed", "upgraded"):
        result.synced = sync_index(settings, kind.name)
    return result


def _install(
    settings: Settings,
    kind: ItemKind,
    spec: SourceSpec,
    approve: Approver,
    *,
    upgrade: bool,
    dry_run: bool,
    with_deps: bool,
    limits: Limits,
    expect_id: str | None = None,
) -> InstallResult:
    target_dir = kind.target_dir(settings)
    store = ApprovalStore.for_state_dir(settings.state_dir)
    lock_path = lockfile_path(settings)
    what = kind.name
    with staging_area(target_dir) as work:
        fetched = fetch_source(spec, work, is_root=kind.is_root, limits=limits, locate=kind.locate)
        item = kind.inspect(settings, fetched, with_deps)
        if expect_id is not None and item.id != expect_id:
            raise ManifestError(
                f"{spec.raw} now holds {what} {item.id!r}, not {expect_id!r}",
                hint=f"install it as a new {what}, or `homeclaw {what} remove {expect_id}`",
            )
        dest = target_dir / item.id
        lock = read_lockfile(lock_path)
        previous = lock.section(what).get(item.id)
        installed = dest.exists()
        if installed and not upgrade:
            raise UsageError(
                f"{what} {item.id!r} is already installed in {dest}",
                hint=f"`homeclaw {what} install {spec.raw} {kind.upgrade_flag}` replaces it",
            )
        approved = store.get(item.id, what)
        diff = diff_permissions(approved, item.permissions)
        result = InstallResult(
            plugin_id=item.id,
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
            permissions=item.permissions,
            permission_diff=diff,
            files=_file_changes(dest, fetched.root) if installed else ChangeSet(),
            notices=item.notices,
            warnings=item.warnings,
        )
        same = previous is not None and (previous.digest, previous.commit) == (
            fetched.digest,
            fetched.commit,
        )
        if installed and same and not with_deps:
            result.action = "unchanged"
            return result
        if dry_run:
            result.action = "would upgrade" if installed else "would install"
            return result
        if not diff.added.empty:
            request = PermissionRequest(
                item.id, item.permissions, diff, installed, item.notices, what
            )
            if not approve(request):
                audit.record(settings.data_dir, "approval-refused", item.id, kind=what)
                raise ApprovalRefused(
                    f"{what} {item.id!r} was not installed: its permissions were not approved"
                )
        if with_deps and (fetched.root / REQUIREMENTS_FILE).is_file():
            install_requirements(fetched.root, item.id)
            result.deps_dir = DEPS_DIRNAME
        entry = LockEntry(
            id=item.id,
            kind=what,
            source=spec.raw,
            source_kind=spec.kind,
            location=spec.location,
            ref=spec.ref,
            commit=fetched.commit,
            digest=fetched.digest,
            version=item.version,
            permissions=item.permissions.model_dump(mode="json"),
            deps_dir=result.deps_dir,
            installed_at=datetime.now(UTC).isoformat(timespec="seconds"),
            folder=str(dest),
            subdir=kind.subdir,
        )
        prev_approval = store.raw(item.id, what)
        meta = {
            "kind": what,
            "id": item.id,
            "prev_lock": previous.model_dump(mode="json") if previous else None,
            "prev_approval": prev_approval,
        }
        try:
            with swap_into_place(fetched.root, dest, meta=meta):
                store.grant(item.id, item.permissions, what)
                lock = read_lockfile(lock_path)
                lock.section(what)[item.id] = entry
                write_lockfile(lock_path, lock)
        except BaseException:
            _restore_records(settings, what, item.id, previous, prev_approval)
            raise
    _audit_install(settings, result, diff)
    return result


def _restore_records(
    settings: Settings,
    kind: Kind,
    item_id: str,
    previous: LockEntry | None,
    approval: dict[str, Any] | None,
) -> None:
    ApprovalStore.for_state_dir(settings.state_dir).restore(item_id, approval, kind)
    path = lockfile_path(settings)
    lock = read_lockfile(path)
    section = lock.section(kind)
    if section.get(item_id) == previous:
        return  # the failure came before the lockfile was written
    if previous is None:
        section.pop(item_id, None)
    else:
        section[item_id] = previous
    write_lockfile(path, lock)


def _audit_install(settings: Settings, result: InstallResult, diff: PermissionDiff) -> None:
    details: dict[str, Any] = {
        "source": result.source,
        "version": result.version,
        "commit": result.commit,
        "digest": result.digest,
    }
    if result.action == "upgraded":
        details["old_version"] = result.old_version
    if result.kind != "plugin":
        details["kind"] = result.kind
    audit.record(
        settings.data_dir,
        "upgrade" if result.action == "upgraded" else "install",
        result.plugin_id,
        **details,
    )
    if not diff.added.empty:
        audit.record(
            settings.data_dir,
            "approve",
            result.plugin_id,
            granted=diff.added.model_dump(mode="json"),
            **({"kind": result.kind} if result.kind != "plugin" else {}),
        )


def _validated(fetched: Fetched) -> PluginManifest:
    result = load_plugin(fetched.root)
    if result.ok and result.manifest is not None:
        return result.manifest
    shown = fetched.spec.location if fetched.spec.kind == "folder" else fetched.spec.raw
    lines = [
        str(d).replace(str(fetched.root), shown)
        for d in result.diagnostics
        if d.severity == "error"
    ]
    raise ManifestError(
        f"{fetched.spec.raw}: the plugin is not valid, nothing was installed:\n  "
        + "\n  ".join(lines),
        hint="fix the manifest (`homeclaw plugin validate <folder>` shows the same findings)",
    )


def _notices(manifest: PluginManifest) -> list[str]:
    if manifest.type == "inline":
        return [IN_PROCESS_NOTICE]
    if isinstance(manifest.config, SubprocessConfig) or manifest.type == "mcp":
        return [SUBPROCESS_NOTICE]
    return []


def _warnings(
    settings: Settings, manifest: PluginManifest, fetched: Fetched, with_deps: bool
) -> list[str]:
    warnings: list[str] = []
    if (fetched.root / REQUIREMENTS_FILE).is_file() and not with_deps:
        warnings.append(
            f"{manifest.id} declares Python requirements ({REQUIREMENTS_FILE}) that were not "
            "installed; add --with-deps to install them into the plugin's own folder"
        )
    from homeclaw_cli.catalog.registry import scan

    registry = scan(settings)
    other = registry.plugins.get(manifest.id)
    if other is not None and other.source != "user":
        higher = other.source in ("path", "config", "workspace")
        warnings.append(
            f"a {other.source} plugin with id {manifest.id!r} exists ({other.folder}); "
            + ("it takes precedence over the installed one" if higher else "the installed one wins")
        )
    return warnings


def _inspect_plugin(settings: Settings, fetched: Fetched, with_deps: bool) -> Candidate:
    manifest = _validated(fetched)
    return Candidate(
        manifest.id,
        manifest.version,
        requested_permissions(manifest),
        _notices(manifest),
        _warnings(settings, manifest, fetched, with_deps),
    )


def _installed_plugin_version(folder: Path) -> str | None:
    loaded = load_plugin(folder)
    return loaded.manifest.version if loaded.manifest else None


PLUGIN = ItemKind(
    name="plugin",
    is_root=is_plugin_folder,
    inspect=_inspect_plugin,
    target_dir=lambda settings: settings.user_plugins_dir,
    installed_version=_installed_plugin_version,
)


def _file_changes(old: Path, new: Path) -> ChangeSet:
    exclude = frozenset({DEPS_DIRNAME})
    before, after = file_hashes(old, exclude=exclude), file_hashes(new, exclude=exclude)
    return ChangeSet.between(before, after)


def install_requirements(folder: Path, plugin_id: str) -> Path:
    """pip install the plugin's requirements.txt into `<folder>/.homeclaw-deps`."""
    target = folder / DEPS_DIRNAME
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--no-input",
        "--disable-pip-version-check",
        "--quiet",
        "--target",
        str(target),
        "-r",
        str(folder / REQUIREMENTS_FILE),
    ]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT_SEC, check=False, cwd=folder
        )
    except subprocess.TimeoutExpired:
        raise HomeclawError(
            f"installing the dependencies of {plugin_id} took longer than {PIP_TIMEOUT_SEC}s"
        ) from None
    if proc.returncode != 0:
        output = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        raise HomeclawError(
            f"installing the dependencies of {plugin_id} failed, nothing was installed; pip said:\n"
            + "\n".join("  " + line for line in output[-12:]),
            hint=f"check {REQUIREMENTS_FILE} in the plugin, or install without --with-deps",
        )
    return target


# --- update ---------------------------------------------------------------------------------


def _spec_from_entry(entry: LockEntry) -> SourceSpec:
    return SourceSpec(entry.source, entry.source_kind, entry.location, entry.ref)


def update_plugins(
    settings: Settings,
    plugin_ids: list[str],
    *,
    approve: Approver,
    dry_run: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> list[InstallResult]:
    """Re-resolve each installed plugin's source; upgrade what changed. [] ids = all."""
    return update_items(
        settings, PLUGIN, plugin_ids, approve=approve, dry_run=dry_run, limits=limits
    )


def update_items(
    settings: Settings,
    kind: ItemKind,
    item_ids: list[str],
    *,
    approve: Approver,
    dry_run: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> list[InstallResult]:
    """update for any kind of item: [] ids = every installed one."""
    what = kind.name
    with _install_lock(settings):
        recover_interrupted(settings)
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
            entry = section[item_id]
            try:
                result = _install(
                    settings,
                    kind.rebind(entry) if kind.rebind else kind,
                    _spec_from_entry(entry),
                    approve,
                    upgrade=True,
                    dry_run=dry_run,
                    with_deps=entry.deps_dir is not None,
                    limits=limits,
                    expect_id=item_id,
                )
            except HomeclawError as exc:
                if len(targets) == 1:
                    raise
                # One unreachable source must not stop the others from updating.
                result = InstallResult(
                    plugin_id=item_id,
                    kind=what,
                    action="failed",
                    folder=Path(entry.folder),
                    source=entry.source,
                    source_kind=entry.source_kind,
                    version=entry.version,
                    commit=entry.commit,
                    digest=entry.digest,
                    error=str(exc),
                )
            results.append(result)
    if any(r.action == "upgraded" for r in results):
        synced = sync_index(settings, what)
        for r in results:
            r.synced = synced
    return results


# --- remove, enable, disable ----------------------------------------------------------------


def remove_plugin(settings: Settings, plugin_id: str) -> RemoveResult:
    """Delete an installed plugin, its lockfile entry and approvals (atomically)."""
    return remove_item(settings, PLUGIN, plugin_id)


def remove_item(settings: Settings, kind: ItemKind, item_id: str) -> RemoveResult:
    """remove for any kind of item installed in its user dir."""
    what = kind.name
    with _install_lock(settings):
        recover_interrupted(settings)
        dest = kind.target_dir(settings) / item_id
        if not dest.is_dir() or item_id.startswith("."):
            if what == "plugin":
                _explain_not_installed(settings, item_id)
            raise NotFoundError(
                f"no installed {what} {item_id!r} in {kind.target_dir(settings)}",
                hint=f"`homeclaw {what} list` shows the {what}s and their sources",
            )
        store = ApprovalStore.for_state_dir(settings.state_dir)
        path = lockfile_path(settings)
        lock = read_lockfile(path)
        previous = lock.section(what).get(item_id)
        prev_approval = store.raw(item_id, what)
        meta = {
            "kind": what,
            "id": item_id,
            "prev_lock": previous.model_dump(mode="json") if previous else None,
            "prev_approval": prev_approval,
        }
        try:
            with swap_into_place(None, dest, meta=meta):
                store.revoke(item_id, what)
                lock.section(what).pop(item_id, None)
                write_lockfile(path, lock)
        except BaseException:
            _restore_records(settings, what, item_id, previous, prev_approval)
            raise
        if what == "plugin" and item_id in read_disabled(settings.state_dir):
            set_disabled(settings.state_dir, item_id, False)  # a reinstall starts enabled
        details = {"folder": str(dest), **({"kind": what} if what != "plugin" else {})}
        audit.record(settings.data_dir, "remove", item_id, **details)
    return RemoveResult(item_id, dest, sync_index(settings, what))


def _explain_not_installed(settings: Settings, plugin_id: str) -> None:
    from homeclaw_cli.catalog.registry import scan

    entry = scan(settings).plugins.get(plugin_id)
    if entry is not None:
        raise UsageError(
            f"plugin {plugin_id!r} is a {entry.source} plugin ({entry.folder}), "
            "not one installed in the user plugins dir",
            hint=f"`homeclaw plugin disable {plugin_id}` turns it off without deleting",
        )


def set_plugin_enabled(settings: Settings, plugin_id: str, enabled: bool) -> bool:
    """Enable or disable any plugin by id; returns True when the state changed."""
    from homeclaw_cli.catalog.registry import scan

    registry = scan(settings)
    known = plugin_id in registry.plugins or plugin_id in registry.disabled
    if not known and plugin_id not in read_disabled(settings.state_dir):
        registry.get(plugin_id)  # raises NotFoundError with a did-you-mean
    changed = set_disabled(settings.state_dir, plugin_id, not enabled)
    if changed:
        audit.record(settings.data_dir, "enable" if enabled else "disable", plugin_id)
        sync_index(settings, "plugin")
    return changed


# --- index ----------------------------------------------------------------------------------


def sync_index(settings: Settings, kind: Kind = "plugin") -> str | None:
    """Bring the index up to date after a change, if there is an index.

    Without an index there is nothing stale: the next `homeclaw sync` or chat builds it.
    """
    if not Path(settings.index_uri).exists():
        return None
    from homeclaw_cli.app.sync import sync

    try:
        report = sync(settings, kinds=(f"{kind}s",))
    except HomeclawError as exc:
        return f"index not updated: {exc.message} (run `homeclaw sync`)"
    counts = {"added": report.added, "updated": report.updated, "removed": report.removed}
    return "index updated: " + ", ".join(f"{len(ids)} {name}" for name, ids in counts.items())
