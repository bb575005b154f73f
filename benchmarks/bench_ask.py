"""``ask`` latency: in a warm process and from a cold CLI process, against baselines.

    .venv/bin/python benchmarks/bench_ask.py [QUESTIONS.jsonl] [--palace DIR] [--corpus DIR] [--cold N]

The palace (default: the one ``eval_retrieval.py`` uses, mined from CORPUS when empty)
answers every question of QUESTIONS.jsonl (default: the Rust dev set):

1. in-process, warm (the model and Chroma opened by one question first): the full
   planner, and side by side the hybrid baseline (BM25 + vectors only) — p50, p95, mean;
2. cold CLI: ``palace ask QUESTION --json`` as a new process, N times (default 10, each a
   different question), against ``python -c pass`` and ``python -c "import palace.cli.main"``
   run the same way — p50, p95.

Goals (issue 4): in-process p50 ≤ 50 ms; cold CLI p50 ≤ 1.5 s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_retrieval import DEFAULT_CORPUS, DEFAULT_QUESTIONS, ensure_palace, load_questions  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def summary(name: str, values: list[float], unit: str = "ms") -> str:
    digits = 1 if unit == "ms" else 2
    return (f"{name:<34} p50 {percentile(values, 0.5):8.{digits}f} {unit}   p95 {percentile(values, 0.95):8.{digits}f} {unit}"
            f"   mean {statistics.mean(values):8.{digits}f} {unit}   n {len(values)}")


def warm(palace, questions: list[dict]) -> dict[str, list[float]]:
    palace.ask(questions[0]["question"])  # opens the model and Chroma
    times: dict[str, list[float]] = {"planner": [], "hybrid": []}
    for item in questions:
        now = dt.date.fromisoformat(item["now"]) if item.get("now") else None
        for name, only in (("planner", None), ("hybrid", ("bm25", "vector"))):
            started = time.perf_counter()
            palace.ask(item["question"], now=now, retrievers_only=only)
            times[name].append((time.perf_counter() - started) * 1000)
    return times


def cold(palace_dir: Path, questions: list[dict], runs: int) -> dict[str, list[float]]:
    exe = Path(sys.executable)
    cli = exe.parent / "palace"
    commands = {
        "python -c pass": lambda q: [str(exe), "-c", "pass"],
        "python -c 'import palace.cli.main'": lambda q: [str(exe), "-c", "import palace.cli.main"],
        "palace ask QUESTION --json": lambda q: [str(cli), "ask", q["question"], "--palace", str(palace_dir),
                                                 "--now", q.get("now") or "2026-08-19", "--json"],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    for i in range(runs):
        item = questions[i % len(questions)]
        for name, make in commands.items():  # interleaved, so drift hits all three alike
            started = time.perf_counter()
            subprocess.run(make(item), check=True, capture_output=True)
            times[name].append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", nargs="?", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--palace", type=Path, default=Path(tempfile.gettempdir()) / "palace-eval-rust")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--cold", type=int, default=10, help="cold CLI runs (0: skip)")
    args = parser.parse_args()

    questions = load_questions(args.questions)
    palace = ensure_palace(args.palace, args.corpus)
    drawers = palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0]
    print(f"palace {args.palace}: {drawers} drawers; {len(questions)} questions\n")
    try:
        times = warm(palace, questions)
    finally:
        palace.close()
    print("in-process, warm")
    for name, values in times.items():
        print("  " + summary(name, values))
    ratio = statistics.median(times["planner"]) / statistics.median(times["hybrid"])
    print(f"  planner / hybrid p50: {ratio:.2f}×   goal: planner p50 ≤ 50 ms\n")
    if args.cold:
        print("cold process")
        for name, values in cold(args.palace, questions, args.cold).items():
            print("  " + summary(name, values, "s"))
        print("  goal: palace ask p50 ≤ 1.5 s")


if __name__ == "__main__":
    main()
