"""Installing skills (folders with SKILL.md): sources, ids, validation, eligibility, shadowing.

Skill ids follow the skills engine: the source's folder (or archive/repository) name, `--id`
to choose another, `--subdir` to pick one skill out of a collection. The steps all kinds
share (staging, approval, swap, lockfile `skills` section, audit) are in pipeline.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from homeclaw_cli.adapters.archive import ARCHIVE_SUFFIXES, SKIP_NAMES
from homeclaw_cli.adapters.install_source import Fetched, source_name
from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.install.approval import Approver, refuse_new_permissions
from homeclaw_cli.app.install.kinds import ItemKind, StagedItem
from homeclaw_cli.app.install.pipeline import install_item, remove_item, update_items
from homeclaw_cli.app.install.results import InstallResult, RemoveResult
from homeclaw_cli.catalog.skill_checks import skill_folder_errors
from homeclaw_cli.catalog.skill_eligibility import EligibilityContext
from homeclaw_cli.catalog.skill_frontmatter import SkillParseError, parse_skill_md
from homeclaw_cli.catalog.skills import (
    SKILL_FILE,
    Skill,
    apply_eligibility,
    load_skill,
    miscased_skill_file,
    skill_folders,
    skill_id_problem,
    suggested_skill_id,
)
from homeclaw_cli.core.permissions import skill_permissions
from homeclaw_cli.errors import ConfigError, ManifestError, NotFoundError, UsageError
from homeclaw_cli.state.lockfile import LockEntry

SKILL_NOTICE = (
    "a skill's instructions go into the model's prompt and its scripts run as your user: "
    "homeclaw passes them only the approved environment variables but does not sandbox "
    "their file or network access. Install skills only from sources you trust."
)
_GIT_URL = re.compile(r"^(https?://|ssh://|git://|file://|git@[^:]+:)")
_NOT_A_WRAPPER = SKIP_NAMES | {"node_modules"}


@dataclass
class SkillInstallResult:
    """An installed skill as the registry now sees it, with the install's details."""

    details: InstallResult  # commit, digest, permissions, file changes
    skill: Skill
    active: bool = True  # the registry now serves this copy
    shadowed_by: Skill | None = None  # the copy that wins over it instead, if any

    @property
    def destination(self) -> Path:
        """The installed folder."""
        return self.details.folder

    @property
    def replaced(self) -> bool:
        """An installed copy was replaced (--force)."""
        return self.details.action == "upgraded"

    @property
    def source_kind(self) -> str:
        """folder | archive | git."""
        kind = self.details.source_kind
        return "archive" if kind in ("zip", "tar") else kind

    def to_json(self) -> dict[str, object]:
        """The `--json` form of `homeclaw skill install`."""
        return {
            "id": self.skill.id,
            "name": self.skill.name,
            "destination": str(self.destination),
            "source_kind": self.source_kind,
            "replaced": self.replaced,
            "eligible": self.skill.eligible,
            "ineligible_reason": self.skill.ineligible_reason,
            "warnings": self.skill.warnings,
            "commit": self.details.commit,
            "digest": self.details.digest,
            "permissions": self.details.permissions.model_dump(mode="json"),
            "active": self.active,
        }


def install_skill(
    context: AppContext,
    source: str,
    *,
    force: bool = False,
    skill_id: str | None = None,
    subdir: str | None = None,
    approve: Approver = refuse_new_permissions,
) -> SkillInstallResult:
    """Validate the skill at `source` and swap it atomically into the user skills dir.

    `source` is a skill folder (or its SKILL.md), an archive or a git URL[@ref]; `force`
    replaces an installed skill of the same id.
    """
    result = install_item(
        context,
        skill_kind(skill_id, subdir),
        _checked_source(source),
        approve=approve,
        upgrade=force,
    )
    installed = load_skill(result.folder, "user", result.item_id)
    apply_eligibility(installed, EligibilityContext.from_settings(context.settings))
    winner = context.rescan_skills().skills.get(installed.id)
    active = winner is not None and winner.folder == result.folder
    return SkillInstallResult(result, installed, active, shadowed_by=None if active else winner)


def update_skills(
    context: AppContext, skill_ids: list[str], *, approve: Approver, dry_run: bool = False
) -> list[InstallResult]:
    """Re-resolve installed skills' sources; upgrade what changed ([] = all)."""
    return update_items(context, skill_kind(), skill_ids, approve=approve, dry_run=dry_run)


def remove_skill(context: AppContext, skill_id: str) -> RemoveResult:
    """Delete an installed skill, its lockfile entry and approvals."""
    return remove_item(context, skill_kind(), skill_id)


def _checked_source(source: str) -> str:
    """A SKILL.md path means its folder; what is no source at all gets a skill-worded error."""
    path = Path(source).expanduser()
    if path.is_file() and path.name == SKILL_FILE:
        return str(path.resolve().parent)
    if "@" in source or path.is_dir():
        return source
    if path.is_file():
        if source.lower().endswith(ARCHIVE_SUFFIXES):
            return source
        raise UsageError(
            f"{source}: not a skill folder or a known archive",
            hint="install a folder with SKILL.md, a .zip/.tar.gz/.tgz/.tar archive, or a git URL",
        )
    if _GIT_URL.match(source) or source.endswith(".git"):
        return source
    raise NotFoundError(
        f"{source}: no such folder or archive, and not a git URL",
        hint="give a path to a skill folder or archive, or a URL like https://host/repo.git",
    )


