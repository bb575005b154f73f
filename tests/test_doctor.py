"""palace doctor: each fault of the derived stores is found, named and repaired."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from typer.testing import CliRunner

from palace.cli.main import app
from palace.core import Palace

runner = CliRunner()


@pytest.fixture()
def mined(tmp_path):
    """A small palace of three notes: ``(notes folder, palace folder)``."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "2024-04-12.md").write_text("# Sync\n\nAlice Chen joined Acme Robotics in Berlin.\n")
    (notes / "2024-05-02.md").write_text("# Budget\n\nWe decided to cut the Harbor travel budget by 10%.\n")
    (notes / "2024-06-20.md").write_text("# Hiring\n\nBob Stone reports to Alice Chen since June.\n")
    with Palace.open(tmp_path / "palace") as palace:
        palace.mine(notes)
    return notes, tmp_path / "palace"


def _doctor(palace_dir, *options):
    out = runner.invoke(app, ["doctor", "--palace", str(palace_dir), "--json", *options])
    return out.exit_code, json.loads(out.stdout)


def _check(report, name):
    return next(c for c in report["checks"] if c["name"] == name)


def test_a_sound_palace_passes_every_check(mined):
    _, palace_dir = mined
    code, report = _doctor(palace_dir)
    assert code == 0 and report["ok"] is True
    assert [c["name"] for c in report["checks"]] == ["integrity", "schema", "fts", "resolution", "orphans", "front_matter", "vectors"]
    assert _check(report, "vectors")["detail"].startswith("3 vectors = 3 embedded drawers")


def test_each_derived_fault_is_found_then_repaired(mined):
    _, palace_dir = mined
    with Palace.open(palace_dir) as palace:
        conn = palace.conn
        conn.execute("PRAGMA foreign_keys = OFF")  # to plant an orphan, as a crash of old code could leave
        alice = palace.ask("where did Alice Chen go").results[0].drawer_id
        conn.execute("DELETE FROM drawers_fts WHERE rowid = (SELECT rowid FROM drawers WHERE id = ?)", (alice,))
        conn.execute("INSERT INTO meta VALUES ('resolution_pending:notes', '2024-01-01T00:00:00')")
        conn.execute("INSERT INTO aliases (entity_id, alias, key, source) VALUES (424242, 'Ghost', 'ghost', 'test')")
        conn.commit()
        ids = sorted(palace.vectors.ids())
        palace.vectors.delete([ids[0]])  # a lost vector
        palace.vectors.upsert([ids[1]], np.zeros((1, 384), dtype=np.float32), [{"wing": "notes"}])  # a zero one
        palace.vectors.upsert(["gone-drawer"], np.ones((1, 384), dtype=np.float32), [{"wing": "notes"}])
    code, report = _doctor(palace_dir)
    assert code == 1 and report["ok"] is False
    assert _check(report, "fts")["detail"] == "1 drawers missing from the full-text index"
    assert _check(report, "resolution")["detail"].startswith("entity resolution pending in notes")
    assert _check(report, "orphans")["detail"] == "rows whose parent is gone: 1 in aliases"
    assert _check(report, "vectors")["detail"] == ("1 drawers marked embedded have no vector; 1 vectors are zero or"
                                                   " not numbers; 1 vectors of drawers that are gone")
    code, repaired = _doctor(palace_dir, "--repair")
    assert code == 0 and repaired["ok"] is True, repaired
    assert {c["name"] for c in repaired["before"]} == {"fts", "resolution", "orphans", "vectors"}
    assert "embedded 2 drawers from their stored texts" in repaired["repaired"]
    with Palace.open(palace_dir) as palace:
        hit = palace.ask("where did Alice Chen go").results[0]
        assert hit.drawer_id == alice
        assert {c.retriever for c in hit.why.retrievers} >= {"bm25", "vector"}
        assert palace.conn.execute("SELECT count(*) FROM aliases WHERE entity_id = 424242").fetchone()[0] == 0


def test_a_lost_vector_store_is_rebuilt_by_doctor(mined):
    _, palace_dir = mined
    shutil.rmtree(palace_dir / "chroma")
    from chromadb.api.client import SharedSystemClient

    SharedSystemClient.clear_system_cache()  # as a new process would find it
    code, report = _doctor(palace_dir)
    assert code == 1
    assert _check(report, "vectors")["detail"] == "the vector store is missing: 3 drawers lost their vectors"
    code, report = _doctor(palace_dir, "--repair")
    assert code == 0 and "embedded 3 drawers from their stored texts" in report["repaired"]
    with Palace.open(palace_dir) as palace:
        assert palace.status().warnings == ()
        assert palace.vectors.count() == 3


def test_a_damaged_database_is_reported_with_its_way_out(mined):
    _, palace_dir = mined
    db = palace_dir / "palace.db"
    data = bytearray(db.read_bytes())
    page = 4096
    for offset in range(2 * page, min(len(data), 6 * page), 97):  # garble pages past the header
        data[offset] ^= 0xFF
    db.write_bytes(bytes(data))
    for name in ("palace.db-wal", "palace.db-shm"):
        (palace_dir / name).unlink(missing_ok=True)
    out = runner.invoke(app, ["doctor", "--palace", str(palace_dir), "--repair"])
    assert out.exit_code == 1
    assert "Traceback" not in out.output
    assert "damaged" in out.output or "malformed" in out.output
    assert "mine" in out.output  # the way out: move it aside and mine again


def test_repair_is_refused_beside_another_writer(mined):
    _, palace_dir = mined
    from palace.ops.locks import MineLock

    with MineLock(palace_dir):
        out = runner.invoke(app, ["doctor", "--palace", str(palace_dir), "--repair"])
    assert out.exit_code == 1 and "is busy" in out.output


def test_an_orphan_drawer_goes_with_its_search_row_and_vector(mined):
    _, palace_dir = mined
    with Palace.open(palace_dir) as palace:
        conn = palace.conn
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("INSERT INTO drawers (id, file_id, ordinal, char_start, char_end, line_start, line_end,"
                     " heading_path, text, text_hash, embed_hash, date_start, date_end, date_granularity)"
                     " VALUES ('orphan-drawer', 999, 0, 0, 5, 1, 1, '[]', 'ghost', 'h', 'e',"
                     " '2024-01-01', '2024-01-02', 'day')")
        rowid = conn.execute("SELECT rowid FROM drawers WHERE id = 'orphan-drawer'").fetchone()[0]
        conn.execute("INSERT INTO drawers_fts (rowid, title, heading, text, path) VALUES (?, 'x', '', 'ghost', 'x')",
                     (rowid,))
        conn.execute("PRAGMA foreign_keys = ON")
    code, report = _doctor(palace_dir)
    assert code == 1 and _check(report, "orphans")["detail"] == "rows whose parent is gone: 1 in drawers"
    code, report = _doctor(palace_dir, "--repair")
    assert code == 0 and report["ok"], report
    assert _check(report, "fts")["detail"] == "3 full-text rows = 3 drawers"


@pytest.mark.unit
def test_repair_of_a_mistyped_palace_creates_nothing(tmp_path):
    out = runner.invoke(app, ["doctor", "--palace", str(tmp_path / "no-such-palace"), "--repair"])
    assert out.exit_code == 1 and "no palace at" in out.output
    assert not (tmp_path / "no-such-palace").exists()
