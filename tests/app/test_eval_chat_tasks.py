"""Reading `eval chat` task files: both formats, defaults, and what approvals a task grants."""

from __future__ import annotations

from pathlib import Path

from homeclaw_cli.app.eval_chat_tasks import read_tasks
from homeclaw_cli.core.approval import ToolAction

REPO = Path(__file__).resolve().parents[2]


def test_yaml_list_and_jsonl(tmp_path: Path) -> None:
    yaml_file = tmp_path / "t.yaml"
    yaml_file.write_text(
        "- request: [10 km in miles, and 20?]\n  plugin: units\n  capability: convert\n"
        "- request: hi\n  no_plugin: true\n  answer: hello\n"
    )
    first, second = read_tasks(yaml_file)
    assert first.turns == ["10 km in miles", "and 20?"] and first.line == 1
    assert first.label == "t.yaml:1" and first.allowed() == {"units.convert"}
    assert second.answers == ["hello"] and second.allowed() == set() and second.line == 4
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text('{"id": "a", "request": "x", "plugin": ["p", "q"], "allow": ["p"]}\n')
    (task,) = read_tasks(jsonl)
    assert task.label == "a" and task.plugins == ["p", "q"] and task.allowed() == {"p"}


def test_a_skill_task_approves_that_skills_scripts_only(tmp_path: Path) -> None:
    tasks = tmp_path / "t.yaml"
    tasks.write_text("- {request: how big is this folder, skill: disk-usage}\n")
    (task,) = read_tasks(tasks)
    for skill, granted in (("disk-usage", True), ("organize-files", False)):
        # run_skill as the approval policy sees a call (Tool.action with the skill's effects)
        action = ToolAction("run_skill", "run_skill", skill, frozenset({"write"}))
        assert any(k in task.allowed() for k in action.rule_keys) is granted, skill


def test_the_shipped_task_sets_are_valid() -> None:
    tasks = read_tasks(REPO / "benchmarks/llm/tasks.yaml")
    assert len([t for t in tasks if t.plugins]) >= 60
    assert len([t for t in tasks if t.no_plugin]) >= 12
    assert len({t.id for t in tasks}) == len(tasks)
    for path in sorted((REPO / "benchmarks/llm").glob("tasks-*.yaml")):
        others = read_tasks(path)
        assert others and len({t.id for t in others}) == len(others), path
    for folder in sorted((REPO / "plugins").iterdir()):
        if (folder / "plugin.yaml").is_file():
            own = read_tasks(folder / "eval.yaml")
            assert own and all(folder.name in t.plugins for t in own), folder
