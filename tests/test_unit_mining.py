"""Mining and asking on the fakes (tests/fakes.py): a few tiny notes go through the real
mine run, store, resolution, timelines and ask flow into a real SQLite palace, with the
fake extractor, the fake embedder and a vector store in a dict, so no model loads. The
same behaviour through the real models is tested in test_temporal_graph, test_ask…"""

from __future__ import annotations

import datetime as dt

import pytest
from fakes import fake_palace

pytestmark = pytest.mark.unit

LATER = dt.date(2024, 12, 1)
NOTES = {
    "2024-01-10.md": "# Kickoff\n\nAna Lima works at Acme Robotics. Ana Lima met Bo Chen in Lisbon.\n",
    "2024-06-01.md": "# News\n\nAna Lima works at Initech. Bo Chen reports to Ana Lima.\n",
    "harbor.md": "---\ndate: 2024-03-01\n---\n# Harbor\n\nStatus: blocked\nOwner: Bo Chen\n\nAna said the vendors are"
                 " late.\n",
}


def write(root, files: dict[str, str]) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")


def timeline(palace, name: str, predicate: str) -> list[tuple]:
    found = palace.history(name, predicate=predicate).facts
    return [(f.object, f.valid_from, f.valid_to, f.state) for f in found]


@pytest.fixture(scope="module")
def mined(tmp_path_factory):
    """The notes, mined once on the fakes: ``(palace folder, MineReport, vectors)``."""
    base = tmp_path_factory.mktemp("fake-mined")
    write(base / "notes", NOTES)
    with fake_palace(base / "palace") as palace:
        report = palace.mine(base / "notes")
        vectors = palace.vectors
    return base / "palace", report, vectors


@pytest.fixture
def palace(mined):
    from palace.core import Palace

    folder, _, vectors = mined
    with Palace.open(folder, create=False, vectors=vectors, embedder=_embedder()) as handle:
        yield handle


def _embedder():
    from palace.store.embedding import FakeEmbedder

    return FakeEmbedder(dimension=64)


def test_a_mine_stores_drawers_names_facts_and_vectors(mined, palace):
    folder, report, vectors = mined
    assert (report.indexed, report.drawers, report.embedded, report.failed) == (3, 3, 3, 0)
    assert not (folder / "chroma").exists()  # the vectors went to the dict
    assert vectors.count() == 3 and vectors.ids() == {r["id"] for r in palace.conn.execute("SELECT id FROM drawers")}
    assert {r[0] for r in palace.conn.execute("SELECT DISTINCT extractor FROM mentions")} == {"fake.ner/1"}
    current = {(f.subject, f.predicate, f.object) for f in palace.facts(now=LATER).facts}
    assert current == {
        ("Ana Lima", "works_at", "Initech"), ("Bo Chen", "reports_to", "Ana Lima"),
        ("Harbor", "status", "blocked"), ("Bo Chen", "owns", "Harbor"),  # a key–value line, read without spaCy
    }
    together = {(f.subject, f.object) for f in palace.facts(about="Bo Chen", typed_only=False, now=LATER).facts
                if f.predicate == "mentioned_with"}
    assert together == {("Ana Lima", "Bo Chen"), ("Bo Chen", "Lisbon"), ("Bo Chen", "Ana Lima")}


def test_a_later_value_supersedes_the_earlier_and_history_keeps_it(palace):
    assert timeline(palace, "Ana Lima", "works_at") == [
        ("Acme Robotics", "2024-01-10", "2024-06-01", "superseded"), ("Initech", "2024-06-01", None, "current")]
    then = palace.facts(about="Ana Lima", predicate="works_at", as_of=dt.date(2024, 3, 1)).facts
    assert [f.object for f in then] == ["Acme Robotics"]


def test_a_short_name_resolves_to_the_only_person_it_can_be(palace):
    (resolution,) = palace.aliases("Ana").resolved_into
    assert (resolution.into, resolution.rule) == ("Ana Lima", "short form")
    said = palace.conn.execute(
        "SELECT e.name FROM mentions m JOIN entities e ON e.id = m.entity_id WHERE m.surface = 'Ana'").fetchall()
    assert [r[0] for r in said] == ["Ana Lima"]  # the mention now points at the person


def test_ask_answers_from_the_graph_and_every_score_is_the_sum_of_its_shares(palace):
    result = palace.ask("where does Ana Lima work", now=LATER)
    assert result.answer.text.startswith("Ana Lima works at Initech (since 2024-06-01; before: Acme Robotics")
    assert [hit.path for hit in result.results] == ["2024-06-01.md", "2024-01-10.md", "harbor.md"]
    top = result.results[0]
    assert {c.retriever for c in top.why.retrievers} >= {"bm25", "vector", "graph", "answer"}
    for hit in result.results:
        assert sum(c.rrf for c in hit.why.retrievers) == pytest.approx(hit.score, abs=1e-12)
    assert [hit.score for hit in result.results] == sorted((hit.score for hit in result.results), reverse=True)


def test_an_edit_retracts_a_fact_in_recorded_time_and_the_earlier_value_reopens(clock, tmp_path):
    write(tmp_path / "notes", NOTES)
    with fake_palace(tmp_path / "palace") as palace:
        palace.mine(tmp_path / "notes")
        first = palace.changes()
        assert "since the first mining" in first.description
        clock.advance(1)
        write(tmp_path / "notes", {"2024-06-01.md": "# News\n\nBo Chen reports to Ana Lima.\n"})
        palace.mine(tmp_path / "notes")
        assert timeline(palace, "Ana Lima", "works_at") == [
            ("Acme Robotics", "2024-01-10", None, "current"), ("Initech", "2024-06-01", None, "invalidated")]
        gone = palace.history("Ana Lima", predicate="works_at").facts[1]
        assert gone.invalidation_reason == "file changed: text no longer there"
        assert gone.invalidated_at == clock.now.isoformat(timespec="seconds")
        since = palace.changes()
        assert since.description.startswith("since the previous mining")
        assert ("retracted", "Initech") in {(c.kind, c.fact.object) for g in since.groups for c in g.changes}



def test_a_run_tells_what_it_does_after_its_last_path_resolving_then_vectors(tmp_path):
    write(tmp_path / "notes", NOTES)
    phases: list[tuple] = []
    with fake_palace(tmp_path / "palace") as palace:
        report = palace.mine(tmp_path / "notes", on_phase=lambda *told: phases.append(told))
    assert report.new_drawers > 0
    assert phases[0] == ("resolving", 0, 0)
    assert {phase for phase, _, _ in phases[1:]} == {"vectors"} and len(phases) >= 2
    assert phases[-1] == ("vectors", report.new_drawers, report.new_drawers)  # the last heard: every vector stored
    assert [done for _, done, _ in phases[1:]] == sorted(done for _, done, _ in phases[1:])
