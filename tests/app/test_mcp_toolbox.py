"""The MCP toolbox scans once per server and again only when the folders changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.mcp_toolbox import Toolbox
from homeclaw_cli.catalog import registry as registry_module
from homeclaw_cli.catalog import skills as skills_module
from homeclaw_cli.settings import Settings, load_settings
from tests.fakes.chat_plugins import CLOCK_PY, CLOCK_YAML, write_plugin, write_test_plugins
from tests.skill_helpers import make_skill


@pytest.fixture
def settings(hc_home: Path, tmp_path: Path) -> Settings:
    plugins = write_test_plugins(tmp_path / "plugins")
    return load_settings(extra_plugin_dirs=[plugins], flags={"bundled": False})


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What was scanned, in order (the real scans still run)."""
    seen: list[str] = []

    def counting(name: str, real: Any) -> Any:
        def scan(*args: Any, **kwargs: Any) -> Any:
            seen.append(name)
            return real(*args, **kwargs)

        return scan

    monkeypatch.setattr("homeclaw_cli.app.context.scan", counting("plugins", registry_module.scan))
    monkeypatch.setattr(
        "homeclaw_cli.app.context.scan_skills", counting("skills", skills_module.scan_skills)
    )
    return seen


def names(toolbox: Toolbox) -> set[str]:
    return {tool.name for tool in toolbox.list_tools()}


def test_lists_scan_once_while_nothing_changes(settings: Settings, scans: list[str]) -> None:
    toolbox = Toolbox(AppContext(settings))
    first = names(toolbox)
    assert {"tides__times", "homeclaw_search"} <= first
    for _ in range(3):
        assert names(toolbox) == first
    assert scans == ["plugins", "skills"]


def test_a_new_plugin_or_skill_is_seen_by_the_next_list(
    settings: Settings, scans: list[str], tmp_path: Path
) -> None:
    toolbox = Toolbox(AppContext(settings))
    assert "clock__now" not in names(toolbox)
    write_plugin(tmp_path / "plugins", "clock", CLOCK_YAML, CLOCK_PY)
    assert "clock__now" in names(toolbox)
    assert scans == ["plugins", "skills", "plugins"]  # the skills were left alone
    make_skill(settings.user_skills_dir, "greeting", description="Greets people.")
    assert "skill__greeting" in names(toolbox)
    assert scans[-1] == "skills"
