"""Skills: folders with a SKILL.md (YAML frontmatter + body) and optional scripts/.

The format is OpenClaw's (AgentSkills): `name` and `description` are required, every other
frontmatter field (homepage, license, allowed-tools, user-invocable, ...) is kept as written,
and `metadata` is either a JSON5 object on one line (as OpenClaw writes it) or a YAML mapping.
Frontmatter that is not strict YAML (an unquoted `description: a: b`) is read line by line the
way OpenClaw's own parser reads it, with a warning, so real-world skills still load.

Locations, highest precedence first (a name found twice: the higher wins, the other is kept
as shadowed):

  1. HOMECLAW_SKILLS_PATH folders                              source "path"
  2. ./skills of the current folder, only when trusted          source "workspace"
  3. the user skills dir (<data_dir>/skills)                    source "user"
  4. `skills.dirs` from the config file                         source "config"
  5. skills/ inside installed plugins (seed 004 §6.2)           source "plugin"
  6. the bundled skills/ shipped with homeclaw                  source "bundled"

The test dir (`skills.test_dir`, seed 002 §8.5) is separate: its skills get `test__` ids.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeclaw_cli.catalog.skill_eligibility import (
    EligibilityContext,
    Requirements,
    ineligible_reason,
    requirements_of,
)
from homeclaw_cli.catalog.skill_frontmatter import SkillParseError, parse_skill_md_full
from homeclaw_cli.catalog.skill_interpreters import unrunnable_reason
from homeclaw_cli.core.examples import Example
from homeclaw_cli.core.ids import id_slug
from homeclaw_cli.errors import ConfigError, ManifestError, NotFoundError
from homeclaw_cli.settings import BUNDLED_PLUGINS_DIR, BUNDLED_SKILLS_DIR, Settings
from homeclaw_cli.state.disabled_plugins import read_disabled
from homeclaw_cli.state.installed_scripts import approved_of, recorded_entries
from homeclaw_cli.suggest import did_you_mean

SKILL_FILE = "SKILL.md"
TEST_PREFIX = "test__"
MAX_DESCRIPTION_CHARS = 1024
_SKILL_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# A skill's id is its folder's name: it becomes the MCP tool skill__<id>, whose name MCP
# clients hold to letters, digits, '.', '_' and '-'; test__ ids are the test dir's.
_SKILL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def skill_id_problem(skill_id: str) -> str | None:
    """Why `skill_id` cannot be a skill's id, or None when it can."""
    if _SKILL_ID.match(skill_id) and not skill_id.startswith(TEST_PREFIX):
        return None
    return (
        f"{skill_id!r} is not a usable skill id (letters, digits, `.`, `_`, `-`; at most 64; "
        f"not starting with {TEST_PREFIX})"
    )


def suggested_skill_id(name: str) -> str:
    """A usable id close to `name` ("Weird Name!" -> "weird-name")."""
    return id_slug(name)[:64].strip("-_") or "my-skill"


@dataclass
class Skill:
    id: str
    name: str
    description: str
    body: str
    folder: Path
    skill_md: Path
    source: str
    frontmatter: dict[str, Any] = field(default_factory=dict)
    scripts: list[str] = field(default_factory=list)
    eligible: bool = True
    ineligible_reason: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    requirements: Requirements = field(default_factory=Requirements)
    warnings: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    not_for: list[str] = field(default_factory=list)  # requests it is mistaken for

    def embedding_text(self) -> str:
        return f"{self.name}\n{self.description}"

    def author_examples(self) -> list[Example]:
        """The `examples` of the SKILL.md frontmatter."""
        return [Example(text) for text in self.examples]

    @property
    def display_name(self) -> str:
        """`name (id)` when the frontmatter name differs from the folder id, else the id."""
        return self.id if self.name == self.id else f"{self.name} ({self.id})"

    @property
    def content_hash(self) -> str:
        payload = json.dumps(self.to_descriptor(), sort_keys=True, default=str)
        return hashlib.sha256(payload.encode()).hexdigest()

    def to_descriptor(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "folder": str(self.folder),
            "location": str(self.skill_md),
            "source": self.source,
            "scripts": self.scripts,
            "eligible": self.eligible,
            "ineligible_reason": self.ineligible_reason,
            "frontmatter": self.frontmatter,
            "metadata": self.metadata,
            "requires": self.requirements.to_json(),
            "examples": self.examples,
            "not_for": self.not_for,
        }


@dataclass
class ShadowedSkill:
    skill: Skill
    shadowed_by: Skill


@dataclass
class BrokenSkill:
    source: str
    folder: Path
    error: str


