"""`homeclaw skill list/show/validate/test/install` through the real CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.app import skill_test
from tests.fakes.skill_retriever import FakeSkillRetriever
from tests.json_output import payload
from tests.skill_helpers import make_skill

BUNDLED = {"data-inspect", "disk-usage", "git-summary", "organize-files"}


@pytest.fixture
def user_skills(hc_home: Path) -> Path:
    return hc_home / "data" / "skills"


def test_list_shows_bundled_skills(cli: Any) -> None:
    result = cli("skill", "list", "--json")
    assert result.exit_code == 0, result.output
    rows = payload(result)
    assert {r["id"] for r in rows} >= BUNDLED
    assert all(r["status"] == "ok" for r in rows)
    plain = cli("skill", "list")
    assert "disk-usage\tdisk-usage\tbundled\tok\t1\t" in plain.stdout


def test_piped_list_keeps_the_whole_description(cli: Any, user_skills: Path) -> None:
    """Piped, the description was cut at 80 characters with `…`, as on a terminal."""
    long = "Summarize a folder: " + "its largest files and their sizes, " * 5 + "then stop."
    make_skill(user_skills, "summarize", description=long)
    row = next(
        line for line in cli("skill", "list").stdout.splitlines() if line[:10] == "summarize\t"
    )
    assert row.split("\t")[-1] == long


def test_piped_list_all_gives_a_broken_skill_one_row(cli: Any, user_skills: Path) -> None:
    """The error of a SKILL.md with two problems was printed on two lines, the second no row."""
    make_skill(user_skills, "broken", description='""', extra="metadata: {oops\n")
    lines = cli("skill", "list", "--all").stdout.splitlines()
    assert all(len(line.split("\t")) == 6 for line in lines), lines
    assert any(line.startswith("broken\t") and "metadata" in line for line in lines)


def test_list_all_shows_ineligible_shadowed_and_broken(cli: Any, user_skills: Path) -> None:
    make_skill(user_skills, "mac-only", extra='metadata: {"openclaw":{"os":["darwin"]}}\n')
    make_skill(user_skills, "disk-usage", description="my override")
    (user_skills / "broken").mkdir()
    (user_skills / "broken" / "SKILL.md").write_text("nothing")
    default = cli("skill", "list", "--json")
    ids = [r["id"] for r in payload(default)]
    assert "mac-only" not in ids and ids.count("disk-usage") == 1
    assert "1 ineligible, 1 shadowed, 1 broken not shown" in default.stderr
    assert "no YAML frontmatter" in default.stderr
    rows = payload(cli("skill", "list", "--all", "--json"))
    status = {(r["id"], r["source"]): (r["status"], r["reason"]) for r in rows}
    assert status[("mac-only", "user")] == ("ineligible", "only for darwin (this system is linux)")
    assert status[("disk-usage", "user")][0] == "ok"
    assert status[("disk-usage", "bundled")][0] == "shadowed"
    assert "by disk-usage from user" in status[("disk-usage", "bundled")][1]
    assert status[("broken", "user")][0] == "broken"


def test_show_and_test_of_a_broken_or_disabled_skill_say_why(
    cli: Any, user_skills: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broken skill was 'no skill' (exit 4) though skill list named it; a disabled one
    was 'takes a skill id, not a folder' when a folder of its name was in the cwd."""
    (user_skills / "brk").mkdir(parents=True)
    (user_skills / "brk" / "SKILL.md").write_text("nothing")
    for command in ("show", "test"):
        result = cli("skill", command, "brk")
        assert result.exit_code == 1, result.output
        assert "skill 'brk' cannot be loaded: " in result.stderr
        assert f"{user_skills}/brk/SKILL.md:1: no YAML frontmatter" in result.stderr
        assert f"`homeclaw skill validate {user_skills}/brk`" in result.stderr
    make_skill(user_skills, "tidy")
    assert cli("skill", "disable", "tidy").exit_code == 0
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tidy").mkdir()
    disabled = cli("skill", "test", "tidy")
    assert disabled.exit_code == 4 and "skill 'tidy' is disabled" in disabled.stderr
    assert "`homeclaw skill enable tidy`" in disabled.stderr


