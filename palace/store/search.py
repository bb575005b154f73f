"""The reads of the ask flow: drawers, files, rooms and names, by what a question needs.

Every function takes the connection and returns plain values or ``sqlite3.Row``s; none
writes. Drawers are named by their id (``drawers.id``, a string) or their rowid (the
FTS5 and scope sets use rowids); lists of ids travel as one JSON array (no variable
limit). A scope's condition is SQL over ``files f`` with its parameters, as built by
:meth:`palace.ask.scope.Scope.condition`. The retrievers' own ranking reads (BM25 over
FTS5, the terms that weigh nothing, a window's date tiers) live with them in
:mod:`palace.ask.retrievers`.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Iterable

__all__ = [
    "UNDATED", "database_file", "has_drawers", "scoped_rowids", "wing_names", "room_names", "place_names", "rowids_of",
    "ids_of_rowids", "dates_of_rowids", "live_ids", "indexed_file_count", "files_titled", "drawer_titles",
    "drawer_texts", "hit_rows", "fact_ends", "names_matching", "has_lowercase_alias", "drawers_with_phrase",
    "lowercase_count", "oldest_dated_day", "latest_dated_day", "any_dated_between", "id_by_rowid", "mention_counts", "aliases_of",
    "drawers_naming", "own_dated", "dated_after", "own_dates", "in_places", "name_marks", "date_marks",
    "files_numbered",
]

#: SQL condition (over ``drawers d`` joined to ``files f``) of a drawer with no date of
#: its own: its note is dated only by the file's mtime and no dated heading dates it.
UNDATED = "f.doc_date_source = 'mtime' AND d.date_start = f.doc_date"

_SCOPED = "SELECT d.rowid FROM drawers d JOIN files f ON f.id = d.file_id"


def database_file(conn: sqlite3.Connection) -> str:
    """The file of the connection's main database ("" for one in memory)."""
    return conn.execute("PRAGMA database_list").fetchone()[2]


def has_drawers(conn: sqlite3.Connection) -> bool:
    """Whether the palace holds any drawer."""
    return conn.execute("SELECT 1 FROM drawers LIMIT 1").fetchone() is not None


def scoped_rowids(conn: sqlite3.Connection, condition: tuple[str, list],
                  drawer_ids: list[str] | None = None) -> set[int]:
    """The rowids of the drawers whose file meets ``condition`` (``(sql over files f,
    params)``; ``""`` for every file), of ``drawer_ids`` only when given."""
    sql, params = condition
    if drawer_ids is None:
        return {r[0] for r in conn.execute(f"{_SCOPED} WHERE {sql or '1'}", params)}
    return {r[0] for r in conn.execute(
        f"{_SCOPED} WHERE d.id IN (SELECT value FROM json_each(?))" + (f" AND {sql}" if sql else ""),
        [json.dumps(drawer_ids), *params])}


def wing_names(conn: sqlite3.Connection) -> list[str]:
    """Every wing with a file row (any status), sorted."""
    return [r[0] for r in conn.execute("SELECT DISTINCT wing FROM files ORDER BY wing")]


def room_names(conn: sqlite3.Connection, wing: str | None = None) -> list[str]:
    """The rooms of the indexed files (of ``wing`` when given), sorted; ``.`` is a wing's root."""
    sql, params = "SELECT DISTINCT room FROM files WHERE status = 'indexed'", []
    if wing:
        sql, params = sql + " AND wing = ?", [wing]
    return [r[0] for r in conn.execute(sql + " ORDER BY room", params)]


def place_names(conn: sqlite3.Connection, wing: str | None = None) -> list[tuple[str, str]]:
    """``[("room" | "wing", name)]`` of the indexed files: the rooms (not a wing's root)
    of ``wing``, or with no wing every room and every wing."""
    sql = "SELECT DISTINCT 'room', room FROM files WHERE status = 'indexed' AND room != '.'"
    params: list = []
    if wing:
        sql += " AND wing = ?"
        params.append(wing)
    else:
        sql += " UNION SELECT DISTINCT 'wing', wing FROM files WHERE status = 'indexed'"
    return [(kind, name) for kind, name in conn.execute(sql, params)]


