"""Keyword retrieval over the scanned registry: what the chat uses when the index fails.

No index yet, the index locked by a long sync, the embedding model missing: the chat keeps
working on word overlap with the descriptors (app/chat.py ResilientRetriever) and says so.
Same result shape as core/retrieval.RetrievalResult.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from homeclaw_cli.catalog.registry import Registry

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "can",
        "do",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "please",
        "the",
        "to",
        "what",
        "whats",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "you",
        "your",
    ]
)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


@dataclass
class KeywordHit:
    id: str
    kind: str
    score: float
    descriptor: dict[str, Any]
    rank: int = 0
    kept: bool = True
    reason: str = "kept"
    dense_score: float | None = None
    keyword_score: float | None = None


@dataclass
class KeywordResult:
    query: str
    hits: list[KeywordHit]
    candidates: list[KeywordHit]
    fallback: bool
    fallback_names: list[str]
    timings: dict[str, float] = field(default_factory=dict)


class KeywordRetriever:
    """Word-overlap ranking of the registry's plugins (no index, no embeddings)."""

    def __init__(
        self,
        registry: Registry,
        *,
        max_in_prompt: int = 5,
        skills: Callable[[], dict[str, tuple[str, dict[str, Any]]]] | None = None,
    ) -> None:
        self.registry = registry
        self.max_in_prompt = max_in_prompt or 1000
        self._docs: dict[str, set[str]] | None = None
        self._skills = skills
        self._skill_docs: dict[str, tuple[set[str], dict[str, Any]]] | None = None

    def _documents(self) -> dict[str, set[str]]:
        if self._docs is None:
            self._docs = {
                pid: _words(e.manifest.embedding_text() + " " + pid.replace("-", " "))
                for pid, e in self.registry.plugins.items()
            }
        return self._docs

    def search_plugins(self, query: str, *, limit: int | None = None) -> KeywordResult:
        docs = self._documents()

        def descriptor(plugin_id: str) -> dict[str, Any]:
            return self.registry.plugins[plugin_id].manifest.model_dump(mode="json")

        return self._rank(query, "plugin", docs, descriptor, limit)

    def search_skills(self, query: str, *, limit: int | None = None) -> KeywordResult:
        if self._skills is None:
            return KeywordResult(query, [], [], False, [])
        if self._skill_docs is None:
            self._skill_docs = {
                sid: (_words(text + " " + sid.replace("-", " ")), desc)
                for sid, (text, desc) in self._skills().items()
            }
        skill_docs = self._skill_docs
        docs = {sid: words for sid, (words, _) in skill_docs.items()}
        return self._rank(query, "skill", docs, lambda sid: skill_docs[sid][1], limit)

    def _rank(
        self,
        query: str,
        kind: str,
        docs: dict[str, set[str]],
        descriptor: Callable[[str], dict[str, Any]],
        limit: int | None,
    ) -> KeywordResult:
        started = time.perf_counter()
        words = _words(query)
        scored = [
            KeywordHit(item_id, kind, len(words & doc) / max(len(words), 1), {})
            for item_id, doc in docs.items()
        ]
        scored.sort(key=lambda h: (-h.score, h.id))
        cap = limit or self.max_in_prompt
        for rank, hit in enumerate(scored, 1):
            hit.rank = rank
            hit.keyword_score = hit.score
            if hit.score <= 0:
                hit.kept, hit.reason = False, "below threshold"
            elif rank > cap:
                hit.kept, hit.reason = False, "top-k cut"
        hits = [h for h in scored if h.kept]
        for hit in hits:
            hit.descriptor = descriptor(hit.id)
        names = [h.id for h in scored[:20]] if not hits else []
        timings = {"total": time.perf_counter() - started}
        return KeywordResult(query, hits, scored, not hits, names, timings)
