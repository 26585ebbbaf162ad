"""Would weighting a text's tokens by their rarity retrieve better than MiniLM's plain mean?

    python benchmarks/retrieval/token_weights.py [--sets own,ta-rich,ta-cat,toollens]

all-MiniLM-L6-v2 averages its token vectors into the text's vector, so the words around a
request ("hey, can you show me", "I'm looking for") count as much as the ones that name the
need. This scores dense retrieval (cosine, no keyword bonus, no cut) with that mean and with
token vectors weighted by `log((N + 1) / (df + 1)) + a`, df being how many plugin texts of the
set hold the token, on both sides or on the request alone. Sets as in tune_embedder.py.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tune_embedder import load_set

from homeclaw_cli.adapters.embedder import resolve_model_path

OFFSETS = (0.5, 1.0, 2.0, 4.0)


def token_vectors(model: Any, texts: list[str]) -> tuple[list[Any], list[list[int]]]:
    """Each text's token vectors and token ids (the same truncation as the model's)."""
    vectors = model.encode(texts, output_value="token_embeddings", batch_size=32)
    tokenizer = model.tokenizer
    ids = [
        tokenizer(t, truncation=True, max_length=model.max_seq_length)["input_ids"] for t in texts
    ]
    return [v.numpy() for v in vectors], ids


def pooled(vectors: list[Any], ids: list[list[int]], weight: Callable[[int], float]) -> Any:
    import numpy as np

    rows = []
    for tokens, token_ids in zip(vectors, ids, strict=True):
        n = min(len(tokens), len(token_ids))
        weights = np.array([weight(t) for t in token_ids[:n]], dtype=np.float32)
        row = (tokens[:n] * weights[:, None]).sum(0) / max(float(weights.sum()), 1e-6)
        rows.append(row / np.linalg.norm(row))
    return np.stack(rows)


def rarity(doc_ids: list[list[int]], offset: float, special: set[int]) -> Callable[[int], float]:
    """A token's weight: how rare it is among the plugin texts, plus `offset`; 0 for [CLS]/[SEP]."""
    df = Counter(t for row in doc_ids for t in set(row))
    count = len(doc_ids)
    return lambda t: 0.0 if t in special else math.log((count + 1) / (df[t] + 1)) + offset


def recall(docs: Any, asked: Any, ids: list[str], queries: list[dict[str, Any]]) -> str:
    import numpy as np

    top = np.argsort(-(asked @ docs.T), axis=1)[:, :5]
    hit1 = hit5 = 0
    for row, query in zip(top, queries, strict=True):
        found = [ids[j] for j in row]
        hit1 += found[0] in query["expected"]
        hit5 += bool(set(query["expected"]) & set(found))
    return f"R@1 {hit1 / len(queries):.3f}  R@5 {hit5 / len(queries):.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="own,ta-rich,ta-cat,toollens")
    args = parser.parse_args(argv)
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(resolve_model_path("all-MiniLM-L6-v2"), device="cpu")
    special = {model.tokenizer.cls_token_id, model.tokenizer.sep_token_id}
    for name in args.sets.split(","):
        ids, texts, queries = load_set(name)
        doc_vectors, doc_ids = token_vectors(model, texts)
        asked_vectors, asked_ids = token_vectors(model, [q["query"] for q in queries])
        print(f"{name}: {len(ids)} plugins, {len(queries)} requests")
        mean_docs = pooled(doc_vectors, doc_ids, lambda t: 1.0)
        mean_asked = pooled(asked_vectors, asked_ids, lambda t: 1.0)
        print(f"  mean                {recall(mean_docs, mean_asked, ids, queries)}")
        for offset in OFFSETS:
            weight = rarity(doc_ids, offset, special)
            docs = pooled(doc_vectors, doc_ids, weight)
            asked = pooled(asked_vectors, asked_ids, weight)
            both = recall(docs, asked, ids, queries)
            request_only = recall(mean_docs, asked, ids, queries)
            print(f"  rarity + {offset:<4} both {both}   request only {request_only}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
