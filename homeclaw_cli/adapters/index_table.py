"""The layout of an index table: its Arrow schema, the record of a row, and the read-back of
stored rows (metadata, embeddings, the vector matrices a snapshot or a query needs)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from homeclaw_cli.adapters.facets import owner_layout, split_counter_facets
from homeclaw_cli.adapters.index_row import IndexRow

if TYPE_CHECKING:
    from homeclaw_cli.adapters.embedder import Vectors

FTS_COLUMN = "search_text"
META_COLUMNS = ["id", "content_hash", "model", "dim", "status"]


@dataclass(frozen=True)
class StoredEmbedding:
    """What a row was embedded from and with (a sync reuses it when nothing changed)."""

    text: str
    facets: str  # the facets' JSON as stored
    model: str
    vector: list[float]
    facet_vectors: list[list[float]]


@dataclass
class StoredMeta:
    id: str
    content_hash: str
    model: str
    dim: int
    status: str


def table_schema(dim: int) -> Any:
    """The Arrow schema of an index table whose vectors have `dim` dimensions."""
    import pyarrow as pa

    return pa.schema(
        [
            ("id", pa.string()),
            ("kind", pa.string()),
            ("source", pa.string()),
            ("text", pa.string()),
            (FTS_COLUMN, pa.string()),
            ("content_hash", pa.string()),
            ("model", pa.string()),
            ("dim", pa.int32()),
            ("descriptor", pa.string()),
            ("status", pa.string()),
            ("status_detail", pa.string()),
            ("examples", pa.string()),
            ("facets", pa.string()),
            ("updated_at", pa.string()),
            ("vector", pa.list_(pa.float32(), dim)),
            ("facet_vectors", pa.list_(pa.list_(pa.float32(), dim))),
        ]
    )


def records(
    rows: Sequence[IndexRow], vectors: Vectors, model: str, facets: Sequence[Vectors]
) -> list[dict[str, Any]]:
    """The LanceDB records of `rows`, their vectors and each row's facet vectors."""
    now = datetime.now(UTC).isoformat(timespec="seconds")
    dim = int(vectors.shape[1]) if len(vectors) else 0
    return [
        {
            "id": row.id,
            "kind": row.kind,
            "source": row.source,
            "text": row.text,
            FTS_COLUMN: row.keyword_text,
            "content_hash": row.content_hash,
            "model": model,
            "dim": dim,
            "descriptor": json.dumps(row.descriptor, sort_keys=True, default=str),
            "status": row.status,
            "status_detail": row.status_detail,
            "examples": json.dumps([e.to_json() for e in row.examples]),
            "facets": json.dumps([f.to_json() for f in row.facets]),
            "updated_at": now,
            "vector": vector.tolist(),
            "facet_vectors": facet.tolist(),
        }
        for row, vector, facet in zip(rows, vectors, facets, strict=True)
    ]


def matrices(rows: list[dict[str, Any]]) -> tuple[Any, Any, list[int]]:
    """(descriptor vectors, fused facet vectors owner by owner, the row of each facet) of
    `rows` (not_for requests left out: see counter_matrix)."""
    import numpy as np

    dim = _dim(rows)
    vectors = np.array([r["vector"] for r in rows], dtype=np.float32).reshape(len(rows), dim)
    facets, owners = _owned(rows, 0, dim)
    return vectors, facets, owners


def counter_matrix(rows: list[dict[str, Any]]) -> tuple[Any, list[int]]:
    """(the vectors of every row's not_for requests owner by owner, the row of each)."""
    return _owned(rows, 1, _dim(rows))


def _dim(rows: list[dict[str, Any]]) -> int:
    return int(rows[0].get("dim") or len(rows[0]["vector"])) if rows else 0


def _owned(rows: list[dict[str, Any]], side: int, dim: int) -> tuple[Any, list[int]]:
    """One side of split_counter_facets (0: fused, 1: not_for) of every row, stacked."""
    import numpy as np

    groups = [
        split_counter_facets(r.get("facets"), list(r.get("facet_vectors") or []))[side]
        for r in rows
    ]
    flat = [v for group in groups for v in group]
    stacked = np.array(flat, dtype=np.float32).reshape(len(flat), dim)
    return stacked, owner_layout([len(g) for g in groups])


def merge_by_id(handle: Any) -> Any:
    """An upsert by id (LanceDB merge_insert)."""
    return handle.merge_insert("id").when_matched_update_all().when_not_matched_insert_all()
