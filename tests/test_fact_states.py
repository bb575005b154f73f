"""Fact state as data: every fact's ``status`` and the ``decision_id`` that put it there,
written only through :mod:`palace.store.fact_states`; undo finds a decision's facts by
it; the migration reads both from the prose of the reasons an older palace wrote."""

from __future__ import annotations

import datetime as dt

import pytest

from palace.core import Palace
from palace.errors import UsageError
from palace.store import decisions as rows
from palace.store import fact_states as states
from palace.store import sqlite as db
from palace.store.fact_states import StateChange
from palace.store.graph import NewFact, entity_id, insert_fact

pytestmark = pytest.mark.unit


@pytest.fixture()
def palace(tmp_path):
    """An empty palace (facts are added by hand: no mining, no model)."""
    with Palace.open(tmp_path / "palace") as opened:
        yield opened


def state(palace, fact_id: int) -> tuple:
    row = palace.conn.execute("SELECT status, decision_id, invalidated_at IS NOT NULL, invalidation_reason, evidence"
                              " FROM facts WHERE id = ?", (fact_id,)).fetchone()
    return tuple(row)


def mined(conn, subject: str, predicate: str, obj: str, *, drawer_id: str = "d1", day: str = "2024-03-01",
          recorded_at: str = "2024-03-02T10:00:00") -> int:
    """A fact row as mining writes it (read in a drawer ``drawer_id``, evidence ``stated``)."""
    cache: dict = {}
    with db.transaction(conn):
        return insert_fact(conn, NewFact(
            subject_id=entity_id(conn, cache, subject, "PERSON"), predicate=predicate,
            object_id=entity_id(conn, cache, obj, "ORG"), object_value=None, valid_from=dt.date.fromisoformat(day),
            valid_to=None, valid_granularity="day", recorded_at=recorded_at, drawer_id=drawer_id, wing="notes",
            path="sync.md", char_start=0, char_end=10, sentence=f"{subject} {predicate} {obj}.",
            extractor="palace.relations.v1/svo", confidence=0.9, evidence="stated"))


def test_a_state_change_has_one_placeholder_per_parameter():
    for change in (
        StateChange("live", fact_ids=(1, 2), was=("candidate",), decision_id=4, evidence="confirmed"),
        StateChange("candidate", decided_by=3, was=("live",), evidence="stated"),
        StateChange("rejected", fact_ids=(5,), was=("candidate",), decision_id=9, reason="wrong"),
        StateChange("retracted", fact_ids=(5, 6), decision_id=9, at="2024-01-01T00:00:00"),
        StateChange("invalidated", decided_by=2, was=("retracted",), source_gone=True, reason="gone"),
        StateChange("invalidated", drawer_id="user:3", was=("live",), at="2024-01-01T00:00:00", reason="x"),
    ):
        assignments, set_params, where, where_params = change.compile()
        assert assignments.count("?") == len(set_params) and where.count("?") == len(where_params), change


def test_a_state_change_names_its_facts_and_its_decision():
    with pytest.raises(ValueError, match="names its facts"):
        StateChange("live", was=("candidate",)).compile()  # never every fact of the palace
    with pytest.raises(ValueError, match="names the decision"):
        StateChange("retracted", fact_ids=(1,)).compile()
    with pytest.raises(ValueError, match="no fact status"):
        StateChange("current", fact_ids=(1,)).compile()


def test_every_decision_puts_its_facts_in_a_state_and_undo_takes_them_out(palace):
    added = palace.add_fact("Dana Lee", "works_at", "Initech", valid_from=dt.date(2024, 3, 1), new=True)
    assert state(palace, added.fact_id) == ("live", None, 0, None, "user")
    retraction = palace.retract_fact(added.fact_id, reason="old job")
    assert state(palace, added.fact_id) == (
        "retracted", retraction.id, 1, f"retracted by the user (decision #{retraction.id}): old job", "user")
    assert [f.state for f in palace.history("Dana Lee").facts] == ["retracted"]
    palace.undo_fact_decision(retraction.id)
    assert state(palace, added.fact_id) == ("live", None, 0, None, "user")

    proposed = palace.add_fact("Dana Lee", "role", "staff engineer", by="agent", candidate=True)
    assert state(palace, proposed.fact_id) == ("candidate", None, 1, states.CANDIDATE, "agent")
    assert [f.id for f in palace.pending_review().candidates] == [proposed.fact_id]
    (accepted,) = palace.review(True, fact_ids=(proposed.fact_id,))
    assert state(palace, proposed.fact_id) == ("live", accepted.id, 0, None, "agent")
    palace.undo_fact_decision(accepted.id)
    assert state(palace, proposed.fact_id) == ("candidate", None, 1, states.CANDIDATE, "agent")
    (rejected,) = palace.review(False, fact_ids=(proposed.fact_id,), reason="not her title")
    assert state(palace, proposed.fact_id) == (
        "rejected", rejected.id, 1, f"rejected by the user (decision #{rejected.id}): not her title", "agent")
    palace.undo_fact_decision(rejected.id)
    assert state(palace, proposed.fact_id) == ("candidate", None, 1, states.CANDIDATE, "agent")

    palace.undo_fact_decision(added.id)
    assert state(palace, added.fact_id) == (
        "invalidated", None, 1, f"withdrawn by the user (undo of decision #{added.id})", "user")
    assert palace.facts(about="Dana Lee").facts == ()


