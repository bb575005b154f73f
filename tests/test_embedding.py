"""palace.store.embedding: the packaged all-MiniLM-L6-v2 ONNX embedder and the FakeEmbedder."""

from __future__ import annotations

import base64
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from palace.store.embedding import Embedder, FakeEmbedder, OnnxEmbedder, default_embedder, packaged_model_dir
from palace.errors import ModelError, PalaceError

# A 395-byte float32 ONNX model with the same interface as the real one: inputs input_ids,
# attention_mask, token_type_ids; output last_hidden_state[b, s, k] = cos(input_ids[b, s] * f_k)
# for 8 fixed frequencies f_k (so [PAD] = id 0 gives all-ones rows, which would visibly pull
# the mean if padding leaked into pooling). Made with onnx.helper (Cast, Unsqueeze, Mul, Cos;
# opset 17). It tests palace's own batching, padding, pooling and ordering exactly, without the
# int8 model's quantisation noise.
TINY_MODEL = base64.b64decode(
    "CAgSDHBhbGFjZS10ZXN0czryAgofCglpbnB1dF9pZHMSAWYiBENhc3QqCQoCdG8YAaABAgoXCgFmCgRheGVzEgF1IglVbnNxdWVlemUK"
    "EQoBdQoEZnJlcRIBbSIDTXVsChsKAW0SEWxhc3RfaGlkZGVuX3N0YXRlIgNDb3MSBHRpbnkqLAgIEAFCBGZyZXFKIArXIzx/arw8UI0X"
    "PWDlUD1MN4k9wcqhPcl2vj2uR+E9KhQIARAHQgRheGVzSgj//////////1ooCglpbnB1dF9pZHMSGwoZCAcSFQoHEgViYXRjaAoKEghz"
    "ZXF1ZW5jZVotCg5hdHRlbnRpb25fbWFzaxIbChkIBxIVCgcSBWJhdGNoCgoSCHNlcXVlbmNlWi0KDnRva2VuX3R5cGVfaWRzEhsKGQgH"
    "EhUKBxIFYmF0Y2gKChIIc2VxdWVuY2ViNAoRbGFzdF9oaWRkZW5fc3RhdGUSHwodCAESGQoHEgViYXRjaAoKEghzZXF1ZW5jZQoCCAhC"
    "BAoAEBE="
)
TINY_FREQ = np.array([0.01, 0.023, 0.037, 0.051, 0.067, 0.079, 0.093, 0.11], dtype=np.float32)

TEXTS_OF_MANY_LENGTHS = [
    "Budget.",
    "The quarterly budget review moved to the third week of March because the finance team was travelling.",
    "Alice joined the platform team.",
    "",
    " ".join(["The migration plan covers the storage layer, the queue and the two reporting jobs."] * 6),
    "Q3 planning",
]


@pytest.fixture(scope="module")
def minilm() -> OnnxEmbedder:
    return default_embedder()


@pytest.fixture()
def tiny_model_dir(tmp_path) -> Path:
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(TINY_MODEL)
    shutil.copyfile(packaged_model_dir() / "tokenizer.json", folder / "tokenizer.json")
    config = {"name": "tiny", "dimension": 8, "max_tokens": 16, "pooling": "mean", "normalize": True}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


# -- the packaged model folder ---------------------------------------------------------------


@pytest.mark.unit
def test_packaged_folder_is_complete_and_small():
    folder = packaged_model_dir()
    for name in ("model.onnx", "tokenizer.json", "config.json", "LICENSE", "NOTICE.md"):
        assert (folder / name).is_file(), name
    size = sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
    assert size <= 60 * 1024 * 1024
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert config["name"] == "all-MiniLM-L6-v2"
    assert (config["dimension"], config["max_tokens"], config["pooling"], config["normalize"]) == (384, 256, "mean", True)
    assert config["input_names"] == ["input_ids", "attention_mask", "token_type_ids"]
    assert "Apache License" in (folder / "LICENSE").read_text(encoding="utf-8")


