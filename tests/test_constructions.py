"""Issue 10: each construction people write yields the exact fact and valid time, read
through the same path as mining (``palace.mine.extract.extract_text``, the real spaCy
pipeline), and what must not be a fact is not."""

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


def read(extractor, text, *, date=DAY, title="", owner=None):
    """``{(subject, predicate, object, valid_from, valid_to)}`` read from ``text``."""
    result = extract_text(text, date=date, title=title, owner=owner, extractor=extractor)
    return {(f.subject, f.predicate, f.object, f.valid_from, f.valid_to if f.kind == "state" else None)
            for f in result.facts}


CASES = [
    # passive voice: the "by" agent is the subject
    ("passive", "The Falcon project is led by Ines Moreau.", {},
     ("Ines Moreau", "leads", "Falcon", "2024-06-10", None)),
    ("passive", "Ines Moreau was hired by Umbrella in May.", {},
     ("Ines Moreau", "works_at", "Umbrella", "2024-05-01", None)),
    # copulas with relational nouns and possessives
    ("possessive pronoun", "Met Henrik Dahl for onboarding. His manager is Ola Berg.", {},
     ("Henrik Dahl", "reports_to", "Ola Berg", "2024-06-10", None)),
    ("possessive name", "Initrode's plan is Pro, 25 seats.", {}, ("Initrode", "plan", "Pro", "2024-06-10", None)),
    ("of-complement", "The status of Kestrel is blocked.", {}, ("Kestrel", "status", "blocked", "2024-06-10", None)),
    # titles in apposition: the role and the employer
    ("appositive", "Ola Berg, the new CFO of Umbrella, signed the order.", {},
     ("Ola Berg", "works_at", "Umbrella", "2024-06-10", None)),
    ("appositive", "Ola Berg, the new CFO of Umbrella, signed the order.", {},
     ("Ola Berg", "role", "CFO", "2024-06-10", None)),
    ("role phrase", "Philip A. Smith joined Acme as CFO in 2019.", {},
     ("Philip A. Smith", "role", "CFO", "2019-01-01", None)),
    # relative clauses and coordination
    ("relative clause", "Ana Lima, who leads Falcon, asked for two more weeks.", {},
     ("Ana Lima", "leads", "Falcon", "2024-06-10", None)),
    ("coordination", "Ana Lima and Bo Chen joined Acme in May.", {},
     ("Bo Chen", "works_at", "Acme", "2024-05-01", None)),
    # an object behind a quantity, a tier behind its noun
    ("quantity", "Ruth Adler takes 5mg of Amlodipine daily.", {},
     ("Ruth Adler", "takes", "Amlodipine", "2024-06-10", None)),
    ("modifier", "Initrode downgraded to the Basic plan.", {}, ("Initrode", "plan", "Basic", "2024-06-10", None)),
    # transitions end the old value where the new one begins
    ("transition", "Ines Moreau moved from Oslo to Bergen in May.", {},
     ("Ines Moreau", "lives_in", "Oslo", None, "2024-05-01")),
    ("transition", "Ines Moreau moved from Oslo to Bergen in May.", {},
     ("Ines Moreau", "lives_in", "Bergen", "2024-05-01", None)),
    ("transition", "Acme downgraded from Pro to Basic after the budget freeze.", {},
     ("Acme", "plan", "Pro", None, "2024-06-10")),
    # endings without a successor close the state on their date
    ("ending", "Ines Moreau stepped down as lead in March.", {}, ("Ines Moreau", "role", "lead", None, "2024-03-01")),
    ("ending", "Ruth Adler saw the GP. She stopped taking Amlodipine.", {},
     ("Ruth Adler", "takes", "Amlodipine", None, "2024-06-10")),
    ("ending", "Ines Moreau no longer works at Umbrella.", {}, ("Ines Moreau", "works_at", "Umbrella", None, "2024-06-10")),
    # hand-overs end the previous holder's fact
    ("hand-over", "Bo Chen took over Falcon from Ana Lima.", {}, ("Ana Lima", "leads", "Falcon", None, "2024-06-10")),
    ("hand-over", "Ana Lima handed Falcon over to Bo Chen.", {}, ("Bo Chen", "leads", "Falcon", "2024-06-10", None)),
    # intervals stated in the clause bound the fact
    ("interval", "He played for Ajax. Cho Yoon-ho played for Ajax from 1999 to 2003.", {},
     ("Cho Yoon-ho", "plays_for", "Ajax", "1999-01-01", "2004-01-01")),
    ("interval", "Swissair was owned by Lufthansa between 2006 and 2020.", {},
     ("Lufthansa", "owns", "Swissair", "2006-01-01", "2021-01-01")),
    ("interval", "Mary Smith served as chair of the Board until 2010.", {},
     ("Mary Smith", "role", "chair", None, "2011-01-01")),
    ("interval", "Sadia Islam was CFO at bKash (2015–2019).", {},
     ("Sadia Islam", "works_at", "bKash", "2015-01-01", "2020-01-01")),
    # key–value lines and front matter are about the note's title
    ("key-value", "Status: blocked\nOwner: Ana Lima\n- Plan: Pro\n", {"title": "Project Falcon"},
     ("Ana Lima", "owns", "Project Falcon", "2024-06-10", None)),
    ("key-value", "Status: blocked\nOwner: Ana Lima\n- Plan: Pro\n", {"title": "Project Falcon"},
     ("Project Falcon", "status", "blocked", "2024-06-10", None)),
    ("front matter", "---\ntitle: Harbor\nlead: Bo Larsen\nstatus: in-progress\n---\nSensor vendors are late.\n", {},
     ("Bo Larsen", "leads", "Harbor", "2024-06-10", None)),
    # the first person: a chat line's speaker, a journal's owner
    ("chat line", "[10:02] Mara Lind: I started a new job at Initech\n[10:03] Jonas Ek: congrats!!\n", {},
     ("Mara Lind", "works_at", "Initech", "2024-06-10", None)),
    ("journal", "Started at Monzo as a product designer. The team is lovely.", {"owner": "Nadia Rahman"},
     ("Nadia Rahman", "works_at", "Monzo", "2024-06-10", None)),
    ("journal", "Moved to Lisbon in March. Still unpacking.", {"owner": "Nadia Rahman"},
     ("Nadia Rahman", "lives_in", "Lisbon", "2024-03-01", None)),
    # they/their for organisations
    ("they", "Checked in with Tessaly Labs. Their CI is Buildkite.", {},
     ("Tessaly Labs", "uses", "Buildkite", "2024-06-10", None)),
]


