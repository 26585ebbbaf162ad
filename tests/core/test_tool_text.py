"""Cutting a tool's result to the room the model's window has left."""

from __future__ import annotations

from homeclaw_cli.core.tokens import estimate_tokens
from homeclaw_cli.core.tool_text import (
    MAX_TOOL_TEXT,
    MIN_TOOL_TOKENS,
    REPLY_TOKENS,
    fit_tool_text,
    window_room,
)


def test_a_result_that_fits_is_unchanged() -> None:
    text = "High tide at 06:12."
    assert fit_tool_text(text, 1000) == (text, estimate_tokens(text))


def test_a_long_result_is_cut_at_a_line_end_and_says_how_much_was_kept() -> None:
    text = "\n".join(f"line {n} of the report" for n in range(400))
    kept, tokens = fit_tool_text(text, 300)
    body, note = kept.rsplit("\n", 1)
    assert text.startswith(body) and body.endswith("of the report")
    assert estimate_tokens(body) <= 300 and tokens == estimate_tokens(kept)
    assert note == (
        f"[cut: the first {len(body):,} of {len(text):,} characters; "
        "the rest did not fit in the model's context window]"
    )


def test_a_full_window_still_leaves_a_result_its_start() -> None:
    kept, _ = fit_tool_text("word " * 5000, -800)
    assert estimate_tokens(kept.rsplit("\n", 1)[0]) == MIN_TOOL_TOKENS


def test_a_large_window_still_cuts_at_the_character_cap() -> None:
    kept, _ = fit_tool_text("a" * (MAX_TOOL_TEXT * 2), 1 << 30)
    assert kept.startswith("a" * MAX_TOOL_TEXT + "\n[cut: the first 16,000 of 32,000")


def test_the_room_is_the_window_less_the_messages_the_tools_and_a_reply() -> None:
    messages = [{"role": "system", "content": "one two three"}, {"role": "user", "content": "hi"}]
    assert window_room(4096, messages, 100) == 4096 - 4 - 100 - REPLY_TOKENS
