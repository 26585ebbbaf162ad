"""What the default cut offers, tag by tag: for each tag of a queries file, how many requests
got what they expect (an expected plugin offered; nothing offered when they expect none) and
which plugins were offered how often.

    export HOMECLAW_HOME=... HF_HUB_OFFLINE=1    # a home synced with the plugins to measure
    python benchmarks/retrieval/offers_by_tag.py /tmp/hwuq/hwu-held.jsonl [--json]

Queries are `homeclaw eval retrieval` lines ({"query", "expected", "tags"}); the first tag
groups. benchmarks/retrieval/RESULTS.md ("Requests a plugin is not for") is written from it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from homeclaw_cli.app.retrieval import RetrievalService
from homeclaw_cli.settings import load_settings


def offers_by_tag(service: RetrievalService, lines: list[dict]) -> dict[str, dict]:
    """Per first tag: requests, how many got what they expect, the plugins offered."""
    out: dict[str, dict] = {}
    for item in lines:
        tag = item["tags"][0] if item.get("tags") else "-"
        offered = service.search_plugins(item["query"]).ids
        want = set(item["expected"])
        met = bool(want & set(offered)) if want else not offered
        entry = out.setdefault(tag, {"requests": 0, "met": 0, "offered": Counter()})
        entry["requests"] += 1
        entry["met"] += met
        entry["offered"].update(offered)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("queries", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    settings = load_settings(env=dict(os.environ), cwd=Path.cwd())
    lines = [json.loads(x) for x in args.queries.read_text().splitlines() if x.strip()]
    table = offers_by_tag(RetrievalService(settings), lines)
    if args.json:
        print(json.dumps(table, indent=1))
        return
    for tag, entry in sorted(table.items()):
        top = dict(entry["offered"].most_common(4))
        print(f"{tag:20} {entry['met']:4}/{entry['requests']:<4} offered: {top}")


if __name__ == "__main__":
    main()
