"""Direct answers judged right, wrong or abstained, per question kind, on every set.

    .venv/bin/python benchmarks/eval_answers.py [--timeqa] [--rust] [--chatqa] [--peps] [--json]
        [--timeqa-palace DIR] [--rust-palace DIR] [--chatqa-palace DIR] [--peps-palace DIR]
        [--signals FILE] [--chatqa-signals FILE] [--tune FILE [--tune-undated FILE]] [--errors N]

Sets (each mined into its palace first when that holds nothing; all by default that exist):

- ``timeqa`` (``../shared/corpora/timeqa-train``): :func:`eval_timeqa.judge_answers`'s
  verdicts — *right* (the whole direct text names a gold answer and no distractor), an
  *abstention* (``not said``, ``nothing found``), or *wrong* — per question kind, for
  the whole set and for each half of a split **by page** with a fixed seed
  (:data:`SPLIT_SEED`): ``tune`` (the half the ladder's weights and bar were chosen on)
  and ``check`` (never looked at while tuning). A large gap between them means fitting.
- ``rust`` (``benchmarks/rust_dev_questions.jsonl`` over the Rust minutes, each asked
  with its ``now``): right when the direct text names one of ``expected`` (or, for
  ``expected_kind`` ``abstain``, when it abstains); an abstention on a question with an
  expected value counts apart; ``other predicate`` counts fact answers whose predicate is
  not ``expected_predicate`` (must be 0).
- ``chatqa`` (``benchmarks/chatqa/``: chat logs, ``questions.jsonl`` with ``answers`` or
  none for a question about something never said): as timeqa, per ``kind``.
- ``peps`` (``../shared/corpora/peps``, questions made from ``key.jsonl``: "what is the
  status of PEP N", "what replaced PEP N"): right when the direct text names the status
  or the replacing PEP.

``--signals FILE`` writes, for timeqa, every question's graph answer (if any) and every
candidate sentence's support signals and direct text (``--chatqa-signals FILE`` the
same for the chat questions); ``--tune FILE`` reads such a file and fits the support
model on the ``tune`` half (:func:`tune`: a conditional logit that ranks the candidate
sentences, Platt-scaled into a probability), then the lowest bar leaving at most 10 % of
the answerable questions wrong, printing both halves; ``--tune-undated FILE`` (a chatqa
signals file) chooses the bar of questions naming no period the same way.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import eval_timeqa  # noqa: E402  (the judge and the timeqa set's loading)

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "corpora"
#: The seed of the split of timeqa-train's pages into the tune and check halves.
SPLIT_SEED = 23
ABSTAIN = eval_timeqa.ABSTAIN_KINDS


def split_pages(gold: dict[str, dict]) -> dict[str, str]:
    """``{question id: "tune" | "check"}``: the pages shuffled with :data:`SPLIT_SEED`,
    the first half's questions ``tune``."""
    pages = sorted({item["gold_paths"][0] for item in gold.values()})
    random.Random(SPLIT_SEED).shuffle(pages)
    tune = set(pages[: len(pages) // 2])
    return {qid: "tune" if item["gold_paths"][0] in tune else "check" for qid, item in gold.items()}


def verdict(kind: str, text: str, answers: list[str], distractors: list[str]) -> str:
    """right, wrong or abstain, as :mod:`eval_timeqa` judges."""
    if kind in ABSTAIN:
        return "abstain"
    if eval_timeqa.names_any([text], answers) and not eval_timeqa.names_any([text], distractors):
        return "right"
    return "wrong"


def report(rows: list[dict], group: str = "kind") -> dict:
    """Counts of right, wrong, abstain per ``group`` value, the answerable together."""
    out: dict[str, Counter] = defaultdict(Counter)
    for row in rows:
        out[row[group]][row["verdict"]] += 1
        if row.get("answerable", True):
            out["answerable"][row["verdict"]] += 1
        else:
            out["unanswerable (all)"][row["verdict"]] += 1
    return {k: dict(v) for k, v in out.items()}


def show(title: str, counts: dict) -> None:
    print(title)
    for key, c in counts.items():
        n = sum(c.get(v, 0) for v in ("right", "wrong", "abstain"))
        pct = lambda v: f"{100.0 * c.get(v, 0) / n:5.1f} %" if n else "  –  "  # noqa: E731
        print(f"  {key:<22} n={n:<5} right {c.get('right', 0):>4} {pct('right')}   wrong {c.get('wrong', 0):>4}"
              f" {pct('wrong')}   abstain {c.get('abstain', 0):>4} {pct('abstain')}")


# ----------------------------------------------------------------------------- timeqa

def run_timeqa(palace_dir: Path, signals: Path | None, sample: int = 0) -> dict:
    corpus = SHARED / "timeqa-train"
    gold = {item["id"]: item for item in eval_timeqa.load(corpus / "gold.jsonl")}
    halves = split_pages(gold)
    palace = eval_timeqa.ensure_palace(palace_dir, corpus / "pages")
    rows, dumped = [], []
    started = time.perf_counter()
    try:
        questions = eval_timeqa.load(corpus / "questions.jsonl")
        if sample:
            questions = random.Random(SPLIT_SEED).sample(questions, min(sample, len(questions)))
        for q in questions:
            item = gold[q["id"]]
            result = palace.ask(q["question"], top_k=10)
            d = result.direct
            v = verdict(d.kind, d.text, item.get("answers", []), item.get("distractors", []))
            top = result.results[0] if result.results else None
            overlap = bool(top and any(s["path"] == top.path and not (top.line_end < s["line_start"]
                                                                         or top.line_start > s["line_end"])
                                       for s in item.get("gold_spans") or []))
            rows.append({"id": q["id"], "kind": item["kind"], "half": halves[q["id"]], "verdict": v,
                         "step": getattr(d, "step", ""), "said": d.text[:300], "answerable": item["kind"] != "unanswerable",
                         "rank1": overlap})
            if signals is not None:
                dumped.append(_signals(palace, q["question"], result, item, halves[q["id"]]))
    finally:
        palace.close()
    if signals is not None:
        signals.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in dumped) + "\n", encoding="utf-8")
    out = {"all": report(rows), "seconds": round(time.perf_counter() - started, 1), "rows": rows}
    for half in ("tune", "check"):
        out[half] = report([r for r in rows if r["half"] == half])
    answerable = [r for r in rows if r["answerable"]]
    out["rank1_in_gold"] = round(100.0 * sum(r["rank1"] for r in answerable) / max(1, len(answerable)), 1)
    out["steps"] = dict(Counter(r["step"] for r in rows))
    return out


