"""Scan plugin folders and external registrations into descriptors by id.

Precedence, highest first (the first folder that defines an id wins; the others are kept as
"shadowed" so `plugin list --all` can show them):

  1. --plugins-dir DIR (repeatable) and HOMECLAW_PLUGINS_PATH     source "path"
  2. `plugins.dirs` in the config file                              source "config"
  3. ./plugins of the current folder, only when trusted            source "workspace"
     (`--trust-workspace` / `plugins.trust_workspace`; untrusted ones are listed, not loaded)
  4. the user plugins dir (<data_dir>/plugins)                      source "user"
  5. the bundled plugins/ shipped with homeclaw (HOMECLAW_NO_BUNDLED) source "bundled"
  6. external registrations in external_plugins.json                source "external"

External registrations come last: they can never replace a folder plugin's id.
Manifests are read without importing plugin code; a broken plugin is reported and skipped.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeclaw_cli.catalog.plugin_loader import is_plugin_folder, load_plugin
from homeclaw_cli.core.changes import ChangeSet
from homeclaw_cli.core.diagnostics import Diagnostic
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.errors import ManifestError, NotFoundError
from homeclaw_cli.settings import BUNDLED_PLUGINS_DIR, Settings
from homeclaw_cli.state.disabled_plugins import disabled_path, read_disabled_checked
from homeclaw_cli.state.external_registrations import read_external_plugins
from homeclaw_cli.suggest import did_you_mean

_SKIP_DIRS = {"node_modules", "__pycache__"}


@dataclass(frozen=True)
class PluginRoot:
    source: str
    path: Path


@dataclass
class PluginEntry:
    manifest: PluginManifest
    source: str
    folder: Path | None
    manifest_path: Path | None
    legacy: bool = False
    warnings: list[Diagnostic] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.manifest.id

    @property
    def content_hash(self) -> str:
        """Changes whenever anything an index row is built from changes."""
        manifest = self.manifest.model_dump(mode="json")
        if not manifest["requires"]:  # so indexes built before `requires` existed stay current
            del manifest["requires"]
        payload = json.dumps({"source": self.source, "manifest": manifest}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()


@dataclass
class ShadowedPlugin:
    entry: PluginEntry
    shadowed_by: PluginEntry


@dataclass
class BrokenPlugin:
    source: str
    folder: Path
    diagnostics: list[Diagnostic]

    @property
    def summary(self) -> str:
        errors = [d for d in self.diagnostics if d.severity == "error"]
        return str(errors[0]) if errors else "failed to load"


@dataclass
class Registry:
    plugins: dict[str, PluginEntry] = field(default_factory=dict)
    shadowed: list[ShadowedPlugin] = field(default_factory=list)
    broken: list[BrokenPlugin] = field(default_factory=list)
    roots: list[PluginRoot] = field(default_factory=list)
    disabled: dict[str, PluginEntry] = field(default_factory=dict)
    # ./plugins folders of an untrusted workspace: shown by `plugin list --all`, never loaded.
    untrusted: list[Path] = field(default_factory=list)
    cwd: Path | None = None  # where a plugin id that is a folder path is looked for

    def warnings(self) -> list[str]:
        """What a user must hear on every start: a workspace plugin replacing an installed one,
        and a registration a folder plugin with its id hides (it is never used)."""
        replaced = [
            f"workspace plugin {s.shadowed_by.folder} replaces your installed {s.entry.id} "
            f"({s.entry.folder}); it is used because the workspace is trusted"
            for s in self.shadowed
            if s.shadowed_by.source == "workspace" and s.entry.source in ("user", "external")
        ]
        hidden = [
            f"your registered plugin {s.entry.id} is not used: the {s.shadowed_by.source} plugin "
            f"{s.shadowed_by.folder} has that id (unregister it and register it under another)"
            for s in self.shadowed
            if s.entry.source == "external" and s.shadowed_by.source != "workspace"
        ]
        return replaced + hidden

    def get(self, plugin_id: str) -> PluginEntry:
        try:
            return self.plugins[plugin_id]
        except KeyError:
            if plugin_id in self.disabled:
                raise NotFoundError(
                    f"plugin {plugin_id!r} is disabled",
                    hint=f"`homeclaw plugin enable {plugin_id}` turns it back on",
                ) from None
            broken = next((b for b in self.broken if b.folder.name == plugin_id), None)
            if broken is not None:  # it is there, and invalid: exit 1, not "not found"
                raise ManifestError(
                    f"plugin {plugin_id!r} failed to load: {broken.summary}",
                    hint=f"run `homeclaw plugin validate {broken.folder}`",
                ) from None
            raise self._not_found(plugin_id) from None

    def _not_found(self, plugin_id: str) -> NotFoundError:
        """Say why a plugin folder the user can see is not loaded, when one is."""
        untrusted = next((f for f in self.untrusted if f.name == plugin_id), None)
        if untrusted is not None:
            return NotFoundError(
                f"plugin {plugin_id!r} in {untrusted.parent} is not loaded: "
                "plugins in ./plugins run only in a trusted workspace",
                hint="add --trust-workspace before the command, or set "
                "`plugins.trust_workspace: true` in the config file",
            )
        folder = (self.cwd or Path.cwd()) / plugin_id
        if is_plugin_folder(folder):
            loaded = load_plugin(folder).manifest
            pid = loaded.id if loaded is not None else folder.name
            parent = shlex.quote(str(folder.resolve().parent))
            return NotFoundError(
                f"{folder} is a plugin folder, but not in a folder homeclaw loads plugins from",
                hint=f"add `--plugins-dir {parent}` before the command, e.g. "
                f"`homeclaw --plugins-dir {parent} plugin show {pid}`, or install it with "
                f"`homeclaw plugin install {shlex.quote(str(folder))}`",
            )
        return NotFoundError(
            f"no plugin with id {plugin_id!r}{did_you_mean(plugin_id, self.plugins)}",
            hint="`homeclaw plugin list` shows the installed plugins",
        )

    def diff(self, newer: Registry) -> ChangeSet:
        """Plugin ids added, updated (another content hash) and removed in `newer`."""
        return ChangeSet.between(_hashes(self.plugins), _hashes(newer.plugins))


def _hashes(entries: dict[str, PluginEntry]) -> dict[str, str]:
    return {pid: entry.content_hash for pid, entry in entries.items()}


def plugin_roots(settings: Settings) -> list[PluginRoot]:
    candidates = [
        *(PluginRoot("path", p) for p in settings.extra_plugin_dirs),
        *(PluginRoot("config", p) for p in settings.plugins.dirs),
    ]
    if settings.plugins.trust_workspace:
        candidates.append(PluginRoot("workspace", settings.cwd / "plugins"))
    candidates.append(PluginRoot("user", settings.user_plugins_dir))
    if settings.bundled:
        candidates.append(PluginRoot("bundled", BUNDLED_PLUGINS_DIR))
    roots: list[PluginRoot] = []
    seen: set[Path] = set()
    for root in candidates:
        resolved = root.path.expanduser().resolve()
        if resolved in seen:
            continue
        seen.add(resolved)
        # The bundled folder seen as ./plugins (working in a checkout) is still "bundled".
        source = "bundled" if resolved == BUNDLED_PLUGINS_DIR.resolve() else root.source
        roots.append(PluginRoot(source, resolved))
    return roots


def plugin_folders(root: Path) -> list[Path]:
    """Plugin folders under `root`; `root` itself when it is one plugin's folder."""
    if not root.is_dir():
        return []
    if is_plugin_folder(root):
        return [root]
    return sorted(
        child
        for child in root.iterdir()
        if child.is_dir() and child.name not in _SKIP_DIRS and not child.name.startswith((".", "_"))
    )


