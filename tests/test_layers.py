"""The arrows of the house point one way (cli → palace → nlp), with no cycles, and the
public surface is what ``__all__`` says."""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _graph_module():
    spec = importlib.util.spec_from_file_location("import_graph", ROOT / "scripts" / "import_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_cycle_and_no_arrow_the_wrong_way():
    graph_module = _graph_module()
    graph = graph_module.import_graph()
    assert graph.number_of_nodes() > 50 and "palace.store.facts" in graph
    assert graph_module.problems(graph) == []
    # the edges the layering is about are really seen (a checker that sees nothing passes everything)
    assert graph.has_edge("palace.cli.facts", "palace.core")
    assert graph.has_edge("palace.graph.facts", "palace.store.facts")
    assert graph.has_edge("palace.store.facts", "palace.nlp.markup")


@pytest.mark.unit
def test_the_checker_reports_a_cycle_and_an_upward_arrow():
    graph_module = _graph_module()
    graph = nx.DiGraph([("palace.graph.profile", "palace.graph.facts"), ("palace.graph.facts", "palace.graph.profile"),
                        ("palace.nlp.pipeline", "palace.errors"), ("palace.store.sqlite", "palace.cli.app")])
    found = graph_module.problems(graph)
    assert any(line.startswith("cycle:") and "palace.graph.profile" in line for line in found)
    assert "upward: palace.nlp.pipeline → palace.errors" in found
    assert "upward: palace.store.sqlite → palace.cli.app" in found


#: command modules whose edges to the core are all seen (test_the_house_keeps_its_layout
#: holds the whole CLI to the rule)
OPS_CLI = {"palace.cli.app", "palace.cli.client", "palace.cli.doctor", "palace.cli.extract", "palace.cli.forget",
           "palace.cli.serve", "palace.cli.status"}


def test_the_layout_rules_see_real_imports_and_real_sql():
    graph_module = _graph_module()
    graph = graph_module.import_graph()
    # a checker that sees nothing passes everything: the CLI's edges to the handle and the
    # store's SQL are seen, and are no break of the rules
    assert graph.has_edge("palace.cli.doctor", "palace.core") and graph.has_edge("palace.cli.app", "palace.core")
    assert graph.has_edge("palace.cli.extract", "palace.core") and graph.has_edge("palace.cli.client", "palace.config")
    ops = graph.edge_subgraph([(a, b) for a, b in graph.edges if a in OPS_CLI])
    assert ops.number_of_edges() > 10 and graph_module.cli_problems(ops) == []
    store = (ROOT / "palace" / "store" / "upkeep.py").read_text()
    assert len(graph_module.sql_calls(store)) >= 10
    assert graph_module.sql_problems({"palace.store.upkeep": store}, allowed={}) == []
    assert graph_module.sql_problems({name: (ROOT / "palace" / "ops" / f"{name.rsplit('.', 1)[1]}.py").read_text()
                                      for name in ("palace.ops.doctor", "palace.ops.forgetting",
                                                   "palace.ops.status", "palace.ops.daemon")},
                                     allowed={}) == []


@pytest.mark.unit
def test_the_checker_reports_a_cli_import_past_the_handle():
    graph_module = _graph_module()
    graph = nx.DiGraph([("palace.cli.forget", "palace.ops.forgetting"), ("palace.cli.forget", "palace.core"),
                        ("palace.cli.forget", "palace.cli.app"), ("palace.cli.app", "palace.results"),
                        ("palace.cli.client", "palace")])
    assert graph_module.cli_problems(graph) == [
        "cli sees past the handle: palace.cli.client → palace",
        "cli sees past the handle: palace.cli.forget → palace.ops.forgetting",
    ]


@pytest.mark.unit
def test_the_checker_reports_sql_outside_the_store():
    graph_module = _graph_module()
    planted = {
        "palace.graph.cards": "def card(conn):\n    # conn.execute( in a comment is no call\n"
                              "    return conn.execute('SELECT 1').fetchone()\n",
        "palace.ops.doctor": "def fix(conn, rows):\n    conn.executemany('DELETE FROM x WHERE id = ?', rows)\n",
        "palace.store.drawers": "def read(conn):\n    return conn.execute('SELECT 1')\n",
        "palace.ask.retrievers": "def bm25(conn):\n    return conn.execute('SELECT 1')\n",
        "palace.mine.reading": "text = 'conn.execute(SELECT)'\n",
    }
    found = graph_module.sql_problems(planted, allowed={"palace.ask.retrievers": "the ranking is SQL"})
    assert found == ["sql outside the store: palace.graph.cards (lines 3)",
                     "sql outside the store: palace.ops.doctor (lines 2)"]
    assert len(graph_module.sql_problems(planted, allowed={})) == 3
    stale = graph_module.sql_problems(planted, allowed={"palace.ask.retrievers": "the ranking is SQL",
                                                        "palace.mine.reading": "it was, once",
                                                        "palace.ask.gone": "moved away"})
    assert stale == ["sql outside the store: palace.graph.cards (lines 3)",
                     "stale algorithm read: palace.mine.reading runs no SQL",
                     "sql outside the store: palace.ops.doctor (lines 2)",
                     "stale algorithm read: no module palace.ask.gone"]


def test_the_layout_rules_fail_the_check(monkeypatch):
    graph_module = _graph_module()
    monkeypatch.setattr(graph_module, "problems", lambda graph: [])
    assert graph_module.main(["--check"]) == 0
    monkeypatch.setattr(graph_module, "layout_problems", lambda graph: ["sql outside the store: palace.x (lines 1)"])
    assert graph_module.main(["--check"]) == 1


def test_the_house_keeps_its_layout():
    """The whole CLI reaches the core through the handle, results, errors and config, and
    no module outside the store runs SQL but the named algorithm reads."""
    graph_module = _graph_module()
    graph = graph_module.import_graph()
    assert graph_module.layout_problems(graph) == []
    assert sum(1 for a, _ in graph.edges if a.startswith("palace.cli")) > 40


def test_nlp_runs_without_loading_the_core():
    code = ("import sys, palace.nlp.extraction, palace.nlp.pipeline, palace.nlp.registry;"
            "print(sorted(m for m in sys.modules if m.startswith('palace') and not m.startswith('palace.nlp')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['palace']"  # the namespace package itself, nothing of the core


@pytest.mark.unit
def test_the_public_surface_is_what_all_says():
    import palace

    assert palace.__all__ == ["Palace"]
    from palace import Palace

    assert Palace.__module__ == "palace.core"
    for name in ("palace.errors", "palace.store.facts", "palace.store.entities", "palace.graph.temporal", "palace.cli.main",
                 "palace.results", "palace.store.vectors", "palace.ops.doctor", "palace.ops.daemon"):
        module = importlib.import_module(name)
        assert module.__all__, name
        for public in module.__all__:
            assert getattr(module, public) is not None, f"{name}.{public}"
    from palace.errors import ConfigError, ModelError, PalaceError, UsageError

    assert issubclass(ModelError, PalaceError) and issubclass(ConfigError, UsageError)


def test_python_dash_m_palace_cli_main_runs():
    for module in ("palace", "palace.cli.main"):
        done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert "mine" in done.stdout and "ask" in done.stdout
