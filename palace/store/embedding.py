"""Sentence embeddings for drawers and questions, offline.

The default model is all-MiniLM-L6-v2 (sentence-transformers; 384 dimensions, 256 tokens at
most, mean pooling, L2-normalised), shipped inside the package as an ONNX file with its
tokenizer, licence and ``config.json`` in ``palace/models/all-MiniLM-L6-v2/`` (made by
``scripts/export_minilm.py``). It runs with onnxruntime + tokenizers only; nothing is
downloaded and torch is never imported.

Unlike Chroma's own ``ONNXMiniLM_L6_V2`` (which pads every text to 256 tokens), texts are
sorted by token length and each batch is padded only to its longest text.

- :class:`Embedder`: the protocol the rest of palace uses.
- :class:`OnnxEmbedder`: any ONNX sentence model folder (model.onnx, tokenizer.json, config.json).
- :class:`FakeEmbedder`: deterministic word-hash vectors, for unit tests only.
- :func:`default_embedder`: the packaged model.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Sequence, runtime_checkable

import numpy as np

from palace.errors import ModelError

if TYPE_CHECKING:  # pragma: no cover
    import onnxruntime
    import tokenizers

__all__ = ["Embedder", "OnnxEmbedder", "FakeEmbedder", "default_embedder", "packaged_model_dir"]

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_BATCH_SIZE = 32
_REGENERATE_HINT = (
    "the model ships inside the palace package: reinstall palace, or regenerate the folder with "
    "scripts/export_minilm.py (see its docstring)"
)


@runtime_checkable
class Embedder(Protocol):
    """What palace needs from an embedding model.

    Attributes:
        name: model name recorded in a palace (e.g. ``"all-MiniLM-L6-v2"``); a palace built
            with one model refuses vectors of another.
        dimension: length of each vector.
        max_tokens: the most model tokens (incl. special tokens such as [CLS]/[SEP]) the model
            reads from one text; the rest is cut off (truncated), so drawers are cut to fit.
    """

    name: str
    dimension: int
    max_tokens: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts``: float32 array of shape ``(len(texts), dimension)``, rows of
        L2 norm 1, in the order of ``texts``; shape ``(0, dimension)`` for no texts."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Number of model tokens of each text, special tokens included, before truncation."""
        ...


def packaged_model_dir(name: str = DEFAULT_MODEL) -> Path:
    """Folder of a model shipped in ``palace.models`` (default all-MiniLM-L6-v2).

    Found through ``palace/models/__init__.py``'s location, so it works for an editable install
    and an installed wheel alike. The folder may not exist (see :class:`OnnxEmbedder`).
    """
    import palace.models

    return Path(palace.models.__file__).resolve().parent / name


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of strings, not one string")
    items = list(texts)
    for i, text in enumerate(items):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] is {type(text).__name__}, not str")
    return items


def _normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows divided by their L2 norm (norm floored at 1e-12, as torch.nn.functional.normalize)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