def skill_kind(skill_id: str | None = None, subdir: str | None = None) -> ItemKind:
    """The ItemKind for one skill install (`skill_id`/`subdir` as given on the command line)."""

    def validate(context: AppContext, fetched: Fetched, with_deps: bool) -> StagedItem:
        return _validate(fetched, skill_id or default_skill_id(fetched))

    def for_entry(entry: LockEntry) -> ItemKind:
        return skill_kind(entry.id, entry.subdir)

    return ItemKind(
        name="skill",
        is_root=lambda folder: (folder / SKILL_FILE).is_file(),
        validate=validate,
        target_dir=lambda settings: settings.user_skills_dir,
        installed_version=_installed_version,
        locate=lambda content: skill_root(content, subdir),
        upgrade_flag="--force",
        subdir=subdir,
        for_entry=for_entry,
        describe=_frontmatter,
        explain_missing=_explain_not_installed,
    )


def _explain_not_installed(context: AppContext, skill_id: str) -> None:
    """A bundled, path, config or plugin skill cannot be removed: say so instead of 'not found'."""
    registry = context.skill_registry
    skill = registry.skills.get(skill_id) or registry.disabled.get(skill_id)
    if skill is None:
        return
    hint = f"`homeclaw skill disable {skill_id}` turns it off without deleting it"
    if skill_id in registry.disabled:
        hint = "it is disabled already: chat, search and run_skill skip it"
    raise UsageError(
        f"skill {skill_id!r} is a {skill.source} skill ({skill.folder}), not one installed "
        "in the user skills dir",
        hint=hint,
    )


def _validate(fetched: Fetched, skill_id: str) -> StagedItem:
    problem = skill_id_problem(skill_id)
    if problem:
        raise UsageError(
            problem, hint=f"choose one with --id, e.g. --id {suggested_skill_id(skill_id)}"
        )
    shown = fetched.spec.location if fetched.spec.kind == "folder" else fetched.spec.raw
    try:
        skill = load_skill(fetched.root, "user", skill_id)
        errors = skill_folder_errors(fetched.root)
        perms = skill_permissions(skill.frontmatter, f"{shown}/{SKILL_FILE}")
    except SkillParseError as exc:
        errors = [*exc.lines, *skill_folder_errors(fetched.root)]
    except ConfigError as exc:
        errors = [exc.message]
    if errors:
        # The author's files, not the staged copy: the source is what they edit.
        lines = [line.replace(str(fetched.root), shown) for line in errors]
        raise ManifestError(
            f"{fetched.spec.raw}: the skill is not valid, nothing was installed:\n  "
            + "\n  ".join(lines),
            hint="fix it (`homeclaw skill validate <folder>` shows the same findings)",
        )
    version = skill.frontmatter.get("version")
    return StagedItem(
        skill_id, str(version) if version is not None else None, perms, [SKILL_NOTICE], []
    )


def default_skill_id(fetched: Fetched) -> str:
    """The folder the skill came in, else the archive's or repository's name."""
    if fetched.content is not None and fetched.root != fetched.content:
        return fetched.root.name
    return source_name(fetched.spec)


def skill_root(staged: Path, subdir: str | None) -> Path:
    """The skill's folder in a fetched source: --subdir, the top, one wrapper, or skills/."""
    if subdir:
        return _subdir_root(staged, subdir)
    if (staged / SKILL_FILE).is_file():
        return staged
    found = skill_folders(staged)
    if not found:
        entries = [p for p in staged.iterdir() if p.name not in _NOT_A_WRAPPER]
        if len(entries) == 1 and entries[0].is_dir():
            # Archives and repositories often wrap everything in one top folder.
            return skill_root(entries[0], None)
        found = skill_folders(staged / "skills")
    if len(found) == 1:
        return found[0]
    if not found:
        hint = "is this a skill?"
        if miscased_skill_file(staged):
            hint = f"rename its skill.md to {SKILL_FILE} (upper case): homeclaw looks for that"
        raise ManifestError(f"no {SKILL_FILE} found in the source", hint=hint)
    names = ", ".join(str(p.relative_to(staged)) for p in found[:10])
    raise UsageError(
        f"the source holds {len(found)} skills ({names}); install one at a time",
        hint="pick one with --subdir PATH",
    )


def _subdir_root(staged: Path, subdir: str) -> Path:
    parts = PurePosixPath(subdir).parts
    if PurePosixPath(subdir).is_absolute() or ".." in parts:
        raise UsageError(f"--subdir {subdir!r} must be a relative path without `..`")
    root = staged.joinpath(*parts)
    if not (root / SKILL_FILE).is_file():
        raise NotFoundError(f"--subdir {subdir!r} has no {SKILL_FILE} in the source")
    return root


def _frontmatter(folder: Path) -> dict[str, Any]:
    try:
        return parse_skill_md(folder / SKILL_FILE)[0]
    except SkillParseError:
        return {}


def _installed_version(folder: Path) -> str | None:
    try:
        frontmatter, _ = parse_skill_md(folder / SKILL_FILE)
    except SkillParseError:
        return None
    version = frontmatter.get("version")
    return str(version) if version is not None else None
