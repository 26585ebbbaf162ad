"""Plugins and skills switched off with `homeclaw plugin|skill disable`:
`<state_dir>/disabled_plugins.json` and `<state_dir>/disabled_skills.json`.

A disabled item stays on disk; its registry leaves it out and lists it as "disabled".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from homeclaw_cli.fsutil import atomic_write_text, file_lock

Kind = Literal["plugin", "skill"]


def disabled_path(state_dir: Path, kind: Kind = "plugin") -> Path:
    return state_dir / f"disabled_{kind}s.json"


def read_disabled(state_dir: Path, kind: Kind = "plugin") -> set[str]:
    path = disabled_path(state_dir, kind)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {str(x) for x in data} if isinstance(data, list) else set()


def set_disabled(state_dir: Path, item_id: str, disabled: bool, kind: Kind = "plugin") -> bool:
    """Disable or enable `item_id`; returns True when that changed anything."""
    path = disabled_path(state_dir, kind)
    with file_lock(path.with_suffix(".lock"), what=f"the disabled {kind}s list"):
        current = read_disabled(state_dir, kind)
        before = item_id in current
        if disabled:
            current.add(item_id)
        else:
            current.discard(item_id)
        atomic_write_text(path, json.dumps(sorted(current), indent=2) + "\n")
    return before != disabled
