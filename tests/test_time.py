"""Answers at the right time (issue 11): notes dated by their source (git, a ``Date:``
line, never the day they were copied), windows that rank instead of dropping, a point or
a span the question is about, a direct answer first, and co-occurrence kept in its place
— through real mining (spaCy, SQLite, Chroma, the packaged model)."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess

import pytest
from typer.testing import CliRunner

from palace.cli.main import app
from palace.core import Palace
from palace.errors import UsageError

NOW = dt.date(2025, 6, 15)
NOTES = {
    "2024-01-10.md": "# Org\n\nDana Reyes reports to Priya Shah.\n",
    "2025-01-20.md": "# Reorg\n\nDana Reyes now reports to Ravi Menon.\n",
    "2023-06-05.md": "# June standup\n\nThe zebra enclosure fence was painted green.\n",
    "2024-02-01.md": "# Team\n\nTom Hale reports to Ben Cole.\n",
    "2024-07-05.md": "# All hands\n\nFrom 1 July, Tom Hale reports to Ada Park instead of Ben Cole.\n",
    "2024-11-02.md": "# Budget\n\nThe heron budget was cut. Mara +1 on the cut.\n",
    # copied in with no date of its own: its mtime says nothing about when it was written
    "policy.md": "# Pay policy\n\nDana Reyes reports to Olga Berg.\nThe heron budget policy is strict.\n",
    "sig-kestrel/README.md": "# Overview\n\nThis group owns the telemetry pipeline.\n",
    "minutes/field-day.md": "# Field day\n\n**Date:** 28/03/2018\n\nWe counted 12 herons. Next count on 03/04/2018.\n",
    "crowd.md": "# Crowd\n\n" + " ".join(
        f"{a} met {b} in Lisbon." for a, b in zip(
            ["Ann Lee", "Bo Chan", "Cy Dunn", "Di Ford", "Ed Gray", "Flo Hart", "Gus Ives", "Hal Jory", "Ida Kent"] * 4,
            ["Jo Lamb", "Kai Moss", "Lu Nash", "Mo Ortiz", "Ned Park", "Oz Quin", "Pia Ross", "Quy Snow", "Ray Tate"] * 4)
    ) + "\nObservers: Ann Lee, Bo Chan\n",
}


@pytest.fixture(scope="module")
def mined(tmp_path_factory):
    root = tmp_path_factory.mktemp("time")
    notes = root / "notes"
    for name, text in NOTES.items():
        (notes / name).parent.mkdir(parents=True, exist_ok=True)
        (notes / name).write_text(text, encoding="utf-8")
    copied = dt.datetime(2026, 11, 30, 12).timestamp()  # "the day of the clone"
    os.utime(notes / "policy.md", (copied, copied))
    with Palace.open(root / "palace") as palace:
        palace.mine(notes)
    return root / "palace"


@pytest.fixture
def palace(mined):
    with Palace.open(mined, create=False) as opened:
        yield opened


def test_an_undated_note_never_supersedes_a_dated_fact(palace):
    row = palace.conn.execute(
        "SELECT f.valid_from, f.valid_to, f.superseded_by FROM facts f JOIN entities e ON e.id = f.object_id"
        " WHERE f.predicate = 'reports_to' AND e.name = 'Olga Berg'").fetchone()
    assert row["valid_from"] is None  # no valid time of its own: not the day it was copied
    answer = palace.ask("who does Dana Reyes report to", now=NOW).answer
    assert [v.value for v in answer.values] == ["Ravi Menon"]
    changes = palace.ask("what changed in 2024", now=NOW).changes
    assert changes.basis == "valid time"
    assert [c.fact.object for g in changes.groups for c in g.changes
            if c.fact.predicate == "reports_to" and c.fact.subject == "Dana Reyes"] == ["Priya Shah"]



def test_a_point_in_the_question_is_the_day_asked_about(palace):
    result = palace.ask("who did Dana Reyes report to as of June 2024", now=NOW)
    assert result.plan.now == "2024-06-30" and result.plan.now_source == "question"
    assert result.plan.date_window is None
    assert [v.value for v in result.answer.values] == ["Priya Shah"]
    assert result.direct.kind == "fact"
    assert result.direct.text.startswith("Dana Reyes reported to Priya Shah (2024-01-10 → 2025-01-20; since replaced"
                                         " by Ravi Menon (from 2025-01-20))")
    # notes written after the day asked about are pushed down
    later = [h for h in result.results if h.path == "2025-01-20.md"]
    assert later and any(c.retriever == "written after 2024-06-30" for c in later[0].why.retrievers)


def test_now_bounds_what_the_answer_may_know(palace, mined):
    # an end that lies after --now is not known yet
    early = palace.ask("who does Dana Reyes report to", now=dt.date(2024, 6, 1))
    assert early.direct.text.startswith("Dana Reyes reports to Priya Shah (since 2024-01-10) — 2024-01-10.md:3")
    # "instead of Ben Cole", read in a note of July 2024, says nothing of 2023
    before_any = palace.ask("who does Tom Hale report to", now=dt.date(2023, 6, 1))
    assert before_any.answer.values == () and before_any.direct.kind == "not said"
    assert before_any.direct.text.startswith("the notes do not say: who does Tom Hale report to (no fact about")
    assert [v.value for v in palace.ask("who does Tom Hale report to", now=dt.date(2024, 3, 1)).answer.values] == [
        "Ben Cole"]
    # a change list stops at --now
    changes = palace.ask("what changed in 2024", now=dt.date(2024, 5, 1)).changes
    assert changes.end == "2024-05-02"
    assert all(c.day <= "2024-05-01" for g in changes.groups for c in g.changes)
    # a refused question still prints JSON for scripts
    out = CliRunner().invoke(app, ["ask", "?!", "--json", "--palace", str(mined)])
    assert out.exit_code == 1 and json.loads(out.stdout.splitlines()[0])["error"].startswith("the question '?!'")


def test_a_when_question_leads_with_the_date_of_the_fact_it_names(palace):
    result = palace.ask("when did Dana Reyes start reporting to Ravi Menon", now=NOW)
    assert result.direct.kind == "facts"
    assert result.direct.text.splitlines() == [
        "2025-01-20: Dana Reyes reports to Ravi Menon (since 2025-01-20) — 2025-01-20.md:3"]


def test_a_span_lists_the_facts_valid_in_it(palace):
    result = palace.ask("tell me about Dana Reyes in 2024", now=NOW)
    assert result.plan.date_window_mode == "boost"
    assert {f.object for f in result.facts} >= {"Priya Shah"}
    assert "Ravi Menon" not in {f.object for f in result.facts}  # began after the span
    assert result.direct.kind == "facts" and "Dana Reyes reports to Priya Shah" in result.direct.text


def test_a_month_without_a_year_is_the_latest_with_notes(palace):
    result = palace.ask("what happened at the June standup in June", now=NOW)
    assert result.plan.date_window == {"start": "2023-06-01", "end": "2023-07-01", "granularity": "month"}
    assert any("names no year: read as 2023-06-01 → 2023-07-01" in n for n in result.plan.notes)
    assert result.results[0].path == "2023-06-05.md"


def test_a_window_ranks_and_an_undated_note_is_neither_in_nor_out(palace):
    result = palace.ask("heron budget policy in 2024", now=NOW)
    paths = [h.path for h in result.results]
    assert paths[0] == "2024-11-02.md" and "policy.md" in paths
    undated = next(h for h in result.results if h.path == "policy.md")
    assert undated.date is None and undated.date_source == "mtime"
    assert not {"date", "outside the window"} & {c.retriever for c in undated.why.retrievers}


def test_a_year_that_names_a_document_is_no_window(palace):
    result = palace.ask("what did the 2023 heron budget policy say", now=NOW)
    assert result.plan.date_window is None
    assert "2023" in result.plan.identifiers


def test_folder_names_are_searched(palace):
    result = palace.ask("sig-kestrel", now=NOW)
    assert result.results[0].path == "sig-kestrel/README.md"
    assert result.results[0].room == "sig-kestrel"
    named = palace.ask("what does the sig kestrel group own", now=NOW)
    assert "the question names room 'sig-kestrel': its drawers are raised" in named.plan.notes
    assert named.results[0].path == "sig-kestrel/README.md"
    root_note = palace.ask("crowd Lisbon", now=NOW).results[0]
    assert root_note.path == "crowd.md" and root_note.room == root_note.wing  # not "."


def test_a_date_line_dates_the_note_day_first_by_its_own_evidence(palace):
    row = palace.conn.execute("SELECT doc_date, doc_date_source FROM files WHERE path = 'minutes/field-day.md'").fetchone()
    assert (row["doc_date"], row["doc_date_source"]) == ("2018-03-28", "date line")
    # 28/03 shows the note writes day first, so 03/04/2018 is 3 April
    spans = {r["surface"]: (r["start"], r["end"]) for r in palace.conn.execute("SELECT surface, start, end FROM date_mentions")}
    assert spans["03/04/2018"] == ("2018-04-03", "2018-04-04")


def test_an_ambiguous_numeric_date_is_not_guessed(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2018-01-02.md").write_text("# Count\n\nThe next heron count is on 03/04/2018.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        assert palace.conn.execute("SELECT count(*) FROM date_mentions WHERE surface LIKE '%03/04%'").fetchone()[0] == 0
        plan = palace.ask("heron count on 03/04/2018", now=NOW).plan
        assert plan.date_window is None and any("'03/04/2018' reads as day/month or month/day" in n for n in plan.notes)
    (tmp_path / "palace" / "config.json").write_text(json.dumps({"date_order": "dmy"}))
    with Palace.open(tmp_path / "palace") as palace:
        plan = palace.ask("heron count on 03/04/2018", now=NOW).plan
        assert plan.date_window == {"start": "2018-04-03", "end": "2018-04-04", "granularity": "day"}


def test_a_question_with_no_content_is_a_user_error(palace, mined):
    for question in ("what is the", "?!", "who was it then?"):
        with pytest.raises(UsageError) as info:
            palace.ask(question, now=NOW)
        assert "names nothing to look for" in info.value.message
    out = CliRunner().invoke(app, ["ask", "what is the", "--palace", str(mined)])
    assert out.exit_code == 1 and "names nothing to look for" in out.output


def test_nothing_found_rather_than_arbitrary_drawers(palace):
    result = palace.ask("quasar marmalade xylophone", now=NOW)
    assert result.results == () and result.direct.kind == "nothing found"


def test_cooccurrence_is_capped_per_drawer_and_names_are_names(palace):
    per_drawer = palace.conn.execute(
        "SELECT max(n) FROM (SELECT count(*) n FROM facts WHERE predicate = 'mentioned_with' GROUP BY drawer_id)"
    ).fetchone()[0]
    assert 0 < per_drawer <= 40
    names = {r[0] for r in palace.conn.execute("SELECT name FROM entities")}
    assert "Observers" not in names and not any("+" in name for name in names)


@pytest.mark.parametrize("name, rejected", [
    ("Observers", True), ("Labels", True), ("Others", True),  # section labels and fields
    ("Trait + X", True), ("Copy + Send", True),  # sums of words
    ("lang", True), ("doc", True),  # lower-case words
    ("Niko", False), ("joshtriplett", False), ("James", False), ("Mara", False), ("Acme Corp", False),
])
def test_words_that_are_not_names(name, rejected):
    from palace.nlp.extraction import known_words, not_a_name
    from palace.nlp.pipeline import load_pipeline

    assert not_a_name(name, known_words(load_pipeline())) is rejected


def test_git_dates_a_note_with_no_date_of_its_own(tmp_path):
    notes = tmp_path / "repo"
    (notes / "docs").mkdir(parents=True)
    (notes / "docs" / "charter.md").write_text("# Charter\n\nThe heron group owns the survey.\n")
    env = {**os.environ, "GIT_AUTHOR_DATE": "2022-05-06T10:00:00", "GIT_COMMITTER_DATE": "2022-05-06T10:00:00",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "charter"]):
        subprocess.run(["git", *args], cwd=notes, env=env, check=True)
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        row = palace.conn.execute("SELECT doc_date, doc_date_source FROM files WHERE path = 'docs/charter.md'").fetchone()
        assert (row["doc_date"], row["doc_date_source"]) == ("2022-05-06", "git")
        hit = palace.ask("heron survey charter", now=NOW).results[0]
        assert (hit.date, hit.date_source) == ("2022-05-06", "git")
