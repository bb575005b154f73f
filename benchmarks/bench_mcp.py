"""Warm ``ask`` through MCP against the same ``ask`` in process.

    .venv/bin/python benchmarks/bench_mcp.py [QUESTIONS.jsonl] [--palace DIR] [--corpus DIR]

The palace (default: the one ``eval_retrieval.py`` uses, mined from CORPUS when empty)
answers every question of QUESTIONS.jsonl (default: the Rust dev set) twice, interleaved:
in this process (``Palace.ask``, warm), and through ``palace mcp`` started as a child
over stdio by the official SDK's client (the ``ask`` tool, warm: one question first).
Prints p50 and p95 of both and the protocol's share, with the machine's load.

Goal (issue 14): a warm ``ask`` through MCP p50 ≤ 50 ms on the Rust corpus.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ask import percentile  # noqa: E402
from eval_retrieval import DEFAULT_CORPUS, DEFAULT_QUESTIONS, ensure_palace, load_questions  # noqa: E402


async def measure(palace, palace_dir: Path, questions: list[dict]) -> dict[str, list[float]]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    cli = Path(sys.executable).parent / "palace"
    times: dict[str, list[float]] = {"in process": [], "through MCP": []}
    params = StdioServerParameters(command=str(cli), args=["mcp", "--palace", str(palace_dir)])
    async with Client(params, read_timeout_seconds=300) as client:
        await client.call_tool("ask", {"question": questions[0]["question"]})  # warm
        palace.ask(questions[0]["question"])
        for item in questions:
            now = item.get("now") or None
            started = time.perf_counter()
            palace.ask(item["question"], now=dt.date.fromisoformat(now) if now else None)
            times["in process"].append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            result = await client.call_tool("ask", {"question": item["question"], "now": now})
            times["through MCP"].append((time.perf_counter() - started) * 1000)
            if result.is_error:
                raise SystemExit(f"{item['question']!r}: {result.content[0].text}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", nargs="?", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--palace", type=Path, default=Path(tempfile.gettempdir()) / "palace-eval-rust")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    questions = load_questions(args.questions)
    palace = ensure_palace(args.palace, args.corpus)
    drawers = palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0]
    print(f"palace {args.palace}: {drawers} drawers; {len(questions)} questions; load {os.getloadavg()[0]:.2f}")
    try:
        times = asyncio.run(measure(palace, args.palace, questions))
    finally:
        palace.close()
    for name, values in times.items():
        print(f"  {name:<12} p50 {percentile(values, 0.5):7.1f} ms   p95 {percentile(values, 0.95):7.1f} ms"
              f"   mean {statistics.mean(values):7.1f} ms")
    overhead = percentile(times["through MCP"], 0.5) - percentile(times["in process"], 0.5)
    print(f"  MCP p50 - in-process p50: {overhead:.1f} ms   load {os.getloadavg()[0]:.2f}")
    print("  goal: through MCP p50 ≤ 50 ms")


if __name__ == "__main__":
    main()