def rowids_of(conn: sqlite3.Connection, drawer_ids: Iterable[str]) -> dict[str, int]:
    """``{drawer id: rowid}`` of the ``drawer_ids`` still in the palace."""
    return dict(conn.execute(
        "SELECT id, rowid FROM drawers WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(list(drawer_ids)),)
    ).fetchall())


def ids_of_rowids(conn: sqlite3.Connection, rowids: Iterable[int]) -> list[str]:
    """The drawer ids of ``rowids``, in rowid order."""
    return [r[0] for r in conn.execute(
        "SELECT id FROM drawers WHERE rowid IN (SELECT value FROM json_each(?))", (json.dumps(sorted(rowids)),))]


def dates_of_rowids(conn: sqlite3.Connection, rowids: Iterable[int]) -> list[sqlite3.Row]:
    """Rows ``(rowid, id, date_start)`` of the drawers of ``rowids``, in rowid order."""
    return conn.execute(
        "SELECT rowid, id, date_start FROM drawers WHERE rowid IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(rowids)),),
    ).fetchall()


def live_ids(conn: sqlite3.Connection, drawer_ids: list[str]) -> set[str]:
    """Of ``drawer_ids`` (a few hundred at most), those still in the palace."""
    if not drawer_ids:
        return set()
    return {r[0] for r in conn.execute(
        f"SELECT id FROM drawers WHERE id IN ({','.join('?' * len(drawer_ids))})", drawer_ids)}


def indexed_file_count(conn: sqlite3.Connection) -> int:
    """How many files are indexed."""
    return conn.execute("SELECT count(*) FROM files WHERE status = 'indexed'").fetchone()[0]


def files_titled(conn: sqlite3.Connection, stem: str) -> int:
    """How many indexed files hold ``stem`` (lower case) in their title or path."""
    return conn.execute(
        "SELECT count(*) FROM files WHERE status = 'indexed' AND (lower(title) LIKE ? OR lower(path) LIKE ?)",
        (f"%{stem}%", f"%{stem}%"),
    ).fetchone()[0]


def drawer_titles(conn: sqlite3.Connection, drawer_ids: list[str]) -> list[sqlite3.Row]:
    """Rows ``(id, title, path)``: each drawer's note title and path."""
    return conn.execute(
        "SELECT d.id, f.title, f.path FROM drawers d JOIN files f ON f.id = d.file_id"
        " WHERE d.id IN (SELECT value FROM json_each(?))", (json.dumps(drawer_ids),)
    ).fetchall()


def drawer_texts(conn: sqlite3.Connection, drawer_ids: list[str]) -> dict[str, sqlite3.Row]:
    """``{id: (id, text, line_start, path)}`` of the drawers still in the palace."""
    return {r["id"]: r for r in conn.execute(
        "SELECT d.id, d.text, d.line_start, f.path FROM drawers d JOIN files f ON f.id = d.file_id"
        " WHERE d.id IN (SELECT value FROM json_each(?))", (json.dumps(drawer_ids),))}


def hit_rows(conn: sqlite3.Connection, drawer_ids: list[str]) -> dict[str, sqlite3.Row]:
    """``{id: row}`` with what a hit shows of a drawer (a few dozen at most): ``text``,
    ``line_start``, ``line_end``, ``heading_path`` (JSON), ``date_start``, and of its
    note ``path``, ``wing``, ``room``, ``title``, ``doc_date_source``, ``doc_date``."""
    return {r["id"]: r for r in conn.execute(
        f"SELECT d.id, d.text, d.line_start, d.line_end, d.heading_path, d.date_start, f.path, f.wing,"
        f" f.room, f.title, f.doc_date_source, f.doc_date FROM drawers d JOIN files f ON f.id = d.file_id"
        f" WHERE d.id IN ({','.join('?' * len(drawer_ids))})",
        drawer_ids,
    )}


