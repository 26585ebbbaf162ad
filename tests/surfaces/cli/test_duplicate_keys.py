"""A key written twice in plugin.yaml, SKILL.md frontmatter, tests.yaml or config.yaml is an
error naming both lines, not a silent last-one-wins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.skill_helpers import make_skill


@pytest.fixture(autouse=True)
def no_bundled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOMECLAW_NO_BUNDLED", "1")


def test_plugin_manifest_with_a_duplicate_key(cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "dup"
    folder.mkdir()
    (folder / "plugin.yaml").write_text(
        "id: dup\nname: Dup\ndescription: Says hello to people by name.\ntype: subprocess\n"
        "config: {command: python3}\ntype: http\n"
    )
    result = cli("plugin", "validate", str(folder))
    assert result.exit_code == 1
    assert f"{folder}/plugin.yaml:6:1: error: duplicate key 'type' (first on line 4)" in (
        result.stdout
    ), result.output
    assert "base_url" not in result.output


def test_plugin_json_with_a_duplicate_key(cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "dupj"
    folder.mkdir()
    (folder / "plugin.json").write_text(
        '{"id": "dupj", "name": "D",\n "description": "Says hello to people.",\n "id": "x"}\n'
    )
    result = cli("plugin", "validate", str(folder))
    assert result.exit_code == 1 and "duplicate key 'id' (first on line 1)" in result.stdout


def test_skill_frontmatter_and_tests_yaml_with_duplicate_keys(cli: Any, tmp_path: Path) -> None:
    folder = make_skill(tmp_path, "s1", extra="name: other\n")
    result = cli("skill", "validate", str(folder))
    assert result.exit_code == 1
    assert f"{folder}/SKILL.md:4:1: duplicate key 'name' (first on line 2)" in result.stdout
    folder = make_skill(tmp_path, "s2")
    (folder / "tests.yaml").write_text("scripts: []\nqueries: []\nscripts: []\n")
    result = cli("skill", "validate", str(folder))
    assert result.exit_code == 1
    assert f"{folder}/tests.yaml:3:1: duplicate key 'scripts' (first on line 1)" in result.stdout


def test_config_with_a_duplicate_key(cli: Any, hc_home: Path) -> None:
    (hc_home / "config.yaml").write_text("llm:\n  model: a\n  model: b\n")
    result = cli("config", "show")
    assert result.exit_code == 3
    assert f"{hc_home}/config.yaml:3:3: duplicate key 'model' (first on line 2)" in result.stderr
