"""Per-call overhead of each plugin runner type, cold and warm.

    python benchmarks/bench_runners.py [--warm N]

For each type it reports:
  cli      wall time of `python -m homeclaw_cli plugin call ...` (a script's one-shot call:
           interpreter start, registry scan, runner import, spawn/connect, the call)
  first    the first call in a fresh process through PluginCaller (lazy imports, spawn or
           connect, handshake), measured in a child interpreter
  warm     median and p95 of the next N calls on the same PluginCaller (what a chat sees)
The plugins do trivial work, so the figures are homeclaw's and the transport's overhead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CASES: dict[str, tuple[str, str, dict[str, str]]] = {
    "inline": ("bench-inline", "echo", {"text": "hi"}),
    "subprocess (python)": ("textkit", "slugify", {"text": "Hello World"}),
    "subprocess (node)": ("hashkit", "hash", {"text": "abc"}),
    "http": ("todo", "summary", {}),
    "mcp stdio (python)": ("mcp-time", "get_current_time", {"timezone": "UTC"}),
    "mcp stdio (node)": ("files", "list_allowed_directories", {}),
}

INLINE_PLUGIN = """
from homeclaw_cli.sdk import BasePlugin

class Echo(BasePlugin):
    def echo(self, text):
        return text
"""


def setup(home: Path) -> dict[str, str]:
    """A HOMECLAW_HOME with the inline bench plugin and the todo server's port in its manifest."""
    plugins = home / "extra"
    (plugins / "bench-inline").mkdir(parents=True)
    (plugins / "bench-inline" / "plugin.py").write_text(INLINE_PLUGIN)
    (plugins / "bench-inline" / "plugin.yaml").write_text(
        "id: bench-inline\nname: Echo\ndescription: Echo text.\n"
        "capabilities:\n  - id: echo\n    name: Echo\n    description: Echo.\n"
        "    parameters: [{name: text, type: string}]\n"
    )
    return {
        **os.environ,
        "HOMECLAW_HOME": str(home),
        "HOMECLAW_PLUGINS_PATH": str(plugins),
        "PYTHONPATH": str(ROOT),
        "HF_HUB_OFFLINE": "1",
    }


def start_todo(home: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    server = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "plugins/todo/server.py"),
            "--port",
            "0",
            "--data",
            str(home / "todo.json"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    url = server.stdout.readline().split()[-1]
    manifest = (ROOT / "plugins/todo/plugin.yaml").read_text()
    manifest = manifest.replace("http://127.0.0.1:3107", url)
    (home / "extra" / "todo").mkdir()
    (home / "extra" / "todo" / "plugin.yaml").write_text(manifest)
    return server


async def measure(case: str, warm: int) -> dict[str, object]:
    from homeclaw_cli.app.context import AppContext
    from homeclaw_cli.settings import load_settings

    plugin, capability, params = CASES[case]
    started = time.perf_counter()
    async with AppContext(load_settings()).caller as caller:
        first = await caller.call(plugin, capability, params)
        first_s = time.perf_counter() - started
        times = []
        for _ in range(warm):
            t = time.perf_counter()
            outcome = await caller.call(plugin, capability, params)
            times.append(time.perf_counter() - t)
            assert outcome.result.success, outcome.result.error
    return {
        "ok": first.result.success,
        "error": first.result.error,
        "first": first_s,
        "warm": times,
    }


def cli_time(case: str, env: dict[str, str]) -> float:
    plugin, capability, params = CASES[case]
    args = [f"{k}={v}" for k, v in params.items()]
    started = time.perf_counter()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "homeclaw_cli",
            "plugin",
            "call",
            plugin,
            capability,
            *[x for a in args for x in ("-p", a)],
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"{case}: {result.stderr.strip()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--warm", type=int, default=30)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(asyncio.run(measure(args.one, args.warm))))
        return

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = setup(home)
        server = start_todo(home, env)
        try:
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "homeclaw_cli", "--version"],
                env=env,
                capture_output=True,
                check=True,
            )
            baseline = time.perf_counter() - started
            print(f"homeclaw --version (interpreter + CLI import): {baseline * 1000:.0f} ms\n")
            header = f"{'type':<22}{'cli cold':>10}{'first':>10}{'warm p50':>10}{'warm p95':>10}"
            print(header)
            print("-" * len(header))
            for case in CASES:
                if (
                    case == "mcp stdio (node)"
                    and not (
                        ROOT / "plugins/files/node_modules/.bin/mcp-server-filesystem"
                    ).exists()
                ):
                    print(f"{case:<22}  skipped: run `make install` (npm install in plugins/files)")
                    continue
                cli_s = cli_time(case, env)
                child = subprocess.run(
                    [sys.executable, __file__, "--one", case, "--warm", str(args.warm)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                data = json.loads(child.stdout.strip().splitlines()[-1])
                if not data["ok"]:
                    raise SystemExit(f"{case}: {data['error']}")
                warm = sorted(data["warm"])
                p50 = statistics.median(warm)
                p95 = warm[min(len(warm) - 1, int(len(warm) * 0.95))]
                print(
                    f"{case:<22}{cli_s * 1000:>8.0f}ms{data['first'] * 1000:>8.0f}ms"
                    f"{p50 * 1000:>8.1f}ms{p95 * 1000:>8.1f}ms"
                )
        finally:
            server.kill()
            server.wait()
            if server.stdout:
                server.stdout.close()


if __name__ == "__main__":
    main()