def fact_ends(conn: sqlite3.Connection, fact_ids: list[int]) -> dict[int, tuple[int, int | None]]:
    """``{fact id: (subject entity id, object entity id or None)}``."""
    return {r[0]: (r[1], r[2]) for r in conn.execute(
        "SELECT id, subject_id, object_id FROM facts WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(fact_ids),),
    )}


def names_matching(conn: sqlite3.Connection, keys: list[str], *, wing: str | None = None) -> list[sqlite3.Row]:
    """The entities with a name or alias whose key is in ``keys``, rows ``(key, source,
    id, name, type, n)`` (``source``: how the alias came; ``n``: the entity's mentions),
    most-mentioned first; an entity no drawer mentions counts only as a CONCEPT.
    ``wing``: only entities that wing holds, their mentions there
    (:func:`palace.store.entities.entities_with_name`)."""
    if wing is not None:
        from palace.store.entities import HELD

        in_wing = ("(SELECT count(*) FROM mentions m JOIN drawers d ON d.id = m.drawer_id JOIN files f"
                   " ON f.id = d.file_id WHERE m.entity_id = e.id AND f.wing = ?)")
        return conn.execute(
            f"SELECT a.key, a.source, e.id, e.name, e.type, {in_wing} AS n"
            f" FROM aliases a JOIN entities e ON e.id = a.entity_id WHERE a.key IN ({','.join('?' * len(keys))})"
            f" AND (e.type = 'CONCEPT' OR EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = e.id)) AND {HELD}"
            f" ORDER BY n DESC",
            [wing, *keys, wing, wing],
        ).fetchall()
    return conn.execute(
        f"SELECT a.key, a.source, e.id, e.name, e.type,"
        f" (SELECT count(*) FROM mentions m WHERE m.entity_id = e.id) AS n"
        f" FROM aliases a JOIN entities e ON e.id = a.entity_id WHERE a.key IN ({','.join('?' * len(keys))})"
        f" AND (e.type = 'CONCEPT' OR EXISTS (SELECT 1 FROM mentions m WHERE m.entity_id = e.id))"
        f" ORDER BY n DESC",
        keys,
    ).fetchall()


def has_lowercase_alias(conn: sqlite3.Connection, entity_ids: list[int], phrase: str) -> bool:
    """Whether one of the entities has ``phrase`` (lower case) as an alias stored in lower case."""
    marks = ",".join("?" * len(entity_ids))
    return conn.execute(
        f"SELECT 1 FROM aliases WHERE entity_id IN ({marks}) AND alias = lower(alias) AND lower(alias) = ? LIMIT 1",
        [*entity_ids, phrase],
    ).fetchone() is not None


def drawers_with_phrase(conn: sqlite3.Connection, words: list[str], limit: int) -> list[int]:
    """The rowids of up to ``limit`` drawers whose text holds the phrase ``words`` (FTS5:
    any case)."""
    return [r[0] for r in conn.execute(
        "SELECT rowid FROM drawers_fts WHERE drawers_fts MATCH ? LIMIT ?", (f'text : "{" ".join(words)}"', limit))]


def lowercase_count(conn: sqlite3.Connection, rowids: list[int], phrase: str) -> int:
    """How many of the drawers ``rowids`` hold ``phrase`` written in lower case, as a
    whole word (GLOB is case-sensitive; ``phrase`` holds no GLOB character)."""
    edge = "[^A-Za-z0-9_]"
    return conn.execute(
        "SELECT count(*) FROM drawers WHERE rowid IN (SELECT value FROM json_each(?)) AND"
        " (text GLOB ? OR text GLOB ? OR text GLOB ? OR text = ?)",
        (json.dumps(rowids), f"*{edge}{phrase}{edge}*", f"{phrase}{edge}*", f"*{edge}{phrase}", phrase),
    ).fetchone()[0]


