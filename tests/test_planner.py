"""Issue 4, the planner: date windows with their exact bounds, intents, and entities
matched through aliases, case and possessives, all without spaCy."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from palace.store import sqlite as store
from palace.ask.planning import plan_question, read_intent
from palace.config import Config

D = dt.date
NOW = D(2026, 11, 29)
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]


@pytest.fixture
def conn(empty_palace):
    """An empty palace database: windows and intents need no drawers."""
    connection = store.connect(empty_palace)
    yield connection
    connection.close()


def window(conn, question, now=NOW, fiscal_year_start=1):
    plan = plan_question(conn, question, now=now, config=Config(fiscal_year_start=fiscal_year_start))
    return (plan.window.start, plan.window.end) if plan.window else None


@pytest.mark.unit
@pytest.mark.parametrize("question, start, end", [
    ("what changed in Q3", D(2026, 7, 1), D(2026, 10, 1)),
    ("what changed in Q4", D(2026, 10, 1), D(2027, 1, 1)),  # the Q4 under way
    ("decisions in Q3 2024", D(2024, 7, 1), D(2024, 10, 1)),
    ("what did we decide about the budget in March", D(2026, 3, 1), D(2026, 4, 1)),
    ("what happened between March and June 2024", D(2024, 3, 1), D(2024, 7, 1)),
    ("what changed about Alice since April", D(2026, 4, 1), D(2026, 11, 30)),
    ("notes from before 2020", D(1, 1, 1), D(2020, 1, 1)),
    ("what did we do last month", D(2026, 10, 1), D(2026, 11, 1)),
    ("who came last week", D(2026, 11, 16), D(2026, 11, 23)),
    ("what did we ship this year", D(2026, 1, 1), D(2027, 1, 1)),
    ("the plan for H1 2025", D(2025, 1, 1), D(2025, 7, 1)),
    ("spend in FY2024", D(2024, 1, 1), D(2025, 1, 1)),
    ("what happened in Q3 last year", D(2025, 7, 1), D(2025, 10, 1)),
    ("last year's Q3 numbers", D(2025, 7, 1), D(2025, 10, 1)),
    ("what did we decide in March of last year", D(2025, 3, 1), D(2025, 4, 1)),
    ("since March last year", D(2025, 3, 1), D(2026, 11, 30)),
    ("the plan for H2 of next year", D(2027, 7, 1), D(2028, 1, 1)),
])
def test_windows_from_many_phrasings(conn, question, start, end):
    assert window(conn, question) == (start, end)


@pytest.mark.unit
def test_fiscal_year_start_is_configurable(conn, tmp_path):
    assert window(conn, "spend in FY2024", fiscal_year_start=4) == (D(2023, 4, 1), D(2024, 4, 1))
    assert window(conn, "spend in FY2024", fiscal_year_start=10) == (D(2023, 10, 1), D(2024, 10, 1))


@pytest.mark.unit
def test_fiscal_year_start_comes_from_the_palace_config(tmp_path):
    from palace.core import Palace
    from palace.errors import UsageError

    palace_dir = tmp_path / "p"
    palace_dir.mkdir()
    (palace_dir / "config.json").write_text('{"fiscal_year_start": 4}')
    with Palace.open(palace_dir) as palace:
        assert palace.config.fiscal_year_start == 4
        (palace_dir / "config.json").write_text('{"fiscal_year_start": 10, "owner": "Sam Rivera"}')
        assert (palace.config.fiscal_year_start, palace.config.owner) == (10, "Sam Rivera")  # an edit is read again
        (palace_dir / "config.json").write_text('{"fiscal_year_start": 13}')
        with pytest.raises(UsageError, match="month number 1-12"):
            palace.config
    with pytest.raises(UsageError, match="month number 1-12"):  # validated whole when the palace opens
        Palace.open(palace_dir)


@pytest.mark.unit
@pytest.mark.parametrize("now, start, end", [
    (D(2027, 1, 5), D(2026, 7, 1), D(2026, 10, 1)),   # after the year turned: last year's Q3
    (D(2026, 12, 31), D(2026, 7, 1), D(2026, 10, 1)),
    (D(2026, 9, 30), D(2026, 7, 1), D(2026, 10, 1)),  # inside Q3: this Q3
    (D(2026, 6, 30), D(2025, 7, 1), D(2025, 10, 1)),  # Q3 2026 has not begun
    (D(2026, 7, 1), D(2026, 7, 1), D(2026, 10, 1)),   # it begins today
])
def test_q3_without_a_year_is_the_latest_q3_begun_by_now(conn, now, start, end):
    assert window(conn, "what changed in Q3", now=now) == (start, end)


@settings(max_examples=150, deadline=None)
@given(now=st.dates(D(1990, 1, 1), D(2090, 12, 31)), quarter=st.integers(1, 4))
def test_a_quarter_without_a_year_never_lies_in_the_future(tmp_path_factory, now, quarter):
    conn = _shared_conn(tmp_path_factory)
    start, end = window(conn, f"what changed in Q{quarter}", now=now)
    year = now.year if D(now.year, 3 * quarter - 2, 1) <= now else now.year - 1
    assert start == D(year, 3 * quarter - 2, 1)
    assert end == (D(year + 1, 1, 1) if quarter == 4 else D(year, 3 * quarter + 1, 1))
    assert start <= now < start.replace(year=start.year + 1)


@settings(max_examples=150, deadline=None)
@given(year=st.integers(1900, 2090), first=st.integers(1, 12), span=st.integers(0, 11))
def test_between_two_months_of_a_year(tmp_path_factory, year, first, span):
    last = min(12, first + span)
    conn = _shared_conn(tmp_path_factory)
    start, end = window(conn, f"what happened between {MONTHS[first - 1]} and {MONTHS[last - 1]} {year}")
    assert start == D(year, first, 1)
    assert end == (D(year + 1, 1, 1) if last == 12 else D(year, last + 1, 1))


@settings(max_examples=100, deadline=None)
@given(year=st.integers(1900, 2090), half=st.integers(1, 2), fys=st.integers(1, 12))
def test_halves_and_fiscal_years(tmp_path_factory, year, half, fys):
    conn = _shared_conn(tmp_path_factory)
    assert window(conn, f"the plan for H{half} {year}") == (D(year, 6 * half - 5, 1),
                                                          D(year + 1, 1, 1) if half == 2 else D(year, 7, 1))
    fiscal = window(conn, f"spend in FY{year}", fiscal_year_start=fys)
    assert fiscal == ((D(year, 1, 1), D(year + 1, 1, 1)) if fys == 1 else (D(year - 1, fys, 1), D(year, fys, 1)))


_CONNS: dict = {}


def _shared_conn(factory):
    if "conn" not in _CONNS:
        _CONNS["conn"] = store.connect(factory.mktemp("planner"))
    return _CONNS["conn"]


@pytest.mark.unit
@pytest.mark.parametrize("question, intent", [
    ("what changed in Q3", "change"),
    ("What's new?", "change"),
    ("whats new with the budget", "change"),
    ("what changed about Alice since March", "change"),
    ("the difference between the March and June plans", "change"),
    ("who does Bob report to now", "current"),
    ("Is Alice still at Acme?", "current"),
    ("what is the current plan", "current"),
    ("when did Alice join Acme", "history"),
    ("history of the Harbor budget", "history"),
    ("what was Alice working on before she joined Acme", "history"),
    ("everything about Alice", "entity"),
    ("tell me about Harbor", "entity"),
    ("who is Mara Bos", "entity"),
    ("what did we decide about the budget in March", "lookup"),
    ("harbor budget", "lookup"),
])
def test_intents(question, intent):
    assert read_intent(question)[0] == intent


def test_a_name_alone_is_an_entity_question(sample_palace):
    plan = plan_question(sample_palace.conn, "Bob Okafor?", now=NOW)
    assert plan.intent == "entity" and plan.intent_cue == "a name alone"
    assert plan_question(sample_palace.conn, "what did Bob Okafor say about Harbor", now=NOW).intent == "lookup"


@pytest.fixture(scope="module")
def sample_palace(mined_sample):
    from palace.core import Palace

    palace_dir, _ = mined_sample
    with Palace.open(palace_dir, create=False) as palace:
        yield palace


@pytest.mark.parametrize("question, name, via", [
    ("what did we decide about Project Harbor", "Harbor", "alias"),
    ("is HBR over budget", "Harbor", None),  # HBR is also read as a name of its own
    ("what was the lakehouse migration for", "Harbor", "alias"),
    ("what is Bob Okafor's role now", "Bob Okafor", "name"),   # possessive
    ("everything about bob okafor", "Bob Okafor", "name"),     # any case
    ("BOB OKAFOR", "Bob Okafor", "name"),
])
def test_entities_through_aliases_case_and_possessives(sample_palace, question, name, via):
    plan = plan_question(sample_palace.conn, question, now=NOW)
    assert [e.name for e in plan.entities] == [name], plan.entities
    assert via is None or plan.entities[0].via == via


def test_a_lower_case_common_word_is_not_an_entity(sample_palace):
    plan = plan_question(sample_palace.conn, "what is the current state of the budget", now=NOW)
    assert plan.entities == ()


def test_the_planner_never_loads_spacy(mined_sample):
    import subprocess
    import sys

    palace_dir, _ = mined_sample
    code = (
        "import sys, datetime\nfrom palace.core import Palace\nfrom palace.ask.planning import plan_question\n"
        f"p = Palace.open({str(palace_dir)!r}, create=False)\n"
        "plan = plan_question(p.conn, \"what changed about Bob Okafor's team since March\", now=datetime.date(2026, 1, 1))\n"
        "assert plan.intent == 'change' and plan.entities, plan\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('spacy', 'thinc')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


# Questions that ask for one predicate of one name (no cue word needed) -----------------

from palace.ask.planning import EntityMatch  # noqa: E402
from palace.ask.questions import load_questions, read_fact_questions  # noqa: E402
from palace.config import Config  # noqa: E402


def person(name):
    return EntityMatch(name, name, (1,), ("PERSON",), "name")


def org(name):
    return EntityMatch(name, name, (2,), ("ORG",), "name")


@pytest.mark.unit
@pytest.mark.parametrize("question, predicate, side, name", [
    ("what plan is Initrode on", "plan", "subject", "Initrode"),
    ("which tier is Initrode on?", "plan", "subject", "Initrode"),
    ("What's Initrode's plan now?", "plan", "subject", "Initrode"),
    ("Initrode plan", "plan", "subject", "Initrode"),
    ("is Initrode still on Enterprise", "plan", "subject", "Initrode"),
    ("where does Alice Chen live", "lives_in", "subject", "Alice Chen"),
    ("where is Alice Chen based", "lives_in", "subject", "Alice Chen"),
    ("where did Alice Chen use to live", "lives_in", "subject", "Alice Chen"),
    ("who lives in Lisbon", "lives_in", "object", "Lisbon"),
    ("who does Bob Okafor report to", "reports_to", "subject", "Bob Okafor"),
    ("who is Bob Okafor's manager", "reports_to", "subject", "Bob Okafor"),
    ("who manages Bob Okafor", "reports_to", "subject", "Bob Okafor"),
    ("who is Bob Okafor managed by", "reports_to", "subject", "Bob Okafor"),
    ("who reports to Helen Marsh", "reports_to", "object", "Helen Marsh"),
    ("what medication is Ruth Whitfield on", "takes", "subject", "Ruth Whitfield"),
    ("what does Ruth Whitfield take", "takes", "subject", "Ruth Whitfield"),
    ("is Ruth Whitfield on Metoprolol", "takes", "subject", "Ruth Whitfield"),
    ("who takes Metoprolol", "takes", "object", "Metoprolol"),
    ("where does Alice Chen work", "works_at", "subject", "Alice Chen"),
    ("who does Alice Chen work for", "works_at", "subject", "Alice Chen"),
    ("who employs Alice Chen", "works_at", "subject", "Alice Chen"),
    ("what is Alice Chen's role", "role", "subject", "Alice Chen"),
    ("what is Alice Chen's title", "role", "subject", "Alice Chen"),
    ("what is Alice Chen's job", "role", "subject", "Alice Chen"),
    ("what does Alice Chen do", "role", "subject", "Alice Chen"),
    ("who leads Project Harbor", "leads", "object", "Project Harbor"),
    ("who runs Project Harbor", "leads", "object", "Project Harbor"),
    ("who is the lead of Project Harbor", "leads", "object", "Project Harbor"),
    ("who led Project Harbor", "leads", "object", "Project Harbor"),
    ("what is the status of Project Harbor", "status", "subject", "Project Harbor"),
    ("is Project Harbor blocked", "status", "subject", "Project Harbor"),
    ("what does Northwind Labs use", "uses", "subject", "Northwind Labs"),
    ("who owns Project Harbor", "owns", "object", "Project Harbor"),
    ("what team does Tom Berg play for", "plays_for", "subject", "Tom Berg"),
    ("who coached Ajax", "coaches", "object", "Ajax"),
    ("where did Alice Chen study", "studied_at", "subject", "Alice Chen"),
])
def test_a_question_names_its_predicate_without_a_cue(question, predicate, side, name):
    first = read_fact_questions(question)[0]
    assert (first.predicate, first.side, first.name) == (predicate, side, name), read_fact_questions(question)


@pytest.mark.unit
@pytest.mark.parametrize("question", [
    "what did we decide about the Harbor budget",
    "what does Alice Chen work on",          # "work on" is not an employer
    "what did Alice do in March",            # an action, not a role
    "what is the plan for the Harbor launch",
    "what is the current state of the budget",
    "harbor budget",
    "who is the cardiologist",
])
def test_questions_that_ask_for_no_one_fact(question):
    assert read_fact_questions(question) == ()


@pytest.mark.unit
@pytest.mark.parametrize("question, entity, predicate, side", [
    # a descriptor before the name is not part of the question's form
    ("What city did movie producer Pat Sullivan reside in?", person("Pat Sullivan"), "lives_in", "subject"),
    ("Who owned the fashion brand Helmut Lang?", org("Helmut Lang"), "owns", "object"),
    ("Which club did French footballer Thierry Audel play for?", person("Thierry Audel"), "plays_for", "subject"),
    # the name first, the question word after the verb, or after a preposition
    ("Stefano Pioli coached what football team?", person("Stefano Pioli"), "coaches", "subject"),
    ("Zé Pedro played for which club?", person("Zé Pedro"), "plays_for", "subject"),
    ("For what club did Zé Pedro play?", person("Zé Pedro"), "plays_for", "subject"),
    ("William Duncan resided where?", person("William Duncan"), "lives_in", "subject"),
    # "served as" is "was"; a passive with the question word as its subject
    ("Who served as the chief executive officer of Siemens?", org("Siemens"), "ceo_of", "object"),
    ("Who chaired the Dunmore Steel board?", org("Dunmore Steel"), "chairs", "object"),
    ("Which team was coached by Walter Mazzarri?", person("Walter Mazzarri"), "coaches", "subject"),
    ("What was Real Madrid Baloncesto's home field?", org("Real Madrid Baloncesto"), "home_venue", "subject"),
])
def test_questions_in_the_words_of_encyclopedic_sets(question, entity, predicate, side):
    first = read_fact_questions(question, (entity,))[0]
    assert (first.predicate, first.side, first.name) == (predicate, side, entity.name)


@pytest.mark.unit
def test_the_kind_of_name_chooses_between_readings():
    bob, harbor = person("Bob Okafor"), org("Harbor")
    assert read_fact_questions("who manages Bob Okafor", (bob,))[0].predicate == "reports_to"
    assert [(q.predicate, q.side) for q in read_fact_questions("who manages Harbor", (harbor,))][0] == ("leads", "object")
    # the registry's noun readings: a person's lead is their manager, a project's lead leads it
    assert [q.predicate for q in read_fact_questions("who is Bob Okafor's lead", (bob,))] == ["reports_to"]
    assert read_fact_questions("who is Harbor's lead", (harbor,))[0].predicate == "leads"
    (first, *_) = read_fact_questions("is Alice the lead of Harbor", (person("Alice"), harbor))
    assert (first.predicate, first.side, first.name) == ("leads", "object", "Harbor")


@pytest.mark.unit
def test_the_window_and_time_words_are_not_read(conn):
    plan = plan_question(conn, "what plan was Initrode on in March 2024", now=NOW)
    assert (plan.window.start, plan.window.end) == (D(2024, 3, 1), D(2024, 4, 1))
    assert [(q.predicate, q.name, q.cue) for q in plan.asks] == [("plan", "Initrode", "noun 'plan'")]
    assert "asks for one fact: Initrode plan ? (noun 'plan')" in plan.notes
    assert plan.weights["answer"] == 1.0
    plan = plan_question(conn, "who did Bob report to in summer 2024", now=NOW)
    assert plan.asks[0].predicate == "reports_to" and plan.window.start == D(2024, 6, 1)
    assert plan_question(conn, "what changed in Q3", now=NOW).asks == ()


@pytest.mark.unit
def test_a_palace_names_the_question_words_of_its_own_predicates(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({
        "predicates": [{"name": "drives", "cardinality": "one", "subject": ["PERSON"], "object": ["VALUE"],
                        "questions": {"nouns": ["car"], "verbs": ["drive"], "label": "car",
                                      "say": ["{subject} drives {object}", "{subject} drove {object}"]}}],
        "questions": {"plan": {"nouns": ["contract"]}},
    }))
    table = load_questions(Config.load(tmp_path))
    for question in ("what car does Alice drive", "what does Alice drive", "what is Alice's car"):
        first = read_fact_questions(question, table=table)[0]
        assert (first.predicate, first.label, first.say[0]) == ("drives", "car", "{subject} drives {object}")
    assert read_fact_questions("what contract is Initrode on", table=table)[0].predicate == "plan"
    assert read_fact_questions("what contract is Initrode on") == ()  # the shipped words do not have it


def test_reading_fact_questions_never_loads_spacy():
    import subprocess
    import sys

    code = (
        "import sys\nfrom palace.ask.questions import load_questions, read_fact_questions\n"
        "assert read_fact_questions('what plan is Initrode on', table=load_questions())\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('spacy', 'thinc')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


@pytest.mark.unit
@pytest.mark.parametrize("questions, message", [
    ({"plan": ["contract"]}, "must be an object of word lists"),
    ({"plan": {"nouns": "contract"}}, "cannot read 'nouns'"),
    ({"plan": {"verbs": ["renew [to"]}}, "cannot read 'verbs'"),
    ({"role": {"forms": ["what does she do"]}}, "cannot read 'forms'"),
    ({"plan": {"noun": ["contract"]}}, "unknown field 'noun'"),
])
def test_malformed_question_words_are_a_user_error(tmp_path, questions, message):
    from palace.errors import UsageError

    (tmp_path / "config.json").write_text(json.dumps({"questions": questions}))
    with pytest.raises(UsageError, match=message):
        load_questions(Config.load(tmp_path))