def _signals(palace, question: str, result, item: dict, half: str, now: dt.date | None = None) -> dict:
    """One question's graph answer and candidate sentences with their support signals
    and direct texts, for :func:`tune`."""
    from palace.ask import ladder
    from palace.ask.planning import plan_question
    from palace.ask.questions import load_questions
    from palace.nlp.markup import tidy

    config, registry = palace.config, palace.registry
    plan = plan_question(palace.conn, question, now=now, config=config, questions=load_questions(config, registry))
    ranked = [h.drawer_id for h in result.results]
    q = ladder.read_question(plan)
    sentences = []
    for sentence, support in ladder.scored_sentences(palace.conn, plan, ranked):
        span = support.span
        head = f"{tidy(span.surface)}{ladder.resolved(span)} — " if span else ""  # as the direct answer writes it
        text = head + f"{ladder.cite(sentence)} «{ladder.quote(sentence, span, q)}»"
        sentences.append({"signals": support.signals, "text": text})
    graph = result.direct if result.direct.step in ("fact", "changes", "entity") or result.direct.kind == "nothing found" \
        else None
    return {"id": item["id"], "half": half, "kind": item["kind"], "answers": item.get("answers", []),
            "distractors": item.get("distractors", []),
            "graph": {"kind": graph.kind, "text": graph.text} if graph else None, "sentences": sentences}


# ------------------------------------------------------------------------------ tuning

def choose(entry: dict, model: tuple[dict[str, float], float], bar: float) -> tuple[str, str]:
    """The direct answer's (kind, text) of one dumped question under ``model``
    (coefficients, intercept) and ``bar``, as :func:`palace.ask.ladder.best_sentence` and
    the abstention choose."""
    if entry["graph"]:
        return entry["graph"]["kind"], entry["graph"]["text"]
    from palace.ask import ladder

    if not entry["sentences"]:
        return "not said", ""
    scores = [ladder.combine(s["signals"], *model) for s in entry["sentences"]]
    if max(scores) < bar:
        return "not said", ""
    index = ladder.choose(scores, [s["signals"] for s in entry["sentences"]])
    return "sentence", entry["sentences"][index]["text"]


