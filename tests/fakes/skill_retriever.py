"""A stand-in for RetrievalService.search_skills that returns real RetrievalResults."""

from __future__ import annotations

from homeclaw_cli.core.retrieval import (
    BELOW_THRESHOLD,
    KEPT,
    TOP_K_CUT,
    RetrievalHit,
    RetrievalResult,
)


class FakeSkillRetriever:
    """Ranks by a fixed table: {query: [(skill id, score), ...]}; keeps score >= threshold."""

    def __init__(
        self, table: dict[str, list[tuple[str, float]]], threshold: float = 0.3, top_k: int = 3
    ) -> None:
        self.table = table
        self.threshold = threshold
        self.top_k = top_k
        self.queries: list[str] = []

    def search_plugins(self, query: str, *, limit: int | None = None) -> RetrievalResult:
        return RetrievalResult(query, [], [], fallback=True)

    def search_skills(self, query: str, *, limit: int | None = None) -> RetrievalResult:
        self.queries.append(query)
        ranked = sorted(self.table.get(query, []), key=lambda x: -x[1])
        candidates = []
        for rank, (skill_id, score) in enumerate(ranked, 1):
            if score < self.threshold:
                reason = BELOW_THRESHOLD
            elif rank > self.top_k:
                reason = TOP_K_CUT
            else:
                reason = KEPT
            candidates.append(
                RetrievalHit(skill_id, "skill", score, score, None, rank, reason == KEPT, reason)
            )
        return RetrievalResult(query, [c for c in candidates if c.kept], candidates)
