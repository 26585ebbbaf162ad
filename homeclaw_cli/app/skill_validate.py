"""`homeclaw skill validate`: load skill folders the way homeclaw will, and say what is wrong."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeclaw_cli.catalog.skill_checks import skill_folder_errors
from homeclaw_cli.catalog.skill_eligibility import EligibilityContext
from homeclaw_cli.catalog.skill_frontmatter import SkillParseError
from homeclaw_cli.catalog.skill_interpreters import interpreter_for, script_path
from homeclaw_cli.catalog.skills import (
    SKILL_FILE,
    Skill,
    apply_eligibility,
    load_skill,
    miscased_folders,
    miscased_skill_file,
    skill_folders,
    skill_id_problem,
    suggested_skill_id,
)
from homeclaw_cli.core.examples import WHY_EXAMPLES, examples_fix
from homeclaw_cli.errors import HomeclawError, missing_path
from homeclaw_cli.settings import Settings


@dataclass
class SkillCheck:
    folder: Path
    skill: Skill | None = None
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def passed(self, strict: bool = False) -> bool:
        return not self.errors and not (strict and self.warnings)

    def to_json(self, strict: bool = False) -> dict[str, Any]:
        skill = self.skill
        return {
            "folder": str(self.folder),
            "id": skill.id if skill else self.folder.name,
            "name": skill.name if skill else None,
            "valid": self.passed(strict),
            "errors": self.errors,
            "warnings": self.warnings,
            "eligible": skill.eligible if skill else None,
            "ineligible_reason": skill.ineligible_reason if skill else None,
            "scripts": skill.scripts if skill else [],
        }


@dataclass
class ValidationReport:
    checks: list[SkillCheck]
    strict: bool = False

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.passed(self.strict) for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "valid": sum(c.passed(self.strict) for c in self.checks),
            "invalid": sum(not c.passed(self.strict) for c in self.checks),
            "skills": [c.to_json(self.strict) for c in self.checks],
        }


def folders_to_check(path: Path) -> list[Path]:
    """A SKILL.md file, a skill folder, or a folder of skill folders."""
    path = path.expanduser()
    if path.is_file():
        return [path.parent]
    if (path / SKILL_FILE).exists():
        return [path]
    return skill_folders(path) or [f for f, _fix in miscased_folders(path)] or [path]


def validate_skill_paths(
    paths: list[Path], settings: Settings, *, strict: bool = False
) -> ValidationReport:
    for path in paths:
        if not path.exists():
            raise missing_path(path, hint="give a skill folder, a SKILL.md or a folder of skills")
    ctx = EligibilityContext.from_settings(settings)
    checks = [check_folder(f, ctx) for p in paths for f in folders_to_check(p)]
    return ValidationReport(checks, strict)


def check_folder(folder: Path, ctx: EligibilityContext) -> SkillCheck:
    check = SkillCheck(folder)
    if not folder.exists():
        check.errors.append(f"{folder}: no such file or folder")
        return check
    if not (folder / SKILL_FILE).is_file():
        miscased = folder.is_dir() and miscased_skill_file(folder)
        check.errors.append(
            miscased or f"{folder}: no {SKILL_FILE} here (a skill is a folder with one)"
        )
        return check
    # `skill validate .` names the folder it stands for, as install does
    skill_id = folder.resolve().name if folder.name in ("", "..") else folder.name
    try:
        skill = load_skill(folder, "path", skill_id)
    except SkillParseError as exc:
        check.errors.extend(exc.lines)
        check.errors.extend(skill_folder_errors(folder))
        return check
    check.skill = skill
    apply_eligibility(skill, ctx)
    check.warnings.extend(f"{skill.skill_md}: {w}" for w in skill.warnings)
    if not skill.examples:
        fix = examples_fix("the frontmatter")
        check.warnings.append(f"{skill.skill_md}: no example requests; {WHY_EXAMPLES} ({fix})")
    for script in skill.scripts:
        path = skill.folder / "scripts" / script
        try:
            interpreter_for(path, script_path())
        except HomeclawError as exc:
            fix = f" ({exc.hint})" if exc.hint else ""
            check.warnings.append(f"scripts/{script}: {exc.message}{fix}")
    check.errors.extend(skill_folder_errors(skill.folder))
    problem = skill_id_problem(skill_id)
    if problem:
        slug = suggested_skill_id(skill_id)
        check.errors.append(
            f"{folder}: the folder name is the skill's id, and {problem}: rename the folder "
            f"(e.g. to {slug!r}), or install it with `--id {slug}`"
        )
    return check
