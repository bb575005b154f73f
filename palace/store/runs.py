"""The record of mining runs: ``mine_runs`` (one row per finished run of a wing,
:func:`record_mine_run`), read so that "what changed" without a date can mean "since the
previous mining" (:func:`latest_runs`); and the wings whose resolution a run still owes
(:func:`mark_resolution_pending` before it stores anything, cleared by
:func:`clear_resolution_pending` once resolution commits). Writes run inside the
caller's transaction."""

from __future__ import annotations

import sqlite3

__all__ = ["clear_resolution_pending", "latest_runs", "mark_resolution_pending", "pending_resolutions",
           "record_mine_run", "resolution_pending"]

#: the ``meta`` key prefix of a wing whose resolution a run still owes (``resolution_pending:<wing>``)
RESOLUTION_PENDING = "resolution_pending:"


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


def record_mine_run(conn: sqlite3.Connection, *, wing: str, started_at: str, finished_at: str, indexed: int,
                    deleted: int) -> None:
    """Record a finished run over ``wing`` (ISO moments; ``indexed`` counts the notes
    stored or moved, ``deleted`` those that left)."""
    conn.execute("INSERT INTO mine_runs (wing, started_at, finished_at, indexed, deleted) VALUES (?, ?, ?, ?, ?)",
                 (wing, started_at, finished_at, indexed, deleted))


def mark_resolution_pending(conn: sqlite3.Connection, wing: str, at: str) -> None:
    """Record, before a run stores anything, that ``wing`` owes a resolution (since the
    ISO moment ``at``): a run killed before its resolution commits leaves the mark."""
    conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                 (RESOLUTION_PENDING + wing, at))


def resolution_pending(conn: sqlite3.Connection, wing: str) -> bool:
    """Whether ``wing`` owes a resolution (a run was cut short before it)."""
    return conn.execute("SELECT 1 FROM meta WHERE key = ? AND value != ''",
                        (RESOLUTION_PENDING + wing,)).fetchone() is not None


def clear_resolution_pending(conn: sqlite3.Connection, wing: str) -> None:
    """``wing``'s resolution committed: nothing is owed."""
    conn.execute("DELETE FROM meta WHERE key = ?", (RESOLUTION_PENDING + wing,))


def pending_resolutions(conn: sqlite3.Connection) -> list[str]:
    """The wings whose resolution an interrupted run left to do, by name."""
    return [key[len(RESOLUTION_PENDING):] for (key,) in conn.execute(
        "SELECT key FROM meta WHERE key LIKE 'resolution_pending:%' ORDER BY key")]
