"""`homeclaw eval chat` and `homeclaw plugin eval` end to end: real CLI, real chat loop, the
official ollama client against the scripted FakeOllama, inline plugins."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.chat_plugins import fast_retrieval, write_plugin, write_test_plugins
from tests.fakes.ollama_server import FakeOllama, error, text, tool_call
from tests.json_output import envelope, payload

__all__ = ["fast_retrieval"]

JOURNAL_YAML = """\
id: journal
name: Journal
description: Write an entry into the user's diary journal file.
keywords: [journal, diary, entry]
type: inline
capabilities:
  - id: write
    name: Write an entry
    description: Append an entry to the diary journal.
    effects: write
    parameters:
      - {name: text, type: string, required: true}
"""
JOURNAL_PY = """\
from homeclaw_cli.sdk import BasePlugin

class Journal(BasePlugin):
    def write(self, text: str) -> str:
        with open(self.config["target"], "a") as fh:
            fh.write(text + "\\n")
        return "entry saved"
"""

TASKS = """\
tasks:
  - id: greet
    request: please greet Ada with a hello
    plugin: greeter
    capability: hello
    args: {name: ada}
    answer: ["hello, ada"]
  - id: tides
    request: when is high tide in the harbour of Brest
    plugin: tides
    capability: times
    answer: ["06:12"]
  - id: capital
    request: what is the capital of France
    no_plugin: true
    answer: [paris]
  - id: follow-up
    request: ["please greet Ada with a hello", "and greet Bo too"]
    plugin: greeter
    capability: hello
    args: {name: [bo, bob]}
  - id: diary
    request: write a diary journal entry saying I ran 5 km
    plugin: journal
    capability: write
  - id: no-diary
    request: what should I put in my diary journal today
    no_plugin: true
