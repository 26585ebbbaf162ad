"""Write retrieval queries for the bundled plugins from CLINC150's requests (a dev and a held set).

    python benchmarks/retrieval/clinc_queries.py OOS_EVAL --out DIR
    homeclaw eval retrieval DIR/clinc-held.jsonl --json     # on a home synced with the bundled set
    python benchmarks/retrieval/offers_by_tag.py DIR/clinc-held.jsonl

CLINC150 (clinc/oos-eval, Larson et al. 2019, CC BY 3.0) holds 150 intents of a voice
assistant. Every request of an intent a bundled plugin serves expects that plugin (as
benchmarks/llm/public_clinc.py maps them); every request of an intent none serves (a bank
balance, a flight, a recipe, a smart-home switch: 130 intents) expects nothing offered. Left
out: intents a bundled plugin could fairly take (shopping lists, reminders and calendars,
which the to-do list or notes may hold; timers; spelling; the next holiday, which the dates
plugin may find; "what can I ask you") and the set's out-of-scope requests. The training
split is the dev set (100 requests an intent), the test split the held one (30); the files
are written outside the repository.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))

from clinc_data import add_source_arguments, read_clinc
from public_clinc import SERVED

LEFT_OUT = frozenset(
    (
        "shopping_list",
        "shopping_list_update",
        "reminder",
        "reminder_update",
        "calendar",
        "calendar_update",
        "meeting_schedule",
        "schedule_meeting",
        "timer",
        "spelling",
        "next_holiday",
        "what_can_i_ask_you",
    )
)
SPLITS = {"dev": "train", "held": "test"}


def queries(pairs: list[list[str]]) -> list[dict[str, Any]]:
    """One retrieval query per request of a kept intent, served intents first."""
    out: list[dict[str, Any]] = []
    for text, intent in pairs:
        if intent in LEFT_OUT:
            continue
        served = intent in SERVED
        out.append(
            {
                "query": text,
                "expected": SERVED.get(intent, []),
                "tags": [intent, "served" if served else "unserved"],
            }
        )
    return sorted(out, key=lambda q: q["tags"][1] != "served")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_source_arguments(parser)
    parser.add_argument("--out", type=Path, required=True, help="folder for the two files")
    args = parser.parse_args(argv)
    data, commit = read_clinc(args)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, split in SPLITS.items():
        lines = queries(data[split])
        path = args.out / f"clinc-{name}.jsonl"
        path.write_text("".join(json.dumps(q) + "\n" for q in lines), encoding="utf-8")
        unserved = sum(q["tags"][1] == "unserved" for q in lines)
        print(f"{path}: {len(lines) - unserved} served, {unserved} unserved ({commit})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
