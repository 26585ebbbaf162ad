"""Write chat tasks that ask for two things at once, joined from single-need tasks.

    python benchmarks/llm/two_needs.py [--tasks benchmarks/llm/tasks.yaml]
        [--out benchmarks/llm/tasks-two-needs.yaml] [--count 30] [--style sentences --seed N]

Each task joins two one-message tasks of TASKS whose plugins differ, in one sentence ("{A} and
{b}") or in two ("{A}. Also, {b}"), alternately, and expects both plugins called (`needs`).
`--style sentences` joins them in two sentences four other ways, one with nothing to say a
second need begins ("{A}. Then {b}", "{A}. Additionally, {b}", "{A}. And {b}", "{A}. {B}").
Tasks that need the network (weather, news) or a skill are left out: a failed first call ends
the turn before its second need. The pairs are drawn with a fixed seed, so every run writes the
same file; run `eval_chat.py --tasks OUT` on it with `llm.each_need` on and off.

`--style turns` asks the second need in a message of its own after the first's answer, and
expects what its own task expects (plugin, capability, arguments, answer): a short request
that follows another but asks for something else ("10 km in miles", then "whats 12 times
12"). Only second messages under `FOLLOW_UP_WORDS` words are drawn, the ones short enough to
be read with the request before them.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
from pathlib import Path
from typing import Any

import yaml

from homeclaw_cli.core.keywords import FOLLOW_UP_WORDS

sys.path.insert(0, str(Path(__file__).resolve().parent))

from task_file import write_tasks

HERE = Path(__file__).resolve().parent
SEED = 20261127
NETWORK = {"weather", "news"}
STYLES = {
    "default": ("{a} and {b}", "{a}. Also, {b}"),
    "sentences": ("{a}. Then {b}", "{a}. Additionally, {b}", "{a}. And {b}", "{a}. {B}"),
}


def plugins_of(task: dict[str, Any]) -> list[str]:
    plugin = task.get("plugin")
    return [plugin] if isinstance(plugin, str) else list(plugin or [])


def singles(tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The one-message tasks that expect a plugin which runs offline."""
    return [
        t
        for t in tasks
        if isinstance(t.get("request"), str)
        and plugins_of(t)
        and not t.get("skill")
        and not NETWORK & set(plugins_of(t))
    ]


def joined(
    tasks: list[dict[str, Any]], count: int, seed: int = SEED, style: str = "default"
) -> list[dict[str, Any]]:
    """`count` two-need tasks, each from two single tasks with no plugin in common."""
    joins = STYLES[style]
    pool = singles(tasks)
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    while len(out) < count:
        first, second = rng.sample(pool, 2)
        key = (first["id"], second["id"])
        if set(plugins_of(first)) & set(plugins_of(second)) or key in seen:
            continue
        seen.add(key)
        head = first["request"].strip().rstrip(".!?")
        tail = second["request"].strip()
        join = joins[len(out) % len(joins)]
        text = join.format(a=head, b=tail[:1].lower() + tail[1:], B=tail[:1].upper() + tail[1:])
        needs = [_need(first), _need(second)]
        out.append({"id": f"{first['id']}+{second['id']}", "request": text, "needs": needs})
    return out


EXPECTED = ("plugin", "capability", "args", "answer")


def in_turns(tasks: list[dict[str, Any]], count: int, seed: int) -> list[dict[str, Any]]:
    """`count` two-turn tasks: a single task, then a short one of another plugin."""
    pool = singles(tasks)
    short = [t for t in pool if len(t["request"].split()) < FOLLOW_UP_WORDS]
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    while len(out) < count:
        first, second = rng.choice(pool), rng.choice(short)
        key = (first["id"], second["id"])
        if set(plugins_of(first)) & set(plugins_of(second)) or key in seen:
            continue
        seen.add(key)
        expected = {k: copy.deepcopy(second[k]) for k in EXPECTED if k in second}
        request = [first["request"], second["request"]]
        out.append({"id": f"{first['id']}>{second['id']}", "request": request, **expected})
    return out


def _need(task: dict[str, Any]) -> str | list[str]:
    found = plugins_of(task)
    return found[0] if len(found) == 1 else found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=Path, default=HERE / "tasks.yaml")
    parser.add_argument("--out", type=Path, default=HERE / "tasks-two-needs.yaml")
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--style", choices=[*STYLES, "turns"], default="default")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    doc = yaml.safe_load(args.tasks.read_text(encoding="utf-8"))
    tasks = doc["tasks"] if isinstance(doc, dict) else doc
    source = f"# Written by two_needs.py from {args.tasks.name} (seed {args.seed}"
    if args.style == "turns":
        rows, label = in_turns(tasks, args.count, args.seed), "two-turn tasks"
        what = (
            "): a single-need task, then a short\n# one of another plugin in a message of its own"
        )
        expected = "the second's\n# expectations apply"
    else:
        rows, label = joined(tasks, args.count, args.seed, args.style), "two-need tasks"
        what = f", {args.style} joins): two single-need\n# tasks joined"
        expected = "each plugin expected (`needs`)"
    header = f"{source}{what}, {expected}. Format: `homeclaw eval chat --help`.\n"
    write_tasks(args.out, header, rows, label)
    return 0


if __name__ == "__main__":
    sys.exit(main())
