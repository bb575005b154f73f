"""Reading entities: the one lookup of a name or alias (:func:`find_entities`), and the
small reads about entities the graph flows make (names, aliases, where they are
mentioned, the search of names by their words, their count)."""

from __future__ import annotations

import difflib
import re
import sqlite3

from palace.errors import UsageError
from palace.nlp.names import entity_key

__all__ = ["find_entities", "entity_named", "entity_by_key", "entity_names", "entity_name", "entity_type", "entity_kinds",
           "aliases_of", "alias_entries", "home_wing", "mentioned_in_wing", "aliases_with_words", "all_entities", "count_entities",
           "close_names"]


def find_entities(conn: sqlite3.Connection, name: str) -> list[sqlite3.Row]:
    """Entities whose name or alias has the key of ``name``, most mentioned first: rows
    of ``id``, ``name``, ``type`` and ``n`` (mentions).

    Raises :class:`UsageError` (with the closest known names as a hint) when none does.
    """
    key = entity_key(re.sub(r"['’][sS]$", "", name.strip()))
    # entities carrying the name or alias, and every entity of the same name under other
    # types (an alias of a note's concept reaches the NER entities of that name too)
    rows = conn.execute(
        "SELECT e.id, e.name, e.type, (SELECT count(*) FROM mentions m WHERE m.entity_id = e.id) AS n"
        " FROM entities e WHERE e.key IN (SELECT x.key FROM entities x JOIN aliases a ON a.entity_id = x.id"
        " WHERE a.key = ?) ORDER BY n DESC, e.id",
        (key,),
    ).fetchall()
    if not rows:
        names = [r[0] for r in conn.execute("SELECT DISTINCT name FROM entities")]
        lowered = {n.casefold(): n for n in names}
        close = [lowered[c] for c in difflib.get_close_matches(name.casefold(), list(lowered), n=5, cutoff=0.6)]
        raise UsageError(
            f"no entity named {name!r} in this palace",
            hint=("did you mean: " + ", ".join(close)) if close else "run `palace mine DIR` on notes that name it",
        )
    return rows


def entity_named(conn: sqlite3.Connection, name: str) -> sqlite3.Row:
    """The entity of that exact name (``id``, ``name``, ``key``), else the one an alias
    stands for (:func:`find_entities`, with its "did you mean" hint): "Mum" is the
    entity Mum even once it is an alias of Ruth. Raises :class:`UsageError`."""
    exact = entity_by_key(conn, entity_key(name))
    if exact is not None:
        return exact
    row = find_entities(conn, name)[0]
    return conn.execute("SELECT id, name, key FROM entities WHERE id = ?", (row["id"],)).fetchone()


def entity_by_key(conn: sqlite3.Connection, key: str) -> sqlite3.Row | None:
    """The entity of a name key (``id``, ``name``, ``key``; the first of several types), or None."""
    return conn.execute("SELECT id, name, key FROM entities WHERE key = ?", (key,)).fetchone()


def entity_name(conn: sqlite3.Connection, entity_id: int) -> str:
    """The name of the entity of that id."""
    return conn.execute("SELECT name FROM entities WHERE id = ?", (entity_id,)).fetchone()[0]


def entity_type(conn: sqlite3.Connection, entity_id: int) -> str:
    """The type of the entity of that id."""
    return conn.execute("SELECT type FROM entities WHERE id = ?", (entity_id,)).fetchone()[0]


def entity_names(conn: sqlite3.Connection, ids) -> set[str]:
    """The names of the entities of ``ids``."""
    ids = tuple(ids)
    return {n for (n,) in conn.execute(f"SELECT name FROM entities WHERE id IN ({_marks(ids)})", ids)}


def entity_kinds(conn: sqlite3.Connection, ids) -> dict[int, tuple[str, str]]:
    """``{id: (name, type)}`` of the entities of ``ids``."""
    ids = tuple(ids)
    if not ids:
        return {}
    return {r["id"]: (r["name"], r["type"])
            for r in conn.execute(f"SELECT id, name, type FROM entities WHERE id IN ({_marks(ids)})", ids)}


def aliases_of(conn: sqlite3.Connection, ids) -> tuple[str, ...]:
    """Every alias of the entities of ``ids``, sorted, each once."""
    ids = tuple(ids)
    return tuple(sorted({a for (a,) in conn.execute(f"SELECT alias FROM aliases WHERE entity_id IN ({_marks(ids)})",
                                                    ids)}))


