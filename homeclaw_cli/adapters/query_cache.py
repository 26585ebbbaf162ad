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

import functools
import json
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from homeclaw_cli.adapters.facets import NOT_FOR, FacetMatrix, Fusion
from homeclaw_cli.adapters.index_table import counter_matrix, matrices
from homeclaw_cli.core.keywords import fold, search_words
from homeclaw_cli.core.retrieval import Match, shared_name_words
from homeclaw_cli.fsutil import atomic_write_bytes, atomic_write_text

FORMAT = 6
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


def _save_array(path: Path, array: Any) -> None:
    import io

    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    atomic_write_bytes(path, buffer.getvalue())


def _save_lines(target: Path, name: str, blobs: list[bytes]) -> None:
    """One record per line, found by byte offset (`<name>.jsonl` + `<name>.offsets.npy`)."""
    import numpy as np

    offsets = np.cumsum([0, *(len(b) + 1 for b in blobs)], dtype=np.int64)
    atomic_write_bytes(target / f"{name}.jsonl", b"\n".join(blobs) + b"\n")
    _save_array(target / f"{name}.offsets.npy", offsets)


def write_snapshot(
    root: Path, table: str, rows: list[dict[str, Any]], model: str, *, version: int | None = None
) -> None:
    """Write a new snapshot of the LanceDB `rows` (their vectors, their fused facet vectors and
    their not_for requests' vectors, each with the row it belongs to, owner-sorted), taken at
    table `version`, and point readers at it."""
    import numpy as np
    import tantivy

    folder = root / table
    generation = uuid.uuid4().hex[:12]
    target = folder / generation
    target.mkdir(parents=True)
    vectors, facet_vectors, owners = matrices(rows)
    _save_array(target / "vectors.npy", vectors)
    dim = int(vectors.shape[1])
    _save_array(target / "facets.npy", facet_vectors)
    _save_array(target / "owners.npy", np.asarray(owners, dtype=np.int64))
    counter_vectors, counter_owners = counter_matrix(rows)
    _save_array(target / "counters.npy", counter_vectors)
    _save_array(target / "counter_owners.npy", np.asarray(counter_owners, dtype=np.int64))
    matrix = FacetMatrix(np.asarray(facet_vectors, dtype=np.float32), owners, len(rows))
    centroids = matrix.centroids() if len(owners) else np.zeros((0, dim), dtype=np.float32)
    _save_array(target / "centroids.npy", centroids)
    meta = {
        "format": FORMAT,
        "model": model,
        "ids": [r["id"] for r in rows],
        "status": [r.get("status") or "ok" for r in rows],
        "detail": [r.get("status_detail") or "" for r in rows],
        "hash": [r.get("content_hash", "") for r in rows],
        "dim": dim,
        "table_version": version,
    }
    atomic_write_text(target / "rows.json", json.dumps(meta))
    # Descriptors are big and a query needs a handful: one per line, found by byte offset.
    _save_lines(target, "descriptors", [r["descriptor"].encode("utf-8") for r in rows])
    extras = [
        json.dumps({"examples": r.get("examples") or "[]", "facets": r.get("facets") or "[]"})
        for r in rows
    ]
    _save_lines(target, "extras", [e.encode("utf-8") for e in extras])
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


class _Lines:
    """Records saved by `_save_lines`, mapped now and decoded one at a time on demand."""

    def __init__(self, target: Path, name: str, count: int) -> None:
        import numpy as np

        self.offsets = np.load(target / f"{name}.offsets.npy", allow_pickle=False)
        # Mapped now: a sync that replaces this snapshot and deletes its folder cannot
        # pull the file from under a running reader.
        self.blob = _map(target / f"{name}.jsonl")
        if len(self.offsets) != count + 1 or (count and len(self.blob) != int(self.offsets[-1])):
            raise ValueError(f"{name} does not match the rows")  # truncated or replaced

    def __getitem__(self, index: int) -> str:
        start, end = int(self.offsets[index]), int(self.offsets[index + 1]) - 1
        return bytes(self.blob[start:end]).decode("utf-8")


