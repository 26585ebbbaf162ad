"""A cheap fingerprint of every plugin (and skill) folder, so a no-change sync skips parsing
manifests and the MCP server rescans only when something changed.

Parsing 10,000 manifests takes ~7 s; listing the folders and stat-ing their top-level files
takes a fraction of that. After a successful plugin sync we save the fingerprint together
with the snapshot generation it produced. The next sync compares both: the same files
(path, size, mtime, inode) and the same index generation mean nothing can have changed,
so the registry scan, lancedb and the model are all skipped.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from homeclaw_cli import __version__
from homeclaw_cli.adapters.index_row import RECIPE
from homeclaw_cli.fsutil import atomic_write_text
from homeclaw_cli.settings import Settings

if TYPE_CHECKING:
    from hashlib import _Hash

STATE_FILE = "sync-plugins.json"


def plugin_fingerprint(settings: Settings) -> str:
    """sha256 over the plugin roots, folders and their top-level files' stat, and the version."""
    from homeclaw_cli.catalog.registry import plugin_folders, plugin_roots
    from homeclaw_cli.state.disabled_plugins import read_disabled

    # Everything registry.scan() reads must be in here: folders, files, external
    # registrations and the disabled list.
    # RECIPE: a checkout that changes what rows embed re-embeds them, whatever its version says
    digest = hashlib.sha256(f"{__version__} {RECIPE}\n{settings.embedding.model}\n".encode())
    section = settings.plugins  # what a row embeds depends on these too
    digest.update(f"text {section.embed_text} {section.text_facets}\n".encode())
    digest.update(("disabled " + " ".join(sorted(read_disabled(settings.state_dir)))).encode())
    for root in plugin_roots(settings):
        digest.update(f"root {root.source} {root.path}\n".encode())
        for folder in plugin_folders(root.path):
            _add_folder(digest, folder)
    external = settings.external_plugins_file
    try:
        st = external.stat()
        digest.update(f"external {st.st_size} {st.st_mtime_ns} {st.st_ino}\n".encode())
    except OSError:
        digest.update(b"external none\n")
    return digest.hexdigest()


def skill_fingerprint(settings: Settings) -> str:
    """sha256 over the skill roots, skill folders, their top-level files and scripts' stat."""
    from homeclaw_cli.catalog.skills import skill_folders, skill_roots

    # Everything catalog.skills.scan_skills() reads from disk: the roots, each skill's
    # SKILL.md (and siblings), its scripts/ tree, the test dir and the untrusted workspace.
    roots = [*skill_roots(settings), ("workspace?", settings.cwd / "skills")]
    if settings.skills.test_dir:
        roots.append(("test", settings.skills.test_dir.expanduser()))
    digest = hashlib.sha256(f"{__version__} {RECIPE}\n".encode())
    for source, root in roots:
        digest.update(f"root {source} {root}\n".encode())
        for folder in skill_folders(root):
            _add_folder(digest, folder)
            scripts = folder / "scripts"
            if scripts.is_dir():
                for path in sorted(scripts.rglob("*")):
                    _add_stat(digest, str(path.relative_to(folder)), path)
    return digest.hexdigest()


def _add_folder(digest: _Hash, folder: Path) -> None:
    """The folder's name and the stat of each file directly inside it."""
    digest.update(f"dir {folder}\n".encode())
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.is_file():
            _add_stat(digest, entry.name, entry)


def _add_stat(digest: _Hash, name: str, item: os.DirEntry[str] | Path) -> None:
    try:
        st = item.stat()
    except OSError:
        return
    digest.update(f"{name} {st.st_size} {st.st_mtime_ns} {st.st_ino}\n".encode())


def _state_path(settings: Settings) -> Path:
    return settings.state_dir / STATE_FILE


def load_state(settings: Settings) -> dict[str, Any]:
    try:
        data = json.loads(_state_path(settings).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_state(
    settings: Settings, fingerprint: str, generation: str, count: int, errors: list[str]
) -> None:
    payload = {
        "fingerprint": fingerprint,
        "generation": generation,
        "count": count,
        "errors": errors,
    }
    atomic_write_text(_state_path(settings), json.dumps(payload))


def plugins_changed_since_sync(settings: Settings) -> bool:
    """True when the plugin folders differ from what the last sync indexed (a cheap stat walk,
    no index read); False when nothing was synced yet (the search says that itself)."""
    synced = load_state(settings).get("fingerprint")
    return bool(synced) and synced != plugin_fingerprint(settings)
