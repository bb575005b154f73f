"""FactFilter (palace.store.facts) on hand-built fact rows in a migrated SQLite: each field
narrows as its docstring says (the selections written down), ``holds_on`` and
``valid_on`` a day against states, events, co-occurrences, superseded and invalidated
facts, open starts and ends; the fields are ANDed, ``any_of`` is a union, and the
placeholders and parameters agree for every combination (hypothesis)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palace.graph.temporal import default_registry
from palace.store import sqlite as db
from palace.store.drawers import save_file
from palace.store.fact_states import make_candidates
from palace.store.facts import FactFilter, any_fact, count_facts
from palace.store.graph import NewFact, close_fact, entity_id, insert_fact, invalidate_facts

pytestmark = pytest.mark.unit

D = dt.date.fromisoformat
REGISTRY = default_registry()

#: The hand-built facts, by id (1-based, in this order): subject, predicate, object
#: (a name, ``=value`` for a literal, None for an ending that names none), valid from, valid
#: to, recorded at (day, 09:00 UTC), wing, path; then what happened to it.
ROWS = [
    ("Ana", "works_at", "Acme", "2024-01-10", "2024-06-01", "2024-01-10", "w", "notes/a.md"),   # 1 superseded by 2
    ("Ana", "works_at", "Initech", "2024-06-01", None, "2024-06-01", "w", "notes/b.md"),        # 2 current
    ("Bo", "reports_to", "Ana", "2024-02-01", None, "2024-02-01", "w", "notes/c.md"),           # 3 invalidated 07-01
    ("Ana", "joined", "Initech", "2024-06-01", "2024-06-02", "2024-06-01", "w", "notes/b.md"),  # 4 an event
    ("Ana", "mentioned_with", "Bo", "2024-03-01", "2024-03-02", "2024-03-01", "other", "x.md"),  # 5 co-occurrence
    ("Bo", "lives_in", "Lisbon", "2025-01-01", None, "2024-06-01", "w", "log.md"),             # 6 begins later
    ("Bo", "lives_in", None, None, "2024-05-01", "2024-05-01", "w", "log.md"),                  # 7 ending, no value
    ("Acme", "plan", "=Pro", None, None, "2024-01-05", "w", "acme.md"),                        # 8 undated, superseded
    ("Acme", "plan", "=Enterprise", "2024-03-01", None, "2024-03-01", "w", "acme.md"),         # 9 current
    ("Bo", "works_at", "Acme", "2024-04-01", None, "2024-04-01", "w", "inbox/t.md"),           # 10 a candidate
    ("Ana", "lives_in", "Lisbon", None, "2024-09-01", "2024-09-01", "w", "notes/d.md"),        # 11 no start, ended
    ("Ana", "lives_in", "Lisbon", "2024-08-01", None, "2024-10-01", "w", "notes/d.md"),        # 12 its start, later
]
ALL = set(range(1, len(ROWS) + 1))
ROOMS = {"notes/a.md": "notes", "notes/b.md": "notes", "notes/c.md": "notes", "notes/d.md": "notes", "x.md": ".",
         "log.md": ".", "acme.md": ".", "inbox/t.md": "inbox"}
LABELS = {"Ana": "PERSON", "Bo": "PERSON", "Acme": "ORG", "Initech": "ORG", "Lisbon": "GPE"}


def _moment(day: str, hour: int = 9) -> str:
    return f"{day}T{hour:02d}:00:00+00:00"


@pytest.fixture(scope="module")
def facts_db(tmp_path_factory, migrated_palace):
    """A palace.db holding :data:`ROWS`, written through the store's own writes."""
    conn = db.connect(migrated_palace(tmp_path_factory.mktemp("fact-filter")))
    ids: dict[str, int] = {}
    with db.transaction(conn):
        cache: dict = {}
        for name, label in LABELS.items():
            ids[name] = entity_id(conn, cache, name, label)
        for (wing, path), room in {(r[6], r[7]): ROOMS[r[7]] for r in ROWS}.items():
            save_file(conn, dict(wing=wing, root="/notes", path=path, room=room, status="indexed",
                                 mined_at=_moment("2024-01-01")), None)
        for number, (subject, predicate, obj, start, end, recorded, wing, path) in enumerate(ROWS, 1):
            literal = obj[1:] if obj and obj.startswith("=") else None
            fact = NewFact(ids[subject], predicate, ids[obj] if obj and not literal else None, literal,
                           start and D(start), end and D(end), "day", _moment(recorded), f"drawer-{number}", wing,
                           path, 0, 10, f"sentence {number}", "test/hand-built", 0.9, "stated")
            assert insert_fact(conn, fact) == number
        close_fact(conn, 1, "2024-06-01", 2)
        close_fact(conn, 8, None, 9)
        invalidate_facts(conn, at=_moment("2024-07-01", 10), reason="file deleted", fact_ids=[3])
        make_candidates(conn, [10])  # never held: invalidated when recorded
    yield conn, ids
    conn.close()