class Snapshot:
    """One table's snapshot, opened read-only."""

    def __init__(
        self,
        folder: Path,
        meta: dict[str, Any],
        *,
        vectors: Any,
        facets: FacetMatrix,
        text: Any,
        counters: FacetMatrix,
    ) -> None:
        self.folder = folder
        self.model: str = meta["model"]
        self.ids: list[str] = meta["ids"]
        self.status: list[str] = meta["status"]
        self.detail: list[str] = meta["detail"]
        self.hashes: list[str] = meta.get("hash") or [""] * len(self.ids)
        self.dim: int = int(meta.get("dim") or 0)
        self.table_version: int | None = meta.get("table_version")
        self.vectors = vectors
        self.facets = facets
        self.counters = counters
        self._text = text
        self._descriptors = _Lines(folder, "descriptors", len(self.ids))
        self._extras = _Lines(folder, "extras", len(self.ids))
        self._last: tuple[bytes, Any, Any, Any] | None = None
        self._extras_parsed: dict[int, dict[str, Any]] = {}

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
            facet_vectors = np.load(target / "facets.npy", mmap_mode="r", allow_pickle=False)
            owners = np.load(target / "owners.npy", allow_pickle=False)
            centroids = np.load(target / "centroids.npy", mmap_mode="r", allow_pickle=False)
            counter_vectors = np.load(target / "counters.npy", allow_pickle=False)
            counter_owners = np.load(target / "counter_owners.npy", allow_pickle=False)
            text = _open_text(target / "text")
            if len(vectors) != len(meta["ids"]) or len(facet_vectors) != len(owners):
                return None
            if len(counter_vectors) != len(counter_owners):
                return None
            rows = len(meta["ids"])
            facets = FacetMatrix(facet_vectors, owners, rows, centroids)
            counters = FacetMatrix(counter_vectors, counter_owners, rows)
            return cls(target, meta, vectors=vectors, facets=facets, text=text, counters=counters)
        except (OSError, ValueError, KeyError):
            return None

    def row(self, index: int) -> dict[str, Any]:
        extras = self._parsed_extras(index)
        return {
            "id": self.ids[index],
            "status": self.status[index],
            "status_detail": self.detail[index],
            "examples": extras["examples"],
            "facets": extras["facets"],
            "descriptor": self.descriptor(index),
        }

    def _parsed_extras(self, index: int) -> dict[str, Any]:
        """Row `index`'s examples and facets, parsed once (a warm query reads the same rows)."""
        parsed = self._extras_parsed.get(index)
        if parsed is None:
            parsed = self._extras_parsed[index] = json.loads(self._extras[index])
        return parsed

    def descriptor(self, index: int) -> str:
        """The stored descriptor JSON of row `index`, read from disk on demand."""
        return self._descriptors[index]

    def scores(self, vector: Any, fusion: Fusion) -> tuple[Any, Any]:
        """(fused dense score, best facet score) of every row; the last query's are reused."""
        import numpy as np

        query = np.asarray(vector, dtype=np.float32)
        key = query.tobytes() + repr(fusion).encode()
        if self._last is None or self._last[0] != key:
            descriptor = np.asarray(self.vectors) @ query
            fused, best = self.facets.fuse(descriptor, query, fusion)
            self._last = (key, fused, best, descriptor)
        return self._last[1], self._last[2]

    def _descriptor_scores(self, query: Any) -> Any:
        """The cosine of every row's descriptor vector to `query` (the last query's reused)."""
        import numpy as np

        if self._last is not None and self._last[0].startswith(query.tobytes()):
            return self._last[3]
        return np.asarray(self.vectors) @ query

    def dense(self, vector: Any, limit: int, fusion: Fusion | None = None) -> list[Match]:
        """The `limit` rows closest to `vector`: cosine (vectors are normalised), fused with
        each row's facets."""
        import numpy as np

        if not len(self.ids):
            return []
        scores, best = self.scores(vector, fusion or Fusion())
        limit = min(limit, len(scores))
        top = np.argpartition(-scores, limit - 1)[:limit]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [self._match(int(i), float(scores[i]), float(best[i])) for i in top]

    def dense_for(self, vector: Any, indexes: list[int], fusion: Fusion) -> list[Match]:
        """The fused dense score of the rows at `indexes` (every facet counted)."""
        import numpy as np

        query = np.asarray(vector, dtype=np.float32)
        descriptor = self._descriptor_scores(query) if indexes else query[:0]
        scores, best = self.facets.exact_for(indexes, descriptor, query, fusion)
        return [
            self._match(i, float(s), float(b))
            for i, s, b in zip(indexes, scores, best, strict=True)
        ]

    def facet_scores(self, index: int, vector: Any) -> list[tuple[dict[str, Any], float]]:
        """Every facet of row `index` (not_for requests too) with its cosine to `vector`,
        best first."""
        import numpy as np

        query = np.asarray(vector, np.float32)
        facets = json.loads(self._parsed_extras(index)["facets"])
        pairs: list[tuple[dict[str, Any], float]] = []
        for matrix, counter in ((self.facets, False), (self.counters, True)):
            start, end = matrix.span(index)
            if start == end:
                continue
            scores = np.asarray(matrix.vectors[start:end]) @ query
            mine = [f for f in facets if (f.get("kind") == NOT_FOR) == counter]
            pairs.extend((mine[i], float(scores[i])) for i in range(min(len(mine), end - start)))
        return sorted(pairs, key=lambda pair: -pair[1])

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

    def _match(self, index: int, score: float, facet: float | None = None) -> Match:
        usable = facet is not None and facet > -1.5
        return Match(self.ids[index], score, self.row(index), facet if usable else None)

    def vector(self, index: int) -> list[float]:
        values: list[float] = self.vectors[index].tolist()
        return values


