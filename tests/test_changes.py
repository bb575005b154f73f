"""Issue 4, change questions and the ask output: the diff of the graph over a window
(valid time) and since the previous mining (recorded time), current-state answers that
hide superseded facts, ``--batch``, and fusion that puts an exact keyword first."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from typer.testing import CliRunner

from palace.cli.main import app
from palace.core import Palace

runner = CliRunner()
LATER = dt.date(2024, 12, 1)

NOTES = {
    "2024-01-10.md": "# Mum\n\nRuth Whitfield takes Lisinopril 10mg every morning.\n",
    "2024-04-02.md": "# Cardiology\n\nRuth Whitfield saw the cardiologist at York Hospital. "
                     "The cardiologist switched her to Metoprolol.\n",
    "2024-02-01.md": "# Team\n\nBob Okafor reports to Alice Chen.\n",
    "2024-02-14.md": "# Budget\n\nAlice Chen approved the Harbor budget on 14 February.\n",
}


def write(root, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")


@pytest.fixture
def mined(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    write(root, NOTES)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        yield palace, root


def flat(changes):
    return [(g.entity, c.kind, c.day[:10], c.fact.object, c.replaced_by) for g in changes.groups for c in g.changes]


def test_what_changed_in_a_window_is_the_graph_diff_in_valid_time(mined):
    palace, _ = mined
    result = palace.ask("what changed about Ruth Whitfield in Q2 2024", now=LATER)
    assert result.plan.intent == "change"
    assert result.changes.basis == "valid time"
    assert (result.changes.start, result.changes.end) == ("2024-04-01", "2024-07-01")
    assert flat(result.changes) == [
        ("Ruth Whitfield", "superseded", "2024-04-02", "Lisinopril", "Metoprolol"),
        ("Ruth Whitfield", "began", "2024-04-02", "Metoprolol", None),
    ]
    superseded = result.changes.groups[0].changes[0].fact
    assert (superseded.path, superseded.line) == ("2024-01-10.md", 3)  # cited where it was read
    assert result.results[0].path == "2024-04-02.md"
    assert any(c.retriever == "changes" for c in result.results[0].why.retrievers)

    q1 = palace.ask("what changed in Q1 2024", now=LATER)
    assert flat(q1.changes) == [
        ("Alice Chen", "began", "2024-02-14", "Harbor budget", None),
        ("Bob Okafor", "began", "2024-02-01", "Alice Chen", None),
        ("Ruth Whitfield", "began", "2024-01-10", "Lisinopril", None),
    ]


def test_what_changed_without_a_window_means_since_the_previous_mining(clock, mined):
    palace, root = mined
    first = palace.ask("what changed", now=LATER)
    assert first.changes.basis == "recorded time"
    assert "since the first mining" in first.changes.description
    clock.advance(1)  # recorded time is kept to the second
    (root / "2024-02-01.md").unlink()
    write(root, {"2024-06-01.md": "# Review\n\nRuth Whitfield takes Amlodipine 5mg since today.\n"})
    palace.mine(root)
    result = palace.ask("what changed", now=LATER)
    assert result.changes.basis == "recorded time"
    assert result.changes.description.startswith("since the previous mining (finished ")
    kinds = {(c.kind, c.fact.object, c.replaced_by) for g in result.changes.groups for c in g.changes}
    assert kinds == {
        ("began", "Amlodipine", None),
        ("superseded", "Metoprolol", "Amlodipine"),
        ("retracted", "Alice Chen", None),
    }
    assert "in recorded time" in " ".join(result.plan.notes)


def test_current_state_hides_superseded_facts_and_says_how_many(mined):
    palace, _ = mined
    result = palace.ask("what does Ruth Whitfield take now", now=LATER)
    assert result.plan.intent == "current"
    assert [(f.predicate, f.object) for f in result.facts] == [("takes", "Metoprolol")]
    assert result.hidden_superseded == 1
    assert "1 superseded fact hidden; --history shows them" in result.plan.notes
    full = palace.ask("what does Ruth Whitfield take now", now=LATER, history=True)
    assert [(f.object, f.state) for f in full.facts] == [("Lisinopril", "superseded"), ("Metoprolol", "current")]
    # as of an earlier --now, the earlier value is the current one
    earlier = palace.ask("what does Ruth Whitfield take now", now=dt.date(2024, 2, 1))
    assert [f.object for f in earlier.facts] == ["Lisinopril"]


def test_entity_answers_list_states_and_events_current_state_answers_only_states(mined):
    palace, _ = mined
    who = palace.ask("who is Alice Chen", now=LATER)
    assert who.plan.intent == "entity"
    assert sorted((f.subject, f.predicate, f.object) for f in who.facts) == [
        ("Alice Chen", "approved", "Harbor budget"), ("Bob Okafor", "reports_to", "Alice Chen")]
    now = palace.ask("who reports to Alice Chen now", now=LATER)
    assert [(f.subject, f.predicate) for f in now.facts] == [("Bob Okafor", "reports_to")]
    assert any(n.startswith("1 event (decisions, approvals…) left out") for n in now.plan.notes)
    before = palace.ask("who is Alice Chen", now=dt.date(2024, 2, 5))  # the approval came later
    assert [f.predicate for f in before.facts] == ["reports_to"]
    assert "1 fact dated after 2024-02-05 (--now) left out" in before.plan.notes


def test_history_questions_list_every_fact_in_valid_time_order(mined):
    palace, _ = mined
    result = palace.ask("history of Ruth Whitfield's medication", now=LATER)
    assert result.plan.intent == "history"
    assert [(f.object, f.valid_from, f.valid_to) for f in result.facts if f.predicate == "takes"] == [
        ("Lisinopril", "2024-01-10", "2024-04-02"), ("Metoprolol", "2024-04-02", None)]


def test_the_cli_prints_the_change_list_first_then_the_evidence(mined):
    palace, _ = mined
    out = runner.invoke(app, ["ask", "what changed about Ruth Whitfield in Q2 2024", "--now", "2024-12-01",
                              "--palace", str(palace.path), "--explain"])
    assert out.exit_code == 0, out.output
    text = out.output
    assert text.index("changes") < text.index("superseded") < text.index("evidence") < text.index("1. 2024-04-02.md")
    assert "intent change ('what changed')" in text and "weights " in text
    assert "2024-01-10.md:3" in text  # the superseded fact's citation
    data = json.loads(runner.invoke(app, ["ask", "what changed in Q2 2024", "--now", "2024-12-01",
                                          "--palace", str(palace.path), "--json"]).output)
    assert data["changes"]["groups"][0]["entity"] == "Ruth Whitfield"
    assert data["changes"]["groups"][0]["changes"][0]["replaced_by"] == "Metoprolol"


def test_batch_answers_every_line_in_one_process(mined, tmp_path):
    palace, _ = mined
    questions = tmp_path / "questions.txt"
    questions.write_text(
        "what does Ruth Whitfield take now\n"
        '{"question": "what changed in Q1", "now": "2024-05-01"}\n'
        "\n"
        '{"question": "x", "wing": "no-such-wing"}\n'
        "{not json\n"
        '{"question": "what changed in Q4", "top_k": "five"}\n'
        '{"question": "what changed in Q4", "top_k": 0}\n'
        "what does Ruth Whitfield take now\n"
    )
    out = runner.invoke(app, ["ask", "--batch", str(questions), "--now", "2024-12-01", "--palace", str(palace.path)])
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert out.exit_code == 1  # two lines failed, after every line was tried
    assert len(lines) == 7
    assert lines[0]["plan"]["intent"] == "current" and lines[0]["facts"][0]["object"] == "Metoprolol"
    assert lines[1]["plan"]["date_window"] == {"start": "2024-01-01", "end": "2024-04-01", "granularity": "quarter"}
    assert lines[1]["plan"]["now"] == "2024-05-01"
    assert lines[2]["line"] == 4 and "no wing 'no-such-wing'" in lines[2]["error"]
    assert lines[3]["line"] == 5 and lines[3]["error"].startswith("not JSON")
    assert lines[4]["error"] == "'top_k' must be a whole number 1-200, not 'five'"
    assert lines[5]["error"] == "'top_k' must be a whole number 1-200, not 0"
    assert lines[6]["facts"][0]["object"] == "Metoprolol"  # the lines after bad ones are answered


def test_ask_needs_a_question_or_a_batch_not_both(mined, tmp_path):
    palace, _ = mined
    (tmp_path / "q.txt").write_text("hello\n")
    both = runner.invoke(app, ["ask", "hi", "--batch", str(tmp_path / "q.txt"), "--palace", str(palace.path)])
    assert both.exit_code == 2


def test_an_exact_keyword_is_ranked_first_even_when_vectors_miss_it(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    for i in range(30):
        write(root, {f"station-{i:02}.md": f"# Weather station log {i}\n\nThe weather station firmware update "
                                           f"went fine on unit {i}; the anemometer readings look normal again.\n"})
    write(root, {"lunch.md": "# Lunch\n\nOrdered sandwiches for everyone, invoice QX-88231 paid by card.\n"})
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        question = "weather station firmware invoice QX-88231"
        vectors_only = palace.ask(question, retrievers_only=("vector",))
        assert vectors_only.results[0].path != "lunch.md"  # the embedding prefers the station logs
        result = palace.ask(question)
        assert result.results[0].path == "lunch.md"
        assert "exact" in {c.retriever for c in result.results[0].why.retrievers}


def test_palace_changes_lists_a_window_and_a_name(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-03-01.md").write_text("# Team\n\nBob Stone reports to Alice Chen.\n")
    (notes / "2024-07-01.md").write_text("# Team\n\nBob Stone reports to Priya Raman.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
    out = runner.invoke(app, ["changes", "--since", "2024-06-01", "--until", "2024-07-31", "--about", "Bob Stone",
                              "--palace", str(tmp_path / "palace"), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["basis"] == "valid time" and (data["start"], data["end"]) == ("2024-06-01", "2024-08-01")
    kinds = {(c["kind"], c["fact"]["object"], c["day"]) for g in data["groups"] for c in g["changes"]}
    assert ("superseded", "Alice Chen", "2024-07-01") in kinds and ("began", "Priya Raman", "2024-07-01") in kinds
    assert all(c["day"] >= "2024-06-01" for g in data["groups"] for c in g["changes"])
    text = runner.invoke(app, ["changes", "--since", "2024-06-01", "--palace", str(tmp_path / "palace")])
    assert text.exit_code == 0 and "superseded → Priya Raman" in text.output


def test_a_change_question_about_a_topic_is_answered_only_by_changes_about_it(mined):
    palace, _ = mined
    # "Harbor budget" is the one change of Q1 speaking of both words: it answers
    budget = palace.ask("what changed with the harbor budget in Q1 2024", now=LATER)
    assert budget.direct.step == "changes"
    assert budget.direct.text.startswith("Alice Chen: began: approved Harbor budget")
    # no change of Q1 speaks of a budget review: the change list is no answer (one word,
    # "budget", is not enough), though the list below the answer keeps what speaks of it
    review = palace.ask("what changed in the budget review process in Q1 2024", now=LATER)
    assert review.direct.step != "changes"
    assert [g.entity for g in review.changes.groups] == ["Alice Chen"]


def test_a_topical_change_question_of_a_palace_mined_once_is_not_answered_by_everything(mined):
    palace, _ = mined
    # no period: "since the previous mining", and there was none: everything is new
    result = palace.ask("what should change in the Harbor budget process", now=LATER)
    assert result.changes is not None and result.changes.start is None
    assert result.direct.step != "changes"
    # asked with no words of its own, the list of everything is what was asked for
    assert palace.ask("what changed", now=LATER).direct.step == "changes"
