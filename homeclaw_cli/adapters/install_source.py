"""Reusable install machinery for plugins and skills: fetch, extract safely, stage, swap.

    spec = parse_source("https://host/repo.git@v1.2")      # folder | zip | tar | git
    with staging_area(dest_parent) as work:                 # same filesystem as the target
        fetched = fetch_source(spec, work, is_root=has_skill_md)
        ...validate fetched.root...
        with swap_into_place(fetched.root, dest_parent / item_id, meta={...}):
            ...write the lockfile...                        # an exception here rolls back
    recover(dest_parent)                                    # after a crash: finish rollbacks

A swap keeps the previous version as a hidden backup and a journal file until the caller's
block has finished; any exception, or a kill found later by recover(), restores it.
Archives and folders are copied by adapters/archive.py.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeclaw_cli.adapters.archive import (
    ARCHIVE_SUFFIXES,
    DEFAULT_LIMITS,
    SKIP_NAMES,
    TAR_SUFFIXES,
    ZIP_SUFFIX,
    Budget,
    Limits,
    copy_tree_safely,
    safe_extract_tar,
    safe_extract_zip,
    verify_links_inside,
)
from homeclaw_cli.errors import NotFoundError, UnavailableError, UsageError
from homeclaw_cli.fsutil import atomic_write_text
from homeclaw_cli.state.lockfile import SourceKind

STAGING_PREFIX = ".hc-staging-"
BACKUP_PREFIX = ".hc-old-"
JOURNAL_PREFIX = ".hc-txn-"
GIT_TIMEOUT_SEC = 300


@dataclass(frozen=True)
class SourceSpec:
    """An install source as typed (`raw`) and what it was understood to be."""

    raw: str
    kind: SourceKind
    location: str  # absolute path for local sources, the URL for git
    ref: str | None = None


@dataclass
class Fetched:
    """A source brought into the staging area, with the item's folder found inside it."""

    spec: SourceSpec
    root: Path  # the item's folder inside the staging area
    commit: str | None = None
    digest: str = ""
    files: int = 0
    bytes: int = 0
    content: Path | None = None  # everything the source held (root is inside it)


# --- sources --------------------------------------------------------------------------------


def _split_ref(text: str) -> tuple[str, str | None]:
    if ".git@" in text:
        url, _, ref = text.rpartition(".git@")
        return url + ".git", ref or None
    head, sep, tail = text.rpartition("@")
    if sep and head and "/" not in tail and ":" not in tail and "/" in head:
        return head, tail or None
    return text, None


def parse_source(raw: str, *, cwd: Path | None = None) -> SourceSpec:
    """Decide what `raw` is: a local folder, a .zip/.tar.gz archive, or a git URL[@ref]."""
    text = raw.strip()
    if not text:
        raise UsageError("empty install source", hint="give a folder, an archive or a git URL")
    if text.startswith("git+"):
        url, ref = _split_ref(text[4:])
        return SourceSpec(raw, "git", url, ref)
    if "://" in text or (text.startswith("git@") and ":" in text):
        return _remote_source(raw, text)
    return _local_source(raw, text, cwd or Path.cwd())


def _remote_source(raw: str, text: str) -> SourceSpec:
    url, ref = _split_ref(text)
    if url.startswith(("http://", "https://")) and url.lower().endswith(ARCHIVE_SUFFIXES):
        raise UsageError(
            f"{raw}: downloading archives over HTTP is not supported",
            hint="download it first and install the local file, or use the git URL",
        )
    return SourceSpec(raw, "git", url, ref)


def _local_source(raw: str, text: str, base: Path) -> SourceSpec:
    path = (base / Path(text).expanduser()).resolve()
    if path.is_dir():
        if (path / ".git").exists() and "@" in text:
            raise UsageError(f"{raw}: use file://{path}@REF to install a ref of a local repo")
        return SourceSpec(raw, "folder", str(path))
    if path.is_file():
        name = path.name.lower()
        if name.endswith(ZIP_SUFFIX):
            return SourceSpec(raw, "zip", str(path))
        if name.endswith(TAR_SUFFIXES):
            return SourceSpec(raw, "tar", str(path))
        raise UsageError(
            f"{raw}: not a folder, .zip or .tar.gz archive",
            hint="point at the plugin folder, an archive, or a git URL",
        )
    # A local git repository with @ref: ./repo@v1
    url, ref = _split_ref(text)
    repo = (base / Path(url).expanduser()).resolve()
    if ref and repo.is_dir() and (repo / ".git").exists():
        return SourceSpec(raw, "git", str(repo), ref)
    raise NotFoundError(f"{raw}: no such file or folder", hint="check the path, or give a git URL")