def alias_entries(conn: sqlite3.Connection, entity_id: int) -> list[tuple[str, str]]:
    """``(alias, source)`` of one entity: its own name first, then alphabetical."""
    return [tuple(r) for r in conn.execute(
        "SELECT alias, source FROM aliases WHERE entity_id = ? ORDER BY source = 'name' DESC, alias", (entity_id,))]


def home_wing(conn: sqlite3.Connection, entity_id: int) -> str | None:
    """The wing that mentions the entity most (the first by name on a tie), or None."""
    row = conn.execute(
        "SELECT f.wing FROM mentions m JOIN drawers d ON d.id = m.drawer_id JOIN files f ON f.id = d.file_id"
        " WHERE m.entity_id = ? GROUP BY f.wing ORDER BY count(*) DESC, f.wing LIMIT 1", (entity_id,)).fetchone()
    return row[0] if row else None


def mentioned_in_wing(conn: sqlite3.Connection, ids, wing: str) -> bool:
    """Whether one of the entities of ``ids`` is mentioned in ``wing``."""
    ids = tuple(ids)
    return conn.execute(
        f"SELECT 1 FROM mentions m JOIN drawers d ON d.id = m.drawer_id JOIN files f ON f.id = d.file_id"
        f" WHERE m.entity_id IN ({_marks(ids)}) AND f.wing = ? LIMIT 1", (*ids, wing)).fetchone() is not None


def aliases_with_words(conn: sqlite3.Connection, words: list[str], wing: str | None = None) -> list[sqlite3.Row]:
    """The aliases whose key holds one of ``words`` (a substring; the caller checks
    whole words), of entities mentioned in ``wing`` when given: rows of the entity's
    ``id``, ``name``, ``key``, ``type``, the ``alias``, its ``alias_key`` and ``n`` (the
    entity's mentions)."""
    like = " OR ".join("a.key LIKE ?" for _ in words)
    sql = (f"SELECT e.id, e.name, e.key, e.type, a.alias, a.key AS alias_key,"
           f" (SELECT count(*) FROM mentions m WHERE m.entity_id = e.id) AS n"
           f" FROM aliases a JOIN entities e ON e.id = a.entity_id WHERE ({like})")
    params: list = [f"%{w}%" for w in words]
    if wing:
        sql += (" AND EXISTS (SELECT 1 FROM mentions m JOIN drawers d ON d.id = m.drawer_id"
                " JOIN files f ON f.id = d.file_id WHERE m.entity_id = e.id AND f.wing = ?)")
        params.append(wing)
    return conn.execute(sql, params).fetchall()


def close_names(conn: sqlite3.Connection, name: str, *, wing: str | None = None, limit: int = 5) -> list[str]:
    """The names and aliases closest to ``name`` (difflib's ratio ≥ 0.6 on lower case),
    best first, at most ``limit``: of every entity, or with ``wing`` of the entities
    mentioned in it or named by a fact read there (a caller limited to one wing hears of
    no other)."""
    sql = "SELECT DISTINCT a.alias FROM aliases a"
    params: tuple = ()
    if wing is not None:
        sql += (" WHERE EXISTS (SELECT 1 FROM mentions m JOIN drawers d ON d.id = m.drawer_id JOIN files f"
                " ON f.id = d.file_id WHERE m.entity_id = a.entity_id AND f.wing = ?)"
                " OR EXISTS (SELECT 1 FROM facts x WHERE (x.subject_id = a.entity_id OR x.object_id = a.entity_id)"
                " AND x.wing = ?)")
        params = (wing, wing)
    lowered: dict[str, str] = {}
    for (alias,) in conn.execute(sql, params):
        lowered.setdefault(alias.casefold(), alias)
    return [lowered[c] for c in difflib.get_close_matches(name.casefold(), list(lowered), n=limit, cutoff=0.6)]


def all_entities(conn: sqlite3.Connection) -> list[dict]:
    """Every entity, by id: ``{id, name, type, key, aliases: [{alias, source}]}`` (aliases
    by alias), as the export writes them."""
    aliases: dict[int, list[dict]] = {}
    for entity_id, alias, source in conn.execute("SELECT entity_id, alias, source FROM aliases ORDER BY entity_id, alias"):
        aliases.setdefault(entity_id, []).append({"alias": alias, "source": source})
    return [{"id": r["id"], "name": r["name"], "type": r["type"], "key": r["key"], "aliases": aliases.get(r["id"], [])}
            for r in conn.execute("SELECT id, name, type, key FROM entities ORDER BY id")]


def count_entities(conn: sqlite3.Connection) -> int:
    """How many entities the palace holds."""
    return conn.execute("SELECT count(*) FROM entities").fetchone()[0]


def _marks(values) -> str:
    return ",".join("?" * len(values))
