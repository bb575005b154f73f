"""Extraction evaluation: precision, recall and F1 of the typed facts read from notes.

    .venv/bin/python benchmarks/eval_extraction.py [--cases DIR] [--construction NAME] [--errors] [--json]

The cases (default: ``tests/extraction_cases/``) are hand-written notes, one JSON object
per line in ``<construction>.jsonl``: ``{"id", "construction", "text", "date", "title"?,
"owner"?, "facts": [...], "note"?}``. Each gold fact is ``{"subject", "predicate",
"object", "from", "to", "evidence"?}``; ``object`` (and ``subject``) may be a list of
equally right spellings, ``null`` an ending whose value the text does not name; ``facts:
[]`` means the text must yield no typed fact (hedged, negated, conditional, planned,
questioned, or simply not about any predicate).

Every case goes through :func:`palace.mine.extract.extract_text` (the mining NLP, nothing
stored) with its ``date``, ``title`` and ``owner``, all sharing one loaded extractor.
Predictions are the live facts it returns (planned statements are rejected, never facts; a
reading under the confidence bar is a candidate, counted beside them, never a prediction),
less the untyped ``mentioned_with`` co-occurrences; a fact read
twice in one case (two rules, or front matter and body saying the same) counts once.

Matching, per case. Names and values are normalised (case-folded, whitespace collapsed,
a leading "the"/"a"/"an" dropped, trailing punctuation dropped); an object matches when
any of its alternatives does; ``null`` matches only ``null``. A **strict** match needs
subject, predicate, object and the valid time: ``from`` and ``to`` for states, ``from``
only for events (an event is true on its day). A **loose** match ignores the dates.
Each prediction matches at most one gold fact, greedily in the order predicted.

Figures: precision = matched predictions / predictions, recall = matched gold facts /
gold facts, F1 their harmonic mean, in percent, overall (strict and loose), per predicate
and per construction (a dash where a figure is undefined: no prediction, or no gold
fact); how many gold-nothing cases produced any fact; how many gold facts marked
``"evidence": "inferred"`` (read through a pronoun or the first person) were matched; and
the goal line (strict recall >= 85 % at strict precision >= 95 %), PASS or MISS. ``--errors`` lists
every false negative and false positive with its case id, an excerpt of the text and the
fact (a pair that only differs in dates is marked as such); ``--json`` prints the
figures as one JSON object instead of tables.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CASES = REPO / "tests" / "extraction_cases"
EVENTS = {"approved", "decided", "created", "moved_to", "joined", "left", "replaced"}
UNTYPED = {"mentioned_with"}
GOAL_RECALL, GOAL_PRECISION = 85.0, 95.0
_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_TRAILING = re.compile(r"[\s.,;:!?'\"“”‘’)\]]+$")


def norm(value: str | None) -> str | None:
    """A name or value as compared: case-folded, whitespace collapsed, without a leading
    article or trailing punctuation."""
    if value is None:
        return None
    text = " ".join(str(value).split()).casefold()
    text = _ARTICLE.sub("", text)
    return _TRAILING.sub("", text)


def _alternatives(value) -> set[str | None]:
    if isinstance(value, list):
        return {norm(v) for v in value}
    return {norm(value)}


@dataclass(frozen=True)
class Fact:
    """A gold fact or a prediction, ready to compare (``subjects``/``objects`` hold the
    normalised alternatives; ``shown`` is the fact as written, for error lists)."""

    subjects: frozenset
    predicate: str
    objects: frozenset
    start: str | None
    end: str | None
    shown: str

    @property
    def event(self) -> bool:
        return self.predicate in EVENTS

    def matches(self, other: "Fact", strict: bool) -> bool:
        if self.predicate != other.predicate or not (self.subjects & other.subjects):
            return False
        if not (self.objects & other.objects):
            return False
        if not strict:
            return True
        if self.start != other.start:
            return False
        return self.event or self.end == other.end


def _show(subject, predicate, obj, start, end) -> str:
    def one(v):
        return "|".join(map(str, v)) if isinstance(v, list) else str(v)
    span = (start or "…") if predicate in EVENTS else f"{start or '…'} → {end or '…'}"
    return f"{one(subject)} –{predicate}→ {one(obj)}  [{span}]"


def gold_fact(raw: dict) -> Fact:
    return Fact(frozenset(_alternatives(raw["subject"])), raw["predicate"],
                frozenset(_alternatives(raw.get("object"))), raw.get("from"),
                None if raw["predicate"] in EVENTS else raw.get("to"),
                _show(raw["subject"], raw["predicate"], raw.get("object"), raw.get("from"), raw.get("to")))


def predicted_fact(read) -> Fact:
    end = None if read.predicate in EVENTS else read.valid_to
    return Fact(frozenset({norm(read.subject)}), read.predicate, frozenset({norm(read.object)}),
                read.valid_from, end,
                _show(read.subject, read.predicate, read.object, read.valid_from, end))


def load_cases(folder: Path, construction: str | None = None) -> list[dict]:
    """Every case of ``folder``'s ``*.jsonl`` files (one construction per file)."""
    cases = []
    for path in sorted(folder.glob("*.jsonl")):
        if construction and path.stem != construction:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                case = json.loads(line)
                case.setdefault("construction", path.stem)
                case["_where"] = f"{path.name}:{number}"
                cases.append(case)
    return cases


