"""What changed between two versions of a set of names: the one change-set of sync, reload,
install and registry diffs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass
class ChangeSet:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @classmethod
    def between(cls, old: Mapping[str, str], new: Mapping[str, str]) -> ChangeSet:
        """The diff of two `name -> content hash` maps, each list sorted."""
        return cls(
            added=sorted(set(new) - set(old)),
            updated=sorted(name for name in set(old) & set(new) if old[name] != new[name]),
            removed=sorted(set(old) - set(new)),
        )

    @property
    def empty(self) -> bool:
        return not (self.added or self.updated or self.removed)

    def extend(self, other: ChangeSet, prefix: str = "") -> None:
        """Add `other`'s names to this set, each with `prefix` in front."""
        self.added += [prefix + name for name in other.added]
        self.updated += [prefix + name for name in other.updated]
        self.removed += [prefix + name for name in other.removed]
