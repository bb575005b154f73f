"""Planned and future facts (issue 22, item 10), mined with the real pipeline: "will join
on 1 March", "starts on Monday" in a note of the week before, "will join … in 2099" are
stored as ``planned`` facts with the day they are planned for, never current; `palace
facts` and the entity card show them as "planned for D", "planned for D, not confirmed"
once the day is past, and a note stating the fact itself confirms the plan."""

from __future__ import annotations

import datetime as dt

import pytest

from palace.core import Palace
from palace.graph.facts import facts
from palace.graph.profile import profile

PLAN = ("# Team update\n\nAna Costa will join Acme Robotics on 1 March. Bo Lind starts at Northwind Labs on Monday.\n"
        "Ines Moreau will join Heron Labs in 2099.\n")
DONE = "# Update\n\nAna Costa joined Acme Robotics on 4 March.\n"


def stored(palace, name: str) -> set[tuple[str, str, str | None, str]]:
    """``(predicate, object, valid_from, status)`` of the typed facts about ``name``, as stored."""
    return {tuple(r) for r in palace.conn.execute(
        "SELECT f.predicate, coalesce(o.name, f.object_value), f.valid_from, f.status FROM facts f"
        " JOIN entities s ON s.id = f.subject_id LEFT JOIN entities o ON o.id = f.object_id"
        " WHERE s.name = ? AND f.predicate != 'mentioned_with'", (name,))}


@pytest.fixture
def mined(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-02-06-team.md").write_text(PLAN)  # a Tuesday
    (notes / "2024-03-05-update.md").write_text(DONE)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes, wing="w")
        yield palace, notes


def test_plans_are_stored_planned_with_the_day_they_are_planned_for(mined):
    palace, _ = mined
    assert stored(palace, "Bo Lind") == {("works_at", "Northwind Labs", "2024-02-12", "planned")}  # the Monday after
    assert stored(palace, "Ines Moreau") == {("works_at", "Heron Labs", "2099-01-01", "planned"),
                                             ("joined", "Heron Labs", "2099-01-01", "planned")}
    assert stored(palace, "Ana Costa") == {
        ("works_at", "Acme Robotics", "2024-03-01", "planned"), ("joined", "Acme Robotics", "2024-03-01", "planned"),
        ("works_at", "Acme Robotics", "2024-03-04", "live"), ("joined", "Acme Robotics", "2024-03-04", "live")}


def test_a_plan_is_never_current_and_says_what_became_of_it(mined):
    palace, _ = mined
    bo = facts(palace.conn, palace.registry, about="Bo Lind", typed_only=True)
    assert bo.facts == ()  # never current, before or after its day
    assert [(f.predicate, f.object, f.plan) for f in bo.planned] == [
        ("works_at", "Northwind Labs", "planned for 2024-02-12, not confirmed")]
    assert facts(palace.conn, palace.registry, about="Bo Lind", as_of=dt.date(2024, 3, 1)).facts == ()
    ines = facts(palace.conn, palace.registry, about="Ines Moreau", typed_only=True)
    assert ines.facts == ()
    assert {(f.predicate, f.plan) for f in ines.planned} == {("works_at", "planned for 2099-01-01"),
                                                              ("joined", "planned for 2099-01-01")}
    card = profile(palace.conn, palace.registry, "Ines Moreau")
    assert card.current == () and {f.plan for f in card.planned} == {"planned for 2099-01-01"}


def test_a_note_stating_the_fact_confirms_the_plan(mined):
    palace, _ = mined
    ana = facts(palace.conn, palace.registry, about="Ana Costa", typed_only=True)
    assert [(f.predicate, f.valid_from) for f in ana.facts if f.predicate == "works_at"] == [("works_at", "2024-03-04")]
    assert ana.planned == ()  # confirmed: the live fact holds
    # before the confirming note's day, nothing held: the plan never counted early
    assert facts(palace.conn, palace.registry, about="Ana Costa", predicate="works_at",
                 as_of=dt.date(2024, 3, 2)).facts == ()
    history = facts(palace.conn, palace.registry, about="Ana Costa", predicate="works_at", history=True).facts
    live = next(f for f in history if f.state == "current")
    [plan] = [f for f in history if f.state == "planned"]
    assert (plan.plan, plan.confirmed_by) == (f"planned for 2024-03-01, confirmed by #{live.id}", live.id)


def test_a_plan_whose_text_leaves_the_note_goes_with_it(mined):
    palace, notes = mined
    (notes / "2024-02-06-team.md").write_text("# Team update\n\nBo Lind starts at Northwind Labs on Monday.\n")
    palace.mine(notes, wing="w")
    assert facts(palace.conn, palace.registry, about="Ines Moreau").planned == ()
    assert {s for *_, s in stored(palace, "Ines Moreau")} == {"invalidated"}
    assert [f.plan for f in facts(palace.conn, palace.registry, about="Bo Lind").planned] == [
        "planned for 2024-02-12, not confirmed"]


def test_extract_lists_a_plan_apart_from_the_facts():
    from palace.mine.extract import extract_text

    result = extract_text("Bo Lind starts at Northwind Labs on Monday. Ana Costa will join Acme Robotics on 1 March.",
                          date=dt.date(2024, 2, 6))
    assert result.facts == ()
    assert {(f.subject, f.predicate, f.object, f.valid_from) for f in result.planned} == {
        ("Bo Lind", "works_at", "Northwind Labs", "2024-02-12"), ("Ana Costa", "works_at", "Acme Robotics", "2024-03-01"),
        ("Ana Costa", "joined", "Acme Robotics", "2024-03-01")}
    # a past-tense start on the Monday before is a fact, not a plan
    past = extract_text("Bo Lind started at Northwind Labs on Monday.", date=dt.date(2024, 2, 6))
    assert [(f.predicate, f.valid_from) for f in past.facts] == [("works_at", "2024-02-05")] and past.planned == ()


def test_a_plan_is_no_change_in_either_time(mined):
    palace, _ = mined
    recorded = {(c.kind, c.fact.subject, c.fact.object) for g in palace.changes().groups for c in g.changes}
    assert ("began", "Ana Costa", "Acme Robotics") in recorded  # the note that states it
    assert not {s for _, s, _ in recorded} & {"Bo Lind", "Ines Moreau"}  # their plans began nothing
    window = palace.changes(dt.date(2024, 2, 1), dt.date(2024, 4, 1))
    assert not {c.fact.subject for g in window.groups for c in g.changes} & {"Bo Lind"}
