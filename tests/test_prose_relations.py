"""Issue 22, part B: readings of other people's prose — the note's own subject as a known
name, the wrong readings the issue lists, and the biographical, encyclopedic and work
relations with their intervals. Read through the same path as mining
(``palace.mine.extract.extract_text``, the real spaCy pipeline)."""

from __future__ import annotations

import datetime as dt

import pytest

from palace.mine.extract import extract_text
from palace.nlp.extraction import Extractor
from palace.nlp.rules import RelationRules
from palace.graph.temporal import default_registry, load_values

DAY = dt.date(2024, 6, 10)


@pytest.fixture(scope="module")
def extractor():
    return Extractor(rules=RelationRules.from_registry(default_registry(), load_values()), trace=True)


def read(extractor, text, *, date=DAY, title=""):
    """``{(subject, predicate, object, valid_from, valid_to)}`` read from ``text``."""
    result = extract_text(text, date=date, title=title, extractor=extractor)
    return {(f.subject, f.predicate, f.object, f.valid_from, f.valid_to if f.kind == "state" else None)
            for f in result.facts}


PIOLI = ("# Stefano Pioli\n\nStefano Pioli (born 20 October 1965) is an Italian football manager and former"
         " player.\n\nIn 1998 he joined Parma. Pioli coached Bologna from 2003 until 2004.\n")


def test_a_pages_title_is_its_topic_with_qualifiers_and_initials_kept():
    from palace.nlp.topic import note_topic

    singer = note_topic("Fergie (singer)", "Stacy Ann Ferguson (born March 27, 1975), known as Fergie, is an"
                                           " American singer. She joined the Black Eyed Peas in 2003.")
    assert (singer.name, singer.person, singer.pronoun) == ("Fergie", True, "she")
    kennedy = note_topic("John F. Kennedy Jr.", "John Fitzgerald Kennedy Jr. (1960–1999) was an American lawyer."
                                                " He founded George magazine.")
    assert (kennedy.name, kennedy.person, kennedy.pronoun) == ("John F. Kennedy Jr.", True, "he")
    club = note_topic("FC Example", "FC Example is a football club based in Oslo. The club won the cup.")
    assert (club.person, club.pronoun, "club" in club.kinds) == (False, "it", True)


def test_pronouns_and_surnames_on_a_page_stand_for_its_subject(extractor):
    facts = read(extractor, PIOLI, title="Stefano Pioli")
    assert ("Stefano Pioli", "coaches", "Bologna", "2003-01-01", "2005-01-01") in facts
    assert any(f[0] == "Stefano Pioli" and f[2] == "Parma" and f[3] == "1998-01-01" for f in facts)


def test_the_club_on_a_clubs_page_is_the_club(extractor):
    text = ("# FC Example\n\nFC Example is a football club based in Oslo.\n\n"
            "Since 2010 the club has been owned by Acme Holdings.\n")
    assert ("Acme Holdings", "owns", "FC Example", "2010-01-01", None) in read(extractor, text, title="FC Example")


def test_once_a_day_is_how_often_not_an_ending(extractor):
    result = extract_text("Bob Lee started taking Metformin once a day.", date=DAY, extractor=extractor)
    takes = [f for f in result.facts if f.predicate == "takes"]
    assert [(f.object, f.ending, f.valid_from) for f in takes] == [("Metformin", False, "2024-06-10")]


def test_a_semicolon_parts_two_statements(extractor):
    facts = read(extractor, "Ana Costa now leads the Kestrel project; Bo Lind moved to the Heron team.")
    assert ("Ana Costa", "leads", "Kestrel", "2024-06-10", None) in facts
    assert ("Bo Lind", "member_of", "Heron team", "2024-06-10", None) in facts


def test_a_numeric_date_in_a_day_first_note_is_a_date_not_a_person(extractor):
    text = "Minutes of 28/02/2024.\n\nOn 03/04/2024 Ruth Adler started at Google.\n"
    result = extract_text(text, date=DAY, extractor=extractor)
    assert ("03/04/2024", "PERSON") not in set(result.entities)
    assert ("Ruth Adler", "works_at", "Google", "2024-04-03", None) in read(extractor, text)


def test_a_medication_is_never_called_a_date_or_a_number(extractor):
    result = extract_text("Dana Lee was prescribed 50mg Metoprolol.", date=DAY, extractor=extractor)
    assert ("Dana Lee", "takes", "Metoprolol") in {(f.subject, f.predicate, f.object) for f in result.facts}
    assert "object is a date or a number" not in {r.reason for r in result.rejected}