def evaluate(entries: list[dict], model: tuple[dict[str, float], float], bar: float) -> dict:
    """Shares of the answerable questions right, wrong and abstained and of the
    unanswerable ones abstained, under ``model`` and ``bar``; ``picked``: answerable
    questions whose best sentence (at any bar) is right."""
    c: Counter = Counter()
    for e in entries:
        kind, text = choose(e, model, bar)
        v = verdict(kind, text, e["answers"], e["distractors"])
        c[("ans" if e["kind"] != "unanswerable" else "una", v)] += 1
        if e["kind"] != "unanswerable":
            c["picked"] += verdict(*choose(e, model, -1.0), e["answers"], e["distractors"]) == "right"
    n_ans = sum(v for k, v in c.items() if k[0] == "ans") or 1
    n_una = sum(v for k, v in c.items() if k[0] == "una") or 1
    return {"right": round(c[("ans", "right")] / n_ans, 4), "wrong": round(c[("ans", "wrong")] / n_ans, 4),
            "abstain_ans": round(c[("ans", "abstain")] / n_ans, 4), "abstain_una": round(c[("una", "abstain")] / n_una, 4),
            "picked": round(c["picked"] / n_ans, 4), "n_ans": n_ans, "n_una": n_una}


#: The most wrong answers the bar may leave, as a share of the answerable questions of
#: the tune half (the issue's bound).
WRONG_BOUND = 0.10
#: The L2 penalty of the ranking model (per question).
L2 = 0.001


def _questions(entries: list[dict]):
    """Per question the graph did not answer: its signal matrix (one row per candidate
    sentence not gated to 0, a None as its :data:`palace.ask.ladder.ABSENT` value) and
    whether each sentence's text is right, as numpy arrays (None, None with no
    candidate)."""
    import numpy as np
    from palace.ask import ladder

    out = []
    for e in entries:
        if e["graph"]:
            continue
        kept = [s for s in e["sentences"] if s["signals"].get("names") != 0]
        if not kept:
            out.append((None, None))
            continue
        x = np.array([[ladder.ABSENT.get(k, 0.0) if s["signals"].get(k) is None else s["signals"][k]
                       for k in _modelled()] for s in kept])
        y = np.array([verdict("sentence", s["text"], e["answers"], e["distractors"]) == "right" for s in kept], float)
        out.append((x, y))
    return out


def fit(entries: list[dict]) -> tuple[dict[str, float], float]:
    """The support model, in two fits over ``entries`` (full-batch gradient descent from
    zero: deterministic), returned as ``(coefficients, intercept)`` rounded to two
    decimals:

    1. a conditional logit (McFadden 1974) that ranks a question's candidate sentences:
       the weights ``w`` maximising the probability of the right ones under a softmax of
       ``w · signals`` within each question (L2 :data:`L2`);
    2. Platt scaling (Platt 1999): ``a, b`` of a logistic regression of "the best
       sentence is right" on its score ``w · signals``, over every question (the
       unanswerable ones too), so that the support is a calibrated probability.
    """
    import numpy as np

    data = _questions(entries)
    ranked = [(x, y) for x, y in data if x is not None and y.sum() > 0]
    w = np.zeros(len(_modelled()))
    for _ in range(1500):
        grad = np.zeros_like(w)
        for x, y in ranked:
            z = x @ w
            p = np.exp(z - z.max())
            p /= p.sum()
            q = y * p / (y * p).sum()
            grad += x.T @ (p - q)
        w -= 0.5 * (grad / len(ranked) + L2 * w)
    best = np.array([float((x @ w).max()) if x is not None else -10.0 for x, _ in data])
    right = np.array([float(y[int(np.argmax(x @ w))]) if x is not None else 0.0 for x, y in data])
    a, b = 1.0, 0.0
    for _ in range(5000):
        p = 1.0 / (1.0 + np.exp(-(a * best + b)))
        a -= 0.05 * float(np.mean((p - right) * best))
        b -= 0.05 * float(np.mean(p - right))
    return {k: round(float(a * v), 2) for k, v in zip(_modelled(), w)}, round(b, 2)


def _modelled() -> list[str]:
    """The signals the support model weighs (tie-breaks left out)."""
    from palace.ask import ladder

    return [k for k in ladder.SIGNALS if k not in ladder.TIE_BREAKS]


