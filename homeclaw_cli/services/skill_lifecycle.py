"""Install, update and remove skills (folders with SKILL.md) with the plugin machinery.

Same sources (folder, .zip/.tar.gz, git URL[@ref]), the same safe extraction, staging,
atomic swap, lockfile (`skills` section), approvals (kind "skill") and audit log as plugins.
A skill's id is its frontmatter `name` when that is a valid id, else a slug of it.
"""

from __future__ import annotations

from pathlib import Path

from homeclaw_cli.domain.manifest import ID_RE
from homeclaw_cli.domain.permissions import skill_permissions
from homeclaw_cli.errors import ConfigError, ManifestError
from homeclaw_cli.services.install import DEFAULT_LIMITS, Fetched, Limits
from homeclaw_cli.services.plugin_install import (
    Approver,
    Candidate,
    InstallResult,
    ItemKind,
    RemoveResult,
    install_item,
    remove_item,
    update_items,
)
from homeclaw_cli.services.scaffold import plugin_id_from
from homeclaw_cli.settings import Settings

SKILL_FILE = "SKILL.md"
SKILL_NOTICE = (
    "a skill's instructions go into the model's prompt and its scripts run as your user: "
    "homeclaw passes them only the approved environment variables but does not sandbox "
    "their file or network access. Install skills only from sources you trust."
)


def _is_skill_folder(folder: Path) -> bool:
    return (folder / SKILL_FILE).is_file()


def _inspect_skill(settings: Settings, fetched: Fetched, with_deps: bool) -> Candidate:
    from homeclaw_cli.domain.skills import SkillParseError, parse_skill_md

    skill_md = fetched.root / SKILL_FILE
    shown = fetched.spec.location if fetched.spec.kind == "folder" else fetched.spec.raw
    try:
        frontmatter, _ = parse_skill_md(skill_md)
        perms = skill_permissions(frontmatter, f"{shown}/{SKILL_FILE}")
    except SkillParseError as exc:
        raise ManifestError(
            f"{fetched.spec.raw}: the skill is not valid, nothing was installed: "
            + str(exc).replace(str(fetched.root), shown)
        ) from None
    except ConfigError as exc:
        raise ManifestError(f"{exc.message}; nothing was installed") from None
    name = str(frontmatter["name"]).strip()
    skill_id = name if ID_RE.match(name) else plugin_id_from(name)
    version = frontmatter.get("version")
    return Candidate(
        skill_id,
        str(version) if version is not None else None,
        perms,
        [SKILL_NOTICE],
        [],
    )


def _installed_skill_version(folder: Path) -> str | None:
    from homeclaw_cli.domain.skills import SkillParseError, parse_skill_md

    try:
        frontmatter, _ = parse_skill_md(folder / SKILL_FILE)
    except SkillParseError:
        return None
    version = frontmatter.get("version")
    return str(version) if version is not None else None


SKILL = ItemKind(
    name="skill",
    is_root=_is_skill_folder,
    inspect=_inspect_skill,
    target_dir=lambda settings: settings.user_skills_dir,
    installed_version=_installed_skill_version,
)


def install_skill(
    settings: Settings,
    source: str,
    *,
    approve: Approver,
    upgrade: bool = False,
    dry_run: bool = False,
    limits: Limits = DEFAULT_LIMITS,
) -> InstallResult:
    """Install (or with `upgrade`, replace) one skill into the user skills dir."""
    return install_item(
        settings,
        SKILL,
        source,
        approve=approve,
        upgrade=upgrade,
        dry_run=dry_run,
        limits=limits,
    )


def update_skills(
    settings: Settings, skill_ids: list[str], *, approve: Approver, dry_run: bool = False
) -> list[InstallResult]:
    """Re-resolve installed skills' sources; upgrade what changed ([] = all)."""
    return update_items(settings, SKILL, skill_ids, approve=approve, dry_run=dry_run)


def remove_skill(settings: Settings, skill_id: str) -> RemoveResult:
    """Delete an installed skill, its lockfile entry and approvals."""
    return remove_item(settings, SKILL, skill_id)
