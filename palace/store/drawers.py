"""Writes of the file and drawer tables, with the full-text index kept beside them.

A drawer row and its FTS5 row (title, heading path, text, path; BM25 reads it) are
written and removed together; a removed drawer leaves a tombstone for its vector (the
vector store is cleaned after the run: :func:`palace.mine.indexing.flush_tombstones`). All
inside the caller's transaction. The reads and marks that keep the vector store in step
(``embedded``, tombstones: :mod:`palace.mine.indexing`) are here too.
"""

from __future__ import annotations

import json
import sqlite3

__all__ = ["insert_drawer", "remove_drawer", "renumber_drawer", "save_file", "set_file_state", "move_file",
           "move_wing_root", "drawers_of_file", "embed_hashes_of_file", "unembedded_drawers", "mark_embedded",
           "tombstoned_ids", "existing_ids", "clear_tombstones", "opening_of"]


def opening_of(conn: sqlite3.Connection, file_id: int) -> tuple[str, str]:
    """``(title, text of its first drawer)`` of a mined file (empty strings where it has
    none): what its topic was read from (:func:`palace.nlp.topic.note_topic`)."""
    row = conn.execute("SELECT f.title, (SELECT d.text FROM drawers d WHERE d.file_id = f.id ORDER BY d.ordinal"
                       " LIMIT 1) FROM files f WHERE f.id = ?", (file_id,)).fetchone()
    return (row[0] or "", row[1] or "") if row else ("", "")


def save_file(conn: sqlite3.Connection, values: dict, previous_id: int | None) -> int:
    """Write the row of a mined file (``values``: its columns by name) over
    ``previous_id``'s, or as a new row (or over the row of the same wing and path);
    return its id."""
    if previous_id is not None:
        assignments = ", ".join(f"{k} = :{k}" for k in values)
        conn.execute(f"UPDATE files SET {assignments} WHERE id = :id", {**values, "id": previous_id})
        return previous_id
    columns = ", ".join(values)
    placeholders = ", ".join(f":{k}" for k in values)
    updates = ", ".join(f"{k} = excluded.{k}" for k in values)
    return conn.execute(
        f"INSERT INTO files ({columns}) VALUES ({placeholders})"
        f" ON CONFLICT(wing, path) DO UPDATE SET {updates} RETURNING id",
        values,
    ).fetchone()[0]


def set_file_state(conn: sqlite3.Connection, *, wing: str, root: str, path: str, room: str, status: str,
                   reason: str, at: str, previous_id: int | None) -> None:
    """Record a file that was not mined (``skipped`` or ``failed``, with its reason): its
    row keeps its drawers, if it had any."""
    if previous_id is not None:
        conn.execute("UPDATE files SET status = ?, reason = ?, mined_at = ?, root = ? WHERE id = ?",
                     (status, reason, at, root, previous_id))
    else:
        conn.execute(
            "INSERT INTO files (wing, root, path, room, status, reason, mined_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(wing, path) DO UPDATE SET status = excluded.status, reason = excluded.reason,"
            " mined_at = excluded.mined_at",
            (wing, root, path, room, status, reason, at),
        )


def move_file(conn: sqlite3.Connection, file_id: int, *, wing: str, old_path: str, path: str, room: str, root: str,
              mtime: float, size: int, at: str) -> None:
    """A note moved from ``old_path`` to ``path``: its row, its facts' citations and its
    drawers' FTS paths follow; its drawers are marked to be re-embedded (their vectors'
    metadata name the room, which a move can change; the vectors themselves are reused by
    ``embed_hash``)."""
    conn.execute("UPDATE files SET path = ?, room = ?, root = ?, mtime = ?, size = ?, mined_at = ? WHERE id = ?",
                 (path, room, root, mtime, size, at, file_id))
    conn.execute("UPDATE facts SET path = ? WHERE wing = ? AND path = ?", (path, wing, old_path))
    conn.execute("UPDATE drawers SET embedded = 0 WHERE file_id = ?", (file_id,))
    conn.execute("UPDATE drawers_fts SET path = ? WHERE rowid IN (SELECT rowid FROM drawers WHERE file_id = ?)",
                 (path, file_id))


def move_wing_root(conn: sqlite3.Connection, wing: str, root: str) -> None:
    """The folder of ``wing`` moved to ``root``."""
    conn.execute("UPDATE files SET root = ? WHERE wing = ?", (root, wing))


def insert_drawer(conn: sqlite3.Connection, *, drawer_id: str, file_id: int, chunk, text_hash: str,
                  embed_hash: str, date_start: str, date_end: str, date_granularity: str, title: str,
                  path: str) -> None:
    """Store a drawer of ``chunk`` (a :class:`palace.nlp.chunking.Chunk`: ordinal, char
    and line spans, heading path, text) with its hashes and date bounds (ISO days), and
    its full-text row (``title``, heading path, text, ``path``)."""
    rowid = conn.execute(
        "INSERT INTO drawers (id, file_id, ordinal, char_start, char_end, line_start, line_end,"
        " heading_path, text, text_hash, embed_hash, date_start, date_end, date_granularity)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (drawer_id, file_id, chunk.ordinal, chunk.start, chunk.end, chunk.line_start, chunk.line_end,
         json.dumps(list(chunk.heading_path)), chunk.text, text_hash, embed_hash, date_start, date_end,
         date_granularity),
    ).lastrowid
    conn.execute("INSERT INTO drawers_fts (rowid, title, heading, text, path) VALUES (?, ?, ?, ?, ?)",
                 (rowid, title, " ".join(chunk.heading_path), chunk.text, path))


