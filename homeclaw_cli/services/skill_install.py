"""`homeclaw skill install SRC`: a folder, an archive (.zip/.tar.gz/.tgz/.tar) or a git URL.

The source is staged in a temporary folder next to the user skills dir (same filesystem),
checked (safe extraction: no absolute paths, no `..`, no links or devices leading out, size
and file-count limits), validated as a skill, and only then renamed into place, so a failed
install leaves nothing behind and a reader never sees half a skill.

Issue 8's reusable staging (services/install.py) was not on main when this was written; this
module keeps its own small version and can switch to it when both are merged.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from homeclaw_cli.domain.skills import (
    SKILL_FILE,
    TEST_PREFIX,
    Skill,
    SkillParseError,
    load_skill,
    skill_folders,
)
from homeclaw_cli.errors import (
    HomeclawError,
    ManifestError,
    NotFoundError,
    UnavailableError,
    UsageError,
)
from homeclaw_cli.fsutil import file_lock
from homeclaw_cli.settings import Settings

MAX_FILES = 5000
MAX_TOTAL_BYTES = 200 * 1024 * 1024
GIT_TIMEOUT_SEC = 180
_ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz")
_SKILL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_GIT_URL = re.compile(r"^(https?://|ssh://|git://|file://|git@[^:]+:)")
_IGNORED = {".git", "__pycache__", "node_modules", ".DS_Store"}


@dataclass
class InstallResult:
    skill: Skill
    destination: Path
    source_kind: str
    replaced: bool

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.skill.id,
            "name": self.skill.name,
            "destination": str(self.destination),
            "source_kind": self.source_kind,
            "replaced": self.replaced,
            "eligible": self.skill.eligible,
            "ineligible_reason": self.skill.ineligible_reason,
            "warnings": self.skill.warnings,
        }


def source_kind(source: str) -> str:
    """folder | archive | git, or NotFoundError."""
    path = Path(source).expanduser()
    if path.is_dir():
        return "folder"
    if path.is_file():
        if source.lower().endswith(_ARCHIVE_SUFFIXES):
            return "archive"
        if path.name == SKILL_FILE:
            return "folder"
        raise UsageError(
            f"{source}: not a skill folder or a known archive",
            hint="install a folder with SKILL.md, a .zip/.tar.gz/.tgz/.tar archive, or a git URL",
        )
    if _GIT_URL.match(source) or source.endswith(".git"):
        return "git"
    raise NotFoundError(
        f"{source}: no such folder or archive, and not a git URL",
        hint="give a path to a skill folder or archive, or a URL like https://host/repo.git",
    )


def install_skill(
    settings: Settings,
    source: str,
    *,
    force: bool = False,
    skill_id: str | None = None,
    subdir: str | None = None,
) -> InstallResult:
    """Validate the skill at `source` and copy it atomically into the user skills dir."""
    kind = source_kind(source)
    target_root = settings.user_skills_dir
    target_root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".install-", dir=target_root))
    try:
        staged = staging / "src"
        if kind == "folder":
            src = Path(source).expanduser().resolve()
            if src.is_file():
                src = src.parent
            _copy_folder(src, staged)
            default_id = src.name
        elif kind == "archive":
            _extract(Path(source).expanduser(), staged)
            default_id = _strip_suffix(Path(source).name)
        else:
            _clone(source, staged)
            default_id = _strip_suffix(source.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1])
        root = _skill_root(staged, subdir)
        if root != staged:
            default_id = root.name
        new_id = skill_id or default_id
        if not _SKILL_ID.match(new_id) or new_id.startswith(TEST_PREFIX):
            raise UsageError(
                f"{new_id!r} is not a usable skill id (letters, digits, `.`, `_`, `-`; at "
                f"most 64; not starting with {TEST_PREFIX})",
                hint="choose one with --id",
            )
        try:
            load_skill(root, "user", new_id)
        except SkillParseError as exc:
            raise ManifestError(
                f"not installed: {exc}", hint="`homeclaw skill validate` on the source shows it"
            ) from None
        destination = target_root / new_id
        with file_lock(settings.state_dir / "skills-install.lock", what="the skills folder"):
            replaced = destination.exists() or destination.is_symlink()
            if replaced and not force:
                raise UsageError(
                    f"skill {new_id!r} is already installed at {destination}",
                    hint="add --force to replace it, or --id NAME to install it under another id",
                )
            previous = staging / "previous"
            if replaced:
                if destination.is_dir() and not destination.is_symlink():
                    destination.replace(previous)
                else:
                    destination.unlink()
            try:
                root.replace(destination)
            except OSError:
                if previous.exists():
                    previous.replace(destination)
                raise
        installed = load_skill(destination, "user", new_id)
        return InstallResult(installed, destination, kind, replaced)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _strip_suffix(name: str) -> str:
    for suffix in (*_ARCHIVE_SUFFIXES, ".git"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def _skill_root(staged: Path, subdir: str | None) -> Path:
    if subdir:
        parts = PurePosixPath(subdir).parts
        if PurePosixPath(subdir).is_absolute() or ".." in parts:
            raise UsageError(f"--subdir {subdir!r} must be a relative path without `..`")
        root = staged.joinpath(*parts)
        if not (root / SKILL_FILE).is_file():
            raise NotFoundError(f"--subdir {subdir!r} has no {SKILL_FILE} in the source")
        return root
    if (staged / SKILL_FILE).is_file():
        return staged
    found = skill_folders(staged)
    if not found:
        entries = [p for p in staged.iterdir() if p.name not in _IGNORED]
        if len(entries) == 1 and entries[0].is_dir():
            # Archives and repositories often wrap everything in one top folder.
            return _skill_root(entries[0], None)
        found = skill_folders(staged / "skills")
    if len(found) == 1:
        return found[0]
    if not found:
        raise ManifestError(f"no {SKILL_FILE} found in the source", hint="is this a skill?")
    names = ", ".join(str(p.relative_to(staged)) for p in found[:10])
    raise UsageError(
        f"the source holds {len(found)} skills ({names}); install one at a time",
        hint="pick one with --subdir PATH",
    )


def _copy_folder(src: Path, dst: Path) -> None:
    count = total = 0
    for current, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if d not in _IGNORED]
        for name in [*dirs, *files]:
            path = Path(current) / name
            if path.is_symlink():
                target = path.resolve()
                if not target.is_relative_to(src):
                    raise UsageError(
                        f"{path} is a symlink leading out of the skill (to {target}); refused",
                        hint="replace the link with a copy of the file",
                    )
        for name in files:
            if name in _IGNORED:
                continue
            count += 1
            total += (Path(current) / name).lstat().st_size
            _check_limits(count, total, src)
    shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns(*_IGNORED))


def _check_limits(count: int, total: int, source: Path | str) -> None:
    if count > MAX_FILES:
        raise UsageError(f"{source}: more than {MAX_FILES} files; a skill should be small")
    if total > MAX_TOTAL_BYTES:
        raise UsageError(
            f"{source}: more than {MAX_TOTAL_BYTES >> 20} MiB; a skill should be small"
        )


def _extract(archive: Path, dst: Path) -> None:
    dst.mkdir()
    try:
        if archive.name.lower().endswith(".zip"):
            _extract_zip(archive, dst)
        else:
            _extract_tar(archive, dst)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        if isinstance(exc, HomeclawError):
            raise
        raise UsageError(f"{archive}: cannot read the archive ({exc})") from None


def _extract_zip(archive: Path, dst: Path) -> None:
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        total = 0
        for count, info in enumerate(infos, 1):
            _check_member_name(archive, info.filename)
            mode = (info.external_attr >> 16) & 0o170000
            if mode == 0o120000:
                raise UsageError(f"{archive}: member {info.filename!r} is a symlink; refused")
            total += info.file_size
            _check_limits(count, total, archive)
        for info in infos:
            target = dst / info.filename
            if not target.resolve().is_relative_to(dst.resolve()):
                raise UsageError(f"{archive}: member {info.filename!r} leads out; refused")
            zf.extract(info, dst)
            mode = (info.external_attr >> 16) & 0o777
            if mode and not info.is_dir():
                target.chmod(mode & 0o755)


def _extract_tar(archive: Path, dst: Path) -> None:
    with tarfile.open(archive) as tf:
        total = 0
        members = tf.getmembers()
        for count, member in enumerate(members, 1):
            _check_member_name(archive, member.name)
            total += member.size
            _check_limits(count, total, archive)
        try:
            # "data" refuses absolute names, `..`, links that lead out and device files.
            tf.extractall(dst, filter="data")
        except tarfile.FilterError as exc:
            raise UsageError(f"{archive}: refused unsafe member: {exc}") from None


def _check_member_name(archive: Path, name: str) -> None:
    pure = PurePosixPath(name.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or re.match(r"^[A-Za-z]:", name):
        raise UsageError(f"{archive}: member {name!r} has an unsafe path; refused")


def _clone(url: str, dst: Path) -> None:
    git = shutil.which("git")
    if git is None:
        raise UnavailableError("installing from a git URL needs `git` on PATH")
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
    try:
        proc = subprocess.run(
            [git, "clone", "--depth", "1", "--quiet", "--", url, str(dst)],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_SEC,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise UnavailableError(f"git clone {url} took longer than {GIT_TIMEOUT_SEC} s") from None
    if proc.returncode != 0:
        raise UnavailableError(f"git clone {url} failed: {proc.stderr.strip()[-500:]}")
    shutil.rmtree(dst / ".git", ignore_errors=True)
    count = total = 0
    for current, _dirs, files in os.walk(dst):
        for name in files:
            path = Path(current) / name
            if path.is_symlink() and not path.resolve().is_relative_to(dst.resolve()):
                raise UsageError(f"{url}: {path.relative_to(dst)} is a symlink leading out")
            count += 1
            total += path.lstat().st_size
            _check_limits(count, total, url)