@dataclass
class Tally:
    gold: int = 0
    predicted: int = 0
    strict: int = 0
    loose_gold: int = 0

    def add(self, other: "Tally") -> None:
        self.gold += other.gold
        self.predicted += other.predicted
        self.strict += other.strict
        self.loose_gold += other.loose_gold

    def figures(self) -> dict:
        """Percentages; ``None`` where undefined (no prediction, or no gold fact)."""
        p = 100.0 * self.strict / self.predicted if self.predicted else None
        r = 100.0 * self.strict / self.gold if self.gold else None
        f1 = None if p is None or r is None else (2 * p * r / (p + r) if p + r else 0.0)
        return {"gold": self.gold, "predicted": self.predicted, "matched": self.strict,
                "precision": _round(p), "recall": _round(r), "f1": _round(f1),
                "recall_loose": _round(100.0 * self.loose_gold / self.gold if self.gold else None)}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _pct(value: float | None, width: int = 6) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.1f}"


@dataclass
class CaseResult:
    case: dict
    gold: list[Fact]
    predicted: list[Fact]
    strict_pairs: dict[int, int] = field(default_factory=dict)  # prediction index -> gold index
    loose_pairs: dict[int, int] = field(default_factory=dict)
    error: str | None = None
    candidates: int = 0  # readings under the confidence bar (not predictions)


def _greedy(predicted: list[Fact], gold: list[Fact], strict: bool) -> dict[int, int]:
    pairs: dict[int, int] = {}
    taken: set[int] = set()
    for i, fact in enumerate(predicted):
        for j, truth in enumerate(gold):
            if j not in taken and fact.matches(truth, strict):
                pairs[i] = j
                taken.add(j)
                break
    return pairs


def score_case(case: dict, reads) -> CaseResult:
    gold = [gold_fact(f) for f in case["facts"]]
    predicted: list[Fact] = []
    seen: set = set()
    held = 0
    for read in reads:
        if read.predicate in UNTYPED:
            continue
        if getattr(read, "status", "live") != "live":  # a candidate awaits review: no prediction
            held += 1
            continue
        fact = predicted_fact(read)
        key = (fact.subjects, fact.predicate, fact.objects, fact.start, fact.end)
        if key not in seen:
            seen.add(key)
            predicted.append(fact)
    result = CaseResult(case, gold, predicted, _greedy(predicted, gold, True), _greedy(predicted, gold, False))
    result.candidates = held
    return result


def run(cases: list[dict], on_error=None) -> list[CaseResult]:
    """Extract every case with one shared extractor and score it."""
    from palace.mine.extract import extract_text
    from palace.nlp.extraction import Extractor
    from palace.nlp.rules import RelationRules
    from palace.graph.temporal import load_registry, load_values

    extractor = Extractor(rules=RelationRules.from_registry(load_registry(None), load_values(None)))
    results = []
    for case in cases:
        try:
            read = extract_text(case["text"], date=dt.date.fromisoformat(case["date"]),
                                title=case.get("title") or "", owner=case.get("owner"),
                                extractor=extractor)
            results.append(score_case(case, read.facts))
        except Exception as exc:  # one broken case must not hide the others' figures
            result = score_case(case, [])
            result.error = f"{type(exc).__name__}: {exc}"
            results.append(result)
            if on_error:
                on_error(case, result.error)
    return results


def summarise(results: list[CaseResult]) -> dict:
    overall, loose = Tally(), Tally()
    by_predicate: dict[str, Tally] = {}
    by_construction: dict[str, Tally] = {}
    nothing_cases, nothing_with_facts = 0, []
    inferred_gold = inferred_ok = 0
    for result in results:
        tally = Tally(len(result.gold), len(result.predicted), len(result.strict_pairs),
                      len(result.loose_pairs))
        overall.add(tally)
        loose.add(Tally(len(result.gold), len(result.predicted), len(result.loose_pairs),
                        len(result.loose_pairs)))
        by_construction.setdefault(result.case["construction"], Tally()).add(tally)
        for fact in result.gold:
            by_predicate.setdefault(fact.predicate, Tally()).gold += 1
        for i, fact in enumerate(result.predicted):
            by_predicate.setdefault(fact.predicate, Tally()).predicted += 1
            if i in result.strict_pairs:
                by_predicate[fact.predicate].strict += 1
            if i in result.loose_pairs:
                by_predicate[fact.predicate].loose_gold += 1
        if not result.gold:
            nothing_cases += 1
            if result.predicted:
                nothing_with_facts.append(result.case["id"])
    for result in results:
        raw = result.case["facts"]
        matched_gold = set(result.strict_pairs.values())
        for j, fact in enumerate(raw):
            if fact.get("evidence") == "inferred":
                inferred_gold += 1
                inferred_ok += j in matched_gold
    strict = overall.figures()
    goal = (strict["recall"] or 0.0) >= GOAL_RECALL and (strict["precision"] or 0.0) >= GOAL_PRECISION
    return {
        "cases": len(results),
        "candidates": sum(r.candidates for r in results),
        "errors": [r.case["id"] for r in results if r.error],
        "overall": {"strict": strict, "loose": {k: v for k, v in loose.figures().items() if k != "recall_loose"}},
        "per_predicate": {k: v.figures() for k, v in sorted(by_predicate.items())},
        "per_construction": {k: v.figures() for k, v in sorted(by_construction.items())},
        "nothing_cases": nothing_cases,
        "nothing_cases_with_facts": nothing_with_facts,
        "inferred_gold_matched": [inferred_ok, inferred_gold],
        "goal": {"recall": GOAL_RECALL, "precision": GOAL_PRECISION, "pass": goal},
    }


