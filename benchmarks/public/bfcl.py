"""BFCL's requests as retrieval sets: real users' requests over the functions they brought,
and the leaderboard's own curated ones, many asking for two things at once.

    python benchmarks/public/bfcl.py [SET ...] [--raw DIR] [--out DIR]

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

`bfcl-curated` is the same for the non-live categories (simple_python, multiple, parallel,
parallel_multiple), written by the leaderboard's authors: 800 requests over the functions
each offered, 200 of them (parallel_multiple) calling two or more different functions, mostly
in two sentences ("Find all prime numbers between 50 and 150. Then get the fibonacci series
upto 150.").

Reads RAW/gorilla/berkeley-function-call-leaderboard/bfcl_eval/data (see README.md) and
writes OUT/SET/{plugins,queries.jsonl,queries_pairs.jsonl}.
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
SETS = {
    "bfcl-live": ("BFCL_v4_live_simple", "BFCL_v4_live_multiple", "BFCL_v4_live_parallel_multiple"),
    "bfcl-curated": (
        "BFCL_v4_simple_python",
        "BFCL_v4_multiple",
        "BFCL_v4_parallel",
        "BFCL_v4_parallel_multiple",
    ),
}


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


def convert(raw: Path, out: Path, files: tuple[str, ...]) -> tuple[int, int]:
    """Write the set made of the BFCL `files`; return (plugins, queries)."""
    store = Store()
    queries = []
    for name in files:
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
    parser.add_argument(
        "sets", nargs="*", metavar="SET", help=f"of {', '.join(SETS)} (default: all)"
    )
    parser.add_argument("--raw", type=Path, default=DEFAULT_RAW)
    parser.add_argument("--out", type=Path, default=DEFAULT_RAW / "sets")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.sets) - set(SETS))
    if unknown:
        parser.error(f"unknown set {', '.join(unknown)}: choose from {', '.join(SETS)}")
    status = 0
    for name in args.sets or SETS:
        target = args.out / name
        if target.exists():
            print(f"{target} exists; delete it to convert again", file=sys.stderr)
            status = 1
            continue
        plugins, queries = convert(args.raw, target, SETS[name])
        print(f"{name}: {plugins} plugins, {queries} queries -> {target}")
    return status


if __name__ == "__main__":
    sys.exit(main())
