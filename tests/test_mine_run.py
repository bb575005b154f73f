"""The pieces of a mining run that need no model: its budget and where its facts are
cited (the run itself is tested through real mining in test_mine.py and test_faults.py)."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest

from palace.errors import UsageError
from palace.mine.options import MineOptions
from palace.mine.write import FactSite
from palace.nlp.dates import DateInterval
from palace.nlp.extraction import ValidTime


def test_the_budget_defaults_to_what_palace_mine_spends_and_refuses_nonsense():
    options = MineOptions()
    assert (options.large_note_drawers, options.progress_every, options.parallel_min_drawers, options.worker_mb,
            options.cooccurrences_per_drawer, options.verify) == (200, 50, 2000, 400, 40, False)
    assert MineOptions(parallel_min_drawers=0).parallel_min_drawers == 0  # every run may use workers
    for wrong in ({"large_note_drawers": 0}, {"progress_every": 0}, {"worker_mb": 0},
                  {"cooccurrences_per_drawer": -1}, {"parallel_min_drawers": -5}):
        with pytest.raises(UsageError, match=next(iter(wrong))):
            MineOptions(**wrong)


def _relation(**fields):
    base = dict(predicate="works_at", value=None, start=6, end=30, quote=None, extractor="palace.rules.v1",
                confidence=0.9, evidence="stated")
    return SimpleNamespace(**{**base, **fields})


def test_a_drawers_fact_quotes_its_span_and_a_front_matter_fact_its_field():
    text = "Alice  Chen\njoined Acme   Robotics in March."
    drawer = FactSite("d1", "notes", "a.md", "2024-04-01T10:00:00", text)
    time = ValidTime(dt.date(2024, 3, 1), None, "month", "clause")
    fact = drawer.relation_fact(_relation(start=0, end=len(text)), 1, 2, time, state=True)
    assert (fact.char_start, fact.char_end) == (0, len(text))
    assert fact.sentence == "Alice Chen joined Acme Robotics in March."  # whitespace folded
    assert (fact.drawer_id, fact.wing, fact.path, fact.recorded_at) == ("d1", "notes", "a.md", "2024-04-01T10:00:00")
    assert fact.valid_from == dt.date(2024, 3, 1) and fact.stated_to is None  # an open state states no end
    ended = drawer.relation_fact(_relation(), 1, 2, ValidTime(None, dt.date(2024, 5, 1), "day", "clause"), state=True)
    assert ended.stated_to == dt.date(2024, 5, 1)
    event = drawer.relation_fact(_relation(), 1, 2, ValidTime(None, dt.date(2024, 5, 1), "day", "clause"), state=False)
    assert event.stated_to is None
    front = FactSite("d1", "notes", "a.md", "2024-04-01T10:00:00", None)
    field = front.relation_fact(_relation(quote="owner: Alice Chen"), 1, 2, time, state=True)
    assert (field.char_start, field.char_end, field.sentence) == (0, 0, "owner: Alice Chen")
    assert front.relation_fact(_relation(), 1, 2, time, state=True).sentence == ""


def test_a_cooccurrence_is_stated_on_its_sentences_date_or_on_none():
    site = FactSite("d1", "notes", "a.md", "2024-04-01T10:00:00", "Alice met Bob in Lisbon.")
    pair = SimpleNamespace(start=0, end=13)
    day = DateInterval(dt.date(2024, 3, 4), dt.date(2024, 3, 5), "day")
    fact = site.cooccurrence_fact(1, 2, pair, day)
    assert (fact.predicate, fact.sentence, fact.evidence) == ("mentioned_with", "Alice met Bob", "stated")
    assert (fact.valid_from, fact.valid_to, fact.valid_granularity) == (day.start, day.end, "day")
    undated = site.cooccurrence_fact(1, 2, pair, None)
    assert (undated.valid_from, undated.valid_to, undated.valid_granularity) == (None, None, None)


def test_the_mine_flow_never_imports_the_handle():
    import ast
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "palace" / "mine"
    found = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):  # TYPE_CHECKING blocks included
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{path.name}: {name}" for name in names if name.startswith(("palace.core", "palace.Palace"))]
    assert len(list(folder.glob("*.py"))) >= 9 and found == []
