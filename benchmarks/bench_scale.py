"""Does palace's cost grow with the notes, or faster? Mining and a one-note edit at 1×,
4× and 16× a corpus.

    .venv/bin/python benchmarks/bench_scale.py [CORPUS] [--notes N] [--sizes 1,4,16] [--keep DIR] [--json]
    .venv/bin/python benchmarks/bench_scale.py --reads DIR   # the reads again, on a kept palace

CORPUS (default ../shared/corpora/rust-governance-minutes) gives the first ``--notes``
notes (default: all). Size k× is k copies of them, each in its own folder of one wing,
copy c > 0 with its capitalised words varied (``Alice`` → ``Alicec``: other people, other
projects, so the graph grows with the copies instead of folding them into one set of
names; months, weekdays and sentence-initial function words are kept). Each size is
mined into a fresh palace by a child process (``palace mine``, as a user runs it), which
reports:

- **mine**: seconds, words/s and peak RSS (``ru_maxrss`` of the child);
- **edit**: one note of the first copy gets a sentence appended and is mined again with
  ``paths=[that note]`` (the watcher's step), in a warm process (the pipeline already
  loaded): total seconds, and the part spent in the wing's end-of-run work (linking
  lower-case names and entity resolution: the run's resolve stage, :meth:`palace.mine.run.MineRun.resolve`);
- **reads**, in the same warm process, once it holds the vectors in memory as a warm
  server does (``palace serve``, ``palace watch``, ``palace mcp``): ``ask`` p50/p95 over ``--questions`` (default the
  Rust dev set: they ask about the first copy's names), ``status``, ``facts`` (current,
  the first 100) and ``facts --about`` p50, and the palace's size on disk per drawer.

``--sizes 1,2,14`` on the Rust minutes gives about 7,600, 15,000 and 107,000 drawers:
the 10k → 100k growth of the reads.

Goals (issue 13): words/s at 16× within 15 % of 1×; peak RSS flat (≤ 1.5 GB); a one-note
edit at 16× in about the time of the same edit at 1×; warm ``ask`` p50 ≤ 100 ms at
≥ 100,000 drawers. Figures print beside the 1× run of
the same invocation, with the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ask import percentile  # noqa: E402  (one definition for every benchmark)
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "rust-governance-minutes"
KEEP = {
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
    "November", "December", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    "The", "This", "That", "These", "Those", "We", "Our", "It", "In", "On", "At", "For", "And", "But", "If",
    "When", "What", "Who", "How", "Why", "Where", "There", "They", "He", "She", "You", "Action", "Decision",
    "Notes", "Meeting", "Attendees", "Agenda", "Summary", "Yes", "No", "Q1", "Q2", "Q3", "Q4",
}
CAPITALISED = re.compile(r"\b[A-Z][a-z]{2,}\b")

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from palace.core import Palace
from palace.mine import run as mining

root, palace_dir, edit = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
reads_only = len(sys.argv) > 5 and sys.argv[5] == "reads"
with Palace.open(palace_dir) as palace:
    spent = {"resolution": 0.0}
    mine_s = edit_s = 0.0
    indexed = words = 0
    if not reads_only:
        started = time.perf_counter()
        report = palace.mine(root, wing="scale")
        mine_s = time.perf_counter() - started
        indexed, words = report.indexed, report.words
        note = root / edit
        note.write_text(note.read_text(encoding="utf-8") + "\n\nMarisol Ferreira joined the release team.\n",
                        encoding="utf-8")
        if hasattr(mining, "MineRun"):  # the resolve stage, timed by a run of its own
            from palace.mine.options import MineOptions

            class Timed(mining.MineRun):
                def resolve(self):
                    t = time.perf_counter()
                    try:
                        return super().resolve()
                    finally:
                        spent["resolution"] += time.perf_counter() - t

            started = time.perf_counter()
            Timed(palace.store, palace.config, palace.registry, MineOptions(verify=True)).mine(
                root, wing="scale", paths=[edit])
        else:  # older code (before MineRun): time its module function
            original = mining.finish_resolution

            def timed(*args, **kwargs):
                t = time.perf_counter()
                try:
                    return original(*args, **kwargs)
                finally:
                    spent["resolution"] += time.perf_counter() - t

            mining.finish_resolution = timed
            started = time.perf_counter()
            palace.mine(root, wing="scale", paths=[edit], verify=True)
        edit_s = time.perf_counter() - started
    drawers = palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0]
    entities = palace.conn.execute("SELECT count(*) FROM entities").fetchone()[0]
    facts = palace.conn.execute("SELECT count(*) FROM facts").fetchone()[0]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    questions = [json.loads(line) for line in Path(sys.argv[4]).read_text().splitlines() if line.strip()]
    import datetime as dt

    def timed_ms(call):
        t = time.perf_counter()
        call()
        return (time.perf_counter() - t) * 1000

    palace.ask(questions[0]["question"])  # warm: the model, the index, the query path
    getattr(palace.vectors, "preload", lambda: 0)()  # and the vectors in memory, as a warm server holds them
    ask_ms = [timed_ms(lambda: palace.ask(q["question"], now=dt.date.fromisoformat(q["now"]) if q.get("now") else None))
              for q in questions]
    status_ms = [timed_ms(palace.status) for _ in range(5)]
    facts_ms = [timed_ms(lambda: palace.facts()) for _ in range(5)]
    about_ms = [timed_ms(lambda: palace.facts(about=q)) for q in ("Rust", "Niko", "Josh")]
disk = sum(p.stat().st_size for p in palace_dir.rglob("*") if p.is_file())
print(json.dumps({"notes": indexed, "words": words, "mine_s": mine_s, "edit_s": edit_s,
                  "edit_resolution_s": spent["resolution"], "drawers": drawers, "entities": entities,
                  "facts": facts, "peak_rss_mb": peak, "ask_ms": ask_ms, "status_ms": status_ms,
                  "facts_ms": facts_ms, "facts_about_ms": about_ms, "disk_bytes": disk}))
"""


