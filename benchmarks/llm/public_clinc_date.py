"""Write tasks-date.yaml: CLINC150's date requests, each with the date it asks for.

    python benchmarks/llm/public_clinc_date.py OOS_EVAL [--today YYYY-MM-DD] [--out FILE]

OOS_EVAL is a clone of clinc/oos-eval, or its data/data_full.json itself (Larson et al., 2019,
CC BY 3.0). Its 50 validation and test requests of the `date` intent, as crowd workers typed
them ("what date will it be tomorrow", "in 5 days from today, what will the date be", "is today
monday"). Each task expects the date the request asks for in the answer, in any common spelling
(2026-12-03, December 3, 3 December, Dec 3), or for a request about today its weekday; the
plugin called may be the dates plugin or a clock, and an answer written from the date in the
prompt passes too. The answers hold for the day given by --today (by default the day the file
is written): run the tasks that day.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from clinc_data import DATA, add_source_arguments, read_clinc
from task_file import write_tasks

HERE = Path(__file__).resolve().parent
DATE_PLUGINS = ["dates", "timezones", "mcp-time"]
_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen")
NUMBER_WORDS = {word: n for n, word in enumerate((*_ONES, *_TEENS, "eighteen", "nineteen"))}
_IN_DAYS = re.compile(r"\b(\d+|" + "|".join(NUMBER_WORDS) + r")\s+days?\b")


def days_ahead(request: str) -> int:
    """How many days from today the request asks about: 0, 1 for tomorrow, N for `N days`."""
    text = request.lower()
    if found := _IN_DAYS.search(text):
        count = found.group(1)
        return int(count) if count.isdigit() else NUMBER_WORDS[count]
    return 1 if "tomorrow" in text else 0


def spellings(day: dt.date) -> list[str]:
    """The ways an answer may write `day`: ISO, `December 3`, `3 December`, `Dec 3`, `3 Dec`,
    `12/3/2026`."""
    month, short = day.strftime("%B"), day.strftime("%b")
    forms = [day.isoformat(), f"{month} {day.day}", f"{day.day} {month}", f"{short} {day.day}"]
    forms += [f"{day.day} {short}", f"{day.month}/{day.day}/{day.year}"]
    return forms


def tasks(requests: list[str], today: dt.date) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for n, text in enumerate(requests, start=1):
        ahead = days_ahead(text)
        day = today + dt.timedelta(days=ahead)
        answers = spellings(day) + ([day.strftime("%A")] if ahead == 0 else [])
        task: dict[str, object] = {"id": f"date-{n}", "request": text, "plugin": DATE_PLUGINS}
        tag = "today" if ahead == 0 else "tomorrow" if ahead == 1 else "days-ahead"
        out.append(task | {"answer": answers, "tags": [tag]})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_source_arguments(parser)
    parser.add_argument("--today", type=dt.date.fromisoformat, default=dt.date.today())
    parser.add_argument("--out", type=Path, default=HERE / "tasks-date.yaml")
    args = parser.parse_args(argv)
    data, commit = read_clinc(args)
    requests = [
        text for split in ("val", "test") for text, intent in data[split] if intent == "date"
    ]
    items = tasks(requests, args.today)
    header = (
        f"# {len(items)} chat tasks from CLINC150's date requests, validation and test (clinc/\n"
        f"# oos-eval {commit}, {DATA}, CC BY 3.0, Larson et al. 2019). The answers are the\n"
        f"# dates asked for on {args.today.isoformat()} ({args.today:%A}): run them that day,\n"
        "# or write the file again. Written by benchmarks/llm/public_clinc_date.py.\n"
    )
    write_tasks(args.out, header, items)
    return 0


if __name__ == "__main__":
    sys.exit(main())
