"""Hot reload while the REPL runs (seed 003): watch plugin and skill folders with watchfiles.

Changes are debounced by watchfiles (a burst of saves is one batch), then ChatSession.reload
rescans, validates and syncs; the new registry replaces the old one in a single assignment, and
a broken edit keeps the last good version (the report names the error for the REPL to show).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from homeclaw_cli.catalog.registry import Registry, plugin_roots
from homeclaw_cli.catalog.skills import SkillRegistry
from homeclaw_cli.core.changes import ChangeSet
from homeclaw_cli.settings import Settings

if TYPE_CHECKING:
    from homeclaw_cli.app.chat import ChatSession

IGNORED_PARTS = {"__pycache__", "node_modules", ".git", ".data"}


@dataclass
class ReloadReport(ChangeSet):
    """The plugin ids (and `skill <id>`s) a reload changed, and the edits it refused."""

    broken: list[str] = field(default_factory=list)  # "folder: problem" (kept old version)

    @property
    def empty(self) -> bool:
        return super().empty and not self.broken


def merge_plugins(
    old: Registry, fresh: Registry, changed: set[Path] | None, report: ReloadReport
) -> None:
    """Keep in `fresh` the last good version of every plugin whose edit broke it, and add
    the plugin changes to `report` (a plugin whose folder was touched counts as updated)."""
    broken_folders = {b.folder for b in fresh.broken}
    for entry in old.plugins.values():
        if entry.id not in fresh.plugins and entry.folder in broken_folders:
            fresh.plugins[entry.id] = entry
    report.broken += [
        f"{b.folder}: {b.summary}"
        for b in fresh.broken
        if changed is None or touches(b.folder, changed)
    ]
    diff = old.diff(fresh)
    touched = {
        pid
        for pid, entry in fresh.plugins.items()
        if pid in old.plugins and touches(entry.folder, changed)
    }
    diff.updated = sorted({*diff.updated, *touched})
    report.extend(diff)


def merge_skills(
    old: SkillRegistry, fresh: SkillRegistry, changed: set[Path] | None, report: ReloadReport
) -> None:
    """merge_plugins for skills: a broken edit keeps the last good skill; ids as `skill <id>`."""
    broken = {b.folder: b for b in fresh.broken}
    for skill_id, skill in old.skills.items():
        if skill_id not in fresh.skills and skill.folder in broken:
            fresh.skills[skill_id] = skill
    report.broken += [
        f"{folder}: {bad.error}"
        for folder, bad in broken.items()
        if changed is None or touches(folder, changed)
    ]
    hashes = ChangeSet.between(
        {s.id: s.content_hash for s in old.skills.values()},
        {s.id: s.content_hash for s in fresh.skills.values()},
    )
    report.extend(hashes, prefix="skill ")


def touches(folder: Path | None, changed: set[Path] | None) -> bool:
    """True when one of the `changed` paths is `folder` or inside it."""
    if folder is None or not changed:
        return False
    return any(path == folder or path.is_relative_to(folder) for path in changed)


def watched_dirs(settings: Settings) -> list[Path]:
    """Existing plugin roots and skill folders (bundled ones are not edited in place)."""
    dirs = [r.path for r in plugin_roots(settings) if r.source != "bundled"]
    dirs += [settings.user_skills_dir, *settings.extra_skill_dirs, *settings.skills.dirs]
    if settings.skills.test_dir:
        dirs.append(settings.skills.test_dir)
    out: list[Path] = []
    for path in dirs:
        resolved = path.expanduser().resolve()
        if resolved.is_dir() and resolved not in out:
            out.append(resolved)
    return out


def _relevant(path: Path) -> bool:
    return not (IGNORED_PARTS & set(path.parts)) and not path.name.endswith((".pyc", "~", ".swp"))


async def watch(
    session: ChatSession,
    on_report: Callable[[ReloadReport], None],
    *,
    stop: asyncio.Event,
    debounce_ms: int = 300,
    ready: asyncio.Event | None = None,
) -> None:
    """Reload `session` on every batch of relevant changes until `stop` is set."""
    from watchfiles import awatch

    dirs = watched_dirs(session.settings)
    if ready is not None:
        ready.set()
    if not dirs:
        await stop.wait()
        return
    async for changes in awatch(
        *dirs, debounce=debounce_ms, step=50, stop_event=stop, recursive=True
    ):
        changed = {Path(p) for _, p in changes if _relevant(Path(p))}
        if not changed:
            continue
        report = await session.reload(changed)
        if not report.empty:
            on_report(report)