"""


@pytest.fixture
def fake(hc_home: Path, fast_retrieval: object) -> Iterator[FakeOllama]:
    with FakeOllama(strict_models=True) as fake:
        fake.add_model("llama3.2")
        yield fake


@pytest.fixture
def setup(tmp_path: Path) -> dict[str, Path]:
    plugins = write_test_plugins(tmp_path / "plugins")
    journal = write_plugin(plugins, "journal", JOURNAL_YAML, JOURNAL_PY)
    diary = tmp_path / "diary.txt"
    (journal / "config.yml").write_text(f"target: {diary}\n")
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(TASKS)
    return {"plugins": plugins, "tasks": tasks, "diary": diary, "journal": journal}


@pytest.fixture
def hc(cli: Callable[..., Any], fake: FakeOllama, setup: dict[str, Path]) -> Callable[..., Any]:
    def run(*args: str) -> Any:
        return cli(
            "--plugins-dir",
            str(setup["plugins"]),
            *args,
            # The scripted replies are the free rounds only: no constrained decision after the
            # model answers by itself (tests/surfaces/cli/test_chat_turn_repair.py covers it).
            env={
                "HOMECLAW_NO_BUNDLED": "1",
                "HOMECLAW_LLM__HOST": fake.host,
                "HOMECLAW_LLM__DECIDE": "never",
            },
        )

    return run


def script_all(fake: FakeOllama) -> None:
    """Replies for TASKS, in order: right, answered itself, right, right twice, a write the task
    allows, a write the task does not allow."""
    fake.script(
        tool_call("greeter__hello", {"name": "Ada"}),
        text("High tide is around noon."),
        text("The capital of France is Paris."),
        tool_call("greeter__hello", {"name": "Ada"}),
        tool_call("greeter__hello", {"name": "Bo"}),
        tool_call("journal__write", {"text": "ran 5 km"}),
        tool_call("journal__write", {"text": "pwned"}),
        text("I could not write it."),
    )


def test_eval_chat_json_rates_misses_and_approvals(
    hc: Callable[..., Any], fake: FakeOllama, setup: dict[str, Path]
) -> None:
    script_all(fake)
    result = hc("eval", "chat", str(setup["tasks"]), "--json")
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    rates = data["rates"]
    assert rates["plugin"] == {"passed": 3, "total": 4, "rate": 0.75}
    assert rates["capability"]["passed"] == 3 and rates["args"] == {
        "passed": 2,
        "total": 2,
        "rate": 1.0,
    }
    assert rates["answer"] == {"passed": 2, "total": 3, "rate": 0.6667}  # tides answered itself
    assert rates["no_plugin"] == {"passed": 1, "total": 2, "rate": 0.5}  # the unasked write
    assert rates["retrieved"]["passed"] == 4  # tides was offered; the model did not call it
    assert rates["passed"] == {"passed": 4, "total": 6, "rate": 0.6667}
    assert data["leaked_calls"] == 0 and data["runs"] == 6 and data["repeat"] == 1
    # The write the task allowed ran; the one it did not was declined, as a user would.
    assert setup["diary"].read_text() == "ran 5 km\n"
    missed = {m["task"]: m for m in data["misses"]}
    assert set(missed) == {"tides", "no-diary"}
    assert missed["tides"]["checks"]["plugin"] is False and missed["tides"]["calls"] == []
    assert missed["no-diary"]["calls"] == [
        {"name": "journal__write", "arguments": {"text": "pwned"}, "ok": False}
    ]
    kinds = [step["kind"] for step in missed["tides"]["trace"][0]]
    assert kinds[:3] == ["retrieve", "prompt", "llm"]
    assert data["latency_seconds"]["median"] > 0
    assert data["prompt_tokens"]["first_round_median"] > 0  # the fake reports prompt_eval_count
    # Each task starts with an empty history: the follow-up task's 2nd turn saw its 1st only.
    follow_up = fake.chat_requests[4]["messages"]
    assert [m["content"] for m in follow_up if m["role"] == "user"] == [
        "please greet Ada with a hello",
        "and greet Bo too",
    ]


def test_eval_chat_text_report_and_thresholds(
    hc: Callable[..., Any], fake: FakeOllama, setup: dict[str, Path]
) -> None:
    script_all(fake)
    result = hc("eval", "chat", str(setup["tasks"]), "--fail-under", "plugin=90%")
    assert result.exit_code == 1
    assert "right plugin\t75%\t3/4" in result.stdout
    assert "no-plugin answered without a tool\t50%\t1/2" in result.stdout
    assert "miss tides (line" in result.stderr
    assert "model round 1" in result.stderr and "'High tide is around noon.'" in result.stderr
    assert "[6/6] MISS" in result.stderr
    assert "below the thresholds: plugin 0.75 < 0.90" in result.stderr


def test_eval_chat_threshold_failure_keeps_the_report_in_the_envelope(
    hc: Callable[..., Any], fake: FakeOllama, setup: dict[str, Path], tmp_path: Path
) -> None:
    tasks = tmp_path / "one.jsonl"
    tasks.write_text(json.dumps({"request": "what is the capital of France", "answer": "rome"}))
    fake.script(text("Paris."), text("Paris."))
    result = hc("eval", "chat", str(tasks), "--json", "--repeat", "2", "--fail-under", "answer=1")
    assert result.exit_code == 1
    document = envelope(result)
    assert document["ok"] is False
    assert document["data"]["runs"] == 2 and document["data"]["rates"]["answer"]["passed"] == 0
    assert document["data"]["thresholds"]["failed"] == ["answer 0.00 < 1.00"]


@pytest.mark.parametrize(
    ("content", "where", "words"),
    [
        (
            "- request: hi\n  no_plugin: true\n- request: yo\n  plugin: x\n  no_plugin: true\n",
            ":3",
            ["no_plugin"],
        ),
        (
            "tasks:\n  - request: hi\n    no_plugin: true\n"
            "  - id: bad\n    request: a\n    colour: 1\n",
            ":6",
            ["task 'bad'", "unknown field `colour`"],
        ),
        ("- request: a\n  args: {x: 1}\n  plugin: p\n", ":1", ["args", "capability"]),
        ("- request: []\n  no_plugin: true\n", ":1", ["request"]),
        ("just text\n", "", ["list of tasks"]),
    ],
)
def test_bad_task_file_names_file_line_and_field(
    hc: Callable[..., Any], tmp_path: Path, content: str, where: str, words: list[str]
) -> None:
    path = tmp_path / "tasks.yaml"
    path.write_text(content)
    result = hc("eval", "chat", str(path))
    assert result.exit_code == 2, result.output
    assert f"{path}{where}" in result.stderr
    for word in words:
        assert word in result.stderr


def test_bad_jsonl_line_and_missing_file(hc: Callable[..., Any], tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text('{"request": "hi", "no_plugin": true}\n\n{"request": "x", "plugin": 3}\n')
    result = hc("eval", "chat", str(path))
    assert result.exit_code == 2 and f"{path}:3" in result.stderr and "plugin" in result.stderr
    assert hc("eval", "chat", str(tmp_path / "nope.yaml")).exit_code == 4


def test_every_bad_task_is_named_at_once_in_plain_words(
    hc: Callable[..., Any], fake: FakeOllama, tmp_path: Path
) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(
        "- request: 5 mi in km\n  plugin: greeter\n  answer: 8.04\n"
        "- request: hi\n  plugin: greeter\n  capabilty: hello\n"
        "- plugin: greeter\n"
    )
    result = hc("eval", "chat", str(path))
    assert result.exit_code == 2, result.output
    assert f"{path}: 3 problems" in result.stderr
    assert (
        f"{path}:3: answer: must be a string or a list of strings, not 8.04 "
        '(quote numbers: answer: ["8.04"])'
    ) in result.stderr
    assert f"{path}:6: unknown field `capabilty` (did you mean `capability`?)" in result.stderr
    assert f"{path}:7: request: missing" in result.stderr
    assert "answer.str" not in result.stderr and "Input should" not in result.stderr
    assert fake.chat_requests == []


def test_ids_that_are_not_installed_fail_before_any_model_call(
    hc: Callable[..., Any], fake: FakeOllama, tmp_path: Path
) -> None:
    path = tmp_path / "unk.yaml"
    path.write_text(
        "- request: greet Ada\n  plugin: greeterr\n  capability: nope\n"
        "- request: greet Ada\n  plugin: greeter\n  capability: helo\n"
        "- request: greet Ada and the tide\n  needs: [greeter, nosuch]\n"
        "  allow: [nosuch.cap, tides]\n"
        "- request: how do I log the garden\n  skill: garden\n"
    )
    result = hc("eval", "chat", str(path), "--json")
    assert result.exit_code == 2, result.output
    message = envelope(result)["error"]["message"]
    assert f"{path}: 5 unknown ids" in message
    for line in (
        f"{path}:2: plugin 'greeterr' is not installed (did you mean `greeter`?)",
        f"{path}:6: plugin 'greeter' has no capability 'helo' (did you mean `hello`?)",
        f"{path}:8: plugin 'nosuch' is not installed",
        f"{path}:9: allow: plugin 'nosuch' is not installed",
        f"{path}:11: skill 'garden' is not installed",
    ):
        assert line in message
    assert fake.chat_requests == []


def test_plugin_eval_runs_the_plugins_own_tasks(
    hc: Callable[..., Any], fake: FakeOllama, setup: dict[str, Path]
) -> None:
    missing = hc("plugin", "eval", "journal")
    assert missing.exit_code == 4 and "has no eval.yaml" in missing.stderr
    (setup["journal"] / "eval.yaml").write_text(
        "- request: write a diary journal entry saying hello\n"
        "  plugin: journal\n  capability: write\n  args: {text: hello}\n"
    )
    fake.script(tool_call("journal__write", {"text": "hello"}))
    result = hc("plugin", "eval", "journal", "--json", "--fail-under", "passed=1")
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert data["tasks_file"].endswith("journal/eval.yaml")
    assert data["rates"]["args"]["rate"] == 1.0
    assert setup["diary"].read_text() == "hello\n"


def test_skill_eval_scores_reading_the_skill(
    cli: Callable[..., Any], fake: FakeOllama, tmp_path: Path
) -> None:
    from tests.skill_helpers import make_skill

    skills = tmp_path / "skills"
    folder = make_skill(skills, "garden-log", description="Keep a log of watering the garden.")
    (folder / "eval.yaml").write_text(
        "- request: how do I log watering the garden\n  skill: garden-log\n"
        "- request: log the garden watering please\n  skill: garden-log\n"
    )
    fake.script(
        tool_call("read_skill", {"skill": "garden-log"}),
        text("Follow the steps: do the thing."),
        text("Sure, logged."),  # answered without reading the skill
    )
    env = {"HOMECLAW_NO_BUNDLED": "1", "HOMECLAW_LLM__HOST": fake.host}
    env["HOMECLAW_SKILLS_PATH"] = str(skills)
    result = cli("skill", "eval", "garden-log", "--json", env=env)
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert data["rates"]["skill"] == {"passed": 1, "total": 2, "rate": 0.5}
    assert [m["task"] for m in data["misses"]] == ["eval.yaml:3"]


def test_a_failed_model_call_is_a_miss_until_the_server_looks_gone(
    hc: Callable[..., Any], fake: FakeOllama, tmp_path: Path
) -> None:
    tasks = tmp_path / "t.yaml"
    tasks.write_text("".join(f"- {{request: question {n}, answer: [ok]}}\n" for n in range(3)))
    fake.script(error(500, "model crashed"), text("ok"), text("ok"))
    result = hc("eval", "chat", str(tasks), "--json")
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert data["runs"] == 3 and data["rates"]["answer"]["passed"] == 2
    (miss,) = data["misses"]
    assert miss["error"].startswith("model call failed:") and "model crashed" in miss["error"]

    fake.script(*[error(500, "model crashed")] * 3)
    gone = hc("eval", "chat", str(tasks), "--json")
    assert gone.exit_code == 5 and "model crashed" in envelope(gone)["error"]["message"]


def test_a_turn_the_model_failed_is_a_miss_and_a_plugin_failure_is_not(
    hc: Callable[..., Any], fake: FakeOllama, setup: dict[str, Path], tmp_path: Path
) -> None:
    (setup["journal"] / "config.yml").write_text(f"target: {tmp_path / 'gone' / 'diary.txt'}\n")
    tasks = tmp_path / "t.yaml"
    tasks.write_text(
        "- {id: greet, request: please greet Ada with a hello, plugin: greeter}\n"
        "- {id: diary, request: write a diary journal entry saying hi, plugin: journal}\n"
    )
    fake.script(
        tool_call("greeter__hello", {"nombre": 1}),  # a bad call: one correction...
        text(""),  # ...then nothing
        tool_call("journal__write", {"text": "hi"}),  # the plugin cannot write its file
        text("Sorry, I could not write the entry."),
    )
    result = hc("eval", "chat", str(tasks), "--json")
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    missed = {m["task"]: m for m in data["misses"]}
    assert set(missed) == {"greet"}
    assert missed["greet"]["failure"] == "model" and "empty answer" in missed["greet"]["error"]
    assert data["rates"]["passed"] == {"passed": 1, "total": 2, "rate": 0.5}


def test_a_call_that_was_not_run_is_shown_with_the_miss(
    cli: Callable[..., Any], fake: FakeOllama, setup: dict[str, Path], tmp_path: Path
) -> None:
    """A weak call with a made-up value is not run (tests/surfaces/cli/test_chat_turn_repair.py);
    the report says so next to what the turn called."""
    tasks = tmp_path / "t.yaml"
    question = "which city is the capital of ireland, the one with the harbour"
    tasks.write_text(f"- {{id: capital, request: '{question}', no_plugin: true, answer: [cork]}}\n")
    fake.script(tool_call("tides__times", {"harbour": "Cork"}), text("Dublin."))
    env = {"HOMECLAW_NO_BUNDLED": "1", "HOMECLAW_LLM__HOST": fake.host}
    args = ["--plugins-dir", str(setup["plugins"]), "eval", "chat", str(tasks)]
    result = cli(*args, "--json", env=env)
    (miss,) = payload(result)["misses"]
    assert miss["checks"] == {"no_plugin": True, "answer": False} and miss["calls"] == []
    assert miss["skipped"][0]["name"] == "tides__times"
    assert miss["skipped"][0]["arguments"] == {"harbour": "Cork"}

    fake.script(tool_call("tides__times", {"harbour": "Cork"}), text("Dublin."))
    text_result = cli(*args, env=env)
    assert "(not run: tides__times) -> 'Dublin.'" in text_result.stderr


def test_an_asks_task_passes_when_the_turn_asks_for_that_parameter(
    cli: Callable[..., Any], fake: FakeOllama, setup: dict[str, Path], tmp_path: Path
) -> None:
    """`asks: harbour`: no call runs and the user is asked for the harbour; a guess that runs
    is a miss, and so is a question for another parameter."""
    tasks = tmp_path / "t.yaml"
    tasks.write_text("- {id: ask, request: tide times for the harbour, asks: harbour}\n")
    env = {"HOMECLAW_NO_BUNDLED": "1", "HOMECLAW_LLM__HOST": fake.host}
    args = ["--plugins-dir", str(setup["plugins"]), "eval", "chat", str(tasks), "--json"]
    fake.script(tool_call("tides__times", {"harbour": "Cork"}), text("Which harbour?"))
    data = payload(cli(*args, env=env))
    assert data["rates"]["asks"] == {"passed": 1, "total": 1, "rate": 1.0}
    fake.script(tool_call("tides__times", {"harbour": "Cork"}))
    miss = payload(cli(*args, env={**env, "HOMECLAW_LLM__DECIDE": "never"}))["misses"][0]
    assert miss["checks"] == {"asks": False} and miss["expected"] == {"asks": "harbour"}
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {request: tides, asks: harbour, plugin: tides}\n")
    refused = cli("--plugins-dir", str(setup["plugins"]), "eval", "chat", str(bad), env=env)
    assert refused.exit_code != 0 and "`asks` means no call runs" in refused.stderr


def test_a_two_need_task_passes_when_each_need_gets_its_plugin(
    cli: Callable[..., Any], fake: FakeOllama, setup: dict[str, Path], tmp_path: Path
) -> None:
    """The model calls the greeter only; the request's other part, asked on its own, calls
    the tides. `needs` checks that both ran; with llm.each_need off the same task misses."""
    tasks = tmp_path / "two.yaml"
    tasks.write_text(
        "- id: both\n"
        "  request: please greet Ada with a hello and when is high tide in the harbour of Brest\n"
        "  needs: [greeter, tides]\n"
    )

    def run(each_need: str) -> Any:
        fake.script(
            tool_call("greeter__hello", {"name": "Ada"}),
            tool_call("tides__times", {"place": "Brest"}),
        )
        env = {
            "HOMECLAW_NO_BUNDLED": "1",
            "HOMECLAW_LLM__HOST": fake.host,
            "HOMECLAW_LLM__DECIDE": "never",
            "HOMECLAW_LLM__EACH_NEED": each_need,
        }
        args = ("--plugins-dir", str(setup["plugins"]), "eval", "chat", str(tasks), "--json")
        return cli(*args, "--fail-under", "needs=1", env=env)

    result = run("true")
    assert result.exit_code == 0, result.stderr
    assert payload(result)["rates"]["needs"] == {"passed": 1, "total": 1, "rate": 1.0}
    alone = fake.chat_requests[1]["messages"]
    assert alone[-1]["content"] == "when is high tide in the harbour of Brest"
    assert not any("greet" in str(m["content"]) for m in alone if m["role"] == "user")

    off = run("false")
    assert off.exit_code == 1
    assert payload(off)["rates"]["needs"] == {"passed": 0, "total": 1, "rate": 0.0}


def test_an_act_claimed_done_with_no_tool_run_is_a_miss(
    hc: Callable[..., Any], fake: FakeOllama, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A no-plugin task answered "Set an alarm for 6 AM." passed before: no tool was called.
    It is a claim of what nothing did, so it fails and is counted."""
    tasks = tmp_path / "t.yaml"
    tasks.write_text(
        "- {id: alarm, request: set an alarm at six am, no_plugin: true}\n"
        "- {id: alarm-no, request: set an alarm at seven am, no_plugin: true}\n"
    )
    monkeypatch.setenv("HOMECLAW_PLUGINS__SIMILARITY_THRESHOLD", "0.99")  # nothing offered
    claim = text("Set an alarm for 6 AM.")
    # the first task's claim outlasts its one correction; the second task's does not
    fake.script(claim, claim, claim, text("I can't set alarms here."))
    data = payload(hc("eval", "chat", str(tasks), "--json"))
    assert data["claimed_acts"] == 1
    assert [m["task"] for m in data["misses"]] == ["alarm"]
    assert data["misses"][0]["claimed"] and data["misses"][0]["checks"] == {"no_plugin": True}
    offer = text("Sure, I can help with that! What time would you like?")  # an offer counts
    fake.script(offer, offer, text("I can't."), text("I can't."))
    report = hc("eval", "chat", str(tasks))
    assert "claimed or offered an act no tool did" in report.stderr
    assert re.search(r"acts claimed done or offered with no tool run\s+1\b", report.stdout)
