"""PluginCaller: the contract the chat loop and the MCP server rely on."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.catalog.registry import scan
from homeclaw_cli.core.params import ParameterError
from homeclaw_cli.errors import NotFoundError, UsageError
from homeclaw_cli.runtime.caller import CallOutcome, PluginCaller
from homeclaw_cli.settings import load_settings
from homeclaw_cli.state.approvals import ApprovalStore
from homeclaw_cli.state.health import HealthStore
from tests.plugin_factory import workspace_plugins, write_plugin

COUNTER = """
from homeclaw_cli.sdk import BasePlugin

class Counter(BasePlugin):
    def initialize(self):
        self.initialized = getattr(self, "initialized", 0) + 1
        self.calls = 0

    def count(self, step=1):
        self.calls += step
        return {"text": str(self.calls), "initialized": self.initialized}

    def where(self):
        return str(self.data_dir)
"""


@pytest.fixture
def counter(hc_home: Path) -> Path:
    return write_plugin(
        workspace_plugins(),
        {
            "id": "counter",
            "name": "Counter",
            "description": "Counts.",
            "capabilities": [
                {
                    "id": "count",
                    "name": "Count",
                    "description": "Count up.",
                    "parameters": [
                        {"name": "step", "type": "number", "required": False, "default": 1}
                    ],
                    "post_process": True,
                    "post_process_prompt": "Say it nicely.",
                },
                {"id": "where", "name": "Where", "description": "Data folder."},
            ],
        },
        {"plugin.py": COUNTER},
    )


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def new_caller() -> PluginCaller:
    """A caller over the installed plugins and the stores in the state dir."""
    settings = load_settings()
    return PluginCaller(
        settings,
        scan(settings),
        health=HealthStore(settings.state_dir),
        approvals=ApprovalStore.for_state_dir(settings.state_dir),
    )


def test_one_caller_initializes_an_inline_plugin_once_and_keeps_it(counter: Path) -> None:
    async def scenario() -> list[CallOutcome]:
        async with new_caller() as caller:
            return [
                await caller.call("counter", "count", {}),
                await caller.call("counter", "count", {"step": "2"}),
            ]

    first, second = run(scenario())
    assert (first.result.text, second.result.text) == ("1", "3")
    assert second.result.metadata["initialized"] == 1
    assert first.post_process is True
    assert first.post_process_prompt == "Say it nicely."
    assert first.seconds > 0
    assert first.failure is None


def test_capability_ids_may_use_underscores_for_dashes_and_be_omitted_when_single(
    hc_home: Path,
) -> None:
    async def scenario() -> tuple[str, str]:
        async with new_caller() as caller:
            a = await caller.call("textkit", "change_case", {"text": "a b", "case": "kebab"})
            _entry, cap, _declared = caller.resolve("hashkit", "uuid")
            return a.result.text, cap.id

    assert run(scenario()) == ("a-b", "uuid")


def test_an_exact_capability_id_wins_over_one_spelled_with_dashes(hc_home: Path) -> None:
    # mcp-import writes both for a server with tools `list-files` and `list_files`
    caps = [{"id": i, "name": i, "description": "d"} for i in ("list-files", "list_files")]
    manifest = {"id": "twins", "name": "Twins", "description": "Twins.", "type": "mcp"}
    write_plugin(
        workspace_plugins(), {**manifest, "config": {"command": "x"}, "capabilities": caps}
    )
    caller = new_caller()
    assert caller.resolve("twins", "list_files")[1].id == "list_files"
    assert caller.resolve("twins", "list-files")[1].id == "list-files"


def test_errors_raised_before_the_plugin_runs(counter: Path) -> None:
    async def call(plugin: str, capability: str | None, params: dict[str, Any]) -> None:
        async with new_caller() as caller:
            await caller.call(plugin, capability, params)

    with pytest.raises(NotFoundError, match="no plugin with id 'countr' \\(did you mean `counter`"):
        run(call("countr", "count", {}))
    with pytest.raises(NotFoundError, match="its capabilities: count, where"):
        run(call("counter", "cont", {}))
    with pytest.raises(UsageError, match="has 2 capabilities; name one: count, where"):
        run(call("counter", None, {}))
    with pytest.raises(ParameterError) as info:
        run(call("counter", "count", {"step": "lots", "stpe": 1}))
    assert info.value.problems == [
        "parameter `step` must be a number, got 'lots'",
        "unknown parameter `stpe` (did you mean `step`?) (valid: step)",
    ]


def test_plugin_data_dir_is_under_homeclaw_data(counter: Path, hc_home: Path) -> None:
    async def scenario() -> str:
        async with new_caller() as caller:
            return (await caller.call("counter", "where", {})).result.text

    assert run(scenario()) == str(hc_home / "data" / "plugin-data" / "counter")


def test_a_runner_bug_becomes_an_error_result(
    counter: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from homeclaw_cli.runtime.runners.inline import InlineRunner

    async def broken(self: object, target: object, request: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(InlineRunner, "run", broken)

    async def scenario() -> CallOutcome:
        async with new_caller() as caller:
            return await caller.call("counter", "count", {})

    outcome = run(scenario())
    assert outcome.result.success is False
    assert outcome.failure == "crash"
    assert (
        outcome.result.error == "homeclaw failed while running plugin counter: RuntimeError: boom"
    )
