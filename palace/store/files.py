"""The files table as a mining run reads it: the rows of its wing's files
(:func:`file_rows`), the wing's roots, the stamp of a note whose bytes did not change
(:func:`touch_file`), the row of a note that left (:func:`delete_file`, after its
drawers: :func:`palace.store.drawers.remove_drawer`). The row of a mined note is written
by :func:`palace.store.drawers.save_file`; what a run records of itself is in
:mod:`palace.store.runs`. Writes run inside the caller's transaction.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Collection

__all__ = ["delete_file", "file_rows", "front_matter_concepts", "has_file", "touch_file", "wing_roots"]


def file_rows(conn: sqlite3.Connection, wing: str, paths: Collection[str] | None = None) -> dict[str, sqlite3.Row]:
    """The ``files`` rows of ``wing`` by path (every column), or only those of ``paths``
    (relative, POSIX) when given: a watcher's step reads its notes' rows, not the wing's."""
    if paths is None:
        rows = conn.execute("SELECT * FROM files WHERE wing = ?", (wing,))
    else:
        rows = conn.execute("SELECT * FROM files WHERE wing = ? AND path IN (SELECT value FROM json_each(?))",
                            (wing, json.dumps(sorted(paths))))
    return {row["path"]: row for row in rows}


def front_matter_concepts(conn: sqlite3.Connection) -> dict[str, tuple[str, list[str], list[str]]]:
    """The concepts the notes' front matter makes (a note with ``aliases`` makes the
    concept of its title, those its aliases; :class:`palace.mine.write.NoteWriter`), by
    name key: ``{key: (title, aliases, the paths of the notes)}`` — what a note's front
    matter alone supports, which no mention or fact may stand on."""
    from palace.nlp.names import entity_key

    out: dict[str, tuple[str, list[str], list[str]]] = {}
    for title, aliases, path in conn.execute(
            "SELECT title, aliases, path FROM files WHERE status = 'indexed' AND aliases IS NOT NULL"
            " AND aliases NOT IN ('', '[]') AND coalesce(title, '') != '' ORDER BY path"):
        try:
            names = [a for a in json.loads(aliases) if isinstance(a, str)]
        except ValueError:
            continue
        if names:
            _, held, paths = out.setdefault(entity_key(title), (title, [], []))
            held += [a for a in names if a not in held]
            paths.append(path)
    return out


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
