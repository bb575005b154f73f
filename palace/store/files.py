"""The files table as a mining run reads it, and what a run records of itself.

A run reads the rows of its wing's files (:func:`file_rows`), refreshes the stamp of a
note whose bytes did not change (:func:`touch_file`), deletes the row of a note that
left (:func:`delete_file`, after its drawers: :func:`palace.store.drawers.remove_drawer`),
records itself in ``mine_runs`` (:func:`record_mine_run`: what ``palace changes`` reads
as "since the previous mining") and marks a wing whose resolution it still owes
(:func:`mark_resolution_pending`, cleared by :func:`clear_resolution_pending` once
resolution commits). The row of a mined note is written by
:func:`palace.store.drawers.save_file`. Writes run inside the caller's transaction.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Collection

__all__ = ["clear_resolution_pending", "delete_file", "file_rows", "has_file", "mark_resolution_pending",
           "pending_resolutions", "record_mine_run", "resolution_pending", "touch_file", "wing_roots"]

#: the ``meta`` key prefix of a wing whose resolution a run still owes (``resolution_pending:<wing>``)
RESOLUTION_PENDING = "resolution_pending:"


def file_rows(conn: sqlite3.Connection, wing: str, paths: Collection[str] | None = None) -> dict[str, sqlite3.Row]:
    """The ``files`` rows of ``wing`` by path (every column), or only those of ``paths``
    (relative, POSIX) when given: a watcher's step reads its notes' rows, not the wing's."""
    if paths is None:
        rows = conn.execute("SELECT * FROM files WHERE wing = ?", (wing,))
    else:
        rows = conn.execute("SELECT * FROM files WHERE wing = ? AND path IN (SELECT value FROM json_each(?))",
                            (wing, json.dumps(sorted(paths))))
    return {row["path"]: row for row in rows}


def wing_roots(conn: sqlite3.Connection, wing: str) -> list[str]:
    """The root folders the files of ``wing`` were mined from (one, unless a folder moved)."""
    return [r[0] for r in conn.execute("SELECT DISTINCT root FROM files WHERE wing = ?", (wing,))]


def has_file(conn: sqlite3.Connection, wing: str, path: str) -> bool:
    """Whether ``wing`` has a row for ``path`` (whatever its status)."""
    return conn.execute("SELECT 1 FROM files WHERE wing = ? AND path = ?", (wing, path)).fetchone() is not None


def touch_file(conn: sqlite3.Connection, file_id: int, *, mtime: float, size: int) -> None:
    """A note whose bytes are unchanged under a new stamp: keep its ``mtime`` (seconds)
    and ``size`` (bytes), so the next run finds it unchanged without reading it."""
    conn.execute("UPDATE files SET mtime = ?, size = ? WHERE id = ?", (mtime, size, file_id))


def delete_file(conn: sqlite3.Connection, file_id: int) -> None:
    """Delete the row of a note that left its root (its drawers removed first)."""
    conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


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
