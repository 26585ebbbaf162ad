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


@pytest.mark.slow
def test_a_model_without_token_type_ids_gets_its_onnx_twin_too(tmp_path: Path) -> None:
    """MPNet, RoBERTa and E5-style models take no token_type_ids; their export must not ask
    for one, or every query of `embedding.model: all-mpnet-base-v2` would load torch."""
    import shutil

    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import modules as models
    from transformers import MPNetConfig, MPNetModel

    folder = tmp_path / "tiny-mpnet"
    bundled = Path(embedder.resolve_model_path("all-MiniLM-L6-v2"))
    config = MPNetConfig(
        vocab_size=30527,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
    )
    MPNetModel(config).save_pretrained(folder)
    for name in ("tokenizer.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(bundled / name, folder / name)
    (folder / "tokenizer_config.json").write_text(
        '{"tokenizer_class": "BertTokenizer", "do_lower_case": true,'
        ' "model_input_names": ["input_ids", "attention_mask"]}',
        encoding="utf-8",
    )
    transformer = models.Transformer(str(folder), max_seq_length=64)
    assert "token_type_ids" not in transformer.tokenizer.model_input_names
    pooling = models.Pooling(transformer.get_embedding_dimension(), "mean")
    SentenceTransformer(modules=[transformer, pooling], device="cpu").save(str(tmp_path / "st"))

    reference = embedder.sentence_transformer(str(tmp_path / "st"))
    assert embedder.export_onnx(reference, tmp_path / "models")
    twin = embedder.load_onnx(tmp_path / "models", str(tmp_path / "st"))
    assert twin is not None
    texts = TEXTS[:3]
    assert np.abs(twin.embed(texts) - reference.embed(texts)).max() < 1e-4


@pytest.mark.slow
def test_int8_copy_is_close_to_the_float_twin_and_only_kept_when_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from homeclaw_cli.adapters import int8_twin

    models = tmp_path / "models"
    assert embedder.export_onnx(embedder.sentence_transformer("all-MiniLM-L6-v2"), models)
    folder = embedder.onnx_dir(models, "all-MiniLM-L6-v2")
    monkeypatch.setattr(int8_twin, "MIN_COSINE", 1.01)  # no copy is that close
    (folder / f".{embedder.INT8_FILE}.tmp4194999").write_bytes(b"what a killed sync left")
    warning = int8_twin.ensure_int8_twin(models, "all-MiniLM-L6-v2")
    assert warning and "strays from the float model" in warning
    assert sorted(p.name for p in folder.iterdir()) == [
        embedder.ONNX_META,
        "model.onnx",
        "tokenizer.json",
    ]
    assert embedder.load_onnx(models, "all-MiniLM-L6-v2", int8=True) is (
        embedder.load_onnx(models, "all-MiniLM-L6-v2")
    )  # no copy: queries stay float

    monkeypatch.setattr(int8_twin, "MIN_COSINE", 0.85)
    assert int8_twin.ensure_int8_twin(models, "all-MiniLM-L6-v2") is None
    assert (folder / embedder.INT8_FILE).is_file()
    float_twin = embedder.load_onnx(models, "all-MiniLM-L6-v2")
    int8 = embedder.query_embedder(models, "all-MiniLM-L6-v2", int8=True)
    assert int8 is not float_twin and float_twin is not None
    cosines = (int8.embed(TEXTS) * float_twin.embed(TEXTS)).sum(axis=1)
    assert cosines.min() > 0.85 and cosines.max() < 1.0