def test_workspace_skills_need_trust(cli: Any, hc_home: Path) -> None:
    make_skill(Path.cwd() / "skills", "ws-skill")
    result = cli("skill", "list", "--json")
    assert "ws-skill" not in result.stdout
    assert "not loaded: workspace skills are untrusted" in result.stderr
    trusted = cli("skill", "list", "--json", "--trust-workspace")
    assert any(r["id"] == "ws-skill" and r["source"] == "workspace" for r in payload(trusted))


def test_show(cli: Any, user_skills: Path) -> None:
    make_skill(
        user_skills,
        "notes-folder",
        name="notes",
        extra=(
            "homepage: https://n.example\n"
            'metadata: {"openclaw":{"requires":{"env":["NOTES_KEY"]}}}\n'
        ),
    )
    result = cli("skill", "show", "notes-folder")
    assert result.exit_code == 0
    out = result.stdout
    assert "notes-folder  (name: notes)" in out
    assert "status: ineligible: needs env var NOTES_KEY" in out
    assert "requires (metadata.openclaw): env: NOTES_KEY" in out
    assert "homepage: https://n.example" in out
    assert "# Steps" not in out
    assert "# Steps" in cli("skill", "show", "notes-folder", "--body").stdout
    data = payload(cli("skill", "show", "notes", "--json"))
    assert data["id"] == "notes-folder" and data["requires"]["env"] == ["NOTES_KEY"]
    missing = cli("skill", "show", "notes-foldr")
    assert missing.exit_code == 4 and "did you mean `notes-folder`" in missing.stderr


def test_validate(cli: Any, tmp_path: Path) -> None:
    good = make_skill(tmp_path / "v", "good", scripts={"run.py": "print(1)", "weird.xyz": "?"})
    bad = tmp_path / "v" / "bad"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nname: bad\nmetadata: '{x'\n---\n")
    ok = cli("skill", "validate", str(good))
    assert ok.exit_code == 0 and "ok good" in ok.stdout
    assert "weird.xyz: no interpreter known" in ok.stdout
    assert cli("skill", "validate", "--strict", str(good)).exit_code == 1
    both = cli("skill", "validate", str(tmp_path / "v"), "--json")
    assert both.exit_code == 1
    report = payload(both)
    assert (report["valid"], report["invalid"]) == (1, 1)
    errors = next(s for s in report["skills"] if s["id"] == "bad")["errors"]
    assert "SKILL.md:2: frontmatter needs a non-empty `description` string (missing)" in errors[0]
    assert cli("skill", "validate", str(tmp_path / "nothing")).exit_code == 4  # not found


def test_validate_bundled_skills(cli: Any) -> None:
    root = Path(__file__).resolve().parents[3] / "skills"
    result = cli("skill", "validate", "--strict", str(root))
    assert result.exit_code == 0, result.output
    assert "4 valid, 0 invalid" in result.stderr


def test_test_script_runs_like_run_skill(cli: Any, user_skills: Path) -> None:
    make_skill(
        user_skills,
        "echo",
        scripts={"echo.py": "import sys\nprint(sys.argv[1:])\nsys.exit(len(sys.argv) > 4)\n"},
    )
    result = cli("skill", "test", "echo", "--script", "echo.py", "--", "a; rm -rf /", "--top", "5")
    assert result.exit_code == 0, result.output
    assert result.stdout == "['a; rm -rf /', '--top', '5']\n"
    assert "echo/echo.py: exit 0" in result.stderr
    split = cli("skill", "test", "echo", "--script", "echo.py", "--args", "x 'y z'", "--json")
    assert payload(split)["stdout"] == "['x', 'y z']\n"
    failing = cli("skill", "test", "echo", "-s", "echo.py", "--", "1", "2", "3", "4")
    assert failing.exit_code == 1 and "exit 1" in failing.stderr
    refused = cli("skill", "test", "echo", "--script", "../SKILL.md")
    assert refused.exit_code == 2 and "contains `..`" in refused.stderr
    missing = cli("skill", "test", "echo", "--script", "echo.sh")
    assert missing.exit_code == 4 and "'echo.sh' does not exist" in missing.stderr
    assert "there are: echo.py" in missing.stderr
    assert cli("skill", "test", "echo", "--", "x").exit_code == 2


