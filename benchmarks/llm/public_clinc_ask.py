"""Write tasks-ask.yaml: CLINC150's weather requests, most of which name no city.

    python benchmarks/llm/public_clinc_ask.py OOS_EVAL [--out FILE]

OOS_EVAL is a clone of clinc/oos-eval, or its data/data_full.json itself (Larson et al., 2019,
CC BY 3.0). Its 30 test requests of the `weather` intent, as crowd workers typed them:

* a request that names a place ("how's the weather in seattle") expects the weather plugin;
* one that names none ("what is the weather") expects no call and the user asked for the city
  (`asks: city`: no tool can know it), and, as a second task, the same request followed by a
  city: the call then goes to the weather plugin for that city.

The places are the ones the set's requests name (PLACES, read off its 30 requests).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from clinc_data import DATA, add_source_arguments, read_clinc
from task_file import write_tasks

HERE = Path(__file__).resolve().parent
PLACES = ("seattle", "austin", "las vegas")
REPLIES = ("Lyon", "Denver", "Osaka")  # the user's answer to the question, in turn


def tasks(requests: list[str]) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    unnamed = 0
    for n, text in enumerate(requests, start=1):
        if any(place in text for place in PLACES):
            out.append({"id": f"ask-named-{n}", "request": text, "plugin": "weather"})
            out[-1]["tags"] = ["names-place"]
            continue
        out.append({"id": f"ask-{n}", "request": text, "asks": "city"})
        out[-1]["tags"] = ["no-place"]
        city = REPLIES[unnamed % len(REPLIES)]
        unnamed += 1
        capability = "fetch_forecast" if "forecast" in text else "fetch_weather"
        follow: dict[str, object] = {"id": f"ask-then-{n}", "request": [text, city]}
        follow |= {"plugin": "weather", "capability": capability, "args": {"city": city}}
        out.append(follow | {"tags": ["no-place", "then-city"]})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_source_arguments(parser)
    parser.add_argument("--out", type=Path, default=HERE / "tasks-ask.yaml")
    args = parser.parse_args(argv)
    data, commit = read_clinc(args)
    items = tasks([text for text, intent in data["test"] if intent == "weather"])
    header = (
        f"# {len(items)} chat tasks from CLINC150's 30 weather test requests (clinc/oos-eval\n"
        f"# {commit}, {DATA}, CC BY 3.0, Larson et al. 2019): a request naming a place expects\n"
        "# the weather plugin; one naming none expects a question for the city, and then,\n"
        "# given one, the call for it. Written by benchmarks/llm/public_clinc_ask.py.\n"
    )
    write_tasks(args.out, header, items)
    return 0


if __name__ == "__main__":
    sys.exit(main())
