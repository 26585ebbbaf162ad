"""The inline runner: loading one plugin folder from several callers at once."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from homeclaw_cli.catalog.registry import scan
from homeclaw_cli.runtime.caller import PluginCaller
from homeclaw_cli.settings import load_settings
from homeclaw_cli.state.approvals import ApprovalStore
from homeclaw_cli.state.health import HealthStore
from tests.plugin_factory import workspace_plugins, write_plugin

# The module bodies pause so that the concurrent imports overlap.
SLOW_PLUGIN = """
import time
time.sleep(0.05)
from homeclaw_cli.sdk import BasePlugin
from .helpers import ANSWER

class Slow(BasePlugin):
    def ping(self):
        return ANSWER
"""
SLOW_HELPERS = "import time\ntime.sleep(0.05)\nANSWER = 'pong'\n"


def test_callers_loading_the_same_inline_plugin_at_once_all_succeed_quickly(
    hc_home: Path,
) -> None:
    write_plugin(
        workspace_plugins(),
        {
            "id": "slow",
            "name": "Slow",
            "description": "Imports slowly.",
            "capabilities": [{"id": "ping", "name": "Ping", "description": "Answer pong."}],
        },
        {"plugin.py": SLOW_PLUGIN, "helpers.py": SLOW_HELPERS},
    )
    settings = load_settings(flags={"plugins.inline_timeout_sec": 20})
    registry = scan(settings)

    def caller() -> PluginCaller:
        return PluginCaller(
            settings,
            registry,
            health=HealthStore(settings.state_dir),
            approvals=ApprovalStore.for_state_dir(settings.state_dir),
        )

    async def scenario() -> list[str]:
        callers = [caller() for _ in range(4)]
        try:
            outcomes = await asyncio.gather(*(c.call("slow", "ping", {}) for c in callers))
        finally:
            for c in callers:
                await c.aclose()
        return [o.result.text or o.result.error or "" for o in outcomes]

    started = time.monotonic()
    assert asyncio.run(scenario()) == ["pong"] * 4
    assert time.monotonic() - started < 10
