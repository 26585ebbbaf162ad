"""Resolve a path a model or a user typed into a file that is really inside a skill folder.

Both run_skill (scripts/) and the agent's read_skill tool (the whole skill folder) go through
here: relative paths only, no `..`, no NUL, and the resolved file (symlinks followed) must
still be under the resolved root, so a symlink cannot lead out.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath

from homeclaw_cli.errors import NotFoundError, UsageError

MAX_PATH_CHARS = 1024
MAX_LISTED = 12  # names of the files that do exist, in the error (small models guess names)


class SkillPathError(UsageError):
    """A path that tries to leave the skill folder, or is malformed."""


def resolve_inside(root: Path, relative: str, *, what: str, skill_id: str) -> Path:
    """The real path of `relative` under `root`; SkillPathError/NotFoundError otherwise."""
    if not isinstance(relative, str) or not relative.strip():
        raise SkillPathError(f"{what} is empty", hint=f"name a file inside {root}")
    if "\x00" in relative or len(relative) > MAX_PATH_CHARS:
        raise SkillPathError(f"{what} {relative[:80]!r} is not a valid file name")
    posix, windows = PurePosixPath(relative), PureWindowsPath(relative)
    if posix.is_absolute() or windows.is_absolute() or windows.drive or relative.startswith("~"):
        raise SkillPathError(
            f"{what} {relative!r} is an absolute path; skill {skill_id!r} may only use files "
            f"inside {root}",
            hint="pass a path relative to that folder, e.g. `main.py`",
        )
    parts = [p for p in relative.replace("\\", "/").split("/") if p not in ("", ".")]
    if ".." in parts:
        raise SkillPathError(
            f"{what} {relative!r} contains `..`; skill {skill_id!r} may only use files "
            f"inside {root}",
            hint="pass a path relative to that folder without `..`",
        )
    try:
        real_root = root.resolve(strict=True)
    except (OSError, RuntimeError):
        raise NotFoundError(f"skill {skill_id!r} has no {root.name}/ folder ({root})") from None
    candidate = real_root.joinpath(*parts)
    try:
        real = candidate.resolve(strict=True)
    except FileNotFoundError:
        there = _files_in(real_root)
        listing = f"; there are: {', '.join(there)}" if there else ""
        raise NotFoundError(f"{what} {relative!r} does not exist in {root}{listing}") from None
    except (OSError, RuntimeError) as exc:
        raise SkillPathError(f"{what} {relative!r} cannot be resolved ({exc})") from None
    if not real.is_relative_to(real_root):
        raise SkillPathError(
            f"{what} {relative!r} is a symlink that leads out of {root} (to {real}); refused",
            hint="copy the file into the skill folder instead of linking to it",
        )
    if not real.is_file():
        raise NotFoundError(f"{what} {relative!r} in {root} is not a regular file")
    return real


def _files_in(root: Path) -> list[str]:
    """Up to MAX_LISTED files under `root`, relative, hidden ones left out."""
    found = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )
    return found[:MAX_LISTED] + (["..."] if len(found) > MAX_LISTED else [])
