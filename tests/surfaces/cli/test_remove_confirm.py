"""`plugin remove` and `skill remove` ask first, and off a terminal need --yes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.surfaces.cli.test_plugin_install import user_dir, write_plugin
from tests.surfaces.cli.test_skill_lifecycle import write_skill


@pytest.fixture
def installed(cli: Any, tmp_path: Path) -> None:
    assert cli("plugin", "install", str(write_plugin(tmp_path / "src")), "--yes").exit_code == 0
    skill = write_skill(tmp_path / "gh-helper")
    assert cli("skill", "install", str(skill), "--id", "gh", "--yes").exit_code == 0


@pytest.mark.usefixtures("installed")
def test_remove_off_a_terminal_without_yes_is_refused_and_deletes_nothing(
    cli: Any, hc_home: Path
) -> None:
    for kind, item, folder in (
        ("plugin", "greeter", user_dir(hc_home) / "greeter"),
        ("skill", "gh", hc_home / "data" / "skills" / "gh"),
    ):
        result = cli(kind, "remove", item)
        assert result.exit_code == 2, result.output
        assert f"remove {kind} {item}" in result.stderr and "--yes" in result.stderr
        assert folder.is_dir()


@pytest.mark.usefixtures("installed")
def test_remove_on_a_terminal_asks_and_no_keeps_it(
    cli: Any, hc_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from homeclaw_cli.surfaces.cli import confirm

    monkeypatch.setattr(confirm, "on_terminal", lambda: True)
    kept = cli("plugin", "remove", "greeter", input="n\n")
    assert kept.exit_code == 1 and "nothing deleted" in kept.stderr
    assert (user_dir(hc_home) / "greeter").is_dir()
    removed = cli("skill", "remove", "gh", input="y\n")
    assert removed.exit_code == 0 and "[y/N]" in removed.stderr
    assert not (hc_home / "data" / "skills" / "gh").exists()


def test_an_id_that_is_not_installed_is_not_asked_about(cli: Any) -> None:
    result = cli("plugin", "remove", "nope")
    assert result.exit_code == 4 and "--yes" not in result.stderr