@dataclass
class SkillRegistry:
    skills: dict[str, Skill] = field(default_factory=dict)
    shadowed: list[ShadowedSkill] = field(default_factory=list)
    broken: list[BrokenSkill] = field(default_factory=list)
    untrusted_workspace: list[Path] = field(default_factory=list)
    disabled: dict[str, Skill] = field(default_factory=dict)  # `homeclaw skill disable`

    def get(self, skill_id: str) -> Skill:
        try:
            return self.skills[skill_id]
        except KeyError:
            by_name = [s for s in self.skills.values() if s.name == skill_id]
            if len(by_name) == 1:
                return by_name[0]
            if skill_id in self.disabled:
                raise NotFoundError(
                    f"skill {skill_id!r} is disabled",
                    hint=f"`homeclaw skill enable {skill_id}` turns it back on",
                ) from None
            for broken in self.broken:
                if broken.folder.name == skill_id:
                    raise ManifestError(
                        f"skill {skill_id!r} cannot be loaded: {broken.error}",
                        hint=f"fix it; `homeclaw skill validate {broken.folder}` shows every "
                        "problem at once",
                    ) from None
            hint = "`homeclaw skill list` shows the available skills"
            if self.untrusted_workspace:
                hint += "; ./skills is not loaded unless trusted (--trust-workspace)"
            raise NotFoundError(
                f"no skill {skill_id!r}{did_you_mean(skill_id, self.skills)}", hint=hint
            ) from None

    def eligible(self) -> list[Skill]:
        return [s for s in self.skills.values() if s.eligible]


def load_skill(folder: Path, source: str, skill_id: str | None = None) -> Skill:
    """Load the skill in `folder` (eligibility not yet computed), or SkillParseError."""
    skill_md = folder / SKILL_FILE
    parsed = parse_skill_md_full(skill_md)
    frontmatter = parsed.frontmatter
    requirements, req_warnings = requirements_of(parsed.metadata)
    name = str(frontmatter["name"]).strip()
    description = " ".join(str(frontmatter["description"]).split())
    warnings = [*parsed.warnings, *req_warnings]
    if not _SKILL_NAME.match(name) or len(name) > 64:
        warnings.append(
            f"name {name!r} is not in AgentSkills form (lowercase letters, digits and "
            "hyphens, at most 64 characters)"
        )
    if len(description) > MAX_DESCRIPTION_CHARS:
        warnings.append(
            f"description is {len(description)} characters; keep it under "
            f"{MAX_DESCRIPTION_CHARS}: it is embedded and shown to the model every turn"
        )
    return Skill(
        id=skill_id or folder.name,
        name=name,
        description=description,
        body=parsed.body,
        folder=folder,
        skill_md=skill_md,
        source=source,
        frontmatter=frontmatter,
        scripts=list_scripts(folder),
        metadata=parsed.metadata,
        requirements=requirements,
        warnings=warnings,
        examples=parsed.examples,
        not_for=parsed.not_for,
    )


def list_scripts(folder: Path) -> list[str]:
    """Regular files under scripts/, relative to it; symlinks and dotfiles are left out."""
    scripts_dir = folder / "scripts"
    if not scripts_dir.is_dir() or scripts_dir.is_symlink():
        return []
    return sorted(
        p.relative_to(scripts_dir).as_posix()
        for p in scripts_dir.rglob("*")
        if p.is_file()
        and not p.is_symlink()
        and not any(part.startswith(".") for part in p.relative_to(scripts_dir).parts)
        and "__pycache__" not in p.parts
    )


def skill_roots(settings: Settings) -> list[tuple[str, Path]]:
    roots: list[tuple[str, Path]] = [("path", p) for p in settings.extra_skill_dirs]
    if settings.skills.trust_workspace:
        roots.append(("workspace", settings.cwd / "skills"))
    roots.append(("user", settings.user_skills_dir))
    roots.extend(("config", p) for p in settings.skills.dirs)
    plugin_roots = [settings.user_plugins_dir, *([BUNDLED_PLUGINS_DIR] if settings.bundled else [])]
    for plugin_root in plugin_roots:
        if plugin_root.is_dir():
            roots.extend(
                ("plugin", d / "skills") for d in sorted(plugin_root.iterdir()) if d.is_dir()
            )
    if settings.bundled:
        roots.append(("bundled", BUNDLED_SKILLS_DIR))
    seen: set[Path] = set()
    unique: list[tuple[str, Path]] = []
    for source, path in roots:
        resolved = path.expanduser().resolve()
        if resolved not in seen:
            seen.add(resolved)
            unique.append(
                ("bundled" if resolved == BUNDLED_SKILLS_DIR.resolve() else source, resolved)
            )
    return unique


