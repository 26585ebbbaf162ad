"""Which made-up values are words a user would have typed (core/turn_ask.py)."""

from __future__ import annotations

import pytest

from homeclaw_cli.core.turn_ask import plain_words


@pytest.mark.parametrize(
    "value", ["New York", "London", "Hello, world!", "miles", "Saint-Malo", "your_city_name"]
)
def test_words_a_user_could_have_typed(value: str) -> None:
    assert plain_words(value)


@pytest.mark.parametrize(
    "value",
    ["UTC", "gbp", "US/Los_Angeles", "notes.txt", "SGVsbG8gd29ybGQ=", "/home/user", "B12", ""],
)
def test_identifiers_codes_and_paths_are_no_guess_of_a_place(value: str) -> None:
    assert not plain_words(value)
