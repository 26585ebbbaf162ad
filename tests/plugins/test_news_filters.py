"""The news plugin's NewsAPI filters: an outlet unless a category is asked for too."""

from __future__ import annotations

import pytest

from tests.plugins.bundled_module import bundled_module


def _query_params(country: str | None, category: str | None, sources: str | None) -> object:
    return bundled_module("news").query_params(country, category, sources)


@pytest.mark.parametrize(
    ("country", "category", "sources", "expected"),
    [
        (None, None, None, {"country": "us"}),
        ("GB", "Sports", None, {"country": "gb", "category": "sports"}),
        (None, None, "bbc-news", {"sources": "bbc-news"}),
        ("US", None, "bbc-news", {"sources": "bbc-news"}),  # the country a model adds by habit
        # NewsAPI refuses the mix; the outlet a small model added is what goes
        ("US", "general", "CNN, BBC", {"country": "us", "category": "general"}),
    ],
)
def test_filters(
    country: str | None, category: str | None, sources: str | None, expected: dict[str, str]
) -> None:
    assert _query_params(country, category, sources) == expected
