"""System prompt blocks: order, workspace files, routing lines, fallback names."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from homeclaw_cli.core.agent_prompt import (
    DEFAULT_IDENTITY,
    MAX_FALLBACK_NAMES,
    build_system_prompt,
    read_workspace,
)
from tests.fakes.agent_fakes import NOTES, WEATHER


def test_default_identity_without_workspace(tmp_path: Path) -> None:
    blocks = read_workspace([tmp_path])
    assert [b.name for b in blocks] == ["identity"] and blocks[0].text == DEFAULT_IDENTITY


def test_later_workspace_folder_wins(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    (first / "IDENTITY.md").write_text("I am A")
    (first / "TOOLS.md").write_text("tools A")
    (second / "IDENTITY.md").write_text("I am B")
    blocks = read_workspace([first, second])
    assert [(b.name, b.text) for b in blocks] == [
        ("workspace:IDENTITY.md", "I am B"),
        ("workspace:TOOLS.md", "tools A"),
    ]


def test_stable_blocks_first_then_routing_then_skills(tmp_path: Path) -> None:
    prompt = build_system_prompt(
        read_workspace([tmp_path]), "<available_skills/>", [WEATHER, NOTES], []
    )
    # what changes with every message comes last, so servers reuse their prompt cache
    assert [b.name for b in prompt.blocks] == [
        "identity",
        "date",
        "untrusted_data",
        "routing",
        "skills",
    ]
    routing = prompt.blocks[3].text
    assert "- weather: Current weather and forecast for a city." in routing
    assert "- notes: Write and search personal notes." in routing
    assert "search_plugins" not in prompt.text  # not offered unless asked for
    assert prompt.tokens > 0


def test_a_turn_without_tools_has_no_tool_text(tmp_path: Path) -> None:
    prompt = build_system_prompt(read_workspace([tmp_path]), "", [], ["p1"], tools=False)
    assert [b.name for b in prompt.blocks] == ["identity", "date"] and prompt.tokens < 45


def test_no_plugins_offers_search_and_caps_fallback_names(tmp_path: Path) -> None:
    names = [f"p{i}" for i in range(50)]
    prompt = build_system_prompt(read_workspace([tmp_path]), "", [], names, search=True)
    routing = prompt.blocks[-1].text
    assert "search_plugins(query)" in routing
    assert f"p{MAX_FALLBACK_NAMES - 1}" in routing and f"p{MAX_FALLBACK_NAMES}," not in routing
    names = [b.name for b in prompt.blocks]
    assert names == ["identity", "date", "untrusted_data", "routing"]  # no skills


def test_the_date_is_given_so_date_questions_need_no_tool(tmp_path: Path) -> None:
    workspace = read_workspace([tmp_path])
    prompt = build_system_prompt(workspace, "", [], [], tools=False, today=date(2026, 2, 28))
    assert prompt.blocks[1].text == "Today is Saturday 2026-02-28."
    assert (
        f"Today is {date.today():%A} {date.today().isoformat()}."
        in build_system_prompt(workspace, "", [], []).text
    )
