"""read_skill / run_skill tool calls as an agent makes them: errors come back as text."""

from __future__ import annotations

from pathlib import Path

from homeclaw_cli.app.skill_tools import call_skill_tool, skill_tools
from homeclaw_cli.catalog.skills import scan_skills
from tests.skill_helpers import make_skill, settings_for


def test_tool_calls(tmp_path: Path) -> None:
    user = tmp_path / "home" / "data" / "skills"
    make_skill(user, "hello", scripts={"hi.py": "import sys\nprint('hi', *sys.argv[1:])\n"})
    make_skill(user, "mac", extra='metadata: {"openclaw":{"os":["darwin"]}}\n')
    settings = settings_for(tmp_path)
    registry = scan_skills(settings)
    assert [t["function"]["name"] for t in skill_tools(registry)] == ["read_skill", "run_skill"]

    text = call_skill_tool(settings, registry, "read_skill", {"skill": "hello"})
    assert text.startswith("---\nname: hello")
    out = call_skill_tool(
        settings, registry, "run_skill", {"skill_name": "hello", "script": "hi.py", "args": ["a"]}
    )
    assert out.startswith("exit code: 0") and "hi a" in out

    def call(name: str, **args: object) -> str:
        return call_skill_tool(settings, registry, name, args)

    assert "contains `..`" in call("read_skill", skill="hello", path="../mac/SKILL.md")
    assert "not available here" in call("read_skill", skill="mac")
    assert "no skill 'nope'" in call("run_skill", skill_name="nope", script="x.py")
    assert "`script` is required" in call("run_skill", skill_name="hello")
    assert "must be a list" in call("run_skill", skill_name="hello", script="hi.py", args="a b")
    assert "unknown skill tool" in call("delete_skill", skill="hello")
