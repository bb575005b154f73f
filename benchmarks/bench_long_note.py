"""Is a long note mined at corpus speed? One note made of many, against the same text as
separate notes.

    .venv/bin/python benchmarks/bench_long_note.py [CORPUS] [--notes 40,160] [--profile]

For each N of ``--notes``, the first N notes of CORPUS (default
../shared/corpora/rust-governance-minutes) are written twice: as N separate notes, and
concatenated into one note (each note's text under a ``# <its file name>`` heading, in
file order). Each folder is mined into a fresh palace by a child process; the script
prints seconds, words/s, peak RSS and drawers of both, and the ratio long/separate of the
words/s. ``--profile`` prints the top of a cProfile of the long note's mine (the largest
N).

Goal (issue 13): a long note at corpus speed — the ratio near 1 at every N, not falling
as N grows.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "rust-governance-minutes"

CHILD = r"""
import cProfile, io, json, pstats, resource, sys, time
from pathlib import Path
from palace.core import Palace

root, palace_dir, profile = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "1"
with Palace.open(palace_dir) as palace:
    palace.embedder.embed(["warm"])  # the model's load is not the note's cost
    profiler = cProfile.Profile() if profile else None
    started = time.perf_counter()
    if profiler:
        profiler.enable()
    report = palace.mine(root, wing="long")
    if profiler:
        profiler.disable()
    elapsed = time.perf_counter() - started
    drawers = palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0]
top = ""
if profiler:
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(35)
    top = out.getvalue()
print(json.dumps({"s": elapsed, "words": report.words, "drawers": drawers, "indexed": report.indexed,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "profile": top}))
"""


def mine(folder: Path, palace_dir: Path, profile: bool = False) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(folder), str(palace_dir), "1" if profile else "0"],
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"mining {folder} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--notes", default="40,160", help="sizes N, comma-separated")
    parser.add_argument("--profile", action="store_true", help="profile the long note of the largest N")
    args = parser.parse_args()
    files = sorted(p for p in args.corpus.rglob("*.md") if p.is_file())
    sizes = [int(n) for n in args.notes.split(",")]
    print(f"load {os.getloadavg()[0]:.2f} (1-minute average) at start")
    with tempfile.TemporaryDirectory(prefix="palace-long-") as tmp:
        for n in sizes:
            texts = [(p.name, p.read_text(encoding="utf-8", errors="replace")) for p in files[:n]]
            separate, single = Path(tmp) / f"separate-{n}", Path(tmp) / f"single-{n}"
            separate.mkdir()
            single.mkdir()
            for name, text in texts:
                (separate / name).write_text(text, encoding="utf-8")
            (single / "all-in-one.md").write_text("\n\n".join(f"# {name}\n\n{text}" for name, text in texts),
                                                  encoding="utf-8")
            a = mine(separate, Path(tmp) / f"p-separate-{n}")
            b = mine(single, Path(tmp) / f"p-single-{n}", profile=args.profile and n == max(sizes))
            size_kb = (single / "all-in-one.md").stat().st_size / 1024
            for label, row in ((f"{n} notes", a), (f"1 note of {size_kb:,.0f} KB", b)):
                print(f"{label:<24} {row['s']:7.1f} s  {row['words'] / row['s']:7,.0f} words/s  peak"
                      f" {row['peak_rss_mb']:5.0f} MB  {row['drawers']:,} drawers")
            print(f"  long / separate words/s: {(b['words'] / b['s']) / (a['words'] / a['s']):.2f}×"
                  f"   load {os.getloadavg()[0]:.2f}\n", flush=True)
            if b["profile"]:
                print(b["profile"])


if __name__ == "__main__":
    main()