def selected(conn, wanted: FactFilter) -> set[int]:
    where, params = wanted.where(REGISTRY)
    assert where.count("?") == len(params), where
    return {r[0] for r in conn.execute(f"SELECT f.id FROM facts f WHERE {where}", params)}


def test_no_field_selects_every_fact(facts_db):
    conn, _ = facts_db
    assert FactFilter().where(REGISTRY) == ("1", [])
    assert selected(conn, FactFilter()) == ALL


def test_what_a_fact_says(facts_db):
    conn, ids = facts_db
    assert selected(conn, FactFilter(entity_ids=(ids["Ana"],))) == {1, 2, 3, 4, 5, 11, 12}  # subject or object
    assert selected(conn, FactFilter(entity_ids=(ids["Bo"], ids["Lisbon"]))) == {3, 5, 6, 7, 10, 11, 12}
    assert selected(conn, FactFilter(value="PRO")) == {8}  # a literal, whatever its case
    assert selected(conn, FactFilter(entity_ids=(ids["Acme"],), value="pro")) == {1, 8, 9, 10}  # either matches
    assert selected(conn, FactFilter(fact_ids=(2, 3, 99))) == {2, 3}
    assert selected(conn, FactFilter(predicate="works_at")) == {1, 2, 10}
    assert selected(conn, FactFilter(typed_only=True)) == ALL - {5}
    assert selected(conn, FactFilter(kind="event")) == {4}
    assert selected(conn, FactFilter(kind="state")) == ALL - {4}
    assert selected(conn, FactFilter(wing="other")) == {5}
    assert selected(conn, FactFilter(room="notes")) == {1, 2, 3, 4, 11, 12}
    assert selected(conn, FactFilter(room="inbox")) == {10}
    assert selected(conn, FactFilter(room=".")) == {5, 6, 7, 8, 9}


@pytest.mark.parametrize("day, holding", [
    # 1 superseded, 3 invalidated, 10 a candidate, 7 an ending with no value: never;
    # 4 (an event) and 5 (a co-occurrence) stay on record: begun and not ended are asked
    # of states only, so they hold on any day, before theirs too;
    # 6 and 12 have not begun; 11 (no start) holds until its end
    ("2024-07-01", {2, 4, 5, 9, 11}),
    ("2024-03-01", {4, 5, 9, 11}),
    ("2024-09-01", {2, 4, 5, 9, 12}),  # 11 ended that day (half-open)
    ("2025-06-01", {2, 4, 5, 6, 9, 12}),
])
def test_holds_on_a_day(facts_db, day, holding):
    conn, _ = facts_db
    assert selected(conn, FactFilter(holds_on=D(day))) == holding


@pytest.mark.parametrize("day, valid", [
    # true in the world then, whatever the palace learned later (3 and 10 are in);
    # 8 (undated, contradicted by a dated value) never; 11 (no start) not before the
    # notes give its value a start (12, from 08-01); 7 names no value
    ("2024-07-01", {2, 3, 9, 10}),
    ("2024-08-15", {2, 3, 9, 10, 11, 12}),
    ("2024-03-01", {1, 3, 5, 9}),
    ("2024-06-01", {2, 3, 4, 9, 10}),  # 1 ended that day; 4's day
])
def test_valid_on_a_day(facts_db, day, valid):
    conn, _ = facts_db
    assert selected(conn, FactFilter(valid_on=D(day))) == valid


