"""Reads and repairs behind ``palace doctor`` and ``palace status``: the store's health
(SQLite's own checks, the full-text index against the drawers, which drawers wait for
their vectors), its counts, the state of each file, and the repairs of what is derived.

Reads see one committed state; writes run inside the caller's transaction
(:class:`palace.store.sqlite.transaction`).
"""

from __future__ import annotations

import sqlite3
from typing import NamedTuple

from palace.store.sqlite import FTS_ROWS

__all__ = ["FtsCounts", "integrity_check", "fts_counts", "check_fts_index", "rebuild_fts", "orphan_rows",
           "delete_orphans", "drawer_ids", "count_drawers", "has_drawers", "mark_for_embedding", "file_counts",
           "file_states", "wings", "graph_counts", "predicates_with_facts"]


def integrity_check(conn: sqlite3.Connection) -> list[str]:
    """The lines of SQLite's ``PRAGMA integrity_check``: ``["ok"]`` for a sound file.
    Raises :class:`sqlite3.DatabaseError` when the file cannot even be read."""
    return [r[0] for r in conn.execute("PRAGMA integrity_check")]


class FtsCounts(NamedTuple):
    """The full-text index against the drawers: ``drawers`` and full-text rows
    (``indexed``), drawers with no full-text row (``unindexed``) and full-text rows of no
    drawer (``stray``)."""

    drawers: int
    indexed: int
    unindexed: int
    stray: int


def fts_counts(conn: sqlite3.Connection) -> FtsCounts:
    """How the full-text index matches the drawers, row by rowid (:class:`FtsCounts`)."""
    one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    return FtsCounts(
        drawers=one("SELECT count(*) FROM drawers"),
        indexed=one("SELECT count(*) FROM drawers_fts"),
        unindexed=one("SELECT count(*) FROM drawers d WHERE NOT EXISTS"
                      " (SELECT 1 FROM drawers_fts x WHERE x.rowid = d.rowid)"),
        stray=one("SELECT count(*) FROM drawers_fts x WHERE NOT EXISTS"
                  " (SELECT 1 FROM drawers d WHERE d.rowid = x.rowid)"),
    )


def check_fts_index(conn: sqlite3.Connection) -> None:
    """FTS5's own integrity check of the full-text index. It is written as an INSERT, so
    a read-only palace raises too: :class:`sqlite3.DatabaseError` (``readonly``, or what
    is damaged)."""
    conn.execute("INSERT INTO drawers_fts (drawers_fts) VALUES ('integrity-check')")


def rebuild_fts(conn: sqlite3.Connection) -> int:
    """Write the full-text index again from the drawers (:data:`palace.store.sqlite.FTS_ROWS`),
    inside the caller's transaction. Returns how many rows it holds."""
    conn.execute("DELETE FROM drawers_fts")
    conn.execute(f"INSERT INTO drawers_fts (rowid, title, heading, text, path) {FTS_ROWS}")
    return conn.execute("SELECT count(*) FROM drawers_fts").fetchone()[0]


def orphan_rows(conn: sqlite3.Connection) -> list[tuple[str, int, str, int]]:
    """Rows whose parent is gone (``PRAGMA foreign_key_check``): ``(table, rowid,
    parent table, foreign key index)`` each."""
    return [tuple(r) for r in conn.execute("PRAGMA foreign_key_check")]


def delete_orphans(conn: sqlite3.Connection, rows: list[tuple[str, int, str, int]]) -> None:
    """Delete ``rows`` (from :func:`orphan_rows`), inside the caller's transaction. A
    drawer goes with its full-text row and leaves a vector tombstone
    (:func:`palace.store.drawers.remove_drawer`); a fact is first unhooked from the facts it
    superseded (``superseded_by`` cleared)."""
    from palace.store.drawers import remove_drawer

    for table, rowid, _parent, _fk in rows:
        if table == "drawers":
            found = conn.execute("SELECT id FROM drawers WHERE rowid = ?", (rowid,)).fetchone()
            if found is not None:
                remove_drawer(conn, rowid, found[0])
            continue
        if table == "facts":
            conn.execute("UPDATE facts SET superseded_by = NULL WHERE superseded_by = (SELECT id FROM facts"
                         " WHERE rowid = ?)", (rowid,))
        conn.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rowid,))


def _embedded(embedded: bool | None) -> str:
    return "" if embedded is None else f" WHERE embedded = {int(embedded)}"


def drawer_ids(conn: sqlite3.Connection, *, embedded: bool | None = None) -> set[str]:
    """The ids of every drawer, or of those whose vector is stored (``embedded=True``)
    or still to compute (``embedded=False``)."""
    return {r[0] for r in conn.execute("SELECT id FROM drawers" + _embedded(embedded))}


def count_drawers(conn: sqlite3.Connection, *, embedded: bool | None = None) -> int:
    """How many drawers the palace holds (of them, with ``embedded``, those whose vector is
    stored or still to compute)."""
    return conn.execute("SELECT count(*) FROM drawers" + _embedded(embedded)).fetchone()[0]


def has_drawers(conn: sqlite3.Connection, *, embedded: bool | None = None) -> bool:
    """Whether the palace holds a drawer (with ``embedded``: one whose vector is stored,
    or one still to compute)."""
    return conn.execute("SELECT 1 FROM drawers" + _embedded(embedded) + " LIMIT 1").fetchone() is not None


def mark_for_embedding(conn: sqlite3.Connection, ids: list[str]) -> None:
    """Mark the drawers ``ids`` as waiting for their vectors, inside the caller's transaction."""
    conn.executemany("UPDATE drawers SET embedded = 0 WHERE id = ?", [(d,) for d in ids])


def file_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """How many files have each status (``indexed``, ``skipped``, ``failed``; a status no
    file has is missing)."""
    return {r[0]: r[1] for r in conn.execute("SELECT status, count(*) FROM files GROUP BY status")}


def file_states(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """Every files row (all its columns) with ``n``, its number of drawers, by wing
    then path."""
    return conn.execute(
        "SELECT f.*, (SELECT count(*) FROM drawers d WHERE d.file_id = f.id) AS n FROM files f"
        " ORDER BY f.wing, f.path"
    ).fetchall()


def wings(conn: sqlite3.Connection) -> list[str]:
    """The wings of the palace, sorted."""
    return [r[0] for r in conn.execute("SELECT DISTINCT wing FROM files ORDER BY wing")]


def graph_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """``entities``, ``mentions``, ``date_mentions``, live ``facts`` and
    ``facts_invalidated``: how many rows of each."""
    one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    return {
        "entities": one("SELECT count(*) FROM entities"),
        "mentions": one("SELECT count(*) FROM mentions"),
        "date_mentions": one("SELECT count(*) FROM date_mentions"),
        "facts": one("SELECT count(*) FROM facts WHERE invalidated_at IS NULL"),
        "facts_invalidated": one("SELECT count(*) FROM facts WHERE invalidated_at IS NOT NULL"),
    }


def predicates_with_facts(conn: sqlite3.Connection, names: list[str]) -> set[str]:
    """Those of the predicates ``names`` of which the palace holds a fact, live or invalidated."""
    if not names:
        return set()
    return {r[0] for r in conn.execute(
        f"SELECT DISTINCT predicate FROM facts WHERE predicate IN ({','.join('?' * len(names))})", names)}
