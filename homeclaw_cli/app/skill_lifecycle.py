"""Install, update and remove skills (folders with SKILL.md) with the plugin machinery.

Same sources (folder, .zip/.tar.gz, git URL[@ref]), the same safe extraction, staging,
journaled atomic swap, lockfile (`skills` section), approvals (kind "skill") and audit log
as plugins. Skill ids follow the skills engine: the source's folder (or archive/repository)
name, `--id` to choose another, `--subdir` to pick one skill out of a collection.
`app/skill_install.install_skill` (what `homeclaw skill install` calls) runs on this.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from homeclaw_cli.adapters.archive import DEFAULT_LIMITS, Limits
from homeclaw_cli.adapters.install_source import Fetched
from homeclaw_cli.app.plugin_install import (
    Approver,
    Candidate,
    InstallResult,
    ItemKind,
    RemoveResult,
    install_item,
    remove_item,
    update_items,
)
from homeclaw_cli.core.permissions import skill_permissions
from homeclaw_cli.errors import ConfigError, ManifestError, UsageError
from homeclaw_cli.settings import Settings
from homeclaw_cli.state.lockfile import LockEntry

SKILL_FILE = "SKILL.md"
SKILL_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
TEST_PREFIX = "test__"
_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz", ".git")
SKILL_NOTICE = (
    "a skill's instructions go into the model's prompt and its scripts run as your user: "
    "homeclaw passes them only the approved environment variables but does not sandbox "
    "their file or network access. Install skills only from sources you trust."
)


def _strip_suffix(name: str) -> str:
    for suffix in _SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def default_skill_id(fetched: Fetched) -> str:
    """The folder the skill came in, else the archive's or repository's name."""
    if fetched.content is not None and fetched.root != fetched.content:
        return fetched.root.name
    spec = fetched.spec
    if spec.kind == "folder":
        return Path(spec.location).name
    tail = spec.location.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    return _strip_suffix(tail)


def _locate(subdir: str | None) -> Callable[[Path], Path]:
    def locate(content: Path) -> Path:
        from homeclaw_cli.app.skill_install import skill_root

        return skill_root(content, subdir)

    return locate


def skill_kind(skill_id: str | None = None, subdir: str | None = None) -> ItemKind:
    """The ItemKind for one skill install (`skill_id`/`subdir` as given on the command line)."""

    def inspect(settings: Settings, fetched: Fetched, with_deps: bool) -> Candidate:
        from homeclaw_cli.catalog.skills import SkillParseError, load_skill

        new_id = skill_id or default_skill_id(fetched)
        if not SKILL_ID_RE.match(new_id) or new_id.startswith(TEST_PREFIX):
            raise UsageError(
                f"{new_id!r} is not a usable skill id (letters, digits, `.`, `_`, `-`; at "
                f"most 64; not starting with {TEST_PREFIX})",
                hint="choose one with --id",
            )
        shown = fetched.spec.location if fetched.spec.kind == "folder" else fetched.spec.raw
        try:
            skill = load_skill(fetched.root, "user", new_id)
            perms = skill_permissions(skill.frontmatter, f"{shown}/{SKILL_FILE}")
        except SkillParseError as exc:
            raise ManifestError(
                "not installed: " + str(exc).replace(str(fetched.root), shown),
                hint="`homeclaw skill validate` on the source shows it",
            ) from None
        except ConfigError as exc:
            raise ManifestError(f"not installed: {exc.message}") from None
        version = skill.frontmatter.get("version")
        return Candidate(
            new_id,
            str(version) if version is not None else None,
            perms,
            [SKILL_NOTICE],
            [],
        )

    def rebind(entry: LockEntry) -> ItemKind:
        return skill_kind(entry.id, entry.subdir)

    return ItemKind(
        name="skill",
        is_root=lambda folder: (folder / SKILL_FILE).is_file(),
        inspect=inspect,
        target_dir=lambda settings: settings.user_skills_dir,
        installed_version=_installed_skill_version,
        locate=_locate(subdir),
        upgrade_flag="--force",
        subdir=subdir,
        rebind=rebind,
    )


def _installed_skill_version(folder: Path) -> str | None:
    from homeclaw_cli.catalog.skills import SkillParseError, parse_skill_md

    try:
        frontmatter, _ = parse_skill_md(folder / SKILL_FILE)
    except SkillParseError:
        return None
    version = frontmatter.get("version")
    return str(version) if version is not None else None


def install_skill_item(
    settings: Settings,
    source: str,
    *,
    approve: Approver,
    upgrade: bool = False,
    dry_run: bool = False,
    skill_id: str | None = None,
    subdir: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> InstallResult:
    """Install (or with `upgrade`, replace) one skill into the user skills dir."""
    return install_item(
        settings,
        skill_kind(skill_id, subdir),
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
    return update_items(settings, skill_kind(), skill_ids, approve=approve, dry_run=dry_run)


def remove_skill(settings: Settings, skill_id: str) -> RemoveResult:
    """Delete an installed skill, its lockfile entry and approvals."""
    return remove_item(settings, skill_kind(), skill_id)