def scan(settings: Settings) -> Registry:
    """Build the registry from every plugin root and external registration."""
    registry = Registry(roots=plugin_roots(settings))
    disabled, damaged = read_disabled_checked(settings.state_dir)
    if damaged:
        path = disabled_path(settings.state_dir)
        why = f"{damaged}; kept disabled: {', '.join(sorted(disabled)) or 'none'}"
        hint = "fix the list, or run `homeclaw plugin disable ID` (the damaged file goes to .bak)"
        problem = Diagnostic("error", "disabled-file", path, why, hint=hint)
        registry.broken.append(BrokenPlugin("state", path, [problem]))
    for root in registry.roots:
        for folder in plugin_folders(root.path):
            result = load_plugin(folder)
            if not result.ok or result.manifest is None:
                registry.broken.append(BrokenPlugin(root.source, folder, result.diagnostics))
                continue
            entry = PluginEntry(
                result.manifest,
                root.source,
                folder,
                result.manifest_path,
                legacy=result.legacy,
                warnings=result.diagnostics,
            )
            _add(registry, entry, disabled)
    external, problems = read_external_plugins(settings.external_plugins_file)
    for manifest in external:
        _add(
            registry,
            PluginEntry(manifest, "external", None, settings.external_plugins_file),
            disabled,
        )
    if problems:
        registry.broken.append(BrokenPlugin("external", settings.external_plugins_file, problems))
    registry.untrusted = untrusted_workspace_plugins(settings, registry.roots)
    registry.cwd = settings.cwd
    return registry


def untrusted_workspace_plugins(settings: Settings, roots: list[PluginRoot]) -> list[Path]:
    """Plugin folders in ./plugins that are not loaded because the workspace is not trusted."""
    workspace = (settings.cwd / "plugins").resolve()
    if settings.plugins.trust_workspace or any(r.path == workspace for r in roots):
        return []  # trusted, or the same folder is loaded under another name (bundled, --dir)
    return [f for f in plugin_folders(workspace) if is_plugin_folder(f)]


def _add(registry: Registry, entry: PluginEntry, disabled: set[str]) -> None:
    if entry.id in disabled:
        registry.disabled.setdefault(entry.id, entry)
        return
    winner = registry.plugins.get(entry.id)
    if winner is None:
        registry.plugins[entry.id] = entry
    else:
        registry.shadowed.append(ShadowedPlugin(entry, winner))


def describe_entry(entry: PluginEntry) -> dict[str, Any]:
    """A JSON-ready view of one plugin for `plugin show --json` and the API."""
    return {
        "id": entry.id,
        "source": entry.source,
        "folder": str(entry.folder) if entry.folder else None,
        "manifest_path": str(entry.manifest_path) if entry.manifest_path else None,
        "legacy": entry.legacy,
        "manifest": entry.manifest.model_dump(mode="json", exclude={"config": {"type"}}),
    }