def renumber_drawer(conn: sqlite3.Connection, drawer_id: str, chunk) -> None:
    """A kept drawer (same text) at its new place in an edited note."""
    conn.execute("UPDATE drawers SET ordinal = ?, char_start = ?, char_end = ?, line_start = ?, line_end = ?"
                 " WHERE id = ?", (chunk.ordinal, chunk.start, chunk.end, chunk.line_start, chunk.line_end, drawer_id))


def remove_drawer(conn: sqlite3.Connection, rowid: int, drawer_id: str) -> None:
    """Delete a drawer and its full-text row (its mentions go with it), leaving a
    tombstone for its vector. Its facts stay: the caller invalidates them."""
    conn.execute("DELETE FROM drawers_fts WHERE rowid = ?", (rowid,))
    conn.execute("INSERT OR IGNORE INTO vector_tombstones VALUES (?)", (drawer_id,))
    conn.execute("DELETE FROM drawers WHERE rowid = ?", (rowid,))


def path_hash(wing: str, rel: str) -> str:
    """The SHA-256 by which a forgotten ``wing/rel`` is remembered (``forgotten_paths``)."""
    import hashlib

    return hashlib.sha256(f"{wing}\0{rel}".encode("utf-8", "surrogateescape")).hexdigest()


def forgotten_paths(conn: sqlite3.Connection) -> set[str]:
    """The :func:`path_hash` of every note ``palace forget`` removed: not to be mined again."""
    return {r[0] for r in conn.execute("SELECT hash FROM forgotten_paths")}


def wings(conn: sqlite3.Connection) -> list[str]:
    """The wings of the palace (those with a note on record), sorted."""
    return sorted(r[0] for r in conn.execute("SELECT DISTINCT wing FROM files"))


def drawers_of_file(conn: sqlite3.Connection, file_id: int) -> list[sqlite3.Row]:
    """The drawers of a file, as rows of ``rowid`` and ``id``."""
    return conn.execute("SELECT rowid, id FROM drawers WHERE file_id = ?", (file_id,)).fetchall()


def embed_hashes_of_file(conn: sqlite3.Connection, file_id: int) -> dict[str, str]:
    """``{drawer id: embed_hash}`` of a file's drawers: what each indexes (its text,
    title and heading path), to keep the drawers an edit left unchanged."""
    return dict(conn.execute("SELECT id, embed_hash FROM drawers WHERE file_id = ?", (file_id,)))


# -- the drawers' vectors: which are in the vector store, which left it -------------------

def unembedded_drawers(conn: sqlite3.Connection, file_id: int | None = None) -> list[sqlite3.Row]:
    """The drawers whose vectors are not yet in the vector store (``embedded = 0``), of
    one file or of all, in the order they were stored: rows of ``id``, ``text``,
    ``heading_path`` (JSON), ``embed_hash``, ``date_start``, ``date_end`` and their file's
    ``title``, ``wing``, ``room`` and ``path``."""
    sql = (
        "SELECT d.id, d.text, d.heading_path, d.embed_hash, d.date_start, d.date_end, f.title, f.wing,"
        " f.room, f.path FROM drawers d JOIN files f ON f.id = d.file_id WHERE d.embedded = 0"
    )
    params: tuple = ()
    if file_id is not None:
        sql += " AND d.file_id = ?"
        params = (file_id,)
    return conn.execute(sql + " ORDER BY d.rowid", params).fetchall()


def mark_embedded(conn: sqlite3.Connection, ids: list[str]) -> None:
    """The vector store now holds the vectors of the drawers ``ids``."""
    conn.executemany("UPDATE drawers SET embedded = 1 WHERE id = ?", [(i,) for i in ids])


def tombstoned_ids(conn: sqlite3.Connection) -> list[str]:
    """The drawer ids whose vectors wait to be deleted from the vector store (their
    drawers were removed: :func:`remove_drawer`)."""
    return [r[0] for r in conn.execute("SELECT drawer_id FROM vector_tombstones")]


def existing_ids(conn: sqlite3.Connection, ids: list[str]) -> set[str]:
    """Which of the drawer ``ids`` exist (a removed drawer that came back, same text)."""
    return {r[0] for r in conn.execute("SELECT id FROM drawers WHERE id IN (SELECT value FROM json_each(?))",
                                       (json.dumps(ids),))}


def clear_tombstones(conn: sqlite3.Connection, ids: list[str]) -> None:
    """Forget the tombstones of ``ids``: the vector store no longer holds them."""
    conn.executemany("DELETE FROM vector_tombstones WHERE drawer_id = ?", [(i,) for i in ids])
