"""How a turn ended: its answer, or the error and which part failed."""

from __future__ import annotations

from homeclaw_cli.core.turn_calls import TurnState
from homeclaw_cli.core.turn_result import TurnResult


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
