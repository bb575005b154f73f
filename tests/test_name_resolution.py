"""Organisation and project names joined by the wing's resolution (rules "legal suffix" and
"project name" of palace.resolution), mined from small folders with the real pipeline:
the entity a user sees, its aliases, the rule and evidence recorded, and a split undoing it."""

from __future__ import annotations

import pytest

from palace.store import sqlite as store
from palace.core import Palace
from palace.graph.profile import profile
from palace.nlp.names import entity_key
from palace.graph.resolution import aliases, plan_wing, split


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")


def alias_pairs(palace, name: str) -> set[tuple[str, str]]:
    return {(a.alias, a.source) for a in aliases(palace.conn, name).aliases}


@pytest.fixture
def notes(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    return root


ACME = {
    "2024-01-10.md": "# Vendors\n\nBob Okafor signed the contract with Acme Corp. on Monday."
                     " Acme Corp sent the invoice the next day.\n",
    "2024-02-12.md": "# Supplier call\n\nBob Okafor called Acme Corporation about the parts."
                     " Acme Inc. raised its prices. The contract with Acme runs until May.\n",
}


def test_an_organisation_with_and_without_its_legal_suffix_is_one_entity(notes, tmp_path):
    write(notes, ACME)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        # "Acme Corp." at the end of a clause and "Acme Corp" are one name as read
        rows = palace.conn.execute("SELECT name FROM entities WHERE key LIKE 'acme corp%'").fetchall()
        assert [r[0] for r in rows] == ["Acme Corp.", "Acme Corporation"]
        card = profile(palace.conn, palace.registry, "Acme Corp")
        assert card.name == "Acme Corp." and card.mentions == 5
        assert {"Acme", "Acme Corporation", "Acme Inc."} <= set(card.aliases)
        for other in ("Acme", "acme inc.", "Acme Corporation", "Acme Corp."):
            assert profile(palace.conn, palace.registry, other).name == "Acme Corp.", other
        assert alias_pairs(palace, "Acme Corp") == {
            ("Acme Corp.", "name"), ("Acme", "legal suffix"), ("Acme Corporation", "legal suffix"),
            ("Acme Inc.", "legal suffix")}
        report = aliases(palace.conn, "Acme Corp")
        assert [(r.name, r.into, r.rule, r.evidence) for r in report.resolved_from] == [
            ("Acme", "Acme Corp.", "legal suffix",
             "'Acme' is 'Acme Corp.' without its legal suffix 'Corp.': read as an organisation in 1 of its"
             " 1 mentions in wing notes"),
            ("Acme Corporation", "Acme Corp.", "legal suffix",
             "'Acme Corporation' and 'Acme Corp.' are the organisation 'Acme' with the legal suffixes"
             " 'Corporation' and 'Corp.', both read in wing notes"),
            ("Acme Inc.", "Acme Corp.", "legal suffix",
             "'Acme Inc.' and 'Acme Corp.' are the organisation 'Acme' with the legal suffixes"
             " 'Inc.' and 'Corp.', both read in wing notes"),
        ]


def test_split_keeps_one_legal_form_apart_and_a_re_mine_respects_it(notes, tmp_path):
    write(notes, ACME)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        (decision,) = split(palace.conn, "Acme Inc.", palace.registry)
        assert (decision.action, decision.name, decision.into) == ("split", "Acme Inc.", "Acme Corp.")
        assert profile(palace.conn, palace.registry, "Acme Inc.").name == "Acme Inc."
        assert profile(palace.conn, palace.registry, "Acme").name == "Acme Corp."  # the other joins stay
        assert ("Acme Inc.", "legal suffix") not in alias_pairs(palace, "Acme Corp")
        write(notes, {"2024-03-01.md": "# Parts\n\nAcme Inc. shipped the parts.\n"})
        palace.mine(notes)
        assert profile(palace.conn, palace.registry, "Acme Inc.").name == "Acme Inc."
        assert aliases(palace.conn, "Acme Inc.").resolved_into == ()


PROJECT = {
    "2024-03-01.md": "# Kickoff\n\nProject Falcon kicked off in March. Alice Chen leads Project Falcon.\n",
    "2024-03-08.md": "# Status\n\nThe Falcon project is late. We demoed Falcon to the board.\n",
    "2024-03-15.md": "# Hiring\n\nBob Okafor asked the Falcon Project for two more engineers.\n",
}


def test_a_project_and_its_short_name_are_one_entity_and_split_undoes_it(notes, tmp_path):
    write(notes, PROJECT)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        card = profile(palace.conn, palace.registry, "Falcon")
        assert card.name == "Project Falcon" and card.mentions == 5
        assert profile(palace.conn, palace.registry, "the Falcon project").name == "Project Falcon"
        assert alias_pairs(palace, "Project Falcon") == {
            ("Project Falcon", "name"), ("Falcon", "project name"), ("the Falcon Project", "project name")}
        report = aliases(palace.conn, "Project Falcon")
        assert [(r.name, r.rule, r.evidence) for r in report.resolved_from] == [
            ("Falcon", "project name",
             "'Falcon' is the short name of the project 'Project Falcon': read as a person in 0 of its"
             " 2 mentions in wing notes"),
            ("the Falcon Project", "project name", "'the Falcon Project' and 'Project Falcon' both name the"
                                                   " project 'Falcon' in wing notes"),
        ]
        split(palace.conn, "Falcon", palace.registry)
        assert profile(palace.conn, palace.registry, "Falcon").name == "Falcon"
        assert profile(palace.conn, palace.registry, "Project Falcon").mentions == 3
        assert alias_pairs(palace, "Project Falcon") == {
            ("Project Falcon", "name"), ("the Falcon Project", "project name")}


def test_a_short_name_read_as_a_person_stays_a_person(notes, tmp_path):
    write(notes, {
        "2024-03-01.md": "# Team\n\nAlice said she would call me back. I had lunch with Alice and her wife."
                         " Alice told Bob Okafor about the budget.\n",
        "2024-03-08.md": "# Kickoff\n\nWe started Project Alice in March.\n",
    })
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert profile(palace.conn, palace.registry, "Alice").name == "Alice"
        assert aliases(palace.conn, "Alice").resolved_into == ()
        assert alias_pairs(palace, "Project Alice") == {("Project Alice", "name")}


def read_in_wing(conn, readings: dict[str, dict[str, int]], wing: str = "notes") -> dict[str, int]:
    """Store entities as if NER had read them in ``wing``: ``{name: {label: times}}``.
    Returns ``{name: entity id}``."""
    file_id = conn.execute("INSERT INTO files (wing, root, path, room, status, mined_at)"
                           " VALUES (?, '/n', 'a.md', '.', 'indexed', 't') RETURNING id", (wing,)).fetchone()[0]
    conn.execute("INSERT INTO drawers (id, file_id, ordinal, char_start, char_end, line_start, line_end, heading_path,"
                 " text, text_hash, embed_hash) VALUES ('d1', ?, 0, 0, 1, 1, 1, '[]', 'x', 'h', 'h')", (file_id,))
    ids = {}
    for name, labels in readings.items():
        ids[name] = conn.execute("INSERT INTO entities (name, type, key) VALUES (?, 'ORG', ?) RETURNING id",
                                 (name, entity_key(name))).fetchone()[0]
        for label, times in labels.items():
            conn.executemany("INSERT INTO mentions (entity_id, raw_entity_id, drawer_id, char_start, char_end, surface,"
                             " label, extractor, confidence) VALUES (?, ?, 'd1', 0, 1, ?, ?, 'ner', 0.7)",
                             [(ids[name], ids[name], name, label)] * times)
    return ids


def joins(conn, ids: dict[str, int]) -> dict[str, tuple[str, str]]:
    """``{name: (target name, rule)}`` of the wing's plan."""
    names = {v: k for k, v in ids.items()}
    return {names[raw]: (names.get(target), rule) for raw, (target, rule, _) in plan_wing(conn, "notes").items()}


@pytest.mark.unit
def test_a_plain_name_that_is_a_word_of_many_names_stays_itself(empty_palace):
    conn = store.connect(empty_palace)
    ids = read_in_wing(conn, {"Rust Project": {"ORG": 3}, "Rust": {"ORG": 10}, "Rust Foundation": {"ORG": 4},
                              "Rust 2024": {"DATE": 1, "ORG": 1}, "Inside Rust": {"PERSON": 1}})
    assert joins(conn, ids) == {}  # "Rust" names more than the project
    conn.execute("DELETE FROM mentions WHERE raw_entity_id = ?", (ids["Inside Rust"],))
    assert joins(conn, ids) == {"Rust": ("Rust Project", "project name")}  # two other names: still the project's


@pytest.mark.unit
def test_a_plain_name_claimed_by_an_organisation_and_a_project_stays_itself(empty_palace):
    conn = store.connect(empty_palace)
    ids = read_in_wing(conn, {"Project Falcon": {"ORG": 2}, "Falcon Inc.": {"ORG": 1}, "Falcon": {"ORG": 5}})
    assert joins(conn, ids) == {}


@pytest.mark.unit
def test_a_plain_name_read_mostly_as_a_place_is_not_the_organisation(empty_palace):
    conn = store.connect(empty_palace)
    ids = read_in_wing(conn, {"Jordan Ltd": {"ORG": 2}, "Jordan Limited": {"ORG": 1}, "Jordan": {"GPE": 6, "ORG": 1}})
    assert joins(conn, ids) == {"Jordan Limited": ("Jordan Ltd", "legal suffix")}


@pytest.mark.unit
def test_where_the_project_is_an_organisation_project_x_is_not_a_project_called_x(empty_palace):
    conn = store.connect(empty_palace)
    # minutes of "the Project": "Project Directors" are its directors, not a project
    ids = read_in_wing(conn, {"Project": {"ORG": 12}, "Project Directors": {"ORG": 5}, "Directors": {"ORG": 3},
                              "Directors Project": {"ORG": 1}})
    assert joins(conn, ids) == {"Directors Project": ("Project Directors", "project name")}
