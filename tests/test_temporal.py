"""Supersession of one-value facts and the predicate registry (pure functions)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from palace.errors import ConfigError
from palace.config import Config
from palace.graph.temporal import Assertion, Closure, close_timeline, load_registry

D = dt.date


@pytest.mark.unit
def test_medication_switch_closes_the_old_value():
    lisinopril = Assertion(1, "Lisinopril 10mg", D(2024, 1, 10))
    still = Assertion(2, "Lisinopril 10mg", D(2024, 2, 11))  # "still on the Lisinopril"
    metoprolol = Assertion(3, "Metoprolol", D(2024, 4, 2))
    timeline = close_timeline([metoprolol, lisinopril, still])
    assert timeline[1] == Closure(D(2024, 4, 2), 3)
    assert timeline[2] == Closure(D(2024, 4, 2), 3)
    assert timeline[3] == Closure(None, None)


@pytest.mark.unit
def test_plan_downgrade_and_a_return():
    timeline = close_timeline([
        Assertion(10, "Enterprise", D(2023, 1, 17)),
        Assertion(11, "Starter", D(2025, 1, 2)),
        Assertion(12, "Enterprise", D(2026, 1, 2)),
    ])
    assert timeline[10] == Closure(D(2025, 1, 2), 11)
    assert timeline[11] == Closure(D(2026, 1, 2), 12)
    assert timeline[12] == Closure(None, None)


@pytest.mark.unit
def test_same_day_different_values_is_a_conflict_and_neither_wins():
    timeline = close_timeline([
        Assertion(1, "Northwind Labs", D(2024, 9, 2)),
        Assertion(2, "Acme Robotics", D(2024, 9, 2)),
    ])
    assert timeline[1] == Closure(None, None, (2,))
    assert timeline[2] == Closure(None, None, (1,))


@pytest.mark.unit
def test_a_later_fact_closes_both_sides_of_a_conflict():
    timeline = close_timeline([
        Assertion(1, "A", D(2024, 1, 1)), Assertion(2, "B", D(2024, 1, 1)), Assertion(3, "C", D(2024, 6, 1)),
    ])
    assert timeline[1].valid_to == timeline[2].valid_to == D(2024, 6, 1)
    assert timeline[1].superseded_by == timeline[2].superseded_by == 3


assertions = st.lists(
    st.builds(
        Assertion,
        id=st.integers(1, 10_000),
        value=st.sampled_from(["Starter", "Enterprise", "Team"]),
        valid_from=st.dates(D(2020, 1, 1), D(2026, 12, 31)),
    ),
    max_size=12,
    unique_by=lambda a: a.id,
)


@given(assertions, st.randoms())
def test_mining_order_never_matters(facts, random):
    shuffled = list(facts)
    random.shuffle(shuffled)
    assert close_timeline(facts) == close_timeline(shuffled)


@given(assertions)
def test_values_end_only_where_another_value_begins(facts):
    timeline = close_timeline(facts)
    for a in facts:
        closure = timeline[a.id]
        later = [b for b in facts if b.valid_from > a.valid_from]
        if closure.valid_to is None:  # current: nothing later says otherwise
            assert all(b.value == a.value for b in later)
        else:
            closers = [b for b in later if b.valid_from == closure.valid_to and b.value != a.value]
            assert closers and closure.superseded_by == min(b.id for b in closers)
            assert all(b.value == a.value for b in later if b.valid_from < closure.valid_to)


@pytest.mark.unit
def test_a_conflict_resolved_by_a_later_note_keeps_the_confirmed_value_open():
    timeline = close_timeline([
        Assertion(1, "Enterprise", D(2020, 1, 1)), Assertion(2, "Starter", D(2020, 1, 1)),
        Assertion(3, "Starter", D(2020, 1, 2)),
    ])
    assert timeline[1] == Closure(D(2020, 1, 2), 3, (2,))
    assert timeline[2] == Closure(None, None, (1,))
    assert timeline[3] == Closure(None, None)


@pytest.mark.unit
def test_registry_has_the_one_value_predicates_and_a_palace_can_extend_it(tmp_path):
    registry = load_registry()
    one = {name for name, p in registry.items() if p.cardinality == "one"}
    assert {"works_at", "role", "plan", "status", "takes", "lives_in", "reports_to"} <= one
    assert registry["mentioned_with"].cardinality == "many"
    (tmp_path / "config.json").write_text(json.dumps({"predicates": [
        {"name": "diet", "cardinality": "one", "subject": ["PERSON"], "object": ["VALUE"], "verbs": ["eat"]},
        {"name": "uses", "cardinality": "one"},
    ]}))
    extended = load_registry(Config.load(tmp_path))
    assert extended["diet"].verbs == ("eat",) and extended["uses"].cardinality == "one"
    (tmp_path / "config.json").write_text(json.dumps({"predicates": [{"name": "x", "cardinality": "some"}]}))
    with pytest.raises(ConfigError, match="cardinality must be 'one' or 'many'") as raised:
        load_registry(Config.load(tmp_path))
    assert raised.value.hint  # the CLI prints it: a bad config is an error with a next step, not a traceback


@pytest.mark.unit
def test_apply_timelines_closes_only_the_one_value_group(empty_palace):
    from palace.store import sqlite as store
    from palace.graph.temporal import apply_timelines

    conn = store.connect(empty_palace)
    conn.execute("INSERT INTO entities (id, name, type, key) VALUES (1, 'Ruth', 'PERSON', 'ruth'),"
                 " (2, 'Alice', 'PERSON', 'alice')")

    def add(fact_id, subject, predicate, value, day, invalidated=None):
        conn.execute(
            "INSERT INTO facts (id, subject_id, predicate, object_value, valid_from, recorded_at, invalidated_at,"
            " status, drawer_id, wing, path, char_start, char_end, sentence, extractor, confidence)"
            " VALUES (?, ?, ?, ?, ?, '2024-05-01T00:00:00', ?, ?, 'd', 'w', 'p.md', 0, 1, 's', 'test', 1.0)",
            (fact_id, subject, predicate, value, day, invalidated, "retracted" if invalidated else "live"),
        )

    add(1, 1, "takes", "Metoprolol", "2024-04-02")
    add(2, 1, "takes", "Lisinopril 10mg", "2024-01-10")
    add(3, 1, "takes", "Aspirin", "2024-03-01", invalidated="2024-05-02T00:00:00")  # retracted: ignored
    add(4, 1, "uses", "Larkspur", "2023-01-01")  # cardinality many: untouched
    add(5, 2, "takes", "Ibuprofen", "2023-06-01")  # another subject: untouched
    with store.transaction(conn):
        changed = apply_timelines(conn, [(1, "takes"), (1, "uses")])
    rows = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT id, valid_to, superseded_by FROM facts")}
    assert changed == 1
    assert rows == {1: (None, None), 2: ("2024-04-02", 1), 3: (None, None), 4: (None, None), 5: (None, None)}


@pytest.mark.unit
def test_an_ending_closes_the_value_it_names_and_an_ending_without_one_closes_whatever_held():
    # "Ines leads Falcon" (2023), "Ines stepped down as lead of Falcon" (2024-06-01)
    timeline = close_timeline([Assertion(1, "falcon", D(2023, 1, 10)), Assertion(2, "falcon", None, D(2024, 6, 1))],
                              one_value=False)
    assert timeline[1] == Closure(D(2024, 6, 1), None) and timeline[2] == Closure(D(2024, 6, 1), None)
    # an ending of another value leaves a many-value fact alone; one naming none closes it
    assert close_timeline([Assertion(1, "falcon", D(2023, 1, 10)), Assertion(2, "harbor", None, D(2024, 6, 1))],
                          one_value=False)[1].valid_to is None
    assert close_timeline([Assertion(1, "umbrella", D(2023, 1, 10)), Assertion(2, None, None, D(2024, 6, 1))]
                          )[1].valid_to == D(2024, 6, 1)
    # the same day: hired and resigned
    assert close_timeline([Assertion(1, "umbrella", D(2024, 6, 1)), Assertion(2, None, None, D(2024, 6, 1))]
                          )[1].valid_to == D(2024, 6, 1)


@pytest.mark.unit
def test_a_stated_end_stays_unless_a_later_value_comes_first():
    # "played for Ajax from 1999 to 2003", then "joined Barcelona in 2001"
    timeline = close_timeline([Assertion(1, "ajax", D(1999, 1, 1), D(2004, 1, 1)),
                               Assertion(2, "barcelona", D(2001, 1, 1))])
    assert timeline[1] == Closure(D(2001, 1, 1), 2) and timeline[2].valid_to is None
    assert close_timeline([Assertion(1, "ajax", D(1999, 1, 1), D(2004, 1, 1))])[1] == Closure(D(2004, 1, 1), None)
