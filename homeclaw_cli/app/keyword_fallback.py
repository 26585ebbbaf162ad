"""Keyword retrieval over the scanned registry: what the chat uses when the index fails.

No index yet, the index locked by a long sync, the embedding model missing: the chat keeps
working on word overlap with the descriptors (core/keywords.py; app/resilient_retrieval.py
switches over) and says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from homeclaw_cli.catalog.registry import Registry
from homeclaw_cli.core.embedded_text import plugin_text
from homeclaw_cli.core.keywords import KeywordIndex
from homeclaw_cli.core.retrieval import RetrievalResult

# skill id -> (the text to match, its descriptor)
SkillDocuments = Callable[[], dict[str, tuple[str, dict[str, Any]]]]


class KeywordRetriever:
    """Word-overlap ranking of the registry's plugins and the eligible skills (no index, no
    embeddings); the word sets are built on first use."""

    def __init__(
        self,
        registry: Registry,
        *,
        max_in_prompt: int = 5,
        skills: SkillDocuments | None = None,
    ) -> None:
        self.registry = registry
        self.max_in_prompt = max_in_prompt or 1000
        self._skills = skills
        self._plugin_index: KeywordIndex | None = None
        self._skill_index: tuple[KeywordIndex, dict[str, tuple[str, dict[str, Any]]]] | None = None

    def search_plugins(self, query: str, *, limit: int | None = None) -> RetrievalResult:
        """The plugins whose manifest text shares the most words with `query`."""
        started = time.perf_counter()
        if self._plugin_index is None:
            texts = {pid: plugin_text(e.manifest) for pid, e in self.registry.plugins.items()}
            self._plugin_index = KeywordIndex("plugin", texts)

        def descriptor(plugin_id: str) -> dict[str, Any]:
            return self.registry.plugins[plugin_id].manifest.model_dump(mode="json")

        result = self._plugin_index.rank(
            query, cap=limit or self.max_in_prompt, descriptor=descriptor
        )
        return _timed(result, started)

    def search_skills(self, query: str, *, limit: int | None = None) -> RetrievalResult:
        """The eligible skills sharing the most words with `query` (none without skills)."""
        started = time.perf_counter()
        if self._skills is None:
            return RetrievalResult(query, [], [], method="keyword")
        if self._skill_index is None:
            documents = self._skills()
            index = KeywordIndex("skill", {sid: text for sid, (text, _) in documents.items()})
            self._skill_index = (index, documents)
        index, documents = self._skill_index
        result = index.rank(
            query, cap=limit or self.max_in_prompt, descriptor=lambda sid: documents[sid][1]
        )
        return _timed(result, started)


def _timed(result: RetrievalResult, started: float) -> RetrievalResult:
    result.timings["total"] = time.perf_counter() - started
    return result
