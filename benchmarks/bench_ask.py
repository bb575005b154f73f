"""``ask`` latency: in a warm process and from a cold CLI process, against baselines.

    .venv/bin/python benchmarks/bench_ask.py [QUESTIONS.jsonl] [--palace DIR] [--corpus DIR] [--cold N]

The palace (default: the one ``eval_retrieval.py`` uses, mined from CORPUS when empty)
answers every question of QUESTIONS.jsonl (default: the Rust dev set):

1. in-process, warm (the model and Chroma opened by one question first): the full
   planner, and side by side the hybrid baseline (BM25 + vectors only) — p50, p95, mean;
2. cold CLI: ``palace ask QUESTION --json`` as a new process, N times (default 10, each a
   different question), with no server and answered by a ``palace serve`` started
   beside it, against ``python -c pass`` and ``python -c "import palace.cli.main"`` run
   the same way — p50, p95 from process start to exit;
3. the parts of a cold ask with no server: imports, opening the palace, loading the
   model, opening the vector index, the first and a second question.

Goals: in-process p50 ≤ 50 ms (issue 4); served cold ask p50 ≤ 150 ms, with no server
≤ 1.5 s (issue 13).
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


PARTS = """
import time, sys
t0 = time.perf_counter(); marks = []
def mark(name): marks.append((name, time.perf_counter()))
import palace.cli.main; mark("import palace.cli.main")
import chromadb; mark("import chromadb")
from palace.core import Palace
palace = Palace.open(sys.argv[1], create=False); mark("open the palace (SQLite, Chroma client)")
palace.embedder.embed(["warm"]); mark("load the embedding model")
palace.vectors.count(); mark("open the vector index")
palace.ask(sys.argv[2], now=None); mark("first ask (imports the query path)")
palace.ask(sys.argv[2], now=None); mark("second ask (warm)")
last = t0
for name, at in marks:
    print(f"{name}\t{(at - last) * 1000:.1f}"); last = at
"""


def cold(palace_dir: Path, questions: list[dict], runs: int) -> dict[str, list[float]]:
    """Time each cold command ``runs`` times, interleaved, from process start to exit:
    with no server (``PALACE_SERVER=off``) and answered by ``palace serve`` started
    beside them, against bare interpreters."""
    import os

    from palace.cli.client import server_info

    exe = Path(sys.executable)
    cli = exe.parent / "palace"
    ask = lambda q: [str(cli), "ask", q["question"], "--palace", str(palace_dir),  # noqa: E731
                     "--now", q.get("now") or "2026-08-19", "--json"]
    commands = {
        "python -c pass": (lambda q: [str(exe), "-c", "pass"], {}),
        "python -c 'import palace.cli.main'": (lambda q: [str(exe), "-c", "import palace.cli.main"], {}),
        "palace ask --json, no server": (ask, {"PALACE_SERVER": "off"}),
        "palace ask --json, served": (ask, {}),
        "palace status --json, served": (lambda q: [str(cli), "status", "--json", "--palace", str(palace_dir)], {}),
    }
    server = subprocess.Popen([str(cli), "serve", "--palace", str(palace_dir)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    try:
        while server_info(palace_dir) is None:
            if server.poll() is not None:
                raise SystemExit(f"palace serve exited: {server.stderr.read().decode()}")
            time.sleep(0.1)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for i in range(runs):
            item = questions[i % len(questions)]
            for name, (make, env) in commands.items():  # interleaved, so drift hits all alike
                started = time.perf_counter()
                subprocess.run(make(item), check=True, capture_output=True, env={**os.environ, **env})
                times[name].append((time.perf_counter() - started) * 1000)
        served = server_info(palace_dir)["requests"]
        if served != 2 * runs:
            raise SystemExit(f"the server answered {served} of {2 * runs} served commands")
    finally:
        server.terminate()
        server.wait(timeout=60)
    return times


def parts(palace_dir: Path, questions: list[dict], runs: int) -> dict[str, list[float]]:
    """Where a cold ``ask`` without a server spends its time: each step of :data:`PARTS`
    in a new process, ``runs`` times, in ms."""
    times: dict[str, list[float]] = {}
    for i in range(runs):
        out = subprocess.run([sys.executable, "-c", PARTS, str(palace_dir), questions[i % len(questions)]["question"]],
                             check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            name, ms = line.split("\t")
            times.setdefault(name, []).append(float(ms))
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
        print("cold process, from start to exit")
        for name, values in cold(args.palace, questions, args.cold).items():
            print("  " + summary(name, values))
        print("  goals: served palace ask p50 ≤ 150 ms; with no server ≤ 1.5 s\n")
        print("parts of a cold ask with no server (each in a new process)")
        for name, values in parts(args.palace, questions, max(3, args.cold // 2)).items():
            print("  " + summary(name, values))


if __name__ == "__main__":
    main()
