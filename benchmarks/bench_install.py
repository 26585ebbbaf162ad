"""Install timings: `homeclaw plugin install` from each source, and the pieces it is made of.

Prints medians over a few runs: the in-process install use case (fetch, validate, digest,
swap, lockfile, audit) for a small plugin from a folder, zip, tar.gz and a local git repo;
plus the digest and safe extraction of a larger plugin (500 files, ~5 MiB).

    python benchmarks/bench_install.py
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from homeclaw_cli.adapters.archive import safe_extract_tar, safe_extract_zip  # noqa: E402
from homeclaw_cli.adapters.install_source import tree_digest  # noqa: E402
from homeclaw_cli.app.context import AppContext  # noqa: E402
from homeclaw_cli.app.install.plugin import install_plugin, remove_plugin  # noqa: E402
from homeclaw_cli.settings import load_settings  # noqa: E402

RUNS = 7


def make_plugin(folder: Path, files: int = 3, size: int = 200) -> Path:
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text(
        "id: bench\nname: Bench\ndescription: A benchmark plugin.\ntype: subprocess\n"
        "config: {command: python3, args: [main.py]}\n"
    )
    (folder / "main.py").write_text("print('x')\n")
    for i in range(files):
        (folder / f"data{i}.txt").write_bytes(os.urandom(size))
    return folder


def median_ms(fn: Callable[[], object], runs: int = RUNS) -> tuple[float, float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), max(samples)


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="hc-bench-install-"))
    home = tmp / "home"
    settings = load_settings(env={"HOMECLAW_HOME": str(home), "HOMECLAW_NO_BUNDLED": "1"}, cwd=tmp)
    src = make_plugin(tmp / "src" / "bench")
    archive_zip = tmp / "bench.zip"
    with zipfile.ZipFile(archive_zip, "w") as zf:
        for f in src.iterdir():
            zf.write(f, f"bench/{f.name}")
    archive_tar = tmp / "bench.tar.gz"
    with tarfile.open(archive_tar, "w:gz") as tf:
        tf.add(src, "bench")
    repo = make_plugin(tmp / "repo")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@b",
    }
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-qm", "x"], ["tag", "v1"]):
        subprocess.run(["git", *cmd], cwd=repo, env=env, check=True)

    print(
        f"{'operation':48} {'median ms':>10} {'max ms':>9}   ({RUNS} runs, {os.cpu_count()} cpus)"
    )
    sources = {
        "install from folder (5 files)": str(src),
        "install from .zip": str(archive_zip),
        "install from .tar.gz": str(archive_tar),
        "install from git file://repo@v1": f"file://{repo}@v1",
    }
    for label, source in sources.items():

        def once(source: str = source) -> None:
            install_plugin(AppContext(settings), source, approve=lambda r: True)
            remove_plugin(AppContext(settings), "bench")

        med, worst = median_ms(once)
        print(f"{label + ' (+ remove)':48} {med:10.1f} {worst:9.1f}")

    big = make_plugin(tmp / "big" / "bench", files=500, size=10_000)
    med, worst = median_ms(lambda: tree_digest(big))
    print(f"{'sha256 digest, 500 files / 5 MiB':48} {med:10.1f} {worst:9.1f}")
    big_zip, big_tar = tmp / "big.zip", tmp / "big.tar.gz"
    with zipfile.ZipFile(big_zip, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in big.iterdir():
            zf.write(f, f"bench/{f.name}")
    with tarfile.open(big_tar, "w:gz") as tf:
        tf.add(big, "bench")
    counter = iter(range(10**6))
    med, worst = median_ms(lambda: safe_extract_zip(big_zip, tmp / f"xz{next(counter)}"))
    print(f"{'checked zip extraction, 500 files / 5 MiB':48} {med:10.1f} {worst:9.1f}")
    med, worst = median_ms(lambda: safe_extract_tar(big_tar, tmp / f"xt{next(counter)}"))
    print(f"{'checked tar.gz extraction, 500 files / 5 MiB':48} {med:10.1f} {worst:9.1f}")
    with tempfile.TemporaryDirectory() as unpack:
        start = time.perf_counter()
        with tarfile.open(big_tar) as tf:
            tf.extractall(unpack, filter="data")
        ref = (time.perf_counter() - start) * 1000
    print(f"{'  reference: tarfile.extractall(filter=data)':48} {ref:10.1f}")
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "homeclaw_cli", "plugin", "install", str(src), "--json"],
        env={**os.environ, "HOMECLAW_HOME": str(tmp / "home2"), "PYTHONPATH": str(REPO)},
        check=True,
        capture_output=True,
    )
    cli_ms = (time.perf_counter() - start) * 1000
    print(f"{'`homeclaw plugin install DIR` end to end (1 run)':48} {cli_ms:10.1f}")
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
