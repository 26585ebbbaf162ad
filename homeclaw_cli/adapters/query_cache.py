"""A read-only snapshot of an index table for fast queries from a cold process.

Importing lancedb costs ~1.2 s (most of it its REST namespace client), more than the whole
budget of a one-shot `homeclaw plugin search`. After every write, the store also saves
each table as a snapshot: the vectors as one .npy matrix (numpy, exact cosine by a matrix
product) and a tantivy BM25 index of the same search text (tantivy imports in ~30 ms).
Queries use the snapshot when it is there and fall back to LanceDB when it is not.

Consistency: a writer removes the snapshot pointer *before* it commits to LanceDB and
writes a new snapshot only after the commit, so a snapshot that exists always matches
the table it was built from; after a crash in between there is none, queries read LanceDB,
and the next sync rebuilds it. Snapshots are versioned folders named by a `current`
pointer file that is replaced atomically, so a reader never sees a half-written one.
"""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from homeclaw_cli.core.keywords import fold, search_words
from homeclaw_cli.core.retrieval import Match
from homeclaw_cli.fsutil import atomic_write_bytes, atomic_write_text

if TYPE_CHECKING:
    from homeclaw_cli.adapters.embedder import Vectors

FORMAT = 2
POINTER = "current"


def cache_root(index_uri: str) -> Path | None:
    """Where snapshots of a local index live; None for object-store URIs (their snapshots
    live under the data dir, see object_store.cache_dir, and record the table version)."""
    if "://" in index_uri and not index_uri.startswith("file://"):
        return None
    return Path(index_uri.removeprefix("file://")) / ".homeclaw-snapshots"


def invalidate(root: Path, table: str) -> None:
    """Called before a LanceDB write: readers fall back to LanceDB until the next snapshot."""
    (root / table / POINTER).unlink(missing_ok=True)


def write_snapshot(
    root: Path,
    table: str,
    rows: list[dict[str, Any]],
    vectors: Vectors,
    model: str,
    *,
    version: int | None = None,
) -> None:
    """Write a new snapshot of `rows` (+ their vectors), taken at LanceDB table `version`,
    and point readers at it."""
    import io

    import numpy as np
    import tantivy

    folder = root / table
    generation = uuid.uuid4().hex[:12]
    target = folder / generation
    target.mkdir(parents=True)
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(vectors, dtype=np.float32), allow_pickle=False)
    atomic_write_bytes(target / "vectors.npy", buffer.getvalue())
    meta = {
        "format": FORMAT,
        "model": model,
        "ids": [r["id"] for r in rows],
        "status": [r.get("status") or "ok" for r in rows],
        "detail": [r.get("status_detail") or "" for r in rows],
        "hash": [r.get("content_hash", "") for r in rows],
        "dim": int(np.asarray(vectors).shape[1]) if len(rows) else 0,
        "table_version": version,
    }
    atomic_write_text(target / "rows.json", json.dumps(meta))
    # Descriptors are big and a query needs a handful: one per line, found by byte offset.
    blobs = [r["descriptor"].encode("utf-8") for r in rows]
    offsets = np.cumsum([0, *(len(b) + 1 for b in blobs)], dtype=np.int64)
    atomic_write_bytes(target / "descriptors.jsonl", b"\n".join(blobs) + b"\n")
    buffer = io.BytesIO()
    np.save(buffer, offsets, allow_pickle=False)
    atomic_write_bytes(target / "offsets.npy", buffer.getvalue())
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
    builder.add_integer_field("row", stored=True, indexed=False)
    (target / "text").mkdir()
    index = tantivy.Index(builder.build(), path=str(target / "text"))
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    for position, row in enumerate(rows):
        writer.add_document(tantivy.Document(body=fold(row["search_text"]), row=position))
    writer.commit()
    writer.wait_merging_threads()
    atomic_write_text(folder / POINTER, generation)
    for old in folder.iterdir():
        if old.is_dir() and old.name != generation:
            shutil.rmtree(old, ignore_errors=True)


def _map(path: Path) -> Any:
    import mmap

    with path.open("rb") as handle:
        size = handle.seek(0, 2)
        return mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if size else b""


