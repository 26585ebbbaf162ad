"""What differs between installing a plugin and a skill, and what validation found."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from homeclaw_cli.adapters.install_source import Fetched
from homeclaw_cli.core.manifest import Permissions
from homeclaw_cli.core.permissions import Kind
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.lockfile import LockEntry

if TYPE_CHECKING:
    from homeclaw_cli.app.context import AppContext


@dataclass
class StagedItem:
    """A validated plugin or skill in the staging area."""

    id: str
    version: str | None
    permissions: Permissions
    notices: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ItemKind:
    """The kind-specific steps the install pipeline calls."""

    name: Kind
    is_root: Callable[[Path], bool]  # does this folder hold an item?
    validate: Callable[[AppContext, Fetched, bool], StagedItem]  # (context, fetched, with_deps)
    target_dir: Callable[[Settings], Path]
    installed_version: Callable[[Path], str | None]
    # A custom root search in the fetched source (None: nothing there; or raises its own error).
    locate: Callable[[Path], Path | None] | None = None
    upgrade_flag: str = "--upgrade"
    subdir: str | None = None  # recorded in the lockfile so `update` finds the same folder
    for_entry: Callable[[LockEntry], ItemKind] | None = None  # the kind to update an entry with
    explain_missing: Callable[[AppContext, str], None] | None = None  # remove: a better error
    after_remove: Callable[[AppContext, str], None] | None = None
    describe: Callable[[Path], dict[str, Any]] | None = None  # the descriptor an update diffs
