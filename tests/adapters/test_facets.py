"""Facet vectors fused with the descriptor's score, mode by mode."""

from __future__ import annotations

import numpy as np
import pytest

from homeclaw_cli.adapters.facets import FacetMatrix, Fusion, owner_layout


def _unit(*values: float) -> list[float]:
    vector = np.array(values, dtype=np.float32)
    return list(vector / np.linalg.norm(vector))


@pytest.fixture
def matrix() -> FacetMatrix:
    # Row 0 has two facets, row 1 none, row 2 one.
    facets = np.array([_unit(1, 0), _unit(0, 1), _unit(1, 1)], dtype=np.float32)
    return FacetMatrix(facets, owner_layout([2, 0, 1]), 3)


def test_best_facet_per_row_and_none_for_rows_without(matrix: FacetMatrix) -> None:
    best = matrix.best(np.array(_unit(0, 1), dtype=np.float32))
    assert best[0] == pytest.approx(1.0) and best[1] == -np.inf
    assert best[2] == pytest.approx(0.7071, abs=1e-4)
    assert matrix.span(0) == (0, 2) and matrix.span(1) == (0, 0) and matrix.span(2) == (2, 3)


@pytest.mark.parametrize(
    ("fusion", "expected"),
    [
        (Fusion("none"), [0.2, 0.5, 0.3]),
        (Fusion("max"), [1.0, 0.5, 0.7071]),
        (Fusion("centroid"), [0.7071, 0.5, 0.7071]),
        # row 0: 0.5 * 0.2 + 0.5 * (0.5 * best 1.0 + 0.5 * mean 0.7071)
        (Fusion("weighted", 0.5), [0.5268, 0.5, 0.5036]),
        (Fusion("weighted", 0.5, centroid=0.0), [0.6, 0.5, 0.5036]),  # the best facet only
        (Fusion("weighted", 0.5, centroid=1.0), [0.4536, 0.5, 0.5036]),  # the mean only
    ],
)
def test_each_fusion_mode(matrix: FacetMatrix, fusion: Fusion, expected: list[float]) -> None:
    descriptor = np.array([0.2, 0.5, 0.3], dtype=np.float32)
    fused, _ = matrix.fuse(descriptor, np.array(_unit(0, 1), dtype=np.float32), fusion)
    assert list(fused) == pytest.approx(expected, abs=1e-4)


def test_past_the_shortlist_only_the_best_descriptors_get_facets_and_exact_for_is_exact(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from homeclaw_cli.adapters import facets

    rng = np.random.default_rng(1)
    counts = [int(c) for c in rng.integers(0, 5, 300)]
    vectors = rng.normal(size=(sum(counts), 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    matrix = FacetMatrix(vectors, owner_layout(counts), len(counts))
    query = vectors[7]
    descriptor = rng.uniform(-0.2, 0.2, len(counts)).astype(np.float32)
    weighted = Fusion("weighted", 0.5)
    exact, _ = matrix.fuse(descriptor, query, weighted)
    monkeypatch.setattr(facets, "SHORTLIST", 20)
    quick, _ = matrix.fuse(descriptor, query, weighted)
    shortlist = np.argsort(-descriptor)[:20]
    assert quick[shortlist] == pytest.approx(exact[shortlist])
    rest = np.setdiff1d(np.arange(len(counts)), shortlist)
    assert quick[rest] == pytest.approx(descriptor[rest])
    owner = owner_layout(counts)[7]  # found by keyword: scored with every facet
    fused, best = matrix.exact_for([owner], descriptor, query, weighted)
    assert best[0] == pytest.approx(1.0) and fused[0] == pytest.approx(exact[owner])


def test_not_for_requests_are_kept_apart_from_the_fused_facets() -> None:
    """A row's not_for vectors never lift its score: the matrices fused into it leave them
    out, and they come back as the row's counter vectors, owner by owner."""
    import json

    from homeclaw_cli.adapters.index_table import counter_matrix, matrices

    def row(kinds: list[str], vectors: list[list[float]]) -> dict[str, object]:
        facets = [{"text": f"t{n}", "kind": kind} for n, kind in enumerate(kinds)]
        return {
            "vector": _unit(1, 0),
            "dim": 2,
            "facets": json.dumps(facets),
            "facet_vectors": vectors,
        }

    rows = [
        row(["example", "not_for"], [_unit(1, 1), _unit(0, 1)]),
        row([], []),
        row(["not_for", "capability"], [_unit(0, 1), _unit(1, 0)]),
    ]
    _, facets, owners = matrices(rows)
    assert owners == [0, 2]
    assert np.allclose(facets, [_unit(1, 1), _unit(1, 0)])
    counters, counter_owners = counter_matrix(rows)
    assert counter_owners == [0, 2]
    assert np.allclose(counters, [_unit(0, 1), _unit(0, 1)])
    _, best = FacetMatrix(facets, owners, 3).fuse(
        np.zeros(3, dtype=np.float32), np.array(_unit(0, 1), dtype=np.float32), Fusion("max")
    )
    assert best[0] == pytest.approx(0.7071, abs=1e-4) and best[2] == pytest.approx(0.0)
