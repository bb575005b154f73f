"""palace ask on the sample corpus: the right drawer comes back, and says why."""

from __future__ import annotations

import datetime as dt
import json
import math

import pytest

from palace.errors import UsageError

NOW = dt.date(2025, 6, 15)


def top_paths(result, n=3):
    return [hit.path for hit in result.results[:n]]


@pytest.mark.parametrize(
    "question, expected, n",
    [
        ("when did Alice Chen join Acme Robotics", {"journal/2024-08-09.md", "journal/2024-09-14.md",
                                                      "journal/2024-12-31-year-in-review.md"}, 3),
        ("what did we decide about the Harbor budget", {"meetings/2024-08-20-harbor-budget-revision.md",
                                                        "meetings/2024-02-14-budget-review.md", "projects/harbor.md"}, 3),
        ("what medication does Ruth take", {"journal/2024-04-12.md", "journal/2024-01-21.md",
                                            "journal/2024-02-11-utf16.md"}, 3),
        ("ticket #2033", {"meetings/2023-07-11-sprint-review.md"}, 1),
        ("room 3533", {"meetings/2023-10-03-q4-planning.md"}, 1),
        ("Café Müller", {"journal/2023-09-02-cafe-latin1.md"}, 1),
        ("what does March Lindqvist do", {"meetings/2024-03-20-harbor-kickoff.md", "journal/2024-03-16.md",
                                          "projects/harbor.md"}, 3),
        ("what did Alice Moreau propose for the settings screen", {"meetings/2024-06-04-beacon-redesign.md"}, 2),
        ("who is the cardiologist", {"journal/2024-04-12.md"}, 3),
    ],
)
def test_ask_returns_the_right_drawer(sample_palace, question, expected, n):
    result = sample_palace.ask(question, now=NOW)
    assert expected & set(top_paths(result, n)), (question, top_paths(result, 5))


def test_date_window_from_the_question_ranks(sample_palace):
    result = sample_palace.ask("what happened with the Harbor budget in Q3 2024", now=NOW)
    assert result.plan.date_window == {"start": "2024-07-01", "end": "2024-10-01", "granularity": "quarter"}
    assert result.plan.date_window_mode == "boost"
    assert top_paths(result, 1) == ["meetings/2024-08-20-harbor-budget-revision.md"]
    assert all(hit.date >= "2024-07-01" or "2024" in hit.snippet for hit in result.results[:3])
    deeper = sample_palace.ask("what happened with the Harbor budget in Q3 2024", now=NOW, top_k=50).results
    pushed = [hit for hit in deeper if any(c.retriever == "outside the window" for c in hit.why.retrievers)]
    assert pushed and all(hit.date < "2024-07-01" or hit.date >= "2024-10-01" for hit in pushed)
    assert "harbor" in result.plan.terms and "q3" not in result.plan.terms


def test_month_window(sample_palace):
    result = sample_palace.ask("what did we decide in March 2024", now=NOW)
    assert result.plan.date_window["start"] == "2024-03-01" and result.plan.date_window["end"] == "2024-04-01"
    assert result.results and all(hit.path for hit in result.results)


def test_march_lindqvist_is_an_entity_not_a_month(sample_palace):
    result = sample_palace.ask("what does March Lindqvist do", now=NOW)
    assert result.plan.date_window is None
    assert any(e["name"] == "March Lindqvist" for e in result.plan.entities)


def test_explicit_since_until_filter(sample_palace):
    result = sample_palace.ask("Larkspur plan", since=dt.date(2025, 1, 1), until=dt.date(2025, 1, 31), now=NOW)
    assert result.plan.date_window_source == "options"
    assert result.results
    for hit in result.results:
        assert hit.date is None or "2025-01-01" <= hit.date <= "2025-01-31" or hit.why.date_window


def test_wing_and_room_filters(sample_palace):
    result = sample_palace.ask("Alice", room="projects", now=NOW)
    assert result.results and {hit.room for hit in result.results} == {"projects"}
    with pytest.raises(UsageError) as info:
        sample_palace.ask("Alice", wing="no-such-wing", now=NOW)
    assert info.value.message == "no wing 'no-such-wing' in this palace" and info.value.hint == "wings: sample"
    with pytest.raises(UsageError) as info:
        sample_palace.ask("Alice", room="attic", now=NOW)
    assert info.value.hint == "rooms: journal, meetings, projects"


