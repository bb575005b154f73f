"""The user's corrections: a fact added, retracted or confirmed stays so across
re-mines, supersedes like a mined one, and can be undone."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from typer.testing import CliRunner

from palace.cli.main import app
from palace.core import Palace
from palace.errors import UsageError


@pytest.fixture()
def dana(tmp_path):
    """A palace of one note that gets Dana's employer wrong (a fresh palace per test)."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-03-01-sync.md").write_text(
        "# Sync\n\nDana Lee works at Initech. She reviewed the Q1 roadmap with us.\n\n"
        "## Hiring\n\nOmar Haddad joined Globex in January 2024.\n")
    palace = Palace.open(tmp_path / "palace")
    palace.mine(notes)
    yield palace, notes
    palace.close()


def current(palace, name, predicate):
    return [(f.object, f.valid_from, f.valid_to, f.evidence)
            for f in palace.facts(about=name, predicate=predicate).facts]


def fact_id(palace, name, predicate, obj):
    (found,) = [f.id for f in palace.facts(about=name, predicate=predicate).facts if f.object == obj]
    return found


def test_retract_add_remine_and_the_answer_and_history_are_right(dana):
    palace, notes = dana
    assert current(palace, "Dana Lee", "works_at") == [("Initech", "2024-03-01", None, "stated")]
    wrong = fact_id(palace, "Dana Lee", "works_at", "Initech")
    retracted = palace.retract_fact(wrong, reason="she works at Globex; Initech was her old job")
    added = palace.add_fact("Dana Lee", "works_at", "Globex", valid_from=dt.date(2024, 3, 1),
                            note="she told me at the offsite")
    assert current(palace, "Dana Lee", "works_at") == [("Globex", "2024-03-01", None, "user")]

    # the note is edited around the wrong sentence: the drawer is read again, a new fact
    # row says Initech again, and the retraction is replayed on it
    note = notes / "2024-03-01-sync.md"
    note.write_text(note.read_text().replace("She reviewed", "She also reviewed"))
    report = palace.mine(notes)
    assert report.indexed == 1
    assert current(palace, "Dana Lee", "works_at") == [("Globex", "2024-03-01", None, "user")]

    answer = palace.ask("where does Dana Lee work", now=dt.date(2024, 6, 1)).answer
    assert [v.value for v in answer.values] == ["Globex"]
    history = [(f.object, f.state, f.evidence, f.invalidation_reason) for f in
               palace.history("Dana Lee", predicate="works_at").facts]
    reason = f"retracted by the user (decision #{retracted.id}): she works at Globex; Initech was her old job"
    # the first statement and the one read again after the edit: both retracted, by the same decision
    assert [h for h in history if h[0] == "Initech"] == [("Initech", "retracted", "stated", reason)] * 2
    assert ("Globex", "current", "user", None) in history
    assert [d.action for d in palace.fact_decisions()] == ["retract", "add"] and added.fact_id


def test_undo_brings_back_what_a_decision_changed(dana):
    palace, _ = dana
    wrong = fact_id(palace, "Dana Lee", "works_at", "Initech")
    retraction = palace.retract_fact(wrong)
    assert current(palace, "Dana Lee", "works_at") == []
    palace.undo_fact_decision(retraction.id)
    assert current(palace, "Dana Lee", "works_at") == [("Initech", "2024-03-01", None, "stated")]
    added = palace.add_fact("Dana Lee", "works_at", "Globex", valid_from=dt.date(2024, 5, 1))
    assert current(palace, "Dana Lee", "works_at") == [("Globex", "2024-05-01", None, "user")]  # supersedes
    palace.undo_fact_decision(added.id)
    assert current(palace, "Dana Lee", "works_at") == [("Initech", "2024-03-01", None, "stated")]  # reopened
    with pytest.raises(UsageError, match="was undone"):
        palace.undo_fact_decision(added.id)


