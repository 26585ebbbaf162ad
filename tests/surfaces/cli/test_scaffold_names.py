"""`plugin new` / `skill new` with names YAML reads as numbers, booleans or null still write
files that validate; the scaffolds never point plugin authors at internal design notes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.app.scaffold import TEMPLATES
from tests.json_output import payload

NAMES = ["123", "true", "yes", "no", "null", "0x1f", "1e3"]


@pytest.fixture(autouse=True)
def no_bundled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOMECLAW_NO_BUNDLED", "1")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("ptype", ["inline", "subprocess", "http"])
def test_plugin_new_with_a_yaml_scalar_name_validates(
    cli: Any, tmp_path: Path, name: str, ptype: str
) -> None:
    created = cli("plugin", "new", name, "--type", ptype, "--dir", str(tmp_path), "--json")
    assert created.exit_code == 0, created.output
    folder = Path(payload(created)["folder"])
    check = cli("plugin", "validate", str(folder), "--strict")
    assert check.exit_code == 0, check.output
    shown = payload(cli("--plugins-dir", str(tmp_path), "plugin", "show", name, "--json"))
    assert shown["manifest"]["id"] == name


@pytest.mark.parametrize("name", NAMES)
def test_skill_new_with_a_yaml_scalar_name_validates(cli: Any, tmp_path: Path, name: str) -> None:
    assert cli("skill", "new", name, "--dir", str(tmp_path)).exit_code == 0
    check = cli("skill", "validate", str(tmp_path / name), "--strict")
    assert check.exit_code == 0, check.output


def test_scaffolds_speak_to_authors_not_of_design_notes(cli: Any, tmp_path: Path) -> None:
    for ptype in ("subprocess", "http"):
        assert cli("plugin", "new", ptype, "--type", ptype, "--dir", str(tmp_path)).exit_code == 0
    written = [p.read_text() for p in tmp_path.rglob("*") if p.is_file()]
    templates = [p.read_text() for p in TEMPLATES.rglob("*.tmpl")]
    for text in [*written, *templates]:
        assert "seed 0" not in text and "§" not in text


@pytest.mark.parametrize("kind", ["plugin", "skill"])
def test_an_accented_name_keeps_its_letters_in_the_id(cli: Any, tmp_path: Path, kind: str) -> None:
    created = cli(kind, "new", "Café Übersicht", "--dir", str(tmp_path), "--json")
    assert created.exit_code == 0, created.output
    assert Path(payload(created)["folder"]).name == "cafe-ubersicht"


def test_an_id_that_is_taken_is_warned_about(cli: Any, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.delenv("HOMECLAW_NO_BUNDLED", raising=False)
    taken = cli("plugin", "new", "units", "--dir", str(tmp_path))
    assert taken.exit_code == 0 and "plugin id 'units' is taken by" in taken.stderr
    assert "(bundled)" in taken.stderr
    skill = cli("skill", "new", "disk-usage", "--dir", str(tmp_path))
    assert skill.exit_code == 0 and "skill id 'disk-usage' is taken by" in skill.stderr
    fresh = cli("plugin", "new", "tide tables", "--dir", str(tmp_path))
    assert fresh.exit_code == 0 and "is taken by" not in fresh.stderr


def test_a_name_that_would_make_an_invalid_plugin_id_does_not_scaffold_one(
    cli: Any, tmp_path: Path
) -> None:
    """`__` separates plugin and capability in tool names and `skill` is the skills' MCP tool
    prefix: `plugin new` makes a valid id of the first and refuses the second."""
    created = cli("plugin", "new", "My__Tool", "--dir", str(tmp_path), "--json")
    assert created.exit_code == 0, created.output
    folder = Path(payload(created)["folder"])
    assert folder.name == "my_tool"
    assert cli("plugin", "validate", str(folder)).exit_code == 0
    refused = cli("plugin", "new", "skill", "--dir", str(tmp_path))
    assert refused.exit_code == 2 and "plugin id 'skill' is taken" in refused.stderr
    assert not (tmp_path / "skill").exists()