def skill_folders(root: Path) -> list[Path]:
    """`root` itself when it holds a SKILL.md or cannot be read (loading it then says why),
    else its subfolders that do."""
    try:
        if not root.is_dir():
            return []
    except OSError:  # a folder above it is unreadable (a plugin's skills/: named as a plugin)
        return []
    if _holds_skill(root):
        return [root]
    return sorted(
        c
        for c in root.iterdir()
        # dot folders are install staging/backups, never skills
        if c.is_dir() and not c.name.startswith(".") and _holds_skill(c)
    )


def _holds_skill(folder: Path) -> bool:
    """True when `folder` has a SKILL.md, or cannot be read: loading it then says why."""
    try:
        return (folder / SKILL_FILE).is_file()
    except OSError:
        return True


def miscased_skill_file(folder: Path) -> str | None:
    """What to do about a skill.md (any case but SKILL.md) in a folder with no SKILL.md, which
    homeclaw and OpenClaw never find on a case-sensitive file system; None when there is none."""
    if (folder / SKILL_FILE).is_file():
        return None
    found = next((p for p in folder.iterdir() if p.name.lower() == "skill.md"), None)
    if found is None or not found.is_file():
        return None
    return f"{found}: the file must be named {SKILL_FILE} (upper case) to be found: rename it"


def miscased_folders(root: Path) -> list[tuple[Path, str]]:
    """`root` or its subfolders with a skill.md and no SKILL.md, each with what to do."""
    try:
        if not root.is_dir() or (root / SKILL_FILE).is_file():
            return []
        # dot folders are install staging/backups, never skills
        children = (c for c in sorted(root.iterdir()) if c.is_dir() and not c.name.startswith("."))
        folders = [root, *children]
        return [(f, fix) for f in folders if (fix := miscased_skill_file(f))]
    except OSError:
        return []  # an unreadable folder is named as broken by skill_folders' loading


def scan_skills(settings: Settings, *, env: Mapping[str, str] | None = None) -> SkillRegistry:
    """Every skill homeclaw can see, with precedence, shadowing and eligibility applied."""
    registry = SkillRegistry()
    roots = skill_roots(settings)
    for source, root in roots:
        for folder in skill_folders(root):
            _add(registry, folder, source)
        registry.broken += [BrokenSkill(source, f, fix) for f, fix in miscased_folders(root)]
    if settings.skills.test_dir:
        for folder in skill_folders(settings.skills.test_dir.expanduser()):
            _add(registry, folder, "test", TEST_PREFIX + folder.name)
    workspace = settings.cwd / "skills"
    scanned = {root for _source, root in roots}
    if (
        not settings.skills.trust_workspace
        and workspace.resolve() not in scanned
        and skill_folders(workspace)
    ):
        registry.untrusted_workspace.append(workspace)
    for skill_id in read_disabled(settings.state_dir, "skill") & set(registry.skills):
        registry.disabled[skill_id] = registry.skills.pop(skill_id)
    _hide_unapproved_scripts(settings, registry)
    ctx = EligibilityContext.from_settings(settings, env)
    for skill in [*registry.skills.values(), *(s.skill for s in registry.shadowed)]:
        apply_eligibility(skill, ctx)
    return registry


def _hide_unapproved_scripts(settings: Settings, registry: SkillRegistry) -> None:
    """A script added to an installed copy is not listed (so the model is not offered it);
    run_skill refuses it by name too (runtime/skill_run.py)."""
    try:
        entries = recorded_entries(settings)
    except ConfigError:  # a damaged lockfile: run_skill refuses every run and says why
        return
    if entries:
        for skill in [*registry.skills.values(), *(s.skill for s in registry.shadowed)]:
            skill.scripts = approved_of(entries, skill.folder, skill.scripts)


def apply_eligibility(skill: Skill, ctx: EligibilityContext) -> None:
    reason = ineligible_reason(skill.id, skill.requirements, ctx)
    if reason is None and skill.scripts:
        reason = unrunnable_reason(skill.folder, skill.scripts, ctx.env)
    skill.eligible = reason is None
    skill.ineligible_reason = reason


def _add(registry: SkillRegistry, folder: Path, source: str, skill_id: str | None = None) -> None:
    problem = None if skill_id else skill_id_problem(folder.name)
    if problem:
        fix = f"rename the folder, e.g. to {suggested_skill_id(folder.name)!r}"
        registry.broken.append(BrokenSkill(source, folder, f"{folder}: {problem}: {fix}"))
        return
    try:
        skill = load_skill(folder, source, skill_id)
    except SkillParseError as exc:
        registry.broken.append(BrokenSkill(source, folder, str(exc)))
        return
    winner = registry.skills.get(skill.id)
    if winner is None:
        registry.skills[skill.id] = skill
    else:
        registry.shadowed.append(ShadowedSkill(skill, winner))