def test_a_confirmation_survives_a_remine(dana):
    palace, notes = dana
    assert current(palace, "Omar Haddad", "works_at") == [("Globex", "2024-01-01", None, "stated")]
    palace.confirm_fact(fact_id(palace, "Omar Haddad", "works_at", "Globex"))
    assert current(palace, "Omar Haddad", "works_at") == [("Globex", "2024-01-01", None, "confirmed")]
    note = notes / "2024-03-01-sync.md"  # the sentence is read again into a new fact row
    note.write_text(note.read_text().replace("in January 2024.", "in January 2024 as a designer."))
    palace.mine(notes)
    assert current(palace, "Omar Haddad", "works_at") == [("Globex", "2024-01-01", None, "confirmed")]
    rows = [(f.evidence, f.state) for f in palace.history("Omar Haddad", predicate="works_at").facts]
    assert sorted(rows) == [("confirmed", "current"), ("confirmed", "invalidated")]  # the new row, confirmed again
    with pytest.raises(UsageError, match="not a mined fact"):
        palace.confirm_fact(palace.add_fact("Omar Haddad", "role", "designer").fact_id)


def test_the_cli_adds_retracts_and_lists_decisions(dana, tmp_path):
    palace, _ = dana
    run = lambda *args: CliRunner().invoke(app, [*args, "--palace", str(tmp_path / "palace")])  # noqa: E731
    added = run("fact", "add", "Dana Lee", "role", "staff engineer", "--from", "2024-03-01", "--json")
    assert added.exit_code == 0, added.output
    decision = json.loads(added.output)
    assert (decision["action"], decision["subject"], decision["object"], decision["valid_from"]) == (
        "add", "Dana Lee", "staff engineer", "2024-03-01")
    wrong = run("fact", "retract", str(fact_id(palace, "Dana Lee", "works_at", "Initech")), "--reason", "old job")
    assert wrong.exit_code == 0 and "retracted fact #" in wrong.output and "old job" in wrong.output
    listed = run("fact", "decisions")
    assert [line.split(":")[1].split()[0] for line in listed.output.splitlines()] == ["added", "retracted"]
    bad = run("fact", "add", "Dana Lee", "likes", "tea")
    assert bad.exit_code == 1 and "no predicate 'likes'" in bad.output
    gone = run("fact", "retract", "99999")
    assert gone.exit_code == 1 and "no fact #99999" in gone.output


