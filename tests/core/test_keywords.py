"""Query words and word-overlap ranking (the retrieval that needs no index)."""

from __future__ import annotations

import pytest

from homeclaw_cli.core.keywords import (
    FALLBACK_NAMES,
    STOP_WORDS,
    KeywordIndex,
    clauses,
    need_sentences,
    reads_on,
    search_words,
)
from homeclaw_cli.core.retrieval import RetrievalResult

TEXTS = {
    "weather": "Current weather and forecast: temperature, rain, wind for a city.",
    "slack": "Post and read messages in Slack channels.",
    "timer": "Set a countdown timer or an alarm.",
    "home-assistant": "Lights and switches.",
}


def _rank(query: str, cap: int = 5) -> tuple[RetrievalResult, list[str]]:
    asked: list[str] = []

    def descriptor(item: str) -> dict[str, object]:
        asked.append(item)
        return {"id": item}

    result = KeywordIndex("plugin", TEXTS).rank(query, cap=cap, descriptor=descriptor)
    return result, asked


def test_search_words_fold_accents_and_drop_stop_words_and_single_letters() -> None:
    assert search_words("What's the météo in Zürich, please? x 7") == ["meteo", "zurich", "7"]
    assert {"the", "please", "show", "what"} <= STOP_WORDS


def test_ranks_by_the_share_of_query_words_then_by_id() -> None:
    result, asked = _rank("post the forecast to slack")
    assert result.ids == ["slack", "weather"]
    assert [round(h.score, 3) for h in result.hits] == [0.667, 0.333]
    assert all(h.keyword_score == h.score and h.dense_score is None for h in result.hits)
    assert result.method == "keyword" and not result.fallback
    assert asked == ["slack", "weather"]  # descriptors only for what is kept
    assert result.hits[0].descriptor == {"id": "slack"}


def test_every_candidate_has_a_rank_and_a_reason() -> None:
    result, _ = _rank("timer alarm wind", cap=1)
    reasons = {h.id: (h.rank, h.kept, h.reason) for h in result.candidates}
    assert reasons == {
        "timer": (1, True, "kept"),
        "weather": (2, False, "top-k cut"),
        "home-assistant": (3, False, "below threshold"),
        "slack": (4, False, "below threshold"),
    }


def test_the_id_counts_as_words() -> None:
    result, _ = _rank("home assistant")
    assert result.ids == ["home-assistant"]


def test_nothing_in_common_offers_the_ids_by_name() -> None:
    result, asked = _rank("tell me a joke")
    assert result.hits == [] and result.fallback and asked == []
    assert result.fallback_names == sorted(TEXTS)[:FALLBACK_NAMES]


def test_a_lone_digit_does_not_match_ids_ending_in_it() -> None:
    index = KeywordIndex("plugin", {"timer-6": "Countdown timers.", "reminders": "Remind me."})
    result = index.rank("remind me at 6", cap=5, descriptor=lambda item: {})
    assert result.ids == ["reminders"]


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (
            "weather in Paris and convert 20 EUR to USD",
            ["weather in Paris", "convert 20 EUR to USD"],
        ),
        (
            "turn off the lights, then set an alarm for 7",
            ["turn off the lights", "set an alarm for 7"],
        ),
        ("salt and pepper recipe", []),
        ("7 factorial pls", []),
        ("lights off and music on", []),
        (
            "log in as john.doe@example.com, then convert 2.5 km to miles",
            ["log in as john.doe@example.com", "convert 2.5 km to miles"],
        ),
        (
            "fetch example.com/a,b and summarize its title",
            ["fetch example.com/a,b", "summarize its title"],
        ),
        (
            "I'm off to Japan next month. What is 100 USD in yen? My phone died, too. Can you"
            " find a repair shop in Kyoto?",
            [
                "I'm off to Japan next month. What is 100 USD in yen?",
                "My phone died, too. Can you find a repair shop in Kyoto?",
            ],
        ),
        (
            "I need U.S. dollars. How much is 50 EUR?",
            ["I need U.S. dollars.", "How much is 50 EUR?"],
        ),
        ("Thanks! What's 5 km in miles?", []),
        (
            "I'm in Lima next week. Is it sunny? Also, what is 100 USD in soles? Lastly, note it",
            ["I'm in Lima next week. Is it sunny?", "what is 100 USD in soles?", "note it"],
        ),
    ],
)
def test_a_request_splits_into_clauses_only_where_each_part_is_a_need(
    text: str, parts: list[str]
) -> None:
    assert clauses(text) == parts


def test_only_sentences_that_open_with_another_need_cut_a_request() -> None:
    assert need_sentences("350F to celsius. Then, what time is it in Tokyo?") == [
        "350F to celsius.",
        "what time is it in Tokyo?",
    ]
    assert need_sentences("I'm in Lima next week. What's the forecast?") == []
    assert need_sentences("Andrew called. He wants the weather in Lima.") == []
    assert need_sentences("Also, what time is it?") == []  # the first sentence opens nothing


@pytest.mark.parametrize(
    ("message", "reads"),
    [
        ("and in pounds?", True),
        ("ok and tomorrow?", True),
        ("thanks, what about rome?", True),
        ("Thanks! What is 5 km in miles?", True),
        # may answer the model's question ("Shall I convert it too?")
        ("yes", True),
        ("ok", True),
        ("great", True),
        # thanks alone close the topic
        ("thanks!", False),
        ("ok, thanks a lot!", False),
        ("That's great, thank you for the help", False),
        ("what is the weather like in Paris this coming weekend?", False),  # long: its own
    ],
)
def test_a_short_message_reads_on_unless_it_only_thanks(message: str, reads: bool) -> None:
    assert reads_on(message) is reads
