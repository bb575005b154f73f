"""Issue 3 end to end: typed facts read from notes, their valid time, supersession, conflicts,
retractions, and entity resolution (short forms, two people with one first name, user
merges and splits), all through real mining (spaCy, SQLite, Chroma, the packaged model)."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest
from typer.testing import CliRunner

from palace.cli.main import app
from palace.core import Palace
from palace.errors import UsageError
from palace.graph.facts import facts
from palace.graph.profile import profile
from palace.graph.resolution import aliases, merge, split


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def timeline(palace, about, predicate):
    """``[(object, valid_from, valid_to, state)]`` of one predicate, history included."""
    return [(f.object, f.valid_from, f.valid_to, f.state)
            for f in facts(palace.conn, palace.registry, about=about, predicate=predicate, history=True).facts]


@pytest.fixture
def notes(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    return root


def test_medication_switch(notes, tmp_path):
    write(notes, {
        "2024-01-10.md": "# Mum\n\nRuth Whitfield takes Lisinopril 10mg every morning.\n",
        "2024-04-02.md": "# Cardiology\n\nRuth Whitfield saw the cardiologist at York Hospital. "
                         "The cardiologist switched her to Metoprolol.\n",
    })
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert timeline(palace, "Ruth Whitfield", "takes") == [
            ("Lisinopril", "2024-01-10", "2024-04-02", "superseded"),
            ("Metoprolol", "2024-04-02", None, "current"),
        ]
        current = facts(palace.conn, palace.registry, about="Ruth Whitfield", predicate="takes").facts
        assert [(f.object, f.evidence) for f in current] == [("Metoprolol", "inferred")]  # "her" resolved
        old = facts(palace.conn, palace.registry, about="Ruth Whitfield", predicate="takes", history=True).facts[0]
        assert old.superseded_by == current[0].id
        assert old.path == "2024-01-10.md" and old.line == 3 and "Lisinopril 10mg" in old.sentence
        assert old.extractor == "palace.relations.v2/take-drug" and old.evidence == "stated"
        as_of = facts(palace.conn, palace.registry, about="Ruth Whitfield", predicate="takes", as_of=dt.date(2024, 2, 1)).facts
        assert [f.object for f in as_of] == ["Lisinopril"]
        # a literal value can be asked about too
        assert [f.subject for f in facts(palace.conn, palace.registry, about="metoprolol").facts] == ["Ruth Whitfield"]


def test_plan_downgrade(notes, tmp_path):
    write(notes, {
        "2024-03-01.md": "# Vendors\n\nLarkspur is on the Enterprise plan, 45 seats.\n",
        "2025-01-02.md": "# Renewal\n\nWe downgraded Larkspur to the Starter plan today.\n",
    })
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert timeline(palace, "Larkspur", "plan") == [
            ("Enterprise", "2024-03-01", "2025-01-02", "superseded"),
            ("Starter", "2025-01-02", None, "current"),
        ]


EMPLOYER = {
    "2023-02-04.md": "# Dinner\n\nAlice Chen works at Northwind Labs on document models.\n",
    "2024-09-02.md": "# News\n\nAlice Chen joined Acme Robotics as a staff engineer.\n",
}


def test_employer_change_mined_out_of_order_ends_as_mined_in_order(tmp_path):
    newer_first = tmp_path / "a"
    newer_first.mkdir()
    write(newer_first, {"2024-09-02.md": EMPLOYER["2024-09-02.md"]})
    together = tmp_path / "b"
    together.mkdir()
    write(together, EMPLOYER)
    expected = [
        ("Northwind Labs", "2023-02-04", "2024-09-02", "superseded"),
        ("Acme Robotics", "2024-09-02", None, "current"),
    ]
    with Palace.open(tmp_path / "p1") as palace:
        palace.mine(newer_first, wing="notes")
        assert timeline(palace, "Alice Chen", "works_at") == [("Acme Robotics", "2024-09-02", None, "current")]
        write(newer_first, {"2023-02-04.md": EMPLOYER["2023-02-04.md"]})
        palace.mine(newer_first, wing="notes")
        assert timeline(palace, "Alice Chen", "works_at") == expected
        role = facts(palace.conn, palace.registry, about="Alice Chen", predicate="role").facts
        assert [(f.object, f.valid_from) for f in role] == [("staff engineer", "2024-09-02")]
    with Palace.open(tmp_path / "p2") as palace:
        palace.mine(together, wing="notes")
        assert timeline(palace, "Alice Chen", "works_at") == expected


def test_two_alices_stay_apart_and_alice_alone_is_ambiguous(notes, tmp_path):
    write(notes, {
        "2024-01-05.md": "# Dinner\n\nAlice Chen works at Northwind Labs. I had dinner with Alice Chen in Hackney.\n",
        "2024-02-05.md": "# Design\n\nAlice Moreau works at Studio Pivot. Alice Moreau showed the new settings screen.\n",
        "2024-03-05.md": "# Call\n\nI had coffee with Alice yesterday and Alice said the Lyon trip is on.\n",
    })
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert [f.object for f in facts(palace.conn, palace.registry, about="Alice Chen", predicate="works_at").facts] == ["Northwind Labs"]
        assert [f.object for f in facts(palace.conn, palace.registry, about="Alice Moreau", predicate="works_at").facts] == ["Studio Pivot"]
        card = profile(palace.conn, palace.registry, "Alice")
        assert card.name == "Alice" and card.ambiguous_with == ("Alice Chen", "Alice Moreau")
        report = aliases(palace.conn, "Alice")
        assert [(r.into, r.rule) for r in report.resolved_into] == [(None, "ambiguous short form")]
        assert "Alice" not in profile(palace.conn, palace.registry, "Alice Chen").aliases


def test_a_short_form_joins_the_only_person_it_can_be(notes, tmp_path):
    write(notes, {
        "2024-01-05.md": "# Dinner\n\nAlice Chen works at Northwind Labs. I had dinner with Alice Chen in Hackney.\n",
        "2024-09-20.md": "# Coffee\n\nI had coffee with Alice yesterday. Alice works at Acme Robotics now.\n",
    })
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert timeline(palace, "Alice Chen", "works_at") == [
            ("Northwind Labs", "2024-01-05", "2024-09-20", "superseded"),
            ("Acme Robotics", "2024-09-20", None, "current"),
        ]
        report = aliases(palace.conn, "Alice Chen")
        assert ("Alice", "short form") in {(a.alias, a.source) for a in report.aliases}
        (why,) = report.resolved_from
        assert why.name == "Alice" and why.rule == "short form" and "Alice Chen" in why.evidence
        assert profile(palace.conn, palace.registry, "alice").name == "Alice Chen"


def test_same_day_different_values_is_a_conflict(notes, tmp_path):
    write(notes, {
        "2024-05-01-sync.md": "# Sync\n\nBob Okafor reports to Helen Marsh.\n",
        "2024-05-01-hr.md": "# HR\n\nBob Okafor reports to Priya Raman.\n",
    })
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        current = facts(palace.conn, palace.registry, about="Bob Okafor", predicate="reports_to").facts
        assert sorted(f.object for f in current) == ["Helen Marsh", "Priya Raman"]
        assert all(f.state == "current" and f.valid_to is None for f in current)
        helen, priya = sorted(current, key=lambda f: f.object)
        assert helen.conflicts_with == (priya.id,) and priya.conflicts_with == (helen.id,)


def test_a_file_edit_retracts_a_fact_and_the_earlier_value_reopens(clock, notes, tmp_path):
    write(notes, {
        "2023-11-19.md": "# Pub\n\nMarcus Webb lives in London.\n",
        "2025-01-18.md": "# Call\n\nMarcus Webb moved to Lisbon last weekend.\n",
    })
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert timeline(palace, "Marcus Webb", "lives_in") == [
            ("London", "2023-11-19", "2025-01-11", "superseded"),
            ("Lisbon", "2025-01-11", None, "current"),
        ]
        moved = facts(palace.conn, palace.registry, about="Marcus Webb", predicate="moved_to").facts
        assert [(f.object, f.valid_from, f.valid_to) for f in moved] == [("Lisbon", "2025-01-11", "2025-01-13")]
        clock.advance(1)
        write(notes, {"2025-01-18.md": "# Call\n\nMarcus Webb sounded tired on the call.\n"})
        palace.mine(notes)
        assert facts(palace.conn, palace.registry, about="Marcus Webb", predicate="lives_in").facts[0].object == "London"
        history = facts(palace.conn, palace.registry, about="Marcus Webb", predicate="lives_in", history=True).facts
        assert [(f.object, f.valid_to, f.state) for f in history] == [
            ("London", None, "current"), ("Lisbon", None, "invalidated")]
        assert history[1].invalidation_reason == "file changed: text no longer there"


def test_user_merge_and_split_survive_a_re_mine(notes, tmp_path):
    write(notes, {
        "2024-01-10.md": "# Mum\n\nRuth Whitfield takes Lisinopril 10mg. Ruth Whitfield lives in York.\n",
        "2024-04-12.md": "# Call\n\nMum is on Metoprolol now. Mum sounded cheerful.\n",
    })
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert timeline(palace, "Ruth Whitfield", "takes") == [("Lisinopril", "2024-01-10", None, "current")]
        merge(palace.conn, "Mum", "Ruth Whitfield", palace.registry)
        assert timeline(palace, "Ruth Whitfield", "takes") == [
            ("Lisinopril", "2024-01-10", "2024-04-12", "superseded"),
            ("Metoprolol", "2024-04-12", None, "current"),
        ]
        assert profile(palace.conn, palace.registry, "mum").name == "Ruth Whitfield"
        write(notes, {"2024-04-20.md": "# Visit\n\nMum made soup.\n"})  # a re-mine keeps the user's merge
        palace.mine(notes)
        assert timeline(palace, "Ruth Whitfield", "takes")[-1] == ("Metoprolol", "2024-04-12", None, "current")
        report = aliases(palace.conn, "Ruth Whitfield")
        assert [(d.action, d.name, d.into, d.reverted_at) for d in report.decisions] == [
            ("merge", "Mum", "Ruth Whitfield", None)]
        split(palace.conn, "Mum", palace.registry)
        palace.mine(notes)
        assert timeline(palace, "Ruth Whitfield", "takes") == [("Lisinopril", "2024-01-10", None, "current")]
        assert [f.object for f in facts(palace.conn, palace.registry, about="Mum", predicate="takes").facts] == ["Metoprolol"]
        with pytest.raises(UsageError):
            split(palace.conn, "Mum", palace.registry)


def test_e_mail_addresses_are_aliases(notes, tmp_path):
    write(notes, {"2024-01-05.md": "# Intro\n\nMet Alice Chen <alice.chen@acme.io> about the Harbor project.\n"})
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert profile(palace.conn, palace.registry, "alice.chen@acme.io").name == "Alice Chen"
        assert ("alice.chen@acme.io", "e-mail") in {(a.alias, a.source) for a in aliases(palace.conn, "Alice Chen").aliases}


def test_cli_merge_aliases_split(notes, tmp_path):
    write(notes, {"2024-01-10.md": "# Mum\n\nRuth Whitfield lives in York. Mum lives in York too.\n"})
    palace_dir = tmp_path / "palace"
    runner = CliRunner()
    assert runner.invoke(app, ["mine", str(notes), "--palace", str(palace_dir)]).exit_code == 0
    result = runner.invoke(app, ["entity", "merge", "Mum", "Ruth Whitfield", "--palace", str(palace_dir)])
    assert result.exit_code == 0, result.output
    assert "Mum" in result.output and "Ruth Whitfield" in result.output
    result = runner.invoke(app, ["entity", "aliases", "Ruth Whitfield", "--palace", str(palace_dir), "--json"])
    data = json.loads(result.output)
    assert set(data) == {"name", "type", "aliases", "resolved_from", "resolved_into", "decisions"}
    assert {"alias": "Mum", "source": "user merge"} in data["aliases"]
    result = runner.invoke(app, ["entity", "split", "Mum", "--palace", str(palace_dir), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["action"] == "split"
    result = runner.invoke(app, ["entity", "split", "Mum", "--palace", str(palace_dir)])
    assert result.exit_code == 1 and "not merged" in result.output
    result = runner.invoke(app, ["entity", "merge", "Mum", "--palace", str(palace_dir)])
    assert result.exit_code == 2 and "usage" in result.output  # a usage error, not a user error
    card = json.loads(runner.invoke(app, ["entity", "Ruth Whitfield", "--palace", str(palace_dir), "--json"]).output)
    assert [(f["predicate"], f["object"]) for f in card["current"]] == [("lives_in", "York")]


def test_a_predicate_added_in_the_palace_config_is_read_while_mining(notes, tmp_path):
    palace_dir = tmp_path / "palace"
    palace_dir.mkdir()
    (palace_dir / "config.json").write_text(json.dumps({
        "predicates": [{"name": "mentors", "cardinality": "many", "kind": "state", "verbs": ["mentor"]}]}))
    write(notes, {"2024-05-01.md": "# Team\n\nHelen Marsh mentored Bob Okafor through the reorg.\n"})
    with Palace.open(palace_dir) as palace:
        palace.mine(notes)
        (fact,) = facts(palace.conn, palace.registry, about="Helen Marsh", predicate="mentors").facts
        assert (fact.subject, fact.object, fact.valid_from, fact.valid_to) == ("Helen Marsh", "Bob Okafor", "2024-05-01", None)
        assert fact.extractor == "palace.relations.v2/mentors"


def test_a_fact_the_edited_text_still_states_stays_current(clock, notes, tmp_path):
    write(notes, {"2023-11-19.md": "# Pub\n\nMarcus Webb lives in London.\n"})
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        clock.advance(1)
        write(notes, {"2023-11-19.md": "# Pub\n\nMarcus Webb lives in London. The beer was warm.\n"})
        palace.mine(notes)
        assert timeline(palace, "Marcus Webb", "lives_in") == [
            ("London", "2023-11-19", None, "invalidated"), ("London", "2023-11-19", None, "current")]


def test_a_known_name_in_lower_case_links_to_its_entity_whatever_the_mining_order(tmp_path):
    lower = "# Chat\n\nquick call: the leadership council wants the budget by friday.\n"
    named = ("# Minutes\n\nMara Bos chaired the Leadership Council today. The Leadership Council approved the travel"
             " budget. The Leadership Council meets again in April.\n")
    for order in (("2024-03-02.md", "2024-03-01.md"), ("2024-03-01.md", "2024-03-02.md")):
        root = tmp_path / "-".join(order) / "notes"
        root.mkdir(parents=True)
        with Palace.open(root.parent / "palace") as palace:
            for name in order:
                write(root, {name: lower if name == "2024-03-02.md" else named})
                palace.mine(root, wing="notes")
            rows = palace.conn.execute(
                "SELECT m.surface, e.name, m.extractor FROM mentions m JOIN entities e ON e.id = m.entity_id"
                " JOIN drawers d ON d.id = m.drawer_id JOIN files f ON f.id = d.file_id WHERE f.path = '2024-03-02.md'"
            ).fetchall()
            assert [tuple(r) for r in rows] == [("leadership council", "the Leadership Council", "palace.lowercase.v1")], order


def test_a_phrase_written_mostly_in_lower_case_is_not_taken_for_a_name(notes, tmp_path):
    capitalised = ("Mara Bos chaired the Triage Working Group today. The Triage Working Group approved the plan."
                   " We thanked the Triage Working Group.")
    write(notes, {"2024-03-01.md": f"# Minutes\n\n{capitalised}\n"})
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        lowercase = "SELECT count(*) FROM mentions WHERE extractor = 'palace.lowercase.v1'"
        read = "SELECT count(*) FROM mentions m JOIN entities e ON e.id = m.entity_id WHERE e.key = 'triage working group'"
        assert palace.conn.execute(read).fetchone()[0] == 3
        write(notes, {"2024-03-02.md": "# Chat\n\nthe triage working group is busy, and the triage working group"
                                       " chair says so.\n"})
        palace.mine(notes)
        assert palace.conn.execute(lowercase).fetchone()[0] == 2  # read capitalised more often: a name
        write(notes, {"2024-03-03.md": "# Chat\n\nany triage working group would be busy; a triage working group"
                                       " needs a chair.\n"})
        palace.mine(notes)
        assert palace.conn.execute(lowercase).fetchone()[0] == 0  # now mostly lower case: a phrase


def test_lower_case_links_after_edits_equal_a_fresh_mine_and_scan_only_what_changed(tmp_path, monkeypatch):
    """Names appear, are overtaken by a longer name, and disappear across edits; after each,
    the lower-case links equal those of a fresh mine of the same notes. A step that adds
    no name searches only the new drawers."""
    from palace.store.resolution import LOWERCASE_EXTRACTOR, LowercaseIndex

    council = ("# A\n\nMara Bos chaired the Leadership Council today. The Leadership Council approved the travel"
               " budget. The Leadership Council meets again in April.\n")
    steps = [
        {"a.md": council, "b.md": "# B\n\nthe leadership council and the core team want the budget by friday.\n"},
        {"c.md": "# C\n\nPriya Raman joined the Core Team. The Core Team met on Monday. The Core Team agreed."
                 " We thanked the Core Team. Ines Alves leads the Core Team.\n"},
        {"d.md": "# D\n\nnothing about names here, only the weather.\n"},  # no name comes or goes
        {"c.md": None},  # "Core Team" is no longer read anywhere: no longer a name
    ]
    notes = tmp_path / "notes"
    notes.mkdir()
    scanned: list[int] = []
    original = LowercaseIndex.replace_hits
    monkeypatch.setattr(LowercaseIndex, "replace_hits",
                        lambda self, did, hits: (scanned.append(1), original(self, did, hits))[1])

    def links(palace) -> list[tuple]:
        return sorted(tuple(r) for r in palace.conn.execute(
            "SELECT f.path, m.char_start, m.char_end, e.name FROM mentions m JOIN entities e ON e.id = m.entity_id"
            " JOIN drawers d ON d.id = m.drawer_id JOIN files f ON f.id = d.file_id WHERE m.extractor = ?",
            (LOWERCASE_EXTRACTOR,)))

    seen = []
    with Palace.open(tmp_path / "palace") as palace:
        for number, step in enumerate(steps):
            for name, text in step.items():
                (notes / name).unlink() if text is None else (notes / name).write_text(text)
            scanned.clear()
            palace.mine(notes, wing="notes")
            if number == 2:
                assert len(scanned) == 1  # only d.md's drawer: no name came or went
            fresh_root = tmp_path / f"fresh{number}"
            shutil.copytree(notes, fresh_root / "notes")
            with Palace.open(fresh_root / "palace") as fresh:
                fresh.mine(fresh_root / "notes", wing="notes")
                assert links(palace) == links(fresh), number
            seen.append(links(palace))
    assert [len(s) for s in seen] == [1, 2, 2, 1]  # "core team" in b.md is linked once it is a known name
