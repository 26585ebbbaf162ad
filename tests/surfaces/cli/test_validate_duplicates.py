"""`plugin validate` over plugins that collide: one id in two folders (the registry keeps the
first and shadows the other), two capabilities that call one inline method."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from homeclaw_cli.errors import ExitCode
from tests.json_output import payload
from tests.plugin_factory import write_plugin

CODE = """\
from homeclaw_cli.sdk import BasePlugin

class P(BasePlugin):
    def run_x(self) -> str:
        return "x"
"""


def plugin(root: Path, folder: str, plugin_id: str, *cap_ids: str) -> Path:
    caps = [
        {"id": c, "name": c, "description": "Run x.", "examples": ["run x now", "do x"]}
        for c in cap_ids or ("run_x",)
    ]
    manifest = {
        "id": folder,
        "name": plugin_id,
        "description": "Runs x.",
        "type": "inline",
        "effects": "read",
        "capabilities": caps,
    }
    path = write_plugin(root, manifest, {"plugin.py": CODE})
    text = (path / "plugin.yaml").read_text().replace(f"id: {folder}", f"id: {plugin_id}", 1)
    (path / "plugin.yaml").write_text(text)
    return path


def test_two_folders_with_one_id_say_which_is_used(cli: Any, tmp_path: Path) -> None:
    tmp_path = tmp_path / "plugins"
    plugin(tmp_path, "beta", "same")
    plugin(tmp_path, "alpha", "same")
    result = cli("plugin", "validate", str(tmp_path))
    assert result.exit_code == 0, result.output  # the registry tolerates it: a warning
    lines = result.stdout.splitlines()
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    assert lines[0] == f"ok same ({alpha / 'plugin.yaml'})"
    assert lines[1].startswith(f"  {alpha / 'plugin.yaml'}:1:1: warning: id: plugin id 'same'")
    assert f"also declared by {beta}/: this folder is used (the first by folder name" in lines[1]
    assert (
        f"{alpha}/ is used (the first by folder name wins) and this one is shadowed" in (lines[3])
    )
    assert "give each plugin its own `id`" in lines[3]
    strict = cli("plugin", "validate", str(tmp_path), "--strict")
    assert strict.exit_code == ExitCode.FAILURE
    listed = payload(cli("--plugins-dir", str(tmp_path), "plugin", "list", "--all", "--json"))
    same = [(Path(r["folder"]).name, r["status"]) for r in listed if r["id"] == "same"]
    assert same == [("alpha", "ok"), ("beta", "shadowed")]  # what the registry does


def test_the_same_folder_given_twice_is_no_duplicate(cli: Any, tmp_path: Path) -> None:
    folder = plugin(tmp_path, "alpha", "alpha")
    result = cli("plugin", "validate", str(folder), str(folder / "plugin.yaml"), "--strict")
    assert result.exit_code == 0, result.output
    assert result.stdout.count("ok alpha") == 1


def test_two_capabilities_calling_one_method_fail_strict(cli: Any, tmp_path: Path) -> None:
    folder = plugin(tmp_path, "xs", "xs", "run-x", "run_x")
    assert cli("plugin", "validate", str(folder)).exit_code == 0
    result = cli("plugin", "validate", str(folder), "--strict")
    assert result.exit_code == ExitCode.FAILURE
    assert (
        "warning: capabilities[1].id: capabilities 'run-x' and 'run_x' both call method `run_x`"
        in result.stdout
    )
