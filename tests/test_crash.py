"""A kill in the middle of a mine never corrupts the palace or loses what was stored."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from palace.core import Palace


def test_killed_mine_is_finished_by_the_next_run(tmp_path, sample_copy):
    palace_dir = tmp_path / "palace"
    proc = subprocess.Popen(
        [sys.executable, "-m", "palace.cli.main", "mine", str(sample_copy), "--palace", str(palace_dir)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    # wait until some files are committed, then kill without warning
    deadline = time.time() + 120
    while time.time() < deadline:
        time.sleep(0.2)
        db = palace_dir / "palace.db"
        if db.exists():
            with Palace.open(palace_dir, create=False) as palace:
                try:
                    if palace.conn.execute("SELECT count(*) FROM drawers").fetchone()[0] > 20:
                        break
                except Exception:
                    pass
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    with Palace.open(palace_dir) as palace:
        assert palace.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = palace.conn.execute("SELECT id FROM drawers").fetchall()
        report = palace.mine(sample_copy)
        assert report.failed == 0
        drawers = {r[0] for r in palace.conn.execute("SELECT id FROM drawers")}
        assert {r[0] for r in stored} <= drawers  # nothing stored was lost
        assert palace.conn.execute("SELECT count(*) FROM drawers WHERE embedded = 0").fetchone()[0] == 0
        assert palace.vectors.count() == len(drawers)
        assert palace.conn.execute("SELECT count(*) FROM files WHERE status = 'indexed'").fetchone()[0] == 50
        assert palace.ask("Harbor budget").results
