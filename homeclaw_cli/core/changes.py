"""What changed between two versions of a set of names (plugin ids, files)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ChangeSet:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)
