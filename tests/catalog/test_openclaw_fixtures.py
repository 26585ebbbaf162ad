"""OpenClaw's own SKILL.md files (tests/fixtures/openclaw_skills) parse, or fail precisely."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeclaw_cli.catalog.skills import SkillParseError, load_skill

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "openclaw_skills"
FOLDERS = sorted(p for p in FIXTURES.iterdir() if (p / "SKILL.md").is_file())
# Files that are not loadable skills upstream either, and the exact error we give.
EXPECTED_ERRORS = {
    "canvas": ("no YAML frontmatter", 1),  # a plain Markdown file, no frontmatter at all
    "taskflow": ("no opening `---` line", 1),  # the stored copy lost its first `---`
}
# Frontmatter that is not strict YAML (an unquoted `: ` in the description): read leniently.
LENIENT = {"discord", "food-order"}


def test_the_collection_is_there() -> None:
    assert len(FOLDERS) >= 50


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_openclaw_skill_parses_or_fails_precisely(folder: Path) -> None:
    if folder.name in EXPECTED_ERRORS:
        message, line = EXPECTED_ERRORS[folder.name]
        with pytest.raises(SkillParseError) as info:
            load_skill(folder, "path")
        assert message in info.value.message and info.value.line == line
        return
    skill = load_skill(folder, "path")
    assert skill.id == folder.name
    assert skill.name == folder.name  # OpenClaw names its folders after the skill
    assert skill.description and "\n" not in skill.description
    assert isinstance(skill.metadata, dict)
    if "metadata" in skill.frontmatter:
        # Every metadata block in the collection is an agent namespace we understand.
        assert skill.requirements.namespace is not None
    strict_warnings = [w for w in skill.warnings if "not strict YAML" in w]
    assert bool(strict_warnings) == (folder.name in LENIENT)


def test_requirements_are_read_from_real_files() -> None:
    by_id = {p.name: load_skill(p, "path") for p in FOLDERS if p.name not in EXPECTED_ERRORS}
    assert by_id["1password"].requirements.bins == ("op",)  # multi-line JSON5 flow block
    assert by_id["apple-notes"].requirements.os == ("darwin",)
    assert by_id["coding-agent"].requirements.any_bins == ("claude", "codex", "opencode")
    assert by_id["coding-agent"].requirements.config == ("skills.entries.coding-agent.enabled",)
    assert by_id["notion"].requirements.env == ("NOTION_API_KEY",)
    assert by_id["notion"].requirements.primary_env == "NOTION_API_KEY"
    assert by_id["discord"].requirements.config == ("channels.discord",)
    assert by_id["tmux"].requirements.os == ("darwin", "linux")
