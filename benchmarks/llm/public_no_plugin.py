"""Write tasks-vicuna.yaml: no-plugin chat tasks from a public question set we did not write.

    python benchmarks/llm/public_no_plugin.py FASTCHAT [--out FILE]

FASTCHAT is a clone of lm-sys/FastChat, or its vicuna_bench/question.jsonl itself.

The 80 questions of the Vicuna benchmark (lm-sys/FastChat,
fastchat/llm_judge/data/vicuna_bench/question.jsonl, Apache-2.0): generic advice, knowledge,
role-play, common sense, Fermi estimates, counterfactuals, coding and writing. None needs a
bundled plugin, so each becomes a task that passes when the model answers without a tool.
The "math" category is left out: its three questions ("find f(2)", "solve 3x + 10 = 5(x - 2)")
are what the bundled calculator is for, so a call there would not be a mistake.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from task_file import clone_commit, write_tasks

QUESTIONS = "fastchat/llm_judge/data/vicuna_bench/question.jsonl"
SKIPPED_CATEGORIES = frozenset({"math"})
HERE = Path(__file__).resolve().parent


def tasks(lines: list[str]) -> list[dict[str, object]]:
    """One no-plugin task per question outside SKIPPED_CATEGORIES, ids from the source."""
    out: list[dict[str, object]] = []
    for line in lines:
        if not line.strip():
            continue
        item = json.loads(line)
        if item["category"] in SKIPPED_CATEGORIES:
            continue
        out.append(
            {
                "id": f"vicuna-{item['question_id']}-{item['category']}",
                "request": item["turns"][0],
                "no_plugin": True,
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("fastchat", type=Path, help="a FastChat clone or the questions file")
    parser.add_argument("--out", type=Path, default=HERE / "tasks-vicuna.yaml")
    args = parser.parse_args(argv)
    source = args.fastchat if args.fastchat.is_file() else args.fastchat / QUESTIONS
    commit = clone_commit(source)
    items = tasks(source.read_text(encoding="utf-8").splitlines())
    header = (
        f"# {len(items)} no-plugin tasks: the Vicuna benchmark's questions\n"
        f"# (lm-sys/FastChat {commit}, {QUESTIONS}, Apache-2.0),\n"
        "# the math category left out. Written by benchmarks/llm/public_no_plugin.py.\n"
    )
    write_tasks(args.out, header, items)
    return 0


if __name__ == "__main__":
    sys.exit(main())
