"""CLI start-up cost: `homeclaw --help` and `plugin validate` against bare `python -c pass`.

Run: .venv/bin/python benchmarks/bench_startup.py [--runs N]
Prints median and p90 wall times over N runs and the ratio to bare interpreter start-up.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EVAL_PLUGINS = REPO / "benchmarks" / "retrieval" / "plugins"


def timed(argv: list[str], env: dict[str, str], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return samples


def hundred_plugins(target: Path) -> Path:
    sources = sorted(EVAL_PLUGINS.iterdir())
    for i in range(100):
        src = sources[i % len(sources)]
        dst = target / f"{src.name}-{i}"
        shutil.copytree(src, dst)
        manifest = dst / "plugin.yaml"
        manifest.write_text(
            manifest.read_text().replace(f"id: {src.name}", f"id: {src.name}-{i}", 1)
        )
    return target


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(REPO), "HOMECLAW_HOME": tmp}
        many = hundred_plugins(Path(tmp) / "many")
        hc = [sys.executable, "-m", "homeclaw_cli"]
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "homeclaw --help": [*hc, "--help"],
            "homeclaw plugin validate plugins/ (6)": [
                *hc,
                "plugin",
                "validate",
                str(REPO / "plugins"),
            ],
            "homeclaw plugin validate (100 plugins)": [*hc, "plugin", "validate", str(many)],
            "homeclaw plugin list": [*hc, "plugin", "list"],
        }
        results = {name: timed(argv, env, runs) for name, argv in cases.items()}
    base = statistics.median(results["python -c pass"])
    print(
        f"{'command':42} {'median':>9} {'p90':>9} {'x python':>9}   ({runs} runs, {os.cpu_count()} cpus)"
    )
    for name, samples in results.items():
        median = statistics.median(samples)
        p90 = sorted(samples)[int(0.9 * (len(samples) - 1))]
        print(f"{name:42} {median * 1000:7.0f}ms {p90 * 1000:7.0f}ms {median / base:8.1f}x")


if __name__ == "__main__":
    main()
