"""The news plugin's NewsAPI filters: an outlet unless a category is asked for too."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[2] / "plugins" / "news" / "plugin.py"


def _query_params(country: str | None, category: str | None, sources: str | None) -> object:
    spec = importlib.util.spec_from_file_location("news_plugin", PLUGIN)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.query_params(country, category, sources)


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
