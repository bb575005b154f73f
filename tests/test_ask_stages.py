"""The ask flow's seams: one Scope, the retrievers as a table whose rows name the lists
they read, the re-ranking rules as rows, and no handle inside the flow."""

from __future__ import annotations

import ast
import datetime as dt
import math
from pathlib import Path

import pytest

from palace.ask import candidates, ranking
from palace.ask.candidates import RETRIEVERS, Found, Retriever
from palace.ask.scope import Scope
from palace.nlp.dates import DateInterval
from palace.store.vectors import date_number

NOW = dt.date(2025, 6, 15)
Q3 = DateInterval(dt.date(2024, 7, 1), dt.date(2024, 10, 1), "quarter")
ASK = Path(__file__).resolve().parents[1] / "palace" / "ask"


@pytest.mark.unit
def test_every_retriever_reads_only_lists_built_before_it():
    built: set[str] = set()
    for row in RETRIEVERS:
        assert set(row.reads) <= built, f"{row.name} reads {set(row.reads) - built}, built after it"
        assert row.name not in built, f"two rows build {row.name}"
        built.add(row.name)


def test_a_new_retriever_is_one_row_and_one_function(sample_palace, monkeypatch):
    """A row added to the table runs after the others, receives exactly the lists it
    names, and its list is fused with its own weight: the hit it raises explains it, and
    the contributions still add up to the score."""
    received = []

    def last_of_bm25(inputs, read):
        received.append([ranked.retriever for ranked in read])
        return Found((read[0].items[-1],), weight=2.0, notes=("last of bm25: raised",))

    plain = sample_palace.ask("what did we decide about the Harbor budget", now=NOW, top_k=1000)
    monkeypatch.setattr(candidates, "RETRIEVERS", (*RETRIEVERS, Retriever("last", ("bm25",), last_of_bm25)))
    result = sample_palace.ask("what did we decide about the Harbor budget", now=NOW)
    assert received[-1] == ["bm25"]
    assert result.plan.weights["last"] == 2.0 and "last of bm25: raised" in result.plan.notes
    raised = [hit for hit in result.results if any(c.retriever == "last" for c in hit.why.retrievers)]
    assert len(raised) == 1
    before = next((h.rank for h in plain.results if h.drawer_id == raised[0].drawer_id), len(plain.results) + 1)
    assert raised[0].rank < before
    assert math.isclose(sum(c.rrf for c in raised[0].why.retrievers), raised[0].score)


def test_a_retriever_that_does_not_run_leaves_no_list(sample_palace, monkeypatch):
    monkeypatch.setattr(candidates, "RETRIEVERS", (*RETRIEVERS, Retriever("never", (), lambda inputs, read: None)))
    result = sample_palace.ask("what did we decide about the Harbor budget", now=NOW)
    assert "never" not in result.plan.weights
    assert not any(c.retriever == "never" for hit in result.results for c in hit.why.retrievers)


@pytest.mark.unit
def test_the_scope_says_its_wing_room_and_window_once():
    assert Scope().condition() == ("", [])
    assert Scope(wing="w", room="r").condition() == ("f.wing = ? AND f.room = ?", ["w", "r"])
    assert Scope().where() is None
    assert Scope(room="r").where() == {"room": "r"}
    assert Scope(wing="w", window=Q3, mode="boost").where() == {"wing": "w"}  # a window that ranks never filters
    assert Scope(wing="w", window=Q3, mode="filter").where() == {"$and": [
        {"wing": "w"}, {"date_end": {"$gt": date_number("2024-07-01")}},
        {"date_start": {"$lt": date_number("2024-10-01")}}]}
    open_start = DateInterval(dt.date.min, dt.date(2024, 10, 1), "range")
    assert Scope(window=open_start, mode="filter").where() == {"date_start": {"$lt": date_number("2024-10-01")}}
    assert Scope(window=Q3, mode="boost").label() == f"{Q3} [boost]" and Scope().label() is None


@pytest.mark.unit
def test_inside_a_window_that_ranks_are_the_drawers_it_holds_in_scope():
    scope = Scope(window=Q3, mode="boost", allowed=frozenset({1, 2, 3, 5}), tiers={1: 3, 2: 2, 4: 2, 5: 1})
    inside = scope.inside()
    assert inside.allowed == {1, 2} and inside.mode == "filter" and inside.where() is not None
    assert Scope(window=Q3, mode="boost", tiers={5: 1, 6: 1}).inside().allowed == {5, 6}  # only weak: all of them
    assert Scope().admit({1}) == Scope()  # every drawer is already in an open scope
    assert Scope(allowed=frozenset({1})).admit({2}).allowed == {1, 2}


@pytest.mark.unit
def test_re_ranking_rules_multiply_under_the_last_reason(monkeypatch):
    seen = []

    def first(conn, ids, demoting):
        seen.append(ids)
        return {"a", "b"}, "first"

    monkeypatch.setattr(ranking, "DEMOTIONS", ((0.5, first), (0.25, lambda conn, ids, demoting: ({"b"}, "second"))))
    monkeypatch.setattr(ranking, "DEMOTE_DEPTH", 2)
    fused = [("a", 1.0, ()), ("b", 0.9, ()), ("c", 0.1, ())]
    assert ranking.demotions(None, fused, None) == {"a": (0.5, "first"), "b": (0.125, "second")}
    assert seen == [["a", "b"]]  # only the first DEMOTE_DEPTH candidates


@pytest.mark.unit
def test_no_module_of_the_ask_flow_imports_the_handle():
    """Not even under TYPE_CHECKING: the flow receives the store, the config and the registry."""
    for path in sorted(ASK.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n == "palace.core" or n.startswith("palace.core.") for n in names), path.name
