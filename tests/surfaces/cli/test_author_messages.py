"""What an author reads for the usual mistakes: an unclosed frontmatter, a JSON Schema where a
list of parameters goes, `items` on a parameter, YAML syntax errors with their context, tabs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def no_bundled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOMECLAW_NO_BUNDLED", "1")


def _plugin(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "p4"
    folder.mkdir(exist_ok=True)
    (folder / "plugin.yaml").write_text(text)
    return folder


HEAD = "id: p4\nname: P4\ndescription: Greets people by their name.\n"


def test_unclosed_frontmatter_says_so(cli: Any, tmp_path: Path) -> None:
    folder = tmp_path / "s1"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: s1\ndescription: Greets people.\n# Body\n")
    result = cli("skill", "validate", str(folder))
    assert result.exit_code == 1
    assert "the frontmatter opened by the `---` on line 1 is never closed" in result.stdout


def test_parameters_and_capabilities_written_as_mappings_show_the_list_form(
    cli: Any, tmp_path: Path
) -> None:
    folder = _plugin(
        tmp_path,
        HEAD + "capabilities:\n  - id: greet\n    name: Greet\n    description: Greet someone.\n"
        "    parameters: {type: object, properties: {city: {type: string}}}\n"
        "  - id: many\n    name: Many\n    description: Greet many people.\n"
        "    parameters:\n      - {name: xs, type: array, items: {type: string}}\n"
        "      - {name: n, type: integer, default: x}\n",
    )
    out = cli("plugin", "validate", str(folder)).stdout
    assert "plugin.yaml:8:5: error: capabilities[0].parameters: must be a list" in out
    assert "`- {name: city, type: string, required: true" in out
    assert "parameters[0].items: unknown field `items`" in out and "json_schema" in out
    assert "is not an integer" in out
    folder = _plugin(tmp_path, HEAD + "capabilities: {greet: {name: Greet}}\n")
    out = cli("plugin", "validate", str(folder)).stdout
    assert "capabilities: must be a list, one item each: `- {id: forecast" in out


def test_yaml_errors_keep_their_context_and_explain_tabs(cli: Any, tmp_path: Path) -> None:
    folder = _plugin(tmp_path, 'id: p4\nname: P4\ndescription: "Greets people\nby name.\n')
    out = cli("plugin", "validate", str(folder)).stdout
    assert "plugin.yaml:3:14: error: invalid YAML: a quoted scalar starts here and is never " in out
    folder = _plugin(tmp_path, "id: p4\nname: P4\nkeywords: [a, b\n")
    out = cli("plugin", "validate", str(folder)).stdout
    assert "(while parsing a flow sequence that starts on line 3)" in out
    folder = _plugin(tmp_path, "id: p4\nname: P4\n\tdescription: x\n")
    out = cli("plugin", "validate", str(folder)).stdout
    assert "plugin.yaml:3:1:" in out and "YAML does not allow tabs for indentation" in out