def test_empty_question_and_reversed_window_are_user_errors(sample_palace):
    with pytest.raises(UsageError):
        sample_palace.ask("   ")
    with pytest.raises(UsageError) as info:
        sample_palace.ask("Harbor", since=dt.date(2025, 1, 1), until=dt.date(2024, 1, 1))
    assert "is after" in info.value.message
    assert sample_palace.ask("Harbor", until=dt.date.max).results


def test_identifier_questions_put_the_exact_match_first(sample_palace):
    result = sample_palace.ask("ticket #2033", now=NOW)
    assert result.plan.identifiers == ("2033",)
    assert result.results[0].path == "meetings/2023-07-11-sprint-review.md"
    assert "2033" in result.results[0].snippet


def test_why_contributions_add_up_to_the_score(sample_palace):
    result = sample_palace.ask("Larkspur Enterprise plan downgrade", now=NOW)
    for hit in result.results:
        assert math.isclose(sum(c.rrf for c in hit.why.retrievers), hit.score, rel_tol=1e-9)
        assert {c.retriever for c in hit.why.retrievers} <= {"bm25", "vector", "graph", "date", "exact", "changes", "recent",
                                                             "answer"}
        assert hit.line_start <= hit.line_end


def test_json_shape_is_stable(sample_palace):
    data = json.loads(sample_palace.ask("who does Bob Okafor report to", now=NOW).to_json())
    assert set(data) == {"question", "palace", "plan", "direct", "answer", "changes", "facts", "hidden_superseded",
                         "results", "elapsed_ms"}
    assert data["direct"]["kind"] == "fact" and data["direct"]["text"].startswith("Bob Okafor reports to Helen Marsh")
    assert set(data["plan"]) == {"intent", "intent_cue", "now", "now_source", "terms", "date_window",
                                 "date_window_text", "date_window_source", "date_window_mode", "entities",
                                 "identifiers", "weights", "notes"}
    hit = data["results"][0]
    assert set(hit) == {"rank", "drawer_id", "score", "path", "wing", "room", "line_start", "line_end", "date",
                        "date_source", "title", "heading_path", "snippet", "why", "same_text_in", "caution"}
    assert set(hit["why"]) == {"retrievers", "matched_terms", "matched_entities", "date_window"}
    assert set(hit["why"]["retrievers"][0]) == {"retriever", "rank", "score", "weight", "rrf"}
    assert any(e["name"] == "Bob Okafor" for e in data["plan"]["entities"])


