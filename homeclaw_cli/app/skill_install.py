"""`homeclaw skill install SRC`: a folder, an archive (.zip/.tar.gz/.tgz/.tar) or a git URL.

The skill-specific parts (what counts as a source, where the skill sits inside it, its id)
live here; fetching, safe extraction, validation, the permission prompt, the atomic swap,
the lockfile and the audit log are the shared install machinery (adapters/install_source.py,
app/plugin_install.py via app/skill_lifecycle.py), so a failed install leaves
nothing behind and the previous version intact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from homeclaw_cli.catalog.skill_eligibility import EligibilityContext
from homeclaw_cli.catalog.skills import (
    SKILL_FILE,
    Skill,
    apply_eligibility,
    load_skill,
    scan_skills,
    skill_folders,
)
from homeclaw_cli.errors import ManifestError, NotFoundError, UsageError
from homeclaw_cli.settings import Settings

if TYPE_CHECKING:
    from homeclaw_cli.app.plugin_install import Approver, PermissionRequest
    from homeclaw_cli.app.plugin_install import InstallResult as ItemResult

_ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz")
_GIT_URL = re.compile(r"^(https?://|ssh://|git://|file://|git@[^:]+:)")
_IGNORED = {".git", "__pycache__", "node_modules", ".DS_Store"}


@dataclass
class InstallResult:
    skill: Skill
    destination: Path
    source_kind: str
    replaced: bool
    details: ItemResult | None = None  # commit, digest, permissions, file changes
    active: bool = True  # the registry now serves this copy
    shadowed_by: Skill | None = None  # the copy that wins over it instead, if any

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
            **(
                {
                    "commit": self.details.commit,
                    "digest": self.details.digest,
                    "permissions": self.details.permissions.model_dump(mode="json"),
                }
                if self.details
                else {}
            ),
            "active": self.active,
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
    approve: Approver | None = None,
) -> InstallResult:
    """Validate the skill at `source` and swap it atomically into the user skills dir.

    Runs on the shared install machinery (app/skill_lifecycle.py): git `@ref`s, the
    lockfile, permission approval (`approve`; None refuses any permission request), the
    audit log, and a rollback of the previous version on any failure.
    """
    from homeclaw_cli.app.skill_lifecycle import install_skill_item

    path = Path(source).expanduser()
    if path.is_file() and path.name == SKILL_FILE:
        source = str(path.resolve().parent)
    elif "@" not in source:
        source_kind(source)  # clear errors for what is not a source at all
    result = install_skill_item(
        settings,
        source,
        approve=approve or _refuse,
        upgrade=force,
        skill_id=skill_id,
        subdir=subdir,
    )
    installed = load_skill(result.folder, "user", result.plugin_id)
    apply_eligibility(installed, EligibilityContext.from_settings(settings))
    winner = scan_skills(settings).skills.get(installed.id)
    active = winner is not None and winner.folder == result.folder
    kind = "archive" if result.source_kind in ("zip", "tar") else result.source_kind
    return InstallResult(
        installed,
        result.folder,
        kind,
        replaced=result.action == "upgraded",
        details=result,
        active=active,
        shadowed_by=None if active else winner,
    )


def _refuse(request: PermissionRequest) -> bool:
    return False


def _strip_suffix(name: str) -> str:
    for suffix in (*_ARCHIVE_SUFFIXES, ".git"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def skill_root(staged: Path, subdir: str | None) -> Path:
    """The skill's folder in a fetched source: --subdir, the top, one wrapper, or skills/."""
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
            return skill_root(entries[0], None)
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
