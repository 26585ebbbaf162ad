"""`plugin install` never copies an author's virtualenvs and tool caches (from a folder or an
archive), as it never copies .git or __pycache__."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path
from typing import Any

from tests.fakes.plugin_source import source_plugin


def test_virtualenvs_and_tool_caches_are_not_installed(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    folder = source_plugin(tmp_path / "greeter", "greeter")
    for cache in (".pytest_cache", ".mypy_cache", ".ruff_cache", "venv"):
        (folder / cache).mkdir()
        (folder / cache / "junk").write_text("x")
    (folder / ".venv" / "bin").mkdir(parents=True)
    (folder / ".venv" / "bin" / "python").symlink_to(sys.executable)  # links out of the folder
    result = cli("plugin", "install", str(folder), "--yes")
    assert result.exit_code == 0, result.output
    installed = hc_home / "data" / "plugins" / "greeter"
    assert sorted(p.name for p in installed.iterdir()) == ["main.py", "plugin.yaml"]
    archive = tmp_path / "greeter.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in folder.rglob("*"):
            if not path.is_symlink():
                zf.write(path, path.relative_to(folder))
        link = zipfile.ZipInfo(".venv/bin/python3")
        link.external_attr = (0o120777) << 16
        zf.writestr(link, sys.executable)
    result = cli("plugin", "install", str(archive), "--upgrade", "--yes")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in installed.iterdir()) == ["main.py", "plugin.yaml"]
