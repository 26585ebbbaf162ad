"""Queries on one LanceDB index table: fused dense scores over descriptor and facet vectors,
full-text matches, and a row's facet scores (the path without a local snapshot)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from homeclaw_cli.adapters.facets import FacetMatrix, Fusion
from homeclaw_cli.adapters.index_table import FTS_COLUMN, matrices
from homeclaw_cli.core.retrieval import Match


def dense(handle: Any, vector: Sequence[float], limit: int, fusion: Fusion) -> list[Match]:
    """Exact fused cosine over every row (the path without snapshots, e.g. object stores)."""
    ids, scores, best = _fused(handle, vector, fusion)
    order = sorted(range(len(ids)), key=lambda i: -scores[i])[:limit]
    return _matches(handle, [(ids[i], float(scores[i]), float(best[i])) for i in order])


def dense_for(
    handle: Any, ids: Sequence[str], vector: Sequence[float], fusion: Fusion
) -> list[Match]:
    """The fused dense score of `ids` (keyword-only candidates)."""
    every, scores, best = _fused(handle, vector, fusion)
    wanted = set(ids)
    picked = [(i, float(scores[n]), float(best[n])) for n, i in enumerate(every) if i in wanted]
    return _matches(handle, picked)


def facet_scores(
    handle: Any, item: str, vector: Sequence[float]
) -> list[tuple[dict[str, Any], float]]:
    """The facets of `item` with their cosine to `vector`, best first."""
    import numpy as np

    quoted = "'" + item.replace("'", "''") + "'"
    rows = handle.search().where(f"id = {quoted}").select(["facets", "facet_vectors"])
    found = rows.limit(1).to_list()
    if not found or not found[0]["facet_vectors"]:
        return []
    matrix = np.asarray(found[0]["facet_vectors"], dtype=np.float32)
    scores = matrix @ np.asarray(vector, dtype=np.float32)
    facets = json.loads(found[0]["facets"] or "[]")
    return sorted(zip(facets, map(float, scores), strict=False), key=lambda p: -p[1])


def _fused(handle: Any, vector: Sequence[float], fusion: Fusion) -> tuple[Any, Any, Any]:
    import numpy as np

    columns = ["id", "dim", "vector", "facets", "facet_vectors"]
    rows = handle.search().select(columns).limit(max(1, handle.count_rows())).to_list()
    vectors, facets, owners = matrices(rows)
    query = np.asarray(vector, dtype=np.float32)
    matrix = FacetMatrix(facets, owners, len(rows))
    scores, best = matrix.fuse(vectors @ query, query, fusion)
    return [r["id"] for r in rows], scores, best


def _matches(handle: Any, picked: list[tuple[str, float, float]]) -> list[Match]:
    if not picked:
        return []
    columns = [c for c in handle.schema.names if c not in ("vector", "facet_vectors")]
    quoted = ", ".join("'" + i.replace("'", "''") + "'" for i, _, _ in picked)
    rows = handle.search().where(f"id IN ({quoted})").select(columns).limit(len(picked))
    by_id = {r["id"]: r for r in rows.to_list()}
    return [
        Match(i, score, by_id[i], best if best > -1.5 else None)
        for i, score, best in picked
        if i in by_id
    ]


def keyword(handle: Any, query: str, limit: int) -> list[Match]:
    try:
        rows = handle.search(query, query_type="fts", fts_columns=FTS_COLUMN).limit(limit).to_list()
    except Exception as exc:  # no text index yet or a query the parser rejects
        if "index" in str(exc).lower() and "not found" in str(exc).lower():
            return []
        rows = _keyword_plain(handle, query, limit)
    return [Match(r["id"], float(r["_score"]), r) for r in rows]


def _keyword_plain(handle: Any, query: str, limit: int) -> list[dict[str, Any]]:
    from lancedb.query import MatchQuery

    query_class: Any = MatchQuery

    words = " ".join("".join(c if c.isalnum() else " " for c in query).split())
    if not words:
        return []
    rows: list[dict[str, Any]] = (
        handle.search(query_class(words, FTS_COLUMN), query_type="fts").limit(limit).to_list()
    )
    return rows
