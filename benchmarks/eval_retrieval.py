"""Retrieval evaluation: recall@1/5/10 and MRR of four ways to answer, per question type.

    .venv/bin/python benchmarks/eval_retrieval.py [QUESTIONS.jsonl] [--palace DIR] [--corpus DIR] [--json]

QUESTIONS.jsonl (default: benchmarks/rust_dev_questions.jsonl) holds one question per line:
``{"id", "type", "question", "now", "gold": [{"path", "lines": [a, b]?}], "wing"?,
"answer"?: [str], "expect_error"?: bool}``. ``answer`` lists acceptable values: the
planner's direct answer is correct when its text names one of them (case-insensitive);
``expect_error`` marks a question with no content, correct when ``ask`` refuses it with
a :class:`palace.errors.UsageError` (its ``gold`` may be empty).
The palace (default: a palace of CORPUS under the system's temp folder, mined first when
it holds nothing; CORPUS defaults to ../shared/corpora/rust-governance-minutes) answers
each question four ways, all through :func:`palace.ask.query.ask`:

- ``bm25``: BM25 alone (no date window, no graph);
- ``vectors``: vector similarity alone;
- ``hybrid``: BM25 + vectors fused with reciprocal rank fusion, equal weights;
- ``planner``: the full planner (window, entities, intent, graph, changes, weights).

Scoring. The unit is the file: the returned drawers (the first :data:`DEPTH`) become a
list of distinct paths in order of first appearance, and a gold entry sits at the rank
of its path in that list once a drawer matching it (same path and, when the gold gives
``lines``, an overlapping line span) has been returned. Per question, recall@k is the
share of gold entries ranked ≤ k, capped by k — ``|found| / min(k, |gold|)``, the
"R_cap@k" of BEIR (Thakur et al., NeurIPS 2021 datasets track) — and MRR is 1 / the
best gold rank (0 when none is found). Figures are means over questions, in percent.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_QUESTIONS = REPO / "benchmarks" / "rust_dev_questions.jsonl"
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "rust-governance-minutes"
DEPTH = 50
KS = (1, 5, 10)
METHODS = {
    "bm25": ("bm25",),
    "vectors": ("vector",),
    "hybrid": ("bm25", "vector"),
    "planner": None,
}


def load_questions(path: Path) -> list[dict]:
    """The questions of a JSONL file; raises ValueError naming the line of a bad one."""
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        item = json.loads(line)
        if not isinstance(item.get("question"), str) or not (item.get("gold") or item.get("expect_error")):
            raise ValueError(f"{path}:{number}: a question needs 'question' and a non-empty 'gold'")
        questions.append(item)
    return questions


def gold_ranks(hits, gold: list[dict]) -> list[int | None]:
    """The rank of each gold entry among the distinct paths of ``hits`` (see the module
    docstring), or None when it was not returned."""
    paths: list[str] = []
    ranks: list[int | None] = [None] * len(gold)
    for hit in hits:
        if hit.path not in paths:
            paths.append(hit.path)
        for i, entry in enumerate(gold):
            if ranks[i] is not None or entry["path"] != hit.path:
                continue
            lines = entry.get("lines")
            if lines and (hit.line_end < lines[0] or hit.line_start > lines[1]):
                continue
            ranks[i] = paths.index(hit.path) + 1
    return ranks


def score(ranks: list[int | None]) -> dict[str, float]:
    """recall@k (capped) for each k of :data:`KS`, and the reciprocal rank."""
    out = {}
    for k in KS:
        found = sum(1 for r in ranks if r is not None and r <= k)
        out[f"R@{k}"] = found / min(k, len(ranks))
    best = min((r for r in ranks if r is not None), default=None)
    out["MRR"] = 1.0 / best if best else 0.0
    return out


def ensure_palace(palace_dir: Path, corpus: Path):
    """Open the palace at ``palace_dir``, mining ``corpus`` into it first when it is empty."""
    from palace.core import Palace

    palace = Palace.open(palace_dir)
    if palace.conn.execute("SELECT 1 FROM drawers LIMIT 1").fetchone() is None:
        print(f"mining {corpus} into {palace_dir} …", file=sys.stderr)
        started = time.perf_counter()
        palace.mine(corpus)
        print(f"mined in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return palace


def direct_text(result) -> str:
    """The text of the planner's direct answer: ``result.direct`` where the palace gives
    one, else the one-fact ``result.answer`` (palace before issue 11), else ""."""
    direct = getattr(result, "direct", None)
    if direct is not None:
        return direct.text
    answer = getattr(result, "answer", None)
    return answer.text if answer is not None else ""


def answer_correct(text: str, expected: list[str]) -> bool:
    """True when the direct answer's ``text`` names one of the ``expected`` values."""
    lowered = text.lower()
    return any(value.lower() in lowered for value in expected)


