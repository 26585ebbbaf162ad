"""What an install, update or removal did, for the renderer and `--json`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeclaw_cli.core.changes import ChangeSet
from homeclaw_cli.core.manifest import Permissions
from homeclaw_cli.core.manifest_diff import FieldChange
from homeclaw_cli.core.permissions import Kind, PermissionDiff


@dataclass
class InstallResult:
    """One plugin or skill installed, upgraded, left unchanged, or (update --all) failed."""

    item_id: str
    action: str  # installed | upgraded | unchanged | would install | would upgrade | failed
    folder: Path
    source: str
    source_kind: str
    version: str | None
    old_version: str | None = None
    commit: str | None = None
    old_commit: str | None = None
    digest: str = ""
    old_digest: str | None = None
    redo: bool = False  # the same files, but from another source or over an edited copy
    permissions: Permissions = field(default_factory=Permissions)
    permission_diff: PermissionDiff | None = None
    files: ChangeSet = field(default_factory=ChangeSet)
    manifest_changes: list[FieldChange] = field(default_factory=list)
    deps_dir: str | None = None
    notices: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    synced: str | None = None
    kind: Kind = "plugin"
    error: str | None = None  # update --all: why this one failed
    # Scripts in the installed copy the source lacks: never approved, run_skill refuses them.
    added_scripts: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The `--json` form (keys are part of the CLI's contract)."""
        diff = self.permission_diff
        return {
            "id": self.item_id,
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
            "changes": [c.to_json() for c in self.manifest_changes],
            "deps_dir": self.deps_dir,
            "notices": self.notices,
            "warnings": self.warnings,
            "synced": self.synced,
            "error": self.error,
            "added_scripts": self.added_scripts,
        }


@dataclass
class RemoveResult:
    """One plugin or skill removed, and what the index sync said."""

    item_id: str
    folder: Path
    synced: str | None = None
    folder_was_gone: bool = False  # only its lockfile entry and approvals were left
