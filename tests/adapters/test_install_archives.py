"""Unsafe sources are refused before anything is written outside the staging folder."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from homeclaw_cli.adapters.archive import (
    Limits,
    UnsafeArchiveError,
    copy_tree_safely,
    safe_extract_tar,
    safe_extract_zip,
)
from homeclaw_cli.adapters.install_source import parse_source, tree_digest
from homeclaw_cli.errors import NotFoundError, UsageError

MANIFEST = b"id: p\nname: P\ndescription: d\n"


def make_zip(
    path: Path, members: list[tuple[str, bytes]], links: dict[str, str] | None = None
) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members:
            zf.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return path


def make_tar(path: Path, members: list[tarfile.TarInfo | tuple[str, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as tf:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                tf.addfile(member)
            else:
                name, data = member
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    return path


def link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def test_good_archives_extract_with_inside_links(tmp_path: Path) -> None:
    z = make_zip(
        tmp_path / "ok.zip", [("p/plugin.yaml", MANIFEST)], {"p/alias.yaml": "plugin.yaml"}
    )
    safe_extract_zip(z, tmp_path / "z")
    assert (tmp_path / "z/p/alias.yaml").read_bytes() == MANIFEST
    t = make_tar(
        tmp_path / "ok.tar.gz",
        [("p/plugin.yaml", MANIFEST), link("p/hard.yaml", "p/plugin.yaml", tarfile.LNKTYPE)],
    )
    safe_extract_tar(t, tmp_path / "t")
    assert (tmp_path / "t/p/hard.yaml").read_bytes() == MANIFEST


def test_zip_with_absolute_path_is_refused(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "a.zip", [("/etc/evil", b"x")])
    with pytest.raises(UnsafeArchiveError, match="absolute path"):
        safe_extract_zip(z, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_tar_with_absolute_path_is_refused(tmp_path: Path) -> None:
    t = make_tar(tmp_path / "a.tar.gz", [("/tmp/evil", b"x")])
    with pytest.raises(UnsafeArchiveError, match="absolute path"):
        safe_extract_tar(t, tmp_path / "out")


def test_zip_with_dotdot_is_refused(tmp_path: Path) -> None:
    z = make_zip(tmp_path / "d.zip", [("p/plugin.yaml", MANIFEST), ("p/../../evil", b"x")])
    with pytest.raises(UnsafeArchiveError, match=r"'\.\.'"):
        safe_extract_zip(z, tmp_path / "out" / "x")
    assert not (tmp_path / "evil").exists() and not (tmp_path / "out").exists()


def test_tar_with_dotdot_is_refused(tmp_path: Path) -> None:
    t = make_tar(tmp_path / "d.tar.gz", [("../evil", b"x")])
    with pytest.raises(UnsafeArchiveError, match=r"'\.\.'"):
        safe_extract_tar(t, tmp_path / "out")
    assert not (tmp_path / "evil").exists()


def test_zip_symlink_out_is_refused(tmp_path: Path) -> None:
    z = make_zip(
        tmp_path / "s.zip", [("p/plugin.yaml", MANIFEST)], {"p/key": "../../../etc/passwd"}
    )
    with pytest.raises(UnsafeArchiveError, match="outside"):
        safe_extract_zip(z, tmp_path / "out")


def test_tar_symlink_out_is_refused(tmp_path: Path) -> None:
    for target in ("/etc/passwd", "../../etc/passwd"):
        t = make_tar(tmp_path / "s.tar.gz", [("p/plugin.yaml", MANIFEST), link("p/key", target)])
        with pytest.raises(UnsafeArchiveError):
            safe_extract_tar(t, tmp_path / "out")


def test_tar_symlink_then_write_through_it_is_refused(tmp_path: Path) -> None:
    t = make_tar(tmp_path / "s.tar.gz", [link("dir", "."), ("dir/../../evil", b"x")])
    with pytest.raises(UnsafeArchiveError):
        safe_extract_tar(t, tmp_path / "out")
    assert not (tmp_path / "evil").exists()


def test_tar_hardlink_out_is_refused(tmp_path: Path) -> None:
    for target in ("/etc/passwd", "../../etc/passwd"):
        t = make_tar(
            tmp_path / "h.tar.gz",
            [("p/plugin.yaml", MANIFEST), link("p/pw", target, tarfile.LNKTYPE)],
        )
        with pytest.raises(UnsafeArchiveError):
            safe_extract_tar(t, tmp_path / "out")


def test_tar_device_is_refused(tmp_path: Path) -> None:
    dev = tarfile.TarInfo("p/null")
    dev.type = tarfile.CHRTYPE
    t = make_tar(tmp_path / "dev.tar.gz", [dev])
    with pytest.raises(UnsafeArchiveError, match="device"):
        safe_extract_tar(t, tmp_path / "out")


def test_too_big_archives_are_refused_while_writing(tmp_path: Path) -> None:
    limits = Limits(max_bytes=1000, max_files=100)
    # A zip bomb: highly compressible, its declared size is not trusted, bytes are counted.
    z = make_zip(tmp_path / "big.zip", [("p/plugin.yaml", MANIFEST), ("p/blob", b"0" * 5000)])
    with pytest.raises(UnsafeArchiveError, match="MiB"):
        safe_extract_zip(z, tmp_path / "z", limits)
    t = make_tar(tmp_path / "big.tar.gz", [("p/blob", b"0" * 5000)])
    with pytest.raises(UnsafeArchiveError, match="MiB"):
        safe_extract_tar(t, tmp_path / "t", limits)
    assert not (tmp_path / "t").exists()  # tar sizes are checked before extracting


def test_too_many_files_are_refused(tmp_path: Path) -> None:
    limits = Limits(max_bytes=10**6, max_files=5)
    members = [(f"p/f{i}", b"x") for i in range(6)]
    with pytest.raises(UnsafeArchiveError, match="more than 5 files"):
        safe_extract_zip(make_zip(tmp_path / "n.zip", members), tmp_path / "z", limits)
    with pytest.raises(UnsafeArchiveError, match="more than 5 files"):
        safe_extract_tar(make_tar(tmp_path / "n.tar.gz", list(members)), tmp_path / "t", limits)
    folder = tmp_path / "folder"
    folder.mkdir()
    for i in range(6):
        (folder / f"f{i}").write_text("x")
    with pytest.raises(UnsafeArchiveError, match="more than 5 files"):
        copy_tree_safely(folder, tmp_path / "c", limits)


def test_folder_with_symlink_out_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "plugin.yaml").write_bytes(MANIFEST)
    (src / "inside").symlink_to("plugin.yaml")
    copy_tree_safely(src, tmp_path / "ok")
    assert (tmp_path / "ok/inside").is_symlink()
    (src / "key").symlink_to(tmp_path)
    with pytest.raises(UnsafeArchiveError, match="outside"):
        copy_tree_safely(src, tmp_path / "bad")


def test_digest_is_stable_and_content_sensitive(tmp_path: Path) -> None:
    a = tmp_path / "a"
    a.mkdir()
    (a / "x").write_text("1")
    first = tree_digest(a)
    assert first == tree_digest(a) and first.startswith("sha256:")
    (a / "x").write_text("2")
    assert tree_digest(a) != first


def test_parse_source_kinds(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "a.zip").write_bytes(b"")
    (tmp_path / "a.tar.gz").write_bytes(b"")
    (tmp_path / "a.txt").write_bytes(b"")
    assert parse_source("dir", cwd=tmp_path).kind == "folder"
    assert parse_source("a.zip", cwd=tmp_path).kind == "zip"
    assert parse_source("a.tar.gz", cwd=tmp_path).kind == "tar"
    spec = parse_source("https://github.com/o/r.git@v1.2", cwd=tmp_path)
    assert (spec.kind, spec.location, spec.ref) == ("git", "https://github.com/o/r.git", "v1.2")
    spec = parse_source("git@github.com:o/r.git", cwd=tmp_path)
    assert (spec.location, spec.ref) == ("git@github.com:o/r.git", None)
    spec = parse_source("git+file:///srv/repo@main", cwd=tmp_path)
    assert (spec.location, spec.ref) == ("file:///srv/repo", "main")
    with pytest.raises(UsageError, match="not a folder"):
        parse_source("a.txt", cwd=tmp_path)
    with pytest.raises(NotFoundError):
        parse_source("missing", cwd=tmp_path)


def test_link_chain_that_resolves_outside_is_refused(tmp_path: Path) -> None:
    # Each link looks inside on its own; together `p/q/t` leads above the archive root.
    t = make_tar(
        tmp_path / "chain.tar.gz",
        [("p/q/keep", b"x"), link("p/q/s", "../.."), link("p/q/t", "s/../../x")],
    )
    with pytest.raises(UnsafeArchiveError, match="resolves outside"):
        safe_extract_tar(t, tmp_path / "out" / "deep")


def test_duplicate_members_replace_earlier_ones(tmp_path: Path) -> None:
    t = make_tar(tmp_path / "dup.tar.gz", [("p/a", b"1"), link("p/a", "b"), ("p/a", b"3")])
    safe_extract_tar(t, tmp_path / "out")
    assert (tmp_path / "out/p/a").read_bytes() == b"3"
    assert not (tmp_path / "out/p/a").is_symlink()


def test_macosx_folder_next_to_the_plugin_is_ignored(tmp_path: Path) -> None:
    from homeclaw_cli.adapters.install_source import fetch_source
    from homeclaw_cli.catalog.plugin_loader import is_plugin_folder

    z = make_zip(
        tmp_path / "mac.zip",
        [("p/plugin.yaml", MANIFEST), ("__MACOSX/p/._plugin.yaml", b"junk")],
    )
    spec = parse_source(str(z), cwd=tmp_path)
    fetched = fetch_source(spec, tmp_path / "work", is_root=is_plugin_folder)
    assert fetched.root.name == "p" and fetched.files == 1


def test_source_name_drops_archive_and_git_suffixes(tmp_path: Path) -> None:
    from homeclaw_cli.adapters.install_source import SourceSpec, source_name

    (tmp_path / "weather").mkdir()
    assert source_name(parse_source("weather", cwd=tmp_path)) == "weather"
    assert source_name(SourceSpec("x", "tar", str(tmp_path / "gh-helper.tar.gz"))) == "gh-helper"
    assert source_name(SourceSpec("x", "zip", str(tmp_path / "Tool.ZIP"))) == "Tool"
    assert source_name(parse_source("git@host:o/skills.git@v1", cwd=tmp_path)) == "skills"
    assert source_name(parse_source("https://host/o/repo/", cwd=tmp_path)) == "repo"
