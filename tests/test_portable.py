"""`palace export` and `palace import`: the graph in JSON and GraphML, and a palace
rebuilt from the same notes keeps every correction."""

from __future__ import annotations

import datetime as dt
import json

import networkx as nx
from typer.testing import CliRunner

from palace.cli.main import app
from palace.core import Palace


def run(*args):
    return CliRunner().invoke(app, list(args))


def state(palace) -> set[tuple]:
    """Every current typed fact as a user sees it, with its evidence."""
    return {(f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.evidence)
            for f in palace.facts(limit=10_000).facts}


def test_a_rebuilt_palace_keeps_every_correction(sample_copy, tmp_path):
    first, rebuilt = tmp_path / "first", tmp_path / "rebuilt"
    with Palace.open(first) as palace:
        palace.mine(sample_copy, wing="sample")
        bob = {f.object: f.id for f in palace.facts(about="Bob Okafor").facts if f.predicate == "leads"}
        palace.retract_fact(bob["Beacon"], reason="Jess leads Beacon")
        palace.add_fact("Bob Okafor", "role", "director", valid_from=dt.date(2025, 6, 1), note="promotion")
        palace.confirm_fact(bob["Harbor"])
        palace.merge("Priya", "Priya Raman")
        palace.observe("Alice Chen", "prefers email over phone")
        expected = state(palace)
    exported = run("export", "--out", str(tmp_path / "graph.json"), "--palace", str(first))
    assert exported.exit_code == 0, exported.output
    with Palace.open(rebuilt) as palace:
        palace.mine(sample_copy, wing="sample")
        assert state(palace) != expected
    imported = run("import", str(tmp_path / "graph.json"), "--json", "--palace", str(rebuilt))
    assert imported.exit_code == 0, imported.output
    report = json.loads(imported.output)
    assert (report["entity_decisions"], report["facts_added"], report["fact_decisions"]) == (1, 2, 2)
    with Palace.open(rebuilt, create=False) as palace:
        assert state(palace) == expected
        roles = [(f.object, f.evidence) for f in palace.facts(about="Bob Okafor", predicate="role").facts]
        assert roles == [("director", "user")]
        again = run("import", str(tmp_path / "graph.json"), "--json", "--palace", str(rebuilt))
        assert json.loads(again.output)["already_present"] == 5  # nothing recorded twice
        assert state(palace) == expected


def test_graphml_is_read_by_networkx_with_both_times_and_provenance(mined_sample, tmp_path):
    palace_dir, _ = mined_sample
    out = tmp_path / "graph.graphml"
    assert run("export", "--graphml", "--out", str(out), "--palace", str(palace_dir)).exit_code == 0
    graph = nx.read_graphml(out)
    names = {data["name"]: node for node, data in graph.nodes(data=True)}
    edges = [data for _, target, data in graph.out_edges(names["Bob Okafor"], data=True)
             if data["predicate"] == "reports_to"]
    assert {(graph.nodes[t]["name"], d["valid_from"], d["state"]) for _, t, d in
            graph.out_edges(names["Bob Okafor"], data=True) if d["predicate"] == "reports_to"} >= {
        ("Helen Marsh", "2024-07-01", "current"), ("Priya Raman", "2023-01-17", "superseded")}
    assert all(d["path"] and d["sentence"] and d["recorded_at"] for d in edges)
