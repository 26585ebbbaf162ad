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

from homeclaw_cli.catalog.lenient_frontmatter import TOP_KEY, lenient_frontmatter
from homeclaw_cli.catalog.skill_eligibility import (
    EligibilityContext,
    Requirements,
    ineligible_reason,
    requirements_of,
)
from homeclaw_cli.core.examples import Example, ExampleError, check_examples
from homeclaw_cli.document import DocumentError, parse_yaml_text, read_text_file
from homeclaw_cli.errors import NotFoundError
from homeclaw_cli.settings import BUNDLED_PLUGINS_DIR, BUNDLED_SKILLS_DIR, Settings
from homeclaw_cli.suggest import did_you_mean

SKILL_FILE = "SKILL.md"
TEST_PREFIX = "test__"
MAX_SKILL_BYTES = 512 * 1024
MAX_DESCRIPTION_CHARS = 1024
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)(?:\r?\n)?^---[ \t]*(?:\r?\n|\Z)", re.S | re.M)
_SKILL_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


class SkillParseError(Exception):
    """A SKILL.md that cannot be loaded; names the file, the line when known, and the fix."""

    def __init__(self, path: Path, message: str, line: int | None = None) -> None:
        super().__init__(f"{path}{f':{line}' if line else ''}: {message}")
        self.path = path
        self.message = message
        self.line = line


@dataclass
class ParsedSkillMd:
    frontmatter: dict[str, Any]
    metadata: dict[str, Any]
    body: str
    warnings: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)


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

    def get(self, skill_id: str) -> Skill:
        try:
            return self.skills[skill_id]
        except KeyError:
            by_name = [s for s in self.skills.values() if s.name == skill_id]
            if len(by_name) == 1:
                return by_name[0]
            hint = "`homeclaw skill list` shows the available skills"
            if self.untrusted_workspace:
                hint += "; ./skills is not loaded unless trusted (--trust-workspace)"
            raise NotFoundError(
                f"no skill {skill_id!r}{did_you_mean(skill_id, self.skills)}", hint=hint
            ) from None

    def eligible(self) -> list[Skill]:
        return [s for s in self.skills.values() if s.eligible]


def split_frontmatter(path: Path, text: str) -> tuple[str, str, int]:
    """(frontmatter text, body, line of the body) or SkillParseError."""
    match = _FRONTMATTER.match(text)
    if (
        not match
        and TOP_KEY.match(text.split("\n", 1)[0])
        and re.search(r"^---[ \t]*$", text, re.M)
    ):
        raise SkillParseError(
            path,
            "frontmatter has no opening `---` line: the file starts with "
            f"`{text.split(chr(10), 1)[0][:40]}`; add a `---` line above it",
            1,
        )
    if not match:
        raise SkillParseError(
            path,
            "no YAML frontmatter: start the file with a `---` line, then `name:` and "
            "`description:`, then a closing `---` line",
            1,
        )
    return match.group(1), text[match.end() :], text[: match.end()].count("\n") + 1


def parse_skill_md_full(path: Path) -> ParsedSkillMd:
    """Frontmatter, parsed metadata, body and warnings of a SKILL.md."""
    try:
        text = read_text_file(path, MAX_SKILL_BYTES)
    except DocumentError as exc:
        raise SkillParseError(path, exc.message) from None
    block, body, _ = split_frontmatter(path, text)
    warnings: list[str] = []
    positions: dict[str, int] = {}
    try:
        doc = parse_yaml_text(path, block)
        data = doc.data
        for loc, (key_line, _col) in doc.positions.items():
            if len(loc) == 1:
                positions[str(loc[0])] = key_line + 1
    except DocumentError as exc:
        line = exc.line + 1 if exc.line else None
        if not exc.message.startswith("invalid YAML:"):
            # Alias bombs, runaway nesting: refused, never re-read leniently.
            raise SkillParseError(path, f"frontmatter refused: {exc.message}", line) from None
        lenient = lenient_frontmatter(block)
        if not (
            isinstance(lenient.get("name"), str) and isinstance(lenient.get("description"), str)
        ):
            raise SkillParseError(
                path, f"frontmatter is not valid YAML: {exc.message}", line
            ) from None
        problem = exc.message.removeprefix("invalid YAML: ")
        warnings.append(
            f"frontmatter is not strict YAML (line {line}: {problem}); read line by line "
            "as OpenClaw does: quote values that contain `: `"
        )
        data = lenient
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SkillParseError(
            path, "frontmatter must be a mapping with `name` and `description`", 2
        )
    for required in ("name", "description"):
        value = data.get(required)
        if not isinstance(value, str) or not value.strip():
            got = "missing" if value is None else f"got {type(value).__name__} {value!r}"
            if isinstance(value, bool | int | float):
                got += "; YAML read it as a non-string: put it in quotes"
            raise SkillParseError(
                path,
                f"frontmatter needs a non-empty `{required}` string ({got})",
                positions.get(required, 2),
            )
    metadata = _parse_metadata(path, data.get("metadata"), positions.get("metadata"))
    try:
        examples = check_examples(data.get("examples"))
    except ExampleError as exc:
        raise SkillParseError(
            path, f"frontmatter `examples`: {exc.reason}", positions.get("examples")
        ) from None
    return ParsedSkillMd(data, metadata, body, warnings, examples)


def parse_skill_md(path: Path) -> tuple[dict[str, Any], str]:
    """(frontmatter, body) of a SKILL.md; SkillParseError names what is wrong."""
    parsed = parse_skill_md_full(path)
    return parsed.frontmatter, parsed.body


def _parse_metadata(path: Path, raw: Any, line: int | None) -> dict[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        import json5

        try:
            value = json5.loads(raw)
        except ValueError as exc:
            raise SkillParseError(
                path,
                f"`metadata` is not valid JSON5 ({exc}); write it as one JSON5 object, "
                'e.g. metadata: {"openclaw": {"requires": {"bins": ["git"]}}}',
                line,
            ) from None
        if not isinstance(value, dict):
            raise SkillParseError(
                path, f"`metadata` must be a JSON5 object, not {type(value).__name__}", line
            )
        return value
    raise SkillParseError(
        path,
        f"`metadata` must be a JSON5 object string or a YAML mapping, not {type(raw).__name__}",
        line,
    )


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
    """`root` itself when it holds a SKILL.md, else its subfolders that do."""
    if not root.is_dir():
        return []
    if (root / SKILL_FILE).is_file():
        return [root]
    return sorted(
        c
        for c in root.iterdir()
        # dot folders are install staging/backups, never skills
        if c.is_dir() and not c.name.startswith(".") and (c / SKILL_FILE).is_file()
    )


def scan_skills(settings: Settings, *, env: Mapping[str, str] | None = None) -> SkillRegistry:
    """Every skill homeclaw can see, with precedence, shadowing and eligibility applied."""
    registry = SkillRegistry()
    roots = skill_roots(settings)
    for source, root in roots:
        for folder in skill_folders(root):
            _add(registry, folder, source)
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
    ctx = EligibilityContext.from_settings(settings, env)
    for skill in [*registry.skills.values(), *(s.skill for s in registry.shadowed)]:
        apply_eligibility(skill, ctx)
    return registry


def apply_eligibility(skill: Skill, ctx: EligibilityContext) -> None:
    reason = ineligible_reason(skill.id, skill.requirements, ctx)
    skill.eligible = reason is None
    skill.ineligible_reason = reason


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
