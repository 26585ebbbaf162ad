"""Hot reload while the REPL runs (seed 003): watch plugin and skill folders with watchfiles.

Changes are debounced by watchfiles (a burst of saves is one batch), then ChatSession.reload
rescans, validates and syncs; the new registry replaces the old one in a single assignment, and
a broken edit keeps the last good version (the report names the error for the REPL to show).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from homeclaw_cli.app.chat import ChatSession, ReloadReport
from homeclaw_cli.catalog.registry import plugin_roots
from homeclaw_cli.settings import Settings

IGNORED_PARTS = {"__pycache__", "node_modules", ".git", ".data"}


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
        if report.changed:
            on_report(report)
