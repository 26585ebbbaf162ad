"""Plugins and skills switched off with `homeclaw plugin|skill disable`:
`<state_dir>/disabled_plugins.json` and `<state_dir>/disabled_skills.json`.

A disabled item stays on disk; its registry leaves it out and lists it as "disabled".
A damaged list errs on the safe side: every id still legible in it stays disabled (a
truncated `["units", "notes"` keeps both off), and the next write moves the damaged file to
a .bak copy first, as external_plugins.json does. A list this user may not read is an error:
read as empty, it would turn every plugin it names back on.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

from homeclaw_cli.errors import not_readable
from homeclaw_cli.fsutil import atomic_write_text, file_lock
from homeclaw_cli.state.external_registrations import backup_path

Kind = Literal["plugin", "skill"]


def disabled_path(state_dir: Path, kind: Kind = "plugin") -> Path:
    return state_dir / f"disabled_{kind}s.json"


def read_disabled(state_dir: Path, kind: Kind = "plugin") -> set[str]:
    return read_disabled_checked(state_dir, kind)[0]


def read_disabled_checked(state_dir: Path, kind: Kind = "plugin") -> tuple[set[str], str | None]:
    """The disabled ids and, when the file is damaged, why (its legible ids stay disabled)."""
    path = disabled_path(state_dir, kind)
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):  # a folder holds no list; writing says so
        return set(), None
    except OSError as exc:
        # Read as empty, every plugin it names would run again, and the next write lose them.
        raise not_readable(path, exc.strerror or str(exc)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return _legible_ids(raw.decode("utf-8", errors="replace")), "not UTF-8 text"
    try:
        data = json.loads(text)
        if isinstance(data, list):
            return {str(x) for x in data}, None
        reason = "not a JSON list"
    except json.JSONDecodeError as exc:
        reason = f"invalid JSON: {exc.msg} (line {exc.lineno})"
    return _legible_ids(text), reason


def _legible_ids(text: str) -> set[str]:
    return set(re.findall(r'"([^"\\\n]+)"', text))


def set_disabled(state_dir: Path, item_id: str, disabled: bool, kind: Kind = "plugin") -> bool:
    """Disable or enable `item_id`; returns True when that changed anything."""
    path = disabled_path(state_dir, kind)
    with file_lock(path.with_suffix(".lock"), what=f"the disabled {kind}s list"):
        current, damaged = read_disabled_checked(state_dir, kind)
        if damaged:
            path.replace(backup_path(path))  # kept for the user, never silently lost
        before = item_id in current
        if disabled:
            current.add(item_id)
        else:
            current.discard(item_id)
        atomic_write_text(path, json.dumps(sorted(current), indent=2) + "\n")
    return before != disabled
