"""The lockfile: what `homeclaw plugin install` / `skill install` put in place, exactly.

`<data_dir>/homeclaw-lock.json` records, per installed plugin or skill, the source as typed,
what it resolved to (the git commit, or the sha256 digest of the files), the version and the
permissions granted. `plugin update` re-resolves each source and compares against it.
Written atomically; callers hold the install lock while they read-modify-write it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from homeclaw_cli.core.permissions import Kind
from homeclaw_cli.errors import ConfigError, field_problems, not_readable
from homeclaw_cli.fsutil import atomic_write_text
from homeclaw_cli.settings import Settings

LOCKFILE_NAME = "homeclaw-lock.json"
SourceKind = Literal["folder", "zip", "tar", "git"]


class LockEntry(BaseModel):
    """One installed plugin or skill: where it came from and exactly what was put in place."""

    id: str
    kind: Kind = "plugin"
    source: str  # as the user typed it
    source_kind: SourceKind
    location: str  # absolute path or URL
    ref: str | None = None  # the requested git ref (tag/branch/commit), if any
    commit: str | None = None  # the exact git commit installed
    digest: str  # sha256 of the installed files
    version: str | None = None
    permissions: dict[str, Any] = Field(default_factory=dict)
    deps_dir: str | None = None  # relative to the item folder, when --with-deps was used
    installed_at: str
    folder: str
    subdir: str | None = None  # the item's folder inside the source, when chosen explicitly
    # Its skills' scripts as installed (state/installed_scripts.py); None in older entries.
    scripts: list[str] | None = None


class Lockfile(BaseModel):
    """The whole lockfile: one section per kind, keyed by id."""

    version: int = 1
    plugins: dict[str, LockEntry] = Field(default_factory=dict)
    skills: dict[str, LockEntry] = Field(default_factory=dict)

    def section(self, kind: Kind) -> dict[str, LockEntry]:
        """The entries of one kind (a live dict: changes go into the lockfile when written)."""
        return self.plugins if kind == "plugin" else self.skills


def lockfile_path(settings: Settings) -> Path:
    """Where the lockfile lives for these settings."""
    return settings.data_dir / LOCKFILE_NAME


def read_lockfile(path: Path) -> Lockfile:
    """The lockfile at `path` (empty when there is none); ConfigError when it is damaged."""
    if not path.is_file():
        return Lockfile()
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise _damaged(path, str(exc)) from None
    except OSError as exc:  # no damage: deleting it, as a damaged one's hint says, would be
        raise not_readable(path, exc.strerror or str(exc)) from None
    try:
        return Lockfile.model_validate(json.loads(text))
    except ValidationError as exc:
        raise _damaged(path, _first_problem(exc)) from None
    except ValueError as exc:
        raise _damaged(path, str(exc).splitlines()[0]) from None


def _damaged(path: Path, why: str) -> ConfigError:
    return ConfigError(
        f"{path}: the lockfile is damaged ({why})",
        hint="restore it from a backup, or delete it and reinstall the plugins",
    )


def _first_problem(exc: ValidationError) -> str:
    """The first problem (and how many more)."""
    first, *others = field_problems(exc, "the file")
    return first + (f"; {len(others)} more problem(s)" if others else "")


def write_lockfile(path: Path, lock: Lockfile) -> None:
    """Write the whole lockfile atomically."""
    atomic_write_text(path, lock.model_dump_json(indent=2) + "\n")
