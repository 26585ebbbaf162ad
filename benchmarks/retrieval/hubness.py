"""Measure hubness corrections of the dense score on synced homes (dense only, R@1 / R@5).

    python benchmarks/retrieval/hubness.py NAME=HOME:QUERIES [NAME=HOME:QUERIES ...]

A "hub" is a plugin whose vector sits close to many requests, so it ranks high for requests
it does not serve. Three corrections from the cross-modal retrieval literature, each against
the plain cosine of the query and the descriptor vector:

* csls: cosine - a * (mean cosine of the plugin to its k nearest other plugins);
* bank: cosine - a * (mean cosine of the plugin to its k nearest requests of a query bank,
  here the requests of every *other* set given, so no set is scored with its own requests);
* isoftmax: inverted softmax over the same bank, beta * cosine - log sum exp(beta * bank).

Every home must be synced (homeclaw sync, or variants.py) with the default model; the
vectors are read from the home's query snapshot. Prints one line per set.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from homeclaw_cli.adapters.embedder import query_embedder  # noqa: E402
from homeclaw_cli.adapters.query_cache import Snapshot  # noqa: E402

TABLE = "homeclaw_plugins"
CSLS = ((10, 0.25), (20, 0.25))
BANK = ((10, 0.1), (10, 0.25), (50, 0.25))
BETAS = (10, 20)


def snapshot(home: Path) -> Snapshot:
    found = Snapshot.open(home / "data" / "index" / ".homeclaw-snapshots", TABLE)
    if found is None:
        raise SystemExit(f"{home}: no query snapshot; run `homeclaw sync` there first")
    return found


def recall(scores: Any, ids: list[str], queries: list[dict[str, Any]]) -> str:
    import numpy as np

    at1 = at5 = 0
    for row, item in zip(scores, queries, strict=True):
        top = [ids[i] for i in np.argsort(-row)[:5]]
        wanted = set(item["expected"])
        at1 += top[0] in wanted
        at5 += bool(wanted & set(top))
    return f"{at1 / len(queries):.3f}/{at5 / len(queries):.3f}"


def main(argv: list[str]) -> int:
    import numpy as np

    sets: dict[str, tuple[Path, list[dict[str, Any]]]] = {}
    for arg in argv:
        name, _, rest = arg.partition("=")
        folder, _, path = rest.partition(":")
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        queries = [json.loads(line) for line in lines if line.strip()]
        sets[name] = (Path(folder), [q for q in queries if q.get("expected")])
    first = snapshot(next(iter(sets.values()))[0])
    embedder = query_embedder(next(iter(sets.values()))[0] / "data" / "models", first.model)
    asked = {name: embedder.embed([q["query"] for q in qs]) for name, (_, qs) in sets.items()}
    for name, (home, queries) in sets.items():
        snap = snapshot(home)
        plugins = np.asarray(snap.vectors, dtype=np.float32)
        cosine = asked[name] @ plugins.T
        row = [f"{name} ({len(snap.ids)} plugins, {len(queries)} requests)"]
        row.append(f"dense {recall(cosine, snap.ids, queries)}")
        neighbours = plugins @ plugins.T
        np.fill_diagonal(neighbours, -1.0)
        for k, a in CSLS:
            hub = np.sort(neighbours, axis=1)[:, -k:].mean(axis=1)
            row.append(f"csls k{k} a{a} {recall(cosine - a * hub, snap.ids, queries)}")
        others = [v for other, v in asked.items() if sets[other][0] != home]
        bank = np.concatenate(others) @ plugins.T
        for k, a in BANK:
            hub = np.sort(bank, axis=0)[-k:].mean(axis=0)
            row.append(f"bank k{k} a{a} {recall(cosine - a * hub, snap.ids, queries)}")
        for beta in BETAS:
            norm = np.log(np.exp(beta * bank).sum(axis=0))
            row.append(f"isoftmax b{beta} {recall(beta * cosine - norm, snap.ids, queries)}")
        print(" | ".join(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
