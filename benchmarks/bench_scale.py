"""Does palace's cost grow with the notes, or faster? Mining and a one-note edit at 1×,
4× and 16× a corpus.

    .venv/bin/python benchmarks/bench_scale.py [CORPUS] [--notes N] [--sizes 1,4,16] [--json]

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
  lower-case names and entity resolution, :func:`palace.mining.finish_resolution`).

Goals (issue 13): words/s at 16× within 15 % of 1×; peak RSS flat (≤ 1.5 GB); a one-note
edit at 16× in about the time of the same edit at 1×. Figures print beside the 1× run of
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
from palace import mining

root, palace_dir, edit = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
with Palace.open(palace_dir) as palace:
    started = time.perf_counter()
    report = palace.mine(root, wing="scale")
    mine_s = time.perf_counter() - started
    spent = {"resolution": 0.0}
    original = mining.finish_resolution

    def timed(*args, **kwargs):
        t = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent["resolution"] += time.perf_counter() - t

    mining.finish_resolution = timed
    note = root / edit
    note.write_text(note.read_text(encoding="utf-8") + "\n\nMarisol Ferreira joined the release team.\n",
                    encoding="utf-8")
    started = time.perf_counter()
    palace.mine(root, wing="scale", paths=[edit], verify=True)
    edit_s = time.perf_counter() - started
    drawers = palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0]
    entities = palace.conn.execute("SELECT count(*) FROM entities").fetchone()[0]
print(json.dumps({"notes": report.indexed, "words": report.words, "mine_s": mine_s, "edit_s": edit_s,
                  "edit_resolution_s": spent["resolution"], "drawers": drawers, "entities": entities,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
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
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    notes = sorted(p for p in args.corpus.rglob("*.md") if p.is_file())
    notes = notes[:args.notes] if args.notes else notes
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="palace-scale-") as tmp:
        for size in sizes:
            root = Path(tmp) / f"notes-{size}x"
            edit = build(args.corpus, notes, size, root)
            load = os.getloadavg()
            done = subprocess.run([sys.executable, "-c", CHILD, str(root), str(Path(tmp) / f"palace-{size}x"), edit],
                                  capture_output=True, text=True, check=True)
            row = {"size": size, "load": round(load[0], 2), **json.loads(done.stdout.strip().splitlines()[-1])}
            row["words_per_s"] = row["words"] / row["mine_s"]
            rows.append(row)
            shutil.rmtree(root)
            if not args.json:
                print(f"{size:>3}×  {row['notes']:>5} notes  {row['words']:>9,} words  mine {row['mine_s']:7.1f} s"
                      f"  {row['words_per_s']:7,.0f} words/s  peak {row['peak_rss_mb']:6.0f} MB  "
                      f"edit {row['edit_s']:5.2f} s (resolution {row['edit_resolution_s']:5.2f} s)  "
                      f"{row['drawers']:,} drawers  {row['entities']:,} entities  load {row['load']}", flush=True)
    base = rows[0]
    summary = [{"size": r["size"], "words_per_s_vs_1x": r["words_per_s"] / base["words_per_s"],
                "edit_vs_1x": r["edit_s"] / base["edit_s"], "peak_rss_mb": r["peak_rss_mb"]} for r in rows]
    if args.json:
        print(json.dumps({"rows": rows, "summary": summary}, indent=2))
        return
    print("\nagainst the first size of this run:")
    for s in summary:
        print(f"{s['size']:>3}×  words/s {s['words_per_s_vs_1x']:5.2f}×  one-note edit {s['edit_vs_1x']:5.2f}×"
              f"  peak RSS {s['peak_rss_mb']:.0f} MB")
    print("goals: words/s at 16× ≥ 0.85× of 1×; peak RSS ≤ 1.5 GB; edit at 16× ≈ 1×")


if __name__ == "__main__":
    main()
