"""An inline plugin whose class has the capability methods but does not subclass BasePlugin
loads and runs (capabilities are plain methods); validate warns that the SDK helpers are missing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.json_output import payload
from tests.plugin_factory import write_plugin

PLAIN = """
class Shouter:
    def __init__(self):
        self.suffix = "!"

    def shout(self, text):
        return text.upper() + self.suffix
"""

NEEDS_ARGS = """
class Shouter:
    def __init__(self, volume):
        self.volume = volume

    def shout(self, text):
        return text.upper()
"""


def plain_plugin(root: Path, code: str) -> Path:
    manifest = {
        "id": "shouter",
        "name": "Shouter",
        "description": "Makes text loud.",
        "type": "inline",
        "capabilities": [
            {
                "id": "shout",
                "name": "Shout",
                "description": "Upper-case the text.",
                "examples": ["shout hello at me"],
                "parameters": [{"name": "text", "type": "string", "required": True}],
            }
        ],
    }
    return write_plugin(root, manifest, {"plugin.py": code})


def test_plain_class_validates_with_a_warning(cli: Any, tmp_path: Path) -> None:
    folder = plain_plugin(tmp_path / "plugins", PLAIN)
    result = cli("plugin", "validate", str(folder), "--json")
    assert result.exit_code == 0, result.output
    plugin = payload(result)["plugins"][0]
    assert plugin["errors"] == []
    assert [w["code"] for w in plugin["warnings"]] == ["inline-plain-class"]
    assert "BasePlugin" in plugin["warnings"][0]["hint"]
    strict = cli("plugin", "validate", str(folder), "--strict")
    assert strict.exit_code == 1


def test_plain_class_runs_through_plugin_call(cli: Any, tmp_path: Path) -> None:
    plain_plugin(tmp_path / "plugins", PLAIN)
    result = cli(
        "--plugins-dir",
        str(tmp_path / "plugins"),
        "plugin",
        "call",
        "shouter",
        "shout",
        "-p",
        "text=hello",
        "--json",
    )
    assert result.exit_code == 0, result.output
    assert payload(result)["result"]["text"] == "HELLO!"


def test_plain_class_that_needs_arguments_says_how_to_fix_it(cli: Any, tmp_path: Path) -> None:
    plain_plugin(tmp_path / "plugins", NEEDS_ARGS)
    result = cli(
        "--plugins-dir",
        str(tmp_path / "plugins"),
        "plugin",
        "call",
        "shouter",
        "shout",
        "-p",
        "text=hello",
    )
    assert result.exit_code != 0
    assert "cannot be created without arguments" in result.output
    assert "subclass BasePlugin" in result.output


def test_a_module_with_neither_is_still_an_error(cli: Any, tmp_path: Path) -> None:
    folder = plain_plugin(
        tmp_path / "plugins", "class Other:\n    def unrelated(self):\n        pass\n"
    )
    result = cli("plugin", "validate", str(folder), "--json")
    assert result.exit_code == 1
    error = payload(result)["plugins"][0]["errors"][0]
    assert error["code"] == "inline-module" and "shout" in error["message"]
