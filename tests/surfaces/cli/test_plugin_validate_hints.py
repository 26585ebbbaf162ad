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
