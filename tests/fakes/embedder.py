"""A deterministic bag-of-words embedder that stands in for sentence-transformers in fast tests.

Words are hashed (sha1, stable across processes) into `dimension` buckets and the vector is
L2-normalised, so texts sharing words have a high cosine similarity. `install()` patches the
embedder module the way sync and retrieval look it up; `calls` records every embedded text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

_WORD = re.compile(r"[a-z0-9]+")


class FakeEmbedder:
    def __init__(self, model_name: str = "all-MiniLM-L6-v2", dimension: int = 64) -> None:
        self.model_name = model_name
        self._dimension = dimension
        self.calls: list[str] = []
        self.loaded = False

    @property
    def dimension(self) -> int:
        self.loaded = True
        return self._dimension

    def embed(self, texts: Sequence[str], *, progress: Callable[[int], None] | None = None) -> Any:
        self.loaded = True
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            self.calls.append(text)
            for word in _WORD.findall(text.lower()):
                bucket = int(hashlib.sha1(word.encode()).hexdigest(), 16) % self._dimension
                out[row, bucket] += 1.0
            out[row, 0] += 0.01  # never the zero vector
            out[row] /= np.linalg.norm(out[row])
            if progress is not None:
                progress(1)
        return out


class FakeModels:
    """One FakeEmbedder per model name (dimension from `dims`), like the real per-process cache."""

    def __init__(self, dims: dict[str, int] | None = None) -> None:
        self.dims = dims or {}
        self.by_name: dict[str, FakeEmbedder] = {}

    def get(self, model_name: str, batch_size: int = 64) -> FakeEmbedder:
        if model_name not in self.by_name:
            self.by_name[model_name] = FakeEmbedder(model_name, self.dims.get(model_name, 64))
        return self.by_name[model_name]

    @property
    def embedded(self) -> list[str]:
        return [text for e in self.by_name.values() for text in e.calls]

    @property
    def loaded(self) -> bool:
        return any(e.loaded for e in self.by_name.values())

    def reset(self) -> None:
        for embedder in self.by_name.values():
            embedder.calls.clear()
            embedder.loaded = False


def install(target: Any, models: FakeModels | None = None) -> FakeModels:
    """Patch homeclaw_cli.adapters.embedder; `target` is a MonkeyPatch (or has .setattr)."""
    from homeclaw_cli.adapters import embedder

    models = models or FakeModels()

    def query_embedder(
        models_dir: Path, model_name: str, batch_size: int = 64, *, int8: bool = False
    ) -> FakeEmbedder:
        return models.get(model_name)

    target.setattr(embedder, "sentence_transformer", models.get)
    target.setattr(embedder, "query_embedder", query_embedder)
    target.setattr(embedder, "load_onnx", lambda models_dir, model_name, int8=False: None)
    target.setattr(embedder, "export_onnx", lambda reference, models_dir: True)
    return models


class _Setter:
    @staticmethod
    def setattr(obj: Any, name: str, value: Any) -> None:
        setattr(obj, name, value)


def install_globally(models: FakeModels | None = None) -> FakeModels:
    """For subprocess scripts: patch without a MonkeyPatch."""
    return install(_Setter(), models)
