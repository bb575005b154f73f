"""Reads of ``wing_readings``: how often each name is read in each wing, kept by the
triggers of migration 0010 through every write, and the lookups that find the names a
change can touch (:func:`palace.graph.resolution.resolve_wing` plans only those). Also the
family bases of names (``entity_bases``), filled as names are first resolved.

Every function runs inside the caller's transaction or reads a consistent snapshot.
"""

from __future__ import annotations

import json
import sqlite3

from palace.nlp.names import entity_key, legal_form, match_key, name_ends, project_base

__all__ = ["changed_names", "clear_changed", "ensure_bases", "bases_of", "readings", "ner_readings", "names_of",
           "wing_ids_with_keys", "wing_ids_starting", "families_in_wing",
           "wing_ids_containing", "folded_of", "wing_ids_folded", "wing_ids_with_word", "retype"]

_IN_WING = "EXISTS (SELECT 1 FROM wing_readings r WHERE r.wing = ? AND r.entity_id = e.id)"


def _ids(values) -> str:
    return json.dumps(sorted(values))


def changed_names(conn: sqlite3.Connection, wing: str) -> set[int]:
    """The raw entities whose readings or facts in ``wing`` changed since it was last
    resolved (marked by the triggers)."""
    return {r[0] for r in conn.execute("SELECT entity_id FROM readings_changed WHERE wing = ?", (wing,))}


def clear_changed(conn: sqlite3.Connection, wing: str) -> None:
    """``wing`` is resolved: nothing of it is pending."""
    conn.execute("DELETE FROM readings_changed WHERE wing = ?", (wing,))


def readings(conn: sqlite3.Connection, wing: str, ids=None) -> list[tuple[int, str, str, str, int]]:
    """``(entity id, name, key, label, times)`` for every name read in ``wing`` (or only
    ``ids``), by label, NER and lower-case links together, ordered by entity id."""
    sql = ("SELECT r.entity_id, e.name, e.key, r.label, sum(r.n) FROM wing_readings r JOIN entities e"
           " ON e.id = r.entity_id WHERE r.wing = ?")
    args: list = [wing]
    if ids is not None:
        sql += " AND r.entity_id IN (SELECT value FROM json_each(?))"
        args.append(_ids(ids))
    return [tuple(r) for r in conn.execute(sql + " GROUP BY r.entity_id, r.label ORDER BY r.entity_id, r.label", args)]


def ner_readings(conn: sqlite3.Connection, wing: str, ids=None) -> dict[int, tuple[str, str, dict[str, int]]]:
    """``{entity id: (name, key, {label: times})}`` of the names NER read in ``wing`` (not
    lower-case links), for every name or only ``ids``."""
    sql = ("SELECT r.entity_id, e.name, e.key, r.label, r.n FROM wing_readings r JOIN entities e ON e.id = r.entity_id"
           " WHERE r.wing = ? AND r.ner = 1")
    args: list = [wing]
    if ids is not None:
        sql += " AND r.entity_id IN (SELECT value FROM json_each(?))"
        args.append(_ids(ids))
    out: dict[int, tuple[str, str, dict[str, int]]] = {}
    for eid, name, key, label, n in conn.execute(sql + " ORDER BY r.entity_id, r.label", args):
        out.setdefault(eid, (name, key, {}))[2][label] = n
    return out


def names_of(conn: sqlite3.Connection, ids) -> dict[int, tuple[str, str]]:
    """``{entity id: (name, key)}``."""
    return {r[0]: (r[1], r[2]) for r in conn.execute(
        "SELECT id, name, key FROM entities WHERE id IN (SELECT value FROM json_each(?))", (_ids(ids),))}


def ensure_bases(conn: sqlite3.Connection, ids) -> None:
    """Record the family bases of the names ``ids`` that have none yet: the key of the
    name without its legal suffix ("acme" of "Acme Inc."), and of the name of a project
    ("falcon" of "Project Falcon"); None where the name is its own base."""
    missing = conn.execute(
        "SELECT id, name FROM entities WHERE id IN (SELECT value FROM json_each(?))"
        " AND id NOT IN (SELECT entity_id FROM entity_bases)", (_ids(ids),)).fetchall()
    rows = []
    for eid, name in missing:
        key = entity_key(name)
        form = legal_form(name)
        legal = entity_key(form[0]) if form else None
        project = project_base(name)
        project = entity_key(project) if project is not None else None
        ends = name_ends(name) or (None, None)
        rows.append((eid, legal if legal != key else None, project if project != key else None, match_key(name),
                     *ends))
    conn.executemany("INSERT INTO entity_bases (entity_id, legal_base, project_base, folded, first_word, last_word)"
                     " VALUES (?, ?, ?, ?, ?, ?)", rows)


