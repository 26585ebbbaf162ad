"""Installing plugins: manifest validation, notices and shadowing warnings, enable/disable.

The steps all kinds share are in pipeline.py; this module says what makes a plugin.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from homeclaw_cli.adapters.archive import DEFAULT_LIMITS, SKIP_NAMES, Limits
from homeclaw_cli.adapters.install_source import Fetched, find_root
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.install.approval import Approver
from homeclaw_cli.app.install.kinds import ItemKind, StagedItem
from homeclaw_cli.app.install.pipeline import install_item, remove_item, update_items
from homeclaw_cli.app.install.results import InstallResult, RemoveResult
from homeclaw_cli.catalog.plugin_files import REQUIREMENTS_FILE
from homeclaw_cli.catalog.plugin_loader import is_plugin_folder, load_plugin
from homeclaw_cli.core.manifest import PluginManifest, SubprocessConfig
from homeclaw_cli.core.permissions import (
    IN_PROCESS_NOTICE,
    SUBPROCESS_NOTICE,
    requested_permissions,
)
from homeclaw_cli.errors import ManifestError, NotFoundError, UsageError
from homeclaw_cli.state.disabled_plugins import read_disabled, set_disabled


def install_plugin(
    context: AppContext,
    source: str,
    *,
    approve: Approver,
    upgrade: bool = False,
    dry_run: bool = False,
    with_deps: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    subdir: str | None = None,
) -> InstallResult:
    """Install (or with `upgrade`, replace) one plugin from a folder, archive or git URL;
    `subdir` picks one plugin's folder in a source that holds several."""
    return install_item(
        context,
        plugin_kind(subdir),
        source,
        approve=approve,
        upgrade=upgrade,
        dry_run=dry_run,
        with_deps=with_deps,
        limits=limits,
    )


