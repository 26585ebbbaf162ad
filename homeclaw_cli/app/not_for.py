"""Requests a plugin or skill is not for: a search nearer one of them drops it.

The `not_for` requests of a plugin.yaml or a SKILL.md are embedded with its facets but never
fused into its score; after a search, each candidate that has them is compared: when the
request is closer to one of them, by more than NOT_FOR_MARGIN, than to anything the candidate
is for (its fused score or best facet), it is marked `not_for` and not offered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from homeclaw_cli.adapters.facets import NOT_FOR

if TYPE_CHECKING:
    from homeclaw_cli.adapters.vector_store import SnapshotReader, VectorStore
    from homeclaw_cli.core.retrieval import Candidate

# Measured in benchmarks/retrieval/RESULTS.md ("Requests a plugin is not for"): at 0 a weather
# question ("should i wear a hat today") lost the weather plugin to "wake me up early
# tomorrow"; 0.05 keeps it and most of what the requests take away.
NOT_FOR_MARGIN = 0.05


def mark_not_for(
    reader: SnapshotReader | VectorStore,
    table: str,
    vector: list[float],
    candidates: dict[str, Candidate],
) -> None:
    """Mark the candidates whose not_for requests `vector` is nearer (see the module)."""
    if not vector:
        return  # a keyword search has no vector to compare
    for cand in candidates.values():
        if cand.status != "ok" or not cand.fields.get("not_for"):
            continue
        scores = reader.facet_scores(table, cand.id, vector)
        counter = [(facet, score) for facet, score in scores if facet.get("kind") == NOT_FOR]
        if not counter:
            continue
        facet, score = max(counter, key=lambda pair: pair[1])
        own = max(s for s in (cand.dense, cand.facet, -1.0) if s is not None)
        if score > own + NOT_FOR_MARGIN:
            cand.status = "not_for"
            cand.detail = (
                f"closer to {facet['text']!r} ({score:.2f}), which it is not for, than to "
                f"anything it is for ({own:.2f})"
            )
