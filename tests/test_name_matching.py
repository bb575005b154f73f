"""Names match with diacritics and case folded, and a short name resolves inside its own
note first (issue 22, item 3; :mod:`palace.graph.resolution` rules 0 and 1), mined from
small folders with the real pipeline: which entity each fact lands on, the rule and the
evidence recorded, and an older palace joined by its migration."""

from __future__ import annotations

import pytest

from palace.core import Palace
from palace.graph.profile import profile
from palace.graph.resolution import aliases, split


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")


def typed(palace, predicate: str) -> set[tuple[str, str, str]]:
    """``(subject, object, path)`` of the live facts of ``predicate``."""
    return {tuple(r) for r in palace.conn.execute(
        "SELECT s.name, coalesce(o.name, f.object_value), f.path FROM facts f JOIN entities s ON s.id = f.subject_id"
        " LEFT JOIN entities o ON o.id = f.object_id WHERE f.predicate = ? AND f.status = 'live'", (predicate,))}


@pytest.fixture
def notes(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    return root


@pytest.mark.unit
def test_match_keys_fold_diacritics_and_case_and_name_ends_skip_particles():
    from palace.nlp.names import match_key, name_ends

    assert match_key("Jakub Beránek") == match_key("JAKUB BERANEK") == "jakub beranek"
    assert match_key("Łukasz Żak") != match_key("Lukasz Zak")  # Ł is a letter of its own, not L with a mark
    assert match_key("Ångström") == "angstrom"
    assert name_ends("Martin Luther King Jr.") == ("martin", "king")
    assert name_ends("Ursula von der Leyen") == ("ursula", "leyen")
    assert name_ends("Beránek") is None


SPELLINGS = {
    "compiler.md": "# Compiler team\n\nJakub Beránek joined Acme Robotics in 2019. Jakub Beránek leads the compiler"
                   " team.\n",
    "meeting.md": "# Rust meeting\n\nJakub Beranek joined Ferrous Systems in 2023.\n",
}


def test_a_name_with_and_without_its_diacritics_is_one_person(notes, tmp_path):
    write(notes, SPELLINGS)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes, wing="w")
        # the facts of both notes land on one entity, named by the spelling read most often
        assert typed(palace, "joined") == {("Jakub Beránek", "Acme Robotics", "compiler.md"),
                                           ("Jakub Beránek", "Ferrous Systems", "meeting.md")}
        card = profile(palace.conn, palace.registry, "Jakub Beranek")
        assert card.name == "Jakub Beránek"
        assert "Jakub Beranek" in card.aliases  # the other written form is kept, as an alias
        report = aliases(palace.conn, "Jakub Beránek")
        assert [(r.name, r.into, r.rule) for r in report.resolved_from] == [
            ("Jakub Beranek", "Jakub Beránek", "spelling")]
        assert "read 1 and 2 times in wing w" in report.resolved_from[0].evidence
        # a user who knows better keeps them apart, and a re-mine respects it
        split(palace.conn, "Jakub Beranek", palace.registry)
        palace.mine(notes, wing="w")
        assert typed(palace, "joined") == {("Jakub Beránek", "Acme Robotics", "compiler.md"),
                                           ("Jakub Beranek", "Ferrous Systems", "meeting.md")}


def test_the_bare_surname_of_a_diacritic_name_in_another_note_is_that_person(notes, tmp_path):
    write(notes, {**SPELLINGS, "later.md": "# Later\n\nBeranek joined Northwind Labs in 2025.\n"})
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes, wing="w")
        # across notes: the wing holds one person whose name ends with it (two spellings, one person)
        assert ("Jakub Beránek", "Northwind Labs", "later.md") in typed(palace, "joined")
        [resolution] = aliases(palace.conn, "Beranek").resolved_into
        assert (resolution.into, resolution.rule) == ("Jakub Beránek", "short form")


PAGES = {
    # two pages, each with its own full name and the shared surname; a third person's
    # first name is that surname, named only on a third page
    "politics.md": "# Council history\n\nAnn Taylor was elected to the city council in 2004."
                   " Taylor joined Northwind Labs in 2006.\n",
    "film.md": "# Film notes\n\nRod Taylor starred in Blue River in 2010. Taylor joined Warner Bros in 2012.\n",
    "studio.md": "# Studio\n\nTaylor Brooks runs the studio. Taylor Brooks joined Acme Robotics in 2015.\n",
}


