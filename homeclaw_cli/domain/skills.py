"""Skills: folders with a SKILL.md (YAML frontmatter + body) and optional scripts/.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from homeclaw_cli.domain.document import DocumentError, read_text_file
from homeclaw_cli.errors import NotFoundError
from homeclaw_cli.settings import BUNDLED_PLUGINS_DIR, BUNDLED_SKILLS_DIR, Settings
from homeclaw_cli.suggest import did_you_mean

SKILL_FILE = "SKILL.md"
TEST_PREFIX = "test__"
MAX_SKILL_BYTES = 512 * 1024
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)


class SkillParseError(Exception):
    def __init__(self, path: Path, message: str, line: int | None = None) -> None:
        super().__init__(f"{path}{f':{line}' if line else ''}: {message}")
        self.path = path
        self.message = message
        self.line = line


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

    def embedding_text(self) -> str:
        return f"{self.name}\n{self.description}"

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

    def get(self, skill_id: str) -> Skill:
        try:
            return self.skills[skill_id]
        except KeyError:
            raise NotFoundError(
                f"no skill {skill_id!r}{did_you_mean(skill_id, self.skills)}",
                hint="`homeclaw skill list` shows the available skills",
            ) from None


def parse_skill_md(path: Path) -> tuple[dict[str, Any], str]:
    """(frontmatter, body) of a SKILL.md; SkillParseError names what is wrong."""
    try:
        text = read_text_file(path, MAX_SKILL_BYTES)
    except DocumentError as exc:
        raise SkillParseError(path, exc.message) from None
    match = _FRONTMATTER.match(text)
    if not match:
        raise SkillParseError(
            path,
            "no YAML frontmatter: start the file with `---`, name, description, then `---`",
            1,
        )
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark else None
        raise SkillParseError(
            path, f"invalid YAML frontmatter: {getattr(exc, 'problem', exc)}", line
        ) from None
    if not isinstance(data, dict):
        raise SkillParseError(
            path, "frontmatter must be a mapping with `name` and `description`", 2
        )
    for key in ("name", "description"):
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            raise SkillParseError(path, f"frontmatter needs a non-empty `{key}` string", 2)
    return data, text[match.end() :]


def load_skill(folder: Path, source: str, skill_id: str | None = None) -> Skill:
    skill_md = folder / SKILL_FILE
    frontmatter, body = parse_skill_md(skill_md)
    scripts_dir = folder / "scripts"
    scripts = (
        sorted(
            str(p.relative_to(scripts_dir))
            for p in scripts_dir.rglob("*")
            if p.is_file() and not p.name.startswith(".")
        )
        if scripts_dir.is_dir()
        else []
    )
    return Skill(
        id=skill_id or folder.name,
        name=str(frontmatter["name"]).strip(),
        description=" ".join(str(frontmatter["description"]).split()),
        body=body,
        folder=folder,
        skill_md=skill_md,
        source=source,
        frontmatter=frontmatter,
        scripts=scripts,
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


def _skill_folders(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    if (root / SKILL_FILE).is_file():
        return [root]
    return sorted(c for c in root.iterdir() if c.is_dir() and (c / SKILL_FILE).is_file())


def scan_skills(settings: Settings) -> SkillRegistry:
    registry = SkillRegistry()
    for source, root in skill_roots(settings):
        for folder in _skill_folders(root):
            _add(registry, folder, source)
    if settings.skills.test_dir:
        for folder in _skill_folders(settings.skills.test_dir.expanduser()):
            _add(registry, folder, "test", TEST_PREFIX + folder.name)
    return registry


def _add(registry: SkillRegistry, folder: Path, source: str, skill_id: str | None = None) -> None:
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
