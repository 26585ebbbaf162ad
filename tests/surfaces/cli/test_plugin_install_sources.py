"""`plugin install` of a folder or archive holding several plugins names them, as `skill
install` does."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from tests.fakes.plugin_source import source_plugin


def test_a_folder_or_zip_of_several_plugins_names_them(cli: Any, tmp_path: Path) -> None:
    collection = tmp_path / "collection"
    source_plugin(collection / "p1", "p1")
    source_plugin(collection / "p2", "p2")
    result = cli("plugin", "install", str(collection), "--yes")
    assert result.exit_code == 2, result.output
    assert "the source holds 2 plugins (p1, p2); install one at a time" in result.stderr
    assert "homeclaw plugin install <source>/p1" in result.stderr
    archive = tmp_path / "collection.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in collection.rglob("*"):
            zf.write(path, Path("wrapper") / path.relative_to(collection))
    result = cli("plugin", "install", str(archive), "--yes")
    assert result.exit_code == 2 and "the source holds 2 plugins (p1, p2)" in result.stderr
    alone = tmp_path / "alone"
    source_plugin(alone / "p3", "p3")
    (alone / "README.md").write_text("one plugin and its readme\n")
    assert cli("plugin", "install", str(alone), "--yes").exit_code == 0
