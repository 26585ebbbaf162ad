"""The lockfile follows what the user last installed from, so `plugin update` reads it."""

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
