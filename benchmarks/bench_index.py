"""Index and retrieval performance: sync throughput, no-change sync, warm and cold query latency.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_index.py [--sizes 100,1000,10000]
        [--model DIR] [--int8-queries]

Plugins are clones of the 80 eval-set manifests (benchmarks/retrieval/plugins) with numbered
ids. The full-sync figure uses the real model end to end. To build the larger indexes in
reasonable time the clones' vectors are the real vector of their source manifest plus a
little noise (the clone embedder below): it changes nothing for latency, which depends on
the number of rows, not their values. Queries are always embedded with the real model.
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
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from homeclaw_cli.settings import load_settings  # noqa: E402

SOURCE = REPO / "benchmarks" / "retrieval" / "plugins"
QUERIES = [
    "weather tmrw?",
    "send a message to the team on slack",
    "what's on my calendar friday",
    "convert 100 usd to eur",
    "is the website down",
    "play some jazz",
    "remind me to call mom at 6",
    "how long to drive to the airport",
    "turn off the living room lights",
    "whats the wether in berln",
]


EXAMPLES = REPO / "benchmarks" / "retrieval" / "examples.yaml"
EMBEDDING_ENV = "HOMECLAW_EMBEDDING__"
MODEL_ENV = f"{EMBEDDING_ENV}MODEL"


def make_plugins(root: Path, count: int, *, examples: bool = True) -> None:
    """`count` clones of the eval-set manifests, with the examples of examples.yaml."""
    manifests = [yaml.safe_load((d / "plugin.yaml").read_text()) for d in sorted(SOURCE.iterdir())]
    written = yaml.safe_load(EXAMPLES.read_text()) if examples else {}
    for manifest in manifests:
        if manifest["id"] in written:
            manifest["examples"] = written[manifest["id"]]
    for i in range(count):
        base = dict(manifests[i % len(manifests)])
        copy = i // len(manifests)
        if copy:
            base["id"] = f"{base['id']}-{copy}"
            base["name"] = f"{base['name']} {copy}"
        folder = root / base["id"]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "plugin.yaml").write_text(yaml.safe_dump(base), encoding="utf-8")


def settings_for(home: Path, plugins: Path) -> Any:
    env = {"HOMECLAW_HOME": str(home), "HOMECLAW_NO_BUNDLED": "1", "HF_HUB_OFFLINE": "1"}
    # --model and --int8-queries, also seen by the cold CLI runs
    env.update({k: v for k, v in os.environ.items() if k.startswith(EMBEDDING_ENV)})
    return load_settings(env=env, extra_plugin_dirs=[plugins], cwd=home)


class CloneEmbedder:
    """Real vectors for the 80 source texts, reused (+ noise) for their numbered clones."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.model_name = real.model_name
        self.cache: dict[str, Any] = {}

    @property
    def dimension(self) -> int:
        return int(self.real.dimension)

    @property
    def model(self) -> Any:
        return self.real.model

    def embed(self, texts: list[str], *, progress: Any = None) -> Any:
        import numpy as np

        rng = np.random.default_rng(0)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            key = text.split("\n", 1)[1] if "\n" in text else text
            if key not in self.cache:
                self.cache[key] = self.real.embed([text])[0]
            vector = self.cache[key] + rng.normal(0, 0.02, self.dimension).astype(np.float32)
            out[i] = vector / np.linalg.norm(vector)
        return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def bench_full_sync(count: int, work: Path) -> None:
    from homeclaw_cli.app.sync import sync

    home, plugins = work / f"full-{count}", work / f"full-{count}-plugins"
    make_plugins(plugins, count)
    settings = settings_for(home, plugins)
    started = time.perf_counter()
    report = sync(settings, kinds=["plugins"])
    seconds = time.perf_counter() - started
    print(
        f"full sync, real model, {count} plugins: {seconds:.1f} s "
        f"({count / seconds:.0f} plugins/s, includes model load and ONNX export); "
        f"added {len(report.added)}"
    )
    again = time.perf_counter()
    report = sync(settings, kinds=["plugins"], full=True)
    seconds = time.perf_counter() - again
    print(f"  --full re-sync, model warm: {seconds:.1f} s ({count / seconds:.0f} plugins/s)")


def build_index(count: int, work: Path, examples: bool) -> tuple[Any, Path, Path]:
    from homeclaw_cli.adapters import embedder
    from homeclaw_cli.app.sync import sync

    home, plugins = work / f"idx-{count}", work / f"idx-{count}-plugins"
    make_plugins(plugins, count, examples=examples)
    settings = settings_for(home, plugins)
    real = embedder.sentence_transformer(settings.embedding.model)
    clone = CloneEmbedder(real)
    original = embedder.sentence_transformer
    embedder.sentence_transformer = lambda name, batch_size=64: clone  # type: ignore[assignment]
    try:
        sync(settings, kinds=["plugins"])
    finally:
        embedder.sentence_transformer = original
    embedder.export_onnx(real, settings.data_dir / "models")  # the clone's vectors are not real
    if settings.embedding.int8_queries:
        from homeclaw_cli.adapters.int8_twin import ensure_int8_twin

        ensure_int8_twin(settings.data_dir / "models", settings.embedding.model)
    return settings, home, plugins


