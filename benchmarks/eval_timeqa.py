"""Time-scoped questions over encyclopedic pages: the graph's facts and the direct answer.

    .venv/bin/python benchmarks/eval_timeqa.py [--corpus DIR] [--palace DIR] [--facts] [--answers]
                                               [--json] [--errors N] [--seed S]

The set (default ``../shared/corpora/timeqa-train``, read in place; see its README): 318
Wikipedia pages (``pages/*.md``) and questions about what was true at a time, each with
its answers and **distractors** (the answers of the same page's other questions: true at
other times). The palace (default: ``timeqa-palace`` under the system's temp folder) is
mined from ``pages/`` first when it holds nothing.

Two measures, both on by default:

- ``--facts`` (``facts_questions.jsonl``, the 959 answerable questions with a window):
  ``Palace.facts(about=ABOUT, as_of=AS_OF)`` — the typed facts about the page's subject
  valid on the window's middle day, as ``palace facts --about X --as-of D`` prints them.
  **Right** when they name a gold answer and no distractor; **unknown** when the subject
  is not a known name (an error); else wrong (split: its facts name a distractor only,
  gold and a distractor, neither, or there are no facts). Figures overall, for the relations the
  issue "Facts you can trust" names (:data:`ITEM4`), and per ``relation_meaning``.
- ``--answers`` (``questions.jsonl``, all 1,164 questions, through ``palace ask``): the
  **direct answer** is right (its text names a gold answer and no distractor), an
  **abstention** (:data:`ABSTAIN_KINDS`), or wrong (anything else: a fact of another
  question, "the graph holds no fact", a sentence that names neither). Figures per
  question kind (interval, point, other, unanswerable): right and wrong of the
  answerable, abstentions of the unanswerable; and the drawer at rank 1 overlapping a
  gold paragraph (``gold_spans``) for the answerable.

"Names": a gold answer is named when its normalised text (case-folded, accents and
punctuation folded) appears, on word boundaries, in the text judged, or when a name of two
words or more in that text appears in the answer ("George Peter" names "Maj. George
Peter"). ``--errors N`` prints a seeded random sample of N wrong items of each measure
with what was said, for reading by hand.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import sys
import tempfile
import time
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "timeqa-train"
#: the ``relation_meaning`` values of the relations the issue "Facts you can trust …" names
#: (item 4: team, coach, chair, officeholder, position held, employer and work location,
#: owner and occupant, residence, spouse, party, commander, home venue, capital, parent
#: organisation, chief executive, educated at, league, record label, headquarters,
#: military rank)
ITEM4 = (
    "member of sports team", "coach of sports team", "head coach", "chairperson", "officeholder",
    "position held", "employer", "work location", "owned by", "occupant", "residence", "spouse",
    "member of political party", "commanded by", "home venue", "capital of", "capital",
    "parent organization", "chief executive officer", "educated at", "league", "record label",
    "headquarters location", "military rank",
)
#: direct-answer kinds that say the notes do not answer
ABSTAIN_KINDS = ("nothing found", "not said")


def fold(text: str) -> str:
    """Case-folded, accents removed, punctuation to spaces, whitespace collapsed."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w]+", " ", text.casefold()).split())


def names(text: str, answer: str) -> bool:
    """Whether ``text`` names ``answer`` (see the module docstring)."""
    t, a = fold(text), fold(answer)
    if not a:
        return False
    if re.search(rf"(?<!\w){re.escape(a)}(?!\w)", t):
        return True
    return False


