"""Plugins switched off with `homeclaw plugin disable`: `<state_dir>/disabled_plugins.json`.

A disabled plugin stays on disk; the registry leaves it out and lists it as "disabled".
"""

from __future__ import annotations

import json
from pathlib import Path

from homeclaw_cli.fsutil import atomic_write_text, file_lock


def disabled_path(state_dir: Path) -> Path:
    return state_dir / "disabled_plugins.json"


def read_disabled(state_dir: Path) -> set[str]:
    path = disabled_path(state_dir)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {str(x) for x in data} if isinstance(data, list) else set()


def set_disabled(state_dir: Path, plugin_id: str, disabled: bool) -> bool:
    """Disable or enable `plugin_id`; returns True when that changed anything."""
    path = disabled_path(state_dir)
    with file_lock(path.with_suffix(".lock"), what="the disabled plugins list"):
        current = read_disabled(state_dir)
        before = plugin_id in current
        if disabled:
            current.add(plugin_id)
        else:
            current.discard(plugin_id)
        atomic_write_text(path, json.dumps(sorted(current), indent=2) + "\n")
    return before != disabled
