"""`homeclaw chat -q` against the scripted Ollama server: what a small model gets wrong in a
turn, and how the turn repairs it (calls written as text, unknown names, bad arguments,
claimed results, the constrained decision, lean tool offers, servers that are down)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.chat_plugins import fast_retrieval, write_plugin, write_test_plugins
from tests.fakes.ollama_server import FakeOllama, Reply, text, tool_call, unused_port_host
from tests.json_output import envelope, payload

__all__ = ["fast_retrieval"]


@pytest.fixture
def fake(hc_home: Path, fast_retrieval: object) -> Iterator[FakeOllama]:
    with FakeOllama(strict_models=True) as fake:
        fake.add_model("llama3.2")
        yield fake


@pytest.fixture
def plugins(tmp_path: Path) -> Path:
    return write_test_plugins(tmp_path / "plugins")


@pytest.fixture
def chat(cli: Callable[..., Any], fake: FakeOllama, plugins: Path) -> Callable[..., Any]:
    def run(*args: str, env: dict[str, str] | None = None) -> Any:
        return cli(
            "--plugins-dir",
            str(plugins),
            "chat",
            "--host",
            fake.host,
            *args,
            env={"HOMECLAW_NO_BUNDLED": "1", **(env or {})},
        )

    return run


def offered(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


NOTHING_OFFERED = {"HOMECLAW_PLUGINS__SIMILARITY_THRESHOLD": "0.99"}  # no plugin retrieved


@pytest.fixture
def ask(chat: Callable[..., Any], fake: FakeOllama) -> Callable[..., Any]:
    """A request in one shot with no plugin offered, the model replying `replies` in turn."""

    def run(request: str, *replies: str) -> Any:
        fake.script(*(text(reply) for reply in replies))
        return chat("-q", request, env=NOTHING_OFFERED)

    return run


def feedback(request: dict[str, Any]) -> list[str]:
    """What homeclaw told the model after its reply (tool results, corrections)."""
    return [m["content"] for m in request["messages"][2:] if m["role"] in ("tool", "user")]


def test_a_call_to_an_unknown_tool_gets_one_round_listing_the_valid_names(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(
        text('```json\n{"name": "factorial", "arguments": {"n": 7}}\n```'),
        tool_call("tides__times", {"harbour": "Brest"}),
    )
    result = chat("-q", "tide times for the harbour of Brest")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide in Brest at 06:12.\n"  # never the call JSON
    assert "unknown tool `factorial`" in feedback(fake.chat_requests[1])[-1]
    assert "tides__times" in feedback(fake.chat_requests[1])[-1]


def test_a_call_in_prose_is_never_the_answer(chat: Callable[..., Any], fake: FakeOllama) -> None:
    leaked = 'Sure! <tool_call>{"name": "shout_it_out", "arguments": {"text": "hi"}}</tool_call>'
    fake.script(text(leaked), text(leaked))
    result = chat("-q", "tide times for the harbour of Brest", "--json")
    assert len(fake.chat_requests) == 2  # one corrective round, no more
    assert "`shout_it_out` is not a tool" in feedback(fake.chat_requests[1])[-1]
    data = payload(result)
    assert data["answer"] == "Sure!"  # the call cut out of what the user sees


def test_a_call_cut_off_by_the_token_cap_is_never_the_answer(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """A reply that ran out of tokens inside a call it wrote as text (a URL repeated to the
    cap) has no closing brace or fence; twice, the turn ends with an error instead of it."""
    cut = '```json\n{\n  "name": "fetch_url",\n  "arguments": {\n    "url": "https://ex.com/a-a-a-a'
    fake.script(text(cut), text("Here it is: " + cut))
    result = chat("-q", "tide times for the harbour of Brest", "--json")
    assert len(fake.chat_requests) == 2
    assert "`fetch_url` is not a tool" in feedback(fake.chat_requests[1])[-1]
    data = payload(result)
    assert "fetch_url" not in data["answer"] and data["answer"] == "Here it is:"
    fake.script(text(cut), text(cut))
    result = chat("-q", "tide times for the harbour of Brest")
    assert result.exit_code == 1 and result.stdout == ""
    assert "wrote a call to `fetch_url` instead of an answer" in result.stderr


def test_bad_arguments_are_repaired_or_named(chat: Callable[..., Any], fake: FakeOllama) -> None:
    fake.script(tool_call("tides__times", {"harbour": 7}))  # a number for a string: repaired
    result = chat("-q", "tide times for the harbour of Brest")
    assert result.exit_code == 0 and result.stdout == "High tide in 7 at 06:12.\n"
    # `port` for the missing `harbour` would be renamed if its value were a string
    fake.script(tool_call("tides__times", {"port": 29}), tool_call("tides__times", {}))
    result = chat("-q", "tide times for the harbour of Brest")
    assert result.exit_code == 1
    assert "unknown parameter `port`" in feedback(fake.chat_requests[-1])[-1]
    assert "still wrong after a correction" in result.stderr
    assert "missing required parameter `harbour`" in result.stderr


def test_a_call_with_another_tools_parameters_goes_to_that_tool(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """Small models pick a tool by its neighbour's parameters: only the tide tool takes a
    harbour, and it only looks things up."""
    fake.script(tool_call("greeter__boom", {"harbour": "Brest"}))
    result = chat("-q", "a hello story about the tide times of the harbour of Brest", "--json")
    assert {"greeter__hello", "tides__times"} <= set(offered(fake.chat_requests[0]))
    data = payload(result)
    assert data["answer"] == "High tide in Brest at 06:12."
    assert len(fake.chat_requests) == 1  # no correction round
    # a parameter the named tool takes too leaves the call where it is, for the correction
    fake.script(
        tool_call("greeter__hello", {"name": "Ann", "harbour": "Brest"}),
        tool_call("greeter__hello", {"name": "Ann"}),
    )
    result = chat("-q", "a hello story about the tide times of the harbour of Brest")
    assert result.stdout == "Hello, Ann!\n"
    assert "unknown parameter `harbour`" in feedback(fake.chat_requests[-1])[-1]


def test_a_correction_repeated_as_the_answer_is_an_error(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    told = "bad call to `tides__times`: unknown parameter `port`; valid: harbour"
    fake.script(tool_call("tides__times", {"port": 29}), text(f"ERROR: {told}"))
    result = chat("-q", "tide times for the harbour of Brest")
    assert told in feedback(fake.chat_requests[-1])[-1]
    assert result.exit_code == 1 and result.stdout == ""
    assert f"the model did not correct its call: {told}" in result.stderr


def test_a_claimed_tool_result_gets_one_corrective_round(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(
        text("Using the tides__times tool: high tide in Brest is at 9:00."),
        tool_call("tides__times", {"harbour": "Brest"}),
    )
    never = {"HOMECLAW_LLM__DECIDE": "never"}
    result = chat("-q", "tide times for the harbour of Brest", env=never)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide in Brest at 06:12.\n"
    assert "You have not called any tool" in feedback(fake.chat_requests[1])[-1]


def test_the_correction_relayed_as_the_answer_is_an_error(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """Corrected for a claimed result, a small model answered with the correction itself
    ("You have not called any tool in this turn ..."): that is no answer for the user."""
    claim = text("Using the tides__times tool: high tide in Brest is at 9:00.")
    fake.script(claim, lambda request: text(feedback(request)[-1]))
    never = {"HOMECLAW_LLM__DECIDE": "never"}
    result = chat("-q", "tide times for the harbour of Brest", env=never)
    assert "You have not called any tool" in feedback(fake.chat_requests[1])[-1]
    assert result.exit_code == 1 and result.stdout == ""
    assert "the model repeated homeclaw's correction instead of answering" in result.stderr


def test_an_act_claimed_with_nothing_offered_becomes_a_plain_no(
    ask: Callable[..., Any], fake: FakeOllama
) -> None:
    """Offered nothing, small models say the alarm is set; nothing was, so the claim gets one
    corrective round and the user reads the model's second answer."""
    result = ask(
        "set an alarm at six am tomorrow",
        "Set an alarm for 6 AM tomorrow.",
        "I can't set alarms here.",
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "I can't set alarms here.\n"
    assert offered(fake.chat_requests[1]) == []
    told = feedback(fake.chat_requests[1])[-1]
    assert told.startswith("Your reply says it was done, but nothing was done in this chat.")
    assert "tool" not in told  # a turn without tools has no tool talk
    # a plain answer to a request for an act is no claim: it goes out as it is
    result = ask(
        "set an alarm at six am tomorrow", "To set an alarm, open the clock app on your phone."
    )
    assert result.stdout == "To set an alarm, open the clock app on your phone.\n"
    assert len(fake.chat_requests) == 3


def test_an_offer_to_do_the_act_asked_for_becomes_a_plain_no(
    ask: Callable[..., Any], fake: FakeOllama
) -> None:
    """An offer ("Sure, I can help you with that!") to "switch on the lights" tells the user it
    will be done; nothing here can do it, so it gets the same one corrective round as a claim."""
    result = ask(
        "switch on the lights", "Sure, I can help you with that.", "I can't switch lights here."
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "I can't switch lights here.\n"
    told = feedback(fake.chat_requests[1])[-1]
    assert told.startswith("Your reply offers to do it, but nothing in this chat can do it.")
    # an offer to write something is what the model itself does: it goes out as it is
    result = ask(
        "can you help me write a resignation letter",
        "Sure, I can help you with that. What is your name?",
    )
    assert result.stdout == "Sure, I can help you with that. What is your name?\n"
    assert len(fake.chat_requests) == 3


def test_an_act_reported_in_a_few_words_is_a_claim(
    ask: Callable[..., Any], fake: FakeOllama
) -> None:
    """To "remind me to buy milk", with nothing that can set one, "Reminder set for 10 AM."
    tells the user it is done: it gets the corrective round; a fact in the same shape to a
    question goes out as it is."""
    result = ask("remind me to buy milk", "Reminder set for 10 AM.", "I can't set reminders here.")
    assert result.stdout == "I can't set reminders here.\n"
    assert "says it was done, but nothing was done" in feedback(fake.chat_requests[1])[-1]
    result = ask("when did apollo 11 launch", "Apollo 11 launched on July 16, 1969.")
    assert result.stdout == "Apollo 11 launched on July 16, 1969.\n"
    assert len(fake.chat_requests) == 3


def test_a_current_figure_no_plugin_gave_becomes_a_plain_no(
    ask: Callable[..., Any], fake: FakeOllama
) -> None:
    """Asked for today's stock price with nothing that fetches one, small models state one
    ("currently trading at $10"): it gets one corrective round, and if the second answer
    still states one, it is not shown and the turn fails with what was withheld."""
    result = ask(
        "how is shell stock doing today",
        "Shell stock is currently trading at $10.",
        "I can't check that here.",
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "I can't check that here.\n"
    told = feedback(fake.chat_requests[1])[-1]  # a turn without tools has no tool talk
    assert told.startswith("Your reply states current figures, but nothing") and "tool" not in told
    result = ask(
        "how is shell stock doing today", "It trades at $10 today.", "Shell trades at $10.20 today."
    )
    assert result.exit_code == 1 and result.stdout == ""
    assert "not shown: the model stated current figures nothing gave" in result.stderr
    assert "Shell trades at $10.20 today." in result.stderr
    # a figure that is no current value, or one the user gave, goes out as it is
    circle = "A circle has 360 degrees."
    assert ask("degrees in a circle", circle).stdout == circle + "\n"
    cold = "Yes, 10 degrees is cold."
    assert ask("is 10 degrees cold today", cold).stdout == cold + "\n"
    assert len(fake.chat_requests) == 6


def test_an_act_claimed_without_a_call_is_sent_to_the_offered_tools(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(
        text("I've sent you the tide times for Brest."),
        tool_call("tides__times", {"harbour": "Brest"}),
    )
    never = {"HOMECLAW_LLM__DECIDE": "never"}
    result = chat("-q", "tide times for the harbour of Brest", env=never)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide in Brest at 06:12.\n"
    assert "call it now: " in feedback(fake.chat_requests[1])[-1]
    assert "tides__times" in feedback(fake.chat_requests[1])[-1]


def _decision(request: dict[str, Any]) -> Reply | str:
    schema = request.get("format") or {}
    cap = (request.get("options") or {}).get("num_predict")
    if "tool" in schema.get("properties", {}):
        assert "tides__times" in schema["properties"]["tool"]["enum"]
        assert "answer" in schema["properties"]["tool"]["enum"]
        assert cap == 48  # a name: a schema-bound reply must not run on for minutes
        return text('{"tool": "tides__times"}')
    assert schema["required"] == ["harbour"]  # the tool's own parameters
    assert cap == 256
    return text('{"harbour": "Cork"}')


def test_the_constrained_decision_calls_the_plugin_the_model_skipped(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(text("High tide is probably around noon."), _decision, _decision)
    always = {"HOMECLAW_LLM__DECIDE": "always"}
    result = chat("-q", "tide times in the harbour of Cork", "--trace", env=always)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide in Cork at 06:12.\n"  # the guess was never shown
    assert "tools" not in fake.chat_requests[1] or not fake.chat_requests[1]["tools"]
    # The decision's calls are named as such, not as model round 1 all over again.
    models = [re.sub(r"\(\d+ ms\)", "", line) for line in result.stderr.splitlines()]
    assert [line for line in models if "round" in line] == [
        "model round 1 : answer",
        "  decision call in round 1 : picked tides__times",
        "  decision call in round 1 : arguments for tides__times",
    ]
    fake.script(text("High tide is probably around noon."), _decision, _decision)
    as_json = chat("-q", "tide times in the harbour of Cork", "--json", env=always)
    llm = [s for s in payload(as_json)["trace"] if s["kind"] == "llm"]
    assert [(s["round"], s.get("decision")) for s in llm] == [
        (1, None),
        (1, "pick"),
        (1, "arguments"),
    ]


SCALES_YAML = """\
id: scales
name: Kitchen scales
description: Weigh flour, sugar and butter by the cup or the spoon.
type: inline
effects: read
capabilities:
  - id: weigh
    name: Weigh
    description: The weight in grams of an amount of an ingredient.
    parameters:
      - {name: ingredient, type: string, required: true}
      - {name: cups, type: number, required: true}
"""
SCALES_PY = """\
from homeclaw_cli.sdk import BasePlugin


class Scales(BasePlugin):
    def weigh(self, ingredient: str, cups: float) -> str:
        return f"{cups} cups of {ingredient} weigh {cups * 125:g} g."
"""


def _decides(tool: str, arguments: str) -> Callable[[dict[str, Any]], Reply | str]:
    """The scripted decision: the tool-or-answer question picks `tool`, then its arguments."""

    def reply(request: dict[str, Any]) -> Reply | str:
        schema = request.get("format") or {}
        return text(
            f'{{"tool": "{tool}"}}' if "tool" in schema.get("properties", {}) else arguments
        )

    return reply


_weigh = _decides("scales__weigh", '{"ingredient": "flour", "cups": 2}')
# Any retrieval score gets the plugin offered, so the tests read the decision alone.
LOW_BAR = {
    "HOMECLAW_LLM__DECIDE": "auto",
    "HOMECLAW_PLUGINS__SIMILARITY_THRESHOLD": "0.05",
    "HOMECLAW_PLUGINS__BEST_OVER_THRESHOLD": "0",
}


def test_a_figure_for_a_plugin_that_looks_things_up_gets_the_decision(
    chat: Callable[..., Any], fake: FakeOllama, plugins: Path
) -> None:
    """Under the confident score, a request with a number for a plugin that takes one and only
    reads gets the decision when the free answer states a figure of its own: small models
    work figures out from memory, and get them wrong."""
    write_plugin(plugins, "scales", SCALES_YAML, SCALES_PY)
    fake.script(text("About 240 g."), _weigh, _weigh)
    result = chat("-q", "heavy: 2 cups sugar?", "--trace", env=LOW_BAR)
    assert result.exit_code == 0, result.stderr
    assert re.search(r"plugins scales 0\.[1-4]", result.stderr), result.stderr
    assert result.stdout == "2 cups of flour weigh 250 g.\n"  # what the scripted decision asked
    assert "decision call in round 1" in result.stderr
    for request, answer in [
        ("heavy: 2 cups sugar?", "It depends."),
        ("heavy: cups sugar?", "240."),
    ]:
        fake.script(text(answer))  # no figure of its own, or no number asked about: no check
        plain = chat("-q", request, "--trace", env=LOW_BAR)
        assert plain.stdout == answer + "\n" and "decision call" not in plain.stderr


ABACUS_YAML = """\
id: abacus
name: Abacus
description: Work out sums of numbers written in words or figures.
type: inline
effects: read
capabilities:
  - id: work
    name: Work out
    description: The result of a sum.
    parameters:
      - {name: sum, type: string, required: true, example: "12 + 30"}
"""
ABACUS_PY = """\
from homeclaw_cli.sdk import BasePlugin


class Abacus(BasePlugin):
    def work(self, sum: str) -> str:
        left, right = sum.split("*")
        return f"{sum} = {int(left) * int(right)}"
"""


_abacus = _decides("abacus__work", '{"sum": "12 * 8"}')


@pytest.mark.parametrize("example", ['"12 + 30"', "a sum"])
def test_a_figure_worked_out_in_words_gets_the_decision_for_a_plugin_taking_figures_as_text(
    chat: Callable[..., Any], fake: FakeOllama, plugins: Path, example: str
) -> None:
    """ "what is twelve times eight", answered "ninety-six" from memory: the request's numbers
    and the answer's are words, and the plugin takes its figures as text (its parameter's
    example is a sum), so the decision asks and the plugin works it out. A text parameter whose
    example holds no figure takes no figures: the answer stands."""
    write_plugin(plugins, "abacus", ABACUS_YAML.replace('"12 + 30"', example), ABACUS_PY)
    fake.script(text("Twelve times eight is ninety-six."), _abacus, _abacus)
    result = chat("-q", "what is twelve times eight, abacus", "--trace", env=LOW_BAR)
    assert result.exit_code == 0, result.stderr
    assert re.search(r"plugins abacus 0\.[1-4]", result.stderr), result.stderr
    if example == "a sum":
        assert result.stdout == "Twelve times eight is ninety-six.\n"
        assert "decision call" not in result.stderr
        return
    assert result.stdout == "12 * 8 = 96\n"
    assert "decision call in round 1" in result.stderr


def test_decision_arguments_cut_short_leave_the_free_answer(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    cut = text('{"harbour": "Cork                                ')  # the cap hit mid-string
    pick = text('{"tool": "tides__times"}')
    fake.script(text("High tide is probably around noon."), pick, cut)
    env = {"HOMECLAW_LLM__DECIDE": "always", "HOMECLAW_LLM__MAX_REPLY_TOKENS": "32"}
    result = chat("-q", "tide times in the harbour of Cork", env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide is probably around noon.\n"
    caps = [(r.get("options") or {}).get("num_predict") for r in fake.chat_requests]
    assert caps == [32, 32, 32]  # the configured cap is lower than the decision's own


def test_a_follow_up_to_a_plugin_turn_gets_the_decision(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """ "and Cork?" after a tide call: the model answered from memory, the decision calls the
    plugin the previous turn used (also when the conversation is continued with -c)."""
    fake.script(tool_call("tides__times", {"harbour": "Brest"}))
    first = chat("-q", "tide times for the harbour of Brest")
    assert first.exit_code == 0, first.stderr
    fake.script(text("Probably the same, around 6."), _decision, _decision)
    result = chat("-c", "-q", "and Cork?", "--trace", env={"HOMECLAW_LLM__DECIDE": "auto"})
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide in Cork at 06:12.\n"
    assert "decision call in round 1 (" in result.stderr


def test_a_sure_reading_plugin_is_called_for_figures_the_model_gave_itself(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """ "and Cork?" after a tide call, answered with a time from memory: the plugin retrieval
    was sure of has one capability and only reads, so it is called without asking whether a
    tool is needed (asked, small models keep their own figures)."""
    fake.script(tool_call("tides__times", {"harbour": "Brest"}))
    assert chat("-q", "tide times for the harbour of Brest").exit_code == 0
    fake.script(text("High tide in Cork at 14:05."), _decision)
    result = chat("-c", "-q", "and Cork?", "--trace", env={"HOMECLAW_LLM__DECIDE": "auto"})
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide in Cork at 06:12.\n"
    assert "arguments for tides__times" in result.stderr and "picked" not in result.stderr


def test_the_decision_reads_the_previous_call_a_follow_up_changes(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """The arguments of "and Cork?" are asked for with the previous turn's call written out
    before its answer, so the values the user did not change are there to keep."""
    fake.script(tool_call("tides__times", {"harbour": "Brest"}))
    assert chat("-q", "tide times for the harbour of Brest").exit_code == 0
    fake.script(text("High tide in Cork at 14:05."), _decision)
    result = chat("-c", "-q", "and Cork?", env={"HOMECLAW_LLM__DECIDE": "auto"})
    assert result.exit_code == 0, result.stderr
    asked = fake.chat_requests[-1]["messages"]
    assert [m["role"] for m in asked] == ["system", "user", "assistant", "user"]
    assert asked[2]["content"] == 'tides__times {"harbour": "Brest"}\nHigh tide in Brest at 06:12.'
    assert not any(m.get("tool_calls") for m in asked)


def test_a_follow_up_after_a_turn_without_plugins_is_answered_freely(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(text("Hello!"))
    assert chat("-q", "hello there").exit_code == 0
    fake.script(text("Tides follow the moon."))
    result = chat("-c", "-q", "and tides?", env={"HOMECLAW_LLM__DECIDE": "auto"})
    assert result.exit_code == 0 and result.stdout == "Tides follow the moon.\n"
    assert len(fake.chat_requests) == 2  # no decision requests


def test_a_call_to_a_weakly_retrieved_plugin_is_questioned_and_may_become_an_answer(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """Retrieval barely matched the plugin; the model called it anyway. The tool-or-answer
    question picks `answer`, so the call never runs and a plain answer is asked for."""
    fake.script(
        tool_call("tides__times", {"harbour": "Ireland"}),
        text('{"tool": "answer"}'),
        text("Dublin is the capital of Ireland."),
    )
    result = chat("-q", "which city is the capital of ireland, the one with the harbour", "--json")
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert data["answer"] == "Dublin is the capital of Ireland."
    assert not [s for s in data["trace"] if s.get("kind") == "tool"]  # tides never ran
    assert "tools" not in fake.chat_requests[2] or not fake.chat_requests[2]["tools"]


def test_a_call_to_a_weakly_retrieved_plugin_runs_when_the_question_picks_it(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(
        tool_call("tides__times", {"harbour": "Ireland"}),
        text('{"tool": "tides__times"}'),
    )
    result = chat("-q", "which city is the capital of ireland, the one with the harbour")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide in Ireland at 06:12.\n"
    assert len(fake.chat_requests) == 2


def test_a_weak_call_with_values_from_nowhere_is_not_run(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """The harbour "Cork" is in no message: the model filled the barely matched plugin in by
    itself. The call is not run and the model answers without tools, no question asked first."""
    fake.script(tool_call("tides__times", {"harbour": "Cork"}), text("Dublin."))
    result = chat("-q", "which city is the capital of ireland, the one with the harbour", "--json")
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert data["answer"] == "Dublin."
    kinds = [s["kind"] for s in data["trace"]]
    assert "tool" not in kinds and len(fake.chat_requests) == 2
    skipped = next(s for s in data["trace"] if s["kind"] == "skipped_call")
    assert skipped["name"] == "tides__times" and skipped["arguments"] == {"harbour": "Cork"}
    assert "made up 'Cork': in no message" in skipped["reason"]
    assert not fake.chat_requests[1].get("tools")
    answer_system = fake.chat_requests[1]["messages"][0]["content"]
    assert f"Today is {date.today():%A}" in answer_system  # "what's the date" needs no tool
    fake.script(tool_call("tides__times", {"harbour": "Cork"}), text("Dublin."))
    traced = chat("-q", "which city is the capital of ireland, the one with the harbour", "--trace")
    assert 'tool tides__times({"harbour": "Cork"}) -> not run: made up' in traced.stderr


def test_a_call_whose_value_is_the_tools_own_description_is_not_run(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """Retrieval was sure of the plugin, but the harbour the model gave is the capability's
    own description: the user said no such thing, so the model answers without the tool."""
    fake.script(
        tool_call("tides__times", {"harbour": "Tide times for a harbour."}),
        text("Ask me again with a harbour."),
    )
    result = chat("-q", "tide please", "--json")
    assert result.exit_code == 0, result.stderr
    data = payload(result)
    assert data["answer"] == "Ask me again with a harbour."
    skipped = next(s for s in data["trace"] if s["kind"] == "skipped_call")
    assert "copied 'Tide times for a harbour.' from the tool's own description" in skipped["reason"]
    assert "tool" not in [s["kind"] for s in data["trace"]]


def test_values_from_nowhere_run_when_checks_are_off(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """(On a strong match the same guess is a question: test_chat_asks_for_values.py.)"""
    fake.script(tool_call("tides__times", {"harbour": "Cork"}))
    never = {"HOMECLAW_LLM__DECIDE": "never"}
    result = chat("-q", "which city is the capital of ireland, the one with the harbour", env=never)
    assert result.stdout == "High tide in Cork at 06:12.\n"


def test_the_question_may_move_a_weak_call_to_the_other_offered_plugin(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """The model called the greeter for a tide question; asked, it picks the tide plugin,
    whose arguments are asked for under its own schema."""
    fake.script(tool_call("greeter__hello", {"name": "Ireland"}), _decision, _decision)
    # "hello" alone is too weak a keyword match to offer the greeter at the default threshold
    low = {"HOMECLAW_PLUGINS__SIMILARITY_THRESHOLD": "0.05"}
    result = chat(
        "-q", "which city is the capital of ireland, the one with the harbour, hello", env=low
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "High tide in Cork at 06:12.\n"
    assert {"greeter__hello", "tides__times"} <= set(offered(fake.chat_requests[0]))


def test_arguments_the_question_copies_from_the_description_are_not_run(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    """Asked for the tide plugin's arguments, the model gives its description as the harbour:
    the call is not run, and the model answers without tools."""

    def copying(request: dict[str, Any]) -> Reply | str:
        if "tool" in (request.get("format") or {}).get("properties", {}):
            return text('{"tool": "tides__times"}')
        return text('{"harbour": "Tide times for a harbour."}')

    fake.script(tool_call("greeter__hello", {"name": "Ireland"}), copying, copying)
    fake.script(text("Dublin."))
    low = {"HOMECLAW_PLUGINS__SIMILARITY_THRESHOLD": "0.05"}
    request = "which city is the capital of ireland, the one with the harbour, hello"
    result = chat("-q", request, "--json", env=low)
    data = payload(result)
    assert data["answer"] == "Dublin."
    assert "tool" not in [s["kind"] for s in data["trace"]]
    skipped = next(s for s in data["trace"] if s["kind"] == "skipped_call")
    assert skipped["name"] == "tides__times" and "copied" in skipped["reason"]


def test_the_decision_may_keep_the_answer(chat: Callable[..., Any], fake: FakeOllama) -> None:
    fake.script(text("Tides follow the moon."), text('{"tool": "answer"}'))
    result = chat("-q", "why are there tides in a harbour", env={"HOMECLAW_LLM__DECIDE": "always"})
    assert result.exit_code == 0 and result.stdout == "Tides follow the moon.\n"
    assert len(fake.chat_requests) == 2


def test_small_talk_offers_no_tools_and_time_offers_the_clock(
    chat: Callable[..., Any], fake: FakeOllama
) -> None:
    fake.script(text("Canberra."), text("It is noon."))
    nothing = NOTHING_OFFERED
    assert chat("-q", "whats the capital of australia", env=nothing).stdout == "Canberra.\n"
    first = fake.chat_requests[0]
    assert offered(first) == []
    assert "tool" not in first["messages"][0]["content"].lower()  # no tool talk either
    chat("-q", "which day of the week is today", env=nothing)
    assert "current_time" in offered(fake.chat_requests[1])
    fake.script(text("Fine, thanks!"))
    assert chat("-q", "hello, how's your day", env=nothing).stdout == "Fine, thanks!\n"
    assert offered(fake.chat_requests[2]) == []
    # a day that qualifies the request is not a question about the clock
    # nor is a time to act at: the clock cannot set an alarm or a timer
    idle = ("any sushi place open tonight", "joke of the day", "alarm time for twelve pm")
    for n, request in enumerate((*idle, "remind me at 5 pm what day it is"), start=3):
        fake.script(text("Sure."))
        chat("-q", request, env=nothing)
        assert offered(fake.chat_requests[n]) == [], request


def test_a_plugin_whose_server_is_down_is_not_offered(
    chat: Callable[..., Any], fake: FakeOllama, plugins: Path
) -> None:
    (plugins / "lamp").mkdir()
    (plugins / "lamp" / "plugin.yaml").write_text(
        "id: lamp\nname: Lamp\ndescription: Switch the tide lamp of the harbour on or off.\n"
        "keywords: [lamp, tide, harbour]\ntype: http\n"
        f"config: {{base_url: '{unused_port_host()}'}}\n"
        "capabilities:\n  - {id: switch, name: Switch, description: Switch the lamp.}\n"
    )
    fake.script(text("ok"))
    shown = chat("-q", "switch the tide lamp of the harbour on", "--json")
    data = payload(shown)
    assert "lamp" in [p["id"] for p in data["retrieved"]["plugins"]]
    assert "lamp__switch" not in data["tools_offered"]
    assert "lamp__switch" not in offered(fake.chat_requests[0])
    # the user hears why, since the answer came without it
    (held,) = data["held_back"]
    assert held["id"] == "lamp" and held["reason"].endswith("does not answer")
    (warning,) = envelope(shown)["warnings"]
    assert warning.startswith("plugin lamp matched this request but was not offered: its server")
    assert "start it, or `homeclaw plugin disable lamp`" in warning
