"""Write tasks-figures-dev.yaml: requests with numbers in them, for work on the figures check.

    python benchmarks/llm/public_figures.py OOS_EVAL NLU_EVALUATION_DATA [--out FILE]

Sums and conversions people asked an assistant, and requests of intents no plugin serves that
hold a number all the same (a table for 4 at 8 pm, a transfer of $200, an alarm at five am),
from the halves the held task files do not use: CLINC150's training split (tasks-clinc.yaml
samples its test split) and HWU64's dev half (benchmarks/retrieval/hwu_queries.py, less the
requests in tasks-hwu.yaml). Look at these tasks' misses; report the held files.

* CLINC150 (clinc/oos-eval, Larson et al. 2019, CC BY 3.0): 30 calculator requests, 10 unit
  conversions, 30 requests with a number from intents no plugin serves;
* HWU64 (xliuhw/NLU-Evaluation-Data, Liu et al. 2019, CC BY 4.0): 20 maths requests, 15
  requests with a number from intents no plugin serves.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "retrieval"))

from clinc_data import read_clinc
from hwu_queries import queries
from public_clinc import UNSERVED
from task_file import write_tasks

HERE = Path(__file__).resolve().parent
# A whole number in digits or words ("4:00" counts, "8pm" and "401k" do not).
WITH_NUMBER = re.compile(
    r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    r"|eighty|ninety|hundred|thousand|million)\b",
    re.IGNORECASE,
)

# CLINC intents no bundled plugin serves whose requests often carry a number.
NUMBERED = (
    "calories",
    "nutrition_info",
    "book_hotel",
    "flight_status",
    "transfer",
    "pay_bill",
    "distance",
    "tire_pressure",
    "credit_limit",
    "min_payment",
    "spending_history",
    "income",
    "interest_rate",
    "travel_alert",
    "rollover_401k",
    "oil_change_how",
)
EITHER = ["calculator", "units"]


def clinc_tasks(train: list[list[str]], seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    by_intent: dict[str, list[str]] = {}
    for text, intent in train:
        by_intent.setdefault(intent, []).append(text)
    out: list[dict[str, object]] = []
    for n, text in enumerate(rng.sample(by_intent["calculator"], 30), start=1):
        out.append(_served(f"dev-calc-{n}", text, EITHER))
    for n, text in enumerate(rng.sample(by_intent["measurement_conversion"], 10), start=1):
        out.append(_served(f"dev-conv-{n}", text, ["units", "calculator"]))
    pool = [
        (text, intent)
        for intent in (*UNSERVED, *NUMBERED)
        for text in by_intent[intent]
        if WITH_NUMBER.search(text)
    ]
    for n, (text, intent) in enumerate(rng.sample(pool, 30), start=1):
        out.append(_unserved(f"dev-none-{intent}-{n}", text, intent))
    return out


def hwu_tasks(clone: Path, seed: int) -> list[dict[str, object]]:
    held = yaml.safe_load((HERE / "tasks-hwu.yaml").read_text(encoding="utf-8"))["tasks"]
    taken = {t["request"] for t in held}
    dev = [q for q in queries(clone)["dev"] if q["query"] not in taken]
    maths = [q for q in dev if "qa_maths" in q["tags"]]
    unserved = [q for q in dev if "none" in q["tags"] and WITH_NUMBER.search(str(q["query"]))]
    rng = random.Random(seed)
    out: list[dict[str, object]] = []
    for n, q in enumerate(rng.sample(maths, 20), start=1):
        out.append(_served(f"dev-hwu-maths-{n}", str(q["query"]), EITHER))
    for n, q in enumerate(rng.sample(unserved, 15), start=1):
        intent = str(q["tags"][0])
        out.append(_unserved(f"dev-hwu-none-{intent}-{n}", str(q["query"]), intent))
    return out


def _served(task_id: str, text: str, plugins: list[str]) -> dict[str, object]:
    return {"id": task_id, "request": text, "plugin": plugins, "tags": ["served"]}


def _unserved(task_id: str, text: str, intent: str) -> dict[str, object]:
    return {"id": task_id, "request": text, "no_plugin": True, "tags": ["unserved", intent]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("oos_eval", type=Path, help="a clinc/oos-eval clone or its data_full.json")
    parser.add_argument("hwu", type=Path, help="a clone of xliuhw/NLU-Evaluation-Data")
    parser.add_argument("--commit", default="", help="the CLINC clone's commit")
    parser.add_argument("--out", type=Path, default=HERE / "tasks-figures-dev.yaml")
    args = parser.parse_args(argv)
    data, commit = read_clinc(args)
    items = clinc_tasks(data["train"], 7) + hwu_tasks(args.hwu, 11)
    header = (
        f"# {len(items)} chat tasks with numbers: CLINC150's training split (clinc/oos-eval "
        f"{commit}, CC BY 3.0)\n# and HWU64's dev half (xliuhw/NLU-Evaluation-Data, CC BY 4.0). "
        "Written by\n# benchmarks/llm/public_figures.py; a dev set: report the held task files.\n"
    )
    write_tasks(args.out, header, items)
    return 0


if __name__ == "__main__":
    sys.exit(main())
