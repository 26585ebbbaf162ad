"""The approval store: which permissions the user approved for each installed plugin and skill.

`homeclaw plugin install` records the approval in `<state_dir>/approvals.json`; the grant an
item runs with is what it declares *and* what was approved (core.permissions.granted), so
editing an installed manifest by hand grants nothing new.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from homeclaw_cli.core.manifest import Permissions
from homeclaw_cli.core.permissions import Kind, granted
from homeclaw_cli.errors import ConfigError
from homeclaw_cli.fsutil import atomic_write_text, file_lock


class ApprovalStore:
    """Approved permissions per plugin/skill id in `<state_dir>/approvals.json` (atomic)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def for_state_dir(cls, state_dir: Path) -> ApprovalStore:
        return cls(state_dir / "approvals.json")

    def _read(self) -> dict[str, Any]:
        if not self.path.is_file():
            return {"version": 1, "plugin": {}, "skill": {}}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"{self.path}: cannot read the approval store ({exc})",
                hint="fix or delete the file; deleting it means every permission is asked again",
            ) from None
        hint = "fix or delete the file; deleting it means every permission is asked again"
        if not isinstance(data, dict):
            raise ConfigError(f"{self.path}: the approval store must be a JSON object", hint=hint)
        for kind in ("plugin", "skill"):
            data.setdefault(kind, {})
            if not isinstance(data[kind], dict):
                raise ConfigError(
                    f"{self.path}: `{kind}` in the approval store must be a JSON object", hint=hint
                )
        return data

    def get(self, item_id: str, kind: Kind = "plugin") -> Permissions | None:
        record = self._read()[kind].get(item_id)
        if not isinstance(record, dict):
            return None
        try:
            return Permissions.model_validate(record.get("permissions", {}))
        except ValidationError:
            return None

    def effective(self, item_id: str, declared: Permissions, kind: Kind = "plugin") -> Permissions:
        """The grant an item runs with: what it declares, limited by what was approved."""
        return granted(declared, self.get(item_id, kind))

    def all(self, kind: Kind = "plugin") -> dict[str, dict[str, Any]]:
        return dict(self._read()[kind])

    def grant(self, item_id: str, perms: Permissions, kind: Kind = "plugin") -> None:
        """Record `perms` as the whole approved set for `item_id`."""
        self._update(item_id, kind, perms)

    def revoke(self, item_id: str, kind: Kind = "plugin") -> None:
        self._update(item_id, kind, None)

    def restore(self, item_id: str, record: dict[str, Any] | None, kind: Kind = "plugin") -> None:
        """Put back a raw record read earlier with raw() (rollback)."""
        with file_lock(self.path.with_suffix(".lock"), what="the approval store"):
            data = self._read()
            if record is None:
                data[kind].pop(item_id, None)
            else:
                data[kind][item_id] = record
            atomic_write_text(self.path, json.dumps(data, indent=2, sort_keys=True) + "\n")

    def raw(self, item_id: str, kind: Kind = "plugin") -> dict[str, Any] | None:
        record = self._read()[kind].get(item_id)
        return record if isinstance(record, dict) else None

    def _update(self, item_id: str, kind: Kind, perms: Permissions | None) -> None:
        record = None
        if perms is not None:
            record = {
                "permissions": perms.model_dump(mode="json"),
                "approved_at": datetime.now(UTC).isoformat(timespec="seconds"),
            }
        self.restore(item_id, record, kind)


def permissions_for(
    state_dir: Path, item_id: str, declared: Permissions, kind: Kind = "plugin"
) -> Permissions:
    """The grant an item runs with, from its declaration and the approval store."""
    return ApprovalStore.for_state_dir(state_dir).effective(item_id, declared, kind)
