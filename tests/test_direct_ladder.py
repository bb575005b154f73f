"""The direct answer as a ladder (issue 23): the fact asked for, else the best sentence,
else "the notes do not say" — each step cited and named; the owner as "I"; change,
entity, identifier and successor questions; dates in questions — through real mining
(spaCy, SQLite, Chroma, the packaged model) on a small palace of its own."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from palace.ask.planning import as_owner, document_numbers, plan_question, read_intent
from palace.ask.questions import read_fact_questions
from palace.ask.planning import EntityMatch
from palace.core import Palace
from palace.nlp.dates import DateInterval, find_date_window

NOW = dt.date(2025, 6, 15)
NOTES = {
    "journal/2024-03-01.md": "# Journal\n\nI started at Acme Robotics as a product designer today.\n",
    "2025-02-03.md": "# Osprey sync\n\nOsprey status: active.\n\nMaya Lin runs the Osprey project day to day"
                     " since she joined in January.\n",
    "2024-08-05.md": "# Atlas kickoff\n\nAlice Chen presented Project Atlas with Bruno Diaz. Alice Chen works at"
                     " Initrode.\n",
    "2024-09-12.md": "# Reorg\n\nBob Okafor reports to Helen Marsh from today.\n",
    "keps/576-widget-api/README.md": "# Widget API\n\nThe widget API lets sidecars register widgets.\n",
    "keps/1022-gadget-api/README.md": "# Gadget API\n\nGadgets replace the older gizmo hooks.\n",
    "adr/0021-use-postgres.md": "# ADR 21: Use Postgres\n\nStatus: superseded by ADR 36.\n\nWe store events in"
                                " Postgres.\n\nPostgres gives us row locks.\n\nPostgres backups run nightly.\n",
    "adr/0036-use-sqlite.md": "# ADR 36: Use SQLite\n\nStatus: accepted. Supersedes ADR 21.\n\nOne file per"
                              " tenant is simpler to run.\n",
    "2023-11-20.md": "# Zoo\n\nThe zebra enclosure fence was painted green by the volunteers.\n",
}
CONFIG = {
    "owner": "Sam Rivera",
    # two of issue 22's predicates, stated by hand: the fact step must answer them
    "predicates": [
        {"name": "home_venue", "cardinality": "one", "kind": "state", "subject": ["ORG"],
         "object": ["FAC", "ORG", "GPE"], "patterns": []},
        {"name": "chairs", "cardinality": "many", "kind": "state", "subject": ["PERSON"], "object": ["ORG"],
         "patterns": []},
    ],
}


@pytest.fixture(scope="module")
def mined(tmp_path_factory):
    root = tmp_path_factory.mktemp("ladder")
    notes = root / "notes"
    for name, text in NOTES.items():
        (notes / name).parent.mkdir(parents=True, exist_ok=True)
        (notes / name).write_text(text, encoding="utf-8")
    (root / "palace").mkdir()
    (root / "palace" / "config.json").write_text(json.dumps(CONFIG), encoding="utf-8")
    with Palace.open(root / "palace") as palace:
        palace.mine(notes)
        palace.add_fact("Atlanta Dream", "home_venue", "State Farm Arena", valid_from=dt.date(2008, 1, 1), new=True)
        palace.add_fact("Kim Wexler", "chairs", "Harbor Board", valid_from=dt.date(2023, 1, 1), candidate=True,
                         new=True)
    return root / "palace"


@pytest.fixture
def palace(mined):
    with Palace.open(mined, create=False) as opened:
        yield opened


# ---------------------------------------------------------------- step 1: the fact asked for

def test_the_fact_step_answers_only_the_predicate_asked(palace):
    result = palace.ask("who does Bob Okafor report to", now=NOW)
    assert (result.direct.kind, result.direct.step) == ("fact", "fact")
    assert result.direct.text.startswith("Bob Okafor reports to Helen Marsh")
    assert "reports_to of Bob Okafor" in result.direct.why
    # who runs Osprey: the graph holds its status, never the answer to who leads it
    osprey = palace.ask("who leads Osprey now", now=NOW)
    assert osprey.direct.kind != "facts" and "status" not in osprey.direct.text.lower()
    assert osprey.direct.step in ("sentence", "abstain")
    if osprey.direct.kind == "sentence":
        assert "Maya Lin" in osprey.direct.text and "2025-02-03.md:" in osprey.direct.text


def test_issue_22_predicates_are_answered_from_hand_built_facts(palace):
    venue = palace.ask("what is the home venue of Atlanta Dream", now=NOW)
    assert venue.answer is not None and venue.answer.predicate == "home_venue"
    assert venue.direct.kind == "fact" and "State Farm Arena" in venue.direct.text


def test_a_candidate_fact_is_never_an_answer(palace):
    chair = palace.ask("who is the chair of Harbor Board", now=NOW)
    assert chair.answer is not None and chair.answer.predicate == "chairs"
    assert chair.answer.values == () and "Kim Wexler" not in chair.direct.text


def test_i_and_my_are_the_owner(palace):
    result = palace.ask("where do I work", now=NOW)
    assert result.plan.entities and result.plan.entities[0]["name"] == "Sam Rivera"
    assert any("read as Sam Rivera" in n for n in result.plan.notes)
    assert result.direct.kind in ("fact", "sentence") and "Acme Robotics" in result.direct.text
    assert as_owner("what is my role", "Sam Rivera") == "what is Sam Rivera's role"
    assert as_owner("who manages me", None) == "who manages me"


# ------------------------------------------------------- step 2 and 3: a sentence, or not said

def test_the_best_sentence_answers_with_its_span_and_citation(palace):
    result = palace.ask("who runs the Osprey project", now=NOW)
    assert (result.direct.kind, result.direct.step) == ("sentence", "sentence")
    assert result.direct.text.startswith("Maya Lin — 2025-02-03.md:5 «")
    assert "support" in result.direct.why and "bar" in result.direct.why


def test_nothing_that_supports_an_answer_abstains(palace):
    result = palace.ask("who owned the zebra enclosure from 1870 to 1872", now=NOW)
    assert result.plan.date_window == {"start": "1870-01-01", "end": "1873-01-01", "granularity": "range"}
    assert (result.direct.kind, result.direct.step) == ("not said", "abstain")
    assert result.direct.text.startswith("the notes do not say")
    assert result.results  # the closest evidence still follows


def test_a_sentence_about_someone_else_answers_nothing(palace):
    # "Zephyr" is in no note: Maya Lin runs Osprey, not Zephyr
    result = palace.ask("who runs the Zephyr project", now=NOW)
    assert (result.direct.kind, result.direct.step) == ("not said", "abstain")
    assert "Maya Lin" not in result.direct.text and "names 0.00" in result.direct.why


def test_the_plan_json_names_the_step(mined):
    from typer.testing import CliRunner

    from palace.cli.main import app

    out = CliRunner().invoke(app, ["ask", "who runs the Osprey project", "--now", NOW.isoformat(), "--json",
                                   "--palace", str(mined)])
    data = json.loads(out.stdout)
    assert data["direct"]["step"] == "sentence" and data["direct"]["why"]
    assert data["plan"]["direct_step"] == "sentence" and data["plan"]["direct_why"] == data["direct"]["why"]


# --------------------------------------------------------------- change and entity questions

def test_what_happened_in_a_period_is_a_change_question(palace):
    result = palace.ask("what happened in Q3 2024", now=NOW)
    assert result.plan.intent == "change"
    assert result.direct.kind == "changes" and "Bob Okafor" in result.direct.text


def test_everything_related_to_a_name_lists_its_facts_and_the_names_it_appears_with(palace):
    for question in ("list everything related to Project Atlas", "everything about Alice Chen"):
        result = palace.ask(question, now=NOW)
        assert result.plan.intent == "entity", question
        assert result.direct.kind == "facts" and result.direct.step == "entity", question
        assert "appears with" in result.direct.text and "2024-08-05.md:" in result.direct.text, question
    alice = palace.ask("everything about Alice Chen", now=NOW).direct.text
    assert "Initrode" in alice and ("Bruno Diaz" in alice or "Project Atlas" in alice or "Atlas" in alice)


@pytest.mark.unit
def test_a_month_is_no_design_record():
    assert document_numbers("who coached Olympiakos Nicosia from May 2018 to Sep 2019") == ()
    assert document_numbers("what is the status of PEP 8") == (("pep", "8"),)


def test_who_is_names_only_a_name_alone():
    assert read_intent("who is Mara Bos")[0] == "entity"
    assert read_intent("Who was the head coach of FC Aachen from 1990 to 1995?")[0] == "lookup"


# ----------------------------------------------------------- identifiers and successors

def test_an_identifier_finds_the_note_that_carries_its_number(palace):
    assert document_numbers("what does KEP-576 say, and ADR 021?") == (("kep", "576"), ("adr", "21"))
    result = palace.ask("what does KEP-576 propose", now=NOW)
    assert result.results[0].path == "keps/576-widget-api/README.md"
    assert any(c.retriever == "document" for c in result.results[0].why.retrievers)


def test_what_replaced_a_record_names_its_successor_and_spreads_the_evidence(palace):
    result = palace.ask("what replaced ADR 21", now=NOW)
    assert "ADR 36" in result.direct.text and result.direct.kind in ("fact", "sentence")
    top = [h.path for h in result.results[:4]]
    assert top.count("adr/0021-use-postgres.md") <= 2 and "adr/0036-use-sqlite.md" in top


# ---------------------------------------------------------------------- dates in questions

@pytest.mark.parametrize("question, start, end", [
    ("who led it from 1870 to 1872", "1870-01-01", "1873-01-01"),
    ("who was it in 1850", "1850-01-01", "1851-01-01"),
    ("what happened in the last week of August 2023", "2023-08-25", "2023-09-01"),
    ("what happened the Monday before July 24, 2023", "2023-07-17", "2023-07-18"),
    ("what was decided two weeks before August 11, 2023", "2023-07-28", "2023-07-29"),
])
def test_dates_in_questions(question, start, end):
    window, _ = find_date_window(question, dt.date(2026, 12, 2))
    assert (window.start.isoformat(), window.end.isoformat()) == (start, end)


def test_a_bare_old_year_needs_a_preposition():
    assert find_date_window("what did ticket 1234 say", dt.date(2026, 12, 2)) is None


def test_a_relative_date_with_no_notes_is_read_from_the_latest_note(palace):
    plan = plan_question(palace.conn, "what happened last week", now=dt.date(2026, 11, 30))
    assert any("holds no note; read from the latest note's date, 2025-02-03" in n for n in plan.notes)
    assert plan.window == DateInterval(dt.date(2025, 1, 27), dt.date(2025, 2, 3), "week")


def test_question_words_of_issue_22_predicates():
    def name(text, kind):
        return EntityMatch(text, text, (1,), (kind,), "name")

    cases = [
        ("who was the chair of Acme Corp", name("Acme Corp", "ORG"), ("chairs", "object")),
        ("who commanded the Fifth Fleet", name("the Fifth Fleet", "ORG"), ("commands", "object")),
        ("what league did Alemannia Aachen play in", name("Alemannia Aachen", "ORG"), ("in_league", "subject")),
        ("who was Ada Lovelace's spouse", name("Ada Lovelace", "PERSON"), ("married_to", "subject")),
        ("where was Siemens headquartered", name("Siemens", "ORG"), ("headquartered_in", "subject")),
        ("what replaced PEP 3", name("PEP 3", "DOCUMENT"), ("supersedes", "object")),
        ("what is KEP-1 blocked by", name("KEP-1", "DOCUMENT"), ("blocked_by", "subject")),
        ("what does Harbor depend on", name("Harbor", "ORG"), ("depends_on", "subject")),
        ("what was the capital of Prussia", name("Prussia", "GPE"), ("capital", "subject")),
        ("what rank did John Smith hold", name("John Smith", "PERSON"), ("rank", "subject")),
        ("who is the CEO of Siemens", name("Siemens", "ORG"), ("ceo_of", "object")),
        ("what label was Adele signed to", name("Adele", "PERSON"), ("signed_to", "subject")),
        ("what is the home venue of Atlanta Dream", name("Atlanta Dream", "ORG"), ("home_venue", "subject")),
    ]
    for question, entity, expected in cases:
        readings = read_fact_questions(question, (entity,))
        assert readings and (readings[0].predicate, readings[0].side) == expected, question



# ------------------------------------------------------------------ the README's demo question

def test_the_readme_demo_question_states_the_decision(sample_palace):
    direct = sample_palace.ask("what did we decide about the Harbor budget").direct
    assert (direct.kind, direct.step) == ("sentence", "sentence")
    assert "«Decision: the Harbor budget is" in direct.text


# ------------------------------------------------------------------ the sentence step's signals

def _sentence(text: str, marks=(), title: str = "", rank: int = 1):
    from palace.ask.sentences import Sentence

    return Sentence("d1", rank, "page.md", "main", 3, 0, len(text), text, title, None, tuple(marks))


@pytest.mark.unit
def test_names_match_whatever_their_diacritics():
    from palace.ask.ladder import Question, fold, support

    assert fold("Gáivuotna – Kåfjord") == "gaivuotna – kafjord" and fold("Beránek") == "beranek"
    question = Question(terms=("mayor",), names=((frozenset(), ("kafjord",)),), window=None, type="", labels=(),
                        until=None)
    said = support(_sentence("The mayor of Kåfjord is Svein O. Leiros."), "", question)
    assert said.signals["names"] == 1.0 and said.signals["terms"] == 1.0
    elsewhere = support(_sentence("The mayor of Tromsø is Gunnar Wilhelmsen."), "", question)
    assert elsewhere.score == 0.0  # about another place: no support at all


@pytest.mark.unit
def test_a_name_is_found_by_its_surname_its_initials_or_a_stroked_letter():
    from palace.ask.ladder import Question, fold, support

    assert fold("Sokołowsko") == "sokolowsko" and fold("Søren") == "soren"

    def names(text: str, name: str, title: str = "", person: str = "") -> float:
        from palace.ask.sentences import Mark

        question = Question(terms=(), names=((frozenset(), (fold(name),)),), window=None, type="", labels=(),
                            until=None)
        at = text.find(person) if person else -1
        marks = (Mark(at, at + len(person), person, "PERSON", 5),) if at >= 0 else ()
        return support(_sentence(text, marks, title=title), "", question).signals["names"]

    assert names("Chaikov studied in Paris in the years 1910 through 1914.", "Joseph Moisevich Chaikov") == 1.0
    assert names("On 31 May 2007 he was announced as new Sampdoria coach.", "Mr Mazzarri", "Walter Mazzarri") == 0.5
    assert names("John Swinney was elected leader in 2000.", "SNP", "Scottish National Party") == 0.5
    assert names("Prior to 1945 it was in Germany.", "Sokolowsko", "Sokołowsko") == 0.5
    # a first name alone, or a surname written small, names nobody
    assert names("In 2008–09, Conceição was promoted to team captain.", "Sergio Perez", "Sérgio Conceição") == 0.0
    assert names("He joined a political party in 1989.", "Scottish National Party") == 0.0
    assert names("Joe Vance joined Globex in 2019.", "Ada Vance", person="Joe Vance") == 0.0  # another Vance
    assert names("In 2019 Mr Vance joined Globex.", "Ada Vance", person="Mr Vance") == 1.0
    assert names("After Vance left Lyon, she joined Globex.", "Ada Vance", person="Vance") == 1.0
    assert names("In March Vance joined Globex.", "Ada Vance") == 1.0


@pytest.mark.unit
def test_a_nationality_in_a_question_describes_and_need_not_be_in_the_answer():
    from palace.ask.ladder import read_question

    plan = _plan_with("What routes were run by the Swiss train network?",
                      EntityMatch("the Swiss", "Swiss", (7,), ("NORP",), "name"))
    assert read_question(plan).names == ()
    plan = _plan_with("What did the Republicans propose?",
                      EntityMatch("the Republicans", "Republicans", (6,), ("NORP",), "name"))
    assert [words for _, words in read_question(plan).names] == [("the republicans", "republicans")]  # a group
    plan = _plan_with("Who coached Ajax?", EntityMatch("Ajax", "Ajax", (8,), ("ORG",), "name"))
    assert [words for _, words in read_question(plan).names] == [("ajax",)]


@pytest.mark.unit
def test_a_chat_lines_sentences_are_about_who_speaks_it():
    from palace.ask.ladder import Question, support
    from palace.ask.sentences import Mark, Sentence, speaker_of, split
    from palace.nlp.lines import speakers

    plain = ("Priya: YOU DO NOT.\nDaniel: I do. Picked him up from the rescue last Saturday.\n"
             "Decision: Priya starts at Globex in March.\n[10:02] Sam: Benfica won.\n")
    talk = speakers(plain)
    spans = split(plain)
    assert [speaker_of(talk, a) for a, _ in spans] == ["Priya", "Daniel", "Daniel", "", "Sam"]  # "Decision:" labels

    def names(index: int, speaker: str, name: str, marks=()) -> float:
        question = Question(terms=("adopt",), names=((frozenset(), (name,)),), window=None, type="", labels=(),
                            until=None)
        a, b = spans[index]
        said = Sentence("d1", 1, "conv.md", "main", 2, a, b, plain[a:b], "", None, tuple(marks), speaker)
        return support(said, "", question).signals["names"]

    assert names(2, "Daniel", "daniel") == 1.0  # not "about someone else"
    assert names(2, "Priya", "daniel") == 0.0
    assert names(2, "Sam", "samsung") == 0.0  # a whole word of the name, not its start
    text = "Daniel: Great news today. Priya started at Globex in March.\n"
    at = text.index("Priya")
    priya = Sentence("d1", 1, "c.md", "main", 1, at, len(text) - 1, text[at:-1], "", None,
                     (Mark(at, at + 5, "Priya", "PERSON", 3),), "Daniel")
    question = Question(terms=("start",), names=((frozenset(), ("daniel",)),), window=None, type="", labels=(),
                        until=None)
    assert support(priya, "", question).score == 0.0  # Priya's news, told by Daniel
    for text in ("Daniel: She started at Globex in March.\n", "Daniel: The US office hired Priya in March.\n"):
        at = text.index(":") + 2
        marks = (Mark(text.index("Priya"), text.index("Priya") + 5, "Priya", "PERSON", 3),) if "Priya" in text else ()
        told = Sentence("d1", 1, "c.md", "main", 1, at, len(text) - 1, text[at:-1], "", None, marks, "Daniel")
        assert support(told, "", question).score == 0.0, text  # "she", "US": not Daniel's own news


@pytest.mark.unit
def test_a_known_organisation_is_not_found_by_its_last_word():
    from palace.ask.ladder import read_question, support

    plan = _plan_with("Who joined the Leadership Council in 2026?",
                      EntityMatch("the Leadership Council", "Leadership Council", (9,), ("ORG",), "name"))
    question = read_question(plan)
    thanks = support(_sentence("Thanks to Lori and Walter for joining the Council call today."), "", question)
    assert thanks.signals["names"] == 0.0 and thanks.score == 0.0
    plan = _plan_with("Where did Ada Vance work?", EntityMatch("Ada Vance", "Ada Vance", (10,), ("PERSON",), "name"))
    said = support(_sentence("In 1990 Vance moved to Lyon."), "", read_question(plan))
    assert said.signals["names"] == 1.0


def _plan_with(question: str, entity: EntityMatch):
    from palace.ask.planning import Plan

    return Plan(question=question, terms=tuple(w.lower() for w in question.rstrip("?").split()[1:3]),
                entities=(entity,))


@pytest.mark.unit
@pytest.mark.parametrize("question, kind", [
    ("What was the President of Federation of the Greens from Dec 2001 to Jul 2008?", "person"),
    ("What was the name of the head of Konrad Wolf Film University from 1969 to 1973?", "person"),
    ("What is the name of the person who managed the team in 2018?", "person"),
    ("What was the capital of Crimea in 1950?", "place"),
    ("What was football team Real Madrid Baloncesto's home field from 2010 to 2011?", "place"),
    ("What was The Exchange designed as from 1973 to 1974?", ""),
    ("What was the official title of Arnulf from 880 to 887?", ""),
    ("What is the state of the Harbor project?", ""),
    ("What was the home state of Ada Vance?", "place"),
])
def test_what_was_the_noun_of_asks_for_that_nouns_kind(question, kind):
    from palace.ask.sentences import answer_type

    assert answer_type(question)[0] == kind


@pytest.mark.unit
def test_the_span_is_the_name_whose_dates_fit_the_window_in_a_list():
    from palace.ask.ladder import Question, quote, support
    from palace.ask.sentences import Mark

    text = "Gladstone Publishing (1993–1999), Gemstone Publishing (2003-2008)"
    marks = [Mark(0, 20, "Gladstone Publishing", "ORG", 1),
             Mark(22, 31, "1993–1999", "DATE", 0, "1993-01-01", "2000-01-01"),
             Mark(34, 53, "Gemstone Publishing", "ORG", 2),
             Mark(55, 64, "2003-2008", "DATE", 0, "2003-01-01", "2009-01-01")]
    question = Question(terms=("publish",), names=(), window=("1993-01-01", "2000-01-01"), type="org",
                        labels=("ORG", "FAC", "GPE"), until=None)
    said = support(_sentence(text, marks), "", question)
    assert said.span.surface == "Gladstone Publishing"
    assert quote(_sentence(text, marks), said.span, question) == "Gladstone Publishing (1993–1999)"
    # a bracket that does not hold the date belongs to no name
    text = "Initech hired her in 1990 and, in 1993 (aged 20), she joined Globex."
    marks = [Mark(0, 7, "Initech", "ORG", 1), Mark(20, 24, "1990", "DATE", 0, "1990-01-01", "1991-01-01"),
             Mark(34, 38, "1993", "DATE", 0, "1993-01-01", "1994-01-01"), Mark(61, 67, "Globex", "ORG", 2)]
    question = Question(terms=("join",), names=(), window=("1993-01-01", "1994-01-01"), type="org",
                        labels=("ORG", "FAC", "GPE"), until=None)
    assert support(_sentence(text, marks), "", question).span.surface == "Globex"


@pytest.mark.unit
def test_a_long_sentence_without_an_answer_span_is_quoted_from_the_date_that_fits():
    from palace.ask.ladder import Question, quote
    from palace.ask.sentences import Mark

    text = ("Kirishi, which was occupied for two years by the troops of the army group that laid siege to the city"
            " of Leningrad for nearly nine hundred days, was greatly damaged, and on February 1944 the"
            " administrative center of the district was moved to the urban-type settlement of Budogoshch.")
    at = text.index("February 1944")
    marks = [Mark(at, at + 13, "February 1944", "DATE", 0, "1944-02-01", "1944-03-01")]
    question = Question(terms=("capit",), names=(), window=("1944-02-01", "1963-03-01"), type="place",
                        labels=("GPE", "LOC", "FAC"), until=None)
    said = quote(_sentence(text, marks), None, question)
    assert said.startswith("and on February 1944") and said.endswith("Budogoshch.")
    # too long: the last clause that holds a term and the date's clause, both kept
    text = ("The administrative center of the district was moved to the urban-type settlement of Budogoshch,"
            " a small place on the railway some forty kilometres to the east of the river, where the offices of"
            " the district stayed for nearly twenty years, in February 1944, after the front had passed.")
    question = Question(terms=("capit", "mov"), names=(), window=("1944-02-01", "1963-03-01"), type="place",
                        labels=("GPE", "LOC", "FAC"), until=None)
    said = quote(_dated(text, "February 1944", "1944-02-01", "1944-03-01"), None, question)
    assert "moved to the urban-type settlement of Budogoshch" in said and "February 1944" in said
    text = ("The guild founded the museum in the old town, which lay in the old quarter beside the river where"
            " the markets of the valley were held every week for centuries before the railway came and changed"
            " the trade of the whole region for good, and it reopened to visitors in 2019 after repairs.")
    question = Question(terms=("museum", "repair"), names=(), window=("2019-01-01", "2020-01-01"), type="",
                        labels=(), until=None)
    assert "2019" in quote(_dated(text, "2019", "2019-01-01", "2020-01-01"), None, question)


def _dated(text: str, surface: str, day: str, until: str):
    """A sentence of ``text`` whose one mark is the date ``surface``, ``[day, until)``."""
    from palace.ask.sentences import Mark

    at = text.index(surface)
    return _sentence(text, [Mark(at, at + len(surface), surface, "DATE", 0, day, until)])


@pytest.mark.unit
def test_a_sentence_that_says_the_relation_in_other_words_holds_the_term():
    from palace.ask.ladder import Question, support

    question = Question(terms=("spous",), names=((frozenset(), ("dennis quaid",)),), window=None, type="",
                        labels=(), until=None)
    married = support(_sentence("On February 14, 1991, Dennis Quaid married actress Meg Ryan."), "", question)
    films = support(_sentence("Dennis Quaid starred in The Big Easy."), "", question)
    assert married.signals["terms"] == 1.0 and films.signals["terms"] == 0.0
    assert married.score > films.score


@pytest.mark.unit
def test_a_date_that_starts_or_spans_the_window_counts():
    from palace.ask.ladder import Question, support
    from palace.ask.sentences import Mark

    window = ("2016-01-01", "2021-01-01")
    question = Question(terms=(), names=((frozenset(), ("naughton",)),), window=window, type="", labels=(),
                        until=None)
    text = "Naughton chaired the committee from 2016 to 2020."
    span = Mark(text.index("from"), len(text) - 1, "from 2016 to 2020", "DATE", 0, "2016-01-01", "2021-01-01")
    exact = support(_sentence(text, [span]), "", question)
    assert (exact.signals["starts"], exact.signals["exact"]) == (1.0, 1.0)
    text = "Naughton was elected in 2016."
    year = Mark(text.index("2016"), text.index("2016") + 4, "2016", "DATE", 0, "2016-01-01", "2017-01-01")
    began = support(_sentence(text, [year]), "", question)
    assert (began.signals["starts"], began.signals["exact"]) == (1.0, 0.0)
    assert exact.score > began.score


CHAT = """# Conversation: Hannah and Tomás

