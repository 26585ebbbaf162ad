"""`skill validate` and `skill install` run the same checks: every frontmatter and tests.yaml
error at once, with did-you-mean, naming the author's files; a failing script test shows what
the script printed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.json_output import payload
from tests.skill_helpers import make_skill


@pytest.fixture(autouse=True)
def no_bundled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOMECLAW_NO_BUNDLED", "1")


def _bad_skill(root: Path) -> Path:
    folder = make_skill(
        root,
        "s1",
        extra="permissions: {network: api.x.com, bogus: 1}\neffects: maybe\n",
        scripts={"hello.py": "print('hello')\n"},
    )
    (folder / "tests.yaml").write_text("scripts:\n  - scrpit: hello.py\n    expct_exit: 0\n")
    return folder


EXPECTED = (
    "SKILL.md:4:15: permissions.network: must be a list: write [api.x.com]",
    "SKILL.md:4:35: permissions.bogus: unknown field `bogus`",
    "SKILL.md:5:1: effects: must be one of 'read', 'write', 'network' or 'destructive', "
    "got 'maybe'",
    "tests.yaml:2:5: scripts[0].scrpit: unknown field `scrpit` (did you mean `script`?)",
    "tests.yaml:3:5: scripts[0].expct_exit: unknown field `expct_exit` (did you mean "
    "`expect_exit`?)",
)


def test_validate_and_install_report_the_same_errors_at_once(cli: Any, tmp_path: Path) -> None:
    folder = _bad_skill(tmp_path)
    checked = cli("skill", "validate", str(folder))
    assert checked.exit_code == 1
    for line in EXPECTED:
        assert f"{folder}/{line}" in checked.stdout, checked.output
    installed = cli("skill", "install", str(folder), "--yes")
    assert installed.exit_code == 1
    assert "the skill is not valid, nothing was installed" in installed.stderr
    for line in EXPECTED:  # the author's source, not the staged copy
        assert f"{folder}/{line}" in installed.stderr, installed.output
    assert cli("skill", "list", "--json").stdout.count('"s1"') == 0


def test_an_invalid_tests_yaml_is_not_installed_by_force_or_update(
    cli: Any, tmp_path: Path
) -> None:
    folder = make_skill(tmp_path, "s2", extra='examples: ["say hello to bob"]\n')
    assert cli("skill", "install", str(folder), "--yes").exit_code == 0
    (folder / "tests.yaml").write_text("scripts: [\n")
    forced = cli("skill", "install", str(folder), "--force", "--yes")
    assert forced.exit_code == 1 and "tests.yaml:2" in forced.stderr, forced.output
    updated = cli("skill", "update", "s2", "--yes")
    assert updated.exit_code == 1 and "tests.yaml:2" in updated.stderr, updated.output
    assert cli("skill", "validate", str(folder)).exit_code == 1


def test_a_failing_script_test_shows_what_the_script_printed(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = make_skill(tmp_path, "s3", scripts={"hello.py": "print('hello')\n"})
    (folder / "tests.yaml").write_text(
        "scripts:\n  - script: hello.py\n    expect_stdout: goodbye\n"
    )
    monkeypatch.setenv("HOMECLAW_SKILLS_PATH", str(tmp_path))
    result = cli("skill", "test", "s3")
    assert result.exit_code == 1
    assert "stdout does not contain 'goodbye'; it was 'hello'" in result.stdout


@pytest.mark.parametrize(("folder_name", "fix"), [("My Skill!", "my-skill"), ("test__x", "test_x")])
def test_a_folder_name_that_is_no_skill_id_is_refused_everywhere(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder_name: str, fix: str
) -> None:
    """The folder's name is the skill's id and its MCP tool's name (skill__<id>), and test__
    ids are the test dir's: validate and list said ok to what install refused."""
    folder = make_skill(tmp_path / "skills", folder_name, name="my-skill")
    checked = cli("skill", "validate", str(folder))
    assert checked.exit_code == 1, checked.output
    assert f"{folder}: the folder name is the skill's id, and '{folder_name}' is not" in (
        checked.stdout
    )
    assert f"rename the folder (e.g. to '{fix}'), or install it with `--id {fix}`" in (
        checked.stdout
    )
    installed = cli("skill", "install", str(folder), "--yes")
    assert installed.exit_code == 2 and f"--id {fix}" in installed.stderr, installed.output
    monkeypatch.setenv("HOMECLAW_SKILLS_PATH", str(tmp_path / "skills"))
    rows = [r for r in payload(cli("skill", "list", "--all", "--json")) if r["source"] == "path"]
    assert [(r["id"], r["status"]) for r in rows] == [(folder_name, "broken")]
    assert f"rename the folder, e.g. to '{fix}'" in rows[0]["reason"]
    assert cli("skill", "install", str(folder), "--id", fix, "--yes").exit_code == 0


def test_validate_dot_names_the_folder_it_stands_for(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(make_skill(tmp_path, "tidy", extra='examples: ["tidy my desk"]\n'))
    checked = cli("skill", "validate", ".", "--json")
    assert checked.exit_code == 0, checked.output
    assert payload(checked)["skills"][0]["id"] == "tidy"


def test_a_lower_case_skill_md_is_named_with_its_fix(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """skill.md is never found on a case-sensitive file system: list left the skill out
    without a word, validate said 'no SKILL.md here', install 'is this a skill?'."""
    folder = make_skill(tmp_path / "skills", "tidy")
    (folder / "SKILL.md").rename(folder / "skill.md")
    fix = f"{folder}/skill.md: the file must be named SKILL.md (upper case) to be found"
    for target in (folder, folder.parent):
        checked = cli("skill", "validate", str(target))
        assert checked.exit_code == 1 and fix in checked.stdout, checked.output
    installed = cli("skill", "install", str(folder), "--yes")
    assert installed.exit_code == 1, installed.output
    assert "rename its skill.md to SKILL.md" in installed.stderr
    staged = make_skill(tmp_path / "skills", ".tidy-staging")  # install's, never a skill
    (staged / "SKILL.md").rename(staged / "skill.md")
    monkeypatch.setenv("HOMECLAW_SKILLS_PATH", str(folder.parent))
    listed = cli("skill", "list")
    assert fix in listed.stderr, listed.output
    rows = [r for r in payload(cli("skill", "list", "--all", "--json")) if r["source"] == "path"]
    assert [(r["id"], r["status"]) for r in rows] == [("tidy", "broken")]
