"""Which short messages may be requests of their own (core/follow_up.py)."""

from __future__ import annotations

import pytest

from homeclaw_cli.core.follow_up import asks_anew, may_ask_anew
from homeclaw_cli.core.retrieval import RetrievalResult
from tests.fakes.retrieval import hit


@pytest.mark.parametrize(
    "message", ["whats 12 times 12", "sha256 of hello", "time in rome", "is it raining in lisbon"]
)
def test_a_short_message_with_words_of_its_own_may_ask_anew(message: str) -> None:
    assert may_ask_anew(message)


@pytest.mark.parametrize(
    "message",
    ["lisbon?", "tomorrow?", "in chicago?", "and in meters?", "what about 3 pm?", "How about md5"],
)
def test_a_fragment_or_a_message_that_carries_on_does_not(message: str) -> None:
    assert not may_ask_anew(message)


def test_only_a_plugin_the_previous_turn_did_not_use_makes_a_new_request() -> None:
    found = RetrievalResult("q", [hit("units")], [hit("units")])
    assert not asks_anew(found, ["units"])
    assert asks_anew(found, ["weather"])
    assert not asks_anew(RetrievalResult("q", [], []), ["weather"])
