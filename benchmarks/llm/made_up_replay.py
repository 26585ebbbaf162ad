"""Replay the grounding check over saved chat runs: which calls carry only values nobody gave.

Every call saved in `results/eval_chat-*.json` (the bundled plugins' tools) is checked with
core/grounding.py as if retrieval had ranked its plugin weakly, against the words of the
task's messages (a call's own turn and the ones before it; tool results are not saved, so a
value a tool returned counts as made up here). Prints, per call with made-up values, whether
they fill a required parameter and whether chat would ask for it (core/turn_ask.py), and a
summary.

    python benchmarks/llm/made_up_replay.py [RESULT.json ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from homeclaw_cli.catalog.plugin_loader import load_plugin
from homeclaw_cli.core.capability_tools import add_plugin_tools
from homeclaw_cli.core.grounding import free_values, made_up, words
from homeclaw_cli.core.tool_registry import Tool, ToolOutcome, ToolRegistry
from homeclaw_cli.core.turn_ask import missing_parameter

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).with_name("results")


def bundled_tools() -> ToolRegistry:
    async def never(_: dict[str, Any]) -> ToolOutcome:
        raise AssertionError("replay runs no tool")

    registry = ToolRegistry()
    for folder in sorted((ROOT / "plugins").iterdir()):
        loaded = load_plugin(folder)
        if loaded.manifest is not None:
            add_plugin_tools(registry, loaded.manifest, lambda p, c: never, compact=True)
    return registry


def required_made_up(tool: Tool, arguments: dict[str, Any], values: list[str]) -> list[str]:
    """The required parameters whose value is among the made-up ones."""
    required = set(tool.parameters.get("required") or [])
    return [
        name
        for name, value in arguments.items()
        if name in required and set(free_values(tool, {name: value})) & set(values)
    ]


def replay(paths: list[Path], tools: ToolRegistry) -> list[dict[str, Any]]:
    seen: set[tuple[str, str, str]] = set()
    rows = []
    for path in paths:
        runs = json.loads(path.read_text()).get("results") or []
        for task in (task for run in runs for task in run.get("tasks") or []):
            said = set().union(*(words(turn) for turn in task.get("request") or []))
            for call in task.get("calls") or []:
                tool = tools.get(call.get("name", ""))
                arguments = call.get("arguments")
                if tool is None or not isinstance(arguments, dict):
                    continue
                key = (" / ".join(task["request"]), tool.name, json.dumps(arguments))
                if key in seen:
                    continue
                seen.add(key)
                values = made_up(tool, arguments, said)
                rows.append(
                    {
                        "run": path.stem.removeprefix("eval_chat-"),
                        "task": task.get("task"),
                        "request": key[0],
                        "call": tool.name,
                        "arguments": arguments,
                        "made_up": values,
                        "required": required_made_up(tool, arguments, values) if values else [],
                        "asks": missing_parameter(tool, arguments, values) is not None,
                        "expected": task.get("expected"),
                        "passed": task.get("passed"),
                    }
                )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="*", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    paths = args.results or sorted(RESULTS.glob("eval_chat-*.json"))
    rows = replay(paths, bundled_tools())
    flagged = [r for r in rows if r["made_up"]]
    if args.json:
        json.dump(flagged, sys.stdout, indent=1)
        return 0
    for r in flagged:
        need = f" required: {','.join(r['required'])}" if r["required"] else ""
        mark = "pass" if r["passed"] else "FAIL"
        asks = " ASKS" if r["asks"] else ""
        print(f"[{mark}]{asks} {r['request'][:60]!r} -> {r['call']} {r['made_up']}{need}")
    by_required = Counter(bool(r["required"]) for r in flagged)
    asked = sum(r["asks"] for r in flagged)
    print(
        f"\n{len(rows)} distinct calls, {len(flagged)} with only made-up values "
        f"({by_required[True]} of them in a required parameter); {asked} would be asked for"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
