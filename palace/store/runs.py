"""Reading the record of mining runs (``mine_runs``: one row per finished run of a wing),
so that "what changed" without a date can mean "since the previous mining"."""

from __future__ import annotations

import sqlite3

__all__ = ["latest_runs"]


def latest_runs(conn: sqlite3.Connection, wing: str | None = None) -> tuple[sqlite3.Row | None, sqlite3.Row | None]:
    """``(latest, previous)``: the latest run (of ``wing``, when given) that changed
    anything (a note indexed or deleted), and the run before it — the latest other one
    that finished before it started; either None when there is none. Rows of every
    column (``started_at``, ``finished_at``: ISO moments)."""
    sql, params = "SELECT * FROM mine_runs WHERE indexed + deleted > 0", []
    if wing:
        sql, params = sql + " AND wing = ?", [wing]
    latest = conn.execute(sql + " ORDER BY finished_at DESC, id DESC LIMIT 1", params).fetchone()
    if latest is None:
        return None, None
    prev_sql, prev_params = "SELECT * FROM mine_runs WHERE id != ? AND finished_at <= ?", [latest["id"], latest["started_at"]]
    if wing:
        prev_sql, prev_params = prev_sql + " AND wing = ?", prev_params + [wing]
    return latest, conn.execute(prev_sql + " ORDER BY finished_at DESC, id DESC LIMIT 1", prev_params).fetchone()
