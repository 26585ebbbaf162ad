"""MCP server latency without the transport: tools/list and tools/call on the Toolbox.

Run: .venv/bin/python benchmarks/bench_mcp_toolbox.py [--runs N]
Against the bundled plugins and skills in a temporary HOMECLAW_HOME: the first list and call
(scan, caller, inline import), then the median of N warm lists and N warm
`calculator__evaluate` calls. A warm request rescans nothing unless the folders changed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from homeclaw_cli.app.context import AppContext
from homeclaw_cli.app.mcp_toolbox import Toolbox
from homeclaw_cli.settings import load_settings


async def measure(runs: int) -> None:
    toolbox = Toolbox(AppContext(load_settings()))
    started = time.perf_counter()
    tools = await asyncio.to_thread(toolbox.list_tools)
    first_list = time.perf_counter() - started
    started = time.perf_counter()
    outcome = await toolbox.call("calculator__evaluate", {"expression": "2+2"})
    first_call = time.perf_counter() - started
    assert outcome.ok, outcome.text
    lists, calls = [], []
    for _ in range(runs):
        started = time.perf_counter()
        await asyncio.to_thread(toolbox.list_tools)
        lists.append(time.perf_counter() - started)
        started = time.perf_counter()
        outcome = await toolbox.call("calculator__evaluate", {"expression": "3*7"})
        calls.append(time.perf_counter() - started)
        assert outcome.ok, outcome.text
    await toolbox.aclose()
    print(f"{len(tools)} tools")
    print(f"first list {first_list * 1000:8.1f} ms   first call {first_call * 1000:8.1f} ms")
    print(
        f"warm list  {statistics.median(lists) * 1000:8.2f} ms   "
        f"warm call  {statistics.median(calls) * 1000:8.2f} ms   (median of {runs})"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["HOMECLAW_HOME"] = home
        asyncio.run(measure(args.runs))


if __name__ == "__main__":
    main()
