"""The token estimate that budgets the prompt, the history and tool results."""

from __future__ import annotations

from homeclaw_cli.core.tokens import estimate_tokens


def test_words_and_punctuation_count_about_one_token_each() -> None:
    assert estimate_tokens("Rain in Paris today?") == 5
    assert estimate_tokens("internationalization") == 1 + 4  # a long word is several


def test_every_digit_counts_since_small_models_split_numbers_digit_by_digit() -> None:
    # Qwen2.5's tokenizer: 10.0.0.35 is 9 tokens, 2026 is 4
    assert estimate_tokens("10.0.0.35") == 9
    assert estimate_tokens("in 2026") == 5
