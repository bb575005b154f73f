"""Print palace's module dependency graph and check that its arrows point one way.

    python scripts/import_graph.py                     # one line per module: what it imports
    python scripts/import_graph.py --check             # exit 1 on a cycle, an arrow the wrong way
                                                       # or a break of the layout's rules

Every ``import`` counts, including those inside functions (a lazy import is still a
dependency); those under ``if TYPE_CHECKING:`` do not. The layers are
``palace.cli → palace (core) → palace.store → palace.nlp``: nlp imports nothing
outside itself, the store layer nothing of the core but the errors, the core nothing of
the CLI (``palace.__main__``, the ``python -m palace`` entry point,
is the one exception), and no module reaches itself again through any chain of imports.
The graph and its cycles come from networkx.

The layout adds two rules (``--check`` fails on a break of either):

- **the CLI sees only the handle**: a ``palace.cli`` module imports only
  :data:`CLI_MAY_IMPORT` (``palace.core``, ``palace.results``, ``palace.errors``,
  ``palace.config``) and other ``palace.cli`` modules;
- **the store is the one door to SQL**: ``.execute(``, ``.executemany(`` and
  ``.executescript(`` are called only in ``palace.store`` and in the modules of
  :data:`ALGORITHM_READS`, each with the reason its SQL is the algorithm itself (found
  by a scan of each module's syntax tree, so a string or a comment never counts); an
  entry that names no module, or one that runs no SQL, is stale and a break too.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
#: import name prefix → source folder (the setuptools ``package-dir`` of pyproject.toml)
PACKAGES = {"palace": ROOT / "palace", "palace.cli": ROOT / "cli", "palace.nlp": ROOT / "nlp"}
#: modules allowed to point upwards, and why
ENTRY_POINTS = {"palace.__main__"}  # `python -m palace` runs the CLI


def modules() -> dict[str, Path]:
    """``{dotted module name: source file}`` of every module of the three packages."""
    found = {}
    for prefix, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = [p for p in path.relative_to(folder).with_suffix("").parts if p != "__init__"]
            found[".".join([prefix, *parts])] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(inner) for inner in ast.walk(node)}
    return skipped


def import_graph() -> nx.DiGraph:
    """A directed graph: an edge ``a → b`` when module ``a`` imports module ``b``."""
    found = modules()
    graph = nx.DiGraph()
    for name, path in found.items():
        graph.add_node(name)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                # `from palace.store import sqlite` depends on palace.store.sqlite, not on palace/store/__init__
                submodules = [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in found]
                targets = submodules if len(submodules) == len(node.names) else [node.module, *submodules]
            for target in targets:
                if target in found and target != name:
                    graph.add_edge(name, target)
    return graph


#: modules every layer above nlp may use: the errors, the settings and the packaged models
BASE = {"palace.errors", "palace.config", "palace.models"}


def layer(module: str) -> int:
    """0 for palace.nlp, 1 for the store layer (palace.store), the errors, the settings and
    the models, 2 for the
    core, 3 for palace.cli."""
    if module.startswith("palace.nlp"):
        return 0
    if module == "palace.store" or module.startswith("palace.store.") or module in BASE:
        return 1
    if module.startswith("palace.cli"):
        return 3
    return 2


def problems(graph: nx.DiGraph) -> list[str]:
    """Every cycle and every arrow from a lower layer to a higher one, in words."""
    found = [f"cycle: {' → '.join([*cycle, cycle[0]])}" for cycle in nx.simple_cycles(graph)]
    found += [f"upward: {a} → {b}" for a, b in graph.edges
              if layer(a) < layer(b) and a not in ENTRY_POINTS]
    return found


#: what a palace.cli module may import besides other palace.cli modules
CLI_MAY_IMPORT = {"palace.core", "palace.results", "palace.errors", "palace.config"}
#: modules outside palace.store that may call ``execute`` and the like, and why: SQL that
#: is the algorithm itself (a ranking, a graph walk), not a read or write the store could name
ALGORITHM_READS: dict[str, str] = {
    "palace.ask.retrievers": "BM25 ranking over drawers_fts (bm25() with its column weights and the "
                             "allowed-rowid cut), the weightless-term count and the date tiers of a "
                             "window are the retrieval algorithms themselves, tuned query by query",
}
#: the cursor methods that run SQL
SQL_METHODS = {"execute", "executemany", "executescript"}


def cli_problems(graph: nx.DiGraph) -> list[str]:
    """Every import of a ``palace.cli`` module outside the CLI and :data:`CLI_MAY_IMPORT`, in words."""
    return [f"cli sees past the handle: {a} → {b}" for a, b in sorted(graph.edges)
            if a.startswith("palace.cli") and not b.startswith("palace.cli") and b not in CLI_MAY_IMPORT]


def sql_calls(source: str) -> list[int]:
    """The line of every call of a :data:`SQL_METHODS` method (``conn.execute(…)``,
    ``db.executemany(…)``…) in the Python ``source``."""
    return sorted(node.lineno for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in SQL_METHODS)


def sql_problems(sources: dict[str, str], allowed: dict[str, str] | None = None) -> list[str]:
    """Every module of ``sources`` (``{dotted name: source}``) outside ``palace.store`` and
    ``allowed`` (default :data:`ALGORITHM_READS`) that runs SQL itself, with its lines;
    and every entry of ``allowed`` that is stale (no such module, or it runs no SQL)."""
    allowed = ALGORITHM_READS if allowed is None else allowed
    found = []
    for name, source in sorted(sources.items()):
        lines = sql_calls(source)
        if name in allowed:
            if not lines:
                found.append(f"stale algorithm read: {name} runs no SQL")
            continue
        if lines and not (name == "palace.store" or name.startswith("palace.store.")):
            found.append(f"sql outside the store: {name} (lines {', '.join(map(str, lines))})")
    found += [f"stale algorithm read: no module {name}" for name in sorted(set(allowed) - set(sources))]
    return found


def layout_problems(graph: nx.DiGraph) -> list[str]:
    """The breaks of the layout's two rules (:func:`cli_problems`, :func:`sql_problems`) in the source tree."""
    sources = {name: path.read_text(encoding="utf-8") for name, path in modules().items()}
    return cli_problems(graph) + sql_problems(sources)


def main(argv: list[str]) -> int:
    graph = import_graph()
    if "--check" not in argv:
        for name in sorted(graph):
            print(f"{name} → {', '.join(sorted(graph.successors(name))) or '-'}")
    found = problems(graph)
    layout = layout_problems(graph)
    for line in found:
        print(line, file=sys.stderr)
    for line in layout:
        print(line, file=sys.stderr)
    failing = len(found) + len(layout)
    print(f"{graph.number_of_nodes()} modules, {graph.number_of_edges()} imports, {len(found)} problems,"
          f" {len(layout)} layout problems", file=sys.stderr)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
