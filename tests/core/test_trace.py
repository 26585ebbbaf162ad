"""Trace steps serialize to the JSON `--json` and the conversation log have always read."""

from __future__ import annotations

from homeclaw_cli.core.trace import (
    HitSummary,
    LlmStep,
    PostProcessStep,
    PromptStep,
    RetrieveStep,
    ToolStep,
)


def test_each_step_starts_with_kind_and_rounded_seconds() -> None:
    steps = [
        RetrieveStep(seconds=0.1234567, query="q", plugins=[], skills=[], fallback=True),
        PromptStep(
            0.5, system_tokens=1, tool_tokens=2, tools=[], history_messages=0, history_dropped=0
        ),
        LlmStep(0.5, round=1, prompt_tokens=None, eval_tokens=None),
        ToolStep(0.5, name="t", arguments={}, ok=True, output=""),
        PostProcessStep(0.5),
    ]
    kinds = [list(s.to_json().items())[:2] for s in steps]
    assert kinds[0] == [("kind", "retrieve"), ("seconds", 0.123457)]
    assert [k[0][1] for k in kinds] == ["retrieve", "prompt", "llm", "tool", "post_process"]


def test_retrieve_step_keys_and_hit_scores() -> None:
    hit = HitSummary("weather", 0.876543, "kept")
    step = RetrieveStep(0.0, query="rain?", plugins=[hit], skills=[], fallback=False)
    assert step.to_json() == {
        "kind": "retrieve",
        "seconds": 0.0,
        "query": "rain?",
        "plugins": [{"id": "weather", "score": 0.8765, "reason": "kept"}],
        "skills": [],
        "fallback": False,
    }


def test_llm_tool_and_post_process_keys() -> None:
    llm = LlmStep(
        0.0, round=2, prompt_tokens=10, eval_tokens=3, tool_calls=["a"], call_source="content"
    )
    assert llm.to_json() == {
        "kind": "llm",
        "seconds": 0.0,
        "round": 2,
        "prompt_tokens": 10,
        "eval_tokens": 3,
        "tool_calls": ["a"],
        "call_source": "content",
    }
    tool = ToolStep(0.0, name="weather__now", arguments="{bad", ok=False, output="no")
    assert tool.to_json() == {
        "kind": "tool",
        "seconds": 0.0,
        "name": "weather__now",
        "arguments": "{bad",
        "ok": False,
        "output": "no",
    }
    assert PostProcessStep(0.0).to_json() == {
        "kind": "post_process",
        "seconds": 0.0,
        "streamed": True,
    }


def test_prompt_step_keys() -> None:
    step = PromptStep(
        0.0, system_tokens=5, tool_tokens=7, tools=["a", "b"], history_messages=2, history_dropped=4
    )
    assert list(step.to_json()) == [
        "kind",
        "seconds",
        "system_tokens",
        "tool_tokens",
        "tools",
        "history_messages",
        "history_dropped",
    ]
