"""The handle's fact writes hold the palace's write lock: beside a writer at hand
(:class:`palace.ops.locks.MineLock` held), a short write waits ``Palace.write_wait``
seconds, is refused with :class:`PalaceBusy` having written nothing, and succeeds once
the lock is released; an import, a whole run, is refused at once."""

from __future__ import annotations

import shutil
import time

import pytest
from typer.testing import CliRunner

from palace.cli.main import app
from palace.core import Palace
from palace.errors import PalaceBusy
from palace.ops.locks import MineLock

#: how long a short write waits in these tests, in seconds
WAIT = 0.3


@pytest.fixture(scope="module")
def mined(tmp_path_factory):
    """A palace of one note, mined once; each test writes to a copy of it."""
    notes = tmp_path_factory.mktemp("notes")
    (notes / "2024-03-01-sync.md").write_text(
        "# Sync\n\nDana Lee works at Initech. She reviewed the Q1 roadmap with us.\n\n"
        "## Hiring\n\nOmar Haddad joined Globex in January 2024.\n")
    palace_dir = tmp_path_factory.mktemp("mined") / "palace"
    with Palace.open(palace_dir) as palace:
        palace.mine(notes)
    return palace_dir


@pytest.fixture()
def palace(mined, tmp_path):
    copy = tmp_path / "palace"
    shutil.copytree(mined, copy)
    with Palace.open(copy, create=False) as opened:
        opened.write_wait = WAIT
        yield opened


def mined_fact(palace, name: str, predicate: str) -> int:
    (found,) = [f.id for f in palace.facts(about=name, predicate=predicate).facts]
    return found


def written(palace) -> tuple:
    """What a write changes: the decisions, and every fact's state and evidence."""
    conn = palace.conn
    return (tuple(tuple(r) for r in conn.execute("SELECT id, reverted_at, pending FROM fact_decisions")),
            tuple(tuple(r) for r in conn.execute("SELECT id, reverted_at FROM entity_decisions")),
            tuple(tuple(r) for r in conn.execute("SELECT id, status, evidence FROM facts ORDER BY id")))


def candidate(palace):
    return palace.add_fact("Dana Lee", "role", "staff engineer", by="agent", candidate=True).fact_id


#: each kind of fact write: (what it names in the refusal, what it needs first, the write)
WRITES = {
    "add": ("add a fact", None, lambda p, _: p.add_fact("Dana Lee", "role", "staff engineer")),
    "observe": ("add an observation", None, lambda p, _: p.observe("Dana Lee", "prefers email over phone")),
    "retract": ("retract a fact", None, lambda p, _: p.retract_fact(mined_fact(p, "Dana Lee", "works_at"))),
    "confirm": ("confirm a fact", None, lambda p, _: p.confirm_fact(mined_fact(p, "Dana Lee", "works_at"))),
    "undo": ("undo a fact decision", lambda p: p.add_fact("Dana Lee", "role", "lead").id,
             lambda p, decision: p.undo_fact_decision(decision)),
    "review accept": ("accept a candidate", candidate, lambda p, fact: p.review(True, fact_ids=(fact,))),
    "review reject": ("reject a candidate", candidate, lambda p, fact: p.review(False, fact_ids=(fact,))),
    "merge": ("merge names", None, lambda p, _: p.merge("Omar Haddad", "Dana Lee")),
    "split": ("split a name", lambda p: p.merge("Omar Haddad", "Dana Lee"), lambda p, _: p.split("Omar Haddad")),
}


@pytest.mark.parametrize("kind", list(WRITES))
def test_a_fact_write_waits_for_the_writer_at_hand_then_is_refused_and_succeeds_once_it_is_gone(palace, kind):
    doing, prepare, write = WRITES[kind]
    prepared = prepare(palace) if prepare else None
    before = written(palace)
    with MineLock(palace.path):  # another process is writing
        started = time.monotonic()
        with pytest.raises(PalaceBusy, match=f"it cannot {doing} now"):
            write(palace, prepared)
        assert time.monotonic() - started >= WAIT  # it waited for the write at hand
    assert written(palace) == before  # refused before anything was written
    write(palace, prepared)
    assert written(palace) != before


def test_an_import_is_refused_at_once_beside_a_writer_and_runs_once_it_is_gone(mined, palace, tmp_path):
    palace.add_fact("Dana Lee", "role", "staff engineer", note="she told me")
    export = tmp_path / "graph.json"
    export.write_text(palace.export()[0], encoding="utf-8")
    rebuilt = tmp_path / "rebuilt"
    shutil.copytree(mined, rebuilt)
    with Palace.open(rebuilt, create=False) as other:
        before = written(other)
        with MineLock(rebuilt):
            started = time.monotonic()
            with pytest.raises(PalaceBusy, match="it cannot import now"):
                other.import_decisions(export)
            assert time.monotonic() - started < 1.0  # a whole run does not wait
            out = CliRunner().invoke(app, ["import", str(export), "--palace", str(rebuilt)])
            assert out.exit_code == 1 and "is busy: another process is writing it" in out.output
        assert written(other) == before
        assert other.import_decisions(export).facts_added == 1
        assert [f.object for f in other.facts(about="Dana Lee", predicate="role").facts] == ["staff engineer"]
