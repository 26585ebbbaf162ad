"""Capability -> tool: one name, description and schema for every surface."""

from __future__ import annotations

import asyncio
from typing import Any

from homeclaw_cli.core.capability_tools import add_plugin_tools, descriptor_token_cost, plugin_tools
from homeclaw_cli.core.tool_registry import Handler, ToolOutcome, ToolRegistry
from tests.fakes.agent_fakes import WEATHER, manifest

TIMER = manifest(
    "timer",
    "Timers.",
    [
        {
            "id": "start",
            "name": "Start",
            "description": "Start a timer.",
            "output_description": "The timer id.",
            "parameters": [
                {"name": "minutes", "type": "number"},
                {"name": "label", "type": "string", "required": False, "description": "Shown"},
                {"name": "tags", "type": "array", "default": []},
            ],
        }
    ],
)


def echo_handlers(plugin_id: str, capability_id: str) -> Handler:
    async def handler(args: dict[str, Any]) -> ToolOutcome:
        return ToolOutcome(True, f"{plugin_id}.{capability_id} {sorted(args)}")

    return handler


def test_a_capability_becomes_one_tool() -> None:
    registry = ToolRegistry()
    add_plugin_tools(registry, TIMER, echo_handlers)
    tool = registry.get("timer__start")
    assert tool is not None and tool.kind == "plugin"
    assert tool.description == "[Timer] Start a timer. Returns: The timer id."
    assert tool.parameters == {
        "type": "object",
        "properties": {
            "minutes": {"type": "number"},
            "label": {"type": "string", "description": "Shown"},
            "tags": {"type": "array", "default": [], "items": {}},
        },
        "required": ["minutes"],  # a default makes a required parameter optional
    }
    outcome = asyncio.run(registry.execute("timer__start", {"minutes": 5}))
    assert (outcome.ok, outcome.text) == (True, "timer.start ['minutes']")


def test_plugin_tools_are_the_registry_schemas() -> None:
    registry = ToolRegistry()
    add_plugin_tools(registry, WEATHER, echo_handlers)
    assert plugin_tools(WEATHER) == registry.schemas()
    assert registry.names() == ["weather__now", "weather__summary"]


def test_token_cost_grows_with_the_schemas() -> None:
    assert descriptor_token_cost(TIMER) > descriptor_token_cost(manifest("bare", "Timers."))
