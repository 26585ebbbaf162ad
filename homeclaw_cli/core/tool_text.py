"""How much of a tool's result goes back to the model: what its context window has room for.

A result that overflows the window is not an error the user sees: Ollama drops the start of
the prompt (the system prompt and the user's request go first) and llama.cpp's server refuses
the request. So each result is cut to the room the turn has left, and says it was cut.
"""

from __future__ import annotations

from collections.abc import Sequence

from homeclaw_cli.core.ports import ChatMessage
from homeclaw_cli.core.tokens import estimate_tokens

MAX_TOOL_TEXT = 16_000  # characters of one result, however large the window
REPLY_TOKENS = 512  # kept free for the model's reply (and its next tool call)
MIN_TOOL_TOKENS = 200  # a result keeps at least this much, even when the window is full
LINE_SNAP = 200  # a cut moves back to a line end when there is one this close


def window_room(window: int, messages: Sequence[ChatMessage], tool_tokens: int) -> int:
    """The tokens left in a `window`-token context for tool results, after the turn's opening
    `messages`, the tools' schemas and a reply."""
    used = sum(estimate_tokens(str(m.get("content") or "")) for m in messages)
    return window - used - tool_tokens - REPLY_TOKENS


def fit_tool_text(text: str, room: int) -> tuple[str, int]:
    """`text` cut to fit `room` tokens (never below MIN_TOOL_TOKENS), with a last line saying
    how much was left out; and the tokens it takes."""
    budget = max(room, MIN_TOOL_TOKENS)
    kept = text[:MAX_TOOL_TEXT]
    if estimate_tokens(kept) > budget:
        kept = _prefix_within(kept, budget)
    if len(kept) < len(text):
        kept = (
            f"{kept}\n[cut: the first {len(kept):,} of {len(text):,} characters; "
            "the rest did not fit in the model's context window]"
        )
    return kept, estimate_tokens(kept)


def _prefix_within(text: str, tokens: int) -> str:
    """The longest start of `text` that is at most `tokens` tokens, ended at a line end
    when one is near."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle]) <= tokens:
            low = middle
        else:
            high = middle - 1
    line_end = text.rfind("\n", max(low - LINE_SNAP, 0), low)
    return text[: line_end if line_end > 0 else low]
