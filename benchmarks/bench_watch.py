"""``palace watch``: save → searchable latency, idle CPU, and memory over many rewrites.

    .venv/bin/python benchmarks/bench_watch.py [CORPUS] [--edits N] [--rewrites N] [--baseline N]

CORPUS (default ../shared/corpora/rust-governance-minutes) is copied to a temporary
folder (never edited in place) and mined into a temporary palace; then a watcher runs as
its own process (``palace watch``, as a user runs it) and:

1. **latency**: N edits (default 20) each append a line with a fresh token to one note
   (a different note each time); the clock runs from the write until the token is found
   by BM25 through another connection ("searchable"), and until the note's drawers carry
   their vectors ("embedded"). Each edit waits for the watcher to be idle first. Side by
   side, the baseline a user without a watcher has: ``palace mine CORPUS`` as a new
   process after the same kind of edit (``--baseline`` runs, default 3).
2. **idle CPU**: the watcher's CPU time over 30 s with nothing changing, in percent of
   one core (from ``/proc/PID/stat``).
3. **memory**: a second watcher on a folder of one note, rewritten ``--rewrites`` times
   (default 600) with fresh random tokens, each rewrite waited for; the watcher's RSS
   after the first 20 rewrites and after the last.

Goals (issue 5): p95 ≤ 2 s, idle CPU ≈ 0, RSS growth < 100 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "rust-governance-minutes"
CLI = [sys.executable, "-c", "from palace.cli.main import run; run()"]
TICK = os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def token() -> str:
    return "zq" + "".join(random.choices(string.ascii_lowercase, k=10))


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def state(palace: Path) -> dict:
    try:
        return json.loads((palace / "watch.json").read_text())
    except (OSError, ValueError):
        return {}


def start_watcher(root: Path, palace: Path, debounce: float) -> subprocess.Popen:
    log = open(palace / "bench-watch.log", "ab")
    child = subprocess.Popen([*CLI, "watch", str(root), "--palace", str(palace), "--debounce", str(debounce)],
                             stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 900
    while not state(palace).get("ready"):
        if child.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the watcher did not start; see {palace / 'bench-watch.log'}")
        time.sleep(0.2)
    return child


def wait_idle(palace: Path, updates_before: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        s = state(palace)
        if s.get("updates", 0) > updates_before and not s.get("mining") and s.get("queue") == 0:
            return
        time.sleep(0.02)
    raise SystemExit("the watcher did not finish an update in time")


def searchable(conn: sqlite3.Connection, word: str) -> bool:
    return conn.execute("SELECT 1 FROM drawers_fts WHERE drawers_fts MATCH ? LIMIT 1", (f'"{word}"',)).fetchone() is not None


def embedded(conn: sqlite3.Connection, word: str) -> bool:
    row = conn.execute(
        "SELECT min(d.embedded) FROM drawers_fts JOIN drawers d ON d.rowid = drawers_fts.rowid WHERE drawers_fts MATCH ?",
        (f'"{word}"',),
    ).fetchone()
    return bool(row and row[0])


def latency(root: Path, palace: Path, edits: int) -> tuple[list[float], list[float]]:
    notes = sorted(p for p in root.rglob("*.md") if "minutes" in p.parts)[:edits]
    conn = sqlite3.connect(palace / "palace.db")
    conn.execute("PRAGMA busy_timeout = 5000")
    found, vectors = [], []
    for note in notes:
        before = state(palace).get("updates", 0)
        word = token()
        started = time.perf_counter()
        with note.open("a", encoding="utf-8") as out:
            out.write(f"\nAction item: follow up on {word}.\n")
        while not searchable(conn, word):
            time.sleep(0.005)
        found.append(time.perf_counter() - started)
        while not embedded(conn, word):
            time.sleep(0.005)
        vectors.append(time.perf_counter() - started)
        wait_idle(palace, before)
    conn.close()
    return found, vectors


def baseline(root: Path, palace: Path, runs: int) -> list[float]:
    notes = sorted(p for p in root.rglob("*.md") if "minutes" in p.parts)[-runs:]
    times = []
    for note in notes:
        with note.open("a", encoding="utf-8") as out:
            out.write(f"\nAction item: follow up on {token()}.\n")
        started = time.perf_counter()
        subprocess.run([*CLI, "mine", str(root), "--palace", str(palace), "--json"], check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return times


def memory(work: Path, rewrites: int) -> tuple[float, float]:
    root, palace = work / "one-note", work / "one-note-palace"
    root.mkdir()
    palace.mkdir()
    note = root / "scratch.md"
    note.write_text("# Scratch\n\nNothing yet.\n")
    child = start_watcher(root, palace, debounce=0.05)
    conn = sqlite3.connect(palace / "palace.db")
    early = 0.0
    try:
        for i in range(rewrites):
            before = state(palace).get("updates", 0)
            words = [token() for _ in range(60)]
            people = [f"{w[2:].capitalize()} {token()[2:].capitalize()}" for w in words[:10]]
            note.write_text(f"# Scratch {i}\n\n" + " ".join(words) + "\n\nMet " + ", ".join(people) + ".\n")
            wait_idle(palace, before)
            if i == 19:
                early = rss_mb(child.pid)
        late = rss_mb(child.pid)
    finally:
        conn.close()
        child.terminate()
        child.wait(60)
    return early, late


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--rewrites", type=int, default=600)
    parser.add_argument("--baseline", type=int, default=3)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="palace-bench-watch-"))
    try:
        root, palace = work / "notes", work / "palace"
        shutil.copytree(args.corpus, root)
        print(f"mining a copy of {args.corpus} …", file=sys.stderr)
        subprocess.run([*CLI, "mine", str(root), "--palace", str(palace), "--json"], check=True, capture_output=True)
        child = start_watcher(root, palace, debounce=0.5)
        try:
            found, vectors = latency(root, palace, args.edits)
            time.sleep(5)
            cpu0, t0 = cpu_seconds(child.pid), time.monotonic()
            time.sleep(30)
            idle = 100 * (cpu_seconds(child.pid) - cpu0) / (time.monotonic() - t0)
            watcher_rss = rss_mb(child.pid)
        finally:
            child.terminate()
            child.wait(60)
        cold = baseline(root, palace, args.baseline) if args.baseline else []
        early, late = memory(work, args.rewrites) if args.rewrites else (0.0, 0.0)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"save → searchable (BM25), {len(found)} one-note edits, debounce 0.5 s:"
          f" p50 {percentile(found, 0.5):.2f} s, p95 {percentile(found, 0.95):.2f} s, max {max(found):.2f} s")
    print(f"save → embedded (vectors too): p50 {percentile(vectors, 0.5):.2f} s, p95 {percentile(vectors, 0.95):.2f} s")
    if cold:
        print(f"baseline, `palace mine` as a new process after one edit: p50 {statistics.median(cold):.2f} s"
              f"  → watcher p50 is {statistics.median(cold) / percentile(found, 0.5):.1f}× sooner")
    print(f"idle CPU over 30 s: {idle:.2f} % of one core; watcher RSS {watcher_rss:.0f} MB")
    if args.rewrites:
        print(f"RSS over {args.rewrites} rewrites of a note of fresh tokens: {early:.0f} MB after 20,"
              f" {late:.0f} MB after {args.rewrites} (growth {late - early:+.0f} MB)")
    print("goals: p95 ≤ 2 s, idle CPU ≈ 0, RSS growth < 100 MB")


if __name__ == "__main__":
    main()