def _table(title: str, rows: dict[str, dict]) -> list[str]:
    width = max([len(title)] + [len(k) for k in rows])
    lines = [f"{title:<{width}}  {'gold':>5} {'pred':>5} {'P':>6} {'R':>6} {'F1':>6} {'R loose':>8}"]
    for name, f in rows.items():
        lines.append(f"{name:<{width}}  {f['gold']:>5} {f['predicted']:>5} {_pct(f['precision'])} "
                     f"{_pct(f['recall'])} {_pct(f['f1'])} {_pct(f['recall_loose'], 8)}")
    return lines


def render(summary: dict, seconds: float) -> str:
    s, lo = summary["overall"]["strict"], summary["overall"]["loose"]
    out = [f"extraction eval: {summary['cases']} cases, {s['gold']} gold facts, "
           f"{s['predicted']} predicted, {summary['candidates']} candidates beside them ({seconds:.1f} s)", ""]
    out.append(f"overall strict  P {_pct(s['precision'], 5)}  R {_pct(s['recall'], 5)}  F1 {_pct(s['f1'], 5)}  "
               f"({s['matched']} matched)")
    out.append(f"overall loose   P {_pct(lo['precision'], 5)}  R {_pct(lo['recall'], 5)}  F1 {_pct(lo['f1'], 5)}  "
               f"({lo['matched']} matched, dates ignored)")
    out.append("")
    out += _table("predicate", summary["per_predicate"])
    out.append("")
    out += _table("construction", summary["per_construction"])
    out.append("")
    bad = summary["nothing_cases_with_facts"]
    out.append(f"gold-nothing cases that produced a fact: {len(bad)} of {summary['nothing_cases']}"
               + (f" ({', '.join(bad[:12])}{', …' if len(bad) > 12 else ''})" if bad else ""))
    ok, total = summary["inferred_gold_matched"]
    out.append(f"gold facts read through a pronoun or first person (inferred): {ok} of {total} matched strictly")
    if summary["errors"]:
        out.append(f"cases where extraction raised: {len(summary['errors'])} ({', '.join(summary['errors'][:12])})")
    verdict = "PASS" if summary["goal"]["pass"] else "MISS"
    out.append(f"goal: recall >= {GOAL_RECALL:.0f} % at precision >= {GOAL_PRECISION:.0f} % (strict): "
               f"R {_pct(s['recall'], 0)} %, P {_pct(s['precision'], 0)} % -> {verdict}")
    return "\n".join(out)


def _excerpt(text: str, limit: int = 110) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def render_errors(results: list[CaseResult]) -> str:
    out = []
    for result in results:
        missed = [j for j in range(len(result.gold)) if j not in set(result.strict_pairs.values())]
        wrong = [i for i in range(len(result.predicted)) if i not in result.strict_pairs]
        if not missed and not wrong and not result.error:
            continue
        out.append(f"{result.case['id']}  ({result.case['_where']}, dated {result.case['date']})  "
                   f"{_excerpt(result.case['text'])}")
        if result.error:
            out.append(f"    ERROR {result.error}")
        for i in wrong:
            fact = result.predicted[i]
            twin = next((g for j, g in enumerate(result.gold) if j in missed and fact.matches(g, False)), None)
            out.append(f"    FP  {fact.shown}" + (f"   (dates differ from gold {twin.shown})" if twin else ""))
        for j in missed:
            out.append(f"    FN  {result.gold[j].shown}")
    return "\n".join(out) if out else "no errors"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, default=DEFAULT_CASES, help="folder of <construction>.jsonl files")
    parser.add_argument("--construction", help="only the cases of this construction (a file's name)")
    parser.add_argument("--errors", action="store_true", help="list every false negative and false positive")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    args = parser.parse_args(argv)
    cases = load_cases(args.cases, args.construction)
    if not cases:
        print(f"Error: no cases in {args.cases}" + (f" for construction {args.construction!r}"
                                                     if args.construction else ""), file=sys.stderr)
        return 1
    started = time.perf_counter()
    results = run(cases, on_error=lambda case, err: print(f"{case['id']}: {err}", file=sys.stderr))
    seconds = time.perf_counter() - started
    summary = summarise(results)
    if args.json:
        summary["seconds"] = round(seconds, 2)
        print(json.dumps(summary, ensure_ascii=False, indent=2))
    else:
        if args.errors:
            print(render_errors(results))
            print()
        print(render(summary, seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
