"""Write tasks-hwu.yaml: chat tasks from requests crowd workers gave a home assistant (HWU64).

    python benchmarks/llm/public_hwu.py NLU_EVALUATION_DATA [--per-intent 10] [--seed 20261129]

NLU_EVALUATION_DATA is a clone of xliuhw/NLU-Evaluation-Data (Liu et al., 2019, "Benchmarking
Natural Language Understanding Services for building Conversational Agents", CC BY 4.0): 64
intents of a home assistant, with the places, dates and times in each request annotated. The
requests come from the test folds of its cross-validation (CrossValidation/autoGeneFromRealAnno).

Each sampled request becomes a task over the bundled plugins:

* weather: the weather plugin when the request names a place, else the user is asked for the
  city (`asks: city`);
* the time or date: either clock when a place or zone is named, else the dates plugin or
  either clock; a time-zone conversion: either clock;
* arithmetic with figures in it: the calculator, or the unit converter (the set files "how many
  pounds do sixty kg make" under maths);
* news: the news plugin;
* an intent none serves (alarms, music, lights, mail, recipes, tickets, take-away, currency
  rates, facts, jokes, definitions, stock prices) expects no plugin call.

Left out, so that no call is scored against a reasonable choice: lists, calendars and
reminders, which the to-do list or notes may fairly hold, and the set's chit-chat ("quirky"),
which mixes in requests a plugin serves ("do i need to spare washing my car today").
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from task_file import clone_commit, intents_header, write_tasks

HERE = Path(__file__).resolve().parent
FOLDS = "CrossValidation/autoGeneFromRealAnno/*/CrossValidation/KFold_*/testset/annotated"
TIME_PLUGINS = ["timezones", "mcp-time"]
SERVED = ("weather_query", "datetime_query", "datetime_convert", "qa_maths", "news_query")
UNSERVED = (
    "alarm_set",
    "play_music",
    "iot_hue_lighton",
    "email_sendemail",
    "cooking_recipe",
    "transport_ticket",
    "takeaway_order",
    "qa_currency",
    "qa_factoid",
    "general_joke",
    "qa_definition",
    "qa_stock",
)
NUMBER = re.compile(
    r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
    r"forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|half)\b"
)


def read_requests(clone: Path) -> dict[str, list[dict[str, Any]]]:
    """Every test request of every fold, by intent, each text once, in text order."""
    by_intent: dict[str, dict[str, dict[str, Any]]] = {}
    for path in sorted(clone.glob(f"{FOLDS}/*/*.json")):
        for item in json.loads(path.read_text(encoding="utf-8"))["test_data_annotation"]:
            by_intent.setdefault(item["intent"], {}).setdefault(item["text"], item)
    return {intent: [items[t] for t in sorted(items)] for intent, items in by_intent.items()}


def expected(intent: str, item: dict[str, Any]) -> dict[str, object] | None:
    """What the task expects of a served intent's request, or None to leave it out."""
    entities = {e["entity"] for e in item["entities"]}
    placed = bool(entities & {"place_name", "time_zone"})
    if intent == "weather_query":
        return {"plugin": "weather"} if "place_name" in entities else {"asks": "city"}
    if intent == "datetime_query":
        return {"plugin": TIME_PLUGINS if placed else ["dates", *TIME_PLUGINS]}
    if intent == "datetime_convert":
        return {"plugin": TIME_PLUGINS} if placed else None
    if intent == "qa_maths":
        return {"plugin": ["calculator", "units"]} if NUMBER.search(item["text"]) else None
    return {"plugin": "news"}


def tasks(requests: dict[str, list[dict[str, Any]]], per_intent: int, seed: int) -> list[dict]:
    """per_intent requests of each served intent and half as many of each unserved one."""
    rng = random.Random(seed)
    out: list[dict[str, object]] = []
    for intent in SERVED:
        kept = [(item, want) for item in requests[intent] if (want := expected(intent, item))]
        for n, (item, want) in enumerate(rng.sample(kept, per_intent), start=1):
            out.append({"id": f"hwu-{intent}-{n}", "request": item["text"], **want})
            out[-1]["tags"] = ["served", intent]
    for intent in UNSERVED:
        for n, item in enumerate(rng.sample(requests[intent], per_intent // 2), start=1):
            out.append(
                {
                    "id": f"hwu-{intent}-{n}",
                    "request": item["text"],
                    "no_plugin": True,
                    "tags": ["unserved", intent],
                }
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("clone", type=Path, help="a clone of xliuhw/NLU-Evaluation-Data")
    parser.add_argument("--commit", default="", help="the clone's commit, when not found from it")
    parser.add_argument("--per-intent", type=int, default=10)
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--out", type=Path, default=HERE / "tasks-hwu.yaml")
    args = parser.parse_args(argv)
    items = tasks(read_requests(args.clone), args.per_intent, args.seed)
    commit = args.commit or clone_commit(args.clone / "README.md")
    header = intents_header(
        items,
        f"HWU64's test requests (xliuhw/NLU-Evaluation-Data\n# {commit}, CC BY 4.0, "
        "Liu et al. 2019)",
        f"benchmarks/llm/public_hwu.py --per-intent {args.per_intent} --seed {args.seed}",
    )
    write_tasks(args.out, header, items)
    return 0


if __name__ == "__main__":
    sys.exit(main())
