"""A wing limit is a wall: a server limited to one wing answers every tool exactly as a
palace that never held the other wings would — same errors, same counts, no names, types
or dates of the other wings; a write about a name only another wing holds is a write
about a new name in this wing.

The oracle is a second palace mined from this wing's notes alone. ``VIEWS`` is a table of
(view, how to call it): the MCP tools today; the map's HTTP view joins it with one row.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil

import pytest

from palace.core import Palace

WORK = {
    "2025-01-10-sync.md": "# Sync\n\nDana Lee works at Initech. Dana Lee met Sam Park in Oslo on Friday.\n",
    "2025-01-20-plan.md": "# Plan\n\nSam Park joined Initech in January 2025. Dana Lee leads the Atlas project.\n",
}
HOME = {
    "2025-01-12-dinner.md": "# Dinner\n\nMarta Ruiz lives in Lisbon. Marta Ruiz works at Globex.\n"
                            "Sam Park moved to Kyoto in 2019.\n",
    "2025-02-02-trip.md": "# Trip\n\nMarta Ruiz visited Globex with Sam Park.\n",
}
#: Names to probe: only the other wing holds it, both wings hold it, no wing holds it.
HIDDEN, SHARED, NOWHERE, ORG_HIDDEN = "Marta Ruiz", "Sam Park", "Zora Quill", "Globex"


def _tool_calls(name: str) -> list[tuple[str, dict]]:
    """Every MCP tool, called about ``name``: the reads, then the writes."""
    return [
        ("search_nodes", {"query": name}),
        ("search_nodes", {"query": name.split()[0]}),
        ("open_nodes", {"names": [name]}),
        ("facts", {"about": name}),
        ("facts", {"about": name, "as_of": "2024-06-01"}),
        ("history", {"name": name}),
        ("changes", {"about": name}),
        ("changes", {"since": "2019-01-01", "until": "2025-12-31"}),
        ("profile_card", {"names": [name]}),
        ("ask", {"question": f"where does {name} work?", "now": "2025-03-01"}),
        ("remember", {"entity": name, "text": "prefers tea"}),
        ("relate", {"subject": name, "predicate": "works_at", "object": "Initech", "since": "2025-02-01"}),
        ("open_nodes", {"names": [name]}),
        ("facts", {"about": name}),
    ]


def _mcp(palace_dir, wing: str, calls) -> list[str]:
    """The text each call answers (``error: …`` for a tool error), from a server limited to ``wing``."""
    from mcp.server.mcpserver.exceptions import ToolError

    from palace.cli.mcp_server import build_server

    async def run(server):
        out = []
        for tool, arguments in calls:
            try:
                result = await server.call_tool(tool, arguments)
            except ToolError as exc:  # what the agent reads: is_error and this text
                out.append(f"error: {exc}")
                continue
            content = getattr(result, "content", result)
            text = "\n".join(getattr(c, "text", str(c)) for c in (content if isinstance(content, list) else [content]))
            out.append(("error: " if getattr(result, "is_error", False) else "") + text)
        return out

    with Palace.open(palace_dir, create=False) as palace:
        return asyncio.run(run(build_server(palace, wing=wing)))


#: (view, how to call it with a list of (tool, arguments)). The map's HTTP view joins here.
VIEWS = {"mcp": _mcp}

_MOMENT = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?")
#: What differs between two palaces by their size alone: timings, the palace's folder,
#: the ids of rows (a new fact's id counts every fact of the palace, of every wing), and
#: BM25's score — SQLite's FTS5 weighs a term by the whole index, so its score (never its
#: rank, nor the drawers found) still moves with the other wings' text.
_VOLATILE = re.compile(r'"(elapsed_ms|took_ms|timings?|fact_id|palace)": [^,}\]]+'
                       r'|(?<="retriever": "bm25",\n {12}"rank": \d,\n {12}"score": )[^,]+'
                       r'|"entity_ids": \[[^\]]*\]')


def _plain(text: str, name: str) -> str:
    """``text`` with the probed name written as NAME, and moments and timings blanked."""
    text = text.replace(name, "NAME").replace(name.split()[0], "FIRST")
    text = _MOMENT.sub("MOMENT", text)
    return _VOLATILE.sub("X", text)


def _mine(root, palace_dir, wings: dict[str, dict[str, str]]) -> None:
    with Palace.open(palace_dir) as palace:
        for wing, notes in wings.items():
            folder = root / wing
            folder.mkdir()
            for name, text in notes.items():
                (folder / name).write_text(text)
            palace.mine(folder, wing=wing)


@pytest.fixture(scope="module")
def walled(tmp_path_factory):
    """(a palace of the work and home wings, a palace of the work wing alone)."""
    root = tmp_path_factory.mktemp("wall")
    (root / "both").mkdir()
    (root / "alone").mkdir()
    _mine(root / "both", root / "both" / "palace", {"work": WORK, "home": HOME})
    _mine(root / "alone", root / "alone" / "palace", {"work": WORK})
    return root / "both" / "palace", root / "alone" / "palace"


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("name", [HIDDEN, SHARED, NOWHERE, ORG_HIDDEN])
def test_a_wing_limit_answers_as_if_the_other_wings_did_not_exist(walled, tmp_path, view, name):
    both, alone = walled
    answers = {}
    for label, source in (("both", both), ("alone", alone)):
        copy = tmp_path / label
        shutil.copytree(source, copy)
        answers[label] = [_plain(t, name) for t in VIEWS[view](copy, "work", _tool_calls(name))]
    for (tool, arguments), seen, expected in zip(_tool_calls(name), answers["both"], answers["alone"]):
        assert seen == expected, (tool, arguments, seen, expected)
    if name in (HIDDEN, SHARED):  # the writes touched nothing of the home wing
        with Palace.open(tmp_path / "both", create=False) as palace:
            home = palace.facts(about=name, wing="home").facts
            assert home and all(f.wing == "home" and f.evidence == "stated" for f in home)
