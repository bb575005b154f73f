"""Whole names (palace.nlp.names): person names keep their hyphens, initials, particles
and suffixes in every sentence position, with the real spaCy pipeline; organisation and
project names reduce to the name they share; "Acme Corp." and "Acme Corp" are one key."""

from __future__ import annotations

import datetime as dt

import pytest

from palace.nlp.extraction import Extractor
from palace.nlp.names import entity_key
from palace.nlp.markup import normalise_entity_name
from palace.nlp.names import legal_form, project_base

DAY = dt.date(2024, 5, 1)

#: Sentence positions: subject, object, after "by", apposition, at the end before a
#: period, before a possessive, in a list, in a question.
POSITIONS = [
    "{} founded the company in 1990.",
    "Yesterday I met {} in Lyon.",
    "The report was written by {} last spring.",
    "Our guest, {}, spoke first.",
    "The talk was given by {}.",
    "According to {}, the plan failed.",
    "She married {} in 2001.",
    "The award went to {} and Maria Lopez.",
    "In 1999, {} was elected mayor.",
    "Who directed the film starring {}?",
]

#: Names as the notes write them; each is asserted in every position above.
WHOLE = [
    "Cho Yoon-ho",
    "Kim Min-jun",
    "Park Ji-sung",
    "Philip A. Smith",
    "George W. Bush",
    "Ludwig van Beethoven",
    "Vincent van Gogh",
    "Leonardo da Vinci",
    "Ursula von der Leyen",
    "Jean-Luc Picard",
    "Mary-Kate O'Neill",
    "J. R. R. Tolkien",
    "Martin Luther King Jr.",
    "Henry Ford III",
    "John Smith Sr.",
    "Osama bin Laden",
    "Ahmad ibn Hanbal",
    "Abu Bakr al-Baghdadi",
]


@pytest.fixture(scope="module")
def extractor():
    return Extractor()


def people(extractor, text: str) -> list[str]:
    return [m.name for m in extractor.extract(text, DAY).entities if m.label == "PERSON"]


@pytest.mark.parametrize("name", WHOLE)
def test_a_name_comes_out_whole_in_every_position(extractor, name):
    for template in POSITIONS:
        text = template.format(name).replace("..", ".")  # "…by John Smith Sr."
        # whole, whatever label spaCy gives it ("Ludwig van Beethoven founded…" is an ORG to it)
        assert name in [m.name for m in extractor.extract(text, DAY).entities], text


@pytest.mark.parametrize("text, expected", [
    # a hyphenated given name: the part after the hyphen is lower case
    ("Cho Yoon-ho directed the film.", ["Cho Yoon-ho"]),
    ("The film by Cho Yoon-ho (2019) won.", ["Cho Yoon-ho"]),
    ("Cho Yoon-ho's film won.", ["Cho Yoon-ho"]),
    # spaCy stops at the particles and reads the surname as a place
    ("I met Ursula von der Leyen.", ["Ursula von der Leyen"]),
    # particles inside a name stay; lower-case words after a name do not
    ("Ana de la Cruz said no.", []),  # spaCy does not see this one as a name at all
    ("The prize went to Ana de la Cruz.", ["Ana de la Cruz"]),
    ("Alice Chen rang about the budget.", ["Alice Chen"]),
    # an initial and a surname; a full stop after an initial is not always the name's end
    ("Philip A. Smith was born in 1950.", ["Philip A. Smith"]),
    ("Nguyen Van A won.", ["Nguyen Van A"]),
    ("The prize went to Nguyen Van A.", ["Nguyen Van A"]),
    ("I met Philip A. Then we left.", ["Philip A"]),  # "Then" starts the next sentence
    # generational suffixes, also after a comma, and a possessive after them
    ("I met Martin Luther King Jr.", ["Martin Luther King Jr."]),
    ("Who was Martin Luther King Jr.'s father?", ["Martin Luther King Jr."]),
    ("I met Martin Luther King, Jr. in the archive.", ["Martin Luther King Jr."]),
    ("I met John Smith Sr.", ["John Smith Sr."]),
])
def test_names_in_sentences(extractor, text, expected):
    assert people(extractor, text) == expected


def test_a_name_does_not_run_over_a_line_break(extractor):
    names = people(extractor, "Attendees: Philip A.\n\nSmith Street was closed.")
    assert names[0] == "Philip A" and "Philip A. Smith" not in names


def test_a_lone_legal_suffix_joins_the_name_before_it(extractor):
    found = [(m.name, m.label) for m in extractor.extract("Globex GmbH and Initech LLC merged.", DAY).entities]
    assert found == [("Globex GmbH", "ORG"), ("Initech LLC", "ORG")]


@pytest.mark.unit
@pytest.mark.parametrize("name, expected", [
    ("J. R. R. Tolkien", "J. R. R. Tolkien"),  # repeated initials are not a name read twice
    ("Marcus Marcus", "Marcus"),
    ("Martin Luther King Jr.'s", "Martin Luther King Jr."),
    ("Acme Corp.", "Acme Corp."),
])
def test_normalised_names(name, expected):
    assert normalise_entity_name(name) == expected


@pytest.mark.unit
def test_a_period_after_a_legal_suffix_is_not_part_of_the_key():
    assert entity_key("Acme Corp.") == entity_key("Acme Corp") == entity_key("the ACME corp") == "acme corp"
    assert entity_key("Martin Luther King Jr.") == "martin luther king jr"
    assert entity_key("U.S.") == "u.s."
    assert entity_key("Acme Inc.") != entity_key("Acme Corp")  # one entity only through resolution


@pytest.mark.unit
@pytest.mark.parametrize("name, expected", [
    ("Acme Corp.", ("Acme", "Corp.")),
    ("Acme Corp", ("Acme", "Corp")),
    ("Acme Corporation", ("Acme", "Corporation")),
    ("Acme, Inc.", ("Acme", "Inc.")),
    ("The Acme Ltd", ("Acme", "Ltd")),
    ("Initech LLC", ("Initech", "LLC")),
    ("Globex GmbH", ("Globex", "GmbH")),
    ("Umbrella plc", ("Umbrella", "plc")),
    ("Nestlé S.A.", ("Nestlé", "S.A.")),
    ("Siemens AG", ("Siemens", "AG")),
    ("Acme Co.", ("Acme", "Co.")),
    ("Smith & Co.", None),
    ("Acme Robotics", None),
    ("Inc.", None),
])
def test_legal_form(name, expected):
    assert legal_form(name) == expected


@pytest.mark.unit
@pytest.mark.parametrize("name, expected", [
    ("Project Falcon", "Falcon"),
    ("the Falcon project", "Falcon"),
    ("Falcon Project", "Falcon"),
    ("Project Blue Sky", "Blue Sky"),
    ("Project", None),
    ("Project manager", None),
    ("Update on Project", None),
    ("Falcon", None),
])
def test_project_base(name, expected):
    assert project_base(name) == expected