def test_known_at_a_moment_is_recorded_time(facts_db):
    conn, _ = facts_db
    assert selected(conn, FactFilter(known_at="2024-06-01")) == set(range(1, 10))  # a bare day: its last second
    assert selected(conn, FactFilter(known_at="2024-06-01T08:59:59+00:00")) == {1, 3, 5, 7, 8, 9}
    assert selected(conn, FactFilter(known_at=_moment("2024-07-01", 10))) == {1, 2, 4, 5, 6, 7, 8, 9}  # 3 gone then
    assert selected(conn, FactFilter(known_at="2023-12-31")) == set()


def test_live_unsuperseded_and_candidates(facts_db):
    conn, _ = facts_db
    assert selected(conn, FactFilter(live=True)) == ALL - {3, 10}
    assert selected(conn, FactFilter(unsuperseded=True)) == ALL - {1, 8}
    assert selected(conn, FactFilter(candidates=True)) == {10}
    assert selected(conn, FactFilter(drop_undated_superseded=True)) == ALL - {8}


def test_valid_time_bounds(facts_db):
    conn, _ = facts_db
    assert selected(conn, FactFilter(overlaps=(D("2024-05-15"), D("2024-06-15")))) == {1, 2, 3, 4, 8, 9, 10, 11}
    assert selected(conn, FactFilter(begun_by=D("2024-03-01"))) == {1, 3, 5, 7, 8, 9, 11}  # no start: begun
    assert selected(conn, FactFilter(not_ended_by=D("2024-06-01"))) == {2, 3, 4, 6, 8, 9, 10, 11, 12}
    assert selected(conn, FactFilter(ended_by=D("2024-06-01"))) == {1, 5, 7}  # no end: not ended
    assert selected(conn, FactFilter(begins_after=D("2024-06-01"))) == {6, 12}


def test_changes_in_valid_and_in_recorded_time(facts_db):
    conn, _ = facts_db
    assert selected(conn, FactFilter(changed_in=(D("2024-06-01"), D("2024-07-01")))) == {1, 2, 4}
    assert selected(conn, FactFilter(changed_in=(D("2024-06-02"), D("2024-06-03")))) == set()  # an event's end
    assert selected(conn, FactFilter(changed_in=(D("2024-09-01"), D("2024-09-02")))) == {11}  # a state's end
    # learned, invalidated, or superseded by a fact learned after the moment (1 by 2; not 8 by 9)
    assert selected(conn, FactFilter(changed_since="2024-05-15T00:00:00+00:00")) == {1, 2, 3, 4, 6, 11, 12}


def test_fields_narrow_together_and_any_of_widens(facts_db):
    conn, ids = facts_db
    assert selected(conn, FactFilter(entity_ids=(ids["Ana"],), predicate="works_at", holds_on=D("2024-07-01"))) == {2}
    either = FactFilter(any_of=(FactFilter(predicate="joined"), FactFilter(value="pro")))
    assert selected(conn, either) == {4, 8}
    assert selected(conn, dataclasses.replace(either, wing="w", live=True)) == {4, 8}
    assert selected(conn, dataclasses.replace(either, unsuperseded=True)) == {4}
    assert count_facts(conn, either, REGISTRY) == 2 and any_fact(conn, either, REGISTRY)
    assert not any_fact(conn, FactFilter(predicate="joined", value="pro"), REGISTRY)


# -- every combination ------------------------------------------------------------------

_DAYS = st.sampled_from([D(d) for d in ("2023-12-31", "2024-01-10", "2024-03-01", "2024-05-01", "2024-06-01",
                                        "2024-06-02", "2024-07-01", "2024-08-15", "2024-09-01", "2025-06-01")])
_MOMENTS = st.sampled_from(["2024-03-01", "2024-06-01", "2024-05-15T00:00:00+00:00", _moment("2024-07-01", 10),
                            "2024-06-01T09:00:00+00:00"])
