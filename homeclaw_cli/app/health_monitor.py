"""Interval health checks of every plugin that declares a health_check_url.

Each round GETs all URLs concurrently and records the outcome in the HealthStore; the store
turns `unhealthy_after` consecutive failures into "unhealthy" and one success back into
healthy, so a plugin that comes back needs nothing from anyone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx

from homeclaw_cli.catalog.registry import scan
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.health import HealthStatus, HealthStore

StatusListener = Callable[[str, HealthStatus, HealthStatus | None], None]


async def probe(client: httpx.AsyncClient, url: str) -> tuple[bool, str]:
    try:
        response = await client.get(url)
    except httpx.ConnectError:  # the same words as `homeclaw plugin health`
        return False, f"not running at {url} (connection refused)"
    except httpx.HTTPError as exc:
        return False, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return 200 <= response.status_code < 300, f"HTTP {response.status_code}"


async def check_once(
    settings: Settings,
    client: httpx.AsyncClient,
    *,
    on_change: StatusListener | None = None,
) -> dict[str, HealthStatus]:
    """Check every plugin with a health URL once; returns the new statuses by id."""
    store = HealthStore(settings.state_dir)
    targets = {
        pid: entry.manifest.health_check_url
        for pid, entry in scan(settings).plugins.items()
        if entry.manifest.health_check_url
    }
    if not targets:
        return {}
    before = store.all()
    results = await asyncio.gather(*(probe(client, url) for url in targets.values()))
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


async def run_monitor(settings: Settings, *, on_change: StatusListener | None = None) -> None:
    """Check on `serve.health_interval_sec` until cancelled (0 turns the interval off)."""
    interval = settings.serve.health_interval_sec
    if interval <= 0:
        return
    async with httpx.AsyncClient(
        timeout=settings.serve.health_timeout_sec, trust_env=False
    ) as client:
        while True:
            await check_once(settings, client, on_change=on_change)
            await asyncio.sleep(interval)