def folded_of(conn: sqlite3.Connection, ids) -> dict[int, tuple[str, str | None, str | None]]:
    """``{entity id: (match key, first word, last word)}`` (see :func:`ensure_bases`;
    the words None for a name of one word)."""
    return {r[0]: (r[1], r[2], r[3]) for r in conn.execute(
        "SELECT entity_id, folded, first_word, last_word FROM entity_bases WHERE entity_id IN"
        " (SELECT value FROM json_each(?))", (_ids(ids),))}


def wing_ids_folded(conn: sqlite3.Connection, wing: str, folded) -> set[int]:
    """The names read in ``wing`` whose match key (diacritics and case folded) is one of
    ``folded``: the spellings of one name ("Beránek", "Beranek")."""
    return {r[0] for r in conn.execute(
        f"SELECT e.id FROM entity_bases b JOIN entities e ON e.id = b.entity_id"
        f" WHERE b.folded IN (SELECT value FROM json_each(?)) AND {_IN_WING}", (json.dumps(sorted(folded)), wing))}


def wing_ids_with_word(conn: sqlite3.Connection, wing: str, words) -> set[int]:
    """The names of several words read in ``wing`` whose first or last word (as match
    keys) is one of ``words``: the full names a first name or a surname may stand for."""
    args = (json.dumps(sorted(words)), wing)
    return {r[0] for column in ("first_word", "last_word") for r in conn.execute(
        f"SELECT e.id FROM entity_bases b JOIN entities e ON e.id = b.entity_id"
        f" WHERE b.{column} IN (SELECT value FROM json_each(?)) AND {_IN_WING}", args)}


def bases_of(conn: sqlite3.Connection, ids) -> dict[int, tuple[str | None, str | None]]:
    """``{entity id: (legal base, project base)}`` (see :func:`ensure_bases`)."""
    return {r[0]: (r[1], r[2]) for r in conn.execute(
        "SELECT entity_id, legal_base, project_base FROM entity_bases WHERE entity_id IN"
        " (SELECT value FROM json_each(?))", (_ids(ids),))}


def wing_ids_with_keys(conn: sqlite3.Connection, wing: str, keys) -> set[int]:
    """The names read in ``wing`` whose key is one of ``keys``."""
    return {r[0] for r in conn.execute(
        f"SELECT e.id FROM entities e WHERE e.key IN (SELECT value FROM json_each(?)) AND {_IN_WING}",
        (json.dumps(sorted(keys)), wing))}


def wing_ids_starting(conn: sqlite3.Connection, wing: str, words) -> set[int]:
    """The names read in ``wing`` whose key starts with one of ``words`` and a space
    ("alice chen" for "alice"): a range of the key index per word."""
    out: set[int] = set()
    for word in sorted(words):
        out |= {r[0] for r in conn.execute(
            f"SELECT e.id FROM entities e WHERE e.key >= ? AND e.key < ? AND {_IN_WING}", (word + " ", word + "!", wing))}
    return out


def families_in_wing(conn: sqlite3.Connection, wing: str, bases) -> tuple[set[str], set[int]]:
    """``(families, members)``: those of ``bases`` that are the legal or project base of a
    name read in ``wing``, and the names of the wing whose base they are."""
    families: set[str] = set()
    members: set[int] = set()
    for column in ("legal_base", "project_base"):
        for eid, base in conn.execute(
                f"SELECT e.id, b.{column} FROM entity_bases b JOIN entities e ON e.id = b.entity_id"
                f" WHERE b.{column} IN (SELECT value FROM json_each(?)) AND {_IN_WING}", (json.dumps(sorted(bases)), wing)):
            families.add(base)
            members.add(eid)
    return families, members


def wing_ids_containing(conn: sqlite3.Connection, wing: str, keys) -> set[int]:
    """The names read in ``wing`` whose key holds one of ``keys`` (as a substring: the
    caller checks whole words); one pass over the wing's names."""
    if not keys:
        return set()
    return {r[0] for r in conn.execute(
        "SELECT DISTINCT r.entity_id FROM wing_readings r JOIN entities e ON e.id = r.entity_id"
        " WHERE r.wing = ? AND EXISTS (SELECT 1 FROM json_each(?) k WHERE instr(e.key, k.value) > 0)",
        (wing, json.dumps(sorted(keys))))}


def retype(conn: sqlite3.Connection, ids=None, wing: str | None = None) -> None:
    """Each entity of ``ids`` (or every entity read in ``wing``) takes the majority label
    of its mentions in every wing (ties: PERSON, then alphabetical)."""
    if ids is not None:
        where, args = "id IN (SELECT value FROM json_each(?))", (_ids(ids),)
    else:
        where, args = "id IN (SELECT entity_id FROM wing_readings WHERE wing = ?)", (wing,)
    conn.execute(
        "UPDATE entities SET type = coalesce(nullif((SELECT label FROM wing_readings r WHERE r.entity_id = entities.id"
        " GROUP BY label ORDER BY sum(n) DESC, label != 'PERSON', label LIMIT 1), ''), type)"
        f" WHERE {where}", args)
