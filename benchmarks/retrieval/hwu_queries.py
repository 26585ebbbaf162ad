"""Write retrieval queries for the bundled plugins from HWU64's requests (a dev and a held half).

    python benchmarks/retrieval/hwu_queries.py NLU_EVALUATION_DATA --out DIR
    homeclaw eval retrieval DIR/hwu-dev.jsonl --json     # on a home synced with the bundled set

Every request of the intents benchmarks/llm/public_hwu.py maps to a bundled plugin expects
that plugin (any of several for the time and date, the calculator or the unit converter for
maths; weather requests too, with or without a place: retrieval does not ask); every request
of the intents no plugin serves expects nothing offered. The requests are split in two by a
hash of their text: look at the dev half's misses, report both. HWU64 (Liu et al., 2019) is
CC BY 4.0; the files are written outside the repository.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))

from public_hwu import SERVED, UNSERVED, expected, read_requests


def split(text: str) -> str:
    """'dev' or 'held', by the text's hash: the same request lands in the same half always."""
    return "dev" if hashlib.sha256(text.encode()).digest()[0] % 2 == 0 else "held"


def expected_ids(intent: str, item: dict[str, Any]) -> list[str] | None:
    """The plugins a request expects offered ([] for an intent none serves), or None to leave
    it out (as the chat tasks do)."""
    if intent not in SERVED:
        return []
    want = expected(intent, item)
    if want is None:
        return None
    plugins = want.get("plugin", "weather")  # a weather request without a place: `asks: city`
    return [plugins] if isinstance(plugins, str) else list(plugins)


def queries(clone: Path) -> dict[str, list[dict[str, object]]]:
    """The dev and held queries: served intents expect their plugins, the others nothing."""
    out: dict[str, list[dict[str, object]]] = {"dev": [], "held": []}
    requests = read_requests(clone)
    for intent in (*SERVED, *UNSERVED):
        for item in requests[intent]:
            ids = expected_ids(intent, item)
            if ids is None:
                continue
            tags = [intent, "served" if ids else "none"]
            out[split(item["text"])].append({"query": item["text"], "expected": ids, "tags": tags})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("clone", type=Path, help="a clone of xliuhw/NLU-Evaluation-Data")
    parser.add_argument("--out", type=Path, required=True, help="folder for the two files")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for half, rows in queries(args.clone).items():
        path = args.out / f"hwu-{half}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        print(f"{len(rows)} queries -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
