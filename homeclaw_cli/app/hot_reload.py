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
_Item = set[Path] | BaseException | None  # a batch of changes, a watcher's failure, or stop


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
    the plugin changes to `report` (a plugin whose folder was touched counts as updated).

    The last good version wins even when another folder has a plugin of the same id (an
    installed copy the broken one shadowed): the edit is refused, nothing else changes."""
    broken_folders = {b.folder for b in fresh.broken}
    kept = set()
    for entry in old.plugins.values():
        if entry.folder in broken_folders:
            fresh.plugins[entry.id] = entry
            kept.add(entry.id)
    report.broken += [
        f"{b.folder}: {b.summary}"
        for b in fresh.broken
        if changed is None or touches(b.folder, changed)
    ]
    diff = old.diff(fresh)
    touched = {
        pid
        for pid, entry in fresh.plugins.items()
        if pid in old.plugins and pid not in kept and touches(entry.folder, changed)
    }
    diff.updated = sorted({*diff.updated, *touched})
    report.extend(diff)


def merge_skills(
    old: SkillRegistry, fresh: SkillRegistry, changed: set[Path] | None, report: ReloadReport
) -> None:
    """merge_plugins for skills: a broken edit keeps the last good skill; ids as `skill <id>`."""
    broken = {b.folder: b for b in fresh.broken}
    for skill_id, skill in old.skills.items():
        if skill.folder in broken:
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


def wanted_dirs(settings: Settings) -> list[Path]:
    """Every plugin root and skill folder a running chat should follow, existing or not
    (bundled ones are not edited in place)."""
    dirs = [r.path for r in plugin_roots(settings) if r.source != "bundled"]
    dirs += [settings.user_skills_dir, *settings.extra_skill_dirs, *settings.skills.dirs]
    if settings.skills.test_dir:
        dirs.append(settings.skills.test_dir)
    out: list[Path] = []
    for path in dirs:
        resolved = path.expanduser().resolve()
        if resolved not in out:
            out.append(resolved)
    return out


def watched_dirs(settings: Settings) -> list[Path]:
    """The wanted folders that exist now (watched recursively)."""
    return [path for path in wanted_dirs(settings) if path.is_dir()]


@dataclass
class WatchPlan:
    """What one round of watching covers: the existing folders (recursively) and, for each
    folder that does not exist yet, its nearest existing parent (only its direct entries)."""

    dirs: list[Path]
    missing: list[Path]
    parents: list[Path]

    @classmethod
    def of(cls, settings: Settings) -> WatchPlan:
        wanted = wanted_dirs(settings)
        dirs = [p for p in wanted if p.is_dir()]
        missing = [p for p in wanted if not p.is_dir()]
        parents: list[Path] = []
        for path in missing:
            parent = nearest_existing_parent(path)
            if parent not in parents and parent not in dirs:
                parents.append(parent)
        return cls(dirs, missing, parents)

    def appeared(self, changed: set[Path]) -> set[Path]:
        """The missing folders (or folders on the way to them) that `changed` created."""
        return {
            path
            for path in changed
            if any(m == path or m.is_relative_to(path) for m in self.missing) and path.is_dir()
        }

    def gone(self, changed: set[Path]) -> bool:
        """True when a watched folder itself was removed (the watch must be set up again)."""
        return any(path in self.dirs and not path.is_dir() for path in changed)


def nearest_existing_parent(path: Path) -> Path:
    """`path`'s closest ancestor that is a folder (the filesystem root at worst)."""
    for parent in path.parents:
        if parent.is_dir():
            return parent
    return Path(path.anchor or "/")


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
    """Reload `session` on every batch of relevant changes until `stop` is set.

    A folder that does not exist yet (the user plugins dir before the first install) is
    followed through its nearest existing parent; when it appears, the watch is set up again
    with it and the session reloads.
    """
    carried: set[Path] | None = set()
    while carried is not None and not stop.is_set():
        plan = WatchPlan.of(session.settings)
        changes: asyncio.Queue[_Item] = asyncio.Queue()
        round_stop = asyncio.Event()
        tasks = [
            asyncio.create_task(_pump(paths, recursive, changes, round_stop, debounce_ms))
            for paths, recursive in ((plan.dirs, True), (plan.parents, False))
            if paths
        ]
        tasks.append(asyncio.create_task(_relay_stop(stop, changes)))
        await asyncio.sleep(0)  # the watchers are set up before the carried-over reload scans
        if ready is not None:
            ready.set()
        try:
            if carried:
                await _reload(session, carried, on_report)
            carried = await _serve_round(session, on_report, plan, changes)
        finally:
            round_stop.set()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def _serve_round(
    session: ChatSession,
    on_report: Callable[[ReloadReport], None],
    plan: WatchPlan,
    changes: asyncio.Queue[_Item],
) -> set[Path] | None:
    """Reload on each batch. Returns None when stopped, or the changes still to reload when
    the folders to watch changed (a missing one appeared, a watched one went away)."""
    while True:
        batch = await changes.get()
        if batch is None:
            return None
        if isinstance(batch, BaseException):
            raise batch
        appeared = plan.appeared(batch)
        changed = {p for p in batch if _relevant(p) and _under(p, plan.dirs)} | appeared
        if appeared or plan.gone(batch):
            return changed
        if changed:
            await _reload(session, changed, on_report)


async def _reload(
    session: ChatSession, changed: set[Path], on_report: Callable[[ReloadReport], None]
) -> None:
    report = await session.reload(changed)
    if not report.empty:
        on_report(report)


def _under(path: Path, dirs: list[Path]) -> bool:
    return any(path == d or path.is_relative_to(d) for d in dirs)


async def _pump(
    paths: list[Path],
    recursive: bool,
    out: asyncio.Queue[_Item],
    stop: asyncio.Event,
    debounce_ms: int,
) -> None:
    from watchfiles import awatch

    try:
        async for batch in awatch(
            *paths, debounce=debounce_ms, step=50, stop_event=stop, recursive=recursive
        ):
            out.put_nowait({Path(p) for _, p in batch})
    except Exception as exc:  # handed to the round, which ends the watch with it
        out.put_nowait(exc)


async def _relay_stop(stop: asyncio.Event, out: asyncio.Queue[_Item]) -> None:
    await stop.wait()
    out.put_nowait(None)
