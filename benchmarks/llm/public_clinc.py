"""Write tasks-clinc.yaml: chat tasks from requests real users typed to an assistant (CLINC150).

    python benchmarks/llm/public_clinc.py OOS_EVAL [--per-intent 10] [--seed 20261128] [--out FILE]

OOS_EVAL is a clone of clinc/oos-eval, or its data/data_full.json itself. CLINC150 (Larson et
al., 2019, CC BY 3.0) holds 150 intents of a voice assistant, 30 test requests each as
crowd workers typed them.

Each sampled request becomes a task over the bundled plugins:

* an intent a bundled plugin serves (weather, calculator, unit conversion, the time or date,
  a time zone, the to-do list) expects that plugin (either time plugin for the time ones, the
  dates plugin or either clock for the date); a weather request that names no place expects
  the user to be asked for the city (`asks: city`), as no tool can know it;
* an intent none serves (booking a flight, translating, a recipe, currency rates, ...)
  expects no plugin call: the model has no tool for it, so a call is a wrong action.

Left out, so that no call is scored against a reasonable choice: intents a bundled plugin
could fairly take (shopping lists and reminders, which the to-do list or notes may hold;
timers; spelling), and the set's "out of scope" requests, which are out of *its* intents
only: "find articles about the protests in paris" is what the bundled news plugin is for.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from clinc_data import DATA, add_source_arguments, read_clinc
from public_clinc_ask import PLACES
from task_file import intents_header, write_tasks

HERE = Path(__file__).resolve().parent
TIME_PLUGINS = ["timezones", "mcp-time"]
SERVED: dict[str, list[str]] = {
    "weather": ["weather"],
    "calculator": ["calculator"],
    "measurement_conversion": ["units"],
    "time": TIME_PLUGINS,
    "timezone": TIME_PLUGINS,
    "date": ["dates", *TIME_PLUGINS],
    "todo_list": ["todo"],
    "todo_list_update": ["todo"],
}
UNSERVED = (
    "book_flight",
    "restaurant_reservation",
    "translate",
    "definition",
    "exchange_rate",
    "recipe",
    "play_music",
    "directions",
    "tell_joke",
    "fun_fact",
    "meaning_of_life",
    "greeting",
)


def tasks(data: dict[str, list[list[str]]], per_intent: int, seed: int) -> list[dict[str, object]]:
    """The sampled tasks: per_intent requests of each served intent and half as many of each
    unserved one, in a fixed order (the intents as listed)."""
    rng = random.Random(seed)
    by_intent: dict[str, list[str]] = {}
    for text, intent in data["test"]:
        by_intent.setdefault(intent, []).append(text)
    out: list[dict[str, object]] = []
    for intent, plugins in SERVED.items():
        for n, text in enumerate(rng.sample(by_intent[intent], per_intent), start=1):
            task: dict[str, object] = {"id": f"clinc-{intent}-{n}", "request": text}
            if intent == "weather" and not any(place in text for place in PLACES):
                task["asks"] = "city"
            else:
                task["plugin"] = plugins if len(plugins) > 1 else plugins[0]
            task["tags"] = ["served", intent]
            out.append(task)
    for intent in UNSERVED:
        for n, text in enumerate(rng.sample(by_intent[intent], per_intent // 2), start=1):
            out.append(
                {
                    "id": f"clinc-{intent}-{n}",
                    "request": text,
                    "no_plugin": True,
                    "tags": ["unserved", intent],
                }
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_source_arguments(parser)
    parser.add_argument("--per-intent", type=int, default=10)
    parser.add_argument("--seed", type=int, default=20261128)
    parser.add_argument("--out", type=Path, default=HERE / "tasks-clinc.yaml")
    args = parser.parse_args(argv)
    data, commit = read_clinc(args)
    items = tasks(data, args.per_intent, args.seed)
    header = intents_header(
        items,
        f"CLINC150's test requests (clinc/oos-eval {commit},\n# {DATA}, CC BY 3.0, "
        "Larson et al. 2019)",
        f"benchmarks/llm/public_clinc.py --per-intent {args.per_intent} --seed {args.seed}",
    )
    write_tasks(args.out, header, items)
    return 0


if __name__ == "__main__":
    sys.exit(main())
