"""The embedding step of a sync: vectors for the rows that changed, and nothing more.

A row whose embedded text and facets the index already holds (same model) keeps its vectors:
a plugin that only moved (another --plugins-dir, another source) is rewritten without loading
the model. An incremental sync (an install, a register, one edited plugin) embeds with the
ONNX twin when there is one: export_onnx kept it only because it matches the reference model
on the probes, and it loads in ~0.3 s where torch and sentence-transformers take 5-10 s. A
rebuild uses the reference model and (re-)exports the twin.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from homeclaw_cli.adapters.vector_store import IndexRow, VectorStore
from homeclaw_cli.core.embedded_text import NameCheck, reads_as_brand

if TYPE_CHECKING:
    from homeclaw_cli.adapters.embedder import Embedder


@dataclass
class Embedded:
    """One vector per row (in order), each row's facet vectors, and how they were made."""

    vectors: Any
    facets: list[Any]
    dim: int
    embedder: str = ""  # "onnx", "reference", or "" when every row kept its stored vectors
    warning: str | None = None


def embed_rows(
    rows: Sequence[IndexRow],
    *,
    store: VectorStore,
    table: str,
    model: str,
    models_dir: Path,
    batch_size: int,
    rebuild: bool,
    reuse: Sequence[str],
    progress: tuple[Callable[[int], None], Callable[[int], None]] | None = None,
) -> Embedded:
    """Vectors for `rows`; those in `reuse` keep theirs when their embedded text is unchanged.

    `progress` is (start(total), advance(count)).
    """
    kept = {} if rebuild else _kept(store, table, model, rows, reuse)
    todo = [r for r in rows if r.id not in kept]
    fresh: dict[str, tuple[Any, Any]] = {}
    used = ""
    warning = None
    if todo:
        from homeclaw_cli.adapters import embedder as emb

        twin = None if rebuild else emb.load_onnx(models_dir, model)
        embedder: Embedder = twin or emb.sentence_transformer(model, batch_size)
        used = "onnx" if twin is not None else "reference"
        fresh = _embed(embedder, todo, progress)
        exported = twin is not None or emb.load_onnx(models_dir, model) is not None
        if not exported and not emb.export_onnx(emb.sentence_transformer(model), models_dir):
            warning = f"could not export {model} to ONNX; queries will load sentence-transformers"
    return _assemble(rows, fresh, kept, used, warning)


def _kept(
    store: VectorStore, table: str, model: str, rows: Sequence[IndexRow], reuse: Sequence[str]
) -> dict[str, tuple[Any, Any]]:
    wanted = {r.id: r for r in rows if r.id in set(reuse)}
    if not wanted:
        return {}
    kept = {}
    for item, stored in store.stored_embeddings(table, sorted(wanted)).items():
        row = wanted[item]
        if stored.model != model or stored.text != row.text:
            continue
        # the stored facets say whether the name check left the name out last time
        for left_out in (False, True) if row.name_check is not None else (False,):
            row.name_left_out = left_out
            if stored.facets == json.dumps([f.to_json() for f in row.facets]):
                kept[item] = (stored.vector, stored.facet_vectors or [])
                break
        else:
            row.name_left_out = False
    return kept


def _embed(
    embedder: Embedder,
    rows: Sequence[IndexRow],
    progress: tuple[Callable[[int], None], Callable[[int], None]] | None,
) -> dict[str, tuple[Any, Any]]:
    """Each row's text and facets in one embedding pass, after the names are checked.

    A row whose name reads as a brand is embedded without it, and the name's vector (from
    the check) becomes the row's last facet, so a request naming the plugin still finds it.
    """
    import numpy as np

    checked = [(r.id, r.name_check) for r in rows if r.name_check is not None]
    if progress is not None:
        progress[0](2 * len(checked) + len(rows) + sum(len(r.facets) for r in rows))
    advance = progress[1] if progress else None
    found = brand_names(embedder, [check for _, check in checked], advance)
    # row id -> (its name check, the name's vector), for the rows embedded without the name
    names = {checked[n][0]: (checked[n][1], vector) for n, (_, vector) in found.items()}
    texts = [names[r.id][0].text_without_name if r.id in names else r.text for r in rows]
    for row in rows:
        texts.extend(f.text for f in row.facets)
    vectors = embedder.embed(texts, progress=advance)
    out = {}
    at = len(rows)
    for n, row in enumerate(rows):
        facets = vectors[at : at + len(row.facets)]
        at += len(row.facets)
        if row.id in names:
            row.name_left_out = True  # its facets now end with the name
            facets = np.vstack([facets, names[row.id][1][None, :]])
        out[row.id] = (vectors[n], facets)
    return out


def brand_names(
    embedder: Embedder,
    checks: Sequence[NameCheck],
    progress: Callable[[int], None] | None = None,
) -> dict[int, tuple[float, Any]]:
    """The checks whose name reads as a brand (far from its description), by position:
    the cosine of name and description, and the name's vector."""
    if not checks:
        return {}
    pairs = embedder.embed([t for c in checks for t in (c.name, c.description)], progress=progress)
    cosines = [float(pairs[2 * n] @ pairs[2 * n + 1]) for n in range(len(checks))]
    return {
        n: (cosine, pairs[2 * n])
        for n, (check, cosine) in enumerate(zip(checks, cosines, strict=True))
        if reads_as_brand(cosine, check.description)
    }


def _assemble(
    rows: Sequence[IndexRow],
    fresh: dict[str, tuple[Any, Any]],
    kept: dict[str, tuple[Any, Any]],
    used: str,
    warning: str | None,
) -> Embedded:
    import numpy as np

    pairs = [fresh.get(r.id) or kept[r.id] for r in rows]
    vectors = np.asarray([p[0] for p in pairs], dtype=np.float32)
    dim = int(vectors.shape[1])
    facets = [np.asarray(p[1], dtype=np.float32).reshape(-1, dim) for p in pairs]
    return Embedded(vectors, facets, dim, used, warning)
