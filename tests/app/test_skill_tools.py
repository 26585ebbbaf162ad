"""Skills as tools for each surface: read_skill/run_skill in chat, skill__<id> over MCP.

Every failure is an outcome with ok=False and a sentence the model can act on.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from homeclaw_cli.app.skill_tools import ScannedSkills, skill_tools
from homeclaw_cli.catalog.skills import scan_skills
from homeclaw_cli.core.tool_registry import ToolOutcome, ToolRegistry
from tests.skill_helpers import make_skill, settings_for

HELLO = "import sys\nprint('hi', *sys.argv[1:])\nsys.exit(3 if 'fail' in sys.argv else 0)\n"


@pytest.fixture
def source(tmp_path: Path) -> ScannedSkills:
    user = tmp_path / "home" / "data" / "skills"
    make_skill(user, "hello", body="# Hello\n\nRun hi.py.\n", scripts={"hi.py": HELLO})
    make_skill(user, "plain")
    make_skill(user, "mac", extra='metadata: {"openclaw":{"os":["darwin"]}}\n')
    settings = settings_for(tmp_path)
    return ScannedSkills(settings, scan_skills(settings))


def call(registry: ToolRegistry, name: str, **args: Any) -> ToolOutcome:
    return asyncio.run(registry.execute(name, args))


def test_chat_reads_and_runs_skills(source: ScannedSkills) -> None:
    registry = ToolRegistry(skill_tools(source, "chat"))
    assert registry.names() == ["read_skill", "run_skill"]
    read = call(registry, "read_skill", skill="hello")
    assert read.ok and read.text.startswith("---\nname: hello")
    ran = call(registry, "run_skill", skill_name="hello", script="hi.py", args=["a"])
    assert ran.ok and ran.text.startswith("exit code: 0") and "hi a" in ran.text
    # one value where a list is wanted is mended, as small models write it
    single = call(registry, "run_skill", skill_name="hello", script="hi.py", args="a")
    assert single.ok and "hi a" in single.text


def test_a_script_name_a_skill_lacks_is_refused_not_swapped_for_its_one_script(
    source: ScannedSkills,
) -> None:
    registry = ToolRegistry(skill_tools(source, "chat"))
    args = {"skill_name": "hello", "script": "dry_run.py", "args": ["a"]}
    assert registry.coerce("run_skill", args)["script"] == "dry_run.py"  # what approval is shown
    ran = call(registry, "run_skill", **args)
    assert not ran.ok and "'dry_run.py' does not exist" in ran.text and "hi.py" in ran.text


def test_an_option_and_its_value_written_as_one_argument_are_two(source: ScannedSkills) -> None:
    registry = ToolRegistry(skill_tools(source, "chat"))
    argv = ["data.csv", "--sample 3", "-n  2", "--name=Ada Lovelace", "two words", "--json"]
    ran = call(registry, "run_skill", skill_name="hello", script="hi.py", args=argv)
    assert ran.ok
    assert "hi data.csv --sample 3 -n 2 --name=Ada Lovelace two words --json" in ran.text
    assert registry.coerce("run_skill", {"skill_name": "hello", "args": argv})["args"] == [
        "data.csv",
        "--sample",
        "3",
        "-n",
        "2",
        "--name=Ada Lovelace",
        "two words",
        "--json",
    ]


def test_a_guessed_script_name_of_a_skill_with_several_is_an_error_listing_them(
    tmp_path: Path,
) -> None:
    user = tmp_path / "home" / "data" / "skills"
    make_skill(user, "two", scripts={"a.py": HELLO, "b.py": HELLO})
    settings = settings_for(tmp_path)
    registry = ToolRegistry(skill_tools(ScannedSkills(settings, scan_skills(settings)), "chat"))
    ran = call(registry, "run_skill", skill_name="two", script="c.py")
    assert not ran.ok and "a.py" in ran.text and "b.py" in ran.text


@pytest.mark.parametrize(
    ("name", "args", "problem"),
    [
        ("read_skill", {"skill": "hello", "path": "../mac/SKILL.md"}, "contains `..`"),
        ("read_skill", {"skill": "mac"}, "not available here"),
        ("run_skill", {"skill_name": "nope", "script": "x.py"}, "no skill 'nope'"),
        ("run_skill", {"skill_name": "hello"}, "missing required parameter `script`"),
        ("run_skill", {"skill_name": "hello", "script": ""}, "`script` is required"),
        # [1] would be repaired to ["1"], as 5 is for a string parameter
        ("run_skill", {"skill_name": "hello", "script": "hi.py", "args": [{}]}, "item 0 must"),
        ("run_skill", {"skill_name": "hello", "script": "hi.py", "args": ["fail"]}, "code: 3"),
        ("delete_skill", {"skill": "hello"}, "unknown tool `delete_skill`"),
    ],
)
def test_chat_refusals_are_failed_outcomes(
    source: ScannedSkills, name: str, args: dict[str, Any], problem: str
) -> None:
    outcome = call(ToolRegistry(skill_tools(source, "chat")), name, **args)
    assert not outcome.ok
    assert problem in outcome.text


def test_chat_offers_run_skill_only_when_a_skill_has_scripts(tmp_path: Path) -> None:
    make_skill(tmp_path / "home" / "data" / "skills", "plain")
    settings = settings_for(tmp_path)
    source = ScannedSkills(settings, scan_skills(settings))
    assert [t.name for t in skill_tools(source, "chat")] == ["read_skill"]


def test_mcp_has_one_tool_per_eligible_skill(source: ScannedSkills) -> None:
    registry = ToolRegistry(skill_tools(source, "mcp"))
    assert registry.names() == ["skill__hello", "skill__plain"]
    hello = registry.get("skill__hello")
    assert hello is not None and hello.parameters["properties"]["script"]["enum"] == ["hi.py"]
    read = call(registry, "skill__hello")
    assert read.ok and read.text.startswith("# Hello\n\nRun hi.py.\n\n\n(scripts: hi.py; ")
    assert 'call this tool, skill__hello, with {"script": ..., "args": [...]}' in read.text
    ran = call(registry, "skill__hello", script="hi.py", args=["b"])
    assert (ran.ok, ran.text) == (True, "hi b\n")
    failed = call(registry, "skill__hello", script="hi.py", args=["fail"])
    assert not failed.ok and failed.text.endswith("[exit code 3]")
    assert not call(registry, "skill__hello", script="../SKILL.md").ok
    guessed = call(registry, "skill__hello", script="dry_run.py")
    assert not guessed.ok and '"hi.py"' in guessed.text
