"""Facet vectors: the extra vectors of an index row, and how they fuse with the descriptor's.

A row's facets are its example requests (author or generated) and, for a plugin with more
than one capability, each capability's own text. Each facet is embedded alone, so a query
close to one example or one capability is found even when the whole descriptor reads
differently. The dense score of a row is the descriptor's cosine fused with its facets'
(see `fuse`); rows without facets keep the descriptor's score.

Facets are stored owner by owner (a row's facets are contiguous), so the best facet of
every row is one matrix product and one `maximum.reduceat`. Past SHORTLIST rows that product
would cost more than the query budget (10,000 plugins with 6 examples each is 60,000
vectors), so only the SHORTLIST rows best by descriptor get their best facet there; the
keyword search (whose text holds every example) brings in the rest, scored exactly by
`exact_for`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

FusionMode = Literal["none", "max", "centroid", "weighted"]
SHORTLIST = 200
EXAMPLE = "example"
CAPABILITY = "capability"
TEXT = "text"  # a piece of the descriptor's own text (plugins.text_facets)
NAME = "name"  # a brand-like name left out of the descriptor's text (core/embedded_text.py)
# A request the plugin is not for: stored with the facets, never fused into the score (see
# split_counter_facets); a request closer to one than to the plugin is not offered it.
NOT_FOR = "not_for"


@dataclass(frozen=True)
class Fusion:
    """How a row's facet scores join its descriptor score.

    none      the descriptor only
    max       the best of the descriptor and every facet
    centroid  the best of the descriptor and the mean of the facet vectors
    weighted  (1 - weight) * descriptor + weight * facet side, where the facet side is
              (1 - centroid) * max(descriptor, best facet)
              + centroid * max(descriptor, mean of the facet vectors)

    The best facet finds a request worded like one example; the mean stands for what all
    the examples ask, so one stray example does not carry a plugin alone
    (benchmarks/retrieval/RESULTS.md, "The facet side").
    """

    mode: FusionMode = "weighted"
    weight: float = 0.5
    centroid: float = 0.5


@dataclass(frozen=True)
class Facet:
    """One embedded piece of a row: an example or a capability's text."""

    text: str
    kind: str  # example | capability | text | name | not_for
    capability: str | None = None
    source: str = "author"  # author | generated | manifest

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "kind": self.kind,
            "capability": self.capability,
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Facet:
        return cls(data["text"], data["kind"], data.get("capability"), data.get("source", ""))


