"""A stand-in for RetrievalService.search_skills with the same result shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class FakeHit:
    id: str
    kind: str
    score: float
    dense_score: float | None
    keyword_score: float | None
    rank: int
    kept: bool
    reason: str
    descriptor: dict[str, Any] = field(default_factory=dict)


@dataclass
class FakeResult:
    query: str
    hits: list[FakeHit]
    candidates: list[FakeHit]
    fallback: bool = False
    fallback_names: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


class FakeSkillRetriever:
    """Ranks by a fixed table: {query: [(skill id, score), ...]}; keeps score >= threshold."""

    def __init__(
        self, table: dict[str, list[tuple[str, float]]], threshold: float = 0.3, top_k: int = 3
    ) -> None:
        self.table = table
        self.threshold = threshold
        self.top_k = top_k
        self.queries: list[str] = []

    def search_skills(self, query: str, *, limit: int | None = None) -> FakeResult:
        self.queries.append(query)
        ranked = sorted(self.table.get(query, []), key=lambda x: -x[1])
        candidates = []
        for rank, (skill_id, score) in enumerate(ranked, 1):
            if score < self.threshold:
                kept, reason = False, "below threshold"
            elif rank > self.top_k:
                kept, reason = False, "top-k cut"
            else:
                kept, reason = True, "kept"
            candidates.append(FakeHit(skill_id, "skill", score, score, None, rank, kept, reason))
        return FakeResult(query, [c for c in candidates if c.kept], candidates)
