"""What an update changes in a descriptor: fields, capabilities and their parameters, effects.

`plugin update` and `skill update` show it next to the permission and file diffs. Both sides
are the descriptor as JSON (a plugin's manifest, a skill's frontmatter); lists of objects
with an `id` (capabilities) or a `name` (parameters) are matched by it, so a capability that
moved is not reported as removed and added. Permissions are left out: the permission diff
reports them, and asks about the new ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

_MISSING: Any = object()
SKIPPED = frozenset({"permissions"})


@dataclass(frozen=True)
class FieldChange:
    """One field added, removed or changed; `field` is a dotted path such as
    `capabilities.greet.parameters.who.type`."""

    field: str
    old: Any
    new: Any

    @property
    def kind(self) -> Literal["added", "removed", "changed"]:
        if self.old is None:
            return "added"
        return "removed" if self.new is None else "changed"

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "change": self.kind, "old": self.old, "new": self.new}


def manifest_diff(old: dict[str, Any], new: dict[str, Any]) -> list[FieldChange]:
    """Every difference between two descriptors, in the order of the fields."""
    out: list[FieldChange] = []
    _diff("", {k: v for k, v in old.items() if k not in SKIPPED}, new, out)
    return out


def _diff(path: str, old: Any, new: Any, out: list[FieldChange]) -> None:
    if old == new:
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [*old, *(k for k in new if k not in old)]:
            if path == "" and key in SKIPPED:
                continue
            _diff(_join(path, key), old.get(key, _MISSING), new.get(key, _MISSING), out)
        return
    key = _list_key(old, new)
    if key is not None:
        before = {item[key]: item for item in old}
        after = {item[key]: item for item in new}
        for name in [*before, *(n for n in after if n not in before)]:
            _diff(_join(path, name), before.get(name, _MISSING), after.get(name, _MISSING), out)
        return
    out.append(
        FieldChange(path, None if old is _MISSING else old, None if new is _MISSING else new)
    )


def _list_key(old: Any, new: Any) -> str | None:
    """`id` or `name` when both are lists of objects that all carry it (unique), else None."""
    if not (isinstance(old, list) and isinstance(new, list)):
        return None
    items = [*old, *new]
    if not items or not all(isinstance(i, dict) for i in items):
        return None
    for key in ("id", "name"):
        if all(isinstance(i.get(key), str) for i in items) and all(
            len({i[key] for i in side}) == len(side) for side in (old, new)
        ):
            return key
    return None


def _join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def describe_change(change: FieldChange, width: int = 60) -> str:
    """One line for people: `+ capabilities.fetch`, `~ version: 1.0 -> 1.1`."""
    if change.kind == "added":
        shown = "" if isinstance(change.new, dict) else f": {_short(change.new, width)}"
        return f"+ {change.field}{shown}"
    if change.kind == "removed":
        return f"- {change.field}"
    return f"~ {change.field}: {_short(change.old, width)} -> {_short(change.new, width)}"


def _short(value: Any, width: int) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= width else text[: width - 1] + "…"
