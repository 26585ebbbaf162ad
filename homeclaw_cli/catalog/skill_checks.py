"""What makes a skill unusable beyond its SKILL.md: an invalid tests.yaml, a script linked out
of the folder. `skill validate` reports these and `skill install` / `update` refuse on them, so
the two never disagree."""

from __future__ import annotations

from pathlib import Path

from homeclaw_cli.catalog.skill_tests import TESTS_FILE, load_tests_file
from homeclaw_cli.errors import ManifestError


def skill_folder_errors(folder: Path) -> list[str]:
    """One line per error, each naming its file (and line, field and fix where known)."""
    errors: list[str] = []
    scripts_dir = folder / "scripts"
    if scripts_dir.is_dir():
        for link in sorted(scripts_dir.rglob("*")):
            if link.is_symlink() and not link.resolve().is_relative_to(folder.resolve()):
                errors.append(
                    f"{link}: symlink leads out of the skill folder; run_skill will refuse it"
                )
    tests = folder / TESTS_FILE
    if tests.is_file():
        try:
            load_tests_file(tests)
        except ManifestError as exc:
            errors.extend(exc.message.splitlines())
    return errors
