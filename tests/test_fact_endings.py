"""Issue 10 through real mining: endings close states, transitions end the old value,
intervals bound facts, key–value lines and front matter become facts of their note, and
"current" means valid today — with the history kept."""

from __future__ import annotations

import datetime as dt

from test_temporal_graph import timeline, write

from palace.core import Palace
from palace.graph.facts import facts


def test_a_transition_ends_the_old_value_and_an_ending_closes_a_state(tmp_path):
    notes = tmp_path / "notes"
    write(notes, {
        "2023-01-10.md": "# Catch-up\n\nInes Moreau lives in Oslo. Ines Moreau leads Falcon.\n",
        "2024-05-02.md": "# News\n\nInes Moreau moved from Oslo to Bergen.\n",
        "2024-06-01.md": "# Falcon\n\nInes Moreau stepped down as lead of Falcon.\n",
    })
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        lives = timeline(palace, "Ines Moreau", "lives_in")
        assert ("Oslo", "2023-01-10", "2024-05-02", "superseded") in lives
        assert ("Bergen", "2024-05-02", None, "current") in lives
        assert [f.object for f in facts(palace.conn, palace.registry, about="Ines Moreau", predicate="lives_in").facts] == ["Bergen"]
        # "stepped down" names no successor: the state ends on the note's day
        leads = timeline(palace, "Ines Moreau", "leads")
        assert ("Falcon", "2023-01-10", "2024-06-01", "ended") in leads
        assert facts(palace.conn, palace.registry, about="Ines Moreau", predicate="leads").facts == ()
        assert [f.object for f in facts(palace.conn, palace.registry, about="Ines Moreau", predicate="leads",
                                        as_of=dt.date(2024, 3, 1)).facts] == ["Falcon"]


def test_a_transition_from_a_value_never_stated_elsewhere_still_ends_it(tmp_path):
    notes = tmp_path / "notes"
    write(notes, {"2024-01-31.md": "# Accounts\n\nAcme downgraded from Pro to Basic after the budget freeze.\n"})
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert timeline(palace, "Acme", "plan") == [("Pro", None, "2024-01-31", "ended"),
                                                     ("Basic", "2024-01-31", None, "current")]
        assert [f.object for f in facts(palace.conn, palace.registry, about="Acme", predicate="plan", as_of=dt.date(2023, 6, 1)).facts] == ["Pro"]


def test_an_interval_in_the_clause_bounds_the_fact(tmp_path):
    notes = tmp_path / "notes"
    write(notes, {"2024-06-01.md": "# Bio\n\nCho Yoon-ho played for Ajax from 1999 to 2003. "
                                   "He has played for Jeonbuk since 2019.\n"})
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert timeline(palace, "Cho Yoon-ho", "plays_for") == [
            ("Ajax", "1999-01-01", "2004-01-01", "ended"), ("Jeonbuk", "2019-01-01", None, "current")]
        assert [f.object for f in facts(palace.conn, palace.registry, about="Cho Yoon-ho", predicate="plays_for",
                                        as_of=dt.date(2001, 5, 1)).facts] == ["Ajax"]


def test_key_value_lines_and_front_matter_are_facts_of_their_note(clock, tmp_path):
    notes = tmp_path / "notes"
    write(notes, {
        "harbor.md": "---\ntitle: Harbor\ndate: 2024-04-15\nlead: Bo Larsen\nstatus: blocked\n---\n\n"
                     "Sensor vendors are late again.\n",
        "falcon.md": "---\ndate: 2024-05-02\n---\n# Project Falcon\n\nStatus: in review\nOwner: Ana Lima\n",
    })
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        harbor = {(f.subject, f.predicate, f.object, f.valid_from) for f in facts(palace.conn, palace.registry, about="Harbor").facts}
        assert {("Bo Larsen", "leads", "Harbor", "2024-04-15"), ("Harbor", "status", "blocked", "2024-04-15")} <= harbor
        (status,) = facts(palace.conn, palace.registry, about="Harbor", predicate="status").facts
        assert status.sentence == "status: blocked" and status.path == "harbor.md"
        falcon = {(f.subject, f.predicate, f.object) for f in facts(palace.conn, palace.registry, about="Project Falcon").facts}
        assert {("Ana Lima", "owns", "Project Falcon"), ("Project Falcon", "status", "in review")} <= falcon
        # the field changes: the old fact leaves the current view and stays in history
        clock.advance(1)
        write(notes, {"harbor.md": "---\ntitle: Harbor\ndate: 2024-04-15\nlead: Bo Larsen\nstatus: done\n---\n\n"
                                   "Sensor vendors are late again.\n"})
        palace.mine(notes)
        assert [f.object for f in facts(palace.conn, palace.registry, about="Harbor", predicate="status").facts] == ["done"]
        old = [f for f in facts(palace.conn, palace.registry, about="Harbor", predicate="status", history=True).facts if f.object == "blocked"]
        assert old and old[0].state == "invalidated" and old[0].invalidation_reason == "front matter changed"


def test_chat_lines_speak_in_the_first_person(tmp_path):
    notes = tmp_path / "notes"
    write(notes, {"2024-03-04-chat.md": "[10:02] Mara Lind: I started a new job at Initech\n"
                                        "[10:03] Jonas Ek: congrats!! where is it?\n"
                                        "[10:04] Mara Lind: my manager is Ravi Shah, lovely so far\n"})
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        got = {(f.predicate, f.object, f.evidence) for f in facts(palace.conn, palace.registry, about="Mara Lind").facts}
        assert {("works_at", "Initech", "inferred"), ("reports_to", "Ravi Shah", "inferred")} <= got
        assert not [f for f in facts(palace.conn, palace.registry, about="Jonas Ek").facts if f.predicate != "mentioned_with"]


def test_a_dated_section_of_a_running_note_dates_its_facts(tmp_path):
    notes = tmp_path / "notes"
    write(notes, {"acme-freight.md": "---\ndate: 2025-01-10\n---\n# Acme Freight\n\n"
                                     "## 2025-01-10\n\nAcme Freight is on the Enterprise plan.\n\n"
                                     "## 2025-03-12\n\nAcme Freight downgraded to the Business plan.\n"})
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert timeline(palace, "Acme Freight", "plan") == [
            ("Enterprise", "2025-01-10", "2025-03-12", "superseded"), ("Business", "2025-03-12", None, "current")]
        assert [f.object for f in facts(palace.conn, palace.registry, about="Acme Freight", predicate="plan",
                                        as_of=dt.date(2025, 2, 1)).facts] == ["Enterprise"]