def test_test_script_takes_every_args_given_and_names_an_unclosed_quote(
    cli: Any, user_skills: Path
) -> None:
    """A second --args replaced the first, so the script ran on fewer arguments than typed;
    an unclosed quote was a ValueError traceback."""
    make_skill(user_skills, "echo", scripts={"echo.py": "import sys\nprint(sys.argv[1:])\n"})
    run = ("skill", "test", "echo", "--script", "echo.py")
    both = cli(*run, "--args", "a 'b c'", "--args", "--top 5", "--json", "--", "last")
    assert both.exit_code == 0, both.output
    assert payload(both)["stdout"] == "['a', 'b c', '--top', '5', 'last']\n"
    unclosed = cli(*run, "--args", "it's mine")
    assert unclosed.exit_code == 2, unclosed.output
    assert '--args "it\'s mine": no closing quotation' in unclosed.stderr
    assert "pass the arguments after `--`" in unclosed.stderr
    assert "Traceback" not in unclosed.output


def test_test_query_against_the_retrieval_contract(
    cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeSkillRetriever(
        {
            "how full is my disk": [("disk-usage", 0.82), ("organize-files", 0.4)],
            "tidy downloads": [("organize-files", 0.7), ("disk-usage", 0.5)],
        }
    )
    monkeypatch.setattr(skill_test, "default_retriever", lambda _settings: fake)
    ok = cli("skill", "test", "disk-usage", "--query", "how full is my disk", "--expect-rank", "1")
    assert ok.exit_code == 0 and "rank 1, score 0.820: offered" in ok.stdout
    second = cli("skill", "test", "disk-usage", "-q", "tidy downloads", "--expect-rank", "1")
    assert second.exit_code == 1
    assert "rank 2, score 0.500: offered, but expected rank 1 or better" in second.stdout
    assert "above: #1 organize-files (0.700, offered)" in second.stdout
    data = payload(cli("skill", "test", "disk-usage", "-q", "tidy downloads", "--json"))
    assert data[0]["rank"] == 2 and data[0]["passed"] is True


def test_test_runs_tests_yaml_of_a_bundled_skill(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeSkillRetriever(
        {
            "what is taking up space in my downloads folder": [("disk-usage", 0.7)],
            "how big is this directory": [("disk-usage", 0.6)],
        }
    )
    monkeypatch.setattr(skill_test, "default_retriever", lambda _settings: fake)
    result = cli("skill", "test", "disk-usage")
    assert result.exit_code == 0, result.output
    assert "ok  script du.py . --top 3" in result.stdout
    assert "disk-usage: 3/3 checks passed" in result.stderr


def test_install_then_list(cli: Any, tmp_path: Path) -> None:
    src = make_skill(tmp_path / "incoming", "fresh", scripts={"go.sh": "echo go\n"})
    result = cli("skill", "install", str(src))
    assert result.exit_code == 0, result.output
    assert "installed fresh ->" in result.stdout
    rows = payload(cli("skill", "list", "--json"))
    assert any(r["id"] == "fresh" and r["source"] == "user" for r in rows)
    again = cli("skill", "install", str(src))
    assert again.exit_code == 2 and "--force" in again.stderr
    assert cli("skill", "test", "fresh", "--script", "go.sh").stdout == "go\n"


def test_test_given_a_folder_says_how_to_test_it(cli: Any, tmp_path: Path) -> None:
    src = make_skill(tmp_path / "drafts", "draft", scripts={"go.sh": "echo go\n"})
    result = cli("skill", "test", str(src), "--script", "go.sh")
    assert result.exit_code == 4
    assert "takes a skill id, not a folder" in result.stderr
    assert f"homeclaw skill install {src}" in result.stderr and "test_dir" in result.stderr


def test_real_entry_point(run_cli: Any) -> None:
    listed = run_cli("skill", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert {r["id"] for r in payload(listed)} >= BUNDLED
    ran = run_cli(
        "skill",
        "test",
        "data-inspect",
        "--script",
        "inspect.py",
        "--",
        str(Path(__file__).resolve().parents[3] / "skills/data-inspect/examples/cities.csv"),
    )
    assert ran.returncode == 0, ran.stderr
    assert "4 fields" in ran.stdout


@pytest.mark.parametrize(
    "argv",
    [["skill", "list", "--all"], ["skill", "validate", "skills"], ["skill", "show", "disk-usage"]],
    ids=["list", "validate", "show"],
)
def test_skill_commands_stay_light(hc_home: Path, argv: list[str]) -> None:
    import subprocess
    import sys

    from tests.test_imports import HEAVY, PROBE

    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(
        [sys.executable, "-c", PROBE % HEAVY, *argv],
        capture_output=True,
        text=True,
        cwd=root,
        check=False,
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [], done.stderr


def test_a_script_finds_the_tools_on_the_users_path(
    cli: Any, user_skills: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool the skill requires, found where the user keeps it (e.g. /opt/homebrew/bin)."""
    tools = tmp_path / "brew" / "bin"
    tools.mkdir(parents=True)
    (tools / "mytool").write_text("#!/bin/sh\necho mytool says $1\n")
    (tools / "mytool").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    requires = 'metadata: {"openclaw": {"requires": {"bins": ["mytool"]}}}\n'
    make_skill(user_skills, "needtool", extra=requires, scripts={"run.sh": "mytool hi\n"})
    listed = payload(cli("skill", "list", "--json"))
    assert next(r for r in listed if r["id"] == "needtool")["status"] == "ok"
    result = cli("skill", "test", "needtool", "--script", "run.sh")
    assert result.exit_code == 0, result.output
    assert result.stdout == "mytool says hi\n"


def test_a_script_that_cannot_run_fails_the_skill_not_the_command_line(
    cli: Any, user_skills: Path
) -> None:
    """The command line is fine, the skill is broken: exit 1, naming the script and the fix."""
    make_skill(user_skills, "half", scripts={"ok.py": "print(1)", "weird.xyz": "?"})
    result = cli("skill", "test", "half", "--script", "weird.xyz")
    assert result.exit_code == 1, result.output
    assert "script 'weird.xyz' of skill 'half' cannot run: no interpreter known" in result.stderr
    assert "add a `#!` shebang line" in result.stderr
    as_json = cli("skill", "test", "half", "--script", "weird.xyz", "--json")
    assert as_json.exit_code == 1
    error = json.loads(as_json.stdout)["error"]
    assert "weird.xyz" in error["message"] and "shebang" in error["hint"]


def test_list_flags_a_skill_none_of_whose_scripts_can_run(cli: Any, user_skills: Path) -> None:
    make_skill(user_skills, "no-shebang", scripts={"tool": "echo hi\n"}, executable=True)
    make_skill(user_skills, "odd-ext", scripts={"a.xyz": "?", "b.zzz": "?"})
    make_skill(user_skills, "mixed", scripts={"ok.sh": "echo ok\n", "weird.xyz": "?"})
    make_skill(user_skills, "instructions-only")
    rows = {r["id"]: r for r in payload(cli("skill", "list", "--all", "--json"))}
    assert rows["no-shebang"]["status"] == "ineligible"
    assert rows["no-shebang"]["reason"].startswith(
        "its script cannot run: scripts/tool: no interpreter known for it; add a `#!` shebang"
    )
    assert rows["odd-ext"]["status"] == "ineligible"
    assert "none of its scripts can run: scripts/a.xyz: " in rows["odd-ext"]["reason"]
    assert "scripts/b.zzz: " in rows["odd-ext"]["reason"]
    assert (rows["mixed"]["status"], rows["instructions-only"]["status"]) == ("ok", "ok")
    shown = cli("skill", "show", "no-shebang")
    assert "status: ineligible: its script cannot run: scripts/tool" in shown.stdout
    refused = cli("skill", "test", "no-shebang", "--script", "tool")
    assert refused.exit_code == 1 and "not eligible here" in refused.stderr
