"""`homeclaw plugin install / update / register` end to end, with an index to keep in step.

The index exists (a first `homeclaw sync` ran), so each command also syncs the changed
plugin into it, as on a user's machine. Prints the median of RUNS runs of each command.
The code measured is the one on PYTHONPATH (default: this checkout), so the same script
gives the before and after of a change:

    python benchmarks/bench_install_cli.py
    PYTHONPATH=/path/to/other/checkout python benchmarks/bench_install_cli.py
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RUNS = 3


CPU: dict[str, list[float]] = {}


def homeclaw(env: dict[str, str], *args: str) -> float:
    """Wall seconds of one command; its CPU seconds (user + sys) go to CPU, keyed by verb.

    CPU time barely moves with the machine's load, so it compares runs on a busy machine.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "homeclaw_cli", *args], env=env, check=True, capture_output=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    CPU.setdefault(args[1] if len(args) > 1 else args[0], []).append(cpu)
    return wall


def write_plugin(folder: Path, version: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "plugin.yaml").write_text(
        f"id: bench\nname: Bench\ndescription: A benchmark plugin.\nversion: '{version}'\n"
        "type: subprocess\nconfig: {command: python3, args: [main.py]}\n"
    )
    (folder / "main.py").write_text("print('{}')\n")


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="hc-bench-cli-"))
    env = {
        **os.environ,
        "HOMECLAW_HOME": str(tmp / "home"),
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": os.environ.get("PYTHONPATH") or str(REPO),
    }
    src = tmp / "src" / "bench"
    write_plugin(src, "1")
    descriptor = tmp / "ext.json"
    print(f"code: {env['PYTHONPATH']}   first sync: {homeclaw(env, 'sync'):.1f} s")
    times: dict[str, list[float]] = {"install": [], "update": [], "register": []}
    for run in range(RUNS):
        times["install"].append(homeclaw(env, "plugin", "install", str(src), "--yes"))
        write_plugin(src, f"2.{run}")
        times["update"].append(homeclaw(env, "plugin", "update", "bench", "--yes"))
        homeclaw(env, "plugin", "remove", "bench", "--yes")
        write_plugin(src, "1")
        body = {
            "plugin_id": "ext",
            "name": "Ext",
            "description": f"An external plugin, take {run}.",
            "type": "http",
            "health_check_url": "http://127.0.0.1:9/health",
            "config": {"base_url": "http://127.0.0.1:9"},
        }
        descriptor.write_text(json.dumps(body))
        times["register"].append(
            homeclaw(env, "plugin", "register", str(descriptor), "--no-check", "--replace")
        )
    load = os.getloadavg()[0]
    for name, samples in times.items():
        cpu = statistics.median(CPU[name])
        print(
            f"plugin {name:9} wall median {statistics.median(samples):5.1f} s"
            f" (max {max(samples):5.1f})   cpu median {cpu:5.1f} s"
        )
    print(f"({RUNS} runs each, load average {load:.2f}, {os.cpu_count()} cpus)")


if __name__ == "__main__":
    main()
