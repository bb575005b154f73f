"""Mining benchmark: palace's whole mine against two baselines, side by side, one process.

    .venv/bin/python benchmarks/bench_mine.py [CORPUS] [--limit-files N]

CORPUS defaults to ../shared/corpora/rust-governance-minutes. Prints, for the same drawers:

1. palace's whole mine into a fresh temporary palace (read, chunk, NER, dates, graph,
   SQLite, embeddings, Chroma): seconds, words/s and the process's peak RSS after it;
2. an embedding-only baseline: Chroma's own ``ONNXMiniLM_L6_V2`` embedding function
   pointed at palace's packaged model files (it pads every text to 256 tokens);
3. bare spaCy: ``nlp.pipe`` of the components every drawer goes through (senter + ner) over the drawers' text.

Then the ratios the issue sets as goals: baseline / palace (goal ≥ 3) and
palace / spaCy (goal ≤ 2). Palace runs first, so its peak RSS is its own.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "rust-governance-minutes"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit-files", type=int, default=0, help="mine only the first N notes (0: all)")
    parser.add_argument("--no-embed-baseline", action="store_true",
                        help="skip the embedding-only baseline (the spaCy ratio alone)")
    args = parser.parse_args()
    print(f"cpu: {cpu_description()}", flush=True)

    from palace.core import Palace
    from palace.mine.indexing import embed_input

    work = Path(tempfile.mkdtemp(prefix="palace-bench-"))
    corpus = args.corpus.resolve()
    if args.limit_files:
        subset = work / "corpus"
        notes = sorted(p for p in corpus.rglob("*.md"))[: args.limit_files]
        for note in notes:
            target = subset / note.relative_to(corpus)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(note, target)
        corpus = subset

    started = time.perf_counter()
    with Palace.open(work / "palace") as palace:
        report = palace.mine(corpus)
        mine_s = time.perf_counter() - started
        rss = peak_rss_mb()
        rows = palace.conn.execute(
            "SELECT d.text, d.heading_path, f.title FROM drawers d JOIN files f ON f.id = d.file_id ORDER BY d.rowid"
        ).fetchall()
    import json

    drawer_texts = [r["text"] for r in rows]
    embed_texts = [embed_input(r["title"] or "", tuple(json.loads(r["heading_path"])), r["text"]) for r in rows]
    words = sum(len(t.split()) for t in drawer_texts)
    print(f"corpus: {args.corpus}  files indexed: {report.indexed}  failed: {report.failed}  "
          f"drawers: {len(rows)}  words in drawers: {words:,}")
    print(f"palace mine: {mine_s:.1f} s, peak RSS {rss:,.0f} MB", flush=True)

    baseline_s = None if args.no_embed_baseline else chroma_baseline(embed_texts)
    spacy_s = bare_spacy(drawer_texts)

    print()
    print(f"{'run':<44}{'seconds':>10}{'words/s':>12}")
    print(f"{'palace mine (NER + dates + graph + vectors)':<44}{mine_s:>10.1f}{words / mine_s:>12,.0f}"
          f"   peak RSS {rss:,.0f} MB")
    if baseline_s is not None:
        print(f"{'baseline: Chroma ONNXMiniLM_L6_V2 embed only':<44}{baseline_s:>10.1f}{words / baseline_s:>12,.0f}")
    print(f"{'bare spaCy nlp.pipe (senter + ner) ':<44}{spacy_s:>10.1f}{words / spacy_s:>12,.0f}")
    print()
    if baseline_s is not None:
        print(f"baseline / palace = {baseline_s / mine_s:.2f}x   (goal >= 3)")
    print(f"palace / spaCy    = {mine_s / spacy_s:.2f}x   (goal <= 2)")
    shutil.rmtree(work, ignore_errors=True)


def cpu_description() -> str:
    """The CPU model and the vector instruction sets that decide the int8 model's speed
    (AVX2, AVX-512, VNNI, AMX), from ``/proc/cpuinfo`` (Linux); ``unknown`` elsewhere."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown"
    model = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("model name")), "?")
    flags = set(next((line.split(":", 1)[1].split() for line in info.splitlines() if line.startswith("flags")), []))
    wanted = ["avx2", "avx512f", "avx512_vnni", "avx_vnni", "amx_tile", "amx_int8"]
    return f"{model}; {' '.join(f for f in wanted if f in flags) or 'no AVX2'}"


def chroma_baseline(texts: list[str]) -> float:
    """Embed ``texts`` with Chroma's ONNXMiniLM_L6_V2 reading palace's model files."""
    sys.path.insert(0, str(Path(__file__).parent))
    from embedding_fidelity import chroma_embedder

    from palace.store.embedding import packaged_model_dir

    function = chroma_embedder(packaged_model_dir(), Path(tempfile.mkdtemp(prefix="chroma-onnx-")))
    function(texts[:8])  # load the session outside the timing, as palace's is
    started = time.perf_counter()
    function(texts)
    return time.perf_counter() - started


def bare_spacy(texts: list[str]) -> float:
    """Run the components every drawer goes through (``senter`` + ``ner``, not the
    parse palace runs on the sentences that may hold a relation) with ``nlp.pipe``."""
    from palace.nlp.pipeline import PARSE, load_pipeline

    nlp = load_pipeline()
    started = time.perf_counter()
    off = [name for name in (*PARSE, "palace_values") if name in nlp.pipe_names]  # senter + ner alone
    for _ in nlp.pipe(texts, batch_size=128, disable=off):
        pass
    return time.perf_counter() - started


if __name__ == "__main__":
    sys.exit(main())