def test_model_interface_matches_chroma_expectations(minilm):
    inputs = {i.name: i for i in minilm.session.get_inputs()}
    assert set(inputs) == {"input_ids", "attention_mask", "token_type_ids"}
    assert all(i.type == "tensor(int64)" and len(i.shape) == 2 for i in inputs.values())
    assert all(isinstance(d, str) for i in inputs.values() for d in i.shape)  # dynamic axes
    assert minilm.session.get_outputs()[0].name == "last_hidden_state"


# -- the real model ---------------------------------------------------------------------------


def test_shape_dtype_and_unit_norm(minilm):
    assert (minilm.name, minilm.dimension, minilm.max_tokens) == ("all-MiniLM-L6-v2", 384, 256)
    vectors = minilm.embed(TEXTS_OF_MANY_LENGTHS)
    assert vectors.shape == (len(TEXTS_OF_MANY_LENGTHS), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.isfinite(vectors).all()


@pytest.mark.unit
def test_empty_input_needs_no_model(tmp_path):
    embedder = OnnxEmbedder()
    out = embedder.embed([])
    assert out.shape == (0, 384) and out.dtype == np.float32
    assert embedder._session is None  # nothing loaded for nothing to do
    assert embedder.count_tokens([]) == []


def test_order_is_preserved_whatever_the_lengths(minilm):
    together = minilm.embed(TEXTS_OF_MANY_LENGTHS)
    alone = np.stack([minilm.embed([t])[0] for t in TEXTS_OF_MANY_LENGTHS])
    assert cosines(together, alone).min() > 0.9999
    reordered = minilm.embed(TEXTS_OF_MANY_LENGTHS[::-1])
    assert cosines(reordered[::-1], together).min() > 0.9999
    # and rows really differ from each other (not one vector repeated)
    assert (together @ together.T)[np.triu_indices(len(together), 1)].max() < 0.95


def test_similar_sentences_are_closer_than_unrelated(minilm):
    guitar, acoustic, market = minilm.embed(
        [
            "A man is playing a guitar.",
            "Someone is playing an acoustic guitar on stage.",
            "The stock market fell sharply on Tuesday.",
        ]
    )
    budget, spending, cat = minilm.embed(
        [
            "The finance team approved next year's budget.",
            "Next year's spending plan was signed off by finance.",
            "My cat sleeps on the windowsill all afternoon.",
        ]
    )
    assert guitar @ acoustic > 0.6 > guitar @ market
    assert guitar @ acoustic > guitar @ market + 0.4
    assert budget @ spending > budget @ cat + 0.4


def test_padded_batches_give_the_same_vectors_as_one_text_per_run(minilm):
    """The packaged model is statically quantised (fixed activation ranges), so a text's
    vector does not depend on the texts padded into its batch."""
    batched = OnnxEmbedder(batch_size=32).embed(TEXTS_OF_MANY_LENGTHS)
    alone = minilm.embed(TEXTS_OF_MANY_LENGTHS)
    assert minilm.batch_size == 1
    assert cosines(batched, alone).min() > 0.9999


def test_truncation_at_max_tokens(minilm):
    long_text = "word " * 300  # 302 tokens with [CLS]/[SEP]
    cut = "word " * 254  # 256 tokens: what the model reads of long_text
    assert minilm.count_tokens([long_text, cut]) == [302, 256]
    a, b = minilm.embed([long_text, cut])
    assert a @ b > 0.9999


@pytest.mark.unit
def test_count_tokens_known_values(minilm):
    # [CLS] hello , world ! [SEP] / [CLS] un ##bel ##ie ##va ##bly [SEP] / [CLS] [SEP]
    assert minilm.count_tokens(["Hello, world!", "unbelievably", ""]) == [6, 7, 2]
    assert minilm.count_tokens(["The quick brown fox jumps over the lazy dog."]) == [12]


@pytest.mark.unit
def test_embed_rejects_a_bare_string(minilm):
    with pytest.raises(TypeError):
        minilm.embed("not a list")
    with pytest.raises(TypeError):
        minilm.embed(["ok", 3])


def test_no_torch_at_run_time(minilm):
    minilm.embed(["anything"])
    assert "torch" not in sys.modules


# -- batching and pooling, exactly (tiny float model) ------------------------------------------


def test_padding_to_batch_max_equals_one_at_a_time(tiny_model_dir):
    texts = TEXTS_OF_MANY_LENGTHS + ["a b c d e f g h i j k l m n o p q r s t"]  # the last one is truncated
    batched = OnnxEmbedder(tiny_model_dir, batch_size=32)
    single = OnnxEmbedder(tiny_model_dir, batch_size=1)
    got = batched.embed(texts)
    alone = np.stack([single.embed([t])[0] for t in texts])
    assert got.shape == (len(texts), 8)
    assert cosines(got, alone).min() > 0.9999

    # and equal to mean pooling computed here from the (truncated) token ids
    for row, encoding in zip(got, batched.tokenizer.encode_batch(texts)):
        assert len(encoding.ids) <= 16
        expected = np.cos(np.array(encoding.ids, dtype=np.float32)[:, None] * TINY_FREQ).mean(axis=0)
        expected /= np.linalg.norm(expected)
        np.testing.assert_allclose(row, expected, atol=1e-5)


def test_small_batches_keep_input_order(tiny_model_dir):
    texts = [f"note {'x ' * n}" for n in (9, 1, 5, 0, 7, 3, 2)]
    got = OnnxEmbedder(tiny_model_dir, batch_size=2).embed(texts)
    alone = np.stack([OnnxEmbedder(tiny_model_dir).embed([t])[0] for t in texts])
    assert cosines(got, alone).min() > 0.9999


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.unit
def test_missing_folder_raises_model_error(tmp_path):
    with pytest.raises(ModelError) as info:
        OnnxEmbedder(tmp_path / "no-such-model")
    assert isinstance(info.value, PalaceError) and info.value.hint


@pytest.mark.unit
def test_missing_or_bad_config_raises_model_error(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    with pytest.raises(ModelError):
        OnnxEmbedder(folder)
    (folder / "config.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ModelError):
        OnnxEmbedder(folder)
    (folder / "config.json").write_text('{"name": "x"}', encoding="utf-8")
    with pytest.raises(ModelError):
        OnnxEmbedder(folder)


def test_corrupt_model_file_raises_model_error(tiny_model_dir):
    (tiny_model_dir / "model.onnx").write_bytes(b"this is not an onnx file")
    embedder = OnnxEmbedder(tiny_model_dir)
    with pytest.raises(ModelError) as info:
        embedder.embed(["hello"])
    assert "model.onnx" in str(info.value)


def test_missing_tokenizer_raises_model_error(tiny_model_dir):
    (tiny_model_dir / "tokenizer.json").unlink()
    with pytest.raises(ModelError):
        OnnxEmbedder(tiny_model_dir).embed(["hello"])
    with pytest.raises(ModelError):
        OnnxEmbedder(tiny_model_dir).count_tokens(["hello"])


@pytest.mark.unit
def test_bad_batch_size_is_rejected():
    with pytest.raises(ValueError):
        OnnxEmbedder(batch_size=0)


# -- FakeEmbedder -----------------------------------------------------------------------------


@pytest.mark.unit
def test_fake_embedder_is_deterministic_and_shaped():
    a, b = FakeEmbedder(), FakeEmbedder()
    texts = ["Alice leads the platform team", "alice LEADS the platform team!", "Quarterly budget", ""]
    va, vb = a.embed(texts), b.embed(texts)
    assert a.name == "fake" and a.dimension == 384 and va.shape == (4, 384) and va.dtype == np.float32
    np.testing.assert_array_equal(va, vb)
    np.testing.assert_allclose(np.linalg.norm(va, axis=1), 1.0, atol=1e-5)
    assert va[0] @ va[1] > 0.999  # same words, case and punctuation aside
    assert va[0] @ va[2] < 0.5
    assert FakeEmbedder().embed([]).shape == (0, 384)
    assert FakeEmbedder(dimension=16).embed(["x"]).shape == (1, 16)
    assert a.count_tokens(["two words", ""]) == [4, 2]


@pytest.mark.unit
def test_both_embedders_satisfy_the_protocol(minilm):
    assert isinstance(minilm, Embedder)
    assert isinstance(FakeEmbedder(), Embedder)
