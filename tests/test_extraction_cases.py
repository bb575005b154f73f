"""The extraction gold set (tests/extraction_cases/) is well formed. This checks the case
files only, never the extractor's score (that is benchmarks/eval_extraction.py)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

CASES = Path(__file__).resolve().parent / "extraction_cases"
#: Written without looking at the rules, never used to tune them (see the README).
HELDOUT = Path(__file__).resolve().parent / "extraction_heldout"
PREDICATES = {
    "works_at", "role", "reports_to", "switched_to", "lives_in", "status", "plan", "takes", "plays_for",
    "member_of", "leads", "owns", "uses", "coaches", "studied_at",
    "approved", "decided", "created", "moved_to", "joined", "left", "replaced",
    # issue 22 part B
    "married_to", "chairs", "ceo_of", "commands", "rank", "works_in", "part_of", "headquartered_in", "home_venue",
    "in_league", "signed_to", "capital", "depends_on", "blocked_by", "affects", "requested_by", "policy",
}
EVENTS = {"approved", "decided", "created", "moved_to", "joined", "left", "replaced", "requested_by"}
CONSTRUCTIONS = {
    "active", "passive", "copula", "appositive", "relative", "coordination", "quantity", "transition",
    "ending", "handover", "keyvalue", "frontmatter", "pronoun", "first_person", "interval",
    "encyclopedic", "names", "negative", "biography", "holders", "work",
    "group_decision",
}
CASE_FIELDS = {"id", "construction", "text", "date", "title", "owner", "facts", "note"}
FACT_FIELDS = {"subject", "predicate", "object", "from", "to", "evidence"}


def _cases(folder: Path = CASES) -> list[tuple[str, int, dict]]:
    out = []
    for path in sorted(folder.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                out.append((path.stem, number, json.loads(line)))
    return out


def _iso(value) -> bool:
    if value is None:
        return True
    try:
        return dt.date.fromisoformat(value).isoformat() == value
    except (TypeError, ValueError):
        return False


def _name(value, allow_null: bool) -> bool:
    if value is None:
        return allow_null
    if isinstance(value, list):
        return bool(value) and all(isinstance(v, str) and v.strip() for v in value)
    return isinstance(value, str) and bool(value.strip())


def test_every_file_is_a_known_construction():
    assert {p.stem for p in CASES.glob("*.jsonl")} == CONSTRUCTIONS


def test_enough_cases_with_unique_ids():
    cases = _cases()
    ids = [case["id"] for _, _, case in cases]
    assert len(cases) >= 300
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    assert sum(1 for _, _, case in cases if case["construction"] == "negative") >= 40


@pytest.mark.parametrize("stem, number, case", _cases() + _cases(HELDOUT),
                         ids=lambda v: v["id"] if isinstance(v, dict) else None)
def test_case_is_well_formed(stem, number, case):
    assert set(case) <= CASE_FIELDS, set(case) - CASE_FIELDS
    assert case["construction"] == stem or (stem == "heldout" and case["construction"] in CONSTRUCTIONS)
    assert isinstance(case["text"], str) and case["text"].strip()
    assert isinstance(case["date"], str) and case["date"] and _iso(case["date"])
    for key in ("title", "owner", "note"):
        assert key not in case or (isinstance(case[key], str) and case[key].strip())
    assert isinstance(case["facts"], list)
    if case["construction"] == "negative":
        assert case["facts"] == []
    for fact in case["facts"]:
        assert set(fact) >= {"subject", "predicate", "object", "from", "to"}, fact
        assert set(fact) <= FACT_FIELDS, fact
        assert fact["predicate"] in PREDICATES, fact
        assert _name(fact["subject"], allow_null=False), fact
        assert _name(fact["object"], allow_null=True), fact
        assert _iso(fact["from"]) and _iso(fact["to"]), fact
        if fact["predicate"] in EVENTS:
            assert fact["to"] is None, f"an event is compared on its day only: {fact}"
        if fact["from"] and fact["to"]:
            assert fact["from"] < fact["to"], fact
        assert fact.get("evidence", "inferred") == "inferred", fact
