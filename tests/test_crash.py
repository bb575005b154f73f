"""A kill in the middle of a mine never corrupts the palace or loses what was stored."""

from __future__ import annotations

import pytest

import os
import signal
import subprocess
import sys
import time

from palace.core import Palace

pytestmark = pytest.mark.slow  # processes, kills and watchers: the full suite, not the fast tier


def _kill_mid_mine(corpus, palace_dir, after_drawers: int) -> None:
    """Start ``palace mine`` in a child, wait until ``after_drawers`` drawers are
    committed, SIGKILL it, and check that it died mid-mine of the kill."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "palace", "mine", str(corpus), "--palace", str(palace_dir)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
        if (palace_dir / "palace.db").exists():
            try:
                with Palace.open(palace_dir, create=False) as palace:
                    if palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0] >= after_drawers:
                        break
            except Exception:  # the schema may not exist yet
                pass
    assert proc.poll() is None, "the mine ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL  # killed mid-mine, not finished


def test_a_mine_killed_anywhere_is_finished_by_the_next_run(tmp_path, sample_copy):
    import random

    with Palace.open(tmp_path / "clean") as clean:
        clean.mine(sample_copy)
        expected = _graph(clean)
        total = clean.conn.execute("SELECT count(*) FROM drawers").fetchone()[0]
    points = random.Random(11).sample(range(1, total * 3 // 4), 5)  # five kills, spread over the run
    for n, after in enumerate(points):
        palace_dir = tmp_path / f"palace-{n}"
        _kill_mid_mine(sample_copy, palace_dir, after)
        with Palace.open(palace_dir) as palace:
            conn = palace.conn
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            stored = {r[0] for r in conn.execute("SELECT id FROM drawers")}
            report = palace.mine(sample_copy)
            assert report.failed == 0
            drawers = {r[0] for r in conn.execute("SELECT id FROM drawers")}
            assert stored <= drawers  # nothing stored was lost
            assert len(drawers) == total == conn.execute("SELECT count(*) FROM drawers_fts").fetchone()[0]
            assert conn.execute("SELECT count(*) FROM drawers WHERE embedded = 0").fetchone()[0] == 0
            assert palace.vectors.count() == total  # SQLite = FTS = vectors, no duplicates
            assert conn.execute("SELECT count(*) FROM files WHERE status = 'indexed'").fetchone()[0] == 50
            assert _graph(palace) == expected, f"kill after {after} drawers"
            assert palace.ask("Harbor budget").results


def _graph(palace) -> tuple:
    """The resolved graph, independent of row ids: each mention's entity name, the
    entities' names and aliases, the live facts by names."""
    conn = palace.conn
    def rows(sql: str) -> list[tuple]:
        return sorted(tuple("" if v is None else v for v in r) for r in conn.execute(sql))

    return (
        rows("SELECT d.text_hash, m.char_start, e.name FROM mentions m JOIN entities e ON e.id = m.entity_id"
             " JOIN drawers d ON d.id = m.drawer_id"),
        rows("SELECT e.name, a.alias FROM aliases a JOIN entities e ON e.id = a.entity_id"),
        rows("SELECT s.name, f.predicate, coalesce(o.name, f.object_value), f.valid_from, f.valid_to FROM facts f"
             " JOIN entities s ON s.id = f.subject_id LEFT JOIN entities o ON o.id = f.object_id"
             " WHERE f.invalidated_at IS NULL"),
    )


def test_a_kill_before_resolution_is_resolved_by_the_next_run(tmp_path):
    import pytest

    from palace.graph.lowercase import link_lowercase_mentions
    from palace.mine.run import MineRun
    from palace.store.sqlite import transaction

    notes = tmp_path / "notes"  # no skipped file: a re-run finds every note unchanged
    notes.mkdir()
    (notes / "2024-01-01.md").write_text("# Team\n\nAlice Chen joined Acme Robotics in Berlin.\n")
    (notes / "2024-02-01.md").write_text("# Lunch\n\nAlice met Bob Okafor in Lisbon. Alice said Berlin is cold.\n")
    (notes / "2024-03-01.md").write_text("# Org\n\nBob Okafor reports to Alice Chen.\n")
    with Palace.open(tmp_path / "clean") as clean:
        clean.mine(notes)
        expected = _graph(clean)

    class KilledInResolution(MineRun):  # every note is stored; the process dies before resolution commits
        def resolve(self) -> None:
            with transaction(self.conn):  # the lower-case names are linked (resolution's first transaction)...
                link_lowercase_mentions(self.conn, self.wing)
            raise KeyboardInterrupt  # ... and the wing's entities never are

    with Palace.open(tmp_path / "palace") as palace, pytest.raises(KeyboardInterrupt):
        KilledInResolution(palace.store, palace.config, palace.registry).mine(notes)
    with Palace.open(tmp_path / "palace") as palace:
        assert _graph(palace) != expected  # "Alice" is not yet Alice Chen
        assert palace.conn.execute("SELECT value FROM meta WHERE key LIKE 'resolution_pending:%'").fetchone()
        report = palace.mine(notes)
        assert {o.status for o in report.outcomes} == {"unchanged"}  # and still the wing is resolved
        assert palace.conn.execute("SELECT 1 FROM meta WHERE key LIKE 'resolution_pending:%'").fetchone() is None
        assert _graph(palace) == expected