def evaluate(palace, questions: list[dict]) -> dict:
    """``{method: {type: {metric: mean}}}`` (type ``all`` included) and, per question,
    each method's gold ranks. Retrieval metrics are means over the questions with a
    gold; ``answer`` (planner only) is the share of questions with ``answer`` or
    ``expect_error`` that the planner got right."""
    from palace.errors import UsageError

    per_question = []
    sums: dict[str, dict[str, dict[str, float]]] = {m: {} for m in METHODS}
    counts: dict[str, int] = {}
    answered: dict[str, list[int]] = {}  # kind -> [correct, asked]
    for item in questions:
        now = dt.date.fromisoformat(item["now"]) if item.get("now") else None
        row = {"id": item.get("id"), "type": item.get("type", "?"), "question": item["question"], "ranks": {}}
        kinds = (row["type"], "all")
        if item.get("gold"):
            for kind in kinds:
                counts[kind] = counts.get(kind, 0) + 1
        for method, only in METHODS.items():
            try:
                result = palace.ask(item["question"], top_k=DEPTH, now=now, wing=item.get("wing"), retrievers_only=only)
            except UsageError as exc:
                result, row.setdefault("errors", {})[method] = None, str(exc)
            if method == "planner" and ("answer" in item or item.get("expect_error")):
                if item.get("expect_error"):
                    right = result is None
                    row["direct"] = row.get("errors", {}).get("planner", "")
                else:
                    row["direct"] = direct_text(result) if result is not None else ""
                    right = answer_correct(row["direct"], item["answer"])
                row["answer_correct"] = right
                for kind in kinds:
                    tally = answered.setdefault(kind, [0, 0])
                    tally[0] += int(right)
                    tally[1] += 1
            if not item.get("gold"):
                continue
            ranks = gold_ranks(result.results if result is not None else (), item["gold"])
            row["ranks"][method] = ranks
            if method == "planner" and result is not None:
                row["intent"] = result.plan.intent
            for kind in kinds:
                bucket = sums[method].setdefault(kind, {})
                for metric, value in score(ranks).items():
                    bucket[metric] = bucket.get(metric, 0.0) + value
        per_question.append(row)
    means = {
        method: {kind: {metric: 100.0 * total / counts[kind] for metric, total in metrics.items()}
                 for kind, metrics in by_kind.items()}
        for method, by_kind in sums.items()
    }
    answers = {kind: {"correct": c, "asked": n, "percent": 100.0 * c / n} for kind, (c, n) in answered.items()}
    return {"counts": counts, "means": means, "answers": answers, "questions": per_question}


def print_table(report: dict) -> None:
    kinds = [k for k in ("temporal", "change", "entity", "current", "lookup") if k in report["counts"]]
    kinds += sorted(k for k in report["counts"] if k not in kinds and k != "all") + ["all"]
    kinds += [k for k in report.get("answers", {}) if k not in kinds]
    metrics = [f"R@{k}" for k in KS] + ["MRR"]
    print(f"{'type':<12}{'n':>4}  {'method':<8}" + "".join(f"{m:>8}" for m in metrics))
    for kind in kinds:
        if kind not in report["means"]["planner"]:
            continue
        for method in METHODS:
            values = report["means"][method][kind]
            print(f"{kind:<12}{report['counts'][kind]:>4}  {method:<8}" + "".join(f"{values[m]:>8.1f}" for m in metrics))
        print()
    if report.get("answers"):
        print("direct answer correct (planner):")
        for kind, tally in report["answers"].items():
            print(f"  {kind:<12}{tally['correct']:>3}/{tally['asked']:<3} {tally['percent']:6.1f} %")
        print()
    means = report["means"]
    for kind in ("temporal", "change"):
        if kind in means["planner"]:
            gain = means["planner"][kind]["R@5"] - means["vectors"][kind]["R@5"]
            print(f"goal: planner − vectors, R@5 on {kind}: {gain:+.1f} points (goal ≥ +15)")
    gap = means["planner"]["all"]["R@5"] - means["hybrid"]["all"]["R@5"]
    mrr = means["planner"]["all"]["MRR"] - means["hybrid"]["all"]["MRR"]
    print(f"goal: planner − hybrid overall: R@5 {gap:+.1f} points, MRR {mrr:+.1f} points (goal: never worse)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", nargs="?", type=Path, default=DEFAULT_QUESTIONS)
    parser.add_argument("--palace", type=Path, default=Path(tempfile.gettempdir()) / "palace-eval-rust")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    args = parser.parse_args()

    questions = load_questions(args.questions)
    palace = ensure_palace(args.palace, args.corpus)
    try:
        report = evaluate(palace, questions)
    finally:
        palace.close()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{len(questions)} questions from {args.questions}, palace {args.palace}\n")
        print_table(report)


if __name__ == "__main__":
    main()
