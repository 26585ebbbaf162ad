"""Interval health checks: one round per call, transitions reported, unhealthy after N."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.health_monitor import check_once
from homeclaw_cli.core.manifest import PluginManifest
from homeclaw_cli.settings import Settings, load_settings
from homeclaw_cli.state.external_registrations import register_external, registration_lock
from homeclaw_cli.state.health import HealthStatus, HealthStore


def external(plugin_id: str, port: int) -> PluginManifest:
    return PluginManifest.model_validate(
        {
            "id": plugin_id,
            "name": plugin_id,
            "description": "An external plugin.",
            "type": "http",
            "health_check_url": f"http://127.0.0.1:{port}/health",
            "config": {"base_url": f"http://127.0.0.1:{port}"},
        }
    )


@pytest.fixture
def settings(hc_home: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("HOMECLAW_NO_BUNDLED", "1")
    monkeypatch.setenv("HOMECLAW_SERVE__UNHEALTHY_AFTER", "2")
    settings = load_settings()
    for pid, port in (("up", 1001), ("down", 1002)):
        register_external(
            settings.external_plugins_file,
            registration_lock(settings.state_dir),
            external(pid, port),
        )
    return settings


def test_rounds_mark_a_failing_plugin_unhealthy_then_healthy(settings: Settings) -> None:
    alive = {1001: True, 1002: False}

    def handler(request: httpx.Request) -> httpx.Response:
        if alive[request.url.port or 0]:
            return httpx.Response(200, json={"ok": True})
        raise httpx.ConnectError("connection refused", request=request)

    changes: list[tuple[str, bool]] = []

    def on_change(pid: str, status: HealthStatus, previous: HealthStatus | None) -> None:
        changes.append((pid, status.ok))

    async def round_() -> dict[str, HealthStatus]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            return await check_once(AppContext(settings), client, on_change=on_change)

    first = asyncio.run(round_())
    assert (first["up"].ok, first["down"].ok, first["down"].failures) == (True, True, 1)
    second = asyncio.run(round_())
    assert (second["down"].ok, second["down"].failures) == (False, 2)
    assert "not running at" in second["down"].detail
    alive[1002] = True
    third = asyncio.run(round_())
    assert (third["down"].ok, third["down"].failures) == (True, 0)
    assert sorted(changes[:2]) == [("down", True), ("up", True)]  # first sight of each
    assert changes[2:] == [("down", False), ("down", True)]
    stored = HealthStore(settings.state_dir).all()
    assert stored["down"] == third["down"]


def test_non_2xx_is_a_failure(settings: Settings) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503)

    async def round_() -> dict[str, HealthStatus]:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            return await check_once(AppContext(settings), client)

    statuses = asyncio.run(round_())
    assert statuses["up"].detail.startswith("GET http") and statuses["up"].detail.endswith(
        " -> 503"
    )
    assert statuses["up"].failures == 1
