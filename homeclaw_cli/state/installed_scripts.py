"""The skill scripts an install put in place: run_skill runs nothing added to the copy later.

`homeclaw skill install` and `plugin install` record in the item's lockfile entry every file
under a skill's scripts/ (the skill's own, or skills/<id>/scripts/ inside a plugin), relative
to the item folder. Those are what the user approved. A file put there afterwards, by hand or
by a process, was never approved, and `update` keeps it (it keeps what was added next to the
source's files: node_modules, a venv); so run_skill refuses it and `update` names it. Entries
written before this record have none (`scripts` is None) and refuse nothing, like skills
placed by hand, which have no entry at all.
"""

from __future__ import annotations

import os
from pathlib import Path

from homeclaw_cli.settings import Settings
from homeclaw_cli.state.lockfile import LockEntry, lockfile_path, read_lockfile

SCRIPTS = "scripts"


def scripts_in(root: Path) -> list[str]:
    """Files (symlinks included) under root/scripts/ and root/skills/*/scripts/, relative to
    root and sorted; dotfiles and __pycache__ left out, as run_skill never runs them."""
    found: list[str] = []
    folders = [root / SCRIPTS]
    if (root / "skills").is_dir() and not (root / "skills").is_symlink():
        folders += sorted(d / SCRIPTS for d in (root / "skills").iterdir())
    for folder in folders:
        if not folder.is_dir() or folder.is_symlink():
            continue
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
            base = Path(dirpath)
            links = [d for d in dirnames if (base / d).is_symlink()]
            for name in filenames + links:
                if not name.startswith("."):
                    found.append((base / name).relative_to(root).as_posix())
    return sorted(found)


def added_scripts(installed: Path, source: Path) -> list[str]:
    """Scripts in the installed copy that the source does not have."""
    return sorted(set(scripts_in(installed)) - set(scripts_in(source)))


def unapproved(settings: Settings, script: Path) -> tuple[LockEntry, str] | None:
    """The lockfile entry of the installed item holding `script` and the script's path
    relative to it, when that entry records its scripts and this is not one."""
    real = script.resolve()
    found = _holder(recorded_entries(settings), real)
    if found is None:
        return None
    entry, root = found
    rel = real.relative_to(root).as_posix()
    return None if rel in (entry.scripts or []) else (entry, rel)


def recorded_entries(settings: Settings) -> list[LockEntry]:
    """The lockfile entries that record their scripts."""
    lock = read_lockfile(lockfile_path(settings))
    return [e for e in [*lock.skills.values(), *lock.plugins.values()] if e.scripts is not None]


def approved_of(entries: list[LockEntry], folder: Path, scripts: list[str]) -> list[str]:
    """Those of a skill's `scripts` (relative to folder/scripts) its install recorded: all of
    them for a skill no recording install holds."""
    real = folder.resolve()
    found = _holder(entries, real)
    if found is None:
        return scripts
    entry, root = found
    prefix = (real / SCRIPTS).relative_to(root).as_posix()
    recorded = set(entry.scripts or [])
    return [s for s in scripts if f"{prefix}/{s}" in recorded]


def _holder(entries: list[LockEntry], real: Path) -> tuple[LockEntry, Path] | None:
    """The first entry whose item folder holds the resolved path `real`, with that folder."""
    for entry in entries:
        root = Path(entry.folder).resolve()
        if real.is_relative_to(root):
            return entry, root
    return None
