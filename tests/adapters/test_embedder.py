"""The real model (slow): the ONNX twin gives sentence-transformers' vectors without torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from homeclaw_cli.adapters import embedder
from tests.conftest import REPO_ROOT

TEXTS = [
    "weather tmrw?",
    "whats the wether in berln",
    "¿Va a llover mañana en Madrid?",
    "明日の天気は？",
    "",
    "Open-Meteo Weather\nCurrent weather and forecast for a location. " * 40,  # > 256 tokens
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    models = tmp_path_factory.mktemp("models")
    assert embedder.export_onnx(embedder.sentence_transformer("all-MiniLM-L6-v2"), models)
    return models


@pytest.mark.slow
def test_onnx_twin_matches_sentence_transformers(exported: Path) -> None:
    reference = embedder.sentence_transformer("all-MiniLM-L6-v2")
    twin = embedder.load_onnx(exported, "all-MiniLM-L6-v2")
    assert twin is not None and twin.dimension == reference.dimension == 384
    expected = reference.embed(TEXTS)
    got = twin.embed(TEXTS)
    assert got.shape == expected.shape == (len(TEXTS), 384)
    assert np.abs(got - expected).max() < 1e-4
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # batched and one at a time agree (padding does not leak into the mean)
    single = np.concatenate([twin.embed([t]) for t in TEXTS])
    assert np.abs(single - got).max() < 1e-5


@pytest.mark.slow
def test_query_embedder_prefers_onnx_and_never_imports_torch(exported: Path) -> None:
    code = (
        "import sys; from pathlib import Path\n"
        "from homeclaw_cli.adapters.embedder import query_embedder\n"
        f"e = query_embedder(Path({str(exported)!r}), 'all-MiniLM-L6-v2')\n"
        "v = e.embed(['hello'])\n"
        "print(type(e).__name__, v.shape, 'torch' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, check=True
    ).stdout
    assert out.split() == ["OnnxEmbedder", "(1,", "384)", "False"]


def test_missing_or_foreign_export_falls_back(tmp_path: Path) -> None:
    assert embedder.load_onnx(tmp_path, "all-MiniLM-L6-v2") is None
    folder = embedder.onnx_dir(tmp_path, "other")
    folder.mkdir(parents=True)
    (folder / embedder.ONNX_META).write_text('{"format": 1, "model": "x"}', encoding="utf-8")
    assert embedder.load_onnx(tmp_path, "other") is None


def test_bundled_model_resolves_to_the_package_folder() -> None:
    path = Path(embedder.resolve_model_path("all-MiniLM-L6-v2"))
    assert (path / "model.safetensors").is_file()
    assert embedder.resolve_model_path("sentence-transformers/all-MiniLM-L6-v2") == str(path)
    assert embedder.resolve_model_path("no-such-model-here") == "no-such-model-here"
