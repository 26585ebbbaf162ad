"""`plugin validate` suggests the value meant when a choice is misspelled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.json_output import payload
from tests.plugin_factory import write_plugin


@pytest.mark.parametrize(
    ("field", "value", "where", "meant"),
    [
        ("type", "integr", "capabilities[0].parameters[0].type", "integer"),
        ("effects", "reed", "capabilities[0].effects[0]", "read"),
    ],
)
def test_a_misspelled_choice_gets_did_you_mean(
    cli: Any, tmp_path: Path, field: str, value: str, where: str, meant: str
) -> None:
    parameter = {"name": "n", "type": value if field == "type" else "integer"}
    capability: dict[str, Any] = {"id": "c", "name": "C", "description": "Do it."}
    capability["parameters"] = [parameter]
    if field == "effects":
        capability["effects"] = value
    manifest = {
        "id": "p",
        "name": "P",
        "description": "Demo.",
        "type": "subprocess",
        "config": {"command": "python3"},
        "capabilities": [capability],
    }
    folder = write_plugin(tmp_path, manifest)
    result = cli("plugin", "validate", str(folder), "--json")
    assert result.exit_code == 1
    error = payload(result)["plugins"][0]["errors"][0]
    assert error["field"] == where
    assert error["message"].endswith(f"got '{value}' (did you mean `{meant}`?)")


@pytest.mark.parametrize(
    ("text", "field", "read_as"),
    [("version: 1.10", "version", "the number 1.1"), ("name: yes", "name", "the boolean true")],
)
def test_an_unquoted_yaml_value_that_is_not_text_says_to_quote_it(
    cli: Any, tmp_path: Path, text: str, field: str, read_as: str
) -> None:
    folder = tmp_path / "p"
    folder.mkdir()
    manifest = (
        f"id: p\n{text}\ndescription: Demo.\ntype: subprocess\nconfig: {{command: python3}}\n"
    )
    if field != "name":
        manifest += "name: P\n"
    (folder / "plugin.yaml").write_text(manifest, encoding="utf-8")
    result = cli("plugin", "validate", str(folder))
    assert result.exit_code == 1
    assert (
        f"plugin.yaml:2:1: error: {field}: must be text, but the unquoted value reads as "
        f'{read_as}: put it in quotes as written, e.g. {field}: "..."'
    ) in result.stdout + result.stderr