def source_name(spec: SourceSpec) -> str:
    """The name a source suggests for what it holds: the folder's, or the archive's or
    repository's without its suffix."""
    if spec.kind == "folder":
        return Path(spec.location).name
    tail = spec.location.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    for suffix in (*ARCHIVE_SUFFIXES, ".git"):
        if tail.lower().endswith(suffix):
            return tail[: -len(suffix)]
    return tail


# --- staging --------------------------------------------------------------------------------


@contextlib.contextmanager
def staging_area(parent: Path) -> Iterator[Path]:
    """A hidden scratch folder inside `parent` (so the final rename is on one filesystem)."""
    parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=parent))
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def fetch_source(
    spec: SourceSpec,
    work: Path,
    *,
    is_root: Callable[[Path], bool],
    limits: Limits = DEFAULT_LIMITS,
    locate: Callable[[Path], Path | None] | None = None,
) -> Fetched:
    """Bring the source into `work` and find the item's folder (where `is_root` holds).

    `locate(content) -> root` replaces the default search (and raises its own errors).
    """
    content = work / "content"
    commit = None
    if spec.kind != "git" and not Path(spec.location).exists():
        raise NotFoundError(
            f"{spec.raw}: the source {spec.location} does not exist (any more)",
            hint="install from where it lives now; `--upgrade` replaces the installed one",
        )
    if spec.kind == "folder":
        copy_tree_safely(Path(spec.location), content, limits)
    elif spec.kind == "zip":
        safe_extract_zip(Path(spec.location), content, limits)
    elif spec.kind == "tar":
        safe_extract_tar(Path(spec.location), content, limits)
    else:
        commit = git_fetch(spec.location, spec.ref, content)
        shutil.rmtree(content / ".git", ignore_errors=True)
        _enforce_limits(content, limits, spec.raw)
    verify_links_inside(content, spec.raw)
    root = locate(content) if locate is not None else find_root(content, is_root)
    if root is None:
        raise NotFoundError(
            f"{spec.raw}: nothing installable found (looked in the top folder and one level down)",
            hint="the source must contain a plugin.yaml (plugins) or SKILL.md (skills)",
        )
    files, size = _count(root)
    return Fetched(spec, root, commit, tree_digest(root), files, size, content)


def find_root(content: Path, is_root: Callable[[Path], bool]) -> Path | None:
    """`content` itself, or its only subfolder (archives usually wrap everything in one)."""
    if is_root(content):
        return content
    children = [c for c in content.iterdir() if c.name not in SKIP_NAMES]
    only = children[0] if len(children) == 1 else None
    if only is not None and only.is_dir() and not only.is_symlink() and is_root(only):
        return only
    return None


def _enforce_limits(root: Path, limits: Limits, source: str) -> None:
    budget = Budget(limits, source)
    for _, path in _walk(root, frozenset()):
        if not path.is_symlink() and path.is_file():
            budget.file()
            budget.add(path.stat().st_size)


def _count(root: Path) -> tuple[int, int]:
    files = size = 0
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            files += 1
            size += path.stat().st_size
    return files, size


def tree_digest(root: Path, *, exclude: frozenset[str] = frozenset()) -> str:
    """sha256 over every file's relative path, mode bit x, and content (stable across hosts)."""
    digest = hashlib.sha256()
    for rel, path in sorted(_walk(root, exclude)):
        digest.update(rel.encode() + b"\0")
        if path.is_symlink():
            digest.update(b"L" + str(path.readlink()).encode())
        else:
            digest.update(b"X" if os.access(path, os.X_OK) else b"F")
            digest.update(file_sha256(path).encode())
        digest.update(b"\0")
    return "sha256:" + digest.hexdigest()


def file_hashes(root: Path, *, exclude: frozenset[str] = frozenset()) -> dict[str, str]:
    """Relative path -> sha256 for every file (for update diffs)."""
    return {
        rel: f"link:{p.readlink()}" if p.is_symlink() else file_sha256(p)
        for rel, p in _walk(root, exclude)
    }


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def _walk(root: Path, exclude: frozenset[str]) -> Iterator[tuple[str, Path]]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in SKIP_NAMES and d not in exclude]
        base = Path(dirpath)
        for name in filenames + [d for d in dirnames if (base / d).is_symlink()]:
            if name in SKIP_NAMES or name in exclude:
                continue
            path = base / name
            yield path.relative_to(root).as_posix(), path


# --- git ------------------------------------------------------------------------------------


def _git(args: list[str], cwd: Path | None = None) -> str:
    if shutil.which("git") is None:
        raise UnavailableError("git is not installed", hint="install git, or use a folder/archive")
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            env=env,
            timeout=GIT_TIMEOUT_SEC,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise UnavailableError(f"git {args[0]} took longer than {GIT_TIMEOUT_SEC}s") from None
    if proc.returncode != 0:
        raise GitError(args, proc.stderr.strip() or proc.stdout.strip())
    return proc.stdout.strip()