@pytest.mark.parametrize("construction, text, options, expected", CASES, ids=[c[0] for c in CASES])
def test_a_construction_yields_its_fact_and_valid_time(extractor, construction, text, options, expected):
    assert expected in read(extractor, text, **options)


@pytest.mark.parametrize("text", [
    "Ines Moreau will move to Bergen in the autumn.",
    "Ines Moreau is going to switch to Buildkite.",
    "Tomás Rojas probably works for Falabella now, not sure.",
    "Rumour is that Hakan Yılmaz is leaving Turkcell for a startup.",
    "I think Bo Chen reports to Ana Lima.",
    "Acme plans to upgrade to the Enterprise plan.",
    "If Larkspur moves to the Pro plan we lose money.",
    "Does Ola Berg still work at Umbrella?",
])
def test_planned_hedged_or_asked_statements_are_no_fact(extractor, text):
    result = extract_text(text, date=DAY, extractor=extractor)
    assert [(f.subject, f.predicate, f.object) for f in result.facts] == []
    assert result.rejected  # and the trace says why


def test_the_trace_says_why_a_candidate_was_turned_down(extractor):
    result = extract_text("Bo Chen might join Acme.", date=DAY, extractor=extractor)
    assert ("joined", "hedged") in {(r.predicate, r.reason) for r in result.rejected}
    routes = extract_text("Ines Moreau moved from Oslo to Bergen.", date=DAY, extractor=extractor).facts
    assert {(f.predicate, f.route) for f in routes} >= {("lives_in", "one: supersedes"), ("moved_to", "many: coexists")}


def test_a_value_word_is_never_a_person(extractor):
    found = extractor.extract("Initrode downgraded to the Basic plan. Her support tier is Premium.", DAY)
    assert not {m.name for m in found.entities} & {"Basic", "Premium"}


def test_names_keep_hyphens_initials_and_particles(extractor):
    facts = read(extractor, "Cho Yoon-ho plays for Jeonbuk. Philip A. Smith joined Acme in 2019. "
                            "Ludwig van Beethoven moved to Vienna in 1792.")
    subjects = {f[0] for f in facts}
    assert {"Cho Yoon-ho", "Philip A. Smith", "Ludwig van Beethoven"} <= subjects
    assert ("Ludwig van Beethoven", "lives_in", "Vienna", "1792-01-01", None) in facts