class FacetMatrix:
    """Every facet vector of a table, owner-sorted, with the row each belongs to."""

    def __init__(self, vectors: Any, owners: Any, rows: int, centroids: Any = None) -> None:
        import numpy as np

        self.vectors = vectors
        self.owners = np.asarray(owners, dtype=np.int64)
        self.rows = rows
        if len(self.owners):
            change = np.flatnonzero(np.diff(self.owners)) + 1
            self.starts = np.concatenate([[0], change]).astype(np.int64)
        else:
            self.starts = np.zeros(0, dtype=np.int64)
        self.ends = np.append(self.starts[1:], len(self.owners)).astype(np.int64)
        self.has = self.owners[self.starts] if len(self.owners) else self.starts
        self._centroids: Any = centroids

    def span(self, row: int) -> tuple[int, int]:
        """The facet positions [start, end) of `row` (empty when it has none)."""
        import numpy as np

        at = int(np.searchsorted(self.has, row))
        if at < len(self.has) and int(self.has[at]) == row:
            return int(self.starts[at]), int(self.ends[at])
        return 0, 0

    def best(self, query: Any) -> Any:
        """Per row: the cosine of its closest facet (-inf for rows without facets)."""
        import numpy as np

        out = np.full(self.rows, -np.inf, dtype=np.float32)
        if len(self.owners):
            scores = np.asarray(self.vectors) @ query
            out[self.has] = np.maximum.reduceat(scores, self.starts)
        return out

    def centroids(self) -> Any:
        """One normalised mean facet vector per row with facets (in `has` order)."""
        import numpy as np

        if self._centroids is None:
            sums = np.add.reduceat(np.asarray(self.vectors), self.starts, axis=0)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            self._centroids = (sums / np.maximum(norms, 1e-9)).astype(np.float32)
        return self._centroids

    def centroid(self, query: Any) -> Any:
        """Per row: the cosine of the mean of its facet vectors (-inf without facets)."""
        import numpy as np

        out = np.full(self.rows, -np.inf, dtype=np.float32)
        if len(self.owners):
            out[self.has] = np.asarray(self.centroids()) @ query
        return out

    def sides_of(self, rows: Any, query: Any) -> tuple[Any, Any]:
        """(exact best facet cosine, cosine of the mean facet vector) of each of `rows`
        (-inf for rows without facets)."""
        import numpy as np

        at = np.minimum(np.searchsorted(self.has, rows), max(len(self.has) - 1, 0))
        found = (self.has[at] == rows) if len(self.has) else np.zeros(len(rows), dtype=bool)
        best = np.full(len(rows), -np.inf, dtype=np.float32)
        mean = np.full(len(rows), -np.inf, dtype=np.float32)
        if not found.any():
            return best, mean
        mean[found] = np.asarray(self.centroids())[at[found]] @ query
        starts, ends = self.starts[at[found]], self.ends[at[found]]
        lengths = ends - starts
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        index = np.repeat(starts - offsets, lengths) + np.arange(int(lengths.sum()))
        scores = np.asarray(self.vectors)[index] @ query
        best[found] = np.maximum.reduceat(scores, offsets)
        return best, mean

    def exact_for(self, rows: Any, descriptor: Any, query: Any, fusion: Fusion) -> tuple[Any, Any]:
        """(fused score, best facet score) of `rows` with every facet counted."""
        import numpy as np

        rows = np.asarray(rows, dtype=np.int64)
        if fusion.mode in ("none", "centroid") or not len(self.owners) or not len(rows):
            fused, best = self.fuse(descriptor, query, fusion)
            return fused[rows], best[rows]
        best, mean = self.sides_of(rows, query)
        return _fused(descriptor[rows], best, mean, fusion), best

    def fuse(self, descriptor: Any, query: Any, fusion: Fusion) -> tuple[Any, Any]:
        """(fused dense score per row, best facet score per row or -inf)."""
        import numpy as np

        if fusion.mode == "none" or not len(self.owners):
            return descriptor, np.full(self.rows, -np.inf, dtype=np.float32)
        if fusion.mode == "centroid":
            centroid = self.centroid(query)
            return np.maximum(descriptor, centroid), centroid
        if self.rows <= SHORTLIST:
            best = self.best(query)
            mean = self.centroid(query)
        else:
            rows = np.sort(np.argpartition(-descriptor, SHORTLIST)[:SHORTLIST])
            best = np.full(self.rows, -np.inf, dtype=np.float32)  # the rest: descriptor only
            mean = np.full(self.rows, -np.inf, dtype=np.float32)
            best[rows], mean[rows] = self.sides_of(rows, query)
        return _fused(descriptor, best, mean, fusion), best


def _fused(descriptor: Any, best: Any, mean: Any, fusion: Fusion) -> Any:
    """The `max` or `weighted` score from each row's descriptor, best facet and facet mean
    (-inf where a row has no facets)."""
    import numpy as np

    lifted = np.maximum(descriptor, best)
    if fusion.mode == "max":
        return lifted
    if fusion.centroid:
        lifted = (1.0 - fusion.centroid) * lifted + fusion.centroid * np.maximum(descriptor, mean)
    return (1.0 - fusion.weight) * descriptor + fusion.weight * lifted


def owner_layout(counts: list[int]) -> list[int]:
    """The owner row of every facet, given how many facets each row has, in row order."""
    return [row for row, count in enumerate(counts) for _ in range(count)]


def split_counter_facets(
    facets_json: str | None, vectors: list[Any]
) -> tuple[list[Any], list[Any]]:
    """A row's stored facet vectors split into (the ones fused into its score, its not_for
    requests'), by the kinds of its facets' JSON (in the same order). The JSON is parsed only
    for a row that has such requests: the path without snapshots splits every row per query."""
    if not facets_json or f'"{NOT_FOR}"' not in facets_json:
        return list(vectors), []
    kinds = [f.get("kind") for f in json.loads(facets_json)]
    fused = [v for v, kind in zip(vectors, kinds, strict=False) if kind != NOT_FOR]
    counter = [v for v, kind in zip(vectors, kinds, strict=False) if kind == NOT_FOR]
    return fused, counter