def _open_text(folder: Path) -> Any:
    """The snapshot's tantivy index. tantivy takes a lock file in the index folder even to
    read, so a home this user may not write (another user's, a read-only mount) is read
    from a private copy, removed at exit."""
    import atexit
    import tempfile

    import tantivy

    try:
        return tantivy.Index.open(str(folder))
    except ValueError as exc:
        if "Lockfile" not in str(exc):
            raise
    copy = Path(tempfile.mkdtemp(prefix="homeclaw-text-"))
    atexit.register(shutil.rmtree, copy, True)
    for file in folder.iterdir():  # copyfile: the copy must not keep the read-only modes
        if file.is_file():
            shutil.copyfile(file, copy / file.name)
    return tantivy.Index.open(str(copy))


class SnapshotReader:
    """The read side of VectorStore answered from a snapshot: same Match results, no lancedb."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self.model = snapshot.model
        self._by_id = {item: i for i, item in enumerate(snapshot.ids)}

    def dense(self, table: str, vector: Sequence[float], limit: int, fusion: Fusion) -> list[Match]:
        return self.snapshot.dense(vector, limit, fusion)

    def keyword(self, table: str, query: str, limit: int) -> list[Match]:
        return self.snapshot.keyword(query, limit)

    def dense_for(
        self, table: str, ids: Sequence[str], vector: Sequence[float], fusion: Fusion
    ) -> list[Match]:
        """The fused dense score of `ids` (keyword-only candidates)."""
        indexes = [self._by_id[i] for i in ids if i in self._by_id]
        return self.snapshot.dense_for(vector, indexes, fusion)

    def facet_scores(
        self, table: str, item: str, vector: Sequence[float]
    ) -> list[tuple[dict[str, Any], float]]:
        """The facets of `item` with their cosine to `vector`, best first."""
        index = self._by_id.get(item)
        return [] if index is None else self.snapshot.facet_scores(index, vector)

    def all_rows(self, table: str) -> list[dict[str, Any]]:
        return [self.snapshot.row(i) for i in range(len(self.snapshot.ids))]

    def ids(self, table: str) -> list[str]:
        return list(self.snapshot.ids)

    @functools.cached_property
    def shared_name_words(self) -> frozenset[str]:
        """core.retrieval.shared_name_words of this snapshot's ids (it never changes)."""
        return shared_name_words(self.snapshot.ids)
