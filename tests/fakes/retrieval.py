"""Real retrieval hits built from a few fields, for the fakes of the Retriever protocol."""

from __future__ import annotations

from typing import Any

from homeclaw_cli.core.retrieval import BELOW_THRESHOLD, KEPT, Kind, RetrievalHit


def hit(
    item_id: str,
    kind: Kind = "plugin",
    score: float = 0.9,
    *,
    descriptor: dict[str, Any] | None = None,
    kept: bool = True,
    rank: int = 1,
) -> RetrievalHit:
    """A hit kept (or dropped as below the threshold) with `score` as its dense score."""
    return RetrievalHit(
        id=item_id,
        kind=kind,
        score=score,
        dense_score=score,
        keyword_score=None,
        rank=rank,
        kept=kept,
        reason=KEPT if kept else BELOW_THRESHOLD,
        descriptor=descriptor or {},
    )
