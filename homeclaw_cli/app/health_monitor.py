"""Interval health checks of every plugin that declares a health_check_url.

Each round GETs all URLs concurrently (runtime/health.py probe_url) and records the outcome in
the HealthStore; the store turns `unhealthy_after` consecutive failures into "unhealthy" and
one success back into healthy, so a plugin that comes back needs nothing from anyone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.runtime.health import probe_url
from homeclaw_cli.runtime.managed_server import server_state
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.health import HealthStatus

StatusListener = Callable[[str, HealthStatus, HealthStatus | None], None]


async def check_once(
    context: AppContext,
    client: httpx.AsyncClient,
    *,
    on_change: StatusListener | None = None,
) -> dict[str, HealthStatus]:
    """Check every plugin with a health URL once (registrations come and go: the registry is
    scanned again each round); returns the new statuses by id."""
    settings = context.settings
    store = context.health
    registry = await asyncio.to_thread(context.rescan)
    targets = {
        pid: entry.manifest.health_check_url
        for pid, entry in registry.plugins.items()
        if entry.manifest.health_check_url and not _idle_managed(settings, entry.manifest)
    }
    if not targets:
        return {}
    before = store.all()
    timeout = settings.serve.health_timeout_sec
    results = await asyncio.gather(
        *(probe_url(client, url, timeout=timeout) for url in targets.values())
    )
    statuses = await asyncio.to_thread(
        store.record_many,
        dict(zip(targets, results, strict=True)),
        unhealthy_after=settings.serve.unhealthy_after,
    )
    for pid, status in statuses.items():
        previous = before.get(pid)
        if on_change is not None and (previous is None or previous.ok != status.ok):
            on_change(pid, status, previous)
    return statuses


def _idle_managed(settings: Settings, manifest: PluginManifest) -> bool:
    """A managed server that is not running is not unhealthy: it starts on first use."""
    return (
        manifest.managed_start() is not None
        and server_state(settings, manifest.id).state != "running"
    )


async def run_monitor(context: AppContext, *, on_change: StatusListener | None = None) -> None:
    """Check on `serve.health_interval_sec` until cancelled (0 turns the interval off)."""
    settings = context.settings
    interval = settings.serve.health_interval_sec
    if interval <= 0:
        return
    async with httpx.AsyncClient(
        timeout=settings.serve.health_timeout_sec, trust_env=False
    ) as client:
        while True:
            await check_once(context, client, on_change=on_change)
            await asyncio.sleep(interval)
