"""Top headlines from NewsAPI.org (free key required: https://newsapi.org/register)."""

from __future__ import annotations

import os
from typing import Any

import httpx

from homeclaw_cli.sdk import BasePlugin, PluginError

TOP_HEADLINES_URL = "https://newsapi.org/v2/top-headlines"
CATEGORIES = ("business", "entertainment", "general", "health", "science", "sports", "technology")


def query_params(country: str | None, category: str | None, sources: str | None) -> dict[str, str]:
    """NewsAPI's filters. It refuses sources combined with a country or category. Beside a
    category the category wins: a request rarely names a kind of news and an outlet, and small
    models add outlets nobody asked for ("top headlines today" -> general, "CNN, BBC"). Beside
    a country alone the sources win: the model adds the country by habit ("news from the BBC"
    -> US, bbc-news)."""
    if sources and not category:
        return {"sources": sources}
    params = {"country": (country or "us").lower()}
    if category:
        params["category"] = category.lower()
    return params


class NewsPlugin(BasePlugin):
    def initialize(self) -> None:
        self.api_key = os.environ.get("NEWSAPI_KEY") or str(self.config.get("api_key") or "")
        self.page_size = int(self.config.get("page_size", 10))
        self.timeout = float(self.config.get("timeout_sec", 10))

    def fetch_latest_news(
        self, country: str | None = None, category: str | None = None, sources: str | None = None
    ) -> dict[str, Any]:
        if category and category.lower() not in CATEGORIES:
            raise PluginError(
                f"unknown news category {category!r}; NewsAPI has: {', '.join(CATEGORIES)}"
            )
        if not self.api_key:
            raise PluginError(
                "the news plugin needs a NewsAPI key: set NEWSAPI_KEY (free at "
                "https://newsapi.org/register) or api_key in its config.yml"
            )
        params = {"pageSize": self.page_size, **query_params(country, category, sources)}
        try:
            response = httpx.get(
                TOP_HEADLINES_URL,
                params=params,
                headers={"X-Api-Key": self.api_key},
                timeout=self.timeout,
            )
        except httpx.HTTPError as exc:
            raise PluginError(
                f"could not reach newsapi.org ({exc.__class__.__name__}); no network?"
            ) from None
        body = (
            response.json()
            if response.headers.get("content-type", "").startswith("application/json")
            else {}
        )
        if response.status_code != 200 or body.get("status") != "ok":
            raise PluginError(
                f"newsapi.org: {body.get('message') or f'HTTP {response.status_code}'}"
            )
        articles = [
            {
                "title": a.get("title"),
                "source": (a.get("source") or {}).get("name"),
                "description": a.get("description"),
                "url": a.get("url"),
                "published_at": a.get("publishedAt"),
            }
            for a in body.get("articles", [])
        ]
        if not articles:
            return {"text": "No articles matched those filters.", "articles": []}
        text = "\n".join(f"- {a['title']} ({a['source']}) {a['url']}" for a in articles)
        return {"text": text, "articles": articles}