def test_query_path_does_not_load_spacy(mined_sample):
    import subprocess
    import sys

    palace_dir, _ = mined_sample
    code = (
        "import sys; from palace.core import Palace\n"
        f"p = Palace.open({str(palace_dir)!r}, create=False)\n"
        "r = p.ask('Harbor budget')\n"
        "assert r.results\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('spacy', 'thinc', 'torch')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_window_ranks_dated_notes_and_leaves_undated_ones_alone(tmp_path):
    import os

    from palace.core import Palace

    root = tmp_path / "notes"
    root.mkdir()
    (root / "2019-05-01.md").write_text("# Zebra plan\n\nThe zebra enclosure plan was approved.\n")
    (root / "2021-05-01.md").write_text("# Zebra feed\n\nThe zebra feed contract was renewed.\n")
    (root / "policy.md").write_text("# Zebra policy\n\nRules for the zebra enclosure.\n")  # dated by mtime only
    (root / "rules.md").write_text("# Zebra rules\n\nMore rules for the zebra enclosure.\n")  # mtime: today
    in_2019 = dt.datetime(2019, 6, 1, 12).timestamp()
    os.utime(root / "policy.md", (in_2019, in_2019))
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        result = palace.ask("zebra enclosure in 2019", now=NOW)
        paths = [hit.path for hit in result.results]
        assert result.plan.date_window_mode == "boost"
        assert paths[0] == "2019-05-01.md"
        # nothing is dropped: the undated notes (mtime only, whatever the mtime) stay
        # unmarked, the note dated outside the window is pushed below them
        assert set(paths) == {"2019-05-01.md", "2021-05-01.md", "policy.md", "rules.md"}
        assert paths.index("2021-05-01.md") == 3
        why = {hit.path: [c.retriever for c in hit.why.retrievers] for hit in result.results}
        assert "outside the window" in why["2021-05-01.md"]
        assert "outside the window" not in why["policy.md"] and "date" not in why["policy.md"]
        undated = next(hit for hit in result.results if hit.path == "policy.md")
        assert undated.date is None and undated.date_source == "mtime"
        assert "1 drawer dated in it, 0 more that mention a day in it" in result.plan.notes[0]


def test_copies_of_one_passage_are_folded_into_the_best(tmp_path):
    from palace.core import Palace

    root = tmp_path / "notes"
    root.mkdir()
    body = " ".join(f"Point {i}: the travel grant policy needs a decision on caps, receipts and deadlines."
                    for i in range(12))
    header = f"## Travel grant policy\n\nIssue #123, labels: needs-decision, nominated. {body}\n"
    for day in ("2024-05-03", "2024-05-17", "2024-05-31"):
        chatter = " ".join(f"Item {i} of the {day} agenda was discussed at length by everyone present." for i in range(40))
        (root / f"{day}.md").write_text(f"# Meeting {day}\n\n{chatter}\n\n{header}\n## Other\n\n{chatter}\n")
    (root / "policy.md").write_text("# Travel grant policy\n\nGrants cover travel up to $2000 a year.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        result = palace.ask("travel grant policy needs decision", now=NOW)
        copies = [hit for hit in result.results if "Issue #123" in hit.snippet]
        assert len(copies) == 1  # one of three identical passages
        assert len(copies[0].same_text_in) == 2
        assert {copies[0].path, *(c.split(":")[0] for c in copies[0].same_text_in)} == {
            "2024-05-03.md", "2024-05-17.md", "2024-05-31.md"}
        assert any(hit.path == "policy.md" for hit in result.results)


def test_bm25_leaves_weightless_terms_out_of_its_scoring_and_ranks_as_the_whole_query(tmp_path, monkeypatch):
    """A term in half the drawers or more weighs nothing in BM25 (FTS5 floors its IDF):
    the drawers holding a weighing term are ranked by those terms only, the others follow
    in the whole query's order, so the ranking equals the whole query's."""
    from palace.ask import retrievers
    from palace.core import Palace

    notes = tmp_path / "notes"
    notes.mkdir()
    topics = ["budget", "travel", "hiring", "roadmap", "security", "budget travel", "hiring roadmap", "budget"]
    for i, topic in enumerate(topics):
        filler = " ".join(f"word{i}x{j}" for j in range(i + 1))  # no two drawers alike: no ties
        (notes / f"m{i}.md").write_text(f"# Meeting {i}\n\nThe meeting discussed the {topic}. {filler}.\n")
    (notes / "other.md").write_text("# Other\n\nNothing about that here, only the garden.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
        conn = palace.conn
        assert retrievers._weightless(conn, ("meeting", "budget", "garden")) == {"meeting"}
        whole = {}
        for limit in (3, 100):  # a first query that fills the list, and one that needs the rest
            monkeypatch.setattr(retrievers, "CANDIDATES", limit)
            for terms in [("meeting", "budget"), ("meeting", "garden"), ("budget", "travel", "meeting"), ("meeting",)]:
                for allowed in (None, {r[0] for r in conn.execute("SELECT rowid FROM drawers")}):
                    expected = retrievers._fts_ranked(conn, retrievers._fts_query(terms), allowed, limit)
                    got = retrievers.bm25(conn, terms, allowed)
                    assert [d for d, _ in got] == [d for d, _ in expected], (terms, limit)
                    assert all(abs(a[1] - b[1]) < 1e-4 for a, b in zip(got, expected))
                    whole[terms, limit] = len(got)
        assert whole[("meeting", "garden"), 100] == 9  # "garden" once, then every "meeting"
