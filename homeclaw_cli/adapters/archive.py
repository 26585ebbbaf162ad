"""Copy a folder or unpack a zip/tar for installing, refusing anything that could escape.

Archives are checked member by member before anything is written: no absolute paths, no
`..`, no links leading out, no devices, and limits on total size and file count.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from homeclaw_cli.errors import HomeclawError, UsageError

# Never installed: version control, OS litter, and the author's own virtualenvs and tool
# caches (a venv's python links out of the folder, and none of it runs anywhere else).
SKIP_NAMES = {
    ".git", "__pycache__", ".DS_Store", "__MACOSX",
    ".venv", "venv", ".pytest_cache", ".mypy_cache", ".ruff_cache",
}  # fmt: skip


def skipped(rel: PurePosixPath) -> bool:
    """True for an archive member inside (or named) one of SKIP_NAMES."""
    return any(part in SKIP_NAMES for part in rel.parts)


ZIP_SUFFIX = ".zip"
TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz")
ARCHIVE_SUFFIXES = (ZIP_SUFFIX, *TAR_SUFFIXES)


class UnsafeArchiveError(HomeclawError):
    """An archive or folder tried to write outside its target, or was too large."""


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 200 * 1024 * 1024
    max_files: int = 10_000


DEFAULT_LIMITS = Limits()


class Budget:
    """Counts files and bytes against the limits; raises once either is exceeded."""

    def __init__(self, limits: Limits, source: str) -> None:
        self.limits, self.source = limits, source
        self.files = 0
        self.bytes = 0

    def file(self) -> None:
        self.files += 1
        if self.files > self.limits.max_files:
            raise UnsafeArchiveError(
                f"{self.source}: more than {self.limits.max_files} files; refusing to install",
                hint="a plugin or skill should be small; remove bundled data or dependencies",
            )

    def add(self, n: int) -> None:
        self.bytes += n
        if self.bytes > self.limits.max_bytes:
            mib = self.limits.max_bytes // (1024 * 1024)
            raise UnsafeArchiveError(
                f"{self.source}: unpacks to more than {mib} MiB; refusing to install",
                hint="archives that expand this much are refused to protect the disk",
            )


def _safe_relative(name: str, source: str) -> PurePosixPath:
    """Reject absolute paths, drive letters and `..`; return the cleaned relative path."""
    cleaned = name.replace("\\", "/")
    posix = PurePosixPath(cleaned)
    if cleaned.startswith("/") or (len(cleaned) > 1 and cleaned[1] == ":"):
        raise UnsafeArchiveError(f"{source}: member {name!r} has an absolute path; refusing")
    if ".." in posix.parts:
        raise UnsafeArchiveError(f"{source}: member {name!r} escapes with '..'; refusing")
    parts = [p for p in posix.parts if p not in ("", ".")]
    return PurePosixPath(*parts) if parts else PurePosixPath(".")


def _link_inside(link_rel: PurePosixPath, target: str, source: str, name: str) -> None:
    """A symlink stored at `link_rel` pointing to `target` must stay inside the tree."""
    if target.startswith("/") or "\\" in target:
        raise UnsafeArchiveError(f"{source}: link {name!r} points to an absolute path; refusing")
    depth = len(link_rel.parent.parts)
    for part in PurePosixPath(target).parts:
        depth += -1 if part == ".." else (0 if part == "." else 1)
        if depth < 0:
            raise UnsafeArchiveError(
                f"{source}: link {name!r} -> {target!r} points outside the archive; refusing"
            )


def _clear(target: Path) -> None:
    """A later member of the same name replaces an earlier file or link (as tar does)."""
    if target.is_symlink() or target.is_file():
        target.unlink()


def _copy_stream(src: Any, dest: Path, budget: Budget, mode: int | None) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    _clear(dest)
    with dest.open("wb") as out:
        while block := src.read(1 << 16):
            budget.add(len(block))
            out.write(block)
    if mode is not None and mode & 0o111:
        dest.chmod(0o755)


@contextlib.contextmanager
def _damage_reported(archive: Path, kind: str) -> Iterator[None]:
    """Damage found while reading (a truncated download, a bad CRC) is refused like damage
    found on opening; a bare EOFError reached the user as click's 'Aborted!'."""
    try:
        yield
    except (EOFError, zlib.error, tarfile.TarError, zipfile.BadZipFile) as exc:
        detail = str(exc) or type(exc).__name__
        raise UsageError(f"{archive}: not a readable {kind} archive ({detail})") from None


def safe_extract_zip(archive: Path, dest: Path, limits: Limits = DEFAULT_LIMITS) -> None:
    """Extract a zip after checking every member; sizes are counted while writing."""
    source = archive.name
    budget = Budget(limits, source)
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise UsageError(f"{archive}: not a readable zip archive ({exc})") from None
    with zf, _damage_reported(archive, "zip"):
        members = zf.infolist()
        plan: list[tuple[zipfile.ZipInfo, PurePosixPath, str | None]] = []
        for info in members:
            rel = _safe_relative(info.filename, source)
            if skipped(rel):
                continue
            mode = info.external_attr >> 16
            link = None
            if stat.S_ISLNK(mode):
                link = zf.read(info).decode("utf-8", "replace")
                _link_inside(rel, link, source, info.filename)
            elif stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise UnsafeArchiveError(f"{source}: {info.filename!r} is a special file; refusing")
            if not info.is_dir():
                budget.file()
            plan.append((info, rel, link))
        budget.files = 0
        dest.mkdir(parents=True, exist_ok=True)
        for info, rel, link in plan:
            target = dest / rel
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
            elif link is not None:
                target.parent.mkdir(parents=True, exist_ok=True)
                _clear(target)
                target.symlink_to(link)
            else:
                budget.file()
                _check_parent_inside(dest, target, source, info.filename)
                with zf.open(info) as src:
                    _copy_stream(src, target, budget, info.external_attr >> 16)
    verify_links_inside(dest, source)