def names_any(texts: list[str], answers: list[str]) -> bool:
    """Whether any of ``texts`` names any of ``answers``, either way round for a value of
    two words or more (a fact's "George Peter" names the answer "Maj. George Peter")."""
    for text in texts:
        for answer in answers:
            if names(text, answer) or (len(fold(text).split()) >= 2 and names(answer, text)):
                return True
    return False


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def ensure_palace(palace_dir: Path, pages: Path):
    """The palace at ``palace_dir``, mined from ``pages`` first when it holds nothing."""
    from palace.core import Palace

    palace = Palace.open(palace_dir)
    if palace.status().drawers == 0:
        print(f"mining {pages} into {palace_dir} …", file=sys.stderr)
        started = time.perf_counter()
        palace.mine(pages, wing="timeqa")
        print(f"mined in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return palace


def judge_facts(palace, gold: dict[str, dict], rows: list[dict]) -> list[dict]:
    """One verdict per ``facts_questions.jsonl`` row: right, wrong or unknown, with what
    the facts said."""
    from palace.errors import UsageError

    out = []
    for row in rows:
        item = gold[row["id"]]
        try:
            result = palace.facts(about=row["about"], as_of=dt.date.fromisoformat(row["as_of"]))
        except UsageError as exc:
            out.append({"id": row["id"], "verdict": "unknown", "said": str(exc)})
            continue
        texts = [f"{f.subject} {f.predicate} {f.object or ''}" for f in result.facts]
        values = [v for f in result.facts for v in (f.subject, f.object or "") if v]
        right = names_any(values, item["answers"]) and not names_any(values, item.get("distractors", []))
        gave = names_any(values, item["answers"]), names_any(values, item.get("distractors", []))
        out.append({"id": row["id"], "verdict": "right" if right else "wrong", "said": " | ".join(texts)[:600],
                    "facts": len(result.facts),
                    "wrong_kind": None if right else ("no facts" if not result.facts else
                                                      "gold and distractor" if all(gave) else
                                                      "distractor only" if gave[1] else "neither")})
    return out


def judge_answers(palace, gold: dict[str, dict], rows: list[dict]) -> list[dict]:
    """One verdict per question: right, abstain or wrong, and whether the drawer at rank
    1 overlaps a gold paragraph."""
    out = []
    for row in rows:
        item = gold[row["id"]]
        result = palace.ask(row["question"], top_k=10)
        direct = result.direct
        if direct.kind in ABSTAIN_KINDS:
            verdict = "abstain"
        elif names_any([direct.text], item.get("answers", [])) and not names_any([direct.text], item.get("distractors", [])):
            verdict = "right"
        else:
            verdict = "wrong"
        top = result.results[0] if result.results else None
        spans = item.get("gold_spans") or []
        overlap = bool(top and any(s["path"] == top.path and not (top.line_end < s["line_start"]
                                                                     or top.line_start > s["line_end"])
                                   for s in spans))
        out.append({"id": row["id"], "verdict": verdict, "kind": direct.kind, "said": direct.text[:600],
                    "rank1_overlaps_gold": overlap})
    return out


def pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:5.1f} %" if d else "    –  "


def facts_report(verdicts: list[dict], gold: dict[str, dict]) -> dict:
    """Counts overall, for :data:`ITEM4` and per relation."""
    by_relation: dict[str, Counter] = defaultdict(Counter)
    for v in verdicts:
        by_relation[gold[v["id"]]["relation_meaning"]][v["verdict"]] += 1
    def total(relations) -> Counter:
        c = Counter()
        for r in relations:
            c.update(by_relation.get(r, Counter()))
        return c
    kinds = Counter(v["wrong_kind"] for v in verdicts if v.get("wrong_kind"))
    return {"all": dict(total(by_relation)), "item4": dict(total(ITEM4)), "wrong_kinds": dict(kinds),
            "relations": {r: dict(c) for r, c in sorted(by_relation.items(), key=lambda kv: -sum(kv[1].values()))}}


def answers_report(verdicts: list[dict], gold: dict[str, dict]) -> dict:
    """Counts per question kind, the answerable together, and rank-1 overlaps."""
    by_kind: dict[str, Counter] = defaultdict(Counter)
    for v in verdicts:
        kind = gold[v["id"]]["kind"]
        by_kind[kind][v["verdict"]] += 1
        by_kind[kind]["rank1_overlaps_gold"] += v["rank1_overlaps_gold"]
        group = "unanswerable" if kind == "unanswerable" else "answerable"
        if kind != "unanswerable":
            by_kind[group][v["verdict"]] += 1
            by_kind[group]["rank1_overlaps_gold"] += v["rank1_overlaps_gold"]
    return {k: dict(c) for k, c in by_kind.items()}