def oldest_dated_day(conn: sqlite3.Connection) -> str | None:
    """The first day (ISO) of the oldest drawer with a date of its own (not :data:`UNDATED`)."""
    return conn.execute(
        f"SELECT min(d.date_start) FROM drawers d JOIN files f ON f.id = d.file_id WHERE NOT ({UNDATED})"
    ).fetchone()[0]


def latest_dated_day(conn: sqlite3.Connection) -> str | None:
    """The first day (ISO) of the newest drawer with a date of its own (not :data:`UNDATED`)."""
    return conn.execute(
        f"SELECT max(d.date_start) FROM drawers d JOIN files f ON f.id = d.file_id WHERE NOT ({UNDATED})"
    ).fetchone()[0]


def any_dated_between(conn: sqlite3.Connection, start: str, end: str) -> bool:
    """Whether a drawer with a date of its own overlaps ``[start, end)`` (ISO days)."""
    return conn.execute(
        "SELECT 1 FROM drawers d JOIN files f ON f.id = d.file_id"
        f" WHERE d.date_start < ? AND d.date_end > ? AND NOT ({UNDATED}) LIMIT 1",
        (end, start),
    ).fetchone() is not None


def id_by_rowid(conn: sqlite3.Connection, rowids: list[int]) -> dict[int, str]:
    """``{rowid: drawer id}`` of ``rowids`` still in the palace."""
    return dict(conn.execute(
        "SELECT rowid, id FROM drawers WHERE rowid IN (SELECT value FROM json_each(?))", (json.dumps(rowids),)
    ).fetchall())


def mention_counts(conn: sqlite3.Connection, entity_ids: list[int]) -> list[tuple[int, int]]:
    """``[(rowid, mentions)]``: the drawers that mention any of the entities (NER), and how often."""
    return conn.execute(
        f"SELECT d.rowid, count(*) FROM mentions m JOIN drawers d ON d.id = m.drawer_id"
        f" WHERE m.entity_id IN ({','.join('?' * len(entity_ids))}) GROUP BY d.rowid",
        entity_ids,
    ).fetchall()


def aliases_of(conn: sqlite3.Connection, entity_ids: list[int]) -> set[str]:
    """Every alias (names included) of the entities, as written."""
    return {a for (a,) in conn.execute(
        f"SELECT alias FROM aliases WHERE entity_id IN ({','.join('?' * len(entity_ids))})", entity_ids)}


def drawers_naming(conn: sqlite3.Connection, names: Iterable[str]) -> list[int]:
    """The rowids of the drawers whose text holds any of ``names`` as a phrase (FTS5:
    any case; names with no word character are left out)."""
    phrase = " OR ".join('"' + n.replace('"', '""') + '"' for n in sorted(names) if re.search(r"\w", n))
    return [r[0] for r in conn.execute(
        "SELECT rowid FROM drawers_fts WHERE drawers_fts MATCH ?", (f"text : ({phrase})",))]


def own_dated(conn: sqlite3.Connection, drawer_ids: Iterable[str]) -> list[tuple[str, int]]:
    """``[(id, rowid)]`` of the ``drawer_ids`` that have a date of their own (not :data:`UNDATED`)."""
    return conn.execute(
        "SELECT d.id, d.rowid FROM drawers d JOIN files f ON f.id = d.file_id"
        f" WHERE d.id IN (SELECT value FROM json_each(?)) AND NOT ({UNDATED})",
        (json.dumps(list(drawer_ids)),),
    ).fetchall()


def dated_after(conn: sqlite3.Connection, drawer_ids: Iterable[str], day: str) -> set[str]:
    """Of ``drawer_ids``, those whose own date (not :data:`UNDATED`) begins after ``day`` (ISO)."""
    return {r[0] for r in conn.execute(
        "SELECT d.id FROM drawers d JOIN files f ON f.id = d.file_id"
        f" WHERE d.id IN (SELECT value FROM json_each(?)) AND NOT ({UNDATED}) AND d.date_start > ?",
        (json.dumps(list(drawer_ids)), day),
    )}