def test_an_untrusted_wing_mines_candidates_that_wait_for_review(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    note = notes / "2024-03-01-sync.md"
    note.write_text("# Sync\n\nDana Lee works at Initech. Omar Haddad joined Globex in January 2024.\n")
    (tmp_path / "palace").mkdir()
    (tmp_path / "palace" / "config.json").write_text(json.dumps({"wings": {"notes": {"trust": "untrusted"}}}))
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert current(palace, "Dana Lee", "works_at") == []  # never current before review
        answer = palace.ask("where does Dana Lee work", now=dt.date(2024, 6, 1)).answer
        assert answer is None or [v.value for v in answer.values] == []  # nor an answer
        pending = palace.pending_review().candidates
        assert ("Dana Lee", "works_at", "Initech", "candidate") in {(f.subject, f.predicate, f.object, f.state)
                                                                    for f in pending}
        dana = next(f for f in pending if f.subject == "Dana Lee" and f.predicate == "works_at")
        (accepted,) = palace.review(True, fact_ids=(dana.id,))
        assert current(palace, "Dana Lee", "works_at") == [("Initech", "2024-03-01", None, "confirmed")]
        omar = next(f for f in pending if f.subject == "Omar Haddad" and f.predicate == "works_at")
        (rejected,) = palace.review(False, fact_ids=(omar.id,), reason="he only interviewed there")
        note.write_text(note.read_text() + "\nThe roadmap review is on Friday.\n")  # the drawer is read again
        palace.mine(notes)
        assert current(palace, "Dana Lee", "works_at") == [("Initech", "2024-03-01", None, "confirmed")]
        assert current(palace, "Omar Haddad", "works_at") == []
        states = {(f.object, f.state) for f in palace.history("Omar Haddad", predicate="works_at").facts}
        assert states == {("Globex", "rejected")}  # the re-read statement, rejected again
        palace.undo_fact_decision(accepted.id)
        assert current(palace, "Dana Lee", "works_at") == []
        assert any(f.subject == "Dana Lee" for f in palace.pending_review().candidates)


def test_low_trust_rules_and_an_agents_writes_are_candidates(dana, tmp_path):
    palace, notes = dana
    (tmp_path / "palace" / "config.json").write_text(json.dumps({"wings": {"notes": {"low_trust_rules": ["join"]}}}))
    note = notes / "2024-03-01-sync.md"
    note.write_text(note.read_text() + "\nMore on Friday.\n")
    palace.mine(notes)
    rules = {f.extractor.split("/", 1)[-1] for f in palace.pending_review().candidates}
    assert rules == {"join"}  # only that rule's facts wait; Dana's works_at stays current
    assert current(palace, "Dana Lee", "works_at") == [("Initech", "2024-03-01", None, "stated")]
    done = palace.review(True, rule="join")
    assert done and not palace.pending_review().candidates
    proposed = palace.add_fact("Dana Lee", "role", "designer", by="agent", candidate=True)
    assert current(palace, "Dana Lee", "role") == []
    retraction = palace.retract_fact(fact_id(palace, "Dana Lee", "works_at", "Initech"), by="agent", pending=True,
                                     reason="an agent thinks so")
    assert current(palace, "Dana Lee", "works_at") != []  # a proposal changes nothing yet
    review = palace.pending_review()
    assert [f.id for f in review.candidates] == [proposed.fact_id] and [d.id for d in review.proposals] == [
        retraction.id]
    palace.review(True, fact_ids=(proposed.fact_id,), proposal_ids=(retraction.id,))
    assert current(palace, "Dana Lee", "role") == [("designer", None, None, "agent")]
    assert current(palace, "Dana Lee", "works_at") == []


def test_an_agents_retraction_is_shown_as_the_agents(dana):
    palace, _ = dana
    omar = fact_id(palace, "Omar Haddad", "works_at", "Globex")
    committed = palace.retract_fact(omar, by="agent", reason="an agent read it so")
    proposal = palace.retract_fact(fact_id(palace, "Dana Lee", "works_at", "Initech"), by="agent", pending=True,
                                   reason="an agent thinks so")
    palace.review(True, proposal_ids=(proposal.id,))
    reasons = {f.object: f.invalidation_reason for name in ("Omar Haddad", "Dana Lee")
               for f in palace.history(name, predicate="works_at").facts}
    assert reasons == {"Globex": f"retracted by an agent (decision #{committed.id}): an agent read it so",
                       "Initech": f"retracted by an agent (decision #{proposal.id}): an agent thinks so"}


def test_undoing_a_retraction_brings_back_only_what_the_notes_still_say(dana):
    palace, notes = dana
    retraction = palace.retract_fact(fact_id(palace, "Dana Lee", "works_at", "Initech"))
    note = notes / "2024-03-01-sync.md"
    for word in ("also", "again"):  # two edits: each reading of the sentence is retracted again
        note.write_text(note.read_text().replace("She ", f"She {word} ", 1))
        palace.mine(notes)
    palace.undo_fact_decision(retraction.id)
    back = palace.facts(about="Dana Lee", predicate="works_at").facts
    assert [(f.object, f.line is not None) for f in back] == [("Initech", True)]  # one, cited in the note as it is


def test_candidates_are_counted_apart_and_shown_in_history(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-03-01-sync.md").write_text("# Sync\n\nDana Lee works at Initech.\n")
    (tmp_path / "palace").mkdir()
    (tmp_path / "palace" / "config.json").write_text(json.dumps({"wings": {"notes": {"trust": "untrusted"}}}))
    run = lambda *args: CliRunner().invoke(app, [*args, "--palace", str(tmp_path / "palace")])  # noqa: E731
    assert run("mine", str(notes)).exit_code == 0
    listed = run("facts", "--about", "Dana Lee")
    assert listed.exit_code == 0 and "no facts" in listed.output and "1 candidate fact about this await review" in listed.output
    data = json.loads(run("facts", "--about", "Dana Lee", "--json").output)
    assert (data["facts"], data["pending_review"]) == ([], 1)
    history = run("history", "Dana Lee")
    assert history.exit_code == 0 and "candidate, awaiting review" in history.output
    review = run("review")
    assert "Dana Lee" in review.output and "rule" in review.output