def print_facts(report: dict) -> None:
    print("facts --about X --as-of D (959 answerable questions with a window)")
    for label, c in (("all", report["all"]), ("item 4 relations", report["item4"])):
        n = sum(c.values())
        print(f"  {label:<18} n={n:<4} right {c.get('right', 0):>4} {pct(c.get('right', 0), n)}"
              f"   wrong {c.get('wrong', 0):>4}   unknown subject {c.get('unknown', 0):>4}")
    kinds = report.get("wrong_kinds", {})
    print("  the wrong: " + ", ".join(f"{kinds.get(k, 0)} {k}" for k in
                                      ("distractor only", "gold and distractor", "neither", "no facts")))
    if "typed_facts" in report:
        print(f"  typed facts in the palace: {report['typed_facts'].get('live', 0)} live, "
              f"{report['typed_facts'].get('candidate', 0)} candidates beside them (not counted above)")
    print("  per relation (right / n):")
    for relation, c in report["relations"].items():
        n = sum(c.values())
        mark = "*" if relation in ITEM4 else " "
        print(f"   {mark} {relation:<28} {c.get('right', 0):>3}/{n:<3} {pct(c.get('right', 0), n)}"
              f"  unknown {c.get('unknown', 0)}")


def print_answers(report: dict) -> None:
    print("direct answers (palace ask)")
    for kind in ("answerable", "interval", "point", "other", "unanswerable"):
        c = report.get(kind)
        if not c:
            continue
        n = c.get("right", 0) + c.get("wrong", 0) + c.get("abstain", 0)
        print(f"  {kind:<13} n={n:<5} right {c.get('right', 0):>4} {pct(c.get('right', 0), n)}"
              f"   wrong {c.get('wrong', 0):>4} {pct(c.get('wrong', 0), n)}"
              f"   abstain {c.get('abstain', 0):>4} {pct(c.get('abstain', 0), n)}"
              f"   rank-1 drawer in a gold paragraph {pct(c.get('rank1_overlaps_gold', 0), n)}")


def print_errors(title: str, verdicts: list[dict], gold: dict[str, dict], n: int, seed: int) -> None:
    wrong = [v for v in verdicts if v["verdict"] == "wrong"]
    sample = random.Random(seed).sample(wrong, min(n, len(wrong)))
    print(f"\n{title}: {len(sample)} of {len(wrong)} wrong, seed {seed}")
    for v in sample:
        item = gold[v["id"]]
        print(f"- {v['id']} [{item['relation_meaning']}] {item['question']}\n    gold {item['answers']}"
              f"  distractors {item.get('distractors', [])[:4]}\n    said: {v['said'][:300]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--palace", type=Path, default=Path(tempfile.gettempdir()) / "timeqa-palace")
    parser.add_argument("--facts", action="store_true", help="only the facts measure")
    parser.add_argument("--answers", action="store_true", help="only the direct-answer measure")
    parser.add_argument("--json", action="store_true", help="print the verdicts and figures as JSON")
    parser.add_argument("--errors", type=int, default=0, help="print a random sample of N wrong items")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    both = not args.facts and not args.answers
    gold = {item["id"]: item for item in load(args.corpus / "gold.jsonl")}
    palace = ensure_palace(args.palace, args.corpus / "pages")
    out: dict = {}
    try:
        if args.facts or both:
            verdicts = judge_facts(palace, gold, load(args.corpus / "facts_questions.jsonl"))
            out["facts"] = {"report": facts_report(verdicts, gold), "verdicts": verdicts}
            out["facts"]["report"]["typed_facts"] = dict(palace.conn.execute(  # live and candidates, side by side
                "SELECT status, count(*) FROM facts WHERE predicate != 'mentioned_with'"
                " AND status IN ('live', 'candidate') GROUP BY status").fetchall())
        if args.answers or both:
            started = time.perf_counter()
            verdicts = judge_answers(palace, gold, load(args.corpus / "questions.jsonl"))
            out["answers"] = {"report": answers_report(verdicts, gold), "verdicts": verdicts,
                              "seconds": round(time.perf_counter() - started, 1)}
    finally:
        palace.close()
    if args.json:
        print(json.dumps(out, indent=1))
        return
    if "facts" in out:
        print_facts(out["facts"]["report"])
        if args.errors:
            print_errors("facts", out["facts"]["verdicts"], gold, args.errors, args.seed)
    if "answers" in out:
        print()
        print_answers(out["answers"]["report"])
        if args.errors:
            print_errors("direct answers", out["answers"]["verdicts"], gold, args.errors, args.seed)


if __name__ == "__main__":
    main()
