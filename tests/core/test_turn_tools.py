"""The tools a turn offers, and what the plugin tools send to the caller."""

from __future__ import annotations

import asyncio
from typing import Any

from homeclaw_cli.core.ports import ChatMessage
from homeclaw_cli.core.tool_registry import ToolRegistry
from homeclaw_cli.core.turn_tools import TurnToolContext, build_turn_tools
from tests.fakes.agent_fakes import (
    NOTES,
    WEATHER,
    FakeCaller,
    FakeRetriever,
    FakeSkills,
    Outcome,
    PResult,
)

MANIFESTS = {"weather": WEATHER, "notes": NOTES}


def _context(
    caller: FakeCaller, history: list[ChatMessage], skills: FakeSkills | None = None
) -> TurnToolContext:
    return TurnToolContext(
        message="weather in Oslo",
        retriever=FakeRetriever({"note": ["notes"]}),
        caller=caller,
        manifests=MANIFESTS.get,
        skills=skills,
        history=history,
        max_search_results=5,
    )


def test_retrieved_plugins_and_search_are_offered_skill_tools_only_when_shown() -> None:
    ctx = _context(FakeCaller(MANIFESTS), [], FakeSkills())
    tools = build_turn_tools(ctx, ToolRegistry(), [WEATHER], skills_shown=False)
    assert tools.names() == ["weather__now", "weather__summary", "search_plugins", "search_skills"]
    shown = build_turn_tools(ctx, ToolRegistry(), [], skills_shown=True)
    assert {"read_skill", "run_skill"} <= set(shown.names())


class ContextCaller(FakeCaller):
    """Also records what each plugin call was told about the conversation."""

    def __init__(self) -> None:
        super().__init__(MANIFESTS)
        self.told: list[tuple[str, str]] = []

    async def call(
        self,
        plugin_id: str,
        capability_id: str | None,
        parameters: dict[str, Any],
        *,
        user_input: str = "",
        chat_context: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> Outcome:
        self.told.append((user_input, chat_context))
        return await super().call(plugin_id, capability_id, parameters)


def test_plugin_call_gets_the_message_and_the_recent_history() -> None:
    history: list[ChatMessage] = [{"role": "user", "content": f"m{i}"} for i in range(8)]
    caller = ContextCaller()
    tools = build_turn_tools(
        _context(caller, history), ToolRegistry(), [WEATHER], skills_shown=False
    )
    outcome = asyncio.run(tools.execute("weather__now", {"city": "Oslo"}))
    assert outcome.ok and outcome.final
    recent = "\n".join(f"user: m{i}" for i in range(2, 8))
    assert caller.told == [("weather in Oslo", recent)]


def test_a_failing_plugin_is_named_and_fails_for_good() -> None:
    caller = FakeCaller(MANIFESTS, lambda p, c, a: PResult(False, error="timeout"))
    tools = build_turn_tools(_context(caller, []), ToolRegistry(), [WEATHER], skills_shown=False)
    outcome = asyncio.run(tools.execute("weather__now", {"city": "Oslo"}))
    assert not outcome.ok and outcome.failed_for_good
    assert outcome.text == "plugin weather failed: timeout"


def test_search_plugins_adds_the_found_plugins_tools() -> None:
    tools = build_turn_tools(
        _context(FakeCaller(MANIFESTS), []), ToolRegistry(), [], skills_shown=False
    )
    outcome = asyncio.run(tools.execute("search_plugins", {"query": "note"}))
    assert "notes__add" in outcome.text and "notes__add" in tools


def test_a_builtin_is_offered_when_asked_for_unless_a_retrieved_plugin_covers_it() -> None:
    from homeclaw_cli.runtime.builtin_tools import BuiltinConfig, add_builtins

    builtins = ToolRegistry()
    add_builtins(builtins, BuiltinConfig(allowed_dirs=[]))
    ctx = _context(FakeCaller(MANIFESTS), [])
    assert build_turn_tools(ctx, builtins, [], skills_shown=False, query="hi!").names() == [
        "search_plugins"
    ]
    asked = build_turn_tools(ctx, builtins, [], skills_shown=False, query="what time is it")
    assert "current_time" in asked
    clock = WEATHER.model_copy(update={"description": "Current time in any city."})
    covered = build_turn_tools(
        ctx, builtins, [clock], skills_shown=False, query="what time is it", search=False
    )
    assert "current_time" not in covered and "weather__now" in covered
