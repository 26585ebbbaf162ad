"""The small protocols core/ needs from the layers above it, so it runs against fakes."""

from __future__ import annotations

from typing import Protocol

from homeclaw_cli.core.retrieval import RetrievalResult


class Retriever(Protocol):
    """Plugins and skills for a query: the index (app/retrieval.RetrievalService), the
    keyword fallback (app/keyword_fallback.KeywordRetriever) or both
    (app/resilient_retrieval.ResilientRetriever)."""

    def search_plugins(self, query: str, *, limit: int | None = None) -> RetrievalResult: ...
    def search_skills(self, query: str, *, limit: int | None = None) -> RetrievalResult: ...
