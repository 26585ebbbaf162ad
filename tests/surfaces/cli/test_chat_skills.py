"""Skills through `homeclaw chat -q`: the prompt block, read_skill and run_skill for real."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.fakes.chat_plugins import fast_retrieval
from tests.fakes.ollama_server import FakeOllama, fake_ollama, text, tool_call
from tests.json_output import payload

__all__ = ["fake_ollama", "fast_retrieval"]

SKILL_MD = """---
name: hello-world
description: Greet someone warmly by name with the hello script.
effects: read
---

# Hello world

Run `run_skill(skill_name="hello-world", script="hello.py", args=[NAME])`.
"""


def hello_skill(tmp_path: Path) -> dict[str, str]:
    """A hello-world skill with its script; the environment that finds and allows it."""
    skill = tmp_path / "skills" / "hello-world"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "scripts" / "hello.py").write_text("import sys\nprint('hello', sys.argv[1])\n")
    return {
        "HOMECLAW_NO_BUNDLED": "1",
        "HOMECLAW_SKILLS_PATH": str(tmp_path / "skills"),
        "HOMECLAW_SKILLS__SCRIPT_ALLOWLIST": "[hello-world]",
    }


def greet_bob(
    cli: Callable[..., Any], fake: FakeOllama, tmp_path: Path, first_call: Any
) -> dict[str, Any]:
    """`chat -q` with the hello-world skill: the model's `first_call`, then run_skill, then
    its answer; the --json payload of a turn that must succeed."""
    env = hello_skill(tmp_path)
    fake.add_model("llama3.2")
    run = tool_call(
        "run_skill", {"skill_name": "hello-world", "script": "hello.py", "args": ["Bob"]}
    )
    fake.script(first_call, run, text("I said hello to Bob."))
    result = cli(
        "chat", "--host", fake.host, "-q", "greet Bob warmly with hello", "--json", env=env
    )
    assert result.exit_code == 0, result.stderr
    data: dict[str, Any] = payload(result)
    assert data["answer"] == "I said hello to Bob."
    return data


def tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_skill_read_and_run(
    cli: Callable[..., Any], fake_ollama: FakeOllama, tmp_path: Path, fast_retrieval: object
) -> None:
    data = greet_bob(cli, fake_ollama, tmp_path, tool_call("read_skill", {"skill": "hello-world"}))
    assert data["retrieved"]["skills"][0]["id"] == "hello-world"
    first = fake_ollama.chat_requests[0]
    assert "<name>hello-world</name>" in first["messages"][0]["content"]
    offered = {t["function"]["name"] for t in first["tools"]}
    assert {"read_skill", "run_skill"} <= offered and "search_skills" not in offered
    results = tool_results(fake_ollama.chat_requests[2])
    assert "# Hello world" in results[0]
    assert "hello Bob" in results[1]


def test_a_call_named_after_a_shown_skill_reads_that_skill(
    cli: Callable[..., Any], fake_ollama: FakeOllama, tmp_path: Path, fast_retrieval: object
) -> None:
    # the skill's id, as small models call it
    data = greet_bob(cli, fake_ollama, tmp_path, tool_call("hello-world", {"name": "Bob"}))
    tools = [s for s in data["trace"] if s["kind"] == "tool"]
    assert (tools[0]["name"], tools[0]["arguments"]) == ("read_skill", {"skill": "hello-world"})
    assert "# Hello world" in tool_results(fake_ollama.chat_requests[1])[0]


def test_a_script_the_skill_lacks_is_refused_with_its_scripts_and_nothing_runs(
    cli: Callable[..., Any], fake_ollama: FakeOllama, tmp_path: Path, fast_retrieval: object
) -> None:
    """A read-only skill with one script that writes: the model names another script. Nothing
    runs (no swap for the one script there is); the model is told which scripts exist."""
    env = hello_skill(tmp_path)
    marker = tmp_path / "touched"
    touch = f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\n"
    (tmp_path / "skills" / "hello-world" / "scripts" / "hello.py").write_text(touch)
    fake_ollama.add_model("llama3.2")
    guess = {"skill_name": "hello-world", "script": "link.sh", "args": ["Bob"]}
    fake_ollama.script(tool_call("run_skill", guess), text("There is no link.sh."))
    result = cli(
        "chat", "--host", fake_ollama.host, "-q", "greet Bob warmly with hello", "--json", env=env
    )
    assert result.exit_code == 0, result.stderr
    assert not marker.exists()
    told = tool_results(fake_ollama.chat_requests[1])[0]
    assert "'link.sh' does not exist" in told and "hello.py" in told
    ran = [s for s in payload(result)["trace"] if s["kind"] == "tool"]
    assert ran[0]["arguments"]["script"] == "link.sh" and not ran[0]["ok"]


def test_a_script_output_the_model_leaves_unsaid_is_printed(
    cli: Callable[..., Any], fake_ollama: FakeOllama, tmp_path: Path, fast_retrieval: object
) -> None:
    env = hello_skill(tmp_path)
    fake_ollama.add_model("llama3.2")
    run = {"skill_name": "hello-world", "script": "hello.py", "args": ["Bob"]}
    fake_ollama.script(tool_call("run_skill", run), text(""))
    result = cli("chat", "--host", fake_ollama.host, "-q", "greet Bob warmly with hello", env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "hello Bob\n"


def test_a_weak_skill_run_on_values_from_nowhere_is_not_run(
    cli: Callable[..., Any], fake_ollama: FakeOllama, tmp_path: Path, fast_retrieval: object
) -> None:
    """The skill barely matches; the model reads it and runs it on a name nobody gave (its
    SKILL.md is not the conversation). The script never runs; the model answers plainly."""
    env = hello_skill(tmp_path)
    fake_ollama.add_model("llama3.2")
    run = {"skill_name": "hello-world", "script": "hello.py", "args": ["Bob"]}
    fake_ollama.script(
        tool_call("read_skill", {"skill": "hello-world"}),
        tool_call("run_skill", run),
        text("It means in a friendly way."),
    )
    question = "what does warmly mean in a sentence about the weather"
    result = cli("chat", "--host", fake_ollama.host, "-q", question, "--json", env=env)
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert data["retrieved"]["skills"][0]["score"] < 0.35  # a weak match, yet shown
    assert data["answer"] == "It means in a friendly way."
    assert [s["name"] for s in data["trace"] if s["kind"] == "tool"] == ["read_skill"]
    skipped = next(s for s in data["trace"] if s["kind"] == "skipped_call")
    assert skipped["name"] == "run_skill" and "'Bob'" in skipped["reason"]


def test_a_path_the_model_shortens_runs_as_the_user_typed_it(
    cli: Callable[..., Any], fake_ollama: FakeOllama, tmp_path: Path, fast_retrieval: object
) -> None:
    """Asked about `<folder>/notes/today.txt`, the model passes `notes/today.txt`: the script
    gets the user's path, the one that exists."""
    skill = tmp_path / "skills" / "first-line"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: first-line\ndescription: Show the first line of a text file.\n"
        "effects: read\n---\n\nRun `first.py FILE`.\n"
    )
    (skill / "scripts" / "first.py").write_text(
        "import sys\nprint(open(sys.argv[1]).readline().strip())\n"
    )
    notes = tmp_path / "data" / "notes"
    notes.mkdir(parents=True)
    (notes / "today.txt").write_text("buy oat milk\nwater the plants\n")
    env = {
        "HOMECLAW_NO_BUNDLED": "1",
        "HOMECLAW_SKILLS_PATH": str(tmp_path / "skills"),
        "HOMECLAW_SKILLS__SCRIPT_ALLOWLIST": "[first-line]",
    }
    fake_ollama.add_model("llama3.2")
    run = {"skill_name": "first-line", "script": "first.py", "args": ["notes/today.txt"]}
    fake_ollama.script(tool_call("run_skill", run), text("It says: buy oat milk."))
    question = f"show the first line of the text file {notes / 'today.txt'}"
    result = cli("chat", "--host", fake_ollama.host, "-q", question, "--json", env=env)
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    ran = next(s for s in data["trace"] if s["kind"] == "tool")
    assert ran["arguments"]["args"] == [str(notes / "today.txt")] and ran["ok"]
    assert "buy oat milk" in tool_results(fake_ollama.chat_requests[1])[0]


