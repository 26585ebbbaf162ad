"""BFCL's live requests as a retrieval set: real users' requests over the functions they brought.

    python benchmarks/public/bfcl.py [--raw DIR] [--out DIR]

The Berkeley Function Calling Leaderboard's "live" categories (BFCL v4: live_simple,
live_multiple, live_parallel_multiple) are requests and function documents contributed by
users and enterprises, not written by a model from documentation. Each request comes with the
functions its user offered and the ones a right answer calls. Pooled, the functions of
all 1,335 requests are a store of several hundred; each request must find its own among all.

One plugin per function name, described by the first wording met: many requests reuse a
function with its description reworded (nineteen wordings of get_current_weather, uber.ride's
in English and in Vietnamese), and a store lists a function once. No word-overlap rule tells
those apart from the few names that stand for unrelated functions (requests.get for nine
endpoints, `finish` for three), whose requests then read against another wording: label noise on 25 of the
1,335 requests (they expect requests.get, finish, process_data, record, default_function or
book_flight). A request expects the plugin of each function its answer calls.

Reads RAW/gorilla/berkeley-function-call-leaderboard/bfcl_eval/data (see README.md) and
writes OUT/bfcl-live/{plugins,queries.jsonl,queries_pairs.jsonl}.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from convert import (
    BASE_URL,
    DEFAULT_RAW,
    PARAM_TYPES,
    slug,
    unique_id,
    write_plugins,
    write_queries,
)

DATA = Path("gorilla") / "berkeley-function-call-leaderboard" / "bfcl_eval" / "data"
FILES = ("BFCL_v4_live_simple", "BFCL_v4_live_multiple", "BFCL_v4_live_parallel_multiple")
SET = "bfcl-live"


@dataclass
class Function:
    name: str
    description: str
    parameters: list[dict[str, Any]]
    plugin_id: str


def _parameters(schema: dict[str, Any]) -> list[dict[str, Any]]:
    required = set(schema.get("required") or [])
    out = []
    for name, spec in (schema.get("properties") or {}).items():
        clean = re.sub(r"[^A-Za-z0-9_-]", "_", name)
        if not re.match(r"[A-Za-z_]", clean):
            clean = f"_{clean}"
        kind = PARAM_TYPES.get(str(spec.get("type", "")).lower(), "string")
        text = " ".join(str(spec.get("description") or "").split())
        out.append({"name": clean, "type": kind, "required": name in required, "description": text})
    return out


class Store:
    """The pooled functions, one per name."""

    def __init__(self) -> None:
        self.by_name: dict[str, Function] = {}
        self.used: set[str] = set()

    def add(self, doc: dict[str, Any]) -> Function:
        known = self.by_name.get(doc["name"])
        if known is None:
            known = self.by_name[doc["name"]] = Function(
                doc["name"],
                " ".join(str(doc.get("description") or "").split()),
                _parameters(doc.get("parameters") or {}),
                unique_id(slug(doc["name"], 60) or "function", self.used),
            )
        return known

    def manifests(self) -> dict[str, dict[str, Any]]:
        out = {}
        for f in self.by_name.values():
            text = f.description or f"The {f.name} function."
            out[f.plugin_id] = {
                "name": f.name,
                "description": text,
                "type": "http",
                "config": {"base_url": BASE_URL, "path": "/run"},
                "capabilities": [
                    {
                        "id": slug(f.name, 60) or "call",
                        "name": f.name,
                        "description": text,
                        "parameters": f.parameters,
                    }
                ],
            }
        return out


def _read_lines(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def convert(raw: Path, out: Path) -> tuple[int, int]:
    """Write the set; return (plugins, queries)."""
    store = Store()
    queries = []
    for name in FILES:
        answers = {a["id"]: a for a in _read_lines(raw / DATA / "possible_answer" / f"{name}.json")}
        for item in _read_lines(raw / DATA / f"{name}.json"):
            offered = {doc["name"]: store.add(doc) for doc in item["function"]}
            called = [next(iter(call)) for call in answers[item["id"]]["ground_truth"]]
            expected = list(dict.fromkeys(offered[c].plugin_id for c in called))
            user = [m["content"] for turn in item["question"] for m in turn if m["role"] == "user"]
            kind = name.removeprefix("BFCL_v4_")
            tags = [kind, "multi" if len(expected) > 1 else "single"]
            queries.append(
                {"query": " ".join(user[-1].split()), "expected": expected, "tags": tags}
            )
    manifests = store.manifests()
    write_plugins(out, manifests)
    write_queries(out, queries)
    return len(manifests), len(queries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--raw", type=Path, default=DEFAULT_RAW)
    parser.add_argument("--out", type=Path, default=DEFAULT_RAW / "sets")
    args = parser.parse_args(argv)
    target = args.out / SET
    if target.exists():
        print(f"{target} exists; delete it to convert again", file=sys.stderr)
        return 1
    plugins, queries = convert(args.raw, target)
    print(f"{SET}: {plugins} plugins, {queries} queries -> {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