def update_plugins(
    context: AppContext,
    plugin_ids: list[str],
    *,
    approve: Approver,
    dry_run: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> list[InstallResult]:
    """Re-resolve each installed plugin's source; upgrade what changed. [] ids = all."""
    return update_items(
        context, PLUGIN, plugin_ids, approve=approve, dry_run=dry_run, limits=limits
    )


def remove_plugin(context: AppContext, plugin_id: str) -> RemoveResult:
    """Delete an installed plugin, its lockfile entry and approvals (atomically)."""
    return remove_item(context, PLUGIN, plugin_id)


def set_plugin_enabled(context: AppContext, plugin_id: str, enabled: bool) -> bool:
    """Enable or disable any plugin by id; returns True when the state changed."""
    from homeclaw_cli.app.install.toggle import set_enabled

    return set_enabled(context, "plugin", plugin_id, enabled)


def _validate(context: AppContext, fetched: Fetched, with_deps: bool) -> StagedItem:
    manifest = _valid_manifest(fetched)
    return StagedItem(
        manifest.id,
        manifest.version,
        requested_permissions(manifest),
        _notices(manifest),
        _warnings(context, manifest, fetched, with_deps),
    )


def _valid_manifest(fetched: Fetched) -> PluginManifest:
    """The manifest, checked by the same loader the registry uses."""
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


def plugin_root(content: Path) -> Path | None:
    """The plugin's folder in a fetched source: the top, its only subfolder, or the one plugin
    folder among its subfolders (or those of a single wrapper folder). Several is an error that
    names them, as `skill install` does."""
    root = find_root(content, is_plugin_folder)
    if root is not None:
        return root
    top = content
    entries = [p for p in content.iterdir() if p.name not in SKIP_NAMES]
    if len(entries) == 1 and entries[0].is_dir() and not entries[0].is_symlink():
        content = entries[0]  # archives and repositories often wrap everything in one folder
    found = sorted(
        c for c in content.iterdir() if c.is_dir() and not c.is_symlink() and is_plugin_folder(c)
    )
    if len(found) <= 1:
        return found[0] if found else None
    paths = [c.relative_to(top).as_posix() for c in found]
    names = ", ".join(paths[:10]) + (", ..." if len(found) > 10 else "")
    raise UsageError(
        f"the source holds {len(found)} plugins ({names}); install one at a time",
        hint=f"pick one with --subdir PATH, e.g. `homeclaw plugin install <source> --subdir "
        f"{paths[0]}`",
    )


def _subdir_root(content: Path, subdir: str) -> Path:
    parts = PurePosixPath(subdir).parts
    if PurePosixPath(subdir).is_absolute() or ".." in parts:
        raise UsageError(f"--subdir {subdir!r} must be a relative path without `..`")
    root = content.joinpath(*parts)
    if not is_plugin_folder(root) or root.is_symlink():
        raise NotFoundError(
            f"--subdir {subdir!r}: no plugin.yaml there in the source",
            hint="the path is relative to the top of the folder, archive or repository",
        )
    return root


def _notices(manifest: PluginManifest) -> list[str]:
    if manifest.type == "inline":
        return [IN_PROCESS_NOTICE]
    if isinstance(manifest.config, SubprocessConfig) or manifest.type == "mcp":
        return [SUBPROCESS_NOTICE]
    return []


def _warnings(
    context: AppContext, manifest: PluginManifest, fetched: Fetched, with_deps: bool
) -> list[str]:
    warnings: list[str] = []
    if (fetched.root / REQUIREMENTS_FILE).is_file() and not with_deps:
        warnings.append(
            f"{manifest.id} declares Python requirements ({REQUIREMENTS_FILE}) that were not "
            "installed; add --with-deps to install them into the plugin's own folder"
        )
    if manifest.id in read_disabled(context.settings.state_dir):
        warnings.append(
            f"plugin id {manifest.id!r} is disabled, so it stays off once installed; "
            f"`homeclaw plugin enable {manifest.id}` turns it on"
        )
    other = context.registry.plugins.get(manifest.id)
    if other is not None and other.source != "user":
        higher = other.source in ("path", "config", "workspace")
        warnings.append(
            f"a {other.source} plugin with id {manifest.id!r} exists ({other.folder}); "
            + ("it takes precedence over the installed one" if higher else "the installed one wins")
        )
    return warnings


def _descriptor(folder: Path) -> dict[str, Any]:
    loaded = load_plugin(folder)
    if loaded.manifest is None:
        return {}
    return loaded.manifest.model_dump(mode="json", exclude={"config": {"type"}})


def _installed_version(folder: Path) -> str | None:
    loaded = load_plugin(folder)
    return loaded.manifest.version if loaded.manifest else None


def _explain_not_installed(context: AppContext, plugin_id: str) -> None:
    """A bundled, path or config plugin cannot be removed: say so instead of 'not found'."""
    entry = context.registry.plugins.get(plugin_id)
    if entry is not None:
        raise UsageError(
            f"plugin {plugin_id!r} is a {entry.source} plugin ({entry.folder}), "
            "not one installed in the user plugins dir",
            hint=f"`homeclaw plugin disable {plugin_id}` turns it off without deleting",
        )


def _enable_on_reinstall(context: AppContext, plugin_id: str) -> None:
    """A reinstall starts enabled; but disabling is by id, so a bundled (path, config) plugin
    of that id, in use again now, stays off as the user set it."""
    state_dir = context.settings.state_dir
    if plugin_id in read_disabled(state_dir) and plugin_id not in context.rescan().disabled:
        set_disabled(state_dir, plugin_id, False)


def plugin_kind(subdir: str | None = None) -> ItemKind:
    """The ItemKind for plugins; with `subdir` (recorded for `update`), for the plugin there."""
    return ItemKind(
        name="plugin",
        is_root=is_plugin_folder,
        validate=_validate,
        target_dir=lambda settings: settings.user_plugins_dir,
        installed_version=_installed_version,
        explain_missing=_explain_not_installed,
        after_remove=_enable_on_reinstall,
        describe=_descriptor,
        locate=(lambda content: _subdir_root(content, subdir)) if subdir else plugin_root,
        subdir=subdir,
        for_entry=lambda entry: plugin_kind(entry.subdir),
    )


PLUGIN = plugin_kind()
