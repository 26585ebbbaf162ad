"""AppContext: each service is built once, on first use, and shared."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.settings import Settings, load_settings
from tests.fakes.chat_plugins import CLOCK_PY, CLOCK_YAML, write_plugin, write_test_plugins


def settings_with(plugins: Path, **flags: Any) -> Settings:
    return load_settings(extra_plugin_dirs=[plugins], flags={"bundled": False, **flags})


def test_registry_is_scanned_once_and_shared_with_the_caller(hc_home: Path, tmp_path: Path) -> None:
    plugins = write_test_plugins(tmp_path / "plugins")
    context = AppContext(settings_with(plugins))
    registry = context.registry
    assert sorted(registry.plugins) == ["greeter", "tides"]
    assert context.registry is registry
    assert context.caller.registry is registry
    assert context.caller.health is context.health


def test_rescan_sees_new_plugins_and_hands_them_to_the_caller(
    hc_home: Path, tmp_path: Path
) -> None:
    plugins = write_test_plugins(tmp_path / "plugins")
    context = AppContext(settings_with(plugins))
    caller = context.caller
    write_plugin(plugins, "clock", CLOCK_YAML, CLOCK_PY)
    assert "clock" not in context.registry.plugins
    fresh = context.rescan()
    assert "clock" in fresh.plugins
    assert caller.registry is fresh is context.registry


def test_llm_is_built_from_settings_on_first_use(hc_home: Path, tmp_path: Path) -> None:
    settings = load_settings(flags={"llm.provider": "openai", "llm.model": "m1"})
    context = AppContext(settings)
    assert context._llm is None  # nothing built until asked
    assert type(context.llm).__name__ == "OpenAICompatLLM"
    assert context.llm.model == "m1"
    asyncio.run(context.aclose())


def test_given_llm_is_used_and_closed(hc_home: Path) -> None:
    closed: list[bool] = []

    class FakeLLM:
        model = "fake"

        async def aclose(self) -> None:
            closed.append(True)

    context = AppContext(load_settings(), llm=FakeLLM())
    assert context.llm.model == "fake"
    asyncio.run(context.aclose())
    assert closed == [True]


def test_two_callers_in_one_process_keep_their_own_tool_executor(
    hc_home: Path, tmp_path: Path
) -> None:
    plugins = tmp_path / "plugins"
    write_plugin(plugins, "clock", CLOCK_YAML, CLOCK_PY)
    settings = settings_with(plugins)

    def executor(who: str) -> Any:
        async def run(plugin_id: str, name: str, arguments: dict[str, Any]) -> str:
            await asyncio.sleep(0.01)  # let the other session's call interleave
            return f"{who}:{plugin_id}:{name}"

        return run

    async def scenario() -> list[str]:
        first, second, plain = AppContext(settings), AppContext(settings), AppContext(settings)
        first.caller.tool_executor = executor("first")
        second.caller.tool_executor = executor("second")
        try:
            outcomes = await asyncio.gather(
                *(ctx.caller.call("clock", "now", {}) for ctx in (first, second, first, second))
            )
            refused = await plain.caller.call("clock", "now", {})
        finally:
            for ctx in (first, second, plain):
                await ctx.aclose()
        return [o.result.text or o.result.error or "" for o in outcomes] + [
            refused.result.error or ""
        ]

    texts = asyncio.run(scenario())
    assert texts[:4] == [
        "clock says first:clock:current_time",
        "clock says second:clock:current_time",
        "clock says first:clock:current_time",
        "clock says second:clock:current_time",
    ]
    assert "only available inside `homeclaw chat`" in texts[4]
