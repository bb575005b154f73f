"""Questions answered from the graph: "what plan is Larkspur on" needs no cue word, is
answered with the fact valid at ``now`` (or in the question's window), says since when
and what it replaced, and cites the sentence — through real mining (spaCy, SQLite,
Chroma, the packaged model)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from typer.testing import CliRunner

from palace.cli.main import app
from palace.core import Palace

NOW = dt.date(2025, 6, 15)
NOTES = {
    "2024-03-01.md": "# Vendors\n\nLarkspur is on the Enterprise plan, 45 seats.\n",
    "2025-01-02.md": "# Renewal\n\nWe downgraded Larkspur to the Starter plan today.\n",
    "2024-01-10.md": "# Org\n\nBob Okafor reports to Helen Marsh.\n",
    "2024-07-10.md": "# Reorg\n\nBob Okafor now reports to Dana Reyes.\n",
    "2024-01-12.md": "# Mum\n\nRuth Whitfield takes Lisinopril 10mg every morning.\n",
    "2024-04-02.md": "# Cardiology\n\nRuth Whitfield saw the cardiologist at York Hospital. "
                     "The cardiologist switched her to Metoprolol.\n",
}
ANSWER_FIELDS = {"subject", "predicate", "side", "cardinality", "kind", "as_of", "during", "values", "previous",
                 "text", "cue"}
VALUE_FIELDS = {"value", "valid_from", "valid_to", "path", "line", "sentence", "fact_id", "evidence", "wing",
                "drawer_id", "conflicts_with"}


@pytest.fixture(scope="module")
def mined(tmp_path_factory):
    """A palace mined once from :data:`NOTES`: its folder."""
    root = tmp_path_factory.mktemp("answers")
    notes = root / "notes"
    notes.mkdir()
    for name, text in NOTES.items():
        (notes / name).write_text(text, encoding="utf-8")
    with Palace.open(root / "palace") as palace:
        palace.mine(notes)
    return root / "palace"


@pytest.fixture
def palace(mined):
    with Palace.open(mined, create=False) as opened:
        yield opened


def values(answer):
    return [(v.value, v.valid_from, v.valid_to) for v in answer.values]


def test_a_plan_question_needs_no_cue_word(palace):
    result = palace.ask("what plan is Larkspur on", now=NOW)
    assert result.plan.intent == "lookup"
    answer = result.answer
    assert (answer.subject, answer.predicate, answer.side, answer.as_of) == ("Larkspur", "plan", "subject", "2025-06-15")
    assert values(answer) == [("Starter", "2025-01-02", None)]
    (value,) = answer.values
    assert (value.path, value.line, value.evidence) == ("2025-01-02.md", 3, "stated")
    assert value.sentence == "We downgraded Larkspur to the Starter plan today."
    assert (answer.previous.value, answer.previous.valid_from, answer.previous.valid_to) == (
        "Enterprise", "2024-03-01", "2025-01-02")
    assert answer.text == ('Larkspur is on Starter (since 2025-01-02; before: Enterprise, 2024-03-01 → 2025-01-02)'
                           ' — 2025-01-02.md:3 "We downgraded Larkspur to the Starter plan today."')
    # the statement that answers it leads the evidence, and the graph ranks it first
    top = result.results[0]
    assert top.path == "2025-01-02.md"
    assert {c.retriever: c.rank for c in top.why.retrievers}["graph"] == 1
    assert {c.retriever: c.rank for c in top.why.retrievers}["answer"] == 1


def test_a_past_window_answers_with_the_fact_true_then(palace):
    answer = palace.ask("what plan was Larkspur on in March 2024", now=NOW).answer
    assert answer.as_of == "2024-03-01" and answer.during == {"start": "2024-03-01", "end": "2024-04-01"}
    assert values(answer) == [("Enterprise", "2024-03-01", "2025-01-02")]
    assert answer.previous is None
    # the value then, on its own: what replaced it (Starter, a wrong answer about March
    # 2024) is in the facts below, not in the line read first
    assert answer.text == ('Larkspur was on Enterprise (2024-03-01 → 2025-01-02) — 2024-03-01.md:3'
                           ' "Larkspur is on the Enterprise plan, 45 seats."')


def test_now_is_the_day_asked_about(palace):
    before = palace.ask("what plan is Larkspur on", now=dt.date(2024, 6, 1)).answer
    assert values(before) == [("Enterprise", "2024-03-01", "2025-01-02")]
    assert before.previous is None and before.as_of == "2024-06-01"
    earlier = palace.ask("which tier is Larkspur on", now=dt.date(2023, 6, 1)).answer
    assert earlier.values == () and earlier.previous is None
    assert earlier.text == "no fact about Larkspur's plan valid on 2023-06-01"


def test_reports_to_now_in_a_span_and_before_the_window(palace):
    now = palace.ask("who does Bob Okafor report to", now=NOW).answer
    assert values(now) == [("Dana Reyes", "2024-07-10", None)]
    assert (now.previous.value, now.previous.valid_from, now.previous.valid_to) == (
        "Helen Marsh", "2024-01-10", "2024-07-10")
    assert now.values[0].path == "2024-07-10.md" and now.values[0].line == 3
    # a span lists every value valid during it, each with its own interval
    summer = palace.ask("who did Bob Okafor report to in summer 2024", now=NOW).answer
    assert values(summer) == [("Helen Marsh", "2024-01-10", "2024-07-10"), ("Dana Reyes", "2024-07-10", None)]
    assert summer.text.splitlines()[0].startswith("Bob Okafor reported to Helen Marsh (2024-01-10 → 2024-07-10)")
    # a month with one value: that value, cited from a note written before the window
    result = palace.ask("who did Bob Okafor report to in March 2024", now=NOW)
    assert values(result.answer) == [("Helen Marsh", "2024-01-10", "2024-07-10")]
    assert result.results and result.results[0].path == "2024-01-10.md"
    # the answer's evidence is not pushed down for lying before the window
    assert all(c.retriever != "outside the window" for c in result.results[0].why.retrievers)


def test_who_manages_reads_the_manager(palace):
    answer = palace.ask("who manages Bob Okafor", now=NOW).answer
    assert answer.predicate == "reports_to" and values(answer)[0][0] == "Dana Reyes"
    answer = palace.ask("who is Bob Okafor's manager", now=NOW).answer
    assert answer.predicate == "reports_to" and values(answer)[0][0] == "Dana Reyes"


def test_the_object_side_lists_who_holds_the_value(palace):
    answer = palace.ask("who reports to Dana Reyes", now=NOW).answer
    assert (answer.side, answer.predicate) == ("object", "reports_to")
    assert values(answer) == [("Bob Okafor", "2024-07-10", None)]
    assert answer.text.startswith("Bob Okafor reports to Dana Reyes (since 2024-07-10)")


def test_medication_switch(palace):
    answer = palace.ask("what medication is Ruth Whitfield on", now=NOW).answer
    assert values(answer) == [("Metoprolol", "2024-04-02", None)]
    assert answer.values[0].evidence == "inferred"  # "her" resolved to Ruth
    assert answer.values[0].sentence == "The cardiologist switched her to Metoprolol."
    assert (answer.previous.value, answer.previous.valid_to) == ("Lisinopril", "2024-04-02")
    then = palace.ask("what did Ruth Whitfield take in February 2024", now=NOW).answer
    assert values(then) == [("Lisinopril", "2024-01-12", "2024-04-02")]
    assert then.values[0].path == "2024-01-12.md" and then.values[0].line == 3


def test_no_fact_is_said_and_the_evidence_still_shown(palace):
    result = palace.ask("what plan is Initrode on", now=NOW)
    assert result.answer.text == "no fact about Initrode's plan in the graph"
    assert result.answer.values == () and result.answer.previous is None
    assert result.results  # the drawers as for any question


def test_the_intents_keep_working(palace):
    change = palace.ask("what changed about Larkspur in 2025", now=NOW)
    assert change.plan.intent == "change" and change.answer is None and change.changes is not None
    history = palace.ask("history of Larkspur's plan", now=NOW)
    assert history.plan.intent == "history" and values(history.answer)[0][0] == "Starter"
    assert [f.object for f in history.facts if f.predicate == "plan"] == ["Enterprise", "Starter"]
    current = palace.ask("what plan is Larkspur on now", now=NOW)
    assert current.plan.intent == "current" and values(current.answer)[0][0] == "Starter"
    assert "now" not in current.plan.terms
    plain = palace.ask("Larkspur seats", now=NOW)
    assert plain.answer is None and "answer" not in plain.plan.weights


def test_json_answer_fields(palace):
    data = json.loads(palace.ask("what plan is Larkspur on", now=NOW).to_json())
    assert set(data["answer"]) == ANSWER_FIELDS
    assert set(data["answer"]["values"][0]) == VALUE_FIELDS and set(data["answer"]["previous"]) == VALUE_FIELDS
    assert data["answer"]["values"][0]["value"] == "Starter" and data["answer"]["during"] is None
    assert json.loads(palace.ask("Larkspur seats", now=NOW).to_json())["answer"] is None


def test_cli_shows_the_answer_before_the_drawers(mined):
    runner = CliRunner()
    shown = runner.invoke(app, ["ask", "what plan is Larkspur on", "--now", "2025-06-15", "--palace", str(mined)])
    assert shown.exit_code == 0, shown.output
    out = shown.output
    line = ('Larkspur is on Starter (since 2025-01-02; before: Enterprise, 2024-03-01 → 2025-01-02)'
            ' — 2025-01-02.md:3 "We downgraded Larkspur to the Starter plan today."')
    assert line in out
    assert out.index("answer") < out.index(line) < out.index("evidence") < out.index("1. 2025-01-02.md")
    missing = runner.invoke(app, ["ask", "what plan is Initrode on", "--palace", str(mined)])
    assert "no fact about Initrode's plan in the graph" in missing.output


def test_an_ended_state_is_no_answer_after_its_end(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in {
        "2023-01-05.md": "# Team\n\nInes Duarte is the lead engineer.\n",
        "2024-06-01.md": "# Team\n\nInes Duarte is no longer the lead engineer.\n",
        "2024-06-02.md": "# Club\n\nTom Berg played for Ajax from 1999 to 2003.\n",
        "2024-06-03.md": "# Club\n\nIn 2005, Lea Moss signed with Feyenoord.\n",
    }.items():
        (notes / name).write_text(text, encoding="utf-8")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        now = palace.ask("what is Ines Duarte's role", now=NOW).answer
        assert now.values == ()
        assert (now.previous.value, now.previous.valid_from, now.previous.valid_to) == (
            "lead engineer", "2023-01-05", "2024-06-01")
        assert now.text == ("no fact about Ines Duarte's role valid on 2025-06-15 (last: lead engineer,"
                            ' 2023-01-05 → 2024-06-01 — 2023-01-05.md:3 "Ines Duarte is the lead engineer.")')
        then = palace.ask("what was Ines Duarte's role in 2023", now=NOW).answer
        assert values(then) == [("lead engineer", "2023-01-05", "2024-06-01")]
        # an interval: valid within it, not after it
        assert values(palace.ask("what team did Tom Berg play for in 2001", now=NOW).answer) == [
            ("Ajax", "1999-01-01", "2004-01-01")]
        after = palace.ask("what team does Tom Berg play for", now=NOW).answer
        assert after.values == () and after.previous.value == "Ajax"
        assert values(palace.ask("who played for Ajax in 2001", now=NOW).answer) == [
            ("Tom Berg", "1999-01-01", "2004-01-01")]
        # begun in 2005 with no stated end: an answer about 2005, not about 2012 (nor
        # about 2003–2005, which it only touches)
        assert values(palace.ask("what team did Lea Moss play for in 2005", now=NOW).answer) == [
            ("Feyenoord", "2005-01-01", None)]
        later = palace.ask("what team did Lea Moss play for in 2012", now=NOW)
        assert later.answer.values == () and later.direct.step != "fact"
        assert palace.ask("what team did Lea Moss play for from 2003 to 2005", now=NOW).answer.values == ()


@pytest.mark.unit
def test_a_state_answers_about_a_past_period_it_covers_enough_of():
    from palace.ask.answers import holds_through

    y = dt.date
    assert holds_through("2010-01-01", "2012-03-01", y(2010, 1, 1), y(2013, 1, 1))  # 26 of 36 months
    assert not holds_through("2010-01-01", "2012-03-01", y(2012, 1, 1), y(2014, 1, 1))  # 2 of 24
    assert holds_through("2013-01-01", None, y(2013, 1, 1), y(2015, 1, 1))  # began in it: 2 of 2 years
    assert not holds_through("2013-01-01", None, y(2015, 1, 1), y(2017, 1, 1))  # began before, end unknown
    assert holds_through("1699-01-01", None, y(1675, 1, 1), y(1709, 1, 1)) is False  # 10 of 34 years
    assert holds_through("2024-07-10", None, y(2024, 6, 1), y(2024, 9, 1))  # 53 of 92 days
    assert holds_through("2024-01-10", "2024-07-10", y(2024, 6, 1), y(2024, 9, 1))  # 39 of 92 days
    assert holds_through("2024-03-05", None, y(2024, 3, 5), y(2024, 3, 6))  # a day: begun that day
    assert not holds_through("2024-03-04", None, y(2024, 3, 5), y(2024, 3, 6))


@pytest.mark.unit
def test_readme_documents_the_answer_fields():
    from dataclasses import fields
    from pathlib import Path

    from palace.ask.answers import Answer, AnswerValue, Direct

    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    for cls in (Answer, AnswerValue, Direct):
        for field in fields(cls):
            assert f"`{field.name}`" in text, f"{cls.__name__}.{field.name} is not documented in the README"


def test_a_current_answer_names_the_plan_no_note_confirmed(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-01-10.md").write_text("# Team\n\nDana Lee works at Initech.\n", encoding="utf-8")
    (notes / "2024-02-01.md").write_text("# Team\n\nDana Lee will join Globex on 1 March 2024.\n", encoding="utf-8")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        answer = palace.ask("where does Dana Lee work", now=NOW).answer
        assert values(answer) == [("Initech", "2024-01-10", None)]
        assert answer.text.splitlines()[1] == (
            "planned: Dana Lee works at Globex (planned for 2024-03-01, not confirmed) — 2024-02-01.md:3")
        # asked before the planned day (--now), the plan is still to come: not "not confirmed"
        before = palace.ask("where does Dana Lee work", now=dt.date(2024, 2, 15)).answer
        assert before.text.splitlines()[1] == (
            "planned: Dana Lee works at Globex (planned for 2024-03-01) — 2024-02-01.md:3")
        # a question about a past period names no plan: the value then, on its own
        then = palace.ask("where did Dana Lee work in January 2024", now=NOW).answer
        assert "planned" not in then.text
