"""The lockfile and the installed folder stay in step with what the user installed last."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path
from typing import Any

from tests.fakes.plugin_source import source_plugin


def test_upgrade_from_another_source_with_the_same_files_records_it(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = source_plugin(tmp_path / "src" / "greeter", "greeter")
    assert cli("plugin", "install", str(src)).exit_code == 0
    archive = tmp_path / "greeter.tgz"
    with tarfile.open(archive, "w:gz") as tf:
        tf.add(src, "greeter")
    result = cli("plugin", "install", str(archive), "--upgrade")
    assert result.exit_code == 0, result.output
    assert "unchanged" not in result.stdout
    entry = json.loads((hc_home / "data" / "homeclaw-lock.json").read_text())["plugins"]
    assert (entry["greeter"]["source_kind"], entry["greeter"]["location"]) == (
        "tar",
        str(archive),
    )
    shutil.rmtree(src)  # the folder it came from first is gone; the archive stays
    update = cli("plugin", "update", "greeter")
    assert update.exit_code == 0, update.output
    assert "greeter: up to date" in update.stdout


def test_remove_after_the_folder_was_deleted_by_hand_clears_the_records(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = source_plugin(tmp_path / "src", "greeter")
    assert cli("plugin", "install", str(src)).exit_code == 0
    shutil.rmtree(hc_home / "data" / "plugins" / "greeter")
    result = cli("plugin", "remove", "greeter")  # nothing on disk to delete: not asked
    assert result.exit_code == 0, result.output
    assert "removed greeter's lockfile entry and approvals" in result.stdout
    assert "was already gone" in result.stdout
    lockfile = json.loads((hc_home / "data" / "homeclaw-lock.json").read_text())
    assert "greeter" not in lockfile["plugins"]
    assert "greeter" not in (hc_home / "data" / "state" / "approvals.json").read_text()
    update = cli("plugin", "update", "greeter")  # does not bring it back
    assert update.exit_code == 4 and "was not installed" in update.stderr
    again = cli("plugin", "remove", "greeter", "--yes")
    assert again.exit_code == 4 and "no installed plugin 'greeter'" in again.stderr


def test_update_puts_back_an_installed_copy_edited_by_hand(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    src = source_plugin(tmp_path / "src", "greeter")
    assert cli("plugin", "install", str(src)).exit_code == 0
    folder = hc_home / "data" / "plugins" / "greeter"
    (folder / "node_modules").mkdir()  # added next to the files (`npm install`): no edit
    (folder / "node_modules" / "dep.js").write_text("module.exports = 1;\n")
    assert "greeter: up to date" in cli("plugin", "update", "greeter").stdout
    installed = folder / "main.py"
    installed.write_text("print('edited by hand')\n")
    result = cli("plugin", "update", "greeter")
    assert result.exit_code == 0, result.output
    assert "up to date" not in result.stdout and "~ main.py" in result.stdout
    assert installed.read_text() == "print('hi')\n"
    assert "greeter: up to date" in cli("plugin", "update", "greeter").stdout