def test_a_call_to_a_shown_skill_written_as_text_reads_that_skill(
    cli: Callable[..., Any], fake_ollama: FakeOllama, tmp_path: Path, fast_retrieval: object
) -> None:
    """Small models write the call into the answer, named after the skill: it is read, not
    corrected as a call to an unknown tool (whose preamble would reach the user)."""
    written = text(
        "Here's how you can do it:\n```json\n"
        '{"name": "hello-world", "arguments": {"name": "Bob"}}\n```'
    )
    data = greet_bob(cli, fake_ollama, tmp_path, written)
    tools = [s for s in data["trace"] if s["kind"] == "tool"]
    assert (tools[0]["name"], tools[0]["arguments"]) == ("read_skill", {"skill": "hello-world"})
    assert "# Hello world" in tool_results(fake_ollama.chat_requests[1])[0]


def test_with_plugin_vector_search_off_chat_offers_the_plugins_plugin_search_shows(
    cli: Callable[..., Any], fake_ollama: FakeOllama, tmp_path: Path, fast_retrieval: object
) -> None:
    """Unranked plugins (score 0) were all cut as far under a ranked skill, so chat offered
    none of the plugins `plugin search` listed in that mode."""
    from tests.fakes.chat_plugins import write_test_plugins

    env = {**hello_skill(tmp_path), "HOMECLAW_PLUGINS__USE_VECTOR_SEARCH": "false"}
    plugins = str(write_test_plugins(tmp_path / "test-plugins"))
    fake_ollama.add_model("llama3.2")
    fake_ollama.script(text("Hello Bob!"))
    question = "greet Bob warmly with hello"
    result = cli(
        "--plugins-dir", plugins, "chat", "--host", fake_ollama.host, "-q", question, env=env
    )
    assert result.exit_code == 0, result.stderr
    shown = cli("--plugins-dir", plugins, "plugin", "search", question, "--json", env=env)
    listed = [h["id"] for h in payload(shown)["hits"]]
    assert listed == ["greeter", "tides"]
    offered = {t["function"]["name"].split("__")[0] for t in fake_ollama.chat_requests[0]["tools"]}
    assert set(listed) <= offered