def vary(text: str, copy: int) -> str:
    """Copy ``copy``'s text: capitalised words (not in :data:`KEEP`) get a suffix letter."""
    if copy == 0:
        return text
    suffix = "abcdefghijklmnopqrstuvwxyz"[(copy - 1) % 26] * (1 + (copy - 1) // 26)
    return CAPITALISED.sub(lambda m: m.group(0) if m.group(0) in KEEP else m.group(0) + suffix, text)


def build(corpus: Path, notes: list[Path], copies: int, into: Path) -> str:
    """Write ``copies`` copies of ``notes`` under ``into``; return the path (relative to
    ``into``) of the note the edit will touch."""
    for copy in range(copies):
        for note in notes:
            target = into / f"copy{copy:02d}" / note.relative_to(corpus)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(vary(note.read_text(encoding="utf-8", errors="replace"), copy), encoding="utf-8")
    return (Path("copy00") / notes[len(notes) // 2].relative_to(corpus)).as_posix()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--notes", type=int, default=0, help="first N notes of the corpus (0: all)")
    parser.add_argument("--sizes", default="1,4,16", help="copies per size, comma-separated")
    parser.add_argument("--questions", type=Path, default=REPO / "benchmarks" / "rust_dev_questions.jsonl",
                        help="questions for the warm ask timings (JSON lines with question, now)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep the notes and palace of the largest size in this folder (to time reads again)")
    parser.add_argument("--reads", type=Path, default=None,
                        help="only time the warm reads on a palace kept by --keep in this folder (no mining)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.reads is not None:
        load = os.getloadavg()[0]
        done = subprocess.run([sys.executable, "-c", CHILD, str(args.reads / "notes"), str(args.reads / "palace"), "",
                               str(args.questions), "reads"], capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"reads failed:\n{done.stderr[-3000:]}")
        row = json.loads(done.stdout.strip().splitlines()[-1])
        ask = sorted(row["ask_ms"])
        print(f"{row['drawers']:,} drawers  warm ask p50 {percentile(ask, 0.5):6.1f} ms  p95 {percentile(ask, 0.95):6.1f}"
              f" ms   status p50 {percentile(sorted(row['status_ms']), 0.5):6.1f} ms   facts p50"
              f" {percentile(sorted(row['facts_ms']), 0.5):6.1f} ms   load {load:.2f} → {os.getloadavg()[0]:.2f}")
        return
    notes = sorted(p for p in args.corpus.rglob("*.md") if p.is_file())
    notes = notes[:args.notes] if args.notes else notes
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="palace-scale-") as tmp:
        for size in sizes:
            root = Path(tmp) / f"notes-{size}x"
            edit = build(args.corpus, notes, size, root)
            load = os.getloadavg()
            done = subprocess.run([sys.executable, "-c", CHILD, str(root), str(Path(tmp) / f"palace-{size}x"), edit,
                                   str(args.questions)], capture_output=True, text=True)
            if done.returncode:
                raise SystemExit(f"size {size}× failed:\n{done.stderr[-3000:]}")
            row = {"size": size, "load": round(load[0], 2), **json.loads(done.stdout.strip().splitlines()[-1])}
            row["load_after"] = round(os.getloadavg()[0], 2)
            row["words_per_s"] = row["words"] / row["mine_s"]
            for key in ("ask_ms", "status_ms", "facts_ms", "facts_about_ms"):
                values = sorted(row.pop(key))
                row[key.replace("_ms", "_p50_ms")] = percentile(values, 0.5)
                row[key.replace("_ms", "_p95_ms")] = percentile(values, 0.95)
            row["disk_bytes_per_drawer"] = row["disk_bytes"] / max(1, row["drawers"])
            rows.append(row)
            if args.keep is not None and size == max(sizes):
                args.keep.mkdir(parents=True, exist_ok=True)
                shutil.move(str(Path(tmp) / f"palace-{size}x"), str(args.keep / "palace"))
                shutil.move(str(root), str(args.keep / "notes"))
            else:
                shutil.rmtree(Path(tmp) / f"palace-{size}x")
                shutil.rmtree(root)
            if not args.json:
                print(f"{size:>3}×  {row['notes']:>5} notes  {row['words']:>9,} words  mine {row['mine_s']:7.1f} s"
                      f"  {row['words_per_s']:7,.0f} words/s  peak {row['peak_rss_mb']:6.0f} MB  "
                      f"edit {row['edit_s']:5.2f} s (resolution {row['edit_resolution_s']:5.2f} s)  "
                      f"{row['drawers']:,} drawers  {row['entities']:,} entities  load {row['load']}", flush=True)
                print(f"      warm ask p50 {row['ask_p50_ms']:6.1f} ms  p95 {row['ask_p95_ms']:6.1f} ms   status p50"
                      f" {row['status_p50_ms']:7.1f} ms   facts p50 {row['facts_p50_ms']:6.1f} ms   facts --about"
                      f" p50 {row['facts_about_p50_ms']:6.1f} ms   disk {row['disk_bytes_per_drawer'] / 1024:5.1f} KB"
                      f"/drawer ({row['disk_bytes'] / 2**20:,.0f} MB)  {row['facts']:,} facts  load after"
                      f" {row['load_after']}", flush=True)
    base = rows[0]
    summary = [{"size": r["size"], "drawers": r["drawers"], "words_per_s_vs_1x": r["words_per_s"] / base["words_per_s"],
                "edit_vs_1x": r["edit_s"] / base["edit_s"], "peak_rss_mb": r["peak_rss_mb"],
                "ask_p50_vs_1x": r["ask_p50_ms"] / base["ask_p50_ms"],
                "status_vs_1x": r["status_p50_ms"] / base["status_p50_ms"],
                "facts_vs_1x": r["facts_p50_ms"] / base["facts_p50_ms"],
                "disk_per_drawer_vs_1x": r["disk_bytes_per_drawer"] / base["disk_bytes_per_drawer"]} for r in rows]
    if args.json:
        print(json.dumps({"rows": rows, "summary": summary}, indent=2))
        return
    print("\nagainst the first size of this run:")
    for s in summary:
        print(f"{s['size']:>3}× ({s['drawers']:,} drawers)  words/s {s['words_per_s_vs_1x']:5.2f}×  one-note edit"
              f" {s['edit_vs_1x']:5.2f}×  peak RSS {s['peak_rss_mb']:.0f} MB  warm ask p50 {s['ask_p50_vs_1x']:5.2f}×"
              f"  status {s['status_vs_1x']:5.2f}×  facts {s['facts_vs_1x']:5.2f}×  disk/drawer"
              f" {s['disk_per_drawer_vs_1x']:5.2f}×")
    print("goals: words/s at 16× ≥ 0.85× of 1×; peak RSS ≤ 1.5 GB; edit at 16× ≈ 1×; warm ask p50 ≤ 100 ms at"
          " ≥ 100,000 drawers")


if __name__ == "__main__":
    main()