def tune(path: Path, undated: Path | None = None) -> dict:
    """Two steps on the ``tune`` half, both halves printed: the support model
    (:func:`fit`); then the lowest bar (0.05 … 0.95 in steps of 0.01) that leaves at
    most :data:`WRONG_BOUND` of the answerable questions wrong. With ``undated`` (a
    ``--chatqa-signals`` file: questions naming no period), the lowest bar leaving at
    most :data:`WRONG_BOUND` of its answerable questions wrong under that model
    (``bar_undated``)."""
    from palace.ask import ladder

    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    train = [e for e in entries if e["half"] == "tune"]
    check = [e for e in entries if e["half"] == "check"]
    model = fit(train)
    bar = next((b for b in (round(0.05 + 0.01 * i, 2) for i in range(91))
                if evaluate(train, model, b)["wrong"] <= WRONG_BOUND), 0.95)
    shipped = (ladder.COEFFICIENTS, ladder.INTERCEPT)
    out = {"coefficients": model[0], "intercept": model[1], "bar": bar, "tune": evaluate(train, model, bar),
           "check": evaluate(check, model, bar),
           "curve": {b: evaluate(entries, model, b) for b in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7)},
           "undated": None,
           "as_shipped": {"coefficients": ladder.COEFFICIENTS, "intercept": ladder.INTERCEPT, "bar": ladder.ABSTAIN_BAR,
                          "tune": evaluate(train, shipped, ladder.ABSTAIN_BAR),
                          "check": evaluate(check, shipped, ladder.ABSTAIN_BAR)}}
    if undated is not None:
        chats = [json.loads(line) for line in undated.read_text(encoding="utf-8").splitlines() if line.strip()]
        low = next((b for b in (round(0.05 + 0.01 * i, 2) for i in range(91))
                    if evaluate(chats, model, b)["wrong"] <= WRONG_BOUND), 0.95)
        out["undated"] = {"bar_undated": low, "at_bar": evaluate(chats, model, low),
                          "as_shipped": evaluate(chats, shipped, ladder.ABSTAIN_BAR_UNDATED)}
    print(json.dumps(out, indent=1))
    return out


# -------------------------------------------------------------------------------- rust

def run_rust(palace_dir: Path) -> dict:
    from palace.core import Palace

    rows = []
    palace = Palace.open(palace_dir)
    try:
        if palace.status().drawers == 0:
            palace.mine(SHARED / "rust-governance-minutes")
        for line in (REPO / "benchmarks" / "rust_dev_questions.jsonl").read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            result = palace.ask(q["question"], now=dt.date.fromisoformat(q["now"]), top_k=10)
            d = result.direct
            if q["expected_kind"] == "abstain":
                v = "right" if d.kind in ABSTAIN else "wrong"
            elif d.kind in ABSTAIN:
                v = "abstain"
            else:
                v = "right" if eval_timeqa.names_any([d.text], q["expected"]) else "wrong"
            other = bool(result.answer and d.kind == "fact" and result.answer.predicate != q.get("expected_predicate"))
            rows.append({"id": q["id"], "kind": q["type"], "verdict": v, "step": getattr(d, "step", ""), "said": d.text[:300],
                         "answerable": q["expected_kind"] != "abstain", "other_predicate": other})
    finally:
        palace.close()
    return {"all": report(rows), "other_predicate": sum(r["other_predicate"] for r in rows),
            "steps": dict(Counter(r["step"] for r in rows)), "rows": rows}


# ------------------------------------------------------------------------------ chatqa

def run_chatqa(palace_dir: Path, signals: Path | None = None) -> dict | None:
    from palace.core import Palace

    root = REPO / "benchmarks" / "chatqa"
    if not (root / "questions.jsonl").exists():
        return None
    rows, dumped = [], []
    palace = Palace.open(palace_dir)
    try:
        if palace.status().drawers == 0:
            palace.mine(root / "chats", wing="chats")
        for q in eval_timeqa.load(root / "questions.jsonl"):
            now = dt.date.fromisoformat(q["now"]) if q.get("now") else None
            result = palace.ask(q["question"], now=now, top_k=10)
            answers = q.get("answers") or []
            d = result.direct
            v = verdict(d.kind, d.text, answers, q.get("distractors", []))
            rows.append({"id": q.get("id"), "kind": q.get("kind", "answerable" if answers else "unanswerable"),
                         "verdict": v, "step": getattr(d, "step", ""), "said": d.text[:300], "answerable": bool(answers)})
            if signals is not None:
                item = {"id": q.get("id"), "kind": rows[-1]["kind"] if answers else "unanswerable", "answers": answers,
                        "distractors": q.get("distractors", [])}
                dumped.append(_signals(palace, q["question"], result, item, "chatqa", now))
    finally:
        palace.close()
    if signals is not None:
        signals.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in dumped) + "\n", encoding="utf-8")
    return {"all": report(rows), "steps": dict(Counter(r["step"] for r in rows)), "rows": rows}