def _check_parent_inside(dest: Path, target: Path, source: str, name: str) -> None:
    # A member written through an earlier (inside-pointing) symlink must still land inside.
    if not target.parent.resolve().is_relative_to(dest.resolve()):
        raise UnsafeArchiveError(f"{source}: {name!r} would be written outside; refusing")


def safe_extract_tar(archive: Path, dest: Path, limits: Limits = DEFAULT_LIMITS) -> None:
    """Extract a tar(.gz/.bz2/.xz) after checking every member, links included."""
    source = archive.name
    try:
        tf = tarfile.open(archive)  # noqa: SIM115 - closed by the `with` below
    except (tarfile.TarError, OSError) as exc:
        raise UsageError(f"{archive}: not a readable tar archive ({exc})") from None
    with tf, _damage_reported(archive, "tar"):
        members = [m for m in tf.getmembers() if not skipped(_safe_relative(m.name, source))]
        _check_tar_members(members, Budget(limits, source), source)
        dest.mkdir(parents=True, exist_ok=True)
        budget = Budget(limits, source)
        for m in members:
            _write_tar_member(tf, m, dest, budget, source)
    verify_links_inside(dest, source)


def _check_tar_members(members: list[tarfile.TarInfo], budget: Budget, source: str) -> None:
    """Refuse unsafe paths, links leading out, devices, and archives over the limits."""
    for m in members:
        rel = _safe_relative(m.name, source)
        if m.issym():
            _link_inside(rel, m.linkname, source, m.name)
        elif m.islnk():
            target_rel = _safe_relative(m.linkname, source)
            if target_rel == PurePosixPath("."):
                raise UnsafeArchiveError(f"{source}: hard link {m.name!r} is invalid; refusing")
        elif not (m.isfile() or m.isdir()):
            raise UnsafeArchiveError(f"{source}: {m.name!r} is a device or fifo; refusing")
        if m.isfile():
            budget.file()
            budget.add(m.size)


def _write_tar_member(
    tf: tarfile.TarFile, m: tarfile.TarInfo, dest: Path, budget: Budget, source: str
) -> None:
    target = dest / _safe_relative(m.name, source)
    if m.isdir():
        target.mkdir(parents=True, exist_ok=True)
    elif m.issym():
        target.parent.mkdir(parents=True, exist_ok=True)
        _clear(target)
        target.symlink_to(m.linkname)
    elif m.islnk():
        link_src = dest / _safe_relative(m.linkname, source)
        if not link_src.is_file() or link_src.is_symlink():
            raise UnsafeArchiveError(f"{source}: hard link {m.name!r} has no target; refusing")
        _check_parent_inside(dest, target, source, m.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        _clear(target)
        shutil.copyfile(link_src, target)  # a copy, never a real hard link
    else:
        budget.file()
        _check_parent_inside(dest, target, source, m.name)
        handle = tf.extractfile(m)
        if handle is None:
            return
        with handle:
            _copy_stream(handle, target, budget, m.mode)


def copy_tree_safely(src: Path, dest: Path, limits: Limits = DEFAULT_LIMITS) -> None:
    """Copy a local folder; links must stay inside it; .git and caches are left out."""
    source = str(src)
    budget = Budget(limits, source)
    root = src.resolve()
    for dirpath, dirnames, filenames in os.walk(src):
        base = Path(dirpath)
        dirnames[:] = [d for d in dirnames if d not in SKIP_NAMES]
        out_dir = dest / base.relative_to(src)
        out_dir.mkdir(parents=True, exist_ok=True)
        for name in [*filenames, *[d for d in dirnames if (base / d).is_symlink()]]:
            if name in SKIP_NAMES:
                continue
            path = base / name
            if path.is_symlink():
                if not path.resolve().is_relative_to(root):
                    raise UnsafeArchiveError(
                        f"{path}: symlink points outside {src} ({path.readlink()}); refusing",
                        hint="replace the link with the file itself",
                    )
                (out_dir / name).symlink_to(path.readlink())
                continue
            if not path.is_file():
                raise UnsafeArchiveError(f"{path}: not a regular file; refusing")
            budget.file()
            with path.open("rb") as handle:
                _copy_stream(handle, out_dir / name, budget, path.stat().st_mode)
        # symlinked dirs were handled as links above; do not descend into them
        dirnames[:] = [d for d in dirnames if not (base / d).is_symlink()]


def verify_links_inside(root: Path, source: str) -> None:
    """Every symlink under `root` must resolve inside it (a chain of inside-looking links
    can still lead out once resolved physically)."""
    top = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            if path.is_symlink() and not path.resolve().is_relative_to(top):
                rel = path.relative_to(root)
                raise UnsafeArchiveError(
                    f"{source}: link {rel.as_posix()!r} resolves outside the source; refusing"
                )
