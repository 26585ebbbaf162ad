"""`homeclaw plugin new`: every scaffold validates at once and passes its own test."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.json_output import payload

REPO_ROOT = Path(__file__).resolve().parents[3]
COMBOS = [
    ("inline", "python"),
    ("subprocess", "python"),
    ("subprocess", "node"),
    ("http", "python"),
    ("http", "node"),
    ("mcp", "python"),
    ("mcp", "node"),
]


@pytest.mark.parametrize(("ptype", "lang"), COMBOS)
def test_scaffold_validates_at_once(cli: Any, tmp_path: Path, ptype: str, lang: str) -> None:
    result = cli(
        "plugin",
        "new",
        f"My {ptype} {lang}",
        "--type",
        ptype,
        "--lang",
        lang,
        "--dir",
        str(tmp_path),
        "--json",
    )
    assert result.exit_code == 0, result.output
    data = payload(result)
    folder = Path(data["folder"])
    assert data["id"] == f"my-{ptype}-{lang}" and folder.name == data["id"]
    assert any(name.startswith("test_") or name.endswith(".test.js") for name in data["files"])
    check = cli("plugin", "validate", str(folder), "--strict", "--json")
    assert check.exit_code == 0, check.output
    assert payload(check)["valid"] is True
    shown = payload(cli("--plugins-dir", str(tmp_path), "plugin", "show", data["id"], "--json"))
    assert shown["manifest"]["examples"] and shown["manifest"]["capabilities"][0]["examples"]
    commands = [line for line in (folder / "README.md").read_text().splitlines() if "  # " in line]
    assert len(commands) == 3 and len({line.index("#") for line in commands}) == 1


@pytest.mark.slow
@pytest.mark.parametrize(("ptype", "lang"), COMBOS)
def test_scaffold_passes_its_own_test(cli: Any, tmp_path: Path, ptype: str, lang: str) -> None:
    assert (
        cli("plugin", "new", "demo", "-t", ptype, "--lang", lang, "--dir", str(tmp_path)).exit_code
        == 0
    )
    folder = tmp_path / "demo"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    if lang == "node":
        if shutil.which("node") is None:
            pytest.skip("node is not installed")
        cmd = ["node", "--test"]
    else:
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "error"]
    proc = subprocess.run(
        cmd, cwd=folder, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_installed_scaffold_is_listed(cli: Any, hc_home: Path, tmp_path: Path) -> None:
    assert (
        cli("plugin", "new", "hello", "--type", "subprocess", "--dir", str(tmp_path)).exit_code == 0
    )
    assert cli("plugin", "install", str(tmp_path / "hello")).exit_code == 0
    rows = payload(cli("plugin", "list", "--json"))
    assert [(r["id"], r["type"], r["capabilities"]) for r in rows if r["source"] == "user"] == [
        ("hello", "subprocess", ["greet"])
    ]


def test_subprocess_scaffold_speaks_the_protocol(cli: Any, tmp_path: Path) -> None:
    cli("plugin", "new", "proto", "--type", "subprocess", "--dir", str(tmp_path))
    request = {
        "request_id": "r9",
        "plugin_id": "proto",
        "capability_id": "greet",
        "parameters": {"name": "Bo"},
    }
    proc = subprocess.run(
        [sys.executable, "main.py"],
        cwd=tmp_path / "proto",
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(proc.stdout) == {
        "request_id": "r9",
        "plugin_id": "proto",
        "success": True,
        "text": "Hello, Bo!",
    }


def test_scaffold_refuses_bad_input(cli: Any, tmp_path: Path) -> None:
    assert cli("plugin", "new", "x", "--type", "grpc", "--dir", str(tmp_path)).exit_code == 2
    inline_node = cli(
        "plugin", "new", "x", "--type", "inline", "--lang", "node", "--dir", str(tmp_path)
    )
    assert inline_node.exit_code == 2 and "inline plugins are Python" in inline_node.stderr
    assert cli("plugin", "new", "x", "--dir", str(tmp_path)).exit_code == 0
    again = cli("plugin", "new", "x", "--dir", str(tmp_path))
    assert again.exit_code == 2 and "already exists" in again.stderr
    assert cli("plugin", "new", "!!!", "--dir", str(tmp_path)).exit_code == 2


def test_a_new_plugin_called_from_its_folder_says_how_to_load_it(cli: Any) -> None:
    made = cli("plugin", "new", "Greeter")
    assert made.exit_code == 0, made.output
    line = next(li.strip() for li in made.stderr.splitlines() if "plugin call greeter" in li)
    assert line.startswith("homeclaw --plugins-dir ")
    answered = cli(*shlex.split(line)[1:])  # the printed line runs as written
    assert answered.exit_code == 0, answered.output
    assert answered.stdout.strip() == "Hello, Ada!"
    for given in ("greeter", "./greeter"):
        result = cli("plugin", "call", given, "greet", "-p", "name=Ada")
        assert result.exit_code == 4
        folder = Path.cwd() / "greeter"
        assert f"error: {folder} is a plugin folder, but not in a folder homeclaw" in result.stderr
        assert f"`homeclaw --plugins-dir {folder.parent} plugin show greeter`" in result.stderr


def test_an_untrusted_workspace_plugin_says_it_needs_trust(cli: Any) -> None:
    cli("plugin", "new", "Greeter", "--dir", "plugins")
    untrusted = {"HOMECLAW_PLUGINS__TRUST_WORKSPACE": "false"}
    result = cli("plugin", "call", "greeter", "greet", "-p", "name=Ada", env=untrusted)
    assert result.exit_code == 4
    assert "plugin 'greeter' in " in result.stderr and "trusted workspace" in result.stderr
    assert "hint: add --trust-workspace before the command" in result.stderr
    trusted = cli("--trust-workspace", "plugin", "call", "greeter", "-p", "name=Ada", env=untrusted)
    assert trusted.exit_code == 0, trusted.output