def test_a_surname_resolves_to_the_full_name_of_its_own_note(notes, tmp_path):
    write(notes, PAGES)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes, wing="w")
        assert typed(palace, "joined") == {("Ann Taylor", "Northwind Labs", "politics.md"),
                                           ("Rod Taylor", "Warner Bros", "film.md"),
                                           ("Taylor Brooks", "Acme Robotics", "studio.md")}
        report = aliases(palace.conn, "Ann Taylor")
        assert [(r.name, r.rule, r.evidence) for r in report.resolved_from] == [
            ("Taylor", "same note", "'Taylor' is Ann Taylor in politics.md: the only person the note names in full"
                                    " whose name starts or ends with it")]
        # resolved in every note that reads it, the name asks nothing of the wing
        assert palace.conn.execute("SELECT count(*) FROM entity_resolutions r JOIN entities e"
                                   " ON e.id = r.raw_entity_id WHERE e.key = 'taylor'").fetchone()[0] == 0

        # a note with the surname alone: three people of the wing could be meant, none is taken
        write(notes, {"memo.md": "# Memo\n\nTaylor joined Heron Labs in 2020.\n"})
        palace.mine(notes, wing="w")
        assert ("Taylor", "Heron Labs", "memo.md") in typed(palace, "joined")
        rules = {(r.rule, r.into) for r in aliases(palace.conn, "Taylor").resolved_into}
        assert rules == {("same note", "Ann Taylor"), ("same note", "Rod Taylor"), ("ambiguous short form", None)}
        # the pages keep their own people
        assert ("Ann Taylor", "Northwind Labs", "politics.md") in typed(palace, "joined")


def test_a_surname_shared_by_two_people_of_one_note_stays_itself_there(notes, tmp_path):
    write(notes, {"family.md": "# Family\n\nAnn Taylor met Rod Taylor in 2001. Taylor joined Warner Bros in 2012.\n",
                  "other.md": "# Other\n\nRod Taylor joined Acme Robotics in 2015.\n"})
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes, wing="w")
        assert ("Taylor", "Warner Bros", "family.md") in typed(palace, "joined")
        rules = {(r.rule, r.into) for r in aliases(palace.conn, "Taylor").resolved_into}
        assert rules == {("ambiguous in its note", None)}  # not Rod Taylor of the other note


@pytest.mark.unit
def test_plan_note_takes_a_first_name_or_a_surname_and_never_a_place():
    from palace.graph.resolution import plan_note

    readings = {1: ("Ann Taylor", "ann taylor", {"PERSON": 1}), 2: ("Taylor", "taylor", {"PERSON": 2}),
                3: ("Ann", "ann", {"PERSON": 1}), 4: ("Washington", "washington", {"GPE": 2, "PERSON": 1}),
                5: ("George Washington", "george washington", {"PERSON": 1}),
                6: ("Ann Taylor Design", "ann taylor design", {"PERSON": 1})}
    plan = plan_note(readings, "n.md")
    assert {raw: (target, rule) for raw, (target, rule, _) in plan.items()} == {
        2: (1, "same note"), 3: (1, "same note")}  # "Ann Taylor Design" is a variant, "Washington" a place here


def test_an_older_palace_joins_its_spellings_at_the_next_repair(notes, tmp_path):
    """A palace mined before names matched folded holds "Jakub Beránek" and "Jakub
    Beranek" as two people; its migration (0014) marks every wing pending, and `palace
    doctor --repair` (or the next mine) resolves it whole: one person."""
    write(notes, SPELLINGS)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes, wing="w")
        joined = typed(palace, "joined")
        conn = palace.conn
        # as an older palace: no spelling rule ran, migration 0014 not applied
        conn.executescript(
            "DELETE FROM entity_resolutions; DELETE FROM aliases WHERE source = 'spelling';"
            " UPDATE facts SET subject_id = raw_subject_id, object_id = coalesce(raw_object_id, object_id);"
            " UPDATE mentions SET entity_id = raw_entity_id;"
            " DROP TRIGGER mentions_note_read; DROP TRIGGER drawers_note_unread; DROP TABLE note_resolutions;"
            " DROP TABLE notes_changed; DROP INDEX entity_bases_folded; DROP INDEX entity_bases_first;"
            " DROP INDEX entity_bases_last; ALTER TABLE entity_bases DROP COLUMN folded;"
            " ALTER TABLE entity_bases DROP COLUMN first_word; ALTER TABLE entity_bases DROP COLUMN last_word;"
            " DELETE FROM schema_migrations WHERE name = '0014_name_matching';")
        assert ("Jakub Beranek", "Ferrous Systems", "meeting.md") in typed(palace, "joined")
    with Palace.open(tmp_path / "palace") as palace:
        report = palace.doctor()
        assert [c.detail for c in report.checks if c.name == "resolution"] == [
            "entity resolution pending in w (a run was interrupted)"]
        palace.doctor(repair=True)
        assert typed(palace, "joined") == joined == {("Jakub Beránek", "Acme Robotics", "compiler.md"),
                                                     ("Jakub Beránek", "Ferrous Systems", "meeting.md")}