_SPANS = st.tuples(_DAYS, _DAYS).map(lambda pair: tuple(sorted(pair)))
#: every field of FactFilter but ``any_of``, each drawn or left unset
_FIELDS = dict(
    entity_ids=st.lists(st.integers(1, len(LABELS)), max_size=2).map(tuple),
    value=st.sampled_from(["Pro", "enterprise", "none of them"]),
    fact_ids=st.lists(st.integers(1, len(ROWS) + 1), max_size=3).map(tuple),
    predicate=st.sampled_from(["works_at", "joined", "lives_in", "plan", "mentioned_with", "reports_to"]),
    typed_only=st.just(True), kind=st.sampled_from(["state", "event"]), wing=st.sampled_from(["w", "other"]),
    room=st.sampled_from(["notes", ".", "inbox"]), holds_on=_DAYS, valid_on=_DAYS, known_at=_MOMENTS,
    live=st.just(True), unsuperseded=st.just(True), overlaps=_SPANS, begun_by=_DAYS, not_ended_by=_DAYS,
    ended_by=_DAYS, begins_after=_DAYS, drop_undated_superseded=st.just(True), changed_in=_SPANS,
    changed_since=_MOMENTS, candidates=st.just(True),
    statuses=st.lists(st.sampled_from(["live", "candidate", "invalidated", "planned"]), min_size=1, max_size=2,
                      unique=True).map(tuple),
    not_wings=st.lists(st.sampled_from(["w", "other"]), min_size=1, max_size=2, unique=True).map(tuple),
)
def test_states_and_wings_left_out(facts_db):
    conn, _ = facts_db
    assert selected(conn, FactFilter(statuses=("candidate",))) == {10}
    assert selected(conn, FactFilter(statuses=("invalidated", "planned"))) == {3}
    assert selected(conn, FactFilter(statuses=("live", "candidate"))) == ALL - {3}  # superseded facts stay live
    assert selected(conn, FactFilter(not_wings=("other",))) == ALL - {5}
    assert selected(conn, FactFilter(not_wings=("w", "other"))) == set()


assert set(_FIELDS) | {"any_of"} == {f.name for f in dataclasses.fields(FactFilter)}, "a new field needs a strategy"


@st.composite
def _filters(draw, depth: int = 1) -> FactFilter:
    chosen = draw(st.lists(st.sampled_from(sorted(_FIELDS)), unique=True, max_size=5))
    values = {name: draw(_FIELDS[name]) for name in chosen}
    if depth and draw(st.booleans()):
        values["any_of"] = tuple(draw(st.lists(_filters(depth - 1), min_size=1, max_size=3)))
    return FactFilter(**values)


def _one_condition_each(wanted: FactFilter) -> list[FactFilter]:
    """``wanted`` cut into filters of one condition each (``entity_ids`` with ``value``
    is one: either matches)."""
    parts = []
    for field in dataclasses.fields(FactFilter):
        value = getattr(wanted, field.name)
        if field.name == "value" or value == field.default or (field.name == "entity_ids" and not value):
            continue
        alone = {field.name: value, **({"value": wanted.value} if field.name == "entity_ids" else {})}
        parts.append(FactFilter(**alone))
    if wanted.value is not None and not wanted.entity_ids:
        parts.append(FactFilter(value=wanted.value))
    return parts


@settings(max_examples=150, deadline=None)
@given(wanted=_filters())
def test_every_combination_is_the_intersection_of_its_fields(facts_db, wanted):
    conn, _ = facts_db
    got = selected(conn, wanted)  # placeholders and parameters agree, and SQLite runs it
    expected = set(ALL)
    for part in _one_condition_each(wanted):
        expected &= selected(conn, part)
    assert got == expected
    if wanted.any_of:
        assert selected(conn, FactFilter(any_of=wanted.any_of)) == set().union(
            *(selected(conn, alt) for alt in wanted.any_of))
    assert count_facts(conn, wanted, REGISTRY) == len(got) and any_fact(conn, wanted, REGISTRY) == bool(got)