## Session 1 — 9:12 pm on 11 June, 2022

Tomás: Hot. 104 today. I've been hiding in the garage with the motorcycle.
Hannah: You and that bike.
Tomás: It runs now. Mostly.

## Session 2 — 8:05 am on 14 August, 2022

Hannah: Sorry I missed your call last night. I'm at the airport in Denver, flying to Tucson.
Tomás: What's going on? Is everything ok?
Hannah: Dad had a heart attack Thursday night.
Tomás: Oh no. Hannah, I'm so sorry. Is he ok?
Hannah: He's stable. They put in a stent Friday morning.
"""


def test_a_when_answer_names_the_day_a_relative_date_stands_for(tmp_path):
    notes = tmp_path / "chats"
    notes.mkdir()
    (notes / "conv.md").write_text(CHAT, encoding="utf-8")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        # a session's heading begins a day: no drawer runs from 11 June into 14 August
        assert sorted(h.date for h in palace.ask("heart attack", now=dt.date(2023, 1, 1)).results
                      if h.line_start <= 13 <= h.line_end) == ["2022-08-14"]
        direct = palace.ask("When did Hannah's dad have his heart attack?", now=dt.date(2023, 1, 1)).direct
        assert direct.kind == "sentence"
        # "Thursday" said on Sunday 14 August 2022 is 11 August 2022
        assert direct.text.startswith("Thursday (11 August 2022) — conv.md:13")


@pytest.mark.unit
@pytest.mark.parametrize("line, label", [
    ("## Session 3 — 9:05 pm on 21 March, 2023", True),   # a heading titles what follows
    ('### "How to spend GSoC 2024 money" leadership-council#116', True),  # an agenda item's heading
    ("Session 3 — 9:05 pm on 21 March, 2023", True),      # a chat's day line
    ("1964-1965 - Jacqueline Kennedy", False),            # a list of holders states who held it
    ("We met at 9:30 on 8 May 2023.", False),             # a statement with a clock time
    ("Zamalek SC.", False),
])
def test_a_heading_or_a_chats_day_line_is_never_an_answer_sentence(line, label):
    from palace.ask.sentences import _label_line
    from palace.nlp.markup import plain_text_for_ner

    text = f"Some text before.\n{line}\nAnd after."
    plain = plain_text_for_ner(text)  # markup as spaces: a heading's sentence begins after its #s
    start = plain.index(line.lstrip("# "))
    assert _label_line(text, plain, start, start + len(line.lstrip("# "))) is label
