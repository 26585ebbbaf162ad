"""The conversation a turn carries: earlier exchanges (each the messages one answered turn
added: the user's message, tool calls and results, the answer), newest kept first, whole,
within the prompt's token budget."""

from __future__ import annotations

import json
from collections.abc import Sequence

from homeclaw_cli.core.ports import ChatMessage
from homeclaw_cli.core.tokens import estimate_tokens

MAX_HISTORY_TURNS = 10  # earlier exchanges offered to the model at most (then the budget trims)


def message_tokens(message: ChatMessage) -> int:
    """A message's share of the prompt: its text, its tool calls, a few tokens of framing."""
    calls = message.get("tool_calls")
    return (
        estimate_tokens(message["content"])
        + (estimate_tokens(json.dumps(calls)) if calls else 0)
        + 4
    )


def fitting_history(exchanges: Sequence[list[ChatMessage]], budget: int) -> list[ChatMessage]:
    """The newest whole exchanges that fit in `budget`; the oldest go first."""
    kept: list[ChatMessage] = []
    for exchange in reversed(exchanges[-MAX_HISTORY_TURNS:]):
        cost = sum(message_tokens(m) for m in exchange)
        if cost > budget:
            break
        budget -= cost
        kept[:0] = exchange
    return kept
