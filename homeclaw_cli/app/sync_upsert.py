"""Merging a sync's embedded rows into the index. On a shared (object-store) index other
machines may be syncing at the same moment, so the rows are settled afterwards."""

from __future__ import annotations

from collections.abc import Sequence

from homeclaw_cli.adapters.vector_store import IndexRow, VectorStore
from homeclaw_cli.app.sync_embed import Embedded


def upsert_rows(
    store: VectorStore, table: str, rows: Sequence[IndexRow], done: Embedded, model: str
) -> None:
    """Merge `rows` (embedded in `done`) in by id. On object storage the table is created
    empty first (of two first creates at once, the later lands as an overwrite), then settled."""
    if store.remote:
        store.create_empty(table, done.dim)
    store.upsert(table, rows, done.vectors, model, facets=done.facets)
    if store.remote:
        _settle(store, table, rows, done, model)


def _settle(
    store: VectorStore,
    table: str,
    rows: Sequence[IndexRow],
    done: Embedded,
    model: str,
    *,
    rounds: int = 5,
) -> None:
    """Keep once the rows two machines inserted at once, and merge again those of `rows` that a
    concurrent create or clean-up removed, until a read shows each of them there."""
    for _ in range(rounds):
        store.drop_duplicates(table)
        present = set(store.ids(table))
        lost = [i for i, row in enumerate(rows) if row.id not in present]
        if not lost:
            return
        store.upsert(
            table,
            [rows[i] for i in lost],
            done.vectors[lost],
            model,
            facets=[done.facets[i] for i in lost],
        )
