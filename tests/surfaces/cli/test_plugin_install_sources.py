"""`plugin install` of a folder or archive holding several plugins names them, as `skill
install` does."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from tests.fakes.plugin_source import source_plugin
from tests.surfaces.cli.test_plugin_install import git, lock


def test_a_folder_or_zip_of_several_plugins_names_them(cli: Any, tmp_path: Path) -> None:
    collection = tmp_path / "collection"
    source_plugin(collection / "p1", "p1")
    source_plugin(collection / "p2", "p2")
    result = cli("plugin", "install", str(collection), "--yes")
    assert result.exit_code == 2, result.output
    assert "the source holds 2 plugins (p1, p2); install one at a time" in result.stderr
    assert "homeclaw plugin install <source> --subdir p1" in result.stderr
    archive = tmp_path / "collection.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in collection.rglob("*"):
            zf.write(path, Path("wrapper") / path.relative_to(collection))
    result = cli("plugin", "install", str(archive), "--yes")
    assert result.exit_code == 2, result.output
    assert "the source holds 2 plugins (wrapper/p1, wrapper/p2)" in result.stderr
    assert "--subdir wrapper/p1`" in result.stderr
    alone = tmp_path / "alone"
    source_plugin(alone / "p3", "p3")
    (alone / "README.md").write_text("one plugin and its readme\n")
    assert cli("plugin", "install", str(alone), "--yes").exit_code == 0


def test_a_truncated_or_damaged_archive_is_named_not_aborted(cli: Any, tmp_path: Path) -> None:
    import io
    import tarfile

    folder = source_plugin(tmp_path / "src" / "p1", "p1")
    (folder / "data.txt").write_bytes(bytes(range(256)) * 400)  # enough to compress
    good = io.BytesIO()
    with tarfile.open(fileobj=good, mode="w:gz") as tf:
        tf.add(folder, "p1")
    truncated = tmp_path / "p1.tar.gz"  # a download cut short
    truncated.write_bytes(good.getvalue()[: len(good.getvalue()) // 2])
    result = cli("plugin", "install", str(truncated), "--yes")
    assert result.exit_code == 2, result.output
    assert f"{truncated}: not a readable tar archive (" in result.stderr
    archive = tmp_path / "p1.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(folder / "data.txt", "p1/data.txt")
    data = bytearray(archive.read_bytes())
    data[60:70] = bytes(10)  # inside the compressed bytes of data.txt
    archive.write_bytes(bytes(data))
    result = cli("plugin", "install", str(archive), "--yes")
    assert result.exit_code == 2, result.output
    assert f"{archive}: not a readable zip archive (" in result.stderr


def test_one_plugin_of_a_git_repository_with_several_installs_and_updates(
    cli: Any, hc_home: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    source_plugin(repo / "p1", "p1")
    source_plugin(repo / "p2", "p2")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "two plugins")
    url = f"git+file://{repo}"
    result = cli("plugin", "install", url, "--subdir", "p2", "--yes")
    assert result.exit_code == 0, result.output
    assert (hc_home / "data" / "plugins" / "p2" / "main.py").is_file()
    assert lock(hc_home)["plugins"]["p2"]["subdir"] == "p2"
    (repo / "p2" / "main.py").write_text("print('hello')\n")
    git(repo, "commit", "-qam", "p2 says hello")
    update = cli("plugin", "update", "p2", "--yes")
    assert update.exit_code == 0, update.output
    assert "upgraded p2" in update.stdout and "~ main.py" in update.stdout
    again = cli("plugin", "install", url, "--subdir", "p2")
    assert again.exit_code == 2
    assert f"`homeclaw plugin install {url} --subdir p2 --upgrade` replaces it" in again.stderr
    outside = cli("plugin", "install", url, "--subdir", "../p1", "--yes")
    assert outside.exit_code == 2 and "must be a relative path without `..`" in outside.stderr
    missing = cli("plugin", "install", url, "--subdir", "p3", "--yes")
    assert missing.exit_code == 4 and "--subdir 'p3': no plugin.yaml there" in missing.stderr
