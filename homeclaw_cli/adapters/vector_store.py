"""The LanceDB index: one table per kind (plugins, skills), one row per descriptor.

Every write is a single LanceDB commit (merge_insert, delete, or a whole-table overwrite),
and a commit is atomic: a reader, or the next process after a kill -9, sees the table
before or after it, never a half-written row. Unreferenced data files of an interrupted
commit are harmless and are removed by `optimize()`.

A row carries the model name and dimension it was embedded with; a table whose rows came
from another model (or dimension) is rebuilt by overwriting it in one commit, so changing
`embedding.model` never meets a dimension mismatch.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from homeclaw_cli.adapters import object_store, query_cache, table_search
from homeclaw_cli.adapters.facets import Fusion
from homeclaw_cli.adapters.index_row import RECIPE, IndexRow, row_examples
from homeclaw_cli.adapters.index_table import (
    FTS_COLUMN,
    META_COLUMNS,
    StoredEmbedding,
    StoredMeta,
    merge_by_id,
    records,
    table_schema,
)
from homeclaw_cli.adapters.query_cache import SnapshotReader
from homeclaw_cli.core.retrieval import Match
from homeclaw_cli.errors import ConfigError, HomeclawError, object_store_error
from homeclaw_cli.fsutil import unwritable

if TYPE_CHECKING:
    from homeclaw_cli.adapters.embedder import Vectors

__all__ = [
    "RECIPE",
    "IndexRow",
    "SnapshotReader",
    "StoredMeta",
    "VectorStore",
    "open_store",
    "row_examples",
]


def open_store(settings: Any) -> VectorStore:
    """The index of `settings` (index.uri, with snapshots unless index.snapshots is off)."""
    uri = settings.index_uri
    return VectorStore(
        uri,
        snapshots=settings.index.snapshots,
        storage_options=object_store.storage_options(settings.index, uri),
        cache_dir=object_store.cache_dir(settings.data_dir, uri),
        refresh_interval=settings.index.refresh_interval_sec,
    )


class VectorStore:
    """A thin, typed wrapper over one LanceDB database (a local folder or an object-store URI)."""

    def __init__(
        self,
        uri: str,
        *,
        snapshots: bool = True,
        storage_options: dict[str, str] | None = None,
        cache_dir: Path | None = None,
        refresh_interval: float = 30.0,
    ) -> None:
        self.uri = uri
        self._db: Any = None
        self.remote = object_store.is_remote(uri)
        self.storage_options = storage_options or {}
        self.refresh_interval = refresh_interval
        root = cache_dir if self.remote else query_cache.cache_root(uri)
        self.snapshot_root = root if snapshots else None

    def _invalidate(self, table: str) -> None:
        if self.snapshot_root is not None:
            query_cache.invalidate(self.snapshot_root, table)

    def snapshot(self, table: str) -> query_cache.Snapshot | None:
        """The fast read-only copy of `table`, when one is current."""
        if self.snapshot_root is None:
            return None
        return query_cache.Snapshot.open(self.snapshot_root, table)

    def may_exist(self, table: str) -> bool:
        """False only when `table` certainly does not exist (a local index without its folder).

        Lets a sync with nothing to index skip importing lancedb (~1.2 s).
        """
        root = query_cache.cache_root(self.uri)
        if root is None:
            return object_store.latest_version(self.uri, table, self.storage_options) != 0
        return (root.parent / f"{table}.lance").exists()

    def _table_deleted(self, table: str) -> bool:
        """A local table whose folder is gone: its snapshot describes rows that no longer exist."""
        return not self.remote and not self.may_exist(table)

    def snapshot_generation(self, table: str) -> str | None:
        """The id of the current snapshot of `table` (it changes on every write)."""
        if self.snapshot_root is None or self._table_deleted(table):
            return None
        try:
            pointer = self.snapshot_root / table / query_cache.POINTER
            return pointer.read_text(encoding="utf-8").strip() or None
        except OSError:
            return None

    def snapshot_missing(self, table: str) -> bool:
        return self.snapshot_root is not None and self.snapshot(table) is None

    def ensure_fresh(self, table: str, *, max_age: float | None = None) -> None:
        """Object-store index: rebuild the local snapshot when the table has a newer version
        (no re-embedding: rows and vectors are copied). Checked at most every `max_age`
        seconds (index.refresh_interval_sec); a local index is always current."""
        if not self.remote or self.snapshot_root is None:
            return
        stamp = self.snapshot_root / table / "checked"
        max_age = self.refresh_interval if max_age is None else max_age
        snapshot = self.snapshot(table)
        if snapshot is not None and max_age > 0:
            try:
                if time.time() - stamp.stat().st_mtime < max_age:
                    return
            except OSError:
                pass
        version = object_store.latest_version(self.uri, table, self.storage_options)
        if version == 0:  # no such table yet: nothing to copy, no lancedb import
            query_cache.invalidate(self.snapshot_root, table)
        elif snapshot is None or version is None or snapshot.table_version != version:
            try:
                self.refresh_snapshot(table)
            except HomeclawError:
                if snapshot is None:
                    raise
                stamp.touch()  # the store is unreachable now: answer from the last copy
                return
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.touch()

    def refresh_snapshot(self, table: str) -> None:
        """Rewrite the snapshot of `table` from what LanceDB holds now."""
        if self.snapshot_root is None:
            return
        handle = self._open(table)
        if handle is None:
            query_cache.invalidate(self.snapshot_root, table)
            return
        # The handle stays at the version it opened, so rows and version agree.
        version = int(handle.version)
        rows = handle.search().limit(max(1, handle.count_rows())).to_list()
        models = {r["model"] for r in rows}
        model = models.pop() if len(models) == 1 else ""
        query_cache.write_snapshot(self.snapshot_root, table, rows, model, version=version)
        (self.snapshot_root / table / "checked").touch()  # as fresh as a version check

    @property
    def db(self) -> Any:
        if self._db is None:
            # LanceDB logs WARN lines such as "No existing dataset at ..." (the doctor's probe
            # table) straight to stderr; homeclaw reports what matters itself.
            os.environ.setdefault("LANCEDB_LOG", "error")
            object_store.require_reachable(self.uri, self.storage_options)
            import lancedb

            try:
                self._db = lancedb.connect(self.uri, storage_options=self._connect_options())
            except Exception as exc:  # bad scheme, missing credentials, permissions...
                known = object_store_error(self.uri, exc)
                if known is None and isinstance(exc, OSError) and not self.remote:
                    known = unwritable(Path(self.uri), exc)  # e.g. a file named like the index
                if known is not None:
                    raise known from None
                raise ConfigError(
                    f"cannot open the index at {self.uri}: {exc}",
                    hint="check index.uri in the config (a folder or an object-store URI)",
                ) from None
        return self._db

    def _connect_options(self) -> dict[str, str] | None:
        if not self.remote:
            return None
        # Row ids another machine's compaction keeps: drop_duplicates deletes the rows it read.
        return {**self.storage_options, "new_table_enable_stable_row_ids": "true"}

    def _open(self, table: str) -> Any | None:
        try:
            return self.db.open_table(table)
        except (ValueError, FileNotFoundError) as exc:
            known = object_store_error(self.uri, exc)
            if known is not None:
                raise known from None
            return None
        except RuntimeError as exc:  # e.g. the s3+ddb:// commit store cannot be reached
            known = object_store_error(self.uri, exc)
            if known is not None:
                raise known from None
            raise

    def probe_write(self) -> None:
        """Create and drop a one-row table: the store takes this machine's writes (doctor)."""
        self.db.create_table("homeclaw_doctor_probe", data=[{"x": 1}], mode="overwrite")
        self.db.drop_table("homeclaw_doctor_probe")

    def exists(self, table: str) -> bool:
        return self._open(table) is not None

    def meta_from_snapshot(self, table: str) -> dict[str, StoredMeta] | None:
        """meta() from the current snapshot (no lancedb import); None when there is none.

        A snapshot exists only when the last writer finished every step (rows, deletions,
        text index), so it is as good as the table for deciding what a sync must do.
        """
        snapshot = self.snapshot(table)
        if snapshot is None or not all(snapshot.hashes) or self._table_deleted(table):
            return None
        return {
            item: StoredMeta(item, snapshot.hashes[i], snapshot.model, snapshot.dim, status)
            for i, (item, status) in enumerate(zip(snapshot.ids, snapshot.status, strict=True))
        }

    def meta(self, table: str) -> dict[str, StoredMeta]:
        """id -> (hash, model, dim, status) of every row, without reading vectors."""
        handle = self._open(table)
        if handle is None:
            return {}
        data = handle.search().select(META_COLUMNS).limit(max(1, handle.count_rows())).to_list()
        return {
            r["id"]: StoredMeta(r["id"], r["content_hash"], r["model"], r["dim"], r["status"])
            for r in data
        }

    def count(self, table: str) -> int:
        handle = self._open(table)
        return 0 if handle is None else int(handle.count_rows())

    def replace_all(
        self,
        table: str,
        rows: Sequence[IndexRow],
        vectors: Vectors,
        model: str,
        dim: int,
        *,
        facets: Sequence[Vectors],
    ) -> None:
        """Overwrite `table` with exactly `rows` in one commit (full sync, model change);
        `facets` holds each row's facet vectors (one matrix per row, maybe empty)."""
        import pyarrow as pa

        schema = table_schema(dim)
        data = pa.Table.from_pylist(records(rows, vectors, model, facets), schema=schema)
        self._invalidate(table)
        mode = "overwrite" if self.may_exist(table) else "create"  # no "no dataset" warning
        self.db.create_table(table, data=data, schema=schema, mode=mode)
        self.rebuild_text_index(table)

    def upsert(
        self,
        table: str,
        rows: Sequence[IndexRow],
        vectors: Vectors,
        model: str,
        *,
        facets: Sequence[Vectors],
    ) -> None:
        """Insert or update `rows` (and their facet vectors) by id in one commit."""
        import pyarrow as pa

        if not rows:
            return
        handle = self._open(table)
        dim = int(vectors.shape[1])
        schema = table_schema(dim)
        data = pa.Table.from_pylist(records(rows, vectors, model, facets), schema=schema)
        self._invalidate(table)
        if handle is None and not self.remote:
            self.db.create_table(table, data=data, schema=schema)
            return
        if handle is None:
            self.create_empty(table, dim)
        self._commit(table, lambda h: merge_by_id(h).execute(data))

    def create_empty(self, table: str, dim: int) -> None:
        """Create `table` without rows unless it exists. Two machines creating a table at
        once: Lance lets the later create land as an Overwrite, so a shared index is created
        empty (before embedding) and rows are merged into whichever create won."""
        self.db.create_table(table, schema=table_schema(dim), exist_ok=True)

    def _commit(self, table: str, action: Any) -> Any:
        """Run one commit on the newest version of `table`, retried when another writer's
        commit won (Lance itself retries a merge; this covers what it gives up on)."""
        return object_store.retry_commit(lambda: action(self._require(table)))

    def drop_duplicates(self, table: str, *, rounds: int = 5) -> None:
        """Keep one row per id. Two machines inserting the same new id at once both commit
        (Lance merges them as compatible appends); every machine keeps the lowest row id, so
        concurrent clean-ups agree. In a table without stable row ids, another machine's
        compaction between the read and the delete renumbers the rows and the delete removes
        nothing, so the table is read again until a read finds each id once."""
        for _ in range(rounds):
            if not self._commit(table, _drop_duplicates):
                return

    def delete(self, table: str, ids: Iterable[str]) -> int:
        """Delete rows by id in one commit; returns how many ids were asked for."""
        wanted = sorted(set(ids))
        handle = self._open(table)
        if not wanted or handle is None:
            return 0
        quoted = ", ".join("'" + i.replace("'", "''") + "'" for i in wanted)
        self._invalidate(table)
        self._commit(table, lambda h: h.delete(f"id IN ({quoted})"))
        return len(wanted)

    def rebuild_text_index(self, table: str) -> None:
        """(Re)build the full-text index; rows added since are still searched, unranked-fast."""
        from lancedb.index import FTS

        handle = self._open(table)
        if handle is None or handle.count_rows() == 0:
            return
        config = FTS()
        self._commit(table, lambda h: h.create_index(FTS_COLUMN, config=config, replace=True))

    def text_index_stale(self, table: str) -> bool:
        handle = self._open(table)
        if handle is None or handle.count_rows() == 0:
            return False
        for index in handle.list_indices():
            if FTS_COLUMN in index.columns:
                stats = handle.index_stats(index.name)
                return bool(stats is None or stats.num_unindexed_rows)
        return True

    def optimize(self, table: str) -> None:
        """Compact files and drop old versions (and orphans of interrupted writes)."""
        from datetime import timedelta

        handle = self._open(table)
        if handle is None:
            return
        try:
            handle.optimize(cleanup_older_than=timedelta(minutes=5))
        except (RuntimeError, OSError, ValueError):
            if not self.remote:
                raise  # shared index: another writer's commit won; its next sync compacts

    def all_rows(self, table: str, *, limit: int | None = None) -> list[dict[str, Any]]:
        handle = self._open(table)
        if handle is None:
            return []
        columns = [c for c in handle.schema.names if c not in ("vector", "facet_vectors")]
        query = handle.search().select(columns)
        if limit is not None:
            query = query.limit(limit)
        else:
            query = query.limit(max(1, handle.count_rows()))
        rows: list[dict[str, Any]] = query.to_list()
        return rows

    def ids(self, table: str) -> list[str]:
        handle = self._open(table)
        if handle is None:
            return []
        rows = handle.search().select(["id"]).limit(max(1, handle.count_rows())).to_list()
        return [str(r["id"]) for r in rows]

    def dense(self, table: str, vector: Sequence[float], limit: int, fusion: Fusion) -> list[Match]:
        """Exact fused cosine over every row (the path without snapshots, e.g. object stores)."""
        return table_search.dense(self._require(table), vector, limit, fusion)

    def dense_for(
        self, table: str, ids: Sequence[str], vector: Sequence[float], fusion: Fusion
    ) -> list[Match]:
        """The fused dense score of `ids` (keyword-only candidates)."""
        return table_search.dense_for(self._require(table), ids, vector, fusion)

    def facet_scores(
        self, table: str, item: str, vector: Sequence[float]
    ) -> list[tuple[dict[str, Any], float]]:
        """The facets of `item` with their cosine to `vector`, best first."""
        return table_search.facet_scores(self._require(table), item, vector)

    def keyword(self, table: str, query: str, limit: int) -> list[Match]:
        """Full-text (BM25) matches of `query`."""
        return table_search.keyword(self._require(table), query, limit)

    def stored_embeddings(self, table: str, ids: Sequence[str]) -> dict[str, StoredEmbedding]:
        """The embedded texts and vectors of those `ids` that have a row."""
        handle = self._open(table)
        if handle is None or not ids:
            return {}
        quoted = ", ".join("'" + i.replace("'", "''") + "'" for i in ids)
        columns = ["id", "text", "facets", "model", "vector", "facet_vectors"]
        rows = handle.search().where(f"id IN ({quoted})").select(columns).limit(len(ids))
        return {
            r["id"]: StoredEmbedding(
                r["text"], r["facets"], r["model"], r["vector"], r["facet_vectors"]
            )
            for r in rows.to_list()
        }

    def index_model(self, table: str) -> str | None:
        """The model the rows of `table` were embedded with (None for an empty table)."""
        handle = self._require(table)
        rows = handle.search().select(["model"]).limit(1).to_list()
        return str(rows[0]["model"]) if rows else None

    def _require(self, table: str) -> Any:
        handle = self._open(table)
        if handle is None:
            raise HomeclawError(
                f"the index has no table {table!r} yet", hint="run `homeclaw sync` to build it"
            )
        return handle


def _drop_duplicates(handle: Any) -> bool:
    """Delete every copy of an id but the one with the lowest row id; True when it found any."""
    rows = handle.search().with_row_id(True).select(["id"]).limit(max(1, handle.count_rows()))
    first: dict[str, int] = {}
    extra: list[int] = []
    for row in sorted(rows.to_list(), key=lambda r: int(r["_rowid"])):
        if row["id"] in first:
            extra.append(int(row["_rowid"]))
        else:
            first[row["id"]] = int(row["_rowid"])
    if extra:
        handle.delete(f"_rowid IN ({', '.join(map(str, extra))})")
    return bool(extra)
