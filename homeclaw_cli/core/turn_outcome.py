"""How a turn ended: its answer, or the error and which part failed."""

from __future__ import annotations

import json

from homeclaw_cli.core.ports import ChatMessage
from homeclaw_cli.core.turn_calls import TurnState
from homeclaw_cli.core.turn_result import TurnResult

# Why a turn has no answer, as the conversation keeps it. Never the error itself: a plugin's
# error text is the plugin's, and a withheld answer stays unshown.
_NO_ANSWER = {
    "tool": "a tool failed",
    "approval": "a call was not allowed to run",
    "model": "the reply was not shown",
}


def settle(result: TurnResult, state: TurnState) -> None:
    """Set the turn's answer and outcome from what its rounds left in `state`."""
    silent = not (state.answer or "").strip() and not state.stopped
    if silent and state.unread and not state.pending_failure:
        state.answer = state.unread  # a skill script's output, which the model left unsaid
        if state.on_text is not None:  # shown like an answer the model wrote
            state.on_text(state.answer)
    result.answer = state.answer or ""
    if state.stopped:
        result.error, result.failure = state.stopped, "model"
    elif state.held:
        result.error, result.failure = state.held, "approval"
    elif state.pending_failure:
        result.error, result.failure = state.pending_failure, "tool"
    elif not result.answer.strip():
        result.error, result.failure = state.empty_answer_error(), "model"
    result.ok = result.error is None


def unanswered_exchange(result: TurnResult) -> list[ChatMessage]:
    """A failed turn as the conversation keeps it: the request, and that it got no answer with
    the calls it made (a note added before the weather failed is not added again), so "try
    again" or "and in Rome?" read on what the user asked, not on the turn before."""
    calls = "; ".join(
        dict.fromkeys(
            f"{s.name} {json.dumps(s.arguments, default=str)}: {'done' if s.ok else 'failed'}"
            for s in result.tool_steps()
        )
    )
    note = f"(No answer: {_NO_ANSWER.get(result.failure or '', _NO_ANSWER['model'])}."
    note += f" Calls: {calls}.)" if calls else ")"
    return [{"role": "user", "content": result.message}, {"role": "assistant", "content": note}]
