"""The parts of a request that the turn's calls left open."""

from __future__ import annotations

from homeclaw_cli.core.retrieval import RetrievalHit, RetrievalResult
from homeclaw_cli.core.turn_needs import need_parts, open_needs
from tests.fakes.retrieval import hit

FOUND: dict[str, list[RetrievalHit]] = {
    "how many km is 5 miles": [hit("units", score=0.5), hit("calculator", score=0.3)],
    "what is 17 times 23": [hit("calculator", score=0.36)],
    "convert 3 GB to MB": [hit("units", score=0.59)],
    "how much is 1234 times 5678": [hit("calculator", score=0.37), hit("units", score=0.25)],
    "I'm planning a trip to Germany": [hit("weather", score=0.28)],
    "I want to know how many km 300 miles is": [hit("units", score=0.55)],
    "I'm in Tokyo": [hit("timezones", score=0.47), hit("mcp-time", score=0.35)],
    "what time is it": [hit("mcp-time", score=0.6), hit("timezones", score=0.58)],
    "I need to plan for the weather in Lima": [hit("weather", score=0.5)],
    "Can you get me the forecast for tomorrow": [hit("weather", score=0.6)],
    "how's traffic to the airport": [
        hit("directions", score=0.6),
        hit("flight-status", score=0.52),
    ],
    "is my flight delayed": [hit("flight-status", score=0.7)],
}
ALL = {"units", "calculator", "weather", "timezones", "mcp-time", "directions", "flight-status"}


def search(part: str) -> RetrievalResult:
    hits = FOUND.get(part.rstrip("?."), [])
    return RetrievalResult(part, hits, hits, fallback=not hits)


def test_a_part_no_called_plugin_serves_is_open() -> None:
    message = "how many km is 5 miles and what is 17 times 23"
    assert open_needs(message, {"units"}, ALL, search, 0.35) == ["what is 17 times 23"]
    assert open_needs(message, {"units", "calculator"}, ALL, search, 0.35) == []
    # units also matches the second part, but more than SERVE_GAP under the calculator
    both = "convert 3 GB to MB and how much is 1234 times 5678"
    assert open_needs(both, {"units"}, ALL, search, 0.35) == ["how much is 1234 times 5678"]


def test_a_part_needs_a_sure_plugin_offered_with_the_request() -> None:
    message = "how many km is 5 miles and what is 17 times 23"
    assert open_needs(message, {"units"}, {"units"}, search, 0.35) == []  # not offered
    assert open_needs(message, {"units"}, ALL, search, 0.4) == []  # not sure enough
    context = "I'm planning a trip to Germany and I want to know how many km 300 miles is"
    assert open_needs(context, {"units"}, ALL, search, 0.35) == []  # weather at 0.28


def test_a_twin_of_the_called_plugin_serves_its_part_too() -> None:
    """Either world clock answers "what time is it"; "I'm in Tokyo" is no second need."""
    message = "I'm in Tokyo, what time is it?"
    assert open_needs(message, {"mcp-time"}, ALL, search, 0.35) == []
    assert open_needs(message, {"timezones"}, ALL, search, 0.35) == []


def test_a_called_plugin_near_a_parts_best_serves_it() -> None:
    """flight-status is 0.08 under directions for the traffic: it serves both parts."""
    message = "is my flight delayed, and how's traffic to the airport"
    assert open_needs(message, {"flight-status"}, ALL, search, 0.35) == []
    assert open_needs(message, {"directions"}, ALL, search, 0.35) == ["is my flight delayed"]


def test_a_sentence_that_opens_with_another_need_is_a_part() -> None:
    two = "convert 3 GB to MB. Also, how much is 1234 times 5678?"
    assert need_parts(two) == ["convert 3 GB to MB.", "how much is 1234 times 5678?"]
    assert open_needs(two, {"units"}, ALL, search, 0.35) == ["how much is 1234 times 5678?"]
    then = "how many km is 5 miles? Then what is 17 times 23"
    assert open_needs(then, {"calculator"}, ALL, search, 0.35) == ["how many km is 5 miles?"]


def test_sentences_of_context_and_one_ask_are_one_part() -> None:
    message = "I need to plan for the weather in Lima. Can you get me the forecast for tomorrow?"
    assert need_parts(message) == []
    assert open_needs(message, {"units"}, ALL, search, 0.35) == []


def test_turns_without_calls_and_requests_of_one_part_have_none() -> None:
    message = "how many km is 5 miles and what is 17 times 23"
    assert open_needs(message, set(), ALL, search, 0.35) == []
    assert open_needs("what is 17 times 23", {"units"}, ALL, search, 0.35) == []  # one part