def bench_size(count: int, work: Path, examples: bool) -> None:
    from homeclaw_cli.adapters.vector_store import open_store
    from homeclaw_cli.app.retrieval import RetrievalService
    from homeclaw_cli.app.sync import sync

    settings, home, plugins = build_index(count, work, examples)
    snapshot = open_store(settings).snapshot(settings.plugins.table)
    facets = len(snapshot.facets.owners) if snapshot else 0
    print(f"{count:>6} plugins: {facets} example/capability vectors")
    for method in ("hybrid", "dense", "fts"):
        service = RetrievalService(settings, method=method)
        service.search_plugins("warm up")
        totals, embeds = [], []
        for _ in range(3):
            for query in QUERIES:
                result = service.search_plugins(query)
                totals.append(result.timings["total"] * 1000)
                embeds.append(result.timings.get("embed", 0.0) * 1000)
        print(
            f"{count:>6} plugins, {method:<6} warm query: p50 {percentile(totals, 0.5):.1f} ms, "
            f"p95 {percentile(totals, 0.95):.1f} ms (embed p50 {statistics.median(embeds):.1f} ms)"
        )
    started = time.perf_counter()
    report = sync(settings, kinds=["plugins"])
    seconds = time.perf_counter() - started
    print(
        f"{count:>6} plugins, no-change sync (in process): {seconds:.2f} s, "
        f"model loaded: {report.model_loaded}, unchanged {report.unchanged}"
    )
    cli_sync = cold_cli(home, plugins, ["sync", "--quiet"], runs=1)
    print(f"{count:>6} plugins, no-change `homeclaw sync` (new process): {cli_sync[0]:.2f} s")
    runs = cold_cli(home, plugins, ["plugin", "search", "weather tomorrow in paris"], runs=5)
    print(
        f"{count:>6} plugins, cold `homeclaw plugin search` (new process): "
        f"median {statistics.median(runs):.2f} s, min {min(runs):.2f} s"
    )


def compile_package() -> None:
    """Write homeclaw_cli's bytecode, as an installed package has it: with
    PYTHONDONTWRITEBYTECODE set (as on our CI machines), an editable checkout would otherwise
    compile every module from source on each cold start (about 60 ms of a cold search)."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(REPO / "homeclaw_cli")],
        check=True,
        capture_output=True,
    )


def cold_cli(home: Path, plugins: Path, args: list[str], runs: int) -> list[float]:
    compile_package()
    env = {
        **os.environ,
        "HOMECLAW_HOME": str(home),
        "HOMECLAW_NO_BUNDLED": "1",
        "HOMECLAW_PLUGINS_PATH": str(plugins),
        "PYTHONPATH": str(REPO),
    }
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "homeclaw_cli", *args],
            env=env,
            check=True,
            capture_output=True,
            cwd=home,
        )
        times.append(time.perf_counter() - started)
    return times


def importtime(home: Path, plugins: Path) -> None:
    env = {
        **os.environ,
        "HOMECLAW_HOME": str(home),
        "HOMECLAW_NO_BUNDLED": "1",
        "HOMECLAW_PLUGINS_PATH": str(plugins),
        "PYTHONPATH": str(REPO),
    }
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "homeclaw_cli", "plugin", "search", "weather"],
        env=env,
        capture_output=True,
        text=True,
        cwd=home,
        check=True,
    )
    top: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = (p.strip() for p in line.removeprefix("import time:").split("|"))
        if not cumulative.isdigit():
            continue
        root = name.split(".")[0]
        if name == root:
            top[root] = max(top.get(root, 0), int(cumulative))
    print("cold search, top-level imports (cumulative ms):")
    for name, micros in sorted(top.items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {name:<28} {micros / 1000:7.1f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--full-sync", type=int, default=1000)
    parser.add_argument(
        "--no-examples", action="store_true", help="clones without examples.yaml's examples"
    )
    parser.add_argument("--model", help="another embedding.model than the default")
    parser.add_argument("--int8-queries", action="store_true", help="embedding.int8_queries: true")
    args = parser.parse_args()
    if args.model:
        os.environ[MODEL_ENV] = args.model
    if args.int8_queries:
        os.environ[f"{EMBEDDING_ENV}INT8_QUERIES"] = "true"
    work = Path(tempfile.mkdtemp(prefix="homeclaw-bench-"))
    try:
        print(f"cpus: {os.cpu_count()}, python {sys.version.split()[0]}")
        if args.full_sync:
            bench_full_sync(args.full_sync, work)
        sizes = [int(s) for s in args.sizes.split(",") if s]
        for size in sizes:
            bench_size(size, work, not args.no_examples)
        if sizes:  # where the largest index's cold search spends its imports
            importtime(work / f"idx-{sizes[-1]}", work / f"idx-{sizes[-1]}-plugins")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
