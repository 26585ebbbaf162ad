"""The parts of a request that the turn's calls left open."""

from __future__ import annotations

from homeclaw_cli.core.retrieval import RetrievalResult
from homeclaw_cli.core.turn_needs import open_needs
from tests.fakes.retrieval import hit

FOUND = {
    "how many km is 5 miles": [hit("units", score=0.5), hit("calculator", score=0.3)],
    "what is 17 times 23": [hit("calculator", score=0.36)],
    "I'm planning a trip to Germany": [hit("weather", score=0.28)],
    "I want to know how many km 300 miles is": [hit("units", score=0.55)],
}


def search(part: str) -> RetrievalResult:
    hits = FOUND.get(part, [])
    return RetrievalResult(part, hits, hits, fallback=not hits)


def test_a_part_no_called_plugin_serves_is_open() -> None:
    message = "how many km is 5 miles and what is 17 times 23"
    assert open_needs(message, {"units"}, search, 0.35) == ["what is 17 times 23"]
    assert open_needs(message, {"units", "calculator"}, search, 0.35) == []


def test_context_parts_and_turns_without_calls_have_none() -> None:
    context = "I'm planning a trip to Germany and I want to know how many km 300 miles is"
    assert open_needs(context, {"units"}, search, 0.35) == []  # weather at 0.28: context
    assert open_needs("how many km is 5 miles and what is 17 times 23", set(), search, 0.35) == []
    assert open_needs("what is 17 times 23", {"units"}, search, 0.35) == []  # one part
