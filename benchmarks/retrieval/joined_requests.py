"""Write two-need requests made by joining two single requests of a set.

    python benchmarks/retrieval/joined_requests.py SET/queries.jsonl OUT.jsonl [--count 200]
        [--one-sentence]

Each line of OUT joins two requests of QUERIES that expect one tool each, different ones
("{A} Also, {b}", "{A} And {b}", "{A} {B}" or "{A} Then {b}") and expects both tools, so
`variants.py SET/plugins OUT.jsonl --home H` reports complete@5 for requests that ask for two
things, each in its own sentences. With --one-sentence only one-sentence requests of at most
160 characters are joined, into one sentence ("{A} and {b}"), as two needs are usually asked
in chat. The pairs are drawn with a fixed seed, so every run writes the same file.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

SEED = 20261127
JOINS = (" Also, {b}", " And {b}", " {B}", " Then {b}")
ONE_SENTENCE_JOIN = " and {b}"
MAX_ONE_SENTENCE_CHARS = 160
_SENTENCE_END = re.compile(r"[.!?]\s+\S")


def joined(
    queries: list[dict[str, Any]], count: int, *, one_sentence: bool = False, seed: int = SEED
) -> list[dict[str, Any]]:
    """`count` requests, each two single requests of `queries` for two different tools."""
    singles = [q for q in queries if len(q.get("expected") or []) == 1]
    if one_sentence:
        singles = [q for q in singles if _one_short_sentence(q["query"])]
    if len({q["expected"][0] for q in singles}) < 2:
        raise SystemExit("the set needs single-tool requests for at least two tools")
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    while len(out) < count:
        first, second = rng.sample(singles, 2)
        if first["expected"] == second["expected"]:
            continue
        tail = second["query"].strip()
        head = first["query"].strip()
        if one_sentence:
            head, join = head.rstrip(".!?"), ONE_SENTENCE_JOIN
        else:
            join = rng.choice(JOINS)
        text = head + join.format(b=tail[:1].lower() + tail[1:], B=tail)
        expected = first["expected"] + second["expected"]
        out.append({"query": text, "expected": expected, "tags": ["joined"]})
    return out


def _one_short_sentence(text: str) -> bool:
    text = text.strip()
    return len(text) <= MAX_ONE_SENTENCE_CHARS and not _SENTENCE_END.search(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("queries", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--one-sentence", action="store_true")
    args = parser.parse_args(argv)
    lines = args.queries.read_text(encoding="utf-8").splitlines()
    queries = [json.loads(line) for line in lines if line.strip()]
    rows = joined(queries, args.count, one_sentence=args.one_sentence)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} joined requests -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