def own_dates(conn: sqlite3.Connection, drawer_ids: Iterable[str]) -> list[sqlite3.Row]:
    """Rows ``(id, date_start)`` of the ``drawer_ids`` that have a date of their own."""
    return conn.execute(
        "SELECT d.id, d.date_start FROM drawers d JOIN files f ON f.id = d.file_id"
        f" WHERE d.id IN (SELECT value FROM json_each(?)) AND NOT ({UNDATED}) AND d.date_start IS NOT NULL",
        (json.dumps(list(drawer_ids)),),
    ).fetchall()


def in_places(conn: sqlite3.Connection, drawer_ids: Iterable[str], rooms: list[str], wings: list[str]) -> list[str]:
    """Of ``drawer_ids``, those whose note is in one of ``rooms`` or ``wings``."""
    return [r[0] for r in conn.execute(
        "SELECT d.id FROM drawers d JOIN files f ON f.id = d.file_id WHERE d.id IN (SELECT value FROM json_each(?))"
        " AND (f.room IN (SELECT value FROM json_each(?)) OR f.wing IN (SELECT value FROM json_each(?)))",
        (json.dumps(list(drawer_ids)), json.dumps(rooms), json.dumps(wings)),
    )]


def name_marks(conn: sqlite3.Connection, drawer_ids: list[str]) -> list[sqlite3.Row]:
    """The names mining read in the drawers (a few at most): rows ``(drawer_id,
    char_start, char_end, surface, label, entity_id)``, offsets into the drawer's text,
    ``label`` the recogniser's (PERSON, ORG, GPE, LOC, FAC, NORP, EVENT…; '' when none)."""
    return conn.execute(
        "SELECT drawer_id, char_start, char_end, surface, coalesce(label, '') AS label, entity_id FROM mentions"
        " WHERE drawer_id IN (SELECT value FROM json_each(?)) ORDER BY drawer_id, char_start",
        (json.dumps(drawer_ids),)).fetchall()


def date_marks(conn: sqlite3.Connection, drawer_ids: list[str]) -> list[sqlite3.Row]:
    """The dates mining read in the drawers: rows ``(drawer_id, char_start, char_end,
    surface, start, end, granularity)``, offsets into the drawer's text, ``[start, end)``
    ISO days."""
    return conn.execute(
        "SELECT drawer_id, char_start, char_end, surface, start, end, granularity FROM date_mentions"
        " WHERE drawer_id IN (SELECT value FROM json_each(?)) ORDER BY drawer_id, char_start",
        (json.dumps(drawer_ids),)).fetchall()


def files_numbered(conn: sqlite3.Connection, number: str, words: list[str], limit: int = 20) -> list[str]:
    """Drawers (ids, first drawer of each note first) of the notes whose path or title
    holds ``number`` as a whole number (``3077-contextual-logging/``, ``pep-0008.md``,
    "ADR 21: …"; leading zeros ignored) and, when ``words`` is not empty, one of them
    (``kep``, ``pep``, ``adr``, ``rfc``) in the path or title."""
    rows = conn.execute(
        "SELECT d.id, f.path, coalesce(f.title, '') AS title FROM drawers d JOIN files f ON f.id = d.file_id"
        " WHERE (f.path LIKE ? OR f.title LIKE ?) ORDER BY f.path, d.ordinal",
        (f"%{number}%", f"%{number}%")).fetchall()
    pattern = re.compile(rf"(?<![0-9])0*{re.escape(number.lstrip('0') or '0')}(?![0-9])")
    out: list[str] = []
    for row in rows:
        place = f"{row['path']} {row['title']}".lower()
        if pattern.search(place) and (not words or any(w in place for w in words)) and row["id"] not in out:
            out.append(row["id"])
        if len(out) >= limit:
            break
    return out