# -------------------------------------------------------------------------------- peps

def pep_questions(key: Path) -> list[dict]:
    """Questions made from the PEPs' key: the status of each PEP, and what replaced
    those that were superseded."""
    out = []
    for item in eval_timeqa.load(key):
        number = item.get("number") or item.get("pep")
        if number is None:
            continue
        if item.get("status"):
            out.append({"kind": "status", "question": f"what is the status of PEP {number}",
                        "answers": [item["status"]]})
        replaced = item.get("superseded_by") or item.get("superseded-by")
        if replaced:
            values = replaced if isinstance(replaced, list) else [replaced]
            out.append({"kind": "replaced", "question": f"what replaced PEP {number}",
                        "answers": [f"PEP {v}" for v in values] + [f"pep-{int(v):04d}" for v in values
                                                                  if str(v).isdigit()]})
    return out


def run_peps(palace_dir: Path) -> dict | None:
    from palace.core import Palace

    root = SHARED / "peps"
    key = root / "key.jsonl"
    if not key.exists():
        return None
    rows = []
    palace = Palace.open(palace_dir)
    try:
        if palace.status().drawers == 0:
            palace.mine(root / "peps" if (root / "peps").is_dir() else root, wing="peps")
        for q in pep_questions(key):
            d = palace.ask(q["question"], top_k=10).direct
            v = verdict(d.kind, d.text, q["answers"], [])
            rows.append({"kind": q["kind"], "question": q["question"], "verdict": v, "step": getattr(d, "step", ""),
                         "said": d.text[:300], "answerable": True})
    finally:
        palace.close()
    return {"all": report(rows), "steps": dict(Counter(r["step"] for r in rows)), "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("timeqa", "rust", "chatqa", "peps"):
        parser.add_argument(f"--{name}", action="store_true")
        parser.add_argument(f"--{name}-palace", type=Path, default=Path("/tmp") / f"eval-answers-{name}")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--signals", type=Path)
    parser.add_argument("--chatqa-signals", type=Path)
    parser.add_argument("--tune", type=Path)
    parser.add_argument("--tune-undated", type=Path, help="with --tune: a --chatqa-signals file for the undated bar")
    parser.add_argument("--errors", type=int, default=0)
    parser.add_argument("--sample", type=int, default=0, help="timeqa: a seeded sample of N questions only")
    args = parser.parse_args()
    if args.tune:
        tune(args.tune, args.tune_undated)
        return
    chosen = [n for n in ("timeqa", "rust", "chatqa", "peps") if getattr(args, n)] or ["timeqa", "rust", "chatqa", "peps"]
    out = {}
    for name in chosen:
        palace_dir = getattr(args, f"{name}_palace")
        result = {"timeqa": lambda: run_timeqa(palace_dir, args.signals, args.sample), "rust": lambda: run_rust(palace_dir),
                  "chatqa": lambda: run_chatqa(palace_dir, args.chatqa_signals), "peps": lambda: run_peps(palace_dir)}[name]()
        if result is None:
            continue
        out[name] = result
        if not args.json:
            show(f"{name}: direct answers", result["all"])
            for half in ("tune", "check"):
                if half in result:
                    show(f"{name}, {half} half", result[half])
            for extra in ("rank1_in_gold", "other_predicate", "steps", "seconds"):
                if extra in result:
                    print(f"  {extra}: {result[extra]}")
            if args.errors:
                wrong = [r for r in result["rows"] if r["verdict"] == "wrong"]
                for r in random.Random(1).sample(wrong, min(args.errors, len(wrong))):
                    print(f"  - {r.get('id') or r.get('question')} [{r['kind']}] {r['said'][:200]}")
    if args.json:
        print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
