"""The --trace view renders each kind of step."""

from __future__ import annotations

from homeclaw_cli.core.trace import (
    HitSummary,
    LlmStep,
    PostProcessStep,
    PromptStep,
    RetrieveStep,
    ToolStep,
)
from homeclaw_cli.core.turn_result import TurnResult
from homeclaw_cli.surfaces.trace import step_lines, trace_lines


def test_every_step_has_its_line() -> None:
    hit = HitSummary("weather", 0.9, "kept")
    assert step_lines(RetrieveStep(0.012, "q", [hit], [], fallback=False)) == [
        "retrieve (12 ms): plugins weather 0.90"
    ]
    assert step_lines(RetrieveStep(0.0, "q", [], [HitSummary("greet", 0.5, "kept")], True)) == [
        "retrieve (0 ms): plugins none; skills greet 0.50"
    ]
    assert step_lines(PromptStep(0.0, 100, 50, ["a", "b"], 0, 0)) == [
        "prompt: 100 system + 50 tool tokens, 2 tools"
    ]
    assert step_lines(LlmStep(0.2, 1, None, None)) == ["model round 1 (200 ms): answer"]
    assert step_lines(LlmStep(0.2, 2, None, None, ["a", "b"], "content")) == [
        "model round 2 (200 ms): a, b [content]"
    ]
    assert step_lines(PostProcessStep(0.3)) == ["post-process (300 ms)"]


def test_the_decision_calls_are_not_rounds_of_their_own() -> None:
    pick = LlmStep(0.1, 1, None, None, ["a"], "decided", decision="pick")
    assert step_lines(pick) == ["  decision call in round 1 (100 ms): picked a"]
    unusable = LlmStep(0.1, 1, None, None, [], "decided", decision="arguments")
    assert step_lines(unusable) == ["  decision call in round 1 (100 ms): arguments not usable"]
    plain = LlmStep(0.1, 1, None, None, [], None, decision="answer")
    assert step_lines(plain) == ["  decision call in round 1 (100 ms): answered without tools"]
    assert "decision" not in LlmStep(0.1, 1, None, None).to_json()


def test_a_failed_tool_call_shows_its_error() -> None:
    ok = ToolStep(0.001, "read_file", {"path": "é.txt"}, ok=True, output="text")
    assert step_lines(ok) == ['tool read_file({"path": "é.txt"}) -> ok (1 ms)']
    bad = ToolStep(0.001, "weather__now", "{oops", ok=False, output="x" * 300)
    assert step_lines(bad) == ['tool weather__now("{oops") -> error (1 ms)', "  " + "x" * 200]


def test_the_last_line_sums_up_the_timings() -> None:
    result = TurnResult("hi", steps=[PostProcessStep(0.0)])
    result.timings = {"total": 1.0, "llm": 0.5, "tools": 0.25, "retrieve": 0.125, "overhead": 0.0}
    assert trace_lines(result)[-1] == (
        "total 1000 ms (model 500, tools 250, retrieval 125, overhead 0.0)"
    )


def test_a_part_asked_on_its_own_is_named() -> None:
    result = TurnResult(message="5 mi in km and 17 times 23")
    result.steps = [
        RetrieveStep(0.001, "5 mi in km and 17 times 23", [], [], fallback=False),
        RetrieveStep(0.001, "17 times 23", [], [], fallback=False),
    ]
    lines = trace_lines(result)
    assert lines[1] == "part asked on its own: '17 times 23'"
    assert lines[0].startswith("retrieve") and lines[2].startswith("retrieve")
