"""Write chat tasks from a converted public tool-retrieval set: requests we did not write.

    python benchmarks/llm/public_tasks.py SET [--count 60] [--seed 20261128] [--out FILE]

SET is a folder benchmarks/public/convert.py (or bfcl.py, toolalpaca.py) wrote under
~/.cache/homeclaw-bench/sets/: `plugins/` and `queries.jsonl`. A fixed-seed sample of its
one-need requests (one expected plugin) become tasks that pass when the turn calls that
plugin. Run them against the set's plugins instead of the bundled ones:

    python benchmarks/llm/eval_chat.py --protocols openai --tasks FILE --plugins-dir SET/plugins

The set's plugins are descriptors of APIs nobody serves here; stand_in.py answers their calls
with what it received, so what is measured is the choice (retrieval offers the plugin, the
model calls it with the arguments it read from the request), not an answer.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from task_file import write_tasks


def sample_tasks(
    queries: list[dict[str, Any]], count: int, seed: int, prefix: str
) -> list[dict[str, Any]]:
    """`count` one-need requests (one expected plugin) drawn with `seed`, in the order of the
    set. Requests with several expected plugins are two-need measures (tasks-two-needs.yaml)."""
    pool = [i for i, item in enumerate(queries) if len(item["expected"]) == 1]
    chosen = sorted(random.Random(seed).sample(pool, min(count, len(pool))))
    return [
        {"id": f"{prefix}-{i}", "request": queries[i]["query"], "plugin": queries[i]["expected"][0]}
        for i in chosen
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set", type=Path, help="a converted set: plugins/ and queries.jsonl")
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--seed", type=int, default=20261128)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    lines = (args.set / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    queries = [json.loads(line) for line in lines if line.strip()]
    tasks = sample_tasks(queries, args.count, args.seed, args.set.name)
    header = (
        f"# {len(tasks)} one-need chat tasks from the public set {args.set.name} (its sources and\n"
        "# licence: benchmarks/public/README.md), sampled by benchmarks/llm/public_tasks.py\n"
        f"# --count {args.count} --seed {args.seed}. Run with --plugins-dir pointing at the set's\n"
        "# converted plugins.\n"
    )
    write_tasks(args.out, header, tasks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
