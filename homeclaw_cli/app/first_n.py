"""Retrieval with vector search off (`plugins|skills.use_vector_search: false`, seed 002 §8.4).

Nothing is ranked: every request gets the first N usable ids of the index in id order, N being
max_retrieved capped by max_in_prompt (or --limit). "Usable" is what the ranked path applies
too, so `plugin search` shows what chat offers: the index row is ok, a plugin's last health
check did not fail, and its folder or registration still exists (a gone one is deleted from
the index, as a ranked search does).
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from homeclaw_cli.core.retrieval import (
    FIRST_N,
    INELIGIBLE,
    KEPT,
    STALE,
    TOP_K_CUT,
    UNHEALTHY,
    Candidate,
    Kind,
    RetrievalHit,
    RetrievalResult,
)

if TYPE_CHECKING:
    from homeclaw_cli.app.retrieval import RetrievalService

_REASONS = {"ineligible": INELIGIBLE, "unhealthy": UNHEALTHY, "stale": STALE}


def first_n(
    service: RetrievalService, kind: Kind, query: str, count: int, started: float
) -> RetrievalResult:
    """The first `count` usable ids in id order, and every row with why it was left out."""
    table = service.section(kind).table
    rows = sorted(service.reader(table).all_rows(table), key=lambda r: str(r["id"]))
    candidates = {
        row["id"]: Candidate(
            row["id"],
            json.loads(row["descriptor"]),
            status=row.get("status") or "ok",
            detail=row.get("status_detail") or "",
        )
        for row in rows
    }
    if kind == "plugin":
        service.apply_health(candidates)
    service.drop_stale(table, candidates)
    hits: list[RetrievalHit] = []
    everything: list[RetrievalHit] = []
    for cand in candidates.values():
        kept = cand.status == "ok" and len(hits) < count
        hit = RetrievalHit(
            id=cand.id,
            kind=kind,
            score=0.0,
            dense_score=None,
            keyword_score=None,
            rank=len(everything) + 1,
            kept=kept,
            reason=KEPT if kept else _reason(cand),
            descriptor=cand.descriptor,
        )
        everything.append(hit)
        if kept:
            hits.append(hit)
    total = time.perf_counter() - started
    return RetrievalResult(query, hits, everything, False, [], {"total": total}, FIRST_N)


def _reason(cand: Candidate) -> str:
    if cand.status == "ok":
        return TOP_K_CUT
    reason = _REASONS.get(cand.status, cand.status)
    return f"{reason}: {cand.detail}" if cand.detail else reason