class OnnxEmbedder:
    """A sentence-embedding model run by onnxruntime, read from a model folder.

    The folder holds ``model.onnx`` (inputs ``input_ids``, ``attention_mask`` and optionally
    ``token_type_ids``, int64 ``batch x sequence``; first output ``last_hidden_state``,
    float32 ``batch x sequence x dimension``), ``tokenizer.json`` (a Hugging Face
    ``tokenizers`` file) and ``config.json``::

        {"name": "all-MiniLM-L6-v2", "dimension": 384, "max_tokens": 256,
         "pooling": "mean", "normalize": true, "batch_size": 1}

    Embedding = mean of the token vectors over the attention mask (Reimers & Gurevych 2019,
    "Sentence-BERT", arXiv:1908.10084: mean pooling, what all-MiniLM-L6-v2 was trained with
    per its model card), then L2 normalisation. Texts are tokenised, truncated at
    ``max_tokens`` (special tokens included), sorted by token count, batched and each batch
    padded only to its longest text; rows come back in the input order.

    Args:
        model_dir: the model folder; default the packaged all-MiniLM-L6-v2.
        batch_size: texts per onnxruntime run; default ``config.json``'s ``batch_size``, else
            32. The packaged model (static int8: fixed activation ranges, so a text's vector
            does not depend on its batch-mates) sets 1: on this 2-core AMX machine batching
            was slower for every model tried (one thread, ~170-token texts: 14.4k tokens/s
            at batch 1, 10.1k at 16; two threads 22.1k at batch 1).
        intra_op_num_threads: onnxruntime threads per run; default onnxruntime's (one per
            core).

    The onnxruntime session and the tokenizer are created on first use; the model folder and
    ``config.json`` are checked at construction.

    Raises:
        palace.errors.ModelError: the folder, ``config.json``, ``model.onnx`` or
            ``tokenizer.json`` is missing or unreadable (at construction for the folder and
            config, at first use for the ONNX file and tokenizer), or the model's output does
            not have ``dimension`` values per token.
    """

    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        batch_size: int | None = None,
        intra_op_num_threads: int | None = None,
    ) -> None:
        self.model_dir = Path(model_dir) if model_dir is not None else packaged_model_dir()
        config = self._read_config()
        self.config: dict[str, Any] = config
        self.name: str = str(config["name"])
        self.dimension: int = int(config["dimension"])
        self.max_tokens: int = int(config["max_tokens"])
        self.normalize: bool = bool(config.get("normalize", True))
        self.output_name: str | None = config.get("output_name")
        size = batch_size if batch_size is not None else int(config.get("batch_size", DEFAULT_BATCH_SIZE))
        if size < 1:
            raise ValueError(f"batch_size must be >= 1, got {size}")
        self.batch_size: int = size
        if intra_op_num_threads is not None and intra_op_num_threads < 0:
            raise ValueError(f"intra_op_num_threads must be >= 0, got {intra_op_num_threads}")
        self.intra_op_num_threads = intra_op_num_threads
        self._session: onnxruntime.InferenceSession | None = None
        self._input_names: set[str] = set()
        self._tokenizer: tokenizers.Tokenizer | None = None
        self._counter: tokenizers.Tokenizer | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OnnxEmbedder({str(self.model_dir)!r}, name={self.name!r}, batch_size={self.batch_size})"

    # -- loading ---------------------------------------------------------------------------

    def _read_config(self) -> dict[str, Any]:
        folder = self.model_dir
        if not folder.is_dir():
            raise ModelError(f"embedding model folder not found: {folder}", hint=_REGENERATE_HINT)
        path = folder / "config.json"
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ModelError(f"embedding model config missing: {path}", hint=_REGENERATE_HINT) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelError(f"embedding model config unreadable: {path}: {exc}", hint=_REGENERATE_HINT) from None
        if not isinstance(config, dict):
            raise ModelError(f"embedding model config is not a JSON object: {path}", hint=_REGENERATE_HINT)
        missing = [key for key in ("name", "dimension", "max_tokens") if key not in config]
        if missing:
            raise ModelError(
                f"embedding model config {path} lacks {', '.join(missing)}", hint=_REGENERATE_HINT
            )
        pooling = config.get("pooling", "mean")
        if pooling != "mean":
            raise ModelError(f"embedding model config {path}: pooling {pooling!r} is not supported (only mean)")
        try:
            if int(config["dimension"]) < 1 or int(config["max_tokens"]) < 2:
                raise ValueError
        except (TypeError, ValueError):
            raise ModelError(
                f"embedding model config {path}: bad dimension/max_tokens", hint=_REGENERATE_HINT
            ) from None
        return config

    @property
    def tokenizer(self) -> "tokenizers.Tokenizer":
        """The tokenizer: truncation at ``max_tokens``, no padding (batches are padded here)."""
        if self._tokenizer is None:
            with self._lock:
                if self._tokenizer is None:
                    self._tokenizer = self._load_tokenizer(truncate=True)
        return self._tokenizer

    def _load_tokenizer(self, *, truncate: bool) -> "tokenizers.Tokenizer":
        from tokenizers import Tokenizer

        path = self.model_dir / "tokenizer.json"
        if not path.is_file():
            raise ModelError(f"embedding model tokenizer missing: {path}", hint=_REGENERATE_HINT)
        try:
            tok = Tokenizer.from_file(str(path))
        except Exception as exc:  # tokenizers raises plain Exception for a bad file
            raise ModelError(f"embedding model tokenizer unreadable: {path}: {exc}", hint=_REGENERATE_HINT) from None
        if truncate:
            tok.enable_truncation(max_length=self.max_tokens)
        else:
            tok.no_truncation()
        tok.no_padding()
        return tok

    @property
    def session(self) -> "onnxruntime.InferenceSession":
        """The onnxruntime session (CPUExecutionProvider, all graph optimisations)."""
        if self._session is None:
            with self._lock:
                if self._session is None:
                    self._session = self._load_session()
        return self._session

    def _load_session(self) -> "onnxruntime.InferenceSession":
        from palace.config import quiet_third_parties

        quiet_third_parties()  # before the import: onnxruntime's telemetry thread reads it then
        import onnxruntime as ort

        path = self.model_dir / "model.onnx"
        if not path.is_file():
            raise ModelError(f"embedding model file missing: {path}", hint=_REGENERATE_HINT)
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        if self.intra_op_num_threads is not None:
            options.intra_op_num_threads = self.intra_op_num_threads
        try:
            session = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own Fail/InvalidProtobuf/... types
            raise ModelError(f"embedding model unreadable: {path}: {exc}", hint=_REGENERATE_HINT) from None
        inputs = {i.name for i in session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= inputs:
            raise ModelError(
                f"embedding model {path} has inputs {sorted(inputs)}; input_ids and attention_mask are needed"
            )
        outputs = [o.name for o in session.get_outputs()]
        if self.output_name is None or self.output_name not in outputs:
            self.output_name = outputs[0]
        self._input_names = inputs
        return session

    # -- Embedder --------------------------------------------------------------------------

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Model tokens of each text, [CLS]/[SEP] included, before truncation at ``max_tokens``.

        Uses the tokenizer only (no model run). Raises TypeError for a non-string item and
        :class:`palace.errors.ModelError` if the tokenizer cannot be loaded.
        """
        items = _check_texts(texts)
        if not items:
            return []
        if self._counter is None:
            with self._lock:
                if self._counter is None:
                    self._counter = self._load_tokenizer(truncate=False)
        return [len(enc.ids) for enc in self._counter.encode_batch(items)]

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``: float32 ``(len(texts), dimension)``, unit L2 rows, input order.

        Empty input gives shape ``(0, dimension)``. An empty string is embedded as
        ``[CLS] [SEP]``. Raises TypeError for a non-string item and
        :class:`palace.errors.ModelError` if the model cannot be loaded or returns vectors of
        another dimension.
        """
        items = _check_texts(texts)
        out = np.zeros((len(items), self.dimension), dtype=np.float32)
        if not items:
            return out
        session = self.session
        encodings = self.tokenizer.encode_batch(items)
        lengths = np.fromiter((len(e.ids) for e in encodings), dtype=np.int64, count=len(encodings))
        order = np.argsort(lengths, kind="stable")
        with_types = "token_type_ids" in self._input_names
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            width = int(lengths[idx].max())
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, j in enumerate(idx):
                n = int(lengths[j])
                ids[row, :n] = encodings[j].ids
                mask[row, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if with_types:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = session.run([self.output_name], feeds)[0]
            if hidden.ndim != 3 or hidden.shape[-1] != self.dimension:
                raise ModelError(
                    f"embedding model {self.model_dir} returned shape {hidden.shape}; "
                    f"expected (batch, tokens, {self.dimension})",
                    hint=_REGENERATE_HINT,
                )
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            out[idx] = pooled
        return _normalise(out) if self.normalize else out


class FakeEmbedder:
    """Deterministic stand-in for unit tests: no model, no files.

    Each lower-cased word (``\\w+``) maps to a fixed pseudo-random Gaussian vector seeded by
    its BLAKE2b hash; a text's vector is the normalised sum of its words' vectors (a text
    without words gets the vector of the empty word). So texts sharing words are similar and
    equal texts embed equally, across runs and processes. ``count_tokens`` = words + 2 (as if
    [CLS]/[SEP] were added). Not a semantic model.
    """

    def __init__(self, dimension: int = 384, *, name: str = "fake", max_tokens: int = 256) -> None:
        if dimension < 1:
            raise ValueError(f"dimension must be >= 1, got {dimension}")
        self.name = name
        self.dimension = dimension
        self.max_tokens = max_tokens
        self._cache: dict[str, np.ndarray] = {}

    _WORD = re.compile(r"\w+")

    def _word_vector(self, word: str) -> np.ndarray:
        vec = self._cache.get(word)
        if vec is None:
            seed = int.from_bytes(hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest(), "little")
            vec = np.random.default_rng(seed).standard_normal(self.dimension).astype(np.float32)
            self._cache[word] = vec
        return vec

    def _words(self, text: str) -> list[str]:
        return self._WORD.findall(text.lower())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """float32 ``(len(texts), dimension)``, unit rows, input order; ``(0, dimension)`` if empty."""
        items = _check_texts(texts)
        out = np.zeros((len(items), self.dimension), dtype=np.float32)
        for i, text in enumerate(items):
            words = self._words(text)[: max(self.max_tokens - 2, 0)] or [""]
            for word in words:
                out[i] += self._word_vector(word)
        return _normalise(out)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Words + 2 per text (no truncation)."""
        return [len(self._words(t)) + 2 for t in _check_texts(texts)]


def default_embedder(*, batch_size: int | None = None, intra_op_num_threads: int | None = None) -> OnnxEmbedder:
    """The packaged all-MiniLM-L6-v2 (see :class:`OnnxEmbedder`; raises ModelError if missing)."""
    return OnnxEmbedder(batch_size=batch_size, intra_op_num_threads=intra_op_num_threads)