class GitError(UnavailableError):
    def __init__(self, args: list[str], output: str) -> None:
        super().__init__(f"git {' '.join(args[:1])} failed: {output}")
        self.output = output


def git_fetch(url: str, ref: str | None, dest: Path) -> str:
    """Clone `url` into `dest`, check out `ref` (tag, branch or commit); return the commit."""
    try:
        _git(["clone", "--quiet", "--no-hardlinks", url, str(dest)])
    except GitError as exc:
        raise UnavailableError(
            f"cannot clone {url}: {exc.output}",
            hint="check the URL and your network access",
        ) from None
    if ref:
        try:
            _git(["-c", "advice.detachedHead=false", "checkout", "--quiet", ref], cwd=dest)
        except GitError:
            raise NotFoundError(
                f"{url}: ref {ref!r} not found (no such tag, branch or commit)",
                hint=f"list the tags with `git ls-remote --tags {url}`",
            ) from None
    return _git(["rev-parse", "HEAD"], cwd=dest)


# --- the swap and its journal ----------------------------------------------------------------


@dataclass
class SwapJournal:
    path: Path
    dest: Path
    backup: Path
    staged: Path
    had_old: bool
    meta: dict[str, Any] = field(default_factory=dict)

    def write(self) -> None:
        data = {
            "dest": str(self.dest),
            "backup": str(self.backup),
            "staged": str(self.staged),
            "had_old": self.had_old,
            "meta": self.meta,
        }
        atomic_write_text(self.path, json.dumps(data, indent=2))

    @classmethod
    def read(cls, path: Path) -> SwapJournal:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            path,
            Path(data["dest"]),
            Path(data["backup"]),
            Path(data["staged"]),
            bool(data["had_old"]),
            dict(data.get("meta") or {}),
        )

    def rollback(self) -> None:
        """Undo whatever part of the swap happened; safe to run more than once."""
        if self.had_old:
            if self.backup.exists():
                if self.dest.exists():
                    _discard(self.dest)
                self.backup.rename(self.dest)
        elif self.dest.exists() and not self.staged.exists():
            _discard(self.dest)
        self.path.unlink(missing_ok=True)


def _discard(path: Path) -> None:
    trash = path.with_name(f"{BACKUP_PREFIX}trash-{uuid.uuid4().hex[:8]}")
    path.rename(trash)
    shutil.rmtree(trash, ignore_errors=True)


@contextlib.contextmanager
def swap_into_place(
    staged: Path | None, dest: Path, *, meta: dict[str, Any] | None = None
) -> Iterator[SwapJournal]:
    """Replace `dest` with `staged` (or remove it when `staged` is None), transactionally.

    The caller's block runs after the swap; when it raises, the old `dest` comes back.
    A journal next to `dest` lets recover() finish the rollback after a crash.
    """
    parent = dest.parent
    parent.mkdir(parents=True, exist_ok=True)
    token = uuid.uuid4().hex[:8]
    journal = SwapJournal(
        parent / f"{JOURNAL_PREFIX}{dest.name}-{token}.json",
        dest,
        parent / f"{BACKUP_PREFIX}{dest.name}-{token}",
        staged or parent / f"{STAGING_PREFIX}none-{token}",
        dest.exists(),
        dict(meta or {}),
    )
    journal.write()
    try:
        if journal.had_old:
            dest.rename(journal.backup)
        if staged is not None:
            staged.rename(dest)
        yield journal
    except BaseException:
        journal.rollback()
        raise
    journal.path.unlink()  # the commit point
    shutil.rmtree(journal.backup, ignore_errors=True)


def recover(
    parent: Path, *, on_rollback: Callable[[SwapJournal], None] | None = None
) -> list[SwapJournal]:
    """Roll back swaps a killed process left half-done; remove leftover staging folders.

    Call it under the same lock the installs take. `on_rollback` runs before each journal's
    files are restored (to restore the caller's records from `journal.meta`).
    """
    rolled: list[SwapJournal] = []
    if not parent.is_dir():
        return rolled
    for path in sorted(parent.glob(f"{JOURNAL_PREFIX}*.json")):
        try:
            journal = SwapJournal.read(path)
        except (OSError, ValueError, KeyError):
            continue
        if on_rollback is not None:
            on_rollback(journal)
        journal.rollback()
        rolled.append(journal)
    for leftover in parent.glob(f"{STAGING_PREFIX}*"):
        shutil.rmtree(leftover, ignore_errors=True)
    for leftover in parent.glob(f"{BACKUP_PREFIX}*"):
        shutil.rmtree(leftover, ignore_errors=True)
    return rolled
