"""One round of a turn: one model call, then its answer or its tool calls.

A plugin's result ends the turn: its text goes to the user as is, or through one more model
call with the capability's post_process_prompt (seed 000 §5.7), streamed. Text the model
streams is shown as it arrives unless it could be a tool call written as JSON.
"""

from __future__ import annotations

import time

from homeclaw_cli.core.ports import LLM, ChatMessage, TextSink
from homeclaw_cli.core.tool_parse import AnswerStreamer, TextGate, json_mode_schema, strip_think
from homeclaw_cli.core.tool_registry import ToolOutcome
from homeclaw_cli.core.trace import LlmStep, PostProcessStep
from homeclaw_cli.core.turn_calls import TurnState, assistant_message, read_reply, run_calls

DEFAULT_POST_PROCESS_PROMPT = (
    "Turn the tool output below into a short, friendly answer to the user's request. "
    "Use only facts from the output."
)


async def run_round(llm: LLM, state: TurnState, round_no: int) -> bool:
    """One model call and its tool calls; True when the turn has its answer."""
    names = state.tools.names()
    stream = TextGate(state.on_text) if state.native else AnswerStreamer(state.on_text)
    state.status("thinking")
    try:
        reply = await llm.chat(
            state.messages,
            tools=state.tools.schemas() if state.native else None,
            format=None if state.native else json_mode_schema(names),
            on_text=stream,
        )
    finally:
        state.status(None)
    state.llm_seconds += reply.seconds
    move = read_reply(reply, names, native=state.native)
    state.steps.append(
        LlmStep(
            seconds=reply.seconds,
            round=round_no,
            prompt_tokens=reply.prompt_tokens,
            eval_tokens=reply.eval_tokens,
            tool_calls=[call.name for call in move.calls],
            call_source=move.source if move.calls else None,
        )
    )
    if not move.calls:
        state.answer = move.answer
        _show_held_back(state.on_text, stream, move.answer)
        return True
    if state.on_text and isinstance(stream, TextGate) and stream.emitted:
        state.on_text("\n")  # keep the model's preamble apart from what follows
    preamble = move.content if move.source == "native" else ""
    state.messages.append(assistant_message(preamble, move.calls))
    final = await run_calls(state, move.calls)
    if final is None:
        return False
    state.answer = await _deliver(llm, state, final)
    return True


def _show_held_back(
    on_text: TextSink | None, stream: TextGate | AnswerStreamer, answer: str
) -> None:
    """An answer that did not stream (it looked like JSON at first) is shown whole."""
    if on_text is None or stream.emitted:
        return
    text = strip_think(stream.buffer) if isinstance(stream, TextGate) else answer
    if text:
        on_text(text)


async def _deliver(llm: LLM, state: TurnState, outcome: ToolOutcome) -> str:
    """The plugin's result for the user: as is, or through the post-process call."""
    if not outcome.post_process:
        if state.on_text:
            state.on_text(outcome.text)
        return outcome.text
    started = time.perf_counter()
    state.status("thinking")
    try:
        answer = await post_process(llm, state.message, outcome, state.on_text)
    finally:
        state.status(None)
    spent = time.perf_counter() - started
    state.steps.append(PostProcessStep(seconds=spent))
    state.llm_seconds += spent
    return answer


async def post_process(
    llm: LLM, message: str, outcome: ToolOutcome, on_text: TextSink | None
) -> str:
    """One more model call that turns a plugin's output into the answer, streamed."""
    system = outcome.post_process_prompt or DEFAULT_POST_PROCESS_PROMPT
    messages: list[ChatMessage] = [
        {"role": "system", "content": system},
        {"role": "user", "content": f"Request: {message}\n\nOutput:\n{outcome.text}"},
    ]
    gate = TextGate(on_text)
    reply = await llm.chat(messages, on_text=gate)
    answer = strip_think(reply.content)
    if on_text and not gate.emitted and answer:
        on_text(answer)
    return answer
