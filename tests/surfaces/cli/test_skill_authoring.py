"""Writing skills from the CLI: `skill new`, `skill enable/disable`, `skill show` on a disabled
skill, and did-you-mean for misspelled frontmatter keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.json_output import payload


@pytest.fixture(autouse=True)
def no_bundled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOMECLAW_NO_BUNDLED", "1")


def test_skill_new_validates_installs_and_passes_its_own_tests(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = cli("skill", "new", "Release Notes", "--dir", str(tmp_path))
    assert created.exit_code == 0, created.output
    folder = tmp_path / "release-notes"
    assert created.stdout.splitlines()[0] == f"created {folder}"
    assert "next: homeclaw skill validate" in created.stderr
    assert sorted(p.name for p in folder.rglob("*") if p.is_file()) == [
        "SKILL.md",
        "hello.py",
        "tests.yaml",
    ]
    strict = cli("skill", "validate", str(folder), "--strict")
    assert strict.exit_code == 0, strict.output
    monkeypatch.setenv("HOMECLAW_SKILLS_PATH", str(tmp_path))
    ran = cli("skill", "test", "release-notes", "--script", "hello.py", "--", "Ada")
    assert ran.exit_code == 0, ran.output
    assert "Hello, Ada!" in ran.stdout
    again = cli("skill", "new", "release notes", "--dir", str(tmp_path))
    assert again.exit_code == 2 and "already exists" in again.stderr


def test_skill_new_json_and_a_name_without_letters(cli: Any, tmp_path: Path) -> None:
    data = payload(cli("skill", "new", "notes", "--dir", str(tmp_path), "--json"))
    assert data["id"] == "notes" and data["files"][0] == "SKILL.md"
    assert cli("skill", "new", "!!!", "--dir", str(tmp_path)).exit_code == 2


def test_skill_disable_hides_it_and_enable_brings_it_back(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("skill", "new", "notes", "--dir", str(tmp_path)).exit_code == 0
    monkeypatch.setenv("HOMECLAW_SKILLS_PATH", str(tmp_path))
    off = cli("skill", "disable", "notes")
    assert off.exit_code == 0 and off.stdout.strip() == "notes disabled"
    assert cli("skill", "disable", "notes").stdout.strip() == "notes disabled (already)"
    rows = payload(cli("skill", "list", "--json"))
    assert [r["status"] for r in rows if r["id"] == "notes"] == ["disabled"]
    run = cli("skill", "test", "notes", "--script", "hello.py")
    assert run.exit_code == 4 and "skill enable notes" in run.stderr
    shown = cli("skill", "show", "notes")
    assert shown.exit_code == 0, shown.output
    assert "status: disabled" in shown.stdout
    assert payload(cli("skill", "show", "notes", "--json"))["disabled"] is True
    on = cli("skill", "enable", "notes", "--json")
    assert payload(on) == {"id": "notes", "status": "enabled", "changed": True}
    rows = payload(cli("skill", "list", "--json"))
    assert [r["status"] for r in rows if r["id"] == "notes"] == ["ok"]
    missing = cli("skill", "disable", "noets")
    assert missing.exit_code == 4 and "did you mean `notes`" in missing.stderr


def test_plugin_show_works_on_a_disabled_plugin(cli: Any, tmp_path: Path) -> None:
    created = cli("plugin", "new", "tides", "--dir", str(tmp_path))
    assert created.exit_code == 0, created.output
    cli_args = ("--plugins-dir", str(tmp_path))
    assert cli(*cli_args, "plugin", "disable", "tides").exit_code == 0
    shown = cli(*cli_args, "plugin", "show", "tides")
    assert shown.exit_code == 0, shown.output
    assert "status: disabled (`homeclaw plugin enable tides`" in shown.stdout
    data = payload(cli(*cli_args, "plugin", "show", "tides", "--json"))
    assert data["disabled"] is True and data["tools"]
    assert cli(*cli_args, "plugin", "call", "tides", "greet").exit_code == 4


def skill_folder(root: Path, name: str, frontmatter: str) -> Path:
    """A skill folder whose SKILL.md has `name` and the given frontmatter lines."""
    folder = root / name
    folder.mkdir(exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\n{frontmatter}---\nbody\n")
    return folder


def test_misspelled_frontmatter_keys_get_a_did_you_mean(cli: Any, tmp_path: Path) -> None:
    lost = skill_folder(tmp_path, "lost", "descripton: Does things.\n")
    result = cli("skill", "validate", str(lost))
    assert result.exit_code == 1
    assert "line 3 has `descripton`: rename it `description`" in result.stdout
    typos = skill_folder(
        tmp_path,
        "typos",
        "description: Does things.\nlicence: MIT\nefects: read\nauthor: me\n",
    )
    checked = cli("skill", "validate", str(typos))
    assert checked.exit_code == 0  # warnings only...
    assert "line 4: unknown frontmatter key `licence` (did you mean `license`?)" in checked.stdout
    assert "`efects` (did you mean `effects`?)" in checked.stdout
    assert "author" not in checked.stdout  # a key of its own, not a typo
    assert cli("skill", "validate", str(typos), "--strict").exit_code == 1  # ...errors if strict


def test_a_skill_without_example_requests_is_warned(cli: Any, tmp_path: Path) -> None:
    skill = skill_folder(tmp_path, "tides", "description: Tide times.\n")
    checked = cli("skill", "validate", str(skill))
    assert checked.exit_code == 0
    assert "SKILL.md: no example requests" in checked.stdout
    assert "homeclaw sync --expand" in checked.stdout
    assert cli("skill", "validate", str(skill), "--strict").exit_code == 1
    skill_folder(tmp_path, "tides", "description: Tide times.\nexamples: [low tide in Brest]\n")
    assert cli("skill", "validate", str(skill), "--strict").exit_code == 0


def test_a_request_in_both_examples_and_not_for_is_named_with_its_line(
    cli: Any, tmp_path: Path
) -> None:
    both = 'examples: ["low tide in Brest"]\nnot_for: ["Low tide in  Brest"]\n'
    skill = skill_folder(tmp_path, "tides", f"description: Tide times.\n{both}")
    checked = cli("skill", "validate", str(skill))
    assert checked.exit_code == 1
    assert "SKILL.md:5" in checked.stderr + checked.stdout
    assert "frontmatter `not_for`: 'Low tide in Brest' is both an example and a not_for" in (
        checked.stderr + checked.stdout
    )
    only = 'description: Tide times.\nnot_for: ["tide of public opinion"]\n'
    skill_folder(tmp_path, "tides", only)
    assert cli("skill", "validate", str(skill)).exit_code == 0
