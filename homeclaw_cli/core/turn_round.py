"""One round of a turn: one model call, then its answer or its tool calls.

A plugin's result ends the turn: its text goes to the user as is, or through one more model
call with the capability's post_process_prompt (seed 000 §5.7), streamed; each result of a
reply that called several plugins does, one after the other. Text the model
streams is shown as it arrives unless it could be a tool call written as JSON.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from homeclaw_cli.core.answer_checks import (
    check_answer,
    relays_correction,
    strip_calls,
    strip_output_tags,
    written_call,
)
from homeclaw_cli.core.figures import figures_beyond
from homeclaw_cli.core.grounding import conversation_text
from homeclaw_cli.core.live_figures import asks_now, current_figures
from homeclaw_cli.core.ports import LLM, ChatMessage, TextSink
from homeclaw_cli.core.tool_parse import AnswerStreamer, TextGate, json_mode_schema, strip_think
from homeclaw_cli.core.tool_registry import ToolOutcome
from homeclaw_cli.core.tool_text import fit_tool_text, window_room
from homeclaw_cli.core.trace import PostProcessStep
from homeclaw_cli.core.turn_ask import ask_for_missing
from homeclaw_cli.core.turn_calls import (
    ModelMove,
    TurnState,
    assistant_message,
    calls_by_arguments,
    read_reply,
    run_calls,
    shown_skills,
    skill_calls_read,
)
from homeclaw_cli.core.turn_decide import (
    answer_instead,
    answer_unfounded,
    doubt,
    second_look,
    wants_decision,
)

HOLD_CHARS = 160  # prose held back until it cannot be a preamble to a tool call
HOLD_ALL = 1 << 30  # the whole reply: a constrained decision may still replace it

DEFAULT_POST_PROCESS_PROMPT = (
    "Turn the tool output below into a short, friendly answer to the user's request. "
    "Use only facts from the output."
)


async def run_round(llm: LLM, state: TurnState, round_no: int) -> bool:
    """One model call and its tool calls; True when the turn has its answer."""
    names = state.tools.names()
    callable_names = [*names, *shown_skills(state)]  # a call named after a skill reads it
    deciding = wants_decision(state) and not state.decided
    # the whole reply is read first after a failed call (it may state what the plugin never
    # gave), and before any call to a request about now: a long answer from memory may state
    # today's figures past the first lines
    guessing = not state.tool_ran and asks_now(state.message)
    hold = HOLD_ALL if deciding or state.pending_failure or guessing else HOLD_CHARS
    stream = (
        TextGate(state.on_text, hold=hold, watch=callable_names, suspect=_suspect(state))
        if state.native
        else AnswerStreamer(state.on_text)
    )
    state.status("thinking")
    try:
        reply = await llm.chat(
            state.messages,
            tools=(state.tools.schemas() or None) if state.native else None,
            format=None if state.native else json_mode_schema(names),
            on_text=stream,
        )
    finally:
        state.status(None)
    move = skill_calls_read(read_reply(reply, callable_names, native=state.native), state)
    move = calls_by_arguments(move, state.tools)  # a neighbour's parameters: that tool
    calls = [call.name for call in move.calls]
    state.record_reply(reply, round_no, calls, move.source if move.calls else None)
    if move.calls:
        move = await answer_instead(llm, state, move, round_no)  # calls to invented tools
        move = await answer_unfounded(llm, state, move, round_no)  # made-up values
        move = await ask_for_missing(llm, state, move, round_no)  # a required value made up
        move = await doubt(llm, state, move, round_no)  # a call only retrieval's weak hits
    elif written_call(move.answer) is None:
        move = await second_look(llm, state, move, round_no)  # a written call is corrected
    if not move.calls:
        return _answer(state, stream, move)
    if state.on_text and isinstance(stream, TextGate) and stream.emitted:
        state.on_text("\n")  # keep the model's preamble apart from what follows
    preamble = move.content if move.source == "native" else ""
    state.messages.append(assistant_message(preamble, move.calls))
    finals = await run_calls(state, move.calls)
    if state.ended:
        return True
    if not finals:
        return False
    answers: list[str] = []
    for outcome in finals:
        if answers and state.on_text:
            state.on_text("\n\n")
        answers.append(await _deliver(llm, state, outcome))
    state.answer = "\n\n".join(answers)
    return True


def _answer(state: TurnState, stream: TextGate | AnswerStreamer, move: ModelMove) -> bool:
    """The reply as the answer, unless it is (or holds) a tool call or claims a tool result
    it never got: then one corrective round (False), and a call still written after that is
    cut out of the answer. A reply that repeats what was wrong with a call, or relays a
    correction, ends the turn with that as its error."""
    echoed = next((bad for bad in state.bad_calls if bad in move.answer), None)
    if echoed is not None:  # small models relay the correction instead of acting on it
        state.stopped = f"the model did not correct its call: {echoed}"
        state.answer = ""
        return True
    if relays_correction(move.answer):
        state.stopped = "the model repeated homeclaw's correction instead of answering"
        state.answer = ""
        return True
    problem = check_answer(
        move.answer,
        state.tools.names(),
        called=state.tool_ran,
        request=state.message,
        given=_given(state),
    )
    if problem is not None and problem.kind in ("done", "live") and stream.emitted:
        problem = None  # the user has read it; a second answer would not take it back
    if problem is not None and state.correct():
        state.messages.append({"role": "assistant", "content": move.content})
        state.messages.append({"role": "user", "content": problem.correction})
        return False
    answer = move.answer
    if problem is not None and problem.kind in ("call", "output"):
        # a reply may hold both: a call inside copied <tool_output> tags
        answer = strip_output_tags(strip_calls(answer))
        if not answer and problem.kind == "call":
            state.stopped = f"the model wrote a call to `{problem.name}` instead of an answer"
    if problem is not None and problem.kind == "live":
        answer = ""  # no corrective round left, and it still says what it cannot know
        state.stopped = f"not shown: the model stated current figures nothing gave: {problem.said}"
    if state.pending_failure and _made_up_after_failure(state, answer):
        answer = ""  # the turn's error says what failed
    state.answer = answer
    if state.on_text is not None and not stream.emitted and answer:
        streamed = isinstance(stream, TextGate) and move.source != "decided"  # not a later reply
        held = strip_think(stream.buffer) if streamed else ""
        state.on_text(held if held and answer == move.answer else answer)
    return True


def _made_up_after_failure(state: TurnState, answer: str) -> bool:
    """A plugin failed and nothing answered since, yet the reply states figures no one gave:
    a small model describes the weather its weather plugin could not fetch."""
    return bool(figures_beyond(answer, _given(state)))


def _given(state: TurnState) -> str:
    """What the conversation and the user's facts say, where a figure is no guess; the model's
    replies of this turn are left out (a figure it wrote before a correction is still a guess)."""
    earlier = state.messages[: state.own_from]
    this_turn = [m for m in state.messages[state.own_from :] if m.get("role") != "assistant"]
    return f"{conversation_text([*earlier, *this_turn])}\n{' '.join(state.known_words)}"


def _suspect(state: TurnState) -> Callable[[str], bool]:
    """Whether streamed prose may be sent back: an act no tool did, or current figures."""
    given = _given(state)  # the messages do not change while the reply streams
    return lambda text: (
        state.claims_action(text)
        or (not state.tool_ran and bool(current_figures(text, state.message, given)))
    )


async def _deliver(llm: LLM, state: TurnState, outcome: ToolOutcome) -> str:
    """The plugin's result for the user: as is, or through the post-process call."""
    if not outcome.post_process:
        if state.on_text:
            state.on_text(outcome.text)
        return outcome.text
    started = time.perf_counter()
    state.status("thinking")
    try:
        answer = await post_process(llm, state.message, outcome, state.on_text, state.window)
    finally:
        state.status(None)
    spent = time.perf_counter() - started
    state.steps.append(PostProcessStep(seconds=spent))
    state.llm_seconds += spent
    return answer


async def post_process(
    llm: LLM, message: str, outcome: ToolOutcome, on_text: TextSink | None, window: int
) -> str:
    """One more model call that turns a plugin's output into the answer, streamed; the output
    is cut to what the `window`-token context has room for."""
    system: ChatMessage = {
        "role": "system",
        "content": outcome.post_process_prompt or DEFAULT_POST_PROCESS_PROMPT,
    }
    request = f"Request: {message}\n\nOutput:\n"
    room = window_room(window, [system, {"role": "user", "content": request}], 0)
    output, _ = fit_tool_text(outcome.text, room)
    messages: list[ChatMessage] = [system, {"role": "user", "content": request + output}]
    gate = TextGate(on_text)
    reply = await llm.chat(messages, on_text=gate)
    answer = strip_think(reply.content)
    if on_text and not gate.emitted and answer:
        on_text(answer)
    return answer
