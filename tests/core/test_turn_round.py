"""One model round: what reaches the user, and the post-process call."""

from __future__ import annotations

import asyncio

from homeclaw_cli.core.ports import ChatMessage, LLMReply, LLMToolCall
from homeclaw_cli.core.tool_registry import Tool, ToolOutcome, ToolRegistry, object_schema
from homeclaw_cli.core.trace import LlmStep, PostProcessStep
from homeclaw_cli.core.turn_calls import TurnState
from homeclaw_cli.core.turn_round import DEFAULT_POST_PROCESS_PROMPT, run_round
from tests.fakes.agent_fakes import FakeLLM


def _state(sink: list[str], outcome: ToolOutcome | None = None) -> TurnState:
    tools = ToolRegistry()

    async def handler(args: dict[str, object]) -> ToolOutcome:
        return outcome or ToolOutcome(True, "12:00")

    tools.add(Tool("clock__now", "time", object_schema({}), handler, kind="plugin"))
    return TurnState("what time?", tools, True, [], [], on_text=sink.append)


def test_an_answer_ends_the_round_and_is_streamed() -> None:
    sink: list[str] = []
    state = _state(sink)
    assert asyncio.run(run_round(FakeLLM("It is noon."), state, 1))
    assert state.answer == "It is noon." and "".join(sink) == "It is noon. "
    step = state.steps[0]
    assert isinstance(step, LlmStep) and step.call_source is None and step.tool_calls == []


def test_a_json_looking_answer_is_held_back_then_shown_whole() -> None:
    sink: list[str] = []
    state = _state(sink)
    assert asyncio.run(run_round(FakeLLM('{"name": "Ada"}'), state, 1))
    assert sink == ['{"name": "Ada"} ']


def test_a_preamble_is_not_shown_only_the_plugin_result() -> None:
    sink: list[str] = []
    state = _state(sink, ToolOutcome(True, "12:00", final=True))
    reply = LLMReply("Checking.", [LLMToolCall("clock__now", {})])
    assert asyncio.run(run_round(FakeLLM(reply), state, 1))
    assert sink == ["12:00"] and state.answer == "12:00"
    assert state.messages[0]["content"] == "Checking."  # the preamble stays in the conversation


def test_a_non_final_tool_result_asks_for_another_round() -> None:
    state = _state([])
    assert not asyncio.run(
        run_round(FakeLLM(LLMReply("", [LLMToolCall("clock__now", {})])), state, 1)
    )
    assert state.answer is None and state.messages[-1]["role"] == "tool"


def test_post_process_uses_the_default_prompt_when_the_plugin_has_none() -> None:
    sink: list[str] = []
    state = _state(sink, ToolOutcome(True, "12:00", final=True, post_process=True))
    llm = FakeLLM(LLMReply("", [LLMToolCall("clock__now", {})]), "It is noon.")
    assert asyncio.run(run_round(llm, state, 1))
    system, user = llm.requests[1]["messages"]
    assert system == {"role": "system", "content": DEFAULT_POST_PROCESS_PROMPT}
    assert user["content"] == "Request: what time?\n\nOutput:\n12:00"
    assert state.answer == "It is noon." and isinstance(state.steps[-1], PostProcessStep)


def test_a_claim_that_something_was_done_is_held_back_and_corrected() -> None:
    """Past the 160 characters a reply is held for, prose claiming an act with no tool run
    stays held: a correction round replaces it, and the user never reads the claim."""
    sink: list[str] = []
    state = TurnState("book a train for me", ToolRegistry(), True, [], [], on_text=sink.append)
    claim = "Sure, I can help you book a train for you. " + "Tell me where from and when. " * 8
    assert not asyncio.run(run_round(FakeLLM(claim), state, 1))
    assert sink == [] and state.answer is None
    assert state.messages[-1]["content"].startswith("Your reply says it was done, but nothing")
    assert asyncio.run(run_round(FakeLLM("I can't book trains here."), state, 2))
    assert state.answer == "I can't book trains here." and "".join(sink).strip() == state.answer


def test_current_figures_nothing_gave_are_held_back_and_corrected() -> None:
    """Prose stating today's price with no tool run stays held past 160 characters; the
    correction round replaces it, and an answer that still states one is not shown."""
    sink: list[str] = []
    request = "how is shell stock doing"
    messages: list[ChatMessage] = [{"role": "system", "content": "Today is Sunday 2026-11-29."}]
    messages.append({"role": "user", "content": request})
    state = TurnState(request, ToolRegistry(), True, messages, [], on_text=sink.append)
    guess = "Shell stock is currently trading at $61.20. " + "Markets move every day. " * 8
    assert not asyncio.run(run_round(FakeLLM(guess), state, 1))
    assert sink == [] and state.answer is None
    assert state.messages[-1]["content"].startswith("Your reply states current figures")
    assert asyncio.run(run_round(FakeLLM("It trades at $61.20 today."), state, 2))
    assert sink == [] and state.answer == ""
    assert state.stopped and "It trades at $61.20 today." in state.stopped


def test_an_answer_to_a_request_about_now_is_read_whole_before_it_is_shown() -> None:
    """To "what are the sensex points today", a figure stated past the first 160 characters
    is still caught before the user reads any of the answer."""
    sink: list[str] = []
    request = "what are the sensex points today"
    messages: list[ChatMessage] = [{"role": "user", "content": request}]
    state = TurnState(request, ToolRegistry(), True, messages, [], on_text=sink.append, own_from=0)
    guess = "The Sensex tracks thirty large companies of India. " * 4 + "It is at 5,400 points."
    assert not asyncio.run(run_round(FakeLLM(guess), state, 1))
    assert sink == [] and state.messages[-1]["content"].startswith("Your reply states current")
    sink.clear()
    assert asyncio.run(run_round(FakeLLM("The Sensex is an index. " * 10), state, 2))
    assert "".join(sink).strip() == (state.answer or "").strip()  # shown whole once read