class Snapshot:
    """One table's snapshot, opened read-only."""

    def __init__(
        self,
        folder: Path,
        meta: dict[str, Any],
        *,
        vectors: Any,
        offsets: Any,
        blob: Any,
        text: Any,
    ) -> None:
        self.folder = folder
        self.model: str = meta["model"]
        self.ids: list[str] = meta["ids"]
        self.status: list[str] = meta["status"]
        self.detail: list[str] = meta["detail"]
        self._offsets = offsets
        self._blob = blob
        self.hashes: list[str] = meta.get("hash") or [""] * len(self.ids)
        self.dim: int = int(meta.get("dim") or 0)
        self.table_version: int | None = meta.get("table_version")
        self.vectors = vectors
        self._text = text

    @classmethod
    def open(cls, root: Path, table: str) -> Snapshot | None:
        folder = root / table
        try:
            generation = (folder / POINTER).read_text(encoding="utf-8").strip()
            target = folder / generation
            meta = json.loads((target / "rows.json").read_text(encoding="utf-8"))
            if meta.get("format") != FORMAT:
                return None
            import numpy as np

            vectors = np.load(target / "vectors.npy", mmap_mode="r", allow_pickle=False)
            offsets = np.load(target / "offsets.npy", allow_pickle=False)
            # Everything is opened (mapped) now: a sync that replaces this snapshot and
            # deletes its folder cannot pull the files from under a running reader.
            blob = _map(target / "descriptors.jsonl")
            import tantivy

            text = tantivy.Index.open(str(target / "text"))
        except (OSError, ValueError, KeyError):
            return None
        if len(vectors) != len(meta["ids"]) or len(offsets) != len(meta["ids"]) + 1:
            return None
        if meta["ids"] and len(blob) != int(offsets[-1]):  # truncated or replaced: use the index
            return None
        return cls(target, meta, vectors=vectors, offsets=offsets, blob=blob, text=text)

    def row(self, index: int) -> dict[str, Any]:
        return {
            "id": self.ids[index],
            "status": self.status[index],
            "status_detail": self.detail[index],
            "descriptor": self.descriptor(index),
        }

    def descriptor(self, index: int) -> str:
        """The stored descriptor JSON of row `index`, read from disk on demand."""
        start, end = int(self._offsets[index]), int(self._offsets[index + 1]) - 1
        return bytes(self._blob[start:end]).decode("utf-8")

    def dense(self, vector: Any, limit: int) -> list[Match]:
        """The `limit` rows closest to `vector` by cosine (the vectors are normalised)."""
        import numpy as np

        if not len(self.ids):
            return []
        scores = np.asarray(self.vectors) @ np.asarray(vector, dtype=np.float32)
        limit = min(limit, len(scores))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [self._match(int(i), float(scores[i])) for i in top]

    def keyword(self, query: str, limit: int) -> list[Match]:
        """The `limit` best BM25 matches of the query's words."""
        words = search_words(query)
        if not words or not self.ids:
            return []
        searcher = self._text.searcher()
        parsed = self._text.parse_query(" ".join(words), ["body"])
        hits = []
        for score, address in searcher.search(parsed, limit).hits:
            hits.append(self._match(int(searcher.doc(address)["row"][0]), float(score)))
        return hits

    def _match(self, index: int, score: float) -> Match:
        return Match(self.ids[index], score, self.row(index))

    def vector(self, index: int) -> list[float]:
        values: list[float] = self.vectors[index].tolist()
        return values


class SnapshotReader:
    """The read side of VectorStore answered from a snapshot: same Match results, no lancedb."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.model = snapshot.model
        self._by_id = {item: i for i, item in enumerate(snapshot.ids)}

    def dense(self, table: str, vector: Sequence[float], limit: int) -> list[Match]:
        return self.snapshot.dense(vector, limit)

    def keyword(self, table: str, query: str, limit: int) -> list[Match]:
        return self.snapshot.keyword(query, limit)

    def vectors_for(self, table: str, ids: Sequence[str]) -> dict[str, list[float]]:
        return {i: self.snapshot.vector(self._by_id[i]) for i in ids if i in self._by_id}

    def all_rows(self, table: str) -> list[dict[str, Any]]:
        return [self.snapshot.row(i) for i in range(len(self.snapshot.ids))]

    def ids(self, table: str) -> list[str]:
        return list(self.snapshot.ids)
