"""palace facts and palace history: valid time, recorded time, invalidated facts kept."""

from __future__ import annotations

import datetime as dt
import json

from typer.testing import CliRunner

from palace.cli.main import app
from palace.core import Palace
from palace.graph.facts import facts


def test_a_deleted_note_leaves_current_facts_but_stays_in_history(clock, tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "2024-03-01.md").write_text("# Sync\n\nAlice Chen met Bob Okafor in London.\n")
    (root / "2024-06-01.md").write_text("# Trip\n\nAlice Chen flew to Lisbon with Marcus Webb.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        before = facts(palace.conn, palace.registry, about="Alice Chen")
        assert {(f.subject, f.object) for f in before.facts} >= {("Alice Chen", "Bob Okafor"), ("Alice Chen", "Lisbon")}
        lisbon = next(f for f in before.facts if f.object == "Lisbon")
        assert (lisbon.valid_from, lisbon.valid_to, lisbon.valid_granularity) == ("2024-06-01", "2024-06-02", "day")
        assert lisbon.path == "2024-06-01.md" and "Lisbon" in lisbon.sentence and lisbon.state == "current"
        clock.advance(1)  # recorded times have one-second resolution
        (root / "2024-06-01.md").unlink()
        palace.mine(root)
        now = facts(palace.conn, palace.registry, about="Alice Chen")
        assert all(f.path != "2024-06-01.md" for f in now.facts)
        past = facts(palace.conn, palace.registry, about="alice chen", history=True)
        gone = [f for f in past.facts if f.path == "2024-06-01.md"]
        assert gone and all(f.state == "invalidated" and f.invalidation_reason == "file deleted" for f in gone)
        known = facts(palace.conn, palace.registry, about="Alice Chen", known_at=lisbon.recorded_at)
        assert any(f.object == "Lisbon" for f in known.facts)  # what the palace knew then
        as_of = facts(palace.conn, palace.registry, about="Alice Chen", as_of=dt.date(2024, 3, 1))
        assert {f.object for f in as_of.facts} >= {"Bob Okafor"} and "Lisbon" not in {f.object for f in as_of.facts}


def test_cli_history_json(mined_sample):
    palace_dir, _ = mined_sample
    result = CliRunner().invoke(app, ["history", "Marcus Webb", "--palace", str(palace_dir), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["history"] is True and data["about"] == "Marcus Webb"
    first = data["facts"][0]
    assert {"subject", "predicate", "object", "valid_from", "valid_to", "recorded_at", "invalidated_at", "state",
            "path", "sentence", "extractor", "confidence"} <= set(first)
    dates = [f["valid_from"] for f in data["facts"]]
    assert dates == sorted(dates)


def test_facts_and_history_show_typed_facts_unless_all(mined_sample):
    palace_dir, _ = mined_sample
    for command in (["facts", "--about", "Bob Okafor"], ["history", "Bob Okafor"]):
        typed = json.loads(CliRunner().invoke(app, [*command, "--palace", str(palace_dir), "--json"]).output)
        every = json.loads(CliRunner().invoke(app, [*command, "--all", "--palace", str(palace_dir), "--json"]).output)
        assert typed["facts"] and all(f["predicate"] != "mentioned_with" for f in typed["facts"])
        assert any(f["predicate"] == "mentioned_with" for f in every["facts"])
        assert {f["id"] for f in typed["facts"]} < {f["id"] for f in every["facts"]}


def test_a_fact_restated_in_a_later_note_is_one_fact_with_one_more_citation(tmp_path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "2024-01-10.md").write_text("# Team\n\nDana Lee works at Initech.\n")
    (root / "2024-03-02.md").write_text("# Team update\n\nDana Lee works at Initech.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(root)
        now = facts(palace.conn, palace.registry, about="Dana Lee", predicate="works_at")
        assert [(f.object, f.valid_from, f.path, f.restated_in) for f in now.facts] == [
            ("Initech", "2024-01-10", "2024-01-10.md", ("2024-03-02.md:3",))]
        # history keeps every statement
        history = facts(palace.conn, palace.registry, about="Dana Lee", predicate="works_at", history=True)
        assert len(history.facts) == 2
        out = CliRunner().invoke(app, ["facts", "--about", "Dana Lee", "--predicate", "works_at",
                                  "--palace", str(tmp_path / "palace")])
        assert "stated again in 2024-03-02.md:3" in out.output
        # retracting the fact shown retracts its restatement too: nothing comes back in its place
        palace.retract_fact(now.facts[0].id, reason="she left")
        assert facts(palace.conn, palace.registry, about="Dana Lee", predicate="works_at").facts == ()
