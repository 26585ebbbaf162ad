"""skill install: folder, archives, git; safe extraction; atomic replace."""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from homeclaw_cli.adapters.archive import UnsafeArchiveError
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.install.skill import install_skill
from homeclaw_cli.errors import ManifestError, NotFoundError, UsageError
from tests.skill_helpers import make_skill, settings_for


@pytest.fixture
def src(tmp_path: Path) -> Path:
    return make_skill(tmp_path / "src", "weather-tool", scripts={"run.sh": "echo hi\n"})


def installed(tmp_path: Path) -> Path:
    return tmp_path / "home" / "data" / "skills"


def test_install_folder_then_refuse_then_force(tmp_path: Path, src: Path) -> None:
    s = settings_for(tmp_path)
    result = install_skill(AppContext(s), str(src))
    dest = installed(tmp_path) / "weather-tool"
    assert result.destination == dest and not result.replaced
    assert (dest / "scripts" / "run.sh").read_text() == "echo hi\n"
    with pytest.raises(UsageError, match="already installed"):
        install_skill(AppContext(s), str(src))
    (src / "SKILL.md").write_text("---\nname: weather-tool\ndescription: v2\n---\n")
    result = install_skill(AppContext(s), str(src), force=True)
    assert result.replaced and "v2" in (dest / "SKILL.md").read_text()
    leftovers = [p.name for p in installed(tmp_path).iterdir()]
    assert leftovers == ["weather-tool"]  # no staging folders left behind


def test_invalid_skill_is_not_installed(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: x\n---\n")
    with pytest.raises(ManifestError, match=r"(?s)nothing was installed.*`description`"):
        install_skill(AppContext(settings_for(tmp_path)), str(bad))
    assert [p.name for p in installed(tmp_path).iterdir()] == []


def test_symlink_out_of_the_folder_is_refused(tmp_path: Path, src: Path) -> None:
    (tmp_path / "secret").write_text("s")
    (src / "scripts" / "leak").symlink_to(tmp_path / "secret")
    with pytest.raises(UnsafeArchiveError, match="symlink points outside"):
        install_skill(AppContext(settings_for(tmp_path)), str(src))


def test_install_zip_and_tar_archives_with_a_wrapper_folder(tmp_path: Path, src: Path) -> None:
    archive = tmp_path / "pack.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in src.rglob("*"):
            if f.is_file():
                zf.write(f, f"weather-tool-main/{f.relative_to(src)}")
    result = install_skill(AppContext(settings_for(tmp_path)), str(archive), skill_id="wz")
    assert (result.destination / "scripts" / "run.sh").is_file() and result.skill.id == "wz"
    tgz = tmp_path / "pack.tar.gz"
    with tarfile.open(tgz, "w:gz") as tf:
        tf.add(src, arcname="weather-tool")
    result = install_skill(AppContext(settings_for(tmp_path)), str(tgz))
    assert result.skill.id == "weather-tool" and result.source_kind == "archive"


def test_zip_slip_and_tar_traversal_are_refused(tmp_path: Path) -> None:
    evil_zip = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil_zip, "w") as zf:
        zf.writestr("SKILL.md", "---\nname: e\ndescription: d\n---\n")
        zf.writestr("../../escaped.txt", "x")
    with pytest.raises(UnsafeArchiveError, match=r"escapes with '\.\.'"):
        install_skill(AppContext(settings_for(tmp_path)), str(evil_zip))
    evil_tar = tmp_path / "evil.tar"
    with tarfile.open(evil_tar, "w") as tf:
        data = b"---\nname: e\ndescription: d\n---\n"
        info = tarfile.TarInfo("SKILL.md")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("scripts/passwd")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tf.addfile(link)
    with pytest.raises(UnsafeArchiveError, match="absolute path"):
        install_skill(AppContext(settings_for(tmp_path)), str(evil_tar))
    assert not (tmp_path / "escaped.txt").exists()
    assert [p.name for p in installed(tmp_path).iterdir()] == []


def test_several_skills_need_subdir(tmp_path: Path) -> None:
    repo = tmp_path / "collection"
    make_skill(repo, "one")
    make_skill(repo, "two")
    with pytest.raises(UsageError, match="holds 2 skills"):
        install_skill(AppContext(settings_for(tmp_path)), str(repo))
    assert (
        install_skill(AppContext(settings_for(tmp_path)), str(repo), subdir="two").skill.id == "two"
    )
    with pytest.raises(UsageError, match=r"without `\.\.`"):
        install_skill(AppContext(settings_for(tmp_path)), str(repo), subdir="../x")


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_install_from_git_url(tmp_path: Path, src: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(src), *args], check=True, capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    result = install_skill(AppContext(settings_for(tmp_path)), f"file://{src}", skill_id="from-git")
    assert result.source_kind == "git"
    assert not (result.destination / ".git").exists()
    assert (result.destination / "scripts" / "run.sh").is_file()


def test_bad_sources(tmp_path: Path) -> None:
    s = settings_for(tmp_path)
    with pytest.raises(NotFoundError, match="not a git URL"):
        install_skill(AppContext(s), str(tmp_path / "nope"))
    other = tmp_path / "file.txt"
    other.write_text("x")
    with pytest.raises(UsageError, match="not a skill folder or a known archive"):
        install_skill(AppContext(s), str(other))
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"not a zip")
    with pytest.raises(UsageError, match="not a readable zip archive"):
        install_skill(AppContext(s), str(broken))
    with pytest.raises(UsageError, match="not a usable skill id"):
        install_skill(AppContext(s), str(make_skill(tmp_path / "x", "ok")), skill_id="test__x")
