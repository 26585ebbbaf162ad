"""install, update and register show their steps: plain lines piped, ✓ lines on a terminal,
nothing under --json."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.fakes.index import write_plugin
from tests.json_output import payload

STEP = re.compile(r"^(\w+): .* \(\d+\.\d\d s\)$", re.MULTILINE)


def steps(stderr: str) -> list[str]:
    return STEP.findall(stderr)


def test_install_and_update_print_each_step_when_piped(
    cli: Any, index_env: dict[str, Any], tmp_path: Path
) -> None:
    assert cli("sync").exit_code == 0
    src = write_plugin(tmp_path / "src", "tides", "Tides", "Tide tables for a harbour.")
    installed = cli("plugin", "install", str(src), "--yes")
    assert installed.exit_code == 0, installed.output
    assert steps(installed.stderr) == ["fetch", "validate", "approve", "swap", "sync"]
    assert f"fetch: folder {src}" in installed.stderr
    assert "sync: plugin index" in installed.stderr
    assert "fetch:" not in installed.stdout  # the result alone stays on stdout

    manifest = src / "plugin.yaml"
    manifest.write_text(manifest.read_text() + "version: '2.0'\n")
    updated = cli("plugin", "update", "tides", "--yes")
    assert updated.exit_code == 0, updated.output
    assert steps(updated.stderr) == ["fetch", "validate", "approve", "swap", "sync"]
    same = cli("plugin", "update", "tides")
    assert steps(same.stderr) == ["fetch", "validate"]  # up to date: it stops there


def test_json_output_has_no_step_lines(cli: Any, index_env: dict[str, Any], tmp_path: Path) -> None:
    src = write_plugin(tmp_path / "src", "tides", "Tides", "Tide tables for a harbour.")
    installed = cli("plugin", "install", str(src), "--yes", "--json")
    assert installed.exit_code == 0, installed.output
    assert steps(installed.stderr) == []
    assert payload(installed)["action"] == "installed"


def test_a_failed_step_is_named(cli: Any, index_env: dict[str, Any], tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "plugin.yaml").write_text("id: broken\nname: Broken\n")
    result = cli("plugin", "install", str(broken), "--yes")
    assert result.exit_code == 1
    assert re.search(r"^validate: plugin failed \(", result.stderr, re.MULTILINE)


def test_installing_again_says_already_installed_without_a_failed_step(
    cli: Any, index_env: dict[str, Any], tmp_path: Path
) -> None:
    src = write_plugin(tmp_path / "src", "tides", "Tides", "Tide tables for a harbour.")
    assert cli("plugin", "install", str(src), "--yes").exit_code == 0
    again = cli("plugin", "install", str(src), "--yes")
    assert again.exit_code == 2
    assert "plugin 'tides' is already installed in" in again.stderr
    assert steps(again.stderr) == ["fetch", "validate"]
    assert "failed" not in again.stderr


def test_register_prints_its_steps(cli: Any, index_env: dict[str, Any], tmp_path: Path) -> None:
    assert cli("sync").exit_code == 0
    body = {
        "plugin_id": "slack-bot",
        "name": "Slack",
        "description": "Post messages to Slack.",
        "health_check_url": "http://127.0.0.1:9/health",
        "type": "http",
        "config": {"base_url": "http://127.0.0.1:9"},
    }
    path = tmp_path / "slack.json"
    path.write_text(json.dumps(body))
    result = cli("plugin", "register", "--no-check", str(path))
    assert result.exit_code == 0, result.output
    assert steps(result.stderr) == ["validate", "save", "sync"]
    assert result.stdout.strip() == "registered slack-bot"


def test_a_terminal_gets_check_marks(run_cli: Any, tmp_path: Path) -> None:
    src = write_plugin(tmp_path / "src", "tides", "Tides", "Tide tables for a harbour.")
    # FORCE_COLOR makes rich treat stderr as a terminal, as a person's shell would be
    result = run_cli(
        "plugin", "install", str(src), "--yes", env={"FORCE_COLOR": "1", "HOMECLAW_NO_BUNDLED": "1"}
    )
    assert result.returncode == 0, result.stderr
    plain = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", result.stderr)
    assert re.search(r"✓ fetch +folder .* \d+\.\d\d s", plain)
    assert re.search(r"✓ swap +into ", plain)
    assert not steps(plain)
