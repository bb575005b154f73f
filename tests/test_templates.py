"""Template lines yield no facts (:mod:`palace.graph.templates`): the same line giving the
same reading in three notes or more is a template's, whatever order the notes arrive in;
a status line or field is about its own note and is never one."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from palace.core import Palace
from palace.graph.templates import TEMPLATE, mark_templates
from palace.store.fact_states import invalidate
from palace.store import sqlite as store

CHECKLIST = "## Checklist\n\n- [ ] The release team uses GitHub Actions.\n"


def _record(number: int, lead: str, project: str) -> str:
    return (f"# Design {number}\n\nStatus: accepted\n\n{lead} leads Project {project}.\n\n{CHECKLIST}")


def _live(palace) -> set[tuple]:
    return {tuple(r) for r in palace.conn.execute(
        "SELECT s.name, f.predicate, coalesce(o.name, f.object_value), f.path FROM facts f"
        " JOIN entities s ON s.id = f.subject_id LEFT JOIN entities o ON o.id = f.object_id"
        " WHERE f.status = 'live' AND f.predicate != 'mentioned_with'")}


def test_a_checklist_line_in_three_records_gives_no_fact_but_their_own_lines_do(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    for number, (lead, project) in enumerate([("Alice Chen", "Falcon"), ("Bob Okafor", "Heron"),
                                              ("Dana Ruiz", "Osprey")], 1):
        (notes / f"design-{number}.md").write_text(_record(number, lead, project))
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes, wing="w")
        live = _live(palace)
        assert not [f for f in live if f[1] == "uses"]  # the checklist line, in every record
        assert ("Alice Chen", "leads", "Project Falcon", "design-1.md") in live
        # "Status: accepted" repeats too, but it is each record's own
        assert {(f[0], f[2]) for f in live if f[1] == "status"} == {
            ("Design 1", "accepted"), ("Design 2", "accepted"), ("Design 3", "accepted")}
        history = palace.conn.execute("SELECT count(*) FROM facts WHERE predicate = 'uses' AND status = 'invalidated'"
                                      " AND invalidation_reason = ?", (TEMPLATE,)).fetchone()[0]
        assert history == 3  # kept, with the reason, for history

        # one record deleted: the line is in two notes only, theirs again, as a fresh mine reads it
        (notes / "design-3.md").unlink()
        palace.mine(notes, wing="w")
        after_edit = _live(palace)
    assert ("release team", "uses", "GitHub Actions", "design-1.md") in after_edit
    with Palace.open(tmp_path / "fresh") as fresh:
        fresh.mine(notes, wing="w")
        assert _live(fresh) == after_edit


# -- the counts as a property: any series of notes coming and going, in any order ----------

LINES = [f"Line {i} names Entity {i % 3}." for i in range(5)]
#: a note holding line 0 also plans a fact, and one holding line 4 states it (a
#: confirmation, whatever order the notes arrive in)
PLAN, STATED = "Team 9 will use Entity 9 on 1 March.", "Team 9 uses Entity 9 since 2 March."


def _write_note(conn, wing: str, path: str, lines: list[int]) -> None:
    """A note at ``path`` whose drawer gave one ``uses`` fact per line of ``LINES``
    (subject and object as read), and one status field of its own."""
    from palace.store.graph import NewFact, entity_id, insert_fact

    file_id = conn.execute("INSERT INTO files (wing, root, path, room, status, mined_at)"
                           " VALUES (?, '/r', ?, 'r', 'indexed', 'now')", (wing, path)).lastrowid
    drawer = f"d-{path}"
    conn.execute("INSERT INTO drawers (id, file_id, ordinal, char_start, char_end, line_start, line_end, heading_path,"
                 " text, text_hash, embed_hash) VALUES (?, ?, 0, 0, 1, 0, 1, '[]', 'x', 'h', 'h')", (drawer, file_id))
    cache: dict = {}
    note = entity_id(conn, cache, "Design", "DOCUMENT")
    insert_fact(conn, NewFact(note, "status", None, "accepted", None, None, None, "now", drawer, wing, path, 0, 0,
                              "Status: accepted", "palace.relations.v2/key-status", 0.9, "stated", None))
    team, target = entity_id(conn, cache, "Team 9", "ORG"), entity_id(conn, cache, "Entity 9", "PRODUCT")
    if 0 in lines:
        insert_fact(conn, NewFact(team, "uses", target, None, dt.date(2024, 3, 1), None, "day", "now", drawer, wing,
                                  path, 0, 0, PLAN, "palace.relations.v2/use", 0.9, "stated", None, "planned"))
    if 4 in lines:
        insert_fact(conn, NewFact(team, "uses", target, None, dt.date(2024, 3, 2), None, "day", "now", drawer, wing,
                                  path, 0, 0, STATED, "palace.relations.v2/use", 0.9, "stated", None))
    for line in lines:
        subject = entity_id(conn, cache, f"Team {line}", "ORG")
        obj = entity_id(conn, cache, f"Entity {line % 3}", "PRODUCT")
        insert_fact(conn, NewFact(subject, "uses", obj, None, None, None, None, "now", drawer, wing, path, 0, 0,
                                  LINES[line], "palace.relations.v2/use", 0.9, "stated", None))


def _state(conn) -> set[tuple]:
    """Each fact of a note still stored: its note, its line, whether it is live, and
    what became of a plan (:attr:`FactView.plan`)."""
    from palace.store.facts import FactFilter, fact_views

    plans = {v.id: v.plan.split(", confirmed by")[0] + (", confirmed" if v.confirmed_by else "")
             for v in fact_views(conn, FactFilter(statuses=("planned",)), {})}
    return {(r[1], r[2], r[3], plans.get(r[0], "")) for r in conn.execute(
        "SELECT f.id, f.path, f.sentence, f.status = 'live' FROM facts f JOIN drawers d ON d.id = f.drawer_id")}


def _fresh(migrated_palace, tmp_path_factory, notes: dict[str, list[int]], seed: int) -> set[tuple]:
    """What a fresh mine of ``notes`` holds, the notes arriving in a shuffled order."""
    conn = store.connect(migrated_palace(tmp_path_factory.mktemp("fresh")))
    try:
        order = list(notes)
        random.Random(seed).shuffle(order)
        with store.transaction(conn):
            for path in order:
                _write_note(conn, "w", path, notes[path])
            mark_templates(conn, "w", None)
        return _state(conn)
    finally:
        conn.close()


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_steps = st.lists(st.lists(st.one_of(
    st.lists(st.integers(min_value=0, max_value=len(LINES) - 1), max_size=3),  # a note of these lines
    st.integers(min_value=0, max_value=20)),  # delete the note at (modulo)
    min_size=1, max_size=3), min_size=1, max_size=6)


@pytest.mark.unit
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=_steps, seed=st.integers(min_value=0, max_value=1000))
def test_template_counts_after_any_edits_equal_a_fresh_mine_in_any_order(tmp_path_factory, migrated_palace, steps,
                                                                         seed):
    conn = store.connect(migrated_palace(tmp_path_factory.mktemp("palace")))
    notes: dict[str, list[int]] = {}
    try:
        for number, edits in enumerate(steps):
            with store.transaction(conn):
                for k, edit in enumerate(edits):
                    if isinstance(edit, int):
                        if notes:
                            path = sorted(notes)[edit % len(notes)]
                            del notes[path]
                            # as mining forgets a note: its facts leave the live ones, then its drawers go
                            invalidate(conn, at="now", reason="file deleted", drawer_id=f"d-{path}")
                            conn.execute("DELETE FROM drawers WHERE id = ?", (f"d-{path}",))
                            conn.execute("DELETE FROM files WHERE wing = 'w' AND path = ?", (path,))
                    else:
                        notes[f"n{number}-{k}.md"] = edit
                        _write_note(conn, "w", f"n{number}-{k}.md", edit)
                mark_templates(conn, "w", None)
            state = _state(conn)
            assert state == _fresh(migrated_palace, tmp_path_factory, notes, seed), number
            for path, sentence, live, plan in state:  # what the rule says, written out
                stating = sum(4 in lines for lines in notes.values())  # the statement is a template's in 3 notes
                if sentence == PLAN:  # never live, never a template's; confirmed once a live fact states it
                    assert (live, plan) == (False, "planned for 2024-03-01" + (
                        ", confirmed" if 0 < stating < 3 else ", not confirmed")), path
                    continue
                if sentence == STATED:
                    assert live == (stating < 3), path
                    continue
                in_notes = sum(LINES.index(sentence) in lines for lines in notes.values()) if sentence in LINES else 0
                assert live == (sentence not in LINES or in_notes < 3), (path, sentence)
    finally:
        conn.close()
