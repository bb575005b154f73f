"""Reads of ``palace map`` (:mod:`palace.graph.map`): which entities the facts say most
about, the entities' names, types, mentions and aliases, and the two ends of each fact.

Every read takes a :class:`palace.store.facts.FactFilter` for the facts that count (their
states, wings, window), so the map counts exactly the facts it draws. Lists of ids travel
as one JSON array parameter (``json_each``): no limit on their number.
"""

from __future__ import annotations

import json
import sqlite3

from palace.store.facts import FactFilter

__all__ = ["entity_activity", "count_entities", "entity_rows", "aliases_by_entity", "fact_ends", "entity_names_ranked"]

#: SQL of a JSON array parameter as rows (``value``)
IDS = "SELECT value FROM json_each(?)"


def entity_activity(conn: sqlite3.Connection, wanted: FactFilter, registry: dict, *, limit: int,
                    among: tuple[int, ...] | None = None) -> list[tuple[int, int]]:
    """``(entity id, facts)``: the entities the facts ``wanted`` name (as subject or
    entity object), those named by the most facts first (ties: the lower id), at most
    ``limit``; only the entities of ``among`` when given."""
    where, params = wanted.where(registry)
    sql = (f"SELECT e, count(*) AS n FROM (SELECT f.subject_id AS e FROM facts f WHERE {where}"
           f" UNION ALL SELECT f.object_id FROM facts f WHERE f.object_id IS NOT NULL AND {where})")
    values: list = [*params, *params]
    if among is not None:
        sql += f" WHERE e IN ({IDS})"
        values.append(json.dumps(list(among)))
    return [(r[0], r[1]) for r in conn.execute(sql + " GROUP BY e ORDER BY n DESC, e LIMIT ?", (*values, limit))]


def count_entities(conn: sqlite3.Connection, wanted: FactFilter, registry: dict) -> int:
    """How many entities (name keys: one name read under two types counts once) the facts
    ``wanted`` name, as subject or entity object."""
    where, params = wanted.where(registry)
    return conn.execute(
        f"SELECT count(DISTINCT e.key) FROM entities e WHERE e.id IN (SELECT f.subject_id FROM facts f WHERE {where}"
        f" UNION SELECT f.object_id FROM facts f WHERE f.object_id IS NOT NULL AND {where})",
        (*params, *params)).fetchone()[0]


def entity_rows(conn: sqlite3.Connection, ids) -> dict[int, sqlite3.Row]:
    """``{id: row}`` of the entities ``ids``: ``id``, ``name``, ``type``, ``key`` and
    ``mentions`` (how often the notes name it)."""
    return {r["id"]: r for r in conn.execute(
        f"SELECT e.id, e.name, e.type, e.key, (SELECT count(*) FROM mentions m WHERE m.entity_id = e.id) AS mentions"
        f" FROM entities e WHERE e.id IN ({IDS})", (json.dumps(list(ids)),))}


def aliases_by_entity(conn: sqlite3.Connection, ids) -> dict[int, list[str]]:
    """``{id: [alias, …]}`` of the entities ``ids``, aliases in alphabetical order."""
    out: dict[int, list[str]] = {}
    for entity_id, alias in conn.execute(
            f"SELECT entity_id, alias FROM aliases WHERE entity_id IN ({IDS}) ORDER BY entity_id, alias",
            (json.dumps(list(ids)),)):
        out.setdefault(entity_id, []).append(alias)
    return out


def fact_ends(conn: sqlite3.Connection, fact_ids) -> dict[int, tuple[int, int | None]]:
    """``{fact id: (subject id, object id or None for a literal value)}`` of ``fact_ids``."""
    return {r[0]: (r[1], r[2]) for r in conn.execute(
        f"SELECT id, subject_id, object_id FROM facts WHERE id IN ({IDS})", (json.dumps(list(fact_ids)),))}


def entity_names_ranked(conn: sqlite3.Connection, wanted: FactFilter, registry: dict, *, limit: int,
                        skip) -> list[str]:
    """The names of the entities the facts ``wanted`` name, most facts first, leaving out
    the entity ids ``skip``: at most ``limit``, each name once (for a search of what a
    map does not draw)."""
    skipped = set(skip)
    ranked = [e for e, _ in entity_activity(conn, wanted, registry, limit=limit + len(skipped))
              if e not in skipped][:limit]
    rows = entity_rows(conn, ranked)
    return list(dict.fromkeys(rows[e]["name"] for e in ranked if e in rows))
