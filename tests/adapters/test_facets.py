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
        (Fusion("weighted", 0.5), [0.6, 0.5, 0.5036]),
    ],
)
def test_each_fusion_mode(matrix: FacetMatrix, fusion: Fusion, expected: list[float]) -> None:
    descriptor = np.array([0.2, 0.5, 0.3], dtype=np.float32)
    fused, _ = matrix.fuse(descriptor, np.array(_unit(0, 1), dtype=np.float32), fusion)
    assert list(fused) == pytest.approx(expected, abs=1e-4)
