"""A team index on object storage: sync to S3 and search from the syncing machine and another.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_team_index.py [--sizes 1000,10000]

The object store is moto's S3 server on 127.0.0.1 (in memory, no network latency: the
figures are homeclaw + LanceDB + the S3 protocol, not a WAN). Two HOMECLAW_HOMEs stand for
two machines with the same plugins. Plugins are the numbered clones of bench_index.py;
their vectors come from its CloneEmbedder (the real model's vector of the source manifest
plus noise), because embedding 10,000 texts on this CPU takes minutes and is the same work
for a local or a remote index. Queries are embedded with the real model (ONNX), as usual.
Cold figures are whole `homeclaw plugin search` processes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench_index import CloneEmbedder, make_plugins  # noqa: E402

from homeclaw_cli.settings import load_settings  # noqa: E402

QUERY = "weather tomorrow in paris"
RUNS = 5


def start_moto() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(150):
        try:
            urllib.request.urlopen(endpoint + "/moto-api/", timeout=1)
            return process, endpoint
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("moto did not start")


def machine_env(home: Path, plugins: Path, endpoint: str | None, bucket: str) -> dict[str, str]:
    env = {
        "HOMECLAW_HOME": str(home),
        "HOMECLAW_NO_BUNDLED": "1",
        "HOMECLAW_PLUGINS_PATH": str(plugins),
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(REPO),
    }
    if endpoint:
        env.update(
            AWS_ACCESS_KEY_ID="bench",
            AWS_SECRET_ACCESS_KEY="bench",
            HOMECLAW_INDEX__URI=f"s3://{bucket}/index",
            HOMECLAW_INDEX__ENDPOINT=endpoint,
            HOMECLAW_INDEX__REGION="us-east-1",
            HOMECLAW_INDEX__ALLOW_HTTP="true",
        )
    return env


def sync_in_process(env: dict[str, str], real: Any) -> float:
    """One plugin sync with the clone embedder; seconds."""
    from homeclaw_cli.adapters import embedder
    from homeclaw_cli.app.sync import sync

    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)  # the AWS_* keys are read by LanceDB from the environment
    clone = CloneEmbedder(real)
    original = embedder.sentence_transformer
    embedder.sentence_transformer = lambda name, batch_size=64: clone  # type: ignore[assignment]
    try:
        settings = load_settings(env=env, cwd=Path(env["HOMECLAW_HOME"]))
        started = time.perf_counter()
        sync(settings, kinds=["plugins"])
        seconds = time.perf_counter() - started
        embedder.export_onnx(real, settings.data_dir / "models")
        return seconds
    finally:
        embedder.sentence_transformer = original
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def cli(env: dict[str, str], *args: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "homeclaw_cli", *args],
        env={**os.environ, **env},
        check=True,
        capture_output=True,
        cwd=env["HOMECLAW_HOME"],
    )
    return time.perf_counter() - started


def median_search(env: dict[str, str], runs: int = RUNS) -> float:
    return statistics.median(cli(env, "plugin", "search", QUERY) for _ in range(runs))


def copy_models(real: Any, home: Path) -> None:
    from homeclaw_cli.adapters import embedder

    embedder.export_onnx(real, home / "data" / "models")


def bench_size(
    count: int, work: Path, endpoint: str, real: Any, *, with_local: bool = True, runs: int = 5
) -> dict[str, float]:
    import boto3

    bucket = f"bench-{count}"
    boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="bench",
        aws_secret_access_key="bench",
    ).create_bucket(Bucket=bucket)
    plugins = work / f"plugins-{count}"
    make_plugins(plugins, count)
    local = machine_env(work / f"local-{count}", plugins, None, bucket)
    a = machine_env(work / f"a-{count}", plugins, endpoint, bucket)
    b = machine_env(work / f"b-{count}", plugins, endpoint, bucket)
    out = _Figures(count)
    if with_local:
        out["local full sync"] = sync_in_process(local, real)
    out["s3 full sync"] = sync_in_process(a, real)
    copy_models(real, Path(b["HOMECLAW_HOME"]))
    if with_local:
        out["local no-change sync (process)"] = cli(local, "sync", "--quiet")
    out["s3 no-change sync (process)"] = cli(a, "sync", "--quiet")
    if with_local:
        out["local cold search"] = median_search(local, runs)
    out["A cold search, snapshot fresh"] = median_search(a, runs)
    out["B first search, no snapshot (download)"] = cli(b, "plugin", "search", QUERY)
    out["B cold search, snapshot fresh"] = median_search(b, runs)
    check_every_query = {**b, "HOMECLAW_INDEX__REFRESH_INTERVAL_SEC": "0"}
    out["B cold search, version check each query"] = median_search(check_every_query, runs)
    make_plugins_extra(plugins, count)
    out["A sync of one new plugin"] = sync_in_process(a, real)
    out["B first search after A's change"] = cli(check_every_query, "plugin", "search", QUERY)
    out["B cold search after the refresh"] = median_search(b, runs)
    return out


class _Figures(dict[str, float]):
    """Printed as they are measured: a long run killed halfway keeps what it had."""

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def __setitem__(self, name: str, seconds: float) -> None:
        super().__setitem__(name, seconds)
        print(f"{self.count:>6} plugins  {name:<44} {seconds:7.2f} s", flush=True)


def make_plugins_extra(plugins: Path, count: int) -> None:
    folder = plugins / f"extra-{count}"
    folder.mkdir()
    (folder / "plugin.yaml").write_text(
        "id: extra-tool\nname: Extra tool\ndescription: Look up tide tables for a harbour.\n"
        "type: subprocess\nconfig: {command: python3, args: [tool.py]}\n",
        encoding="utf-8",
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=RUNS, help="cold searches per median")
    parser.add_argument(
        "--no-local", action="store_true", help="skip the local-index baseline (saves a sync)"
    )
    args = parser.parse_args()
    from homeclaw_cli.adapters import embedder

    real = embedder.sentence_transformer("all-MiniLM-L6-v2")
    work = Path(tempfile.mkdtemp(prefix="homeclaw-team-bench-"))
    process, endpoint = start_moto()
    try:
        print(
            f"cpus: {os.cpu_count()}, load: {os.getloadavg()[0]:.2f}, moto at {endpoint}",
            flush=True,
        )
        for size in [int(s) for s in args.sizes.split(",") if s]:
            bench_size(size, work, endpoint, real, with_local=not args.no_local, runs=args.runs)
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
