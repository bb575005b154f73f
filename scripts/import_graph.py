"""Print palace's module dependency graph and check that its arrows point one way.

    python scripts/import_graph.py            # one line per module: what it imports
    python scripts/import_graph.py --check    # exit 1 on a cycle or an arrow the wrong way

Every ``import`` counts, including those inside functions (a lazy import is still a
dependency); those under ``if TYPE_CHECKING:`` do not. The layers are
``palace.cli → palace (core) → palace.store → palace.nlp``: nlp imports nothing
outside itself, the store layer nothing of the core but the errors, the core nothing of
the CLI (``palace.__main__``, the ``python -m palace`` entry point,
is the one exception), and no module reaches itself again through any chain of imports.
The graph and its cycles come from networkx.
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


def main(argv: list[str]) -> int:
    graph = import_graph()
    if "--check" not in argv:
        for name in sorted(graph):
            print(f"{name} → {', '.join(sorted(graph.successors(name))) or '-'}")
    found = problems(graph)
    for line in found:
        print(line, file=sys.stderr)
    print(f"{graph.number_of_nodes()} modules, {graph.number_of_edges()} imports, {len(found)} problems",
          file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
