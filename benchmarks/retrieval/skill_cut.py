"""Where the skills' similarity threshold cuts: skills shown for requests that need one and
for requests that need none, at several thresholds (benchmarks/retrieval/CUT.md, "Skills").

    export HOMECLAW_HOME=$(mktemp -d) HF_HUB_OFFLINE=1   # from the checkout: its skills/
    homeclaw sync && python benchmarks/retrieval/skill_cut.py [--thresholds 0.2,0.35]

Requests: the bundled skills' eval tasks (each names its skill), and, needing no skill, the
no-plugin and plugin requests of benchmarks/llm/tasks.yaml and the 77 Vicuna questions of
tasks-vicuna.yaml (public, not written by us). Each threshold is a real search: a keyword
match of a common word ranks a skill but does not lift it over the threshold.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from homeclaw_cli.app.eval_chat_tasks import read_tasks  # noqa: E402
from homeclaw_cli.app.retrieval import RetrievalService  # noqa: E402
from homeclaw_cli.settings import load_settings  # noqa: E402


def request_groups() -> dict[str, list[tuple[str, str | None]]]:
    """Group name -> (request, the skill it needs or None); a task's last turn."""
    skill_tasks = [t for path in sorted(ROOT.glob("skills/*/eval.yaml")) for t in read_tasks(path)]
    own = read_tasks(ROOT / "benchmarks/llm/tasks.yaml")
    vicuna = read_tasks(ROOT / "benchmarks/llm/tasks-vicuna.yaml")
    return {
        "skill tasks": [(t.turns[-1], t.skill) for t in skill_tasks],
        "no-plugin tasks": [(t.turns[-1], None) for t in own if t.no_plugin],
        "plugin tasks": [(t.turns[-1], None) for t in own if not t.no_plugin],
        "vicuna questions": [(t.turns[-1], None) for t in vicuna],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--thresholds", default="0.2,0.25,0.3,0.35,0.4")
    args = parser.parse_args()
    thresholds = [float(x) for x in args.thresholds.split(",")]
    services = [
        RetrievalService(load_settings(cwd=ROOT, flags={"skills.similarity_threshold": t}))
        for t in thresholds
    ]
    print("| requests | n | " + " | ".join(f"at {t}" for t in thresholds) + " |")
    print("|---|---:|" + "---:|" * len(thresholds))
    for name, requests in request_groups().items():
        cells = []
        for service in services:
            shown = [({h.id for h in service.search_skills(q).hits}, want) for q, want in requests]
            if all(want for _, want in shown):  # the right skill shown
                cells.append(sum(want in ids for ids, want in shown))
            else:  # any skill shown
                cells.append(sum(bool(ids) for ids, _ in shown))
        print(f"| {name} | {len(requests)} | " + " | ".join(map(str, cells)) + " |")


if __name__ == "__main__":
    main()