def test_undo_finds_the_facts_of_its_decision_not_the_words_of_their_reason(palace):
    conn = palace.conn
    first = palace.add_fact("Dana Lee", "works_at", "Initech", new=True).fact_id
    other = palace.add_fact("Omar Haddad", "works_at", "Globex", new=True).fact_id
    retraction = palace.retract_fact(first, reason="old job")
    later = palace.retract_fact(other)
    with db.transaction(conn):  # the reasons read the other way round: only the words changed
        conn.execute("UPDATE facts SET invalidation_reason = ? WHERE id = ?",
                     (f"retracted by the user (decision #{later.id})", first))
        conn.execute("UPDATE facts SET invalidation_reason = ? WHERE id = ?",
                     (f"retracted by the user (decision #{retraction.id})", other))
    palace.undo_fact_decision(retraction.id)
    assert state(palace, first)[0] == "live" and state(palace, other)[0] == "retracted"
    assert [f.object for f in palace.facts(about="Dana Lee", predicate="works_at").facts] == ["Initech"]


def test_a_retraction_undone_after_its_text_left_the_notes_keeps_the_fact_out(palace):
    conn = palace.conn
    fact = mined(conn, "Dana Lee", "works_at", "Initech", drawer_id="a-drawer-no-longer-there")
    retraction = palace.retract_fact(fact)
    retracted_at = conn.execute("SELECT invalidated_at FROM facts WHERE id = ?", (fact,)).fetchone()[0]
    palace.undo_fact_decision(retraction.id)
    assert state(palace, fact) == ("invalidated", None, 1, states.SOURCE_GONE, "stated")
    assert conn.execute("SELECT invalidated_at FROM facts WHERE id = ?", (fact,)).fetchone()[0] == retracted_at


def test_a_rule_made_candidate_is_accepted_by_its_rule_and_confirmed(palace):
    conn = palace.conn
    fact = mined(conn, "Dana Lee", "works_at", "Initech")
    with db.transaction(conn):
        assert [r["id"] for r in states.make_candidates(conn, [fact])] == [fact]
    assert palace.facts(about="Dana Lee").facts == () and palace.facts(about="Dana Lee").pending_review == 1
    (accepted,) = palace.review(True, rule="svo")
    assert state(palace, fact) == ("live", accepted.id, 0, None, "confirmed")
    with pytest.raises(UsageError, match="awaits no review"):
        palace.review(True, fact_ids=(fact,))


def test_the_migration_reads_each_state_and_decision_from_the_reasons(tmp_path, monkeypatch):
    """A palace written before fact states were data: every fact gets the state its
    reason said, and the decision its reason (or the acceptance in force) names."""
    monkeypatch.setattr(db, "MIGRATIONS", [m for m in db.MIGRATIONS if m[0] != "0012_fact_status"])
    conn = db.connect(tmp_path)
    assert "status" not in {r[1] for r in conn.execute("PRAGMA table_info(facts)")}
    reasons = {
        "live": None,
        "candidate": "candidate awaiting review",
        "rejected": "rejected by the user (decision #3): not her title",
        "retracted": "retracted by the user (decision #12)",
        "file changed": "file changed: text no longer there",
        "withdrawn": "withdrawn by the user (undo of decision #5)",
        "deleted": "file deleted",
    }
    ids = {}
    for n, (name, reason) in enumerate(reasons.items()):
        ids[name] = mined(conn, f"Person {chr(65 + n)}", "works_at", "Initech")
        if reason is not None:
            with db.transaction(conn):
                conn.execute("UPDATE facts SET invalidated_at = recorded_at, invalidation_reason = ? WHERE id = ?",
                             (reason, ids[name]))
    accepted = mined(conn, "Dana Lee", "works_at", "Globex")
    replayed = mined(conn, "Dana Lee", "works_at", "Globex", drawer_id="d2")  # the same statement, read again
    with db.transaction(conn):
        conn.execute("UPDATE facts SET evidence = 'confirmed' WHERE id IN (?, ?)", (accepted, replayed))
        accept_id = rows.insert_fact_decision(conn, rows.NewFactDecision(
            "accept", "user", "Dana Lee", "dana lee", "works_at", "Globex", "globex", "2024-03-01", None,
            fact_id=accepted, previous_evidence="stated", created_at="2024-03-03T09:00:00"))
    monkeypatch.undo()
    assert db.migrate(conn) == ["0012_fact_status"]
    found = {name: tuple(conn.execute("SELECT status, decision_id FROM facts WHERE id = ?", (fact,)).fetchone())
             for name, fact in ids.items()}
    assert found == {"live": ("live", None), "candidate": ("candidate", None), "rejected": ("rejected", 3),
                     "retracted": ("retracted", 12), "file changed": ("invalidated", None),
                     "withdrawn": ("invalidated", None), "deleted": ("invalidated", None)}
    for fact in (accepted, replayed):
        assert tuple(conn.execute("SELECT status, decision_id FROM facts WHERE id = ?", (fact,)).fetchone()) == (
            "live", accept_id)
    with pytest.raises(Exception, match="CHECK constraint"):
        conn.execute("UPDATE facts SET status = 'current' WHERE id = ?", (accepted,))
    conn.close()
